// SPDX-License-Identifier: Apache-2.0
import BookmarkKit
import FileIdentity
import Foundation
import SecureFiles
import SystemPackage
import Testing
import VolumeFixtures

/// Every single-volume scenario, on ext4, XFS and btrfs, resolved in-process as root and through
/// `bookmark resolve` as uid 65534 (no handles, unreadable directories really unreadable).
@Suite("Resolution scenarios on real volumes", .serialized, .requiresRealVolumes)
struct ResolutionTests {
    static let fileSystems: [FixtureFileSystem] = [.ext4, .xfs, .btrfs]

    @Test("as root, in-process", arguments: scenarios, fileSystems)
    func asRoot(scenario: Scenario, kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { volume in
            let tree = Tree(root: volume.path("t"))
            try tree.dir("")
            try scenario.setup(tree)
            let bookmark = try Bookmark.create(for: FilePath(tree.path(scenario.target)))
            let data = try bookmark.data()
            try scenario.change(tree)
            let outcome = Result { () throws(BookmarkError) in try Bookmark(data: data).resolve() }
            try check(outcome, scenario: scenario, tree: tree)
        }
    }

    @Test("as uid 65534, through the CLI", .requiresUnprivilegedUser, arguments: scenarios, fileSystems)
    func unprivileged(scenario: Scenario, kind: FixtureFileSystem) throws {
        try LoopVolume.withVolume(kind) { volume in
            let tree = Tree(root: volume.path("t"))
            try tree.dir("")
            try scenario.setup(tree)
            let bookmarkFile = volume.path("saved.bookmark")
            let made = try BookmarkTool.runUnprivileged(["make", tree.path(scenario.target)])
            try #require(made.status == 0, "make failed: \(made.stderr)")
            try made.stdoutData.write(to: URL(fileURLWithPath: bookmarkFile))
            try scenario.change(tree)
            let result = try BookmarkTool.runUnprivileged(["resolve", bookmarkFile, "--json"])
            switch scenario.expected {
            case .fails(let code):
                #expect(result.status == exitStatus(for: code), "stdout: \(result.stdout) stderr: \(result.stderr)")
            case .resolves(let path, let matchedBy, let changes, let inTrash):
                try #require(result.status == 0, "stderr: \(result.stderr)")
                let json = try #require(try BookmarkTool.json(result) as? [String: Any])
                #expect(json["path"] as? String == tree.path(path))
                let kind = (json["matchedBy"] as? String).flatMap(MatchKind.init(rawValue:))
                #expect(kind.map { matchedBy.contains($0) && $0 != .handle } == true, "matched by \(kind.map(String.init(describing:)) ?? "?")")
                let reported = Set((json["changes"] as? [String] ?? []).compactMap(Change.init(rawValue:)))
                #expect(reported == changes)
                #expect(json["stale"] as? Bool == !changes.isEmpty)
                #expect(json["inTrash"] as? Bool == inTrash)
            }
        }
    }

    func check(_ outcome: Result<Resolution, BookmarkError>, scenario: Scenario, tree: Tree) throws {
        switch (scenario.expected, outcome) {
        case (.resolves(let path, let matchedBy, let changes, let inTrash), .success(let resolution)):
            #expect(resolution.path.string == tree.path(path))
            #expect(matchedBy.contains(resolution.matchedBy), "matched by \(resolution.matchedBy)")
            #expect(resolution.changes == changes)
            #expect(resolution.isStale == !changes.isEmpty)
            #expect(resolution.isInTrash == inTrash)
            if resolution.matchedBy != .replacedAtPath {
                let now = try FileID.identify(resolution.path, followSymlinks: false)
                #expect(now == resolution.fileID)
            }
        case (.fails(let code), .failure(let error)):
            #expect(error.code == code)
            #expect(error.lastKnownPath == Array(tree.path(scenario.target).utf8))
        case (.resolves, .failure(let error)):
            Issue.record("expected a resolution, got \(error)")
        case (.fails(let code), .success(let resolution)):
            Issue.record("expected \(code), resolved to \(resolution.path) by \(resolution.matchedBy)")
        }
    }
}

/// The CLI's exit status for a failure code (the one table in `bookmark --help`).
func exitStatus(for code: BookmarkError.Code) -> Int32 {
    switch code {
    case .notFound: return 3
    case .volumeNotMounted: return 4
    case .corruptData: return 5
    case .permissionDenied: return 13
    case .volumeNotResponding: return 75
    case .cancelled, .fileSystem, .objectChanged: return 1
    }
}
