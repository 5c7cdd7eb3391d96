// SPDX-License-Identifier: Apache-2.0
import Foundation
import SecureFiles

/// Exact path bytes in and out of Foundation's `URL`, for every module above this one that speaks
/// `URL` (BookmarkFoundation, Documents, the `bookmark` command).
///
/// A UTF-8 path makes the usual `URL(fileURLWithPath:isDirectory:)`. Foundation on Linux cannot
/// carry other bytes in a path (`URL(fileURLWithFileSystemRepresentation:…)` replaces them with
/// U+FFFD, naming another file), so such a path is percent-encoded byte by byte
/// (`file:///tmp/caf%E9.txt`). The bytes are read back from the percent-encoded path, never from
/// `path` or `withUnsafeFileSystemRepresentation`, which are lossy (or empty) for it.
package enum FileURLPaths {
    /// A `file://` URL for raw path bytes.
    package static func url(bytes: [UInt8], isDirectory: Bool) -> URL {
        // The NUL test on the bytes: `String.contains` with Foundation imported is NSString's
        // `range(of:)`, which was a tenth of URL(resolvingBookmarkData:) on an unmoved file.
        if !bytes.contains(0), let text = String(validating: bytes, as: UTF8.self) {
            return URL(fileURLWithPath: text, isDirectory: isDirectory)
        }
        // A relative path is percent-encoded relative to the working directory, as
        // `URL(fileURLWithPath:)` makes a relative UTF-8 path.
        let relative = bytes.first != UInt8(ascii: "/")
        var encoded = relative ? "" : "file://"
        for byte in bytes {
            if unreserved.contains(byte) {
                encoded.append(Character(Unicode.Scalar(byte)))
            } else {
                encoded += "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
            }
        }
        if isDirectory, encoded.last != "/" { encoded += "/" }
        let base = relative ? URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true) : nil
        return URL(string: encoded, relativeTo: base)
            ?? URL(fileURLWithPath: String(decoding: bytes, as: UTF8.self), isDirectory: isDirectory)
    }

    /// The exact path bytes of a `file:` URL (made absolute against the working directory), or
    /// `nil` for another scheme, an empty path or a malformed `%XX`.
    package static func bytes(of url: URL) -> [UInt8]? {
        guard url.isFileURL, let bytes = percentDecoded(url.absoluteURL.path(percentEncoded: true)), !bytes.isEmpty else {
            return nil
        }
        return bytes
    }

    /// `%XX` sequences replaced by their bytes; `nil` when a sequence is malformed.
    package static func percentDecoded(_ text: String) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        // Most paths have nothing encoded: then the bytes are the text's.
        guard utf8.contains(UInt8(ascii: "%")) else { return utf8 }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var iterator = utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    private static let unreserved = Set(Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/".utf8))

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
