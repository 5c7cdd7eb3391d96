// SPDX-License-Identifier: Apache-2.0
import BookmarkKit
import CBenchBaseline
import Foundation
import Synchronization
import SystemPackage

/// The cold start of a big library (issue 14, item 3): `count` bookmarks of files on a volume of
/// 1.2 × `count` entries, stored back to back in one file; a tenth of the files moved and a
/// hundredth deleted afterwards. A fresh process (`--library-child`), run as uid 65534 the way an
/// application runs, reads the file, decodes every bookmark and resolves them all in one batch with
/// the default API (`Bookmark.resolveAll(storedIn:)`: no volume table given, default options).
///
/// Measured in the same run, alternating: that process's batch (read + decode + resolve), one
/// `find VOL -xdev` walk as the same user, and a second library holding only the unmoved
/// bookmarks against a bare `statx` of each of their paths (in the same child, after the batch).
/// Peak memory is the child's `ru_maxrss`, against the library file's size.
struct LibraryPoint: Codable {
    /// Bookmarks in the library.
    var count: Int
    /// Entries of the volume's tree.
    var entries: Int
    /// Bytes of the library file.
    var libraryBytes: Int
    /// Moved and deleted files.
    var moved: Int
    var deleted: Int
    /// Seconds of the whole batch, one sample per run.
    var batch: [Double]
    /// Seconds of one `find` walk as the same user, one sample per run.
    var find: [Double]
    /// Seconds of the unmoved-only library's batch, one sample per run.
    var unmoved: [Double]
    /// Seconds of a bare `statx` of each unmoved path, one sample per run.
    var statx: [Double]
    /// Unmoved bookmarks in the second library.
    var unmovedCount: Int
    /// The child's peak resident set for the whole library, bytes, one sample per run.
    var peakBytes: [Double]
    /// The child's resident set before it read anything, bytes.
    var startBytes: [Double]
    /// Bookmark creations per second (the library's making; context only).
    var createPerSecond: Double
    /// Seconds of the batch's floor in C (read, `statx` of each existing path, the volume's walk,
    /// on the batch's threads), one sample per run, in the whole library's child after its batch.
    var floor: [Double] = []
    /// Of that floor: the walk alone, one sample per run.
    var floorWalk: [Double] = []

    var floorRatio: Double { median(zip(floor, find).map { $0 / $1 }) }

    var batchRatio: Double { median(zip(batch, find).map { $0 / $1 }) }
    var unmovedRatio: Double { median(zip(unmoved, statx).map { $0 / $1 }) }
    var memoryRatio: Double { median(peakBytes) / Double(max(libraryBytes, 1)) }
}

/// What a child run printed (one JSON line).
struct LibraryChildReport: Codable {
    var seconds: Double
    var statxSeconds: Double
    var peakBytes: Double
    var startBytes: Double
    var resolved: Int
    var notFound: Int
    var wrong: Int
    var firstWrong: String?
    /// Walks started, and the entries they read in all (from the batch's progress reports).
    var walks: Int
    var entriesWalked: Int
    /// Seconds from the start to the first walk's start and to the last walk's end (`nil`: no walk).
    var walkStart: Double?
    var walkEnd: Double?
    /// The floor in C, when the child was given the volume: its parts' seconds and their sum.
    var floorRead: Double?
    var floorStatx: Double?
    var floorWalk: Double?
    var floorSeconds: Double? {
        guard let floorRead, let floorStatx, let floorWalk else { return nil }
        return floorRead + floorStatx + floorWalk
    }
}

enum LibraryMetric {
    /// Builds the volume and the library for `count` bookmarks, then measures `runs` times.
    static func run(count: Int, runs: Int, seed: UInt64) throws -> LibraryPoint {
        let entries = count + count / 5
        return try withWorkload(entries: entries, seed: seed) { workload in
            let folder = (workload.root as NSString).deletingLastPathComponent
            let files = workload.projectFiles.map(\.file) + workload.otherFiles
            guard files.count >= 10 else { throw BenchError("tree too small for a library") }
            let chosen = spread(files, count)
            let all = folder + "/library.bookmarks"
            let unmovedOnly = folder + "/library-unmoved.bookmarks"
            let expectedAll = folder + "/library.expected"
            let expectedUnmoved = folder + "/library-unmoved.expected"

            // Make the library with the default API, the way an application adds files to it.
            FileManager.default.createFile(atPath: all, contents: nil)
            FileManager.default.createFile(atPath: unmovedOnly, contents: nil)
            guard let allOut = FileHandle(forWritingAtPath: all), let unmovedOut = FileHandle(forWritingAtPath: unmovedOnly)
            else { throw BenchError("cannot write the library files in \(folder)") }
            var allBuffer: [UInt8] = []
            var unmovedBuffer: [UInt8] = []
            var libraryBytes = 0
            let clock = ContinuousClock()
            let start = clock.now
            for (index, file) in chosen.enumerated() {
                let bytes = try Bookmark.create(for: FilePath(workload.root + "/" + file)).data()
                allBuffer += bytes
                libraryBytes += bytes.count
                if fate(index) == .stays { unmovedBuffer += bytes }
                if allBuffer.count >= 1 << 22 { allOut.write(Data(allBuffer)); allBuffer.removeAll(keepingCapacity: true) }
                if unmovedBuffer.count >= 1 << 22 {
                    unmovedOut.write(Data(unmovedBuffer))
                    unmovedBuffer.removeAll(keepingCapacity: true)
                }
            }
            allOut.write(Data(allBuffer))
            unmovedOut.write(Data(unmovedBuffer))
            try allOut.close()
            try unmovedOut.close()
            let createPerSecond = Double(chosen.count) / seconds(clock.now - start)

            // Move a tenth (nine in ten renamed in their folder, one in ten to another top-level
            // folder) and delete a hundredth.
            var expected: [String] = []
            var unmovedExpected: [String] = []
            var moved = 0
            var deleted = 0
            for (index, file) in chosen.enumerated() {
                let path = workload.root + "/" + file
                switch fate(index) {
                case .stays:
                    expected.append(path)
                    unmovedExpected.append(path)
                case .deleted:
                    guard unlink(path) == 0 else { throw BenchError("unlink \(path): errno \(errno)") }
                    expected.append("-")
                    deleted += 1
                case .moved:
                    let name = (file as NSString).lastPathComponent
                    let destination: String
                    if moved % 10 == 0 {
                        let far = workload.root + "/Downloads/library-moved-\(moved / 10_000)"
                        if moved % 10_000 == 0 { mkdir(far, 0o755) }
                        destination = far + "/\(moved)-\(name)"
                    } else {
                        destination = (path as NSString).deletingLastPathComponent + "/moved-\(moved)-\(name)"
                    }
                    guard rename(path, destination) == 0 else { throw BenchError("rename \(path): errno \(errno)") }
                    expected.append(destination)
                    moved += 1
                }
            }
            try (expected.joined(separator: "\n") + "\n").write(toFile: expectedAll, atomically: false, encoding: .utf8)
            try (unmovedExpected.joined(separator: "\n") + "\n").write(
                toFile: expectedUnmoved, atomically: false, encoding: .utf8)
            // The child runs as uid 65534: it must reach the tool, the files and the volume.
            let tool = folder + "/BookmarkBenchmarks"
            try? FileManager.default.removeItem(atPath: tool)
            try FileManager.default.copyItem(atPath: try selfExecutable(), toPath: tool)
            for path in [folder, all, unmovedOnly, expectedAll, expectedUnmoved, tool] {
                chmod(path, path == folder || path == tool ? 0o755 : 0o644)
            }
            _ = Spawn.quiet(["find", workload.root, "-xdev"])
            // The tree, the library and the moves left gigabytes dirty: written back now, not by
            // kernel threads during the runs.
            sync()

            // For working on the batch: the library stays until the named file is removed, so
            // the child can be run again by hand (`BookmarkBenchmarks --library-child LIB EXPECTED`).
            if let hold = ProcessInfo.processInfo.environment["BOOKMARK_BENCH_HOLD"] {
                try? "\(folder)\n".write(toFile: hold, atomically: true, encoding: .utf8)
                print("library held in \(folder) until \(hold) is removed")
                while access(hold, F_OK) == 0 { sleep(1) }
            }
            // Profiles of the child on each library (Docs/PERFORMANCE.md, "Profiling").
            if let output = ProcessInfo.processInfo.environment["BOOKMARK_BENCH_PERF"] {
                for (library, expected, suffix) in [(unmovedOnly, expectedUnmoved, ""), (all, expectedAll, ".all")] {
                    let (status, text) = Spawn.run(
                        ["perf", "record", "-e", "cpu-clock", "-F", "20000", "-g", "-o", output + suffix, "--"]
                            + unprivileged + [tool, "--library-child", library, expected])
                    print("perf record of the child on \(library): \(output + suffix) (status \(status)): \(text.suffix(900))")
                }
            }
            var point = LibraryPoint(
                count: chosen.count, entries: workload.entries, libraryBytes: libraryBytes, moved: moved, deleted: deleted,
                batch: [], find: [], unmoved: [], statx: [], unmovedCount: unmovedExpected.count, peakBytes: [],
                startBytes: [], createPerSecond: createPerSecond)
            for run in 0..<runs {
                func walk() throws {
                    let began = clock.now
                    // 1: lost+found (mode 0700, root's) is unreadable to this user, as to the child.
                    let status = Spawn.quiet(unprivileged + ["find", workload.root, "-xdev"])
                    guard status == 0 || status == 1 else {
                        let output = Spawn.run(unprivileged + ["find", workload.root, "-xdev", "-maxdepth", "3"]).output
                        throw BenchError("find as uid 65534 exited \(status): \(output.suffix(500))")
                    }
                    point.find.append(seconds(clock.now - began))
                }
                if run % 2 == 1 { try walk() }
                let whole = try child(tool, all, expectedAll, volume: workload.root, expectMisses: deleted)
                point.batch.append(whole.seconds)
                if let floor = whole.floorSeconds, let walk = whole.floorWalk {
                    point.floor.append(floor)
                    point.floorWalk.append(walk)
                }
                point.peakBytes.append(whole.peakBytes)
                point.startBytes.append(whole.startBytes)
                if run % 2 == 0 { try walk() }
                let stayed = try child(tool, unmovedOnly, expectedUnmoved, volume: nil, expectMisses: 0)
                point.unmoved.append(stayed.seconds)
                point.statx.append(stayed.statxSeconds)
                print(
                    "library \(chosen.count), run \(run + 1): batch \(formatTime(whole.seconds)), find "
                        + "\(formatTime(point.find.last ?? .nan)), peak \(format(whole.peakBytes / 1_048_576, 1)) MiB, "
                        + "\(whole.walks) walk(s) up to \(whole.entriesWalked) entries; floor in C "
                        + "\(whole.floorSeconds.map { formatTime($0) } ?? "-"); "
                        + "unmoved \(formatTime(stayed.seconds / Double(max(unmovedExpected.count, 1)))) each, statx "
                        + "\(formatTime(stayed.statxSeconds / Double(max(unmovedExpected.count, 1))))")
            }
            return point
        }
    }

    /// What happens to the file of the `index`th bookmark after the library is made.
    enum Fate { case stays, moved, deleted }

    static func fate(_ index: Int) -> Fate {
        if index % 100 == 57 { return .deleted }
        if index % 10 == 3 { return .moved }
        return .stays
    }

    static let unprivileged = ["setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups", "--"]

    /// Runs the child on one library and checks what it found.
    static func child(_ tool: String, _ library: String, _ expected: String, volume: String?, expectMisses: Int) throws
        -> LibraryChildReport
    {
        let (status, output) = Spawn.run(unprivileged + [tool, "--library-child", library, expected] + (volume.map { [$0] } ?? []))
        guard status == 0, let line = output.split(separator: "\n").last(where: { $0.hasPrefix("{") }),
            let report = try? JSONDecoder().decode(LibraryChildReport.self, from: Data(line.utf8))
        else { throw BenchError("library child failed (\(status)): \(output.suffix(2000))") }
        guard report.wrong == 0, report.notFound == expectMisses else {
            throw BenchError(
                "library child: \(report.wrong) wrong, \(report.notFound) not found (expected \(expectMisses)); "
                    + "first wrong: \(report.firstWrong ?? "-")")
        }
        return report
    }

    /// The running executable's path.
    static func selfExecutable() throws -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { throw BenchError("readlink /proc/self/exe: errno \(errno)") }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `count` items spread evenly over `pool` (all of them when it is smaller).
    static func spread(_ pool: [String], _ count: Int) -> [String] {
        guard count < pool.count else { return pool }
        return (0..<count).map { pool[Int((Double($0) * Double(pool.count) / Double(count)).rounded(.down))] }
    }

    /// The batch of `--library-child` alone, `times` times: one line per run with its wall time and
    /// the process's CPU time (user and system) during it, so that two builds can be compared on
    /// a busy machine by CPU as well as by wall time.
    static func repeatMain(library: String, times: Int) -> Int32 {
        let clock = ContinuousClock()
        func cpu() -> Double {
            var usage = rusage()
            getrusage(RUSAGE_SELF.rawValue, &usage)
            return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
                + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
        }
        for run in 0..<max(times, 1) {
            let (began, cpuBefore) = (clock.now, cpu())
            guard let results = try? Bookmark.resolveAll(storedIn: FilePath(library)) else {
                print("library repeat: the batch failed")
                return 1
            }
            let (elapsed, cpuTime) = (seconds(clock.now - began), cpu() - cpuBefore)
            let failed = results.reduce(0) { count, result in
                if case .failure = result { return count + 1 }
                return count
            }
            print("run \(run + 1): \(format(elapsed, 3)) s, cpu \(format(cpuTime, 3)) s, "
                + "\(results.count) results, \(failed) failed")
        }
        return 0
    }

    /// The child: reads, decodes and resolves the library with the default API, then checks the
    /// results against the expected paths and times a bare `statx` of each existing one.
    /// With `volume` (the volume's mount point), it then times the batch's floor in C
    /// (`cbb_library_floor`): the same file read, a `statx` of each existing path and a walk of
    /// the volume, on as many threads as the batch uses.
    static func childMain(library: String, expected: String, volume: String?) -> Int32 {
        let startBytes = residentBytes()
        let clock = ContinuousClock()
        let began = clock.now
        let walkLog = Mutex((walks: 0, entries: 0, start: Double?.none, end: Double?.none))
        let results: [Result<Resolution, BookmarkError>]
        do {
            results = try Bookmark.resolveAll(storedIn: FilePath(library)) { progress in
                walkLog.withLock { log in
                    let now = seconds(clock.now - began)
                    if progress.volume != nil, progress.entriesWalked == 0 {
                        log.walks += 1
                        if log.start == nil { log.start = now }
                    }
                    if progress.volume != nil {
                        log.entries = max(log.entries, progress.entriesWalked)
                        if progress.entriesWalked > 0 { log.end = now }
                    }
                }
            }
        } catch {
            print("library child: \(error)")
            return 1
        }
        let elapsed = seconds(clock.now - began)
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let peak = Double(usage.ru_maxrss) * 1024

        guard let text = try? String(contentsOfFile: expected, encoding: .utf8) else {
            print("library child: cannot read \(expected)")
            return 1
        }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        var resolved = 0
        var notFound = 0
        var wrong = 0
        var firstWrong: String?
        for (result, want) in zip(results, lines) {
            switch result {
            case .success(let resolution):
                if want != "-", resolution.path == FilePath(want) {
                    resolved += 1
                } else {
                    wrong += 1
                    if firstWrong == nil { firstWrong = "\(resolution.path) for \(want)" }
                }
            case .failure(let error):
                if want == "-", error.code == .notFound {
                    notFound += 1
                } else {
                    wrong += 1
                    if firstWrong == nil { firstWrong = "\(error) for \(want)" }
                }
            }
        }
        if results.count != lines.count {
            wrong += 1
            firstWrong = firstWrong ?? "\(results.count) results for \(lines.count) bookmarks"
        }
        // The floor: one bare statx per existing path, in C, in this process.
        let cPaths = lines.filter { $0 != "-" }.map { Array($0.utf8CString) }
        let statxStart = clock.now
        var inode: UInt64 = 0
        for path in cPaths { _ = path.withUnsafeBufferPointer { cbb_statx($0.baseAddress, &inode) } }
        let statxSeconds = seconds(clock.now - statxStart) * Double(results.count) / Double(max(cPaths.count, 1))
        var report = LibraryChildReport(
            seconds: elapsed, statxSeconds: statxSeconds, peakBytes: peak, startBytes: startBytes, resolved: resolved,
            notFound: notFound, wrong: wrong, firstWrong: firstWrong, walks: walkLog.withLock { $0.walks },
            entriesWalked: walkLog.withLock { $0.entries }, walkStart: walkLog.withLock { $0.start },
            walkEnd: walkLog.withLock { $0.end })
        if let volume {
            // As many threads as the batch's default (one per processor online).
            let threads = Int32(clamping: max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN))))
            var times = cbb_library_floor_times()
            let status = withCStrings(cPaths) { pointers in
                cbb_library_floor(library, pointers, pointers.count, volume, threads, &times)
            }
            guard status == 0 else {
                print("library child: the floor in C failed: errno \(-status)")
                return 1
            }
            (report.floorRead, report.floorStatx, report.floorWalk) = (times.read, times.statx, times.walk)
        }
        guard let json = try? JSONEncoder().encode(report) else { return 1 }
        print(String(decoding: json, as: UTF8.self))
        return 0
    }

    /// Calls `body` with C pointers to each of `strings` (NUL-terminated already), valid during the call.
    static func withCStrings<R>(_ strings: [[CChar]], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
        let copies = strings.map { string -> UnsafeMutablePointer<CChar> in
            let copy = UnsafeMutablePointer<CChar>.allocate(capacity: string.count)
            copy.initialize(from: string, count: string.count)
            return copy
        }
        defer { copies.forEach { $0.deallocate() } }
        return body(copies.map { UnsafePointer($0) })
    }

    /// The resident set now (`/proc/self/statm`), bytes.
    static func residentBytes() -> Double {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return .nan }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Double(fields[1]) else { return .nan }
        return pages * Double(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// Prints the growth table.
    static func printTable(_ points: [LibraryPoint]) {
        print("")
        print(
            "| bookmarks | entries | library | batch | find walk | batch ÷ find | floor in C | floor ÷ find | per bookmark | "
                + "unmoved each | statx each | unmoved ÷ statx | peak RSS | peak ÷ library |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        for p in points {
            let unmovedEach = median(p.unmoved) / Double(max(p.unmovedCount, 1))
            let statxEach = median(p.statx) / Double(max(p.unmovedCount, 1))
            print(
                "| \(p.count) | \(p.entries) | \(format(Double(p.libraryBytes) / 1_048_576, 1)) MiB | "
                    + "\(formatTime(median(p.batch))) | \(formatTime(median(p.find))) | \(format(p.batchRatio, 2))× | "
                    + "\(p.floor.isEmpty ? "-" : formatTime(median(p.floor))) | "
                    + "\(p.floor.isEmpty ? "-" : format(p.floorRatio, 2) + "×") | "
                    + "\(formatTime(median(p.batch) / Double(p.count))) | \(formatTime(unmovedEach)) | "
                    + "\(formatTime(statxEach)) | \(format(p.unmovedRatio, 2))× | "
                    + "\(format(median(p.peakBytes) / 1_048_576, 1)) MiB | \(format(p.memoryRatio, 2))× |")
        }
        print("")
    }
}
