// SPDX-License-Identifier: Apache-2.0
import Foundation
import SecureFiles
import SystemPackage
import Testing

/// Replaces the file at `path` with a new one that has the inode number `inode` (ext4 hands a
/// freed inode to the next file made in the same group), trying up to 50 times; fails the test
/// when the file system never reuses it.
func replaceReusingInode(at path: String, _ inode: UInt64) throws {
    var reused = false
    for _ in 0..<50 {
        try FileManager.default.removeItem(atPath: path)
        usleep(2_000)  // a different birth time even on a coarse clock
        try Data("new".utf8).write(to: URL(fileURLWithPath: path))
        if try FileStatus(path: FilePath(path)).inode == inode {
            reused = true
            break
        }
    }
    try #require(reused, "ext4 did not reuse the inode number in 50 tries")
}
