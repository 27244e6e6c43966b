/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of lib/watchfs.c: in-place rewrites, rename-over, Kubernetes ConfigMap `..data`
 * symlink swaps, the polling fallback, no spurious callbacks, and a prompt stop. Most tests poll
 * only every 10 s, so a callback within the wait proves inotify noticed the change. */
#include "gpupack/watchfs.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>

#include "gptest.h"

#define SLOW_POLL_MS 10000 /* longer than any wait below: only inotify can be that fast */

typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int calls;
} counter;

static void on_change(void *ctx)
{
    counter *c = ctx;

    pthread_mutex_lock(&c->mu);
    c->calls++;
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
}

static void counter_init(counter *c)
{
    pthread_mutex_init(&c->mu, NULL);
    pthread_cond_init(&c->cv, NULL);
    c->calls = 0;
}

/* Waits up to ms for at least want calls; returns the count seen. */
static int counter_wait(counter *c, int want, int ms)
{
    struct timespec dl;
    int n;

    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += ms / 1000;
    dl.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (dl.tv_nsec >= 1000000000L) {
        dl.tv_sec++;
        dl.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&c->mu);
    while (c->calls < want && pthread_cond_timedwait(&c->cv, &c->mu, &dl) == 0)
        ;
    n = c->calls;
    pthread_mutex_unlock(&c->mu);
    return n;
}

static double now_s(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");

    GP_CHECK(f != NULL);
    if (f == NULL)
        return;
    fputs(text, f);
    fclose(f);
}

static void make_tmpdir(char *buf, size_t n)
{
    snprintf(buf, n, "/tmp/gp-watch-XXXXXX");
    GP_CHECK(mkdtemp(buf) != NULL);
}

static void rm_rf(const char *dir)
{
    char cmd[512];

    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        printf("  could not remove %s\n", dir);
}

/* Starts a watcher over one path with the given poll interval. */
static gp_watch *watch_one(const char *path, unsigned interval_ms, counter *c)
{
    const char *paths[1] = { path };
    gp_watch *w = NULL;
    gp_err err = { { 0 } };

    GP_CHECK_INT(gp_watch_start(paths, 1, interval_ms, on_change, c, &w, &err), GP_OK);
    return w;
}

GP_TEST(in_place_rewrite_fires)
{
    char dir[64], path[128];
    counter c;
    gp_watch *w;

    make_tmpdir(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/cert.pem", dir);
    write_file(path, "one");
    counter_init(&c);
    w = watch_one(path, SLOW_POLL_MS, &c);
    write_file(path, "two, longer");
    GP_CHECK(counter_wait(&c, 1, 3000) >= 1);
    gp_watch_stop(w);
    rm_rf(dir);
}

GP_TEST(rename_over_fires)
{
    char dir[64], path[128], tmp[128];
    counter c;
    gp_watch *w;

    make_tmpdir(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/tls.key", dir);
    snprintf(tmp, sizeof(tmp), "%s/.tls.key.tmp", dir);
    write_file(path, "old");
    counter_init(&c);
    w = watch_one(path, SLOW_POLL_MS, &c);
    write_file(tmp, "new"); /* same size: the inode tells the change */
    GP_CHECK_INT(rename(tmp, path), 0);
    GP_CHECK(counter_wait(&c, 1, 3000) >= 1);
    gp_watch_stop(w);
    rm_rf(dir);
}

/* Builds a mount the way the kubelet does: DIR/..<ts>/file, DIR/..data -> ..<ts>,
 * DIR/file -> ..data/file; then swaps ..data atomically to a new timestamped directory. */
GP_TEST(configmap_data_symlink_swap_fires)
{
    char dir[64], gen[128], genfile[192], data[128], link[128], tmp[128], cmd[256];
    counter c;
    gp_watch *w;

    make_tmpdir(dir, sizeof(dir));
    snprintf(gen, sizeof(gen), "%s/..2026_01_01_00_00_00.1", dir);
    GP_CHECK_INT(mkdir(gen, 0755), 0);
    snprintf(genfile, sizeof(genfile), "%s/tls.crt", gen);
    write_file(genfile, "generation 1");
    snprintf(data, sizeof(data), "%s/..data", dir);
    GP_CHECK_INT(symlink("..2026_01_01_00_00_00.1", data), 0);
    snprintf(link, sizeof(link), "%s/tls.crt", dir);
    GP_CHECK_INT(symlink("..data/tls.crt", link), 0);
    counter_init(&c);
    w = watch_one(link, SLOW_POLL_MS, &c);

    snprintf(gen, sizeof(gen), "%s/..2026_01_01_00_00_00.2", dir);
    GP_CHECK_INT(mkdir(gen, 0755), 0);
    snprintf(genfile, sizeof(genfile), "%s/tls.crt", gen);
    write_file(genfile, "generation 2");
    snprintf(tmp, sizeof(tmp), "%s/..data_tmp", dir);
    GP_CHECK_INT(symlink("..2026_01_01_00_00_00.2", tmp), 0);
    GP_CHECK_INT(rename(tmp, data), 0);
    GP_CHECK(counter_wait(&c, 1, 3000) >= 1);

    /* The kubelet then removes the old generation: that is no change of content. */
    snprintf(cmd, sizeof(cmd), "rm -rf '%s/..2026_01_01_00_00_00.1'", dir);
    GP_CHECK_INT(system(cmd), 0);
    usleep(300 * 1000);
    GP_CHECK_INT(counter_wait(&c, 2, 1), 1);
    gp_watch_stop(w);
    rm_rf(dir);
}

/* A symlink to a file in another directory: rewriting the target is seen through inotify on the
 * target's directory. */
GP_TEST(symlink_target_rewrite_fires)
{
    char d1[64], d2[64], target[128], link[128];
    counter c;
    gp_watch *w;

    make_tmpdir(d1, sizeof(d1));
    make_tmpdir(d2, sizeof(d2));
    snprintf(target, sizeof(target), "%s/real.pem", d2);
    snprintf(link, sizeof(link), "%s/cert.pem", d1);
    write_file(target, "a");
    GP_CHECK_INT(symlink(target, link), 0);
    counter_init(&c);
    w = watch_one(link, SLOW_POLL_MS, &c);
    write_file(target, "b");
    GP_CHECK(counter_wait(&c, 1, 3000) >= 1);
    gp_watch_stop(w);
    rm_rf(d1);
    rm_rf(d2);
}

/* The parent directory does not exist at start, so inotify has nothing to watch: polling finds
 * the file when it appears. */
GP_TEST(polling_fallback_finds_new_file)
{
    char dir[64], sub[128], path[160];
    counter c;
    gp_watch *w;

    make_tmpdir(dir, sizeof(dir));
    snprintf(sub, sizeof(sub), "%s/later", dir);
    snprintf(path, sizeof(path), "%s/file", sub);
    counter_init(&c);
    w = watch_one(path, 100, &c);
    usleep(250 * 1000);
    GP_CHECK_INT(counter_wait(&c, 1, 1), 0);
    GP_CHECK_INT(mkdir(sub, 0755), 0);
    write_file(path, "hello");
    GP_CHECK(counter_wait(&c, 1, 3000) >= 1);
    gp_watch_stop(w);
    rm_rf(dir);
}

GP_TEST(no_callback_without_change)
{
    char dir[64], path[128], other[128];
    counter c;
    gp_watch *w;

    make_tmpdir(dir, sizeof(dir));
    snprintf(path, sizeof(path), "%s/watched", dir);
    snprintf(other, sizeof(other), "%s/unrelated", dir);
    write_file(path, "same");
    counter_init(&c);
    w = watch_one(path, 50, &c);
    write_file(other, "noise in the same directory");
    usleep(400 * 1000);
    GP_CHECK_INT(counter_wait(&c, 1, 1), 0);
    gp_watch_stop(w);
    rm_rf(dir);
}

GP_TEST(two_files_one_watcher)
{
    char dir[64], a[128], b[128];
    const char *paths[2] = { a, b };
    counter c;
    gp_watch *w = NULL;
    gp_err err = { { 0 } };

    make_tmpdir(dir, sizeof(dir));
    snprintf(a, sizeof(a), "%s/a", dir);
    snprintf(b, sizeof(b), "%s/b", dir);
    write_file(a, "a");
    write_file(b, "b");
    counter_init(&c);
    GP_CHECK_INT(gp_watch_start(paths, 2, SLOW_POLL_MS, on_change, &c, &w, &err), GP_OK);
    write_file(b, "bb");
    GP_CHECK(counter_wait(&c, 1, 3000) >= 1);
    gp_watch_stop(w);
    rm_rf(dir);
}

GP_TEST(stop_is_prompt)
{
    counter c;
    gp_watch *w;
    double t0;

    counter_init(&c);
    w = watch_one("/tmp", 60000, &c);
    usleep(50 * 1000);
    t0 = now_s();
    gp_watch_stop(w);
    GP_CHECK(now_s() - t0 < 0.2);
    gp_watch_stop(NULL);
}

GP_TEST(bad_arguments)
{
    const char *paths[9] = { "a", "b", "c", "d", "e", "f", "g", "h", "i" };
    const char *nullpath[1] = { NULL };
    gp_watch *w = (gp_watch *)1;
    gp_err err = { { 0 } };
    counter c;

    counter_init(&c);
    GP_CHECK_INT(gp_watch_start(paths, 0, 100, on_change, &c, &w, &err), GP_EINVAL);
    GP_CHECK(w == NULL);
    GP_CHECK_INT(gp_watch_start(paths, 9, 100, on_change, &c, &w, &err), GP_EINVAL);
    GP_CHECK_INT(gp_watch_start(paths, 1, 100, NULL, &c, &w, &err), GP_EINVAL);
    GP_CHECK_INT(gp_watch_start(nullpath, 1, 100, on_change, &c, &w, &err), GP_EINVAL);
    GP_CHECK(err.msg[0] != '\0');
}

GP_MAIN(GP_CASE(in_place_rewrite_fires), GP_CASE(rename_over_fires),
        GP_CASE(configmap_data_symlink_swap_fires), GP_CASE(symlink_target_rewrite_fires),
        GP_CASE(polling_fallback_finds_new_file), GP_CASE(no_callback_without_change),
        GP_CASE(two_files_one_watcher), GP_CASE(stop_is_prompt), GP_CASE(bad_arguments))
