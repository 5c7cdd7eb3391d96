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

            // A package uid 65534 may not read at all: FileWrapper's lazy read refuses it up front
            // (EACCES at init, as Apple's does), so inspect fails with 13.
            #expect(chmod(root + "/Doc.pkg", 0o700) == 0)
            let locked = try BookmarkTool.runUnprivileged(["package", "inspect", root + "/Doc.pkg"])
            #expect(locked.status == 13, "\(locked.stdout) \(locked.stderr)")
        }
    }

    @Test("names that are not UTF-8, hold a newline or start with a dash: inspect prints their exact bytes, JSON adds base64, verify finds the package")
    func hostileNames() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let root = Array(volume.path("docs").utf8)
            #expect(mkdir(String(decoding: root, as: UTF8.self), 0o755) == 0)
            let package = root + Array("/-caf".utf8) + [0xE9] + Array(".pkg".utf8)
            let child = Array("new\nline".utf8) + [0xFF]
            #expect(mkdir(cString(package), 0o755) == 0)
            let fd = open(cString(package + [0x2F] + child), O_CREAT | O_WRONLY, 0o644)
            #expect(fd >= 0)
            close(fd)

            let plain = try BookmarkTool.run(bytes: [Array("package".utf8), Array("inspect".utf8), Array("--".utf8), package])
            #expect(plain.status == 0, "\(plain.stderr)")
            #expect(plain.stdoutData.range(of: Data([0x2D, 0x63, 0x61, 0x66, 0xE9] + Array(".pkg/".utf8))) != nil, "the package name, byte for byte")
            #expect(plain.stdoutData.range(of: Data([0x20, 0x20] + child + Array("  0 bytes".utf8))) != nil, "the child's name, byte for byte")

            let json = try BookmarkTool.run(bytes: [Array("package".utf8), Array("inspect".utf8), Array("--json".utf8), Array("--".utf8), package])
            let object = try #require(try BookmarkTool.json(json) as? [String: Any])
            #expect(object["filenameBase64"] as? String == Data(Array("-caf".utf8) + [0xE9] + Array(".pkg".utf8)).base64EncodedString())
            let children = try #require(object["children"] as? [[String: Any]])
            #expect(children.first?["filenameBase64"] as? String == Data(child).base64EncodedString())

            let verify = try BookmarkTool.run(bytes: [Array("package".utf8), Array("verify".utf8), Array("--".utf8), package])
            #expect(verify.status == 0, "\(verify.stdout) \(verify.stderr)")
        }
    }

    private func cString(_ bytes: [UInt8]) -> [CChar] { bytes.map { CChar(bitPattern: $0) } + [0] }
}
