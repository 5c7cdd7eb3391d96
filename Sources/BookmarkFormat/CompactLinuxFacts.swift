// SPDX-License-Identifier: Apache-2.0
// BookmarkFormat: every Linux fact in one small data item (the layout of `org.swift-bookmarks.linux`).

/// The binary record stored as the data item under ``LinuxKeys/compact`` (Docs/FORMAT.md §3).
///
/// Version 0.1 stored nine string keys, whose names and items took about 600 bytes of a
/// 1.3 KB bookmark. This record holds the same facts in about 45: a version byte, a LEB128 mask
/// of the fields present, then each present field in mask-bit order.
enum CompactLinuxFacts {
    /// The layout version this code writes and reads.
    static let version: UInt8 = 1

    /// The mask bit of each field; fields are written in the order of their bits.
    enum Field {
        static let generation: UInt64 = 1 << 0
        static let handleType: UInt64 = 1 << 1
        static let handle: UInt64 = 1 << 2
        static let birthTime: UInt64 = 1 << 3
        static let subvolumeID: UInt64 = 1 << 4
        static let volumeUUIDSource: UInt64 = 1 << 5
        static let mountRelativePath: UInt64 = 1 << 6
        static let fsType: UInt64 = 1 << 7
        static let fsid: UInt64 = 1 << 8
    }

    /// The UUID sources written as one byte, code `index + 1`; code 0 introduces any other
    /// source as a length-prefixed string.
    static let sourceCodes: [VolumeUUIDSource] = [.fsUUIDIoctl, .ext4Ioctl, .btrfsIoctl, .blkid, .fsid]

    /// What decoding found.
    struct Decoded {
        /// The facts.
        var facts: LinuxFileFacts
        /// Whether the mount-relative path was stored as a count of trailing path components, so
        /// that it follows `0x1004`: a caller changing the components must store the facts again.
        var pathIsComponentCount: Bool
        /// That count, when it was (for readers that join the components themselves).
        var trailingComponents: UInt64? = nil
    }

    /// What a mount-relative path may be stored as a count of.
    enum PathReference {
        /// The record's `0x1004` components (`nil`: it has none).
        case components([ByteString]?)
        /// The path the record's `0x1004` components were split from (at `/`, empty components
        /// dropped): what creation has at hand, so it need not read the components back.
        case splitFrom([UInt8])
    }

    // MARK: - Encoding

    /// The record for `facts`.
    ///
    /// - Parameter pathComponents: The record's `0x1004` components, when it has them: the
    ///   mount-relative path is then stored as a count of trailing components if that gives
    ///   exactly the same bytes (one byte instead of the path).
    /// - Throws: ``BookmarkFormatError`` (`unencodable`) for a birth time whose nanoseconds are
    ///   not below 10⁹ (possible only by setting ``LinuxTimestamp/nanoseconds`` directly).
    static func encode(_ facts: LinuxFileFacts, pathComponents: [ByteString]?) throws(BookmarkFormatError) -> [UInt8] {
        try encode(facts, path: .components(pathComponents))
    }

    /// ``encode(_:pathComponents:)`` with the mount-relative path counted against `reference`.
    static func encode(_ facts: LinuxFileFacts, path reference: PathReference) throws(BookmarkFormatError) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(48 + (facts.handle?.count ?? 0) + (facts.mountRelativePath?.bytes.count ?? 0))
        out.append(version)
        VarInt.append(mask(of: facts), to: &out)
        if let v = facts.generation { VarInt.append(v, to: &out) }
        if let v = facts.handleType { VarInt.appendSigned(Int64(v), to: &out) }
        if let v = facts.handle { appendLengthPrefixed(v, to: &out) }
        if let v = facts.birthTime {
            guard v.nanoseconds < 1_000_000_000 else {
                throw BookmarkFormatError(.unencodable("birth time with \(v.nanoseconds) nanoseconds (must be below 10^9)"), at: nil)
            }
            VarInt.appendSigned(v.seconds, to: &out)
            VarInt.append(UInt64(v.nanoseconds), to: &out)
        }
        if let v = facts.subvolumeID { VarInt.append(v, to: &out) }
        if let v = facts.volumeUUIDSource {
            if let index = sourceCodes.firstIndex(of: v) {
                out.append(UInt8(index + 1))
            } else {
                out.append(0)
                appendLengthPrefixed(Array(v.rawValue.utf8), to: &out)
            }
        }
        if let v = facts.mountRelativePath {
            // Even: a count of trailing components; odd: a byte length, then the bytes.
            let count: Int? = switch reference {
            case .components(let components?): trailingComponentCount(of: v.bytes, in: components)
            case .components(nil): nil
            case .splitFrom(let recorded): trailingComponentCount(of: v.bytes, splitFrom: recorded)
            }
            if let count {
                VarInt.append(UInt64(count) << 1, to: &out)
            } else {
                VarInt.append(UInt64(v.bytes.count) << 1 | 1, to: &out)
                out.append(contentsOf: v.bytes)
            }
        }
        if let v = facts.fsType {
            VarInt.append(UInt64(v.utf8.count), to: &out)
            out.append(contentsOf: v.utf8)
        }
        if let v = facts.fsid {
            // `LinuxFSID.bytes`'s layout, without its three temporary arrays.
            appendLittleEndian(v.val0, to: &out)
            appendLittleEndian(v.val1, to: &out)
        }
        return out
    }

    /// The mask bits of the fields `facts` has.
    static func mask(of facts: LinuxFileFacts) -> UInt64 {
        var mask: UInt64 = 0
        if facts.generation != nil { mask |= Field.generation }
        if facts.handleType != nil { mask |= Field.handleType }
        if facts.handle != nil { mask |= Field.handle }
        if facts.birthTime != nil { mask |= Field.birthTime }
        if facts.subvolumeID != nil { mask |= Field.subvolumeID }
        if facts.volumeUUIDSource != nil { mask |= Field.volumeUUIDSource }
        if facts.mountRelativePath != nil { mask |= Field.mountRelativePath }
        if facts.fsType != nil { mask |= Field.fsType }
        if facts.fsid != nil { mask |= Field.fsid }
        return mask
    }

    static func appendLittleEndian(_ v: UInt32, to out: inout [UInt8]) {
        out.append(UInt8(truncatingIfNeeded: v))
        out.append(UInt8(truncatingIfNeeded: v >> 8))
        out.append(UInt8(truncatingIfNeeded: v >> 16))
        out.append(UInt8(truncatingIfNeeded: v >> 24))
    }

    static func appendLengthPrefixed(_ bytes: [UInt8], to out: inout [UInt8]) {
        VarInt.append(UInt64(bytes.count), to: &out)
        out.append(contentsOf: bytes)
    }

    /// `k` when `path` is exactly `"/"` followed by the last `k` components joined by `"/"`
    /// (`"/"` alone for `k == 0`: the mount point itself), else `nil`. Compared in place,
    /// from the end, without building the joined path.
    static func trailingComponentCount(of path: [UInt8], in components: [ByteString]) -> Int? {
        let slash = UInt8(ascii: "/")
        guard path.first == slash else { return nil }
        if path.count == 1 { return 0 }
        var end = path.count
        var count = 0
        for component in components.reversed() {
            let name = component.bytes
            // An empty name would make the join ambiguous; such a path is kept as bytes.
            guard !name.isEmpty, name.count < end else { return nil }
            let start = end - name.count
            guard path[start - 1] == slash, path[start..<end].elementsEqual(name) else { return nil }
            count += 1
            end = start - 1
            if end == 0 { return count }
        }
        return nil
    }

    /// ``trailingComponentCount(of:in:)`` against the path the components were split from: `k`
    /// when `path` is a suffix of `recorded` that starts with `/` and holds `k` non-empty
    /// components (no `//`, no trailing `/`). Splitting `recorded` then ends with exactly those
    /// components, whatever came before them.
    static func trailingComponentCount(of path: [UInt8], splitFrom recorded: [UInt8]) -> Int? {
        let slash = UInt8(ascii: "/")
        guard path.first == slash else { return nil }
        if path.count == 1 { return 0 }
        guard path.last != slash, recorded.count >= path.count else { return nil }
        return path.withUnsafeBufferPointer { p -> Int? in
            recorded.withUnsafeBufferPointer { r -> Int? in
                let offset = r.count - p.count
                var count = 0
                var previous: UInt8 = 0
                for i in 0..<p.count {
                    let b = p[i]
                    guard r[offset + i] == b, b != slash || previous != slash else { return nil }
                    if b == slash { count += 1 }
                    previous = b
                }
                return count
            }
        }
    }

    // MARK: - Decoding

    /// Decodes a record.
    ///
    /// A field whose value its type cannot hold (a handle type beyond 32 bits, nanoseconds of
    /// 10⁹ or more, an unknown UUID-source code, text that is not UTF-8, more trailing components
    /// than the record has) reads as `nil`, as a key holding an item of the wrong type does;
    /// the other fields are kept. Bytes after the fields this version knows (mask bits 9 and
    /// up are fields of later versions, written after these) are ignored.
    ///
    /// - Parameter pathComponents: Called, at most once, when the mount-relative path is a
    ///   component count: the record's `0x1004` components.
    /// - Throws: ``BookmarkFormatError``: `malformedValue` for another version or a number
    ///   longer than 64 bits, `truncated` when a field or a length runs past the end.
    static func decode(_ bytes: UnsafeRawBufferPointer, pathComponents: () -> [ByteString]?) throws(BookmarkFormatError)
        -> Decoded
    {
        var (r, mask) = try reader(bytes)
        var facts = LinuxFileFacts()
        var pathIsComponentCount = false
        var trailingComponents: UInt64?
        if mask & Field.generation != 0 { facts.generation = try r.varint() }
        if mask & Field.handleType != 0 { facts.handleType = Int32(exactly: try r.signedVarint()) }
        if mask & Field.handle != 0 { facts.handle = try r.lengthPrefixed() }
        if mask & Field.birthTime != 0 { facts.birthTime = try birthTime(&r) }
        if mask & Field.subvolumeID != 0 { facts.subvolumeID = try r.varint() }
        if mask & Field.volumeUUIDSource != 0 {
            let code = Int(try r.byte())
            if code == 0 {
                facts.volumeUUIDSource = String(validating: try r.lengthPrefixed(), as: UTF8.self).map(VolumeUUIDSource.init(rawValue:))
            } else if code <= sourceCodes.count {
                facts.volumeUUIDSource = sourceCodes[code - 1]
            }
        }
        if mask & Field.mountRelativePath != 0 {
            let tag = try r.varint()
            if tag & 1 == 1 {
                facts.mountRelativePath = ByteString(bytes: try r.bytes(length: tag >> 1))
            } else {
                pathIsComponentCount = true
                trailingComponents = tag >> 1
                facts.mountRelativePath = pathComponents().flatMap { joinedTrailing(tag >> 1, of: $0) }
            }
        }
        if mask & Field.fsType != 0 { facts.fsType = String(validating: try r.lengthPrefixed(), as: UTF8.self) }
        if mask & Field.fsid != 0 { facts.fsid = LinuxFSID(bytes: try r.bytes(8)) }
        return Decoded(facts: facts, pathIsComponentCount: pathIsComponentCount, trailingComponents: trailingComponents)
    }

    /// The per-file facts as a quick view needs them, read as ``decode(_:pathComponents:)`` reads
    /// them (failing where it fails), with the handle and a mount-relative path left where they
    /// lie (positions in `bytes` plus `base`) and the volume's facts stepped over.
    static func fileFactSpans(_ bytes: UnsafeRawBufferPointer, base: Int) throws(BookmarkFormatError) -> QuickFileFacts {
        var (r, mask) = try reader(bytes)
        func rebased(_ span: Range<Int>) -> Range<Int> { base + span.lowerBound..<base + span.upperBound }
        var facts = QuickFileFacts()
        if mask & Field.generation != 0 { facts.generation = try r.varint() }
        if mask & Field.handleType != 0 { facts.handleType = Int32(exactly: try r.signedVarint()) }
        if mask & Field.handle != 0 { facts.handle = rebased(try r.lengthPrefixedSpan()) }
        if mask & Field.birthTime != 0 { facts.birthTime = try birthTime(&r) }
        if mask & Field.subvolumeID != 0 { facts.subvolumeID = try r.varint() }
        if mask & Field.volumeUUIDSource != 0, try r.byte() == 0 { try r.skip(length: try r.varint()) }
        if mask & Field.mountRelativePath != 0 {
            let tag = try r.varint()
            facts.mountRelative = tag & 1 == 1 ? .bytes(rebased(try r.span(length: tag >> 1))) : .trailing(tag >> 1)
        }
        if mask & Field.fsType != 0 { try r.skip(length: try r.varint()) }
        if mask & Field.fsid != 0 { try r.skip(length: 8) }
        return facts
    }

    /// A reader past the layout version (checked) and the field mask.
    private static func reader(_ bytes: UnsafeRawBufferPointer) throws(BookmarkFormatError) -> (CompactReader, UInt64) {
        var r = CompactReader(bytes, key: LinuxKeys.compactName)
        let v = try r.byte()
        guard v == version else {
            throw BookmarkFormatError(.malformedValue("\(LinuxKeys.compactName): layout version \(v), not \(version)"), at: 0)
        }
        let mask = try r.varint()
        return (r, mask)
    }

    /// The birth time: seconds, then nanoseconds (`nil` for 10⁹ or more).
    private static func birthTime(_ r: inout CompactReader) throws(BookmarkFormatError) -> LinuxTimestamp? {
        let seconds = try r.signedVarint()
        let nanoseconds = try r.varint()
        return nanoseconds < 1_000_000_000 ? LinuxTimestamp(seconds: seconds, nanoseconds: UInt32(nanoseconds)) : nil
    }

    /// `"/"` and the last `count` components joined by `"/"`; `nil` when there are fewer.
    static func joinedTrailing(_ count: UInt64, of components: [ByteString]) -> ByteString? {
        guard count <= UInt64(components.count) else { return nil }
        let slash = UInt8(ascii: "/")
        var out: [UInt8] = [slash]
        for (i, component) in components.suffix(Int(count)).enumerated() {
            if i > 0 { out.append(slash) }
            out.append(contentsOf: component.bytes)
        }
        return ByteString(bytes: out)
    }
}

extension LinuxFileFacts {
    /// Decodes the payload of an `org.swift-bookmarks.linux` item (Docs/FORMAT.md §3).
    ///
    /// - Parameter pathComponents: The record's `0x1004` components, for a mount-relative path
    ///   stored as a count of them (without them it reads as `nil`).
    /// - Throws: ``BookmarkFormatError``: `malformedValue` for another layout version or a
    ///   number longer than 64 bits, `truncated` when a field or a length runs past the end.
    package init(compactItem bytes: [UInt8], pathComponents: [ByteString]?) throws(BookmarkFormatError) {
        let decoded = bytes.withUnsafeBytes { buffer in
            Result { () throws(BookmarkFormatError) in try CompactLinuxFacts.decode(buffer) { pathComponents } }
        }
        self = try decoded.get().facts
    }

    /// The payload of the `org.swift-bookmarks.linux` item for these facts; the mount-relative
    /// path as a count of `pathComponents` when that is exact.
    /// - Throws: ``BookmarkFormatError`` (`unencodable`) for a birth time whose nanoseconds are
    ///   not below 10⁹.
    package func compactItem(pathComponents: [ByteString]?) throws(BookmarkFormatError) -> [UInt8] {
        try CompactLinuxFacts.encode(self, pathComponents: pathComponents)
    }
}
