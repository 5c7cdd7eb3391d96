// SPDX-License-Identifier: Apache-2.0
import Documents
import Foundation
import Testing

/// Apple's three names per child: preferred filename, key, filename; uniquing and re-keying.
@Suite("FileWrapper names, keys and uniquing")
struct FileWrapperNamingTests {
    @Test("three children preferring the same name get Apple's uniqued keys")
    func uniquing() {
        let package = FileWrapper(directoryWithFileWrappers: [:])
        let keys = (0..<3).map { index in
            package.addRegularFile(withContents: Data([UInt8(index)]), preferredFilename: "Image.png")
        }
        #expect(keys == ["Image.png", "1__#$!@%!#__Image.png", "2__#$!@%!#__Image.png"])
        #expect(package.fileWrappers?.count == 3)
    }

    @Test("keys compare case-insensitively: a.txt then A.txt uniques the second")
    func caseInsensitiveKeys() {
        let package = FileWrapper(directoryWithFileWrappers: [:])
        #expect(package.addRegularFile(withContents: Data(), preferredFilename: "a.txt") == "a.txt")
        #expect(package.addRegularFile(withContents: Data(), preferredFilename: "A.txt") == "1__#$!@%!#__A.txt")
    }

    @Test("init(directoryWithFileWrappers:) gives unnamed children their key as preferred name")
    func initialChildren() {
        let child = FileWrapper(regularFileWithContents: Data("x".utf8))
        #expect(child.preferredFilename == nil)
        let package = FileWrapper(directoryWithFileWrappers: ["notes.txt": child])
        #expect(child.preferredFilename == "notes.txt")
        #expect(package.keyForChildFileWrapper(child) == "notes.txt")
    }

    @Test("remove then add under the same name keeps the plain key; the parent's date is cleared")
    func replaceAndRekey() {
        let package = FileWrapper(directoryWithFileWrappers: [:])
        package.fileAttributes[FileAttributeKey.modificationDate.rawValue] = Date()
        let old = FileWrapper(regularFileWithContents: Data("old".utf8))
        old.preferredFilename = "note.txt"
        package.addFileWrapper(old)
        #expect(package.fileAttributes[FileAttributeKey.modificationDate.rawValue] == nil)
        package.removeFileWrapper(old)
        #expect(package.addRegularFile(withContents: Data("new".utf8), preferredFilename: "note.txt") == "note.txt")
        #expect(package.keyForChildFileWrapper(old) == nil, "not a child any more")
        #expect(package.addFileWrapper(package.fileWrappers!["note.txt"]!) == "note.txt", "adding a child again returns its key")
    }

    @Test("changing a preferred filename re-keys the child in every parent")
    func preferredFilenameRekeys() {
        let shared = FileWrapper(regularFileWithContents: Data("s".utf8))
        shared.preferredFilename = "a.txt"
        let first = FileWrapper(directoryWithFileWrappers: [:])
        let second = FileWrapper(directoryWithFileWrappers: [:])
        second.addRegularFile(withContents: Data(), preferredFilename: "b.txt")
        first.addFileWrapper(shared)
        second.addFileWrapper(shared)
        shared.preferredFilename = "b.txt"
        #expect(first.keyForChildFileWrapper(shared) == "b.txt")
        #expect(second.keyForChildFileWrapper(shared) == "1__#$!@%!#__b.txt")
        shared.preferredFilename = ""
        #expect(shared.preferredFilename == "b.txt", "an empty name is ignored (Apple raises)")
    }

    @Test("kinds, contents and the wrong kind's accessors")
    func kinds() {
        let file = FileWrapper(regularFileWithContents: Data("x".utf8))
        let link = FileWrapper(symbolicLinkWithDestinationURL: URL(fileURLWithPath: "../target"))
        let folder = FileWrapper(directoryWithFileWrappers: [:])
        #expect(file.isRegularFile && !file.isDirectory && !file.isSymbolicLink)
        #expect(link.isSymbolicLink && folder.isDirectory)
        #expect(file.regularFileContents == Data("x".utf8))
        #expect(file.fileWrappers == nil && file.symbolicLinkDestinationURL == nil)
        #expect(folder.regularFileContents == nil)
        #expect(link.symbolicLinkDestinationURL?.relativePath == "../target")
        #expect(file.fileAttributes[FileAttributeKey.modificationDate.rawValue] is Date, "a new file's date is its creation")
        #expect(file.addFileWrapper(folder) == "", "only a directory takes children")
    }
}
