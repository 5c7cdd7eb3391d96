// SPDX-License-Identifier: Apache-2.0
import FileIdentity
import SecureFiles
import SystemPackage
import Synchronization

/// Walks directory trees on one volume with `getdents64` (no `stat` per entry), depth first,
/// never following symlinks, never leaving the mount, skipping unreadable directories, within a
/// budget and until cancelled. The caller says which entries are interesting (cheap, per entry)
/// and examines those (after each directory is read).
struct VolumeWalker {
    let budget: SearchBudget
    let cancellation: CancellationFlag?
    private(set) var entries = 0
    /// Whether the walk met a mount of this volume's own file system (a bind mount of one of its
    /// folders, which `EXDEV` keeps it out of) and did not enter it: an object there was not looked
    /// for, so "not found" does not mean "not on the volume". Mounts of other file systems (`/proc`
    /// under `/`, a USB stick under `/media`) cannot hold a file moved on this one, and do not count.
    private(set) var skippedMounts = false
    private let deadline: ContinuousClock.Instant

    enum Stop: Error {
        case exhausted
        case cancelled
    }

    /// The count that walkers of one volume on several threads share (``WalkShare``), when this
    /// walker is one of them.
    private let share: WalkShare?

    init(budget: SearchBudget, cancellation: CancellationFlag?) {
        self.budget = budget
        self.cancellation = cancellation
        deadline = ContinuousClock.now.advanced(by: min(budget.time, .seconds(86_400 * 365)))
        share = nil
    }

    /// A walker of part of a volume, whose budget is the share's: its entries count against the
    /// total of all the share's walkers, and its deadline is the share's.
    init(share: WalkShare, cancellation: CancellationFlag?) {
        budget = share.budget
        self.cancellation = cancellation
        deadline = share.deadline
        self.share = share
    }

    private struct Pending {
        var parent: OwnedDescriptor
        var name: [UInt8]
        var path: [UInt8]
    }

    /// Walks `root`'s subtree (`path` is its absolute path), leaving out the child directory of
    /// `root` whose inode is `skip`. `examine` returns `true` to stop the walk.
    mutating func walk(
        _ root: OwnedDescriptor, path: [UInt8], skipping skip: UInt64? = nil,
        interesting: (DirectoryEntryView) -> Bool,
        examine: (DirectoryEntry, OwnedDescriptor, [UInt8]) -> Bool
    ) throws(Stop) -> Bool {
        var pending: [Pending] = []
        var next: (OwnedDescriptor, [UInt8])? = (root, path)
        while true {
            if next == nil {
                guard let item = pending.popLast() else { return false }
                do throws(FileSystemError) {
                    next = (try item.parent.openChildDirectory(item.name, sameMount: true), item.path)
                } catch {
                    // Unreadable or vanished: passed over. A mount of this file system: passed
                    // over, and said.
                    if Self.isMountOfSameFileSystem(error, item.name, in: item.parent, as: root) { skippedMounts = true }
                }
                continue
            }
            guard let (directory, directoryPath) = next else { continue }
            next = nil
            var hits: [DirectoryEntry] = []
            var children: [DirectoryEntry] = []
            var stop: Stop?
            var seen = entries
            let before = seen
            let isRoot = directoryPath == path
            let limit = budget.entries
            let deadline = self.deadline
            let cancellation = self.cancellation
            let share = self.share
            // Names are copied only for the entries kept: hits and directories.
            try? directory.forEachDirectoryEntryView { view in
                seen += 1
                let isChild = (view.kind == .directory || view.kind == .unknown) && !(isRoot && view.inode == skip)
                if interesting(view) {
                    let entry = view.entry
                    hits.append(entry)
                    if isChild { children.append(entry) }
                } else if isChild {
                    children.append(view.entry)
                }
                if seen & 1023 == 0 {
                    let total = share.map { $0.total + seen - before } ?? seen
                    if total >= limit || ContinuousClock.now >= deadline { stop = .exhausted }
                    if cancellation?.isCancelled == true || Task.isCancelled || share?.isFinished == true {
                        stop = .cancelled
                    }
                }
                return stop == nil
            }
            entries = seen
            _ = share?.add(seen - before)
            if let stop { throw stop }
            for hit in hits where examine(hit, directory, directoryPath) { return true }
            if (share?.total ?? entries) >= limit { throw .exhausted }
            let base = PathBytes(directoryPath)
            for child in children.reversed() {
                pending.append(Pending(parent: directory, name: child.name, path: base.appending(child.name).bytes))
            }
        }
    }
}

extension VolumeWalker {
    /// Whether `error`, met opening the entry `name` of `parent`, is a mount point (`EXDEV`) whose
    /// mounted root is on the file system of `root` (the same device): a bind mount of one of the
    /// volume's own folders. One `statx` and one `fstat`, only at a mount point.
    static func isMountOfSameFileSystem(
        _ error: FileSystemError, _ name: [UInt8], in parent: OwnedDescriptor, as root: OwnedDescriptor
    ) -> Bool {
        guard error.errno == .improperLink, let mounted = try? parent.statusOfChild(name),
            let volume = try? root.status()
        else { return false }
        return mounted.device == volume.device
    }

    /// Walks outward from the directory `start` (an absolute path on the mount at `mountPoint`):
    /// its subtree, then each ancestor's other entries, up to and including the mount point, until
    /// `examine` accepts an entry. An ancestor that cannot be opened is passed over.
    ///
    /// - Returns: Whether an entry was accepted, and whether the mount point's own directory was
    ///   walked (then the whole mount was covered).
    mutating func walkOutward(
        from start: [UInt8], mountPoint: [UInt8],
        interesting: (DirectoryEntryView) -> Bool,
        examine: (DirectoryEntry, OwnedDescriptor, [UInt8]) -> Bool
    ) throws(Stop) -> (found: Bool, walkedMountPoint: Bool) {
        var current = PathBytes(start)
        let root = PathBytes(mountPoint)
        var skip: UInt64?
        var walkedMountPoint = false
        while true {
            if let directory = try? Directory.current.open(bytes: current.bytes, options: [.readOnly, .directory, .nonBlocking]) {
                defer { try? directory.close() }
                if try walk(directory, path: current.bytes, skipping: skip, interesting: interesting, examine: examine) {
                    return (true, current == root)
                }
                skip = (try? directory.status())?.inode
                if current == root { walkedMountPoint = true }
            }
            if current == root || current.bytes.count <= max(1, root.bytes.count) { return (false, walkedMountPoint) }
            current = current.parent
        }
    }
}

/// The budget of one volume's walk split over several threads (`BatchResolution+ParallelWalk.swift`):
/// one count of entries, one deadline, and one flag that ends every part once the walk found all
/// it looks for.
final class WalkShare: Sendable {
    let budget: SearchBudget
    let deadline: ContinuousClock.Instant
    private let entries = Atomic<Int>(0)
    private let finished = AtomicFlag()

    /// Ends every walker of the share at its next check (every 1,024 entries), as if cancelled.
    func finish() { finished.set() }

    /// Whether ``finish()`` was called.
    var isFinished: Bool { finished.value }

    init(budget: SearchBudget, deadline: ContinuousClock.Instant) {
        self.budget = budget
        self.deadline = deadline
    }

    /// Counts `count` more entries; returns the new total.
    func add(_ count: Int) -> Int { entries.add(count, ordering: .relaxed).newValue }

    /// The entries counted so far.
    var total: Int { entries.load(ordering: .relaxed) }
}
