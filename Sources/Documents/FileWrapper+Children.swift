// SPDX-License-Identifier: Apache-2.0
#if os(Linux)
    import Foundation

    /// A directory's children by key, with Apple's case-insensitive key comparison.
    struct ChildTable {
        private(set) var dictionary: [String: FileWrapper] = [:]
        /// Lowercased key → key.
        private var folded: [String: String] = [:]
        /// The children in the order of their keys, once a write asked for it (``sorted()``), then
        /// kept in order by each insert and removal: an incremental save of a big package changes
        /// a child or two, and sorting 10,000 keys again was an eighth of its user time.
        private var inKeyOrder: [(key: String, value: FileWrapper)]?

        func contains(_ key: String) -> Bool { folded[key.lowercased()] != nil }

        func key(of child: FileWrapper) -> String? {
            dictionary.first { $0.value === child }?.key
        }

        mutating func insert(_ child: FileWrapper, as key: String) {
            dictionary[key] = child
            folded[key.lowercased()] = key
            guard inKeyOrder != nil else { return }
            let (index, found) = position(of: key)
            if found { inKeyOrder?[index].value = child } else { inKeyOrder?.insert((key, child), at: index) }
        }

        mutating func remove(_ key: String) {
            dictionary[key] = nil
            folded[key.lowercased()] = nil
            guard inKeyOrder != nil else { return }
            let (index, found) = position(of: key)
            if found { inKeyOrder?.remove(at: index) }
        }

        /// The children in the order of their keys (`String`'s `<`).
        mutating func sorted() -> [(key: String, value: FileWrapper)] {
            if let inKeyOrder { return inKeyOrder }
            let made = dictionary.sorted { $0.key < $1.key }
            inKeyOrder = made
            return made
        }

        /// Where `key` is or would go in `inKeyOrder` (binary search), and whether it is there.
        private func position(of key: String) -> (Int, Bool) {
            guard let inKeyOrder else { return (0, false) }
            var (low, high) = (0, inKeyOrder.count)
            while low < high {
                let middle = (low + high) / 2
                if inKeyOrder[middle].key < key { low = middle + 1 } else { high = middle }
            }
            return (low, low < inKeyOrder.count && inKeyOrder[low].key == key)
        }

        /// `preferred` if free, else `"<n>__#$!@%!#__<preferred>"` for the first free n = 1, 2, …
        func uniqueKey(for preferred: String) -> String {
            guard contains(preferred) else { return preferred }
            var counter = 1
            while contains("\(counter)\(FileWrapper.uniquingInfix)\(preferred)") { counter += 1 }
            return "\(counter)\(FileWrapper.uniquingInfix)\(preferred)"
        }
    }

    extension FileWrapper {
        /// Adds a child under its preferred filename, uniqued if that key is taken (case-insensitively),
        /// and returns the key. Adding a child that is already here returns its key. The directory's
        /// recorded modification date is removed, as Apple does.
        ///
        /// Apple raises when the receiver is not a directory or the child has no preferred filename;
        /// here the first returns `""` and adds nothing, the second adds the child as `"Untitled"`.
        @discardableResult
        public func addFileWrapper(_ child: FileWrapper) -> String {
            locked {
                guard kind == .directory else { return "" }
                var table = loadedChildren() ?? ChildTable()
                if let existing = table.key(of: child) { return existing }
                let preferred = child.locked { child.storedPreferredFilename }.flatMap { $0.isEmpty ? nil : $0 } ?? "Untitled"
                let key = table.uniqueKey(for: preferred)
                // The stored table let go first, so the insert changes the only copy: no copy of a
                // large directory's dictionaries for each child added.
                storedChildren = nil
                table.insert(child, as: key)
                storedChildren = table
                child.locked { child.parents.append(WeakWrapper(wrapper: self)) }
                storedAttributes[FileAttributeKey.modificationDate.rawValue] = nil
                return key
            }
        }

        /// Adds a new regular-file child with these contents and preferred filename; returns its key.
        @discardableResult
        public func addRegularFile(withContents data: Data, preferredFilename fileName: String) -> String {
            let child = FileWrapper(regularFileWithContents: data)
            child.preferredFilename = fileName
            return addFileWrapper(child)
        }

        /// Removes a child (found by identity, not by name). The directory's recorded modification
        /// date is removed, as Apple does.
        public func removeFileWrapper(_ child: FileWrapper) {
            locked {
                guard kind == .directory, var table = loadedChildren(), let key = table.key(of: child) else { return }
                storedChildren = nil  // the only copy (see addFileWrapper)
                table.remove(key)
                storedChildren = table
                child.locked { child.parents.removeAll { $0.wrapper === self || $0.wrapper == nil } }
                storedAttributes[FileAttributeKey.modificationDate.rawValue] = nil
            }
        }

        /// The key of a child, or `nil` when `child` is not a child of this wrapper.
        public func keyForChildFileWrapper(_ child: FileWrapper) -> String? {
            locked { storedChildren?.key(of: child) }
        }

        /// The name this child is written under as `key`: the exact bytes it was read under when
        /// the key stands for them (a name that is not UTF-8 reads as a key with U+FFFD in it; a key
        /// uniqued only because of a case collision on disk), else the key.
        ///
        /// The caller holds ``FileWrapper/lock`` (every caller walks a tree under it): no lock and
        /// no settle per child.
        func nameOnDisk(key: String) -> [UInt8] {
            if let diskName, keepsDiskName || Self.bytes(diskName, read: key) { return diskName }
            return Array(key.utf8)
        }

        /// The loaded children in the order of their keys, the order remembered in the table for the
        /// next call (``ChildTable/sorted()``). The caller holds ``FileWrapper/lock``.
        func loadedChildrenInKeyOrder() -> [(key: String, value: FileWrapper)]? {
            guard var table = loadedChildren() else { return nil }
            storedChildren = nil  // the only copy, so the order is stored without copying the table
            let children = table.sorted()
            storedChildren = table
            return children
        }

        /// Removes and re-adds a child whose preferred filename changed.
        func rekey(_ child: FileWrapper) {
            guard var table = storedChildren, let key = table.key(of: child) else { return }
            table.remove(key)
            let preferred = child.storedPreferredFilename ?? key
            table.insert(child, as: table.uniqueKey(for: preferred))
            storedChildren = table
        }
    }
#endif
