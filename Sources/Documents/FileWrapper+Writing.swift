// SPDX-License-Identifier: Apache-2.0
#if os(Linux)
    import BookmarkKit
    import Foundation
    import SecureFiles
    import SystemPackage

    extension FileWrapper {
        /// Writes this wrapper to `url`.
        ///
        /// - With `.atomic`, a directory is built in a hidden sibling (`.<name>.<random>.saving`),
        ///   synced (files, then directories from the bottom up), and swapped in with one
        ///   `renameat2(RENAME_EXCHANGE)` (`RENAME_NOREPLACE` when nothing is there yet); the parent is
        ///   synced and the old tree removed. A file or a link is written under a temporary name and
        ///   renamed over. Readers see the old item or the new one, never a mix.
        /// - Without `.atomic`, the item is created at `url` and the call fails with
        ///   `.fileWriteFileExists` when something is there, as on macOS; a partly written directory
        ///   is removed.
        /// - With `originalContentsURL` (the package as last read or written), every regular file
        ///   that is still exactly what was read there (same inode, size, modification and change
        ///   time) and whose attributes were not set is hard-linked from it instead of written.
        /// - With `.withNameUpdating`, every descendant's ``filename`` becomes its key afterwards, so
        ///   the next save can link it, and the wrapper's own ``filename`` becomes the last
        ///   component of `url` (Apple sets it when the wrapper is saved). Without it, no
        ///   ``filename`` changes.
        ///
        /// - Throws: `CocoaError` (`.fileWriteFileExists`, `.fileWriteNoPermission`,
        ///   `.fileWriteOutOfSpace`, `.fileWriteVolumeReadOnly`, `.fileWriteUnknown`, or the read
        ///   error of contents that a lazy read could not get), with the `FileSystemError` under
        ///   `NSUnderlyingErrorKey`. Nothing at `url` is changed when it throws.
        public func write(to url: URL, options: WritingOptions = [], originalContentsURL: URL?) throws {
            guard let path = PackageSource(url: url)?.root, PathBytes(path).isAbsolute, PathBytes(path).lastComponent != nil else {
                throw CocoaError(.fileWriteInvalidFileName, userInfo: [NSURLErrorKey: url, NSFilePathErrorKey: url.path])
            }
            try locked { () throws -> Void in
                let writer = PackageWriter(
                    options: options, umask: (try? ProcessUmask.current()).flatMap { $0 } ?? 0o022, url: url)
                try writer.write(self, to: path, original: originalContentsURL)
            }
        }

        /// ``write(to:options:originalContentsURL:)`` for ``DocumentController``: every descendant
        /// that was read or saved at the very place it is written to (marked `inPlace` by
        /// ``markDescendantsInPlace()``) is compared with what is on disk there first (the statx
        /// that decides linking, reused), and any difference throws
        /// ``DocumentError/modifiedByAnotherProcess(_:)`` before anything is swapped in.
        func writeRefusingExternalChanges(to url: URL, options: WritingOptions, inPlace: UInt64) throws {
            guard let path = PackageSource(url: url)?.root, PathBytes(path).isAbsolute, PathBytes(path).lastComponent != nil else {
                throw CocoaError(.fileWriteInvalidFileName, userInfo: [NSURLErrorKey: url, NSFilePathErrorKey: url.path])
            }
            try locked { () throws -> Void in
                let writer = PackageWriter(
                    options: options, umask: (try? ProcessUmask.current()).flatMap { $0 } ?? 0o022, url: url,
                    inPlaceMark: inPlace)
                try writer.write(self, to: path, original: url)
            }
        }
    }

    /// One write of a wrapper tree.
    struct PackageWriter {
        let options: FileWrapper.WritingOptions
        let umask: UInt32
        let url: URL
        /// When set, a child carrying this mark (read or saved at the place it is written to) must
        /// still be exactly that object on disk (``FileWrapper/writeRefusingExternalChanges(to:options:inPlace:)``).
        var inPlaceMark: UInt64? = nil

        func write(_ root: FileWrapper, to path: [UInt8], original: URL?) throws {
            let target = PathBytes(path)
            guard let name = target.lastComponent else { return }
            // Failures are `FileSystemError`s, reported as Apple's write errors, or the `CocoaError`
            // of contents a lazy read could not get (``unreadable(_:)``), passed on as it is.
            do {
                let parent = try Directory(opening: target.parent.filePath)
                switch root.kind {
                case .directory:
                    let originalDirectory = original.flatMap { url -> OwnedDescriptor? in
                        PackageSource(url: url).flatMap { try? Directory.current.open(bytes: $0.root, options: [.readOnly, .directory]) }
                    }
                    defer { try? originalDirectory?.close() }
                    try writePackage(root, name: name, in: parent, original: originalDirectory, path: path)
                case .regular:
                    try writeFile(root, name: name, in: parent)
                case .symlink:
                    try writeLink(root, name: name, in: parent)
                }
                // Apple's `filename`: "set automatically … when it's saved to the file system using
                // write(to:options:originalContentsURL:)", unless the write asks not to update it.
                if options.contains(.withNameUpdating) {
                    root.storedFilename = String(decoding: name, as: UTF8.self)
                    root.diskName = name
                }
            } catch let error as FileSystemError {
                throw CocoaError.writing(error, url: url)
            }
        }

        // MARK: The package

        private func writePackage(
            _ root: FileWrapper, name: [UInt8], in parent: Directory, original: OwnedDescriptor?, path: [UInt8]
        ) throws {
            if options.contains(.atomic) { Self.sweepLeftovers(of: name, in: parent) }
            let exists = (try? parent.descriptor.openChild(name, options: [.pathOnly]))
                .map { descriptor -> Bool in
                    try? descriptor.close()
                    return true
                } ?? false
            guard options.contains(.atomic) else {
                if exists { throw FileSystemError(syscall: "mkdirat", errno: .fileExists, path: FilePath(bytes: path)) }
                let made = try parent.createDirectory(FilePath(bytes: name), permissions: [.ownerReadWriteExecute])
                do {
                    try fill(made, with: root, at: [], original: original)
                    try finish(made, root)
                    try synchronize(parent)
                } catch {
                    try? parent.removeAll(bytes: name)
                    throw error
                }
                refresh(root, written: made, source: PackageSource(root: path, components: []))
                return
            }
            let stageName = OwnedName.make(for: name, marker: Self.stagingMarker)
            let stage = try parent.createDirectory(FilePath(bytes: stageName), permissions: [.ownerReadWriteExecute])
            do {
                try fill(stage, with: root, at: [], original: original)
                if exists { recordSuccession(of: name, in: parent, on: stage) }
                try finish(stage, root)
                if exists {
                    try exchange(stageName, name, in: parent)
                } else {
                    try parent.rename(FilePath(bytes: stageName), to: FilePath(bytes: name), mode: .noReplace)
                }
                try synchronize(parent)
            } catch {
                try? parent.removeAll(bytes: stageName)
                throw error
            }
            // The old package now has the staging name.
            let source = PackageSource(root: path, components: [])
            guard exists, options.contains(.removingOldTreeInBackground) else {
                if exists { try? parent.removeAll(bytes: stageName) }
                refresh(root, written: stage, source: source)
                return
            }
            // Linked children's change times move again when the old tree's links go: their
            // identities are read after the removal, in the background (BackgroundRemovals).
            var deferred: [BackgroundRemovals.Group] = []
            refresh(root, written: stage, source: source, deferringIdentities: &deferred)
            BackgroundRemovals.shared.enqueue(removing: stageName, in: parent, thenReading: deferred, in: stage)
        }

        /// Swaps the new tree in. Where the file system refuses `RENAME_EXCHANGE` (NFS, some FUSE
        /// file systems), the old package is renamed aside first, then the new one in: a crash
        /// between the two leaves `.<name>.<random>.backup` and no package (Docs/DOCUMENTS.md).
        private func exchange(_ stageName: [UInt8], _ name: [UInt8], in parent: Directory) throws(FileSystemError) {
            do throws(FileSystemError) {
                try parent.rename(FilePath(bytes: stageName), to: FilePath(bytes: name), mode: .exchange)
            } catch {
                guard [.invalidArgument, .notSupported, .noFunction].contains(error.errno) else { throw error }
                let backupName = OwnedName.make(for: name, marker: Self.backupMarker)
                try parent.rename(FilePath(bytes: name), to: FilePath(bytes: backupName), mode: .noReplace)
                do throws(FileSystemError) {
                    try parent.rename(FilePath(bytes: stageName), to: FilePath(bytes: name), mode: .noReplace)
                } catch {
                    try? parent.rename(FilePath(bytes: backupName), to: FilePath(bytes: name), mode: .noReplace)
                    throw error
                }
                // Leave the old tree under the staging name, as an exchange does.
                try parent.rename(FilePath(bytes: backupName), to: FilePath(bytes: stageName), mode: .noReplace)
            }
        }

        /// Writes `node`'s children into the new directory `directory`, which is at `components`
        /// beneath the package, in the order of their keys.
        private func fill(_ directory: Directory, with node: FileWrapper, at components: [[UInt8]], original: OwnedDescriptor?) throws {
            // The pairs in key order, not the keys: no look-up of each child by its key afterwards.
            guard let children = node.loadedChildrenInKeyOrder() else { throw unreadable(node) }
            // A large directory's children in the original are read ahead on another core
            // (ChildStatusPrefetch); the reader is stopped before `original` can be closed.
            // Each child's name in the original, worked out once: for the read-ahead, the check and
            // the link.
            let originalNames = original == nil ? [] : children.map { $0.value.originalName }
            var prefetch: ChildStatusPrefetch?
            if let original, children.count >= ChildStatusPrefetch.threshold {
                prefetch = ChildStatusPrefetch(names: originalNames, in: original)
            }
            defer { prefetch?.finish() }
            // Files written here are synced after all of them were written and started on their
            // way to the device (`unsynced`), still before this directory is synced: one journal
            // commit then covers many of them, where syncing each right after writing it waited for
            // one commit per file (a new package of 5,000 notes took 2.1 s).
            var unsynced = UnsyncedFiles()
            defer { unsynced.close() }
            // The writer holds FileWrapper.lock (one lock for every wrapper): no lock per child.
            for (index, (key, child)) in children.enumerated() {
                try write(
                    child, as: child.nameOnDisk(key: key), under: components, in: directory, original: original,
                    originalName: original == nil ? nil : originalNames[index], prefetched: prefetch?.status(at: index),
                    unsynced: &unsynced)
            }
            try unsynced.synchronize()
        }

        /// Writes one child, `name` in the directory at `components` beneath the package.
        /// `originalName`: its ``FileWrapper/originalName``, when there is an original.
        /// `prefetched`: its status in the original, read ahead (``ChildStatusPrefetch``), used
        /// instead of reading it again; `nil` when there is none (it is read here if needed).
        private func write(
            _ child: FileWrapper, as name: [UInt8], under components: [[UInt8]], in directory: Directory,
            original: OwnedDescriptor?, originalName: [UInt8]?, prefetched: FileStatus? = nil, unsynced: inout UnsyncedFiles
        ) throws {
            let checked = try checkUnchanged(child, named: originalName, in: original, prefetched: prefetched)
            switch child.kind {
            case .regular:
                let linkName = original.flatMap {
                    linkableName(of: child, named: originalName, in: $0, status: checked ?? prefetched)
                }
                if options.contains(.cloningUnchangedFiles), let original, let linkName {
                    try clone(child, from: linkName, in: original, as: name, into: directory)
                    return
                }
                if let original, let linkName {
                    do throws(FileSystemError) {
                        try original.linkChild(linkName, into: directory.descriptor, as: name)
                        return
                    } catch {
                        // Not allowed to link here (`protected_hardlinks` for a file another user
                        // owns, a file system without links, the link limit): write a copy.
                        guard Self.linkRefusals.contains(error.errno) else { throw error }
                        child.storedContents = try child.readContents(parent: original, name: linkName)
                    }
                }
                guard let data = child.loadedContents() else { throw unreadable(child) }
                let file = try directory.createFile(
                    bytes: name, permissions: FilePermissions(rawValue: child.permissionsToWrite(umask: umask) & 0o777))
                do {
                    try file.writeAll([UInt8](data))
                    if let time = child.modificationTimeToWrite { try file.setModificationTime(time) }
                } catch {
                    try? file.close()
                    throw error
                }
                try unsynced.add(file)
            case .symlink:
                guard let target = child.loadedLinkTarget() else { throw unreadable(child) }
                try directory.createSymlink(FilePath(bytes: name), target: target)
            case .directory:
                let made = try directory.createDirectory(FilePath(bytes: name), permissions: [.ownerReadWriteExecute])
                let childOriginal = original.flatMap { original -> OwnedDescriptor? in
                    guard let source = originalName else { return nil }
                    return try? original.openChild(source, options: [.readOnly, .directory])
                }
                defer { try? childOriginal?.close() }
                try fill(made, with: child, at: components + [name], original: childOriginal)
                try finish(made, child)
            }
        }

        /// Writes an unchanged file as a clone of the original's (`FICLONE`), or a copy where the file
        /// system cannot clone: a new inode either way, with the original's mode and modification
        /// time unless the wrapper's attributes say otherwise.
        private func clone(
            _ child: FileWrapper, from sourceName: [UInt8], in original: OwnedDescriptor, as name: [UInt8], into directory: Directory
        ) throws(FileSystemError) {
            let source = try original.openChild(sourceName, options: .readOnly)
            defer { try? source.close() }
            let status = try source.status()
            let file = try directory.createFile(bytes: name, permissions: FilePermissions(rawValue: status.permissions & 0o777))
            defer { try? file.close() }
            do throws(FileSystemError) {
                try file.cloneContents(from: source)
            } catch {
                guard [.notSupported, .improperLink, .invalidArgument, .noFunction].contains(error.errno) else { throw error }
                try file.writeAll(try source.readToEnd(limit: Int.max))
            }
            try file.setModificationTime(status.modificationTime)
            try file.synchronize()
        }

        /// The name to link a regular file from in the original package, or `nil` to write it:
        /// linked when it has a filename, its attributes were not set, and the object there is
        /// exactly the one read (kind, inode, size, modification and change time, birth time). A
        /// file whose contents were never read is linked as it is now, if it is still a regular
        /// file: there are no other bytes in memory to prefer.
        private func linkableName(
            of child: FileWrapper, named originalName: [UInt8]?, in original: OwnedDescriptor, status known: FileStatus?
        ) -> [UInt8]? {
            guard !child.attributesEdited, let name = originalName,
                let status = known ?? (try? original.statusOfChild(name)), status.kind == .regular
            else { return nil }
            if child.storedContents == nil { return name }
            return child.snapshot == Snapshot(status) ? name : nil
        }

        /// With ``inPlaceMark``: a child read or saved at this very place (it carries the mark) must
        /// be exactly the object recorded then, or another process changed it. Returns the status
        /// read, for the link decision; `nil` when not checked.
        private func checkUnchanged(
            _ child: FileWrapper, named originalName: [UInt8]?, in original: OwnedDescriptor?,
            prefetched: FileStatus? = nil
        ) throws -> FileStatus? {
            guard let mark = inPlaceMark, child.placeMark == mark, let original, let snapshot = child.snapshot,
                let name = originalName
            else { return nil }
            guard let status = prefetched ?? (try? original.statusOfChild(name)), Snapshot(status) == snapshot else {
                throw DocumentError.modifiedByAnotherProcess(url)
            }
            return status
        }

        /// Records on the new package that it replaces the one at `name` (and what that one
        /// replaced), so a bookmark of an earlier save still knows it (`SuccessionRecord`). Best
        /// effort: a file system without user extended attributes simply gets no record.
        private func recordSuccession(of name: [UInt8], in parent: Directory, on stage: Directory) {
            guard let old = try? parent.descriptor.statusOfChild(name), old.kind == .directory, let birth = old.birthTime,
                let readable = try? stage.descriptor.reopen(options: [.readOnly, .directory])
            else { return }
            defer { try? readable.close() }
            var chain = [SuccessionRecord.Predecessor(inode: old.inode, birthTime: birth)]
            if let oldPackage = try? parent.descriptor.openChild(name, options: [.readOnly, .directory]) {
                defer { try? oldPackage.close() }
                if let bytes = try? oldPackage.extendedAttribute(SuccessionRecord.attributeName) {
                    chain += SuccessionRecord.decode(bytes)
                }
            }
            try? readable.setExtendedAttribute(SuccessionRecord.attributeName, to: SuccessionRecord.encode(chain))
        }

        /// Sets a new directory's permissions and modification time, then syncs it (its children are
        /// already synced: directories are synced from the bottom up).
        private func finish(_ directory: Directory, _ node: FileWrapper) throws(FileSystemError) {
            let readable = try directory.descriptor.reopen(options: [.readOnly, .directory])
            defer { try? readable.close() }
            try readable.setPermissions(node.permissionsToWrite(umask: umask))
            if let time = node.modificationTimeToWrite { try readable.setModificationTime(time) }
            try readable.synchronize()
        }

        private func synchronize(_ directory: Directory) throws(FileSystemError) {
            let readable = try directory.descriptor.reopen(options: [.readOnly, .directory])
            defer { try? readable.close() }
            try readable.synchronize()
        }

        // MARK: A file or a link at the top

        private func writeFile(_ node: FileWrapper, name: [UInt8], in parent: Directory) throws {
            guard let data = node.loadedContents() else { throw unreadable(node) }
            let permissions = FilePermissions(rawValue: node.permissionsToWrite(umask: umask) & 0o777)
            if !options.contains(.atomic), (try? parent.descriptor.openChild(name, options: [.pathOnly])) != nil {
                throw FileSystemError(syscall: "openat", errno: .fileExists, path: FilePath(bytes: name))
            }
            try parent.replace(FilePath(bytes: name), contents: [UInt8](data), options: ReplaceOptions(permissions: .exactly(permissions)))
            if let time = node.modificationTimeToWrite {
                let file = try parent.descriptor.openChild(name, options: .writeOnly)
                defer { try? file.close() }
                try file.setModificationTime(time)
                try file.synchronize()
            }
            node.snapshot = (try? parent.descriptor.openChild(name, options: [.pathOnly]).status()).map(Snapshot.init)
        }

        private func writeLink(_ node: FileWrapper, name: [UInt8], in parent: Directory) throws {
            guard let target = node.loadedLinkTarget() else { throw unreadable(node) }
            guard options.contains(.atomic) else {
                try parent.createSymlink(FilePath(bytes: name), target: target)
                return
            }
            let temporary = OwnedName.make(for: name, marker: Self.stagingMarker)
            try parent.createSymlink(FilePath(bytes: temporary), target: target)
            do throws(FileSystemError) {
                try parent.rename(FilePath(bytes: temporary), to: FilePath(bytes: name), mode: .replace)
                try synchronize(parent)
            } catch {
                try? parent.remove(FilePath(bytes: temporary))
                throw error
            }
        }

        // MARK: After the write

        /// Records what was written: each child's identity now (for the next save's link check), its
        /// new place (for lazy reads), and with `.withNameUpdating` its filename.
        private func refresh(_ node: FileWrapper, written directory: Directory, source: PackageSource) {
            var unused: [BackgroundRemovals.Group]?
            refresh(node, written: directory, source: source, components: [], deferring: &unused)
        }

        /// The same, except that the identities of regular files are not read: each is listed in
        /// `deferred` (grouped by directory), to be read once the old tree is removed.
        private func refresh(
            _ node: FileWrapper, written directory: Directory, source: PackageSource,
            deferringIdentities deferred: inout [BackgroundRemovals.Group]
        ) {
            var groups: [BackgroundRemovals.Group]? = []
            refresh(node, written: directory, source: source, components: [], deferring: &groups)
            deferred = groups ?? []
        }

        private func refresh(
            _ node: FileWrapper, written directory: Directory, source: PackageSource, components: [[UInt8]],
            deferring groups: inout [BackgroundRemovals.Group]?
        ) {
            node.attributesEdited = false
            node.source = source
            node.lazyError = nil
            if let status = try? directory.descriptor.status() {
                node.snapshot = Snapshot(status)
                node.storedAttributes = FileWrapper.attributes(of: status)
            }
            guard let table = node.storedChildren else { return }
            var group = BackgroundRemovals.Group(components: components, children: [])
            if groups != nil { group.children.reserveCapacity(table.dictionary.count) }
            // Under the writer's FileWrapper.lock, as `fill`: no lock per child.
            for (key, child) in table.dictionary {
                let name = child.nameOnDisk(key: key)
                child.attributesEdited = false
                if options.contains(.withNameUpdating) {
                    // Most children keep their name: no new String for them.
                    if !(child.storedFilename.map { FileWrapper.spells($0, name) } ?? false) {
                        child.storedFilename = String(decoding: name, as: UTF8.self)
                    }
                    if child.diskName != name { child.diskName = name }
                }
                // A child saved where it already was keeps its source: no new array for it, and
                // no release of the old one (most children of an incremental save).
                if !(child.source?.isChild(named: name, of: source) ?? false) { child.source = source.appending(name) }
                if groups != nil, child.kind == .regular {
                    group.children.append((child, name))
                    continue
                }
                guard let status = try? directory.descriptor.statusOfChild(name) else { continue }
                child.snapshot = Snapshot(status)
                child.storedAttributes = FileWrapper.attributes(of: status)
                if child.kind == .directory, child.storedChildren != nil,
                    let sub = try? directory.subdirectory(FilePath(bytes: name), policy: ResolutionPolicy(scope: .beneath, refusesSymlinks: true))
                {
                    refresh(child, written: sub, source: source.appending(name), components: components + [name], deferring: &groups)
                }
            }
            if !group.children.isEmpty { groups?.append(group) }
        }

        /// The `linkat` errors after which the file is copied instead.
        static let linkRefusals: [Errno] = [.notPermitted, .permissionDenied, .improperLink, .tooManyLinks, .notSupported]

        // MARK: Leftovers

        /// The marker of a package being built (`.<name>.saving-<pid>-<start>-<random>`).
        static let stagingMarker = ".saving-"
        /// The marker of the old package set aside where the file system has no exchange.
        static let backupMarker = ".backup-"

        /// Cleans up after writers of `name` that died: a half-built package (or an old tree not yet
        /// removed) is deleted; an old package set aside by the no-exchange fallback is put back when
        /// `name` is missing (the writer died between its two renames), and deleted otherwise. A live
        /// writer's work is never touched (Docs/DOCUMENTS.md, "Crash states").
        static func sweepLeftovers(of name: [UInt8], in parent: Directory) {
            guard let listing = try? parent.descriptor.reopen(options: [.readOnly, .directory]) else { return }
            defer { try? listing.close() }
            guard let entries = try? listing.directoryEntries() else { return }
            for entry in entries {
                if OwnedName.isAbandoned(entry.name, for: name, marker: stagingMarker) {
                    try? parent.removeAll(bytes: entry.name)
                } else if OwnedName.isAbandoned(entry.name, for: name, marker: backupMarker) {
                    let present = (try? parent.descriptor.openChild(name, options: [.pathOnly])) != nil
                    if present {
                        try? parent.removeAll(bytes: entry.name)
                    } else {
                        try? parent.rename(FilePath(bytes: entry.name), to: FilePath(bytes: name), mode: .noReplace)
                    }
                }
            }
        }

        // MARK: Helpers

        /// The error for contents that a lazy read could not get: that read's error, as Apple reports
        /// it at the next write.
        private func unreadable(_ node: FileWrapper) -> CocoaError {
            if let failure = node.lazyError as? FileSystemError { return CocoaError.reading(failure, url: url) }
            return CocoaError(
                .fileReadUnknown,
                userInfo: [
                    NSURLErrorKey: url, NSFilePathErrorKey: url.path,
                    NSDebugDescriptionErrorKey: "the contents of a child could not be read",
                ])
        }
    }

    extension FileWrapper {
        /// The name to find this child under in the original package: its filename, as the exact
        /// bytes read when they spell it.
        var originalName: [UInt8]? { filenameBytes }
    }

    /// The files one directory's fill wrote and has not synced yet, each already started on its
    /// way to the device. At most `limit` are held open: past that they are synced at once.
    struct UnsyncedFiles: ~Copyable {
        private var files: [OwnedDescriptor] = []
        static let limit = 256

        init() {}

        /// Starts `file`'s writeback (a failure is ignored: it is only a hint) and keeps it for
        /// ``synchronize()``, which closes it.
        mutating func add(_ file: OwnedDescriptor) throws(FileSystemError) {
            try? file.startWriteback()
            files.append(file)
            if files.count >= Self.limit { try synchronize() }
        }

        /// Syncs and closes every file held, in the order written.
        mutating func synchronize() throws(FileSystemError) {
            defer { close() }
            for file in files { try file.synchronize() }
        }

        /// Closes what is held without syncing (after a failure).
        mutating func close() {
            for file in files { try? file.close() }
            files = []
        }
    }
#endif
