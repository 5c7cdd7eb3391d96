// SPDX-License-Identifier: Apache-2.0
import FileIdentity
import SecureFiles
import SystemPackage

/// How a resolution found its object. See Docs/RESOLUTION.md for the order of attempts.
public enum MatchKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// The recorded path (re-rooted at the volume's mount point) holds the recorded object.
    case path
    /// Another object of the same kind now sits at the recorded path: an atomic save or a
    /// delete-and-recreate. Always stale.
    case replacedAtPath
    /// The object at the recorded path is a later save of the recorded one: a package saved
    /// atomically by `FileWrapper` (a new inode at every save) records the objects it replaced
    /// (`SuccessionRecord`), and the recorded inode and birth time are among them. Not stale.
    case savedInPlace
    /// The recorded parent directory was found elsewhere (renamed or moved) with the name inside.
    case parent
    /// `open_by_handle_at` found the object (needs `CAP_DAC_READ_SEARCH`).
    case handle
    /// The outward search found the object's inode, confirmed by generation and birth time.
    case search
    /// The recorded path relative to the bookmark's base, under the base given now.
    case relative
    /// Name, size and birth time matched on another volume (opt-in).
    case heuristic
    /// A later location from ``ResolutionOptions/locationHints`` (a volume catalog), verified by
    /// identity before any search.
    case catalog
}

/// Something recorded in a bookmark that differs from what resolution found.
public enum Change: String, Sendable, Hashable, Codable, CaseIterable {
    /// The full path differs.
    case path
    /// The last component differs.
    case name
    /// The parent directory's path differs.
    case parent
    /// A different object (new inode or generation) stands where the recorded one stood.
    case fileIdentity
    /// The volume is mounted somewhere else.
    case volumeMountPoint
    /// The volume's name (label) differs.
    case volumeName

    /// The changes in declaration order (how the CLI and the docs list them).
    package static func ordered(_ changes: Set<Change>) -> [Change] {
        allCases.filter(changes.contains)
    }
}

/// The result of resolving a bookmark: where the object is, and why we think so.
public struct Resolution: Sendable {
    /// Where the object is now.
    public var path: FilePath {
        get {
            switch location {
            case .path(let path): return path
            case .bytes(let bytes): return FilePath(bytes: bytes)
            }
        }
        set { location = .path(newValue) }
    }
    /// ``path`` as it was given: a batch of a million bookmarks keeps each result's path as bytes,
    /// and the `FilePath` (whose every construction normalises the bytes) is made when it is read.
    private var location: Location
    /// How it was found.
    public var matchedBy: MatchKind
    /// What differs from the recording; empty when nothing does.
    public var changes: Set<Change>
    /// Resolved, but something recorded differs. Create a new bookmark from ``path``.
    public var isStale: Bool { !changes.isEmpty }
    /// Whether the object is inside a Trash directory.
    public var isInTrash: Bool
    /// The volume as mounted now.
    public var volume: Volume
    /// The object's identity now.
    public var fileID: FileID
    /// Directory entries read by the search (0 when no search ran).
    public var entriesSearched: Int
    /// Notes about the resolution (such as "volume has no persistent identity: path only").
    public var notes: [String]

    private enum Location: Sendable {
        case path(FilePath)
        case bytes([UInt8])
    }

    init(
        path: FilePath, matchedBy: MatchKind, changes: Set<Change>, isInTrash: Bool, volume: Volume, fileID: FileID,
        entriesSearched: Int, notes: [String]
    ) {
        self.init(
            location: .path(path), matchedBy: matchedBy, changes: changes, isInTrash: isInTrash, volume: volume,
            fileID: fileID, entriesSearched: entriesSearched, notes: notes)
    }

    /// A result whose path is the absolute path `pathBytes` (made a `FilePath` when read).
    init(
        pathBytes: [UInt8], matchedBy: MatchKind, changes: Set<Change>, isInTrash: Bool, volume: Volume,
        fileID: FileID, entriesSearched: Int, notes: [String]
    ) {
        self.init(
            location: .bytes(pathBytes), matchedBy: matchedBy, changes: changes, isInTrash: isInTrash, volume: volume,
            fileID: fileID, entriesSearched: entriesSearched, notes: notes)
    }

    private init(
        location: Location, matchedBy: MatchKind, changes: Set<Change>, isInTrash: Bool, volume: Volume,
        fileID: FileID, entriesSearched: Int, notes: [String]
    ) {
        self.location = location
        self.matchedBy = matchedBy
        self.changes = changes
        self.isInTrash = isInTrash
        self.volume = volume
        self.fileID = fileID
        self.entriesSearched = entriesSearched
        self.notes = notes
    }
}

