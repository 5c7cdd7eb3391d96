// SPDX-License-Identifier: Apache-2.0
@testable import Documents
import Foundation
import Testing

/// A directory finds a child's key through an index made on the first look-up and kept by every
/// later edit, and uniques a taken name from a counter it remembers per name (building a directory
/// one `addFileWrapper` at a time was quadratic without either). Each must always answer what the
/// plain way answers: a scan of the children, a count from 1.
@Suite("A child's key: looked up by identity, uniqued from a remembered counter")
struct FileWrapperChildKeyTests {
    /// The key a scan of the table's children finds for `child`.
    private func scannedKey(_ table: ChildTable, _ child: FileWrapper) -> String? {
        table.dictionary.first { $0.value === child }?.key
    }

    @Test("through random inserts, replacements and removals, the index answers what a scan answers")
    func indexKeptByEdits() {
        var table = ChildTable()
        var random = SystemRandomNumberGenerator()
        let keys = (0..<60).map { "k\($0)" }
        var everHeld: [FileWrapper] = []
        for step in 0..<2_000 {
            let key = keys[Int.random(in: 0..<keys.count, using: &random)]
            switch Int.random(in: 0..<3, using: &random) {
            case 0:
                let child = FileWrapper(regularFileWithContents: Data())
                everHeld.append(child)
                table.insert(child, as: key)  // new, or replacing another child
            case 1:
                table.remove(key)  // present or not
            default:
                // A child already held, inserted again under the key it has (the only re-insert the
                // wrapper makes of one child is `rekey`, which removes it first).
                if let held = table.dictionary[key] {
                    table.remove(key)
                    table.insert(held, as: key)
                }
            }
            // The first look-up makes the index at a random point; after that it is kept.
            if step == 300 || step % 97 == 0 {
                for child in everHeld {
                    #expect(table.key(of: child) == scannedKey(table, child), "step \(step)")
                }
            }
        }
        for child in everHeld { #expect(table.key(of: child) == scannedKey(table, child)) }
    }

    @Test("built one add at a time, then edited through the public API, every child's key is the one fileWrappers shows")
    func publicEdits() throws {
        let directory = FileWrapper(directoryWithFileWrappers: [:])
        var children: [FileWrapper] = []
        for index in 0..<3_000 {
            let child = FileWrapper(regularFileWithContents: Data("\(index)".utf8))
            // Every tenth name collides with an earlier one, case-insensitively, so it is uniqued.
            child.preferredFilename = index % 10 == 9 ? "NOTE-\(index - 9).txt" : "note-\(index).txt"
            directory.addFileWrapper(child)
            children.append(child)
        }
        // Adding a child already here returns its key and adds nothing.
        let first = try #require(directory.keyForChildFileWrapper(children[0]))
        #expect(directory.addFileWrapper(children[0]) == first)
        #expect(directory.fileWrappers?.count == 3_000)

        for child in children[100..<400] { directory.removeFileWrapper(child) }
        for child in children[1_000..<1_050] { child.preferredFilename = "renamed-\(ObjectIdentifier(child).hashValue).txt" }
        let stranger = FileWrapper(regularFileWithContents: Data())
        directory.removeFileWrapper(stranger)  // not a child: nothing happens

        let byKey = try #require(directory.fileWrappers)
        #expect(byKey.count == 2_700)
        for (key, child) in byKey { #expect(directory.keyForChildFileWrapper(child) == key) }
        for child in children[100..<400] { #expect(directory.keyForChildFileWrapper(child) == nil) }
        for child in children[1_000..<1_050] {
            #expect(directory.keyForChildFileWrapper(child)?.hasPrefix("renamed-") == true)
        }
        #expect(directory.keyForChildFileWrapper(stranger) == nil)
    }

    @Test("a directory read from disk answers a child's key on the first look-up")
    func readFromDisk() throws {
        try withScratchDirectory("child-key") { root in
            for name in ["a.txt", "b.txt", "c.txt"] {
                try Data(name.utf8).write(to: root.appendingPathComponent(name))
            }
            let directory = try FileWrapper(url: root, options: .immediate)
            let byKey = try #require(directory.fileWrappers)
            #expect(byKey.keys.sorted() == ["a.txt", "b.txt", "c.txt"])
            for (key, child) in byKey { #expect(directory.keyForChildFileWrapper(child) == key) }
            directory.removeFileWrapper(try #require(byKey["b.txt"]))
            #expect(directory.fileWrappers?.keys.sorted() == ["a.txt", "c.txt"])
        }
    }

    /// Apple's rule, the plain way: the first n = 1, 2, … whose key is free.
    private func countedFromOne(_ table: ChildTable, _ preferred: String) -> String {
        guard table.contains(preferred) else { return preferred }
        var counter = 1
        while table.contains("\(counter)\(FileWrapper.uniquingInfix)\(preferred)") { counter += 1 }
        return "\(counter)\(FileWrapper.uniquingInfix)\(preferred)"
    }

    @Test("through random adds and removals of colliding names, the remembered counter gives the key a count from 1 gives")
    func counterKeptByEdits() {
        var table = ChildTable()
        var random = SystemRandomNumberGenerator()
        // Names that collide, in other cases too (keys compare case-insensitively), and one that
        // looks uniqued already.
        let names = ["image.png", "IMAGE.png", "Image.PNG", "a", "A", "ΑΣ", "ασ", "2\(FileWrapper.uniquingInfix)a"]
        for step in 0..<3_000 {
            if Int.random(in: 0..<3, using: &random) > 0 {
                let preferred = names[Int.random(in: 0..<names.count, using: &random)]
                let expected = countedFromOne(table, preferred)
                let key = table.uniqueKey(for: preferred)
                #expect(key == expected, "step \(step)")
                table.insert(FileWrapper(regularFileWithContents: Data()), as: key)
            } else if let key = table.dictionary.keys.randomElement(using: &random) {
                table.remove(key)
            }
        }
        #expect(table.dictionary.count > 100, "the walk should have built up collisions")
    }

    @Test("removing a uniqued child frees its number for the next add of that name, in any case")
    func freedNumbersReused() throws {
        let directory = FileWrapper(directoryWithFileWrappers: [:])
        var children: [FileWrapper] = []
        for _ in 0..<300 {
            let child = FileWrapper(regularFileWithContents: Data())
            child.preferredFilename = "image.png"
            directory.addFileWrapper(child)
            children.append(child)
        }
        let infix = FileWrapper.uniquingInfix
        #expect(directory.keyForChildFileWrapper(children[299]) == "299\(infix)image.png")
        directory.removeFileWrapper(children[100])  // "100…"
        directory.removeFileWrapper(children[7])  // "7…"
        #expect(directory.addRegularFile(withContents: Data(), preferredFilename: "IMAGE.PNG") == "7\(infix)IMAGE.PNG")
        #expect(directory.addRegularFile(withContents: Data(), preferredFilename: "image.png") == "100\(infix)image.png")
        #expect(directory.addRegularFile(withContents: Data(), preferredFilename: "image.png") == "300\(infix)image.png")
        // The plain name freed: it is taken first, before any number.
        directory.removeFileWrapper(children[0])
        #expect(directory.addRegularFile(withContents: Data(), preferredFilename: "Image.png") == "Image.png")
        #expect(directory.fileWrappers?.count == 301)
    }
}
