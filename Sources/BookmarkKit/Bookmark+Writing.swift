// SPDX-License-Identifier: Apache-2.0
import BookmarkFormat
import SecureFiles
import SystemPackage

extension Bookmark {
    /// Writes `bytes` (bookmark data, base64 text, an alias file…) to `path` atomically: a new
    /// temporary file beside it (created exclusively, never through a symlink), `fsync`, `rename`
    /// over the destination, `fsync` of the directory. A crash leaves the old file or the new one,
    /// never a torn file; a symlink or directory at the destination is refused, never followed.
    ///
    /// - Parameters:
    ///   - bytes: What to write.
    ///   - path: Where; a relative path starts at the working directory.
    ///   - permissions: The mode of a new file (exact, whatever the umask); a replaced file keeps its mode.
    ///   - syncingDirectory: Whether to `fsync` the directory after the rename (default `true`).
    ///     Pass `false` when writing many files into one directory, then sync it once yourself
    ///     (`OwnedDescriptor.synchronize()` on the opened directory) before telling anyone the
    ///     files are there: until then a power failure may lose a new name (never tear a file).
    /// - Throws: ``BookmarkError`` (`permissionDenied`, `fileSystem`, …) naming the call that failed;
    ///   `volumeNotResponding` when the destination is on a FUSE or network volume that does not
    ///   answer within 2 s.
    public static func writeAtomically(
        _ bytes: [UInt8], to path: FilePath, permissions: FilePermissions = [.ownerReadWrite, .groupRead, .otherRead],
        syncingDirectory: Bool = true
    ) throws(BookmarkError) {
        try publish(bytes, at: path, permissions: permissions, syncsDirectory: syncingDirectory)
    }

    /// Every file BookmarkKit writes goes through here, into the secure layer's one atomic writer
    /// (`Directory.replace(_:contents:options:)`): a new file gets `permissions`, a
    /// replaced one keeps its mode; extended attributes the file system refuses are skipped and
    /// reported; anything but a regular file at the name is refused and left alone.
    @discardableResult
    static func publish(
        _ bytes: [UInt8], at path: FilePath, attributes: [ExtendedAttribute] = [],
        permissions: FilePermissions = [.ownerReadWrite, .groupRead, .otherRead], mustExist: Bool = false,
        syncsDirectory: Bool = true
    ) throws(BookmarkError) -> ReplaceOutcome {
        let options = ReplaceOptions(
            permissions: .keepExisting(otherwise: permissions), extendedAttributes: attributes,
            skipsUnsupportedAttributes: true, mustExist: mustExist, syncsDirectory: syncsDirectory)
        let bytesOfPath = PathBytes(path).bytes
        // A FUSE or network destination is written under the watchdog: a write abandoned there may
        // still complete later, and then atomically (old or new, as always).
        let table = try mountedVolumes(nil, lastKnownPath: bytesOfPath)
        return try VolumeGuard.run(touching: bytesOfPath, volumes: table, timeout: .seconds(2)) {
            () throws(BookmarkError) -> ReplaceOutcome in
            do throws(FileSystemError) {
                return try Directory.current.replace(path, contents: bytes, options: options)
            } catch {
                throw BookmarkError(error, lastKnownPath: bytesOfPath)
            }
        }
    }

    /// ``publish(_:at:attributes:permissions:mustExist:)`` for contents written a piece at a time
    /// (`Directory.replace(_:options:writing:)`): an existing file is replaced and keeps its mode.
    /// On a FUSE or network volume the write is watched for `timeout`.
    @discardableResult
    static func publish(
        at path: FilePath, timeout: Duration, writing produce: @escaping @Sendable (ContentWriter) throws(FileSystemError) -> Void
    ) throws(BookmarkError) -> ReplaceOutcome {
        let options = ReplaceOptions(permissions: .keepExisting(otherwise: [.ownerReadWrite]), mustExist: true)
        let bytesOfPath = PathBytes(path).bytes
        let table = try mountedVolumes(nil, lastKnownPath: bytesOfPath)
        return try VolumeGuard.run(touching: bytesOfPath, volumes: table, timeout: timeout) {
            () throws(BookmarkError) -> ReplaceOutcome in
            do throws(FileSystemError) {
                return try Directory.current.replace(path, options: options, writing: produce)
            } catch {
                throw BookmarkError(error, lastKnownPath: bytesOfPath)
            }
        }
    }

    /// Reads a regular file of at most the decoder's input limit (bookmark data, alias files).
    static func readSmallFile(_ path: FilePath) throws(BookmarkError) -> [UInt8] {
        let table = try mountedVolumes(nil, lastKnownPath: PathBytes(path).bytes)
        return try VolumeGuard.run(touching: PathBytes(path).bytes, volumes: table, timeout: .seconds(2)) {
            () throws(BookmarkError) -> [UInt8] in try readSmallFileHere(path)
        }
    }

    private static func readSmallFileHere(_ path: FilePath) throws(BookmarkError) -> [UInt8] {
        do throws(FileSystemError) {
            let file = try Directory.current.open(path, options: [.readOnly, .nonBlocking])
            let status = try file.status()
            guard status.kind == .regular else {
                // Said as reading it would say it (`EISDIR` for a directory), not as a failed open:
                // "'openat' failed: Invalid argument" for a folder given by mistake told nobody why.
                throw FileSystemError(syscall: "read", errno: status.kind == .directory ? .isDirectory : .invalidArgument, path: path)
            }
            return try file.readToEnd(limit: BookmarkDecodingLimits.default.maxInputSize)
        } catch {
            throw BookmarkError(error, lastKnownPath: PathBytes(path).bytes)
        }
    }
}
