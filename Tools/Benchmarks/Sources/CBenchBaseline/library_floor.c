// SPDX-License-Identifier: Apache-2.0
// The floor of the library batch (LibraryMetric): the system calls a batch cannot avoid, bare, on
// as many threads as the batch uses. Read the library file once; one statx (with the birth time)
// of every path the batch must find at its place; one getdents64 walk of the whole volume, which
// the moved and deleted files need. Nothing is decoded and no result is built.
#include "CBenchBaseline.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static double now_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* --- statx of every path, split evenly between the threads --- */

struct statx_part {
    const char *const *paths;
    long first, end;
    long failed;
};

static void *statx_paths(void *argument) {
    struct statx_part *part = argument;
    struct statx st;
    for (long index = part->first; index < part->end; index++) {
        if (statx(AT_FDCWD, part->paths[index], AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS | STATX_BTIME, &st) != 0)
            part->failed++;
    }
    return NULL;
}

/* --- the walk: a shared stack of directory paths, taken by whichever thread is free --- */

struct walk_state {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    char **stack;
    long top, capacity;
    long busy;     /* threads reading a directory now */
    long entries;  /* entries read, "." and ".." left out */
    int failed;    /* an allocation failed: the walk stops */
};

/* Called with the lock held. Takes ownership of `path` (freed if it cannot be kept). */
static void push_locked(struct walk_state *state, char *path) {
    if (state->top == state->capacity) {
        long capacity = state->capacity ? state->capacity * 2 : 1024;
        char **grown = realloc(state->stack, (size_t)capacity * sizeof(char *));
        if (grown == NULL) {
            state->failed = 1;
            free(path);
            return;
        }
        state->stack = grown;
        state->capacity = capacity;
    }
    state->stack[state->top++] = path;
}

static char *joined(const char *directory, const char *name) {
    size_t left = strlen(directory), right = strlen(name);
    char *path = malloc(left + right + 2);
    if (path == NULL) return NULL;
    memcpy(path, directory, left);
    path[left] = '/';
    memcpy(path + left + 1, name, right + 1);
    return path;
}

static void *walk_directories(void *argument) {
    struct walk_state *state = argument;
    char buffer[65536];
    for (;;) {
        pthread_mutex_lock(&state->lock);
        while (state->top == 0 && state->busy > 0 && !state->failed) pthread_cond_wait(&state->changed, &state->lock);
        if (state->top == 0 || state->failed) {
            pthread_cond_broadcast(&state->changed);
            pthread_mutex_unlock(&state->lock);
            return NULL;
        }
        char *directory = state->stack[--state->top];
        state->busy++;
        pthread_mutex_unlock(&state->lock);

        long entries = 0;
        int fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        if (fd >= 0) {
            long got;
            while ((got = syscall(SYS_getdents64, fd, buffer, sizeof buffer)) > 0) {
                for (long offset = 0; offset < got;) {
                    struct dirent64 *entry = (struct dirent64 *)(buffer + offset);
                    offset += entry->d_reclen;
                    const char *name = entry->d_name;
                    if (name[0] == '.' && (name[1] == 0 || (name[1] == '.' && name[2] == 0))) continue;
                    entries++;
                    if (entry->d_type != DT_DIR) continue;
                    char *child = joined(directory, name);
                    pthread_mutex_lock(&state->lock);
                    if (child == NULL) state->failed = 1; else push_locked(state, child);
                    pthread_cond_signal(&state->changed);
                    pthread_mutex_unlock(&state->lock);
                }
            }
            close(fd);
        }
        free(directory);
        pthread_mutex_lock(&state->lock);
        state->entries += entries;
        state->busy--;
        pthread_cond_broadcast(&state->changed);
        pthread_mutex_unlock(&state->lock);
    }
}

int cbb_library_floor(const char *library, const char *const *paths, long count, const char *volume, int threads,
                      struct cbb_library_floor_times *times) {
    if (threads < 1) threads = 1;
    if (threads > 64) threads = 64;
    pthread_t workers[64];
    double began = now_seconds();

    int fd = open(library, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -errno;
    size_t size = 4 << 20;
    char *chunk = malloc(size);
    if (chunk == NULL) {
        close(fd);
        return -ENOMEM;
    }
    ssize_t got;
    unsigned long touched = 0;
    while ((got = read(fd, chunk, size)) > 0) {
        /* Touch what was read, as a decoder would. */
        for (ssize_t at = 0; at < got; at += 64) touched += (unsigned char)chunk[at];
    }
    int readError = got < 0 ? errno : 0;
    free(chunk);
    close(fd);
    if (readError != 0) return -readError;
    double read = now_seconds();

    struct statx_part parts[64];
    int started = 0;
    for (; started < threads; started++) {
        parts[started] = (struct statx_part){paths, count * started / threads, count * (started + 1) / threads, 0};
        if (pthread_create(&workers[started], NULL, statx_paths, &parts[started]) != 0) break;
    }
    long failed = 0;
    for (int index = 0; index < started; index++) {
        pthread_join(workers[index], NULL);
        failed += parts[index].failed;
    }
    if (started < threads) return -EAGAIN;
    double checked = now_seconds();

    struct walk_state state = {.lock = PTHREAD_MUTEX_INITIALIZER, .changed = PTHREAD_COND_INITIALIZER};
    char *root = strdup(volume);
    if (root == NULL) return -ENOMEM;
    push_locked(&state, root);
    /* Threads that started are joined before any failure is reported. */
    started = 0;
    for (; started < threads; started++) {
        if (pthread_create(&workers[started], NULL, walk_directories, &state) != 0) break;
    }
    for (int index = 0; index < started; index++) pthread_join(workers[index], NULL);
    for (long index = 0; index < state.top; index++) free(state.stack[index]);
    free(state.stack);
    if (started < threads) return -EAGAIN;
    if (state.failed) return -ENOMEM;
    double walked = now_seconds();

    times->read = read - began;
    times->statx = checked - read;
    times->walk = walked - checked;
    times->missing = failed;
    times->entries = state.entries;
    times->touched = touched;
    return 0;
}
