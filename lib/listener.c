/* SPDX-License-Identifier: Apache-2.0 */
/* A listening TCP socket and its accepting thread (the contract is in
 * include/gpupack/listener.h).
 *
 * The thread sleeps in poll() on the socket and an eventfd written by gp_listener_close(); it
 * accepts every pending connection while the socket is readable, so one wake-up takes a burst. */
#include "gpupack/listener.h"

#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#define BACKOFF_MIN_MS 5
#define BACKOFF_MAX_MS 1000
#define NAME_MAX_LEN 64

struct gp_listener {
    int fd;
    int stopfd; /* eventfd: written once by gp_listener_close() */
    int port;
    pthread_t thread;
    bool running;
    gp_accept_fn fn;
    void *ctx;
    gp_log *log;
    char name[NAME_MAX_LEN];
};

/* True for accept() errors that say the process is short of a resource, not that one
 * connection went wrong: trying again at once would spin. */
static bool resource_error(int e)
{
    return e == EMFILE || e == ENFILE || e == ENOBUFS || e == ENOMEM;
}

/* Waits up to ms for the stop signal; true when it came. */
static bool wait_stop(gp_listener *l, int ms)
{
    struct pollfd p = { .fd = l->stopfd, .events = POLLIN };

    return poll(&p, 1, ms) > 0;
}

/* Accepts until nothing is pending. Returns the next back-off in ms (0: none needed). */
static int accept_pending(gp_listener *l, int backoff_ms)
{
    for (;;) {
        struct sockaddr_storage peer;
        socklen_t len = sizeof(peer);
        int fd = accept4(l->fd, (struct sockaddr *)&peer, &len, SOCK_NONBLOCK | SOCK_CLOEXEC);

        if (fd >= 0) {
            l->fn(l->ctx, fd, (struct sockaddr *)&peer, len);
            backoff_ms = 0;
            continue;
        }
        if (errno == EINTR)
            continue;
        if (!resource_error(errno))
            return 0; /* EAGAIN: none left; ECONNABORTED and the like: that one is gone */
        backoff_ms = backoff_ms == 0 ? BACKOFF_MIN_MS : backoff_ms * 2;
        if (backoff_ms > BACKOFF_MAX_MS)
            backoff_ms = BACKOFF_MAX_MS;
        GP_LOG(l->log, GP_LOG_WARN, "cannot accept a connection; waiting",
               GP_LS("server", l->name), GP_LS("error", strerror(errno)),
               GP_LI("wait_ms", backoff_ms));
        return backoff_ms;
    }
}

static void *accept_loop(void *arg)
{
    gp_listener *l = arg;
    struct pollfd p[2] = { { .fd = l->fd, .events = POLLIN },
                           { .fd = l->stopfd, .events = POLLIN } };
    int backoff_ms = 0;

    for (;;) {
        if (backoff_ms > 0 && wait_stop(l, backoff_ms))
            return NULL;
        if (poll(p, 2, -1) < 0 && errno != EINTR)
            return NULL; /* cannot happen with valid descriptors */
        if (p[1].revents != 0)
            return NULL;
        if (p[0].revents != 0)
            backoff_ms = accept_pending(l, backoff_ms);
    }
}

static int bound_port(int fd)
{
    struct sockaddr_storage a;
    socklen_t len = sizeof(a);

    if (getsockname(fd, (struct sockaddr *)&a, &len) != 0)
        return -1;
    if (a.ss_family == AF_INET6)
        return ntohs(((struct sockaddr_in6 *)&a)->sin6_port);
    return ntohs(((struct sockaddr_in *)&a)->sin_port);
}

/* socket(), options, bind(), listen(); sets l->fd and l->port. */
static gp_status bind_listen(gp_listener *l, const gp_listener_config *cfg, gp_err *err)
{
    int on = 1, v6only = cfg->v6only ? 1 : 0;
    int family = cfg->addr->sa_family;

    l->fd = socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (l->fd < 0 ||
        setsockopt(l->fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on)) != 0 ||
        (family == AF_INET6 &&
         setsockopt(l->fd, IPPROTO_IPV6, IPV6_V6ONLY, &v6only, sizeof(v6only)) != 0) ||
        bind(l->fd, cfg->addr, cfg->addrlen) != 0 || listen(l->fd, SOMAXCONN) != 0 ||
        (l->port = bound_port(l->fd)) < 0) {
        gp_err_set(err, "%s", strerror(errno));
        return GP_EIO;
    }
    return GP_OK;
}

static gp_status config_check(const gp_listener_config *cfg, gp_err *err)
{
    bool v4 = cfg->addr != NULL && cfg->addr->sa_family == AF_INET &&
              cfg->addrlen >= sizeof(struct sockaddr_in);
    bool v6 = cfg->addr != NULL && cfg->addr->sa_family == AF_INET6 &&
              cfg->addrlen >= sizeof(struct sockaddr_in6);

    if ((!v4 && !v6) || cfg->fn == NULL) {
        gp_err_set(err, "listener: needs an IPv4 or IPv6 address and a callback");
        return GP_EINVAL;
    }
    return GP_OK;
}

gp_status gp_listener_open(const gp_listener_config *cfg, gp_listener **out, gp_err *err)
{
    gp_listener *l;
    gp_status st;

    *out = NULL;
    if ((st = config_check(cfg, err)) != GP_OK)
        return st;
    if ((l = calloc(1, sizeof(*l))) == NULL) {
        gp_err_set(err, "out of memory");
        return GP_ENOMEM;
    }
    l->fd = l->stopfd = -1;
    l->fn = cfg->fn;
    l->ctx = cfg->ctx;
    l->log = cfg->log;
    snprintf(l->name, sizeof(l->name), "%s", cfg->name != NULL ? cfg->name : "server");
    if ((st = bind_listen(l, cfg, err)) != GP_OK) {
        gp_listener_close(l);
        return st;
    }
    *out = l;
    return GP_OK;
}

gp_status gp_listener_start(gp_listener *l, gp_err *err)
{
    if (l->running)
        return GP_OK;
    if ((l->stopfd < 0 && (l->stopfd = eventfd(0, EFD_CLOEXEC)) < 0) ||
        (errno = pthread_create(&l->thread, NULL, accept_loop, l)) != 0) {
        gp_err_set(err, "cannot start the accepting thread: %s", strerror(errno));
        return GP_EIO;
    }
    l->running = true;
    return GP_OK;
}

int gp_listener_port(const gp_listener *l)
{
    return l != NULL ? l->port : -1;
}

void gp_listener_close(gp_listener *l)
{
    uint64_t one = 1;

    if (l == NULL)
        return;
    if (l->running) {
        if (write(l->stopfd, &one, sizeof(one)) != (ssize_t)sizeof(one))
            abort(); /* an eventfd write of 1 cannot fail short of a bug */
        pthread_join(l->thread, NULL);
    }
    if (l->fd >= 0)
        close(l->fd); /* the kernel now refuses new connections to the address */
    if (l->stopfd >= 0)
        close(l->stopfd);
    free(l);
}
