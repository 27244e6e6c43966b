/* SPDX-License-Identifier: Apache-2.0 */
/* The HTTP(S) server both daemons use: libmicrohttpd on `threads` serving threads, GnuTLS limited
 * to TLS 1.2 and 1.3, keep-alive, timeouts, a body cap, routing, metrics and access logs.
 *
 * The server owns transport concerns only: it answers 404 (unknown path), 405 (known path, wrong
 * method, with an Allow header), 413 (body over max_body, decided from Content-Length before
 * reading when present), 415 (a body route without a JSON content type) by itself, and hands a
 * complete body to the route's handler. Certificates are read from files, checked with
 * gp_tls_check_pair(), and swapped without dropping connections when the files change: each new
 * TLS handshake uses the pair in force at that moment (GnuTLS certificate callback). A pair that
 * fails the checks is refused and the old one stays in force.
 *
 * Details of the contract:
 * - Routing: exact path, or for suffix routes any path ending in "/" + the route's last segment;
 *   the query string never takes part. Error bodies are {"error":"<what went wrong>"}.
 * - Errors found from the request line and headers (404, 405, 415, 413 by Content-Length) are
 *   answered without reading the body: at once, then closing the connection, when the request
 *   announced a body; keeping the connection otherwise. A chunked body is collected up to
 *   max_body; past it the rest is read and thrown away, then answered with 413 when it ends
 *   (libmicrohttpd 0.9.75 cannot answer in the middle of a body), or the connection is closed
 *   once 4 MiB more have been thrown away.
 * - The server never answers 5xx by itself; a handler's status outside 100-599 becomes 500.
 * - Timeouts: idle_timeout_s closes a connection with no traffic. request_timeout_s (gp_conntrack,
 *   lib/conntrack.c) closes a connection whose request is not whole in time: one whose TLS
 *   handshake or headers are still trickling in that long after their first byte, and one whose
 *   body is not whole that long after its headers (no response;
 *   gpupack_http_request_timeouts_total{server,phase="request|body"}, a warning at most every
 *   10 s). A connection that goes quiet before its headers (an idle keep-alive or freshly
 *   handshaken one, a stall) is left to the idle timeout. Headers over about 60 KiB get 431 from
 *   libmicrohttpd.
 * - TLS: 1.2 and 1.3 only. With client_ca_file, every handshake requires a client certificate
 *   that verifies against that CA (a client without one fails the handshake), and each request
 *   checks it again (403 otherwise).
 * - Connections: one thread accepts and gives each connection to the serving thread with the
 *   fewest open connections; it stays there. Past max_connections a new connection is closed on
 *   arrival (gpupack_http_connections_refused_total{server}, a warning at most every 10 s).
 * - Metrics (when metrics is set): gpupack_http_requests_total{server,route,code} and
 *   gpupack_http_request_duration_seconds{server,route}, where route is the route's path or
 *   "unknown" (never the raw path) and code is "none" when no response was sent;
 *   gpupack_tls_certificate_expiry_timestamp_seconds (notAfter in force) and
 *   gpupack_tls_reloads_total{result="success|failure"}.
 * - Logs (when log is set): one access line per request (debug for < 400, info for 4xx, warn
 *   otherwise), certificate loads and refusals, libmicrohttpd's own messages. */
#ifndef GPUPACK_SERVER_H
#define GPUPACK_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpupack/log.h"
#include "gpupack/metrics.h"
#include "gpupack/status.h"

typedef struct {
    const char *method;       /* "GET", "POST", ... */
    const char *path;         /* without the query string */
    const char *content_type; /* NULL when absent */
    const char *body;         /* NUL-terminated; "" for GET */
    size_t body_len;
} gp_http_request;

typedef struct {
    int status;               /* defaults to 200 */
    char *body;               /* malloc'd by the handler; the server frees it */
    size_t body_len;
    const char *content_type; /* a string constant; default "application/json" */
} gp_http_response;

typedef void (*gp_http_handler)(void *ctx, const gp_http_request *req, gp_http_response *resp);

typedef struct {
    const char *path;   /* "/mutate" */
    const char *method; /* "POST" or "GET" */
    bool suffix;        /* also match any path ending in "/" + path's last segment, e.g.
                           "/gpupack/filter" for "/filter" */
    bool json_body;     /* the route takes a JSON body (415 otherwise) */
    gp_http_handler fn;
    void *ctx;
} gp_route;

typedef struct {
    const char *host;             /* numeric: "127.0.0.1", "0.0.0.0", "::" (dual stack), "::1";
                                     NULL means "0.0.0.0" */
    int port;                     /* 0: pick a free port (see gp_server_port) */
    const char *cert_file;        /* NULL with key_file NULL: plain HTTP */
    const char *key_file;
    const char *client_ca_file;   /* NULL: no client certificates asked; else required */
    size_t max_body;              /* bytes, 1 to 1 GiB */
    unsigned threads;             /* serving threads; 0 means 1 */
    unsigned idle_timeout_s;      /* keep-alive idle connection timeout; 0: none */
    unsigned request_timeout_s;   /* a request must arrive whole within this; 0: no limit */
    unsigned max_connections;     /* open at once; 0: libmicrohttpd's default per thread */
    unsigned cert_reload_ms;      /* poll interval for certificate changes (inotify is
                                     immediate); 0 means 1000 */
    const gp_route *routes;       /* copied, with their path and method strings; at most 64;
                                     paths must start with '/' and hold no quote or backslash */
    size_t nroutes;
    gp_metrics *metrics;          /* may be NULL; not owned */
    gp_log *log;                  /* may be NULL; not owned */
    const char *name;             /* "webhook" or "extender", for logs and metric labels;
                                     NULL means "server" */
    const char *listen_flag;      /* what errors about host and port start with, e.g. the flag
                                     that gave them ("--listen"); NULL means "server"; copied */
    const char *cert_flag;        /* likewise for cert_file ("--tls-cert"), key_file and
                                     client_ca_file; NULL means "certificate file", "key file" */
    const char *key_flag;         /* and "client CA file"; copied */
    const char *client_ca_flag;
} gp_server_config;

typedef struct gp_server gp_server;

/* Checks a listen address as gp_server_start() takes it, touching no socket: "HOST:PORT" or
 * "[V6]:PORT" (gp_split_hostport()) whose host is a numeric IPv4 or IPv6 address (a name such as
 * localhost is not resolved) and whose port is 0-65535 (0: the kernel picks). Copies the host,
 * without brackets, into host (hostsz bytes) and sets *port. GP_EINVAL with what is wrong
 * otherwise; the message does not name the flag, which the caller prefixes. */
gp_status gp_server_parse_listen(const char *s, char *host, size_t hostsz, int *port,
                                 gp_err *err) GP_WUR;

/* Binds and starts serving; all strings and routes in cfg are copied. The certificate files are
 * read and checked before any socket is bound. Returns GP_EIO with the address and reason when
 * it cannot bind, GP_EINVAL when the configuration is invalid or the certificate pair or client
 * CA fails its checks, the file read error when a file cannot be read. Errors about a file name
 * the one to blame as "FLAG: FILE: reason" (cert_flag, key_flag, client_ca_flag): the
 * certificate's own problems first, then the key's; "KEYFLAG: KEY: private key does not match
 * the certificate in CERTFLAG CERT". On failure *out is NULL. The caller stops the server with
 * gp_server_stop(). */
gp_status gp_server_start(const gp_server_config *cfg, gp_server **out, gp_err *err) GP_WUR;

/* The port actually bound (the kernel's pick when cfg.port was 0); -1 for NULL. */
int gp_server_port(const gp_server *s);

/* Re-reads the certificate files now (also done automatically when they change). On success the
 * new pair serves every later handshake; open connections keep theirs. On failure the old pair
 * stays in force and the error says why. Either way the result is logged and counted. GP_OK and
 * nothing else for a plain-HTTP server. Thread-safe. */
gp_status gp_server_reload_certs(gp_server *s, gp_err *err) GP_WUR;

/* True when serving plain HTTP, or when the pair in force is valid now. */
bool gp_server_tls_ready(gp_server *s);

/* The start of a shutdown: from now on every response carries "Connection: close", so that a
 * keep-alive client (kube-apiserver's pooled connections) sends its next request over a new
 * connection, to an endpoint that is not going away. Calling it again is harmless. */
void gp_server_drain(gp_server *s);

/* Stops accepting new connections (quiesce: new connection attempts are refused), then waits
 * until no request is in flight (begun and not yet answered and sent), for at most
 * request_timeout_s (10 s when it is 0), so that gp_server_stop() cuts no request off. The open
 * connections are still served meanwhile. Calling it again is harmless. */
void gp_server_quiesce(gp_server *s);

/* Stops the watcher and the daemon (closing every connection) and frees the server, certificate
 * pairs included. NULL is harmless. */
void gp_server_stop(gp_server *s);

#endif
