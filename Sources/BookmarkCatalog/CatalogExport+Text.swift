// SPDX-License-Identifier: Apache-2.0
import Foundation

/// The bytes of an export, appended to in one pass.
struct ExportBuffer {
    /// The export so far (writers that build bytes append to it directly).
    var bytes: [UInt8] = []

    mutating func reserve(_ count: Int) { bytes.reserveCapacity(count) }

    mutating func append(_ text: String) { bytes.append(contentsOf: text.utf8) }

    mutating func append(bytes other: some Sequence<UInt8>) { bytes.append(contentsOf: other) }

    mutating func append(byte: UInt8) { bytes.append(byte) }
}

/// Turning entry fields into text: dates, names that may not be UTF-8, hex and octal.
package enum ExportText {
    // MARK: Bytes that may not be UTF-8

    /// Calls `valid` for each run of valid UTF-8 in `bytes` and `invalid` for each byte that is
    /// not part of one (a stray continuation byte, a truncated or overlong sequence, a surrogate).
    static func forEachRun(_ bytes: [UInt8], valid: (ArraySlice<UInt8>) -> Void, invalid: (UInt8) -> Void) {
        var runStart = 0
        var index = 0
        while index < bytes.count {
            if let length = sequenceLength(bytes, at: index) {
                index += length
                continue
            }
            if runStart < index { valid(bytes[runStart..<index]) }
            invalid(bytes[index])
            index += 1
            runStart = index
        }
        if runStart < bytes.count { valid(bytes[runStart..<bytes.count]) }
    }

    /// The length of the well-formed UTF-8 sequence at `index` (Unicode's table 3-7), or `nil`.
    static func sequenceLength(_ bytes: [UInt8], at index: Int) -> Int? {
        let first = bytes[index]
        if first < 0x80 { return 1 }
        let length: Int
        var secondRange: ClosedRange<UInt8> = 0x80...0xBF
        switch first {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; secondRange = 0xA0...0xBF
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; secondRange = 0x80...0x9F
        case 0xF0: length = 4; secondRange = 0x90...0xBF
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; secondRange = 0x80...0x8F
        default: return nil
        }
        guard index + length <= bytes.count, secondRange.contains(bytes[index + 1]) else { return nil }
        for offset in 2..<max(2, length) where !(0x80...0xBF).contains(bytes[index + offset]) { return nil }
        return length
    }

    /// Whether all of `bytes` is well-formed UTF-8 (no allocation, unlike `String(validating:)`).
    static func isValidUTF8(_ bytes: [UInt8]) -> Bool {
        var index = 0
        while index < bytes.count {
            if bytes[index] < 0x80 {
                index += 1
                continue
            }
            guard let length = sequenceLength(bytes, at: index) else { return false }
            index += length
        }
        return true
    }

    /// Whether every byte is printable ASCII (space to `~`): such a name is its own visible form.
    static func isPrintableASCII(_ bytes: [UInt8]) -> Bool {
        bytes.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
    }

    /// Appends ``text(_:)`` of `bytes` without making a `String`.
    static func appendText(_ bytes: [UInt8], into output: inout [UInt8]) {
        forEachRun(bytes, valid: { output.append(contentsOf: $0) }, invalid: { appendHexEscape($0, into: &output) })
    }

    /// The bytes as text: UTF-8 as it is, every other byte as `\xNN` .
    /// Readable, and ambiguous only for a name that itself holds the characters `\x` and two hex
    /// digits; JSON's base64 twin and TSV are the lossless forms.
    static func text(_ bytes: [UInt8]) -> String {
        if let valid = String(validating: bytes, as: UTF8.self) { return valid }
        var result = ""
        forEachRun(bytes, valid: { result += String(decoding: $0, as: UTF8.self) }, invalid: { result += hexEscape($0) })
        return result
    }

    /// ``text(_:)`` for a person looking at a page or a table: also control characters (`\n`,
    /// `\r`, `\t`, `\xNN`), line and paragraph separators and bidirectional formatting characters
    /// (`\u{202E}`) made visible, so that a name cannot break a line or reorder what is shown
    /// after it (`gpj.exe` shown as `exe.jpg`).
    static func visible(_ bytes: [UInt8]) -> String {
        let plain = text(bytes)
        guard plain.unicodeScalars.contains(where: isInvisible) else { return plain }
        var result = ""
        for scalar in plain.unicodeScalars {
            guard isInvisible(scalar) else {
                result.unicodeScalars.append(scalar)
                continue
            }
            switch scalar.value {
            case 0x0A: result += "\\n"
            case 0x0D: result += "\\r"
            case 0x09: result += "\\t"
            case 0..<0x80: result += hexEscape(UInt8(truncatingIfNeeded: scalar.value))
            default: result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            }
        }
        return result
    }

    private static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0..<0x20, 0x7F...0x9F: true  // C0 and C1 controls, DEL
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true  // bidirectional controls
        case 0x2028, 0x2029: true  // line and paragraph separators
        default: false
        }
    }

    static func hexEscape(_ byte: UInt8) -> String {
        var bytes: [UInt8] = []
        appendHexEscape(byte, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `\xNN`, uppercase.
    static func appendHexEscape(_ byte: UInt8, into output: inout [UInt8]) {
        output.append(0x5C)
        output.append(0x78)
        output.append(hexDigit(byte >> 4, uppercase: true))
        output.append(hexDigit(byte & 0x0F, uppercase: true))
    }

    private static func hexDigit(_ value: UInt8, uppercase: Bool) -> UInt8 {
        value < 10 ? 0x30 + value : (uppercase ? 0x41 : 0x61) + value - 10
    }

    // MARK: Numbers, written as ASCII digits straight into a buffer

    /// Lowercase hex.
    static func appendHex(_ bytes: [UInt8], into output: inout [UInt8]) {
        for byte in bytes {
            output.append(hexDigit(byte >> 4, uppercase: false))
            output.append(hexDigit(byte & 0x0F, uppercase: false))
        }
    }

    /// `value` in base `radix` (2...16), lowercase.
    static func appendDigits(_ value: UInt64, radix: UInt64 = 10, into output: inout [UInt8]) {
        guard value > 0 else {
            output.append(0x30)
            return
        }
        let start = output.count
        var rest = value
        while rest > 0 {
            output.append(hexDigit(UInt8(truncatingIfNeeded: rest % radix), uppercase: false))
            rest /= radix
        }
        output[start...].reverse()
    }

    /// A signed decimal.
    static func appendDecimal(_ value: Int64, into output: inout [UInt8]) {
        if value < 0 { output.append(0x2D) }
        appendDigits(value.magnitude, into: &output)
    }

    /// A decimal of at least `width` digits, zeros in front (`value` ≥ 0).
    static func appendPadded(_ value: Int64, width: Int, into output: inout [UInt8]) {
        // Digits written from the right into zeros: every date field goes through here, six per
        // time, and appending then inserting the padding cost more than the arithmetic.
        var rest = value.magnitude
        var count = 1
        var probe = rest / 10
        while probe > 0 {
            count += 1
            probe /= 10
        }
        let total = max(width, count)
        let start = output.count
        for _ in 0..<total { output.append(0x30) }
        var index = start + total - 1
        repeat {
            output[index] = 0x30 + UInt8(truncatingIfNeeded: rest % 10)
            rest /= 10
            index -= 1
        } while rest > 0
    }

    // MARK: Dates

    /// ISO 8601 in UTC (`2024-05-01T12:34:56.5Z`) of a time in nanoseconds since 1970: the
    /// fraction as long as it needs to be (none for a whole second), every nanosecond kept.
    static func iso8601(nanoseconds: Int64) -> String {
        var bytes: [UInt8] = []
        appendISO8601(nanoseconds: nanoseconds, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// ISO 8601 in UTC of a `Date`, to the millisecond (scan times are recorded as floating-point
    /// seconds, whose last digits are noise); empty for a date too far off to be a time.
    static func iso8601(_ date: Date) -> String {
        var bytes: [UInt8] = []
        appendISO8601(date, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    static func appendISO8601(nanoseconds: Int64, into output: inout [UInt8]) {
        // Floor division, so that times before 1970 count down from the second before.
        var seconds = nanoseconds / 1_000_000_000
        var fraction = nanoseconds % 1_000_000_000
        if fraction < 0 {
            seconds -= 1
            fraction += 1_000_000_000
        }
        appendISO8601(seconds: seconds, nanoseconds: fraction, into: &output)
    }

    static func appendISO8601(_ date: Date, into output: inout [UInt8]) {
        let interval = date.timeIntervalSince1970
        guard interval.isFinite, abs(interval) < 1e14 else { return }
        let whole = Int64((interval * 1000).rounded())
        var seconds = whole / 1000
        var fraction = whole % 1000
        if fraction < 0 {
            seconds -= 1
            fraction += 1000
        }
        appendISO8601(seconds: seconds, nanoseconds: fraction * 1_000_000, into: &output)
    }

    /// `date` in UTC to the whole second (`2026-11-27T05:37:16Z`), exactly as
    /// `ISO8601DateFormatter()` writes it by default (rounded to the millisecond, then the
    /// fraction dropped, counting down before 1970), without making one: each new formatter builds
    /// an ICU formatter, about 0.15 ms, and `bookmark catalog find` made one per hit (a million
    /// hits took minutes). The `bookmark` command prints times so.
    package static func iso8601Seconds(_ date: Date) -> String {
        let interval = date.timeIntervalSince1970
        // 1583 to 9999 only: before the Gregorian reform the formatter counts Julian days, and
        // it answers those (and anything not finite) as it does.
        guard interval.isFinite, interval >= -12_212_553_600, interval < 253_402_300_799 else {
            return ISO8601DateFormatter().string(from: date)
        }
        let milliseconds = Int64((interval * 1000).rounded())
        var seconds = milliseconds / 1000
        if milliseconds % 1000 < 0 { seconds -= 1 }
        var text: [UInt8] = []
        text.reserveCapacity(20)
        appendISO8601(seconds: seconds, nanoseconds: 0, into: &text)
        return String(decoding: text, as: UTF8.self)
    }

    /// `seconds` since 1970 with `nanoseconds` (0..<1e9) as ISO 8601 in UTC.
    static func appendISO8601(seconds: Int64, nanoseconds: Int64, into output: inout [UInt8]) {
        var days = seconds / 86_400
        var secondOfDay = seconds % 86_400
        if secondOfDay < 0 {
            days -= 1
            secondOfDay += 86_400
        }
        let (year, month, day) = civil(fromDays: days)
        if year < 0 { output.append(0x2D) }
        appendPadded(abs(year), width: 4, into: &output)
        output.append(0x2D)
        appendPadded(month, width: 2, into: &output)
        output.append(0x2D)
        appendPadded(day, width: 2, into: &output)
        output.append(0x54)
        appendPadded(secondOfDay / 3600, width: 2, into: &output)
        output.append(0x3A)
        appendPadded(secondOfDay / 60 % 60, width: 2, into: &output)
        output.append(0x3A)
        appendPadded(secondOfDay % 60, width: 2, into: &output)
        if nanoseconds > 0 {
            output.append(0x2E)
            var fraction = nanoseconds
            var width = 9
            while fraction % 10 == 0 {
                fraction /= 10
                width -= 1
            }
            appendPadded(fraction, width: width, into: &output)
        }
        output.append(0x5A)
    }

    /// The proleptic Gregorian date of a day count from 1970-01-01 (the well-known era-based
    /// conversion: 400-year eras of 146,097 days, years starting in March).
    static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
