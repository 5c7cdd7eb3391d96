// SPDX-License-Identifier: Apache-2.0
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

// MARK: - Verify before read

extension Directory {
    /// Opens the regular file at `path` for reading after checking `verification` on what was
    /// actually opened.
    ///
    /// Steps, all relative to descriptors: the parent is resolved by the root's policy; the final
    /// name is opened with `O_PATH|O_NOFOLLOW` (this never blocks, whatever the object is); type,
    /// owner, mode and link count are read with `statx` on *that* descriptor, and the parent's
    /// mode on the parent's descriptor; only then is the name opened for reading with
    /// `O_RDONLY|O_NOFOLLOW|O_NONBLOCK|O_NOCTTY`, and the result must be the same object (device
    /// and inode). A trailing symlink is refused as ``SecurityViolation/notRegular(_:)``.
    ///
    /// - Throws: ``FileSystemError`` with ``FileSystemError/violation`` naming the reason.
    public func openVerified(_ path: FilePath, verification: VerificationPolicy = .strict)
        throws(FileSystemError) -> OwnedDescriptor
    {
        try scoped { () throws(FileSystemError) -> OwnedDescriptor in
            let bytes = PathBytes(path).bytes
            Audit.intent("Directory.openVerified", bytes, ["policy": String(describing: verification.owner)])
            let (parent, name) = try splitForCreation(bytes)
            let located = try openAt(parent, name, flags: LinuxFlags.path | O_NOFOLLOW, mode: 0, path: bytes)
            let status = try located.status()
            try check(status, parent: parent, verification: verification, path: bytes)
            let opened = try openAt(parent, name, flags: O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, mode: 0, path: bytes)
            let reopened = try opened.status()
            guard reopened.device == status.device, reopened.inode == status.inode else {
                throw Audit.reject(.identityChanged, path: bytes, syscall: "statx", errno: .resourceTemporarilyUnavailable)
            }
            return opened
        }
    }

    /// Reads the whole verified file (see ``openVerified(_:verification:)``), at most `limit` bytes.
    public func readVerified(_ path: FilePath, verification: VerificationPolicy = .strict, limit: Int = 16 << 20)
        throws(FileSystemError) -> [UInt8]
    {
        let fd = try openVerified(path, verification: verification)
        return try scoped { () throws(FileSystemError) -> [UInt8] in try fd.readToEnd(limit: limit) }
    }

    private func check(_ status: FileStatus, parent: OwnedDescriptor, verification: VerificationPolicy, path: [UInt8])
        throws(FileSystemError)
    {
        guard status.kind == .regular else {
            throw Audit.reject(.notRegular(status.kind), path: path, syscall: "statx", errno: .invalidArgument)
        }
        switch verification.owner {
        case .anyone: break
        case .selfOrRoot:
            if status.uid != 0 && status.uid != geteuid() {
                throw Audit.reject(.owner(uid: status.uid), path: path, syscall: "statx", errno: .permissionDenied)
            }
        case .uids(let allowed):
            if !allowed.contains(status.uid) {
                throw Audit.reject(.owner(uid: status.uid), path: path, syscall: "statx", errno: .permissionDenied)
            }
        }
        if verification.refusesAccessByOthers && status.mode & 0o077 != 0 {
            throw Audit.reject(.fileAccessibleByOthers(mode: status.mode), path: path, syscall: "statx", errno: .permissionDenied)
        }
        if verification.refusesWritableByOthers && status.mode & 0o022 != 0 {
            throw Audit.reject(.fileWritableByOthers(mode: status.mode), path: path, syscall: "statx", errno: .permissionDenied)
        }
        if verification.refusesWritableDirectory {
            let directory = try parent.status()
            if directory.mode & 0o022 != 0 {
                throw Audit.reject(
                    .directoryWritableByOthers(mode: directory.mode), path: path, syscall: "statx", errno: .permissionDenied)
            }
        }
        if verification.requiresSingleLink && status.linkCount != 1 {
            throw Audit.reject(.linkCount(status.linkCount), path: path, syscall: "statx", errno: .permissionDenied)
        }
    }
}
