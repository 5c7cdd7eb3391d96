// SPDX-License-Identifier: Apache-2.0
import CLinuxShims
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// The user-space resolver used when `openat2` is unavailable: one component at a time with
/// `O_PATH|O_NOFOLLOW`, symlinks expanded here, `..` taken from the walk's own stack of
/// directories (never from the file system), so it cannot climb above the root. It is written to
/// give the kernel's `openat2` results for the same tree and policy; the oracle tests check that.
///
/// Safety argument: every step opens a single name relative to a descriptor that was reached from
/// the root by walking down, so the result was beneath the root when it was reached. `..` pops the
/// stack instead of looking up `..`, so a directory moved out of the root mid-walk cannot lead the
/// walk above the root through `..`. Symlink targets are re-interpreted under the policy (absolute
/// targets are escapes under `beneath`, clamped under `inRoot`).
struct PathWalker {
    struct Failure: Error {
        var syscall: String
        var errno: Errno
        var violation: SecurityViolation?
    }

    /// The kernel's limit on symlinks followed in one lookup (`MAXSYMLINKS`).
    static let maxSymlinks = 40
    /// How many times a step is retried when the entry changes between two opens.
    static let maxRaceRetries = 16
    static let procSuperMagic: Int64 = 0x9fa0
    static let stNoSymFollow: Int64 = 0x2000

    let root: CInt
    let policy: ResolutionPolicy
    private var stack: [OwnedDescriptor] = []
    private var rootMountID: UInt64?

    init(root: CInt, policy: ResolutionPolicy) {
        self.root = root
        self.policy = policy
    }

    private var current: CInt { stack.last?.rawValue ?? root }

    /// Resolves `path` and opens the result with `flags` (already including `O_CLOEXEC`).
    mutating func open(_ path: [UInt8], flags: CInt) -> Result<OwnedDescriptor, Failure> {
        do throws(Failure) {
            return .success(try walk(path, flags: flags))
        } catch {
            return .failure(error)
        }
    }

    private mutating func walk(_ path: [UInt8], flags: CInt) throws(Failure) -> OwnedDescriptor {
        guard !path.isEmpty else { throw Failure(syscall: "openat", errno: .noSuchFileOrDirectory) }
        if policy.refusesMountCrossing { rootMountID = try mountID(of: root) }
        if path.first == UInt8(ascii: "/") {
            if policy.scope == .beneath { throw Failure(syscall: "openat", errno: .improperLink, violation: .escape) }
            stack.removeAll()
        }
        let (components, trailingSlash) = PathComponents.split(path)
        // Pending components, last element next.
        var pending: [[UInt8]] = components.reversed()
        var finalMustBeDirectory = trailingSlash
        var symlinks = 0
        var raceRetries = 0
        let wantsNoFollow = flags & O_NOFOLLOW != 0
        let isPathOnly = flags & LinuxFlags.path != 0

        if pending.isEmpty { return try reopenCurrent(flags: flags) }
        while let name = pending.popLast() {
            let isFinal = pending.isEmpty
            if name == [0x2E] {
                if isFinal { return try reopenCurrent(flags: flags) }
                continue
            }
            if name == [0x2E, 0x2E] {
                if stack.isEmpty {
                    if policy.scope == .beneath {
                        throw Failure(syscall: "openat", errno: .improperLink, violation: .escape)
                    }
                } else {
                    stack.removeLast()
                }
                if isFinal { return try reopenCurrent(flags: flags) }
                continue
            }
            let step = try openStep(name)
            let identity = try identityOf(step)
            if let rootMountID, try mountID(of: step.rawValue ?? -1) != rootMountID {
                throw Failure(syscall: "statx", errno: .improperLink)
            }
            if identity.kind == .symlink {
                let follow = !isFinal || finalMustBeDirectory || !wantsNoFollow
                if !follow {
                    if isPathOnly {
                        if flags & O_DIRECTORY != 0 { throw Failure(syscall: "openat", errno: .notDirectory) }
                        return step
                    }
                    throw Failure(syscall: "openat", errno: .tooManySymbolicLinkLevels)
                }
                if policy.refusesSymlinks { throw Failure(syscall: "openat", errno: .tooManySymbolicLinkLevels) }
                switch try linkMount(step) {
                case .magic: throw Failure(syscall: "openat", errno: .tooManySymbolicLinkLevels, violation: .magicLink)
                case .noSymlinkFollowing: throw Failure(syscall: "openat", errno: .tooManySymbolicLinkLevels)
                case .plain: break
                }
                symlinks += 1
                if symlinks > Self.maxSymlinks { throw Failure(syscall: "openat", errno: .tooManySymbolicLinkLevels) }
                let target = try readLink(step)
                if target.isEmpty { throw Failure(syscall: "readlinkat", errno: .noSuchFileOrDirectory) }
                if target.first == UInt8(ascii: "/") {
                    if policy.scope == .beneath {
                        throw Failure(syscall: "readlinkat", errno: .improperLink, violation: .escape)
                    }
                    stack.removeAll()
                }
                let (targetComponents, targetSlash) = PathComponents.split(target)
                if isFinal && targetSlash { finalMustBeDirectory = true }
                pending.append(contentsOf: targetComponents.reversed())
                if pending.isEmpty { return try reopenCurrent(flags: flags) }
                continue
            }
            if !isFinal || finalMustBeDirectory {
                guard identity.kind == .directory else { throw Failure(syscall: "openat", errno: .notDirectory) }
            }
            if !isFinal {
                stack.append(step)
                continue
            }
            // The final component, not a symlink.
            if flags & O_DIRECTORY != 0 && identity.kind != .directory {
                throw Failure(syscall: "openat", errno: .notDirectory)
            }
            if isPathOnly { return step }
            switch openFinal(name, flags: flags) {
            case .success(let fd):
                if let opened = Sys.unobservedIdentity(fd.rawValue ?? -1), opened.isSameObject(as: identity) {
                    return fd
                }
                fallthrough
            case .failure(.tooManySymbolicLinkLevels):
                // The entry changed between the two opens (a rename raced us): look at it again.
                raceRetries += 1
                if raceRetries > Self.maxRaceRetries {
                    throw Failure(syscall: "openat", errno: .resourceTemporarilyUnavailable, violation: .identityChanged)
                }
                pending.append(name)
            case .failure(let errno):
                throw Failure(syscall: "openat", errno: errno)
            }
        }
        return try reopenCurrent(flags: flags)
    }

    // MARK: Steps

    private func openStep(_ name: [UInt8]) throws(Failure) -> OwnedDescriptor {
        let dirfd = current
        let result: Result<CInt, Errno> = withCName(name) { Sys.openat(dirfd, $0, LinuxFlags.path | O_NOFOLLOW | O_CLOEXEC, 0) }
        switch result {
        case .success(let fd): return OwnedDescriptor(adopting: fd, openedPath: FilePath(bytes: name))
        case .failure(let errno): throw Failure(syscall: "openat", errno: errno)
        }
    }

    private func openFinal(_ name: [UInt8], flags: CInt) -> Result<OwnedDescriptor, Errno> {
        let dirfd = current
        return withCName(name) { Sys.openat(dirfd, $0, flags | O_NOFOLLOW, 0) }
            .map { OwnedDescriptor(adopting: $0, openedPath: FilePath(bytes: name)) }
    }

    private func reopenCurrent(flags: CInt) throws(Failure) -> OwnedDescriptor {
        let dirfd = current
        // "." of a directory we hold: the directory itself, with the requested access mode.
        switch Sys.openat(dirfd, ".", flags & ~O_NOFOLLOW, 0) {
        case .success(let fd): return OwnedDescriptor(adopting: fd, openedPath: ".")
        case .failure(let errno): throw Failure(syscall: "openat", errno: errno)
        }
    }

    private func identityOf(_ fd: OwnedDescriptor) throws(Failure) -> ObjectIdentity {
        var raw = cls_statx()
        let mask = CLS_STATX_TYPE | CLS_STATX_MODE | CLS_STATX_INO | CLS_STATX_UID | CLS_STATX_NLINK
        guard let raw_fd = fd.rawValue else { throw Failure(syscall: "statx", errno: .badFileDescriptor) }
        if case .failure(let errno) = Sys.statx(raw_fd, "", LinuxFlags.emptyPath, mask, &raw) {
            throw Failure(syscall: "statx", errno: errno)
        }
        return ObjectIdentity(
            device: DeviceNumber(major: raw.stx_dev_major, minor: raw.stx_dev_minor), inode: raw.stx_ino,
            mode: UInt32(raw.stx_mode), uid: raw.stx_uid, linkCount: raw.stx_nlink)
    }

    private func mountID(of fd: CInt) throws(Failure) -> UInt64 {
        var raw = cls_statx()
        if case .failure(let errno) = Sys.statx(fd, "", LinuxFlags.emptyPath, CLS_STATX_MNT_ID, &raw) {
            throw Failure(syscall: "statx", errno: errno)
        }
        return raw.stx_mnt_id
    }

    private func readLink(_ fd: OwnedDescriptor) throws(Failure) -> [UInt8] {
        guard let linkfd = fd.rawValue else { throw Failure(syscall: "readlinkat", errno: .badFileDescriptor) }
        var buffer = [CChar](repeating: 0, count: 4097)
        let result = buffer.withUnsafeMutableBufferPointer { Sys.readlinkat(linkfd, "", $0) }
        switch result {
        case .success(let count):
            if count > 4096 { throw Failure(syscall: "readlinkat", errno: .fileNameTooLong) }
            return buffer[0..<count].map { UInt8(bitPattern: $0) }
        case .failure(let errno): throw Failure(syscall: "readlinkat", errno: errno)
        }
    }

    enum LinkMount {
        case plain, magic, noSymlinkFollowing
    }

    /// What the mount a symlink lives on says about following it, as the kernel decides:
    /// a mount with `nosymfollow` (`ST_NOSYMFOLLOW`) refuses every symlink on it (`ELOOP`); a
    /// symlink on procfs below the top level (`/proc/<pid>/exe`, `fd/N`, `root`, `ns/*`…) is a
    /// magic link; `/proc/self`, `/proc/thread-self`, `/proc/mounts` and `/proc/net` are plain.
    private func linkMount(_ link: OwnedDescriptor) throws(Failure) -> LinkMount {
        guard let fd = link.rawValue else { return .plain }
        var fs = cls_statfs()
        guard case .success = Sys.fstatfs(fd, &fs) else { return .plain }
        if fs.f_flags & Self.stNoSymFollow != 0 { return .noSymlinkFollowing }
        guard fs.f_type == Self.procSuperMagic else { return .plain }
        var parent = cls_statx()
        if case .failure(let errno) = Sys.statx(current, "", LinuxFlags.emptyPath, CLS_STATX_INO, &parent) {
            throw Failure(syscall: "statx", errno: errno)
        }
        return parent.stx_ino != 1 ? .magic : .plain
    }
}
