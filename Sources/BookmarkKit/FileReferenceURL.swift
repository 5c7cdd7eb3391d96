// SPDX-License-Identifier: Apache-2.0
import FileIdentity
import SecureFiles
import SystemPackage

/// A file-reference URL: `file:///.file/id=<mount>.<inode>.<generation>` (a trailing `/` for
/// directories) names a file or directory by identity, for as long as its volume stays mounted.
///
/// - `mount` is the kernel's unique mount id (`statx` `STATX_MNT_ID_UNIQUE`, never reused within a
///   boot; on kernels before 6.8, which have none, the reusable mountinfo id stands in). A remount,
///   an unmount or a reboot gives the volume a new mount id, so the reference then fails with
///   `volumeNotMounted`: it never points at a wrong file.
/// - `inode` and `generation` identify the object on that mount (the generation tells a reused inode
///   number apart; it is left out where the file system has none, such as some FUSE file systems).
///
/// Like Apple's, these URLs are for the running system only: store bookmarks, not file-reference
/// URLs. Unlike macOS, Linux has no unprivileged "inode to path" call, so resolution is: the
/// process's last-known-path cache verified by identity (O(1)), then `open_by_handle_at` where the
/// process may use it, then a bounded search of the volume (see Docs/RESOLUTION.md).
public struct FileReferenceURL: Sendable, Hashable, CustomStringConvertible {
    /// The path prefix that marks a file-reference URL (Apple's `FILE_ID_PREAMBLE`).
    package static let pathPrefix = "/.file/id="
    /// The URL prefix.
    package static let prefix = "file://" + pathPrefix

    /// The mount the object was on: its unique id. On kernels before 6.8, which have no unique
    /// ids, the reusable `MountID` stands in for it; the text form does not say
    /// which, and resolution compares it with what `statx` reports for each mount now, which is
    /// of the same kind.
    public var mountID: UniqueMountID
    /// The inode number.
    public var inode: UInt64
    /// The inode generation, when the file system has one.
    public var generation: UInt32?
    /// Whether the object is a directory (the URL then ends in `/`).
    public var isDirectory: Bool

    /// Creates a reference from its parts.
    package init(mountID: UniqueMountID, inode: UInt64, generation: UInt32?, isDirectory: Bool) {
        self.mountID = mountID
        self.inode = inode
        self.generation = generation
        self.isDirectory = isDirectory
    }

    /// The URL string.
    public var string: String {
        var text = FileReferenceURL.prefix + "\(mountID).\(inode)"
        if let generation { text += ".\(generation)" }
        return isDirectory ? text + "/" : text
    }

    /// The URL string.
    public var description: String { string }

    /// Whether `string` has the form of a file-reference URL (`file:///.file/id=…`).
    public static func isFileReferenceURL(_ string: String) -> Bool {
        string.hasPrefix(prefix) || string.hasPrefix("file://localhost" + pathPrefix)
    }

    /// Parses a file-reference URL; `nil` when it is not one or is malformed.
    public init?(string: String) {
        var rest: Substring
        if string.hasPrefix(FileReferenceURL.prefix) {
            rest = string.dropFirst(FileReferenceURL.prefix.count)
        } else if string.hasPrefix("file://localhost" + FileReferenceURL.pathPrefix) {
            rest = string.dropFirst(("file://localhost" + FileReferenceURL.pathPrefix).count)
        } else {
            return nil
        }
        let directory = rest.hasSuffix("/")
        if directory { rest = rest.dropLast() }
        let parts = rest.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3, let mount = UInt64(parts[0]), let inode = UInt64(parts[1]) else {
            return nil
        }
        var generation: UInt32?
        if parts.count == 3 {
            guard let value = UInt32(parts[2]) else { return nil }
            generation = value
        }
        self.init(mountID: UniqueMountID(rawValue: mount), inode: inode, generation: generation, isDirectory: directory)
    }

    /// The file-reference URL of the existing file or directory at `path` (symlinks followed).
    ///
    /// - Throws: ``BookmarkError`` (`notFound`, `permissionDenied`, …).
    public init(for path: FilePath) throws(BookmarkError) {
        let bytes = PathBytes(path).bytes
        let table = try Bookmark.mountedVolumes(nil, lastKnownPath: bytes)
        let (id, real) = try VolumeGuard.run(touching: bytes, volumes: table, timeout: .seconds(2)) {
            () throws(BookmarkError) -> (FileID, [UInt8]?) in
            try BookmarkError.wrapping(lastKnownPath: bytes) {
                let descriptor = try Directory.current.open(path, options: [.pathOnly])
                return (try FileID.identify(descriptor, volumes: table), try descriptor.currentPathBytes())
            }
        }
        self.init(
            mountID: id.uniqueMountID ?? Self.standIn(for: id.mountID),
            inode: id.inode, generation: id.generation, isDirectory: id.kind == .directory)
        if let real {
            FileReferenceCache.shared.remember(
                self, path: real, handle: id.handle?.bytes, volume: id.volume, birthTime: id.birthTime)
        }
    }

    /// What a reference records for a mount on kernels before 6.8, which have no unique ids: the
    /// reusable id in its place, as `statx` reports it there (then ``mount(in:)`` also checks the
    /// mount table).
    static func standIn(for reusable: MountID) -> UniqueMountID {
        UniqueMountID(rawValue: UInt64(UInt32(bitPattern: reusable.rawValue)))
    }

    /// The mount id `statx` reported, as a reference records it.
    static func recordedMountID(_ status: FileStatus) -> UniqueMountID? {
        status.uniqueMountID ?? status.mountID.map { standIn(for: $0) }
    }
}

extension FileReferenceURL {
    /// Resolves the reference and opens the object, verified to be the referenced one (the same
    /// mount, inode, kind and, when the reference has one, generation), as
    /// ``Bookmark/open(_:resolving:volumes:attempts:)`` does for bookmarks: a file swapped in at the
    /// found path between resolution and open is never returned; the reference is resolved again
    /// up to `attempts` times.
    ///
    /// - Parameters:
    ///   - options: How to open it (creation flags are refused).
    ///   - budget: The bound of the volume search.
    ///   - useHandles: Whether to try `open_by_handle_at`.
    ///   - volumes: The mount table to use (read afresh when `nil`).
    ///   - attempts: How many resolutions to try (at least 1; default 3).
    /// - Returns: The verified descriptor and the resolution it belongs to.
    /// - Throws: ``BookmarkError``: what ``resolve(budget:useHandles:volumes:)`` throws, or
    ///   `objectChanged` when the path held another object on every attempt.
    public func open(
        _ options: OwnedDescriptor.OpenOptions = .readOnly, budget: SearchBudget = .default, useHandles: Bool = true,
        volumes: MountedVolumes? = nil, attempts: Int = 3
    ) throws(BookmarkError) -> (descriptor: OwnedDescriptor, resolution: FileReferenceResolution) {
        let table = try Bookmark.mountedVolumes(volumes, lastKnownPath: nil)
        for _ in 1...max(1, attempts) {
            let resolution = try resolve(budget: budget, useHandles: useHandles, volumes: table)
            let reference = self
            let opened = try VolumeGuard.run(touching: PathBytes(resolution.path).bytes, volumes: table, timeout: .seconds(2)) {
                () throws(BookmarkError) -> OwnedDescriptor? in
                try VerifiedOpen.open(resolution.path, options: options) { located in
                    guard let id = try? FileID.identify(located, volumes: table) else { return false }
                    return reference.isReferenced(id)
                }
            }
            if let opened { return (opened, resolution) }
            FileReferenceCache.shared.forget(self)
        }
        throw BookmarkError.objectChanged(at: nil, attempts: max(1, attempts), lastKnownPath: nil)
    }

    /// Whether `id` is the object this reference names.
    func isReferenced(_ id: FileID) -> Bool {
        guard id.inode == inode, (id.kind == .directory) == isDirectory,
            (id.uniqueMountID ?? Self.standIn(for: id.mountID)) == mountID
        else { return false }
        if let generation, let found = id.generation, found != generation { return false }
        return true
    }
}

/// How a file-reference URL was resolved.
public struct FileReferenceResolution: Sendable, Hashable {
    /// How the path was found.
    public enum Method: String, Sendable, Hashable, Codable {
        /// The process's last-known path, verified by identity.
        case cache
        /// `open_by_handle_at` (needs `CAP_DAC_READ_SEARCH`).
        case handle
        /// The bounded search of the volume.
        case search
    }

    /// The current path.
    public var path: FilePath
    /// How it was found.
    public var method: Method
    /// Directory entries the search read (0 without a search).
    public var entriesSearched: Int
}

extension FileReferenceURL {
    /// The current path of the referenced object (Apple's `filePathURL`).
    ///
    /// - Parameters:
    ///   - budget: The bound of the volume search, used only when the cache and the handle fail.
    ///   - useHandles: Whether to try `open_by_handle_at`.
    ///   - volumes: The mount table to use (read afresh when `nil`).
    /// - Throws: ``BookmarkError``: `volumeNotMounted` when the mount the reference was made on is
    ///   gone (unmounted, remounted, rebooted); `notFound` when the object was deleted (at once,
    ///   without a search, when `open_by_handle_at` reports its handle stale) or lies beyond the
    ///   search budget (``BookmarkError/searchExhausted``).
    public func resolve(budget: SearchBudget = .default, useHandles: Bool = true, volumes: MountedVolumes? = nil)
        throws(BookmarkError) -> FileReferenceResolution
    {
        var lastKnown: [UInt8]?
        if let path = try FileReferenceCache.shared.verifiedPath(for: self, lastKnown: &lastKnown) {
            return FileReferenceResolution(path: FilePath(bytes: path), method: .cache, entriesSearched: 0)
        }
        let directory: MountedVolumes
        do {
            directory = try volumes ?? MountedVolumes.shared()
        } catch {
            throw BookmarkError(.fileSystem, "cannot read the mount table: \(error)")
        }
        guard let (entry, root) = try mount(in: directory.table) else {
            throw BookmarkError(
                .volumeNotMounted,
                "the mount \(mountID) this reference was made on is gone (unmounted, remounted or rebooted); "
                    + "file-reference URLs do not outlive a mount: use a bookmark")
        }
        guard entry.mayBlock else {
            return try resolve(
                on: entry, root: root, volumes: directory, budget: budget, useHandles: useHandles, lastKnown: lastKnown)
        }
        // On FUSE or network: watched, with the search budget on top of the response timeout.
        let reference = self
        let start = lastKnown
        return try VolumeGuard.run(
            on: VolumeWatchdog.Mount(entry), timeout: .seconds(2) + budget.time, path: entry.mountPoint
        ) { () throws(BookmarkError) -> FileReferenceResolution in
            try reference.resolve(
                on: entry, root: root, volumes: directory, budget: budget, useHandles: useHandles, lastKnown: start)
        }
    }

    /// The rest of ``resolve(budget:useHandles:volumes:)``, on the mount found; closes `root`.
    private func resolve(
        on entry: MountEntry, root: OwnedDescriptor, volumes directory: MountedVolumes, budget: SearchBudget,
        useHandles: Bool, lastKnown: [UInt8]?
    ) throws(BookmarkError) -> FileReferenceResolution {
        defer { try? root.close() }
        // `open_by_handle_at` and the walk need a real descriptor of the mount's root, not `O_PATH`.
        let readable: OwnedDescriptor
        do {
            readable = try Directory(adopting: root).open(".", options: [.readOnly, .directory, .nonBlocking])
        } catch {
            throw BookmarkError(error, lastKnownPath: entry.mountPoint)
        }
        defer { try? readable.close() }
        let volume = directory.volume(of: entry, descriptor: readable)
        if useHandles {
            switch openByHandle(root: readable, volume: volume) {
            case .found(let found):
                return found
            case .deleted:
                // `ESTALE`: the kernel found no inode with this number and generation, so the object
                // is gone and a search of the volume (seconds on a large one) cannot find it; the
                // bookmark resolver concludes the same (Docs/RESOLUTION.md step 5).
                FileReferenceCache.shared.forget(self)
                throw BookmarkError(
                    .notFound, "no object with inode \(inode) on the mount \(mountID): it was deleted (its file handle is stale)")
            case .unavailable:
                break  // not permitted (EPERM without CAP_DAC_READ_SEARCH), not applicable: search
            }
        }
        return try search(root: readable, entry: entry, volume: volume, budget: budget, from: lastKnown)
    }

    /// The current path (`filePathURL`), or `nil` when it cannot be resolved.
    public var filePath: FilePath? { try? resolve().path }

    /// The mounted entry with this reference's mount id, and its root (`O_PATH`). On Linux 6.8 and
    /// later `statmount` names the mount without touching any file system (only that mount's root is
    /// then opened, watched if it is FUSE or network). Before that, each local mount
    /// point is opened with `O_PATH` (no read permission needed, nothing triggered) and asked for its
    /// mount id; network and pseudo file systems are never touched. FUSE mounts are asked last, each
    /// under the watchdog: a daemon that does not answer is skipped, and reported
    /// (`volumeNotResponding`) only if no other mount is the reference's.
    func mount(in table: MountTable) throws(BookmarkError) -> (MountEntry, OwnedDescriptor)? {
        // Linux 6.8+: the mount namespace says which mount has this unique id, touching nothing.
        switch mountID.reusableID() {
        case .success(let reusable):
            guard let entry = table.entry(mountID: reusable) ?? (try? MountTable.current())?.entry(mountID: reusable),
                entry.category != .pseudo
            else { return nil }
            guard entry.mayBlock else { return root(of: entry).map { (entry, $0) } }
            let reference = self
            let root = try VolumeGuard.run(on: VolumeWatchdog.Mount(entry), timeout: .seconds(2), path: entry.mountPoint) {
                () throws(BookmarkError) -> OwnedDescriptor? in reference.root(of: entry)
            }
            return root.map { (entry, $0) }
        case .failure(.noSuchFileOrDirectory):
            return nil  // unmounted since the reference was made
        case .failure:
            break  // an older kernel (or a stand-in id): ask each mount point
        }
        let candidates = table.entries.filter { $0.category != .network && $0.category != .pseudo }
        for entry in candidates where !entry.mayBlock {
            if let root = root(of: entry) { return (entry, root) }
        }
        var silent: BookmarkError?
        for entry in candidates where entry.mayBlock {
            let reference = self
            do throws(BookmarkError) {
                let root = try VolumeGuard.run(on: VolumeWatchdog.Mount(entry), timeout: .seconds(2), path: entry.mountPoint) {
                    () throws(BookmarkError) -> OwnedDescriptor? in reference.root(of: entry)
                }
                if let root { return (entry, root) }
            } catch {
                if silent == nil { silent = error }
            }
        }
        if let silent { throw silent }
        return nil
    }

    /// The root of `entry` (`O_PATH`) when it is this reference's mount.
    private func root(of entry: MountEntry) -> OwnedDescriptor? {
        guard let root = try? Directory.current.open(entry.mountPointPath, options: [.pathOnly, .directory])
        else { return nil }
        if let status = try? root.status(),
            Self.recordedMountID(status) == mountID,
            status.uniqueMountID != nil || status.mountID == entry.mountID
        {
            return root
        }
        try? root.close()
        return nil
    }

    /// Whether the open object is the referenced one.
    func matches(_ descriptor: OwnedDescriptor, volume: Volume) -> Bool {
        guard let id = try? FileID.identify(descriptor, on: volume) else { return false }
        return isReferenced(id)
    }

    /// What ``openByHandle(root:volume:)`` found.
    enum HandleOutcome {
        /// Opened and confirmed by identity.
        case found(FileReferenceResolution)
        /// `ESTALE`: no object with this inode and generation exists on the volume any more.
        case deleted
        /// Not permitted, not applicable, or opened but not confirmed: the search decides.
        case unavailable
    }

    /// `open_by_handle_at` with the `[ino32][gen32]` handle (type 1) that ext4 and XFS use for
    /// 32-bit inode numbers; confirmed by identity.
    func openByHandle(root: OwnedDescriptor, volume: Volume) -> HandleOutcome {
        guard let generation, inode <= UInt64(UInt32.max), ["ext4", "ext3", "ext2", "xfs"].contains(volume.fsType)
        else { return .unavailable }
        var bytes: [UInt8] = []
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: inode >> UInt64(shift))) }
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: generation >> UInt32(shift))) }
        let handle = FileHandleData(type: 1, bytes: bytes, mountID: volume.mountID)
        let opened: OwnedDescriptor
        do {
            opened = try handle.open(onMountOf: root)
        } catch {
            // Only `ESTALE` says the object is gone; `EPERM` (unprivileged) and the rest say nothing.
            return error.code == .stale ? .deleted : .unavailable
        }
        defer { try? opened.close() }
        guard matches(opened, volume: volume), let path = try? opened.currentPath() else { return .unavailable }
        FileReferenceCache.shared.remember(self, path: PathBytes(path).bytes, handle: try? opened.fileHandle().bytes, volume: volume)
        return .found(FileReferenceResolution(path: path, method: .handle, entriesSearched: 0))
    }

    /// The bounded `d_ino` walk of the mount, confirmed by identity.
    ///
    /// With a last-known path on this mount (the object was found there earlier in this process),
    /// the walk goes outward from that path's directory: its subtree, then the parent's other
    /// entries, and so on up to the mount point, as a bookmark's search does. A file moved near
    /// where it was is found after a few entries even on a large volume, where a walk from the
    /// mount's root can run out of budget first. The outward walk ends with the mount's root, so
    /// it covers the whole mount; the walk from the root is the fallback when no ancestor opens.
    func search(root: OwnedDescriptor, entry: MountEntry, volume: Volume, budget: SearchBudget, from lastKnown: [UInt8]? = nil)
        throws(BookmarkError) -> FileReferenceResolution
    {
        if let status = try? root.status(), status.inode == inode, isDirectory {
            FileReferenceCache.shared.remember(self, path: entry.mountPoint, handle: nil, volume: volume)
            return FileReferenceResolution(path: entry.mountPointPath, method: .search, entriesSearched: 0)
        }
        var walker = VolumeWalker(budget: budget, cancellation: nil)
        var foundPath: [UInt8]?
        let wanted = inode
        let reference = self
        let interesting: (DirectoryEntryView) -> Bool = { $0.inode == wanted }
        let examine: (DirectoryEntry, OwnedDescriptor, [UInt8]) -> Bool = { hit, directory, directoryPath in
            guard let opened = try? directory.openChild(hit.name, options: [.pathOnly]) else { return false }
            defer { try? opened.close() }
            guard reference.matches(opened, volume: volume) else { return false }
            foundPath = PathBytes(directoryPath).appending(hit.name).bytes
            return true
        }
        var found = false
        do {
            var coveredMount = false
            let mountPoint = PathBytes(entry.mountPoint)
            if let lastKnown, PathBytes(lastKnown).isWithin(mountPoint), lastKnown != entry.mountPoint {
                (found, coveredMount) = try walker.walkOutward(
                    from: PathBytes(lastKnown).parent.bytes, mountPoint: entry.mountPoint, interesting: interesting,
                    examine: examine)
            }
            if !found && !coveredMount {
                found = try walker.walk(root, path: entry.mountPoint, interesting: interesting, examine: examine)
            }
        } catch {
            switch error {
            case .exhausted:
                throw BookmarkError(
                    .notFound, "the search ran out of its budget after \(walker.entries) entries", searchExhausted: true)
            case .cancelled:
                throw BookmarkError(.cancelled, "cancelled")
            }
        }
        guard found, let foundPath else {
            throw BookmarkError(.notFound, "no object with inode \(inode) on the mount \(mountID): it was deleted")
        }
        FileReferenceCache.shared.remember(self, path: foundPath, handle: nil, volume: volume)
        return FileReferenceResolution(path: FilePath(bytes: foundPath), method: .search, entriesSearched: walker.entries)
    }
}

/// The process's last-known paths of file-reference URLs (bounded, least recently used evicted).
///
/// Paths, not descriptors: an open descriptor would keep the volume busy (no unmount) and the inode
/// alive. A cached path is used only after the object at it is verified to be the referenced one
/// (mount id, inode, generation or handle bytes), so a stale entry costs one `openat` + `statx`.
final class FileReferenceCache: Sendable {
    static let shared = FileReferenceCache(capacity: 1024)

    struct Entry {
        var path: [UInt8]
        var handle: [UInt8]?
        /// The object's birth time once known: then one `statx` of the path verifies the entry
        /// (same mount, inode and birth time), instead of open, handle, `fstat` and close.
        var birthTime: Timestamp?
        var stamp: UInt64
        /// The FUSE or network mount the path is on, whose check runs under the watchdog.
        var watched: VolumeWatchdog.Mount?
    }

    struct State {
        var entries: [FileReferenceURL: Entry] = [:]
        var clock: UInt64 = 0
    }

    let capacity: Int
    private let state = Locked(State())

    init(capacity: Int) { self.capacity = capacity }

    func remember(
        _ reference: FileReferenceURL, path: [UInt8], handle: [UInt8]?, volume: Volume?, birthTime: Timestamp? = nil
    ) {
        let watched = volume.flatMap { $0.mayBlock ? VolumeWatchdog.Mount($0) : nil }
        state.withLock { state in
            state.clock += 1
            state.entries[reference] = Entry(
                path: path, handle: handle, birthTime: birthTime, stamp: state.clock, watched: watched)
            if state.entries.count > capacity, let oldest = state.entries.min(by: { $0.value.stamp < $1.value.stamp }) {
                state.entries[oldest.key] = nil
            }
        }
    }

    /// The number of entries (tests).
    var count: Int { state.withLock { $0.entries.count } }

    /// Whether `reference` has an entry (tests).
    func contains(_ reference: FileReferenceURL) -> Bool { state.withLock { $0.entries[reference] != nil } }

    func forget(_ reference: FileReferenceURL) {
        _ = state.withLock { $0.entries.removeValue(forKey: reference) }
    }

    /// The cached path when the object there is still the referenced one.
    ///
    /// - Throws: ``BookmarkError`` `volumeNotResponding` when the path is on a FUSE or network
    ///   volume that does not answer.
    /// - Parameter lastKnown: Set to the cached path when there is one, verified or not: where a
    ///   search for a moved object starts.
    func verifiedPath(for reference: FileReferenceURL, lastKnown: inout [UInt8]?) throws(BookmarkError) -> [UInt8]? {
        guard let entry = state.withLock({ $0.entries[reference] }) else { return nil }
        lastKnown = entry.path
        guard let watched = entry.watched else { return verify(entry, for: reference) }
        return try VolumeGuard.run(on: watched, timeout: .seconds(2), path: entry.path) {
            () throws(BookmarkError) -> [UInt8]? in self.verify(entry, for: reference)
        }
    }

    private func verify(_ entry: Entry, for reference: FileReferenceURL) -> [UInt8]? {
        if let birthTime = entry.birthTime,
            case .success(let status) = FileStatus.lookup(pathBytes: entry.path, followSymlinks: false),
            FileReferenceURL.recordedMountID(status) == reference.mountID, status.inode == reference.inode,
            (status.kind == .directory) == reference.isDirectory, status.birthTime == birthTime
        {
            touch(reference)
            return entry.path
        }
        guard let opened = try? Directory.current.open(bytes: entry.path, options: [.pathOnly, .noFollow]),
            let status = try? opened.status()
        else {
            forget(reference)
            return nil
        }
        defer { try? opened.close() }
        var same = FileReferenceURL.recordedMountID(status) == reference.mountID && status.inode == reference.inode
            && (status.kind == .directory) == reference.isDirectory
        if same, let handle = entry.handle {
            same = (try? opened.fileHandle().bytes) == handle
        }
        guard same else {
            forget(reference)
            return nil
        }
        touch(reference, birthTime: status.birthTime)
        return entry.path
    }

    /// Marks the entry as just used; records the birth time the full check saw, for the next one.
    private func touch(_ reference: FileReferenceURL, birthTime: Timestamp? = nil) {
        state.withLock { state in
            state.clock += 1
            state.entries[reference]?.stamp = state.clock
            if let birthTime { state.entries[reference]?.birthTime = birthTime }
        }
    }
}
