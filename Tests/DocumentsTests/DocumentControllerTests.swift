// SPDX-License-Identifier: Apache-2.0
import Documents
import Foundation
import SecureFiles
import Testing
import VolumeFixtures

/// A notes package document, as a SwiftUI document app's model would write it.
struct NotesDocument: FileDocument {
    static let notesType = UTType(exportedAs: "com.example.notes", conformingTo: .package, filenameExtensions: ["notes"])
    static var readableContentTypes: [UTType] { [notesType] }

    var notes: [String: String]
    var changed: Set<String> = []

    init(notes: [String: String]) { self.notes = notes }

    init(configuration: ReadConfiguration) throws {
        guard let children = configuration.file.fileWrappers else { throw CocoaError(.fileReadCorruptFile) }
        notes = children.compactMapValues { $0.regularFileContents.flatMap { String(data: $0, encoding: .utf8) } }
    }

    mutating func edit(_ name: String, _ text: String) {
        notes[name] = text
        changed.insert(name)
    }

    func fileWrapper(configuration: WriteConfiguration) throws -> FileWrapper {
        let directory = configuration.existingFile ?? FileWrapper(directoryWithFileWrappers: [:])
        for (name, text) in notes where directory.fileWrappers?[name] == nil || changed.contains(name) {
            if let old = directory.fileWrappers?[name] { directory.removeFileWrapper(old) }
            directory.addRegularFile(withContents: Data(text.utf8), preferredFilename: name)
        }
        for (name, wrapper) in directory.fileWrappers ?? [:] where notes[name] == nil {
            directory.removeFileWrapper(wrapper)
        }
        return directory
    }
}

/// The document controller on real volumes: safe incremental saves, conflicts with other writers
/// and editors, moves and deletion while open, creation, content types, and the writers' lock.
@Suite("DocumentController", .serialized, .requiresRealVolumes)
struct DocumentControllerTests {
    /// A package's URL as the controller gives it: a directory URL.
    func package(_ fixture: PackageFixture, _ relative: String) -> URL {
        URL(fileURLWithPath: fixture.path(relative), isDirectory: true)
    }

    func newDocument(_ fixture: PackageFixture) throws -> DocumentController<NotesDocument> {
        try FileManager.default.createDirectory(atPath: fixture.root, withIntermediateDirectories: true)
        return try DocumentController(
            creating: NotesDocument(notes: ["a.txt": "alpha", "b.txt": "beta"]), at: fixture.url("Week.notes"),
            contentType: NotesDocument.notesType)
    }

    @Test("open, edit one note, save: the other note keeps its inode; autosave only with changes", arguments: [FixtureFileSystem.ext4, .xfs, .btrfs, .tmpfs])
    func incrementalSave(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { volume in
            let fixture = PackageFixture(root: volume.path("docs"))
            _ = try newDocument(fixture)
            let controller = try DocumentController<NotesDocument>(contentsOf: fixture.url("Week.notes"))
            #expect(controller.contentType == NotesDocument.notesType)
            #expect(!controller.hasUnsavedChanges)
            #expect(try controller.autosave() == false)
            let kept = try fixture.inode("Week.notes/a.txt")
            controller.document.edit("b.txt", "beta 2")
            #expect(controller.hasUnsavedChanges)
            #expect(try controller.autosave())
            #expect(!controller.hasUnsavedChanges)
            #expect(try fixture.inode("Week.notes/a.txt") == kept)
            #expect(try fixture.text("Week.notes/b.txt") == "beta 2")
            // The controller removes the old tree in the background: wait for it before listing.
            FileWrapper.waitForBackgroundRemovals()
            #expect(try fixture.names("") == [".Week.notes.lock", "Week.notes"])
            #expect(try fixture.linkCount("Week.notes/a.txt") == 1)
            // Saving again right away works: the save recorded what it wrote.
            controller.document.edit("a.txt", "alpha 2")
            try controller.save()
            #expect(try fixture.text("Week.notes/a.txt") == "alpha 2")
        }
    }

    @Test("two writers: the second sees the first's save as a change by another process, never overwrites; revert then save works", arguments: saveFileSystems)
    func twoWriters(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { volume in
            let fixture = PackageFixture(root: volume.path("docs"))
            _ = try newDocument(fixture)
            let first = try DocumentController<NotesDocument>(contentsOf: fixture.url("Week.notes"))
            let second = try DocumentController<NotesDocument>(contentsOf: fixture.url("Week.notes"))
            first.document.edit("a.txt", "from first")
            try first.save()
            second.document.edit("b.txt", "from second")
            #expect(second.checkForExternalChange() == .modified(package(fixture, "Week.notes")))
            #expect(throws: DocumentError.modifiedByAnotherProcess(package(fixture, "Week.notes"))) { try second.save() }
            #expect(try fixture.text("Week.notes/a.txt") == "from first", "nothing lost")
            try second.revert()
            #expect(second.document.notes["a.txt"] == "from first")
            second.document.edit("b.txt", "from second")
            try second.save()
            #expect(try fixture.text("Week.notes/a.txt") == "from first")
            #expect(try fixture.text("Week.notes/b.txt") == "from second")
        }
    }

    @Test("an edit in place that keeps size and mtime is caught before the save", arguments: [FixtureFileSystem.ext4, .btrfs])
    func silentEdit(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { volume in
            let fixture = PackageFixture(root: volume.path("docs"))
            _ = try newDocument(fixture)
            let controller = try DocumentController<NotesDocument>(contentsOf: fixture.url("Week.notes"))
            let path = fixture.path("Week.notes/a.txt")
            let mtime = try #require(try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date)
            try Data("ALPHA".utf8).write(to: fixture.url("Week.notes/a.txt"))
            try FileManager.default.setAttributes([.modificationDate: mtime], ofItemAtPath: path)
            controller.document.edit("b.txt", "beta 2")
            #expect(throws: DocumentError.self) { try controller.save() }
            #expect(try fixture.text("Week.notes/a.txt") == "ALPHA", "the other editor's bytes stay")
            #expect(try fixture.text("Week.notes/b.txt") == "beta")
        }
    }

    /// Another process's change, and what the document does before saving.
    struct ConflictCase: Sendable, CustomTestStringConvertible {
        let name: String
        let change: @Sendable (PackageFixture) throws -> Void
        let edit: @Sendable (inout NotesDocument) -> Void
        var testDescription: String { name }
    }

    static let conflicts: [ConflictCase] = [
        ConflictCase(
            name: "a note the document keeps, edited in place with its size and mtime kept",
            change: { fixture in
                let path = fixture.path("Week.notes/a.txt")
                let mtime = try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date
                try Data("ALPHA".utf8).write(to: fixture.url("Week.notes/a.txt"))
                if let mtime { try FileManager.default.setAttributes([.modificationDate: mtime], ofItemAtPath: path) }
            },
            edit: { $0.edit("b.txt", "ours") }),
        ConflictCase(
            name: "the note the document edits too",
            change: { fixture in try Shell.check(["sh", "-c", "printf theirs > '\(fixture.path("Week.notes/b.txt"))'"]) },
            edit: { $0.edit("b.txt", "ours") }),
        ConflictCase(
            name: "a note the document deletes",
            change: { fixture in try Shell.check(["sh", "-c", "printf theirs > '\(fixture.path("Week.notes/b.txt"))'"]) },
            edit: { $0.notes["b.txt"] = nil }),
        ConflictCase(
            name: "a note added to the package",
            change: { fixture in try fixture.file("Week.notes/c.txt", "theirs") },
            edit: { $0.edit("b.txt", "ours") }),
        ConflictCase(
            name: "a note removed from the package",
            change: { fixture in try FileManager.default.removeItem(atPath: fixture.path("Week.notes/a.txt")) },
            edit: { $0.edit("b.txt", "ours") }),
        ConflictCase(
            name: "a file added to a folder the document drops (its listing never read)",
            change: { fixture in try fixture.file("Week.notes/Attic/new.txt", "theirs") },
            edit: { $0.edit("b.txt", "ours") }),
    ]

    @Test("every change by another process is a conflict; nothing is written, nothing is left", arguments: conflicts)
    func externalChangeIsAConflict(_ conflict: ConflictCase) throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let fixture = PackageFixture(root: volume.path("docs"))
            _ = try newDocument(fixture)
            try fixture.file("Week.notes/Attic/old.txt", "old")
            // Without the change the same save succeeds (so the conflict below is the change's).
            for changed in [false, true] {
                let controller = try DocumentController<NotesDocument>(contentsOf: fixture.url("Week.notes"))
                _ = controller.document.notes["a.txt"]
                if changed { try conflict.change(fixture) }
                let before = try fixture.tree("Week.notes")
                conflict.edit(&controller.document)
                if changed {
                    #expect(throws: DocumentError.modifiedByAnotherProcess(package(fixture, "Week.notes"))) { try controller.save() }
                    #expect(try fixture.tree("Week.notes") == before, "nothing written")
                } else {
                    try controller.save()
                    FileWrapper.waitForBackgroundRemovals()
                    // Put the package back as it was for the run with the change.
                    try FileManager.default.removeItem(atPath: fixture.path("Week.notes"))
                    _ = try newDocument(fixture)
                    try fixture.file("Week.notes/Attic/old.txt", "old")
                }
                FileWrapper.waitForBackgroundRemovals()
                #expect(try fixture.names("") == [".Week.notes.lock", "Week.notes"])
            }
        }
    }

    @Test("a package of 1,500 notes (children read ahead on another thread): unchanged ones linked; one edited in place by another process, found far into the listing, is a conflict")
    func largePackage() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let fixture = PackageFixture(root: volume.path("docs"))
            try FileManager.default.createDirectory(atPath: fixture.root, withIntermediateDirectories: true)
            let names = (0..<1_500).map { String(format: "note-%04d.txt", $0) }
            _ = try DocumentController(
                creating: NotesDocument(notes: Dictionary(uniqueKeysWithValues: names.map { ($0, "text of \($0)") })),
                at: fixture.url("Big.notes"), contentType: NotesDocument.notesType)
            FileWrapper.waitForBackgroundRemovals()
            for edited in [false, true] {
                let controller = try DocumentController<NotesDocument>(contentsOf: fixture.url("Big.notes"))
                let inodes = try names.map { try fixture.inode("Big.notes/\($0)") }
                if edited {
                    // Same inode, new bytes: only the status read before linking can tell.
                    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: fixture.path("Big.notes/note-1400.txt")))
                    try handle.write(contentsOf: Data("theirs, longer than before".utf8))
                    try handle.close()
                }
                let before = try fixture.tree("Big.notes")
                controller.document.edit("note-0001.txt", "ours")
                if edited {
                    #expect(throws: DocumentError.modifiedByAnotherProcess(package(fixture, "Big.notes"))) { try controller.save() }
                    #expect(try fixture.tree("Big.notes") == before, "nothing written")
                } else {
                    // The statuses are read on another thread: the caller's audit log still sees
                    // every one, relative to the original package's descriptor.
                    let trace = AuditLog(level: .calls)
                    try SyscallSeam.$observer.withValue(trace) { try controller.save() }
                    let looked = Set(trace.calls.filter { $0.name == "statx" }.compactMap(\.path))
                    #expect(names.allSatisfy { looked.contains(Array($0.utf8)) }, "a child's statx escaped the audit log")
                    #expect(trace.calls.filter { $0.name == "linkat" }.count == names.count - 1)
                    FileWrapper.waitForBackgroundRemovals()
                    let after = try names.map { try fixture.inode("Big.notes/\($0)") }
                    let relinked = zip(inodes, after).enumerated().filter { $0.1.0 != $0.1.1 }.map(\.offset)
                    #expect(relinked == [1], "only the edited note is a new file")
                    #expect(try String(contentsOfFile: fixture.path("Big.notes/note-0001.txt"), encoding: .utf8) == "ours")
                }
            }
            FileWrapper.waitForBackgroundRemovals()
        }
    }

    @Test("a status the read-ahead could not get is read again by the writer: a one-off failure saves, a lasting one refuses with nothing written")
    func readAheadFailure() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let fixture = PackageFixture(root: volume.path("docs"))
            try FileManager.default.createDirectory(atPath: fixture.root, withIntermediateDirectories: true)
            let names = (0..<600).map { String(format: "note-%04d.txt", $0) }  // past the read-ahead's 512
            _ = try DocumentController(
                creating: NotesDocument(notes: Dictionary(uniqueKeysWithValues: names.map { ($0, "text of \($0)") })),
                at: fixture.url("Big.notes"), contentType: NotesDocument.notesType)
            FileWrapper.waitForBackgroundRemovals()
            let victim = Array("note-0300.txt".utf8)
            for lasting in [false, true] {
                let controller = try DocumentController<NotesDocument>(contentsOf: fixture.url("Big.notes"))
                let inode = try fixture.inode("Big.notes/note-0300.txt")
                let before = try fixture.tree("Big.notes")
                controller.document.edit("note-0001.txt", lasting ? "ours, again" : "ours")
                let log = AuditLog(level: .calls, faults: [SyscallFault(call: "statx", pathSuffix: victim, errno: .ioError, times: lasting ? nil : 1)])
                if lasting {
                    #expect(throws: DocumentError.modifiedByAnotherProcess(package(fixture, "Big.notes"))) {
                        try SyscallSeam.$observer.withValue(log) { try controller.save() }
                    }
                    #expect(try fixture.tree("Big.notes") == before, "nothing written")
                } else {
                    try SyscallSeam.$observer.withValue(log) { try controller.save() }
                    FileWrapper.waitForBackgroundRemovals()
                    #expect(try fixture.inode("Big.notes/note-0300.txt") == inode, "linked, not rewritten")
                    #expect(try String(contentsOfFile: fixture.path("Big.notes/note-0001.txt"), encoding: .utf8) == "ours")
                }
                // The read-ahead's statx of the victim failed; the writer asked again.
                let tries = log.calls.filter { $0.name == "statx" && $0.path == victim }
                #expect(tries.count >= 2, "the writer did not read the status again (\(tries.count) statx)")
            }
            FileWrapper.waitForBackgroundRemovals()
        }
    }

    @Test("moved while open: the move is seen, the save goes to the new place, nothing is recreated at the old one (tmpfs too)", arguments: saveFileSystems)
    func movedWhileOpen(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { volume in
            let fixture = PackageFixture(root: volume.path("docs"))
            _ = try newDocument(fixture)
            let controller = try DocumentController<NotesDocument>(contentsOf: fixture.url("Week.notes"))
            let kept = try fixture.inode("Week.notes/a.txt")
            try FileManager.default.createDirectory(atPath: fixture.path("Archive"), withIntermediateDirectories: true)
            try FileManager.default.moveItem(atPath: fixture.path("Week.notes"), toPath: fixture.path("Archive/Week 12.notes"))
            let moved = package(fixture, "Archive/Week 12.notes")
            #expect(controller.checkForExternalChange() == .moved(to: moved))
            #expect(controller.fileURL == moved)
            controller.document.edit("b.txt", "beta, moved")
            try controller.save()
            #expect(!FileManager.default.fileExists(atPath: fixture.path("Week.notes")))
            #expect(try fixture.text("Archive/Week 12.notes/b.txt") == "beta, moved")
            #expect(try fixture.inode("Archive/Week 12.notes/a.txt") == kept)

            // Moved again without asking: save() follows it by itself.
            try FileManager.default.moveItem(atPath: fixture.path("Archive/Week 12.notes"), toPath: fixture.path("Week 12.notes"))
            controller.document.edit("a.txt", "alpha, moved twice")
            try controller.save()
            #expect(controller.fileURL == package(fixture, "Week 12.notes"))
            #expect(try fixture.text("Week 12.notes/a.txt") == "alpha, moved twice")

            // Moved, and another package put at its place: the document is the object, not the path.
            try FileManager.default.moveItem(atPath: fixture.path("Week 12.notes"), toPath: fixture.path("Moved.notes"))
            try fixture.file("Week 12.notes/a.txt", "an impostor")
            #expect(controller.checkForExternalChange() == .moved(to: package(fixture, "Moved.notes")))
            controller.document.edit("b.txt", "beta, third place")
            try controller.save()
            #expect(try fixture.text("Moved.notes/b.txt") == "beta, third place")
            #expect(try fixture.text("Week 12.notes/a.txt") == "an impostor", "the other package is untouched")
        }
    }

    @Test("deleted while open: reported, and saving does not recreate it; replaced by another file: a conflict", arguments: saveFileSystems)
    func deletedOrReplaced(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { volume in
            let fixture = PackageFixture(root: volume.path("docs"))
            _ = try newDocument(fixture)
            let controller = try DocumentController<NotesDocument>(contentsOf: fixture.url("Week.notes"))
            // Another program safe-saves its own copy over it (a new inode at the same path).
            try fixture.file("copy/a.txt", "theirs")
            _ = rename(fixture.path("copy"), fixture.path("Week.notes.tmp"))
            try FileManager.default.removeItem(atPath: fixture.path("Week.notes"))
            _ = rename(fixture.path("Week.notes.tmp"), fixture.path("Week.notes"))
            #expect(controller.checkForExternalChange() == .modified(package(fixture, "Week.notes")))
            #expect(throws: DocumentError.self) { try controller.save() }
            #expect(try fixture.text("Week.notes/a.txt") == "theirs")

            try FileManager.default.removeItem(atPath: fixture.path("Week.notes"))
            #expect(controller.checkForExternalChange() == .deleted(lastKnown: package(fixture, "Week.notes")))
            #expect(throws: DocumentError.deleted(package(fixture, "Week.notes"))) { try controller.save() }
            #expect(!FileManager.default.fileExists(atPath: fixture.path("Week.notes")))

            // Written again only on request, from memory.
            controller.document.edit("b.txt", "beta, saved again")
            try controller.save(to: controller.fileURL)
            #expect(try fixture.text("Week.notes/a.txt") == "alpha")
            #expect(try fixture.text("Week.notes/b.txt") == "beta, saved again")
            #expect(controller.checkForExternalChange() == nil)
        }
    }

    @Test("save(to:): a new place with files of its own, followed from then on; never over something", arguments: saveFileSystems)
    func saveAs(kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { volume in
            let fixture = PackageFixture(root: volume.path("docs"))
            _ = try newDocument(fixture)
            let controller = try DocumentController<NotesDocument>(contentsOf: fixture.url("Week.notes"))
            controller.document.edit("b.txt", "beta, in the copy")
            try FileManager.default.createDirectory(atPath: fixture.path("Copies"), withIntermediateDirectories: true)
            try controller.save(to: fixture.url("Copies/Week copy.notes"))
            let copy = package(fixture, "Copies/Week copy.notes")
            #expect(controller.fileURL == copy)
            #expect(!controller.hasUnsavedChanges)
            #expect(try fixture.text("Copies/Week copy.notes/a.txt") == "alpha")
            #expect(try fixture.text("Copies/Week copy.notes/b.txt") == "beta, in the copy")
            #expect(try fixture.text("Week.notes/b.txt") == "beta", "the original is left as it was")
            #expect(try fixture.inode("Copies/Week copy.notes/a.txt") != fixture.inode("Week.notes/a.txt"), "no shared files")
            #expect(try fixture.linkCount("Week.notes/a.txt") == 1)

            // From now on the controller saves the copy.
            controller.document.edit("a.txt", "alpha, in the copy")
            try controller.save()
            #expect(try fixture.text("Copies/Week copy.notes/a.txt") == "alpha, in the copy")
            #expect(try fixture.text("Week.notes/a.txt") == "alpha")

            // Never over another item: nothing written there, and the controller stays put.
            let before = try fixture.tree("Week.notes")
            #expect(throws: DocumentError.alreadyExists(package(fixture, "Week.notes"))) {
                try controller.save(to: fixture.url("Week.notes"))
            }
            #expect(try fixture.tree("Week.notes") == before)
            #expect(controller.fileURL == copy)
        }
    }

    @Test("creating over something that exists fails; a type the document does not read is refused")
    func creationAndTypes() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let fixture = PackageFixture(root: volume.path("docs"))
            _ = try newDocument(fixture)
            #expect(throws: DocumentError.alreadyExists(package(fixture, "Week.notes"))) {
                try DocumentController(creating: NotesDocument(notes: [:]), at: fixture.url("Week.notes"), contentType: NotesDocument.notesType)
            }
            try fixture.file("plain.txt", "x")
            #expect(throws: DocumentError.unsupportedContentType("txt")) {
                try DocumentController<NotesDocument>(contentsOf: fixture.url("plain.txt"))
            }
            #expect(throws: DocumentError.unsupportedContentType("public.json")) {
                try DocumentController<NotesDocument>(contentsOf: fixture.url("Week.notes"), contentType: .json)
            }
        }
    }

    @Test("the writers' lock: two opens of the lock file conflict, even in one process")
    func writersLock() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            #expect(FileManager.default.createFile(atPath: volume.path("lock"), contents: Data()))
            let directory = try Directory(opening: .init(volume.path("")))
            let first = try directory.descriptor.openChild(Array("lock".utf8), options: .readOnly)
            let second = try directory.descriptor.openChild(Array("lock".utf8), options: .readOnly)
            #expect(try first.lock(exclusive: true, wait: false))
            #expect(try second.lock(exclusive: true, wait: false) == false)
            try first.unlock()
            #expect(try second.lock(exclusive: true, wait: false))
        }
    }
}

@Suite("UTType")
struct UTTypeTests {
    @Test("system types, conformance, extensions, exported types")
    func types() {
        #expect(UTType.utf8PlainText.conforms(to: .text) && UTType.utf8PlainText.conforms(to: .data))
        #expect(UTType.png.conforms(to: .image) && !UTType.png.conforms(to: .text))
        #expect(UTType.rtfd.conforms(to: .package) && UTType.rtfd.conforms(to: .directory))
        #expect(UTType(filenameExtension: "JPG") == .jpeg)
        #expect(UTType(filenameExtension: "nope") == nil)
        #expect(UTType("public.json") == .json && UTType("com.example.none") == nil)
        #expect(UTType.json.preferredFilenameExtension == "json")
        let notes = UTType(exportedAs: "com.example.notes", conformingTo: .package, filenameExtensions: ["Notes"])
        #expect(notes.conforms(to: .directory) && !notes.isDeclared)
        #expect(notes.preferredFilenameExtension == "notes")
        #expect(UTType.png.supertypes.contains(.data))
    }

    @Test("imported types, as Xcode's Document App template declares one")
    func importedTypes() {
        // The template's own declaration, unchanged.
        var exampleText: UTType { UTType(importedAs: "com.example.plain-text") }
        #expect(exampleText.identifier == "com.example.plain-text")
        #expect(exampleText.conforms(to: .data) && !exampleText.conforms(to: .text) && !exampleText.isDeclared)
        #expect(exampleText.filenameExtensions.isEmpty)
        let conforming = UTType(importedAs: "com.example.plain-text", conformingTo: .plainText)
        #expect(conforming.conforms(to: .text) && conforming == exampleText)
        let withExtensions = UTType(importedAs: "com.example.plain-text", conformingTo: .plainText, filenameExtensions: ["ExampleText"])
        #expect(withExtensions.preferredFilenameExtension == "exampletext")
        // A system type keeps its own declaration.
        let json = UTType(importedAs: "public.json", conformingTo: .package)
        #expect(json.conforms(to: .text) && !json.conforms(to: .package) && json.filenameExtensions == ["json"])
    }
}
