// SPDX-License-Identifier: Apache-2.0
import Documents
import Foundation
import Testing

/// A regular-file wrapper subclass, written as Apple code writes one: its own initialiser calls a
/// designated initialiser of `FileWrapper`. (Swift 6 warns that it must restate `@unchecked
/// Sendable`, which this `FileWrapper` is and Apple's is not: left as Apple code has it, the warning
/// PortingFromMacOS.md documents.)
final class TextWrapper: FileWrapper {
    init(text: String) { super.init(regularFileWithContents: Data(text.utf8)) }
    required init?(coder: NSCoder) { super.init(coder: coder) }

    var text: String? { regularFileContents.flatMap { String(data: $0, encoding: .utf8) } }
}

/// A package subclass calling the other designated initialisers.
final class NotesPackage: FileWrapper {
    init(notes: [String: String]) {
        super.init(directoryWithFileWrappers: notes.mapValues { TextWrapper(text: $0) })
    }
    override init(url: URL, options: FileWrapper.ReadingOptions = []) throws { try super.init(url: url, options: options) }
    init(linkingTo url: URL) { super.init(symbolicLinkWithDestinationURL: url) }
    override init?(serializedRepresentation data: Data) { super.init(serializedRepresentation: data) }
    required init?(coder: NSCoder) { super.init(coder: coder) }
}

/// Apple's initialisers: designated (subclasses call them), the directory's keys as file names,
/// and the written wrapper's own filename with `.withNameUpdating`.
@Suite("FileWrapper initialisers and filenames, as Apple's")
struct FileWrapperAppleInitTests {
    @Test("a subclass calls the designated initialisers with super.init and round-trips a save and a read")
    func subclassRoundTrip() throws {
        try withScratchDirectory("wrapper-subclass") { root in
            let file = TextWrapper(text: "hello")
            #expect(file.isRegularFile && file.text == "hello")
            let fileURL = root.appendingPathComponent("hello.txt")
            try file.write(to: fileURL, options: .atomic, originalContentsURL: nil)
            #expect(try String(contentsOf: fileURL, encoding: .utf8) == "hello")

            let package = NotesPackage(notes: ["a.txt": "alpha", "b.txt": "beta"])
            #expect(package.isDirectory)
            let packageURL = root.appendingPathComponent("Week.notes")
            try package.write(to: packageURL, options: [.atomic, .withNameUpdating], originalContentsURL: nil)
            let read = try NotesPackage(url: packageURL, options: .immediate)
            #expect(read.isDirectory)
            let texts = read.fileWrappers?.mapValues { $0.regularFileContents.flatMap { String(data: $0, encoding: .utf8) } }
            #expect(texts == ["a.txt": "alpha", "b.txt": "beta"])

            let archived = try #require(package.serializedRepresentation)
            let decoded = try #require(NotesPackage(serializedRepresentation: archived))
            #expect(decoded.fileWrappers?.keys.sorted() == ["a.txt", "b.txt"])
            #expect(NotesPackage(serializedRepresentation: Data("not an archive".utf8)) == nil)

            let link = NotesPackage(linkingTo: URL(fileURLWithPath: "hello.txt"))
            #expect(link.isSymbolicLink && link.symbolicLinkDestinationURL?.relativePath == "hello.txt")
        }
    }

    @Test("init(directoryWithFileWrappers:): the keys are the file names, also for a child that already has a preferred filename")
    func keysAreFileNames() throws {
        let named = FileWrapper(regularFileWithContents: Data("named".utf8))
        named.preferredFilename = "a.txt"
        let unnamed = FileWrapper(regularFileWithContents: Data("unnamed".utf8))
        let package = FileWrapper(directoryWithFileWrappers: ["renamed.txt": named, "plain.txt": unnamed])
        #expect(package.fileWrappers?.keys.sorted() == ["plain.txt", "renamed.txt"])
        #expect(package.keyForChildFileWrapper(named) == "renamed.txt")
        #expect(named.preferredFilename == "a.txt", "a child with a preferred filename keeps it")
        #expect(unnamed.preferredFilename == "plain.txt", "a child without one gets its key")

        // Keys that differ only in case are still uniqued, as `addFileWrapper` does.
        let twins = FileWrapper(directoryWithFileWrappers: [
            "Note.txt": FileWrapper(regularFileWithContents: Data()), "note.txt": FileWrapper(regularFileWithContents: Data()),
        ])
        #expect(twins.fileWrappers?.keys.sorted() == ["1__#$!@%!#__note.txt", "Note.txt"])
        // An empty key cannot be a file name: the child is named as `addFileWrapper` names one.
        let untitled = FileWrapper(directoryWithFileWrappers: ["": FileWrapper(regularFileWithContents: Data())])
        #expect(untitled.fileWrappers?.keys.sorted() == ["Untitled"])

        try withScratchDirectory("wrapper-keys") { root in
            let url = root.appendingPathComponent("Doc.pkg")
            try package.write(to: url, options: [.atomic, .withNameUpdating], originalContentsURL: nil)
            #expect(try FileManager.default.contentsOfDirectory(atPath: url.path).sorted() == ["plain.txt", "renamed.txt"])
            #expect(try String(contentsOf: url.appendingPathComponent("renamed.txt"), encoding: .utf8) == "named")
            #expect(named.filename == "renamed.txt")
        }
    }

    @Test("write with .withNameUpdating sets the written wrapper's own filename; without it, filename stays as it was",
          arguments: [true, false])
    func topLevelFilename(atomic: Bool) throws {
        try withScratchDirectory("wrapper-top-filename") { root in
            let options: FileWrapper.WritingOptions = atomic ? [.atomic] : []
            let file = FileWrapper(regularFileWithContents: Data("x".utf8))
            try file.write(to: root.appendingPathComponent("one.txt"), options: options.union(.withNameUpdating), originalContentsURL: nil)
            #expect(file.filename == "one.txt")
            #expect(file.filenameBytes == Array("one.txt".utf8))

            let package = FileWrapper(directoryWithFileWrappers: ["c.txt": FileWrapper(regularFileWithContents: Data("c".utf8))])
            try package.write(to: root.appendingPathComponent("New.pkg"), options: options.union(.withNameUpdating), originalContentsURL: nil)
            #expect(package.filename == "New.pkg")
            #expect(package.fileWrappers?["c.txt"]?.filename == "c.txt")

            let unnamed = FileWrapper(regularFileWithContents: Data("y".utf8))
            try unnamed.write(to: root.appendingPathComponent("two.txt"), options: options, originalContentsURL: nil)
            #expect(unnamed.filename == nil)
            // A later save under another name with name updating follows it.
            try file.write(to: root.appendingPathComponent("three.txt"), options: options.union(.withNameUpdating), originalContentsURL: nil)
            #expect(file.filename == "three.txt")
        }
    }
}
