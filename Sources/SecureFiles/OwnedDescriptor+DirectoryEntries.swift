// SPDX-License-Identifier: Apache-2.0
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// One entry of a directory, as `getdents64(2)` reports it: no `stat` per entry.
public struct DirectoryEntry: Sendable, Hashable {
    /// The name as raw bytes (never `.` or `..`).
    public var name: [UInt8]
    /// The inode number (`d_ino`). On btrfs, a subvolume's root shows the parent's placeholder number.
    public var inode: UInt64
    /// The type from `d_type`; ``FileKind/unknown`` on file systems that do not fill it.
    public var kind: FileKind

    /// Creates an entry.
    package init(name: [UInt8], inode: UInt64, kind: FileKind) {
        self.name = name
        self.inode = inode
        self.kind = kind
    }

    /// The name as a one-component path.
    public var path: FilePath { FilePath(platformString: (name.map { CChar(bitPattern: $0) }) + [0]) }
}

extension Sys {
    /// getdents64(2).
    static func getdents(_ fd: CInt, _ buffer: UnsafeMutableRawBufferPointer) -> Result<Int, Errno> {
        guard let base = buffer.baseAddress else { return .failure(.invalidArgument) }
        return throughSeam("getdents64", descriptor: fd) { Glibc.getdents64(fd, base, buffer.count) }
    }
}

extension OwnedDescriptor {
    /// Calls `body` for each entry of this directory (opened for reading with ``OpenOptions/directory``,
    /// not ``OpenOptions/pathOnly``), in the order the file system returns them, until `body`
    /// returns `false`. `.` and `..` are skipped.
    ///
    /// - Throws: ``FileSystemError`` naming `getdents64`.
    ///
    /// Implementation details: `getdents64(2)` into a 32 KiB buffer; one call per buffer, no
    /// `stat` per entry. The directory offset advances: reading again needs a new descriptor.
    package func forEachDirectoryEntry(_ body: (DirectoryEntry) -> Bool) throws(FileSystemError) {
        try forEachDirectoryEntryView { body($0.entry) }
    }

    /// ``forEachDirectoryEntry(_:)`` without copying each name: `body` sees the name in the read
    /// buffer, valid only during the call, and copies what it keeps (``DirectoryEntryView/entry``).
    /// A walk that looks for a few inodes copies the names of those and of directories only
    /// (copying every name was the largest cost of a whole-volume walk after the system calls).
    package func forEachDirectoryEntryView(_ body: (DirectoryEntryView) -> Bool) throws(FileSystemError) {
        // Not zero-filled: only the `count` bytes getdents64 wrote are read. (Zeroing 32 KiB per
        // directory was a third of a whole-volume walk's instructions.)
        var buffer = [UInt8](unsafeUninitializedCapacity: 32768) { _, initialized in initialized = 32768 }
        while true {
            let count = try using("getdents64") { fd in buffer.withUnsafeMutableBytes { Sys.getdents(fd, $0) } }
            if count <= 0 { return }
            let more = buffer.withUnsafeBytes { bytes -> Bool in
                var offset = 0
                while offset + 19 <= count {
                    let inode = bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self).littleEndian
                    let length = Int(bytes[offset + 16]) | Int(bytes[offset + 17]) << 8
                    guard length >= 19, offset + length <= count else { return false }
                    let type = bytes[offset + 18]
                    let start = offset + 19
                    var end = start
                    while end < offset + length && bytes[end] != 0 { end += 1 }
                    offset += length
                    // "." and "..".
                    let nameLength = end - start
                    if nameLength == 1, bytes[start] == 0x2E { continue }
                    if nameLength == 2, bytes[start] == 0x2E, bytes[start + 1] == 0x2E { continue }
                    let view = DirectoryEntryView(
                        nameBytes: UnsafeRawBufferPointer(rebasing: bytes[start..<end]), inode: inode,
                        kind: FileKind(directoryType: type))
                    if !body(view) { return false }
                }
                return true
            }
            if !more { return }
        }
    }

    /// All entries of this directory (see `forEachDirectoryEntry(_:)`), at most `limit`.
    public func directoryEntries(limit: Int = .max) throws(FileSystemError) -> [DirectoryEntry] {
        var entries: [DirectoryEntry] = []
        try forEachDirectoryEntry { entry in
            entries.append(entry)
            return entries.count < limit
        }
        return entries
    }
}

/// One directory entry as `getdents64` wrote it, read in place (see
/// `OwnedDescriptor.forEachDirectoryEntryView(_:)`): the name is valid only during the call.
package struct DirectoryEntryView {
    /// The name's bytes, in the read buffer.
    package let nameBytes: UnsafeRawBufferPointer
    /// The inode number (`d_ino`).
    package let inode: UInt64
    /// The type from `d_type`.
    package let kind: FileKind

    /// The entry, with its name copied.
    package var entry: DirectoryEntry { DirectoryEntry(name: Array(nameBytes), inode: inode, kind: kind) }

    /// Whether the name is `name`.
    package func hasName(_ name: [UInt8]) -> Bool { nameBytes.elementsEqual(name) }
}

extension FileKind {
    /// The kind for a `d_type` value (`DT_*`).
    public init(directoryType: UInt8) {
        switch directoryType {
        case 8: self = .regular
        case 4: self = .directory
        case 10: self = .symlink
        case 1: self = .fifo
        case 12: self = .socket
        case 2: self = .characterDevice
        case 6: self = .blockDevice
        default: self = .unknown
        }
    }
}
