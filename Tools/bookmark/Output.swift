// SPDX-License-Identifier: Apache-2.0
import BookmarkKit
import FileIdentity
import Foundation
import Glibc
import SecureFiles

/// Printing for every subcommand: JSON with stable (sorted) keys on stdout, diagnostics on stderr.
///
/// Paths go to stdout as the bytes they are (no escaping, no decoding), and to JSON as their
/// UTF-8 text plus, when they are not valid UTF-8, a base64 twin (``JSONPath``). Only messages on
/// stderr escape bytes, so that a person sees which name was meant.
enum Output {
    /// Encodes `value` as pretty JSON with sorted keys and prints it.
    static func json<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        write(Array(try encoder.encode(value)) + [0x0A], to: STDOUT_FILENO)
    }

    /// Encodes `value` as one line of JSON (JSON Lines), sorted keys, and prints it.
    static func jsonLine<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        write(Array(try encoder.encode(value)) + [0x0A], to: STDOUT_FILENO)
    }

    /// Prints one line of text to stdout.
    static func line(_ text: String) {
        write(Array((text + "\n").utf8), to: STDOUT_FILENO)
    }

    /// Prints `bytes` exactly, then `terminator` (a newline, or NUL with `-0`).
    static func record(_ bytes: [UInt8], terminator: UInt8 = 0x0A) {
        write(bytes + [terminator], to: STDOUT_FILENO)
    }

    /// Prints `bookmark: message` to stderr (after what stdout holds back, so that the two stay
    /// in order when they go to one file).
    static func error(_ text: String) {
        flush()
        write(Array(("bookmark: " + text + "\n").utf8), to: STDERR_FILENO)
    }

    /// Stdout held back while a batch prints (``buffered(_:)``); `nil` when printing goes out at once.
    private static let held = Locked<[UInt8]?>(nil)
    /// Run before held-back stdout is written (``beforeRecordsLeave(_:during:)``).
    private static let beforeWrite = Locked<(@Sendable () -> Void)?>(nil)

    /// Whether stdout is being held back (inside ``buffered(_:)``, stdout not a terminal).
    static var holdsBack: Bool { held.withLock { $0 != nil } }

    /// Runs `body` with `hook` called each time held-back stdout is about to be written: before
    /// each 64 KiB write, before a message on stderr, and at the end. `make --output-dir` syncs its
    /// directory there, so no record reaches stdout before the file it names would survive a
    /// power failure, with one directory `fsync` per write instead of one per file.
    static func beforeRecordsLeave<T>(_ hook: @escaping @Sendable () -> Void, during body: () throws -> T) rethrows -> T {
        beforeWrite.withLock { $0 = hook }
        defer { beforeWrite.withLock { $0 = nil } }
        return try body()
    }

    /// Calls the hook of ``beforeRecordsLeave(_:during:)``, if any (outside every lock).
    private static func runBeforeWrite() {
        if let hook = beforeWrite.withLock({ $0 }) { hook() }
    }
    /// How much is held back before it is written.
    static let heldLimit = 64 << 10

    /// Runs `body` with stdout held back in 64 KiB writes, when stdout is not a terminal (as C's
    /// stdio does): a batch of a million records is then a few thousand `write`s, not a million.
    /// Everything held is written when `body` returns or throws, and before any message on stderr.
    static func buffered<T>(_ body: () throws -> T) rethrows -> T {
        if isatty(STDOUT_FILENO) == 1 { return try body() }
        held.withLock { $0 = $0 ?? [] }
        defer {
            flush()
            held.withLock { $0 = nil }
        }
        return try body()
    }

    /// Writes what stdout holds back.
    static func flush() {
        let pending = held.withLock { held -> [UInt8] in
            guard let bytes = held, !bytes.isEmpty else { return [] }
            held = []
            return bytes
        }
        if !pending.isEmpty {
            runBeforeWrite()
            writeNow(pending, to: STDOUT_FILENO)
        }
    }

    /// Writes all of `bytes` to `fd` (stdout held back inside ``buffered(_:)``).
    static func write(_ bytes: [UInt8], to fd: Int32) {
        if fd == STDOUT_FILENO, stdoutFailure != nil { return }
        if fd == STDOUT_FILENO, let due = hold(bytes) {
            if !due.isEmpty {
                runBeforeWrite()
                writeNow(due, to: fd)
            }
            return
        }
        writeNow(bytes, to: fd)
    }

    /// Adds `bytes` to what stdout holds back: `nil` when nothing is held back (the caller writes
    /// them now), else what is due to be written now (nothing until 64 KiB are held).
    private static func hold(_ bytes: [UInt8]) -> [UInt8]? {
        held.withLock { held -> [UInt8]? in
            guard var pending = held else { return nil }
            held = nil  // the array is appended to in place, not copied
            pending.append(contentsOf: bytes)
            if pending.count >= heldLimit {
                held = []
                return pending
            }
            held = pending
            return []
        }
    }

    /// Writes all of `bytes` to `fd`, going on after short writes and `EINTR`. A closed pipe
    /// still stops the process by SIGPIPE (the shell's usual way to stop us); any other failed
    /// write to stdout (a full disk, a closed stdout, EPIPE with SIGPIPE ignored) is said once on
    /// stderr, nothing more is written to stdout, and the process exits 1 (``exitCode(_:)``).
    /// A failed write to stderr is dropped: there is nowhere left to say it.
    private static func writeNow(_ bytes: [UInt8], to fd: Int32) {
        if fd == STDOUT_FILENO, stdoutFailure != nil { return }
        let failure: Int32? = bytes.withUnsafeBytes { buffer in
            guard var base = buffer.baseAddress else { return nil }
            var left = buffer.count
            while left > 0 {
                let written = Glibc.write(fd, base, left)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                left -= written
                base += written
            }
            return nil
        }
        guard fd == STDOUT_FILENO, let failure else { return }
        let first = failed.withLock { failed -> Bool in
            guard failed == nil else { return false }
            failed = failure
            return true
        }
        if first {
            held.withLock { if $0 != nil { $0 = [] } }
            writeNow(Array(("bookmark: stdout: cannot write: \(String(cString: strerror(failure))) (errno \(failure)); "
                + "the output is incomplete\n").utf8), to: STDERR_FILENO)
        }
    }

    /// The errno of the first failed write to stdout, if any.
    private static let failed = Locked<Int32?>(nil)

    /// The errno of the first failed write to stdout, or `nil` while every write succeeded. A
    /// batch stops at its next input once this is set: the records it would print are lost.
    static var stdoutFailure: Int32? { failed.withLock { $0 } }

    /// The exit code of a process that would exit with `code`: at least 1 once a write to stdout
    /// failed (its output is incomplete), else `code`. A more severe failure of the batch
    /// (``ExitStatus/severity``) keeps its own code.
    static func exitCode(_ code: Int32) -> Int32 {
        flush()
        guard stdoutFailure != nil else { return code }
        guard code != 0 else { return ExitStatus.failure.rawValue }
        guard let status = ExitStatus(rawValue: code) else { return code }
        return ExitStatus.mostSevere([status, .failure]).rawValue
    }

    /// Reports a failure on stderr and returns the exit status it maps to (the one table).
    static func fail(_ error: any Error, path: String?) -> ExitStatus {
        let prefix = path.map { "\($0): " } ?? ""
        if let error = error as? BookmarkError {
            // A refusal by the secure layer says what was refused and why, not an invented errno.
            if let cause = error.fileSystemError, let refused = Refusal.message(cause, shown: path, use: .any) {
                self.error(prefix + refused)
                return cause.code == .permissionDenied ? .permissionDenied : .failure
            }
            // A message that starts with the path already (a library file's framing) is not
            // prefixed with it once more.
            self.error((path.map { error.message.hasPrefix($0) } == true ? "" : prefix) + error.description)
            switch error.code {
            case .notFound: return .notFound
            case .volumeNotMounted: return .volumeNotMounted
            case .corruptData: return .corruptData
            case .permissionDenied: return .permissionDenied
            case .volumeNotResponding: return .volumeNotResponding
            case .cancelled, .fileSystem, .objectChanged: return .failure
            }
        }
        if let error = error as? FileSystemError {
            self.error(prefix + (Refusal.message(error, shown: path, use: .any) ?? error.description))
            return status(of: error)
        }
        if let error = error as? FileIdentityError {
            self.error(prefix + error.description)
            if let cause = error.cause { return status(of: cause) }
            if error.code == .volumeNotResponding { return .volumeNotResponding }
            // The object's mount left the table while it was identified: it is not reachable.
            return error.code == .notInMountTable ? .notFound : .failure
        }
        self.error(prefix + String(describing: error))
        return .failure
    }

    /// Why `error` happened, for a message that names its path itself: the failed call (or the
    /// refusal), without "(last known path …)", which is the bookmarked file's.
    static func reason(_ error: BookmarkError) -> String {
        if let cause = error.fileSystemError {
            return Refusal.message(cause, shown: nil, use: .writing) ?? cause.description
        }
        return "\(error.code.rawValue): \(error.message)"
    }

    /// Reports a failure to write an output file (`make -o` and `--output-dir`, `alias`), naming
    /// it as the output (`OUTPUT: cannot <what>: <the call, errno and path>`), and returns its exit status: 13 when permission was denied, 75 for a
    /// volume that did not answer, else 1. Never 3 ("not found" is about the bookmarked file or
    /// the PATH given, which exist here), and no "(last known path …)": that is the bookmarked
    /// file's.
    static func failWriting(_ error: any Error, output: String, what: String = "write the output file") -> ExitStatus {
        let reason: String
        var status = ExitStatus.failure
        // Data that could not be encoded is not the output's fault: its own code (5).
        if let error = error as? BookmarkError, error.fileSystemError == nil, error.code == .corruptData {
            return fail(error, path: output)
        }
        // A refusal (a symlink or a directory where the output goes) is said as one, not as a
        // failed call with an errno the kernel never returned.
        let cause = (error as? BookmarkError)?.fileSystemError ?? (error as? FileSystemError)
        if let cause, let refused = Refusal.message(cause, shown: output, use: .writing) {
            self.error("\(output): \(refused)")
            return status
        }
        if let error = error as? BookmarkError {
            reason = error.fileSystemError?.description ?? "\(error.code.rawValue): \(error.message)"
            if error.code == .permissionDenied { status = .permissionDenied }
            if error.code == .volumeNotResponding { status = .volumeNotResponding }
        } else if let error = error as? FileSystemError {
            reason = error.description
            if error.code == .permissionDenied { status = .permissionDenied }
        } else {
            reason = String(describing: error)
        }
        self.error("\(output): cannot \(what): \(reason)")
        return status
    }

    /// The exit status of a failed call.
    private static func status(of error: FileSystemError) -> ExitStatus {
        switch error.code {
        case .notFound, .notDirectory: return .notFound
        case .permissionDenied: return .permissionDenied
        default: return .failure
        }
    }
}

/// A path in JSON, losslessly: field `K` holds the path's text (each byte that is not valid UTF-8
/// shown as U+FFFD, for people), and field `KBase64`, present only when the path is not valid
/// UTF-8, holds its exact bytes in base64. Docs/CLI.md states the rule for every output.
enum JSONPath {
    /// The path's text: UTF-8, with U+FFFD where a byte is not valid UTF-8.
    static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    /// The path's bytes in base64 when they are not valid UTF-8, else `nil` (the key is left out).
    static func base64(_ bytes: [UInt8]) -> String? {
        String(validating: bytes, as: UTF8.self) == nil ? Data(bytes).base64EncodedString() : nil
    }
}

/// The JSON shape of a volume (`bookmark volumes --json`, and `volume` in `bookmark id --json`).
struct VolumeJSON: Encodable {
    var mountPoint: String
    var mountPointBase64: String?
    var fsType: String
    var device: String
    var blockDevice: String?
    var uuid: String?
    var uuidSource: String
    var uuidVerified: Bool
    var persistent: Bool
    var label: String?
    var root: String
    var rootBase64: String?
    var mountID: Int32
    var fsid: String?
    var capacity: UInt64?
    var category: String

    init(_ volume: Volume) {
        mountPoint = JSONPath.text(volume.mountPoint)
        mountPointBase64 = JSONPath.base64(volume.mountPoint)
        fsType = volume.fsType
        device = volume.source
        blockDevice = volume.blockDevice
        uuid = volume.uuid
        uuidSource = volume.uuidSource.rawValue
        uuidVerified = volume.uuidVerified
        persistent = volume.isPersistent
        label = volume.label
        root = JSONPath.text(volume.root)
        rootBase64 = JSONPath.base64(volume.root)
        mountID = volume.mountID.rawValue
        fsid = volume.fsid?.description
        capacity = volume.capacity
        category = volume.category.rawValue
    }

    // Emit explicit nulls so every key is always present (stable for scripts).
    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(mountPoint, forKey: .mountPoint)
        try c.encodeIfPresent(mountPointBase64, forKey: .mountPointBase64)
        try c.encode(fsType, forKey: .fsType)
        try c.encode(device, forKey: .device)
        try c.encode(blockDevice, forKey: .blockDevice)
        try c.encode(uuid, forKey: .uuid)
        try c.encode(uuidSource, forKey: .uuidSource)
        try c.encode(uuidVerified, forKey: .uuidVerified)
        try c.encode(persistent, forKey: .persistent)
        try c.encode(label, forKey: .label)
        try c.encode(root, forKey: .root)
        try c.encodeIfPresent(rootBase64, forKey: .rootBase64)
        try c.encode(mountID, forKey: .mountID)
        try c.encode(fsid, forKey: .fsid)
        try c.encode(capacity, forKey: .capacity)
        try c.encode(category, forKey: .category)
    }

    enum CodingKeys: String, CodingKey {
        case mountPoint, mountPointBase64, fsType, device, blockDevice, uuid, uuidSource, uuidVerified, persistent, label,
            root, rootBase64, mountID, fsid, capacity, category
    }
}
