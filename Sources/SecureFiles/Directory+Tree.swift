// SPDX-License-Identifier: Apache-2.0
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

// MARK: - mkdir -p and rm -r that cannot be redirected outside the root

extension Directory {
    /// `mkdir -p` for ``createDirectory(_:permissions:withIntermediateDirectories:)``.
    func createDirectoryAndParents(_ bytes: [UInt8], permissions: UInt32) throws(FileSystemError) -> Directory {
        if bytes.isEmpty || bytes.contains(0) {
            throw Audit.reject(.invalidName(bytes), path: bytes, syscall: "mkdirat", errno: .invalidArgument)
        }
        let absolute = bytes.first == UInt8(ascii: "/")
        let components = PathComponents.split(bytes).components
        var existing = components.count
        var base: OwnedDescriptor
        while true {
            var prefix = (absolute ? [UInt8(ascii: "/")] : []) + joined(components[0..<existing])
            if prefix.isEmpty { prefix = [UInt8(ascii: ".")] }
            do throws(FileSystemError) {
                base = try resolve(prefix, flags: LinuxFlags.path | O_DIRECTORY, policy: policy)
                break
            } catch {
                guard error.errno == .noSuchFileOrDirectory, existing > 0 else { throw error }
                existing -= 1
            }
        }
        var current = Directory(
            descriptor: base, policy: policy, auditLog: auditLog, backend: backend, caseFolding: caseFolding,
            kernelResolverFailed: kernelResolverFailed.failed)
        if components[existing...].contains([0x2E, 0x2E]) {
            // `..` in the part that does not exist yet: refused before anything is created.
            throw FileSystemError(syscall: "mkdirat", errno: .noSuchFileOrDirectory, path: FilePath(bytes: bytes))
        }
        for name in components[existing...] {
            if name == [0x2E] { continue }
            try refuseCaseCollision(name, in: current.descriptor, path: bytes)
            current = try current.makeDirectory(
                name, in: current.descriptor, permissions: permissions, path: bytes, tolerateExisting: true)
        }
        return current
    }

    /// Removes `path` and, if it is a directory, everything below it (`rm -r`). A missing path
    /// is not an error. Symlinks are removed, never followed.
    ///
    /// Every removal is `unlinkat` relative to the descriptor of the directory that holds the
    /// entry; directories are entered with `O_NOFOLLOW|O_DIRECTORY` and checked to be the entry
    /// that was examined (device and inode), so swapping a directory for a symlink mid-walk
    /// cannot make it delete anything outside the root.
    ///
    /// - Throws: ``FileSystemError``; ``SecurityViolation/invalidName(_:)`` for `.`, `..`, `x/.`,
    ///   a trailing `/` or the root itself.
    public func removeAll(_ path: FilePath) throws(FileSystemError) {
        try removeAll(bytes: PathBytes(path).bytes)
    }

    /// ``removeAll(_:)`` for a path given as raw bytes (keeps a trailing `/`, which is refused).
    public func removeAll(bytes: [UInt8]) throws(FileSystemError) {
        try scoped { () throws(FileSystemError) in
            Audit.intent("Directory.removeAll", bytes)
            let parent: OwnedDescriptor
            let name: [UInt8]
            do throws(FileSystemError) {
                (parent, name) = try splitForCreation(bytes)
            } catch {
                if error.errno == .noSuchFileOrDirectory { return }
                throw error
            }
            try removeEntry(name, in: try parent.raw("unlinkat"), path: bytes)
        }
    }

    /// Removes one file, symlink or empty directory at `path`.
    public func remove(_ path: FilePath) throws(FileSystemError) {
        try scoped { () throws(FileSystemError) in
            let bytes = PathBytes(path).bytes
            Audit.intent("Directory.remove", bytes)
            let (parent, name) = try splitForCreation(bytes)
            let dirfd = try parent.raw("unlinkat")
            switch withCName(name, { Sys.unlinkat(dirfd, $0, 0) }) {
            case .success: return
            case .failure(.isDirectory):
                if case .failure(let errno) = withCName(name, { Sys.unlinkat(dirfd, $0, AT_REMOVEDIR) }) {
                    throw FileSystemError(syscall: "unlinkat", errno: errno, path: path)
                }
            case .failure(let errno): throw FileSystemError(syscall: "unlinkat", errno: errno, path: path)
            }
        }
    }

    private func removeEntry(_ name: [UInt8], in dirfd: CInt, path: [UInt8]) throws(FileSystemError) {
        let display = FilePath(bytes: path)
        for _ in 0..<16 {
            let entry: FileStatus
            do throws(FileSystemError) {
                entry = try FileStatus.statx(
                    dirfd: dirfd, path: FilePath(bytes: name), flags: AT_SYMLINK_NOFOLLOW, errorPath: display)
            } catch {
                if error.errno == .noSuchFileOrDirectory { return }
                throw error
            }
            if entry.kind != .directory {
                switch withCName(name, { Sys.unlinkat(dirfd, $0, 0) }) {
                case .success, .failure(.noSuchFileOrDirectory): return
                case .failure(.isDirectory): continue  // became a directory: look again
                case .failure(let errno): throw FileSystemError(syscall: "unlinkat", errno: errno, path: display)
                }
            }
            let child: OwnedDescriptor
            switch withCName(name, { Sys.openat(dirfd, $0, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, 0) }) {
            case .success(let fd): child = OwnedDescriptor(adopting: fd, openedPath: display)
            case .failure(.noSuchFileOrDirectory): return
            case .failure(.tooManySymbolicLinkLevels), .failure(.notDirectory): continue  // swapped: look again
            case .failure(let errno): throw FileSystemError(syscall: "openat", errno: errno, path: display)
            }
            let opened = try child.status()
            guard opened.device == entry.device, opened.inode == entry.inode else {
                Audit.policy(.rejected(.identityChanged, path: path))
                continue
            }
            let childfd = try child.raw("getdents64")
            let items: [DirectoryEntry]
            do throws(FileSystemError) {
                items = try child.directoryEntries()
            } catch {
                // getdents64 on a directory another remover already deleted says ENOENT: it is gone.
                if error.errno == .noSuchFileOrDirectory { return }
                throw error
            }
            for item in items {
                // An entry the directory listing says is not a directory is unlinked at once: unlinkat
                // with flags 0 never follows a link and never removes a directory (EISDIR, if it was
                // swapped for one meanwhile, takes the careful path). That saves a statx per file.
                if item.kind != .directory && item.kind != .unknown {
                    switch withCName(item.name, { Sys.unlinkat(childfd, $0, 0) }) {
                    case .success, .failure(.noSuchFileOrDirectory): continue
                    default: break
                    }
                }
                try removeEntry(item.name, in: childfd, path: path + [UInt8(ascii: "/")] + item.name)
            }
            switch withCName(name, { Sys.unlinkat(dirfd, $0, AT_REMOVEDIR) }) {
            case .success, .failure(.noSuchFileOrDirectory): return
            case .failure(.directoryNotEmpty), .failure(.notDirectory): continue  // raced: again
            case .failure(let errno): throw FileSystemError(syscall: "unlinkat", errno: errno, path: display)
            }
        }
        throw Audit.reject(.identityChanged, path: path, syscall: "unlinkat", errno: .resourceTemporarilyUnavailable)
    }
}

func joined(_ components: ArraySlice<[UInt8]>) -> [UInt8] {
    var out: [UInt8] = []
    for (index, component) in components.enumerated() {
        if index > 0 { out.append(UInt8(ascii: "/")) }
        out += component
    }
    return out
}
