// SPDX-License-Identifier: Apache-2.0
import SystemPackage

// MARK: - Queries and assertion helpers for tests

extension AuditLog {
    /// The intents, in order.
    public var intents: [AuditIntent] {
        events.compactMap { if case .intent(let intent) = $0 { return intent } else { return nil } }
    }

    /// The effects (system calls), in order.
    public var effects: [AuditEffect] {
        events.compactMap { if case .effect(let effect) = $0 { return effect } else { return nil } }
    }

    /// The policy events, in order.
    public var policyEvents: [PolicyEvent] {
        events.compactMap { if case .policy(let event) = $0 { return event } else { return nil } }
    }

    /// The rejections, in order.
    public var rejections: [SecurityViolation] {
        policyEvents.compactMap { if case .rejected(let violation, _) = $0 { return violation } else { return nil } }
    }

    /// The objects the library reported creating, with their identity measured on the descriptor.
    public var createdObjects: [(path: [UInt8], identity: ObjectIdentity)] {
        policyEvents.compactMap { if case .created(let path, let identity) = $0 { return (path, identity) } else { return nil } }
    }

    /// The system calls, in order (what a ``Level/calls`` log is read for).
    public var calls: [SyscallCall] { effects.map(\.call) }

    /// The effects of calls named `name`.
    public func effects(named name: String) -> [AuditEffect] { effects.filter { $0.call.name == name } }

    /// Whether any effect is a call named `name`.
    public func contains(syscall name: String) -> Bool { effects.contains { $0.call.name == name } }

    /// Effects that named a file by absolute path or relative to the working directory. With
    /// `allowingProcfs`, paths under `/proc/` (the library's own reads of `/proc/self/status`)
    /// are not counted.
    public func pathBasedEffects(allowingProcfs: Bool = true) -> [AuditEffect] {
        effects.filter { effect in
            guard effect.isPathBased else { return false }
            if allowingProcfs, let path = effect.call.path, path.starts(with: Array("/proc/".utf8)) { return false }
            return true
        }
    }

    /// Unconfined `openat`, `statx` and `name_to_handle_at` calls that could have followed a
    /// symlink in their last component (no `O_NOFOLLOW`/`AT_SYMLINK_NOFOLLOW`, no
    /// `O_CREAT|O_EXCL`), ignoring `""`, `.` and `..`, which are never symlinks. `openat2` is
    /// confined by the kernel and listed by ``kernelResolutionsAllowingSymlinks`` instead.
    public var effectsThatMayFollowSymlinks: [AuditEffect] {
        effects.filter { effect in
            guard ["openat", "statx", "name_to_handle_at"].contains(effect.call.name),
                let path = effect.call.path, !path.isEmpty, path != [0x2E], path != [0x2E, 0x2E],
                effect.call.flags.map({ $0 & 0x1000 == 0 }) ?? true  // AT_EMPTY_PATH targets the descriptor
            else { return false }
            return !effect.call.refusesTrailingSymlink
        }
    }

    /// Successful `openat2` calls resolved in the kernel that followed symlinks (no
    /// `RESOLVE_NO_SYMLINKS`), for tests asserting "never followed a symlink" in strict mode.
    public var kernelResolutionsAllowingSymlinks: [AuditEffect] {
        effects(named: "openat2").filter { ($0.call.resolve ?? 0) & 0x04 == 0 }
    }

    /// Whether every created object has exactly these permission bits.
    public func everyCreatedObject(hasPermissions permissions: UInt32) -> Bool {
        createdObjects.allSatisfy { $0.identity.permissions == permissions }
    }

    /// The log as numbered lines, for failure messages.
    public var transcript: String { records.map(\.description).joined(separator: "\n") }
}
