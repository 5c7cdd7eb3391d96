// SPDX-License-Identifier: Apache-2.0
import Foundation

/// What kind of object an entry is.
public enum CatalogEntryKind: Int, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// A regular file.
    case file = 0
    /// A directory.
    case directory = 1
    /// A symbolic link (never followed; its target is recorded).
    case symlink = 2
    /// A FIFO, socket or device node.
    case other = 3

    /// `file`, `directory`, `symlink` or `other`.
    public var description: String {
        switch self {
        case .file: "file"
        case .directory: "directory"
        case .symlink: "symlink"
        case .other: "other"
        }
    }

    /// The kind named by `description`, or by `find`'s one-letter `-type` spelling (`f`, `d`, `l`).
    public init?(name: String) {
        switch name {
        case "file", "f": self = .file
        case "directory", "dir", "d": self = .directory
        case "symlink", "link", "l": self = .symlink
        case "other", "o": self = .other
        default: return nil
        }
    }
}

/// A volume as a catalog records it: its identity and where it was mounted when scanned.
public struct CatalogVolume: Sendable, Hashable, Codable {
    /// The catalog's row id.
    public var id: Int64
    /// The volume's UUID (or the `f_fsid`-derived identifier), `nil` for a volume without one
    /// (tmpfs, network file systems): such a volume is known by `source` and `fsType` only.
    public var uuid: String?
    /// Where the UUID came from (FileIdentity's `UUIDSource` raw value: `FS_IOC_GETFSUUID`, `blkid`, …).
    public var uuidSource: String
    /// The file-system label, if any.
    public var label: String?
    /// The file-system type (`ext4`, `xfs`, `btrfs`, `tmpfs`, …).
    public var fsType: String
    /// The mount source (`/dev/sdb1`, `server:/export`, `tmpfs`).
    public var source: String
    /// Where it was mounted at the last scan, as bytes.
    public var mountPoint: [UInt8]
    /// Whether its identity survives a remount (a UUID): only then can a later scan or a bookmark
    /// be matched to it after it was unmounted.
    public var isPersistent: Bool
}

/// One entry of a catalog: a file, directory, link or other object as last seen.
public struct CatalogEntry: Sendable, Hashable, Codable {
    /// The catalog's row id (stable across re-scans while the object lives).
    public var id: Int64
    /// The parent directory's row id; `nil` for a scan root.
    public var parentID: Int64?
    /// The volume's row id.
    public var volumeID: Int64
    /// The name, exact bytes (for a root: its last path component).
    public var name: [UInt8]
    /// The absolute path at the last scan (the mount point then, and the path in the volume).
    public var path: [UInt8]
    /// What it is.
    public var kind: CatalogEntryKind
    /// Size in bytes.
    public var size: UInt64
    /// `st_mode` (type and permission bits).
    public var mode: UInt32
    /// Owner.
    public var uid: UInt32
    /// Group.
    public var gid: UInt32
    /// Modification time, nanoseconds since 1970.
    public var modifiedNanoseconds: Int64
    /// Status change time, nanoseconds since 1970.
    public var changedNanoseconds: Int64
    /// Birth time, nanoseconds since 1970, where the file system records it.
    public var bornNanoseconds: Int64?
    /// Inode number.
    public var inode: UInt64
    /// Inode generation, from the file handle, where the file system has one.
    public var generation: UInt32?
    /// A symbolic link's target, exact bytes.
    public var linkTarget: [UInt8]?
    /// SHA-256 of the contents, when the scan hashed it.
    public var sha256: [UInt8]?
    /// When a scan first saw it.
    public var firstSeen: Date
    /// When a scan last saw it.
    public var lastSeen: Date
    /// When a scan found it gone; `nil` while it exists as far as the catalog knows.
    public var deleted: Date?

    /// The modification time as a `Date`.
    public var modified: Date { Date(timeIntervalSince1970: Double(modifiedNanoseconds) / 1e9) }
}

/// A scanned root and everything catalogued under it, parents before children: what the exports
/// write.
public struct CatalogRootSnapshot: Sendable {
    /// The volume.
    public var volume: CatalogVolume
    /// The root's absolute path at its last scan.
    public var rootPath: [UInt8]
    /// When the last complete scan of the root finished (or the last one started, if none finished).
    public var scannedAt: Date
    /// Every live entry under the root (the root first), each after its parent.
    public var entries: [CatalogEntry]
}
