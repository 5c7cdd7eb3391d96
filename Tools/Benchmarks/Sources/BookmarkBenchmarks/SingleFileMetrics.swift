// SPDX-License-Identifier: Apache-2.0
import BookmarkFormat
import BookmarkKit
import CBenchBaseline
import FileIdentity
import SecureFiles
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// Something in the workload did not behave as the benchmark expects.
struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The metrics of one file at a time, on one workload.
struct Bench {
    let workload: Workload
    let measure: Measure
    let volumes: MountedVolumes
    /// Picks distinct files for the metrics.
    private var nextProject = 0
    /// Files a metric already took (moved, deleted or bookmarked).
    var used = Set<String>()

    init(workload: Workload, measure: Measure) throws {
        self.workload = workload
        self.measure = measure
        volumes = try MountedVolumes()
    }

    func full(_ relative: String) -> String { workload.root + "/" + relative }

    /// A project source file at least two folders below `src` (a different one each call).
    mutating func deepProjectFile() throws -> (project: String, file: String) {
        let files = workload.projectFiles
        guard !files.isEmpty else { throw BenchError("the tree has no project files") }
        let stride = max(files.count / 97, 1)
        for step in 0..<files.count {
            let candidate = files[(nextProject + step * stride) % files.count]
            if candidate.file.split(separator: "/").count >= 6, !used.contains(candidate.file) {
                nextProject = (nextProject + step * stride + 1) % files.count
                used.insert(candidate.file)
                return candidate
            }
        }
        guard let any = files.first(where: { !used.contains($0.file) }) else { throw BenchError("no unused project file left") }
        used.insert(any.file)
        return any
    }

    func statInode(_ path: String) throws -> UInt64 {
        var inode: UInt64 = 0
        let rc = cbb_statx(path, &inode)
        guard rc == 0 else { throw BenchError("statx \(path): errno \(-rc)") }
        return inode
    }

    func find(_ arguments: [String]) throws {
        let status = Spawn.quiet(["find", workload.root, "-xdev"] + arguments)
        guard status == 0 else { throw BenchError("find exited \(status)") }
    }

    func move(_ from: String, to: String) throws {
        guard rename(full(from), full(to)) == 0 else { throw BenchError("rename \(from): errno \(errno)") }
    }

    // MARK: - Metrics

    mutating func unmoved() throws -> [MetricResult] {
        let path = full(try deepProjectFile().file)
        let bookmark = try Bookmark.create(for: FilePath(path), volumes: volumes)
        let options = ResolutionOptions()
        let check = try bookmark.resolve(options, volumes: volumes)
        guard check.matchedBy == .path else { throw BenchError("unmoved file matched by \(check.matchedBy)") }
        var inode: UInt64 = 0
        let shared = try measure.compare(
            ours: { _ = try bookmark.resolve(options, volumes: volumes) },
            baseline: { _ = cbb_statx(path, &inode) })
        // Every step, as a bookmark's first resolution takes them (no memo of an earlier one).
        let everyStep = ResolutionOptions(useMemo: false)
        let steps = try measure.compare(
            ours: { _ = try bookmark.resolve(everyStep, volumes: volumes) },
            baseline: { _ = cbb_statx(path, &inode) })
        let fresh = try measure.compare(
            ours: { _ = try bookmark.resolve(options, volumes: try MountedVolumes()) },
            baseline: { _ = cbb_statx(path, &inode) })
        // How far the design's own syscalls are from one statx, with nothing of ours in between.
        let floor = try measure.compare(
            ours: { _ = cbb_statx_handle(path) },
            baseline: { _ = cbb_statx(path, &inode) })
        return [
            MetricResult("resolve an unmoved file", baseline: "statx", target: .ratioAtMost(3), shared,
                note: "shared MountedVolumes; the bookmark's memo of its last result, confirmed by one statx"),
            MetricResult("↳ every step (useMemo: false), as a first resolution", baseline: "statx", target: .none, steps,
                note: "volume by UUID, path re-rooted, statx, result built"),
            MetricResult("↳ its syscalls alone, in C (statx, name_to_handle_at of the path)", baseline: "statx",
                target: .none, floor, note: "the floor of the path-first design"),
            MetricResult("resolve an unmoved file (new MountedVolumes each call)", baseline: "statx", target: .none, fresh,
                note: "reads /proc/self/mountinfo every call"),
        ]
    }

    /// The files the creation metrics rotate over: at least 1,000 (all files if fewer), picked at an
    /// even stride from the sorted list of every file, so they spread over the tree's directories.
    /// Ours and the baseline visit the same files in the same order, so neither benefits alone from
    /// a warm dentry cache or a repeated path.
    func creationSet(count: Int = 1_000) -> [String] {
        let all = (workload.projectFiles.map(\.file) + workload.otherFiles).filter { !used.contains($0) }.sorted()
        guard all.count > count else { return all.map(full) }
        let stride = Double(all.count) / Double(count)
        return (0..<count).map { full(all[Int(Double($0) * stride)]) }
    }

    mutating func create() throws -> [MetricResult] {
        let paths = creationSet()
        guard !paths.isEmpty else { throw BenchError("no files to bookmark") }
        let filePaths = paths.map { FilePath($0) }
        let directories = Set(paths.map { $0.split(separator: "/").dropLast().joined(separator: "/") }).count
        let depth = Double(paths.map { $0.split(separator: "/").count }.reduce(0, +)) / Double(paths.count)
        let about = "\(paths.count) files in \(directories) directories, \(format(depth, 1)) components on average"
        // Each closure steps through the set; ours and the baseline keep separate positions.
        var ours = 0
        var base = 0
        let baseline = {
            base = (base + 1) % paths.count
            _ = cbb_statx_handle(paths[base])
        }
        func next() -> FilePath {
            ours = (ours + 1) % filePaths.count
            return filePaths[ours]
        }
        // Warm: two passes first. The ancestor cache watches a directory the second time a
        // creation meets it, so a directory holding one file of the set is cached after the second.
        for _ in 0..<2 {
            for path in filePaths { _ = try Bookmark.create(for: path, volumes: volumes) }
        }
        let warm = try measure.compare(
            ours: { _ = try Bookmark.create(for: next(), volumes: volumes) }, baseline: baseline)
        let cold = try measure.compare(
            ours: {
                Bookmark.clearAncestorCache()
                _ = try Bookmark.create(for: next(), volumes: volumes)
            }, baseline: baseline)
        // A long-running process meeting a new tree: the cache cleared once per pass over the set.
        let firstPass = try measure.compare(
            ours: {
                let path = next()
                if ours == 0 { Bookmark.clearAncestorCache() }
                _ = try Bookmark.create(for: path, volumes: volumes)
            }, baseline: baseline)
        let uncached = try measure.compare(
            ours: { _ = try Bookmark.create(for: next(), volumes: volumes, useAncestorCache: false) },
            baseline: baseline)
        var floorPosition = 0
        // The tree is built at the volume's mount point.
        let mountPointLength = workload.root.utf8.count
        let floor = try measure.compare(
            ours: {
                floorPosition = (floorPosition + 1) % paths.count
                _ = cbb_create_floor_cached(paths[floorPosition])
            }, baseline: baseline)
        let coldFloor = try measure.compare(
            ours: {
                floorPosition = (floorPosition + 1) % paths.count
                _ = cbb_create_floor_walk(paths[floorPosition], mountPointLength)
            }, baseline: baseline)
        Bookmark.clearAncestorCache()
        return [
            MetricResult("create a bookmark", baseline: "statx + name_to_handle_at", target: .ratioAtMost(3), warm,
                note: "ancestor cache warm; " + about),
            MetricResult("↳ cold: ancestor cache cleared before each creation", baseline: "statx + name_to_handle_at",
                target: .ratioAtMost(5), cold, note: "a first meeting: statx per directory below the mount point, nothing watched"),
            MetricResult("↳ first pass: ancestor cache cleared before each pass over the set", baseline: "statx + name_to_handle_at",
                target: .none, firstPass, note: "a new tree met in a long-running process"),
            MetricResult("↳ without the ancestor cache (useAncestorCache: false)", baseline: "statx + name_to_handle_at",
                target: .none, uncached, note: "statx per ancestor"),
            MetricResult("↳ its syscalls alone, in C (statx, name_to_handle_at, poll)", baseline: "statx + name_to_handle_at",
                target: .none, floor, note: "the floor of a cache hit"),
            MetricResult("↳ a cold creation's syscalls alone, in C", baseline: "statx + name_to_handle_at",
                target: .none, coldFloor, note: "statx, name_to_handle_at, statx per directory below the mount point: the floor of the cold row"),
        ]
    }

    /// A file moved from deep in `src` to the project's `docs` folder, found by the outward search.
    mutating func movedWithinProject() throws -> MetricResult {
        let (project, file) = try deepProjectFile()
        let bookmark = try Bookmark.create(for: FilePath(full(file)), volumes: volumes)
        let destination = project + "/docs/moved-" + (file.split(separator: "/").last.map(String.init) ?? "file")
        try move(file, to: destination)
        let inode = try statInode(full(destination))
        let options = ResolutionOptions(useHandles: false)
        let check = try bookmark.resolve(options, volumes: volumes)
        guard check.path == FilePath(full(destination)) else {
            throw BenchError("the moved file resolved to \(check.path), not \(destination)")
        }
        let comparison = try measure.compare(
            ours: { _ = try bookmark.resolve(options, volumes: volumes) },
            baseline: { try find(["-inum", String(inode)]) })
        return MetricResult(
            "resolve a file moved within its project folder", baseline: "find -xdev -inum N", target: .ratioAtMost(0.02),
            comparison, note: "no handles; matched by \(check.matchedBy), \(check.entriesSearched) entries read")
    }

    /// A deleted file: the whole volume is searched (no handles, unlimited budget).
    mutating func deleted() throws -> MetricResult {
        let file = try deepProjectFile().file
        let bookmark = try Bookmark.create(for: FilePath(full(file)), volumes: volumes)
        let inode = try statInode(full(file))
        guard unlink(full(file)) == 0 else { throw BenchError("unlink \(file): errno \(errno)") }
        let options = ResolutionOptions(budget: .unlimited, useHandles: false)
        let comparison = try measure.compare(
            ours: { try expectNotFound(bookmark, options) },
            baseline: { try find(["-inum", String(inode)]) })
        return MetricResult(
            "resolve a deleted file (whole-volume search, budget unlimited)", baseline: "find -xdev -inum N",
            target: .ratioAtMost(1), comparison, note: "no handles; volume of \(workload.entries) entries")
    }

    /// Resolves `bookmark`, which must fail with `notFound` after a complete search.
    func expectNotFound(_ bookmark: Bookmark, _ options: ResolutionOptions) throws {
        switch Result(catching: { () throws(BookmarkError) in try bookmark.resolve(options, volumes: volumes) }) {
        case .success(let found): throw BenchError("a deleted file resolved to \(found.path)")
        case .failure(let error):
            guard error.code == .notFound, !error.searchExhausted else { throw error }
        }
    }

    /// A file moved far away (another top-level folder), found through its file handle (root
    /// only); and the same system calls alone, in C.
    mutating func movedWithHandles() throws -> [MetricResult] {
        let file = try deepProjectFile().file
        let bookmark = try Bookmark.create(for: FilePath(full(file)), volumes: volumes)
        let destination = "Downloads/far-" + (file.split(separator: "/").last.map(String.init) ?? "file")
        try move(file, to: destination)
        let unmovedPath = full(try deepProjectFile().file)
        let unmoved = try Bookmark.create(for: FilePath(unmovedPath), volumes: volumes)
        let options = ResolutionOptions()
        // The baseline is the unmoved file's resolution with every step (no memo): what this row
        // compared since issue 7, the path-first step's work against the handle step's. A
        // repeated unmoved resolution is now one statx (its memo); the row against that follows.
        let everyStep = ResolutionOptions(useMemo: false)
        let check = try bookmark.resolve(options, volumes: volumes)
        guard check.matchedBy == .handle else { throw BenchError("the far-moved file matched by \(check.matchedBy), not handle") }
        let comparison = try measure.compare(
            ours: { _ = try bookmark.resolve(options, volumes: volumes) },
            baseline: { _ = try unmoved.resolve(everyStep, volumes: volumes) })
        let againstMemo = try measure.compare(
            ours: { _ = try bookmark.resolve(options, volumes: volumes) },
            baseline: { _ = try unmoved.resolve(options, volumes: volumes) })
        // The same system calls alone, in C, against the same baseline.
        let recorded = full(file)
        guard cbb_moved_floor_prepare(full(destination)) == 0, cbb_moved_floor(recorded, workload.root) == 0 else {
            throw BenchError("the moved file's floor in C failed")
        }
        let floor = try measure.compare(
            ours: { _ = cbb_moved_floor(recorded, workload.root) },
            baseline: { _ = try unmoved.resolve(everyStep, volumes: volumes) })
        return [
            MetricResult(
                "resolve a moved file as root (handles)", baseline: "resolve an unmoved file, every step",
                target: .ratioAtMost(5), comparison, note: "moved to another top-level folder"),
            MetricResult(
                "↳ its syscalls alone, in C", baseline: "resolve an unmoved file, every step", target: .none, floor,
                note: "statx (fails), openat, open_by_handle_at, readlinkat, statx, two close"),
            MetricResult(
                "↳ against a repeated unmoved resolution (its memo)", baseline: "resolve an unmoved file", target: .none,
                againstMemo, note: "the unmoved file confirmed by one statx"),
        ]
    }

    /// Decoding and re-encoding a bookmark; and the same with one key changed between the two, so
    /// that encoding cannot only copy what it decoded.
    ///
    /// The issue asks for a 700-byte bookmark. Ours are larger (our Linux facts, and this volume is
    /// mounted five levels deep: 1,272 bytes with 0.1's nine keys, less with the compact item), so
    /// the target row decodes a real macOS bookmark of 684 bytes from the shared fixtures
    /// (`fq-sample2.book`), and a second row ours.
    mutating func codec() throws -> [MetricResult] {
        let deep = FilePath(full(try deepProjectFile().file))
        let shallow = FilePath(full(workload.otherFiles.first { !used.contains($0) && $0.hasPrefix("Downloads/") } ?? "Downloads"))
        let candidates = try [
            Bookmark.create(for: deep, volumes: volumes).data(),
            Bookmark.create(for: deep, options: .minimalBookmark, volumes: volumes).data(),
            Bookmark.create(for: shallow, volumes: volumes).data(),
            Bookmark.create(for: shallow, options: .minimalBookmark, volumes: volumes).data(),
        ]
        let ours = candidates.min { abs($0.count - 700) < abs($1.count - 700) } ?? candidates[0]
        var rows: [MetricResult] = []
        if let apple = Self.appleFixture("fq-sample2.book") {
            rows.append(MetricResult(
                "decode + encode a 700-byte bookmark (macOS)", baseline: "—", target: .rateAtLeast(500_000),
                try roundTrip(apple), note: "\(apple.count)-byte macOS bookmark (shared fixture fq-sample2.book), one core"))
            rows.append(MetricResult(
                "↳ same, changing one key (fileName) before encoding", baseline: "—", target: .none,
                try roundTrip(apple, editing: true), note: "the changed item goes through the value encoder"))
        } else {
            print("  (codec: ../shared/fixtures/apple/fq-sample2.book not found; only our own bookmark is measured)")
        }
        rows.append(MetricResult(
            "↳ decode + encode one of our bookmarks", baseline: "—", target: .none, try roundTrip(ours),
            note: "\(ours.count)-byte bookmark made here (Linux keys included), one core"))
        rows.append(MetricResult(
            "↳ same, changing one key (fileName) before encoding", baseline: "—", target: .none,
            try roundTrip(ours, editing: true), note: "the changed item goes through the value encoder"))
        return rows
    }

    /// Times `Bookmark(data:)` then `.data()`, optionally setting the file name in between.
    func roundTrip(_ bytes: [UInt8], editing: Bool = false) throws -> Comparison {
        let renamed = ByteString("renamed.txt")
        return try measure.alone {
            var decoded = try Bookmark(data: bytes)
            if editing { decoded.record.fileName = renamed }
            _ = try decoded.data()
        }
    }

    /// A macOS bookmark from `../shared/fixtures/apple` beside the repository (found from this
    /// source file's path, as the tests find it), or `nil` when it is not there.
    static func appleFixture(_ name: String) -> [UInt8]? {
        var root = FilePath(#filePath)
        for _ in 0..<5 { root.removeLastComponent() }  // …/Tools/Benchmarks/Sources/BookmarkBenchmarks/X.swift
        let path = root.removingLastComponent().appending("shared/fixtures/apple").appending(name)
        guard let file = try? Directory.current.open(path) else { return nil }
        defer { try? file.close() }
        return try? file.readToEnd(limit: 1 << 20)
    }

    /// Opening a file beneath a root with the secure layer (`openat2` with `RESOLVE_BENEATH`, the
    /// default policy), against a plain `openat` relative to the same directory.
    mutating func openBeneathRoot() throws -> MetricResult {
        let relative = try deepProjectFile().file
        let root = try Directory(opening: FilePath(workload.root))
        let plainRoot = try Directory.current.open(FilePath(workload.root), options: [.directory])
        guard let rootFD = plainRoot.rawValue else { throw BenchError("root descriptor closed") }
        let path = FilePath(relative)
        let comparison = try measure.compare(
            ours: {
                let file = try root.open(path)
                try file.close()
            },
            baseline: { _ = cbb_openat_close(rootFD, relative) })
        return MetricResult(
            "open a file beneath a root (SecureFiles)", baseline: "openat", target: .ratioAtMost(1.5), comparison,
            note: "Directory.open, policy beneath (openat2 with RESOLVE_BENEATH and RESOLVE_NO_MAGICLINKS)")
    }
}
