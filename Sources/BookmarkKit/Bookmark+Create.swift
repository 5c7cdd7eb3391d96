// SPDX-License-Identifier: Apache-2.0
import BookmarkFormat
import FileIdentity
import SecureFiles
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

extension Bookmark {
    /// Creates bookmark data for the object at `path`.
    ///
    /// - Parameters:
    ///   - path: The file or directory. Symlinks along it are resolved: the bookmark names the object.
    ///   - options: Apple's creation options (see ``BookmarkCreationOptions``).
    ///   - resourceKeys: Resource values to store, for reading later without the file system.
    ///   - relativeTo: A base directory (a document's folder) for a relative bookmark: moving the
    ///     base and the object together keeps it resolving.
    ///   - volumes: The mounted volumes to reuse across many creations.
    ///   - useAncestorCache: Whether the per-component IDs may come from the process's ancestor
    ///     cache (default). `false` examines every ancestor again and leaves the cache alone.
    ///   - volumeResponseTimeout: How long a FUSE or network volume may take to answer (default
    ///     2 s); other volumes are not timed.
    /// - Throws: ``BookmarkError`` (`notFound`, `permissionDenied`, `volumeNotResponding`, …).
    ///
    /// Implementation details: `statx` and `name_to_handle_at` by path (their inodes
    /// cross-checked); when the path's directory is in the ancestor cache, one `poll` of the
    /// cache's inotify queue. A directory the cache has not met before is examined with one
    /// `statx` (`AT_SYMLINK_NOFOLLOW`); one met before is watched (`inotify_add_watch`, then
    /// `statx`); see ``clearAncestorCache()``. The directories down to the volume's mount point
    /// are examined once per mount and `MountedVolumes` (with the volume's other facts), not per
    /// creation. Without the cache, one `statx` per ancestor. A path
    /// through a symlink is opened instead (`O_PATH`, `statx` and `name_to_handle_at` on it, the
    /// real path from `/proc/self/fd`). The volume is identified once per `MountedVolumes`.
    /// A plain creation (no resource keys, no base directory, the directories known) keeps what
    /// it found and fills ``record`` the first time it is read; ``data()`` writes the bytes from
    /// the same facts through the volume's template, without a record. Neither the record nor
    /// the bytes depend on which comes first (Docs/RESOLUTION.md, "Nothing fills a record nobody reads").
    public static func create(
        for path: FilePath, options: BookmarkCreationOptions = [], resourceKeys: [ResourceKey] = [],
        relativeTo: FilePath? = nil, volumes: MountedVolumes? = nil, useAncestorCache: Bool = true,
        volumeResponseTimeout: Duration = .seconds(2)
    ) throws(BookmarkError) -> Bookmark {
        try create(
            pathBytes: PathBytes(path).bytes, options: options, resourceKeys: resourceKeys, relativeTo: relativeTo,
            volumes: volumes, useAncestorCache: useAncestorCache, volumeResponseTimeout: volumeResponseTimeout)
    }

    /// ``create(for:options:resourceKeys:relativeTo:volumes:useAncestorCache:volumeResponseTimeout:)``
    /// for a path given as its bytes, as a `file:` URL holds it: no `FilePath` is made unless the
    /// path is not plain (not absolute, `//`, a trailing `/`) or leads through a symlink, where it
    /// takes the open-based steps. (`FilePath` normalises its bytes one at a time when it is made:
    /// about 0.2 µs of the 9 µs `url.bookmarkData()` took.)
    package static func create(
        pathBytes lastKnown: [UInt8], options: BookmarkCreationOptions = [], resourceKeys: [ResourceKey] = [],
        relativeTo: FilePath? = nil, volumes: MountedVolumes? = nil, useAncestorCache: Bool = true,
        volumeResponseTimeout: Duration = .seconds(2)
    ) throws(BookmarkError) -> Bookmark {
        let directory = try mountedVolumes(volumes, lastKnownPath: lastKnown)
        return try VolumeGuard.run(touching: lastKnown, volumes: directory, timeout: volumeResponseTimeout) {
            () throws(BookmarkError) -> Bookmark in
            try create(
                bytes: lastKnown, options: options, resourceKeys: resourceKeys, relativeTo: relativeTo,
                volumes: directory, useAncestorCache: useAncestorCache)
        }
    }

    /// A new bookmark's bytes, handed to `make` in place (valid only during the call): what
    /// `create(pathBytes:…).data(make)` gives, without the ``Bookmark`` in between.
    ///
    /// For callers that only want the bytes (BookmarkFoundation's `url.bookmarkData()` and its
    /// other spellings): a plain creation's bytes are written by its template's plan straight from
    /// what was found, and no bookmark, no ``PendingCreation`` and no derived-facts cache is made
    /// and freed again (their objects and locks were about a twentieth of the call, perf).
    package static func createData<R>(
        pathBytes lastKnown: [UInt8], options: BookmarkCreationOptions = [], resourceKeys: [ResourceKey] = [],
        relativeTo: FilePath? = nil, volumes: MountedVolumes? = nil, volumeResponseTimeout: Duration = .seconds(2),
        _ make: (UnsafeRawBufferPointer) -> R
    ) throws(BookmarkError) -> R {
        guard resourceKeys.isEmpty, relativeTo == nil else {
            return try create(
                pathBytes: lastKnown, options: options, resourceKeys: resourceKeys, relativeTo: relativeTo,
                volumes: volumes, volumeResponseTimeout: volumeResponseTimeout
            ).data(make)
        }
        let directory = try mountedVolumes(volumes, lastKnownPath: lastKnown)
        // Everything that touches the file system runs under the guard; writing the bytes does not.
        let found = try VolumeGuard.run(touching: lastKnown, volumes: directory, timeout: volumeResponseTimeout) {
            () throws(BookmarkError) -> Created in
            try BookmarkError.wrapping(lastKnownPath: lastKnown) {
                let target = try locateForCreation(lastKnown, useCache: true, volumes: directory)
                if let template = PendingCreation.template(for: target, options: options, volumes: directory),
                    let plan = template.plan
                {
                    return .planned(target, plan, template.memo)
                }
                return .filled(try create(target, options: options, resourceKeys: [], relativeTo: nil, volumes: directory))
            }
        }
        switch found {
        case .planned(let target, let plan, let memo):
            return try PendingCreation.data(target, options: options, plan: plan, memo: memo, make)
        case .filled(let bookmark):
            return try bookmark.data(make)
        }
    }

    /// What ``createData(pathBytes:options:resourceKeys:relativeTo:volumes:volumeResponseTimeout:_:)`` found.
    private enum Created: Sendable {
        /// To be written by its template's plan (the template's memo with it).
        case planned(CreationTarget, CreationPlan, WrittenMemo)
        /// Filled into a record.
        case filled(Bookmark)
    }

    /// ``create(for:options:resourceKeys:relativeTo:volumes:useAncestorCache:volumeResponseTimeout:)``
    /// once the path is known to be safe to touch.
    static func create(
        bytes lastKnown: [UInt8], options: BookmarkCreationOptions, resourceKeys: [ResourceKey],
        relativeTo: FilePath?, volumes directory: MountedVolumes, useAncestorCache: Bool
    ) throws(BookmarkError) -> Bookmark {
        try BookmarkError.wrapping(lastKnownPath: lastKnown) {
            let target = try locateForCreation(lastKnown, useCache: useAncestorCache, volumes: directory)
            // A plain creation is filled into a record only when the record is asked for: most
            // new bookmarks are encoded straight away (which the template's plan does without a
            // record) or only compared.
            if resourceKeys.isEmpty, relativeTo == nil, let pending = PendingCreation(target, options: options, volumes: directory) {
                return Bookmark(pending: pending)
            }
            return try create(
                target, options: options, resourceKeys: resourceKeys, relativeTo: relativeTo, volumes: directory)
        }
    }

    /// The bookmark of an object located for creation.
    static func create(
        _ target: CreationTarget, options: BookmarkCreationOptions, resourceKeys: [ResourceKey],
        relativeTo: FilePath?, volumes directory: MountedVolumes
    ) throws -> Bookmark {
        let template = template(for: target.id.volume, options: options, volumes: directory)
        return Bookmark(
            record: try record(target, template: template, options: options, resourceKeys: resourceKeys, relativeTo: relativeTo))
    }

    /// The record of an object located for creation, filled from `template`.
    static func record(
        _ target: CreationTarget, template: BookmarkRecord, options: BookmarkCreationOptions, resourceKeys: [ResourceKey],
        relativeTo: FilePath?
    ) throws -> BookmarkRecord {
        let id = target.id
        let real = target.path
        var record = template
        try fill(&record, path: real, id: id, options: options, ancestors: target.ancestors)
        if !options.contains(.minimalBookmark) {
            // Size and modification time always go in: the cross-volume heuristic needs them.
            // Set or removed every time: the template holds placeholders for them.
            record[ResourceKey.fileSize.bookmarkKey] = id.kind == .regular ? .int64(Int64(clamping: id.size)) : nil
            record[ResourceKey.contentModificationDate.bookmarkKey] =
                .date(BookmarkDate(unixSeconds: id.modificationTime.timeIntervalSince1970))
            if !resourceKeys.isEmpty { fillResourceValues(&record, keys: resourceKeys, path: real, id: id) }
        }
        if let relativeTo {
            try fillRelative(&record, target: real, base: relativeTo)
        }
        return record
    }

    /// Fills the record's path, IDs, flags and Linux facts (the path first: the Linux facts
    /// store the mount-relative path as a count of its components).
    ///
    /// - Parameters:
    ///   - ancestors: The inode numbers of the directories on the path (from the ancestor cache),
    ///     or `nil` to examine each with `statx`.
    static func fill(
        _ record: inout BookmarkRecord, path bytes: [UInt8], id: FileID, options: BookmarkCreationOptions,
        ancestors: AncestorChain? = nil
    ) throws {
        let name = PathBytes(bytes).lastComponent
        // The directories' names and IDs come ready-made from the cache when it had them, as the
        // record's items: shared with every other creation in the directory.
        let chain = ancestors.flatMap { $0.isConsistent ? $0 : nil }
        if let chain, let name {
            let nameString = ByteString(bytes: name)
            var items = chain.componentItems
            items.append(BookmarkRecord.pathComponentItem(nameString))
            record.setPathComponents(items: items)
            if !options.contains(.minimalBookmark) {
                var ids = chain.fileIDItems
                ids.append(BookmarkRecord.fileIDItem(Int64(bitPattern: id.inode)))
                record.setFileIDs(items: ids)
            }
            record.fileName = nameString
        } else {
            let components = PathBytes(bytes).components.map(ByteString.init(bytes:))
            record.pathComponents = components
            if !options.contains(.minimalBookmark) {
                record.fileIDs = statComponents(components) + [Int64(bitPattern: id.inode)]
            }
            record.fileName = components.last ?? ByteString(bytes: [UInt8(ascii: "/")])
        }
        try fillIdentity(&record, path: bytes, name: name, id: id)
    }

    /// The inode number of every directory on the path (each `statx`ed; `nil` where that fails).
    static func statComponents(_ components: [ByteString]) -> [Int64?] {
        var ids: [Int64?] = []
        ids.reserveCapacity(components.count)
        var prefix: [UInt8] = []
        for component in components.dropLast() {
            prefix.append(UInt8(ascii: "/"))
            prefix.append(contentsOf: component.bytes)
            let status = try? FileStatus.lookup(pathBytes: prefix, followSymlinks: true).get()
            ids.append(status.map { Int64(bitPattern: $0.inode) })
        }
        return ids
    }

    /// The object's own facts: inode, birth time, kind flags and the Linux facts.
    static func fillIdentity(_ record: inout BookmarkRecord, path bytes: [UInt8], name: [UInt8]?, id: FileID) throws {
        record.fileID = Int64(bitPattern: id.inode)
        record.creationDate = id.birthTime.map { BookmarkDate(unixSeconds: $0.timeIntervalSince1970) }
        let flags = propertyFlagBits(path: bytes, name: name, id: id)
        record.setResourceProperties(item: propertyItems[flags] ?? BookmarkRecord.resourcePropertiesItem(propertyFlags(flags)))
        // `fill` split the record's components from `bytes`.
        try record.setLinuxFacts(linuxFacts(path: bytes, id: id), componentsSplitFrom: bytes)
    }

    /// The `0x1010` flags creation records for the object (one of ``knownPropertyFlags``' combinations).
    static func propertyFlagBits(path bytes: [UInt8], name: [UInt8]?, id: FileID) -> UInt64 {
        var flags: UInt64 = 0
        switch id.kind {
        case .regular: flags |= BookmarkPropertyFlags.isRegularFile
        case .directory: flags |= BookmarkPropertyFlags.isDirectory
        case .symlink: flags |= BookmarkPropertyFlags.isSymbolicLink
        default: break
        }
        if name?.first == UInt8(ascii: ".") { flags |= BookmarkPropertyFlags.isHidden }
        if bytes == id.volume.mountPoint { flags |= BookmarkPropertyFlags.isVolume }
        return flags
    }

    /// The object's Linux facts. One item holds the file's and the volume's: the volume's are
    /// copied from `Volume` (no system call), and encoding the whole item is a few dozen bytes.
    static func linuxFacts(path bytes: [UInt8], id: FileID) -> LinuxFileFacts {
        let relative = mountRelativePath(bytes, mountPoint: id.volume.mountPoint)
        let volume = id.volume
        return LinuxFileFacts(
            generation: id.generation.map(UInt64.init), handleType: id.handle?.type, handle: id.handle?.bytes,
            birthTime: id.birthTime.map { LinuxTimestamp(seconds: $0.seconds, nanoseconds: $0.nanoseconds) },
            subvolumeID: id.subvolume, volumeUUIDSource: formatSource(volume), mountRelativePath: relative.map(ByteString.init(bytes:)),
            fsType: volume.fsType, fsid: volume.fsid.map(LinuxFSID.init))
    }

    /// `path` relative to the volume's mount point, starting with `/`; `nil` when `path` is not
    /// below `mountPoint`: a mount table older than a rename of one of the mount point's
    /// ancestors (no mount event announces that) still names the old path, and cutting its length
    /// off the new one would record a path that names nothing.
    static func mountRelativePath(_ path: [UInt8], mountPoint: [UInt8]) -> [UInt8]? {
        if mountPoint == [UInt8(ascii: "/")] { return path }
        guard path.starts(with: mountPoint) else { return nil }
        if path.count == mountPoint.count { return [UInt8(ascii: "/")] }
        guard path[mountPoint.count] == UInt8(ascii: "/") else { return nil }
        return Array(path[mountPoint.count...])
    }

    /// The flags creation records (`0x1010`): which of these it knows, and which are set.
    static let knownPropertyFlags = BookmarkPropertyFlags.isRegularFile | BookmarkPropertyFlags.isDirectory
        | BookmarkPropertyFlags.isSymbolicLink | BookmarkPropertyFlags.isVolume | BookmarkPropertyFlags.isHidden

    static func propertyFlags(_ flags: UInt64) -> BookmarkPropertyFlags {
        BookmarkPropertyFlags(flags: flags, validMask: knownPropertyFlags, extra: knownPropertyFlags)
    }

    /// The `0x1010` item of every combination of the known flags (32), made once: encoding the
    /// three words profiled at a twentieth of a creation.
    static let propertyItems: [UInt64: BookmarkItem] = {
        let bits: [UInt64] = [
            BookmarkPropertyFlags.isRegularFile, BookmarkPropertyFlags.isDirectory, BookmarkPropertyFlags.isSymbolicLink,
            BookmarkPropertyFlags.isVolume, BookmarkPropertyFlags.isHidden,
        ]
        var items: [UInt64: BookmarkItem] = [:]
        for subset in 0..<(1 << bits.count) {
            var flags: UInt64 = 0
            for (index, bit) in bits.enumerated() where subset & (1 << index) != 0 { flags |= bit }
            items[flags] = BookmarkRecord.resourcePropertiesItem(propertyFlags(flags))
        }
        return items
    }()

    /// The keys every creation sets or removes, whatever the file: each template holds a
    /// placeholder under each, so that setting them replaces an entry of the sorted TOC in place
    /// instead of inserting one (an insert moves the entries after it, and the first one copies
    /// the template's entries into a larger buffer). `fill` and `create` assign every one of them.
    static func keysSetPerFile(minimal: Bool) -> [BookmarkKey] {
        creationSlotKeys.filter { minimal ? !$0.perFileOnlyWhenFull : true }.map(\.key)
    }

    /// Every key a creation sets per file, with its ``CreationSlot``, in the order `fill` sets them.
    static let creationSlotKeys: [(key: BookmarkKey, slot: CreationSlot, perFileOnlyWhenFull: Bool)] = [
        (.pathComponents, .pathComponents, false), (.resourceProps, .resourceProperties, false), (.fileName, .fileName, false),
        (.fileID, .fileID, false), (.creationDate, .creationDate, false), (LinuxKeys.compact, .linux, false),
        (.fileIDs, .fileIDs, true), (ResourceKey.fileSize.bookmarkKey, .fileSize, true),
        (ResourceKey.contentModificationDate.bookmarkKey, .modificationDate, true),
    ]

    /// ``creationSlotKeys`` as the plan takes them.
    static let creationSlots: [BookmarkKey: CreationSlot] = Dictionary(
        uniqueKeysWithValues: creationSlotKeys.map { ($0.key, $0.slot) })

    /// A record carrying the volume's facts, the creation options and the user: the start of every
    /// bookmark made on that volume with those options (see ``VolumeTemplates``).
    static func template(for volume: Volume, options: BookmarkCreationOptions, volumes: MountedVolumes?) -> BookmarkRecord {
        templateWithPlan(for: volume, options: options, volumes: volumes).record
    }

    /// ``template(for:options:volumes:)`` with its ``CreationPlan``.
    static func templateWithPlan(
        for volume: Volume, options: BookmarkCreationOptions, volumes: MountedVolumes?
    ) -> VolumeTemplates.Template {
        let minimal = options.contains(.minimalBookmark)
        // userUID only: the user name would need an NSS lookup (files outside the syscall seam).
        let uid = minimal ? UInt32.max : getuid()
        return VolumeTemplates.shared.template(for: volume, options: options, uid: uid) {
            var record = BookmarkRecord()
            record.volume = volumeFacts(volume, minimal: minimal, volumes: volumes)
            if !minimal { record.userUID = uid }
            record.creationOptions = options.rawValue
            for key in keysSetPerFile(minimal: minimal) { record[key] = .null }
            return record
        }
    }

    static func volumeFacts(_ volume: Volume, minimal: Bool, volumes: MountedVolumes? = nil) -> BookmarkVolume {
        let point = volume.mountPoint
        var url = Array("file://".utf8) + point
        if url.last != UInt8(ascii: "/") { url.append(UInt8(ascii: "/")) }
        let name: [UInt8]
        if let label = volume.label, !label.isEmpty {
            name = Array(label.utf8)
        } else {
            name = PathBytes(point).lastComponent ?? [UInt8(ascii: "/")]
        }
        var creation: BookmarkDate?
        let birth = volumes.map { $0.mountPointBirthTime(of: volume) } ?? (try? FileStatus(path: volume.mountPointPath))?.birthTime
        if let birth {
            creation = BookmarkDate(unixSeconds: birth.timeIntervalSince1970)
        }
        return BookmarkVolume(
            path: ByteString(bytes: point), url: ByteString(bytes: url), name: ByteString(bytes: name),
            uuid: volume.isPersistent && volume.uuidSource != .fsid ? volume.uuid?.uppercased() : nil,
            capacity: minimal ? nil : volume.capacity.map { Int64(clamping: $0) }, creationDate: creation,
            properties: nil, wasBoot: point == [UInt8(ascii: "/")])
    }

    static func fillResourceValues(_ record: inout BookmarkRecord, keys: [ResourceKey], path: [UInt8], id: FileID) {
        for key in keys {
            let item: BookmarkItem?
            switch key {
            case .name: item = .string(ByteString(bytes: PathBytes(path).lastComponent ?? []))
            case .fileSize: item = id.kind == .regular ? .int64(Int64(clamping: id.size)) : nil
            case .contentModificationDate:
                item = .date(BookmarkDate(unixSeconds: id.modificationTime.timeIntervalSince1970))
            case .creationDate: item = id.birthTime.map { .date(BookmarkDate(unixSeconds: $0.timeIntervalSince1970)) }
            case .isDirectory: item = .bool(id.kind == .directory)
            case .isRegularFile: item = .bool(id.kind == .regular)
            case .isHidden: item = .bool(PathBytes(path).lastComponent?.first == UInt8(ascii: "."))
            case .path: item = .string(ByteString(bytes: path))
            case .volumeName: item = .string(ByteString(id.volume.label ?? PathBytes(id.volume.mountPoint).escaped))
            case .volumeUUIDString: item = id.volume.uuid.map { .string(ByteString($0.uppercased())) }
            default: item = nil
            }
            if let item { record[key.bookmarkKey] = item }
        }
    }

    static func fillRelative(_ record: inout BookmarkRecord, target: [UInt8], base: FilePath) throws {
        let baseDescriptor = try Directory.current.open(base, options: [.pathOnly, .directory])
        guard let realBase = try baseDescriptor.currentPath() else { return }
        let from = PathBytes(realBase).components
        let to = PathBytes(target).components
        var common = 0
        while common < from.count, common < to.count, from[common] == to[common] { common += 1 }
        record.relativeDirsUp = Int64(from.count - common)
        record.relativeDirsDown = Int64(to.count - common)
        record.createdWithRelativeURL = true
        record.baseURLComponentCount = [Int64(from.count)]
    }
}





func formatSource(_ volume: Volume) -> VolumeUUIDSource? {
    switch volume.uuidSource {
    case .fsIocGetFSUUID: return .fsUUIDIoctl
    case .ext4Ioctl: return .ext4Ioctl
    case .btrfsIoctl: return .btrfsIoctl
    case .blkidProbe, .blkidCache: return .blkid
    case .fsid: return .fsid
    case .sourceAndType: return nil
    }
}
