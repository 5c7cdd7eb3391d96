// SPDX-License-Identifier: Apache-2.0
#if os(Linux)
    import BookmarkKit
    import Foundation
    import SecureFiles
    import SystemPackage

    /// What happened to an open document's file behind the controller's back.
    public enum ExternalChange: Sendable, Equatable {
        /// The same document, unchanged, is now at another place on its volume (renamed or moved).
        case moved(to: URL)
        /// The document at this place was edited, or replaced by another file, since it was read
        /// or saved.
        case modified(URL)
        /// The document is gone.
        case deleted(lastKnown: URL)
    }

    /// Why a document cannot be opened or saved.
    ///
    /// A `LocalizedError`: its `localizedDescription` (what an alert shows) is the sentence of
    /// ``description``, not Foundation's generic "The operation could not be completed".
    public enum DocumentError: LocalizedError, Sendable, Equatable, CustomStringConvertible {
        /// The file's type is not one the document reads.
        case unsupportedContentType(String)
        /// Something already exists where a new document was to be created.
        case alreadyExists(URL)
        /// Another process edited or replaced the document since it was read or saved: saving would
        /// lose that work. Revert, or save elsewhere.
        case modifiedByAnotherProcess(URL)
        /// The document was deleted while open.
        case deleted(URL)

        /// A sentence for a person.
        public var description: String {
            switch self {
            case .unsupportedContentType(let type): return "this document does not read files of type \(type)"
            case .alreadyExists(let url): return "\(url.path) already exists"
            case .modifiedByAnotherProcess(let url):
                return "\(url.path) was changed by another process since it was read or saved; saving would lose that change"
            case .deleted(let url): return "\(url.path) was deleted while it was open"
            }
        }

        /// The sentence of ``description``: what `localizedDescription` returns.
        public var errorDescription: String? { description }
    }

    /// Opens, saves, autosaves and reverts a ``FileDocument``, safely:
    ///
    /// - **Safe save**: through ``FileWrapper``'s atomic writer, with unchanged children hard-linked
    ///   (Docs/DOCUMENTS.md).
    /// - **One writer at a time**, across processes: an exclusive `flock` on `.<name>.lock` beside
    ///   the document, a file that stays put while the package itself gets a new inode at every
    ///   save.
    /// - **No lost update**: under that lock, every object of the tree as read or last saved must
    ///   still be on disk exactly as then (device, inode, kind, size, modification and change time
    ///   to the nanosecond, birth time), each compared once: the package, the children the new tree
    ///   drops, and the kept children by the writer's link check. Another process's edit or save
    ///   makes ``save()`` throw ``DocumentError/modifiedByAnotherProcess(_:)`` with nothing written;
    ///   it never overwrites silently.
    /// - **Follows its file**: an `O_PATH` descriptor of the document's object (the kernel names
    ///   its place after a rename or move, on any file system) and, where that cannot tell, a
    ///   bookmark made at open and at every save. The next save goes where the document is now and
    ///   nothing is recreated at the old path. A deleted document is reported, not recreated. The
    ///   descriptor keeps the volume busy while the controller lives, as an open file does.
    /// - **Returns early**: the old package tree is removed in the background
    ///   (``FileWrapper/WritingOptions/removingOldTreeInBackground``).
    ///
    /// One lock guards the controller, so it may be shared across tasks.
    public final class DocumentController<Document: FileDocument>: @unchecked Sendable {
        private let guardLock = NSRecursiveLock()
        private var storedURL: URL
        private var storedDocument: Document
        private var changed = false
        private var wrapper: FileWrapper
        private var bookmark: Bookmark?
        /// The document's object, held `O_PATH` between saves: wherever another process renames or
        /// moves it on its volume, the kernel names its place (`/proc/self/fd`), on every file
        /// system, tmpfs included. It keeps the volume busy while the document is open, as an open
        /// file does.
        private var anchor: OwnedDescriptor?

        /// The document's content type.
        public let contentType: UTType

        /// Where the document is, as of the last open, save or ``checkForExternalChange()``.
        public var fileURL: URL { guardLock.withLock { storedURL } }

        /// The document. Setting it marks the controller as having unsaved changes.
        public var document: Document {
            get { guardLock.withLock { storedDocument } }
            set {
                guardLock.withLock {
                    storedDocument = newValue
                    changed = true
                }
            }
        }

        /// Whether the document changed since it was opened, saved or reverted.
        public var hasUnsavedChanges: Bool { guardLock.withLock { changed } }

        /// Opens the document at `url`. Its type is `contentType`, or found from the filename
        /// extension among the document's readable types.
        ///
        /// - Throws: ``DocumentError/unsupportedContentType(_:)``, the `CocoaError` of the read,
        ///   or what the document's `init(configuration:)` throws.
        public init(contentsOf url: URL, contentType: UTType? = nil) throws {
            let type = try Self.contentType(of: url, given: contentType)
            let wrapper = try FileWrapper(url: url)
            storedDocument = try Document(configuration: FileDocumentReadConfiguration(contentType: type, file: wrapper))
            self.wrapper = wrapper
            self.contentType = type
            storedURL = Self.canonical(url, isDirectory: wrapper.isDirectory)
            follow(storedURL)
        }

        /// Creates a new document at `url` and saves it there.
        ///
        /// - Throws: ``DocumentError/alreadyExists(_:)`` when anything is at `url`, or the write's
        ///   `CocoaError`.
        public init(creating document: Document, at url: URL, contentType: UTType) throws {
            let url = url.standardizedFileURL
            let wrapper = try document.fileWrapper(
                configuration: FileDocumentWriteConfiguration(contentType: contentType, existingFile: nil))
            try Self.withWriterLock(for: url) { () throws -> Void in
                guard !Self.somethingExists(at: url) else { throw DocumentError.alreadyExists(url) }
                try wrapper.write(to: url, options: [.atomic, .withNameUpdating], originalContentsURL: nil)
            }
            storedDocument = document
            self.wrapper = wrapper
            self.contentType = contentType
            storedURL = Self.canonical(url, isDirectory: wrapper.isDirectory)
            follow(storedURL)
        }

        /// What happened to the file since it was read or saved, or `nil` when it is exactly as
        /// then. A move is followed: ``fileURL`` becomes the new place.
        public func checkForExternalChange() -> ExternalChange? {
            guardLock.withLock {
                let change = externalChange()
                if case .moved(let url) = change {
                    storedURL = url
                    follow(url)
                }
                return change
            }
        }

        /// Saves the document where it is now: unchanged children linked, the new package swapped in.
        ///
        /// Waits, blocking and without a timeout, while another process holds the document's
        /// writers' lock (`.<name>.lock` beside it, which stays there: Docs/DOCUMENTS.md).
        ///
        /// - Throws: ``DocumentError/modifiedByAnotherProcess(_:)`` (nothing written),
        ///   ``DocumentError/deleted(_:)`` (nothing created), what the document's
        ///   `fileWrapper(configuration:)` throws, or the write's `CocoaError`.
        public func save() throws {
            try guardLock.withLock { () throws -> Void in
                // Where to save: the package's own identity says whether it is still here (one
                // statx); only when it is not is the document looked for (bookmark, deep compare).
                let location = wrapper.matchesTopLevelExactly(of: storedURL) ? storedURL : try currentLocation()
                try Self.withWriterLock(for: location) { () throws -> Void in
                    // Under the writers' lock, every object of the tree as read or last saved is
                    // compared with the disk once: the package itself here (another process's save,
                    // an entry added or removed), the children the new tree drops or moves here, and
                    // the children it keeps in place by the writer, with the statx that decides
                    // whether to link them.
                    guard wrapper.matchesTopLevelExactly(of: location) else {
                        throw DocumentError.modifiedByAnotherProcess(location)
                    }
                    let before = wrapper.descendantsWithPlaces()
                    let newWrapper = try storedDocument.fileWrapper(
                        configuration: FileDocumentWriteConfiguration(contentType: contentType, existingFile: wrapper))
                    let inPlace = newWrapper.markDescendantsInPlace()
                    // The marks read under one lock, not one per descendant.
                    let leaving = newWrapper.locked { before.filter { $0.0.placeMark != inPlace } }
                    for case (let child, let place?) in leaving {
                        guard child.matchesExactly(at: place, beneath: location) else {
                            throw DocumentError.modifiedByAnotherProcess(location)
                        }
                    }
                    try newWrapper.writeRefusingExternalChanges(
                        to: location, options: [.atomic, .withNameUpdating, .removingOldTreeInBackground], inPlace: inPlace)
                    wrapper = newWrapper
                }
                storedURL = location
                changed = false
                follow(location)
            }
        }

        /// Saves the document to a new place, and goes on from there (Save As; also how a document
        /// deleted while open is written again, at its ``fileURL``).
        ///
        /// Nothing may be at `url`: the save never replaces another item. Unchanged children are
        /// cloned from the document where it is now when that is possible (`FICLONE` on XFS and
        /// btrfs), copied otherwise, never hard-linked: the two documents must not share files. The
        /// document at the old place is left as it is.
        ///
        /// - Throws: ``DocumentError/alreadyExists(_:)`` (nothing written), what the document's
        ///   `fileWrapper(configuration:)` throws, or the write's `CocoaError`.
        public func save(to url: URL) throws {
            try guardLock.withLock { () throws -> Void in
                let target = Self.canonical(url, isDirectory: wrapper.isDirectory)
                let source: URL? =
                    switch externalChange() {
                    case nil: storedURL
                    case .moved(let now): now
                    case .modified, .deleted: nil
                    }
                let newWrapper = try Self.withWriterLock(for: target) { () throws -> FileWrapper in
                    guard Self.status(at: target) == nil else { throw DocumentError.alreadyExists(target) }
                    let newWrapper = try storedDocument.fileWrapper(
                        configuration: FileDocumentWriteConfiguration(contentType: contentType, existingFile: wrapper))
                    try newWrapper.write(
                        to: target, options: [.atomic, .withNameUpdating, .cloningUnchangedFiles], originalContentsURL: source)
                    return newWrapper
                }
                wrapper = newWrapper
                storedURL = target
                changed = false
                follow(target)
            }
        }

        /// Saves when there are unsaved changes; returns whether it saved.
        @discardableResult
        public func autosave() throws -> Bool {
            guard hasUnsavedChanges else { return false }
            try save()
            return true
        }

        /// Reads the document again from where it is now, dropping unsaved changes.
        ///
        /// - Throws: ``DocumentError/deleted(_:)``, the read's `CocoaError`, or what the document's
        ///   `init(configuration:)` throws.
        public func revert() throws {
            try guardLock.withLock { () throws -> Void in
                let location: URL
                switch externalChange() {
                case .deleted(let url): throw DocumentError.deleted(url)
                case .moved(let url): location = url
                case .modified(let url): location = url
                case nil: location = storedURL
                }
                let fresh = try FileWrapper(url: location)
                storedDocument = try Document(configuration: FileDocumentReadConfiguration(contentType: contentType, file: fresh))
                wrapper = fresh
                storedURL = location
                changed = false
                follow(location)
            }
        }

        // MARK: Where the document is

        /// The place to save to: here, or where the document moved; throws on a conflict or deletion.
        private func currentLocation() throws -> URL {
            switch externalChange() {
            case nil: return storedURL
            case .moved(let url): return url
            case .modified(let url): throw DocumentError.modifiedByAnotherProcess(url)
            case .deleted(let url): throw DocumentError.deleted(url)
            }
        }

        /// Records where the document is now: a bookmark of it and a descriptor of its object.
        private func follow(_ url: URL) {
            bookmark = Self.bookmark(of: url)
            try? anchor?.close()
            anchor = PackageSource(url: url).flatMap { source -> OwnedDescriptor? in
                guard let (parent, name) = try? source.openParent() else { return nil }
                defer { try? parent.close() }
                return try? parent.openChild(name, options: [.pathOnly])
            }
        }

        private func externalChange() -> ExternalChange? {
            // The top level's change time is left out: a rename changes it, and a change of
            // contents shows in the package's modification time or its children's identities.
            if wrapper.matchesMovedContentsExactly(of: storedURL) { return nil }
            if let change = changeSeenThroughAnchor() { return change }
            guard let bookmark else {
                return Self.somethingExists(at: storedURL) ? .modified(storedURL) : .deleted(lastKnown: storedURL)
            }
            switch Result(catching: { () throws(BookmarkError) -> Resolution in try bookmark.resolve() }) {
            case .failure:
                return .deleted(lastKnown: storedURL)
            case .success(let resolution):
                let url = FileURLPaths.url(bytes: PathBytes(resolution.path).bytes, isDirectory: wrapper.isDirectory)
                switch resolution.matchedBy {
                case .path, .replacedAtPath, .savedInPlace:
                    return .modified(storedURL)
                default:
                    return wrapper.matchesMovedContentsExactly(of: url) ? .moved(to: url) : .modified(url)
                }
            }
        }

        /// What the held descriptor tells of the object read or last saved, or `nil` when it cannot
        /// tell (no `/proc`, a place outside this process's root), and the bookmark is asked.
        private func changeSeenThroughAnchor() -> ExternalChange? {
            guard let anchor, let held = try? anchor.status() else { return nil }
            let here = Self.status(at: storedURL) != nil
            // Gone from every directory: whatever is at the path now replaced it.
            if held.linkCount == 0 { return here ? .modified(storedURL) : .deleted(lastKnown: storedURL) }
            guard let bytes = try? anchor.currentPathBytes(),
                let now = Self.status(at: FileURLPaths.url(bytes: bytes, isDirectory: false)),
                now.device == held.device, now.inode == held.inode
            else { return nil }
            let path = PathBytes(bytes)
            if bytes == PackageSource(url: storedURL)?.root { return .modified(storedURL) }
            // Set aside by another writer's save (its staging or backup name beside the path): the
            // document at the path was replaced.
            if path.parent.bytes == PackageSource(url: storedURL).map({ PathBytes($0.root).parent.bytes }),
                let name = path.lastComponent, let documentName = PackageSource(url: storedURL).flatMap({ PathBytes($0.root).lastComponent }),
                [PackageWriter.stagingMarker, PackageWriter.backupMarker].contains(where: { marker in
                    name.starts(with: [0x2E] + documentName + Array(marker.utf8))
                })
            {
                return here ? .modified(storedURL) : .deleted(lastKnown: storedURL)
            }
            let url = FileURLPaths.url(bytes: bytes, isDirectory: wrapper.isDirectory)
            return wrapper.matchesMovedContentsExactly(of: url) ? .moved(to: url) : .modified(url)
        }

        // MARK: Helpers

        /// The status of what is at `url`, a symbolic link not followed; `nil` when nothing is.
        private static func status(at url: URL) -> FileStatus? {
            guard let (parent, name) = try? PackageSource(url: url)?.openParent() else { return nil }
            defer { try? parent.close() }
            return try? parent.statusOfChild(name)
        }

        /// A document's URL in one form: standardized, with a trailing `/` exactly when it is a
        /// directory (a package), whatever is on disk at the moment.
        private static func canonical(_ url: URL, isDirectory: Bool) -> URL {
            FileURLPaths.bytes(of: url.standardizedFileURL).map { FileURLPaths.url(bytes: $0, isDirectory: isDirectory) } ?? url
        }

        /// Whether anything is at `url`, a symbolic link (even a dangling one) included: one `statx`
        /// of the name in its directory.
        private static func somethingExists(at url: URL) -> Bool { status(at: url) != nil }

        private static func bookmark(of url: URL) -> Bookmark? {
            FileURLPaths.bytes(of: url).flatMap { try? Bookmark.create(for: PathBytes($0).filePath) }
        }

        private static func contentType(of url: URL, given: UTType?) throws -> UTType {
            if let given {
                guard Document.readableContentTypes.contains(where: { given.conforms(to: $0) }) else {
                    throw DocumentError.unsupportedContentType(given.identifier)
                }
                return given
            }
            let ext = url.pathExtension.lowercased()
            if let exported = Document.readableContentTypes.first(where: { $0.filenameExtensions.contains(ext) }) {
                return exported
            }
            if let known = UTType(filenameExtension: ext, conformingTo: .item),
                Document.readableContentTypes.contains(where: { known.conforms(to: $0) })
            {
                return known
            }
            throw DocumentError.unsupportedContentType(ext.isEmpty ? "(no extension)" : ext)
        }

        /// Runs `body` holding the exclusive writers' lock of the document at `url`: `flock` on
        /// `.<name>.lock` in its directory, created (mode 0666 minus the umask) when missing.
        ///
        /// Waits, with no timeout, while another process holds the lock (its save takes as long as
        /// its write). The lock file stays: removing it would let one process lock the removed file
        /// while another creates and locks a new one under the same name.
        ///
        /// - Throws: What `body` throws; a `CocoaError` mapped as the write's errors are
        ///   (`.fileNoSuchFile` for a missing folder, `.fileWriteNoPermission`, …) when the lock file
        ///   cannot be opened, created or locked, with the `FileSystemError` (syscall, errno, path) in
        ///   `userInfo[NSUnderlyingErrorKey]` and `url` in `NSURLErrorKey`.
        static func withWriterLock<T>(for url: URL, _ body: () throws -> T) throws -> T {
            guard let path = FileURLPaths.bytes(of: url.standardizedFileURL).map(PathBytes.init), let documentName = path.lastComponent
            else { throw CocoaError(.fileWriteInvalidFileName, userInfo: [NSURLErrorKey: url]) }
            let file: OwnedDescriptor
            do throws(FileSystemError) {
                file = try lockFile(in: path.parent, for: documentName)
            } catch {
                throw CocoaError.writing(error, url: url)
            }
            defer { try? file.close() }
            do throws(FileSystemError) {
                _ = try file.lock(exclusive: true, wait: true)
            } catch {
                throw CocoaError.writing(error, url: url)
            }
            defer { try? file.unlock() }
            return try body()
        }

        /// `.<name>.lock` in `folder`, opened, or created (mode 0666 minus the umask) when missing.
        private static func lockFile(in folder: PathBytes, for documentName: [UInt8]) throws(FileSystemError) -> OwnedDescriptor {
            let parent = try Directory(opening: folder.filePath)
            let name = [0x2E] + documentName + Array(".lock".utf8)
            let umask = (try? ProcessUmask.current()).flatMap { $0 } ?? 0o022
            do throws(FileSystemError) {
                return try parent.createFile(bytes: name, permissions: FilePermissions(rawValue: 0o666 & ~umask))
            } catch {
                guard error.errno == .fileExists else { throw error }
                return try parent.descriptor.openChild(name, options: .readOnly)
            }
        }
    }
#endif
