// SPDX-License-Identifier: Apache-2.0
// BookmarkFormat: dates as Apple stores them.

/// A date item (`0x0400`): seconds since 2001-01-01 00:00:00 UTC (CFAbsoluteTime), stored as
/// a **big-endian** float64.
///
/// Compares by bit pattern, so every stored value round-trips exactly.
public struct BookmarkDate: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Seconds between 1970-01-01 and 2001-01-01.
    public static let unixToReferenceOffset: Double = 978_307_200
    /// Seconds between 1904-01-01 (the classic Mac OS epoch) and 2001-01-01.
    public static let macToReferenceOffset: Double = 3_061_152_000

    /// Seconds since 2001-01-01 00:00:00 UTC.
    public var secondsSinceReferenceDate: Double

    /// Creates a date from seconds since 2001-01-01 UTC.
    public init(secondsSinceReferenceDate: Double) {
        self.secondsSinceReferenceDate = secondsSinceReferenceDate
    }

    /// Creates a date from seconds since 1970-01-01 UTC.
    public init(unixSeconds: Double) {
        self.secondsSinceReferenceDate = unixSeconds - Self.unixToReferenceOffset
    }

    /// Seconds since 1970-01-01 UTC.
    public var unixSeconds: Double { secondsSinceReferenceDate + Self.unixToReferenceOffset }

    /// Compares bit patterns.
    public static func == (l: BookmarkDate, r: BookmarkDate) -> Bool {
        l.secondsSinceReferenceDate.bitPattern == r.secondsSinceReferenceDate.bitPattern
    }

    /// Hashes the bit pattern.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(secondsSinceReferenceDate.bitPattern)
    }

    /// Orders by value.
    public static func < (l: BookmarkDate, r: BookmarkDate) -> Bool {
        l.secondsSinceReferenceDate < r.secondsSinceReferenceDate
    }

    /// An ISO 8601 UTC rendering such as `2020-07-13T09:44:03.000Z`, or the raw number for
    /// values out of range.
    public var description: String { iso8601 ?? "\(secondsSinceReferenceDate)" }

    /// ISO 8601 in UTC with milliseconds, or `nil` when the value is not finite or is outside
    /// years 1…9999.
    public var iso8601: String? {
        let unix = unixSeconds
        guard unix.isFinite, unix > -62_135_596_800, unix < 253_402_300_800 else { return nil }
        // Floor without libm (Foundation-free targets do not link it).
        var secs = Int64(unix)
        if Double(secs) > unix { secs -= 1 }
        var millis = Int64((unix - Double(secs)) * 1000 + 0.5)
        if millis == 1000 { millis = 0; secs += 1 }
        let days = secs >= 0 ? secs / 86400 : (secs - 86399) / 86400
        let rem = secs - days * 86400
        let (y, m, d) = Self.civil(fromDays: days)
        func pad(_ v: Int64, _ n: Int) -> String {
            let s = String(v); return String(repeating: "0", count: max(0, n - s.count)) + s
        }
        return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T\(pad(rem / 3600, 2)):\(pad(rem % 3600 / 60, 2)):"
            + "\(pad(rem % 60, 2)).\(pad(millis, 3))Z"
    }

    /// Days since 1970-01-01 to a proleptic Gregorian (year, month, day).
    static func civil(fromDays z0: Int64) -> (Int64, Int64, Int64) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (m <= 2 ? y + 1 : y, m, d)
    }
}
