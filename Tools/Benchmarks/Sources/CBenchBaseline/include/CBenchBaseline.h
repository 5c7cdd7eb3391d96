// SPDX-License-Identifier: Apache-2.0
/*
 * CBenchBaseline: the kernel floor the benchmarks compare against. Each function is one or two
 * bare syscalls with no policy, so a baseline measures the kernel and nothing of ours.
 */
#ifndef CBENCHBASELINE_H
#define CBENCHBASELINE_H

#include <stddef.h>
#include <stdint.h>

/** statx(AT_FDCWD, path, 0, STATX_BASIC_STATS); returns 0 or -errno; the inode in *inode. */
int cbb_statx(const char *path, uint64_t *inode);

/** statx of path, then name_to_handle_at of path (128-byte handle buffer); 0 or -errno. */
int cbb_statx_handle(const char *path);

/** A creation whose directory is in the ancestor cache, bare: statx and name_to_handle_at of the
 *  path, one poll of an inotify queue and /proc/self/mountinfo. */
int cbb_create_floor_cached(const char *path);

/** A creation with an empty ancestor cache, bare: statx and name_to_handle_at of the path, then a
 *  statx (AT_SYMLINK_NOFOLLOW) of each directory on it whose path is longer than `known` bytes
 *  (the volume's mount point: those down to it come from the volume's facts), each looked up by
 *  its path. */
int cbb_create_floor_walk(const char *path, size_t known);

/** Takes the handle of `current` (the moved file) for cbb_moved_floor, outside the timing. */
int cbb_moved_floor_prepare(const char *current);

/** A moved file's resolution by handle, bare: statx of `recorded` (failing), open of the mount
 *  point, open_by_handle_at, readlinkat of /proc/self/fd/N, statx of the path found relative to
 *  the mount point's descriptor, two closes; 0 or -errno. */
int cbb_moved_floor(const char *recorded, const char *mount_point);

/** openat(dirfd, path, O_RDONLY | O_CLOEXEC) then close; 0 or -errno. */
int cbb_openat_close(int dirfd, const char *path);

/** open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC); the descriptor or -errno. */
int cbb_open_directory(const char *path);

/** close(fd). */
void cbb_close(int fd);

/** Makes stdout line-buffered, so progress shows when it goes to a file. */
void cbb_line_buffered_stdout(void);


/* The library batch's floor (library_floor.c): read `library` whole, statx (with the birth time)
 * each of `count` paths split over `threads` threads, then walk `volume` with getdents64 on
 * `threads` threads. Seconds of each part in `times`; 0, or -errno. */
struct cbb_library_floor_times {
    double read, statx, walk;
    long missing, entries;
    unsigned long touched;
};
int cbb_library_floor(const char *library, const char *const *paths, long count, const char *volume, int threads,
                      struct cbb_library_floor_times *times);

#endif
