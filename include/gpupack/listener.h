/* SPDX-License-Identifier: Apache-2.0 */
/* A listening TCP socket and the one thread that accepts on it.
 *
 * The server hands each accepted connection to the least busy of its serving threads itself
 * (libmicrohttpd's own accept lets whichever thread wakes first take every pending connection,
 * so a burst of connections lands on one thread). This module owns the socket and the accept
 * loop, nothing of HTTP.
 *
 * Each accepted connection is a non-blocking, close-on-exec socket given to the callback, on the
 * listener's thread, one at a time; the callback owns it from then on. When accepting fails for
 * lack of descriptors or memory (EMFILE, ENFILE, ENOBUFS, ENOMEM) the thread waits before trying
 * again, 5 ms doubling to 1 s (as Go's net/http does), and logs a warning each time it waits;
 * the pending connection stays queued in the kernel meanwhile. Errors that concern one
 * connection only (it was reset before being accepted) are skipped. */
#ifndef GPUPACK_LISTENER_H
#define GPUPACK_LISTENER_H

#include <stdbool.h>
#include <sys/socket.h>

#include "gpupack/log.h"
#include "gpupack/status.h"

typedef struct gp_listener gp_listener;

/* Takes fd (an accepted connection); addr is the peer's address, valid during the call only. */
typedef void (*gp_accept_fn)(void *ctx, int fd, const struct sockaddr *addr, socklen_t addrlen);

typedef struct {
    const struct sockaddr *addr; /* IPv4 or IPv6, port 0 for the kernel's pick; copied */
    socklen_t addrlen;
    bool v6only;                 /* IPv6: false lets a wildcard address take IPv4 too */
    gp_accept_fn fn;
    void *ctx;
    gp_log *log;                 /* may be NULL; not owned */
    const char *name;            /* for log lines; NULL means "server"; copied */
} gp_listener_config;

/* Binds (with SO_REUSEADDR) and listens with the system's largest backlog; connections wait in
 * the kernel's queue until gp_listener_start(). Returns GP_EIO with the reason (errno's text)
 * when the socket cannot be bound, GP_EINVAL for a bad address or no callback. On failure *out is
 * NULL. */
gp_status gp_listener_open(const gp_listener_config *cfg, gp_listener **out, gp_err *err) GP_WUR;

/* Starts the accepting thread (once). GP_EIO when it cannot be started. */
gp_status gp_listener_start(gp_listener *l, gp_err *err) GP_WUR;

/* The port bound (the kernel's pick for port 0). */
int gp_listener_port(const gp_listener *l);

/* Stops accepting and closes the socket, so later connection attempts are refused at once;
 * connections already given to the callback are not touched. A callback in progress finishes
 * first; none runs after this returns. Frees the listener; NULL is harmless. */
void gp_listener_close(gp_listener *l);

#endif
