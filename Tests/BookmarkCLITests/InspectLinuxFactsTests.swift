// SPDX-License-Identifier: Apache-2.0
// `bookmark inspect` shows our Linux facts decoded, from the compact item and from 0.1's keys.
import BookmarkFormat
import Foundation
import Testing

@Suite("bookmark inspect: Linux facts")
struct InspectLinuxFactsTests {
    /// `inspect --json`'s `linux` object and the target TOC's key names, for the bookmark at `path`.
    func inspect(_ path: String) throws -> (linux: [String: Any], keys: [String], text: String) {
        let json = try InspectTests.run(["inspect", "--json", path])
        #expect(json.status == 0, "\(json.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let linux = try #require(object["linux"] as? [String: Any])
        let tocs = try #require(object["tocs"] as? [[String: Any]])
        let entries = try #require(tocs.first?["entries"] as? [[String: Any]])
        let text = try InspectTests.run(["inspect", path])
        #expect(text.status == 0, "\(text.stderr)")
        return (linux, entries.compactMap { $0["key"] as? String }, text.stdout)
    }

    @Test("a new bookmark has one compact item; inspect decodes it as it decodes 0.1's nine keys")
    func compactAndLegacy() throws {
        let directory = URL(fileURLWithPath: "/var/tmp/inspect-linux-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("file.txt")
        try Data("x".utf8).write(to: file)
        let compactPath = directory.appendingPathComponent("compact.bookmark").path
        let made = try InspectTests.run(["make", file.path, "-o", compactPath])
        #expect(made.status == 0, "\(made.stderr)")

        let compact = try inspect(compactPath)
        #expect(compact.keys.contains("org.swift-bookmarks.linux"))
        #expect(!compact.keys.contains { $0.hasPrefix("org.swift-bookmarks.linux.") })
        for fact in ["handleType", "handle", "birthTime", "volumeUUIDSource", "mountRelativePath", "fsType", "fsid"] {
            #expect(compact.linux[fact] != nil, "\(fact) missing from \(compact.linux)")
        }
        let relative = try #require(compact.linux["mountRelativePath"] as? String)
        #expect(file.path.hasSuffix(relative))
        #expect(compact.text.contains("\nlinux:      "))
        #expect(compact.text.contains("mount-relative \(relative)"))

        // The same facts in 0.1's layout (nine keys) read the same.
        var document = try BookmarkRecord(decoding: Array(try Data(contentsOf: URL(fileURLWithPath: compactPath)))).document
        let facts = BookmarkRecord(document: document).linux
        document[LinuxKeys.compact] = nil
        document[LinuxKeys.generation] = facts.generation.map { .int64(Int64(bitPattern: $0)) }
        document[LinuxKeys.handleType] = facts.handleType.map(BookmarkItem.int32)
        document[LinuxKeys.handle] = facts.handle.map(BookmarkItem.data)
        document[LinuxKeys.birthTime] = facts.birthTime?.totalNanoseconds.map(BookmarkItem.int64)
        document[LinuxKeys.subvolumeID] = facts.subvolumeID.map { .int64(Int64(bitPattern: $0)) }
        document[LinuxKeys.volumeUUIDSource] = facts.volumeUUIDSource.map { .string(ByteString($0.rawValue)) }
        document[LinuxKeys.mountRelativePath] = facts.mountRelativePath.map(BookmarkItem.string)
        document[LinuxKeys.fsType] = facts.fsType.map { .string(ByteString($0)) }
        document[LinuxKeys.fsid] = facts.fsid.map { .data($0.bytes) }
        let legacyPath = directory.appendingPathComponent("legacy.bookmark").path
        try Data(try BookmarkRecord(document: document).encoded()).write(to: URL(fileURLWithPath: legacyPath))

        let legacy = try inspect(legacyPath)
        #expect(!legacy.keys.contains("org.swift-bookmarks.linux"))
        #expect(legacy.keys.contains("org.swift-bookmarks.linux.generation") == (facts.generation != nil))
        #expect(legacy.keys.contains("org.swift-bookmarks.linux.mountRelativePath"))
        #expect(NSDictionary(dictionary: legacy.linux).isEqual(to: compact.linux))
        let line = { (text: String) in text.split(separator: "\n").first { $0.hasPrefix("linux:") } }
        #expect(line(legacy.text) != nil && line(legacy.text) == line(compact.text))
    }
}
