// SPDX-License-Identifier: Apache-2.0
// BookmarkFormat: our Linux facts, stored under reverse-DNS string keys.

/// The string keys under which we store Linux-only facts. Apple's parsers treat string keys as
/// extra resource values, so bookmarks carrying them stay readable by mac_alias, fq and macOS.
/// Docs/FORMAT.md defines each key's item type and meaning.
package enum LinuxKeys: Sendable {
    /// The prefix of every key we define.
    package static let prefix = "org.swift-bookmarks.linux."

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
    /// String (bytes): the target's path relative to its mount point, without a leading `/`.
    package static let mountRelativePath = BookmarkKey.string(ByteString(prefix + "mountRelativePath"))
    /// String: the file-system type name from `/proc/self/mountinfo` (e.g. `ext4`).
    package static let fsType = BookmarkKey.string(ByteString(prefix + "fsType"))
    /// Data, 8 bytes: `statfs` `f_fsid`, `val[0]` then `val[1]`, each little-endian 32-bit.
    package static let fsid = BookmarkKey.string(ByteString(prefix + "fsid"))

    /// Every key we define.
    package static let all: [BookmarkKey] = [
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

/// The Linux facts a bookmark made on Linux carries, beside Apple's keys.
public struct LinuxFileFacts: Sendable, Hashable {
    /// Inode generation.
    public var generation: UInt64?
    /// File-handle type from `name_to_handle_at`.
    public var handleType: Int32?
    /// File-handle bytes from `name_to_handle_at`.
    public var handle: [UInt8]?
    /// Birth time from `statx`.
    public var birthTime: LinuxTimestamp?
    /// btrfs subvolume id.
    public var subvolumeID: UInt64?
    /// Where the volume UUID came from.
    public var volumeUUIDSource: VolumeUUIDSource?
    /// Path relative to the mount point (no leading `/`).
    public var mountRelativePath: ByteString?
    /// File-system type name.
    public var fsType: String?
    /// `statfs` `f_fsid`.
    public var fsid: LinuxFSID?

    /// Creates facts.
    public init(generation: UInt64? = nil, handleType: Int32? = nil, handle: [UInt8]? = nil,
                birthTime: LinuxTimestamp? = nil, subvolumeID: UInt64? = nil,
                volumeUUIDSource: VolumeUUIDSource? = nil, mountRelativePath: ByteString? = nil,
                fsType: String? = nil, fsid: LinuxFSID? = nil)
    {
        self.generation = generation
        self.handleType = handleType
        self.handle = handle
        self.birthTime = birthTime
        self.subvolumeID = subvolumeID
        self.volumeUUIDSource = volumeUUIDSource
        self.mountRelativePath = mountRelativePath
        self.fsType = fsType
        self.fsid = fsid
    }

    /// Whether no fact is set.
    public var isEmpty: Bool { self == LinuxFileFacts() }

    /// Reads the facts from `toc` (values of an unexpected type read as `nil`).
    package init(toc: BookmarkTOC) {
        self.init(toc: toc, includingVolumeFacts: true)
    }

    /// ``init(toc:)``, or the per-file facts alone (the volume's left `nil`).
    init(toc: BookmarkTOC, includingVolumeFacts: Bool) {
        generation = toc[LinuxKeys.generation]?.integerValue.map { UInt64(bitPattern: $0) }
        handleType = toc[LinuxKeys.handleType]?.integerValue.flatMap { Int32(exactly: $0) }
        handle = toc[LinuxKeys.handle]?.dataValue
        birthTime = toc[LinuxKeys.birthTime]?.integerValue.map(LinuxTimestamp.init(totalNanoseconds:))
        subvolumeID = toc[LinuxKeys.subvolumeID]?.integerValue.map { UInt64(bitPattern: $0) }
        mountRelativePath = toc[LinuxKeys.mountRelativePath]?.byteString
        guard includingVolumeFacts else { return }
        volumeUUIDSource = toc[LinuxKeys.volumeUUIDSource]?.stringValue.map(VolumeUUIDSource.init(rawValue:))
        fsType = toc[LinuxKeys.fsType]?.stringValue
        fsid = toc[LinuxKeys.fsid]?.dataValue.flatMap(LinuxFSID.init(bytes:))
    }

    /// Writes the facts into `toc`; `nil` fields remove their key.
    /// - Throws: ``BookmarkFormatError`` (`unencodable`) for a birth time beyond what 64-bit
    ///   nanoseconds hold (before 1678 or after 2262).
    package func apply(to toc: inout BookmarkTOC) throws(BookmarkFormatError) {
        try apply(to: &toc, includingVolumeFacts: true)
    }

    /// ``apply(to:)``, or without the volume's facts (UUID source, type, fsid), which are then
    /// left as they are in `toc`.
    func apply(to toc: inout BookmarkTOC, includingVolumeFacts: Bool) throws(BookmarkFormatError) {
        toc[LinuxKeys.generation] = generation.map { .int64(Int64(bitPattern: $0)) }
        toc[LinuxKeys.handleType] = handleType.map(BookmarkItem.int32)
        toc[LinuxKeys.handle] = handle.map(BookmarkItem.data)
        if let b = birthTime {
            guard let ns = b.totalNanoseconds else {
                throw BookmarkFormatError(.unencodable("birth time out of the 64-bit nanosecond range"), at: nil)
            }
            toc[LinuxKeys.birthTime] = .int64(ns)
        } else {
            toc[LinuxKeys.birthTime] = nil
        }
        toc[LinuxKeys.subvolumeID] = subvolumeID.map { .int64(Int64(bitPattern: $0)) }
        toc[LinuxKeys.mountRelativePath] = mountRelativePath.map(BookmarkItem.string)
        guard includingVolumeFacts else { return }
        toc[LinuxKeys.volumeUUIDSource] = volumeUUIDSource.map { .string($0.rawValue) }
        toc[LinuxKeys.fsType] = fsType.map { .string($0) }
        toc[LinuxKeys.fsid] = fsid.map { .data($0.bytes) }
    }
}
