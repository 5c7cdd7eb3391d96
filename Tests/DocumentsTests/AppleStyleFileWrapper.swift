// SPDX-License-Identifier: Apache-2.0
// FileWrapper code written the way Apple's documentation writes it: the File System Programming
// Guide's "Using FileWrappers as File Containers", and the incremental package save of SwiftUI's
// `FileDocument.fileWrapper(configuration:)` page. Only the import is Linux's.
import Foundation
import Testing
import VolumeFixtures

#if os(Linux)
    import BookmarkFoundation
#endif

/// A document package of notes, saved the way SwiftUI's documentation shows: start from the
/// existing wrapper, replace only the notes that changed, leave the others alone.
struct NoteCollection {
    var notes: [String: String]
    var changed: Set<String> = []

    init(notes: [String: String]) { self.notes = notes }

    init(file: FileWrapper) {
        var notes: [String: String] = [:]
        for (name, wrapper) in file.fileWrappers ?? [:] {
            if let data = wrapper.regularFileContents, let text = String(data: data, encoding: .utf8) {
                notes[name] = text
            }
        }
        self.notes = notes
    }

    mutating func edit(_ name: String, _ text: String) {
        notes[name] = text
        changed.insert(name)
    }

    func fileWrapper(existingFile: FileWrapper?) -> FileWrapper {
        let directory = existingFile ?? FileWrapper(directoryWithFileWrappers: [:])
        for (name, text) in notes {
            let existing = directory.fileWrappers?[name]
            if existing != nil && !changed.contains(name) { continue }
            if let existing { directory.removeFileWrapper(existing) }
            directory.addRegularFile(withContents: Data(text.utf8), preferredFilename: name)
        }
        for (name, wrapper) in directory.fileWrappers ?? [:] where notes[name] == nil {
            directory.removeFileWrapper(wrapper)
        }
        return directory
    }
}

@Suite("FileWrapper as Apple's documentation uses it", .serialized, .requiresRealVolumes)
struct AppleStyleFileWrapperTests {
    @Test("the guide's package: an image and a text file, written and read back")
    func guidePackage() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let documentURL = URL(fileURLWithPath: volume.path("MyDocument.mydoc"))
            let imageData = Data(repeating: 0x89, count: 4096)
            let textData = Data("Hello, package".utf8)

            let documentFileWrapper = FileWrapper(directoryWithFileWrappers: [:])
            documentFileWrapper.addRegularFile(withContents: imageData, preferredFilename: "Image.png")
            documentFileWrapper.addRegularFile(withContents: textData, preferredFilename: "Text.txt")
            try documentFileWrapper.write(to: documentURL, options: .atomic, originalContentsURL: nil)

            let readWrapper = try FileWrapper(url: documentURL, options: .immediate)
            guard let fileWrappers = readWrapper.fileWrappers else {
                Issue.record("not a directory")
                return
            }
            #expect(fileWrappers["Image.png"]?.regularFileContents == imageData)
            #expect(fileWrappers["Text.txt"]?.regularFileContents == textData)
            #expect(readWrapper.isDirectory)
        }
    }

    @Test("SwiftUI's incremental save: only the changed note gets a new file", arguments: saveFileSystems)
    func noteCollection(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { volume in
            let fixture = PackageFixture(root: volume.path(""))
            let url = fixture.url("Notes.notes")
            let first = NoteCollection(notes: ["a.txt": "alpha", "b.txt": "beta", "c.txt": "gamma"])
            try first.fileWrapper(existingFile: nil).write(to: url, options: [.atomic, .withNameUpdating], originalContentsURL: nil)
            let inodes = try ["a.txt", "b.txt", "c.txt"].map { try fixture.inode("Notes.notes/\($0)") }

            // Open, edit one note, delete another, save in place.
            let existing = try FileWrapper(url: url)
            var document = NoteCollection(file: existing)
            #expect(document.notes == ["a.txt": "alpha", "b.txt": "beta", "c.txt": "gamma"])
            document.edit("b.txt", "beta, edited")
            document.notes["c.txt"] = nil
            try document.fileWrapper(existingFile: existing).write(
                to: url, options: [.atomic, .withNameUpdating], originalContentsURL: url)

            #expect(try fixture.names("Notes.notes") == ["a.txt", "b.txt"])
            #expect(try fixture.inode("Notes.notes/a.txt") == inodes[0], "unchanged: linked")
            #expect(try fixture.inode("Notes.notes/b.txt") != inodes[1], "changed: written")
            #expect(try fixture.text("Notes.notes/b.txt") == "beta, edited")
            #expect(NoteCollection(file: try FileWrapper(url: url, options: .immediate)).notes == ["a.txt": "alpha", "b.txt": "beta, edited"])
        }
    }
}
