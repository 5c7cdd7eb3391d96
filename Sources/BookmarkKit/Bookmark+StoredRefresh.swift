// SPDX-License-Identifier: Apache-2.0
import BookmarkFormat
import FileIdentity
import SecureFiles
import SystemPackage

/// What ``Bookmark/refreshAll(storedIn:options:signingKey:volumes:progress:)`` did to a library file.
public struct StoredRefresh: Sendable {
    /// One result per stored bookmark, in file order: the resolution of the data that was in the
    /// file (stale for those rewritten), or why it failed.
    public var results: [Result<Resolution, BookmarkError>]
    /// The places in the file (from 0) of the bookmarks rewritten with fresh data, ascending.
    public var refreshed: [Int]
    /// Stale bookmarks whose fresh data could not be made (the object vanished after it was
    /// resolved, say), by place: they are left in the file as they were.
    public var notRefreshed: [Int: BookmarkError]

    /// Whether the file was rewritten.
    public var rewritten: Bool { !refreshed.isEmpty }

    /// A report with these parts (a resolution alone, nothing rewritten, is
    /// `StoredRefresh(results: results)`).
    public init(
        results: [Result<Resolution, BookmarkError>], refreshed: [Int] = [], notRefreshed: [Int: BookmarkError] = [:]
    ) {
        self.results = results
        self.refreshed = refreshed
        self.notRefreshed = notRefreshed
    }
}

extension Bookmark {
    /// Resolves every bookmark stored back to back in the file at `path`, as
    /// ``resolveAll(storedIn:options:volumes:progress:)`` does, and rewrites the file once with
    /// fresh data in place of each stale bookmark: what ``refreshFile(at:options:signingKey:volumes:syncingDirectory:)``
    /// does for a file of one bookmark.
    ///
    /// Each stale bookmark's fresh data is made as a refresh of one file makes it: the old creation
    /// options, every key of the old data that the fresh data lacks kept, the old signature dropped
    /// (re-signed with `signingKey` when given). Every other record (fresh, failed, or stale but not
    /// refreshable) is copied byte for byte, in its place. The file is replaced atomically (readers
    /// see the old file or the new one, and after a crash one of the two survives), keeping its
    /// permission bits, and only when something was stale.
    ///
    /// Only the fresh data is held in memory: the new file is written as the old one is read again
    /// (`Directory.replace(_:options:writing:)`). When the file changes while this runs (another
    /// writer appended to it, say), it is left as it is and the call throws, so that no change of
    /// the other writer is lost.
    ///
    /// - Parameters:
    ///   - path: The library file.
    ///   - options: As for ``resolve(_:volumes:)``.
    ///   - signingKey: Signs the fresh data (signed bookmarks, Docs/SECURITY.md).
    ///   - volumes: A mounted-volume table to reuse (the process's shared table when `nil`).
    ///   - progress: As for ``resolveAll(_:options:volumes:progress:)``.
    /// - Throws: ``BookmarkError``: as ``resolveAll(storedIn:options:volumes:progress:)``
    ///   (`notFound`, `permissionDenied`, `fileSystem`, `corruptData` for a framing that breaks);
    ///   `fileSystem` when `path` is not a regular file or changed while it was refreshed; the
    ///   writer's error when the new file cannot be written (the old one is then left as it is).
    public static func refreshAll(
        storedIn path: FilePath, options: ResolutionOptions = ResolutionOptions(), signingKey: SigningKey? = nil,
        volumes: MountedVolumes? = nil, progress: (@Sendable (BatchProgress) -> Void)? = nil
    ) throws(BookmarkError) -> StoredRefresh {
        let pathBytes = PathBytes(path).bytes
        let table = try mountedVolumes(volumes, lastKnownPath: pathBytes)
        let before = try libraryState(path)
        let (results, offsets) = try resolveStored(
            path, options: options, volumes: table, progress: progress, keepingOffsets: true)
        let stale = results.indices.filter {
            if case .success(let resolution) = results[$0] { return resolution.isStale }
            return false
        }
        var refresh = StoredRefresh(results: results)
        guard !stale.isEmpty else { return refresh }

        // Fresh data for each stale one, its old bytes read again where the batch found them
        // (only these are held); the new file is written from the same descriptor.
        let source: OwnedDescriptor
        do {
            source = try Directory.current.open(path, options: [.readOnly, .nonBlocking])
        } catch {
            throw BookmarkError(error, lastKnownPath: pathBytes)
        }
        defer { try? source.close() }
        let size = Int(clamping: before.size)
        var replacements: [Replacement] = []
        for place in stale {
            guard case .success(let resolution) = results[place] else { continue }
            let offset = offsets[place]
            let length = (place + 1 < offsets.count ? offsets[place + 1] : size) - offset
            let old: [UInt8]
            do {
                old = try source.read(count: length, at: offset)
            } catch {
                throw BookmarkError(error, lastKnownPath: pathBytes)
            }
            guard old.count == length else { throw changed(path) }
            switch freshData(old, resolution: resolution, signingKey: signingKey, volumes: table) {
            case .success(let bytes):
                replacements.append(Replacement(offset: offset, length: length, bytes: bytes))
                refresh.refreshed.append(place)
            case .failure(let error): refresh.notRefreshed[place] = error
            }
        }
        guard try libraryState(path) == before else { throw changed(path) }
        guard refresh.rewritten else { return refresh }

        // The new file written as the old one is read again: the bytes between the stale records
        // copied, theirs replaced. The old file must still be what was read when the copy ends.
        let moved = AtomicFlag()
        let pieces = replacements
        do throws(BookmarkError) {
            // On a FUSE or network volume: 2 s, and one more per 16 MiB written.
            let timeout = Duration.seconds(2 + size / (16 << 20))
            try publish(at: path, timeout: timeout) { writer throws(FileSystemError) in
                var cursor = 0
                for replacement in pieces {
                    try copy(source, from: cursor, to: replacement.offset, into: writer, path: path)
                    try writer.write(replacement.bytes)
                    cursor = replacement.offset + replacement.length
                }
                try copy(source, from: cursor, to: size, into: writer, path: path)
                if (try? libraryState(path)) != before {
                    moved.set()
                    throw FileSystemError(syscall: "statx", errno: .resourceBusy, path: path)
                }
            }
        } catch {
            if moved.value { throw changed(path) }
            throw error
        }
        return refresh
    }

    /// A stale bookmark's place in a library file, and its fresh data.
    private struct Replacement: Sendable {
        var offset: Int
        var length: Int
        var bytes: [UInt8]
    }

    /// Writes bytes `start..<end` of `source` to `writer`, 4 MiB at a time (`pread`).
    private static func copy(
        _ source: OwnedDescriptor, from start: Int, to end: Int, into writer: ContentWriter, path: FilePath
    ) throws(FileSystemError) {
        var offset = start
        while offset < end {
            let chunk = try source.read(count: min(4 << 20, end - offset), at: offset)
            // Shorter than it was: another writer cut it. The new file would be torn.
            guard !chunk.isEmpty else { throw FileSystemError(syscall: "pread", errno: .ioError, path: path) }
            try writer.write(chunk)
            offset += chunk.count
        }
    }

    /// The error of a library file that another writer changed while it was refreshed.
    private static func changed(_ path: FilePath) -> BookmarkError {
        BookmarkError(
            .fileSystem, "\(PathBytes(path).escaped) changed while its bookmarks were refreshed; it is left as it is",
            lastKnownPath: PathBytes(path).bytes)
    }

    /// Fresh data for the stale bookmark stored as `bytes`, which resolved as `resolution`.
    private static func freshData(
        _ bytes: [UInt8], resolution: Resolution, signingKey: SigningKey?, volumes: MountedVolumes
    ) -> Result<[UInt8], BookmarkError> {
        Result { () throws(BookmarkError) -> [UInt8] in
            let old = try Bookmark(data: bytes)
            return try refreshed(old, resolution: resolution, signingKey: signingKey, volumes: volumes).bookmark.data()
        }
    }

    /// What tells that a library file's content changed: its identity, size and modification and
    /// change times.
    private struct LibraryState: Equatable, Sendable {
        var device: DeviceNumber
        var inode: UInt64
        var size: UInt64
        var modified: Timestamp
        var changed: Timestamp
    }

    /// The ``LibraryState`` of the file at `path` (`statx`, the name not followed). A name that is
    /// not a regular file is refused.
    private static func libraryState(_ path: FilePath) throws(BookmarkError) -> LibraryState {
        let bytes = PathBytes(path).bytes
        switch FileStatus.lookup(pathBytes: bytes, followSymlinks: false) {
        case .failure(let errno):
            throw BookmarkError(FileSystemError(syscall: "statx", errno: errno, path: path), lastKnownPath: bytes)
        case .success(let status):
            guard status.kind == .regular else {
                throw BookmarkError(
                    .fileSystem, "\(PathBytes(path).escaped) is not a regular file (a library file is rewritten in place)",
                    lastKnownPath: bytes)
            }
            return LibraryState(
                device: status.device, inode: status.inode, size: status.size, modified: status.modificationTime,
                changed: status.changeTime)
        }
    }
}
