// SPDX-License-Identifier: Apache-2.0
import BookmarkKit
import Foundation
import Testing
import VolumeFixtures

/// What a scenario must end in.
enum Expected: Sendable {
    /// Resolves to `path` (relative to the tree), matched by one of `matchedBy`, with exactly `changes`.
    case resolves(path: String, matchedBy: Set<MatchKind>, changes: Set<Change>, inTrash: Bool = false)
    /// Fails with this code.
    case fails(BookmarkError.Code)
}

/// One resolution scenario as data: a tree, the bookmarked path, what happens next, the outcome.
struct Scenario: Sendable, CustomTestStringConvertible {
    let name: String
    let setup: @Sendable (Tree) throws -> Void
    let target: String
    let change: @Sendable (Tree) throws -> Void
    let expected: Expected
    var testDescription: String { name }
}

let found: Set<MatchKind> = [.search, .handle, .parent]

/// The scenarios of issue 5 that need one volume. Paths are relative to a fresh directory on it.
let scenarios: [Scenario] = [
    Scenario(
        name: "unmoved", setup: { try $0.file("docs/a.txt") }, target: "docs/a.txt", change: { _ in },
        expected: .resolves(path: "docs/a.txt", matchedBy: [.path], changes: [])),
    Scenario(
        name: "renamed in place", setup: { try $0.file("docs/a.txt") }, target: "docs/a.txt",
        change: { try $0.move("docs/a.txt", "docs/b.txt") },
        expected: .resolves(path: "docs/b.txt", matchedBy: found, changes: [.path, .name])),
    Scenario(
        name: "moved within its tree", setup: { try $0.file("proj/src/a.txt"); try $0.dir("proj/old") },
        target: "proj/src/a.txt", change: { try $0.move("proj/src/a.txt", "proj/old/a.txt") },
        expected: .resolves(path: "proj/old/a.txt", matchedBy: found, changes: [.path, .parent])),
    Scenario(
        name: "moved far away", setup: { try $0.file("a/b/c/d/file.txt"); try $0.dir("x/y/z") },
        target: "a/b/c/d/file.txt", change: { try $0.move("a/b/c/d/file.txt", "x/y/z/renamed.txt") },
        expected: .resolves(path: "x/y/z/renamed.txt", matchedBy: found, changes: [.path, .name, .parent])),
    Scenario(
        name: "parent renamed", setup: { try $0.file("p/folder/doc.txt") }, target: "p/folder/doc.txt",
        change: { try $0.move("p/folder", "p/folder-2") },
        expected: .resolves(path: "p/folder-2/doc.txt", matchedBy: found, changes: [.path, .parent])),
    Scenario(
        name: "parent moved elsewhere", setup: { try $0.file("p/folder/doc.txt"); try $0.dir("q/r") },
        target: "p/folder/doc.txt", change: { try $0.move("p/folder", "q/r/folder") },
        expected: .resolves(path: "q/r/folder/doc.txt", matchedBy: found, changes: [.path, .parent])),
    Scenario(
        name: "directory whose contents change", setup: { try $0.file("photos/1.jpg") }, target: "photos",
        change: { try $0.file("photos/2.jpg"); try $0.remove("photos/1.jpg") },
        expected: .resolves(path: "photos", matchedBy: [.path], changes: [])),
    Scenario(
        name: "atomic save: temp + rename", setup: { try $0.file("w/doc.txt", "v1") }, target: "w/doc.txt",
        change: { try $0.shell("printf v2 > w/.doc.tmp && mv w/.doc.tmp w/doc.txt") },
        expected: .resolves(path: "w/doc.txt", matchedBy: [.replacedAtPath], changes: [.fileIdentity])),
    Scenario(
        name: "atomic save: sed -i", setup: { try $0.file("w/doc.txt", "v1") }, target: "w/doc.txt",
        change: { try $0.shell("sed -i s/v1/v2/ w/doc.txt") },
        expected: .resolves(path: "w/doc.txt", matchedBy: [.replacedAtPath], changes: [.fileIdentity])),
    Scenario(
        name: "backup-by-rename editor: old inode lives on as doc.txt~", setup: { try $0.file("w/doc.txt", "v1") },
        target: "w/doc.txt", change: { try $0.shell("mv w/doc.txt w/doc.txt~ && printf v2 > w/doc.txt") },
        expected: .resolves(path: "w/doc.txt", matchedBy: [.replacedAtPath], changes: [.fileIdentity])),
    Scenario(
        name: "vim swap-style: old inode kept as .doc.txt.swp", setup: { try $0.file("w/doc.txt", "v1") },
        target: "w/doc.txt", change: { try $0.shell("mv w/doc.txt w/.doc.txt.swp && printf v2 > w/doc.txt") },
        expected: .resolves(path: "w/doc.txt", matchedBy: [.replacedAtPath], changes: [.fileIdentity])),
    Scenario(
        name: "deleted and recreated at the same path", setup: { try $0.file("w/doc.txt", "v1") },
        target: "w/doc.txt", change: { try $0.remove("w/doc.txt"); try $0.file("w/doc.txt", "v2") },
        expected: .resolves(path: "w/doc.txt", matchedBy: [.replacedAtPath], changes: [.fileIdentity])),
    Scenario(
        name: "deleted, then its inode number reused elsewhere", setup: { try $0.file("w/gone.txt") },
        target: "w/gone.txt",
        change: { tree in
            try tree.remove("w/gone.txt")
            for index in 0..<20 { try tree.file("elsewhere/new-\(index).txt") }
        },
        expected: .fails(.notFound)),
    Scenario(
        name: "recorded name removed while a hard link remains",
        setup: { try $0.file("h/original.txt"); try $0.dir("h2"); try $0.hardLink("h/original.txt", "h2/link.txt") },
        target: "h/original.txt", change: { try $0.remove("h/original.txt") },
        expected: .resolves(path: "h2/link.txt", matchedBy: [.search, .handle], changes: [.path, .name, .parent])),
    Scenario(
        name: "moved to the Trash", setup: { try $0.file("home/doc.txt"); try $0.dir("home/.local/share/Trash/files") },
        target: "home/doc.txt", change: { try $0.move("home/doc.txt", "home/.local/share/Trash/files/doc.txt") },
        expected: .resolves(
            path: "home/.local/share/Trash/files/doc.txt", matchedBy: found, changes: [.path, .parent], inTrash: true)),
    Scenario(
        name: "unreadable directories and symlink loops met during the search",
        setup: { tree in
            try tree.file("s/start/doc.txt")
            try tree.file("s/locked/secret.txt")
            try tree.dir("s/locked", mode: 0o000)
            try tree.symlink("s/loop-a", to: "loop-b")
            try tree.symlink("s/loop-b", to: "loop-a")
            try tree.symlink("s/start/up", to: "..")
            try tree.dir("s/zzz/deeper")
        },
        target: "s/start/doc.txt", change: { try $0.move("s/start/doc.txt", "s/zzz/deeper/doc.txt") },
        expected: .resolves(path: "s/zzz/deeper/doc.txt", matchedBy: found, changes: [.path, .parent])),
]

/// A non-UTF-8 name, a 255-byte name and a 60-level path.
let hardNames: [(String, [UInt8])] = [
    ("non-UTF-8", [0x66, 0xFF, 0xFE, 0x2E, 0x74, 0x78, 0x74]),
    ("255 bytes", Array(repeating: UInt8(ascii: "n"), count: 255)),
    ("newline and backslash", Array("a\nb\\c".utf8)),
]
