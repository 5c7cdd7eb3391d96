// SPDX-License-Identifier: Apache-2.0
import BookmarkCatalog
import BookmarkFormat
import BookmarkFoundation
import BookmarkKit
import CBenchBaseline
import Foundation
import SecureFiles
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// `--profile NAME`: repeats one operation so that callgrind sees only it. Run as
/// `valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*profileLoop*' BookmarkBenchmarks --profile NAME`.
extension Bench {
    static let profileNames = [
        "unmoved", "first", "create", "create-cold", "moved", "handles", "deleted", "codec", "codec-apple", "codec-edit", "open", "batch",
        "default-resolve", "apple-resolve", "apple-create", "apple-create-each", "ref-resolve",
        "catalog-scan", "package-save", "document-save",
    ]

    mutating func profile(_ name: String, iterations: Int) throws {
        if name == "package-save" || name == "document-save" {
            return try profilePackageSave(document: name == "document-save", iterations: iterations)
        }
        let (project, file) = try deepProjectFile()
        let path = full(file)
        let bookmark = try Bookmark.create(for: FilePath(path), volumes: volumes)
        let volumes = volumes
        let this = self
        let operation: () throws -> Void
        switch name {
        case "unmoved":
            operation = { _ = try bookmark.resolve(ResolutionOptions(), volumes: volumes) }
        case "first":
            // An unmoved file's bookmark as an application has it at launch: decoded from its data,
            // then resolved for the first time (nothing derived is cached yet).
            let bytes = try bookmark.data()
            operation = { _ = try Bookmark(data: bytes).resolve(ResolutionOptions(), volumes: volumes) }
        case "create":
            // The same rotation as the metric, with the ancestor cache warm (two passes: a
            // directory is watched the second time a creation meets it).
            let paths = creationSet().map { FilePath($0) }
            for _ in 0..<2 {
                for path in paths { _ = try Bookmark.create(for: path, volumes: volumes) }
            }
            var position = 0
            operation = {
                position = (position + 1) % paths.count
                _ = try Bookmark.create(for: paths[position], volumes: volumes)
            }
        case "create-cold":
            // The cold row: the ancestor cache cleared before each creation.
            let paths = creationSet().map { FilePath($0) }
            var position = 0
            operation = {
                position = (position + 1) % paths.count
                Bookmark.clearAncestorCache()
                _ = try Bookmark.create(for: paths[position], volumes: volumes)
            }
        case "moved":
            try move(file, to: project + "/docs/moved-profile")
            operation = { _ = try bookmark.resolve(ResolutionOptions(useHandles: false), volumes: volumes) }
        case "handles":
            // Moved to another top-level folder, found through its file handle (needs root).
            try move(file, to: "Downloads/far-profile")
            operation = { _ = try bookmark.resolve(ResolutionOptions(), volumes: volumes) }
        case "deleted":
            _ = unlink(path)
            operation = { try this.expectNotFound(bookmark, ResolutionOptions(budget: .unlimited, useHandles: false)) }
        case "codec":
            let bytes = try bookmark.data()
            operation = { _ = try Bookmark(data: bytes).data() }
        case "codec-apple":
            // The target row's bookmark: a real macOS one from the shared fixtures.
            guard let bytes = Self.appleFixture("fq-sample2.book") else {
                throw BenchError("../shared/fixtures/apple/fq-sample2.book not found")
            }
            operation = { _ = try Bookmark(data: bytes).data() }
        case "codec-edit":
            // One key changed between decoding and encoding (the value encoder's path).
            let bytes = try bookmark.data()
            let renamed = ByteString("renamed.txt")
            operation = {
                var decoded = try Bookmark(data: bytes)
                decoded.record.fileName = renamed
                _ = try decoded.data()
            }
        case "batch":
            // A tenth of the tree's size, a tenth of those moved; resolved as one batch, no handles.
            let prepared = try prepareBatch(max(workload.entries / 10, 10))
            let noHandles = ResolutionOptions(useHandles: false)
            operation = { _ = Bookmark.resolveAll(prepared.bookmarks, options: noHandles, volumes: volumes) }
        case "default-resolve":
            // The default path: no table given (the process's shared table).
            operation = { _ = try bookmark.resolve() }
        case "apple-resolve":
            let data = try URL(fileURLWithPath: path).bookmarkData()
            operation = {
                var stale = false
                _ = try URL(resolvingBookmarkData: data, bookmarkDataIsStale: &stale)
            }
        case "apple-create":
            let url = URL(fileURLWithPath: path)
            operation = { _ = try url.bookmarkData() }
        case "apple-create-each":
            // Another file each call (the creation row's set, ancestor cache warm): every
            // bookmark's bytes are written.
            let urls = creationSet().map { URL(fileURLWithPath: $0) }
            for _ in 0..<2 { for each in urls { _ = try each.bookmarkData() } }
            var position = 0
            operation = {
                position = (position + 1) % urls.count
                _ = try urls[position].bookmarkData()
            }
        case "catalog-scan":
            // A first scan of the whole tree into an empty catalog, as the catalog row times it.
            let root = this.workload.root
            let catalogPath = "/var/tmp/swift-bookmarks-profile-\(getpid()).catalog"
            func removeCatalog() { for suffix in ["", "-wal", "-shm"] { unlink(catalogPath + suffix) } }
            operation = {
                removeCatalog()
                defer { removeCatalog() }
                _ = try Catalog(path: catalogPath).scan(root: root)
            }
        case "ref-resolve":
            let reference = try FileReferenceURL(for: FilePath(path))
            operation = { _ = try reference.resolve() }
        case "open":
            let root = try Directory(opening: FilePath(this.workload.root))
            let relative = FilePath(file)
            operation = { try root.open(relative).close() }
        default:
            throw BenchError("unknown profile \(name); one of \(Self.profileNames.joined(separator: ", "))")
        }
        try operation()  // warm up outside the collected region
        let before = ProcessTimes.now()
        try profileLoop(iterations, operation)
        let spent = ProcessTimes.now() - before
        // Wall and CPU time of the loop alone (the tree's building excluded): CPU beyond the wall
        // time is other threads; wall beyond the CPU time is waiting (the disk, a lock).
        print("profiled \(name): \(iterations) iterations, \(spent)")
    }
}

/// The region callgrind collects (`--toggle-collect='*profileLoop*'`).
@inline(never)
func profileLoop(_ iterations: Int, _ operation: () throws -> Void) throws {
    for _ in 0..<iterations { try operation() }
}

/// The process's wall clock and CPU times (`clock_gettime`, `getrusage`), for `--profile`.
struct ProcessTimes {
    var wall: Double
    var user: Double
    var system: Double

    /// Now; with `thread`, the calling thread's CPU times (`RUSAGE_THREAD`) instead of the process's.
    static func now(thread: Bool = false) -> ProcessTimes {
        var usage = rusage()
        // RUSAGE_THREAD is 1 (<bits/resource.h>); Glibc's module leaves it out (it needs _GNU_SOURCE).
        getrusage(thread ? 1 : RUSAGE_SELF.rawValue, &usage)
        var clock = timespec()
        clock_gettime(CLOCK_MONOTONIC, &clock)
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return ProcessTimes(
            wall: Double(clock.tv_sec) + Double(clock.tv_nsec) / 1e9, user: seconds(usage.ru_utime), system: seconds(usage.ru_stime))
    }

    static func - (a: ProcessTimes, b: ProcessTimes) -> ProcessTimes {
        ProcessTimes(wall: a.wall - b.wall, user: a.user - b.user, system: a.system - b.system)
    }

    static func + (a: ProcessTimes, b: ProcessTimes) -> ProcessTimes {
        ProcessTimes(wall: a.wall + b.wall, user: a.user + b.user, system: a.system + b.system)
    }
}

extension ProcessTimes: CustomStringConvertible {
    var description: String {
        func f(_ v: Double) -> String { String(format: "%.3f s", v) }
        return "\(f(wall)) wall, \(f(user)) user, \(f(system)) system"
    }
}
