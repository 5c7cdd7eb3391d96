// SPDX-License-Identifier: Apache-2.0
import CLinuxShims
import Dispatch
import Foundation
import SecureFiles
import SystemPackage
import Testing
import VolumeFixtures

/// A second thread swapping directories and symlinks with `renameat2(RENAME_EXCHANGE)` in a loop
/// while we resolve, read, create, createDirectory(withIntermediateDirectories:) and removeAll (on a loop-mounted ext4 volume). Ours
/// must never escape; a deliberately naive resolver under the same harness must, which proves the
/// harness can see an escape. Counts are printed for the report.
@Suite("Rename-exchange races", .serialized, .requiresRealVolumes)
struct RaceTests {
    static let iterations = 3000
    static let outsideMarker = Array("OUTSIDE".utf8)

    /// Failures collected from concurrent tasks.
    final class Failures: Sendable {
        private let list = Guarded<[String]>([])
        func add(_ failure: String) { list.withLock { $0.append(failure) } }
        var all: [String] { list.withLock { $0 } }
    }

    struct Tally: CustomStringConvertible {
        var attempts = 0
        var inside = 0
        var errors: [Int32: Int] = [:]
        var escapes = 0
        var description: String {
            let errs = errors.sorted { $0.key < $1.key }.map { "\(String(cString: strerror($0.key))): \($0.value)" }
            return "\(attempts) attempts, \(inside) inside, \(escapes) escapes, errors [\(errs.joined(separator: ", "))]"
        }
    }

    /// realpath(path), check it is inside the root, then read by path: the classic check-then-use.
    static func naiveReadLoop(_ rootPath: String) -> Tally {
        var tally = Tally()
        let deadline = ContinuousClock.now + .seconds(10)
        let path = rootPath + "/etc-target/passwd"
        while tally.attempts < iterations || (tally.escapes == 0 && ContinuousClock.now < deadline) {
            tally.attempts += 1
            guard let resolved = realpath(path, nil) else {
                tally.errors[ENOENT, default: 0] += 1
                continue
            }
            let checked = String(cString: resolved).hasPrefix(rootPath + "/")
            free(resolved)
            guard checked else {
                tally.errors[EXDEV, default: 0] += 1
                continue
            }
            guard let data = FileManager.default.contents(atPath: path) else {
                tally.errors[ENOENT, default: 0] += 1
                continue
            }
            if Array(data) == outsideMarker { tally.escapes += 1 } else { tally.inside += 1 }
        }
        return tally
    }

    /// realpath(dir), check it is inside the root, then create by path.
    static func naiveCreateLoop(_ rootPath: String, outside: String, before: Set<String>) -> (attempts: Int, escaped: Int) {
        var attempts = 0
        var escaped = 0
        let deadline = ContinuousClock.now + .seconds(10)
        while attempts < iterations || (escaped == 0 && ContinuousClock.now < deadline) {
            attempts += 1
            guard let resolved = realpath(rootPath + "/dir", nil) else { continue }
            let checked = String(cString: resolved).hasPrefix(rootPath + "/")
            free(resolved)
            if checked {
                let fd = open(rootPath + "/dir/naive\(attempts)", O_CREAT | O_WRONLY | O_CLOEXEC, 0o600)
                if fd >= 0 { close(fd) }
            }
            if attempts % 500 == 0 { escaped = Set(snapshotOf(outside)).subtracting(before).count }
        }
        return (attempts, escaped)
    }

    static func snapshotOf(_ directory: String) -> [String] {
        (FileManager.default.enumerator(atPath: directory)?.allObjects as? [String] ?? []).sorted()
    }

    /// The race tree: the CVE-2018-15664 pair, a directory that can be swapped for a link out of
    /// the root, and an outside tree that would be read, created in or deleted from on escape.
    func makeTree(_ volume: LoopVolume) throws -> (root: String, outside: String) {
        let root = volume.path("root")
        let outside = volume.path("outside")
        try TreeFixture.makeFile(root + "/etc-target", Array("passwd".utf8), contents: Array("inside".utf8))
        try TreeFixture.makeFile(outside + "/etc", Array("passwd".utf8), contents: Self.outsideMarker)
        _ = symlink("../outside/etc", root + "/etc-attack-rel-link")
        _ = symlink(outside + "/etc", root + "/etc-attack-abs-link")
        try TreeFixture.makeFile(root + "/a/b/c/d", Array("file".utf8), contents: Array("inside".utf8))
        try TreeFixture.makeFile(outside + "/c/d", Array("file".utf8), contents: Self.outsideMarker)
        _ = symlink("../../outside", root + "/a/outside-link")
        try TreeFixture.makeFile(root + "/a", Array("file-b".utf8), contents: Array("a file".utf8))
        _ = symlink("../../../outside/c", root + "/a/c-link")
        try FileManager.default.createDirectory(atPath: root + "/dir", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: outside + "/dir/victim", withIntermediateDirectories: true)
        try TreeFixture.makeFile(outside + "/dir/victim", Array("sentinel".utf8), contents: Self.outsideMarker)
        _ = symlink("../outside/dir", root + "/dir-link")
        return (root, outside)
    }

    func snapshot(_ directory: String) -> [String] { Self.snapshotOf(directory) }

    func readThrough(_ root: Directory, _ path: String) -> Result<[UInt8], FileSystemError> {
        Result { () throws(FileSystemError) -> [UInt8] in
            try root.open(FilePath(path)).readToEnd(limit: 1 << 16)
        }
    }

    func tally(_ results: () -> Result<[UInt8], FileSystemError>, count: Int) -> Tally {
        var tally = Tally()
        for _ in 0..<count {
            tally.attempts += 1
            switch results() {
            case .success(let bytes): if bytes == Self.outsideMarker { tally.escapes += 1 } else { tally.inside += 1 }
            case .failure(let error): tally.errors[error.errno.rawValue, default: 0] += 1
            }
        }
        return tally
    }

    @Test("resolving while directories and symlinks are exchanged: zero escapes, both resolvers, both scopes")
    func resolveRaces() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let (rootPath, _) = try makeTree(volume)
            let scenarios: [(String, String, String, String, String)] = [
                ("etc-target <-> etc-attack-rel-link", rootPath, "etc-target", rootPath, "etc-attack-rel-link"),
                ("etc-target <-> etc-attack-abs-link", rootPath, "etc-target", rootPath, "etc-attack-abs-link"),
                ("a/b <-> a/outside-link", rootPath + "/a", "b", rootPath + "/a", "outside-link"),
                ("a/b <-> a/file-b (a directory becomes a file)", rootPath + "/a", "b", rootPath + "/a", "file-b"),
                ("a/b/c <-> a/c-link, ..-heavy path", rootPath + "/a/b", "c", rootPath + "/a", "c-link"),
            ]
            let reads = [
                "etc-target/passwd", "etc-target/passwd", "a/b/c/d/file", "a/b/c/d/file",
                "a/b/../b/../b/c/d/../d/../d/file",
            ]
            var totalEscapes = 0
            for (index, (label, dir1, name1, dir2, name2)) in scenarios.enumerated() {
                for backend in [ResolverBackend.automatic, .walker] {
                    for policy in [ResolutionPolicy.beneath, .inRoot] {
                        let root = try Directory(opening: FilePath(rootPath), policy: policy, backend: backend)
                        let swapper = RenameExchanger(dir1, name1, dir2, name2)
                        let result = tally({ readThrough(root, reads[index]) }, count: Self.iterations)
                        let swaps = swapper.stop()
                        print("race \(label) [\(backend) \(policy)]: \(result); \(swaps) swaps")
                        totalEscapes += result.escapes
                        #expect(result.escapes == 0, "\(label) \(backend) \(policy): \(result)")
                        #expect(swaps > 0)
                    }
                }
            }
            #expect(totalEscapes == 0)
        }
    }

    @Test("the naive resolver (realpath check, then open by path) escapes under the same harness")
    func naiveEscapes() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let (rootPath, _) = try makeTree(volume)
            let swapper = RenameExchanger(rootPath, "etc-target", rootPath, "etc-attack-rel-link")
            let tally = Self.naiveReadLoop(rootPath)
            let swaps = swapper.stop()
            print("race naive realpath-then-open: \(tally); \(swaps) swaps")
            #expect(tally.escapes > 0, "the harness must be able to see an escape: \(tally)")
        }
    }

    @Test("creating, createDirectory(withIntermediateDirectories:) and removeAll while the directory is exchanged with a link out: nothing outside changes")
    func creationRaces() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let (rootPath, outside) = try makeTree(volume)
            let before = snapshot(outside)
            for backend in [ResolverBackend.automatic, .walker] {
                let root = try Directory(opening: FilePath(rootPath), backend: backend)
                let swapper = RenameExchanger(rootPath, "dir", rootPath, "dir-link")
                var created = 0
                var made = 0
                var removed = 0
                var refused = 0
                for index in 0..<(Self.iterations / 4) {
                    do {
                        _ = try root.createFile(FilePath("dir/f\(index)"))
                        created += 1
                    } catch { refused += 1 }
                    do {
                        _ = try root.createDirectory(FilePath("dir/m\(index)/x/y"), withIntermediateDirectories: true)
                        made += 1
                    } catch { refused += 1 }
                    do {
                        _ = try root.createDirectory("dir/victim/sub", withIntermediateDirectories: true)
                        _ = try? root.createFile("dir/victim/sub/sentinel")
                        try root.removeAll("dir/victim")
                        removed += 1
                    } catch { refused += 1 }
                }
                let swaps = swapper.stop()
                let after = snapshot(outside)
                print(
                    "race create/mkdir -p/removeAll [\(backend)]: \(created) files, \(made) mkdir -p, \(removed) removeAll, "
                        + "\(refused) refused; \(swaps) swaps; outside changed: \(after != before)")
                #expect(after == before, "outside changed: \(Set(after).symmetricDifference(before).sorted().prefix(10))")
                #expect(swaps > 0)
                #expect(created + made + removed > 0)
                #expect(FileManager.default.contents(atPath: outside + "/dir/victim/sentinel") == Data(Self.outsideMarker))
                try root.removeAll("dir")
                try FileManager.default.createDirectory(atPath: rootPath + "/dir", withIntermediateDirectories: true)
            }
        }
    }

    @Test("removeAll while a directory inside the tree being removed is exchanged with a link out: nothing outside is deleted")
    func removeAllRaces() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let (rootPath, outside) = try makeTree(volume)
            let before = snapshot(outside)
            for backend in [ResolverBackend.automatic, .walker] {
                let root = try Directory(opening: FilePath(rootPath), backend: backend)
                var completed = 0
                var swaps = 0
                for _ in 0..<(Self.iterations / 20) {
                    _ = try root.createDirectory("top/victim/sub", withIntermediateDirectories: true)
                    for name in ["a", "b", "sub/c"] { _ = try? root.createFile(FilePath("top/victim/" + name)) }
                    try root.createSymlink("top/victim-link", target: Array("../../outside/dir/victim".utf8))
                    let swapper = RenameExchanger(rootPath + "/top", "victim", rootPath + "/top", "victim-link")
                    if (try? root.removeAll("top")) != nil { completed += 1 }
                    swaps += swapper.stop()
                    try? root.removeAll("top")
                }
                let after = snapshot(outside)
                print("race removeAll with an inner exchange [\(backend)]: \(completed) of \(Self.iterations / 20) completed; \(swaps) swaps; outside changed: \(after != before)")
                #expect(after == before)
                #expect(completed > 0)
            }
        }
    }

    @Test("concurrent createDirectory(withIntermediateDirectories:) of one deep path and concurrent removeAll of one tree never fail spuriously")
    func concurrentTrees() async throws {
        let base = try TreeFixture.scratch("concurrent")
        defer { try? FileManager.default.removeItem(atPath: base) }
        let deep = (0..<26).map { "d\($0)" }.joined(separator: "/")
        let failures = Failures()
        for round in 0..<10 {
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        do {
                            let root = try Directory(opening: FilePath(base))
                            _ = try root.createDirectory(FilePath(deep), withIntermediateDirectories: true)
                            for sibling in 0..<20 { _ = try? root.createFile(FilePath("d0/s\(sibling)")) }
                        } catch { failures.add("mkdir -p round \(round): \(error)") }
                    }
                }
            }
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        do {
                            try Directory(opening: FilePath(base)).removeAll("d0")
                        } catch { failures.add("removeAll round \(round): \(error)") }
                    }
                }
            }
            #expect(!FileManager.default.fileExists(atPath: base + "/d0"))
        }
        #expect(failures.all.isEmpty, "\(failures.all)")
    }

    @Test("the naive creator (realpath check, then create by path) writes outside under the same harness")
    func naiveCreates() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let (rootPath, outside) = try makeTree(volume)
            let before = Set(snapshot(outside))
            let swapper = RenameExchanger(rootPath, "dir", rootPath, "dir-link")
            var (attempts, escaped) = Self.naiveCreateLoop(rootPath, outside: outside, before: before)
            _ = swapper.stop()
            escaped = Set(snapshot(outside)).subtracting(before).count
            print("race naive create: \(attempts) attempts, \(escaped) files created outside the root")
            #expect(escaped > 0)
        }
    }
}
