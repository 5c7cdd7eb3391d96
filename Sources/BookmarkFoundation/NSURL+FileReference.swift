// SPDX-License-Identifier: Apache-2.0
#if os(Linux)
    import BookmarkKit
    import Foundation
    import SystemPackage

    extension NSURL {
        /// A file-reference URL for the existing file or directory this file URL points to: Apple's
        /// `NSURL.fileReferenceURL()` on Linux, returning a `URL` as Apple's Swift signature does.
        ///
        /// On macOS, Foundation's Swift `URL` never holds a file reference: bridging an `NSURL`
        /// reference to `URL`, and every `URL` initializer, turns `file:///.file/id=…` into the
        /// file's path URL (swiftlang/swift #3565, swift-foundation #1140). So the `URL` this
        /// returns is, as there, the file's path URL: `path`, `standardizedFileURL`,
        /// `resourceValues(forKeys:)`, `checkResourceIsReachable()` and `FileManager` calls answer for
        /// the file's location now. Here it also keeps the reference
        /// (`file:///.file/id=<mount>.<inode>.<generation>`, a trailing `/` for a directory) as its
        /// `baseURL` while it stays a `URL`: `isFileReferenceURL()`, `fileReferenceURL()`,
        /// `checkResourceIsReachableAndReturnError(_:)`, `CFURLCreateFilePathURL` and this module's
        /// bookmark calls then follow the file to where it is when they are called. Bridging it to
        /// `NSURL` drops the base (as bridging drops the reference on macOS); a reference that must
        /// survive as an `NSURL` or a string comes from `CFURLCreateFileReferenceURL`.
        ///
        /// The reference lasts while the volume stays mounted (not across an unmount, remount or
        /// reboot): `BookmarkKit`'s `FileReferenceURL` and Docs/RESOLUTION.md, "File-reference URLs".
        ///
        /// - Returns: The URL, or `nil` for a URL that is not a `file:` URL or names nothing (or a
        ///   reference whose file is gone).
        public func fileReferenceURL() -> URL? {
            let url = self as URL
            if let reference = fileReference(of: url) {
                guard let current = try? currentFilePathURL(ofReference: url) else { return nil }
                return referenceURL(reference, at: current)
            }
            guard let path = fileSystemPath(of: url), let reference = try? FileReferenceURL(for: path) else {
                return nil
            }
            return referenceURL(reference, at: BookmarkFoundation.fileURL(path: path, isDirectory: reference.isDirectory))
        }

        /// Whether this URL is a file-reference URL (`file:///.file/id=…`, or one that
        /// ``fileReferenceURL()`` made): Apple's `NSURL.isFileReferenceURL()` on Linux.
        public func isFileReferenceURL() -> Bool {
            self is FileReferenceNSURL || fileReference(of: self as URL) != nil
        }
    }

    /// The file reference a URL carries: its own string (`file:///.file/id=…`), or its base when it
    /// is a path URL made by `NSURL.fileReferenceURL()`.
    func fileReference(of url: URL) -> FileReferenceURL? {
        if let base = url.baseURL, FileReferenceURL.isFileReferenceURL(base.absoluteString) {
            return FileReferenceURL(string: base.absoluteString)
        }
        let text = url.absoluteString
        return FileReferenceURL.isFileReferenceURL(text) ? FileReferenceURL(string: text) : nil
    }

    /// The path URL `current`, relative to `reference` as its base (so the reference travels with it).
    func referenceURL(_ reference: FileReferenceURL, at current: URL) -> URL? {
        guard let base = URL(string: reference.string) else { return nil }
        return URL(string: current.path(percentEncoded: true), relativeTo: base) ?? current
    }

    /// The current path of the object a file-reference URL refers to, as a file URL (a directory's
    /// with a trailing `/`).
    ///
    /// - Throws: `CocoaError`: `.fileNoSuchFile` when the object no longer exists or its volume is
    ///   gone (underlying `BookmarkError`), `.fileReadInvalidFileName` for a string that is not a
    ///   file-reference URL.
    func currentFilePathURL(ofReference url: URL) throws -> URL {
        guard let reference = fileReference(of: url) else {
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
