// SPDX-License-Identifier: Apache-2.0
#include "CBenchBaseline.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int cbb_statx(const char *path, uint64_t *inode) {
    struct statx st;
    if (statx(AT_FDCWD, path, 0, STATX_BASIC_STATS, &st) != 0) return -errno;
    *inode = st.stx_ino;
    return 0;
}

/* name_to_handle_at of a path into a stack buffer (not following a final symlink). */
static int handle_of(const char *path) {
    union {
        struct file_handle handle;
        char bytes[sizeof(struct file_handle) + 128];
    } buffer;
    buffer.handle.handle_bytes = 128;
    int mount_id = 0;
    return name_to_handle_at(AT_FDCWD, path, &buffer.handle, &mount_id, 0) != 0 ? -errno : 0;
}

int cbb_statx_handle(const char *path) {
    struct statx st;
    if (statx(AT_FDCWD, path, 0, STATX_BASIC_STATS, &st) != 0) return -errno;
    return handle_of(path);
}

int cbb_openat_close(int dirfd, const char *path) {
    int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -errno;
    close(fd);
    return 0;
}

int cbb_open_directory(const char *path) {
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    return fd < 0 ? -errno : fd;
}

void cbb_close(int fd) { close(fd); }

void cbb_line_buffered_stdout(void) { setvbuf(stdout, NULL, _IOLBF, 0); }

/* The syscalls a creation makes when its directory is in the ancestor cache, bare: statx and
 * name_to_handle_at of the path (no symlink followed at the end), then one zero-timeout poll of an
 * inotify queue and /proc/self/mountinfo (the cache's validity check). The queue and the mount
 * table are opened on the first call; the queue has no watches, so poll finds nothing, as on a hit. */
int cbb_create_floor_cached(const char *path) {
    static int queue = -1, table = -1;
    if (queue < 0) {
        queue = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        table = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
        if (queue < 0 || table < 0) return -errno;
    }
    struct statx st;
    if (statx(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS | STATX_BTIME, &st) != 0) return -errno;
    int rc = handle_of(path);
    if (rc != 0) return rc;
    struct pollfd fds[2] = {{queue, POLLIN, 0}, {table, POLLPRI, 0}};
    return poll(fds, 2, 0) < 0 ? -errno : 0;
}

/* The syscalls a cold creation makes, bare: statx and name_to_handle_at of the path, then one
 * statx (not following symlinks) of every directory on it whose path is longer than `known` bytes,
 * each looked up from `/`. A creation takes the directories down to the volume's mount point
 * (`known` is its length) from the volume's facts, examined once per mount. */
int cbb_create_floor_walk(const char *path, size_t known) {
    struct statx st;
    if (statx(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS | STATX_BTIME, &st) != 0) return -errno;
    int rc = handle_of(path);
    if (rc != 0) return rc;
    char prefix[4096];
    size_t length = strlen(path);
    if (length >= sizeof prefix) return -ENAMETOOLONG;
    memcpy(prefix, path, length + 1);
    const char *last = strrchr(path, '/');
    size_t parent = last ? (size_t)(last - path) : 0;
    for (size_t index = 1; index <= parent; index++) {
        if (index != parent && path[index] != '/') continue;
        if (index <= known) continue;
        prefix[index] = 0;
        int failed = statx(AT_FDCWD, prefix, AT_SYMLINK_NOFOLLOW, STATX_TYPE | STATX_INO, &st);
        prefix[index] = path[index];
        if (failed != 0) return -errno;
    }
    return 0;
}

/* The handle of the moved file, taken once (outside the timing) for cbb_moved_floor. */
static union {
    struct file_handle handle;
    char bytes[sizeof(struct file_handle) + 128];
} moved_handle;
static int moved_proc_fds = -1;

int cbb_moved_floor_prepare(const char *current) {
    moved_handle.handle.handle_bytes = 128;
    int mount_id = 0;
    if (name_to_handle_at(AT_FDCWD, current, &moved_handle.handle, &mount_id, 0) != 0) return -errno;
    if (moved_proc_fds < 0) moved_proc_fds = open("/proc/self/fd", O_PATH | O_DIRECTORY | O_CLOEXEC);
    return moved_proc_fds < 0 ? -errno : 0;
}

/* The syscalls a moved file's resolution by handle makes, bare: statx of the recorded path (which
 * fails), the mount point opened, open_by_handle_at, readlinkat of /proc/self/fd/N, statx of the
 * path found relative to the mount point's descriptor, and the two closes. */
int cbb_moved_floor(const char *recorded, const char *mount_point) {
    struct statx st;
    if (statx(AT_FDCWD, recorded, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS | STATX_BTIME, &st) == 0) return -EEXIST;
    int mount = open(mount_point, O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC);
    if (mount < 0) return -errno;
    int object = open_by_handle_at(mount, &moved_handle.handle, O_PATH | O_CLOEXEC);
    if (object < 0) {
        int failed = errno;
        close(mount);
        return -failed;
    }
    char name[16];
    char path[4097];
    snprintf(name, sizeof name, "%d", object);
    ssize_t length = readlinkat(moved_proc_fds, name, path, sizeof path - 1);
    int rc = 0;
    size_t prefix = strlen(mount_point);
    if (length <= (ssize_t)prefix + 1) {
        rc = -ENOENT;
    } else {
        path[length] = 0;
        if (statx(mount, path + prefix + 1, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS | STATX_BTIME, &st) != 0) rc = -errno;
    }
    close(object);
    close(mount);
    return rc;
}
