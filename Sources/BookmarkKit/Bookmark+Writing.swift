import SecureFiles
import SystemPackage

extension Bookmark {
    /// Writes `bytes` (bookmark data, base64 text, an alias file…) to `path` atomically: a new
    /// temporary file beside it (created exclusively, never through a symlink), `fsync`, `rename`
    /// over the destination, `fsync` of the directory. A crash leaves the old file or the new one,
    /// never a torn file; a symlink or directory at the destination is refused, never followed.
    ///
    /// - Parameter permissions: The mode of a new file (exact, whatever the umask); a replaced file
    ///   keeps its mode.
    /// - Throws: ``BookmarkError`` (`permissionDenied`, `fileSystem`, …) naming the call that failed.
    public static func writeAtomically(
        _ bytes: [UInt8], to path: FilePath, permissions: FilePermissions = [.ownerReadWrite, .groupRead, .otherRead]
    ) throws(BookmarkError) {
        _ = try FilePublisher.publish(bytes, at: path, permissions: permissions)
    }
}
