// SPDX-License-Identifier: Apache-2.0
import FileIdentity
import Foundation
import SecureFiles

/// Who a bookmarked object is, as a ``LocationHintProvider`` is asked about it.
public struct BookmarkedIdentity: Sendable, Hashable {
    /// The recorded volume's UUID, if it has one.
    public var volumeUUID: String?
    /// The recorded inode number.
    public var inode: UInt64?
    /// The recorded inode generation, where recorded.
    public var generation: UInt64?
    /// The recorded birth time, nanoseconds since 1970, where recorded.
    public var bornNanoseconds: Int64?
    /// Whether the object is a directory.
    public var isDirectory: Bool
    /// The recorded path.
    public var recordedPath: [UInt8]
}

/// Where and when something (a volume catalog) last saw a bookmarked object.
public struct LastSighting: Sendable, Hashable, CustomStringConvertible {
    /// Its absolute path then (the volume's mount point then, and the path inside it).
    public var path: [UInt8]
    /// When it was seen.
    public var seen: Date
    /// The volume's label, if any.
    public var volumeLabel: String?
    /// Where the sighting comes from (a catalog file's path).
    public var source: String

    /// Creates a sighting.
    public init(path: [UInt8], seen: Date, volumeLabel: String?, source: String) {
        self.path = path
        self.seen = seen
        self.volumeLabel = volumeLabel
        self.source = source
    }

    /// `last catalogued at PATH on DATE (SOURCE)`.
    public var description: String {
        let date = ISO8601DateFormatter().string(from: seen)
        return "last catalogued at \(PathBytes(path).escaped) on \(date)" + (volumeLabel.map { " on drive \($0)" } ?? "") + " (\(source))"
    }
}

/// Knows where bookmarked objects were seen: a volume catalog (`BookmarkCatalog`). Resolution
/// asks it twice:
/// - when the volume is mounted but the object is not at its path: the later locations of the same
///   identity are tried, each verified by identity like the path, before any search (one `statx`
///   instead of a walk of the volume);
/// - when the volume is not mounted: the `volumeNotMounted` error carries the last sighting.
public protocol LocationHintProvider: Sendable {
    /// Paths inside the volume (from its top, starting with `/`) where the object was seen, best
    /// first. They are re-rooted at the volume's mount point now and verified; a wrong one costs
    /// one `statx`.
    func pathsInVolume(for identity: BookmarkedIdentity) -> [[UInt8]]
    /// The most recent sighting, for an error when the volume is not mounted.
    func lastSighting(for identity: BookmarkedIdentity) -> LastSighting?
}

extension Recorded {
    /// What a location hint provider is asked about.
    var identityForHints: BookmarkedIdentity {
        BookmarkedIdentity(
            volumeUUID: volumeUUID, inode: inode, generation: generation,
            bornNanoseconds: birthTime.map { $0.seconds &* 1_000_000_000 &+ Int64($0.nanoseconds) }, isDirectory: isDirectory,
            recordedPath: path)
    }
}

/// Paths inside a volume, as the volume is mounted now.
enum VolumePaths {
    /// `inVolume` (from the file system's top) at the mount point now: the mount's own root (a bind
    /// or subvolume mount) is taken off first.
    static func path(inVolume: [UInt8], on volume: Volume) -> [UInt8] {
        var below = inVolume
        if volume.root != [0x2F] {
            guard below.starts(with: volume.root) else { return volume.mountPoint + below }
            below.removeFirst(volume.root.count)
        }
        if below.isEmpty || below == [0x2F] { return volume.mountPoint }
        return volume.mountPoint == [0x2F] ? below : volume.mountPoint + below
    }
}
