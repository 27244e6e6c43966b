/* SPDX-License-Identifier: Apache-2.0 */
/* The HTTP(S) server (the contract is in include/gpupack/server.h).
 *
 * Threads: cfg.threads libmicrohttpd daemons without a listening socket of their own (shards),
 * each with one polling thread (poll(), see daemon_flags()); the access handler, the
 * request-completed callback and the TLS certificate callback run on them. One listener thread
 * (lib/listener.c) accepts and gives each connection to the shard with the fewest open
 * connections, so connections are spread
 * evenly over the threads however they arrive (libmicrohttpd's own pool lets the first thread to
 * wake take a whole burst: 32 connections opened at once were seen split 32/0/0/0 over four
 * threads, and a connection stays on its thread). The certificate watcher (gp_watch) runs on its
 * own thread and reloads through gp_server_reload_certs().
 *
 * A request's life: the first call of the access handler routes it and decides the transport
 * errors (404, 405, 415, 413 from Content-Length, 403 without a valid client certificate); later
 * calls append the body to a growable buffer capped at max_body; the last call hands the complete
 * body to the route's handler, or sends the error decided earlier. Everything the request owns is
 * freed in on_completed(), which also records its metrics and its access-log line.
 *
 * TLS: the pair in force is an immutable snapshot (tls_pair) swapped under tls_mu. GnuTLS keeps
 * using the pcert and private key it got from the certificate callback while the handshake runs,
 * and the callback cannot take a reference it could later drop, so a swapped-out pair is retired,
 * not freed: retired pairs are freed once they have been out of force for longer than any
 * handshake can last (see retire_grace_s()), or at stop. */
#include "gpupack/server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <gnutls/abstract.h>
#include <gnutls/gnutls.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "gpupack/conntrack.h"
#include "gpupack/fileio.h"
#include "gpupack/flags.h"
#include "gpupack/listener.h"
#include "gpupack/strbuf.h"
#include "gpupack/tlsfiles.h"
#include "gpupack/watchfs.h"

#define TLS_PRIORITIES                                                                        \
    "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2:-CIPHER-ALL:+AES-256-GCM:+AES-128-GCM:"       \
    "+CHACHA20-POLY1305:-MAC-ALL:+AEAD:-KX-ALL:+ECDHE-ECDSA:+ECDHE-RSA:%SERVER_PRECEDENCE"
#define TLS_MAX_CHAIN 8                 /* certificates in the served chain */
#define TLS_RETIRE_MIN_S 60             /* a retired pair lives at least this long */
/* Per connection (MHD's default): headers up to ~28 KiB; larger get a 431 from MHD. MHD zeroes
 * it for every request, so it is no larger than requests need (64 KiB took ~4% of a review). */
#define CONN_MEMORY_LIMIT (32 * 1024)
#define MAX_DRAIN (4u * 1024 * 1024)    /* body bytes discarded before closing instead of a 413 */
#define MAX_ROUTES 64
#define MAX_NAME 64                     /* server name and route paths, used in metric labels */
#define MHD_MSG_MAX 256

#define M_REQUESTS "gpupack_http_requests_total"
#define M_REQUESTS_HELP "HTTP requests answered, by server, route and status code."
#define M_DURATION "gpupack_http_request_duration_seconds"
#define M_DURATION_HELP "Time from a request's headers to its completion."
#define M_EXPIRY "gpupack_tls_certificate_expiry_timestamp_seconds"
#define M_EXPIRY_HELP "notAfter of the serving certificate in force, Unix seconds."
#define M_RELOADS "gpupack_tls_reloads_total"
#define M_RELOADS_HELP "Certificate reloads, by result; a failed reload keeps the old pair."
#define M_REFUSED "gpupack_http_connections_refused_total"
#define M_REFUSED_HELP "Connections closed on arrival because max_connections were open."
#define REFUSED_LOG_EVERY_S 10 /* the warning for refused connections, at most this often */

/* One certificate chain and its key, immutable once built. refs counts its holders: the server
 * while the pair is current or retired, plus readers between tls_current() and tls_pair_unref(). */
typedef struct tls_pair {
    unsigned refs; /* guarded by the owning server's tls_mu */
    gnutls_pcert_st pcert[TLS_MAX_CHAIN];
    unsigned npcert;
    gnutls_privkey_t key;
    gp_cert_info info;
    time_t retired_at;     /* CLOCK_MONOTONIC seconds */
    struct tls_pair *next; /* in the retired list */
} tls_pair;

/* One libmicrohttpd daemon and its polling thread. */
typedef struct {
    struct MHD_Daemon *daemon;
    atomic_uint conns; /* open connections, counted by on_connection() */
    struct gp_server *server;
} shard;

struct gp_server {
    gp_server_config cfg; /* strings and routes point into this struct's own copies */
    gp_route routes[MAX_ROUTES];
    /* per route, found on its first request: requests with code 200, and durations */
    _Atomic(void *) route_ok[MAX_ROUTES];       /* gp_counter */
    _Atomic(void *) route_duration[MAX_ROUTES]; /* gp_histogram */
    char *strings;        /* one block holding every copied string */
    shard *shards;        /* cfg.threads of them */
    unsigned nshards;     /* started */
    gp_listener *listener; /* NULL once quiesced */
    atomic_bool closing;  /* gp_server_drain(): every response closes its connection */
    gp_conntrack *deadlines; /* request_timeout_s from each request's first byte */
    time_t cut_logged;    /* CLOCK_MONOTONIC s of the last cut warning; deadlines' thread */
    atomic_uint inflight; /* requests begun and not yet completed (on_completed) */
    unsigned next_shard;  /* where the least-busy search starts; listener thread only */
    time_t refused_logged; /* CLOCK_MONOTONIC s of the last refusal warning; listener only */
    int port;
    union {
        struct sockaddr_in v4;
        struct sockaddr_in6 v6;
    } addr;
    bool wildcard, dual_stack;

    bool tls;
    char *client_ca; /* PEM, for MHD_OPTION_HTTPS_MEM_TRUST */
    pthread_mutex_t tls_mu;
    tls_pair *cur;
    tls_pair *retired;
    pthread_mutex_t reload_mu; /* one reload at a time */
    gp_watch *watch;

    pthread_mutex_t msg_mu;
    char mhd_msg[MHD_MSG_MAX]; /* libmicrohttpd's last log message, for start errors */

    struct gp_server *reg_next;
};

/* Per-request state, created on the first call of the access handler. */
typedef struct {
    const gp_route *route; /* NULL when no route matched the path */
    const char *route_label;
    struct timespec t0;
    int error;             /* a status decided before the handler, or 0 */
    int code;              /* the status queued, or 0 */
    bool queued;
    gp_strbuf body;        /* at most max_body bytes */
    size_t drained;        /* bytes discarded after the body passed max_body */
    char method[16];       /* for the access log */
    char path[160];
} req_ctx;

/* ---------------------------------------------------------------------------------------------
 * The server registry.
 *
 * GnuTLS calls the certificate callback with the session only: libmicrohttpd passes no user
 * pointer (MHD_OPTION_HTTPS_CERT_CALLBACK takes a bare gnutls_certificate_retrieve_function2).
 * libmicrohttpd sets the session's transport to the connection's socket, so the callback finds
 * its server from the socket's local address (public GnuTLS and socket calls only; the session
 * leads to the MHD_Connection, and so to the daemon, only through libmicrohttpd internals). This list, guarded by its mutex, is the one piece
 * of mutable static state in the library; it holds no data of its own, only which running server
 * owns which listening address. Lock order: registry_mu, then a server's tls_mu.
 * ------------------------------------------------------------------------------------------- */

static pthread_mutex_t registry_mu = PTHREAD_MUTEX_INITIALIZER;
static gp_server *registry;

static void registry_add(gp_server *s)
{
    pthread_mutex_lock(&registry_mu);
    s->reg_next = registry;
    registry = s;
    pthread_mutex_unlock(&registry_mu);
}

/* The port is read by the certificate callback under registry_mu, so it is written under it. */
static void registry_set_port(gp_server *s, int port)
{
    pthread_mutex_lock(&registry_mu);
    s->port = port;
    pthread_mutex_unlock(&registry_mu);
}

static void registry_remove(gp_server *s)
{
    pthread_mutex_lock(&registry_mu);
    for (gp_server **p = &registry; *p != NULL; p = &(*p)->reg_next) {
        if (*p == s) {
            *p = s->reg_next;
            break;
        }
    }
    pthread_mutex_unlock(&registry_mu);
}

static bool v4_mapped_equal(const struct in6_addr *a6, const struct in_addr *a4)
{
    return IN6_IS_ADDR_V4MAPPED(a6) && memcmp(&a6->s6_addr[12], &a4->s_addr, 4) == 0;
}

/* Whether a connection whose local address is `local` was accepted by s. */
static bool server_owns(const gp_server *s, const struct sockaddr_storage *local)
{
    const struct sockaddr_in *l4 = (const struct sockaddr_in *)local;
    const struct sockaddr_in6 *l6 = (const struct sockaddr_in6 *)local;
    bool s6 = s->addr.v4.sin_family == AF_INET6;

    if (local->ss_family == AF_INET) {
        if (ntohs(l4->sin_port) != s->port || (s6 && !s->dual_stack))
            return false;
        return s->wildcard || (!s6 && l4->sin_addr.s_addr == s->addr.v4.sin_addr.s_addr);
    }
    if (local->ss_family != AF_INET6 || ntohs(l6->sin6_port) != s->port)
        return false;
    if (!s6)
        return false;
    if (s->wildcard)
        return true;
    return memcmp(&l6->sin6_addr, &s->addr.v6.sin6_addr, sizeof(struct in6_addr)) == 0 ||
           v4_mapped_equal(&l6->sin6_addr, &s->addr.v4.sin_addr);
}

static gp_server *registry_find_locked(gnutls_session_t session)
{
    struct sockaddr_storage local;
    socklen_t len = sizeof(local);
    int fd = gnutls_transport_get_int(session);

    if (fd < 0 || getsockname(fd, (struct sockaddr *)&local, &len) != 0)
        return NULL;
    for (gp_server *s = registry; s != NULL; s = s->reg_next)
        if (s->tls && server_owns(s, &local))
            return s;
    return NULL;
}

/* ---------------------------------------------------------------------------------------------
 * Certificate pairs.
 * ------------------------------------------------------------------------------------------- */

static time_t mono_now(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec;
}

static void tls_pair_destroy(tls_pair *p)
{
    for (unsigned i = 0; i < p->npcert; i++)
        gnutls_pcert_deinit(&p->pcert[i]);
    if (p->key != NULL)
        gnutls_privkey_deinit(p->key);
    free(p);
}

/* Drops one reference; call with tls_mu held. */
static void tls_pair_unref_locked(tls_pair *p)
{
    if (p != NULL && --p->refs == 0)
        tls_pair_destroy(p);
}

static void tls_pair_unref(gp_server *s, tls_pair *p)
{
    pthread_mutex_lock(&s->tls_mu);
    tls_pair_unref_locked(p);
    pthread_mutex_unlock(&s->tls_mu);
}

/* The pair in force with a reference the caller drops with tls_pair_unref(), or NULL. */
static tls_pair *tls_current(gp_server *s)
{
    tls_pair *p;

    pthread_mutex_lock(&s->tls_mu);
    p = s->cur;
    if (p != NULL)
        p->refs++;
    pthread_mutex_unlock(&s->tls_mu);
    return p;
}

/* How long a retired pair is kept: a handshake that was handed a pair either completes or is
 * closed by the idle timeout, so the grace period outlasts both. */
static time_t retire_grace_s(const gp_server *s)
{
    return TLS_RETIRE_MIN_S + (time_t)s->cfg.idle_timeout_s;
}

/* Frees retired pairs whose grace period is over (all of them when force); tls_mu held. */
static void tls_sweep_locked(gp_server *s, bool force)
{
    time_t now = mono_now();
    tls_pair **pp = &s->retired;

    while (*pp != NULL) {
        tls_pair *p = *pp;

        if (force || now - p->retired_at >= retire_grace_s(s)) {
            *pp = p->next;
            tls_pair_unref_locked(p);
        } else {
            pp = &p->next;
        }
    }
}

/* Puts fresh in force (taking over the caller's reference) and retires the old pair. */
static void tls_swap(gp_server *s, tls_pair *fresh)
{
    pthread_mutex_lock(&s->tls_mu);
    if (s->cur != NULL) {
        s->cur->retired_at = mono_now();
        s->cur->next = s->retired;
        s->retired = s->cur;
    }
    s->cur = fresh;
    tls_sweep_locked(s, false);
    pthread_mutex_unlock(&s->tls_mu);
}

static gp_status tls_import(tls_pair *p, const char *cert, size_t clen, const char *key,
                            size_t klen, gp_err *err)
{
    gnutls_datum_t cd = { (unsigned char *)cert, (unsigned)clen };
    gnutls_datum_t kd = { (unsigned char *)key, (unsigned)klen };
    unsigned n = TLS_MAX_CHAIN;
    int rc = gnutls_pcert_list_import_x509_raw(p->pcert, &n, &cd, GNUTLS_X509_FMT_PEM, 0);

    if (rc < 0) {
        p->info.fault = GP_TLS_FAULT_CERT;
        gp_err_set(err, "GnuTLS cannot load the certificate chain (at most %d): %s",
                   TLS_MAX_CHAIN, gnutls_strerror(rc));
        return GP_EINVAL;
    }
    p->npcert = n;
    if ((rc = gnutls_privkey_init(&p->key)) < 0 ||
        (rc = gnutls_privkey_import_x509_raw(p->key, &kd, GNUTLS_X509_FMT_PEM, NULL, 0)) < 0) {
        p->info.fault = GP_TLS_FAULT_KEY;
        gp_err_set(err, "GnuTLS cannot load the private key: %s", gnutls_strerror(rc));
        return GP_EINVAL;
    }
    return GP_OK;
}

static void free_secret(char *buf, size_t len)
{
    if (buf != NULL)
        explicit_bzero(buf, len);
    free(buf);
}

/* Prefixes err with "FLAG: FILE" (what gp_server_config names the file by, and the file). */
static void blame_file(const char *flag, const char *file, gp_err *err)
{
    char prefix[GP_ERR_MAX];

    snprintf(prefix, sizeof(prefix), "%s: %s", flag, file);
    gp_err_prefix(err, prefix);
}

/* Names in err the file of the pair that fault blames. */
static void blame_pair(const gp_server_config *c, gp_tls_fault fault, gp_err *err)
{
    if (fault == GP_TLS_FAULT_MISMATCH)
        gp_err_set(err, "%s: %s: private key does not match the certificate in %s %s",
                   c->key_flag, c->key_file, c->cert_flag, c->cert_file);
    else if (fault == GP_TLS_FAULT_KEY)
        blame_file(c->key_flag, c->key_file, err);
    else
        blame_file(c->cert_flag, c->cert_file, err);
}

/* Reads, checks and imports the configured pair into a new snapshot (one reference). Errors
 * start with the flag and file to blame. */
static gp_status tls_load(const gp_server *s, tls_pair **out, gp_err *err)
{
    char *cert = NULL, *key = NULL;
    size_t clen = 0, klen = 0;
    tls_pair *p = NULL;
    gp_status st;

    if ((st = gp_file_read(s->cfg.cert_file, GP_TLS_MAX_PEM, &cert, &clen, err)) != GP_OK ||
        (st = gp_file_read(s->cfg.key_file, GP_TLS_MAX_PEM, &key, &klen, err)) != GP_OK) {
        gp_err_prefix(err, cert == NULL ? s->cfg.cert_flag : s->cfg.key_flag);
        goto fail;
    }
    if ((p = calloc(1, sizeof(*p))) == NULL) {
        st = GP_ENOMEM;
        gp_err_set(err, "out of memory");
        goto fail;
    }
    st = gp_tls_check_pair(cert, clen, key, klen, (int64_t)time(NULL), &p->info, err);
    if (st != GP_OK || (st = tls_import(p, cert, clen, key, klen, err)) != GP_OK) {
        st = st == GP_ENOMEM ? st : GP_EINVAL;
        blame_pair(&s->cfg, p->info.fault, err);
        goto fail;
    }
    p->refs = 1;
    *out = p;
    p = NULL;
fail:
    if (p != NULL)
        tls_pair_destroy(p);
    free(cert);
    free_secret(key, klen);
    return st;
}

/* The GnuTLS certificate callback: hands out the pair in force for this handshake. With a client
 * CA configured it also makes the handshake require a client certificate and verify it against
 * that CA (a client without one fails the handshake). */
static int cert_callback(gnutls_session_t session, const gnutls_datum_t *req_ca_dn, int nreqs,
                         const gnutls_pk_algorithm_t *pk_algos, int pk_algos_length,
                         gnutls_pcert_st **pcert, unsigned int *pcert_length,
                         gnutls_privkey_t *pkey)
{
    gp_server *s;
    int rc = -1;

    (void)req_ca_dn;
    (void)nreqs;
    (void)pk_algos;
    (void)pk_algos_length;
    pthread_mutex_lock(&registry_mu);
    s = registry_find_locked(session);
    if (s != NULL) {
        pthread_mutex_lock(&s->tls_mu);
        if (s->cur != NULL) {
            *pcert = s->cur->pcert;
            *pcert_length = s->cur->npcert;
            *pkey = s->cur->key;
            rc = 0;
        }
        pthread_mutex_unlock(&s->tls_mu);
        if (rc == 0 && s->client_ca != NULL) {
            gnutls_certificate_server_set_request(session, GNUTLS_CERT_REQUIRE);
            gnutls_session_set_verify_cert(session, NULL, 0);
        }
    }
    pthread_mutex_unlock(&registry_mu);
    return rc;
}

static void record_reload(gp_server *s, const char *result)
{
    char labels[32];

    snprintf(labels, sizeof(labels), "result=\"%s\"", result);
    gp_metrics_add(s->cfg.metrics, M_RELOADS, M_RELOADS_HELP, labels, 1);
}

static void log_pair(gp_server *s, const char *msg, const tls_pair *p)
{
    char nb[32], na[32];

    gp_tls_format_time(p->info.not_before, nb, sizeof(nb));
    gp_tls_format_time(p->info.not_after, na, sizeof(na));
    GP_LOG(s->cfg.log, GP_LOG_INFO, msg, GP_LS("server", s->cfg.name),
           GP_LS("cert_file", s->cfg.cert_file), GP_LS("subject", p->info.subject),
           GP_LS("issuer", p->info.issuer), GP_LS("sans", p->info.sans),
           GP_LS("key_type", p->info.key_type), GP_LS("not_before", nb), GP_LS("not_after", na));
}

gp_status gp_server_reload_certs(gp_server *s, gp_err *err)
{
    gp_err local = { { 0 } };
    tls_pair *fresh = NULL;
    gp_status st;

    if (s == NULL || !s->tls)
        return GP_OK;
    if (err == NULL)
        err = &local;
    pthread_mutex_lock(&s->reload_mu);
    st = tls_load(s, &fresh, err);
    if (st == GP_OK) {
        gp_metrics_set(s->cfg.metrics, M_EXPIRY, M_EXPIRY_HELP, "",
                       (double)fresh->info.not_after);
        log_pair(s, "tls certificate loaded", fresh);
        tls_swap(s, fresh);
        record_reload(s, "success");
    } else {
        GP_LOG(s->cfg.log, GP_LOG_ERROR, "tls certificate reload failed; keeping the old pair",
               GP_LS("server", s->cfg.name), GP_LS("cert_file", s->cfg.cert_file),
               GP_LS("key_file", s->cfg.key_file), GP_LS("error", err->msg));
        record_reload(s, "failure");
    }
    pthread_mutex_unlock(&s->reload_mu);
    return st;
}

static void on_cert_files_changed(void *ctx)
{
    gp_err err = { { 0 } };

    if (gp_server_reload_certs(ctx, &err) != GP_OK)
        return; /* logged and counted inside; the old pair stays in force */
}

bool gp_server_tls_ready(gp_server *s)
{
    tls_pair *p;
    int64_t now = (int64_t)time(NULL);
    bool ok;

    if (s == NULL)
        return false;
    if (!s->tls)
        return true;
    p = tls_current(s);
    ok = p != NULL && now >= p->info.not_before && now <= p->info.not_after;
    if (p != NULL)
        tls_pair_unref(s, p);
    return ok;
}

/* ---------------------------------------------------------------------------------------------
 * Routing and request checks.
 * ------------------------------------------------------------------------------------------- */

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);

    return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

static bool route_matches(const gp_route *r, const char *path)
{
    if (strcmp(r->path, path) == 0)
        return true;
    return r->suffix && ends_with(path, strrchr(r->path, '/'));
}

/* The route for (path, method). When the path is known under other methods only, returns NULL
 * and sets *known to the first route of that path. */
static const gp_route *route_find(const gp_server *s, const char *path, const char *method,
                                  const gp_route **known)
{
    *known = NULL;
    for (size_t i = 0; i < s->cfg.nroutes; i++) {
        const gp_route *r = &s->routes[i];

        if (!route_matches(r, path))
            continue;
        if (strcmp(r->method, method) == 0)
            return r;
        if (*known == NULL)
            *known = r;
    }
    return NULL;
}

/* The Allow header value: every method the path is served under, without repeats. */
static void allow_methods(const gp_server *s, const char *path, char *buf, size_t n)
{
    buf[0] = '\0';
    for (size_t i = 0; i < s->cfg.nroutes; i++) {
        const gp_route *r = &s->routes[i];
        bool seen = false;

        if (!route_matches(r, path))
            continue;
        for (size_t j = 0; j < i && !seen; j++)
            seen = route_matches(&s->routes[j], path) &&
                   strcmp(s->routes[j].method, r->method) == 0;
        if (!seen) {
            size_t used = strlen(buf);

            snprintf(buf + used, n - used, "%s%s", used ? ", " : "", r->method);
        }
    }
}

/* application/json, any case, optionally followed by parameters ("; charset=utf-8"). */
static bool is_json_type(const char *ct)
{
    static const char want[] = "application/json";
    const size_t n = sizeof(want) - 1;

    if (ct == NULL)
        return false;
    while (*ct == ' ' || *ct == '\t')
        ct++;
    if (strncasecmp(ct, want, n) != 0)
        return false;
    ct += n;
    return *ct == '\0' || *ct == ';' || *ct == ' ' || *ct == '\t';
}

/* The declared Content-Length, or -1 when absent or overridden by Transfer-Encoding. Values
 * past LLONG_MAX saturate (they are far over any cap); libmicrohttpd has already refused
 * malformed ones. */
static long long content_length(struct MHD_Connection *conn)
{
    const char *v =
        MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
    unsigned long long n = 0;

    if (v == NULL || MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
                                                 MHD_HTTP_HEADER_TRANSFER_ENCODING) != NULL)
        return -1;
    for (; *v == ' ' || *v == '\t'; v++)
        ;
    for (; *v >= '0' && *v <= '9'; v++) {
        if (n > (unsigned long long)(LLONG_MAX / 10 - 10))
            return LLONG_MAX;
        n = n * 10 + (unsigned)(*v - '0');
    }
    return (long long)n;
}

/* Whether the request announces a body (chunked, or a non-zero Content-Length). */
static bool has_body(struct MHD_Connection *conn)
{
    return content_length(conn) > 0 ||
           MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_TRANSFER_ENCODING) !=
               NULL;
}

/* With a client CA, a request is served only on a connection whose peer certificate verified
 * (the handshake already requires one; this is the same check, made where the request is). */
static bool client_cert_ok(const gp_server *s, struct MHD_Connection *conn)
{
    const union MHD_ConnectionInfo *ci;
    unsigned status = 0, npeers = 0;

    if (s->client_ca == NULL)
        return true;
    ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_GNUTLS_SESSION);
    if (ci == NULL || ci->tls_session == NULL)
        return false;
    if (gnutls_certificate_type_get(ci->tls_session) != GNUTLS_CRT_X509 ||
        gnutls_certificate_get_peers(ci->tls_session, &npeers) == NULL || npeers == 0)
        return false;
    return gnutls_certificate_verify_peers2(ci->tls_session, &status) == 0 && status == 0;
}

/* The transport error for a request, decided from its line and headers alone, or 0. */
static int early_error(const gp_server *s, struct MHD_Connection *conn, const req_ctx *r,
                       const gp_route *known)
{
    long long cl;

    if (!client_cert_ok(s, conn))
        return MHD_HTTP_FORBIDDEN;
    if (r->route == NULL)
        return known != NULL ? MHD_HTTP_METHOD_NOT_ALLOWED : MHD_HTTP_NOT_FOUND;
    if (r->route->json_body &&
        !is_json_type(MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
                                                  MHD_HTTP_HEADER_CONTENT_TYPE)))
        return MHD_HTTP_UNSUPPORTED_MEDIA_TYPE;
    cl = content_length(conn);
    if (cl >= 0 && (unsigned long long)cl > s->cfg.max_body)
        return MHD_HTTP_CONTENT_TOO_LARGE;
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Responses.
 * ------------------------------------------------------------------------------------------- */

/* The connection's deadline record (NULL when untracked). */
static gp_conn *conn_deadline(struct MHD_Connection *conn)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

    return ci != NULL ? ci->socket_context : NULL;
}

static enum MHD_Result queue(gp_server *s, struct MHD_Connection *conn, req_ctx *r, int status,
                             struct MHD_Response *resp)
{
    enum MHD_Result ret;

    if (resp == NULL)
        return MHD_NO;
    if (atomic_load_explicit(&s->closing, memory_order_relaxed))
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
    gp_conntrack_answering(conn_deadline(conn));
    ret = MHD_queue_response(conn, (unsigned)status, resp);
    MHD_destroy_response(resp);
    if (ret == MHD_YES) {
        r->queued = true;
        r->code = status;
    }
    return ret;
}

static const char *error_message(int status)
{
    switch (status) {
    case MHD_HTTP_FORBIDDEN: return "a client certificate signed by the client CA is required";
    case MHD_HTTP_NOT_FOUND: return "no route for this path";
    case MHD_HTTP_METHOD_NOT_ALLOWED: return "method not allowed for this path; see Allow";
    case MHD_HTTP_UNSUPPORTED_MEDIA_TYPE: return "Content-Type must be application/json";
    default: return "request failed";
    }
}

/* Sends {"error":"..."} for status. Sent on the first call (before any body was read), it makes
 * libmicrohttpd skip the body and close the connection after the response. */
static enum MHD_Result send_error(gp_server *s, struct MHD_Connection *conn, const char *url,
                                  req_ctx *r, int status)
{
    char msg[160], allow[128];
    struct MHD_Response *resp;
    int n;

    if (status == MHD_HTTP_CONTENT_TOO_LARGE)
        n = snprintf(msg, sizeof(msg), "{\"error\":\"request body larger than %zu bytes\"}",
                     s->cfg.max_body);
    else
        n = snprintf(msg, sizeof(msg), "{\"error\":\"%s\"}", error_message(status));
    resp = MHD_create_response_from_buffer((size_t)n, msg, MHD_RESPMEM_MUST_COPY);
    if (resp == NULL)
        return MHD_NO;
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json");
    if (status == MHD_HTTP_METHOD_NOT_ALLOWED) {
        allow_methods(s, url, allow, sizeof(allow));
        MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, allow);
    }
    return queue(s, conn, r, status, resp);
}

/* Wraps a handler's reply, taking its body (freed by libmicrohttpd after sending, or here). */
static struct MHD_Response *handler_response(gp_http_response *out)
{
    struct MHD_Response *resp;

    if (out->body != NULL && out->body_len > 0) {
        resp = MHD_create_response_from_buffer_with_free_callback(out->body_len, out->body, free);
        if (resp == NULL)
            free(out->body);
    } else {
        free(out->body);
        resp = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
    }
    if (resp != NULL)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE,
                                out->content_type ? out->content_type : "application/json");
    return resp;
}

/* Runs the route's handler on the complete body and sends what it returns. */
static enum MHD_Result dispatch(gp_server *s, struct MHD_Connection *conn, const char *url,
                                const char *method, req_ctx *r)
{
    gp_http_request req = {
        .method = method,
        .path = url,
        .content_type = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
                                                    MHD_HTTP_HEADER_CONTENT_TYPE),
        .body = r->body.p != NULL ? r->body.p : "",
        .body_len = r->body.len,
    };
    gp_http_response out = { 0 };

    r->route->fn(r->route->ctx, &req, &out);
    if (out.status < 100 || out.status > 599) {
        if (out.status != 0)
            GP_LOG(s->cfg.log, GP_LOG_ERROR, "handler returned an invalid status",
                   GP_LS("route", r->route_label), GP_LI("status", out.status));
        out.status = out.status == 0 ? MHD_HTTP_OK : MHD_HTTP_INTERNAL_SERVER_ERROR;
    }
    return queue(s, conn, r, out.status, handler_response(&out));
}

/* ---------------------------------------------------------------------------------------------
 * The access handler and the request-completed callback.
 * ------------------------------------------------------------------------------------------- */

static double seconds_since(const struct timespec *t0)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

static enum MHD_Result request_begin(gp_server *s, struct MHD_Connection *conn, const char *url,
                                     const char *method, void **con_cls)
{
    req_ctx *r = calloc(1, sizeof(*r));
    const gp_route *known;

    if (r == NULL)
        return MHD_NO;
    atomic_fetch_add_explicit(&s->inflight, 1, memory_order_relaxed);
    gp_conntrack_begun(conn_deadline(conn));
    gp_strbuf_init(&r->body, s->cfg.max_body + 1);
    clock_gettime(CLOCK_MONOTONIC, &r->t0);
    *con_cls = r;
    r->route = route_find(s, url, method, &known);
    r->route_label = r->route ? r->route->path : known ? known->path : "unknown";
    gp_copy_text(r->path, sizeof(r->path), url, strlen(url));
    gp_copy_text(r->method, sizeof(r->method), method, strlen(method));
    r->error = early_error(s, conn, r, known);
    if (r->error != 0 && (has_body(conn) || r->error == MHD_HTTP_FORBIDDEN))
        return send_error(s, conn, url, r, r->error); /* now, without reading the body */
    return MHD_YES; /* without a body, the last call answers and keeps the connection */
}

/* Takes one piece of the body. Past max_body the request becomes a 413 and the rest is
 * discarded (libmicrohttpd 0.9.75 cannot answer before the body ends); past MAX_DRAIN more bytes
 * the connection is closed instead. */
static enum MHD_Result request_absorb(gp_server *s, req_ctx *r, const char *data, size_t n)
{
    if (r->error == 0 && n > s->cfg.max_body - r->body.len)
        r->error = MHD_HTTP_CONTENT_TOO_LARGE;
    if (r->error != 0) {
        r->drained += n;
        return r->drained > MAX_DRAIN ? MHD_NO : MHD_YES;
    }
    gp_strbuf_put(&r->body, data, n);
    return r->body.failed ? MHD_NO : MHD_YES;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version,
                                  const char *upload_data, size_t *upload_data_size,
                                  void **con_cls)
{
    gp_server *s = cls;
    req_ctx *r = *con_cls;
    size_t n = *upload_data_size;

    (void)version;
    if (r == NULL)
        return request_begin(s, conn, url, method, con_cls);
    *upload_data_size = 0;
    if (r->queued)
        return MHD_YES;
    if (s->cfg.request_timeout_s > 0 && seconds_since(&r->t0) > s->cfg.request_timeout_s) {
        GP_LOG(s->cfg.log, GP_LOG_WARN, "request timed out before its body arrived",
               GP_LS("server", s->cfg.name), GP_LS("route", r->route_label),
               GP_LI("received", r->body.len + r->drained));
        return MHD_NO;
    }
    if (n > 0)
        return request_absorb(s, r, upload_data, n);
    gp_conntrack_answering(conn_deadline(conn)); /* the body is whole: no deadline for the rest */
    if (r->error != 0)
        return send_error(s, conn, url, r, r->error);
    return dispatch(s, conn, url, method, r);
}

/* The label set of r's series: server and route, and its status code when with_code. */
static void request_labels(const gp_server *s, const req_ctx *r, bool with_code, char *buf,
                           size_t n)
{
    if (!with_code)
        snprintf(buf, n, "server=\"%s\",route=\"%s\"", s->cfg.name, r->route_label);
    else if (r->code > 0)
        snprintf(buf, n, "server=\"%s\",route=\"%s\",code=\"%d\"", s->cfg.name,
                 r->route_label, r->code);
    else
        snprintf(buf, n, "server=\"%s\",route=\"%s\",code=\"none\"", s->cfg.name,
                 r->route_label);
}

/* r's route, as an index into s->routes; MAX_ROUTES when it matched none. */
static size_t route_index(const gp_server *s, const req_ctx *r)
{
    return r->route != NULL ? (size_t)(r->route - s->routes) : MAX_ROUTES;
}

/* The handle kept in *slot: r's route's counter for its code (counter) or its duration
 * histogram, looked up on the route's first request and kept for the next ones. */
static void *kept(gp_server *s, const req_ctx *r, _Atomic(void *) *slot, bool counter)
{
    char labels[3 * MAX_NAME + 64];
    void *h = atomic_load_explicit(slot, memory_order_acquire);

    if (h != NULL)
        return h;
    request_labels(s, r, counter, labels, sizeof(labels));
    h = counter ? (void *)gp_metrics_counter(s->cfg.metrics, M_REQUESTS, M_REQUESTS_HELP, labels)
                : (void *)gp_metrics_histogram(s->cfg.metrics, M_DURATION, M_DURATION_HELP,
                                               labels);
    atomic_store_explicit(slot, h, memory_order_release);
    return h;
}

/* The counter of r's route for code 200 (NULL for any other request), and the duration
 * histogram of r's route (NULL when it matched none). */
static gp_counter *route_ok(gp_server *s, const req_ctx *r)
{
    size_t i = route_index(s, r);

    return i < MAX_ROUTES && r->code == 200 ? kept(s, r, &s->route_ok[i], true) : NULL;
}

static gp_histogram *route_duration(gp_server *s, const req_ctx *r)
{
    size_t i = route_index(s, r);

    return i < MAX_ROUTES ? kept(s, r, &s->route_duration[i], false) : NULL;
}

/* Every route's series for code 200 and its durations, at zero from the start, so dashboards
 * and a grep of /metrics find them before the first request. */
static void preregister_routes(gp_server *s)
{
    for (size_t i = 0; i < s->cfg.nroutes; i++) {
        req_ctx r = { .route = &s->routes[i], .route_label = s->routes[i].path, .code = 200 };

        (void)route_ok(s, &r);
        (void)route_duration(s, &r);
    }
}

static void record_request(gp_server *s, const req_ctx *r, double secs)
{
    char labels[3 * MAX_NAME + 64];
    gp_counter *ok = route_ok(s, r);
    gp_histogram *h = route_duration(s, r);

    if (ok != NULL) {
        gp_counter_add(ok, 1);
    } else {
        request_labels(s, r, true, labels, sizeof(labels));
        gp_metrics_add(s->cfg.metrics, M_REQUESTS, M_REQUESTS_HELP, labels, 1);
    }
    if (h != NULL) {
        gp_histogram_observe(s->cfg.metrics, h, secs);
    } else {
        request_labels(s, r, false, labels, sizeof(labels));
        gp_metrics_observe(s->cfg.metrics, M_DURATION, M_DURATION_HELP, labels, secs);
    }
}

/* The access log: successes at debug level, client errors at info, the rest at warn. */
static void log_request(gp_server *s, const req_ctx *r, double secs,
                        enum MHD_RequestTerminationCode toe)
{
    gp_log_level level = r->code > 0 && r->code < 400 ? GP_LOG_DEBUG
                         : r->code >= 400 && r->code < 500 ? GP_LOG_INFO
                                                            : GP_LOG_WARN;

    GP_LOG(s->cfg.log, level, "http request", GP_LS("server", s->cfg.name),
           GP_LS("method", r->method), GP_LS("path", r->path), GP_LS("route", r->route_label),
           GP_LI("code", r->code), GP_LI("body_bytes", r->body.len + r->drained),
           GP_LF("duration_ms", secs * 1000.0),
           GP_LJ("completed", toe == MHD_REQUEST_TERMINATED_COMPLETED_OK ? "true" : "false"));
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    gp_server *s = cls;
    req_ctx *r = *con_cls;
    double secs;

    gp_conntrack_done(conn_deadline(conn));
    if (r == NULL)
        return;
    secs = seconds_since(&r->t0);
    record_request(s, r, secs);
    log_request(s, r, secs, toe);
    gp_strbuf_free(&r->body);
    free(r);
    *con_cls = NULL;
    atomic_fetch_sub_explicit(&s->inflight, 1, memory_order_relaxed);
}

static void on_mhd_log(void *cls, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

/* libmicrohttpd's own messages: kept (the last one explains a failed start) and logged. */
static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
    gp_server *s = cls;
    char msg[MHD_MSG_MAX];
    size_t n;

    vsnprintf(msg, sizeof(msg), fmt, ap);
    n = strlen(msg);
    while (n > 0 && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
        msg[--n] = '\0';
    pthread_mutex_lock(&s->msg_mu);
    memcpy(s->mhd_msg, msg, sizeof(msg));
    pthread_mutex_unlock(&s->msg_mu);
    GP_LOG(s->cfg.log, GP_LOG_WARN, "libmicrohttpd", GP_LS("server", s->cfg.name),
           GP_LS("detail", msg));
}

/* ---------------------------------------------------------------------------------------------
 * Start and stop.
 * ------------------------------------------------------------------------------------------- */

static bool label_safe(const char *v)
{
    return v != NULL && strlen(v) < MAX_NAME && strpbrk(v, "\"\\\n") == NULL;
}

static gp_status config_check(const gp_server_config *cfg, gp_err *err)
{
    if (cfg->max_body == 0 || cfg->max_body > ((size_t)1 << 30))
        gp_err_set(err, "server: max_body must be 1 byte to 1 GiB, not %zu", cfg->max_body);
    else if ((cfg->cert_file == NULL) != (cfg->key_file == NULL))
        gp_err_set(err, "server: cert_file and key_file go together");
    else if (cfg->client_ca_file != NULL && cfg->cert_file == NULL)
        gp_err_set(err, "server: client_ca_file needs cert_file and key_file");
    else if (cfg->nroutes > MAX_ROUTES || (cfg->nroutes > 0 && cfg->routes == NULL))
        gp_err_set(err, "server: at most %d routes", MAX_ROUTES);
    else if (cfg->name != NULL && !label_safe(cfg->name))
        gp_err_set(err, "server: name must be short, without quotes or backslashes");
    else
        return GP_OK;
    return GP_EINVAL;
}

static gp_status routes_check(const gp_server_config *cfg, gp_err *err)
{
    for (size_t i = 0; i < cfg->nroutes; i++) {
        const gp_route *r = &cfg->routes[i];

        if (r->path == NULL || r->path[0] != '/' || !label_safe(r->path) || r->method == NULL ||
            r->fn == NULL) {
            gp_err_set(err, "server: route %zu needs a short path starting with '/', a method "
                            "and a handler", i);
            return GP_EINVAL;
        }
    }
    return GP_OK;
}

/* Copies a string into the block at *pos; NULL stays NULL. */
static const char *copy_str(char **pos, const char *v)
{
    char *dst = *pos;

    if (v == NULL)
        return NULL;
    memcpy(dst, v, strlen(v) + 1);
    *pos += strlen(v) + 1;
    return dst;
}

static size_t str_size(const char *v)
{
    return v != NULL ? strlen(v) + 1 : 0;
}

static const char *or_default(const char *v, const char *dflt)
{
    return v != NULL ? v : dflt;
}

/* Makes the server's own copy of the configuration, its strings (defaults filled in) and its
 * routes. */
static gp_status config_copy(gp_server *s, const gp_server_config *cfg)
{
    const char *strs[] = {
        or_default(cfg->host, "0.0.0.0"), cfg->cert_file, cfg->key_file, cfg->client_ca_file,
        or_default(cfg->name, "server"), or_default(cfg->listen_flag, "server"),
        or_default(cfg->cert_flag, "certificate file"), or_default(cfg->key_flag, "key file"),
        or_default(cfg->client_ca_flag, "client CA file"),
    };
    const char **dst[] = {
        &s->cfg.host, &s->cfg.cert_file, &s->cfg.key_file, &s->cfg.client_ca_file, &s->cfg.name,
        &s->cfg.listen_flag, &s->cfg.cert_flag, &s->cfg.key_flag, &s->cfg.client_ca_flag,
    };
    size_t total = 0;
    char *pos;

    for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
        total += str_size(strs[i]);
    for (size_t i = 0; i < cfg->nroutes; i++)
        total += str_size(cfg->routes[i].path) + str_size(cfg->routes[i].method);
    if ((s->strings = pos = malloc(total)) == NULL)
        return GP_ENOMEM;
    s->cfg = *cfg;
    for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
        *dst[i] = copy_str(&pos, strs[i]);
    for (size_t i = 0; i < cfg->nroutes; i++) {
        s->routes[i] = cfg->routes[i];
        s->routes[i].path = copy_str(&pos, cfg->routes[i].path);
        s->routes[i].method = copy_str(&pos, cfg->routes[i].method);
    }
    s->cfg.routes = s->routes;
    s->cfg.threads = cfg->threads > 0 ? cfg->threads : 1;
    return GP_OK;
}

gp_status gp_server_parse_listen(const char *s, char *host, size_t hostsz, int *port, gp_err *err)
{
    unsigned char addr[sizeof(struct in6_addr)];

    if (gp_split_hostport(s, host, hostsz, port, err) != GP_OK)
        return GP_EINVAL;
    if (inet_pton(AF_INET, host, addr) == 1 || inet_pton(AF_INET6, host, addr) == 1)
        return GP_OK;
    gp_err_set(err, "host \"%.64s\" is not a numeric IPv4 or IPv6 address (names are not "
                    "resolved; e.g. 127.0.0.1:8443 or [::1]:8443)", host);
    return GP_EINVAL;
}

/* Fills s->addr from host ("127.0.0.1", "::", "[::1]") and port. */
static gp_status parse_host(gp_server *s, gp_err *err)
{
    char host[INET6_ADDRSTRLEN + 2];
    size_t n = strlen(s->cfg.host);
    const char *h = s->cfg.host;

    if (n >= 2 && h[0] == '[' && h[n - 1] == ']' && n - 2 < sizeof(host)) {
        memcpy(host, h + 1, n - 2);
        host[n - 2] = '\0';
    } else {
        snprintf(host, sizeof(host), "%s", h);
    }
    if (s->cfg.port < 0 || s->cfg.port > 65535) {
        gp_err_set(err, "%s: port %d out of range 0-65535", s->cfg.listen_flag, s->cfg.port);
        return GP_EINVAL;
    }
    if (inet_pton(AF_INET, host, &s->addr.v4.sin_addr) == 1) {
        s->addr.v4.sin_family = AF_INET;
        s->addr.v4.sin_port = htons((uint16_t)s->cfg.port);
        s->wildcard = s->addr.v4.sin_addr.s_addr == htonl(INADDR_ANY);
        return GP_OK;
    }
    if (inet_pton(AF_INET6, host, &s->addr.v6.sin6_addr) == 1) {
        s->addr.v6.sin6_family = AF_INET6;
        s->addr.v6.sin6_port = htons((uint16_t)s->cfg.port);
        s->wildcard = s->dual_stack = IN6_IS_ADDR_UNSPECIFIED(&s->addr.v6.sin6_addr);
        return GP_OK;
    }
    gp_err_set(err, "%s: host \"%s\" is not a numeric IPv4 or IPv6 address", s->cfg.listen_flag,
               s->cfg.host);
    return GP_EINVAL;
}

static gp_status tls_setup(gp_server *s, gp_err *err)
{
    size_t len;
    gp_status st;

    s->tls = true;
    if ((st = tls_load(s, &s->cur, err)) != GP_OK)
        return st;
    gp_metrics_set(s->cfg.metrics, M_EXPIRY, M_EXPIRY_HELP, "", (double)s->cur->info.not_after);
    gp_metrics_add(s->cfg.metrics, M_RELOADS, M_RELOADS_HELP, "result=\"success\"", 0);
    gp_metrics_add(s->cfg.metrics, M_RELOADS, M_RELOADS_HELP, "result=\"failure\"", 0);
    log_pair(s, "tls certificate loaded", s->cur);
    if (s->cfg.client_ca_file == NULL)
        return GP_OK;
    /* Read once: a CA without a certificate would fail every handshake, so it stops the start. */
    if ((st = gp_file_read(s->cfg.client_ca_file, GP_TLS_MAX_PEM, &s->client_ca, &len, err)) !=
        GP_OK) {
        gp_err_prefix(err, s->cfg.client_ca_flag);
        return st;
    }
    if ((st = gp_tls_check_ca(s->client_ca, len, NULL, err)) != GP_OK)
        blame_file(s->cfg.client_ca_flag, s->cfg.client_ca_file, err);
    return st;
}

/* ---------------------------------------------------------------------------------------------
 * Shards and the listener.
 * ------------------------------------------------------------------------------------------- */

/* libmicrohttpd tells a shard when a connection it was given ends. It is counted when handed
 * over (on_accept), not when libmicrohttpd says it started: that happens later, on the shard's
 * thread, and a burst of connections would all see the counts of before the burst. */
static void on_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
                          enum MHD_ConnectionNotificationCode code)
{
    shard *sh = cls;
    const union MHD_ConnectionInfo *ci;

    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
        *socket_context = ci != NULL ? gp_conntrack_add(sh->server->deadlines, ci->connect_fd)
                                     : NULL;
    } else if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
        gp_conntrack_remove(sh->server->deadlines, *socket_context);
        *socket_context = NULL;
        atomic_fetch_sub_explicit(&sh->conns, 1, memory_order_relaxed);
    }
}

/* The shard with the fewest open connections, searched from a rotating start so that ties are
 * spread too; sets *total to the connections open over all shards. */
static shard *least_busy(gp_server *s, unsigned *total)
{
    shard *best = NULL;
    unsigned best_n = UINT_MAX;

    *total = 0;
    for (unsigned i = 0; i < s->nshards; i++) {
        shard *sh = &s->shards[(s->next_shard + i) % s->nshards];
        unsigned n = atomic_load_explicit(&sh->conns, memory_order_relaxed);

        *total += n;
        if (n < best_n) {
            best = sh;
            best_n = n;
        }
    }
    s->next_shard = (s->next_shard + 1) % s->nshards;
    return best;
}

static void count_refused(gp_server *s, double n)
{
    char label[MAX_NAME + 16];

    snprintf(label, sizeof(label), "server=\"%s\"", s->cfg.name);
    gp_metrics_add(s->cfg.metrics, M_REFUSED, M_REFUSED_HELP, label, n);
}

#define M_CUT "gpupack_http_request_timeouts_total"
#define M_CUT_HELP "Connections closed because a request was not whole within the request " \
                   "timeout of its first byte, by phase (request: handshake and headers; body)."

static void count_cut(gp_server *s, const char *phase, double n)
{
    char label[MAX_NAME + 48];

    snprintf(label, sizeof(label), "server=\"%s\",phase=\"%s\"", s->cfg.name, phase);
    gp_metrics_add(s->cfg.metrics, M_CUT, M_CUT_HELP, label, n);
}

/* The deadlines' thread cut a connection: counted, with a warning at most every
 * REFUSED_LOG_EVERY_S seconds. */
static void on_cut(void *ctx, const char *phase)
{
    gp_server *s = ctx;
    time_t now = mono_now();

    count_cut(s, phase, 1);
    if (s->cut_logged != 0 && now - s->cut_logged < REFUSED_LOG_EVERY_S)
        return;
    s->cut_logged = now;
    GP_LOG(s->cfg.log, GP_LOG_WARN, "connection closed: request not whole in time",
           GP_LS("server", s->cfg.name), GP_LS("phase", phase),
           GP_LI("request_timeout_seconds", s->cfg.request_timeout_s));
}

/* Closes a connection over max_connections, counted, with a warning at most every
 * REFUSED_LOG_EVERY_S seconds. */
static void refuse(gp_server *s, int fd, unsigned open_now)
{
    time_t now = mono_now();

    count_refused(s, 1); /* before the close, which the client sees */
    close(fd);
    if (s->refused_logged != 0 && now - s->refused_logged < REFUSED_LOG_EVERY_S)
        return;
    s->refused_logged = now;
    GP_LOG(s->cfg.log, GP_LOG_WARN, "connection refused: too many open",
           GP_LS("server", s->cfg.name), GP_LI("open", open_now),
           GP_LI("max_connections", s->cfg.max_connections));
}

/* The listener's callback: each accepted connection goes to the least busy shard. */
static void on_accept(void *ctx, int fd, const struct sockaddr *addr, socklen_t addrlen)
{
    gp_server *s = ctx;
    unsigned total;
    shard *sh = least_busy(s, &total);

    if (s->cfg.max_connections > 0 && total >= s->cfg.max_connections) {
        refuse(s, fd, total);
        return;
    }
    atomic_fetch_add_explicit(&sh->conns, 1, memory_order_relaxed);
    if (MHD_add_connection(sh->daemon, fd, addr, addrlen) == MHD_YES)
        return;
    atomic_fetch_sub_explicit(&sh->conns, 1, memory_order_relaxed); /* fd is closed */
    GP_LOG(s->cfg.log, GP_LOG_WARN, "connection dropped", GP_LS("server", s->cfg.name),
           GP_LS("error", strerror(errno)));
}

/* poll(), not epoll: libmicrohttpd 0.9.75 in epoll mode spins on a connection whose TLS
 * handshake waits for bytes that never come (one such client held a core at 100% until the idle
 * timeout; tests/e2e/tls-stall.py). poll() costs the same at tens of connections, what
 * kube-apiserver and kube-scheduler open; with 900 idle ones it halves the throughput, where
 * epoll would have spun. */
static unsigned daemon_flags(const gp_server *s)
{
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL | MHD_USE_NO_LISTEN_SOCKET |
                     MHD_USE_ITC | MHD_USE_ERROR_LOG; /* ITC: MHD_add_connection needs it */

    return s->tls ? flags | MHD_USE_TLS : flags;
}

typedef struct {
    struct MHD_OptionItem items[16];
    size_t n;
} mhd_opts;

/* Adds an option: v for numbers and callbacks (cast to intptr_t), p for pointers and closures. */
static void opt(mhd_opts *o, enum MHD_OPTION option, intptr_t v, void *p)
{
    o->items[o->n++] = (struct MHD_OptionItem){ option, v, p };
    o->items[o->n] = (struct MHD_OptionItem){ MHD_OPTION_END, 0, NULL };
}

/* The options of one shard. Its own connection limit is the whole server's: on_accept() keeps
 * the total under max_connections before a shard is asked. */
static void daemon_options(gp_server *s, shard *sh, mhd_opts *o)
{
    o->n = 0;
    opt(o, MHD_OPTION_EXTERNAL_LOGGER, (intptr_t)on_mhd_log, s); /* first, as MHD asks */
    opt(o, MHD_OPTION_CONNECTION_TIMEOUT, (intptr_t)s->cfg.idle_timeout_s, NULL);
    opt(o, MHD_OPTION_CONNECTION_MEMORY_LIMIT, (intptr_t)CONN_MEMORY_LIMIT, NULL);
    opt(o, MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)on_completed, s);
    opt(o, MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)on_connection, sh);
    if (s->cfg.max_connections > 0)
        opt(o, MHD_OPTION_CONNECTION_LIMIT, (intptr_t)s->cfg.max_connections, NULL);
    if (!s->tls)
        return;
    opt(o, MHD_OPTION_HTTPS_PRIORITIES, 0, (void *)TLS_PRIORITIES);
    opt(o, MHD_OPTION_HTTPS_CERT_CALLBACK, 0, (void *)cert_callback);
    if (s->client_ca != NULL)
        opt(o, MHD_OPTION_HTTPS_MEM_TRUST, 0, s->client_ca);
}

static gp_status shards_start(gp_server *s, gp_err *err)
{
    if ((s->shards = calloc(s->cfg.threads, sizeof(*s->shards))) == NULL) {
        gp_err_set(err, "server: out of memory");
        return GP_ENOMEM;
    }
    for (; s->nshards < s->cfg.threads; s->nshards++) {
        shard *sh = &s->shards[s->nshards];
        mhd_opts o;

        sh->server = s;
        daemon_options(s, sh, &o);
        sh->daemon = MHD_start_daemon(daemon_flags(s), 0, NULL, NULL, on_request, s,
                                      MHD_OPTION_ARRAY, o.items, MHD_OPTION_END);
        if (sh->daemon == NULL) {
            pthread_mutex_lock(&s->msg_mu);
            gp_err_set(err, "server: cannot start serving thread %u: %s", s->nshards + 1,
                       s->mhd_msg[0] ? s->mhd_msg : strerror(errno));
            pthread_mutex_unlock(&s->msg_mu);
            return GP_EIO;
        }
    }
    return GP_OK;
}

static gp_status listen_start(gp_server *s, gp_err *err)
{
    gp_listener_config lc = {
        .addr = (const struct sockaddr *)&s->addr,
        .addrlen = s->addr.v4.sin_family == AF_INET6 ? sizeof(s->addr.v6) : sizeof(s->addr.v4),
        .v6only = !s->dual_stack, .fn = on_accept, .ctx = s, .log = s->cfg.log,
        .name = s->cfg.name,
    };
    char prefix[INET6_ADDRSTRLEN + MAX_NAME + 64];
    gp_status st = gp_listener_open(&lc, &s->listener, err);

    if (st == GP_OK) {
        registry_set_port(s, gp_listener_port(s->listener)); /* before any handshake */
        st = gp_listener_start(s->listener, err);
    }
    if (st != GP_OK) {
        snprintf(prefix, sizeof(prefix), "%s: cannot listen on %s port %d", s->cfg.listen_flag,
                 s->cfg.host, s->cfg.port);
        gp_err_prefix(err, prefix);
    }
    return st;
}

static gp_status watch_certs(gp_server *s, gp_err *err)
{
    const char *paths[2] = { s->cfg.cert_file, s->cfg.key_file };
    gp_status st = gp_watch_start(paths, 2, s->cfg.cert_reload_ms, on_cert_files_changed, s,
                                  &s->watch, err);

    if (st != GP_OK)
        gp_err_prefix(err, "server: cannot watch the certificate files");
    return st;
}

static gp_server *server_alloc(void)
{
    gp_server *s = calloc(1, sizeof(*s));

    if (s == NULL)
        return NULL;
    pthread_mutex_init(&s->tls_mu, NULL);
    pthread_mutex_init(&s->reload_mu, NULL);
    pthread_mutex_init(&s->msg_mu, NULL);
    return s;
}

gp_status gp_server_start(const gp_server_config *cfg, gp_server **out, gp_err *err)
{
    gp_server *s;
    gp_status st;

    *out = NULL;
    if ((st = config_check(cfg, err)) != GP_OK || (st = routes_check(cfg, err)) != GP_OK)
        return st;
    if ((s = server_alloc()) == NULL || config_copy(s, cfg) != GP_OK) {
        gp_server_stop(s);
        gp_err_set(err, "server: out of memory");
        return GP_ENOMEM;
    }
    if ((st = parse_host(s, err)) != GP_OK ||
        (s->cfg.cert_file != NULL && (st = tls_setup(s, err)) != GP_OK))
        goto fail;
    s->port = s->cfg.port; /* the real one once bound, for port 0 */
    count_refused(s, 0); /* exported as 0 from the start */
    count_cut(s, "request", 0);
    count_cut(s, "body", 0);
    preregister_routes(s);
    s->deadlines = gp_conntrack_start(s->cfg.request_timeout_s, on_cut, s);
    if (s->deadlines == NULL && s->cfg.request_timeout_s > 0)
        GP_LOG(s->cfg.log, GP_LOG_WARN, "request deadlines off: cannot start their thread",
               GP_LS("server", s->cfg.name));
    registry_add(s); /* before the daemon: a handshake may come as soon as it listens */
    if ((st = shards_start(s, err)) != GP_OK || (st = listen_start(s, err)) != GP_OK ||
        (s->tls && (st = watch_certs(s, err)) != GP_OK))
        goto fail;
    GP_LOG(s->cfg.log, GP_LOG_INFO, "listening", GP_LS("server", s->cfg.name),
           GP_LS("host", s->cfg.host), GP_LI("port", s->port),
           GP_LJ("tls", s->tls ? "true" : "false"),
           GP_LJ("client_certs", s->client_ca != NULL ? "true" : "false"),
           GP_LI("threads", s->cfg.threads));
    *out = s;
    return GP_OK;
fail:
    gp_server_stop(s);
    return st;
}

int gp_server_port(const gp_server *s)
{
    return s != NULL ? s->port : -1;
}

void gp_server_drain(gp_server *s)
{
    if (s != NULL)
        atomic_store(&s->closing, true);
}

/* Waits, in steps of 10 ms, until no request is in flight or limit_s have passed. */
static void wait_inflight(gp_server *s, unsigned limit_s)
{
    unsigned n = atomic_load(&s->inflight);

    if (n == 0)
        return;
    GP_LOG(s->cfg.log, GP_LOG_INFO, "waiting for requests in flight", GP_LS("server", s->cfg.name),
           GP_LI("requests", n), GP_LI("at_most_seconds", limit_s));
    for (unsigned i = 0; i < limit_s * 100 && atomic_load(&s->inflight) > 0; i++)
        usleep(10000);
    if ((n = atomic_load(&s->inflight)) > 0)
        GP_LOG(s->cfg.log, GP_LOG_WARN, "requests still in flight at shutdown",
               GP_LS("server", s->cfg.name), GP_LI("requests", n));
}

void gp_server_quiesce(gp_server *s)
{
    if (s == NULL || s->listener == NULL)
        return;
    gp_server_drain(s);
    gp_listener_close(s->listener); /* the kernel refuses new connections from now on */
    s->listener = NULL;
    GP_LOG(s->cfg.log, GP_LOG_INFO, "no longer accepting connections",
           GP_LS("server", s->cfg.name), GP_LI("port", s->port));
    wait_inflight(s, s->cfg.request_timeout_s > 0 ? s->cfg.request_timeout_s : 10);
}

void gp_server_stop(gp_server *s)
{
    if (s == NULL)
        return;
    gp_watch_stop(s->watch); /* first: its callback reloads into s */
    gp_listener_close(s->listener); /* before the shards it hands connections to */
    for (unsigned i = 0; i < s->nshards; i++)
        MHD_stop_daemon(s->shards[i].daemon); /* closes its connections; no callback after */
    gp_conntrack_stop(s->deadlines); /* after: closing a connection removes its record */
    free(s->shards);
    registry_remove(s);
    pthread_mutex_lock(&s->tls_mu);
    tls_pair_unref_locked(s->cur);
    s->cur = NULL;
    tls_sweep_locked(s, true);
    pthread_mutex_unlock(&s->tls_mu);
    free(s->client_ca);
    free(s->strings);
    pthread_mutex_destroy(&s->tls_mu);
    pthread_mutex_destroy(&s->reload_mu);
    pthread_mutex_destroy(&s->msg_mu);
    free(s);
}
