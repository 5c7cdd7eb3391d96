// SPDX-License-Identifier: Apache-2.0
// BookmarkFormat: reading the Linux facts of bookmarks written by 0.1 (one string key per fact).

extension LinuxFileFacts {
    /// Reads the nine 0.1 keys of `toc` (values of an unexpected type read as `nil`).
    ///
    /// Only read, never written: setting facts writes the compact item and removes these keys.
    init(legacyKeysOf toc: BookmarkTOC) {
        self.init()
        generation = toc[LinuxKeys.generation]?.integerValue.map { UInt64(bitPattern: $0) }
        handleType = toc[LinuxKeys.handleType]?.integerValue.flatMap { Int32(exactly: $0) }
        handle = toc[LinuxKeys.handle]?.dataValue
        birthTime = toc[LinuxKeys.birthTime]?.integerValue.map(LinuxTimestamp.init(totalNanoseconds:))
        subvolumeID = toc[LinuxKeys.subvolumeID]?.integerValue.map { UInt64(bitPattern: $0) }
        mountRelativePath = toc[LinuxKeys.mountRelativePath]?.byteString
        volumeUUIDSource = toc[LinuxKeys.volumeUUIDSource]?.stringValue.map(VolumeUUIDSource.init(rawValue:))
        fsType = toc[LinuxKeys.fsType]?.stringValue
        fsid = toc[LinuxKeys.fsid]?.dataValue.flatMap(LinuxFSID.init(bytes:))
    }
}

extension BookmarkTOC {
    /// Sets the compact Linux item (`nil` removes it) and removes the 0.1 Linux keys, if any.
    ///
    /// Those keys all start with the compact key's name, so they sort right after it: only the
    /// entries from there on that share the name are looked at, which for a bookmark without
    /// them is one comparison.
    mutating func setLinuxItem(_ item: BookmarkItem?) {
        var i = set(item, for: LinuxKeys.compact)
        var found: [BookmarkKey] = []
        while i < entries.count, case .string(let key) = entries[i].key, key.bytes.starts(with: Self.compactNameBytes) {
            if LinuxKeys.legacy.contains(entries[i].key) { found.append(entries[i].key) }
            i += 1
        }
        for key in found { self[key] = nil }
    }

    private static let compactNameBytes = Array(LinuxKeys.compactName.utf8)
}
