// SPDX-License-Identifier: Apache-2.0
import SystemPackage

/// The audit log of the secure file layer: every operation at two levels, plus policy events.
///
/// - **Intent**: the library call (``AuditIntent``), such as `Directory.createFile("a/b")`.
/// - **Effect**: each system call it made (``AuditEffect``): the directory descriptor's identity
///   (device and inode, measured before the call), the name as bytes, typed flags and mode, and
///   the result (the new descriptor's identity, or the errno).
/// - **Policy**: decisions (``PolicyEvent``): escapes refused, owner or mode rejected, `EAGAIN`
///   retried, fallback used, case collisions, objects created.
///
/// A log is never process-global. Scope it to a task (and its child tasks):
///
/// ```swift
/// let log = AuditLog()
/// try SyscallSeam.$observer.withValue(log) { try root.createFile("report", permissions: [.ownerReadWrite]) }
/// ```
///
/// or to one root, for every operation made through it: `Directory(opening:auditLog:)`. Events
/// carry a sequence number in recording order, so deterministic code produces a deterministic
/// log. The same object injects faults (``SyscallFault``): any call can be made to fail with a
/// chosen errno, which is the one fault-injection seam of the library.
///
/// A log records at one of two ``Level``s: ``Level/full`` (the default) measures identities and
/// keeps intents and policy events; ``Level/calls`` keeps only the calls and their outcomes, a
/// plain system-call trace that costs no extra system call:
///
/// ```swift
/// let trace = AuditLog(level: .calls)
/// try SyscallSeam.$observer.withValue(trace) { _ = try FileStatus(path: "/etc") }
/// #expect(trace.calls.map(\.name) == ["statx"])
/// ```
public final class AuditLog: SyscallObserver {
    /// How much a log records.
    public enum Level: String, Sendable, Hashable {
        /// Every system call and its outcome, in order, and nothing else: no intents, no policy
        /// events, no identities. Recording costs an append per call and no system call: use it
        /// to check which calls code makes, in which order, or to inject a fault.
        case calls
        /// Everything: intents, every call with the identities of its descriptors (measured
        /// before the call, and of a returned descriptor after it, by one unobserved `statx`
        /// each), and policy events. Use it to check what code did to which object.
        case full
    }

    private struct State {
        var records: [AuditRecord] = []
        var faults: [SyscallFault]
        var next = 1
    }
    private let state: Locked<State>

    /// What this log records.
    public let level: Level

    /// Creates an empty log at `level` that injects `faults` (the first matching rule wins).
    public init(level: Level = .full, faults: [SyscallFault] = []) {
        self.level = level
        state = Locked(State(faults: faults))
    }

    /// Every record, in order.
    public var records: [AuditRecord] { state.withLock { $0.records } }

    /// Every event, in order.
    public var events: [AuditEvent] { records.map(\.event) }

    /// Adds a fault rule for calls made from now on.
    public func inject(_ fault: SyscallFault) {
        state.withLock { $0.faults.append(fault) }
    }

    /// Forgets every record (fault rules stay).
    public func clear() {
        state.withLock {
            $0.records.removeAll()
            $0.next = 1
        }
    }

    private func append(_ event: AuditEvent) {
        state.withLock { state in
            state.records.append(AuditRecord(sequence: state.next, event: event))
            state.next += 1
        }
    }

    // MARK: SyscallObserver

    /// Part of ``SyscallObserver``: a ``Level/full`` log measures identities.
    public var wantsIdentities: Bool { level == .full }

    /// Part of ``SyscallObserver``.
    public func fault(for call: SyscallCall) -> Errno? {
        state.withLock { $0.faults.consumeFault(for: call) }
    }

    /// Part of ``SyscallObserver``: a call and its outcome, without identities (``Level/calls``).
    public func record(_ call: SyscallCall, outcome: SyscallOutcome) {
        append(.effect(AuditEffect(call: call, outcome: outcome, identities: SyscallIdentities())))
    }

    /// Part of ``SyscallObserver``.
    public func record(_ call: SyscallCall, outcome: SyscallOutcome, identities: SyscallIdentities) {
        append(.effect(AuditEffect(call: call, outcome: outcome, identities: identities)))
    }

    /// Part of ``SyscallObserver``: kept at ``Level/full`` only.
    public func recordIntent(_ intent: AuditIntent) {
        if level == .full { append(.intent(intent)) }
    }

    /// Part of ``SyscallObserver``: kept at ``Level/full`` only.
    public func recordPolicy(_ event: PolicyEvent) {
        if level == .full { append(.policy(event)) }
    }
}

// MARK: - Library-side helpers for recording intents and policy events

/// How every layer of this package records intents and policy events: the one way.
///
/// `package`, so FileIdentity and BookmarkKit record their entry points (`FileID.identify`,
/// `Bookmark.resolve`) into the same log as SecureFiles' own operations, while users of the
/// library only read logs.
package enum Audit {
    /// Records the start of a library operation with the current task's observer, if any. The
    /// path and details are built only when there is an observer (most calls have none).
    package static func intent(
        _ operation: String, _ path: @autoclosure () -> [UInt8] = [], _ details: @autoclosure () -> [String: String] = [:]
    ) {
        guard let observer = SyscallSeam.observer else { return }
        observer.recordIntent(AuditIntent(operation: operation, path: path(), details: details()))
    }

    /// Records a policy decision with the current task's observer, if any.
    package static func policy(_ event: PolicyEvent) {
        SyscallSeam.observer?.recordPolicy(event)
    }

    /// Records a rejection and returns the error that reports it.
    static func reject(
        _ violation: SecurityViolation, path: [UInt8], syscall: String, errno: Errno,
        file: StaticString = #fileID, line: UInt = #line
    ) -> FileSystemError {
        policy(.rejected(violation, path: path))
        return FileSystemError(
            violation: violation, syscall: syscall, errno: errno, path: FilePath(bytes: path), file: file, line: line)
    }
}
