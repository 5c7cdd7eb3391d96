// SPDX-License-Identifier: Apache-2.0
#if os(Linux)
    import BookmarkFormat
    import BookmarkKit
    import Foundation
    import SecureFiles
    import SystemPackage

    extension URL {
        /// Creates an alias file at `bookmarkFileURL` holding `bookmarkData`: Apple's
        /// `URL.writeBookmarkData(_:to:)` on Linux.
        ///
        /// The file has Apple's layout (a 56-byte `book…mark` header, then the data section), so
        /// Finder on macOS reads it; the `user.com.apple.FinderInfo` extended attribute (`alis`/`MACS`,
        /// `fdrp` for folders, `kIsAlias`) marks it as an alias where the file system allows extended
        /// attributes (elsewhere it is an alias by content). It is written to a temporary file and
        /// renamed over `bookmarkFileURL`, so a crash leaves the old file or the new one; a symlink
        /// at `bookmarkFileURL` is refused, never followed. Made by `BookmarkKit`'s
        /// `Bookmark.writeAliasFile(to:)`.
        ///
        /// - Parameters:
        ///   - bookmarkData: Bookmark data made with `.suitableForBookmarkFile`, as on macOS.
        ///   - bookmarkFileURL: A `file:` URL: an existing file (replaced) or a new name in an existing
        ///     directory.
        /// - Throws: `CocoaError`: `.fileReadCorruptFile` when the data is not bookmark data or was
        ///   not made with `.suitableForBookmarkFile`; `.fileReadNoSuchFile` when the directory is
        ///   missing; `.fileReadNoPermission`; `.fileReadUnknown` for a symlink or directory at the
        ///   destination. The `BookmarkError` is in `userInfo[NSUnderlyingErrorKey]`.
        public static func writeBookmarkData(_ bookmarkData: Data, to bookmarkFileURL: URL) throws {
            guard let path = fileSystemPath(of: bookmarkFileURL) else { throw unusable(bookmarkFileURL) }
            let outcome = Result { () throws(BookmarkError) in
                _ = try Bookmark(data: [UInt8](bookmarkData)).writeAliasFile(to: path)
            }
            if case .failure(let error) = outcome { throw CocoaError.bookmark(error, .creating, url: bookmarkFileURL) }
        }

        /// Returns the bookmark data in the alias file at `bookmarkFileURL`: Apple's
        /// `URL.bookmarkData(withContentsOf:)` on Linux.
        ///
        /// Reads alias files written here and by macOS's Finder, files holding bookmark data, and
        /// files holding only a legacy Alias Manager record (`alis` version 2 or 3), for which bookmark
        /// data is synthesized as Apple does (the record is kept inside it).
        ///
        /// - Throws: `CocoaError`: `.fileReadNoSuchFile`, `.fileReadNoPermission`,
        ///   `.fileReadCorruptFile` for anything else.
        public static func bookmarkData(withContentsOf bookmarkFileURL: URL) throws -> Data {
            guard let path = fileSystemPath(of: bookmarkFileURL) else { throw unusable(bookmarkFileURL) }
            let outcome = Result { () throws(BookmarkError) -> [UInt8] in
                try Bookmark(contentsOfAliasFile: path).data()
            }
            switch outcome {
            case .success(let bytes): return Data(bytes)
            case .failure(let error): throw CocoaError.bookmark(error, .creating, url: bookmarkFileURL)
            }
        }

        /// Resolves the alias file at `url`: Apple's `URL(resolvingAliasFileAt:options:)` on Linux.
        /// An existing file that is not an alias file is returned as it is (as on macOS); a URL that
        /// cannot be reached throws, as Apple documents ("The url argument is unreachable").
        ///
        /// An alias file is a regular file whose Finder info has `kIsAlias`, or whose content starts
        /// with the alias-file header. Resolution is `URL(resolvingBookmarkData:…)`'s.
        ///
        /// - Throws: `CocoaError`: `.fileReadNoSuchFile` when nothing is at `url` (a dangling symlink
        ///   included) and `.fileReadNoPermission` when it cannot be looked up, with the
        ///   `FileSystemError` in `userInfo[NSUnderlyingErrorKey]` (the code Apple's Foundation gives
        ///   a missing file it was asked to read); then `.fileNoSuchFile` when the alias's target
        ///   cannot be found or its volume is not mounted, `.fileReadCorruptFile` for an unreadable
        ///   alias, `.fileReadNoPermission`.
        public init(resolvingAliasFileAt url: URL, options: BookmarkResolutionOptions = []) throws {
            guard let path = fileSystemPath(of: url) else { throw unusable(url) }
            // `isAliasFile` answers "no" for anything it cannot read, which would hand back a
            // missing path as if it were a plain file: look the path up first.
            do throws(FileSystemError) {
                _ = try FileStatus(pathBytes: PathBytes(path).bytes, followSymlinks: true)
            } catch {
                throw CocoaError.reading(error, url: url)
            }
            let outcome = Result { () throws(BookmarkError) -> (Resolution, Bool)? in
                guard Bookmark.isAliasFile(at: path) else { return nil }
                let bookmark = try Bookmark(contentsOfAliasFile: path)
                let isDirectory = bookmark.record.resourceProperties?.contains(BookmarkPropertyFlags.isDirectory) ?? false
                return (try bookmark.resolve(), isDirectory)
            }
            switch outcome {
            case .success(nil): self = url
            case .success(let (resolution, isDirectory)?):
                self = fileURL(path: resolution.path, isDirectory: isDirectory)
            case .failure(let error): throw CocoaError.bookmark(error, .resolving)
            }
        }
    }
#endif
