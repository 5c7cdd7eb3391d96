// SPDX-License-Identifier: Apache-2.0
import FileIdentity
import SecureFiles
import SystemPackage

/// What a creation found: the object, its canonical path, and the inode numbers of the
/// directories on that path when the ancestor cache had them.
struct CreationTarget {
    var id: FileID
    /// The path with every symlink resolved, as `/proc/self/fd` would give it.
    var path: [UInt8]
    var ancestors: AncestorChain?
}

extension Bookmark {
    /// Finds the object at `path` for a new bookmark.
    ///
    /// With the ancestor cache, a path that is already canonical (absolute; no `.`, `..` or empty
    /// components; every directory on it a cached directory, so no symlink among them; the object
    /// itself not a symlink) is identified with `statx` and `name_to_handle_at` by path, their
    /// inodes cross-checked, and taken as the canonical path: no open, no `readlinkat`, no close.
    /// Anything else (a symlink anywhere, a file system whose handles do not decode, an uncached
    /// or uncacheable directory) takes the open-based path: `O_PATH` open, identity from the
    /// descriptor, the real path from `/proc/self/fd`.
    static func locateForCreation(
        _ path: FilePath, bytes: [UInt8], useCache: Bool, volumes: MountedVolumes
    ) throws -> CreationTarget {
        if useCache, bytes.count > 1, PathBytes(bytes).isNormalAbsolute,
            case .success(let found?) = FileID.lookUpWithoutOpening(bytes, followSymlinks: false, volumes: volumes),
            found.kind != .symlink,
            let chain = AncestorCache.shared.chain(parent: PathBytes(bytes).parent.bytes, target: found, volumes: volumes)
        {
            return CreationTarget(id: found, path: bytes, ancestors: chain)
        }
        let descriptor = try Directory.current.open(path, options: [.pathOnly])
        let id = try FileID.identify(descriptor, volumes: volumes)
        guard let real = try descriptor.currentPathBytes() else {
            throw BookmarkError(.notFound, "the object was deleted while the bookmark was made", lastKnownPath: bytes)
        }
        let chain = useCache ? AncestorCache.shared.chain(parent: PathBytes(real).parent.bytes, target: id, volumes: volumes) : nil
        return CreationTarget(id: id, path: real, ancestors: chain)
    }
}

