// SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing
import VolumeFixtures

/// The `scope-probe` executable built next to the tests: an application whose identity is its
/// file name or `--app-id`.
enum ScopeProbe {
    static let path: String? = {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        if directory.lastPathComponent.hasSuffix(".xctest") { directory.deleteLastPathComponent() }
        let candidate = directory.appendingPathComponent("scope-probe").path
        return FileManager.default.isExecutableFile(atPath: candidate) ? candidate : nil
    }()

    /// Runs the probe with `XDG_DATA_HOME=keys` (as uid 65534 when `unprivileged`); its one line.
    static func run(_ probe: String, keys: String, _ arguments: [String], unprivileged: Bool = false) throws -> String {
        let command = ["env", "XDG_DATA_HOME=\(keys)", "HOME=\(keys)", probe] + arguments
        let result = unprivileged ? try Unprivileged.run(command) : try Shell.run(command)
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// Security scope across processes: bookmark data made by one application does not resolve with
/// `.withSecurityScope` in another, as on macOS.
@Suite("Security scope: applications in separate processes", .serialized, .requiresRealVolumes)
struct SecurityScopeProcessTests {
    @Test("data made by application A resolves with scope only in A: not in B (--app-id), not in a copy under another name")
    func otherApplications() throws {
        let probe = try #require(ScopeProbe.path, "scope-probe is built with the tests")
        try LoopVolume.withVolume(.ext4) { volume in
            let keys = volume.path("keys")
            let file = volume.path("shared/report.txt")
            try FileManager.default.createDirectory(atPath: volume.path("shared"), withIntermediateDirectories: true)
            try Data("r".utf8).write(to: URL(fileURLWithPath: file))

            let identity = try ScopeProbe.run(probe, keys: keys, ["identity"])
            #expect(identity == "scope-probe \(keys)/scope-probe/bookmark-signing.key")
            let data = try ScopeProbe.run(probe, keys: keys, ["make", file])
            #expect(Data(base64Encoded: data) != nil, "made: \(data)")

            #expect(try ScopeProbe.run(probe, keys: keys, ["resolve", data]) == "ok \(file) stale=0 start=true")
            #expect(try ScopeProbe.run(probe, keys: keys, ["--app-id", "com.example.B", "resolve", data]) == "error 259")
            // Without the option, any application resolves it, but gets no scope.
            #expect(
                try ScopeProbe.run(probe, keys: keys, ["--app-id", "com.example.B", "resolve", data, "unscoped"])
                    == "ok \(file) stale=0 start=false")
            // The same program under another file name is another application.
            let copy = volume.path("other-app")
            try FileManager.default.copyItem(atPath: probe, toPath: copy)
            #expect(try ScopeProbe.run(copy, keys: keys, ["identity"]).hasPrefix("other-app "))
            #expect(try ScopeProbe.run(copy, keys: keys, ["resolve", data]) == "error 259")
            // B's own data resolves in B, and not in A.
            let fromB = try ScopeProbe.run(probe, keys: keys, ["--app-id", "com.example.B", "make", file])
            #expect(try ScopeProbe.run(probe, keys: keys, ["--app-id", "com.example.B", "resolve", fromB]) == "ok \(file) stale=0 start=true")
            #expect(try ScopeProbe.run(probe, keys: keys, ["resolve", fromB]) == "error 259")
            // After a move, A still resolves its data, stale.
            try FileManager.default.moveItem(atPath: file, toPath: volume.path("shared/report-2.txt"))
            #expect(try ScopeProbe.run(probe, keys: keys, ["resolve", data]) == "ok \(volume.path("shared/report-2.txt")) stale=1 start=true")
            // The identity is set once.
            #expect(try ScopeProbe.run(probe, keys: keys, ["--app-id", "com.example.A", "set-again", "com.example.C"]) == "set=false")
        }
    }

    @Test("a read-only scope refuses writing in the application (513); a writable one writes")
    func readOnlyAcrossProcesses() throws {
        let probe = try #require(ScopeProbe.path, "scope-probe is built with the tests")
        try LoopVolume.withVolume(.ext4) { volume in
            let keys = volume.path("keys")
            let file = volume.path("doc.txt")
            try Data("before".utf8).write(to: URL(fileURLWithPath: file))
            let readOnly = try ScopeProbe.run(probe, keys: keys, ["make", file, "read-only"])
            #expect(try ScopeProbe.run(probe, keys: keys, ["write", readOnly, "after"]) == "error 513")
            #expect(try String(contentsOfFile: file, encoding: .utf8) == "before")
            let writable = try ScopeProbe.run(probe, keys: keys, ["make", file])
            #expect(try ScopeProbe.run(probe, keys: keys, ["write", writable, "after!"]) == "ok")
            #expect(try String(contentsOfFile: file, encoding: .utf8) == "after!")
        }
    }

    @Test("as uid 65534: the key is the user's own (0600 in a 0700 directory); a key readable by others is refused (256, 'Failed to retrieve app-scope key')")
    func unprivilegedKey() throws {
        if let reason = Unprivileged.unavailableReason {
            print("skipped: \(reason)")
            return
        }
        let probe = try #require(ScopeProbe.path, "scope-probe is built with the tests")
        try LoopVolume.withVolume(.ext4) { volume in
            let keys = volume.path("nobody-keys")
            let file = volume.path("n.txt")
            try Data("n".utf8).write(to: URL(fileURLWithPath: file))
            try FileManager.default.createDirectory(atPath: keys, withIntermediateDirectories: true)
            for path in [keys, file] { chown(path, uid_t(Unprivileged.uid), gid_t(Unprivileged.uid)) }
            chmod(volume.path(""), 0o755)

            let data = try ScopeProbe.run(probe, keys: keys, ["make", file], unprivileged: true)
            #expect(Data(base64Encoded: data) != nil, "made as nobody: \(data)")
            #expect(try ScopeProbe.run(probe, keys: keys, ["resolve", data], unprivileged: true) == "ok \(file) stale=0 start=true")
            let keyPath = "\(keys)/scope-probe/bookmark-signing.key"
            let attributes = try FileManager.default.attributesOfItem(atPath: keyPath)
            #expect((attributes[.posixPermissions] as? Int) == 0o600)
            #expect((attributes[.ownerAccountID] as? Int) == Unprivileged.uid)
            let directory = try FileManager.default.attributesOfItem(atPath: "\(keys)/scope-probe")
            #expect((directory[.posixPermissions] as? Int) == 0o700)

            // root's key for the same application is another key: nobody's data does not verify.
            #expect(try ScopeProbe.run(probe, keys: volume.path("root-keys"), ["resolve", data]) == "error 259")

            // A key others can read is refused, not used.
            chmod(keyPath, 0o644)
            #expect(try ScopeProbe.run(probe, keys: keys, ["resolve", data], unprivileged: true) == "error 256")
            #expect(try ScopeProbe.run(probe, keys: keys, ["make", file], unprivileged: true) == "error 256")
        }
    }
}
