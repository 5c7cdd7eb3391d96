// SPDX-License-Identifier: Apache-2.0
import BookmarkKit
import Foundation
import SecureFiles
import SystemPackage
import Testing
import VolumeFixtures

/// The path of an open descriptor (`/proc/self/fd/N`, read relative to the process's own open
/// `/proc/self/fd`): what a handle resolution and a document that follows its file rely on.
@Suite("Descriptor links")
struct DescriptorLinkTests {
    @Test("a descriptor's link follows a rename, and a deleted object has none")
    func followsRename() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("links-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        FileManager.default.createFile(atPath: directory + "/a", contents: Data())
        let opened = try Directory.current.open(FilePath(directory + "/a"), options: [.pathOnly])
        #expect(try opened.currentPathBytes() == Array((directory + "/a").utf8))
        try FileManager.default.moveItem(atPath: directory + "/a", toPath: directory + "/b")
        #expect(try opened.currentPathBytes() == Array((directory + "/b").utf8))
        try FileManager.default.removeItem(atPath: directory + "/b")
        #expect(try opened.currentPathBytes() == nil)
        // Many descriptors, one after another: each reads its own link.
        for index in 0..<50 {
            FileManager.default.createFile(atPath: directory + "/f\(index)", contents: Data())
            let each = try Directory.current.open(FilePath(directory + "/f\(index)"), options: [.pathOnly])
            #expect(try each.currentPathBytes() == Array((directory + "/f\(index)").utf8))
        }
    }

    @Test("after fork, the child reads its own descriptors, not its parent's")
    func fork() throws {
        let probe = try #require(CreateProbe.path, "create-probe is built with the tests")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("links-fork-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for name in ["one", "two"] { FileManager.default.createFile(atPath: directory + "/" + name, contents: Data()) }
        let output = try Shell.check([probe, "links", directory])
        #expect(output.contains("before-fork \(directory)/one"), "\(output)")
        // The child's descriptor has the parent's number but names two.
        #expect(output.contains("same-number yes"), "\(output)")
        #expect(output.contains("child-link \(directory)/two"), "\(output)")
        #expect(output.contains("parent-link \(directory)/one"), "\(output)")
    }
}
