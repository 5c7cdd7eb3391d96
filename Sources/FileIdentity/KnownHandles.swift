// SPDX-License-Identifier: Apache-2.0
import SecureFiles

/// The file handles (and the generations they carry) of objects looked up recently, by mount and
/// inode, so that looking the same object up again needs only its `statx`.
///
/// The same inode and the same birth time, to the nanosecond, on one mount are the same object
/// (`FileID.lookUpKnown` rests on the same fact): a reused inode number gets a new birth time. A
/// handle names an inode and its generation, which change only together with the birth time, so
/// a known handle is still the object's handle. Only local file systems that report birth times
/// are cached. Saving `name_to_handle_at` (a second path walk) is most of what separates creating
/// a bookmark of a file from its bare `statx` (Docs/PERFORMANCE.md: `url.bookmarkData()`).
/// Bound: 4,096 objects, then it starts over.
final class KnownHandles: Sendable {
    static let shared = KnownHandles()
    private static let capacity = 4096

    struct Key: Hashable {
        var mount: UInt64
        var inode: UInt64
    }

    struct Entry {
        var birthTime: Timestamp
        var handle: FileHandleData
        var generation: UInt32?
    }

    private let known = Locked([Key: Entry]())

    /// The key of what `status` describes: its unique mount id where the kernel gives one (never
    /// reused during a boot), else its reusable one.
    static func key(_ status: FileStatus) -> Key? {
        if let unique = status.uniqueMountID { return Key(mount: unique.rawValue, inode: status.inode) }
        if let id = status.mountID { return Key(mount: UInt64(UInt32(bitPattern: id.rawValue)) | 1 << 63, inode: status.inode) }
        return nil
    }

    /// The known handle and generation of the object `status` describes, when it is the one seen
    /// before (same birth time).
    func handle(for status: FileStatus) -> Entry? {
        guard let born = status.birthTime, let key = Self.key(status),
            let entry = known.withLock({ $0[key] }), entry.birthTime == born
        else { return nil }
        return entry
    }

    /// Remembers the handle of the object `status` describes.
    func remember(_ handle: FileHandleData, generation: UInt32?, for status: FileStatus) {
        guard let born = status.birthTime, let key = Self.key(status) else { return }
        known.withLock { table in
            if table.count >= Self.capacity { table.removeAll() }
            table[key] = Entry(birthTime: born, handle: handle, generation: generation)
        }
    }
}
