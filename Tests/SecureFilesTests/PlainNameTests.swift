// SPDX-License-Identifier: Apache-2.0
@testable import SecureFiles
import Testing

/// `PathComponents.isPlainName`, the check every name-taking call (`linkChild`, `openChild`, …)
/// makes before its system call: one directory entry's name, never a path or a special entry.
@Suite("What counts as one plain entry name")
struct PlainNameTests {
    @Test(
        "plain names pass; empty, dot, dot-dot, a slash or a NUL anywhere fail",
        arguments: [
            ([UInt8](), false),
            (Array(".".utf8), false),
            (Array("..".utf8), false),
            (Array("...".utf8), true),
            (Array(".a".utf8), true),
            (Array("a.".utf8), true),
            (Array("..a".utf8), true),
            (Array("a".utf8), true),
            (Array("note-00001.txt".utf8), true),
            (Array("/".utf8), false),
            (Array("a/b".utf8), false),
            (Array("a/".utf8), false),
            (Array("./".utf8), false),
            ([0x61, 0x00], false),
            ([0x00], false),
            ([0xFF, 0xFE], true),  // not UTF-8, but one name
            (Array(repeating: UInt8(ascii: "."), count: 255), true),
        ])
    func plainNames(name: [UInt8], plain: Bool) {
        #expect(PathComponents.isPlainName(name) == plain)
    }
}
