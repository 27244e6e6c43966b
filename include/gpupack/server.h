/* The HTTP(S) server both daemons use: libmicrohttpd with a thread pool, GnuTLS limited to TLS 1.2
 * and 1.3, keep-alive, timeouts, a body cap, routing, metrics and access logs.
 *
 * The server owns transport concerns only: it answers 404 (unknown path), 405 (known path, wrong
 * method, with an Allow header), 413 (body over max_body, decided from Content-Length before
 * reading when present), 415 (a body route without a JSON content type) by itself, and hands a
 * complete body to the route's handler. Certificates are read from files, checked with
 * gp_tls_check_pair(), and swapped without dropping connections when the files change: each new
 * TLS handshake uses the pair in force at that moment (GnuTLS certificate callback). A pair that
 * fails the checks is refused and the old one stays in force. */
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
    const char *host;             /* "127.0.0.1", "0.0.0.0", "::" */
    int port;                     /* 0: pick a free port (see gp_server_port) */
    const char *cert_file;        /* NULL with key_file NULL: plain HTTP */
    const char *key_file;
    const char *client_ca_file;   /* NULL: no client certificates asked */
    size_t max_body;              /* bytes */
    unsigned threads;             /* thread pool size, >= 1 */
    unsigned idle_timeout_s;      /* keep-alive idle connection timeout */
    unsigned request_timeout_s;   /* a request must arrive whole within this */
    unsigned max_connections;
    unsigned cert_reload_ms;      /* poll interval for certificate changes */
    const gp_route *routes;       /* copied */
    size_t nroutes;
    gp_metrics *metrics;          /* may be NULL; not owned */
    gp_log *log;                  /* may be NULL; not owned */
    const char *name;             /* "webhook" or "extender", for logs */
} gp_server_config;

typedef struct gp_server gp_server;

/* Binds and starts serving. Returns GP_EIO with the address and reason when it cannot bind,
 * GP_EINVAL when the certificate pair fails its checks. */
gp_status gp_server_start(const gp_server_config *cfg, gp_server **out, gp_err *err) GP_WUR;

/* The port actually bound. */
int gp_server_port(const gp_server *s);

/* Re-reads the certificate files now (also done automatically when they change). */
gp_status gp_server_reload_certs(gp_server *s, gp_err *err) GP_WUR;

/* True when serving plain HTTP, or when the pair in force is valid now. */
bool gp_server_tls_ready(gp_server *s);

/* Stops accepting new connections (quiesce) but keeps serving in-flight requests. */
void gp_server_quiesce(gp_server *s);

/* Stops and frees the server. NULL is harmless. */
void gp_server_stop(gp_server *s);

#endif
