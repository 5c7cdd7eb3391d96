// SPDX-License-Identifier: Apache-2.0
import BookmarkFormat
import FileIdentity
import SecureFiles
import SystemPackage

extension Bookmark {
    /// Finds the bookmarked object, in the documented order (Docs/RESOLUTION.md): volume by UUID,
    /// path first (a replacement at the path wins over the old inode), relative to a given base,
    /// file handle, outward search, cross-volume heuristic.
    ///
    /// - Parameters:
    ///   - options: Search, budget, handles, mounting, heuristics, relative base, cancellation.
    ///   - volumes: The mounted volumes to reuse across many resolutions.
    /// - Returns: Where the object is and why we think so.
    /// - Throws: ``BookmarkError``: `volumeNotMounted` (fast, with the attached device if any),
    ///   `notFound` (never "stale"), `corruptData`, `cancelled`.
    public func resolve(_ options: ResolutionOptions = ResolutionOptions(), volumes: MountedVolumes? = nil)
        throws(BookmarkError) -> Resolution
    {
        let (recorded, memo) = try recordedCache.recordedAndMemo(for: record)
        let directory = try Self.mountedVolumes(volumes, lastKnownPath: recorded.path)
        // Found unmoved against this table before: one `statx` proves it is still there.
        if let memo, options.useMemo, !options.isCancelled,
            let resolution = memo.unmoved(recorded, tableSerial: directory.serial)
        {
            return resolution
        }
        var resolver = Resolver(recorded: recorded, options: options, directory: directory)
        do throws(BookmarkError) {
            let start = try resolver.begin()
            let resolution = try resolver.guarded(start) { resolver, start throws(BookmarkError) in
                try resolver.run(from: start)
            }
            if options.useMemo, let fresh = UnmovedMemo(resolution, of: recorded, current: start.current, directory: directory) {
                recordedCache.remember(fresh, for: recorded)
            }
            return resolution
        } catch {
            throw Resolver.withLastSighting(error, of: recorded, options: options)
        }
    }

    /// `given`, or the process's shared table (`MountedVolumes.shared()`: revalidated by one
    /// `poll`, re-read only after a mount or unmount), or the error that says the mount table is
    /// unreadable.
    static func mountedVolumes(_ given: MountedVolumes?, lastKnownPath: [UInt8]?) throws(BookmarkError) -> MountedVolumes {
        if let given { return given }
        do {
            return try MountedVolumes.shared()
        } catch {
            throw BookmarkError(.fileSystem, "cannot read the mount table: \(error)", lastKnownPath: lastKnownPath)
        }
    }
}

/// One resolution's state.
struct Resolver: Sendable {
    let recorded: Recorded
    let options: ResolutionOptions
    let directory: MountedVolumes
    var notes: [String] = []
    var entriesSearched = 0
    /// The recorded path could not be looked up because a directory on it refused us (`EACCES`):
    /// the object is most likely still there, behind it. Such a bookmark is not searched for (a
    /// search of the volume would cost its whole budget and find nothing we may reach), and
    /// when nothing else finds it, it fails with `permissionDenied`, not `notFound`.
    var pathDenied = false
    /// Told when a search starts, with its time budget (a watched resolution extends its deadline).
    var searchStarts: (@Sendable (Duration) -> Void)?

    /// Where the volume is, and the path to try first: all that is learnt without touching a
    /// volume that may block (the mount table and the kernel's own block devices).
    struct Start: Sendable {
        var volume: Volume?
        var current: [UInt8]
    }

    init(recorded: Recorded, options: ResolutionOptions, directory: MountedVolumes) {
        self.recorded = recorded
        self.options = options
        self.directory = directory
    }

    /// What the steps before the search concluded.
    enum Outcome {
        /// Found without a search.
        case resolved(Resolution)
        /// The search (and then the heuristic) must decide; `replacement` is the fallback. `deleted`:
        /// the file handle said the inode is gone, so searching the volume is pointless.
        case needsSearch(volume: Volume?, current: [UInt8], replacement: Found?, deleted: Bool)
    }

    /// The steps that touch no volume that may block: cancellation and the volume's location.
    mutating func begin() throws(BookmarkError) -> Start {
        if options.isCancelled {
            throw error(.cancelled, "cancelled before it started")
        }
        let volume = try locateVolume()
        return Start(volume: volume, current: volume.map { recorded.rerooted(at: $0) } ?? recorded.path)
    }

    mutating func run(from start: Start) throws(BookmarkError) -> Resolution {
        switch try runUntilSearch(from: start) {
        case .resolved(let resolution): return resolution
        case .needsSearch(let volume, let current, let replacement, let deleted):
            return try searchThenConclude(on: volume, from: current, replacement: replacement, deleted: deleted)
        }
    }

    /// The steps after ``runUntilSearch(from:)`` found the object missing from `current`: the
    /// catalog's place for it, this bookmark's own search, then ``conclude(excluding:replacement:deleted:)``.
    /// A batch calls it for a bookmark its shared walk could not settle.
    mutating func searchThenConclude(on volume: Volume?, from current: [UInt8], replacement: Found?, deleted: Bool)
        throws(BookmarkError) -> Resolution
    {
        if !deleted, let volume, let found = catalogCandidate(on: volume) {
            return finish(found, volume: volume)
        }
        if !deleted, !pathDenied, options.search, let volume, let found = try search(on: volume, from: current) {
            return finish(found, volume: volume)
        }
        return try conclude(excluding: volume, replacement: replacement, deleted: deleted)
    }

    /// Everything up to the search: volume, path, replacement, relative, handle.
    mutating func runUntilSearch(from start: Start) throws(BookmarkError) -> Outcome {
        let volume = start.volume
        let current = start.current
        var replacement: Found?

        // 1. Path first.
        if let (found, sameObject) = inspect(current, denied: &pathDenied) {
            if sameObject { return .resolved(finish(found, volume: found.id.volume)) }
            if looksLikeReplacement(found) {
                if isLaterSave(found) {
                    return .resolved(finish(Found(path: found.path, id: found.id, matchedBy: .savedInPlace), volume: found.id.volume))
                }
                replacement = Found(path: found.path, id: found.id, matchedBy: .replacedAtPath)
            }
        }
        if let replacement, recorded.parentInode != nil {
            return .resolved(finish(replacement, volume: replacement.id.volume))
        }
        // 2. Relative to the base given now.
        if let found = relativeCandidate() { return .resolved(finish(found, volume: found.id.volume)) }
        // 3. File handle.
        if let volume {
            switch handleCandidate(on: volume) {
            case .found(let found): return .resolved(finish(found, volume: volume))
            case .deleted:
                return .needsSearch(volume: volume, current: current, replacement: replacement, deleted: true)
            case .unavailable: break
            }
        }
        return .needsSearch(volume: volume, current: current, replacement: replacement, deleted: false)
    }

    /// After the search found nothing: the replacement at the path, the cross-volume heuristic, or not found.
    mutating func conclude(excluding volume: Volume?, replacement: Found?, deleted: Bool = false)
        throws(BookmarkError) -> Resolution
    {
        if let replacement { return finish(replacement, volume: replacement.id.volume) }
        if options.crossVolumeHeuristic, let found = try heuristicCandidate(excluding: volume) {
            return finish(found, volume: found.id.volume)
        }
        if deleted {
            throw error(.notFound, "the file was deleted from its volume (its file handle is stale)")
        }
        if pathDenied {
            throw error(
                .permissionDenied,
                "a directory on its path refused access (EACCES): it may still be there, where this process cannot reach it; not searched")
        }
        if volume == nil {
            throw error(.notFound, "not at its path, and the volume has no persistent identity to search")
        }
        throw error(.notFound, options.search ? "not at its path, and not found by handle or search" : "not at its path (search disabled)")
    }

    /// `error` with where the location hints (a catalog) last saw the object, for an object that
    /// cannot be reached now (`volumeNotMounted`, `notFound`); other errors as they are. A single
    /// resolution and a batch both end here, so they give the same answers.
    static func withLastSighting(_ error: BookmarkError, of recorded: Recorded, options: ResolutionOptions) -> BookmarkError {
        guard let hints = options.locationHints, error.code == .volumeNotMounted || error.code == .notFound else { return error }
        var annotated = error
        annotated.lastSighting = hints.lastSighting(for: recorded.identityForHints)
        return annotated
    }

    /// The first of the location hints' paths (re-rooted at the volume's mount point now) that
    /// holds the recorded object, verified by identity as the recorded path is.
    func catalogCandidate(on volume: Volume) -> Found? {
        guard let hints = options.locationHints else { return nil }
        for inVolume in hints.pathsInVolume(for: recorded.identityForHints).prefix(16) {
            let path = VolumePaths.path(inVolume: inVolume, on: volume)
            if let (found, sameObject) = inspect(path), sameObject {
                return Found(path: found.path, id: found.id, matchedBy: .catalog)
            }
        }
        return nil
    }

    // MARK: - Volume

    /// The recorded volume as mounted now, or `nil` for path-only bookmarks.
    mutating func locateVolume() throws(BookmarkError) -> Volume? {
        guard let uuid = recorded.volumeUUID, !uuid.isEmpty else {
            notes.append("the volume has no persistent identity (tmpfs or unknown): resolved by path only")
            return nil
        }
        switch directory.locate(uuid: uuid, hint: recorded.volumePath) {
        case .mounted(let volume): return volume
        case .attachedNotMounted(let device, let verified):
            if options.allowMounting {
                if let volume = try mountThroughUDisks(device: device, uuid: uuid) { return volume }
            }
            var message = "volume \(recorded.volumeName ?? "?") (\(uuid)) is not mounted; block device \(device) carries it"
            if !verified { message += " (per libblkid's cache; the device could not be read)" }
            throw error(.volumeNotMounted, message, attachedDevice: device)
        case .notMounted:
            throw error(.volumeNotMounted, "volume \(recorded.volumeName ?? "?") (\(uuid)) is not mounted and no attached device carries it")
        }
    }

    func mountThroughUDisks(device: String, uuid: String) throws(BookmarkError) -> Volume? {
        guard let udisksctl = UDisks.executable() else {
            throw error(.volumeNotMounted, "volume \(uuid) is attached as \(device) but not mounted, and udisksctl (UDisks2) is not installed, so it cannot be mounted", attachedDevice: device)
        }
        guard UDisks.mount(device: device, using: udisksctl) else {
            throw error(.volumeNotMounted, "udisksctl could not mount \(device)", attachedDevice: device)
        }
        guard let fresh = try? MountedVolumes(), case .mounted(let volume) = fresh.locate(uuid: uuid) else { return nil }
        return volume
    }

    // MARK: - Path

    /// The object at `path`, and whether it is the recorded one.
    ///
    /// One `statx` when the recorded inode and birth time are both there; else two path lookups
    /// (`statx`, `name_to_handle_at`) where the handle proves both saw one inode; otherwise (no
    /// handle, an unknown layout, a race) the `O_PATH` open.
    func inspect(_ path: [UInt8]) -> (Found, Bool)? {
        var denied = false
        return inspect(path, denied: &denied)
    }

    /// ``inspect(_:)``, setting `denied` when the lookup was refused (`EACCES`: a directory on the
    /// path may not be searched by this process), which "nothing there" must not be taken for.
    func inspect(_ path: [UInt8], denied: inout Bool) -> (Found, Bool)? {
        // One `statx` serves both checks below; nothing at the path ends it.
        let status: FileStatus
        switch FileStatus.lookup(pathBytes: path, followSymlinks: false) {
        case .success(let found): status = found
        case .failure(let errno):
            if errno == .permissionDenied { denied = true }
            return nil
        }
        // The unmoved case first: the `statx` proves the recorded object is still at the path
        // when the inode and the birth time both match (see FileID.lookUpKnown).
        if let inode = recorded.inode, let birthTime = recorded.birthTime,
            let known = FileID.lookUpKnown(
                status: status, inode: inode, birthTime: birthTime,
                generation: recorded.generation.map { UInt32(truncatingIfNeeded: $0) }, handle: recorded.handle,
                volumes: directory)
        {
            return (Found(path: path, id: known, matchedBy: .path), recorded.matches(known))
        }
        let id: FileID
        if let quick = FileID.lookUpWithoutOpening(path, status: status, followSymlinks: false, volumes: directory) {
            id = quick
        } else {
            guard let object = try? Directory.current.open(bytes: path, options: [.pathOnly, .noFollow]),
                let opened = try? FileID.identify(object, volumes: directory)
            else { return nil }
            id = opened
        }
        return (Found(path: path, id: id, matchedBy: .path), recorded.matches(id))
    }

    /// Whether the directory at the path says it replaced the recorded one (`SuccessionRecord`):
    /// the recorded inode and birth time are in its extended attribute.
    func isLaterSave(_ found: Found) -> Bool {
        guard recorded.isDirectory, let inode = recorded.inode, let birthTime = recorded.birthTime,
            let directory = try? Directory.current.open(bytes: found.path, options: [.readOnly, .directory, .noFollow, .nonBlocking])
        else { return false }
        defer { try? directory.close() }
        guard let bytes = try? directory.extendedAttribute(SuccessionRecord.attributeName) else { return false }
        return SuccessionRecord.decode(bytes).contains { $0.inode == inode && $0.birthTime == birthTime }
    }

    /// Another object of the same kind, in the recorded parent directory (when it was recorded).
    func looksLikeReplacement(_ found: Found) -> Bool {
        guard (found.id.kind == .directory) == recorded.isDirectory else { return false }
        guard let parentInode = recorded.parentInode else { return true }
        let parent = PathBytes(found.path).parent.bytes
        guard let status = try? FileStatus(path: FilePath(bytes: parent)) else { return false }
        return status.inode == parentInode
    }

    // MARK: - Relative

    func relativeCandidate() -> Found? {
        guard let base = options.relativeTo, let down = recorded.relativeDirsDown,
            down <= recorded.components.count
        else { return nil }
        let up = recorded.relativeDirsUp ?? 0
        var components = PathBytes(base).components
        guard up <= components.count else { return nil }
        components.removeLast(up)
        components += recorded.components.suffix(down)
        let candidate = PathBytes(components: components).bytes
        guard let (found, _) = inspect(candidate), (found.id.kind == .directory) == recorded.isDirectory else { return nil }
        return Found(path: candidate, id: found.id, matchedBy: .relative)
    }

    // MARK: - Handle

    enum HandleOutcome {
        case found(Found)
        case deleted
        case unavailable
    }

    func handleCandidate(on volume: Volume) -> HandleOutcome {
        guard options.useHandles, let handle = recorded.handle,
            let mount = try? Directory.current.open(volume.mountPointPath, options: [.readOnly, .directory, .nonBlocking])
        else { return .unavailable }
        let opened: OwnedDescriptor
        do {
            opened = try handle.open(onMountOf: mount)
        } catch {
            return error.code == .stale ? .deleted : .unavailable
        }
        // A file opened by handle after its dentry left the cache (after a remount, say) is
        // "disconnected": /proc/self/fd then shows "/" instead of its path. Trust the path only when
        // the object really is there (one `statx` of it); otherwise the file exists, and the search
        // will find its path.
        // Looked up from the mount point's descriptor when the path is below it: the same walk
        // as the whole path's while that descriptor is the mount point, less its first part.
        guard let path = try? opened.currentPathBytes(),
            case .success(let status) = FileStatus.lookup(
                pathBytes: path, below: volume.mountPoint, relativeTo: mount, followSymlinks: false)
                ?? FileStatus.lookup(pathBytes: path, followSymlinks: false)
        else { return .unavailable }
        if let found = known(at: path, status, on: volume, handle: handle) { return .found(found) }
        guard let id = try? FileID.identify(opened, on: volume, openedBy: handle), recorded.matches(id),
            status.inode == id.inode, status.subvolume == id.subvolume, id.isOnMount(of: status)
        else { return .unavailable }
        return .found(Found(path: path, id: id, matchedBy: .handle))
    }

    /// The object opened by handle, found at the path the kernel gives for it, proved by that
    /// path's `statx` alone, as an unmoved file is (`FileID.lookUpKnown`): the recorded inode and
    /// birth time on the volume's mount are the recorded object, so the descriptor itself need not
    /// be examined. `nil` when the bookmark has no birth time or the status is not the object: the
    /// caller then examines the descriptor and compares it with the same status.
    func known(at path: [UInt8], _ status: FileStatus, on volume: Volume, handle: FileHandleData) -> Found? {
        guard let inode = recorded.inode, let birthTime = recorded.birthTime,
            let id = FileID.lookUpKnown(
                status: status, inode: inode, birthTime: birthTime,
                generation: recorded.generation.map { UInt32(truncatingIfNeeded: $0) }, handle: handle, volumes: directory),
            id.mountID == volume.mountID, recorded.matches(id)
        else { return nil }
        return Found(path: path, id: id, matchedBy: .handle)
    }

    // MARK: - Search

    mutating func search(on volume: Volume, from current: [UInt8]) throws(BookmarkError) -> Found? {
        guard recorded.inode != nil else { return nil }
        searchStarts?(options.budget.time)
        let start = deepestDirectory(of: current, within: volume)
        var search = OutwardSearch(
            volume: volume, goal: SearchGoal(recorded: recorded, name: recorded.components.last ?? []),
            budget: options.budget, cancellation: options.cancellation)
        do {
            let found = try search.run(from: start)
            entriesSearched = search.entries
            return found
        } catch {
            entriesSearched = search.entries
            switch error {
            case .cancelled: throw self.error(.cancelled, "cancelled after \(search.entries) entries")
            case .exhausted:
                throw self.error(
                    .notFound, "the search ran out of its budget after \(search.entries) entries", searchExhausted: true)
            }
        }
    }

    /// The deepest existing directory on the recorded path, not above the mount point.
    func deepestDirectory(of path: [UInt8], within volume: Volume) -> [UInt8] {
        var candidate = PathBytes(path).parent.bytes
        while candidate.count > volume.mountPoint.count {
            if let status = try? FileStatus(path: FilePath(bytes: candidate)), status.kind == .directory {
                return candidate
            }
            candidate = PathBytes(candidate).parent.bytes
        }
        return volume.mountPoint
    }

    // MARK: - Cross-volume heuristic

    /// Searches the other mounted, persistent local volumes (whole-volume mounts) for an object with
    /// the recorded name, size and modification time: what `mv` across volumes preserves.
    mutating func heuristicCandidate(excluding volume: Volume?) throws(BookmarkError) -> Found? {
        guard let fingerprint = recorded.fingerprint, let name = recorded.components.last else {
            notes.append("the cross-volume heuristic needs the recorded size and modification time (not in minimal bookmarks)")
            return nil
        }
        // Volumes other than the root file system first: moves usually go to removable and data volumes.
        let candidates = directory.allVolumes().filter {
            // Not FUSE: walking a volume whose daemon may not answer is not worth a guess.
            $0.isPersistent && $0.category == .local && !$0.mayBlock && $0.root == [UInt8(ascii: "/")]
                && $0.key != volume?.key
        }.sorted { ($0.mountPoint == [UInt8(ascii: "/")] ? 1 : 0) < ($1.mountPoint == [UInt8(ascii: "/")] ? 1 : 0) }
        for other in candidates {
            searchStarts?(options.budget.time)
            var search = OutwardSearch(
                volume: other, goal: SearchGoal(recorded: recorded, name: name, fingerprint: fingerprint),
                budget: options.budget, cancellation: options.cancellation)
            do {
                let found = try search.run(from: other.mountPoint)
                entriesSearched += search.entries
                if let found { return found }
            } catch {
                entriesSearched += search.entries
                if case .cancelled = error { throw self.error(.cancelled, "cancelled during the cross-volume search") }
            }
        }
        return nil
    }

    // MARK: - Result

    func finish(_ found: Found, volume: Volume) -> Resolution {
        let atRecordedPath = PathBytes(found.path) == PathBytes(recorded.path)
        var changes = atRecordedPath ? [] : Self.pathChanges(PathBytes(found.path), from: PathBytes(recorded.path))
        if found.matchedBy == .replacedAtPath { changes.insert(.fileIdentity) }
        if let recordedPoint = recorded.volumePath, PathBytes(recordedPoint) != PathBytes(volume.mountPoint) { changes.insert(.volumeMountPoint) }
        if let recordedName = recorded.volumeName, recordedName != Self.currentVolumeName(volume) { changes.insert(.volumeName) }
        // A path found as bytes (a moved object) stays bytes until the caller reads it.
        let isInTrash = atRecordedPath ? recorded.pathIsInTrash : PathBytes(found.path).isInTrash
        if let known = found.filePath ?? (atRecordedPath ? recorded.filePath : nil) {
            return Resolution(
                path: known, matchedBy: found.matchedBy, changes: changes, isInTrash: isInTrash, volume: volume,
                fileID: found.id, entriesSearched: entriesSearched, notes: notes)
        }
        return Resolution(
            pathBytes: found.path, matchedBy: found.matchedBy, changes: changes, isInTrash: isInTrash, volume: volume,
            fileID: found.id, entriesSearched: entriesSearched, notes: notes)
    }

    /// What differs between an object's path now and the recorded one (they differ): the path,
    /// and its name or parent.
    static func pathChanges(_ found: PathBytes, from recorded: PathBytes) -> Set<Change> {
        // Compared in place at each path's last separator: making the two names and two parents
        // cost more than the rest of a handle resolution's result.
        let (now, then) = (found.bytes, recorded.bytes)
        guard let cutNow = now.lastIndex(of: UInt8(ascii: "/")), let cutThen = then.lastIndex(of: UInt8(ascii: "/")),
            cutNow + 1 < now.count, cutThen + 1 < then.count, !found.hasDoubleSlash, !recorded.hasDoubleSlash
        else {
            var changes: Set<Change> = [.path]
            if found.lastComponent != recorded.lastComponent { changes.insert(.name) }
            if found.parent != recorded.parent { changes.insert(.parent) }
            return changes
        }
        let sameName = now[(cutNow + 1)...].elementsEqual(then[(cutThen + 1)...])
        let sameParent = now[..<cutNow].elementsEqual(then[..<cutThen])
        switch (sameName, sameParent) {
        case (true, true): return pathOnly
        case (false, true): return pathAndName
        case (true, false): return pathAndParent
        case (false, false): return pathNameAndParent
        }
    }

    // Made once: a set literal allocates and hashes its elements at every moved file's result.
    static let pathOnly: Set<Change> = [.path]
    static let pathAndName: Set<Change> = [.path, .name]
    static let pathAndParent: Set<Change> = [.path, .parent]
    static let pathNameAndParent: Set<Change> = [.path, .name, .parent]

    static func currentVolumeName(_ volume: Volume) -> String {
        if let label = volume.label, !label.isEmpty { return label }
        return PathBytes(volume.mountPoint).components.last.map { String(decoding: $0, as: UTF8.self) } ?? "/"
    }

    func error(
        _ code: BookmarkError.Code, _ message: String, attachedDevice: String? = nil, searchExhausted: Bool = false
    ) -> BookmarkError {
        BookmarkError(
            code, message, lastKnownPath: recorded.path, volumeName: recorded.volumeName, volumeUUID: recorded.volumeUUID,
            attachedDevice: attachedDevice, searchExhausted: searchExhausted)
    }
}
