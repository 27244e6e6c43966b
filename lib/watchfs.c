/* SPDX-License-Identifier: Apache-2.0 */
/* File watching for reloads.
 *
 * The thread sleeps in poll() on an inotify descriptor and an eventfd (the stop signal) with the
 * poll interval as timeout. Any inotify event in a watched directory, or the timeout, leads to a
 * check of every file; the callback runs once per check that saw a change. inotify events come in
 * bursts (a rewrite is a truncate and several writes; a ConfigMap update is several creates and
 * renames), so after an event the thread waits until the directory has been quiet for
 * WATCH_SETTLE_MS (at most WATCH_SETTLE_MAX_MS) before checking: the callback then sees the
 * finished state instead of a half-written file.
 *
 * Directories watched: each path's parent (where a ConfigMap's `..data` swap or a rename-over
 * happens) and the parent of the path's resolved target (where an in-place rewrite of a
 * symlinked file happens), re-added at every check because the resolved target moves. */
#include "gpupack/watchfs.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define WATCH_MAX_PATHS 8
#define WATCH_MAX_HASH (4u * 1024 * 1024) /* bytes of each file hashed; certificates are tiny */
#define WATCH_DEFAULT_INTERVAL_MS 1000u
#define WATCH_SETTLE_MS 50
#define WATCH_SETTLE_MAX_MS 500
#define WATCH_EVENTS                                                                            \
    (IN_CREATE | IN_DELETE | IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_ATTRIB)

/* What identifies a file's current content, as far as we can tell cheaply. */
typedef struct {
    bool exists;
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime;
    uint64_t hash;
} fingerprint;

struct gp_watch {
    char *paths[WATCH_MAX_PATHS];
    fingerprint prints[WATCH_MAX_PATHS];
    size_t npaths;
    unsigned interval_ms;
    gp_watch_fn fn;
    void *ctx;
    int ifd;    /* inotify, -1 when unavailable */
    int stopfd; /* eventfd written by gp_watch_stop() */
    pthread_t thread;
};

static uint64_t hash_fd(int fd)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    unsigned char buf[8192];
    size_t total = 0;
    ssize_t n;

    while (total < WATCH_MAX_HASH && (n = read(fd, buf, sizeof(buf))) > 0) {
        for (ssize_t i = 0; i < n; i++)
            h = (h ^ buf[i]) * 1099511628211ULL;
        total += (size_t)n;
    }
    return h;
}

/* Fingerprints the file path resolves to (symlinks followed). A missing file is a state too. */
static fingerprint fingerprint_of(const char *path)
{
    fingerprint fp = { 0 };
    struct stat st;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

    if (fd < 0 || fstat(fd, &st) != 0) {
        if (fd >= 0)
            close(fd);
        return fp;
    }
    fp.exists = true;
    fp.dev = st.st_dev;
    fp.ino = st.st_ino;
    fp.size = st.st_size;
    fp.mtime = st.st_mtim;
    fp.hash = S_ISREG(st.st_mode) ? hash_fd(fd) : 0;
    close(fd);
    return fp;
}

static bool fingerprint_equal(const fingerprint *a, const fingerprint *b)
{
    if (a->exists != b->exists)
        return false;
    return !a->exists ||
           (a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
            a->mtime.tv_sec == b->mtime.tv_sec && a->mtime.tv_nsec == b->mtime.tv_nsec &&
            a->hash == b->hash);
}

/* Adds an inotify watch on the directory holding path; a failure only loses immediacy. */
static void watch_parent(int ifd, const char *path)
{
    char dir[PATH_MAX];
    const char *slash = strrchr(path, '/');
    size_t n;

    if (slash == NULL) {
        (void)inotify_add_watch(ifd, ".", WATCH_EVENTS | IN_ONLYDIR);
        return;
    }
    n = slash == path ? 1 : (size_t)(slash - path);
    if (n >= sizeof(dir))
        return;
    memcpy(dir, path, n);
    dir[n] = '\0';
    (void)inotify_add_watch(ifd, dir, WATCH_EVENTS | IN_ONLYDIR);
}

static void watch_dirs(gp_watch *w, size_t i)
{
    char resolved[PATH_MAX];

    if (w->ifd < 0)
        return;
    watch_parent(w->ifd, w->paths[i]);
    if (realpath(w->paths[i], resolved) != NULL)
        watch_parent(w->ifd, resolved);
}

/* Re-fingerprints every file; true when any changed. */
static bool check_all(gp_watch *w)
{
    bool changed = false;

    for (size_t i = 0; i < w->npaths; i++) {
        fingerprint fp = fingerprint_of(w->paths[i]);

        watch_dirs(w, i);
        if (!fingerprint_equal(&fp, &w->prints[i])) {
            w->prints[i] = fp;
            changed = true;
        }
    }
    return changed;
}

static void drain_inotify(int ifd)
{
    char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));

    while (read(ifd, buf, sizeof(buf)) > 0)
        ;
}

/* Waits until no inotify event arrived for WATCH_SETTLE_MS. Returns false when asked to stop. */
static bool settle(gp_watch *w)
{
    struct pollfd fds[2] = { { .fd = w->stopfd, .events = POLLIN },
                             { .fd = w->ifd, .events = POLLIN } };

    for (int waited = 0; waited < WATCH_SETTLE_MAX_MS; waited += WATCH_SETTLE_MS) {
        int n = poll(fds, 2, WATCH_SETTLE_MS);

        if (n > 0 && (fds[0].revents & POLLIN))
            return false;
        if (n == 0)
            break;
        if (n > 0)
            drain_inotify(w->ifd);
    }
    return true;
}

static void *watch_thread(void *arg)
{
    gp_watch *w = arg;
    struct pollfd fds[2] = { { .fd = w->stopfd, .events = POLLIN },
                             { .fd = w->ifd, .events = POLLIN } };

    for (;;) {
        int n = poll(fds, w->ifd >= 0 ? 2 : 1, (int)w->interval_ms);

        if (n < 0 && errno != EINTR)
            break;
        if (n > 0 && (fds[0].revents & POLLIN))
            break;
        if (n > 0 && (fds[1].revents & POLLIN)) {
            drain_inotify(w->ifd);
            if (!settle(w))
                break;
        }
        if (check_all(w))
            w->fn(w->ctx);
    }
    return NULL;
}

static void watch_free(gp_watch *w)
{
    for (size_t i = 0; i < w->npaths; i++)
        free(w->paths[i]);
    if (w->ifd >= 0)
        close(w->ifd);
    if (w->stopfd >= 0)
        close(w->stopfd);
    free(w);
}

static gp_status watch_init(gp_watch *w, const char *const *paths, size_t npaths, gp_err *err)
{
    for (size_t i = 0; i < npaths; i++) {
        if (paths[i] == NULL) {
            gp_err_set(err, "watch: path %zu is NULL", i);
            return GP_EINVAL;
        }
        if ((w->paths[i] = strdup(paths[i])) == NULL) {
            gp_err_set(err, "watch: out of memory");
            return GP_ENOMEM;
        }
        w->npaths = i + 1;
    }
    w->stopfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (w->stopfd < 0) {
        gp_err_set(err, "watch: eventfd: %s", strerror(errno));
        return GP_EIO;
    }
    w->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC); /* -1: polling only */
    for (size_t i = 0; i < w->npaths; i++) {
        w->prints[i] = fingerprint_of(w->paths[i]);
        watch_dirs(w, i);
    }
    return GP_OK;
}

gp_status gp_watch_start(const char *const *paths, size_t npaths, unsigned interval_ms,
                         gp_watch_fn fn, void *ctx, gp_watch **out, gp_err *err)
{
    gp_watch *w;
    gp_status st;
    int rc;

    *out = NULL;
    if (npaths == 0 || npaths > WATCH_MAX_PATHS || fn == NULL) {
        gp_err_set(err, "watch: need 1 to %d paths and a callback", WATCH_MAX_PATHS);
        return GP_EINVAL;
    }
    if ((w = calloc(1, sizeof(*w))) == NULL)
        return GP_ENOMEM;
    w->ifd = w->stopfd = -1;
    w->fn = fn;
    w->ctx = ctx;
    w->interval_ms = interval_ms > 0 ? interval_ms : WATCH_DEFAULT_INTERVAL_MS;
    if (w->interval_ms > INT_MAX)
        w->interval_ms = INT_MAX;
    if ((st = watch_init(w, paths, npaths, err)) != GP_OK)
        goto fail;
    if ((rc = pthread_create(&w->thread, NULL, watch_thread, w)) != 0) {
        gp_err_set(err, "watch: cannot start thread: %s", strerror(rc));
        st = GP_EIO;
        goto fail;
    }
    *out = w;
    return GP_OK;
fail:
    watch_free(w);
    return st;
}

void gp_watch_stop(gp_watch *w)
{
    uint64_t one = 1;

    if (w == NULL)
        return;
    if (write(w->stopfd, &one, sizeof(one)) != (ssize_t)sizeof(one))
        (void)0; /* an eventfd write only fails on counter overflow, which cannot happen here */
    pthread_join(w->thread, NULL);
    watch_free(w);
}
