// SPDX-License-Identifier: Apache-2.0
@testable import Documents
import Foundation
import SecureFiles
import Testing

/// The per-child shortcuts of a package save: a directory remembers its children in key order
/// once a write asked for it (kept by every later insert and removal), and a name on disk is
/// compared with its key byte for byte before any `String` is made.
@Suite("A directory's children in key order, and names compared as bytes")
struct FileWrapperChildOrderTests {
    /// The keys of `table.sorted()` and of sorting its dictionary afresh must be the same list.
    private func expectInOrder(_ table: inout ChildTable, _ comment: Comment? = nil) {
        let remembered = table.sorted()
        let fresh = table.dictionary.sorted { $0.key < $1.key }
        #expect(remembered.map(\.key) == fresh.map(\.key), comment)
        #expect(zip(remembered, fresh).allSatisfy { $0.value === $1.value }, comment)
    }

    @Test("inserts, replacements and removals after the first sort keep the order a fresh sort gives")
    func orderKeptByEdits() {
        var table = ChildTable()
        var random = SystemRandomNumberGenerator()
        // Keys that sort differently as bytes and as Strings would be the same list here: the
        // table only promises String's order, the one a fresh sort uses.
        let pool = (0..<400).map { "n\($0 * 7919 % 1000)" } + ["", "Z", "a", "é", "e\u{301}x", "zz", "__#$!@%!#__a", "10", "9"]
        for key in pool.prefix(200) { table.insert(FileWrapper(regularFileWithContents: Data()), as: key) }
        expectInOrder(&table, "first sort")
        for step in 0..<600 {
            let key = pool[Int.random(in: 0..<pool.count, using: &random)]
            if Bool.random(using: &random) {
                table.insert(FileWrapper(regularFileWithContents: Data()), as: key)  // new, or a replacement
            } else {
                table.remove(key)  // present or not
            }
            if step % 50 == 0 { expectInOrder(&table, "after step \(step)") }
        }
        expectInOrder(&table, "at the end")
    }

    @Test("a saved package's children, edited through the public API, are written in key order on the next save")
    func writeOrderAfterEdits() throws {
        try withScratchDirectory("child-order") { root in
            let url = root.appendingPathComponent("Doc.pkg")
            let wrapper = FileWrapper(directoryWithFileWrappers: [:])
            for name in ["b.txt", "d.txt", "f.txt"] { wrapper.addRegularFile(withContents: Data(name.utf8), preferredFilename: name) }
            try wrapper.write(to: url, options: [.atomic, .withNameUpdating], originalContentsURL: nil)
            // After the write (which sorted once): one removed, two added around the others, one renamed.
            wrapper.removeFileWrapper(try #require(wrapper.fileWrappers?["d.txt"]))
            wrapper.addRegularFile(withContents: Data("c".utf8), preferredFilename: "c.txt")
            wrapper.addRegularFile(withContents: Data("a".utf8), preferredFilename: "a.txt")
            try #require(wrapper.fileWrappers?["f.txt"]).preferredFilename = "e.txt"
            let trace = AuditLog(level: .calls)
            try SyscallSeam.$observer.withValue(trace) {
                try wrapper.write(to: url, options: [.atomic, .withNameUpdating], originalContentsURL: url)
            }
            // Each child is either linked (`linkat`'s second path) or created (`openat` with O_CREAT).
            let written = trace.calls.compactMap { call -> String? in
                switch call.name {
                case "linkat": return call.secondPath.map { String(decoding: $0, as: UTF8.self) }
                case "openat" where (call.flags ?? 0) & Int64(O_CREAT) != 0: return call.path.map { String(decoding: $0, as: UTF8.self) }
                default: return nil
                }
            }.filter { $0.hasSuffix(".txt") }
            #expect(written == ["a.txt", "b.txt", "c.txt", "e.txt"])
            #expect(try FileManager.default.contentsOfDirectory(atPath: url.path).sorted() == ["a.txt", "b.txt", "c.txt", "e.txt"])
        }
    }

    @Test(
        "a name on disk stands for its key exactly as decoding it would say",
        arguments: [
            (Array("note.txt".utf8), "note.txt", true),
            (Array("note.txt".utf8), "note.tx", false),
            (Array("note.tx".utf8), "note.txt", false),
            ([], "", true),
            ([], "a", false),
            (Array("e\u{301}".utf8), "\u{E9}", true),  // canonically equivalent: String equality
            ([0x66, 0xFF], "f\u{FFFD}", true),  // not UTF-8: read as U+FFFD
            ([0x66, 0xFF], "f", false),
            (Array("long name of more than fifteen bytes.txt".utf8), "long name of more than fifteen bytes.txt", true),
        ])
    func bytesReadAs(bytes: [UInt8], key: String, expected: Bool) {
        #expect(FileWrapper.bytes(bytes, read: key) == expected)
        #expect(FileWrapper.bytes(bytes, read: key) == (String(decoding: bytes, as: UTF8.self) == key), "not what decoding says")
        #expect(FileWrapper.spells(key, bytes) == (Array(key.utf8) == bytes))
    }
}
