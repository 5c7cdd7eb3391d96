// SPDX-License-Identifier: Apache-2.0
#if os(Linux)
    import BookmarkKit
    import Foundation

    /// An `NSURL` that is a file reference, as macOS has them: its string is the reference
    /// (`file:///.file/id=…`) and its path answers for the file's location now.
    ///
    /// macOS code keeps a reference as an `NSURL` (`url.fileReferenceURL() as NSURL?`,
    /// `CFURLCreateFileReferenceURL`) and then asks it for `path`, `filePathURL` or a Swift `URL`;
    /// Foundation on Linux would answer `/.file/id=…` for a plain `NSURL`. This subclass computes
    /// those from the reference each time they are asked for (a `statx`, or a handle open when the
    /// file moved), so they follow the file.
    ///
    /// corelibs-foundation builds a subclass's CF object from `relativeString` and `baseURL`, and
    /// those read the CF object unless overridden: both are overridden here, which is what makes the
    /// subclass usable at all. Bridging to `URL` reads `absoluteString` and `baseURL`, so
    /// `absoluteString` is the current path URL's string: `ref as URL` is then the file's path URL, as
    /// bridging gives on macOS. `relativeString` and `description` keep the reference string.
    final class FileReferenceNSURL: NSURL, @unchecked Sendable {
        /// The reference; immutable, so the class is safe to share (`@unchecked` for NSURL's base).
        let reference: FileReferenceURL

        init?(reference: FileReferenceURL) {
            self.reference = reference
            super.init(string: reference.string, relativeTo: nil)
        }

        required init?(coder: NSCoder) {
            return nil
        }

        /// The file's path URL now; throws `CocoaError.fileNoSuchFile` when it is gone.
        func currentPathURL() throws -> URL {
            guard let url = URL(string: reference.string) else {
                throw CocoaError(.fileNoSuchFile, userInfo: [NSDebugDescriptionErrorKey: reference.string])
            }
            return try currentFilePathURL(ofReference: url)
        }

        private var current: URL? { try? currentPathURL() }

        override var relativeString: String { reference.string }
        override var baseURL: URL? { nil }
        override var absoluteString: String { current?.absoluteString ?? reference.string }
        override var absoluteURL: URL? { current ?? URL(string: reference.string) }
        override var path: String? { current?.path }
        override var relativePath: String? { current?.path }
        override var filePathURL: URL? { current }
        // corelibs builds a description from the CF object with a cast a subclass fails (a trap).
        override var description: String { reference.string }
        override var debugDescription: String { reference.string }
    }

    /// Gives `NSURL` a second `fileReferenceURL()`, returning `NSURL?`, that Swift picks only where the
    /// call is used as an `NSURL` (`url.fileReferenceURL() as NSURL?`).
    ///
    /// On macOS that cast keeps the `NSURL` reference the Objective-C method returned (the compiler
    /// skips the bridge through `URL`), and code relies on it to hold a reference that follows its
    /// file. Everywhere else the `URL?` method on `NSURL` is chosen, because a member of the type
    /// itself ranks above one from a protocol extension.
    public protocol NSURLFileReferenceProviding: AnyObject {}

    extension NSURL: NSURLFileReferenceProviding {}

    extension NSURLFileReferenceProviding where Self: NSURL {
        /// The file-reference URL of this file URL as an `NSURL`, as `url.fileReferenceURL() as NSURL?`
        /// gives on macOS: its `path`, `filePathURL`, `absoluteString` and bridging to `URL` answer
        /// for the file's current location; `relativeString` and `description` are the reference.
        ///
        /// - Returns: `nil` for a URL that is not a `file:` URL or names nothing (or a reference whose
        ///   file is gone).
        public func fileReferenceURL() -> NSURL? {
            if self is FileReferenceNSURL { return self }
            guard let reference = fileReference(of: self as URL) ?? fileSystemPath(of: self as URL).flatMap({ path in
                try? FileReferenceURL(for: path)
            }) else { return nil }
            return FileReferenceNSURL(reference: reference)
        }
    }
#endif
