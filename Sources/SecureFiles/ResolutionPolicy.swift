// SPDX-License-Identifier: Apache-2.0
/// How a path given to a ``Directory`` is resolved beneath it.
///
/// Under ``beneath`` and ``inRoot``, magic links (`/proc/…/exe`, `/proc/…/fd/N`, `/proc/…/root`)
/// are always refused. The presets:
///
/// | preset | absolute paths, absolute symlinks, `..` above the root | kernel flags |
/// |---|---|---|
/// | ``beneath`` (default) | an error (`EXDEV`, ``SecurityViolation/escape``) | `RESOLVE_BENEATH` |
/// | ``inRoot`` | clamped to the root, as if the root were `/` | `RESOLVE_IN_ROOT` |
/// | ``unconfined`` | resolved as the kernel resolves any path: absolute from `/` | none (`openat`) |
///
/// ``unconfined`` is for paths the caller trusts (a path a user typed, a path the library
/// recorded itself), through ``Directory/current``; never for names taken from untrusted data
/// inside a tree.
///
/// ``noSymlinks`` and ``noMountCrossing`` add `RESOLVE_NO_SYMLINKS` and `RESOLVE_NO_XDEV`.
public struct ResolutionPolicy: Sendable, Hashable, CustomStringConvertible {
    /// What happens to paths that try to leave the root.
    public enum Scope: String, Sendable, Hashable {
        /// Escapes are errors (cap-std, Go `os.Root`): the right default for untrusted input.
        case beneath
        /// The root acts as `/` (libpathrs, chroot): escapes are clamped.
        case inRoot
        /// No confinement: the kernel's own resolution, exactly as `openat` (absolute paths from
        /// `/`, symlinks and magic links followed, `..` anywhere). With ``refusesSymlinks`` or
        /// ``refusesMountCrossing`` it needs `openat2` (Linux 5.6); where that is missing the
        /// call fails with `ENOSYS` rather than resolve less strictly than asked.
        case unconfined
    }

    /// The scope.
    public var scope: Scope
    /// Refuse every symlink on the path (`ELOOP`).
    public var refusesSymlinks: Bool
    /// Refuse crossing into another mount (`EXDEV`), bind mounts included.
    public var refusesMountCrossing: Bool
    /// How many times an `openat2` that fails with `EAGAIN` (a concurrent rename) is retried
    /// before the component walker answers the call instead (libpathrs retries 128 times).
    public var eagainRetries: Int

    /// Creates a policy.
    public init(scope: Scope, refusesSymlinks: Bool = false, refusesMountCrossing: Bool = false, eagainRetries: Int = 128) {
        self.scope = scope
        self.refusesSymlinks = refusesSymlinks
        self.refusesMountCrossing = refusesMountCrossing
        self.eagainRetries = max(0, eagainRetries)
    }

    /// Escapes are errors.
    public static let beneath = ResolutionPolicy(scope: .beneath)
    /// Escapes are clamped to the root.
    public static let inRoot = ResolutionPolicy(scope: .inRoot)
    /// No confinement: the kernel's own resolution, for trusted paths (see ``Scope/unconfined``).
    public static let unconfined = ResolutionPolicy(scope: .unconfined)

    /// Whether resolving under this policy is a plain `openat` (nothing for `openat2` to enforce).
    var isPlainOpen: Bool { scope == .unconfined && !refusesSymlinks && !refusesMountCrossing }

    /// This policy with every symlink refused.
    public var noSymlinks: ResolutionPolicy {
        var copy = self
        copy.refusesSymlinks = true
        return copy
    }

    /// This policy with mount crossing refused.
    public var noMountCrossing: ResolutionPolicy {
        var copy = self
        copy.refusesMountCrossing = true
        return copy
    }

    /// The `RESOLVE_*` bits for `openat2`.
    var resolveFlags: UInt64 {
        var flags: UInt64 = 0
        switch scope {
        case .beneath: flags |= 0x02 | 0x08  // RESOLVE_NO_MAGICLINKS | RESOLVE_BENEATH
        case .inRoot: flags |= 0x02 | 0x10  // RESOLVE_NO_MAGICLINKS | RESOLVE_IN_ROOT
        case .unconfined: break
        }
        if refusesSymlinks { flags |= 0x04 }
        if refusesMountCrossing { flags |= 0x01 }
        return flags
    }

    /// `beneath+noSymlinks`, for logs.
    public var description: String {
        var text = scope.rawValue
        if refusesSymlinks { text += "+noSymlinks" }
        if refusesMountCrossing { text += "+noMountCrossing" }
        return text
    }
}

/// Which resolver a ``Directory`` uses.
public enum ResolverBackend: String, Sendable, Hashable {
    /// `openat2` in the kernel, falling back to ``walker`` when `openat2` fails with `ENOSYS` or
    /// `EPERM` (old kernels, seccomp sandboxes). The fallback is remembered per root.
    case automatic
    /// The user-space component walker only (`O_PATH|O_NOFOLLOW` per component).
    case walker
}
