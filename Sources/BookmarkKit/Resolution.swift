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
            switch core.location {
            case .path(let path): return path
            case .bytes(let bytes): return FilePath(bytes: bytes)
            }
        }
        set { edit { $0.location = .path(newValue) } }
    }
    /// How it was found.
    public var matchedBy: MatchKind {
        get { core.matchedBy }
        set { edit { $0.matchedBy = newValue } }
    }
    /// What differs from the recording; empty when nothing does.
    public var changes: Set<Change> {
        get { core.changes }
        set { edit { $0.changes = newValue } }
    }
    /// Resolved, but something recorded differs. Create a new bookmark from ``path``.
    public var isStale: Bool { !core.changes.isEmpty }
    /// Whether the object is inside a Trash directory.
    public var isInTrash: Bool {
        get { core.isInTrash }
        set { edit { $0.isInTrash = newValue } }
    }
    /// The volume as mounted now.
    public var volume: Volume {
        get { core.volume }
        set { edit { $0.volume = newValue } }
    }
    /// The object's identity now.
    public var fileID: FileID
    /// Directory entries read by the search (0 when no search ran).
    public var entriesSearched: Int {
        get { core.entriesSearched }
        set { edit { $0.entriesSearched = newValue } }
    }
    /// Notes about the resolution (such as "volume has no persistent identity: path only").
    public var notes: [String] {
        get { core.notes }
        set { edit { $0.notes = newValue } }
    }

    /// Everything but ``fileID``, in one immutable box shared by copies: a result is copied
    /// several times on its way out of a resolution and through Apple's API, and copying seven
    /// reference-counted fields each time was about a tenth of an unmoved resolution (perf,
    /// Docs/PERFORMANCE.md). A resolution repeated from ``UnmovedMemo`` shares its box with the
    /// memo's result and only sets ``fileID``. A setter makes a new box.
    private var core: Core

    private final class Core: Sendable {
        let location: Location
        let matchedBy: MatchKind
        let changes: Set<Change>
        let isInTrash: Bool
        let volume: Volume
        let entriesSearched: Int
        let notes: [String]

        init(_ fields: Fields) {
            location = fields.location
            matchedBy = fields.matchedBy
            changes = fields.changes
            isInTrash = fields.isInTrash
            volume = fields.volume
            entriesSearched = fields.entriesSearched
            notes = fields.notes
        }

        var fields: Fields {
            Fields(
                location: location, matchedBy: matchedBy, changes: changes, isInTrash: isInTrash, volume: volume,
                entriesSearched: entriesSearched, notes: notes)
        }
    }

    /// ``Core``'s fields, as values to edit.
    private struct Fields {
        var location: Location
        var matchedBy: MatchKind
        var changes: Set<Change>
        var isInTrash: Bool
        var volume: Volume
        var entriesSearched: Int
        var notes: [String]
    }

    /// ``path`` as it was given: a batch of a million bookmarks keeps each result's path as bytes,
    /// and the `FilePath` (whose every construction normalises the bytes) is made when it is read.
    private enum Location: Sendable {
        case path(FilePath)
        case bytes([UInt8])
    }

    /// Replaces ``core`` with an edited copy.
    private mutating func edit(_ change: (inout Fields) -> Void) {
        var fields = core.fields
        change(&fields)
        core = Core(fields)
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
        core = Core(Fields(
            location: location, matchedBy: matchedBy, changes: changes, isInTrash: isInTrash, volume: volume,
            entriesSearched: entriesSearched, notes: notes))
        self.fileID = fileID
    }
}
