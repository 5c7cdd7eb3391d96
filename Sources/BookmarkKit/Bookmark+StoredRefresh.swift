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
    /// fresh data in place of each stale bookmark: what ``refreshFile(at:options:signingKey:volumes:)``
    /// does for a file of one bookmark.
    ///
    /// Each stale bookmark's fresh data is made as a refresh of one file makes it: the old creation
    /// options, every key of the old data that the fresh data lacks kept, the old signature dropped
    /// (re-signed with `signingKey` when given). Every other record (fresh, failed, or stale but not
    /// refreshable) is copied byte for byte, in its place. The file is replaced atomically (readers
    /// see the old file or the new one, and after a crash one of the two survives), keeping its
    /// permission bits, and only when something was stale.
    ///
    /// The new file is built in memory: a library of `n` bytes needs about `n` bytes more while it
    /// is written. When the file changes while this runs (another writer appended to it, say), it
    /// is left as it is and the call throws, so that no change of the other writer is lost.
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
        let results = try resolveAll(storedIn: path, options: options, volumes: table, progress: progress)
        let stale = results.indices.filter {
            if case .success(let resolution) = results[$0] { return resolution.isStale }
            return false
        }
        var refresh = StoredRefresh(results: results)
        guard !stale.isEmpty else { return refresh }

        // The file read again, record by record: the stale ones replaced, the rest copied.
        var reader = try StoredBookmarkReader(path: path)
        defer { reader.close() }
        var out: [UInt8] = []
        out.reserveCapacity(reader.fileSize + stale.count * 64)
        var place = 0
        var nextStale = 0
        while try reader.nextRecords(max: 4096, { records in
            for record in records {
                defer { place += 1 }
                if nextStale < stale.count, stale[nextStale] == place {
                    nextStale += 1
                    if case .success(let resolution) = results[place] {
                        switch freshData(Array(record.bytes), resolution: resolution, signingKey: signingKey, volumes: table) {
                        case .success(let bytes):
                            out += bytes
                            refresh.refreshed.append(place)
                            continue
                        case .failure(let error): refresh.notRefreshed[place] = error
                        }
                    }
                }
                out.append(contentsOf: record.bytes)
            }
        }) {}
        guard place == results.count, try libraryState(path) == before else {
            throw BookmarkError(
                .fileSystem, "\(PathBytes(path).escaped) changed while its bookmarks were refreshed; it is left as it is",
                lastKnownPath: pathBytes)
        }
        if refresh.rewritten { _ = try publish(out, at: path, mustExist: true) }
        return refresh
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
    private struct LibraryState: Equatable {
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
