// SPDX-License-Identifier: Apache-2.0
@testable import BookmarkKit
import Foundation
import SecureFiles
import SystemPackage
import Testing
import VolumeFixtures

/// What a volume's walk does at a mount point inside the volume: it never enters one, and it says
/// so only for a mount of the volume's own file system (a bind mount of one of its folders), where
/// a moved file may be; a mount of another file system cannot hold it.
@Suite("A walk meeting mounts inside its volume", .serialized, .requiresRealVolumes)
struct WalkMountTests {
    /// `lib` on the volume, made by the shell `script` run in it.
    static func tree(on volume: LoopVolume, _ script: String) throws -> Tree {
        let tree = Tree(root: volume.path("lib"))
        try tree.dir("")
        try tree.shell(script)
        return tree
    }

    /// `lib`, opened as a directory.
    static func open(_ tree: Tree) throws -> OwnedDescriptor {
        try Directory.current.open(FilePath(tree.path("")), options: [.readOnly, .directory])
    }

    @Test("a bind mount of the volume's folder is the same file system; tmpfs and a plain folder are not mount points of it")
    func sameFileSystem() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let tree = try Self.tree(on: volume, "mkdir plain bound other && : > plain/f")
            try tree.shell("mount --bind plain bound && mount -t tmpfs tmpfs other")
            defer { _ = try? tree.shell("umount bound; umount other") }
            let root = try Self.open(tree)
            defer { try? root.close() }
            func verdict(_ name: String) -> Bool? {
                do throws(FileSystemError) {
                    let opened = try root.openChildDirectory(Array(name.utf8), sameMount: true)
                    try? opened.close()
                    return nil
                } catch {
                    return VolumeWalker.isMountOfSameFileSystem(error, Array(name.utf8), in: root, as: root)
                }
            }
            #expect(verdict("plain") == nil)
            #expect(verdict("bound") == true)
            #expect(verdict("other") == false)
            #expect(verdict("missing") == false)
        }
    }

    @Test("the walker reports the bind mount it passed over, not the tmpfs")
    func walkerReports() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let tree = try Self.tree(on: volume, "mkdir -p plain/deep bound other && : > plain/deep/f")
            try tree.shell("mount -t tmpfs tmpfs other")
            defer { _ = try? tree.shell("umount other") }
            func skipped() throws -> Bool {
                let root = try Self.open(tree)
                defer { try? root.close() }
                var walker = VolumeWalker(budget: .unlimited, cancellation: nil)
                _ = try? walker.walk(root, path: Array(tree.path("").utf8), interesting: { _ in false }, examine: { _, _, _ in false })
                #expect(walker.entries >= 5)
                return walker.skippedMounts
            }
            #expect(try skipped() == false)
            try tree.shell("mount --bind plain bound")
            defer { _ = try? tree.shell("umount bound") }
            #expect(try skipped() == true)
        }
    }
}
