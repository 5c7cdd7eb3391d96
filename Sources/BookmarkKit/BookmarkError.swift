import BookmarkFormat
import SecureFiles

/// Why a bookmark could not be created or resolved.
public struct BookmarkError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure.
    public enum Code: String, Sendable, Hashable {
        /// The bookmark's volume is not mounted (see ``attachedDevice``).
        case volumeNotMounted
        /// The object could not be found (never reported as "stale").
        case notFound
        /// The bookmark data is unreadable or corrupt.
        case corruptData
        /// The caller cancelled the resolution.
        case cancelled
        /// The file system refused access.
        case permissionDenied
        /// Any other file system failure.
        case fileSystem
    }

    /// The kind of failure.
    public var code: Code
    /// A sentence saying what happened and why.
    public var message: String
    /// The last known path recorded in the bookmark, as raw bytes.
    public var lastKnownPath: [UInt8]?
    /// The recorded volume name.
    public var volumeName: String?
    /// The recorded volume UUID.
    public var volumeUUID: String?
    /// For ``Code/volumeNotMounted``: a block device carrying that UUID that is attached but not mounted.
    public var attachedDevice: String?
    /// For ``Code/notFound``: whether the search ran out of its budget (so the object may exist further away).
    public var searchExhausted: Bool
    /// The underlying file system error, if any.
    public var fileSystemError: FileSystemError?
    /// The underlying format error, if any.
    public var formatError: BookmarkFormatError?

    init(
        _ code: Code, _ message: String, lastKnownPath: [UInt8]? = nil, volumeName: String? = nil,
        volumeUUID: String? = nil, attachedDevice: String? = nil, searchExhausted: Bool = false,
        fileSystemError: FileSystemError? = nil, formatError: BookmarkFormatError? = nil
    ) {
        self.code = code
        self.message = message
        self.lastKnownPath = lastKnownPath
        self.volumeName = volumeName
        self.volumeUUID = volumeUUID
        self.attachedDevice = attachedDevice
        self.searchExhausted = searchExhausted
        self.fileSystemError = fileSystemError
        self.formatError = formatError
    }

    /// Wraps a file system error.
    init(_ error: FileSystemError, lastKnownPath: [UInt8]? = nil) {
        let code: Code
        switch error.code {
        case .notFound, .notDirectory: code = .notFound
        case .permissionDenied: code = .permissionDenied
        default: code = .fileSystem
        }
        self.init(code, error.description, lastKnownPath: lastKnownPath, fileSystemError: error)
    }

    /// `code: message (last known path …)`.
    public var description: String {
        var text = "\(code.rawValue): \(message)"
        if let lastKnownPath { text += " (last known path \(escapedBytes(lastKnownPath)))" }
        return text
    }
}
