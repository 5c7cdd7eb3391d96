// SPDX-License-Identifier: Apache-2.0
// BookmarkFormat: Mac OS Roman, the encoding of classic alias-record names.

/// Decoding of Mac OS Roman bytes (used by the Pascal strings of `alis` records).
enum MacRoman {
    /// The characters for bytes 0x80…0xFF.
    static let high: [Character] = Array(
        "ÄÅÇÉÑÖÜáàâäãåçéèêëíìîïñóòôöõúùûü†°¢£§•¶ß®©™´¨≠ÆØ∞±≤≥¥µ∂∑∏π∫ªºΩæø"
            + "¿¡¬√ƒ≈∆«»…\u{00A0}ÀÃÕŒœ–—“”‘’÷◊ÿŸ⁄€‹›ﬁﬂ‡·‚„‰ÂÊÁËÈÍÎÏÌÓÔ\u{F8FF}ÒÚÛÙıˆ˜¯˘˙˚¸˝˛ˇ")

    /// Decodes Mac OS Roman bytes to a string (every byte maps to one character).
    static func decode(_ bytes: [UInt8]) -> String {
        var s = ""
        for b in bytes {
            if b < 0x80 { s.unicodeScalars.append(Unicode.Scalar(b)) } else if Int(b) - 0x80 < high.count {
                s.append(high[Int(b) - 0x80])
            }
        }
        return s
    }

    /// Encodes to Mac OS Roman; characters without a Mac OS Roman byte become `?`.
    static func encode(_ string: String) -> [UInt8] {
        var out: [UInt8] = []
        for ch in string {
            if let a = ch.asciiValue { out.append(a); continue }
            if let i = high.firstIndex(of: ch) { out.append(UInt8(0x80 + i)) } else { out.append(UInt8(ascii: "?")) }
        }
        return out
    }
}
