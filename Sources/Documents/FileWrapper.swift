// SPDX-License-Identifier: Apache-2.0
#if os(Linux)
    import Foundation
    import SecureFiles

    /// Apple's `FileWrapper` on Linux: a file, a directory (a package) or a symbolic link, held in
    /// memory, read from and written to the file system through `SecureFiles`.
    ///
    /// The API is Apple's (Foundation's `FileWrapper`), with its naming rules: a child's dictionary
    /// key is its preferred filename, uniqued as `"<n>__#$!@%!#__<name>"` when another child already
    /// has that key, and keys compare case-insensitively. What Linux changes:
    ///
    /// - **Saving** (`write(to:options:originalContentsURL:)` with `.atomic`) builds the new package in
    ///   a hidden sibling directory, hard-links unchanged files from the original, syncs files and
    ///   directories, and swaps it in with one `renameat2(RENAME_EXCHANGE)`: a reader sees the old
    ///   package or the new one, never a mix, and there is no moment without a package.
    /// - **An unchanged file is linked only when it is exactly what was read**: same inode, size,
    ///   modification and change time (nanoseconds), where Apple trusts the modification time to a
    ///   second. A file edited in place behind the wrapper's back is written from memory instead, or,
    ///   if its contents were never read, the save fails with a conflict.
    /// - **Reading** never follows a symbolic link inside the package and never maps files (a file
    ///   truncated by another process cannot raise `SIGBUS`); `.withoutMapping` is therefore always
    ///   in effect.
    ///
    /// **Threads.** Apple's `FileWrapper` is not thread-safe. This one takes one process-wide lock
    /// around every call, so it may be shared across tasks; calls on different wrappers wait for
    /// each other, reads and writes of the disk included.
    ///
    /// Docs/DOCUMENTS.md describes the save algorithm, its crash states and what is not supported.
    open class FileWrapper: NSObject, NSSecureCoding, @unchecked Sendable {
        /// How ``init(url:options:)`` and ``read(from:options:)`` read.
        public struct ReadingOptions: OptionSet, Sendable, Hashable {
            /// The bits.
            public let rawValue: UInt
            /// Creates options from bits.
            public init(rawValue: UInt) { self.rawValue = rawValue }
            /// Read the whole tree now, so later accessors do not fail (Apple's bit 0).
            public static let immediate = ReadingOptions(rawValue: 1 << 0)
            /// Do not map files into memory (Apple's bit 1). Always the case here.
            public static let withoutMapping = ReadingOptions(rawValue: 1 << 1)
        }

        /// How ``write(to:options:originalContentsURL:)`` writes.
        public struct WritingOptions: OptionSet, Sendable, Hashable {
            /// The bits.
            public let rawValue: UInt
            /// Creates options from bits.
            public init(rawValue: UInt) { self.rawValue = rawValue }
            /// All or nothing: the new item replaces the old one in one step (Apple's bit 0).
            public static let atomic = WritingOptions(rawValue: 1 << 0)
            /// After the write, every descendant's ``filename`` becomes its key, so the next save
            /// can link it (Apple's bit 1).
            public static let withNameUpdating = WritingOptions(rawValue: 1 << 1)
            /// A Linux addition: an unchanged file is cloned (`FICLONE`: a new inode sharing the
            /// original's data blocks, on XFS and btrfs) instead of hard-linked, so the old package
            /// can be kept as a backup or version without sharing inodes with the new one. Where
            /// cloning is not supported (ext4, tmpfs) the file is copied.
            public static let cloningUnchangedFiles = WritingOptions(rawValue: 1 << 16)
            /// A Linux addition, with `.atomic`: the call returns once the new package is swapped
            /// in and synced, and the old tree is removed on a background queue (its files are
            /// mostly the new package's hard links, so this is one `unlinkat` each). Until then it
            /// stays beside the package under its hidden name (`.<name>.saving-…`). Any
            /// ``FileWrapper`` call waits for that removal first, and so does a normal process
            /// exit (up to 10 s); ``FileWrapper/waitForBackgroundRemovals()`` waits explicitly. A
            /// process killed before the removal ends leaves the old tree for the next atomic save
            /// of the package to sweep. ``DocumentController`` saves this way.
            public static let removingOldTreeInBackground = WritingOptions(rawValue: 1 << 17)
        }

        /// The uniquing infix Apple puts between the counter and the preferred name.
        public static let uniquingInfix = "__#$!@%!#__"

        /// The process-wide lock (see "Threads" above).
        static let lock = NSRecursiveLock()

        enum Kind: Sendable { case regular, directory, symlink }

        var kind: Kind
        var storedContents: Data?
        var storedChildren: ChildTable?
        var storedLinkTarget: [UInt8]?
        var storedPreferredFilename: String?
        var storedFilename: String?
        /// The exact bytes of the on-disk name at the last read or write.
        var diskName: [UInt8]?
        var storedAttributes: [String: Any]
        /// Set when ``fileAttributes`` was assigned: the next write writes this node (no link).
        var attributesEdited = false
        /// Where unread contents come from.
        var source: PackageSource?
        /// The object's identity and times at the last read or write.
        var snapshot: Snapshot?
        /// The error a lazy read met, reported again by the next write.
        var lazyError: (any Error)?
        /// Read with a key uniqued only because of a case collision on disk: written under its
        /// on-disk name, so a case-sensitive directory survives a read and a write unchanged.
        var keepsDiskName = false
        var parents: [WeakWrapper] = []
        /// The mark of the last ``markDescendantsInPlace()`` that found this wrapper in place.
        var placeMark: UInt64 = 0
        /// The last mark ``markDescendantsInPlace()`` handed out. Guarded by ``lock``.
        nonisolated(unsafe) static var lastPlaceMark: UInt64 = 0

        init(kind: Kind, attributes: [String: Any]) {
            self.kind = kind
            self.storedAttributes = attributes
            super.init()
        }

        // MARK: Coding

        /// The keyed-coding key, Apple's: it holds ``serializedRepresentation``.
        static let codingKey = "NSFileWrapperData"

        /// Secure coding is supported, as on macOS.
        public static var supportsSecureCoding: Bool { true }

        /// Decodes a wrapper that ``encode(with:)`` archived; `nil` for anything else.
        public required init?(coder: NSCoder) {
            guard let data = coder.decodeObject(of: NSData.self, forKey: FileWrapper.codingKey),
                case .success(let decoded) = Result(catching: { () throws(WrapperArchive.Failure) -> FileWrapper in
                    try WrapperArchive.decode(Data(referencing: data))
                })
            else { return nil }
            kind = decoded.kind
            storedAttributes = decoded.storedAttributes
            super.init()
            adopt(decoded)
        }

        /// Archives the wrapper as its ``serializedRepresentation`` under Apple's key.
        public func encode(with coder: NSCoder) {
            coder.encode(serializedRepresentation.map { NSData(data: $0) }, forKey: FileWrapper.codingKey)
        }

        func locked<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
            Self.lock.lock()
            defer { Self.lock.unlock() }
            // Never look at identities a background removal is about to change.
            BackgroundRemovals.shared.settle()
            return try body()
        }

        // MARK: Creating
        //
        // Apple's initialisers are all designated ("subclasses must meaningfully override them
        // all"), so a subclass's own initialiser may call any of them with `super.init`: each sets
        // the stored properties itself rather than delegating to another.

        /// A directory wrapper holding these children, each under its key: the keys are the file
        /// names the children are written under. A child with no preferred filename gets its key as
        /// one; a child with one keeps it and is still held (and written) under its key, as Apple
        /// documents. Keys that collide case-insensitively are uniqued, as Apple does.
        public init(directoryWithFileWrappers childrenByPreferredName: [String: FileWrapper]) {
            kind = .directory
            storedAttributes = FileWrapper.defaultAttributes(.directory)
            super.init()
            locked {
                var table = ChildTable()
                for key in childrenByPreferredName.keys.sorted() {
                    // The same wrapper under two keys is held once, as `addFileWrapper` holds it.
                    guard let child = childrenByPreferredName[key], table.key(of: child) == nil else { continue }
                    if child.storedPreferredFilename?.isEmpty ?? true { child.storedPreferredFilename = key }
                    // The key is the file name; an empty one could not be written (as `addFileWrapper`
                    // names a child without a name).
                    table.insert(child, as: table.uniqueKey(for: key.isEmpty ? "Untitled" : key))
                    child.parents.append(WeakWrapper(wrapper: self))
                }
                storedChildren = table
            }
        }

        /// A regular-file wrapper holding a copy of `contents`. Its modification date is now, as
        /// Apple's is; it has no preferred filename.
        public init(regularFileWithContents contents: Data) {
            kind = .regular
            storedAttributes = FileWrapper.defaultAttributes(.regular)
            storedContents = contents
            super.init()
        }

        /// A symbolic-link wrapper; a write creates the link with `url.relativePath` as its text.
        public init(symbolicLinkWithDestinationURL url: URL) {
            kind = .symlink
            storedAttributes = FileWrapper.defaultAttributes(.symlink)
            storedLinkTarget = Array(url.relativePath.utf8)
            super.init()
        }

        /// Reads the file, directory or symbolic link at `url` (a final symbolic link is not
        /// followed: it becomes a symbolic-link wrapper). Without `.immediate`, contents are read on
        /// first use; the item is only checked to be readable now.
        ///
        /// - Throws: `CocoaError`: `.fileReadNoSuchFile`, `.fileReadNoPermission`,
        ///   `.fileReadInvalidFileName` for `/`, `.fileReadUnknown` for another kind of object
        ///   (a device, a FIFO, a socket); the `FileSystemError` with the system call and errno is
        ///   under `NSUnderlyingErrorKey`.
        public init(url: URL, options: ReadingOptions = []) throws {
            // A placeholder state that `read(from:options:)` replaces with what is on disk.
            kind = .regular
            storedAttributes = [:]
            super.init()
            try read(from: url, options: options)
        }

        /// A wrapper tree from ``serializedRepresentation``; `nil` for bytes that are not one (every
        /// length, name, kind and limit is checked first).
        public init?(serializedRepresentation data: Data) {
            guard case .success(let decoded) = Result(catching: { () throws(WrapperArchive.Failure) -> FileWrapper in
                try WrapperArchive.decode(data)
            }) else { return nil }
            kind = decoded.kind
            storedAttributes = decoded.storedAttributes
            super.init()
            adopt(decoded)
        }

        // MARK: Kind

        /// Whether this is a directory (a package).
        open var isDirectory: Bool { locked { kind == .directory } }
        /// Whether this is a regular file.
        open var isRegularFile: Bool { locked { kind == .regular } }
        /// Whether this is a symbolic link.
        open var isSymbolicLink: Bool { locked { kind == .symlink } }

        // MARK: Names

        /// The name this wrapper would like in its parent. Setting it makes every parent re-add the
        /// child, which may give it a new, uniqued key. Apple raises on `nil` or `""`; here such a
        /// value is ignored.
        open var preferredFilename: String? {
            get { locked { storedPreferredFilename } }
            set {
                guard let newValue, !newValue.isEmpty else { return }
                locked {
                    guard newValue != storedPreferredFilename else { return }
                    storedPreferredFilename = newValue
                    for parent in parents.compactMap(\.wrapper) {
                        parent.rekey(self)
                    }
                }
            }
        }

        /// The name on disk at the last read or write (`nil` for a wrapper made in memory). To know
        /// the name a child is about to be written under, ask its parent's
        /// ``keyForChildFileWrapper(_:)``.
        open var filename: String? {
            get { locked { storedFilename } }
            set { locked { storedFilename = newValue; diskName = newValue.map { Array($0.utf8) } } }
        }

        /// The exact bytes of ``filename`` (a Linux addition: a name on disk need not be UTF-8, and
        /// ``filename`` shows such bytes as U+FFFD).
        public var filenameBytes: [UInt8]? {
            locked {
                guard let storedFilename else { return nil }
                if let diskName, Self.bytes(diskName, read: storedFilename) { return diskName }
                return Array(storedFilename.utf8)
            }
        }

        /// Whether `bytes`, read as UTF-8 (U+FFFD for what is not), is the string `name`. The
        /// string's own bytes are compared first, so the usual case makes no `String`: a save asks
        /// this for every child, several times (it was a tenth of a 10,000-child save's user time).
        static func bytes(_ bytes: [UInt8], read name: String) -> Bool {
            spells(name, bytes) || String(decoding: bytes, as: UTF8.self) == name
        }

        /// Whether `string`'s UTF-8 is exactly `bytes`: one `memcmp` of its stored bytes (the
        /// generic `utf8.elementsEqual` walked them one at a time, at some 100 instructions each).
        static func spells(_ string: String, _ bytes: [UInt8]) -> Bool {
            let same = string.utf8.withContiguousStorageIfAvailable { utf8 in
                utf8.count == bytes.count
                    && bytes.withUnsafeBufferPointer { stored in
                        guard let left = stored.baseAddress, let right = utf8.baseAddress else { return true }  // both empty
                        return memcmp(left, right, utf8.count) == 0
                    }
            }
            return same ?? string.utf8.elementsEqual(bytes)
        }

        // MARK: Contents

        /// The children by key (a copy); read from disk on first use. `nil` for a wrapper that is not a
        /// directory, or when that read fails (the error is reported again by the next write).
        open var fileWrappers: [String: FileWrapper]? {
            locked {
                guard kind == .directory else { return nil }
                guard let table = loadedChildren() else { return nil }
                return table.dictionary
            }
        }

        /// The contents of a regular file, read on first use; `nil` for another kind or when that
        /// read fails (the error is reported again by the next write).
        open var regularFileContents: Data? {
            locked {
                guard kind == .regular else { return nil }
                return loadedContents()
            }
        }

        /// The destination of a symbolic link, as written in the link (a relative one stays
        /// relative: its `relativePath` is the link's text).
        open var symbolicLinkDestinationURL: URL? {
            locked {
                guard kind == .symlink, let target = loadedLinkTarget() else { return nil }
                return URL(fileURLWithPath: String(decoding: target, as: UTF8.self))
            }
        }

        /// The link's text as its exact bytes (a Linux addition: names need not be UTF-8).
        public var symbolicLinkDestinationBytes: [UInt8]? {
            locked { kind == .symlink ? loadedLinkTarget() : nil }
        }
    }

    /// A weak reference to a parent wrapper.
    struct WeakWrapper {
        weak var wrapper: FileWrapper?
    }
#endif
