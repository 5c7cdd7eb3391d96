// SPDX-License-Identifier: Apache-2.0
import FileIdentity
import SecureFiles
import SystemPackage

/// What a search looks for: the recorded object's inode (confirmed by identity) and its parent
/// directory's inode (then the recorded name inside it is checked first); or, for the cross-volume
/// heuristic, an entry with the recorded name whose size and modification time match.
struct SearchGoal {
    var recorded: Recorded
    var name: [UInt8]
    /// Set for the cross-volume heuristic: match by name, size and modification time instead of inode.
    var fingerprint: Fingerprint?

    struct Fingerprint {
        var size: UInt64?
        var modificationTime: Double
    }

    /// Whether a directory entry deserves a closer look (cheap: no system call).
    func isInteresting(_ entry: DirectoryEntryView) -> Bool {
        if fingerprint != nil { return entry.hasName(name) }
        return entry.inode == recorded.inode || (entry.inode == recorded.parentInode && entry.kind != .regular)
    }

    /// Confirms an interesting entry: the object itself (identity), the recorded parent with the
    /// name inside, or (heuristic) name, kind, size and modification time.
    func confirm(_ entry: DirectoryEntry, in directory: OwnedDescriptor, at directoryPath: [UInt8], on volume: Volume)
        -> Found?
    {
        let entryPath = PathBytes(directoryPath).appending(entry.name).bytes
        func identify(_ name: [UInt8], in parent: OwnedDescriptor) -> FileID? {
            guard let object = try? parent.openChild(name, options: [.pathOnly]) else { return nil }
            return try? FileID.identify(object, on: volume)
        }
        if let fingerprint {
            guard let id = identify(entry.name, in: directory), (id.kind == .directory) == recorded.isDirectory,
                fingerprint.size.map({ $0 == id.size }) ?? true,
                abs(id.modificationTime.timeIntervalSince1970 - fingerprint.modificationTime) < 0.001
            else { return nil }
            return Found(path: entryPath, id: id, matchedBy: .heuristic)
        }
        if entry.inode == recorded.inode, let id = identify(entry.name, in: directory), recorded.matches(id) {
            return Found(path: entryPath, id: id, matchedBy: .search)
        }
        if entry.inode == recorded.parentInode, let parent = try? directory.openChildDirectory(entry.name, sameMount: true),
            let id = identify(name, in: parent), recorded.matches(id)
        {
            return Found(path: PathBytes(entryPath).appending(name).bytes, id: id, matchedBy: .parent)
        }
        return nil
    }
}

/// A found object.
struct Found {
    var path: [UInt8]
    var id: FileID
    var matchedBy: MatchKind
    /// `path` as a `FilePath`, when one was already made for it (saves a second conversion).
    var filePath: FilePath? = nil
}

/// Searches one volume outward from a starting directory: the start's subtree, then the parent's
/// other entries, and so on up to the mount point.
struct OutwardSearch {
    let volume: Volume
    let goal: SearchGoal
    var walker: VolumeWalker
    var entries: Int { walker.entries }

    init(volume: Volume, goal: SearchGoal, budget: SearchBudget, cancellation: CancellationFlag?) {
        self.volume = volume
        self.goal = goal
        walker = VolumeWalker(budget: budget, cancellation: cancellation)
    }

    /// Searches outward from `start` (an absolute path on the volume).
    mutating func run(from start: [UInt8]) throws(VolumeWalker.Stop) -> Found? {
        var found: Found?
        let goal = self.goal
        let volume = self.volume
        _ = try walker.walkOutward(
            from: start, mountPoint: volume.mountPoint, interesting: goal.isInteresting,
            examine: { entry, parent, path in
                found = goal.confirm(entry, in: parent, at: path, on: volume)
                return found != nil
            })
        return found
    }
}

