import BookmarkFormat
import FileIdentity
import SecureFiles
import SystemPackage

/// Bookmark data: a durable reference to a file or directory, in Apple's `book` layout.
///
/// Create one with ``create(for:options:resourceKeys:relativeTo:)``, store ``data`` anywhere, and
/// later ``resolve(_:)`` it to find the object again after renames, moves, atomic saves and remounts.
public struct Bookmark: Sendable, Hashable {
    /// The decoded record (every key, including unknown ones, kept).
    public var record: BookmarkRecord

    /// Wraps a record.
    public init(record: BookmarkRecord) { self.record = record }

    /// Decodes bookmark data.
    ///
    /// - Throws: ``BookmarkError`` with ``BookmarkError/Code/corruptData``.
    public init(data: [UInt8]) throws(BookmarkError) {
        do {
            record = try BookmarkRecord(decoding: data)
        } catch {
            throw BookmarkError(.corruptData, error.description, formatError: error)
        }
    }

    /// The encoded bytes.
    ///
    /// - Throws: ``BookmarkError`` with ``BookmarkError/Code/corruptData`` if the record cannot be encoded.
    public func data() throws(BookmarkError) -> [UInt8] {
        do {
            return try record.encoded()
        } catch {
            throw BookmarkError(.corruptData, error.description, formatError: error)
        }
    }

    /// The recorded path, as raw bytes.
    public var path: [UInt8]? { record.pathBytes?.bytes }

    /// The creation options it was made with.
    public var creationOptions: BookmarkCreationOptions {
        BookmarkCreationOptions(rawValue: record.creationOptions ?? 0)
    }
}
