// SPDX-License-Identifier: Apache-2.0
// BookmarkFormat: our Linux facts, stored under reverse-DNS string keys.

/// The string keys under which we store Linux-only facts. Apple's parsers treat string keys as
/// extra resource values, so bookmarks carrying them stay readable by mac_alias, fq and macOS.
/// Docs/FORMAT.md §3 defines each key's item and meaning.
package enum LinuxKeys: Sendable {
    /// The name of ``compact``.
    package static let compactName = "org.swift-bookmarks.linux"

    /// Data: every Linux fact in one versioned binary record (``CompactLinuxFacts``). What
    /// bookmarks are written with since 0.2.
    package static let compact = BookmarkKey.string(ByteString(compactName))

    /// The prefix of every other key we define: the 0.1 keys below and the signature of signed
    /// bookmarks. `compactName` followed by a dot, so all of them sort right after ``compact``.
    package static let prefix = compactName + "."

    // MARK: - The 0.1 layout: one key per fact, read when a bookmark has no compact item

    /// SInt64: the inode generation (`FS_IOC_GETVERSION`), as an unsigned bit pattern.
    package static let generation = BookmarkKey.string(ByteString(prefix + "generation"))
    /// SInt32: the `handle_type` of `name_to_handle_at`.
    package static let handleType = BookmarkKey.string(ByteString(prefix + "handleType"))
    /// Data: the `f_handle` bytes of `name_to_handle_at`.
    package static let handle = BookmarkKey.string(ByteString(prefix + "handle"))
    /// SInt64: birth time (`statx` `stx_btime`) in nanoseconds since 1970-01-01 UTC.
    package static let birthTime = BookmarkKey.string(ByteString(prefix + "birthTime"))
    /// SInt64: the btrfs subvolume id, as an unsigned bit pattern.
    package static let subvolumeID = BookmarkKey.string(ByteString(prefix + "subvolumeID"))
    /// String: where the volume UUID (`0x2011`) came from, one of ``VolumeUUIDSource``.
    package static let volumeUUIDSource = BookmarkKey.string(ByteString(prefix + "volumeUUIDSource"))
    /// String (bytes): the target's path relative to its mount point, with a leading `/`.
    package static let mountRelativePath = BookmarkKey.string(ByteString(prefix + "mountRelativePath"))
    /// String: the file-system type name from `/proc/self/mountinfo` (e.g. `ext4`).
    package static let fsType = BookmarkKey.string(ByteString(prefix + "fsType"))
    /// Data, 8 bytes: `statfs` `f_fsid`, `val[0]` then `val[1]`, each little-endian 32-bit.
    package static let fsid = BookmarkKey.string(ByteString(prefix + "fsid"))

    /// The nine keys of the 0.1 layout, which writing the facts removes.
    package static let legacy: [BookmarkKey] = [
        generation, handleType, handle, birthTime, subvolumeID, volumeUUIDSource, mountRelativePath, fsType, fsid,
    ]
}

/// Where a stored volume UUID came from, best first.
public struct VolumeUUIDSource: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The stored string.
    public var rawValue: String
    /// Creates a source from its stored string.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// `FS_IOC_GETFSUUID` (generic ioctl, Linux 6.5+).
    public static let fsUUIDIoctl = VolumeUUIDSource(rawValue: "ioctl.fsuuid")
    /// `EXT4_IOC_GETFSUUID`.
    public static let ext4Ioctl = VolumeUUIDSource(rawValue: "ioctl.ext4")
    /// `BTRFS_IOC_FS_INFO`.
    public static let btrfsIoctl = VolumeUUIDSource(rawValue: "ioctl.btrfs")
    /// libblkid probing of the block device.
    public static let blkid = VolumeUUIDSource(rawValue: "blkid")
    /// Synthesised from `statfs` `f_fsid` (weakest: not stable across reboots on every fs).
    public static let fsid = VolumeUUIDSource(rawValue: "fsid")

    /// The stored string.
    public var description: String { rawValue }
}

/// A Linux timestamp: seconds and nanoseconds since 1970-01-01 UTC.
public struct LinuxTimestamp: Sendable, Hashable, Comparable {
    /// Whole seconds (may be negative).
    public var seconds: Int64
    /// Nanoseconds, 0…999,999,999.
    public var nanoseconds: UInt32

    /// Creates a timestamp; whole seconds in `nanoseconds` carry into `seconds` (saturating).
    public init(seconds: Int64, nanoseconds: UInt32) {
        let (s, overflow) = seconds.addingReportingOverflow(Int64(nanoseconds / 1_000_000_000))
        self.seconds = overflow ? Int64.max : s
        self.nanoseconds = overflow ? 999_999_999 : nanoseconds % 1_000_000_000
    }

    /// Creates a timestamp from nanoseconds since the epoch.
    public init(totalNanoseconds: Int64) {
        var s = totalNanoseconds / 1_000_000_000
        var ns = totalNanoseconds % 1_000_000_000
        if ns < 0 { ns += 1_000_000_000; s -= 1 }
        self.seconds = s
        self.nanoseconds = UInt32(ns)
    }

    /// Nanoseconds since the epoch, or `nil` if that overflows 64 bits (beyond year 2262).
    public var totalNanoseconds: Int64? {
        let (m, o1) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        let (t, o2) = m.addingReportingOverflow(Int64(nanoseconds))
        return o1 || o2 ? nil : t
    }

    /// Orders by time.
    public static func < (l: LinuxTimestamp, r: LinuxTimestamp) -> Bool {
        (l.seconds, l.nanoseconds) < (r.seconds, r.nanoseconds)
    }
}

/// `statfs` `f_fsid`: two 32-bit words.
public struct LinuxFSID: Sendable, Hashable {
    /// `val[0]`.
    public var val0: UInt32
    /// `val[1]`.
    public var val1: UInt32
    /// Creates an fsid.
    public init(_ val0: UInt32, _ val1: UInt32) {
        self.val0 = val0
        self.val1 = val1
    }
    /// The 8 stored bytes.
    public var bytes: [UInt8] { val0.littleEndianBytes + val1.littleEndianBytes }
    /// Decodes 8 bytes; `nil` for any other length.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 8 else { return nil }
        val0 = UInt32(littleEndianBytes: Array(bytes[0..<4]))
        val1 = UInt32(littleEndianBytes: Array(bytes[4..<8]))
    }
}
