// SPDX-License-Identifier: Apache-2.0
/* Thin wrappers; see include/CLinuxShims.h for why each exists. No policy here. */
#ifndef _GNU_SOURCE
#error "CLinuxShims must be built with _GNU_SOURCE (Package.swift cSettings)"
#endif
#include "CLinuxShims.h"

#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#ifndef SYS_close_range
#define SYS_close_range 436
#endif

_Static_assert(sizeof(struct cls_statx) == 256, "struct statx is 256 bytes in the kernel ABI");

int cls_statx(int dirfd, const char *path, int flags, unsigned int mask, struct cls_statx *out) {
    memset(out, 0, sizeof *out);
    return (int)syscall(SYS_statx, dirfd, path, flags, mask, out);
}

#ifndef SYS_openat2
#define SYS_openat2 437
#endif
struct cls_open_how {
    uint64_t flags;
    uint64_t mode;
    uint64_t resolve;
};

int cls_openat2(int dirfd, const char *path, uint64_t flags, uint64_t mode, uint64_t resolve) {
    struct cls_open_how how = {.flags = flags, .mode = mode, .resolve = resolve};
    return (int)syscall(SYS_openat2, dirfd, path, &how, sizeof how);
}

int cls_name_to_handle_at(int dirfd, const char *path, struct cls_file_handle *handle, int *mount_id, int flags) {
    handle->handle_bytes = CLS_HANDLE_MAX;
    return name_to_handle_at(dirfd, path, (struct file_handle *)handle, mount_id, flags);
}

int cls_open_by_handle_at(int mount_fd, const struct cls_file_handle *handle, int flags) {
    return open_by_handle_at(mount_fd, (struct file_handle *)handle, flags);
}

int cls_fstatfs(int fd, struct cls_statfs *out) {
    struct statfs s;
    int rc = fstatfs(fd, &s);
    if (rc != 0) return rc;
    out->f_type = (int64_t)s.f_type;
    out->f_bsize = (int64_t)s.f_bsize;
    out->f_blocks = s.f_blocks;
    out->f_bfree = s.f_bfree;
    out->f_bavail = s.f_bavail;
    out->f_files = s.f_files;
    out->f_ffree = s.f_ffree;
    memcpy(out->f_fsid, &s.f_fsid, sizeof out->f_fsid);
    out->f_namelen = (int64_t)s.f_namelen;
    out->f_frsize = (int64_t)s.f_frsize;
    out->f_flags = (int64_t)s.f_flags;
    return 0;
}

ssize_t cls_fgetxattr(int fd, const char *name, void *value, size_t size) { return fgetxattr(fd, name, value, size); }
int cls_fsetxattr(int fd, const char *name, const void *value, size_t size, int flags) {
    return fsetxattr(fd, name, value, size, flags);
}
ssize_t cls_flistxattr(int fd, char *list, size_t size) { return flistxattr(fd, list, size); }
int cls_fremovexattr(int fd, const char *name) { return fremovexattr(fd, name); }

/* Request numbers defined locally: Debian 12's headers predate some of them. */
struct cls_fsuuid2 {
    uint8_t len;
    uint8_t uuid[16];
};
#define CLS_FS_IOC_GETFSUUID _IOR(0x15, 0, struct cls_fsuuid2)

struct cls_ext4_fsuuid {
    uint32_t fsu_len;
    uint32_t fsu_flags;
    uint8_t fsu_uuid[16];
};
/* The kernel declares the argument as `struct fsuuid` with a flexible array: size 8. */
#define CLS_EXT4_IOC_GETFSUUID _IOR('f', 44, struct { uint32_t a; uint32_t b; })

#define CLS_BTRFS_IOC_FS_INFO _IOR(0x94, 31, struct { uint8_t raw[1024]; })
#ifndef FS_IOC_GETFSLABEL
#define FS_IOC_GETFSLABEL _IOR(0x94, 49, char[256])
#endif

int cls_ioctl_getfsuuid(int fd, uint8_t uuid[16], uint8_t *len) {
    struct cls_fsuuid2 arg;
    memset(&arg, 0, sizeof arg);
    int rc = ioctl(fd, CLS_FS_IOC_GETFSUUID, &arg);
    if (rc != 0) return rc;
    *len = arg.len > 16 ? 16 : arg.len;
    memcpy(uuid, arg.uuid, 16);
    return 0;
}

int cls_ioctl_ext4_getfsuuid(int fd, uint8_t uuid[16]) {
    struct cls_ext4_fsuuid arg;
    memset(&arg, 0, sizeof arg);
    arg.fsu_len = 16;
    int rc = ioctl(fd, CLS_EXT4_IOC_GETFSUUID, &arg);
    if (rc != 0) return rc;
    if (arg.fsu_len != 16) {
        errno = EINVAL;
        return -1;
    }
    memcpy(uuid, arg.fsu_uuid, 16);
    return 0;
}

int cls_ioctl_btrfs_fsid(int fd, uint8_t fsid[16]) {
    uint8_t raw[1024];
    memset(raw, 0, sizeof raw);
    int rc = ioctl(fd, CLS_BTRFS_IOC_FS_INFO, raw);
    if (rc != 0) return rc;
    memcpy(fsid, raw + 16, 16);
    return 0;
}

int cls_ioctl_getfslabel(int fd, char label[256]) {
    memset(label, 0, 256);
    int rc = ioctl(fd, FS_IOC_GETFSLABEL, label);
    label[255] = 0;
    return rc;
}

int cls_ioctl_getversion(int fd, uint32_t *generation) {
    int value = 0; /* the kernel writes an int although the request says long */
    int rc = ioctl(fd, FS_IOC_GETVERSION, &value);
    if (rc == 0) *generation = (uint32_t)value;
    return rc;
}

int cls_ioctl_getflags(int fd, uint32_t *flags) {
    int value = 0; /* likewise an int in practice */
    int rc = ioctl(fd, FS_IOC_GETFLAGS, &value);
    if (rc == 0) *flags = (uint32_t)value;
    return rc;
}

int cls_o_path(void) { return O_PATH; }
int cls_o_tmpfile(void) { return O_TMPFILE; }
int cls_at_empty_path(void) { return AT_EMPTY_PATH; }

int cls_renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, unsigned int flags) {
    return (int)syscall(SYS_renameat2, olddirfd, oldpath, newdirfd, newpath, flags);
}

pid_t cls_spawn_response_probe(const char *mount_point, const char *path, int *read_fd) {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return -1;
    pid_t pid = fork();
    if (pid < 0) {
        int saved = errno;
        close(fds[0]);
        close(fds[1]);
        errno = saved;
        return -1;
    }
    if (pid == 0) {
        /* The child: raw system calls only (the parent may have had other threads holding locks).
           Every descriptor but the pipe is closed first: a child stuck for hours must not hold
           the parent's stdout open, or `x=$(bookmark ...)` would wait for it. */
        if (fds[1] > 0) syscall(SYS_close_range, 0U, (unsigned int)fds[1] - 1U, 0U);
        syscall(SYS_close_range, (unsigned int)fds[1] + 1U, ~0U, 0U);
        struct statfs volume;
        syscall(SYS_statfs, mount_point, &volume);
        if (path != NULL) {
            struct cls_statx status;
            syscall(SYS_statx, AT_FDCWD, path, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT, 0x7ffU, &status);
        }
        char answered = 1;
        syscall(SYS_write, fds[1], &answered, 1);
        syscall(SYS_exit_group, 0);
    }
    close(fds[1]);
    *read_fd = fds[0];
    return pid;
}

#ifndef SYS_statmount
#define SYS_statmount 457
#endif
/* The start of the kernel's struct statmount (include/uapi/linux/mount.h, Linux 6.8), declared
   here because Debian 12's headers predate it. */
struct cls_statmount_head {
    uint32_t size;
    uint32_t mnt_opts;
    uint64_t mask;
    uint32_t sb_dev_major;
    uint32_t sb_dev_minor;
    uint64_t sb_magic;
    uint32_t sb_flags;
    uint32_t fs_type;
    uint64_t mnt_id;
    uint64_t mnt_parent_id;
    uint32_t mnt_id_old;
    uint32_t mnt_parent_id_old;
};
_Static_assert(offsetof(struct cls_statmount_head, mnt_id_old) == 56, "statmount layout");

int cls_statmount_old_id(uint64_t unique_id, uint32_t *old_id) {
    struct {
        uint32_t size;
        uint32_t spare;
        uint64_t mnt_id;
        uint64_t param;
    } request = {24, 0, unique_id, 0x2 /* STATMOUNT_MNT_BASIC */};
    /* Room for the whole structure of later kernels; only the head is read. */
    uint64_t buffer[64];
    memset(buffer, 0, sizeof buffer);
    if (syscall(SYS_statmount, &request, buffer, sizeof buffer, 0) != 0) return -1;
    const struct cls_statmount_head *head = (const struct cls_statmount_head *)buffer;
    if (!(head->mask & 0x2)) {
        errno = EOPNOTSUPP;
        return -1;
    }
    *old_id = head->mnt_id_old;
    return 0;
}

int cls_flock(int fd, int operation) {
    return flock(fd, operation);
}

int cls_ioctl_ficlone(int dest_fd, int src_fd) {
    return ioctl(dest_fd, FICLONE, src_fd);
}

int cls_epoll_create_cloexec(void) { return epoll_create1(EPOLL_CLOEXEC); }

int cls_epoll_add(int epfd, int fd, uint32_t events, uint64_t tag) {
    struct epoll_event event;
    memset(&event, 0, sizeof event);
    event.events = events;
    event.data.u64 = tag;
    return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &event);
}

int cls_epoll_wait_now(int epfd, uint64_t *tags, uint32_t *events, int max) {
    struct epoll_event ready[8];
    if (max < 1 || max > 8) {
        errno = EINVAL;
        return -1;
    }
    int count = epoll_wait(epfd, ready, max, 0);
    for (int i = 0; i < count; i++) {
        tags[i] = ready[i].data.u64;
        events[i] = ready[i].events;
    }
    return count;
}
