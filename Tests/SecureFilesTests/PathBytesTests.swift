// SPDX-License-Identifier: Apache-2.0
import SecureFiles
import Testing

/// `PathBytes.isNormalAbsolute`: the test creation uses to take a path as the kernel spells it
/// without making a `FilePath`. A wrong `true` would record a path with `.`, `..` or `//` in it.
@Suite("Normal absolute paths")
struct PathBytesTests {
    /// The rule spelled the slow way: `/`, or `/` then non-empty components that are neither `.`
    /// nor `..`, joined by single slashes, with no trailing slash.
    static func oracle(_ path: [UInt8]) -> Bool {
        guard path.first == UInt8(ascii: "/") else { return false }
        if path.count == 1 { return true }
        let parts = path.dropFirst().split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        return parts.allSatisfy { !$0.isEmpty && !$0.elementsEqual([UInt8(ascii: ".")]) && !$0.elementsEqual(Array("..".utf8)) }
    }

    @Test("a table of spellings", arguments: [
        ("/", true), ("/a", true), ("/a/b", true), ("/.a", true), ("/a.", true), ("/..a", true), ("/a..", true),
        ("/.../b", true), ("/a/.b/c", true),
        ("", false), ("a", false), ("a/b", false), ("//", false), ("//a", false), ("/a//b", false), ("/a/", false),
        ("/.", false), ("/..", false), ("/./a", false), ("/../a", false), ("/a/.", false), ("/a/..", false),
        ("/a/./b", false), ("/a/../b", false), ("/a/b/", false), ("/./", false),
    ])
    func table(_ spelling: String, _ normal: Bool) {
        #expect(PathBytes(Array(spelling.utf8)).isNormalAbsolute == normal)
        #expect(Self.oracle(Array(spelling.utf8)) == normal)
    }

    @Test("every path of up to 7 bytes over `/`, `.` and `a` agrees with the slow rule")
    func exhaustive() {
        let alphabet: [UInt8] = [UInt8(ascii: "/"), UInt8(ascii: "."), UInt8(ascii: "a")]
        var path: [UInt8] = []
        var checked = 0
        var disagreements: [String] = []
        func visit(_ length: Int) {
            if PathBytes(path).isNormalAbsolute != Self.oracle(path) { disagreements.append(String(decoding: path, as: UTF8.self)) }
            checked += 1
            guard length > 0 else { return }
            for byte in alphabet {
                path.append(byte)
                visit(length - 1)
                path.removeLast()
            }
        }
        visit(7)
        #expect(checked == (0...7).reduce(0) { $0 + pow3($1) })
        #expect(disagreements.isEmpty, "\(disagreements.prefix(10))")
    }

    private func pow3(_ n: Int) -> Int { (0..<n).reduce(1) { value, _ in value * 3 } }
}
