// SPDX-License-Identifier: Apache-2.0
import BookmarkFormat
import Foundation
import Testing
import VolumeFixtures

#if canImport(Glibc)
    import Glibc
#endif

/// `bookmark alias / refresh / ref / make --sign / resolve --verify`, as a script would run them.
@Suite("bookmark alias, refresh, ref, --sign, --verify", .serialized, .requiresRealVolumes)
struct AliasRefSignCommandTests {
    typealias Object = [String: Any]

    func json(_ result: CommandResult) throws -> Object {
        try #require(try BookmarkTool.json(result) as? Object, "stdout: \(result.stdout) stderr: \(result.stderr)")
    }

    func aliasPath(_ file: String) throws -> String? {
        let source = try BookmarkSource(decoding: [UInt8](try Data(contentsOf: URL(fileURLWithPath: file))))
        #expect(source.container == .aliasFile)
        return source.record.pathBytes.map { String(decoding: $0.bytes, as: UTF8.self) }
    }

    @Test("alias writes an alias file; resolve follows the moved target; refresh rewrites it once")
    func aliasResolveRefresh() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let target = volume.path("target.txt")
            try Data("t".utf8).write(to: URL(fileURLWithPath: target))
            let alias = volume.path("target alias")
            let made = try json(BookmarkTool.run(["alias", target, alias, "--json"]))
            #expect(made["finderInfo"] as? Bool == true)
            #expect(made["target"] as? String == target)
            #expect(try aliasPath(alias) == target)
            let moved = volume.path("sub/moved.txt")
            try FileManager.default.createDirectory(atPath: volume.path("sub"), withIntermediateDirectories: true)
            try FileManager.default.moveItem(atPath: target, toPath: moved)
            let resolved = try BookmarkTool.run(["resolve", alias])
            #expect(resolved.status == 0)
            #expect(resolved.stdout == moved + "\n")
            let plain = volume.path("plain.book")
            #expect(try BookmarkTool.run(["make", moved, "-o", plain]).status == 0)
            let refreshed = try BookmarkTool.run(["refresh", alias, plain, "--json"])
            #expect(refreshed.status == 0, "\(refreshed.stderr)")
            // JSON Lines, as every batch prints (it was one array).
            let reports = try refreshed.stdout.split(separator: "\n").map {
                try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? Object)
            }
            #expect(reports.map { $0["status"] as? String } == ["refreshed", "fresh"])
            #expect(reports.first?["container"] as? String == "aliasFile")
            #expect(try aliasPath(alias) == moved)
            let again = try BookmarkTool.run(["refresh", alias])
            #expect(again.stdout.hasPrefix("fresh "))
            // A missing target: exit 3, the file untouched; by default nothing after the first
            // failure is done, with --keep-going every source is, and the exit is the most severe
            // (66, a SOURCE that cannot be opened, outranks 3).
            let before = try Data(contentsOf: URL(fileURLWithPath: alias))
            try FileManager.default.removeItem(atPath: moved)
            let gone = try BookmarkTool.run(["refresh", alias, volume.path("nonexistent")])
            #expect(gone.status == 3)
            #expect(gone.stdout.components(separatedBy: "\n").filter { $0.hasPrefix("failed") }.count == 1)
            let all = try BookmarkTool.run(["refresh", "--keep-going", alias, volume.path("nonexistent")])
            #expect(all.status == 66)
            #expect(all.stdout.components(separatedBy: "\n").filter { $0.hasPrefix("failed") }.count == 2)
            #expect(try Data(contentsOf: URL(fileURLWithPath: alias)) == before)
            // A symlink at the destination is refused.
            try Data("v".utf8).write(to: URL(fileURLWithPath: volume.path("victim")))
            try FileManager.default.createSymbolicLink(atPath: volume.path("link"), withDestinationPath: volume.path("victim"))
            try Data("t".utf8).write(to: URL(fileURLWithPath: target))
            #expect(try BookmarkTool.run(["alias", target, volume.path("link")]).status != 0)
            #expect(try String(contentsOfFile: volume.path("victim"), encoding: .utf8) == "v")
        }
    }

    @Test("SIGKILL at random points of 200 refreshes leaves the old or the new alias file, never a torn one")
    func killedDuringRefresh() throws {
        let binary = try #require(BookmarkTool.path)
        try LoopVolume.withVolume(.ext4) { volume in
            let places = [volume.path("a/target.txt"), volume.path("b/target.txt")]
            for place in places {
                try FileManager.default.createDirectory(
                    atPath: (place as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            }
            try Data("t".utf8).write(to: URL(fileURLWithPath: places[0]))
            let alias = volume.path("the alias")
            #expect(try BookmarkTool.run(["alias", places[0], alias]).status == 0)
            var generator = SystemRandomNumberGenerator()
            var outcomes: [String: Int] = ["old": 0, "new": 0]
            var current = 0
            for round in 0..<200 {
                let old = try #require(try aliasPath(alias))
                let next = 1 - current
                try FileManager.default.moveItem(atPath: places[current], toPath: places[next])
                current = next
                let process = Process()
                process.executableURL = URL(fileURLWithPath: binary)
                process.arguments = ["refresh", alias]
                process.standardOutput = FileHandle.nullDevice
                process.standardError = FileHandle.nullDevice
                try process.run()
                usleep(UInt32.random(in: 0...60_000, using: &generator))
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                let found = try aliasPath(alias)
                #expect(found == old || found == places[current], "round \(round): \(found ?? "nil")")
                outcomes[found == old ? "old" : "new", default: 0] += 1
                let attribute = getxattrBytes(alias, "user.com.apple.FinderInfo")
                #expect(attribute?.count == 32, "round \(round): FinderInfo missing")
            }
            // Temporary files a kill left behind are never the alias itself; clean them up.
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: volume.path(""))
                .filter { $0.hasPrefix(".the alias.") && $0.hasSuffix(".tmp") }
            print("refresh killed 200 times: \(outcomes), temporary files left by kills: \(leftovers.count)")
            #expect(outcomes["old", default: 0] + outcomes["new", default: 0] == 200)
            let final = try BookmarkTool.run(["refresh", alias])
            #expect(final.status == 0)
            #expect(try aliasPath(alias) == places[current])
        }
    }

    /// The attribute's bytes, read by Python's `os.getxattr` (an independent reader).
    func getxattrBytes(_ path: String, _ name: String) -> [UInt8]? {
        guard let result = try? Shell.run([
            "python3", "-c", "import os,sys; sys.stdout.buffer.write(os.getxattr(sys.argv[1], sys.argv[2]))", path, name,
        ]), result.status == 0 else { return nil }
        return [UInt8](result.stdoutData)
    }

    @Test("ref prints a URL; ref --resolve follows renames in a new process; deleted exits 3; bad URL 64")
    func ref() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let file = volume.path("f.txt")
            try Data("f".utf8).write(to: URL(fileURLWithPath: file))
            let made = try json(BookmarkTool.run(["ref", file, "--json"]))
            let url = try #require(made["url"] as? String)
            #expect(url.hasPrefix("file:///.file/id="))
            #expect(made["directory"] as? Bool == false)
            try FileManager.default.createDirectory(atPath: volume.path("d"), withIntermediateDirectories: true)
            try FileManager.default.moveItem(atPath: file, toPath: volume.path("d/g.txt"))
            let resolved = try json(BookmarkTool.run(["ref", "--resolve", url, "--json"]))
            #expect(resolved["path"] as? String == volume.path("d/g.txt"))
            let directory = try BookmarkTool.run(["ref", volume.path("d")])
            #expect(directory.stdout.hasSuffix("/\n"))
            try FileManager.default.removeItem(atPath: volume.path("d/g.txt"))
            #expect(try BookmarkTool.run(["ref", "--resolve", url]).status == 3)
            #expect(try BookmarkTool.run(["ref", "--resolve", "file:///tmp/x"]).status == 64)
            #expect(try BookmarkTool.run(["ref", volume.path("missing")]).status == 3)
        }
    }

    @Test("make --sign creates a 0600 key; resolve --verify: valid 0, unsigned/tampered/other key 6, outside --within 13")
    func signAndVerify() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let file = volume.path("doc.txt")
            try Data("d".utf8).write(to: URL(fileURLWithPath: file))
            let key = volume.path("keys/app/key")
            let signed = volume.path("signed.book")
            let made = try json(BookmarkTool.run(["make", "--sign", key, "-o", signed, file, "--json"]))
            #expect(made["signed"] as? Bool == true)
            #expect(made["keyCreated"] as? Bool == true)
            let attributes = try FileManager.default.attributesOfItem(atPath: key)
            #expect((attributes[.posixPermissions] as? Int) == 0o600)
            let valid = try json(BookmarkTool.run(["resolve", "--verify", key, signed, "--json"]))
            #expect(valid["path"] as? String == file)
            #expect(valid["verified"] as? Bool == true)
            #expect(valid["readOnly"] as? Bool == false)
            // Base64 on stdout verifies too.
            let printed = try BookmarkTool.run(["make", "--sign", key, "--read-only", file])
            let viaStdin = try json(BookmarkTool.run(["resolve", "--verify", key, "-", "--json"], input: Data(printed.stdout.utf8)))
            #expect(viaStdin["readOnly"] as? Bool == true)

            let unsigned = volume.path("unsigned.book")
            #expect(try BookmarkTool.run(["make", file, "-o", unsigned]).status == 0)
            #expect(try BookmarkTool.run(["resolve", "--verify", key, unsigned]).status == 6)
            var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: signed)))
            bytes[bytes.count / 2] ^= 0xFF
            let tampered = volume.path("tampered.book")
            try Data(bytes).write(to: URL(fileURLWithPath: tampered))
            let tamperedResult = try BookmarkTool.run(["resolve", "--verify", key, tampered])
            #expect(tamperedResult.status == 6 || tamperedResult.status == 5, "\(tamperedResult.stderr)")
            let otherKey = volume.path("keys/other")
            #expect(try BookmarkTool.run(["make", "--sign", otherKey, "-o", volume.path("o.book"), file]).status == 0)
            #expect(try BookmarkTool.run(["resolve", "--verify", otherKey, signed]).status == 6)
            // Without --verify the data is ordinary bookmark data.
            #expect(try BookmarkTool.run(["resolve", signed]).status == 0)
            // Confinement.
            #expect(try BookmarkTool.run(["resolve", "--verify", key, "--within", volume.path(""), signed]).status == 0)
            #expect(try BookmarkTool.run(["resolve", "--verify", key, "--within", volume.path("keys"), signed]).status == 13)
            // The key file: too open, or owned by someone else.
            try Shell.check(["chmod", "0644", key])
            #expect(try BookmarkTool.run(["resolve", "--verify", key, signed]).status == 6)
            #expect(try BookmarkTool.run(["make", "--sign", key, file]).status == 6)
            try Shell.check(["chmod", "0600", key])
            if getuid() == 0 {
                try Shell.check(["chown", "65534:65534", key])
                #expect(try BookmarkTool.run(["resolve", "--verify", key, signed]).status == 6)
                try Shell.check(["chown", "0:0", key])
                #expect(try BookmarkTool.run(["resolve", "--verify", key, signed]).status == 0)
            }
        }
    }

    @Test("as uid 65534: alias, resolve and refresh in its own directory; a read-only directory refuses with 13",
          .requiresUnprivilegedUser)
    func unprivilegedAliases() throws {
        try LoopVolume.withVolume(.xfs) { volume in
            let home = volume.path("nobody")
            try FileManager.default.createDirectory(atPath: home + "/docs", withIntermediateDirectories: true)
            try Shell.check(["chown", "-R", "65534:65534", home])
            let target = home + "/docs/t.txt"
            #expect(try Unprivileged.run(["sh", "-c", "echo t > '\(target)'"]).status == 0)
            let alias = home + "/t alias"
            let made = try BookmarkTool.runUnprivileged(["alias", target, alias])
            #expect(made.status == 0, "\(made.stderr)")
            #expect(try Unprivileged.run(["mv", target, home + "/moved.txt"]).status == 0)
            let resolved = try BookmarkTool.runUnprivileged(["resolve", alias])
            #expect(resolved.stdout == home + "/moved.txt\n", "\(resolved.stderr)")
            let refreshed = try BookmarkTool.runUnprivileged(["refresh", alias])
            #expect(refreshed.status == 0 && refreshed.stdout.hasPrefix("refreshed"), "\(refreshed.stderr)")
            #expect(try aliasPath(alias) == home + "/moved.txt")
            // An alias into a directory uid 65534 cannot write: 13, nothing written.
            let denied = try BookmarkTool.runUnprivileged(["alias", home + "/moved.txt", volume.path("root-owned alias")])
            #expect(denied.status == 13, "\(denied.stderr)")
            #expect(!FileManager.default.fileExists(atPath: volume.path("root-owned alias")))
        }
    }

    @Test("refresh by root leaves a user's files the user's (owner, group, mode); the user refreshing a file root left in its folder gets it",
          .requiresUnprivilegedUser)
    func refreshKeepsOwner() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let home = volume.path("nobody")
            try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
            for name in ["a", "b"] { try Data(name.utf8).write(to: URL(fileURLWithPath: home + "/\(name).txt")) }
            #expect(try BookmarkTool.run(["make", home + "/a.txt", "-o", home + "/a.bookmark"]).status == 0)
            #expect(try BookmarkTool.run(["alias", home + "/b.txt", home + "/b alias"]).status == 0)
            try Shell.check(["chown", "-R", "65534:65534", home])
            try Shell.check(["chmod", "0640", home + "/a.bookmark"])
            for name in ["a", "b"] { try FileManager.default.moveItem(atPath: home + "/\(name).txt", toPath: home + "/\(name)-moved.txt") }
            // A root cron job refreshing users' bookmarks must not take their files.
            let refreshed = try BookmarkTool.run(["refresh", home + "/a.bookmark", home + "/b alias"])
            #expect(refreshed.status == 0, "\(refreshed.stderr)")
            #expect(refreshed.stdout.split(separator: "\n").allSatisfy { $0.hasPrefix("refreshed") }, "\(refreshed.stdout)")
            for file in [home + "/a.bookmark", home + "/b alias"] {
                var info = stat()
                #expect(lstat(file, &info) == 0)
                #expect(info.st_uid == 65534 && info.st_gid == 65534, "\(file): \(info.st_uid):\(info.st_gid)")
            }
            var info = stat()
            #expect(lstat(home + "/a.bookmark", &info) == 0 && info.st_mode & 0o777 == 0o640)
            // The other way: a file root left in the user's folder, refreshed by the user, becomes
            // the user's (it cannot be given to root), and the refresh succeeds.
            try Shell.check(["chown", "0:0", home + "/a.bookmark"])
            try Shell.check(["chmod", "0644", home + "/a.bookmark"])
            try FileManager.default.moveItem(atPath: home + "/a-moved.txt", toPath: home + "/a-again.txt")
            let own = try BookmarkTool.runUnprivileged(["refresh", home + "/a.bookmark"])
            #expect(own.status == 0, "\(own.stderr)")
            #expect(lstat(home + "/a.bookmark", &info) == 0 && info.st_uid == 65534)
        }
    }

    @Test("eight processes creating the same key at once end up with one key that verifies all their data")
    func concurrentKeyCreation() throws {
        let binary = try #require(BookmarkTool.path)
        try LoopVolume.withVolume(.ext4) { volume in
            let file = volume.path("doc.txt")
            try Data("d".utf8).write(to: URL(fileURLWithPath: file))
            let key = volume.path("race/app/key")
            let processes = try (0..<8).map { index -> Process in
                let process = Process()
                process.executableURL = URL(fileURLWithPath: binary)
                process.arguments = ["make", "--sign", key, "-o", volume.path("signed\(index).book"), file]
                process.standardOutput = FileHandle.nullDevice
                process.standardError = FileHandle.nullDevice
                try process.run()
                return process
            }
            for process in processes { process.waitUntilExit() }
            #expect(processes.allSatisfy { $0.terminationStatus == 0 })
            for index in 0..<8 {
                let verified = try BookmarkTool.run(["resolve", "--verify", key, volume.path("signed\(index).book")])
                #expect(verified.status == 0, "process \(index): \(verified.stderr)")
            }
            let left = try FileManager.default.contentsOfDirectory(atPath: volume.path("race/app"))
            #expect(left == ["key"], "left behind: \(left)")
        }
    }

    @Test("as uid 65534: root's key is refused; its own key works until it is opened up",
          .requiresUnprivilegedUser)
    func unprivilegedKeys() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let file = volume.path("doc.txt")
            try Data("d".utf8).write(to: URL(fileURLWithPath: file))
            let rootKey = volume.path("root.key")
            let signed = volume.path("signed.book")
            #expect(try BookmarkTool.run(["make", "--sign", rootKey, "-o", signed, file]).status == 0)
            try Shell.check(["chmod", "0644", signed])
            #expect(try BookmarkTool.runUnprivileged(["resolve", "--verify", rootKey, signed]).status == 6)
            // Readable by everyone but owned by root: still not this user's key.
            try Shell.check(["chmod", "0604", rootKey])
            #expect(try BookmarkTool.runUnprivileged(["resolve", "--verify", rootKey, signed]).status == 6)

            let home = volume.path("nobody")
            try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
            try Shell.check(["chown", "65534:65534", home])
            let ownKey = home + "/app/key"
            let ownSigned = home + "/signed.book"
            let made = try BookmarkTool.runUnprivileged(["make", "--sign", ownKey, "-o", ownSigned, file])
            #expect(made.status == 0, "\(made.stderr)")
            let verified = try BookmarkTool.runUnprivileged(["resolve", "--verify", ownKey, ownSigned])
            #expect(verified.status == 0, "\(verified.stderr)")
            #expect(verified.stdout == file + "\n")
            // Root cannot verify with it: the key belongs to uid 65534.
            #expect(try BookmarkTool.run(["resolve", "--verify", ownKey, ownSigned]).status == 6)
            _ = try Unprivileged.run(["chmod", "0640", ownKey])
            #expect(try BookmarkTool.runUnprivileged(["resolve", "--verify", ownKey, ownSigned]).status == 6)
        }
    }
}
