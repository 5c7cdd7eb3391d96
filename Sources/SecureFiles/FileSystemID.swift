// SPDX-License-Identifier: Apache-2.0
/// A file system's `f_fsid` as `statfs(2)` reports it: two 32-bit words.
///
/// What it means depends on the file system: on ext4 it is folded from the UUID and on btrfs
/// from the fsid and the subvolume (so it survives remounts), on XFS it is the device number, on
/// tmpfs it is random per mount. It is not a UUID; callers decide when it may stand in for one.
public struct FileSystemID: Sendable, Hashable, CustomStringConvertible {
    /// `f_fsid.val[0]`.
    public var val0: UInt32
    /// `f_fsid.val[1]`.
    public var val1: UInt32

    /// Creates an fsid from its two words, in the kernel's order.
    public init(_ val0: UInt32, _ val1: UInt32) {
        self.val0 = val0
        self.val1 = val1
    }

    /// Whether both words are zero (file systems that do not set it).
    public var isZero: Bool { val0 == 0 && val1 == 0 }

    /// `xxxxxxxx:xxxxxxxx`: each word as eight lowercase hex digits, `val[0]` first.
    public var description: String { Self.hex(val0) + ":" + Self.hex(val1) }

    private static func hex(_ value: UInt32) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: 8 - text.count) + text
    }
}
