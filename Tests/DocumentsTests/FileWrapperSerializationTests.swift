// SPDX-License-Identifier: Apache-2.0
import Documents
import Foundation
import Testing
import VolumeFixtures

/// `serializedRepresentation` in this library's own format, keyed coding under Apple's key, and a
/// decoder that refuses hostile bytes without crashing.
@Suite("FileWrapper serialised form")
struct FileWrapperSerializationTests {
    func sampleTree() -> FileWrapper {
        let root = FileWrapper(directoryWithFileWrappers: [:])
        root.addRegularFile(withContents: Data(), preferredFilename: "empty")
        root.addRegularFile(withContents: Data("Grüße, 世界".utf8), preferredFilename: "Grüße 世界.txt")
        let link = FileWrapper(symbolicLinkWithDestinationURL: URL(fileURLWithPath: "../elsewhere"))
        link.preferredFilename = "link"
        root.addFileWrapper(link)
        let folder = FileWrapper(directoryWithFileWrappers: ["inner.bin": FileWrapper(regularFileWithContents: Data([0, 1, 2, 255]))])
        folder.preferredFilename = "Folder"
        root.addFileWrapper(folder)
        var attributes = folder.fileAttributes
        attributes[FileAttributeKey.posixPermissions.rawValue] = NSNumber(value: 0o750)
        attributes[FileAttributeKey.modificationDate.rawValue] = Date(timeIntervalSince1970: 1_700_000_000.25)
        folder.fileAttributes = attributes
        return root
    }

    func expectSameTree(_ a: FileWrapper, _ b: FileWrapper, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(a.isDirectory == b.isDirectory && a.isRegularFile == b.isRegularFile && a.isSymbolicLink == b.isSymbolicLink,
                sourceLocation: sourceLocation)
        #expect(a.regularFileContents == b.regularFileContents, sourceLocation: sourceLocation)
        #expect(a.symbolicLinkDestinationBytes == b.symbolicLinkDestinationBytes, sourceLocation: sourceLocation)
        let aChildren = a.fileWrappers ?? [:], bChildren = b.fileWrappers ?? [:]
        #expect(aChildren.keys.sorted() == bChildren.keys.sorted(), sourceLocation: sourceLocation)
        for (key, child) in aChildren {
            guard let other = bChildren[key] else { continue }
            expectSameTree(child, other, sourceLocation: sourceLocation)
        }
    }

    @Test("a tree of every kind, with Unicode names, modes and dates, round-trips")
    func roundTrip() throws {
        let tree = sampleTree()
        let data = try #require(tree.serializedRepresentation)
        let decoded = try #require(FileWrapper(serializedRepresentation: data))
        expectSameTree(tree, decoded)
        let folder = try #require(decoded.fileWrappers?["Folder"])
        #expect((folder.fileAttributes[FileAttributeKey.posixPermissions.rawValue] as? NSNumber)?.intValue == 0o750)
        #expect((folder.fileAttributes[FileAttributeKey.modificationDate.rawValue] as? Date)?.timeIntervalSince1970 == 1_700_000_000.25)
        #expect(decoded.fileWrappers?["link"]?.symbolicLinkDestinationURL?.relativePath == "../elsewhere")
        #expect(decoded.serializedRepresentation == data, "encoding is deterministic")
    }

    @Test("keyed coding under Apple's key, with secure coding")
    func keyedCoding() throws {
        let tree = sampleTree()
        let archive = try NSKeyedArchiver.archivedData(withRootObject: tree, requiringSecureCoding: true)
        let decoded = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: FileWrapper.self, from: archive))
        expectSameTree(tree, decoded)
        #expect(FileWrapper.supportsSecureCoding)
    }

    @Test("hostile bytes are refused: every truncation, bad names, bad kinds, lies about lengths, depth and count bombs")
    func hostileInput() throws {
        let data = try #require(sampleTree().serializedRepresentation)
        for length in 0..<data.count {
            #expect(FileWrapper(serializedRepresentation: data.prefix(length)) == nil, "truncated at \(length)")
        }
        #expect(FileWrapper(serializedRepresentation: data + Data([0])) == nil, "trailing bytes")
        #expect(FileWrapper(serializedRepresentation: Data("rtfd\0\0\0\0".utf8)) == nil, "Apple's form is not read")

        func header() -> [UInt8] { Array("SBFW".utf8) + [1, 0, 0, 0] }
        func directory(_ children: [([UInt8], [UInt8])], count: UInt32? = nil) -> [UInt8] {
            var out: [UInt8] = [2, 0xED, 0x01, 0, 0, 0]
            withUnsafeBytes(of: (count ?? UInt32(children.count)).littleEndian) { out += $0 }
            for (name, node) in children {
                withUnsafeBytes(of: UInt16(name.count).littleEndian) { out += $0 }
                out += name + node
            }
            return out
        }
        let emptyFile: [UInt8] = [1, 0xA4, 0x01, 0, 0, 0] + [UInt8](repeating: 0, count: 8)
        #expect(FileWrapper(serializedRepresentation: Data(header() + directory([(Array("ok".utf8), emptyFile)]))) != nil)
        for bad in [[], Array(".".utf8), Array("..".utf8), Array("a/b".utf8), [0x61, 0, 0x62], [0xFF, 0xFE], [UInt8](repeating: 0x61, count: 256)] {
            #expect(FileWrapper(serializedRepresentation: Data(header() + directory([(bad, emptyFile)]))) == nil, "name \(bad)")
        }
        #expect(FileWrapper(serializedRepresentation: Data(header() + directory([(Array("a".utf8), emptyFile), (Array("A".utf8), emptyFile)]))) == nil,
                "keys that collide case-insensitively")
        #expect(FileWrapper(serializedRepresentation: Data(header() + [9] + emptyFile.dropFirst())) == nil, "unknown kind")
        #expect(FileWrapper(serializedRepresentation: Data(header() + directory([], count: UInt32.max))) == nil, "a count bomb")
        var lyingFile: [UInt8] = [1, 0xA4, 0x01, 0, 0, 0]
        withUnsafeBytes(of: UInt64.max.littleEndian) { lyingFile += $0 }
        #expect(FileWrapper(serializedRepresentation: Data(header() + lyingFile)) == nil, "a length larger than the data")
        var deep = emptyFile
        for _ in 0..<200 { deep = directory([(Array("d".utf8), deep)]) }
        #expect(FileWrapper(serializedRepresentation: Data(header() + deep)) == nil, "nesting beyond 64")
    }

    @Test("20,000 random mutations never crash the decoder, and what it accepts encodes again")
    func fuzzed() throws {
        let data = [UInt8](try #require(sampleTree().serializedRepresentation))
        var generator = SplitMix(seed: 0x5EED)
        var accepted = 0
        for _ in 0..<20_000 {
            var mutated = data
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: mutated[Int.random(in: 0..<mutated.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
                case 1: if mutated.count > 9 { mutated.remove(at: Int.random(in: 8..<mutated.count, using: &generator)) }
                default: mutated.insert(UInt8.random(in: 0...255, using: &generator), at: Int.random(in: 8...mutated.count, using: &generator))
                }
            }
            if let decoded = FileWrapper(serializedRepresentation: Data(mutated)) {
                accepted += 1
                #expect(decoded.serializedRepresentation != nil)
            }
        }
        #expect(accepted < 20_000)
    }
}
