// SPDX-License-Identifier: Apache-2.0
import Documents
import Foundation
import Testing
import VolumeFixtures

/// A document whose `fileWrapper(configuration:)` builds a new tree each time (a new package
/// wrapper and a new `Sub` folder wrapper) from the children it read, as many real documents do.
struct RebuildingDocument: FileDocument {
    static let type = UTType(exportedAs: "com.example.rebuilt", conformingTo: .package, filenameExtensions: ["rebuilt"])
    static var readableContentTypes: [UTType] { [type] }

    var top: FileWrapper?
    var inner: FileWrapper?
    var edited = "edited"

    init(configuration: ReadConfiguration) throws {
        top = configuration.file.fileWrappers?["a.txt"]
        inner = configuration.file.fileWrappers?["Sub"]?.fileWrappers?["c.txt"]
    }

    func fileWrapper(configuration: WriteConfiguration) throws -> FileWrapper {
        guard let top, let inner else { throw CocoaError(.fileWriteUnknown) }
        let sub = FileWrapper(directoryWithFileWrappers: ["c.txt": inner])
        let note = FileWrapper(regularFileWithContents: Data(edited.utf8))
        note.preferredFilename = "b.txt"
        return FileWrapper(directoryWithFileWrappers: ["a.txt": top, "Sub": sub, "b.txt": note])
    }
}

/// `DocumentController.save()` when the document hands back a new tree holding the children it
/// read: a kept child is linked where its folder has an original, and one changed on disk by another process is a conflict
/// whether it sits directly in the package (checked by the writer, its place unchanged) or in a
/// folder the document rebuilt (checked before the write: its parent wrapper is a new one).
@Suite("DocumentController with a document that rebuilds its tree", .serialized, .requiresRealVolumes)
struct DocumentRebuiltTreeTests {
    private func makePackage(_ fixture: PackageFixture) throws {
        try fixture.file("Doc.rebuilt/a.txt", "alpha")
        try fixture.file("Doc.rebuilt/b.txt", "beta")
        try fixture.file("Doc.rebuilt/Sub/c.txt", "gamma")
    }

    @Test("unchanged on disk: the save succeeds, links the kept child in the package and rewrites the one in the new folder")
    func keptChildrenAreLinked() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let fixture = PackageFixture(root: volume.path("docs"))
            try makePackage(fixture)
            let controller = try DocumentController<RebuildingDocument>(contentsOf: fixture.url("Doc.rebuilt"))
            let before = (try fixture.inode("Doc.rebuilt/a.txt"), try fixture.inode("Doc.rebuilt/Sub/c.txt"))
            controller.document.edited = "new text"
            try controller.save()
            FileWrapper.waitForBackgroundRemovals()
            #expect(try fixture.inode("Doc.rebuilt/a.txt") == before.0, "a.txt not linked")
            // The new `Sub` wrapper has no filename, so it has no folder in the original to link
            // from (as on macOS): its kept child is written again, with the bytes it had.
            #expect(try fixture.inode("Doc.rebuilt/Sub/c.txt") != before.1)
            for (name, text) in [("a.txt", "alpha"), ("b.txt", "new text"), ("Sub/c.txt", "gamma")] {
                #expect(try String(contentsOfFile: fixture.path("Doc.rebuilt/" + name), encoding: .utf8) == text, "\(name)")
            }
        }
    }

    @Test("a kept child edited in place by another process is a conflict, in the package or in a rebuilt folder", arguments: ["a.txt", "Sub/c.txt"])
    func editedKeptChildIsAConflict(_ path: String) throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let fixture = PackageFixture(root: volume.path("docs"))
            try makePackage(fixture)
            let controller = try DocumentController<RebuildingDocument>(contentsOf: fixture.url("Doc.rebuilt"))
            // Same inode, new bytes: only a comparison with what was read can tell.
            let handle = try FileHandle(forWritingTo: fixture.url("Doc.rebuilt/" + path))
            try handle.write(contentsOf: Data("theirs, longer than before".utf8))
            try handle.close()
            let before = try fixture.tree("Doc.rebuilt")
            controller.document.edited = "ours"
            #expect(throws: DocumentError.modifiedByAnotherProcess(URL(fileURLWithPath: fixture.path("Doc.rebuilt"), isDirectory: true))) {
                try controller.save()
            }
            #expect(try fixture.tree("Doc.rebuilt") == before, "nothing written")
            FileWrapper.waitForBackgroundRemovals()
        }
    }
}
