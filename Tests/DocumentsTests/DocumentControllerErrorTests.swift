// SPDX-License-Identifier: Apache-2.0
import Documents
import Foundation
import SecureFiles
import Testing
import VolumeFixtures

/// A plain-text document, as Xcode's Document App template writes one.
struct PlainTextDocument: FileDocument {
    static var readableContentTypes: [UTType] { [.plainText] }

    var text: String

    init(text: String) { self.text = text }

    init(configuration: ReadConfiguration) throws {
        guard let data = configuration.file.regularFileContents, let text = String(data: data, encoding: .utf8) else {
            throw CocoaError(.fileReadCorruptFile)
        }
        self.text = text
    }

    func fileWrapper(configuration: WriteConfiguration) throws -> FileWrapper {
        FileWrapper(regularFileWithContents: Data(text.utf8))
    }
}

/// What the controller throws when it cannot take the writers' lock: Apple's `CocoaError`, as
/// its doc comments promise, with the system call's error underneath.
@Suite("DocumentController errors", .serialized)
struct DocumentControllerErrorTests {
    @Test("creating in a folder that does not exist: CocoaError .fileNoSuchFile, the FileSystemError underneath, nothing made")
    func missingFolder() throws {
        try withScratchDirectory("controller-missing-folder") { root in
            let url = root.appendingPathComponent("nope/a.txt")
            do {
                _ = try DocumentController(creating: PlainTextDocument(text: "x"), at: url, contentType: .plainText)
                Issue.record("a document was created in a missing folder")
            } catch let error as CocoaError {
                #expect(error.code == .fileNoSuchFile)
                #expect(error.userInfo[NSURLErrorKey] as? URL == url)
                let underlying = try #require(error.underlying as? FileSystemError)
                #expect(underlying.errno == .noSuchFileOrDirectory)
                #expect(!error.localizedDescription.contains("FileSystemError"), "\(error.localizedDescription)")
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: root.path) == [])
        }
    }

    @Test("Save As by uid 65534 into a folder root owns (0755): CocoaError .fileWriteNoPermission, the lock file's EACCES underneath",
          .requiresUnprivilegedUser)
    func saveAsWithoutPermission() throws {
        let probe = try #require(WrapperProbe.path, "wrapper-probe is built with the tests")
        try withScratchDirectory("controller-no-permission") { root in
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: root.path)
            let source = root.appendingPathComponent("doc.txt")
            try Data("text".utf8).write(to: source)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: source.path)
            let target = root.appendingPathComponent("copy-ro.txt")
            let result = try Unprivileged.run([probe, "save-as", source.path, target.path])
            let lines = result.stdout.split(separator: "\n").map(String.init)
            #expect(lines.first == "cocoa \(CocoaError.Code.fileWriteNoPermission.rawValue)", "\(result.stdout) \(result.stderr)")
            #expect(lines.dropFirst().first?.contains(".copy-ro.txt.lock") == true, "\(result.stdout)")
            #expect(lines.dropFirst().first?.contains("Permission denied") == true, "\(result.stdout)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: root.path) == ["doc.txt"])
        }
    }

    @Test("DocumentError's localizedDescription is its sentence")
    func localizedDescription() {
        let url = URL(fileURLWithPath: "/tmp/Week.notes")
        let errors: [DocumentError] = [
            .unsupportedContentType("txt"), .alreadyExists(url), .modifiedByAnotherProcess(url), .deleted(url),
        ]
        for error in errors {
            #expect(error.localizedDescription == error.description)
            #expect((error as any Error).localizedDescription == error.description)
            #expect(!error.localizedDescription.contains("could not be completed"))
        }
        #expect(DocumentError.deleted(url).localizedDescription == "/tmp/Week.notes was deleted while it was open")
    }
}
