// SPDX-License-Identifier: Apache-2.0
import SystemPackage

/// The process umask, read without changing it.
///
/// `umask(2)` can only *set* the mask (returning the old one), and the mask is shared by every
/// thread, so "set and restore" races with every other thread creating files. The library never
/// calls `umask()`: it creates files restrictively and sets the exact mode with `fchmod`, which
/// the umask does not affect. When the value is needed (for reporting), it is read from the
/// `Umask:` line of `/proc/self/status` (Linux 4.7+).
public enum ProcessUmask {
    /// The current umask, such as `0o022`.
    ///
    /// - Returns: The mask, or `nil` when the kernel does not report it (Linux before 4.7 has no
    ///   `Umask:` line). Nothing failed then, so it is not an error: the value is simply unknown,
    ///   and there is no way to learn it without changing it.
    /// - Throws: ``FileSystemError`` naming `openat` or `read` when `/proc/self/status` cannot be read.
    public static func current() throws(FileSystemError) -> UInt32? {
        let status = try OwnedDescriptor.open("/proc/self/status")
        let text = try status.readToEnd(limit: 1 << 20)
        for line in text.split(separator: UInt8(ascii: "\n")) where line.starts(with: Array("Umask:".utf8)) {
            var value: UInt32 = 0
            var digits = 0
            for byte in line.dropFirst(6) where byte != UInt8(ascii: " ") && byte != UInt8(ascii: "\t") {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "7"), digits < 6 else { break }
                value = value * 8 + UInt32(byte - UInt8(ascii: "0"))
                digits += 1
            }
            return value & 0o777
        }
        return nil
    }
}
