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

        /// Child → key, made on the first ``key(of:)`` and then kept by each insert and removal.
        /// Without it, building a directory one `addFileWrapper` at a time was quadratic (each add
        /// looks its child up by identity): 50,000 adds took 1.4 s. A table read from disk or
        /// saved never asks, so it never pays for the index.
        private var keyByChild: [ObjectIdentifier: String]?

        func contains(_ key: String) -> Bool { folded[key.lowercased()] != nil }

        /// The key `child` is held under, or `nil`. A child is held under one key at most: adding a
        /// child already here returns its key, and every other insert holds a new wrapper.
        mutating func key(of child: FileWrapper) -> String? {
            if keyByChild == nil {
                var index = [ObjectIdentifier: String](minimumCapacity: dictionary.count)
                for (key, value) in dictionary { index[ObjectIdentifier(value)] = key }
                keyByChild = index
            }
            return keyByChild?[ObjectIdentifier(child)]
        }

        mutating func insert(_ child: FileWrapper, as key: String) {
            let replaced = dictionary.updateValue(child, forKey: key)
            if keyByChild != nil {
                if let replaced, replaced !== child { keyByChild?[ObjectIdentifier(replaced)] = nil }
                keyByChild?[ObjectIdentifier(child)] = key
            }
            folded[key.lowercased()] = key
            guard inKeyOrder != nil else { return }
            let (index, found) = position(of: key)
            if found { inKeyOrder?[index].value = child } else { inKeyOrder?.insert((key, child), at: index) }
        }

        mutating func remove(_ key: String) {
            let removed = dictionary.removeValue(forKey: key)
            if let removed, keyByChild != nil { keyByChild?[ObjectIdentifier(removed)] = nil }
            if removed != nil { freed(key) }
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
        ///
        /// The search starts at the name's ``firstPossiblyFree`` counter, not at 1: adding 5,000
        /// children all called `image.png` tried 12.5 million keys (2.7 s) when each add counted
        /// from 1. The key is the same either way.
        mutating func uniqueKey(for preferred: String) -> String {
            guard contains(preferred) else { return preferred }
            let folded = preferred.lowercased()
            var counter = firstPossiblyFree[folded] ?? 1
            while contains("\(counter)\(FileWrapper.uniquingInfix)\(preferred)") { counter += 1 }
            firstPossiblyFree[folded] = counter
            return "\(counter)\(FileWrapper.uniquingInfix)\(preferred)"
        }

        /// Lowercased preferred name → a counter below which every uniqued key of that name is
        /// taken (so ``uniqueKey(for:)`` may start there). Kept true by ``remove(_:)``, which
        /// lowers it when it frees a uniqued key; an insert only takes keys, which keeps it true.
        /// It relies on `lowercased()` mapping each scalar alone (no context, such as a final
        /// sigma), so a uniqued key folds to its counter, the infix and its folded name.
        private var firstPossiblyFree: [String: Int] = [:]

        /// A removed key freed its counter: a later ``uniqueKey(for:)`` of its name must try it.
        private mutating func freed(_ key: String) {
            guard !firstPossiblyFree.isEmpty else { return }
            let folded = key.lowercased()
            let digits = folded.utf8.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
            guard !digits.isEmpty, digits.count <= 18, let counter = Int(String(decoding: digits, as: UTF8.self)) else { return }
            let afterDigits = folded.utf8.dropFirst(digits.count)
            guard afterDigits.starts(with: FileWrapper.uniquingInfix.utf8) else { return }
            let name = String(decoding: afterDigits.dropFirst(FileWrapper.uniquingInfix.utf8.count), as: UTF8.self)
            if let hint = firstPossiblyFree[name], counter < hint { firstPossiblyFree[name] = counter }
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
                // The stored table let go first, so the look-up's index and the insert change the
                // only copy: no copy of a large directory's dictionaries for each child added.
                storedChildren = nil
                defer { storedChildren = table }
                if let existing = table.key(of: child) { return existing }
                let preferred = child.locked { child.storedPreferredFilename }.flatMap { $0.isEmpty ? nil : $0 } ?? "Untitled"
                let key = table.uniqueKey(for: preferred)
                table.insert(child, as: key)
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
                guard kind == .directory, var table = loadedChildren() else { return }
                storedChildren = nil  // the only copy (see addFileWrapper)
                defer { storedChildren = table }
                guard let key = table.key(of: child) else { return }
                table.remove(key)
                child.locked { child.parents.removeAll { $0.wrapper === self || $0.wrapper == nil } }
                storedAttributes[FileAttributeKey.modificationDate.rawValue] = nil
            }
        }

        /// The key of a child, or `nil` when `child` is not a child of this wrapper.
        public func keyForChildFileWrapper(_ child: FileWrapper) -> String? {
            locked {
                guard var table = storedChildren else { return nil }
                storedChildren = nil  // the only copy, so the index is made in place (see addFileWrapper)
                defer { storedChildren = table }
                return table.key(of: child)
            }
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
            guard var table = storedChildren else { return }
            storedChildren = nil  // the only copy (see addFileWrapper)
            defer { storedChildren = table }
            guard let key = table.key(of: child) else { return }
            table.remove(key)
            let preferred = child.storedPreferredFilename ?? key
            table.insert(child, as: table.uniqueKey(for: preferred))
        }
    }
#endif
