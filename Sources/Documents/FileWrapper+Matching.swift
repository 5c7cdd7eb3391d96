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

        /// Opens the item's parent, then compares the tree entry by entry through directory
        /// descriptors (one `statx` per entry, no link followed below the item).
        private func matches(_ url: URL, exactly: Bool, ignoringChangeTime: Bool = false) -> Bool {
            guard let (parent, name) = try? PackageSource(url: url)?.openParent()
            else { return false }
            defer { try? parent.close() }
            return matches(name, in: parent, exactly: exactly, ignoringChangeTime: ignoringChangeTime)
        }

        private func matches(_ name: [UInt8], in parent: OwnedDescriptor, exactly: Bool, ignoringChangeTime: Bool = false) -> Bool {
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
            guard kind == .directory, let table = storedChildren else { return true }
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
