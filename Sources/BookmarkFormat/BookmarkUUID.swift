// SPDX-License-Identifier: Apache-2.0
// BookmarkFormat: 16-byte UUID items.

/// A UUID item (`0x0801`): 16 raw bytes.
///
/// Note that Apple stores the volume UUID (`0x2011`) as an upper-case *string*, not as this
/// item type; this type is for UUID items found elsewhere.
public struct BookmarkUUID: Sendable, Hashable, CustomStringConvertible {
    /// The 16 bytes, in storage order.
    public private(set) var bytes: [UInt8]

    /// Creates a UUID from exactly 16 bytes; `nil` for any other length.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// Parses the textual form `XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX` (either case).
    public init?(string: String) {
        var out: [UInt8] = []
        var pending: UInt8? = nil
        var count = 0
        for (i, ch) in string.utf8.enumerated() {
            if ch == UInt8(ascii: "-") {
                guard [8, 13, 18, 23].contains(i) else { return nil }
                continue
            }
            let v: UInt8
            switch ch {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): v = ch - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): v = ch - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): v = ch - UInt8(ascii: "A") + 10
            default: return nil
            }
            count += 1
            if let hi = pending { out.append(hi << 4 | v); pending = nil } else { pending = v }
        }
        guard count == 32, string.utf8.count == 36, out.count == 16 else { return nil }
        self.bytes = out
    }

    /// The upper-case textual form Apple uses, e.g. `8A829A03-9B24-4085-8051-18978712E4BE`.
    public var uppercaseString: String {
        let digits: StaticString = "0123456789ABCDEF"
        return String(unsafeUninitializedCapacity: 36) { buffer in
            var n = 0
            digits.withUTF8Buffer { hex in
                for (i, b) in bytes.enumerated() {
                    if i == 4 || i == 6 || i == 8 || i == 10 {
                        buffer[n] = UInt8(ascii: "-")
                        n += 1
                    }
                    buffer[n] = hex[Int(b >> 4)]
                    buffer[n + 1] = hex[Int(b & 0x0F)]
                    n += 2
                }
            }
            return n
        }
    }

    /// The upper-case textual form.
    public var description: String { uppercaseString }
}
