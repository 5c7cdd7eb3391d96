// SPDX-License-Identifier: Apache-2.0
import FileIdentity
import SecureFiles
import SystemPackage

/// What a creation found: the object, its canonical path, and the inode numbers of the
/// directories on that path when the ancestor cache had them.
struct CreationTarget: Sendable {
    var id: FileID
    /// The path with every symlink resolved, as `/proc/self/fd` would give it.
    var path: [UInt8]
    var ancestors: AncestorChain?
    /// Whether ``path`` is normal (``PathBytes/isNormalAbsolute``) and not `/`: known from the
    /// path-first lookup, checked for a real path read back from `/proc/self/fd`.
    var pathIsNormal: Bool
}

extension Bookmark {
    /// Finds the object at `path` for a new bookmark.
    ///
    /// A path that is already canonical (absolute; no `.`, `..` or empty components; every
    /// directory on it a directory, not a symlink; the object itself not a symlink) is identified
    /// with `statx` and `name_to_handle_at` by path, their inodes cross-checked, and taken as the
    /// canonical path: no open, no `readlinkat`, no close. Its directories come from the ancestor
    /// cache (watched ones) or are examined after the target's lookup with one `statx` each, none
    /// through a symlink (``AncestorChain/walk(_:prefixes:known:)``). Anything else (a symlink
    /// anywhere, a file system whose handles do not decode) takes the open-based path: `O_PATH`
    /// open, identity from the descriptor, the real path from `/proc/self/fd`.
    static func locateForCreation(
        _ bytes: [UInt8], useCache: Bool, volumes: MountedVolumes
    ) throws -> CreationTarget {
        if bytes.count > 1, PathBytes(bytes).isNormalAbsolute,
            case .success(let found?) = FileID.lookUpWithoutOpening(bytes, followSymlinks: false, volumes: volumes),
            found.kind != .symlink,
            let chain = ancestors(of: PathBytes(bytes).parent.bytes, target: found, useCache: useCache, volumes: volumes)
        {
            return CreationTarget(id: found, path: bytes, ancestors: chain, pathIsNormal: true)
        }
        let descriptor = try Directory.current.open(PathBytes(bytes).filePath, options: [.pathOnly])
        let id = try FileID.identify(descriptor, volumes: volumes)
        guard let real = try descriptor.currentPathBytes() else {
            throw BookmarkError(.notFound, "the object was deleted while the bookmark was made", lastKnownPath: bytes)
        }
        let chain = ancestors(of: PathBytes(real).parent.bytes, target: id, useCache: useCache, volumes: volumes)
        return CreationTarget(
            id: id, path: real, ancestors: chain, pathIsNormal: real.count > 1 && PathBytes(real).isNormalAbsolute)
    }

    /// The directories on `parent`, from the ancestor cache or (`useCache` false) examined now
    /// without touching it; `nil` when one is not a directory or cannot be examined.
    static func ancestors(of parent: [UInt8], target: FileID, useCache: Bool, volumes: MountedVolumes) -> AncestorChain? {
        if useCache { return AncestorCache.shared.chain(parent: parent, target: target, volumes: volumes) }
        return AncestorChain.walk(parent, prefixes: DirectoryPrefixes(parent))
    }
}
