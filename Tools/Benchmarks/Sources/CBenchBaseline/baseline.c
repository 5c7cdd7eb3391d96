#include "CBenchBaseline.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <stdio.h>
#include <unistd.h>

int cbb_statx(const char *path, uint64_t *inode) {
    struct statx st;
    if (statx(AT_FDCWD, path, 0, STATX_BASIC_STATS, &st) != 0) return -errno;
    *inode = st.stx_ino;
    return 0;
}

int cbb_statx_handle(const char *path) {
    struct statx st;
    if (statx(AT_FDCWD, path, 0, STATX_BASIC_STATS, &st) != 0) return -errno;
    union {
        struct file_handle handle;
        char bytes[sizeof(struct file_handle) + 128];
    } buffer;
    buffer.handle.handle_bytes = 128;
    int mount_id = 0;
    if (name_to_handle_at(AT_FDCWD, path, &buffer.handle, &mount_id, 0) != 0) return -errno;
    return 0;
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
