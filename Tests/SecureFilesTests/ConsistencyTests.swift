// SPDX-License-Identifier: Apache-2.0
import Foundation
import SecureFiles
import SystemPackage
import Testing
import VolumeFixtures

/// Go's consistency idea: the same operation through a `Directory` and through plain libc on two
/// identical trees must give the same result and leave the same tree, except where the library
/// refused an escape (which plain libc happily follows).
@Suite("Consistency with plain libc", .serialized, .requiresRealVolumes)
struct ConsistencyTests {
    static let createPaths = [
        "new", "a/new", "b/c/d/new", "link1/target_rel/new", "link2/link1_rel/target_rel/new2", "b-file/new",
        "a-fake1/new", "b/c/file", "b/c/file/new", "dangling/a/b/new", "loop/link/new", "b/fifo/new", "a", "b-file",
        "a-fake1", "escape-link1/new", "root-link1/new", "c/a-fake1", "go-chain", "target/../a/new3",
    ]

    func listing(_ root: String) -> [String] {
        (FileManager.default.enumerator(atPath: root)?.allObjects as? [String] ?? []).sorted()
    }

    @Test("createFile: same errno or an escape refusal, and the same resulting tree", arguments: [ResolverBackend.automatic, .walker])
    func createFile(backend: ResolverBackend) throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let mine = volume.path("mine/root")
            let plain = volume.path("plain/root")
            for base in [mine, plain] {
                try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
                try TreeFixture.build("basic-tree.txt", under: base)
            }
            let root = try Directory(opening: FilePath(mine), backend: backend)
            var compared = 0
            var escapes = 0
            for path in Self.createPaths {
                let library: Int32
                do throws(FileSystemError) {
                    _ = try root.createFile(FilePath(path))
                    library = 0
                } catch {
                    if error.violation == .escape {
                        escapes += 1
                        continue
                    }
                    library = error.errno.rawValue
                }
                let fd = open(plain + "/" + path, O_CREAT | O_EXCL | O_NOFOLLOW | O_WRONLY | O_CLOEXEC | O_NONBLOCK, 0o600)
                let libc = fd >= 0 ? 0 : errno
                if fd >= 0 { close(fd) }
                #expect(library == libc, "\(path): library \(library), libc \(libc)")
                compared += 1
            }
            #expect(compared >= 16 && escapes >= 2)
            // Escapes were only attempted on the library side, so the trees must be identical.
            #expect(listing(mine) == listing(plain))
        }
    }

    @Test("removeAll: same resulting tree as rm -r for paths inside the root", arguments: [ResolverBackend.automatic, .walker])
    func removeAll(backend: ResolverBackend) throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let mine = volume.path("mine/root")
            let plain = volume.path("plain/root")
            for base in [mine, plain] {
                try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
                try TreeFixture.build("basic-tree.txt", under: base)
            }
            let root = try Directory(opening: FilePath(mine), backend: backend)
            for path in ["b", "link1", "loop", "dangling-file/a", "a-fake1", "missing", "go/a/e"] {
                try root.removeAll(FilePath(path))
                _ = try Shell.run(["rm", "-rf", "--one-file-system", plain + "/" + path])
                #expect(listing(mine) == listing(plain), "\(path)")
            }
        }
    }
}
