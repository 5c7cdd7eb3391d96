// SPDX-License-Identifier: Apache-2.0
// BookmarkFormat: the typed record over a bookmark's raw items.

/// Bookmark data in Apple's `book` layout, with named, typed properties (Apple's debug names)
/// over raw tables of contents that keep everything else verbatim.
///
/// Every property reads from and writes to the target's table of contents (id 1), so keys this
/// type does not name (sandbox extensions, icons, string-keyed resource values, unknown keys)
/// survive a decode → modify → encode cycle; ``subscript(_:)`` reads and writes any of them.
/// A property whose stored item has an unexpected type reads as `nil`; setting `nil` removes
/// the key.
public struct BookmarkRecord: Sendable, Hashable {
    /// The raw tables of contents (every TOC, key, item type and number subtype as decoded).
    /// Not public: the layout is the codec's business; callers use the typed properties.
    package var document: BookmarkDocument

    /// Creates a record over `document`.
    package init(document: BookmarkDocument) { self.document = document }

    /// Creates an empty record (one empty TOC with id 1).
    public init() { self.document = BookmarkDocument() }

    /// Decodes bookmark data.
    /// - Throws: ``BookmarkFormatError`` naming what was wrong and at which offset.
    public init(decoding bytes: [UInt8], limits: BookmarkDecodingLimits = .default) throws(BookmarkFormatError) {
        self.document = try BookmarkDocument(decoding: bytes, limits: limits)
    }

    /// Encodes as Apple writes bookmark data: a 48-byte `book` header, then the items 4-byte
    /// aligned (equal items written once and shared), then the tables of contents, each sorted
    /// by key (Docs/FORMAT.md).
    /// - Throws: ``BookmarkFormatError`` (`unencodable`) for values the layout cannot hold (more
    ///   than 4 GiB, a number whose payload does not fit its subtype).
    public func encoded() throws(BookmarkFormatError) -> [UInt8] { try document.encoded() }

    /// Encodes as ``encoded()`` and hands the bytes to `make` in place (valid only during the call).
    package func encoded<R>(_ make: (UnsafeRawBufferPointer) -> R) throws(BookmarkFormatError) -> R {
        try document.encoded(make)
    }

    /// The raw item under `key` in the target TOC.
    public subscript(key: BookmarkKey) -> BookmarkItem? {
        get { document[key] }
        set { document[key] = newValue }
    }

    // MARK: - Target

    /// `0x1004` pathComponents: the components of the path from "/" (empty for "/").
    public var pathComponents: [ByteString]? {
        get {
            if let (section, offset) = document.storedTargetItem(.pathComponents),
                let strings = section.stringArray(at: offset)
            {
                return strings
            }
            guard let items = self[.pathComponents]?.arrayValue else { return nil }
            var out: [ByteString] = []
            for item in items {
                guard let s = item.byteString else { return nil }
                out.append(s)
            }
            return out
        }
        set {
            // The Linux facts may store their mount-relative path as a count of these
            // components: keep the path they read before.
            let facts = linuxFactsFollowingPath
            self[.pathComponents] = newValue.map { .array($0.map(Self.pathComponentItem)) }
            if let facts { try? setLinuxFacts(facts) }
        }
    }

    /// The item ``pathComponents`` stores for one component. A caller that makes many records
    /// with the same directories (a creation cache) can keep these items and hand them to
    /// ``setPathComponents(items:)``: they are then shared, not built again.
    package static func pathComponentItem(_ component: ByteString) -> BookmarkItem { .string(component) }

    /// Sets ``pathComponents`` from items made by ``pathComponentItem(_:)``. Unlike the
    /// property's setter it does not store the Linux facts again: for creation, which sets them
    /// afterwards.
    package mutating func setPathComponents(items: [BookmarkItem]) { self[.pathComponents] = .array(items) }

    /// The path as bytes: `"/" + join(pathComponents, "/")`, or `nil` without components.
    public var pathBytes: ByteString? {
        guard let comps = pathComponents else { return nil }
        var out: [UInt8] = [UInt8(ascii: "/")]
        for (i, c) in comps.enumerated() {
            if i > 0 { out.append(UInt8(ascii: "/")) }
            out += c.bytes
        }
        return ByteString(bytes: out)
    }

    /// The path for display: ``pathBytes`` with non-UTF-8 bytes escaped as `\xNN`.
    public var path: String? { pathBytes?.escaped }

    /// `0x1005` fileIDs: one per path component; `nil` where Apple stored null (volumes without
    /// persistent IDs). Written as SInt64, as Apple does.
    public var fileIDs: [Int64?]? {
        get {
            if let (section, offset) = document.storedTargetItem(.fileIDs), let values = section.integerArray(at: offset) {
                return values
            }
            guard let items = self[.fileIDs]?.arrayValue else { return nil }
            var out: [Int64?] = []
            for item in items {
                if item.isNull { out.append(nil); continue }
                guard let v = item.integerValue else { return nil }
                out.append(v)
            }
            return out
        }
        set { self[.fileIDs] = newValue.map { .array($0.map(Self.fileIDItem)) } }
    }

    /// The item ``fileIDs`` stores for one ID (`nil`: null, as Apple writes for volumes without
    /// persistent IDs). See ``pathComponentItem(_:)`` for why a caller would keep these.
    package static func fileIDItem(_ id: Int64?) -> BookmarkItem { id.map(BookmarkItem.int64) ?? .null }

    /// Sets ``fileIDs`` from items made by ``fileIDItem(_:)``.
    package mutating func setFileIDs(items: [BookmarkItem]) { self[.fileIDs] = .array(items) }

    /// `0x1030` fileID (SInt64).
    public var fileID: Int64? {
        get { self[.fileID]?.integerValue }
        set { self[.fileID] = newValue.map(BookmarkItem.int64) }
    }

    /// `0x1020` fileName.
    public var fileName: ByteString? {
        get { self[.fileName]?.byteString }
        set { self[.fileName] = newValue.map(BookmarkItem.string) }
    }

    /// `0x1003` urlString.
    public var urlString: ByteString? {
        get {
            if case .url(let u)? = self[.urlString] { return u }
            return self[.urlString]?.byteString
        }
        set { self[.urlString] = newValue.map(BookmarkItem.url) }
    }

    /// `0x1040` creationDate of the target.
    public var creationDate: BookmarkDate? {
        get { self[.creationDate]?.dateValue }
        set { self[.creationDate] = newValue.map(BookmarkItem.date) }
    }

    /// `0x1042` modificationDate.
    public var modificationDate: BookmarkDate? {
        get { self[.modificationDate]?.dateValue }
        set { self[.modificationDate] = newValue.map(BookmarkItem.date) }
    }

    /// `0x1010` resourceProps.
    public var resourceProperties: BookmarkPropertyFlags? {
        get { self[.resourceProps]?.dataValue.flatMap(BookmarkPropertyFlags.init(bytes:)) }
        set { self[.resourceProps] = newValue.map(Self.resourcePropertiesItem) }
    }

    /// The item ``resourceProperties`` stores for `flags` (for callers that keep the few they use).
    package static func resourcePropertiesItem(_ flags: BookmarkPropertyFlags) -> BookmarkItem { .data(flags.bytes) }

    /// Sets ``resourceProperties`` from an item made by ``resourcePropertiesItem(_:)``.
    package mutating func setResourceProperties(item: BookmarkItem) { self[.resourceProps] = item }

    /// `0xF017` displayName.
    public var displayName: ByteString? {
        get { self[.displayName]?.byteString }
        set { self[.displayName] = newValue.map(BookmarkItem.string) }
    }

    // MARK: - Creation

    /// `0xD010` creationOptions (written as SInt32, as Apple does; read as the 32-bit pattern).
    public var creationOptions: UInt32? {
        get { self[.creationOptions]?.integerValue.map { UInt32(truncatingIfNeeded: $0) } }
        set { self[.creationOptions] = newValue.map { .int32(Int32(bitPattern: $0)) } }
    }

    /// `0xC011` userName.
    public var userName: ByteString? {
        get { self[.userName]?.byteString }
        set { self[.userName] = newValue.map(BookmarkItem.string) }
    }

    /// `0xC012` userUID (SInt32).
    public var userUID: UInt32? {
        get { self[.userUID]?.integerValue.map { UInt32(truncatingIfNeeded: $0) } }
        set { self[.userUID] = newValue.map { .int32(Int32(bitPattern: $0)) } }
    }

    /// `0xC001` volHomeDirRelativePathComponentCount (SInt64 in Apple's blobs).
    public var volumeHomeDirRelativePathComponentCount: Int64? {
        get { self[.volHomeDirRelativePathComponentCount]?.integerValue }
        set { self[.volHomeDirRelativePathComponentCount] = newValue.map(BookmarkItem.int64) }
    }

    /// `0xD001` wasFileIDFormat: the source URL was a file-reference URL.
    public var wasFileIDFormat: Bool? {
        get { self[.wasFileIDFormat]?.boolValue }
        set { self[.wasFileIDFormat] = newValue.map(BookmarkItem.bool) }
    }

    // MARK: - Relative bookmarks

    /// `0x1054` relativeDirsUp.
    public var relativeDirsUp: Int64? {
        get { self[.relativeDirsUp]?.integerValue }
        set { self[.relativeDirsUp] = newValue.map { .int32(Int32(truncatingIfNeeded: $0)) } }
    }

    /// `0x1055` relativeDirsDown.
    public var relativeDirsDown: Int64? {
        get { self[.relativeDirsDown]?.integerValue }
        set { self[.relativeDirsDown] = newValue.map { .int32(Int32(truncatingIfNeeded: $0)) } }
    }

    /// `0x1056` createdWithRelativeURL.
    public var createdWithRelativeURL: Bool? {
        get { self[.createdWithRelativeURL]?.boolValue }
        set { self[.createdWithRelativeURL] = newValue.map(BookmarkItem.bool) }
    }

    /// `0xE003` baseURLComponentCount (an array of numbers).
    public var baseURLComponentCount: [Int64]? {
        get { self[.baseURLComponentCount]?.arrayValue?.compactMap(\.integerValue) }
        set { self[.baseURLComponentCount] = newValue.map { .array($0.map { .int32(Int32(truncatingIfNeeded: $0)) }) } }
    }

    // MARK: - Volumes

    /// The target volume's path, name and UUID alone (see ``BookmarkVolume/init(identityIn:)``):
    /// cheaper than ``volume`` when the other volume facts are not needed.
    package var volumeIdentity: BookmarkVolume {
        document.targetTOC.map(BookmarkVolume.init(identityIn:)) ?? BookmarkVolume()
    }

    /// The target's volume: the volume keys of TOC 1.
    public var volume: BookmarkVolume {
        get { document.targetTOC.map(BookmarkVolume.init(toc:)) ?? BookmarkVolume() }
        set {
            var toc = document.targetTOC ?? BookmarkTOC(id: BookmarkTOC.targetID)
            newValue.apply(to: &toc)
            document[tocID: toc.id] = toc
        }
    }

    /// The boot volume (TOC `0xF000`), present when the target is on another volume.
    public var bootVolume: BookmarkVolume? {
        get { document[tocID: BookmarkTOC.bootVolumeID].map(BookmarkVolume.init(toc:)) }
        set {
            guard let v = newValue else {
                document[tocID: BookmarkTOC.bootVolumeID] = nil
                return
            }
            var toc = document[tocID: BookmarkTOC.bootVolumeID] ?? BookmarkTOC(id: BookmarkTOC.bootVolumeID)
            v.apply(to: &toc)
            document[tocID: BookmarkTOC.bootVolumeID] = toc
        }
    }

    /// `0x2000` volInfoDepths: TOC ids from the root (e.g. `[0xF000, 0, 1, 0]`).
    public var volInfoDepths: [Int64]? {
        get { self[.volInfoDepths]?.arrayValue?.compactMap(\.integerValue) }
        set { self[.volInfoDepths] = newValue.map { .array($0.map { .int32(Int32(truncatingIfNeeded: $0)) }) } }
    }

    /// `0x2040` diskImageDepth: the id of the TOC holding the nested bookmark of the disk
    /// image the volume lives on (ids of 4000 and up).
    var diskImageTOCID: UInt32? {
        get { self[.diskImageDepth]?.integerValue.map { UInt32(truncatingIfNeeded: $0) } }
        set { self[.diskImageDepth] = newValue.map { .int32(Int32(bitPattern: $0)) } }
    }

    /// The nested disk-image bookmark (the TOC named by ``diskImageTOCID``), if present.
    var diskImageTOC: BookmarkTOC? {
        diskImageTOCID.flatMap { document[tocID: $0] }
    }

    // MARK: - Legacy alias, string keys

    /// `0xFE00` aliasData: the raw embedded `alis` record.
    public var aliasData: [UInt8]? {
        get { self[.aliasData]?.dataValue }
        set { self[.aliasData] = newValue.map(BookmarkItem.data) }
    }

    /// Decodes the embedded `alis` record (`0xFE00`), if there is one.
    /// - Throws: ``BookmarkFormatError`` when the embedded record is malformed.
    public func embeddedAliasRecord() throws(BookmarkFormatError) -> AliasRecord? {
        guard let data = aliasData else { return nil }
        return try AliasRecord(decoding: data)
    }

    /// String-keyed values of the target TOC (resource values stored with
    /// `includingResourceValuesForKeys`, and our Linux keys), by key name.
    public var stringKeyedValues: [ByteString: BookmarkItem] {
        var out: [ByteString: BookmarkItem] = [:]
        guard let toc = document.targetTOC else { return out }
        for row in toc.rows {
            if case .string(let name) = row.key { out[name] = toc.value(of: row) }
        }
        return out
    }
}
