// SPDX-License-Identifier: Apache-2.0
// BookmarkFormat: recognising what a blob of bytes is.

/// Bookmark bytes of unknown origin, decoded: raw bookmark data, an alias file, a legacy alias
/// record, or any of these as base64 text.
public struct BookmarkSource: Sendable, Hashable {
    /// The container the bytes were in.
    public enum Container: String, Sendable, Hashable {
        /// Bookmark data with a 48-byte `book` header.
        case bookmarkData
        /// A Finder alias file (56-byte `book…mark` header).
        case aliasFile
        /// A legacy `alis` record (version 2 or 3).
        case aliasRecord
    }

    /// The container.
    public var container: Container
    /// Whether the input was base64 text.
    public var wasBase64: Bool
    /// The typed record (for an alias record: built from its facts).
    public var record: BookmarkRecord
    /// The legacy alias record: the input itself, or the one embedded under `0xFE00`.
    public var aliasRecord: AliasRecord?
    /// Why the embedded alias record (`0xFE00`) could not be decoded, if it could not.
    public var aliasRecordError: BookmarkFormatError?
    /// How many bytes follow the bookmark data, whose header says where it ends (bookmark data
    /// only, after base64 decoding for text; 0 for the other containers). Decoding reads the first
    /// bookmark and nothing after it: a caller that rewrites the input (a refresh) must not, or
    /// the rest is lost.
    public var trailingByteCount = 0
    /// How many bookmarks the input holds when what follows the first is more bookmark data
    /// stored back to back (a library file, as `Bookmark.resolveAll(storedIn:)` reads it, made by
    /// appending each bookmark's data); `nil` when nothing follows the first, or something that is
    /// not framed as bookmark data.
    public var storedBookmarkCount: Int?

    /// Recognises and decodes `bytes`.
    ///
    /// Order: the alias-file magic, the `book` magic, an alias-record header (version 2 or 3
    /// with a plausible size), and finally base64 text (whitespace ignored) holding one of these.
    /// - Throws: ``BookmarkFormatError`` from the decoder of the recognised container, or
    ///   `badMagic` when nothing matches.
    public init(decoding bytes: [UInt8], limits: BookmarkDecodingLimits = .default) throws(BookmarkFormatError) {
        try self.init(decoding: bytes, limits: limits, allowBase64: true)
    }

    init(decoding bytes: [UInt8], limits: BookmarkDecodingLimits, allowBase64: Bool) throws(BookmarkFormatError) {
        guard bytes.count <= limits.maxInputSize else {
            throw BookmarkFormatError(.sizeLimitExceeded(size: bytes.count, limit: limits.maxInputSize), at: 0)
        }
        wasBase64 = false
        aliasRecordError = nil
        if AliasFile.hasMagic(bytes) {
            container = .aliasFile
            record = BookmarkRecord(document: try AliasFile(decoding: bytes, limits: limits).bookmark)
        } else if bytes.count >= 4, Array(bytes[0..<4]) == BookmarkDocument.magic {
            container = .bookmarkData
            record = try BookmarkRecord(decoding: bytes, limits: limits)
            // Decoding checked that the header's length (bytes 4-7) is within the input.
            let length = bytes.count >= StoredBookmarks.shortest
                ? bytes.withUnsafeBytes { StoredBookmarks.header($0, at: 0).length } : bytes.count
            trailingByteCount = bytes.count - length
            if trailingByteCount > 0 { storedBookmarkCount = StoredBookmarks.count(bytes, limits: limits) }
        } else if AliasRecord.looksLikeAliasRecord(bytes) {
            container = .aliasRecord
            let alias = try AliasRecord(decoding: bytes, limits: limits)
            let size = Int(UInt16(bytes[4]) << 8 | UInt16(bytes[5]))
            aliasRecord = alias
            record = BookmarkRecord(aliasRecord: alias, originalBytes: Array(bytes.prefix(size)))
            return
        } else if allowBase64, let decoded = Base64.decode(bytes), BookmarkSource.hasKnownSignature(decoded) {
            self = try BookmarkSource(decoding: decoded, limits: limits, allowBase64: false)
            wasBase64 = true
            return
        } else {
            throw BookmarkFormatError(.badMagic(found: Array(bytes.prefix(16))), at: 0)
        }
        if let data = record.aliasData {
            switch Result(catching: { () throws(BookmarkFormatError) -> AliasRecord in
                try AliasRecord(decoding: data, limits: limits)
            }) {
            case .success(let a): aliasRecord = a
            case .failure(let e): aliasRecordError = e
            }
        }
    }
}

extension BookmarkSource {
    /// Whether `bytes` start like one of the containers (used to accept base64 text only when
    /// it decodes to something recognisable).
    static func hasKnownSignature(_ bytes: [UInt8]) -> Bool {
        AliasFile.hasMagic(bytes) || (bytes.count >= 4 && Array(bytes[0..<4]) == BookmarkDocument.magic)
            || AliasRecord.looksLikeAliasRecord(bytes)
    }
}

/// A strict base64 decoder (standard alphabet, `=` padding, whitespace ignored).
enum Base64 {
    static func decode(_ text: [UInt8]) -> [UInt8]? {
        var values: [UInt8] = []
        values.reserveCapacity(text.count)
        var padding = 0
        for c in text {
            switch c {
            case 0x20, 0x09, 0x0A, 0x0D: continue
            case UInt8(ascii: "="): padding += 1; continue
            default: break
            }
            guard padding == 0 else { return nil }
            let v: UInt8
            switch c {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): v = c - UInt8(ascii: "A")
            case UInt8(ascii: "a")...UInt8(ascii: "z"): v = c - UInt8(ascii: "a") + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): v = c - UInt8(ascii: "0") + 52
            case UInt8(ascii: "+"), UInt8(ascii: "-"): v = 62
            case UInt8(ascii: "/"), UInt8(ascii: "_"): v = 63
            default: return nil
            }
            values.append(v)
        }
        guard !values.isEmpty, padding <= 2, values.count % 4 != 1 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(values.count * 3 / 4)
        var i = 0
        while i + 4 <= values.count {
            let n = UInt32(values[i]) << 18 | UInt32(values[i + 1]) << 12 | UInt32(values[i + 2]) << 6 | UInt32(values[i + 3])
            out += [UInt8(n >> 16), UInt8(truncatingIfNeeded: n >> 8), UInt8(truncatingIfNeeded: n)]
            i += 4
        }
        let rest = values.count - i
        if rest == 2 {
            out.append(values[i] << 2 | values[i + 1] >> 4)
        } else if rest == 3 {
            out.append(values[i] << 2 | values[i + 1] >> 4)
            out.append(values[i + 1] << 4 | values[i + 2] >> 2)
        }
        return out
    }

    static func encode(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        var out: [UInt8] = []
        var i = 0
        while i < bytes.count {
            let b0 = UInt32(bytes[i])
            let b1 = i + 1 < bytes.count ? UInt32(bytes[i + 1]) : 0
            let b2 = i + 2 < bytes.count ? UInt32(bytes[i + 2]) : 0
            let n = b0 << 16 | b1 << 8 | b2
            out.append(alphabet[Int(n >> 18 & 63)])
            out.append(alphabet[Int(n >> 12 & 63)])
            out.append(i + 1 < bytes.count ? alphabet[Int(n >> 6 & 63)] : UInt8(ascii: "="))
            out.append(i + 2 < bytes.count ? alphabet[Int(n & 63)] : UInt8(ascii: "="))
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }
}
