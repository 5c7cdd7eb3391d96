// SPDX-License-Identifier: Apache-2.0
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

// MARK: - Detecting case-folding directories, refusing collisions, on-disk spelling

/// How a directory's case folding was determined.
package enum CaseFoldingMethod: String, Sendable, Hashable {
    /// The directory's `FS_CASEFOLD_FL` inode flag (ext4, f2fs, tmpfs).
    case casefoldFlag
    /// The inode flags were readable and the file system folds only flagged directories.
    case flagsWithoutCasefold
    /// An `O_EXCL` probe: a name was created, then its upper-case spelling with `O_EXCL`.
    case exclusiveProbe
    /// Nothing could be determined (read-only or unwritable directory): assumed to fold.
    case assumed
}

/// Per-directory results, keyed by the directory's identity (device and inode), shared by a root
/// and the directories derived from it.
final class CaseFoldingCache: Sendable {
    struct Key: Hashable {
        var device: DeviceNumber
        var inode: UInt64
    }
    private let entries = Locked<[Key: Bool]>([:])

    func value(_ key: Key) -> Bool? { entries.withLock { $0[key] } }
    func store(_ key: Key, _ folds: Bool) { entries.withLock { $0[key] = folds } }
}

extension Directory {
    /// Whether the directory at `path` (default: this root) folds case, so that `Readme` and
    /// `README` name the same entry.
    ///
    /// Implementation details: `ioctl(FS_IOC_GETFLAGS)` on the directory (`FS_CASEFOLD_FL`); where
    /// the file system has no such flag (FUSE, exFAT, vfat, SMB: `ENOTTY`), an `O_EXCL` probe that
    /// creates `.casefold-probe-<random>` and then its upper-case spelling, and removes them.
    /// Inode numbers are not compared (exfat-fuse reports different inodes for one file). The result
    /// is cached per directory identity.
    public func foldsCase(_ path: FilePath = ".") throws(FileSystemError) -> Bool {
        try scoped { () throws(FileSystemError) -> Bool in
            let bytes = PathBytes(path).bytes
            Audit.intent("Directory.foldsCase", bytes)
            let fd = try resolve(bytes, flags: LinuxFlags.path | O_DIRECTORY, policy: policy)
            return try folds(fd)
        }
    }

    /// The on-disk spelling of the entry `path` names: the exact bytes when they exist, else, in a
    /// case-folding directory, the existing name that folds to the same key; `nil` when there is
    /// no such entry.
    public func onDiskName(_ path: FilePath) throws(FileSystemError) -> [UInt8]? {
        try scoped { () throws(FileSystemError) -> [UInt8]? in
            let bytes = PathBytes(path).bytes
            Audit.intent("Directory.onDiskName", bytes)
            let (parent, name) = try splitForCreation(bytes)
            let entries = try listing(parent, path: bytes)
            if entries.contains(where: { $0.name == name }) { return name }
            guard try folds(parent) else { return nil }
            let wanted = NameFolding.key(name)
            return entries.first { NameFolding.key($0.name) == wanted }?.name
        }
    }

    /// Refuses `name` in `parent` when the directory folds case and an entry with a different
    /// spelling folds to the same key.
    func refuseCaseCollision(_ name: [UInt8], in parent: OwnedDescriptor, path: [UInt8]) throws(FileSystemError) {
        guard try folds(parent) else { return }
        let wanted = NameFolding.key(name)
        for entry in try listing(parent, path: path) where entry.name != name && NameFolding.key(entry.name) == wanted {
            throw Audit.reject(
                .caseCollision(existing: entry.name, requested: name), path: path, syscall: "getdents64", errno: .fileExists)
        }
    }

    private func listing(_ parent: OwnedDescriptor, path: [UInt8]) throws(FileSystemError) -> [DirectoryEntry] {
        let readable = try openAt(parent, [UInt8(ascii: ".")], flags: O_RDONLY | O_DIRECTORY, mode: 0, path: path)
        return try readable.directoryEntries()
    }

    func folds(_ directory: OwnedDescriptor) throws(FileSystemError) -> Bool {
        let status = try directory.status()
        let key = CaseFoldingCache.Key(device: status.device, inode: status.inode)
        if let cached = caseFolding.value(key) { return cached }
        let (folds, method) = try detectFolding(directory)
        caseFolding.store(key, folds)
        Audit.policy(.caseFoldingDetected(folds: folds, method: method.rawValue))
        return folds
    }

    private func detectFolding(_ directory: OwnedDescriptor) throws(FileSystemError) -> (Bool, CaseFoldingMethod) {
        let readable = try openAt(directory, [UInt8(ascii: ".")], flags: O_RDONLY | O_DIRECTORY, mode: 0, path: [])
        do throws(FileSystemError) {
            let flags = try readable.inodeFlags()
            if flags & CLS_CASEFOLD_FLAG != 0 { return (true, .casefoldFlag) }
            let fs = try readable.fileSystemStatistics()
            if fs.isExt4 || fs.isTmpfs || fs.isBtrfs || fs.isXFS || fs.type == 0xF2F5_2010 {
                return (false, .flagsWithoutCasefold)
            }
        } catch {
            // No inode flags here (FUSE, exFAT, vfat): probe.
        }
        return try probeFolding(directory)
    }

    private func probeFolding(_ directory: OwnedDescriptor) throws(FileSystemError) -> (Bool, CaseFoldingMethod) {
        var generator = SystemRandomNumberGenerator()
        let token = String(generator.next() as UInt64, radix: 16)
        let lower = Array(".casefold-probe-x\(token)".utf8)
        let upper = lower.map { $0 >= 0x61 && $0 <= 0x7A ? $0 - 0x20 : $0 }
        let dirfd = try directory.raw("openat")
        let flags = O_CREAT | O_EXCL | O_NOFOLLOW | O_WRONLY | O_CLOEXEC
        guard case .success(let first) = withCName(lower, { Sys.openat(dirfd, $0, flags, 0o600) }) else {
            return (true, .assumed)
        }
        _ = Sys.close(first)
        defer { _ = withCName(lower) { Sys.unlinkat(dirfd, $0, 0) } }
        switch withCName(upper, { Sys.openat(dirfd, $0, flags, 0o600) }) {
        case .success(let second):
            _ = Sys.close(second)
            _ = withCName(upper) { Sys.unlinkat(dirfd, $0, 0) }
            return (false, .exclusiveProbe)
        case .failure(.fileExists):
            return (true, .exclusiveProbe)
        case .failure:
            return (true, .assumed)
        }
    }
}

let CLS_CASEFOLD_FLAG: UInt32 = 0x4000_0000
