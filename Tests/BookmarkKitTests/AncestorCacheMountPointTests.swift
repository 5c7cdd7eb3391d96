// SPDX-License-Identifier: Apache-2.0
import BookmarkKit
import FileIdentity
import Foundation
import SecureFiles
import SystemPackage
import Testing
import VolumeFixtures

#if canImport(Glibc)
    import Glibc
#endif

/// The directories down to a volume's mount point come from the volume's facts (examined once per
/// `MountedVolumes`), not from each first meeting: and a table that no longer knows where the
/// volume is mounted makes creation examine the whole path again.
extension AncestorCacheTests {
    /// The directories a traced creation examined by path: its `statx` calls, less the target's
    /// own and those of directories it watched (a directory met before is watched, then examined;
    /// suites running in parallel meet `/var` and the fixtures' folder all the time).
    func examined(_ trace: AuditLog, target: String) -> [String] {
        let watched = Set(trace.calls.filter { $0.name == "inotify_add_watch" }.compactMap(\.path))
        return trace.calls.filter { $0.name == "statx" }.compactMap { call in
            guard let path = call.path, !path.isEmpty, path != Array(target.utf8), !watched.contains(path) else { return nil }
            return String(decoding: path, as: UTF8.self)
        }
    }

    @Test("a first meeting examines only the directories below the mount point; those down to it, once per table")
    func mountPointExaminedOncePerTable() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let tree = Tree(root: volume.path("t"))
            try tree.file("a/b/doc.txt")
            try tree.file("c/other.txt")
            let mountPoint = try #require(volume.mountPoint?.path)
            let path = tree.path("a/b/doc.txt")
            let other = tree.path("c/other.txt")
            defer { Bookmark.clearAncestorCache() }
            let table = try MountedVolumes()
            Bookmark.clearAncestorCache()
            let (first, firstTrace) = try create(path, volumes: table)
            #expect(first.record.fileIDs == (try currentIDs(path)))
            // The table's first creation on the volume examines its mount point's directories.
            let firstExamined = examined(firstTrace, target: path)
            #expect(firstExamined.contains(mountPoint), "\(firstExamined)")
            for directory in prefixes(of: mountPoint) {
                #expect(firstExamined.filter { $0 == directory }.count <= 1, "\(directory) twice: \(firstExamined)")
            }
            // A cold creation with the same table: only the directories below the mount point.
            Bookmark.clearAncestorCache()
            let (second, secondTrace) = try create(other, volumes: table)
            #expect(second.record.fileIDs == (try currentIDs(other)))
            let secondExamined = examined(secondTrace, target: other)
            #expect(Set(secondExamined) == [tree.root, tree.path("c")], "\(secondExamined)")
            // A new table examines them again.
            Bookmark.clearAncestorCache()
            let (_, thirdTrace) = try create(other, volumes: try MountedVolumes())
            #expect(examined(thirdTrace, target: other).contains(mountPoint))
        }
    }

    @Test("an ancestor of the mount point renamed, the table not re-read: the whole path is examined, the IDs are the path's")
    func mountPointAncestorRenamed() throws {
        try LoopVolume.withVolume(.ext4) { volume in
            let tree = Tree(root: volume.path("t"))
            try tree.file("a/doc.txt")
            let mountPoint = try #require(volume.mountPoint?.path)
            let holder = (mountPoint as NSString).deletingLastPathComponent
            let movedHolder = holder + ".moved"
            let path = tree.path("a/doc.txt")
            defer { Bookmark.clearAncestorCache() }
            let table = try MountedVolumes()
            Bookmark.clearAncestorCache()
            let (before, _) = try create(path, volumes: table)
            #expect(before.record.fileIDs == (try currentIDs(path)))
            // The mount point itself cannot be renamed (EBUSY); its parent can, and takes the
            // mount along. mountinfo shows the new path, but no mount event tells the table.
            try #require(rename(holder, movedHolder) == 0, "rename: errno \(errno)")
            defer { _ = rename(movedHolder, holder) }
            let moved = movedHolder + String(path.dropFirst(holder.count))
            Bookmark.clearAncestorCache()
            let (after, trace) = try create(moved, volumes: table)
            #expect(after.path == Array(moved.utf8))
            #expect(after.record.fileIDs == (try currentIDs(moved)))
            #expect(examined(trace, target: moved).contains(movedHolder), "the renamed directory was not examined")
            // The table's mount point is not a prefix of the path: no mount-relative path is
            // recorded rather than one cut at the old mount point's length.
            #expect(after.record.linux.mountRelativePath == nil)
            #expect(before.record.linux.mountRelativePath?.bytes == Array("/t/a/doc.txt".utf8))
            // The old name now a symlink to the new: the path reaches the volume through it. The
            // IDs recorded are those of the real directories (what `stat` of each prefix gives).
            try #require(symlink(movedHolder, holder) == 0, "symlink: errno \(errno)")
            defer { _ = unlink(holder) }
            Bookmark.clearAncestorCache()
            let (linked, _) = try create(path, volumes: table)
            #expect(linked.record.fileIDs == (try currentIDs(path)))
            let resolved = try linked.resolve(volumes: try MountedVolumes())
            #expect(resolved.fileID.inode == (try FileStatus(path: FilePath(moved)).inode))
        }
    }
}
