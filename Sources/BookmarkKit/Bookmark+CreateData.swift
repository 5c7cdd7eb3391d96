// SPDX-License-Identifier: Apache-2.0
import BookmarkFormat
import FileIdentity
import SecureFiles
import SystemPackage

extension Bookmark {
    /// The bytes of a new bookmark of the object at `lastKnown`, handed to `make` in place: what
    /// `create(pathBytes:…).data(make)` gives, byte for byte, for callers that want only the data
    /// (`url.bookmarkData()`, `bookmark make`).
    ///
    /// A plain creation (a canonical path whose directories the ancestor cache or a walk gave, no
    /// resource keys, no base directory) is written by its template's ``CreationPlan`` straight
    /// from the object's facts: no record is filled, encoded and freed. Anything else takes the
    /// record's way. Both give the same bytes (`CreationPlanTests`).
    package static func createData<R>(
        pathBytes lastKnown: [UInt8], options: BookmarkCreationOptions = [], resourceKeys: [ResourceKey] = [],
        relativeTo: FilePath? = nil, volumes: MountedVolumes? = nil, useAncestorCache: Bool = true,
        volumeResponseTimeout: Duration = .seconds(2), _ make: (UnsafeRawBufferPointer) -> R
    ) throws(BookmarkError) -> R {
        let directory = try mountedVolumes(volumes, lastKnownPath: lastKnown)
        // Only the file system's part runs under the guard (possibly on another thread); writing
        // the bytes touches nothing.
        let made = try VolumeGuard.run(touching: lastKnown, volumes: directory, timeout: volumeResponseTimeout) {
            () throws(BookmarkError) -> Made in
            try BookmarkError.wrapping(lastKnownPath: lastKnown) { () throws -> Made in
                let target = try locateForCreation(lastKnown, useCache: useAncestorCache, volumes: directory)
                if resourceKeys.isEmpty, relativeTo == nil, let planned = planned(target, options: options, volumes: directory) {
                    return .planned(planned.plan, planned.facts)
                }
                return .record(
                    try create(target, options: options, resourceKeys: resourceKeys, relativeTo: relativeTo, volumes: directory))
            }
        }
        switch made {
        case .planned(let plan, let facts):
            return try BookmarkError.decoding(lastKnownPath: lastKnown) { () throws(BookmarkFormatError) -> R in
                try plan.write(facts, make)
            }
        case .record(let bookmark):
            return try bookmark.data(make)
        }
    }

    /// What a creation made ready to write.
    private enum Made: Sendable {
        case planned(CreationPlan, CreationFacts)
        case record(Bookmark)
    }

    /// The plan and facts of a plain creation: the object's directories known, its template
    /// planned; `nil` otherwise (the record's way then).
    static func planned(
        _ target: CreationTarget, options: BookmarkCreationOptions, volumes directory: MountedVolumes
    ) -> (plan: CreationPlan, facts: CreationFacts)? {
        guard isPlannable(target),
            let plan = templateWithPlan(for: target.id.volume, options: options, volumes: directory).plan
        else { return nil }
        return (plan, facts(target, options: options))
    }

    /// Whether a plan can write `target`'s bookmark: its path is normal (absolute, no empty, `.`
    /// or `..` component, no trailing `/`: the plan splits it at `/` and takes what follows the
    /// last one as the name) and not `/`, and its directories' IDs are known, one per component
    /// (what `fill` takes from the ancestor chain).
    static func isPlannable(_ target: CreationTarget) -> Bool {
        guard target.pathIsNormal, let chain = target.ancestors, chain.isConsistent else { return false }
        return true
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
    /// Whether ``createData(pathBytes:options:resourceKeys:relativeTo:volumes:useAncestorCache:volumeResponseTimeout:_:)``
    /// would write the bookmark of the object at `lastKnown` through its template's plan (for
    /// tests: the two ways must give the same bytes, so only this tells them apart). Examines the
    /// path without the ancestor cache, so the cache is left as it was.
    package static func writesDirectly(
        pathBytes lastKnown: [UInt8], options: BookmarkCreationOptions = [], volumes: MountedVolumes? = nil
    ) throws(BookmarkError) -> Bool {
        let directory = try mountedVolumes(volumes, lastKnownPath: lastKnown)
        return try BookmarkError.wrapping(lastKnownPath: lastKnown) {
            let target = try locateForCreation(lastKnown, useCache: false, volumes: directory)
            return planned(target, options: options, volumes: directory) != nil
        }
    }
}
