// SPDX-License-Identifier: Apache-2.0
#if os(Linux)
    import BookmarkKit
    import Foundation
    import SecureFiles
    import SystemPackage

    /// Which of Apple's calls failed: the same `BookmarkError` code maps to a different Cocoa code
    /// when creating (Apple reports the file it could not read) and when resolving (Apple reports that
    /// the target does not exist).
    enum BookmarkOperation: Sendable {
        /// `URL.bookmarkData(options:includingResourceValuesForKeys:relativeTo:)`.
        case creating
        /// `URL(resolvingBookmarkData:options:relativeTo:bookmarkDataIsStale:)`.
        case resolving
    }

    /// The Cocoa error code Apple's Foundation uses for each failure.
    ///
    /// | `BookmarkError.Code` | creating | resolving |
    /// |---|---|---|
    /// | `notFound` | `.fileReadNoSuchFile` (260) | `.fileNoSuchFile` (4) |
    /// | `volumeNotMounted` | `.fileReadNoSuchFile` (260) | `.fileNoSuchFile` (4) |
    /// | `corruptData` | `.fileReadCorruptFile` (259) | `.fileReadCorruptFile` (259) |
    /// | `permissionDenied` | `.fileReadNoPermission` (257) | `.fileReadNoPermission` (257) |
    /// | `cancelled` | `.userCancelled` (3072) | `.userCancelled` (3072) |
    /// | `fileSystem`, `objectChanged` | `.fileReadUnknown` (256) | `.fileReadUnknown` (256) |
    /// | `volumeNotResponding` | `.fileReadUnknown` (256) | `.fileReadUnknown` (256) |
    ///
    /// Apple's own codes for these cases, as observed: resolving a bookmark to a deleted file throws
    /// code 4 ("The file doesn't exist."); bytes that are not bookmark data throw 259 ("isn't in the
    /// correct format"); creating a bookmark for a missing file throws 260.
    func cocoaCode(for code: BookmarkError.Code, _ operation: BookmarkOperation) -> CocoaError.Code {
        switch code {
        case .notFound, .volumeNotMounted:
            return operation == .creating ? .fileReadNoSuchFile : .fileNoSuchFile
        case .corruptData: return .fileReadCorruptFile
        case .permissionDenied: return .fileReadNoPermission
        case .cancelled: return .userCancelled
        // Not "no such file": the file may well be there, on a volume that does not answer now.
        case .fileSystem, .objectChanged, .volumeNotResponding: return .fileReadUnknown
        }
    }

    extension CocoaError {
        /// A Foundation-style error for a bookmark failure, as Apple's Foundation would throw it.
        ///
        /// `userInfo` holds:
        /// - `NSUnderlyingErrorKey`: the `BookmarkError` itself (its `code`, last known
        ///   path, volume name and UUID, attached device, …); read it with `error.underlying as? BookmarkError`;
        /// - `NSFilePathErrorKey` and `NSURLErrorKey`: the URL being bookmarked when creating, or the
        ///   last known path recorded in the bookmark when resolving (when there is one);
        /// - `NSDebugDescriptionErrorKey`: the `BookmarkError`'s sentence saying what happened.
        static func bookmark(_ error: BookmarkError, _ operation: BookmarkOperation, url: URL? = nil) -> CocoaError {
            var info: [String: Any] = [
                NSUnderlyingErrorKey: error,
                NSDebugDescriptionErrorKey: error.description,
            ]
            var subject = url
            if subject == nil, let bytes = error.lastKnownPath {
                subject = fileURL(bytes: bytes, isDirectory: false)
            }
            if let subject {
                info[NSURLErrorKey] = subject
                info[NSFilePathErrorKey] = subject.path
            }
            return CocoaError(cocoaCode(for: error.code, operation), userInfo: info)
        }
    }

    /// The Cocoa error code for each refusal of security-scoped bookmark data.
    ///
    /// | `SecurityScopeError.Code` | Cocoa code |
    /// |---|---|
    /// | `unsigned`, `tampered`, `signatureMismatch` | `.fileReadCorruptFile` (259): the code macOS gives data that is not valid bookmark data (Apple documents that another application's scoped data "fails to resolve"; its code is not documented) |
    /// | `keyRejected` | `.fileReadUnknown` (256) with "Failed to retrieve app-scope key", as macOS reports a missing app-scope key |
    /// | `outsideScope` | `.fileReadNoPermission` (257) |
    /// | `readOnlyScope` | `.fileWriteNoPermission` (513) |
    /// | `resolution` | the code of its `BookmarkError` when resolving (table above) |
    func cocoaCode(for error: SecurityScopeError) -> CocoaError.Code {
        switch error.code {
        case .unsigned, .tampered, .signatureMismatch: return .fileReadCorruptFile
        case .keyRejected: return .fileReadUnknown
        case .outsideScope: return .fileReadNoPermission
        case .readOnlyScope: return .fileWriteNoPermission
        case .resolution: return error.bookmarkError.map { cocoaCode(for: $0.code, .resolving) } ?? .fileReadUnknown
        }
    }

    extension CocoaError {
        /// A Foundation-style error for a refused security-scoped bookmark.
        ///
        /// `userInfo` holds `NSUnderlyingErrorKey` (the `SecurityScopeError`; for a failed resolution
        /// after a valid signature, the `BookmarkError` instead, as for unscoped data),
        /// `NSDebugDescriptionErrorKey`, and `NSURLErrorKey`/`NSFilePathErrorKey` for the URL being
        /// bookmarked or the last known path.
        static func securityScope(_ error: SecurityScopeError, url: URL?) -> CocoaError {
            if error.code == .resolution, let underlying = error.bookmarkError {
                return .bookmark(underlying, .resolving, url: url)
            }
            // macOS says "Failed to retrieve app-scope key" when it has no key to sign or verify with.
            let sentence = error.code == .keyRejected ? "Failed to retrieve app-scope key: \(error.message)" : error.description
            var info: [String: Any] = [NSUnderlyingErrorKey: error, NSDebugDescriptionErrorKey: sentence]
            if let url {
                info[NSURLErrorKey] = url
                info[NSFilePathErrorKey] = url.path
            }
            return CocoaError(cocoaCode(for: error), userInfo: info)
        }
    }

    /// A `file://` URL for raw path bytes.
    ///
    /// A UTF-8 path gives the usual `URL(fileURLWithPath:isDirectory:)`. Foundation on Linux cannot
    /// carry other bytes in a path (`URL(fileURLWithFileSystemRepresentation:…)` replaces them with
    /// U+FFFD, naming another file), so a path that is not UTF-8 is percent-encoded byte by byte
    /// (`file:///tmp/caf%E9.txt`): the URL keeps the exact bytes and this module reads them back, but
    /// Foundation's own `path` and `withUnsafeFileSystemRepresentation` are empty for it.
    func fileURL(path: FilePath, isDirectory: Bool) -> URL {
        fileURL(bytes: PathBytes(path).bytes, isDirectory: isDirectory)
    }

    /// See ``fileURL(path:isDirectory:)``.
    func fileURL(bytes: [UInt8], isDirectory: Bool) -> URL {
        FileURLPaths.url(bytes: bytes, isDirectory: isDirectory)
    }
#endif
