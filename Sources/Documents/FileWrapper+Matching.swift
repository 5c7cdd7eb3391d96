// SPDX-License-Identifier: Apache-2.0
#if os(Linux)
    import BookmarkKit
    import Foundation
    import SecureFiles

    extension FileWrapper {
        /// Whether the item at `url` still matches this wrapper, as Apple decides it: the same kind,
        /// and a modification date within one second of the one recorded; for a directory, every child
        /// held in memory matches too (contents are never compared, and a file added on disk shows only
        /// through the directory's own date). Permissions are not compared, as in Apple's binary.
        ///
        /// `false` after ``addFileWrapper(_:)`` or ``removeFileWrapper(_:)``, which remove the
        /// directory's recorded date, until it is read again or saved.
        public func matchesContents(of url: URL) -> Bool {
            locked { matches(url, exactly: false) }
        }

        /// The stricter check (a Linux addition): the same object as when it was read or written,
        /// by device, inode, kind, size, modification and change time to the nanosecond, and birth
        /// time; for a directory, every child in memory too. An edit that keeps the modification
        /// time (`touch -r`) is caught: it changes the change time.
        public func matchesContentsExactly(of url: URL) -> Bool {
            locked { matches(url, exactly: true) }
        }

        /// ``matchesContentsExactly(of:)`` for a package that was moved: a rename changes the moved
        /// directory's change time, so the top level is compared without it.
        func matchesMovedContentsExactly(of url: URL) -> Bool {
            locked { matches(url, exactly: true, ignoringChangeTime: true) }
        }

        /// ``matchesMovedContentsExactly(of:)`` for the item at `url` alone, not its children: one
        /// `statx`. A package's own identity and modification time change when another process
        /// saves it or adds, removes or renames an entry in it, but not when a child is edited in
        /// place.
        func matchesTopLevelExactly(of url: URL) -> Bool {
            locked { matches(url, exactly: true, ignoringChangeTime: true, recursing: false) }
        }

        /// The descendants held in memory, each with where it was read or last saved (names beneath
        /// the package), or `nil` for one that never was on disk.
        func descendantsWithPlaces() -> [(FileWrapper, [[UInt8]]?)] {
            var all: [(FileWrapper, [[UInt8]]?)] = []
            locked { collectWithPlaces(into: &all) }
            return all
        }

        /// Appends the descendants to `all`, each with its place; one array for the whole tree
        /// (each level making its own array and appending it to its parent's copied every entry
        /// once per level above it). The caller holds ``FileWrapper/lock``, which is one lock for
        /// every wrapper: taking it again for each child only cost time.
        private func collectWithPlaces(into all: inout [(FileWrapper, [[UInt8]]?)]) {
            guard let table = storedChildren else { return }
            all.reserveCapacity(all.count + table.dictionary.count)
            for child in table.dictionary.values {
                all.append((child, child.source?.components))
                if child.kind == .directory { child.collectWithPlaces(into: &all) }
            }
        }

        /// Marks the descendants that are where they were read or last saved (at the same names
        /// beneath the package, under parents that are too) with a new mark, and returns it: a
        /// descendant is in place exactly when its ``placeMark`` equals the result. A mark is
        /// never handed out twice, so a mark from an earlier call never matches.
        ///
        /// (A mark on each wrapper rather than a set of their identities: no hashing and no
        /// allocation per descendant, and the writer can ask each child in one load.)
        func markDescendantsInPlace() -> UInt64 {
            locked {
                FileWrapper.lastPlaceMark &+= 1
                let mark = FileWrapper.lastPlaceMark
                markInPlace(under: [], with: mark)
                return mark
            }
        }

        /// The caller holds ``FileWrapper/lock`` (no lock per child, as in ``collectWithPlaces(into:)``).
        private func markInPlace(under parentPlace: [[UInt8]], with mark: UInt64) {
            guard let table = storedChildren else { return }
            for (key, child) in table.dictionary {
                guard let components = child.source?.components, components.count == parentPlace.count + 1,
                    components.last == child.nameOnDisk(key: key), components.dropLast().elementsEqual(parentPlace)
                else { continue }
                child.placeMark = mark
                // A child is in place when its parents are: only those are descended into.
                if child.kind == .directory { child.markInPlace(under: components, with: mark) }
            }
        }

        /// Whether the entry at `components` beneath the package directory `package` is exactly this
        /// wrapper (and its children in memory), no link followed.
        func matchesExactly(at components: [[UInt8]], beneath package: URL) -> Bool {
            guard let name = components.last, let source = PackageSource(url: package) else { return false }
            return locked { () -> Bool in
                guard let (grandparent, packageName) = try? source.openParent() else { return false }
                defer { try? grandparent.close() }
                guard var directory = try? grandparent.openChild(packageName, options: [.readOnly, .directory]) else { return false }
                for component in components.dropLast() {
                    guard let next = try? directory.openChild(component, options: [.readOnly, .directory]) else {
                        try? directory.close()
                        return false
                    }
                    try? directory.close()
                    directory = next
                }
                defer { try? directory.close() }
                return matches(name, in: directory, exactly: true)
            }
        }

        /// Opens the item's parent, then compares the tree entry by entry through directory
        /// descriptors (one `statx` per entry, no link followed below the item).
        private func matches(_ url: URL, exactly: Bool, ignoringChangeTime: Bool = false, recursing: Bool = true) -> Bool {
            guard let (parent, name) = try? PackageSource(url: url)?.openParent()
            else { return false }
            defer { try? parent.close() }
            return matches(name, in: parent, exactly: exactly, ignoringChangeTime: ignoringChangeTime, recursing: recursing)
        }

        private func matches(
            _ name: [UInt8], in parent: OwnedDescriptor, exactly: Bool, ignoringChangeTime: Bool = false, recursing: Bool = true
        ) -> Bool {
            guard let status = try? parent.statusOfChild(name) else { return false }
            let sameKind: Bool
            switch (kind, status.kind) {
            case (.regular, .regular), (.directory, .directory), (.symlink, .symlink): sameKind = true
            default: sameKind = false
            }
            guard sameKind else { return false }
            if exactly {
                var now = Snapshot(status)
                if ignoringChangeTime, let snapshot { now.change = snapshot.change }
                guard snapshot == now else { return false }
            } else {
                guard let recorded = storedAttributes[FileAttributeKey.modificationDate.rawValue] as? Date,
                    abs(recorded.timeIntervalSince1970 - status.modificationTime.date.timeIntervalSince1970) < 1.0
                else { return false }
            }
            guard recursing, kind == .directory, let table = storedChildren else { return true }
            guard let directory = try? parent.openChild(name, options: [.readOnly, .directory]) else { return false }
            defer { try? directory.close() }
            for (key, child) in table.dictionary {
                let childName = child.nameOnDisk(key: key)
                guard child.locked({ child.matches(childName, in: directory, exactly: exactly) }) else { return false }
            }
            return true
        }
    }
#endif
