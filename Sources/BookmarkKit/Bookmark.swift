// SPDX-License-Identifier: Apache-2.0
import BookmarkFormat
import FileIdentity
import SecureFiles
import SystemPackage

/// Bookmark data: a durable reference to a file or directory, in Apple's `book` layout.
///
/// Create one with ``create(for:options:resourceKeys:relativeTo:volumes:useAncestorCache:volumeResponseTimeout:)``, store
/// its ``data()`` anywhere, and later ``resolve(_:volumes:)`` it to find the object again after renames, moves, atomic saves and remounts.
public struct Bookmark: Sendable, Hashable {
    /// The decoded record (every key, including unknown ones, kept).
    public var record: BookmarkRecord {
        get {
            switch storage {
            case .record(let record): return record
            case .pending(let creation): return creation.record
            }
        }
        // In place: a `didSet` observer would make `bookmark.record.fileName = …` copy the
        // record first (get, then set), so the edit would copy its TOCs and entries as well. The
        // record is taken out of `storage` while it is edited, so it is not shared.
        _modify {
            forgetRecorded()
            var record: BookmarkRecord
            switch storage {
            case .record(let stored): record = stored
            case .pending(let creation): record = creation.recordForEditing()
            }
            storage = .record(Self.placeholder)
            defer { storage = .record(record) }
            yield &record
        }
        set {
            forgetRecorded()
            storage = .record(newValue)
        }
    }

    /// What ``record`` is made from: a record, or a creation whose record is filled when first
    /// asked for (``PendingCreation``: most new bookmarks are only encoded, or not even that).
    private enum Storage: Sendable {
        case record(BookmarkRecord)
        case pending(PendingCreation)
    }

    /// The storage of ``record``.
    private var storage: Storage

    /// Stands in ``storage`` while ``record`` is edited in place (shared, never edited).
    private static let placeholder = BookmarkRecord()

    /// Drops what was derived from the old record: emptied in place when no copy shares the
    /// cache (an edit right after decoding), otherwise replaced, so copies keep theirs.
    private mutating func forgetRecorded() {
        if recordedCache.isUnshared() {
            recordedCache.forget()
        } else {
            recordedCache = RecordedCache.make()
        }
    }

    /// What resolution compares against, derived from ``record`` once (on first resolution) and
    /// shared by copies; replaced whenever ``record`` changes. Not part of equality or hashing.
    var recordedCache = RecordedCache.make()

    /// Equal when the records are equal.
    public static func == (lhs: Bookmark, rhs: Bookmark) -> Bool { lhs.record == rhs.record }

    /// Hashes the record.
    public func hash(into hasher: inout Hasher) { hasher.combine(record) }

    /// Wraps a record.
    public init(record: BookmarkRecord) { storage = .record(record) }

    /// A new bookmark whose record is filled when first asked for.
    init(pending creation: PendingCreation) { storage = .pending(creation) }

    /// The creation not yet filled into a record, if this is one (for tests).
    var pendingCreation: PendingCreation? {
        if case .pending(let creation) = storage { return creation }
        return nil
    }

    /// Decodes bookmark data.
    ///
    /// - Throws: ``BookmarkError`` with ``BookmarkError/Code/corruptData``.
    public init(data: [UInt8]) throws(BookmarkError) {
        storage = .record(try BookmarkError.decoding { () throws(BookmarkFormatError) in try BookmarkRecord(decoding: data) })
    }

    /// The encoded bytes.
    ///
    /// - Throws: ``BookmarkError`` with ``BookmarkError/Code/corruptData`` if the record cannot be encoded.
    public func data() throws(BookmarkError) -> [UInt8] {
        try data { Array($0) }
    }

    /// The encoded bytes, handed to `make` in place (valid only during the call): BookmarkFoundation
    /// makes its `Data` from them with one copy instead of two.
    package func data<R>(_ make: (UnsafeRawBufferPointer) -> R) throws(BookmarkError) -> R {
        if case .pending(let creation) = storage, let written = try creation.data(make) { return written }
        return try BookmarkError.decoding { () throws(BookmarkFormatError) in try record.encoded(make) }
    }

    /// The recorded path, as raw bytes.
    public var path: [UInt8]? {
        // A new bookmark's path is the canonical one creation found: its components joined again.
        if case .pending(let creation) = storage { return creation.target.path }
        return record.pathBytes?.bytes
    }

    /// The creation options it was made with.
    public var creationOptions: BookmarkCreationOptions {
        if case .pending(let creation) = storage { return creation.options }
        return BookmarkCreationOptions(rawValue: record.creationOptions ?? 0)
    }
}
