// SPDX-License-Identifier: Apache-2.0
// BookmarkFormat: the volume facts of one TOC.

/// What a bookmark says about a volume: mount path, URL, name, UUID, capacity and so on.
///
/// ``BookmarkRecord/volume`` (the target's volume) and ``BookmarkRecord/bootVolume`` read and
/// write these facts.
public struct BookmarkVolume: Sendable, Hashable {
    /// `0x2002` volPath: the mount point, e.g. `/` or `/Volumes/SANDISK`.
    public var path: ByteString?
    /// `0x2005` volURL, e.g. `file:///Volumes/SANDISK/`.
    public var url: ByteString?
    /// `0x2010` volName.
    public var name: ByteString?
    /// `0x2011` volUUID, as stored (Apple: an upper-case UUID string).
    public var uuid: String?
    /// `0x2012` volCapacity in bytes.
    public var capacity: Int64?
    /// `0x2013` volCreationDate.
    public var creationDate: BookmarkDate?
    /// `0x2020` volProps.
    public var properties: BookmarkPropertyFlags?
    /// `0x2030` volWasBoot.
    public var wasBoot: Bool?
    /// `0x2050` volMountURL (network volumes, e.g. `smb://…`).
    public var mountURL: ByteString?
    /// `0x2060` volAutomountPath.
    public var automountPath: ByteString?

    /// Creates volume facts.
    public init(path: ByteString? = nil, url: ByteString? = nil, name: ByteString? = nil, uuid: String? = nil,
                capacity: Int64? = nil, creationDate: BookmarkDate? = nil,
                properties: BookmarkPropertyFlags? = nil, wasBoot: Bool? = nil,
                mountURL: ByteString? = nil, automountPath: ByteString? = nil)
    {
        self.path = path
        self.url = url
        self.name = name
        self.uuid = uuid
        self.capacity = capacity
        self.creationDate = creationDate
        self.properties = properties
        self.wasBoot = wasBoot
        self.mountURL = mountURL
        self.automountPath = automountPath
    }

    /// Reads the volume keys of `toc` (values of an unexpected type read as `nil`).
    package init(toc: BookmarkTOC) {
        path = toc[.volPath]?.byteString
        if case .url(let u)? = toc[.volURL] { url = u }
        name = toc[.volName]?.byteString
        uuid = toc[.volUUID]?.stringValue
        capacity = toc[.volCapacity]?.integerValue
        creationDate = toc[.volCreationDate]?.dateValue
        properties = toc[.volProps]?.dataValue.flatMap(BookmarkPropertyFlags.init(bytes:))
        wasBoot = toc[.volWasBoot]?.boolValue
        if case .url(let u)? = toc[.volMountURL] { mountURL = u }
        automountPath = toc[.volAutomountPath]?.byteString
    }

    /// The volume's identity alone from `toc`: ``path``, ``name`` and ``uuid``, read as
    /// ``init(toc:)`` reads them; every other field `nil`. Three lookups instead of ten, for
    /// readers that only need to find the volume (resolution derives these once per bookmark).
    package init(identityIn toc: BookmarkTOC) {
        path = toc[.volPath]?.byteString
        name = toc[.volName]?.byteString
        uuid = toc[.volUUID]?.stringValue
    }

    /// Whether no field is set.
    public var isEmpty: Bool { self == BookmarkVolume() }

    /// Writes every field into `toc` the way Apple does (capacity as SInt64, UUID as an
    /// upper-case string); `nil` fields remove their key.
    package func apply(to toc: inout BookmarkTOC) {
        toc[.volPath] = path.map(BookmarkItem.string)
        toc[.volURL] = url.map(BookmarkItem.url)
        toc[.volName] = name.map(BookmarkItem.string)
        toc[.volUUID] = uuid.map { .string(ByteString(BookmarkUUID(string: $0)?.uppercaseString ?? $0)) }
        toc[.volCapacity] = capacity.map(BookmarkItem.int64)
        toc[.volCreationDate] = creationDate.map(BookmarkItem.date)
        toc[.volProps] = properties.map { .data($0.bytes) }
        toc[.volWasBoot] = wasBoot.map(BookmarkItem.bool)
        toc[.volMountURL] = mountURL.map(BookmarkItem.url)
        toc[.volAutomountPath] = automountPath.map(BookmarkItem.string)
    }
}
