// SPDX-License-Identifier: Apache-2.0
#if os(Linux)
    import BookmarkKit
    import Foundation
    import SystemPackage

    extension NSURL {
        /// A file-reference URL (`file:///.file/id=<mount>.<inode>.<generation>`, a trailing `/` for a
        /// directory) for the existing file or directory this file URL points to: Apple's
        /// `NSURL.fileReferenceURL()` on Linux. `nil` for a URL that is not a `file:` URL or names
        /// nothing; a file-reference URL is returned as it is.
        ///
        /// The URL follows renames and moves within the volume for as long as the volume stays mounted
        /// (not across an unmount, remount or reboot): `BookmarkKit`'s `FileReferenceURL` and
        /// Docs/RESOLUTION.md, "File-reference URLs". Turn it back into a path with
        /// `try FileReferenceURL(string:)?.resolve()`, since swift-corelibs-foundation's own
        /// `NSURL.filePathURL` cannot be replaced and returns file-reference URLs unchanged.
        public func fileReferenceURL() -> URL? {
            let url = self as URL
            if FileReferenceURL.isFileReferenceURL(url.absoluteString) { return url }
            guard let path = fileSystemPath(of: url), let reference = try? FileReferenceURL(for: path) else {
                return nil
            }
            return URL(string: reference.string)
        }

        /// Whether this URL is a file-reference URL: Apple's `NSURL.isFileReferenceURL()` on Linux.
        public func isFileReferenceURL() -> Bool {
            FileReferenceURL.isFileReferenceURL((self as URL).absoluteString)
        }
    }

    /// The current path of the object a file-reference URL refers to, as a file URL (a directory's
    /// with a trailing `/`).
    ///
    /// - Throws: `CocoaError`: `.fileNoSuchFile` when the object no longer exists or its volume is
    ///   gone (underlying `BookmarkError`), `.fileReadInvalidFileName` for a string that is not a
    ///   file-reference URL.
    func currentFilePathURL(ofReference url: URL) throws -> URL {
        guard let reference = FileReferenceURL(string: url.absoluteString) else {
            throw CocoaError(
                .fileReadInvalidFileName,
                userInfo: [NSURLErrorKey: url, NSDebugDescriptionErrorKey: "\(url.absoluteString) is not a file-reference URL"])
        }
        switch Result(catching: { () throws(BookmarkError) -> FileReferenceResolution in try reference.resolve() }) {
        case .success(let found): return fileURL(path: found.path, isDirectory: reference.isDirectory)
        case .failure(let error): throw CocoaError.bookmark(error, .resolving, url: url)
        }
    }
#endif
