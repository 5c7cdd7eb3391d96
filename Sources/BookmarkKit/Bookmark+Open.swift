// SPDX-License-Identifier: Apache-2.0
import FileIdentity
import SecureFiles
import SystemPackage

// MARK: - Resolve, then hold

/// A bookmarked object, resolved and opened: the descriptor is verified to be the object the
/// resolution found, so nothing can be swapped in between finding and using it.
public struct OpenedBookmark: Sendable {
    /// The open descriptor of the resolved object. Its identity (device, inode, generation or birth
    /// time, volume) was checked against ``resolution`` after it was opened.
    public let descriptor: OwnedDescriptor
    /// The resolution whose object ``descriptor`` is. When the object at the path changed between a
    /// resolution and its open, the bookmark was resolved again and this is the later resolution.
    public let resolution: Resolution
    /// How many resolutions it took (1 unless something changed the path while it was opened).
    public let attempts: Int
}

extension Bookmark {
    /// Resolves the bookmark and opens the object it finds, verified to be that object.
    ///
    /// A resolution hands back a path; a caller that then opens the path can be given another
    /// object, swapped in between the two. This closes that gap: the path is opened `O_PATH|O_NOFOLLOW`
    /// (which never blocks and has no side effects), the descriptor's identity is compared with the
    /// resolution's, and only then is the object reopened with `options` through the descriptor
    /// itself (`/proc/self/fd/N`), so the object that was checked is the object returned. If the
    /// object at the path is not the resolved one, the bookmark is resolved again, up to
    /// `attempts` times; it never returns a descriptor of another object.
    ///
    /// - Parameters:
    ///   - options: How to open it: `OwnedDescriptor.OpenOptions.readOnly` (default), `writeOnly`,
    ///     `readWrite`, `pathOnly`, plus flags such as `nonBlocking` or `append`. Creation flags are
    ///     refused. A bookmark of a symlink can only be opened `pathOnly` (the link itself).
    ///   - resolving: The resolution options.
    ///   - volumes: A mounted-volume table to reuse across calls.
    ///   - attempts: How many resolutions to try before giving up (at least 1; default 3).
    /// - Returns: The verified descriptor and the resolution it belongs to.
    /// - Throws: ``BookmarkError``: what ``resolve(_:volumes:)`` throws; `objectChanged` when the
    ///   object at the resolved path was another one on every attempt; `permissionDenied` or
    ///   `fileSystem` when the verified object cannot be opened with `options`.
    public func open(
        _ options: OwnedDescriptor.OpenOptions = .readOnly, resolving: ResolutionOptions = ResolutionOptions(),
        volumes: MountedVolumes? = nil, attempts: Int = 3
    ) throws(BookmarkError) -> OpenedBookmark {
        let table = try Self.mountedVolumes(volumes, lastKnownPath: recordedPathForErrors)
        var lastResolution: Resolution?
        for attempt in 1...max(1, attempts) {
            let resolution = try resolve(resolving, volumes: table)
            lastResolution = resolution
            if let descriptor = try resolution.openIfUnchanged(options, timeout: resolving.volumeResponseTimeout) {
                return OpenedBookmark(descriptor: descriptor, resolution: resolution, attempts: attempt)
            }
        }
        throw BookmarkError.objectChanged(at: lastResolution, attempts: max(1, attempts), lastKnownPath: recordedPathForErrors)
    }

    /// Resolves a bookmark of a directory and opens it as a `Directory` root, verified to be the
    /// resolved directory (see ``open(_:resolving:volumes:attempts:)``).
    ///
    /// The root is held by descriptor: after the directory is renamed or moved, paths given to it
    /// still resolve beneath it, and by `policy` (escapes are errors by default).
    ///
    /// - Returns: The directory, as a root, and the resolution it belongs to.
    /// - Throws: ``BookmarkError``: as ``open(_:resolving:volumes:attempts:)``; `objectChanged`
    ///   when the bookmarked object is not a directory (nothing that is not one is ever opened).
    public func openDirectory(
        policy: ResolutionPolicy = .beneath, resolving: ResolutionOptions = ResolutionOptions(),
        volumes: MountedVolumes? = nil, attempts: Int = 3
    ) throws(BookmarkError) -> (directory: Directory, resolution: Resolution) {
        let opened = try open([.pathOnly, .directory], resolving: resolving, volumes: volumes, attempts: attempts)
        return (Directory(adopting: opened.descriptor, policy: policy), opened.resolution)
    }

    /// The recorded path, for errors raised before a resolution has one.
    var recordedPathForErrors: [UInt8]? { (try? recordedCache.recorded(for: record))?.path }
}

extension Resolution {
    /// Opens the resolved object, verified to be the object this resolution found.
    ///
    /// The path is opened `O_PATH|O_NOFOLLOW`, its identity compared with ``fileID``, then the
    /// object is reopened with `options` through the descriptor (see ``Bookmark/open(_:resolving:volumes:attempts:)``).
    /// Unlike the bookmark's method, this does not resolve again: when the path now holds another
    /// object it fails.
    ///
    /// - Throws: ``BookmarkError``: `objectChanged` when the path holds another object (or nothing);
    ///   `permissionDenied`/`fileSystem` when the object cannot be opened with `options`.
    public func open(_ options: OwnedDescriptor.OpenOptions = .readOnly) throws(BookmarkError) -> OwnedDescriptor {
        guard let descriptor = try openIfUnchanged(options) else {
            throw BookmarkError.objectChanged(at: self, attempts: 1, lastKnownPath: PathBytes(path).bytes)
        }
        return descriptor
    }

    /// Opens the resolved directory as a `Directory` root (see ``open(_:)``).
    public func openDirectory(policy: ResolutionPolicy = .beneath) throws(BookmarkError) -> Directory {
        Directory(adopting: try open([.pathOnly, .directory]), policy: policy)
    }

    /// The verified descriptor, or `nil` when the path no longer holds this resolution's object.
    ///
    /// On a FUSE or network volume the open runs under the watchdog, with `timeout`.
    func openIfUnchanged(_ options: OwnedDescriptor.OpenOptions, timeout: Duration = .seconds(2))
        throws(BookmarkError) -> OwnedDescriptor?
    {
        let resolution = self
        return try VolumeGuard.run(on: volume, timeout: timeout, path: PathBytes(path).bytes) {
            () throws(BookmarkError) -> OwnedDescriptor? in
            try VerifiedOpen.open(resolution.path, options: options) { located in
                guard let now = try? FileID.identify(located, on: resolution.volume) else { return false }
                return now.isSameObject(as: resolution.fileID)
            }
        }
    }
}

/// Open a path, check that the object is the expected one, and only then hand it out with the
/// access asked for: the step `Bookmark.open`, `Resolution.open` and `FileReferenceURL.open` share.
enum VerifiedOpen {
    /// The object at `path`, opened with `options`, if `isExpected` accepts the `O_PATH|O_NOFOLLOW`
    /// descriptor of what is there; `nil` when something else (or nothing) is there.
    static func open(
        _ path: FilePath, options: OwnedDescriptor.OpenOptions, isExpected: (OwnedDescriptor) -> Bool
    ) throws(BookmarkError) -> OwnedDescriptor? {
        let pathBytes = PathBytes(path).bytes
        var probe: OwnedDescriptor.OpenOptions = [.pathOnly, .noFollow]
        if options.contains(.directory) { probe.insert(.directory) }
        let located: OwnedDescriptor
        do throws(FileSystemError) {
            located = try Directory.current.open(path, options: probe)
        } catch {
            // Gone, or not a directory where one is wanted: not the expected object.
            if error.code == .notFound || error.errno == .notDirectory { return nil }
            throw BookmarkError(error, lastKnownPath: pathBytes)
        }
        guard isExpected(located) else { return nil }
        if options.contains(.pathOnly) { return located }
        if (try? located.status().kind) == .symlink {
            throw BookmarkError(
                .fileSystem, "\(PathBytes(path).escaped) is a symbolic link: open it with .pathOnly to hold the link itself",
                lastKnownPath: pathBytes)
        }
        do throws(FileSystemError) {
            return try located.reopen(options: options.subtracting(.noFollow))
        } catch {
            guard error.errno == .noSuchFileOrDirectory else { throw BookmarkError(error, lastKnownPath: pathBytes) }
            // No /proc to reopen through: open the path again and check that it is still the same object.
            let again: OwnedDescriptor
            do throws(FileSystemError) {
                again = try Directory.current.open(path, options: options.union(.noFollow))
            } catch {
                if error.code == .notFound { return nil }
                throw BookmarkError(error, lastKnownPath: pathBytes)
            }
            guard let reopened = try? again.status(), let first = try? located.status(),
                reopened.device == first.device, reopened.inode == first.inode
            else { return nil }
            return again
        }
    }
}

extension FileID {
    /// Whether two measurements name one object: the same volume, subvolume and inode, and the same
    /// generation and birth time wherever both measurements have them.
    func isSameObject(as other: FileID) -> Bool {
        guard inode == other.inode, subvolume == other.subvolume, volumeKey == other.volumeKey else { return false }
        if let generation, let otherGeneration = other.generation, generation != otherGeneration { return false }
        if let birthTime, let otherBirth = other.birthTime, birthTime != otherBirth { return false }
        return true
    }
}
