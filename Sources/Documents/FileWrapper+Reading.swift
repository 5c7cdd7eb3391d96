// SPDX-License-Identifier: Apache-2.0
#if os(Linux)
    import BookmarkKit
    import Foundation
    import SecureFiles
    import SystemPackage

    /// Where a wrapper's contents are on disk: the item read at the top, and the names below it.
    /// Opening walks those names one by one without following a symbolic link, so nothing read
    /// later, lazily, can be redirected out of the package.
    struct PackageSource: Sendable {
        var root: [UInt8]
        var components: [[UInt8]]

        func appending(_ name: [UInt8]) -> PackageSource {
            var more = components
            more.append(name)
            return PackageSource(root: root, components: more)
        }

        /// Whether this is `parent.appending(name)`: the same root, and the parent's components
        /// then `name`. (Arrays that share storage compare without reading their elements.)
        func isChild(named name: [UInt8], of parent: PackageSource) -> Bool {
            components.count == parent.components.count + 1 && components.last == name && root == parent.root
                && components.dropLast().elementsEqual(parent.components)
        }

        /// The item's parent directory (`O_PATH`) and the item's name in it.
        func openParent() throws(FileSystemError) -> (OwnedDescriptor, [UInt8]) {
            let path = PathBytes(root)
            guard let topName = path.lastComponent else {
                throw FileSystemError(syscall: "openat", errno: .invalidArgument, path: FilePath(bytes: root))
            }
            var parent = try Directory.current.open(bytes: path.parent.bytes, options: [.pathOnly, .directory])
            var name = topName
            for component in components {
                let next = try parent.openChild(name, options: [.pathOnly, .directory])
                try? parent.close()
                parent = next
                name = component
            }
            return (parent, name)
        }
    }

    extension PackageSource {
        /// The item a `file:` URL names, its path taken as exact bytes (`FileURLPaths`).
        init?(url: URL) {
            guard let path = FileURLPaths.bytes(of: url.standardizedFileURL) else { return nil }
            self.init(root: path, components: [])
        }
    }

    /// The identity and times of an object at a read or write: what a later save compares before
    /// it links the object instead of writing it.
    struct Snapshot: Equatable, Sendable {
        var device: DeviceNumber
        var inode: UInt64
        var kind: FileKind
        var size: UInt64
        var modification: Timestamp
        var change: Timestamp
        var birth: Timestamp?

        init(_ status: FileStatus) {
            device = status.device
            inode = status.inode
            kind = status.kind
            size = status.size
            modification = status.modificationTime
            change = status.changeTime
            birth = status.birthTime
        }
    }

    extension FileWrapper {
        /// Reads this wrapper again from `url`. Children are added and removed to match the disk;
        /// a child object whose key is still there is kept and re-read.
        public func read(from url: URL, options: ReadingOptions = []) throws {
            guard let top = PackageSource(url: url), PathBytes(top.root).isAbsolute, PathBytes(top.root).lastComponent != nil else {
                throw CocoaError(.fileReadInvalidFileName, userInfo: [NSURLErrorKey: url, NSFilePathErrorKey: url.path])
            }
            try locked { () throws -> Void in
                do throws(FileSystemError) {
                    let source = top
                    let (parent, name) = try source.openParent()
                    defer { try? parent.close() }
                    try readNode(parent: parent, name: name, source: source, immediate: options.contains(.immediate))
                    if !options.contains(.immediate) { try checkReadable(parent: parent, name: name) }
                    storedFilename = String(decoding: name, as: UTF8.self)
                    if storedPreferredFilename == nil { storedPreferredFilename = storedFilename }
                } catch {
                    throw CocoaError.reading(error, url: url)
                }
            }
        }

        /// Apple checks readability at a lazy read (EACCES up front), and reads the rest later.
        private func checkReadable(parent: OwnedDescriptor, name: [UInt8]) throws(FileSystemError) {
            switch kind {
            case .regular: try parent.openChild(name, options: .readOnly).close()
            case .directory: try parent.openChild(name, options: [.readOnly, .directory]).close()
            case .symlink: break
            }
        }

        /// Reads the entry `name` of `parent` into this wrapper: its kind, attributes and identity,
        /// and with `immediate` its whole contents.
        func readNode(parent: OwnedDescriptor, name: [UInt8], source: PackageSource, immediate: Bool) throws(FileSystemError) {
            let status = try parent.statusOfChild(name)
            let newKind: Kind
            switch status.kind {
            case .regular: newKind = .regular
            case .directory: newKind = .directory
            case .symlink: newKind = .symlink
            default:
                throw FileSystemError(syscall: "statx", errno: .notSupported, path: FilePath(bytes: name))
            }
            let unchanged = snapshot == Snapshot(status) && newKind == kind
            kind = newKind
            storedAttributes = Self.attributes(of: status)
            attributesEdited = false
            snapshot = Snapshot(status)
            self.source = source
            diskName = name
            lazyError = nil
            if !unchanged {
                storedContents = nil
                storedLinkTarget = nil
                if newKind != .directory { storedChildren = nil }
            }
            guard immediate else {
                // A directory read before is listed again now, so its child objects are kept by key;
                // a first read lists it on first use.
                if newKind == .directory, storedChildren != nil {
                    storedChildren = try listChildren(parent: parent, name: name, immediate: false)
                }
                return
            }
            switch newKind {
            case .regular: storedContents = try readContents(parent: parent, name: name)
            case .symlink: storedLinkTarget = try parent.symlinkTarget(ofChild: name)
            case .directory: storedChildren = try listChildren(parent: parent, name: name, immediate: true)
            }
        }

        /// Lists the directory `name` of `parent` into a child table, keeping child objects by key.
        func listChildren(parent: OwnedDescriptor, name: [UInt8], immediate: Bool) throws(FileSystemError) -> ChildTable {
            let directory = try parent.openChild(name, options: [.readOnly, .directory])
            defer { try? directory.close() }
            let here = (source ?? PackageSource(root: name, components: []))
            let entries = try directory.directoryEntries()
                .filter { $0.name != [0x2E] && $0.name != [0x2E, 0x2E] }
                .sorted { $0.name.lexicographicallyPrecedes($1.name) }
            let previous = storedChildren
            var table = ChildTable()
            for entry in entries {
                let preferred = String(decoding: entry.name, as: UTF8.self)
                let child = previous?.dictionary[preferred] ?? FileWrapper(kind: .regular, attributes: [:])
                do throws(FileSystemError) {
                    try child.locked { () throws(FileSystemError) -> Void in
                        try child.readNode(parent: directory, name: entry.name, source: here.appending(entry.name), immediate: immediate)
                    }
                } catch {
                    // A device, FIFO or socket cannot be a wrapper, and an entry removed while the
                    // directory is read is gone: both are left out. Anything else fails the read.
                    if error.errno == .notSupported || error.errno == .noSuchFileOrDirectory { continue }
                    throw error
                }
                child.locked { () -> Void in
                    child.storedFilename = preferred
                    child.storedPreferredFilename = preferred
                    if !child.parents.contains(where: { $0.wrapper === self }) {
                        child.parents.append(WeakWrapper(wrapper: self))
                    }
                }
                let key = table.uniqueKey(for: preferred)
                child.keepsDiskName = key != preferred
                table.insert(child, as: key)
            }
            return table
        }

        /// Reads a regular file's bytes through a descriptor opened without following a link.
        func readContents(parent: OwnedDescriptor, name: [UInt8]) throws(FileSystemError) -> Data {
            let file = try parent.openChild(name, options: .readOnly)
            defer { try? file.close() }
            let status = try file.status()
            guard status.kind == .regular else {
                throw FileSystemError(syscall: "openat", errno: .invalidArgument, path: FilePath(bytes: name))
            }
            let bytes = try file.readToEnd(limit: Int.max)
            snapshot = Snapshot(status)
            return Data(bytes)
        }

        // MARK: Lazy reads (called with the lock held)

        func loadedContents() -> Data? {
            if let storedContents { return storedContents }
            guard let source else { return nil }
            return lazily { () throws(FileSystemError) -> Data in
                let (parent, name) = try source.openParent()
                defer { try? parent.close() }
                let data = try readContents(parent: parent, name: name)
                storedContents = data
                return data
            }
        }

        func loadedChildren() -> ChildTable? {
            if let storedChildren { return storedChildren }
            guard kind == .directory else { return nil }
            guard let source else {
                storedChildren = ChildTable()
                return storedChildren
            }
            return lazily { () throws(FileSystemError) -> ChildTable in
                let (parent, name) = try source.openParent()
                defer { try? parent.close() }
                let table = try listChildren(parent: parent, name: name, immediate: false)
                storedChildren = table
                return table
            }
        }

        func loadedLinkTarget() -> [UInt8]? {
            if let storedLinkTarget { return storedLinkTarget }
            guard let source else { return nil }
            return lazily { () throws(FileSystemError) -> [UInt8] in
                let (parent, name) = try source.openParent()
                defer { try? parent.close() }
                let target = try parent.symlinkTarget(ofChild: name)
                storedLinkTarget = target
                return target
            }
        }

        /// Runs a lazy read; a failure is kept for the next write and reported once on stderr, as
        /// Apple logs it once.
        private func lazily<T>(_ body: () throws(FileSystemError) -> T) -> T? {
            do throws(FileSystemError) {
                return try body()
            } catch {
                lazyError = error
                LazyReadLog.once(error)
                return nil
            }
        }
    }

    /// Apple logs the first failed lazy read of a process; so does this.
    enum LazyReadLog {
        private static let logged = Locked(false)

        static func once(_ error: FileSystemError) {
            let first = logged.withLock { logged -> Bool in
                defer { logged = true }
                return !logged
            }
            guard first, ProcessInfo.processInfo.environment["FILEWRAPPER_LOGS_LESS"] == nil else { return }
            FileHandle.standardError.write(
                Data("FileWrapper: tried to read the file wrapper's contents lazily but an error occurred: \(error)\n".utf8))
        }
    }
#endif
