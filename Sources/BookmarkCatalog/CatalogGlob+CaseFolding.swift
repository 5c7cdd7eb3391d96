// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
    import Glibc
#endif

/// A shell glob compiled once for `fnmatch(3)`, that ignores case (when asked) for names in
/// UTF-8 too. glibc's `FNM_CASEFOLD` folds only ASCII in the C locale: `-i 'éclair*'` did not
/// find `Éclair.txt`. When the pattern or the name is not ASCII and both are valid UTF-8, both are
/// case-folded (each character upper-cased, then lower-cased: `ß` and `SS` meet as `ss`, the
/// Kelvin sign as `k`) and matched; bytes that are not UTF-8 keep `FNM_CASEFOLD`'s ASCII folding.
/// ASCII against ASCII, the common case, costs what it did.
struct FoldingGlob: Sendable {
    /// The pattern as given, NUL-terminated.
    private let pattern: [CChar]
    /// The pattern case-folded (NUL-terminated), when case is ignored and it is valid UTF-8.
    private let folded: [CChar]?
    private let patternIsASCII: Bool
    private let ignoringCase: Bool
    private let flags: Int32

    /// - Parameters:
    ///   - bytes: The pattern (up to a NUL, as C sees it).
    ///   - pathname: `FNM_PATHNAME`: `*` and `?` do not match `/` (a pattern on the whole path).
    init(bytes: [UInt8], ignoringCase: Bool, pathname: Bool) {
        let exact = Array(bytes.prefix { $0 != 0 })
        pattern = exact.map { CChar(bitPattern: $0) } + [0]
        patternIsASCII = exact.allSatisfy { $0 < 0x80 }
        self.ignoringCase = ignoringCase
        folded = ignoringCase ? CaseFolding.fold(exact).map { $0.map { CChar(bitPattern: $0) } + [0] } : nil
        // FNM_CASEFOLD is a GNU extension that Glibc's Swift module does not export (<fnmatch.h>: 1 << 4).
        flags = (ignoringCase ? 1 << 4 : 0) | (pathname ? FNM_PATHNAME : 0)
    }

    /// Whether `subject` (a name or a path, exact bytes) matches.
    func matches(_ subject: [UInt8]) -> Bool {
        if ignoringCase, let folded, !(patternIsASCII && subject.allSatisfy { $0 < 0x80 }),
            let foldedSubject = CaseFolding.fold(subject)
        {
            return Self.fnmatch(folded, foldedSubject, flags)
        }
        return Self.fnmatch(pattern, subject, flags)
    }

    private static func fnmatch(_ pattern: [CChar], _ subject: [UInt8], _ flags: Int32) -> Bool {
        let text = subject.map { CChar(bitPattern: $0) } + [0]
        return pattern.withUnsafeBufferPointer { pattern in
            text.withUnsafeBufferPointer { text in
                guard let patternBase = pattern.baseAddress, let textBase = text.baseAddress else { return false }
                return Glibc.fnmatch(patternBase, textBase, flags) == 0
            }
        }
    }
}

/// Case folding of UTF-8 bytes for matching.
enum CaseFolding {
    /// `bytes` with every character upper-cased then lower-cased, or `nil` when they are not
    /// valid UTF-8 (or hold a NUL, which C would end the text at).
    static func fold(_ bytes: [UInt8]) -> [UInt8]? {
        guard !bytes.contains(0), let text = String(validating: bytes, as: UTF8.self) else { return nil }
        return Array(text.uppercased().lowercased().utf8)
    }
}
