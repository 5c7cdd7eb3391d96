// SPDX-License-Identifier: Apache-2.0
import FileIdentity
import SecureFiles

extension AncestorCache {
    /// Goes down the path from `/`: directories watched already count; a directory met before is
    /// watched now (its parent is watched, or it is `/`); the first directory that cannot be
    /// watched or is met for the first time ends the watched part, and it and those below it are
    /// only remembered as met, for the caller to examine. A path watched from end to end is kept
    /// as a chain.
    static func fill(_ key: Key, prefixes: DirectoryPrefixes, volumes: MountedVolumes, _ state: inout State) -> Found {
        let count = prefixes.count
        if state.directories.count + count > capacity, let monitor = state.monitor { forget(monitor, &state) }
        var inodes: [UInt64] = []
        var index = 0
        // Watched already. With nothing watched (a cold cache), no prefix is even copied.
        if !state.directories.isEmpty {
            while index < count, let known = state.directories[Array(key.path[..<prefixes.ends[index]])] {
                if index > 0 { inodes.append(known.inode) }
                index += 1
            }
        }
        // Met before: watched now, each below a watched parent.
        var watchedNow = false
        while index < count, !state.disabled {
            let hash = prefixes.hashes[index]
            guard state.met.contains(hash), !state.unwatchable.contains(hash), let monitor = monitor(&state) else { break }
            // The first watch since nothing was watched: read what queued meanwhile (events of
            // removed watches, a mount-table change), so that it does not void the new watches.
            if state.directories.isEmpty { _ = drain(monitor, &state) }
            switch watch(Array(key.path[..<prefixes.ends[index]]), monitor: monitor, volumes: volumes, &state) {
            case .watched(let directory):
                if index > 0 { inodes.append(directory.inode) }
                index += 1
                watchedNow = true
                continue
            case .unwatchable:
                state.unwatchable.insert(hash)
            case .outOfWatches:
                // Every watch is gone: nothing found so far can be checked any more.
                inodes = []
                index = 0
            }
            break
        }
        remember(prefixes.hashes[index...], &state)
        // A watched directory's inode counts only if nothing happened since it was watched, up to
        // a check made after the target's lookup (which came before this call). Those watched
        // before this call were checked by the caller's read of the queue; new ones need another.
        if watchedNow, index >= 2 {
            guard let monitor = state.monitor, drain(monitor, &state) == .quiet else { return .partly([], prefixes) }
        }
        guard index == count else { return .partly(inodes, prefixes) }
        let chain = AncestorChain(path: key.path, inodes: inodes)
        state.chains[key] = chain
        state.last = (key, chain)
        return .cached(chain)
    }

    /// Remembers directories as met, so that the next creation meeting one watches it.
    static func remember(_ hashes: ArraySlice<UInt64>, _ state: inout State) {
        if hashes.isEmpty { return }
        if state.met.count + hashes.count > metCapacity { state.met = [] }
        for hash in hashes { state.met.insert(hash) }
    }

    /// What watching one directory gave.
    enum Watched {
        /// Watched, and examined after the watch was added.
        case watched(WatchedDirectory)
        /// Not watched, and not to be tried again until the cache is cleared: no read permission,
        /// an untrusted file system, or not a directory (a symlink, or gone).
        case unwatchable
        /// inotify ran out of watches, instances or memory: every watch was removed, and nothing
        /// is watched until the cache is cleared.
        case outOfWatches
    }

    /// Watches the directory at `path`, then examines it (``DirectoryMonitor/watchDirectory(_:)``).
    static func watch(_ path: [UInt8], monitor: DirectoryMonitor, volumes: MountedVolumes, _ state: inout State) -> Watched {
        let directory: WatchedDirectory
        do {
            directory = try monitor.watchDirectory(path)
        } catch {
            switch error.errno {
            case .noSpace, .tooManyOpenFiles, .noMemory:
                forget(monitor, &state)
                state.disabled = true
                return .outOfWatches
            default:
                // EACCES (a directory without read permission), ENOENT, ENOTDIR (a symlink, a race).
                return .unwatchable
            }
        }
        guard directory.isDirectory, isTrusted(mountID: directory.mountID, path: path, volumes: volumes) else {
            // Watches are per inode: keep one that a watched directory shares (a bind mount).
            if !state.directories.values.contains(where: { $0.watch == directory.watch }) {
                monitor.unwatch(directory.watch)
                state.removed.insert(directory.watch)
            }
            return .unwatchable
        }
        state.directories[path] = directory
        return .watched(directory)
    }
}
