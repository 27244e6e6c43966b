/* SPDX-License-Identifier: Apache-2.0 */
/* Tests of lib/listener.c on loopback: connections reach the callback as non-blocking,
 * close-on-exec sockets with the peer's address; closing refuses later connections; a bad
 * configuration and a taken port are errors; running out of descriptors makes the thread wait
 * and warn, not spin, and the waiting connection is taken once descriptors are free again. */
#include "gpupack/listener.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "gptest.h"

#define MAX_SEEN 8

typedef struct {
    pthread_mutex_t mu;
    int n;
    int fd[MAX_SEEN];
    int fl[MAX_SEEN], fdfl[MAX_SEEN]; /* F_GETFL, F_GETFD of each */
    struct sockaddr_in peer[MAX_SEEN];
} seen;

static void on_accept(void *ctx, int fd, const struct sockaddr *addr, socklen_t addrlen)
{
    seen *s = ctx;

    pthread_mutex_lock(&s->mu);
    if (s->n < MAX_SEEN && addrlen >= sizeof(struct sockaddr_in)) {
        s->fd[s->n] = fd;
        s->fl[s->n] = fcntl(fd, F_GETFL);
        s->fdfl[s->n] = fcntl(fd, F_GETFD);
        memcpy(&s->peer[s->n], addr, sizeof(s->peer[0]));
        s->n++;
    } else {
        close(fd);
    }
    pthread_mutex_unlock(&s->mu);
}

/* Waits up to 5 s for the callback to have run n times. */
static bool wait_seen(seen *s, int n)
{
    for (int i = 0; i < 500; i++) {
        int k;

        pthread_mutex_lock(&s->mu);
        k = s->n;
        pthread_mutex_unlock(&s->mu);
        if (k >= n)
            return true;
        usleep(10 * 1000);
    }
    return false;
}

static gp_listener *open_loopback(seen *s, int port, gp_log *log, gp_err *err, gp_status *st)
{
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
    gp_listener_config c = { .addr = (struct sockaddr *)&a, .addrlen = sizeof(a),
                             .fn = on_accept, .ctx = s, .log = log, .name = "test" };
    gp_listener *l = NULL;

    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    *st = gp_listener_open(&c, &l, err);
    if (*st == GP_OK)
        *st = gp_listener_start(l, err);
    return l;
}

static int dial(int port)
{
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
    int fd = socket(AF_INET, SOCK_STREAM, 0);

    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0) {
        int e = errno;

        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

static int local_port(int fd)
{
    struct sockaddr_in a;
    socklen_t len = sizeof(a);

    getsockname(fd, (struct sockaddr *)&a, &len);
    return ntohs(a.sin_port);
}

static void seen_close(seen *s)
{
    for (int i = 0; i < s->n; i++)
        close(s->fd[i]);
    pthread_mutex_destroy(&s->mu);
}

GP_TEST(accepts_with_peer_and_flags)
{
    seen s = { .mu = PTHREAD_MUTEX_INITIALIZER };
    gp_err err = { { 0 } };
    gp_status st;
    gp_listener *l = open_loopback(&s, 0, NULL, &err, &st);
    int c[3], port = gp_listener_port(l);

    GP_CHECK_INT(st, GP_OK);
    GP_CHECK(port > 0);
    for (int i = 0; i < 3; i++)
        c[i] = dial(port);
    GP_CHECK(wait_seen(&s, 3));
    GP_CHECK_INT(s.n, 3);
    for (int i = 0; i < 3 && i < s.n; i++) {
        GP_CHECK(s.fl[i] & O_NONBLOCK);
        GP_CHECK(s.fdfl[i] & FD_CLOEXEC);
        GP_CHECK_INT(s.peer[i].sin_family, AF_INET);
        GP_CHECK_INT(ntohs(s.peer[i].sin_port), local_port(c[i])); /* in order */
    }
    gp_listener_close(l);
    GP_CHECK_INT(dial(port), -1);
    GP_CHECK_INT(errno, ECONNREFUSED);
    for (int i = 0; i < 3; i++)
        close(c[i]);
    seen_close(&s);
    gp_listener_close(NULL);
}

GP_TEST(bad_config_and_taken_port)
{
    seen s = { .mu = PTHREAD_MUTEX_INITIALIZER };
    gp_err err = { { 0 } };
    gp_status st;
    gp_listener *l = open_loopback(&s, 0, NULL, &err, &st), *l2;
    struct sockaddr_in a = { .sin_family = AF_INET };
    gp_listener_config c = { .addr = (struct sockaddr *)&a, .addrlen = sizeof(a) };

    GP_CHECK_INT(gp_listener_open(&c, &l2, &err), GP_EINVAL); /* no callback */
    GP_CHECK(l2 == NULL);
    c.fn = on_accept;
    c.addrlen = 4;
    GP_CHECK_INT(gp_listener_open(&c, &l2, &err), GP_EINVAL); /* short address */
    l2 = open_loopback(&s, gp_listener_port(l), NULL, &err, &st);
    GP_CHECK_INT(st, GP_EIO);
    GP_CHECK(l2 == NULL);
    GP_CHECK(strstr(err.msg, "in use") != NULL);
    gp_listener_close(l);
    seen_close(&s);
}

/* With no descriptor left, accept() fails with EMFILE: the listener waits and warns (a few
 * times, not thousands), and takes the connection once the limit is raised. The limit is
 * lowered before the client connects, so the listener cannot take it first. */
GP_TEST(out_of_descriptors_waits_then_accepts)
{
    seen s = { .mu = PTHREAD_MUTEX_INITIALIZER };
    gp_err err = { { 0 } };
    gp_status st;
    gp_log log;
    FILE *lf = tmpfile();
    gp_listener *l;
    struct rlimit old, low;
    char line[512];
    int c, warnings = 0;

    gp_log_init(&log, GP_LOG_DEBUG, lf);
    l = open_loopback(&s, 0, &log, &err, &st);
    GP_CHECK_INT(st, GP_OK);
    getrlimit(RLIMIT_NOFILE, &old);
    c = open("/dev/null", O_RDONLY | O_CLOEXEC); /* the lowest free descriptor */
    GP_CHECK(c >= 0);
    low = old;
    low.rlim_cur = (rlim_t)c + 1; /* c is the only one left, for the client */
    GP_CHECK_INT(setrlimit(RLIMIT_NOFILE, &low), 0);
    close(c);
    GP_CHECK_INT(dial(gp_listener_port(l)), c);
    usleep(300 * 1000);
    GP_CHECK_INT(s.n, 0);
    GP_CHECK_INT(setrlimit(RLIMIT_NOFILE, &old), 0);
    GP_CHECK(wait_seen(&s, 1));
    gp_listener_close(l);
    rewind(lf);
    while (fgets(line, sizeof(line), lf) != NULL)
        warnings += strstr(line, "\"msg\":\"cannot accept a connection; waiting\"") != NULL &&
                    strstr(line, "Too many open files") != NULL;
    printf("  warnings while out of descriptors for 0.3 s: %d\n", warnings);
    GP_CHECK(warnings >= 1 && warnings <= 10);
    close(c);
    seen_close(&s);
    fclose(lf);
    gp_log_destroy(&log);
}

GP_MAIN(GP_CASE(accepts_with_peer_and_flags), GP_CASE(bad_config_and_taken_port),
        GP_CASE(out_of_descriptors_waits_then_accepts))
