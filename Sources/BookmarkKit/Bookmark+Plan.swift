// SPDX-License-Identifier: Apache-2.0
import BookmarkFormat
import FileIdentity
import SecureFiles
import SystemPackage

extension Bookmark {
    /// Whether a plan can write `target`'s bookmark: its path is normal (absolute, no empty, `.`
    /// or `..` component, no trailing `/`: the plan splits it at `/` and takes what follows the
    /// last one as the name) and not `/`, and its directories' IDs are known, one per component
    /// (what `fill` takes from the ancestor chain).
    static func isPlannable(_ target: CreationTarget) -> Bool {
        target.pathIsNormal && target.ancestors?.isConsistent == true
    }

    /// What a plan writes for `target` (``isPlannable(_:)``), as `fill` and `create` set it on a record.
    static func facts(_ target: CreationTarget, options: BookmarkCreationOptions) -> CreationFacts {
        let path = target.path
        let id = target.id
        let minimal = options.contains(.minimalBookmark)
        let flags = propertyFlagBits(path: path, name: PathBytes(path).lastComponent, id: id)
        return CreationFacts(
            path: path, ancestorInodes: target.ancestors?.inodes ?? [], inode: id.inode,
            creationDate: id.birthTime.map { BookmarkDate(unixSeconds: $0.timeIntervalSince1970) },
            resourceProperties: propertyBytes[flags] ?? propertyFlags(flags).bytes,
            linux: linuxFacts(path: path, id: id),
            fileSize: !minimal && id.kind == .regular ? Int64(clamping: id.size) : nil,
            modificationDate: minimal ? nil : BookmarkDate(unixSeconds: id.modificationTime.timeIntervalSince1970))
    }

    /// The `0x1010` payload of every combination of the known flags, as ``propertyItems`` holds them.
    static let propertyBytes: [UInt64: [UInt8]] = propertyItems.compactMapValues { item in
        if case .data(let bytes) = item { return bytes }
        return nil
    }
}

extension Bookmark {
    /// Whether ``create(for:options:resourceKeys:relativeTo:volumes:useAncestorCache:volumeResponseTimeout:)``
    /// of the object at `lastKnown` returns a bookmark whose bytes its template's plan writes (for
    /// tests: the plan's bytes and the record's must be equal, so only this tells the two ways
    /// apart). Examines the path without the ancestor cache, so the cache is left as it was.
    package static func writesDirectly(
        pathBytes lastKnown: [UInt8], options: BookmarkCreationOptions = [], volumes: MountedVolumes? = nil
    ) throws(BookmarkError) -> Bool {
        let directory = try mountedVolumes(volumes, lastKnownPath: lastKnown)
        return try BookmarkError.wrapping(lastKnownPath: lastKnown) {
            let target = try locateForCreation(lastKnown, useCache: false, volumes: directory)
            return PendingCreation(target, options: options, volumes: directory) != nil
        }
    }
}
