// SPDX-License-Identifier: Apache-2.0
// BookmarkFormat: reading and writing our Linux facts on a record.

extension BookmarkRecord {
    /// Our Linux facts: the compact item under `org.swift-bookmarks.linux`, or, when a
    /// bookmark has none that this version can read, the nine `org.swift-bookmarks.linux.*` keys
    /// of bookmarks written by 0.1. Values of an unexpected type read as `nil`.
    ///
    /// Setting writes the compact item and removes the 0.1 keys; setting empty facts removes the
    /// item. A birth time whose nanoseconds are not below 10⁹ is dropped; use
    /// ``setLinuxFacts(_:)`` to get an error instead.
    public var linux: LinuxFileFacts {
        get { linuxFacts(pathComponents: nil) }
        set {
            var facts = newValue
            if let b = facts.birthTime, b.nanoseconds >= 1_000_000_000 { facts.birthTime = nil }
            try? setLinuxFacts(facts)
        }
    }

    /// ``linux``, for a caller that has read ``pathComponents`` already (the compact item may
    /// store the mount-relative path as a count of them); `nil` reads them when needed.
    package func linuxFacts(pathComponents known: [ByteString]?) -> LinuxFileFacts {
        if let decoded = compactLinuxFacts(pathComponents: known) { return decoded.facts }
        return document.targetTOC.map(LinuxFileFacts.init(legacyKeysOf:)) ?? LinuxFileFacts()
    }

    /// Stores our Linux facts as the compact item (about 45 bytes for a file on ext4), removing
    /// the 0.1 keys if the record has them. The mount-relative path is stored as a count of
    /// trailing ``pathComponents`` when that gives the same bytes, so set the components first.
    /// - Throws: ``BookmarkFormatError`` (`unencodable`) for a birth time whose nanoseconds are
    ///   not below 10⁹.
    public mutating func setLinuxFacts(_ facts: LinuxFileFacts) throws(BookmarkFormatError) {
        let components = facts.mountRelativePath == nil ? nil : pathComponents
        try setLinuxFacts(facts, path: .components(components))
    }

    /// ``setLinuxFacts(_:)`` for creation, which knows the path that ``pathComponents`` were
    /// split from (at `/`, empty components dropped): `recordedPath`. Reading the components
    /// back was a tenth of a creation.
    /// - Throws: ``BookmarkFormatError`` (`unencodable`) for a birth time whose nanoseconds are
    ///   not below 10⁹.
    package mutating func setLinuxFacts(_ facts: LinuxFileFacts, componentsSplitFrom recordedPath: [UInt8]) throws(BookmarkFormatError) {
        try setLinuxFacts(facts, path: .splitFrom(recordedPath))
    }

    private mutating func setLinuxFacts(_ facts: LinuxFileFacts, path: CompactLinuxFacts.PathReference) throws(BookmarkFormatError) {
        let item: BookmarkItem? = facts.isEmpty ? nil : .data(try CompactLinuxFacts.encode(facts, path: path))
        document.modifyTargetTOC { (toc: inout BookmarkTOC) in toc.setLinuxItem(item) }
    }

    /// The compact item decoded, or `nil` when there is none, it is not data, or it does not
    /// decode (another version, malformed).
    func compactLinuxFacts(pathComponents known: [ByteString]?) -> CompactLinuxFacts.Decoded? {
        document.withTargetData(LinuxKeys.compact) { bytes in
            try? CompactLinuxFacts.decode(bytes) { known ?? pathComponents }
        } ?? nil
    }

    /// The facts, when the compact item holds the mount-relative path as a count of path
    /// components: what a change of the components must store again.
    var linuxFactsFollowingPath: LinuxFileFacts? {
        guard let decoded = compactLinuxFacts(pathComponents: nil), decoded.pathIsComponentCount else { return nil }
        return decoded.facts
    }
}

extension BookmarkDocument {
    /// Runs `body` with the payload of the target TOC's data item under `key`, read in place
    /// while it is still stored (no copy); `nil` when there is no such item or it is not data.
    func withTargetData<R>(_ key: BookmarkKey, _ body: (UnsafeRawBufferPointer) -> R) -> R? {
        if let (section, offset) = storedTargetItem(key) {
            guard let (length, type, payload) = section.header(offset), type == BookmarkItem.TypeCode.data else { return nil }
            return section.bytes.withUnsafeBytes { all in
                // Validation put the payload inside the section; checked again rather than trusted.
                guard payload >= 0, length >= 0, length <= all.count - payload else { return nil }
                return body(UnsafeRawBufferPointer(rebasing: all[payload..<(payload + length)]))
            }
        }
        guard case .data(let bytes)? = self[key] else { return nil }
        return bytes.withUnsafeBytes(body)
    }
}
