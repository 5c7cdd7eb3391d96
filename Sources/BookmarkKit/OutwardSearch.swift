import FileIdentity
import SecureFiles
import SystemPackage

/// What the outward search looks for: a file's inode (confirmed by identity), and optionally its
/// parent directory's inode (then the recorded name inside it is checked first); or, for the
/// cross-volume heuristic, an entry with the recorded name whose size and modification time match.
struct SearchGoal {
    var recorded: Recorded
    var name: [UInt8]
    /// Set for the cross-volume heuristic: match by name, size and modification time instead of inode.
    var fingerprint: Fingerprint?

    struct Fingerprint {
        var size: UInt64?
        var modificationTime: Double
    }
}

/// A found object.
struct Found {
    var path: [UInt8]
    var id: FileID
    var matchedBy: MatchKind
}

/// Walks one volume outward from a starting directory: the start's subtree, then the parent's
/// other entries, and so on up to the mount point. Reads directories with `getdents64` (no `stat`
/// per entry), never follows symlinks, never leaves the mount, skips unreadable directories,
/// and stops on budget or cancellation.
struct OutwardSearch {
    let volume: Volume
    let goal: SearchGoal
    let budget: SearchBudget
    let cancellation: CancellationFlag?
    private(set) var entries = 0
    private let deadline: ContinuousClock.Instant

    init(volume: Volume, goal: SearchGoal, budget: SearchBudget, cancellation: CancellationFlag?) {
        self.volume = volume
        self.goal = goal
        self.budget = budget
        self.cancellation = cancellation
        let now = ContinuousClock.now
        deadline = now.advanced(by: min(budget.time, .seconds(86_400 * 365)))
    }

    enum Stop: Error {
        case exhausted
        case cancelled
    }

    /// Searches outward from `start` (an absolute path on the volume).
    mutating func run(from start: [UInt8]) throws(Stop) -> Found? {
        var current = start
        var skip: UInt64?
        while true {
            if let directory = try? OwnedDescriptor.open(
                FilePath(bytes: current), options: [.readOnly, .directory, .nonBlocking])
            {
                if let found = try walk(directory, path: current, skipping: skip) { return found }
                skip = (try? directory.status())?.inode
            }
            if current == volume.mountPoint || current.count <= 1 { return nil }
            current = parentPath(current)
            if current.count < volume.mountPoint.count { return nil }
        }
    }

    private struct Pending {
        var parent: OwnedDescriptor
        var name: [UInt8]
        var path: [UInt8]
    }

    /// Depth-first walk of `root`'s subtree, excluding the child directory with inode `skip`.
    private mutating func walk(_ root: OwnedDescriptor, path: [UInt8], skipping skip: UInt64?) throws(Stop) -> Found? {
        var stack: [(OwnedDescriptor, [UInt8])] = [(root, path)]
        var pending: [Pending] = []
        while true {
            let directory: OwnedDescriptor
            let directoryPath: [UInt8]
            if let next = stack.popLast() {
                (directory, directoryPath) = next
            } else if let next = pending.popLast() {
                guard let opened = try? next.parent.openChildDirectory(next.name, sameMount: true) else { continue }
                (directory, directoryPath) = (opened, next.path)
            } else {
                return nil
            }
            var hits: [DirectoryEntry] = []
            var children: [DirectoryEntry] = []
            var stop: Stop?
            let inode = goal.fingerprint == nil ? goal.recorded.inode : nil
            let parentInode = goal.fingerprint == nil ? goal.recorded.parentInode : nil
            let wantedName = goal.fingerprint == nil ? nil : goal.name
            let isRoot = directoryPath == path
            var seen = entries
            try? directory.forEachDirectoryEntry { entry in
                seen += 1
                if entry.inode == inode || (entry.inode == parentInode && entry.kind != .regular)
                    || entry.name == wantedName
                {
                    hits.append(entry)
                }
                if entry.kind == .directory || entry.kind == .unknown {
                    if !(isRoot && entry.inode == skip) { children.append(entry) }
                }
                if seen & 1023 == 0 {
                    if seen >= budget.entries || ContinuousClock.now >= deadline { stop = .exhausted }
                    if cancellation?.isCancelled == true || Task.isCancelled { stop = .cancelled }
                }
                return stop == nil
            }
            entries = seen
            if let stop { throw stop }
            if entries >= budget.entries { throw .exhausted }
            for hit in hits {
                if let found = verify(hit, in: directory, at: directoryPath) { return found }
            }
            let base = directoryPath == [UInt8(ascii: "/")] ? [] : directoryPath
            for child in children.reversed() {
                pending.append(Pending(parent: directory, name: child.name, path: base + [UInt8(ascii: "/")] + child.name))
            }
        }
    }

    /// Confirms a d_ino hit: the object itself (identity), or the recorded parent with the name inside.
    private func verify(_ entry: DirectoryEntry, in directory: OwnedDescriptor, at directoryPath: [UInt8]) -> Found? {
        let base = directoryPath == [UInt8(ascii: "/")] ? [] : directoryPath
        let entryPath = base + [UInt8(ascii: "/")] + entry.name
        if let fingerprint = goal.fingerprint {
            guard entry.name == goal.name,
                let object = try? OwnedDescriptor.open(
                    FilePath(bytes: entry.name), relativeTo: directory, options: [.pathOnly, .noFollow]),
                let id = try? FileID.identify(object, on: volume),
                (id.kind == .directory) == goal.recorded.isDirectory,
                fingerprint.size.map({ $0 == id.size }) ?? true,
                abs(id.modificationTime.timeIntervalSince1970 - fingerprint.modificationTime) < 0.001
            else { return nil }
            return Found(path: entryPath, id: id, matchedBy: .heuristic)
        }
        if entry.inode == goal.recorded.inode,
            let object = try? OwnedDescriptor.open(
                FilePath(bytes: entry.name), relativeTo: directory, options: [.pathOnly, .noFollow]),
            let id = try? FileID.identify(object, on: volume), goal.recorded.matches(id)
        {
            return Found(path: entryPath, id: id, matchedBy: .search)
        }
        if entry.inode == goal.recorded.parentInode,
            let parent = try? directory.openChildDirectory(entry.name, sameMount: true),
            let object = try? OwnedDescriptor.open(
                FilePath(bytes: goal.name), relativeTo: parent, options: [.pathOnly, .noFollow]),
            let id = try? FileID.identify(object, on: volume), goal.recorded.matches(id)
        {
            return Found(path: entryPath + [UInt8(ascii: "/")] + goal.name, id: id, matchedBy: .parent)
        }
        return nil
    }
}

/// The parent of an absolute path (`/` for `/x`).
func parentPath(_ path: [UInt8]) -> [UInt8] {
    var components = splitComponents(path)
    guard !components.isEmpty else { return [UInt8(ascii: "/")] }
    components.removeLast()
    return joinComponents(components)
}
