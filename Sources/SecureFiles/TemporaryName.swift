// SPDX-License-Identifier: Apache-2.0
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

// MARK: - Temporary names that say whose they are

/// The name of a writer's temporary file: `.<name>.tmp-<pid>-<start>-<random>`, where `<pid>` and
/// `<start>` (the process's start time in clock ticks since boot, field 22 of `/proc/PID/stat`)
/// name the process that made it. A process id alone is reused; the pair is not, within a boot.
///
/// A writer killed between naming its temporary file and renaming it leaves the file behind. The
/// next write into the same directory (``Directory/replace(_:contents:options:)``,
/// ``Directory/publish(_:contents:permissions:)``) removes every such leftover whose owner is gone,
/// so nothing accumulates in a cache directory, and a write in progress is never disturbed.
enum TemporaryName {
    /// The marker between the final name and the owner.
    static let marker = Array(".tmp-".utf8)

    /// A new temporary name for `name`, owned by this process.
    static func make(for name: [UInt8]) -> [UInt8] {
        OwnedName.make(for: name, marker: String(decoding: marker, as: UTF8.self))
    }

    /// The owner a temporary name records, or `nil` for any other name.
    static func owner(of entry: [UInt8]) -> (pid: Int32, start: UInt64)? {
        guard entry.first == UInt8(ascii: "."), entry.count > marker.count + 5 else { return nil }
        var index = entry.count - marker.count
        while index > 0 {
            if entry[index..<index + marker.count].elementsEqual(marker) {
                return OwnedName.owner(inSuffix: entry[(index + marker.count)...])
            }
            index -= 1
        }
        return nil
    }
}

/// A process's identity that survives pid reuse: its pid and its start time.
enum ProcessStart {
    private static let cache = Locked<(pid: Int32, start: UInt64)?>(nil)

    /// This process (recomputed after a `fork`, since the pid changes).
    static var current: (pid: Int32, start: UInt64) {
        let pid = getpid()
        if let known = cache.withLock({ $0 }), known.pid == pid { return known }
        let owner = (pid: pid, start: startTime(of: pid) ?? 0)
        cache.withLock { $0 = owner }
        return owner
    }

    /// The start time of `pid` (field 22 of `/proc/PID/stat`), or `nil` when there is no such
    /// process (or no `/proc`).
    static func startTime(of pid: Int32) -> UInt64? {
        // O_NOFOLLOW: `stat` is a plain procfs file, never a link to follow.
        guard let file = try? OwnedDescriptor.open(FilePath("/proc/\(pid)/stat"), options: [.readOnly, .noFollow]),
            let bytes = try? file.readToEnd(limit: 4096),
            let close = bytes.lastIndex(of: UInt8(ascii: ")"))
        else { return nil }
        // After "pid (comm)": field 3 (state) is the first; the start time is field 22.
        let fields = bytes[(close + 1)...].split(separator: UInt8(ascii: " "))
        guard fields.count > 19 else { return nil }
        return UInt64(String(decoding: fields[19], as: UTF8.self))
    }

    /// Whether the process that made a temporary name is still running.
    static func isAlive(pid: Int32, start: UInt64) -> Bool {
        guard let now = startTime(of: pid) else {
            // No /proc entry: gone, unless /proc itself is missing (then assume alive: keep it).
            return startTime(of: getpid()) == nil
        }
        return now == start
    }
}

extension Directory {
    /// Removes the temporary files of writers that are gone from the directory `parent` (best
    /// effort: any failure leaves the leftover for a later write). Only regular files with a
    /// well-formed temporary name are touched.
    func sweepLeftovers(in parent: OwnedDescriptor, path: [UInt8]) {
        guard LeftoverSweeping.needsSweep(parent) else { return }
        guard let directory = try? openAt(parent, [UInt8(ascii: ".")], flags: O_RDONLY | O_DIRECTORY, mode: 0, path: path),
            let dirfd = directory.rawValue,
            let entries = try? directory.directoryEntries()
        else { return }
        let me = ProcessStart.current
        for entry in entries where entry.kind == .regular || entry.kind == .unknown {
            guard let owner = TemporaryName.owner(of: entry.name), owner.pid != me.pid || owner.start != me.start,
                !ProcessStart.isAlive(pid: owner.pid, start: owner.start)
            else { continue }
            if case .success = withCName(entry.name, { Sys.unlinkat(dirfd, $0, 0) }) {
                Audit.policy(.removedLeftover(name: entry.name))
            }
        }
    }
}

/// Sweeping leftovers once per directory for a run of writes.
///
/// Every atomic write first removes the temporary files that dead writers left in its directory,
/// which reads the whole directory. For one write that is cheap; for a batch of writes into one
/// directory (`bookmark make --output-dir` of 10,000 files) it is quadratic: the 10,000th write
/// reads 10,000 entries. Inside ``oncePerDirectory(_:)`` each directory is swept by the first write
/// of the scope only; a writer that dies during the scope leaves its file for the next scope.
public enum LeftoverSweeping {
    /// The directories swept in the current scope, by device and inode.
    final class Swept: Sendable {
        let keys = Locked(Set<[UInt64]>())
    }

    @TaskLocal static var scope: Swept?

    /// Runs `body` with leftovers swept at most once per directory (on the calling thread, and in
    /// tasks it starts).
    public static func oncePerDirectory<T>(_ body: () throws -> T) rethrows -> T {
        try $scope.withValue(Swept()) { try body() }
    }

    /// Whether `parent` still needs its sweep in this scope (always `true` outside a scope); marks
    /// it swept.
    static func needsSweep(_ parent: OwnedDescriptor) -> Bool {
        guard let scope else { return true }
        guard let status = try? parent.status() else { return true }
        let key = [UInt64(status.device.major), UInt64(status.device.minor), status.inode]
        return scope.keys.withLock { $0.insert(key).inserted }
    }
}

/// Names for a writer's work in progress beside its target: `.<name><marker><pid>-<start>-<random>`.
/// Like the temporary files of ``Directory/replace(_:contents:options:)``, they record the process
/// that made them (its pid and start time), so a later writer removes or recovers a dead writer's
/// leftovers and never touches a live writer's.
public enum OwnedName {
    /// A new name for work on `name`, owned by this process. `marker` tells kinds of work apart
    /// (`.saving-`, `.backup-`); the name is cut to fit 255 bytes.
    public static func make(for name: [UInt8], marker: String) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        let owner = ProcessStart.current
        let suffix = "\(owner.pid)-\(owner.start)-" + String(generator.next() as UInt64, radix: 16)
        return Array(".".utf8) + name.prefix(150) + Array(marker.utf8) + Array(suffix.utf8)
    }

    /// Whether `entry` is a name ``make(for:marker:)`` gave for `name` and `marker` whose process is
    /// gone (a process that is still running, this one included, is never abandoned).
    public static func isAbandoned(_ entry: [UInt8], for name: [UInt8], marker: String) -> Bool {
        let prefix = Array(".".utf8) + name.prefix(150) + Array(marker.utf8)
        guard entry.count > prefix.count, entry.starts(with: prefix),
            let owner = owner(inSuffix: entry[prefix.count...])
        else { return false }
        let me = ProcessStart.current
        if owner.pid == me.pid && owner.start == me.start { return false }
        return !ProcessStart.isAlive(pid: owner.pid, start: owner.start)
    }

    /// The owner in the `<pid>-<start>-<random hex>` part of a name, or `nil` when it is not one.
    static func owner(inSuffix suffix: ArraySlice<UInt8>) -> (pid: Int32, start: UInt64)? {
        let fields = suffix.split(separator: UInt8(ascii: "-"), omittingEmptySubsequences: false)
        guard fields.count == 3,
            let pid = Int32(String(decoding: fields[0], as: UTF8.self)), pid > 0,
            let start = UInt64(String(decoding: fields[1], as: UTF8.self)),
            UInt64(String(decoding: fields[2], as: UTF8.self), radix: 16) != nil
        else { return nil }
        return (pid, start)
    }
}
