// SPDX-License-Identifier: Apache-2.0
// BookmarkFormat: legacy alias records as typed bookmark records.

extension BookmarkRecord {
    /// Builds a typed record from the facts of a legacy alias record, so that old aliases read
    /// like bookmarks: the path (mount point from tag 19 + volume-relative path from tag 18),
    /// per-component file IDs (parent and target CNIDs; null where unknown), file ID, name,
    /// creation dates, volume name, mount path and URL. The original record is kept under
    /// `0xFE00` (aliasData), so nothing is lost.
    ///
    /// - Parameters:
    ///   - alias: the decoded record.
    ///   - originalBytes: its bytes, stored as aliasData; `nil` re-encodes `alias`.
    public init(aliasRecord alias: AliasRecord, originalBytes: [UInt8]? = nil) {
        self.init()
        let mount = alias.posixMountPoint?.bytes
        if let rel = alias.posixPath?.bytes {
            var full: [UInt8] = []
            if let m = mount, m != [UInt8(ascii: "/")] { full = m }
            if rel.first != UInt8(ascii: "/") { full.append(UInt8(ascii: "/")) }
            full += rel
            let comps = full.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true)
                .map { ByteString(bytes: Array($0)) }
            pathComponents = comps
            if !comps.isEmpty {
                var ids = [Int64?](repeating: nil, count: comps.count)
                if alias.targetCNID != 0xFFFF_FFFF { ids[comps.count - 1] = Int64(alias.targetCNID) }
                if comps.count >= 2, alias.parentCNID != 0xFFFF_FFFF { ids[comps.count - 2] = Int64(alias.parentCNID) }
                fileIDs = ids
            }
        }
        if alias.targetCNID != 0xFFFF_FFFF { fileID = Int64(alias.targetCNID) }
        let name = alias.displayTargetName
        if !name.isEmpty { fileName = ByteString(name) }
        if let d = alias.highResCreationDate ?? (alias.creationDate.isZero ? nil : alias.creationDate) {
            creationDate = d.bookmarkDate
        }
        resourceProperties = BookmarkPropertyFlags(
            flags: alias.kind == 1 ? BookmarkPropertyFlags.isDirectory : BookmarkPropertyFlags.isRegularFile,
            validMask: BookmarkPropertyFlags.isDirectory | BookmarkPropertyFlags.isRegularFile)
        var vol = BookmarkVolume()
        let volName = alias.displayVolumeName
        if !volName.isEmpty { vol.name = ByteString(volName) }
        if let m = mount {
            vol.path = ByteString(bytes: m)
            vol.url = ByteString(fileURLForDirectory: m)
        }
        if let d = alias.highResVolumeCreationDate ?? (alias.volumeCreationDate.isZero ? nil : alias.volumeCreationDate) {
            vol.creationDate = d.bookmarkDate
        }
        volume = vol
        aliasData = originalBytes ?? (try? alias.encoded())
    }
}

extension ByteString {
    /// A `file://` URL for a directory path: bytes outside the URL-safe set percent-encoded,
    /// ending in `/` (as Apple writes volURL).
    package init(fileURLForDirectory path: [UInt8]) {
        var out = Array("file://".utf8)
        for b in path {
            let safe = (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
                || "/-._~!$&'()*+,;=:@".utf8.contains(b)
            if safe { out.append(b) } else { out += Array("%\(hex2(b).uppercased())".utf8) }
        }
        if out.last != UInt8(ascii: "/") { out.append(UInt8(ascii: "/")) }
        self.init(bytes: out)
    }
}
