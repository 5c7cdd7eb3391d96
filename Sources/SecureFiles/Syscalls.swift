// SPDX-License-Identifier: Apache-2.0
import CLinuxShims
import SystemPackage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

// MARK: - Thin wrappers: the only place in the project that calls file-system functions of libc.
//
// Each wrapper passes through `throughSeam`, so the audit trail sees it and tests can fail it.
// They return `Result<_, Errno>`; the public layer turns failures into `FileSystemError`.

/// `AT_FDCWD`.
let atCurrentDirectory: CInt = -100

enum Sys {
    /// openat(2).
    static func openat(_ dirfd: CInt, _ path: UnsafePointer<CChar>, _ flags: CInt, _ mode: mode_t) -> Result<CInt, Errno> {
        let creates = flags & O_CREAT != 0 || flags & LinuxFlags.tmpfile == LinuxFlags.tmpfile
        return throughSeam(
            "openat", descriptor: dirfd, path: path, flags: Int64(flags), mode: creates ? UInt32(mode) : nil,
            returnsDescriptor: true
        ) {
            Glibc.openat(dirfd, path, flags, mode)
        }
    }

    /// openat2(2) through the raw syscall.
    static func openat2(_ dirfd: CInt, _ path: UnsafePointer<CChar>, flags: UInt64, mode: UInt64, resolve: UInt64)
        -> Result<CInt, Errno>
    {
        throughSeam(
            "openat2", descriptor: dirfd, path: path, flags: Int64(bitPattern: flags),
            mode: mode == 0 ? nil : UInt32(truncatingIfNeeded: mode), resolve: resolve, returnsDescriptor: true
        ) {
            cls_openat2(dirfd, path, flags, mode, resolve)
        }
    }

    /// mkdirat(2).
    static func mkdirat(_ dirfd: CInt, _ path: UnsafePointer<CChar>, _ mode: mode_t) -> Result<CInt, Errno> {
        throughSeam("mkdirat", descriptor: dirfd, path: path, mode: UInt32(mode)) { Glibc.mkdirat(dirfd, path, mode) }
    }

    /// unlinkat(2).
    static func unlinkat(_ dirfd: CInt, _ path: UnsafePointer<CChar>, _ flags: CInt) -> Result<CInt, Errno> {
        throughSeam("unlinkat", descriptor: dirfd, path: path, flags: Int64(flags)) { Glibc.unlinkat(dirfd, path, flags) }
    }

    /// symlinkat(2): `target` is stored verbatim; the new link is `path` in `dirfd`.
    static func symlinkat(_ target: UnsafePointer<CChar>, _ dirfd: CInt, _ path: UnsafePointer<CChar>)
        -> Result<CInt, Errno>
    {
        throughSeam("symlinkat", descriptor: dirfd, path: path, secondPath: target) {
            Glibc.symlinkat(target, dirfd, path)
        }
    }

    /// linkat(2).
    static func linkat(
        _ olddirfd: CInt, _ oldpath: UnsafePointer<CChar>, _ newdirfd: CInt, _ newpath: UnsafePointer<CChar>,
        _ flags: CInt
    ) -> Result<CInt, Errno> {
        throughSeam(
            "linkat", descriptor: olddirfd, path: oldpath, flags: Int64(flags), secondDescriptor: newdirfd,
            secondPath: newpath
        ) {
            Glibc.linkat(olddirfd, oldpath, newdirfd, newpath, flags)
        }
    }

    /// faccessat(2) with `AT_EACCESS`: whether the effective user may access the entry `path` of
    /// `dirfd` as `mode` asks (`W_OK`…), by the kernel's own checks (ACLs, a read-only mount).
    static func faccessat(_ dirfd: CInt, _ path: UnsafePointer<CChar>, _ mode: CInt) -> Result<CInt, Errno> {
        throughSeam("faccessat", descriptor: dirfd, path: path, flags: Int64(mode)) {
            Glibc.faccessat(dirfd, path, mode, AT_EACCESS)
        }
    }

    /// renameat2(2) (`flags` 0 is plain renameat).
    static func renameat2(
        _ olddirfd: CInt, _ oldpath: UnsafePointer<CChar>, _ newdirfd: CInt, _ newpath: UnsafePointer<CChar>,
        _ flags: UInt32
    ) -> Result<CInt, Errno> {
        throughSeam(
            "renameat2", descriptor: olddirfd, path: oldpath, flags: Int64(flags), secondDescriptor: newdirfd,
            secondPath: newpath
        ) {
            cls_renameat2(olddirfd, oldpath, newdirfd, newpath, flags)
        }
    }

    /// fchmod(2): sets exactly these permission bits; not subject to the umask.
    static func fchmod(_ fd: CInt, _ mode: mode_t) -> Result<CInt, Errno> {
        throughSeam("fchmod", descriptor: fd, mode: UInt32(mode)) { Glibc.fchmod(fd, mode) }
    }

    /// fchown(2): sets the owner and group (`UInt32.max` for "unchanged").
    static func fchown(_ fd: CInt, _ owner: UInt32, _ group: UInt32) -> Result<CInt, Errno> {
        throughSeam("fchown", descriptor: fd) { Glibc.fchown(fd, owner, group) }
    }

    /// futimens(2): `times` is the access time then the modification time (`UTIME_OMIT` leaves one).
    static func futimens(_ fd: CInt, _ times: UnsafePointer<timespec>) -> Result<CInt, Errno> {
        throughSeam("futimens", descriptor: fd) { Glibc.futimens(fd, times) }
    }

    /// flock(2).
    static func flock(_ fd: CInt, _ operation: CInt) -> Result<CInt, Errno> {
        throughSeam("flock", descriptor: fd, flags: Int64(operation)) { cls_flock(fd, operation) }
    }

    /// fsync(2).
    static func fsync(_ fd: CInt) -> Result<CInt, Errno> {
        throughSeam("fsync", descriptor: fd) { Glibc.fsync(fd) }
    }

    /// sync_file_range(2) of the whole file with `flags` (recorded as the call's flags).
    static func syncFileRange(_ fd: CInt, flags: UInt32) -> Result<CInt, Errno> {
        throughSeam("sync_file_range", descriptor: fd, flags: Int64(flags)) { Glibc.sync_file_range(fd, 0, 0, flags) }
    }

    /// write(2).
    static func write(_ fd: CInt, _ buffer: UnsafeRawBufferPointer) -> Result<Int, Errno> {
        throughSeam("write", descriptor: fd) { Glibc.write(fd, buffer.baseAddress, buffer.count) }
    }

    /// The identity of the object behind `fd`, measured for the audit log *without* passing
    /// through the seam (so measuring is neither recorded nor failed by injection).
    static func unobservedIdentity(_ fd: CInt) -> ObjectIdentity? {
        guard fd >= 0 else { return nil }
        var raw = cls_statx()
        let mask = CLS_STATX_TYPE | CLS_STATX_MODE | CLS_STATX_NLINK | CLS_STATX_UID | CLS_STATX_INO
        guard cls_statx(fd, "", LinuxFlags.emptyPath, mask, &raw) == 0 else { return nil }
        return ObjectIdentity(
            device: DeviceNumber(major: raw.stx_dev_major, minor: raw.stx_dev_minor), inode: raw.stx_ino,
            mode: UInt32(raw.stx_mode), uid: raw.stx_uid, linkCount: raw.stx_nlink)
    }

    /// close(2). EINTR is not retried by Linux semantics: the descriptor is gone either way.
    static func close(_ fd: CInt) -> Result<CInt, Errno> {
        throughSeam("close", descriptor: fd) {
            let rc = Glibc.close(fd)
            return rc == -1 && currentErrno() == EINTR ? 0 : rc
        }
    }

    /// read(2).
    static func read(_ fd: CInt, _ buffer: UnsafeMutableRawBufferPointer) -> Result<Int, Errno> {
        throughSeam("read", descriptor: fd) { Glibc.read(fd, buffer.baseAddress, buffer.count) }
    }

    /// pread(2).
    static func pread(_ fd: CInt, _ buffer: UnsafeMutableRawBufferPointer, _ offset: Int) -> Result<Int, Errno> {
        throughSeam("pread", descriptor: fd) { Glibc.pread(fd, buffer.baseAddress, buffer.count, off_t(offset)) }
    }

    /// statx(2), full kernel layout.
    static func statx(_ dirfd: CInt, _ path: UnsafePointer<CChar>, _ flags: CInt, _ mask: UInt32, _ out: inout cls_statx)
        -> Result<CInt, Errno>
    {
        throughSeam("statx", descriptor: dirfd, path: path, flags: Int64(flags)) {
            cls_statx(dirfd, path, flags, mask, &out)
        }
    }

    /// name_to_handle_at(2).
    static func nameToHandle(
        _ dirfd: CInt, _ path: UnsafePointer<CChar>, _ handle: inout cls_file_handle, _ mountID: inout CInt, _ flags: CInt
    ) -> Result<CInt, Errno> {
        throughSeam("name_to_handle_at", descriptor: dirfd, path: path, flags: Int64(flags)) {
            cls_name_to_handle_at(dirfd, path, &handle, &mountID, flags)
        }
    }

    /// open_by_handle_at(2).
    static func openByHandle(_ mountFD: CInt, _ handle: inout cls_file_handle, _ flags: CInt) -> Result<CInt, Errno> {
        throughSeam("open_by_handle_at", descriptor: mountFD, flags: Int64(flags), returnsDescriptor: true) {
            cls_open_by_handle_at(mountFD, &handle, flags)
        }
    }

    /// fstatfs(2).
    static func fstatfs(_ fd: CInt, _ out: inout cls_statfs) -> Result<CInt, Errno> {
        throughSeam("fstatfs", descriptor: fd) { cls_fstatfs(fd, &out) }
    }

    /// readlinkat(2) into a caller buffer.
    static func readlinkat(_ dirfd: CInt, _ path: UnsafePointer<CChar>, _ buffer: UnsafeMutableBufferPointer<CChar>)
        -> Result<Int, Errno>
    {
        guard let base = buffer.baseAddress else { return .failure(.invalidArgument) }
        return throughSeam("readlinkat", descriptor: dirfd, path: path) {
            Glibc.readlinkat(dirfd, path, base, buffer.count)
        }
    }

    // MARK: change notification (inotify, poll) and fork detection (mmap, madvise)

    /// inotify_init1(2).
    static func inotifyInit1(_ flags: CInt) -> Result<CInt, Errno> {
        throughSeam("inotify_init1", flags: Int64(flags), returnsDescriptor: true) { Glibc.inotify_init1(flags) }
    }

    /// inotify_add_watch(2): `mask` is recorded as the call's flags (`IN_*`).
    static func inotifyAddWatch(_ fd: CInt, _ path: UnsafePointer<CChar>, _ mask: UInt32) -> Result<CInt, Errno> {
        throughSeam("inotify_add_watch", descriptor: fd, path: path, flags: Int64(mask)) {
            Glibc.inotify_add_watch(fd, path, mask)
        }
    }

    /// inotify_rm_watch(2).
    static func inotifyRmWatch(_ fd: CInt, _ watch: CInt) -> Result<CInt, Errno> {
        throughSeam("inotify_rm_watch", descriptor: fd) { Glibc.inotify_rm_watch(fd, watch) }
    }

    /// poll(2) waiting up to `milliseconds`. The first descriptor is the one recorded.
    static func poll(_ fds: UnsafeMutableBufferPointer<pollfd>, milliseconds: CInt) -> Result<CInt, Errno> {
        throughSeam("poll", descriptor: fds.first?.fd) { Glibc.poll(fds.baseAddress, nfds_t(fds.count), milliseconds) }
    }

    /// epoll_create1(2) with `EPOLL_CLOEXEC`.
    static func epollCreate() -> Result<CInt, Errno> {
        throughSeam("epoll_create1", returnsDescriptor: true) { cls_epoll_create_cloexec() }
    }

    /// epoll_ctl(2) with `EPOLL_CTL_ADD`: `fd` joins the set `epfd` for `events`, reported with `tag`.
    static func epollAdd(_ epfd: CInt, _ fd: CInt, events: UInt32, tag: UInt64) -> Result<CInt, Errno> {
        throughSeam("epoll_ctl", descriptor: epfd, secondDescriptor: fd) { cls_epoll_add(epfd, fd, events, tag) }
    }

    /// epoll_wait(2) with a zero timeout: never blocks. At most `tags.count` (8 at most) events:
    /// each ready descriptor's tag and events.
    static func epollWaitNow(
        _ epfd: CInt, tags: UnsafeMutableBufferPointer<UInt64>, events: UnsafeMutableBufferPointer<UInt32>
    ) -> Result<CInt, Errno> {
        throughSeam("epoll_wait", descriptor: epfd) {
            cls_epoll_wait_now(epfd, tags.baseAddress, events.baseAddress, CInt(min(tags.count, events.count)))
        }
    }

    /// mmap(2) of `length` bytes of anonymous private memory; `nil` when it fails (the seam records
    /// the outcome).
    static func mapAnonymous(_ length: Int) -> UnsafeMutableRawPointer? {
        var mapped: UnsafeMutableRawPointer?
        let result = throughSeam("mmap") { () -> Int in
            let pointer = Glibc.mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
            guard let pointer, pointer != MAP_FAILED else { return -1 }
            mapped = pointer
            return 0
        }
        guard case .success = result else { return nil }
        return mapped
    }

    /// madvise(2).
    static func madvise(_ address: UnsafeMutableRawPointer, _ length: Int, _ advice: CInt) -> Result<CInt, Errno> {
        throughSeam("madvise", flags: Int64(advice)) { Glibc.madvise(address, length, advice) }
    }

    // MARK: ioctls (each named by its request, so faults can target one)

    static func getFSUUID(_ fd: CInt, _ uuid: UnsafeMutablePointer<UInt8>, _ length: inout UInt8) -> Result<CInt, Errno> {
        throughSeam("ioctl(FS_IOC_GETFSUUID)", descriptor: fd) { cls_ioctl_getfsuuid(fd, uuid, &length) }
    }

    static func ext4GetFSUUID(_ fd: CInt, _ uuid: UnsafeMutablePointer<UInt8>) -> Result<CInt, Errno> {
        throughSeam("ioctl(EXT4_IOC_GETFSUUID)", descriptor: fd) { cls_ioctl_ext4_getfsuuid(fd, uuid) }
    }

    static func btrfsFSID(_ fd: CInt, _ fsid: UnsafeMutablePointer<UInt8>) -> Result<CInt, Errno> {
        throughSeam("ioctl(BTRFS_IOC_FS_INFO)", descriptor: fd) { cls_ioctl_btrfs_fsid(fd, fsid) }
    }

    static func getFSLabel(_ fd: CInt, _ label: UnsafeMutablePointer<CChar>) -> Result<CInt, Errno> {
        throughSeam("ioctl(FS_IOC_GETFSLABEL)", descriptor: fd) { cls_ioctl_getfslabel(fd, label) }
    }

    static func clone(_ destination: CInt, from source: CInt) -> Result<CInt, Errno> {
        throughSeam("ioctl(FICLONE)", descriptor: destination, secondDescriptor: source) { cls_ioctl_ficlone(destination, source) }
    }

    static func getVersion(_ fd: CInt, _ generation: inout UInt32) -> Result<CInt, Errno> {
        throughSeam("ioctl(FS_IOC_GETVERSION)", descriptor: fd) { cls_ioctl_getversion(fd, &generation) }
    }

    static func getFlags(_ fd: CInt, _ flags: inout UInt32) -> Result<CInt, Errno> {
        throughSeam("ioctl(FS_IOC_GETFLAGS)", descriptor: fd) { cls_ioctl_getflags(fd, &flags) }
    }

    // MARK: extended attributes

    static func fgetxattr(_ fd: CInt, _ name: UnsafePointer<CChar>, _ buffer: UnsafeMutableRawBufferPointer)
        -> Result<Int, Errno>
    {
        throughSeam("fgetxattr", descriptor: fd, path: name) {
            cls_fgetxattr(fd, name, buffer.baseAddress, buffer.count)
        }
    }

    static func fsetxattr(_ fd: CInt, _ name: UnsafePointer<CChar>, _ value: UnsafeRawBufferPointer, _ flags: CInt)
        -> Result<CInt, Errno>
    {
        throughSeam("fsetxattr", descriptor: fd, path: name, flags: Int64(flags)) {
            cls_fsetxattr(fd, name, value.baseAddress, value.count, flags)
        }
    }

    static func flistxattr(_ fd: CInt, _ buffer: UnsafeMutableBufferPointer<CChar>) -> Result<Int, Errno> {
        throughSeam("flistxattr", descriptor: fd) { cls_flistxattr(fd, buffer.baseAddress, buffer.count) }
    }

    static func fremovexattr(_ fd: CInt, _ name: UnsafePointer<CChar>) -> Result<CInt, Errno> {
        throughSeam("fremovexattr", descriptor: fd, path: name) { cls_fremovexattr(fd, name) }
    }
}

// MARK: - Flag values Swift cannot see directly

enum LinuxFlags {
    static let path = cls_o_path()
    static let tmpfile = cls_o_tmpfile()
    static let emptyPath = cls_at_empty_path()
    static let noFollow = O_NOFOLLOW
    static let symlinkNoFollow = AT_SYMLINK_NOFOLLOW
}
