// SPDX-License-Identifier: Apache-2.0
@testable import Documents
import Foundation
import Testing

/// `markDescendantsInPlace()`, which tells `DocumentController.save()` which children the writer
/// checks (they are where they were read) and which it must check itself (dropped or moved).
@Suite("Which children are in place for a save")
struct FileWrapperPlaceMarkTests {
    /// A package `Doc.pkg` with `a.txt`, `b.txt` and `Sub/c.txt` in a new temporary folder, read.
    private func readPackage() throws -> (FileWrapper, URL) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("place-marks-\(UUID().uuidString)")
        let package = root.appendingPathComponent("Doc.pkg")
        try FileManager.default.createDirectory(at: package.appendingPathComponent("Sub"), withIntermediateDirectories: true)
        for (name, text) in [("a.txt", "a"), ("b.txt", "b"), ("Sub/c.txt", "c")] {
            try Data(text.utf8).write(to: package.appendingPathComponent(name))
        }
        let wrapper = try FileWrapper(url: package)
        _ = wrapper.fileWrappers?["Sub"]?.fileWrappers  // the listing read
        return (wrapper, root)
    }

    private func child(_ wrapper: FileWrapper, _ path: String) throws -> FileWrapper {
        var node = wrapper
        for name in path.split(separator: "/") {
            node = try #require(node.fileWrappers?[String(name)], "no \(path)")
        }
        return node
    }

    @Test("as read, every descendant is in place; a new mark each time, and an old one matches none")
    func asRead() throws {
        let (wrapper, root) = try readPackage()
        defer { try? FileManager.default.removeItem(at: root) }
        let first = wrapper.markDescendantsInPlace()
        for path in ["a.txt", "b.txt", "Sub", "Sub/c.txt"] {
            #expect(try child(wrapper, path).placeMark == first, "\(path) not marked")
        }
        let second = wrapper.markDescendantsInPlace()
        #expect(second != first)
        for path in ["a.txt", "b.txt", "Sub", "Sub/c.txt"] {
            #expect(try child(wrapper, path).placeMark == second)
        }
    }

    @Test("a renamed child, a child moved to another folder, and a new child are not in place; the rest are")
    func renamedMovedAndNew() throws {
        let (wrapper, root) = try readPackage()
        defer { try? FileManager.default.removeItem(at: root) }
        let b = try child(wrapper, "b.txt")
        wrapper.removeFileWrapper(b)
        b.preferredFilename = "renamed.txt"
        wrapper.addFileWrapper(b)
        let sub = try child(wrapper, "Sub")
        let c = try child(wrapper, "Sub/c.txt")
        sub.removeFileWrapper(c)
        wrapper.addFileWrapper(c)
        let added = FileWrapper(regularFileWithContents: Data("new".utf8))
        added.preferredFilename = "new.txt"
        wrapper.addFileWrapper(added)

        let mark = wrapper.markDescendantsInPlace()
        #expect(try child(wrapper, "a.txt").placeMark == mark)
        #expect(sub.placeMark == mark)
        #expect(b.placeMark != mark, "renamed, yet marked in place")
        #expect(c.placeMark != mark, "moved up a level, yet marked in place")
        #expect(added.placeMark != mark, "never on disk, yet marked in place")
    }

    @Test("children of a folder that moved are not in place, though their own names did not change")
    func childrenOfAMovedFolder() throws {
        let (wrapper, root) = try readPackage()
        defer { try? FileManager.default.removeItem(at: root) }
        let sub = try child(wrapper, "Sub")
        let c = try child(wrapper, "Sub/c.txt")
        wrapper.removeFileWrapper(sub)
        sub.preferredFilename = "Moved"
        wrapper.addFileWrapper(sub)
        let mark = wrapper.markDescendantsInPlace()
        #expect(sub.placeMark != mark)
        #expect(c.placeMark != mark)
        #expect(try child(wrapper, "a.txt").placeMark == mark)
    }
}
