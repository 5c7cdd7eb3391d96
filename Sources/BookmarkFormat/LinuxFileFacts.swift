// SPDX-License-Identifier: Apache-2.0
// BookmarkFormat: the Linux facts a bookmark carries beside Apple's keys.

/// The Linux facts a bookmark made on Linux carries, beside Apple's keys: what identifies the
/// file (generation, handle, birth time, subvolume), where it was below its mount point, and how
/// its volume was identified.
///
/// Stored as one data item under the string key `org.swift-bookmarks.linux`; bookmarks written
/// by 0.1 stored one string key per fact, and still read the same (Docs/FORMAT.md §3).
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
    /// Path relative to the mount point, with a leading `/` (`/` for the mount point itself; the
    /// whole path when the volume is mounted at `/`).
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
    public var isEmpty: Bool {
        generation == nil && handleType == nil && handle == nil && birthTime == nil && subvolumeID == nil
            && volumeUUIDSource == nil && mountRelativePath == nil && fsType == nil && fsid == nil
    }
}
