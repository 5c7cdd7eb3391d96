// SPDX-License-Identifier: Apache-2.0
import BookmarkFormat
import FileIdentity
import SecureFiles

/// The directories on a path, as creation records them: kept ready to copy into each bookmark
/// made below them, so that their names and IDs are built once per directory, not per bookmark.
struct AncestorChain: Sendable {
    /// The directory path the chain is of.
    let path: [UInt8]
    /// The directories' inode numbers (`/` excluded), as ``CreationPlan`` writes them.
    let inodes: [UInt64]
    /// The number of components of ``path``.
    let componentCount: Int
    /// The record's items for the path, made the first time a record is filled from the chain:
    /// a new bookmark is mostly written by its plan (no items), so a first meeting makes none.
    private let items: ChainItems

    /// `inodes`: those of the directories on `path`, `/` excluded, in order.
    init(path: [UInt8], inodes: [UInt64]) {
        self.path = path
        self.inodes = inodes
        var count = 0
        var previous = UInt8(ascii: "/")
        for byte in path {
            if previous == UInt8(ascii: "/"), byte != UInt8(ascii: "/") { count += 1 }
            previous = byte
        }
        componentCount = count
        items = ChainItems()
    }

    /// The path's components as the record's items (key `0x1004` without the object's own name),
    /// made once: every creation in the directory shares them instead of building (and later
    /// freeing) a boxed item per component.
    var componentItems: [BookmarkItem] { items.made(path: path, inodes: inodes).components }

    /// The directories' inode numbers as the record's items (key `0x1005` without the object's own).
    var fileIDItems: [BookmarkItem] { items.made(path: path, inodes: inodes).ids }

    /// Whether there is one inode per component (a path that changed shape while it was being
    /// examined would not give that; the caller then examines it itself).
    var isConsistent: Bool { componentCount == inodes.count }
}

/// An ``AncestorChain``'s record items, made on first use and shared by its copies.
private final class ChainItems: Sendable {
    private let built = Locked<(components: [BookmarkItem], ids: [BookmarkItem])?>(nil)

    func made(path: [UInt8], inodes: [UInt64]) -> (components: [BookmarkItem], ids: [BookmarkItem]) {
        if let known = built.withLock({ $0 }) { return known }
        // One scan, each component's bytes copied once (no intermediate array of components).
        var components: [BookmarkItem] = []
        components.reserveCapacity(inodes.count)
        path.withUnsafeBufferPointer { bytes in
            var start = 0
            for index in 0...bytes.count where index == bytes.count || bytes[index] == UInt8(ascii: "/") {
                if index > start {
                    components.append(BookmarkRecord.pathComponentItem(ByteString(bytes: Array(bytes[start..<index]))))
                }
                start = index + 1
            }
        }
        let fresh = (components, inodes.map { BookmarkRecord.fileIDItem(Int64(bitPattern: $0)) })
        built.withLock { $0 = fresh }
        return fresh
    }
}


extension AncestorChain {
    /// The chain of `parent` examined now, without the cache: one `statx` per directory (`/`
    /// excluded), none through a symlink; `nil` when a directory on it is a symlink, is not a
    /// directory or cannot be examined (the caller then finds the real path by opening the
    /// target).
    ///
    /// What this guarantees is what any examination without a watch can: each inode is the one
    /// its prefix of `parent` named when it was examined, and every prefix was a directory then.
    /// A rename racing with the creation can give a chain mixing directories from before and after
    /// it; nothing keeps such a chain (Docs/RESOLUTION.md, "The ancestor cache").
    ///
    /// - Parameters:
    ///   - parent: A canonical absolute directory path.
    ///   - prefixes: Its directories, as ``DirectoryPrefixes`` found them.
    ///   - known: The inodes of its first directories (`/` excluded), already known and valid:
    ///     from the ancestor cache's watched directories, or the volume's mount point facts
    ///     (``mountPointPart(of:prefixes:target:volumes:)``), whichever knows more.
    static func walk(_ parent: [UInt8], prefixes: DirectoryPrefixes, known: [UInt64] = []) -> AncestorChain? {
        // `/` (ends[0]) is recorded by nobody; the known ones follow it.
        let start = known.count + 1
        guard start <= prefixes.count else { return nil }
        var inodes = known
        inodes.reserveCapacity(prefixes.count - 1)
        if PathDirectories.inodes(of: parent, prefixEnds: prefixes.ends[start...], into: &inodes) != nil { return nil }
        return AncestorChain(path: parent, inodes: inodes)
    }

    /// The inodes of `parent`'s directories down to the mount point of `target`'s volume, from
    /// the volume's mount point facts (examined once per mount: ``MountedVolumes``); `[]` when
    /// `parent` does not start with that mount point (a bind mount reached another way, a table
    /// older than a rename) or they are unknown.
    ///
    /// A first meeting of a path on a volume mounted below `/` then examines only the
    /// directories below the mount point: the benchmark's volume is mounted five directories
    /// deep, about half of each path.
    static func mountPointPart(of parent: [UInt8], prefixes: DirectoryPrefixes, target: FileID, volumes: MountedVolumes) -> [UInt64] {
        let point = target.volume.mountPoint
        guard point.count > 1, parent.count >= point.count, parent.starts(with: point),
            parent.count == point.count || parent[point.count] == UInt8(ascii: "/"),
            let inodes = volumes.mountPointFacts(of: target.volume).directoryInodes,
            // The mount point is the `inodes.count`th directory after `/`.
            inodes.count < prefixes.count, prefixes.ends[inodes.count] == point.count
        else { return [] }
        return inodes
    }

    /// ``walk(_:prefixes:known:)`` with the mount point's part of the path taken from the volume
    /// when that is more than `known`.
    static func walk(
        _ parent: [UInt8], prefixes: DirectoryPrefixes, known: [UInt64] = [], target: FileID, volumes: MountedVolumes
    ) -> AncestorChain? {
        let mounted = mountPointPart(of: parent, prefixes: prefixes, target: target, volumes: volumes)
        return walk(parent, prefixes: prefixes, known: mounted.count > known.count ? mounted : known)
    }
}
