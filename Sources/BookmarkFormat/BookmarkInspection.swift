// SPDX-License-Identifier: Apache-2.0
// BookmarkFormat: a detailed, offline description of a bookmark (like Apple's
// NSURLBookmarkDetailedDescription), as text and as JSON.

/// Everything a bookmark says, without resolving it: the decoded path and volume, and every
/// TOC and key with its name, type and value (non-UTF-8 and binary values escaped).
public struct BookmarkInspection: Sendable {
    /// The decoded source, when the record came from ``BookmarkSource``.
    public var source: BookmarkSource?
    /// The record.
    public var record: BookmarkRecord
    /// A label for where the bytes came from (a file path), included in the output.
    public var origin: String?

    /// Describes a decoded source.
    public init(source: BookmarkSource, origin: String? = nil) {
        self.source = source
        self.record = source.record
        self.origin = origin
    }

    /// Describes a record.
    public init(source: BookmarkSource?, record: BookmarkRecord, origin: String? = nil) {
        self.source = source
        self.record = record
        self.origin = origin
    }

    // MARK: - JSON

    /// The JSON description (stable, sorted keys). Top-level keys: `origin`, `container`,
    /// `base64`, `version`, `path`, `pathComponents`, `fileIDs`, `fileID`, `fileName`,
    /// `creationDate`, `displayName`, `creationOptions`, `userName`, `userUID`,
    /// `resourceProperties`, `volume`, `bootVolume`, `volInfoDepths`, `linux`, `aliasRecord`,
    /// `tocs` (every TOC and entry) and `keys` (every key of the target TOC by key text); and
    /// `trailingBytes` and `storedBookmarks` when bytes follow the bookmark data
    /// (``BookmarkSource/trailingByteCount``).
    var json: JSONValue {
        var o: [String: JSONValue] = [:]
        o["origin"] = origin.map(JSONValue.string) ?? .null
        o["container"] = source.map { .string($0.container.rawValue) } ?? .string("bookmarkData")
        o["base64"] = .bool(source?.wasBase64 ?? false)
        if let source, source.trailingByteCount > 0 {
            o["trailingBytes"] = .int(Int64(source.trailingByteCount))
            o["storedBookmarks"] = source.storedBookmarkCount.map { .int(Int64($0)) } ?? .null
        }
        o["version"] = .string(hex32(record.document.version))
        o["path"] = record.path.map(JSONValue.string) ?? .null
        o["pathComponents"] = record.pathComponents.map { .array($0.map { .string($0.escaped) }) } ?? .null
        o["fileIDs"] = record.fileIDs.map { .array($0.map { $0.map(JSONValue.int) ?? .null }) } ?? .null
        o["fileID"] = record.fileID.map(JSONValue.int) ?? .null
        o["fileName"] = record.fileName.map { .string($0.escaped) } ?? .null
        o["creationDate"] = record.creationDate.map(Self.dateJSON) ?? .null
        o["displayName"] = record.displayName.map { .string($0.escaped) } ?? .null
        o["creationOptions"] = record.creationOptions.map { .uint(UInt64($0)) } ?? .null
        o["userName"] = record.userName.map { .string($0.escaped) } ?? .null
        o["userUID"] = record.userUID.map { .uint(UInt64($0)) } ?? .null
        o["resourceProperties"] = record.resourceProperties.map(Self.flagsJSON) ?? .null
        o["volume"] = Self.volumeJSON(record.volume)
        o["bootVolume"] = record.bootVolume.map(Self.volumeJSON) ?? .null
        o["volInfoDepths"] = record.volInfoDepths.map { .array($0.map(JSONValue.int)) } ?? .null
        o["linux"] = Self.linuxJSON(record.linux)
        o["aliasRecord"] = source?.aliasRecord.map(Self.aliasJSON) ?? .null
        if let e = source?.aliasRecordError { o["aliasRecordError"] = .string(e.description) }
        o["tocs"] = .array(record.document.tocs.map { toc in
            .object([
                "id": .uint(UInt64(toc.id)),
                "idHex": .string(hex32(toc.id)),
                "entries": .array(toc.entries.map { e in
                    .object([
                        "key": .string(e.key.description),
                        "name": e.key.name.map(JSONValue.string) ?? .null,
                        "type": .string(e.value.typeName),
                        "flags": .uint(UInt64(e.flags)),
                        "value": Self.itemJSON(e.value),
                    ])
                }),
            ])
        })
        var keys: [String: JSONValue] = [:]
        for e in record.document.targetTOC?.entries ?? [] { keys[e.key.description] = Self.itemJSON(e.value) }
        o["keys"] = .object(keys)
        return .object(o)
    }

    /// The JSON description as pretty-printed text.
    public var jsonText: String { json.serialized(pretty: true) }

    /// An item as JSON: `{"type": …, "value": …}` plus type-specific fields.
    static func itemJSON(_ item: BookmarkItem) -> JSONValue {
        var o: [String: JSONValue] = ["type": .string(item.typeName)]
        switch item {
        case .string(let s), .url(let s):
            o["value"] = .string(s.escaped)
            if !s.isValidUTF8 { o["hex"] = .string(hexString(s.bytes)) }
        case .data(let d):
            o["length"] = .int(Int64(d.count))
            o["hex"] = .string(hexString(d))
            if let text = printableASCII(d) { o["ascii"] = .string(text) }
        case .number(let n):
            if let i = n.integerValue { o["value"] = .int(i) } else if let d = n.doubleValue { o["value"] = .double(d) }
            else { o["hex"] = .string(hexString(n.payload)) }
        case .date(let d): return dateJSON(d)
        case .bool(let b): o["value"] = .bool(b)
        case .array(let a): o["value"] = .array(a.map(itemJSON))
        case .dictionary(let pairs):
            o["value"] = .array(pairs.map { .object(["key": itemJSON($0.key), "value": itemJSON($0.value)]) })
        case .uuid(let u): o["value"] = .string(u.uppercaseString)
        case .relativeURL(let base, let rel):
            o["base"] = itemJSON(base)
            o["relative"] = itemJSON(rel)
        case .null: o["value"] = .null
        case .unknown(let t, let p):
            o["typeCode"] = .string(hex32(t))
            o["hex"] = .string(hexString(p))
        }
        return .object(o)
    }

    static func dateJSON(_ d: BookmarkDate) -> JSONValue {
        .object([
            "type": .string("date"),
            "value": .double(d.secondsSinceReferenceDate),
            "unixSeconds": .double(d.unixSeconds),
            "iso8601": d.iso8601.map(JSONValue.string) ?? .null,
        ])
    }

    static func flagsJSON(_ f: BookmarkPropertyFlags) -> JSONValue {
        .object(["flags": .uint(f.flags), "validMask": .uint(f.validMask), "extra": .uint(f.extra)])
    }

    static func volumeJSON(_ v: BookmarkVolume) -> JSONValue {
        .object([
            "uuid": v.uuid.map(JSONValue.string) ?? .null,
            "name": v.name.map { .string($0.escaped) } ?? .null,
            "path": v.path.map { .string($0.escaped) } ?? .null,
            "url": v.url.map { .string($0.escaped) } ?? .null,
            "capacity": v.capacity.map(JSONValue.int) ?? .null,
            "creationDate": v.creationDate.map(dateJSON) ?? .null,
            "properties": v.properties.map(flagsJSON) ?? .null,
            "wasBoot": v.wasBoot.map(JSONValue.bool) ?? .null,
            "mountURL": v.mountURL.map { .string($0.escaped) } ?? .null,
        ])
    }

    static func linuxJSON(_ l: LinuxFileFacts) -> JSONValue {
        var o: [String: JSONValue] = [:]
        if let v = l.generation { o["generation"] = .uint(v) }
        if let v = l.handleType { o["handleType"] = .int(Int64(v)) }
        if let v = l.handle { o["handle"] = .string(hexString(v)) }
        if let v = l.birthTime {
            o["birthTime"] = .object(["seconds": .int(v.seconds), "nanoseconds": .int(Int64(v.nanoseconds))])
        }
        if let v = l.subvolumeID { o["subvolumeID"] = .uint(v) }
        if let v = l.volumeUUIDSource { o["volumeUUIDSource"] = .string(v.rawValue) }
        if let v = l.mountRelativePath { o["mountRelativePath"] = .string(v.escaped) }
        if let v = l.fsType { o["fsType"] = .string(v) }
        if let v = l.fsid { o["fsid"] = .array([.uint(UInt64(v.val0)), .uint(UInt64(v.val1))]) }
        return .object(o)
    }

    static func aliasJSON(_ a: AliasRecord) -> JSONValue {
        .object([
            "version": .int(Int64(a.version)),
            "kind": .int(Int64(a.kind)),
            "appInfo": .string(hexString(a.appInfo)),
            "targetName": .string(a.displayTargetName),
            "targetCNID": .uint(UInt64(a.targetCNID)),
            "parentCNID": .uint(UInt64(a.parentCNID)),
            "volumeName": .string(a.displayVolumeName),
            "volumeCreationDate": dateJSON((a.highResVolumeCreationDate ?? a.volumeCreationDate).bookmarkDate),
            "creationDate": dateJSON((a.highResCreationDate ?? a.creationDate).bookmarkDate),
            "fileSystemType": .string(ByteString(bytes: a.fileSystemType).escaped),
            "posixPath": a.posixPath.map { .string($0.escaped) } ?? .null,
            "posixMountPoint": a.posixMountPoint.map { .string($0.escaped) } ?? .null,
            "tags": .array(a.tags.map { .object(["tag": .int(Int64($0.tag)), "hex": .string(hexString($0.data))]) }),
        ])
    }

    // MARK: - Text

    /// A human-readable dump: container, path, volume, our Linux facts (decoded), then every TOC
    /// and key with its name, type and value.
    public var text: String {
        var lines: [String] = []
        if let origin { lines.append("source:     \(origin)") }
        let container = source?.container.rawValue ?? "bookmarkData"
        lines.append("container:  \(container)" + ((source?.wasBase64 ?? false) ? " (base64)" : ""))
        if let source, source.trailingByteCount > 0 {
            let what = source.storedBookmarkCount.map { "\($0) bookmarks stored back to back; the first is shown" }
                ?? "not bookmark data"
            lines.append("trailing:   \(source.trailingByteCount) bytes after the bookmark data (\(what))")
        }
        lines.append("version:    \(hex32(record.document.version))")
        lines.append("path:       \(record.path ?? "(none)")")
        if let ids = record.fileIDs {
            lines.append("fileIDs:    " + ids.map { $0.map(String.init) ?? "null" }.joined(separator: ", "))
        }
        let v = record.volume
        lines.append("volume:     \(v.name?.escaped ?? "?") \(v.uuid ?? "") at \(v.path?.escaped ?? "?")")
        if let b = record.bootVolume {
            lines.append("bootVolume: \(b.name?.escaped ?? "?") \(b.uuid ?? "") at \(b.path?.escaped ?? "?")")
        }
        let linux = record.linux
        if !linux.isEmpty { lines.append("linux:      " + Self.linuxText(linux)) }
        for toc in record.document.tocs {
            let label = toc.id == BookmarkTOC.targetID ? " (target)" : (toc.id == BookmarkTOC.bootVolumeID ? " (boot volume)" : "")
            lines.append("TOC \(hex32(toc.id))\(label): \(toc.entries.count) entries")
            for e in toc.entries {
                let name = e.key.name ?? "?"
                lines.append("  \(e.key.description.padding(9)) \(name.padding(24)) \(e.value.typeName.padding(10)) \(Self.itemText(e.value))")
            }
        }
        if let a = source?.aliasRecord {
            lines.append("alias record v\(a.version): \(a.displayTargetName) (cnid \(a.targetCNID)) on \(a.displayVolumeName)")
            for t in a.tags { lines.append("  tag \(t.tag): \(hexString(t.data))") }
        }
        if let e = source?.aliasRecordError { lines.append("alias record error: \(e)") }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Our Linux facts on one line, decoded (the compact item is otherwise shown as data).
    static func linuxText(_ l: LinuxFileFacts) -> String {
        var parts: [String] = []
        if let v = l.generation { parts.append("generation \(v)") }
        if let v = l.handleType { parts.append("handle type \(v)") }
        if let v = l.handle { parts.append("handle " + hexString(v)) }
        if let v = l.birthTime { parts.append("born \(v.seconds).\(String(v.nanoseconds).leftPadded(9))") }
        if let v = l.subvolumeID { parts.append("subvolume \(v)") }
        if let v = l.volumeUUIDSource { parts.append("uuid from \(v.rawValue)") }
        if let v = l.mountRelativePath { parts.append("mount-relative \(v.escaped)") }
        if let v = l.fsType { parts.append(v) }
        if let v = l.fsid { parts.append("fsid " + hexString(v.bytes)) }
        return parts.joined(separator: ", ")
    }

    /// One-line rendering of an item's value.
    static func itemText(_ item: BookmarkItem) -> String {
        switch item {
        case .string(let s): return "\"\(s.escaped)\""
        case .url(let s): return "<\(s.escaped)>"
        case .data(let d):
            return "\(d.count) bytes " + hexString(Array(d.prefix(32))) + (d.count > 32 ? "…" : "")
        case .number(let n): return n.description
        case .date(let d): return d.description
        case .bool(let b): return b ? "true" : "false"
        case .array(let a): return "[" + a.map(itemText).joined(separator: ", ") + "]"
        case .dictionary(let p): return "{" + p.map { itemText($0.key) + ": " + itemText($0.value) }.joined(separator: ", ") + "}"
        case .uuid(let u): return u.uppercaseString
        case .relativeURL(let b, let r): return "relative(\(itemText(b)), \(itemText(r)))"
        case .null: return "null"
        case .unknown(let t, let p): return "type \(hex32(t)) " + hexString(Array(p.prefix(32))) + (p.count > 32 ? "…" : "")
        }
    }
}

func hex32(_ v: UInt32) -> String { "0x" + String(v, radix: 16, uppercase: true) }

func hexString(_ b: [UInt8]) -> String {
    var out: [UInt8] = []
    out.reserveCapacity(b.count * 2)
    for byte in b {
        out.append(hexDigits[Int(byte >> 4)])
        out.append(hexDigits[Int(byte & 0xF)])
    }
    return String(decoding: out, as: UTF8.self)
}

func printableASCII(_ b: [UInt8]) -> String? {
    guard !b.isEmpty, b.allSatisfy({ ($0 >= 0x20 && $0 < 0x7F) || $0 == 0 }) else { return nil }
    return String(decoding: b.filter { $0 != 0 }, as: UTF8.self)
}

extension String {
    fileprivate func padding(_ n: Int) -> String { count >= n ? self : self + String(repeating: " ", count: n - count) }
    fileprivate func leftPadded(_ n: Int) -> String { count >= n ? self : String(repeating: "0", count: n - count) + self }
}
