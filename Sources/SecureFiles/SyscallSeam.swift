// SPDX-License-Identifier: Apache-2.0
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// The calling thread's errno.
@inline(__always)
func currentErrno() -> CInt { Glibc.errno }

// MARK: - The one seam every file-system call passes through

/// A description of one system call made by the library, as the seam sees it before the call.
///
/// Every file-system call that swift-bookmarks makes (and every call into a C library that
/// touches the file system on our behalf, such as libblkid) is described by one `SyscallCall`
/// and passes through ``SyscallSeam``. That is what lets a test record every call
/// (``AuditLog``) or make any call fail with a chosen errno (``SyscallFault``).
public struct SyscallCall: Sendable, Hashable, CustomStringConvertible {
    /// The C name of the call, such as `openat`, `statx` or `ioctl(FS_IOC_GETFSUUID)`.
    public var name: String
    /// The directory (or object) descriptor the call was made against, if any. `AT_FDCWD` is -100.
    public var descriptor: CInt?
    /// The path argument as raw bytes (file names on Linux need not be UTF-8), if any.
    public var path: [UInt8]?
    /// The flags argument, if the call has one (`O_*` for opens, `AT_*` for `*at` calls,
    /// `RENAME_*` for `renameat2`). ``flagNames`` decodes them by call.
    public var flags: Int64?
    /// The mode argument of a call that creates something (`openat` with `O_CREAT`, `mkdirat`,
    /// `fchmod`), if any.
    public var mode: UInt32?
    /// The `RESOLVE_*` bits of an `openat2` call, if any.
    public var resolve: UInt64?
    /// The second directory descriptor of a two-name call (`linkat`, `renameat2`), if any.
    public var secondDescriptor: CInt?
    /// The second name of a two-name call (`linkat`, `renameat2`, the target of `symlinkat`), if any.
    public var secondPath: [UInt8]?

    /// Creates a call description.
    package init(
        name: String, descriptor: CInt? = nil, path: [UInt8]? = nil, flags: Int64? = nil, mode: UInt32? = nil,
        resolve: UInt64? = nil, secondDescriptor: CInt? = nil, secondPath: [UInt8]? = nil
    ) {
        self.name = name
        self.descriptor = descriptor
        self.path = path
        self.flags = flags
        self.mode = mode
        self.resolve = resolve
        self.secondDescriptor = secondDescriptor
        self.secondPath = secondPath
    }

    /// `name(fd, "path", flags)`, with non-UTF-8 path bytes escaped as `\xNN`.
    public var description: String {
        var parts: [String] = []
        if let descriptor { parts.append(descriptor == -100 ? "AT_FDCWD" : String(descriptor)) }
        if let path { parts.append("\"" + PathBytes.escape(path) + "\"") }
        if let flags {
            let names = flagNames
            parts.append(names.isEmpty ? "0x" + String(flags, radix: 16) : names.joined(separator: "|"))
        }
        if let mode { parts.append("0o" + String(mode, radix: 8)) }
        if resolve != nil { parts.append(resolveNames.joined(separator: "|")) }
        if let secondDescriptor { parts.append(secondDescriptor == -100 ? "AT_FDCWD" : String(secondDescriptor)) }
        if let secondPath { parts.append("\"" + PathBytes.escape(secondPath) + "\"") }
        return "\(name)(\(parts.joined(separator: ", ")))"
    }
}

/// What a system call returned, as recorded by the seam.
public enum SyscallOutcome: Sendable, Hashable {
    /// The call succeeded and returned this value (a descriptor, a byte count, or 0).
    case returned(Int)
    /// The call failed with this errno (possibly injected by a ``SyscallFault``).
    case failed(Errno)
    /// The call was not made: an observer injected this errno instead.
    case injected(Errno)
}

/// Something that watches the seam: it may inject a failure before a call and is told the outcome.
///
/// Install one for the current task with ``SyscallSeam/observer``. Observers are scoped to a task
/// (and the tasks it creates), never process-global, so parallel tests do not see each other.
/// The requirements after the first two have default implementations: an observer that only
/// counts calls ignores identities, intents and policy events; ``AuditLog`` records them at its
/// ``AuditLog/Level/full`` level.
public protocol SyscallObserver: Sendable {
    /// Called before the call is made. Return an errno to make the call fail without being made.
    func fault(for call: SyscallCall) -> Errno?
    /// Called after the call with its outcome (after EINTR retries).
    func record(_ call: SyscallCall, outcome: SyscallOutcome)
    /// Whether the seam should measure the identity of the call's directory descriptor (before
    /// the call) and of a returned descriptor (after it). Measuring costs one unobserved `statx`
    /// per descriptor. Defaults to `false`.
    var wantsIdentities: Bool { get }
    /// Called instead of ``record(_:outcome:)`` when ``wantsIdentities`` is `true`.
    func record(_ call: SyscallCall, outcome: SyscallOutcome, identities: SyscallIdentities)
    /// A library-level operation is starting (the "intent" level of the audit log).
    func recordIntent(_ intent: AuditIntent)
    /// The library made a policy decision (refused an escape, rejected an owner, retried, fell back).
    func recordPolicy(_ event: PolicyEvent)
}

extension SyscallObserver {
    /// Default: identities are not measured.
    public var wantsIdentities: Bool { false }
    /// Default: forwards to ``record(_:outcome:)``.
    public func record(_ call: SyscallCall, outcome: SyscallOutcome, identities: SyscallIdentities) {
        record(call, outcome: outcome)
    }
    /// Default: ignored.
    public func recordIntent(_ intent: AuditIntent) {}
    /// Default: ignored.
    public func recordPolicy(_ event: PolicyEvent) {}
}

/// The identities the seam measured around one call, for ``AuditLog``.
public struct SyscallIdentities: Sendable, Hashable {
    /// The object behind the call's descriptor argument, measured before the call (`nil` for
    /// `AT_FDCWD`, no descriptor, or a descriptor that could not be measured).
    public var directory: ObjectIdentity?
    /// The object behind the call's second descriptor argument, measured before the call.
    public var secondDirectory: ObjectIdentity?
    /// The object behind the returned descriptor, for calls that return one and succeeded.
    public var result: ObjectIdentity?

    /// Creates a set of identities.
    package init(directory: ObjectIdentity? = nil, secondDirectory: ObjectIdentity? = nil, result: ObjectIdentity? = nil) {
        self.directory = directory
        self.secondDirectory = secondDirectory
        self.result = result
    }
}

/// The seam through which every file-system call of the library passes.
public enum SyscallSeam {
    /// The observer for the current task, or `nil` (the default: calls go straight through).
    ///
    /// ```swift
    /// let trace = AuditLog(level: .calls)
    /// try SyscallSeam.$observer.withValue(trace) { _ = try FileStatus(path: "/etc") }
    /// #expect(trace.calls.map(\.name).contains("statx"))
    /// ```
    @TaskLocal public static var observer: (any SyscallObserver)?

    /// Runs a call into a C library that touches the file system on our behalf (libblkid), so that
    /// it is recorded and can be failed by injection like a system call.
    ///
    /// - Parameters:
    ///   - name: The library function, such as `blkid_do_safeprobe`.
    ///   - path: The path it works on, if any.
    ///   - body: Performs the call; returns `nil` on success or the errno it failed with.
    /// - Returns: `nil` on success, or the errno (real or injected).
    package static func external(_ name: String, path: FilePath? = nil, _ body: () -> Errno?) -> Errno? {
        let observer = SyscallSeam.observer
        let call = SyscallCall(name: name, path: path.map { PathBytes($0).bytes })
        if let observer, let injected = observer.fault(for: call) {
            observer.record(call, outcome: .injected(injected))
            return injected
        }
        let result = body()
        observer?.record(call, outcome: result.map { .failed($0) } ?? .returned(0))
        return result
    }
}

// MARK: - Internal entry point used by Syscalls.swift

/// Performs `body` (a raw libc call that returns -1 and sets errno on failure) through the seam:
/// fault injection first, EINTR retried, the outcome recorded (with identities when the observer
/// wants them; `returnsDescriptor` says the result is a new descriptor worth measuring).
@inline(__always)
func throughSeam<R: FixedWidthInteger>(
    _ name: StaticString,
    descriptor: CInt? = nil,
    path: UnsafePointer<CChar>? = nil,
    flags: Int64? = nil,
    mode: UInt32? = nil,
    resolve: UInt64? = nil,
    secondDescriptor: CInt? = nil,
    secondPath: UnsafePointer<CChar>? = nil,
    returnsDescriptor: Bool = false,
    _ body: () -> R
) -> Result<R, Errno> {
    guard let observer = SyscallSeam.observer else {
        return retryingInterrupts(body)
    }
    let call = SyscallCall(
        name: name.description, descriptor: descriptor, path: path.map(cStringBytes), flags: flags, mode: mode,
        resolve: resolve, secondDescriptor: secondDescriptor, secondPath: secondPath.map(cStringBytes))
    if let injected = observer.fault(for: call) {
        if observer.wantsIdentities {
            observer.record(
                call, outcome: .injected(injected),
                identities: SyscallIdentities(
                    directory: descriptor.flatMap(Sys.unobservedIdentity),
                    secondDirectory: secondDescriptor.flatMap(Sys.unobservedIdentity)))
        } else {
            observer.record(call, outcome: .injected(injected))
        }
        return .failure(injected)
    }
    guard observer.wantsIdentities else {
        let result = retryingInterrupts(body)
        switch result {
        case .success(let value): observer.record(call, outcome: .returned(Int(truncatingIfNeeded: value)))
        case .failure(let errno): observer.record(call, outcome: .failed(errno))
        }
        return result
    }
    var identities = SyscallIdentities(
        directory: descriptor.flatMap(Sys.unobservedIdentity),
        secondDirectory: secondDescriptor.flatMap(Sys.unobservedIdentity))
    let result = retryingInterrupts(body)
    switch result {
    case .success(let value):
        if returnsDescriptor { identities.result = Sys.unobservedIdentity(CInt(truncatingIfNeeded: value)) }
        observer.record(call, outcome: .returned(Int(truncatingIfNeeded: value)), identities: identities)
    case .failure(let errno):
        observer.record(call, outcome: .failed(errno), identities: identities)
    }
    return result
}

@inline(__always)
private func retryingInterrupts<R: FixedWidthInteger>(_ body: () -> R) -> Result<R, Errno> {
    while true {
        let value = body()
        if value != -1 { return .success(value) }
        let errno = Errno(rawValue: currentErrno())
        if errno == .interrupted { continue }
        return .failure(errno)
    }
}

func cStringBytes(_ pointer: UnsafePointer<CChar>) -> [UInt8] {
    // One strlen and one copy (an append per byte profiled at several thousand instructions per path).
    Array(UnsafeRawBufferPointer(start: UnsafeRawPointer(pointer), count: strlen(pointer)))
}
