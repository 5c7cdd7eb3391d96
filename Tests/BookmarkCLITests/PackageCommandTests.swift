// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import VolumeFixtures

/// `bookmark package inspect|verify` on real packages: the tree as FileWrapper reads it, and every
/// problem a reader would meet, as root and as uid 65534.
@Suite("bookmark package", .serialized, .requiresRealVolumes)
struct PackageCommandTests {
    func makePackage(in root: String) throws {
        for (path, text) in [("Doc.pkg/a.txt", "alpha"), ("Doc.pkg/sub/deep.txt", "deep")] {
            let full = root + "/" + path
            try FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data(text.utf8).write(to: URL(fileURLWithPath: full))
        }
        #expect(symlink("../a.txt", root + "/Doc.pkg/sub/up") == 0)
    }

    @Test("inspect: keys, kinds, sizes, modes and link texts, as a tree and as JSON")
    func inspect() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let root = volume.path("docs")
            try makePackage(in: root)
            let plain = try BookmarkTool.run(["package", "inspect", root + "/Doc.pkg"])
            #expect(plain.status == 0, "\(plain.stderr)")
            #expect(plain.stdout.contains("a.txt  5 bytes  0644"))
            #expect(plain.stdout.contains("    up -> ../a.txt"))
            let result = try BookmarkTool.run(["package", "inspect", "--json", root + "/Doc.pkg"])
            let json = try #require(try BookmarkTool.json(result) as? [String: Any])
            #expect(json["kind"] as? String == "directory")
            let children = try #require(json["children"] as? [[String: Any]])
            #expect(children.map { $0["key"] as? String } == ["a.txt", "sub"])
            #expect(children[0]["size"] as? Int == 5)
            let sub = try #require(children[1]["children"] as? [[String: Any]])
            #expect(sub.first { $0["key"] as? String == "up" }?["linkTarget"] as? String == "../a.txt")
            let missing = try BookmarkTool.run(["package", "inspect", root + "/Missing.pkg"])
            #expect(missing.status == 3)
        }
    }

    @Test("verify: a clean package exits 0; escaping links, a FIFO and a file 65534 cannot read are each reported, exit 1")
    func verify() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let root = volume.path("docs")
            try makePackage(in: root)
            let clean = try BookmarkTool.run(["package", "verify", "--json", root + "/Doc.pkg"])
            #expect(clean.status == 0, "\(clean.stdout)")
            let cleanJSON = try #require(try BookmarkTool.json(clean) as? [String: Any])
            #expect(cleanJSON["ok"] as? Bool == true && cleanJSON["entries"] as? Int == 5 && cleanJSON["bytesRead"] as? Int == 9)

            #expect(symlink("/etc/passwd", root + "/Doc.pkg/absolute") == 0)
            #expect(symlink("../../outside", root + "/Doc.pkg/sub/climbs") == 0)
            #expect(symlink("sub/../a.txt", root + "/Doc.pkg/inside") == 0)
            #expect(mkfifo(root + "/Doc.pkg/pipe", 0o600) == 0)
            try Data("secret".utf8).write(to: URL(fileURLWithPath: root + "/Doc.pkg/private.txt"))
            #expect(chmod(root + "/Doc.pkg/private.txt", 0o600) == 0)
            let name = "new\nline.txt"
            try Data("n".utf8).write(to: URL(fileURLWithPath: root + "/Doc.pkg/" + name))

            let result = try BookmarkTool.run(["package", "verify", "--json", root + "/Doc.pkg"])
            #expect(result.status == 1)
            let json = try #require(try BookmarkTool.json(result) as? [String: Any])
            let problems = try #require(json["problems"] as? [[String: Any]])
            let found = Set(problems.map { "\($0["path"] as? String ?? ""):\($0["problem"] as? String ?? "")" })
            #expect(found == ["absolute:linkLeavesPackage", "sub/climbs:linkLeavesPackage", "pipe:unsupportedKind"])

            guard Unprivileged.unavailableReason == nil else {
                print("skipped the uid 65534 half: \(Unprivileged.unavailableReason ?? "")")
                return
            }
            #expect(chmod(root, 0o755) == 0)
            let nobody = try BookmarkTool.runUnprivileged(["package", "verify", "--json", root + "/Doc.pkg"])
            #expect(nobody.status == 1)
            let nobodyJSON = try #require(try JSONSerialization.jsonObject(with: Data(nobody.stdout.utf8)) as? [String: Any])
            let nobodyProblems = try #require(nobodyJSON["problems"] as? [[String: Any]])
            #expect(nobodyProblems.contains { $0["path"] as? String == "private.txt" && $0["problem"] as? String == "unreadable" })
        }
    }
}
