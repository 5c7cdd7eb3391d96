// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
    import Glibc
#endif

/// What must be true of a file, checked on the *opened* descriptor, before its contents are trusted.
///
/// Apple's secure-coding advice, made an API: the owner is the caller or root, neither the file
/// nor its directory is writable by group or others, it is a regular file (a FIFO or device is
/// refused without blocking), and, where required, it has exactly one hard link (a hard link to
/// a secret elsewhere looks like an ordinary file).
public struct VerificationPolicy: Sendable, Hashable {
    /// Who may own the file.
    public enum Owner: Sendable, Hashable {
        /// The caller's effective uid or root (uid 0).
        case selfOrRoot
        /// Only these uids.
        case uids(Set<UInt32>)
        /// Anyone (no owner check).
        case anyone
    }

    /// Who may own the file.
    public var owner: Owner
    /// Refuse a file writable by group or others (`mode & 0o022`).
    public var refusesWritableByOthers: Bool
    /// Refuse a file whose directory is writable by group or others. A sticky directory is
    /// refused too: the policy is for files whose directory the owner controls.
    public var refusesWritableDirectory: Bool
    /// Require exactly one hard link.
    public var requiresSingleLink: Bool
    /// Refuse a file that group or others may access at all (`mode & 0o077`): for secrets such as
    /// signing keys, which must be `0600` or stricter.
    public var refusesAccessByOthers: Bool

    /// Creates a policy. Regular files only is always required.
    public init(
        owner: Owner = .selfOrRoot, refusesWritableByOthers: Bool = true, refusesWritableDirectory: Bool = true,
        requiresSingleLink: Bool = true, refusesAccessByOthers: Bool = false
    ) {
        self.owner = owner
        self.refusesWritableByOthers = refusesWritableByOthers
        self.refusesWritableDirectory = refusesWritableDirectory
        self.requiresSingleLink = requiresSingleLink
        self.refusesAccessByOthers = refusesAccessByOthers
    }

    /// Every check on: owner self or root, no group/world write on file or directory, one link.
    public static let strict = VerificationPolicy()
    /// A secret of this user: owned by the caller's effective uid (not even root), no access at
    /// all for group or others (`0600` or stricter); its directory and link count are not checked.
    public static var ownSecret: VerificationPolicy {
        VerificationPolicy(
            owner: .uids([UInt32(geteuid())]), refusesWritableByOthers: true, refusesWritableDirectory: false,
            requiresSingleLink: false, refusesAccessByOthers: true)
    }
    /// Regular file only; owner, modes and links not checked.
    public static let regularFileOnly = VerificationPolicy(
        owner: .anyone, refusesWritableByOthers: false, refusesWritableDirectory: false, requiresSingleLink: false)
}
