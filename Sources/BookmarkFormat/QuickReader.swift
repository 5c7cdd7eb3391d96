// SPDX-License-Identifier: Apache-2.0
// BookmarkFormat: bounds-checked reads of one record's data section, for the quick view.

/// Bounds-checked reads of one record's data section.
struct QuickReader {
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

    /// The path array's components, checked: each a string item. `plain` when none is empty or
    /// holds a slash (so that splitting the joined path at `/` gives them back); `length` is the
    /// joined path's (`/` before each component, or `/` alone).
    func pathArray(_ offset: UInt32) -> QuickPath? {
        guard let (type, payload, length) = item(offset), type == BookmarkItem.TypeCode.array, length % 4 == 0 else {
            return nil
        }
        let count = length / 4
        var total = 0
        var plain = true
        for index in 0..<count {
            guard let element = word(payload + 4 * index), let (kind, start, size) = item(element),
                kind == BookmarkItem.TypeCode.string
            else { return nil }
            if size == 0 || Self.holdsSlash(UnsafeRawBufferPointer(rebasing: bytes[start..<start + size])) { plain = false }
            total += 1 + size
        }
        return QuickPath(elements: payload, count: count, length: max(total, 1), plain: plain)
    }

    /// Component `index` of a path array ``pathArray(_:)`` checked.
    func component(_ path: QuickPath, _ index: Int) -> UnsafeRawBufferPointer? {
        guard index >= 0, index < path.count, let element = word(path.elements + 4 * index),
            let (_, start, size) = item(element)
        else { return nil }
        return UnsafeRawBufferPointer(rebasing: bytes[start..<start + size])
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
    func readLinuxKey(named keyOffset: UInt32, item: UInt32, into facts: inout QuickFileFacts) -> Bool {
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
            facts.handle = payload..<payload + length
        case .birthTime:
            guard let value = integer(item) else { return false }
            facts.birthTime = LinuxTimestamp(totalNanoseconds: value)
        case .subvolumeID:
            guard let value = integer(item) else { return false }
            facts.subvolumeID = UInt64(bitPattern: value)
        case .mountRelativePath:
            guard let span = stringSpan(item) else { return false }
            facts.mountRelative = .bytes(span)
        }
        return true
    }
}

/// Where a record's path array is, checked by ``QuickReader/pathArray(_:)``.
struct QuickPath: Sendable {
    /// Where the array's element offsets start (absolute).
    var elements: Int
    var count: Int
    /// The joined path's length.
    var length: Int
    /// No component is empty or holds a slash.
    var plain: Bool
}

/// The per-file Linux keys of 0.1, and the compact item's key, recognised by name (``LinuxKeys``).
enum QuickLinuxField {
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
