// SPDX-License-Identifier: Apache-2.0
#if os(Linux)
    import BookmarkFormat
    import BookmarkKit
    import Foundation
    import SecureFiles
    import SystemPackage

    extension URL {
        /// Returns bookmark data for the file or directory this URL points to: Apple's
        /// `URL.bookmarkData(options:includingResourceValuesForKeys:relativeTo:)` on Linux.
        ///
        /// The data is Apple's `book` layout (macOS and other Apple-format readers can read it) with
        /// Linux facts added under string keys; `URL.init(resolvingBookmarkData:options:relativeTo:bookmarkDataIsStale:)`
        /// finds the object again after renames, moves, atomic saves and remounts. It holds what
        /// `BookmarkKit`'s `Bookmark.create(for:options:resourceKeys:relativeTo:)` records, byte for
        /// byte; a plain creation is written straight from the file's facts (Docs/RESOLUTION.md).
        ///
        /// - Parameters:
        ///   - options: Apple's creation options; see `URL.BookmarkCreationOptions` for what each
        ///     does on Linux. `.withSecurityScope` signs the data with this application's key.
        ///   - keys: Resource values to store in the data, for reading later without the file system
        ///     through `URL.resourceValues(forKeys:fromBookmarkData:)`. Stored when requested:
        ///     `nameKey`, `pathKey`, `fileSizeKey`, `contentModificationDateKey`, `creationDateKey`
        ///     (birth time), `isDirectoryKey`, `isRegularFileKey`, `isHiddenKey`, `volumeNameKey`,
        ///     `volumeUUIDStringKey`; other keys are left out, as Apple leaves out what it cannot get.
        ///     The file size and modification date are stored in every non-minimal bookmark.
        ///   - url: A base for a relative (document-relative) bookmark, or `nil`. A URL with a
        ///     directory path (`hasDirectoryPath`, a trailing `/`) is the base itself; any other URL is
        ///     a document, and its folder is the base. Moving the base and the object together keeps
        ///     the bookmark resolving when the new base is passed to the resolving initializer.
        /// - Returns: The bookmark data.
        /// - Throws: `CocoaError`: `.fileReadNoSuchFile` when the object does not exist,
        ///   `.fileReadNoPermission` when it cannot be reached, `.fileReadUnsupportedScheme` for a URL
        ///   that is not a `file:` URL, `.fileReadInvalidFileName` for a `file:` URL without a path; the
        ///   `BookmarkError` is in `userInfo[NSUnderlyingErrorKey]`.
        public func bookmarkData(
            options: BookmarkCreationOptions = [], includingResourceValuesForKeys keys: Set<URLResourceKey>? = nil,
            relativeTo url: URL? = nil
        ) throws -> Data {
            try BookmarkCalls.create(self, options: options, keys: keys.map(Array.init) ?? [], relativeTo: url)
        }

        /// Creates a URL by resolving bookmark data: Apple's
        /// `URL(resolvingBookmarkData:options:relativeTo:bookmarkDataIsStale:)` on Linux.
        ///
        /// Resolution follows `BookmarkKit`'s documented order (Docs/RESOLUTION.md): the volume by its
        /// UUID, the recorded path first (an atomic-save replacement at the path wins over the old
        /// inode), the base given in `url` for relative bookmarks, the file handle, then a budgeted
        /// outward search. It never blocks on an unmounted volume and never mounts one.
        ///
        /// - Parameters:
        ///   - data: Bookmark data from `URL.bookmarkData(options:includingResourceValuesForKeys:relativeTo:)`
        ///     (here or on macOS: the layout is Apple's).
        ///   - options: Apple's resolution options. `.withSecurityScope` checks the data's signature
        ///     with this application's key first and registers the URL for
        ///     `startAccessingSecurityScopedResource()` (see `SecurityScope`); Apple's other options
        ///     change nothing on Linux; the Linux-only `volumeResponseTimeout(seconds:)` bounds the
        ///     wait for a FUSE or network volume (see `URL.BookmarkResolutionOptions`).
        ///   - url: For relative bookmarks, the base (document or folder) as it is now; the same rule as
        ///     at creation decides whether the URL or its folder is the base.
        ///   - bookmarkDataIsStale: Set to `true` when the object was found but something recorded
        ///     differs (path, name, parent, file identity, the volume's mount point or name): make new
        ///     bookmark data from the returned URL and store it in place of the old. Untouched when
        ///     resolution throws.
        /// - Throws: `CocoaError`: `.fileNoSuchFile` when the object cannot be found or its volume is
        ///   not mounted, `.fileReadUnknown` when a FUSE or network volume does not answer in time
        ///   (underlying code `volumeNotResponding`), `.fileReadCorruptFile` when `data` is not bookmark data
        ///   or, with `.withSecurityScope`, is unsigned, changed or of another application
        ///   (underlying `SecurityScopeError`), `.fileReadUnknown` with "Failed to retrieve
        ///   app-scope key" for a signing key that is not the user's own (mode 0600),
        ///   `.fileReadNoPermission`, `.fileReadUnsupportedScheme` for a non-file `url`; the
        ///   `BookmarkError` (with the last known path and volume) is in `userInfo[NSUnderlyingErrorKey]`.
        ///   After a failure, `URL.resourceValues(forKeys:fromBookmarkData:)` still reads the last
        ///   known path (`pathKey`) from the data, as Apple's documentation advises.
        public init(
            resolvingBookmarkData data: Data, options: BookmarkResolutionOptions = [], relativeTo url: URL? = nil,
            bookmarkDataIsStale: inout Bool
        ) throws {
            let found = try BookmarkCalls.resolve(data, options: options, relativeTo: url)
            bookmarkDataIsStale = found.isStale
            self = found.url
        }

        /// Returns resource values stored in bookmark data, without resolving it and without touching
        /// the file system: Apple's `URL.resourceValues(forKeys:fromBookmarkData:)` on Linux.
        ///
        /// A key that is missing from the result was not in the bookmark. Values come from the
        /// resource values stored at creation (`includingResourceValuesForKeys:`), else from what every
        /// bookmark records: `pathKey` (the last known path), `nameKey`, `creationDateKey` (birth
        /// time), `isDirectoryKey`, `isRegularFileKey`, `isSymbolicLinkKey`, `isVolumeKey`,
        /// `isHiddenKey`, `fileResourceTypeKey`, `volumeNameKey`, `volumeUUIDStringKey`,
        /// `volumeURLKey`, `volumeTotalCapacityKey`, `volumeCreationDateKey`,
        /// `volumeIsRootFileSystemKey`. Names that are not UTF-8 come back with U+FFFD in place of the
        /// bad bytes (`BookmarkKit`'s `storedValues.pathBytes` has the exact bytes).
        ///
        /// swift-corelibs-foundation lets callers set only some `URLResourceValues` properties (name,
        /// dates, hidden, …); the others (path, sizes, flags, volume values) are filled through
        /// `URLResourceValues`' storage after a run-time check of its layout. If that check ever fails
        /// (a future Foundation), only the settable properties are returned; see
        /// `BookmarkResourceValues.canFillAllKeys`.
        ///
        /// - Parameters:
        ///   - keys: The resource keys wanted.
        ///   - data: Bookmark data.
        /// - Returns: The values found, or `nil` when `data` is not readable bookmark data.
        public static func resourceValues(forKeys keys: Set<URLResourceKey>, fromBookmarkData data: Data)
            -> URLResourceValues?
        {
            guard let bookmark = try? Bookmark(data: [UInt8](data)) else { return nil }
            return BookmarkResourceValues.make(from: offlineValues(bookmark.record, keys: keys))
        }
    }

    // MARK: - Paths

    /// The raw file-system path of a `file:` URL (made absolute against the working directory), or
    /// `nil` for other schemes and for URLs without a path.
    ///
    /// The bytes come from the percent-encoded path, not from `path` or
    /// `withUnsafeFileSystemRepresentation`: on Linux those are empty for a URL whose decoded path is
    /// not UTF-8 (`file:///tmp/caf%E9.txt`), which is how this module returns such names.
    func fileSystemPath(of url: URL) -> FilePath? {
        fileSystemPathBytes(of: url).map { PathBytes($0).filePath }
    }

    /// ``fileSystemPath(of:)`` as bytes: as the URL holds them when they are a plain absolute path
    /// (no `FilePath` made), else as `FilePath` normalises them (`//` and a trailing `/` removed).
    func fileSystemPathBytes(of url: URL) -> [UInt8]? {
        guard url.isFileURL else { return nil }
        // `absoluteURL` only for a URL relative to a base (for the rest it is the URL itself, and
        // asking cost a fifth of taking the path).
        let encoded = (url.baseURL == nil ? url : url.absoluteURL).path(percentEncoded: true)
        // A file-reference URL (`/.file/id=…`, or a path URL `NSURL.fileReferenceURL()` made) names
        // the file where it is now, as on macOS, where Foundation turns one into the current path.
        // (One that no longer resolves falls through: its path names nothing, so the call fails
        // with "no such file".)
        if url.baseURL != nil || encoded.hasPrefix("/.file/id="), fileReference(of: url) != nil,
            let current = try? currentFilePathURL(ofReference: url)
        {
            return fileSystemPathBytes(of: current)
        }
        // `%00` decodes to a NUL byte, which no path can hold (as a C string it would end there and
        // name another file).
        guard let bytes = FileURLPaths.percentDecoded(encoded), !bytes.isEmpty, !PathBytes(bytes).containsNUL else { return nil }
        return PathBytes(bytes).isNormalAbsolute ? bytes : PathBytes(PathBytes(bytes).filePath).bytes
    }

    /// The base directory for a relative bookmark: the URL itself when it has a directory path, else
    /// the folder holding it (a document).
    func baseDirectory(of url: URL) -> FilePath? {
        fileSystemPath(of: url.hasDirectoryPath ? url : url.deletingLastPathComponent())
    }

    /// The error for a URL that cannot name a file: `.fileReadUnsupportedScheme` for another scheme,
    /// `.fileReadInvalidFileName` for a `file:` URL without a usable path.
    func unusable(_ url: URL) -> CocoaError {
        guard url.isFileURL else {
            return CocoaError(
                .fileReadUnsupportedScheme,
                userInfo: [NSURLErrorKey: url, NSDebugDescriptionErrorKey: "bookmarks need a file: URL, not \(url.absoluteString)"])
        }
        return CocoaError(
            .fileReadInvalidFileName,
            userInfo: [NSURLErrorKey: url, NSDebugDescriptionErrorKey: "\(url.absoluteString) has no usable path"])
    }

    // MARK: - Offline values

    /// The requested values that `record` holds, typed as Foundation types them in `allValues`
    /// (`NSNumber` for numbers and booleans, `Date`, `String`, `URL`, `Data`).
    func offlineValues(_ record: BookmarkRecord, keys: Set<URLResourceKey>) -> [URLResourceKey: Any] {
        var values: [URLResourceKey: Any] = [:]
        let stored = record.stringKeyedValues
        for key in keys {
            if let item = stored[ByteString(key.rawValue)], let value = foundationValue(item) {
                values[key] = value
            } else if let value = recordedValue(record, key: key) {
                values[key] = value
            }
        }
        return values
    }

    /// A stored resource value as a Foundation value.
    func foundationValue(_ item: BookmarkItem) -> Any? {
        if let text = item.byteString { return text.string ?? String(decoding: text.bytes, as: UTF8.self) }
        if let flag = item.boolValue { return NSNumber(value: flag) }
        if let number = item.integerValue { return NSNumber(value: Int(clamping: number)) }
        if let date = item.dateValue { return Date(timeIntervalSinceReferenceDate: date.secondsSinceReferenceDate) }
        if let bytes = item.dataValue { return Data(bytes) }
        if case .url = item, let text = item.stringValue { return URL(string: text) }
        return nil
    }

    /// A value derived from what every bookmark records (path, name, flags, volume).
    func recordedValue(_ record: BookmarkRecord, key: URLResourceKey) -> Any? {
        let volume = record.volume
        func text(_ bytes: ByteString?) -> String? { bytes.map { $0.string ?? String(decoding: $0.bytes, as: UTF8.self) } }
        func flag(_ bit: UInt64) -> NSNumber? {
            guard let properties = record.resourceProperties, properties.validMask & bit == bit else { return nil }
            return NSNumber(value: properties.flags & bit == bit)
        }
        func date(_ value: BookmarkDate?) -> Date? { value.map { Date(timeIntervalSinceReferenceDate: $0.secondsSinceReferenceDate) } }
        switch key {
        case .pathKey: return text(record.pathBytes)
        case .nameKey: return text(record.fileName ?? record.pathComponents?.last)
        case .creationDateKey: return date(record.creationDate)
        case .contentModificationDateKey: return date(record.modificationDate)
        case .isRegularFileKey: return flag(BookmarkPropertyFlags.isRegularFile)
        case .isDirectoryKey: return flag(BookmarkPropertyFlags.isDirectory)
        case .isSymbolicLinkKey: return flag(BookmarkPropertyFlags.isSymbolicLink)
        case .isVolumeKey: return flag(BookmarkPropertyFlags.isVolume)
        case .isHiddenKey: return flag(BookmarkPropertyFlags.isHidden)
        case .isPackageKey: return flag(BookmarkPropertyFlags.isPackage)
        case .isUserImmutableKey: return flag(BookmarkPropertyFlags.isUserImmutable)
        case .isSystemImmutableKey: return flag(BookmarkPropertyFlags.isSystemImmutable)
        case .fileResourceTypeKey:
            if flag(BookmarkPropertyFlags.isDirectory)?.boolValue == true { return URLFileResourceType.directory }
            if flag(BookmarkPropertyFlags.isSymbolicLink)?.boolValue == true { return URLFileResourceType.symbolicLink }
            if flag(BookmarkPropertyFlags.isRegularFile)?.boolValue == true { return URLFileResourceType.regular }
            return nil
        case .volumeNameKey: return text(volume.name)
        case .volumeUUIDStringKey: return volume.uuid
        case .volumeURLKey: return volume.path.map { fileURL(bytes: $0.bytes, isDirectory: true) }
        case .volumeTotalCapacityKey: return volume.capacity.map { NSNumber(value: Int(clamping: $0)) }
        case .volumeCreationDateKey: return date(volume.creationDate)
        case .volumeIsRootFileSystemKey: return volume.wasBoot.map { NSNumber(value: $0) }
        default: return nil
        }
    }
#endif
