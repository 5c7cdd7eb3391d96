// SPDX-License-Identifier: Apache-2.0
#if os(Linux)
    import BookmarkKit
    import Foundation
    import SecureFiles
    import SystemPackage

    extension NSURL {
        /// Apple's `NSURL.BookmarkCreationOptions`: the same type as `URL.BookmarkCreationOptions`
        /// (on macOS, too, the `URL` name is an alias of this one).
        public typealias BookmarkCreationOptions = URL.BookmarkCreationOptions

        /// Apple's `NSURL.BookmarkResolutionOptions`: the same type as
        /// `URL.BookmarkResolutionOptions`.
        public typealias BookmarkResolutionOptions = URL.BookmarkResolutionOptions

        /// Apple's `NSURL.BookmarkFileCreationOptions` (`NSUInteger`, imported as `Int`): options
        /// for ``writeBookmarkData(_:to:options:)``, which Apple defines none of and ignores.
        public typealias BookmarkFileCreationOptions = URL.BookmarkFileCreationOptions

        /// Returns bookmark data for the object this URL points to: Apple's
        /// `NSURL.bookmarkData(options:includingResourceValuesForKeys:relativeTo:)`, with the keys as
        /// an array. Behaves as `URL.bookmarkData(options:includingResourceValuesForKeys:relativeTo:)`.
        ///
        /// - Throws: `CocoaError`, as the `URL` method.
        public func bookmarkData(
            options: BookmarkCreationOptions = [], includingResourceValuesForKeys keys: [URLResourceKey]?,
            relativeTo relativeURL: URL?
        ) throws -> Data {
            try BookmarkCalls.create(self as URL, options: options, keys: keys ?? [], relativeTo: relativeURL)
        }

        /// Creates a URL by resolving bookmark data: Apple's
        /// `NSURL(resolvingBookmarkData:options:relativeTo:bookmarkDataIsStale:)`, with the stale flag
        /// as an `ObjCBool` pointer. Behaves as `URL(resolvingBookmarkData:options:relativeTo:bookmarkDataIsStale:)`
        /// (including `.withSecurityScope`).
        ///
        /// - Parameters:
        ///   - bookmarkData: The bookmark data.
        ///   - options: Apple's resolution options.
        ///   - relativeURL: For a document-relative bookmark, the base as it is now, or `nil`.
        ///   - isStale: When not `nil`, set to `true` or `false` on success; untouched when
        ///     resolution throws.
        /// - Throws: `CocoaError`, as the `URL` initializer.
        public convenience init(
            resolvingBookmarkData bookmarkData: Data, options: BookmarkResolutionOptions = [], relativeTo relativeURL: URL?,
            bookmarkDataIsStale isStale: UnsafeMutablePointer<ObjCBool>?
        ) throws {
            let found = try BookmarkCalls.resolve(bookmarkData, options: options, relativeTo: relativeURL)
            isStale?.pointee = ObjCBool(found.isStale)
            self.init(dataRepresentation: Data(found.url.absoluteString.utf8), relativeTo: nil)
        }

        /// Returns resource values stored in bookmark data without resolving it: Apple's
        /// `NSURL.resourceValues(forKeys:fromBookmarkData:)`, with an array of keys and a dictionary
        /// result. The values are those of `URL.resourceValues(forKeys:fromBookmarkData:)`
        /// (`NSNumber`, `Date`, `String`, `URL`, `Data`, `URLFileResourceType`).
        ///
        /// - Returns: The values found, or `nil` when `bookmarkData` is not readable bookmark data.
        public class func resourceValues(forKeys keys: [URLResourceKey], fromBookmarkData bookmarkData: Data)
            -> [URLResourceKey: Any]?
        {
            guard let bookmark = try? Bookmark(data: [UInt8](bookmarkData)) else { return nil }
            return offlineValues(bookmark.record, keys: Set(keys))
        }

        /// Creates an alias file holding bookmark data: Apple's
        /// `NSURL.writeBookmarkData(_:to:options:)`. `options` is unused, as on macOS.
        ///
        /// - Throws: `CocoaError`, as `URL.writeBookmarkData(_:to:)`.
        public class func writeBookmarkData(
            _ bookmarkData: Data, to bookmarkFileURL: URL, options: BookmarkFileCreationOptions
        ) throws {
            try URL.writeBookmarkData(bookmarkData, to: bookmarkFileURL)
        }

        /// Returns the bookmark data in an alias file: Apple's `NSURL.bookmarkData(withContentsOf:)`.
        ///
        /// - Throws: `CocoaError`, as `URL.bookmarkData(withContentsOf:)`.
        public class func bookmarkData(withContentsOf bookmarkFileURL: URL) throws -> Data {
            try URL.bookmarkData(withContentsOf: bookmarkFileURL)
        }

        /// Resolves an alias file: Apple's `NSURL(resolvingAliasFileAt:options:)`. An existing file
        /// that is not an alias file gives itself; a URL where nothing is throws.
        ///
        /// - Throws: `CocoaError`, as `URL(resolvingAliasFileAt:options:)`.
        public convenience init(resolvingAliasFileAt url: URL, options: BookmarkResolutionOptions = []) throws {
            let resolved = try URL(resolvingAliasFileAt: url, options: options)
            self.init(dataRepresentation: Data(resolved.absoluteString.utf8), relativeTo: nil)
        }

        /// Whether the object this URL names can be reached now: Apple's
        /// `NSURL.checkResourceIsReachableAndReturnError(_:)`, which Foundation on Linux lacks.
        ///
        /// A file-reference URL is answered for the file it refers to, wherever it is now (as on
        /// macOS); any other `file:` URL by its path (`lstat`: a dangling symbolic link is reachable
        /// as a link, as on macOS).
        ///
        /// - Parameter error: When not `nil` and the answer is `false`, set to a `CocoaError`
        ///   (`.fileReadNoSuchFile` with the path, or `.fileReadUnsupportedScheme` for a URL that is
        ///   not a `file:` URL).
        public func checkResourceIsReachableAndReturnError(_ error: UnsafeMutablePointer<NSError?>?) -> Bool {
            let url = self as URL
            func fail(_ cocoa: CocoaError) -> Bool {
                error?.pointee = NSError(domain: NSCocoaErrorDomain, code: cocoa.code.rawValue, userInfo: cocoa.userInfo)
                return false
            }
            guard url.isFileURL else { return fail(unusable(url)) }
            if let reference = fileReference(of: url) {
                guard reference.filePath != nil else {
                    return fail(CocoaError(.fileReadNoSuchFile, userInfo: [NSURLErrorKey: url]))
                }
                return true
            }
            guard let path = fileSystemPath(of: url) else { return fail(unusable(url)) }
            switch Result(catching: { () throws(FileSystemError) in try Directory.current.status(of: path, policy: .unconfined) }) {
            case .success: return true
            case .failure(let failure):
                return fail(
                    CocoaError(
                        failure.errno == .noSuchFileOrDirectory ? .fileReadNoSuchFile : .fileReadUnknown,
                        userInfo: [NSURLErrorKey: url, NSFilePathErrorKey: url.path, NSUnderlyingErrorKey: failure]))
            }
        }
    }
#endif
