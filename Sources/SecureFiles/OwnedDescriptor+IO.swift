// SPDX-License-Identifier: Apache-2.0
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

// Reading and writing an open descriptor: what a caller does with a file `Directory` created or
// opened (`createFile`, `open`, `Bookmark.open`). Creating, replacing, renaming and removing
// entries is `Directory`'s job, never a descriptor's.

extension OwnedDescriptor {
    /// Writes all of `bytes` at the current offset (retrying short writes).
    ///
    /// The corresponding C function is `write`.
    public func writeAll(_ bytes: [UInt8]) throws(FileSystemError) {
        var offset = 0
        while offset < bytes.count {
            let written = try using("write") { fd in
                bytes.withUnsafeBytes { buffer in
                    Sys.write(fd, UnsafeRawBufferPointer(rebasing: buffer[offset...]))
                }
            }
            guard written > 0 else { throw FileSystemError(syscall: "write", errno: .ioError, path: openedPath) }
            offset += written
        }
    }

    /// Reads at most `count` bytes from the current offset (fewer at the end of the file).
    ///
    /// The corresponding C function is `read`.
    public func readPrefix(_ count: Int) throws(FileSystemError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: max(0, count))
        var filled = 0
        while filled < bytes.count {
            let got = try using("read") { fd in
                bytes.withUnsafeMutableBytes { buffer in
                    Sys.read(fd, UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
                }
            }
            if got == 0 { break }
            filled += got
        }
        return Array(bytes.prefix(filled))
    }

    /// Reads into `buffer` from the current offset, as much as one call gives (0 at the end of the
    /// file). For callers that reuse one buffer across many reads.
    ///
    /// The corresponding C function is `read`.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(FileSystemError) -> Int {
        try using("read") { fd in Sys.read(fd, buffer) }
    }

    /// Reads `count` bytes at file offset `offset` (fewer at the end of the file), leaving the
    /// current offset as it is.
    ///
    /// The corresponding C function is `pread`.
    public func read(count: Int, at offset: Int) throws(FileSystemError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: max(0, count))
        var filled = 0
        while filled < bytes.count {
            let got = try using("pread") { fd in
                bytes.withUnsafeMutableBytes { buffer in
                    Sys.pread(fd, UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]), offset + filled)
                }
            }
            if got == 0 { break }
            filled += got
        }
        return Array(bytes.prefix(filled))
    }

    /// Flushes the object's data and metadata to the device.
    ///
    /// The corresponding C function is `fsync`.
    public func synchronize() throws(FileSystemError) {
        _ = try using("fsync") { Sys.fsync($0) }
    }

    /// Starts writing the file's dirty data to the device without waiting, so that a later
    /// ``synchronize()`` finds it written. Many files written, then each started, then each
    /// synchronized, share the file system's journal commits: synchronizing each right after
    /// writing it waited for one commit per file. Only a hint: it guarantees nothing, and a file
    /// system that does not support it fails the call, which changes nothing.
    ///
    /// The corresponding C function is `sync_file_range` with `SYNC_FILE_RANGE_WRITE`.
    public func startWriteback() throws(FileSystemError) {
        _ = try using("sync_file_range") { Sys.syncFileRange($0, flags: UInt32(SYNC_FILE_RANGE_WRITE)) }
    }
}
