// SPDX-License-Identifier: Apache-2.0
// BookmarkFormat: the typed items of Apple's `book` layout.

/// One value in bookmark data: every item type of Apple's `book` layout, plus
/// ``unknown(type:payload:)`` for types this codec does not know, kept verbatim so that decoding
/// then encoding loses nothing.
public indirect enum BookmarkItem: Sendable, Hashable {
    /// `0x0101`: a string (UTF-8 as Apple writes it; any bytes are kept).
    case string(ByteString)
    /// `0x0201`: opaque data.
    case data([UInt8])
    /// `0x03NN`: a number with its CFNumber subtype.
    case number(BookmarkNumber)
    /// `0x0400`: a date (big-endian float64 seconds since 2001).
    case date(BookmarkDate)
    /// `0x0500` (false) / `0x0501` (true).
    case bool(Bool)
    /// `0x0601`: an array of items.
    case array([BookmarkItem])
    /// `0x0701`: a dictionary, as ordered key/value pairs (keys may be any item).
    case dictionary([BookmarkDictionaryEntry])
    /// `0x0801`: a 16-byte UUID.
    case uuid(BookmarkUUID)
    /// `0x0901`: an absolute URL string.
    case url(ByteString)
    /// `0x0902`: a relative URL: a base URL item and a relative string item.
    case relativeURL(base: BookmarkItem, relative: BookmarkItem)
    /// `0x0A01`: null (an unknown file ID in `0x1005`).
    case null
    /// An item of a type this codec does not interpret: its type word and payload, verbatim.
    case unknown(type: UInt32, payload: [UInt8])

    // MARK: - Type codes

    /// Item type words as stored (little-endian u32 after the length).
    package enum TypeCode: Sendable {
        /// UTF-8 string.
        package static let string: UInt32 = 0x0101
        /// Data.
        package static let data: UInt32 = 0x0201
        /// Number base; the low byte is the CFNumber subtype.
        package static let numberBase: UInt32 = 0x0300
        /// Date.
        package static let date: UInt32 = 0x0400
        /// Boolean false.
        package static let boolFalse: UInt32 = 0x0500
        /// Boolean true.
        package static let boolTrue: UInt32 = 0x0501
        /// Array.
        package static let array: UInt32 = 0x0601
        /// Dictionary.
        package static let dictionary: UInt32 = 0x0701
        /// UUID.
        package static let uuid: UInt32 = 0x0801
        /// Absolute URL.
        package static let url: UInt32 = 0x0901
        /// Relative URL.
        package static let relativeURL: UInt32 = 0x0902
        /// Null.
        package static let null: UInt32 = 0x0A01
    }

    /// The type word this item is written with.
    package var typeCode: UInt32 {
        switch self {
        case .string: return TypeCode.string
        case .data: return TypeCode.data
        case .number(let n): return TypeCode.numberBase | UInt32(n.subtype)
        case .date: return TypeCode.date
        case .bool(let b): return b ? TypeCode.boolTrue : TypeCode.boolFalse
        case .array: return TypeCode.array
        case .dictionary: return TypeCode.dictionary
        case .uuid: return TypeCode.uuid
        case .url: return TypeCode.url
        case .relativeURL: return TypeCode.relativeURL
        case .null: return TypeCode.null
        case .unknown(let type, _): return type
        }
    }

    /// A short type name for dumps, e.g. `"string"`, `"sint64"`, `"array"`.
    public var typeName: String {
        switch self {
        case .string: return "string"
        case .data: return "data"
        case .number(let n): return n.subtypeName
        case .date: return "date"
        case .bool: return "bool"
        case .array: return "array"
        case .dictionary: return "dictionary"
        case .uuid: return "uuid"
        case .url: return "url"
        case .relativeURL: return "relativeURL"
        case .null: return "null"
        case .unknown(let t, _): return "unknown(0x\(String(t, radix: 16)))"
        }
    }

    // MARK: - Convenience initialisers and accessors

    /// A string item with the UTF-8 bytes of `s`.
    public static func string(_ s: String) -> BookmarkItem { .string(ByteString(s)) }
    /// An SInt64 number item, as Apple writes file IDs and capacities.
    public static func int64(_ v: Int64) -> BookmarkItem { .number(.sint64(v)) }
    /// An SInt32 number item, as Apple writes creation options and uids.
    public static func int32(_ v: Int32) -> BookmarkItem { .number(.sint32(v)) }

    /// The bytes of a string item, else `nil`.
    public var byteString: ByteString? {
        if case .string(let s) = self { return s }
        return nil
    }
    /// The text of a valid-UTF-8 string or URL item, else `nil`.
    public var stringValue: String? {
        switch self {
        case .string(let s), .url(let s): return s.string
        default: return nil
        }
    }
    /// The integer value of a number item, else `nil`.
    public var integerValue: Int64? {
        if case .number(let n) = self { return n.integerValue }
        return nil
    }
    /// The value of a boolean item, else `nil`.
    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }
    /// The value of a date item, else `nil`.
    public var dateValue: BookmarkDate? {
        if case .date(let d) = self { return d }
        return nil
    }
    /// The bytes of a data item, else `nil`.
    public var dataValue: [UInt8]? {
        if case .data(let d) = self { return d }
        return nil
    }
    /// The elements of an array item, else `nil`.
    public var arrayValue: [BookmarkItem]? {
        if case .array(let a) = self { return a }
        return nil
    }
    /// Whether this is the null item.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}

/// One key/value pair of a dictionary item.
public struct BookmarkDictionaryEntry: Sendable, Hashable {
    /// The key item (usually a string).
    public var key: BookmarkItem
    /// The value item.
    public var value: BookmarkItem
    /// Creates a pair.
    public init(key: BookmarkItem, value: BookmarkItem) {
        self.key = key
        self.value = value
    }
}
