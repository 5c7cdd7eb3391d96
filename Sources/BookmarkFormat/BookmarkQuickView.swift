// SPDX-License-Identifier: Apache-2.0
// BookmarkFormat: the few items an unmoved file's resolution needs, read straight from the bytes.

/// What the quick check of an unmoved file needs from bookmark data, read without decoding the
/// rest: the path, the inode, the volume's UUID, path and name, and the per-file Linux facts.
///
/// A batch resolving stored bookmarks (a library's launch) reads these first, and decodes the
/// whole bookmark only when the quick check does not settle it. Full decoding validates every
/// item; this reads only the items it returns, each bounds-checked, and gives up (`nil`) at the
/// first thing outside the plain layout our encoder and Apple's write: an item of another type,
/// a number of another width, a TOC chain with more than one TOC. The caller then decodes the
/// bookmark in full, so every unusual or hostile record takes the validated path, and the quick
/// path can never read outside `bytes` or trap.
package struct BookmarkQuickView: Sendable {
    /// The recorded path: the components of `0x1004` joined, `/` first.
    package var path: [UInt8] = []
    /// `0x1030`, else the last of `0x1005`.
    package var inode: UInt64?
    /// `0x2011`, the volume UUID's bytes (copied only when the view was asked to copy them).
    package var volumeUUID: [UInt8]?
    /// `0x2002` (as ``volumeUUID``).
    package var volumePath: [UInt8]?
    /// `0x2010` (as ``volumeUUID``).
    package var volumeName: [UInt8]?
    /// Where ``volumeUUID``, ``volumePath`` and ``volumeName`` are in the bytes read: a batch
    /// compares them there with the last bookmark's volume, and copies them only when they differ.
    package var volumeUUIDSpan: Range<Int>?
    package var volumePathSpan: Range<Int>?
    package var volumeNameSpan: Range<Int>?
    /// Whether the bookmark records a relative location (`0x1055`).
    package var isRelative = false
    /// The per-file Linux facts (the volume's own are not read).
    package var linux = LinuxFileFacts()

    /// Reads `bytes`; `nil` when they are not the plain layout (see the type's description).
    /// `copyingVolumeStrings: false` leaves the volume's UUID, path and name in their spans only.
    package init?(_ bytes: UnsafeRawBufferPointer, copyingVolumeStrings: Bool = true) {
        guard let view = QuickReader(bytes), let toc = view.targetTOC() else { return nil }
        var pathOffset: UInt32?
        var compactOffset: UInt32?
        var fileIDsOffset: UInt32?
        var fileIDOffset: UInt32?
        for entry in 0..<toc.count {
            let at = toc.entries + 12 * entry
            guard let key = view.word(at), let item = view.word(at + 4) else { return nil }
            if key & 0x8000_0000 != 0 {
                if view.isCompactKey(key & 0x7FFF_FFFF) {
                    compactOffset = item
                } else {
                    guard view.readLinuxKey(named: key & 0x7FFF_FFFF, item: item, into: &linux) else { return nil }
                }
                continue
            }
            switch key {
            case 0x1004: pathOffset = item
            case 0x1005: fileIDsOffset = item
            case 0x1030: fileIDOffset = item
            case 0x1055: isRelative = true
            case 0x2002:
                guard let span = view.stringSpan(item) else { return nil }
                volumePathSpan = span
            case 0x2010:
                guard let span = view.stringSpan(item) else { return nil }
                volumeNameSpan = span
            case 0x2011:
                guard let span = view.stringSpan(item) else { return nil }
                volumeUUIDSpan = span
            default: break
            }
        }
        if copyingVolumeStrings {
            volumePath = volumePathSpan.map { Array(UnsafeRawBufferPointer(rebasing: bytes[$0])) }
            volumeName = volumeNameSpan.map { Array(UnsafeRawBufferPointer(rebasing: bytes[$0])) }
            volumeUUID = volumeUUIDSpan.map { Array(UnsafeRawBufferPointer(rebasing: bytes[$0])) }
        }
        guard let pathOffset, let (joined, plain) = view.joinedPath(pathOffset) else { return nil }
        path = joined
        // The compact item wins over the 0.1 keys, as in full decoding; one it cannot read sends
        // the record to full decoding.
        if let compactOffset {
            guard let (type, payload, length) = view.item(compactOffset), type == BookmarkItem.TypeCode.data,
                let decoded = try? CompactLinuxFacts.decode(
                    UnsafeRawBufferPointer(rebasing: bytes[payload..<payload + length]), fileFactsOnly: true,
                    pathComponents: { nil })
            else { return nil }
            linux = decoded.facts
            if let count = decoded.trailingComponents {
                // The path under the mount point is the last `count` components: a suffix of the
                // joined path when no component is empty or holds a slash.
                guard plain, let suffix = Self.trailing(count, of: joined) else { return nil }
                linux.mountRelativePath = ByteString(bytes: suffix)
            }
        }
        if let fileIDOffset {
            guard let value = view.integer(fileIDOffset) else { return nil }
            inode = UInt64(bitPattern: value)
        } else if let fileIDsOffset {
            guard let last = view.lastInteger(fileIDsOffset) else { return nil }
            inode = last.map { UInt64(bitPattern: $0) }
        }
    }
}

extension BookmarkQuickView {
    /// `/` and the last `count` components of `path` (`/`, then components joined by `/`), as
    /// `CompactLinuxFacts.joinedTrailing` makes it; `nil` when there are fewer.
    static func trailing(_ count: UInt64, of path: [UInt8]) -> [UInt8]? {
        if count == 0 { return [UInt8(ascii: "/")] }
        var seen: UInt64 = 0
        var index = path.count
        while index > 0 {
            index -= 1
            if path[index] == UInt8(ascii: "/") {
                seen += 1
                if seen == count { return Array(path[index...]) }
            }
        }
        return nil
    }
}

/// Bounds-checked reads of one record's data section.
private struct QuickReader {
    let bytes: UnsafeRawBufferPointer
    /// Where the data section starts and ends in ``bytes``.
    let start: Int
    let end: Int

    init?(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count >= 20, bytes.count <= BookmarkDecodingLimits.default.maxInputSize,
            bytes[0] == UInt8(ascii: "b"), bytes[1] == UInt8(ascii: "o"), bytes[2] == UInt8(ascii: "o"),
            bytes[3] == UInt8(ascii: "k")
        else { return nil }
        self.bytes = bytes
        let size = Int(Self.load(bytes, 4))
        let header = Int(Self.load(bytes, 12))
        guard size <= bytes.count, header >= 16, header <= size - 4 else { return nil }
        start = header
        end = size
    }

    static func load(_ bytes: UnsafeRawBufferPointer, _ i: Int) -> UInt32 {
        UInt32(bytes[i]) | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2]) << 16 | UInt32(bytes[i + 3]) << 24
    }

    /// The word at absolute index `i`, if it lies in the data section.
    func word(_ i: Int) -> UInt32? {
        guard i >= start, i <= end - 4 else { return nil }
        return Self.load(bytes, i)
    }

    /// The item at data offset `offset`: type, payload start (absolute) and length.
    func item(_ offset: UInt32) -> (type: UInt32, payload: Int, length: Int)? {
        let at = start + Int(offset)
        guard at <= end - 8, let length = word(at), let type = word(at + 4), Int(length) <= end - at - 8 else {
            return nil
        }
        return (type, at + 8, Int(length))
    }

    /// The one TOC of a plain record (every bookmark we and Apple write for a file has one, id 1).
    func targetTOC() -> (count: Int, entries: Int)? {
        guard let first = word(start) else { return nil }
        let at = start + Int(first)
        guard at <= end - 20, let marker = word(at + 4), marker == 0xFFFF_FFFE, let id = word(at + 8), id == 1,
            let next = word(at + 12), next == 0, let count = word(at + 16), Int(count) <= (end - at - 20) / 12
        else { return nil }
        return (Int(count), at + 20)
    }

    /// A string item's bytes.
    func string(_ offset: UInt32) -> [UInt8]? {
        stringSpan(offset).map { Array(UnsafeRawBufferPointer(rebasing: bytes[$0])) }
    }

    /// Where a string item's bytes are.
    func stringSpan(_ offset: UInt32) -> Range<Int>? {
        guard let (type, payload, length) = item(offset), type == BookmarkItem.TypeCode.string else { return nil }
        return payload..<payload + length
    }

    /// A signed integer of its exact width (CFNumber subtypes 1–4).
    func integer(_ offset: UInt32) -> Int64? {
        guard let (type, payload, length) = item(offset) else { return nil }
        return integer(type: type, payload: payload, length: length)
    }

    func integer(type: UInt32, payload: Int, length: Int) -> Int64? {
        switch (type, length) {
        case (BookmarkItem.TypeCode.numberBase | 4, 8):
            return Int64(bitPattern: UInt64(Self.load(bytes, payload)) | UInt64(Self.load(bytes, payload + 4)) << 32)
        case (BookmarkItem.TypeCode.numberBase | 3, 4): return Int64(Int32(bitPattern: Self.load(bytes, payload)))
        case (BookmarkItem.TypeCode.numberBase | 2, 2):
            return Int64(Int16(bitPattern: UInt16(bytes[payload]) | UInt16(bytes[payload + 1]) << 8))
        case (BookmarkItem.TypeCode.numberBase | 1, 1): return Int64(Int8(bitPattern: bytes[payload]))
        default: return nil
        }
    }

    /// The last element of an array of integers and nulls (`.some(nil)` for a trailing null or an
    /// empty array, as the decoded record reads them).
    func lastInteger(_ offset: UInt32) -> Int64?? {
        guard let (type, payload, length) = item(offset), type == BookmarkItem.TypeCode.array, length % 4 == 0 else {
            return nil
        }
        guard length > 0 else { return .some(nil) }
        // Every element must be well-formed, as the decoded record's reading requires.
        var last: Int64?
        for index in 0..<(length / 4) {
            guard let element = word(payload + 4 * index), let (kind, at, count) = item(element) else { return nil }
            if kind == BookmarkItem.TypeCode.null {
                last = nil
            } else {
                guard let value = integer(type: kind, payload: at, length: count) else { return nil }
                last = value
            }
        }
        return .some(last)
    }

    /// The path of an array of strings: `/` and each component; `plain` when no component is
    /// empty or holds a slash (so that splitting the path at `/` gives the components back).
    func joinedPath(_ offset: UInt32) -> (path: [UInt8], plain: Bool)? {
        guard let (type, payload, length) = item(offset), type == BookmarkItem.TypeCode.array, length % 4 == 0 else {
            return nil
        }
        let count = length / 4
        if count == 0 { return ([UInt8(ascii: "/")], true) }
        var total = 0
        for index in 0..<count {
            guard let element = word(payload + 4 * index), let (kind, _, size) = item(element),
                kind == BookmarkItem.TypeCode.string
            else { return nil }
            total += 1 + size
        }
        // One allocation, each component copied whole; a component is plain when it is not empty
        // and holds no slash.
        var plain = true
        var failed = false
        let path = [UInt8](unsafeUninitializedCapacity: total) { buffer, initialized in
            var at = 0
            for index in 0..<count {
                guard let element = word(payload + 4 * index), let (_, start, size) = item(element) else {
                    failed = true
                    break
                }
                let component = UnsafeRawBufferPointer(rebasing: bytes[start..<start + size])
                if size == 0 || Self.holdsSlash(component) { plain = false }
                buffer[at] = UInt8(ascii: "/")
                if size > 0, let from = component.baseAddress, let to = buffer.baseAddress {
                    UnsafeMutableRawPointer(to + at + 1).copyMemory(from: from, byteCount: size)
                }
                at += 1 + size
            }
            initialized = failed ? 0 : at
        }
        return failed ? nil : (path, plain)
    }

    /// Whether `bytes` hold a `/` (a plain loop: `contains` on a raw buffer looked up generic
    /// metadata for every component of every record).
    static func holdsSlash(_ bytes: UnsafeRawBufferPointer) -> Bool {
        for byte in bytes where byte == UInt8(ascii: "/") { return true }
        return false
    }

    /// Whether the string key at data offset `keyOffset` is `org.swift-bookmarks.linux`.
    func isCompactKey(_ keyOffset: UInt32) -> Bool {
        guard let (type, at, size) = item(keyOffset), type == BookmarkItem.TypeCode.string,
            size == QuickLinuxField.compactName.count
        else { return false }
        return RawBytes.equal(UnsafeRawBufferPointer(rebasing: bytes[at..<at + size]), QuickLinuxField.compactName)
    }

    /// Reads a string-keyed entry: one of our per-file Linux keys of 0.1 into `facts`, any other
    /// name ignored. `false` when the key or a Linux value is not the plain layout.
    func readLinuxKey(named keyOffset: UInt32, item: UInt32, into facts: inout LinuxFileFacts) -> Bool {
        guard let (type, at, size) = self.item(keyOffset), type == BookmarkItem.TypeCode.string else { return false }
        let name = UnsafeRawBufferPointer(rebasing: bytes[at..<at + size])
        guard let field = QuickLinuxField(name) else { return true }
        switch field {
        case .generation:
            guard let value = integer(item) else { return false }
            facts.generation = UInt64(bitPattern: value)
        case .handleType:
            guard let value = integer(item), let type = Int32(exactly: value) else { return false }
            facts.handleType = type
        case .handle:
            guard let (kind, payload, length) = self.item(item), kind == BookmarkItem.TypeCode.data else { return false }
            facts.handle = Array(UnsafeRawBufferPointer(rebasing: bytes[payload..<payload + length]))
        case .birthTime:
            guard let value = integer(item) else { return false }
            facts.birthTime = LinuxTimestamp(totalNanoseconds: value)
        case .subvolumeID:
            guard let value = integer(item) else { return false }
            facts.subvolumeID = UInt64(bitPattern: value)
        case .mountRelativePath:
            guard let value = string(item) else { return false }
            facts.mountRelativePath = ByteString(bytes: value)
        }
        return true
    }
}

/// The per-file Linux keys of 0.1, and the compact item's key, recognised by name (``LinuxKeys``).
private enum QuickLinuxField {
    case generation, handleType, handle, birthTime, subvolumeID, mountRelativePath

    private static let prefix = Array(LinuxKeys.prefix.utf8)
    static let compactName = Array(LinuxKeys.compactName.utf8)
    /// Each field's whole key name (``LinuxKeys``), as bytes.
    private static let names: [(name: [UInt8], field: QuickLinuxField)] = [
        (LinuxKeys.generation, .generation), (LinuxKeys.handleType, .handleType), (LinuxKeys.handle, .handle),
        (LinuxKeys.birthTime, .birthTime), (LinuxKeys.subvolumeID, .subvolumeID),
        (LinuxKeys.mountRelativePath, .mountRelativePath),
    ].map { key, field in
        guard case .string(let name) = key else { return ([], field) }
        return (name.bytes, field)
    }

    /// Runs for every string key of every bookmark in a batch: the prefix first, then each name's
    /// length before its bytes.
    init?(_ name: UnsafeRawBufferPointer) {
        guard name.count > Self.prefix.count, name.prefix(Self.prefix.count).elementsEqual(Self.prefix),
            let match = Self.names.first(where: { $0.name.count == name.count && $0.name.elementsEqual(name) })
        else { return nil }
        self = match.field
    }
}
