// SPDX-License-Identifier: Apache-2.0
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// A path as the kernel sees it: raw bytes, never decoded.
///
/// Linux file names need not be UTF-8, and swift-system's `FilePath` normalises what it is given
/// (it collapses `//` and drops a trailing `/`). `PathBytes` keeps exactly the bytes a path was
/// made from, so a name read from a directory, recorded in a bookmark and printed for a program
/// comes back byte for byte. It is the one type for byte paths in every layer of the package:
/// the path-manipulating free functions of earlier versions (`pathBytes`, `escapedBytes`,
/// `parentBytes`, …) are its members.
///
/// ```swift
/// let path = PathBytes([0x2F, 0x74, 0x6D, 0x70, 0x2F, 0x63, 0x61, 0x66, 0xE9])   // "/tmp/caf\xe9"
/// path.parent          // "/tmp"
/// path.lastComponent   // [0x63, 0x61, 0x66, 0xE9]
/// path.escaped         // "/tmp/caf\\xe9", for a message to a person
/// path.filePath        // for APIs that take a FilePath (lossless)
/// ```
///
/// Equality compares the bytes (`/a/` and `/a` differ); use ``normalized`` first to compare
/// paths as the kernel would resolve them lexically.
public struct PathBytes: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The bytes of the path, without a terminating NUL.
    public var bytes: [UInt8]

    /// A path made of exactly these bytes.
    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// A path made of these bytes.
    public init(_ bytes: ArraySlice<UInt8>) { self.bytes = Array(bytes) }

    /// The bytes of `path`, losslessly (a non-UTF-8 name keeps its bytes).
    public init(_ path: FilePath) {
        bytes = path.withPlatformString { cStringBytes($0) }
    }

    /// The UTF-8 bytes of `string`.
    public init(_ string: String) { bytes = Array(string.utf8) }

    /// The UTF-8 bytes of a literal.
    public init(stringLiteral value: String) { self.init(value) }

    /// `/`.
    public static let root = PathBytes([UInt8(ascii: "/")])

    // MARK: Conversions

    /// The same path as a `FilePath`, for APIs that take one. Lossless, but a `FilePath` is
    /// normalised (`//` collapsed, a trailing `/` dropped).
    public var filePath: FilePath {
        withCName(bytes) { FilePath(platformString: $0) }
    }

    /// The path for a person to read: printable UTF-8 as it is, every other byte (invalid UTF-8,
    /// control characters) as `\xNN`, and `\` and `"` escaped with a backslash, so that two
    /// different paths never read the same. Not for programs: print ``bytes`` to them.
    public var escaped: String { Self.escape(bytes) }

    /// The path decoded as UTF-8, with U+FFFD for every byte that is not valid UTF-8 (lossy).
    public var lossyString: String { String(decoding: bytes, as: UTF8.self) }

    /// The path as a `String` if it is valid UTF-8, else `nil`.
    public var validString: String? { String(validating: bytes, as: UTF8.self) }

    /// ``escaped``.
    public var description: String { escaped }

    /// Equality with one `memcmp`: on the resolution of an unmoved bookmark every path is compared
    /// with the recorded one, and `Array`'s element loop profiled at a sixth of its instructions.
    public static func == (lhs: PathBytes, rhs: PathBytes) -> Bool {
        guard lhs.bytes.count == rhs.bytes.count else { return false }
        return lhs.bytes.withUnsafeBytes { left in
            rhs.bytes.withUnsafeBytes { right in
                guard let l = left.baseAddress, let r = right.baseAddress else { return true }
                return memcmp(l, r, left.count) == 0
            }
        }
    }

    /// Hashes the bytes.
    public func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }

    // MARK: Shape

    /// Whether the path is empty (no bytes at all; not a valid path for the kernel).
    public var isEmpty: Bool { bytes.isEmpty }

    /// Whether the path starts with `/`.
    public var isAbsolute: Bool { bytes.first == Self.slash }

    /// Whether the path holds a NUL byte (the kernel would read a different, shorter path, so
    /// every call refuses such a path with `EINVAL`).
    public var containsNUL: Bool {
        bytes.withUnsafeBytes { raw in raw.baseAddress.map { memchr($0, 0, raw.count) != nil } ?? false }
    }

    /// Whether the path is in the form the kernel prints (`/proc/self/fd`, `getcwd`): `/`, then
    /// components separated by single slashes, none of them `.` or `..`, and no trailing slash.
    /// `/` alone is normal.
    public var isNormalAbsolute: Bool {
        // Through the buffer, component by component: each checked subscript of the array cost
        // a bounds check per byte, and creation asks this twice per call (about 2.5 % of
        // `url.bookmarkData()`'s samples, perf, Docs/PERFORMANCE.md).
        bytes.withUnsafeBufferPointer { b in
            let n = b.count
            guard n > 0, b[0] == Self.slash else { return false }
            if n == 1 { return true }
            guard b[n - 1] != Self.slash else { return false }
            let dot = UInt8(ascii: ".")
            // `i` is where a component starts: after a slash, never at the end (no trailing slash).
            var i = 1
            while i < n {
                if b[i] == Self.slash { return false }  // an empty component: `//`
                if b[i] == dot {
                    let next = i + 1
                    if next == n || b[next] == Self.slash { return false }  // `.`
                    if b[next] == dot, next + 1 == n || b[next + 1] == Self.slash { return false }  // `..`
                }
                var j = i + 1
                while j < n, b[j] != Self.slash { j += 1 }
                i = j + 1
            }
            return true
        }
    }

    // MARK: Components

    /// The non-empty components, in order (`/a//b/` gives `a`, `b`; `/` gives none). `.` and `..`
    /// are kept: this is lexical, not resolution.
    public var components: [[UInt8]] {
        // A plain scan: `split(separator:)` then `map(Array.init)` profiled at a tenth of a bookmark creation.
        var components: [[UInt8]] = []
        components.reserveCapacity(16)
        bytes.withUnsafeBufferPointer { buffer in
            var start = 0
            for index in 0...buffer.count where index == buffer.count || buffer[index] == Self.slash {
                if index > start { components.append(Array(buffer[start..<index])) }
                start = index + 1
            }
        }
        return components
    }

    /// The last component (`nil` for `/` or an empty path); trailing slashes are ignored.
    public var lastComponent: [UInt8]? {
        var end = bytes.count
        while end > 0, bytes[end - 1] == Self.slash { end -= 1 }
        guard end > 0 else { return nil }
        var start = end
        while start > 0, bytes[start - 1] != Self.slash { start -= 1 }
        return Array(bytes[start..<end])
    }

    /// The directory that holds the last component, lexically: `/a/b` → `/a`, `/a` → `/`,
    /// `a` → `.`, `a/b//` → `a`, `/` → `/`.
    public var parent: PathBytes {
        // Fast path for the normal form (no "//", no trailing "/"): cut at the last slash.
        if bytes.count > 1, bytes.last != Self.slash, let cut = bytes.lastIndex(of: Self.slash),
            !hasDoubleSlash
        {
            return cut == 0 ? .root : PathBytes(bytes[..<cut])
        }
        var parts = components
        guard !parts.isEmpty else { return isAbsolute ? .root : PathBytes([UInt8(ascii: ".")]) }
        parts.removeLast()
        if parts.isEmpty { return isAbsolute ? .root : PathBytes([UInt8(ascii: ".")]) }
        return PathBytes(components: parts, absolute: isAbsolute)
    }

    /// A path joined from `components` with single slashes, starting with `/` when `absolute`
    /// (`/` for no components and absolute; `.` for none and relative).
    public init(components: [[UInt8]], absolute: Bool = true) {
        if components.isEmpty {
            self.init(absolute ? [Self.slash] : [UInt8(ascii: ".")])
            return
        }
        var count = 0
        for component in components { count += 1 + component.count }
        var path: [UInt8] = []
        path.reserveCapacity(count)
        for (index, component) in components.enumerated() {
            if absolute || index > 0 { path.append(Self.slash) }
            path.append(contentsOf: component)
        }
        self.init(path)
    }

    /// The path of the entry `name` inside this directory (`/` + `x` is `/x`, not `//x`).
    public func appending(_ name: [UInt8]) -> PathBytes {
        if bytes == [Self.slash] { return PathBytes([Self.slash] + name) }
        var path = bytes
        path.reserveCapacity(bytes.count + 1 + name.count)
        if path.last != Self.slash { path.append(Self.slash) }
        path.append(contentsOf: name)
        return PathBytes(path)
    }

    /// The path of `relative` beneath this directory (its components appended one by one).
    public func appending(_ relative: PathBytes) -> PathBytes {
        relative.components.reduce(self) { $0.appending($1) }
    }

    /// `/`, then every ancestor directory of this absolute path down to the path itself:
    /// `/a/b` gives `/`, `/a`, `/a/b`.
    public var selfAndAncestorsFromRoot: [PathBytes] {
        var prefixes: [PathBytes] = [.root]
        var index = 1
        while index <= bytes.count {
            if index == bytes.count || bytes[index] == Self.slash {
                if index > 1 { prefixes.append(PathBytes(bytes[0..<index])) }
            }
            index += 1
        }
        return prefixes
    }

    /// Whether this path is `directory` or lies beneath it, comparing components (so `/ab` is
    /// not beneath `/a`). Lexical: symlinks and `..` are not resolved.
    public func isWithin(_ directory: PathBytes) -> Bool {
        let mine = components
        let theirs = directory.components
        guard isAbsolute == directory.isAbsolute, mine.count >= theirs.count else { return false }
        return zip(mine, theirs).allSatisfy { $0 == $1 }
    }

    /// The path with empty and `.` components dropped and `..` applied lexically (a `..` above `/`
    /// stays at `/`). Symlinks are not resolved.
    public var normalized: PathBytes {
        var out: [[UInt8]] = []
        var leadingParents = 0
        for component in components {
            if component == [UInt8(ascii: ".")] { continue }
            if component == [UInt8(ascii: "."), UInt8(ascii: ".")] {
                if !out.isEmpty {
                    out.removeLast()
                } else if !isAbsolute {
                    leadingParents += 1
                }
                continue
            }
            out.append(component)
        }
        let prefix = Array(repeating: [UInt8(ascii: "."), UInt8(ascii: ".")], count: leadingParents)
        return PathBytes(components: prefix + out, absolute: isAbsolute)
    }

    // MARK: Internals

    static let slash = UInt8(ascii: "/")

    package var hasDoubleSlash: Bool { contains(Self.doubleSlash) }

    static let doubleSlash: [UInt8] = [slash, slash]

    /// Whether `needle` occurs in the path's bytes (`memmem`: a resolution's result asks this
    /// of two paths, and a byte loop with bounds checks profiled at a fortieth of a moved file's).
    package func contains(_ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, bytes.count >= needle.count else { return needle.isEmpty }
        return bytes.withUnsafeBytes { haystack in
            needle.withUnsafeBytes { pattern in
                guard let base = haystack.baseAddress, let wanted = pattern.baseAddress else { return false }
                return memmem(base, haystack.count, wanted, pattern.count) != nil
            }
        }
    }

    /// See ``escaped``.
    static func escape(_ bytes: [UInt8]) -> String {
        var out = ""
        var index = 0
        while index < bytes.count {
            // Decode one UTF-8 scalar if valid; otherwise escape the byte.
            let lead = bytes[index]
            let length: Int
            switch lead {
            case 0x20..<0x7F: length = 1
            case 0xC2...0xDF: length = 2
            case 0xE0...0xEF: length = 3
            case 0xF0...0xF4: length = 4
            default: length = 0
            }
            if length == 1 {
                if lead == UInt8(ascii: "\\") || lead == UInt8(ascii: "\"") { out += "\\" }
                out.unicodeScalars.append(Unicode.Scalar(lead))
                index += 1
                continue
            }
            if length > 1, index + length <= bytes.count,
                let decoded = String(validating: bytes[index..<index + length], as: UTF8.self),
                decoded.unicodeScalars.allSatisfy({ $0.properties.generalCategory != .control })
            {
                out += decoded
                index += length
                continue
            }
            out += "\\x" + (lead < 16 ? "0" : "") + String(lead, radix: 16)
            index += 1
        }
        return out
    }

    /// Runs `body` with the path as a C string, or fails with `EINVAL` when it holds a NUL byte.
    package func withCString<R>(_ body: (UnsafePointer<CChar>) -> Result<R, Errno>) -> Result<R, Errno> {
        withCPath(bytes, body)
    }
}

extension FilePath {
    /// The path's bytes as a ``PathBytes`` (lossless).
    public var pathBytes: PathBytes { PathBytes(self) }
}
