// SPDX-License-Identifier: Apache-2.0
import SystemPackage

// MARK: - What the audit log records

/// Who an object is, as the audit log sees it: device and inode, plus the type, mode, owner and
/// link count measured at the same moment (`statx` on the descriptor, never by path).
public struct ObjectIdentity: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The device the object lives on.
    public var device: DeviceNumber
    /// The inode number.
    public var inode: UInt64
    /// The full `st_mode` (type and permission bits).
    public var mode: UInt32
    /// The owner.
    public var uid: UInt32
    /// The number of hard links.
    public var linkCount: UInt32

    /// Creates an identity.
    package init(device: DeviceNumber, inode: UInt64, mode: UInt32, uid: UInt32, linkCount: UInt32) {
        self.device = device
        self.inode = inode
        self.mode = mode
        self.uid = uid
        self.linkCount = linkCount
    }

    /// The kind of object (from the type bits of ``mode``).
    public var kind: FileKind { FileKind(mode: mode) }
    /// The permission bits (`mode & 0o7777`).
    public var permissions: UInt32 { mode & 0o7777 }

    /// Whether two identities name the same object (device and inode).
    public func isSameObject(as other: ObjectIdentity) -> Bool { device == other.device && inode == other.inode }

    /// `dev:ino kind 0oMODE uid N nlink N`.
    public var description: String {
        "\(device):\(inode) \(kind.rawValue) 0o\(String(permissions, radix: 8)) uid \(uid) nlink \(linkCount)"
    }
}

/// A library-level operation: the "intent" level of the audit log.
public struct AuditIntent: Sendable, Hashable {
    /// The operation, such as `Directory.open`, `Directory.createFile` or `FileID.init`.
    public var operation: String
    /// The path (or name) it was asked about, as bytes; empty when there is none.
    public var path: [UInt8]
    /// Further parameters as text (resolution mode, requested permissions…), sorted by key.
    public var details: [String: String]

    /// Creates an intent.
    package init(operation: String, path: [UInt8] = [], details: [String: String] = [:]) {
        self.operation = operation
        self.path = path
        self.details = details
    }
}

/// Why the secure layer refused something. Each rejection names exactly one reason.
public enum SecurityViolation: Sendable, Hashable, CustomStringConvertible {
    /// The path (or a symlink on it) led outside the root.
    case escape
    /// A magic link (`/proc/…/exe`, `/proc/…/fd/N`) was on the path.
    case magicLink
    /// The owner is neither the caller's effective uid nor root (or not in the allowed set).
    case owner(uid: UInt32)
    /// The file is writable by group or others.
    case fileWritableByOthers(mode: UInt32)
    /// The directory holding the file is writable by group or others.
    case directoryWritableByOthers(mode: UInt32)
    /// The file may be read or written by group or others (`mode & 0o077`), where a secret is required.
    case fileAccessibleByOthers(mode: UInt32)
    /// The object is not a regular file (a FIFO, device, socket, directory or symlink).
    case notRegular(FileKind)
    /// The file has more than one hard link where exactly one was required.
    case linkCount(UInt32)
    /// In a case-folding directory the new name folds to an existing, differently spelled name.
    case caseCollision(existing: [UInt8], requested: [UInt8])
    /// The object changed between two steps (a concurrent rename was detected).
    case identityChanged
    /// The name is not a single usable component (empty, `.`, `..`, contains `/` or NUL).
    case invalidName([UInt8])
    /// Permission bits outside what the operation allows (setuid, setgid, sticky, or > 0o7777).
    case modeOutOfRange(UInt32)

    /// A short identifier, stable for assertions and JSON.
    public var reason: String {
        switch self {
        case .escape: return "escape"
        case .magicLink: return "magicLink"
        case .owner: return "owner"
        case .fileWritableByOthers: return "fileWritableByOthers"
        case .directoryWritableByOthers: return "directoryWritableByOthers"
        case .fileAccessibleByOthers: return "fileAccessibleByOthers"
        case .notRegular: return "notRegular"
        case .linkCount: return "linkCount"
        case .caseCollision: return "caseCollision"
        case .identityChanged: return "identityChanged"
        case .invalidName: return "invalidName"
        case .modeOutOfRange: return "modeOutOfRange"
        }
    }

    /// A sentence naming the reason and the offending value.
    public var description: String {
        switch self {
        case .escape: return "the path leads outside the root"
        case .magicLink: return "a magic link (/proc/…) is on the path"
        case .owner(let uid): return "owned by uid \(uid), which is neither the caller nor root"
        case .fileWritableByOthers(let mode): return "file mode 0o\(String(mode & 0o7777, radix: 8)) is group- or world-writable"
        case .directoryWritableByOthers(let mode):
            return "directory mode 0o\(String(mode & 0o7777, radix: 8)) is group- or world-writable"
        case .fileAccessibleByOthers(let mode):
            return "file mode 0o\(String(mode & 0o7777, radix: 8)) lets group or others access it; a secret must be 0600 or stricter"
        case .notRegular(let kind): return "not a regular file (\(kind.rawValue))"
        case .linkCount(let count): return "\(count) hard links where 1 is required"
        case .caseCollision(let existing, let requested):
            return "'\(PathBytes.escape(requested))' folds to the existing name '\(PathBytes.escape(existing))'"
        case .identityChanged: return "the object changed between two steps (concurrent rename)"
        case .invalidName(let name): return "'\(PathBytes.escape(name))' is not a single file name"
        case .modeOutOfRange(let mode): return "mode 0o\(String(mode, radix: 8)) is outside what is allowed"
        }
    }
}

/// A policy decision, recorded as a first-class audit event.
public enum PolicyEvent: Sendable, Hashable, CustomStringConvertible {
    /// An operation was refused for this reason.
    case rejected(SecurityViolation, path: [UInt8])
    /// `openat2` returned `EAGAIN` (a rename raced the lookup); this is retry number `attempt`.
    case retriedEAGAIN(attempt: Int, path: [UInt8])
    /// `openat2` was unavailable (this errno), so the component-walking resolver was used.
    case fellBack(errno: Errno)
    /// `O_TMPFILE` was unavailable (this errno), so a random name was used for the temporary file.
    case temporaryNameFallback(errno: Errno)
    /// Case folding of a directory was determined (and cached) by this method.
    case caseFoldingDetected(folds: Bool, method: String)
    /// The library created an object and measured it on its descriptor afterwards.
    case created(path: [UInt8], identity: ObjectIdentity)
    /// A temporary file left by a writer that is gone (killed mid-write) was removed.
    case removedLeftover(name: [UInt8])

    /// A short identifier for assertions and JSON.
    public var kind: String {
        switch self {
        case .rejected: return "rejected"
        case .retriedEAGAIN: return "retriedEAGAIN"
        case .fellBack: return "fellBack"
        case .temporaryNameFallback: return "temporaryNameFallback"
        case .caseFoldingDetected: return "caseFoldingDetected"
        case .created: return "created"
        case .removedLeftover: return "removedLeftover"
        }
    }

    /// Human-readable text.
    public var description: String {
        switch self {
        case .rejected(let violation, let path): return "rejected '\(PathBytes.escape(path))': \(violation)"
        case .retriedEAGAIN(let attempt, let path): return "retried EAGAIN #\(attempt) for '\(PathBytes.escape(path))'"
        case .fellBack(let errno): return "openat2 unavailable (\(errno)): component walker used"
        case .temporaryNameFallback(let errno): return "O_TMPFILE unavailable (\(errno)): random temporary name used"
        case .caseFoldingDetected(let folds, let method): return "directory \(folds ? "folds" : "does not fold") case (\(method))"
        case .created(let path, let identity): return "created '\(PathBytes.escape(path))' \(identity)"
        case .removedLeftover(let name): return "removed the leftover '\(PathBytes.escape(name))' of a writer that is gone"
        }
    }
}

/// One system call as the audit log saw it: the call with its typed arguments, the identities
/// around it, and the result.
public struct AuditEffect: Sendable, Hashable, CustomStringConvertible {
    /// The call (name, descriptor, name bytes, flags, mode, resolve bits, second name).
    public var call: SyscallCall
    /// What it returned.
    public var outcome: SyscallOutcome
    /// The identities measured around it.
    public var identities: SyscallIdentities

    /// Creates an effect.
    package init(call: SyscallCall, outcome: SyscallOutcome, identities: SyscallIdentities) {
        self.call = call
        self.outcome = outcome
        self.identities = identities
    }

    /// Whether the call named a path relative to the working directory or by an absolute path
    /// (as opposed to a name relative to a directory descriptor, or no path at all).
    public var isPathBased: Bool {
        guard let path = call.path, call.name != "fgetxattr", call.name != "fsetxattr", call.name != "fremovexattr"
        else { return false }
        if path.first == UInt8(ascii: "/") { return true }
        return call.descriptor == atCurrentDirectory && !path.isEmpty
    }

    /// `call = outcome [dir …] [-> result …]`.
    public var description: String {
        var text = "\(call) = "
        switch outcome {
        case .returned(let value): text += String(value)
        case .failed(let errno): text += "-1 \(errno)"
        case .injected(let errno): text += "-1 \(errno) (injected)"
        }
        if let directory = identities.directory { text += " [dir \(directory.device):\(directory.inode)]" }
        if let result = identities.result { text += " -> \(result)" }
        return text
    }
}

/// One entry of the audit log.
public enum AuditEvent: Sendable, Hashable, CustomStringConvertible {
    /// A library call started.
    case intent(AuditIntent)
    /// A system call was made (or injected).
    case effect(AuditEffect)
    /// A policy decision was taken.
    case policy(PolicyEvent)

    /// Human-readable text.
    public var description: String {
        switch self {
        case .intent(let intent):
            let details = intent.details.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            return "intent \(intent.operation)('\(PathBytes.escape(intent.path))'\(details.isEmpty ? "" : ", " + details.joined(separator: ", ")))"
        case .effect(let effect): return "effect \(effect)"
        case .policy(let event): return "policy \(event)"
        }
    }
}

/// An event with its position in the log.
public struct AuditRecord: Sendable, Hashable, CustomStringConvertible {
    /// 1, 2, 3… in the order events were recorded (deterministic for deterministic code).
    public var sequence: Int
    /// The event.
    public var event: AuditEvent
    /// `#N event`.
    public var description: String { "#\(sequence) \(event)" }
}

extension SyscallOutcome {
    /// The errno of a failed or injected call.
    public var errno: Errno? {
        switch self {
        case .returned: return nil
        case .failed(let errno), .injected(let errno): return errno
        }
    }
}
