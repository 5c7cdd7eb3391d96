// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import BookmarkFormat
import FileIdentity
import Foundation
import Glibc
import SecureFiles
import SystemPackage

/// Reading a SOURCE argument: a file of raw bookmark bytes, base64 text, an alias file, or `-`.
enum SourceInput {
    /// Largest input read (the decoder's default limit).
    static let readLimit = BookmarkDecodingLimits.default.maxInputSize

    /// The raw bytes of `source` (a path, or `-` for stdin), or an exit after saying why on stderr.
    static func bytes(of source: String, volumeTimeout: Duration = .seconds(2)) throws -> [UInt8] {
        switch bytes(of: RawArguments.path(source), volumeTimeout: volumeTimeout) {
        case .success(let bytes): return bytes
        case .failure(let status): throw status.exitCode
        }
    }

    /// The raw bytes of `source` (a path, or `-` for stdin), or the exit status after saying why on stderr.
    static func bytes(of source: PathBytes, volumeTimeout: Duration = .seconds(2)) -> Result<[UInt8], ExitStatus> {
        if source == "-" {
            // read(2) directly, as `--files-from -` does: FileHandle's readData traps on a failed
            // read (stdin a directory, or closed), which killed the process with SIGILL.
            var input: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let count = chunk.withUnsafeMutableBytes { Glibc.read(STDIN_FILENO, $0.baseAddress, $0.count) }
                if count < 0 {
                    if errno == EINTR { continue }
                    let code = errno
                    Output.error("-: cannot read standard input: \(String(cString: strerror(code))) (errno \(code))")
                    return .failure(.sourceUnreadable)
                }
                if count == 0 { break }
                input += chunk[0..<count]
                guard input.count <= readLimit else {
                    Output.error("-: input exceeds the limit of \(readLimit) bytes")
                    return .failure(.corruptData)
                }
            }
            return .success(input)
        }
        return read(source, volumeTimeout: volumeTimeout)
    }

    /// A SOURCE file's bytes, or the exit status for it after saying why on stderr: 66 when it
    /// cannot be opened, 5 when it is not a regular file of at most the decoder's limit.
    static func read(_ source: PathBytes, volumeTimeout: Duration = .seconds(2)) -> Result<[UInt8], ExitStatus> {
        guarded(source, timeout: volumeTimeout) { readHere(source) }
    }

    /// Whether a library file (`resolve --stored`) can be read: `nil`, or the exit status after
    /// saying why on stderr (66 when it cannot be opened, 5 when it is not a regular file, 75 when
    /// its FUSE or network volume does not answer). Its size is not limited: the batch reads it a
    /// chunk at a time.
    static func checkStored(_ source: PathBytes, volumeTimeout: Duration) -> ExitStatus? {
        let opened = guarded(source, timeout: volumeTimeout) {
            openRegular(source, file: "library file", notIt: "not a library file").map { _ in () }
        }
        if case .failure(let status) = opened { return status }
        return nil
    }

    /// `body`, which touches the SOURCE, under the volume watchdog: a SOURCE on a FUSE or network
    /// volume that does not answer gives exit 75, not a hang.
    private static func guarded<T: Sendable>(
        _ source: PathBytes, timeout: Duration, _ body: @escaping @Sendable () -> Result<T, ExitStatus>
    ) -> Result<T, ExitStatus> {
        guard let volumes = try? MountedVolumes.shared() else { return body() }
        switch VolumeWatchdog.guarding(path: source.bytes, volumes: volumes, timeout: timeout, body) {
        case .success(let result): return result
        case .failure(let error): return .failure(Output.fail(error, path: source.escaped))
        }
    }

    /// The SOURCE opened and examined, when it is a regular file; otherwise the exit status after
    /// saying why on stderr (66 when it cannot be opened, 5 when it is anything else).
    ///
    /// - Parameters:
    ///   - file: What the SOURCE should be, for messages ("bookmark file").
    ///   - notIt: What to call what it is not ("not bookmark data").
    private static func openRegular(_ source: PathBytes, file: String, notIt: String)
        -> Result<(OwnedDescriptor, FileStatus), ExitStatus>
    {
        let fd: OwnedDescriptor
        do throws(FileSystemError) {
            // O_NONBLOCK: a FIFO or a device is opened without waiting, then refused below.
            fd = try Directory.current.open(source.filePath, options: [.readOnly, .nonBlocking])
        } catch {
            // The SOURCE itself is missing or unreadable: its own code, so a script can tell it
            // from a bookmark whose target is gone (3).
            Output.error("\(source.escaped): cannot open the \(file): \(error)")
            return .failure(.sourceUnreadable)
        }
        let status: FileStatus
        do throws(FileSystemError) {
            status = try fd.status()
        } catch {
            Output.error("\(source.escaped): cannot read the \(file): \(error)")
            return .failure(.corruptData)
        }
        guard status.kind == .regular else {
            Output.error("\(source.escaped): \(notIt): \(phrase(for: status.kind)), not a regular file")
            return .failure(.corruptData)
        }
        return .success((fd, status))
    }

    /// A kind of file as a person says it ("a character device", not the case name `characterDevice`).
    static func phrase(for kind: FileKind) -> String {
        switch kind {
        case .regular: return "a regular file"
        case .directory: return "a directory"
        case .symlink: return "a symbolic link"
        case .fifo: return "a FIFO (named pipe)"
        case .socket: return "a socket"
        case .characterDevice: return "a character device"
        case .blockDevice: return "a block device"
        case .unknown: return "a file of unknown type"
        }
    }

    /// ``read(_:volumeTimeout:)`` once the SOURCE is known to be safe to touch.
    private static func readHere(_ source: PathBytes) -> Result<[UInt8], ExitStatus> {
        // Only a regular file of at most the decoder's limit is read: a FIFO, a device (/dev/zero),
        // a directory or a huge (or sparse) file is refused at once, in bounded time and memory,
        // as data that cannot be a bookmark.
        let fd: OwnedDescriptor
        let status: FileStatus
        switch openRegular(source, file: "bookmark file", notIt: "not bookmark data") {
        case .success(let opened): (fd, status) = opened
        case .failure(let exit): return .failure(exit)
        }
        let name = source.escaped
        guard status.size <= UInt64(readLimit) else {
            Output.error("\(name): not bookmark data: \(status.size) bytes, over the limit of \(readLimit)")
            return .failure(.corruptData)
        }
        do throws(FileSystemError) {
            return .success(try fd.readToEnd(limit: readLimit))
        } catch {
            Output.error("\(name): cannot read the bookmark file: \(error)")
            return .failure(.corruptData)
        }
    }

    /// `source` decoded, or exit 5 with the reason.
    static func decode(_ source: String, volumeTimeout: Duration = .seconds(2), allowTrailing: Bool = false) throws
        -> (BookmarkSource, [UInt8])
    {
        switch decode(RawArguments.path(source), volumeTimeout: volumeTimeout, allowTrailing: allowTrailing) {
        case .success(let decoded): return decoded
        case .failure(let status): throw status.exitCode
        }
    }

    /// `source` decoded with its raw bytes, or the exit status (66, 5, 75) after saying why on stderr.
    ///
    /// Bytes after the bookmark data (several bookmarks stored back to back: a library file) are
    /// refused with exit 5 unless `allowTrailing`: decoding reads the first bookmark only, and a
    /// command that answered for it alone, or rewrote the file with it alone, would lose the rest.
    static func decode(_ source: PathBytes, volumeTimeout: Duration = .seconds(2), allowTrailing: Bool = false)
        -> Result<(BookmarkSource, [UInt8]), ExitStatus>
    {
        let bytes: [UInt8]
        switch self.bytes(of: source, volumeTimeout: volumeTimeout) {
        case .success(let read): bytes = read
        case .failure(let status): return .failure(status)
        }
        // Said plainly: the decoder would report "bad magic  at offset 0" (no bytes to show).
        guard !bytes.isEmpty else {
            Output.error("\(source.escaped): not bookmark data: the input is empty (0 bytes)")
            return .failure(.corruptData)
        }
        switch Result(catching: { () throws(BookmarkFormatError) -> BookmarkSource in try BookmarkSource(decoding: bytes) }) {
        case .success(let decoded):
            if !allowTrailing, decoded.trailingByteCount > 0 {
                if let count = decoded.storedBookmarkCount {
                    Output.error(
                        "\(source.escaped): holds \(count) bookmarks stored back to back (a library file), not one: "
                            + "resolve them all with `bookmark resolve --stored` (add --refresh to rewrite the stale ones)")
                } else {
                    Output.error(
                        "\(source.escaped): corrupt bookmark data: \(decoded.trailingByteCount) bytes follow the bookmark data")
                }
                return .failure(.corruptData)
            }
            return .success((decoded, bytes))
        case .failure(let error):
            Output.error("\(source.escaped): corrupt bookmark data: \(error.description)")
            return .failure(.corruptData)
        }
    }
}
