// SPDX-License-Identifier: Apache-2.0
/*
 * CLinuxShims: the few Linux interfaces Swift's Glibc module does not import.
 *
 * Why this file exists: `openat2` has no glibc wrapper (2.36) and `syscall()` is variadic;
 * <sys/xattr.h> and <sys/vfs.h> are not in the Glibc module map; `_IOR` request numbers are
 * function-like macros that never import; Debian 12's kernel headers predate FS_IOC_GETFSUUID,
 * STATX_MNT_ID_UNIQUE and STATX_SUBVOL; and `struct file_handle` imports without its flexible
 * array. Every function here is a thin wrapper with no policy: it returns what the kernel returns
 * (-1 and errno on failure). Only the SecureFiles target calls these.
 */
#ifndef CLINUXSHIMS_H
#define CLINUXSHIMS_H

#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>

/* ---- statx, with the kernel's full 256-byte layout (subvol, unique mount id) ---- */

struct cls_statx_timestamp {
    int64_t tv_sec;
    uint32_t tv_nsec;
    int32_t reserved;
};

struct cls_statx {
    uint32_t stx_mask;
    uint32_t stx_blksize;
    uint64_t stx_attributes;
    uint32_t stx_nlink;
    uint32_t stx_uid;
    uint32_t stx_gid;
    uint16_t stx_mode;
    uint16_t spare0;
    uint64_t stx_ino;
    uint64_t stx_size;
    uint64_t stx_blocks;
    uint64_t stx_attributes_mask;
    struct cls_statx_timestamp stx_atime;
    struct cls_statx_timestamp stx_btime;
    struct cls_statx_timestamp stx_ctime;
    struct cls_statx_timestamp stx_mtime;
    uint32_t stx_rdev_major;
    uint32_t stx_rdev_minor;
    uint32_t stx_dev_major;
    uint32_t stx_dev_minor;
    uint64_t stx_mnt_id;
    uint32_t stx_dio_mem_align;
    uint32_t stx_dio_offset_align;
    uint64_t stx_subvol;
    uint64_t spare3[11];
};

#define CLS_STATX_TYPE 0x0001U
#define CLS_STATX_MODE 0x0002U
#define CLS_STATX_NLINK 0x0004U
#define CLS_STATX_UID 0x0008U
#define CLS_STATX_GID 0x0010U
#define CLS_STATX_ATIME 0x0020U
#define CLS_STATX_MTIME 0x0040U
#define CLS_STATX_CTIME 0x0080U
#define CLS_STATX_INO 0x0100U
#define CLS_STATX_SIZE 0x0200U
#define CLS_STATX_BLOCKS 0x0400U
#define CLS_STATX_BASIC_STATS 0x07ffU
#define CLS_STATX_BTIME 0x0800U
#define CLS_STATX_MNT_ID 0x1000U
#define CLS_STATX_MNT_ID_UNIQUE 0x4000U
#define CLS_STATX_SUBVOL 0x8000U

/** statx(2) through the raw syscall, filling the full kernel layout. */
int cls_statx(int dirfd, const char *path, int flags, unsigned int mask, struct cls_statx *out);

/* ---- openat2 ---- */

#define CLS_RESOLVE_NO_XDEV 0x01ULL
#define CLS_RESOLVE_NO_MAGICLINKS 0x02ULL
#define CLS_RESOLVE_NO_SYMLINKS 0x04ULL
#define CLS_RESOLVE_BENEATH 0x08ULL
#define CLS_RESOLVE_IN_ROOT 0x10ULL
#define CLS_RESOLVE_CACHED 0x20ULL

/** openat2(2) through the raw syscall (glibc 2.36 has no wrapper). */
int cls_openat2(int dirfd, const char *path, uint64_t flags, uint64_t mode, uint64_t resolve);

/* ---- file handles ---- */

#define CLS_HANDLE_MAX 128
/** A `struct file_handle` with a fixed 128-byte payload (MAX_HANDLE_SZ). */
struct cls_file_handle {
    uint32_t handle_bytes;
    int32_t handle_type;
    unsigned char f_handle[CLS_HANDLE_MAX];
};
#define CLS_AT_HANDLE_FID 0x200

/** name_to_handle_at(2) into a fixed-size buffer. */
int cls_name_to_handle_at(int dirfd, const char *path, struct cls_file_handle *handle, int *mount_id, int flags);
/** open_by_handle_at(2) from a fixed-size buffer. */
int cls_open_by_handle_at(int mount_fd, const struct cls_file_handle *handle, int flags);

/* ---- fstatfs ---- */

struct cls_statfs {
    int64_t f_type;
    int64_t f_bsize;
    uint64_t f_blocks;
    uint64_t f_bfree;
    uint64_t f_bavail;
    uint64_t f_files;
    uint64_t f_ffree;
    int32_t f_fsid[2];
    int64_t f_namelen;
    int64_t f_frsize;
    int64_t f_flags;
};
/** fstatfs(2). */
int cls_fstatfs(int fd, struct cls_statfs *out);

/* ---- extended attributes (fd-based only) ---- */

ssize_t cls_fgetxattr(int fd, const char *name, void *value, size_t size);
int cls_fsetxattr(int fd, const char *name, const void *value, size_t size, int flags);
ssize_t cls_flistxattr(int fd, char *list, size_t size);
int cls_fremovexattr(int fd, const char *name);
#define CLS_XATTR_CREATE 1
#define CLS_XATTR_REPLACE 2

/* ---- ioctls ---- */

/** FS_IOC_GETFSUUID (Linux 6.9): the superblock UUID captured at mount. `*len` gets its length. */
int cls_ioctl_getfsuuid(int fd, uint8_t uuid[16], uint8_t *len);
/** EXT4_IOC_GETFSUUID (Linux 6.0): the current on-disk ext4 UUID. */
int cls_ioctl_ext4_getfsuuid(int fd, uint8_t uuid[16]);
/** BTRFS_IOC_FS_INFO: the btrfs fsid (byte 16 of the 1024-byte argument). */
int cls_ioctl_btrfs_fsid(int fd, uint8_t fsid[16]);
/** FS_IOC_GETFSLABEL (Linux 4.18): the label, NUL-terminated, at most 256 bytes. */
int cls_ioctl_getfslabel(int fd, char label[256]);
/** FICLONE: makes dest_fd share src_fd's extents (a reflink; XFS, btrfs). */
int cls_ioctl_ficlone(int dest_fd, int src_fd);
/** FS_IOC_GETVERSION: the inode generation. */
int cls_ioctl_getversion(int fd, uint32_t *generation);
/** FS_IOC_GETFLAGS: the inode flags (FS_CASEFOLD_FL, FS_IMMUTABLE_FL, ...). */
int cls_ioctl_getflags(int fd, uint32_t *flags);

/* ---- constants Swift does not see ---- */

#define CLS_FS_CASEFOLD_FL 0x40000000U
#define CLS_FS_IMMUTABLE_FL 0x00000010U
#define CLS_TMPFS_MAGIC 0x01021994
#define CLS_EXT4_SUPER_MAGIC 0xEF53
#define CLS_BTRFS_SUPER_MAGIC 0x9123683E
#define CLS_XFS_SUPER_MAGIC 0x58465342

int cls_o_path(void);
int cls_o_tmpfile(void);
int cls_at_empty_path(void);

/** renameat2(2) (flags RENAME_NOREPLACE 1, RENAME_EXCHANGE 2). */
int cls_renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, unsigned int flags);

/** flock(2): Swift cannot call it by name (the `struct flock` of fcntl.h shadows the function). */
int cls_flock(int fd, int operation);

/**
 * Forks a child that asks a volume to answer: statfs(mount_point) (FUSE and NFS always send it to
 * the daemon or server) and, when path is not NULL, statx(path) without following or automounting.
 * When both return, it writes one byte to a pipe and exits. Returns the child's pid and the pipe's
 * read end in *read_fd, or -1 with errno set.
 *
 * Why a process and not a thread: a thread stuck in a FUSE request cannot be killed, and a process
 * cannot finish exiting while one of its threads is stuck, so its parent's wait() would hang. A
 * stuck child is left to init instead. The child makes raw system calls only.
 */
pid_t cls_spawn_response_probe(const char *mount_point, const char *path, int *read_fd);

/**
 * statmount(2) (Linux 6.8) with STATMOUNT_MNT_BASIC: the reusable mount id (mountinfo's first field)
 * of the mount with this unique id. A query of the mount namespace: it touches no file system, so a
 * FUSE or network mount that does not answer cannot block it. Returns 0, or -1 with errno (ENOENT:
 * no such mount; ENOSYS: an older kernel).
 */
int cls_statmount_old_id(uint64_t unique_id, uint32_t *old_id);

/* ---- epoll: <sys/epoll.h> is not in the Glibc module map, and x86-64's epoll_event is packed ---- */

/** epoll_create1(2) with EPOLL_CLOEXEC. */
int cls_epoll_create_cloexec(void);

/** epoll_ctl(2) with EPOLL_CTL_ADD: fd joins epfd for events (EPOLLIN 0x1, EPOLLPRI 0x2), its data.u64 tag. */
int cls_epoll_add(int epfd, int fd, uint32_t events, uint64_t tag);

/**
 * epoll_wait(2) with a zero timeout, for at most max (1 to 8) events: the i-th ready descriptor's
 * tag in tags[i] and its events in events[i]. Returns how many, or -1 with errno.
 */
int cls_epoll_wait_now(int epfd, uint64_t *tags, uint32_t *events, int max);

#endif
