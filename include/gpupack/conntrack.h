/* SPDX-License-Identifier: Apache-2.0 */
/* Request deadlines for the HTTP server's open connections, from the first byte.
 *
 * libmicrohttpd 0.9.75 only knows an idle timeout, which every byte resets: a client sending its
 * TLS handshake or its headers a byte at a time kept a connection forever, and one whose body
 * stopped arriving kept it until the idle timeout. This module holds each open connection's
 * socket and where it stands, and one thread that looks at them four times a second:
 * - waiting for a request (just accepted, or its last answer sent): bytes still arriving (the
 *   kernel's TCP_INFO counts them) more than limit_s after the first ones the thread saw, with
 *   no request whole yet (TLS handshake and headers), are a dribble: the connection is cut. One
 *   that goes quiet (a TLS connection handshaken and kept idle in a client's pool, a stall) is
 *   left to the idle timeout: a client may hold an idle connection, not trickle a request;
 * - a request begun (its headers whole): its body must be whole within limit_s of that.
 * A connection past its deadline is shut down (shutdown(2): libmicrohttpd sees the end and
 * closes it as usual), once, and the callback is told (without the tracker's lock). The server
 * calls add/remove from libmicrohttpd's connection notifications and begun/answering/done from
 * its request callbacks; all are thread-safe. */
#ifndef GPUPACK_CONNTRACK_H
#define GPUPACK_CONNTRACK_H

#include <stdbool.h>
#include <stdint.h>

typedef struct gp_conntrack gp_conntrack;
typedef struct gp_conn gp_conn;

/* Told on the tracker's thread when a connection is cut; phase is "request" (no request begun
 * yet: handshake or headers) or "body". */
typedef void (*gp_conntrack_cut_fn)(void *ctx, const char *phase);

/* Starts the tracker's thread. NULL when limit_s is 0 (no deadline) or on failure. */
gp_conntrack *gp_conntrack_start(unsigned limit_s, gp_conntrack_cut_fn fn, void *ctx);

/* Stops the thread and frees every record left. NULL is harmless. */
void gp_conntrack_stop(gp_conntrack *t);

/* A connection on socket fd, waiting for its first request; NULL (untracked) without a tracker
 * or memory. */
gp_conn *gp_conntrack_add(gp_conntrack *t, int fd);

/* Before libmicrohttpd closes the socket. NULL is harmless. */
void gp_conntrack_remove(gp_conntrack *t, gp_conn *c);

/* A request's headers are whole / its body is whole and the answer queued (no deadline while
 * it is sent: the idle timeout covers a client that does not read) / its answer has been sent,
 * and the connection waits for the next request. NULL is harmless. */
void gp_conntrack_begun(gp_conn *c);
void gp_conntrack_answering(gp_conn *c);
void gp_conntrack_done(gp_conn *c);

/* The rule, pure: whether a connection is past its deadline at now_ms. begun_ms: when its
 * request began (0: none begun, -1: its body is whole and it is being answered); first_ms and
 * last_ms: when new bytes were first and last seen while it waited for a request (0: none).
 * Sets *phase ("request" or "body"). */
bool gp_conntrack_overdue(int64_t now_ms, int64_t begun_ms, int64_t first_ms, int64_t last_ms,
                          int64_t limit_ms, const char **phase);

#endif
