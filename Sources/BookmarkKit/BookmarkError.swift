// SPDX-License-Identifier: Apache-2.0
import BookmarkFormat
import FileIdentity
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
        /// The object at the resolved path was not the resolved object when it was opened (it was
        /// replaced, moved or deleted in between), on every attempt. Nothing was opened.
        case objectChanged
        /// The volume is FUSE or network and did not answer within the response timeout (or an
        /// earlier call on it is still waiting): ``mountPoint`` says where it is mounted. The call
        /// that did not return was abandoned on a thread of its own (Docs/RELIABILITY.md).
        case volumeNotResponding
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
    /// For ``Code/volumeNotResponding``: where the volume that did not answer is mounted.
    public var mountPoint: [UInt8]?
    /// For ``Code/volumeNotMounted`` and ``Code/notFound``, with
    /// ``ResolutionOptions/locationHints``: where and when a volume catalog last saw the object.
    public var lastSighting: LastSighting?

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

    /// The error for ``Code/objectChanged``.
    static func objectChanged(at resolution: Resolution?, attempts: Int, lastKnownPath: [UInt8]?) -> BookmarkError {
        let place = resolution.map { PathBytes($0.path).escaped } ?? "the resolved path"
        return BookmarkError(
            .objectChanged,
            "the object at \(place) changed between resolution and open, \(attempts) time\(attempts == 1 ? "" : "s"); nothing was opened",
            lastKnownPath: lastKnownPath)
    }

    /// Converts any error from the layers below into a `BookmarkError`: the one place that does.
    ///
    /// A `BookmarkError` passes through; a `FileSystemError` keeps its code and is kept as
    /// ``fileSystemError``; a `FileIdentityError` maps by its code (see `BookmarkError+FileIdentity.swift`);
    /// a `BookmarkFormatError` is `corruptData`; anything else is `fileSystem` with its description.
    init(converting error: any Error, lastKnownPath: [UInt8]? = nil) {
        switch error {
        case let error as BookmarkError: self = error
        case let error as FileSystemError: self.init(error, lastKnownPath: lastKnownPath)
        case let error as FileIdentityError: self.init(error, lastKnownPath: lastKnownPath)
        case let error as BookmarkFormatError:
            self.init(.corruptData, error.description, lastKnownPath: lastKnownPath, formatError: error)
        default: self.init(.fileSystem, String(describing: error), lastKnownPath: lastKnownPath)
        }
    }

    /// Runs `body`, converting whatever it throws with ``init(converting:lastKnownPath:)``.
    static func wrapping<T>(lastKnownPath: [UInt8]? = nil, _ body: () throws -> T) throws(BookmarkError) -> T {
        do {
            return try body()
        } catch {
            throw BookmarkError(converting: error, lastKnownPath: lastKnownPath)
        }
    }

    /// Runs a decoder, turning its `BookmarkFormatError` into `corruptData`.
    static func decoding<T>(lastKnownPath: [UInt8]? = nil, _ body: () throws(BookmarkFormatError) -> T) throws(BookmarkError) -> T {
        do {
            return try body()
        } catch {
            throw BookmarkError(.corruptData, error.description, lastKnownPath: lastKnownPath, formatError: error)
        }
    }

    /// `code: message (last known path …)`.
    public var description: String {
        var text = "\(code.rawValue): \(message)"
        if let lastKnownPath { text += " (last known path \(PathBytes(lastKnownPath).escaped))" }
        if let lastSighting { text += "; \(lastSighting)" }
        return text
    }
}
