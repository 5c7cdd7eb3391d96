// SPDX-License-Identifier: Apache-2.0
// BookmarkFormat: typed errors for hostile or malformed input.

/// An error raised while decoding or encoding bookmark, alias-file or alias-record bytes.
///
/// Every error says what was wrong (``kind``) and where (``offset``, a byte offset into the
/// input that was handed to the decoder, or `nil` when the problem has no single position).
public struct BookmarkFormatError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Sendable, Hashable {
        /// The input ends before a structure that starts inside it.
        case truncated(needed: Int, available: Int)
        /// The magic bytes at the start are not the expected ones.
        case badMagic(found: [UInt8])
        /// The input is larger than the decoder's size limit.
        case sizeLimitExceeded(size: Int, limit: Int)
        /// A header field has a value that cannot be right.
        case badHeader(field: String, value: UInt64)
        /// An offset points outside the data section.
        case offsetOutOfBounds(UInt32)
        /// An item's length field does not fit its type (for example a 3-byte SInt32).
        case badItemLength(type: UInt32, length: UInt32)
        /// A container refers (directly or indirectly) to itself.
        case cycle(itemOffset: UInt32)
        /// Containers are nested deeper than the limit allows.
        case depthLimitExceeded(limit: Int)
        /// The expanded item tree has more nodes than the limit allows.
        case itemLimitExceeded(limit: Int)
        /// The expanded item tree holds more bytes than the limit allows.
        case expandedSizeLimitExceeded(limit: Int)
        /// A table of contents does not carry the `0xFFFFFFFE` marker.
        case badTOCMarker(UInt32)
        /// TOCs chain to one already read, or there are more than the limit allows.
        case tocChain(reason: String)
        /// Two TOCs share one id.
        case duplicateTOC(id: UInt32)
        /// One TOC names the same key twice.
        case duplicateKey(String)
        /// A string key (bit 31) does not point at a string item.
        case stringKeyNotString(type: UInt32)
        /// A legacy alias record has a version this decoder does not know.
        case unsupportedAliasVersion(UInt16)
        /// A value cannot be represented in the requested encoding.
        case unencodable(String)
        /// The item under one of our string keys does not follow its documented layout (for
        /// example a number longer than 64 bits in the compact Linux facts): the key, then why.
        ///
        /// One string, not two: with a payload larger than the other cases' (24 bytes), Swift
        /// 6.3.1's debug build of `bookmark resolve` crashed on a batch with a failure, switching
        /// on an uninitialised `Result<Resolution, BookmarkError>` tag (valgrind); no unsafe code
        /// is on that path. The CLI's batch tests catch it.
        case malformedValue(String)
    }

    /// What went wrong.
    public var kind: Kind
    /// Byte offset into the decoder's input at which the problem was found, if any.
    public var offset: Int?

    /// Creates an error of the given kind found at `offset`.
    package init(_ kind: Kind, at offset: Int?) {
        self.kind = kind
        self.offset = offset
    }

    /// A one-line human-readable explanation, including the offset.
    public var description: String {
        let whereText = offset.map { " at offset \($0) (0x\(String($0, radix: 16)))" } ?? ""
        return reason + whereText
    }

    /// The explanation without the offset.
    public var reason: String {
        switch kind {
        case .truncated(let needed, let available):
            return "truncated data: needed \(needed) bytes, only \(available) available"
        case .badMagic(let found):
            return "bad magic \(found.map { hex2($0) }.joined())"
        case .sizeLimitExceeded(let size, let limit):
            return "input of \(size) bytes exceeds the limit of \(limit) bytes"
        case .badHeader(let field, let value):
            return "bad header field \(field) = \(value) (0x\(String(value, radix: 16)))"
        case .offsetOutOfBounds(let off):
            return "offset \(off) (0x\(String(off, radix: 16))) points outside the data section"
        case .badItemLength(let type, let length):
            return "item of type 0x\(String(type, radix: 16)) has impossible length \(length)"
        case .cycle(let off):
            return "item at data offset 0x\(String(off, radix: 16)) contains itself (cycle)"
        case .depthLimitExceeded(let limit):
            return "items nested deeper than \(limit) levels"
        case .itemLimitExceeded(let limit):
            return "more than \(limit) items after expanding shared references"
        case .expandedSizeLimitExceeded(let limit):
            return "more than \(limit) bytes of items after expanding shared references"
        case .badTOCMarker(let value):
            return "table of contents marker is 0x\(String(value, radix: 16)), expected 0xfffffffe"
        case .tocChain(let reason):
            return "bad table-of-contents chain: \(reason)"
        case .duplicateTOC(let id):
            return "two tables of contents have id 0x\(String(id, radix: 16))"
        case .duplicateKey(let key):
            return "key \(key) appears twice in one table of contents"
        case .stringKeyNotString(let type):
            return "string key points at an item of type 0x\(String(type, radix: 16)), not a string"
        case .unsupportedAliasVersion(let v):
            return "alias record version \(v) is not 2 or 3"
        case .unencodable(let why):
            return "cannot encode: \(why)"
        case .malformedValue(let reason):
            return "malformed item under \(reason)"
        }
    }
}

/// Lower-case hex digits as ASCII bytes.
let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

/// Two lower-case hex digits for a byte.
func hex2(_ b: UInt8) -> String {
    String(decoding: [hexDigits[Int(b >> 4)], hexDigits[Int(b & 0xF)]], as: UTF8.self)
}
