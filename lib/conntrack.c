/* SPDX-License-Identifier: Apache-2.0 */
/* Request deadlines for open connections (conntrack.h).
 *
 * The thread learns that bytes arrived from the socket's TCP_INFO (tcpi_bytes_received, which
 * counts what the kernel took in, read by libmicrohttpd or not): a new connection starts from 0,
 * a connection waiting again after an answer from what the thread reads at its first look. */
#include "gpupack/conntrack.h"

#include <linux/tcp.h> /* tcp_info with tcpi_bytes_received; not <netinet/tcp.h>, which lacks it */
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>

#define TICK_MS 250

struct gp_conn {
    int fd;
    ino_t ino;                /* the socket's inode: a reused descriptor number is not cut */
    _Atomic uint32_t waits;   /* requests answered: each begins a new wait for the next */
    _Atomic int64_t begun_ms; /* its request's start; 0 none; -1 being answered */
    uint32_t seen_waits;      /* the thread's: the wait base and first_ms belong to */
    uint64_t seen;            /* bytes received at the thread's last look in that wait */
    int64_t first_ms;         /* when new bytes were first seen in it; 0 not yet */
    int64_t last_ms;          /* when new bytes were last seen in it */
    bool cut;
    gp_conn *prev, *next;     /* guarded by the tracker's mu */
};

struct gp_conntrack {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    gp_conn *head;
    bool stop;
    pthread_t thread;
    int64_t limit_ms;
    gp_conntrack_cut_fn fn;
    void *ctx;
};

static int64_t now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

bool gp_conntrack_overdue(int64_t now, int64_t begun, int64_t first, int64_t last,
                          int64_t limit, const char **phase)
{
    if (begun != 0) {
        *phase = "body";
        return begun > 0 && now - begun > limit;
    }
    *phase = "request";
    return first > 0 && last - first > limit;
}

/* Bytes the kernel has received on fd; false when it cannot say (not TCP). */
static bool bytes_received(int fd, uint64_t *out)
{
    struct tcp_info ti;
    socklen_t len = sizeof(ti);

    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) != 0 ||
        len < offsetof(struct tcp_info, tcpi_bytes_received) + sizeof(ti.tcpi_bytes_received))
        return false;
    *out = ti.tcpi_bytes_received;
    return true;
}

/* One look at c; true when it is past its deadline (*phase says which). begun is read before
 * waits, and gp_conntrack_done() writes them the other way round, so a look never pairs the
 * old wait with the end of its request. */
static bool look(gp_conn *c, int64_t now, int64_t limit, const char **phase)
{
    int64_t begun = atomic_load(&c->begun_ms);
    uint32_t waits = atomic_load(&c->waits);
    uint64_t bytes;

    if (waits != c->seen_waits || begun != 0) { /* a new wait, or none */
        c->seen_waits = waits;
        c->first_ms = c->last_ms = 0;
        if (!bytes_received(c->fd, &c->seen))
            c->seen = UINT64_MAX;
    } else if (c->seen != UINT64_MAX && bytes_received(c->fd, &bytes) && bytes > c->seen) {
        c->seen = bytes;
        c->last_ms = now;
        if (c->first_ms == 0)
            c->first_ms = now;
    }
    return gp_conntrack_overdue(now, begun, c->first_ms, c->last_ms, limit, phase);
}

/* Shuts c's socket down; true when it did (the descriptor is still c's socket). */
static bool cut(gp_conn *c)
{
    struct stat st;

    c->cut = true;
    if (fstat(c->fd, &st) != 0 || st.st_ino != c->ino)
        return false;
    return shutdown(c->fd, SHUT_RDWR) == 0;
}

/* One look at every connection; *body and *request count those cut. Under t->mu. */
static void sweep(gp_conntrack *t, unsigned *request, unsigned *body)
{
    int64_t now = now_ms();
    const char *phase;

    for (gp_conn *c = t->head; c != NULL; c = c->next)
        if (!c->cut && look(c, now, t->limit_ms, &phase) && cut(c)) {
            if (*phase == 'b')
                (*body)++;
            else
                (*request)++;
        }
}

static void *run(void *arg)
{
    gp_conntrack *t = arg;
    struct timespec until;

    pthread_mutex_lock(&t->mu);
    while (!t->stop) {
        unsigned request = 0, body = 0;

        sweep(t, &request, &body);
        if (t->fn != NULL && request + body > 0) { /* told without the lock: it may log */
            pthread_mutex_unlock(&t->mu);
            while (request-- > 0)
                t->fn(t->ctx, "request");
            while (body-- > 0)
                t->fn(t->ctx, "body");
            pthread_mutex_lock(&t->mu);
        }
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_nsec += TICK_MS * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        while (!t->stop && pthread_cond_timedwait(&t->cv, &t->mu, &until) == 0)
            ;
    }
    pthread_mutex_unlock(&t->mu);
    return NULL;
}

gp_conntrack *gp_conntrack_start(unsigned limit_s, gp_conntrack_cut_fn fn, void *ctx)
{
    gp_conntrack *t;
    pthread_condattr_t ca;

    if (limit_s == 0 || (t = calloc(1, sizeof(*t))) == NULL)
        return NULL;
    t->limit_ms = (int64_t)limit_s * 1000;
    t->fn = fn;
    t->ctx = ctx;

    pthread_mutex_init(&t->mu, NULL);
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC); /* a clock step moves no deadline */
    pthread_cond_init(&t->cv, &ca);
    pthread_condattr_destroy(&ca);
    if (pthread_create(&t->thread, NULL, run, t) != 0) {
        pthread_cond_destroy(&t->cv);
        pthread_mutex_destroy(&t->mu);
        free(t);
        return NULL;
    }
    return t;
}

void gp_conntrack_stop(gp_conntrack *t)
{
    if (t == NULL)
        return;
    pthread_mutex_lock(&t->mu);
    t->stop = true;
    pthread_cond_broadcast(&t->cv);
    pthread_mutex_unlock(&t->mu);
    pthread_join(t->thread, NULL);
    while (t->head != NULL) {
        gp_conn *c = t->head;

        t->head = c->next;
        free(c);
    }
    pthread_cond_destroy(&t->cv);
    pthread_mutex_destroy(&t->mu);
    free(t);
}

gp_conn *gp_conntrack_add(gp_conntrack *t, int fd)
{
    struct stat st;
    gp_conn *c;

    if (t == NULL || fstat(fd, &st) != 0 || (c = calloc(1, sizeof(*c))) == NULL)
        return NULL;
    c->fd = fd;
    c->ino = st.st_ino;
    /* waits 0, base 0: a new connection counts every byte it received, before accept too */
    pthread_mutex_lock(&t->mu);
    c->next = t->head;
    if (t->head != NULL)
        t->head->prev = c;
    t->head = c;
    pthread_mutex_unlock(&t->mu);
    return c;
}

void gp_conntrack_remove(gp_conntrack *t, gp_conn *c)
{
    if (t == NULL || c == NULL)
        return;
    pthread_mutex_lock(&t->mu);
    if (c->prev != NULL)
        c->prev->next = c->next;
    else
        t->head = c->next;
    if (c->next != NULL)
        c->next->prev = c->prev;
    pthread_mutex_unlock(&t->mu);
    free(c);
}

void gp_conntrack_begun(gp_conn *c)
{
    if (c != NULL)
        atomic_store(&c->begun_ms, now_ms());
}

void gp_conntrack_answering(gp_conn *c)
{
    if (c != NULL)
        atomic_store(&c->begun_ms, -1);
}

void gp_conntrack_done(gp_conn *c)
{
    if (c != NULL) {
        atomic_fetch_add(&c->waits, 1); /* before begun: see look() */
        atomic_store(&c->begun_ms, 0);
    }
}
