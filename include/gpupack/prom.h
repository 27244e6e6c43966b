/* SPDX-License-Identifier: Apache-2.0 */
/* A Prometheus HTTP API client (libcurl): instant and range queries, decoded by
 * gpupack/promjson.h. Prometheus, Thanos, Mimir and managed Prometheus speak the same API.
 *
 * Queries are POSTed form-encoded (long PromQL does not fit a URL). Authentication: a bearer
 * token file read again for every request (projected service-account tokens rotate), a CA file,
 * a client certificate and key, and extra headers ("X-Scope-OrgID: t1" for tenants). Every
 * request has a connect and a total timeout and a cap on the response body. Connection failures,
 * 5xx and 429 are retried up to max_attempts times in all, waiting backoff_ms, then twice that,
 * and so on up to backoff_max_ms; a Retry-After (seconds or a date) replaces the wait, bounded by
 * backoff_max_ms. A total timeout is not retried (the query would run as long again).
 *
 * A 200 with "status":"success" is returned decoded (its warnings and infos included). A
 * "status":"error" body (400 bad_data, 422 execution, 503 timeout, ...) becomes GP_EINVAL for
 * 4xx and GP_EIO for 5xx, with Prometheus's errorType and error in err. A client is for one
 * thread at a time; the token is never put in a message. */
#ifndef GPUPACK_PROM_H
#define GPUPACK_PROM_H

#include <stdbool.h>
#include <stddef.h>

#include "gpupack/promjson.h"
#include "gpupack/status.h"

#define GP_PROM_MAX_HEADERS 32
#define GP_PROM_DEFAULT_CONNECT_TIMEOUT_MS 5000u
#define GP_PROM_DEFAULT_TIMEOUT_MS 120000u
#define GP_PROM_DEFAULT_MAX_BODY (256u * 1024 * 1024)
#define GP_PROM_DEFAULT_ATTEMPTS 4u
#define GP_PROM_DEFAULT_BACKOFF_MS 500u
#define GP_PROM_DEFAULT_BACKOFF_MAX_MS 30000u
#define GP_PROM_DEFAULT_RANGE_POINTS 11000u /* Prometheus refuses more points per series */
#define GP_PROM_MAX_RANGE_PARTS 1000u

/* Every pointer is copied by gp_prom_new(); zero numbers take the defaults above. */
typedef struct {
    const char *url;                /* "https://prometheus:9090", maybe with a path prefix */
    const char *token_file;         /* or NULL: no Authorization header */
    const char *ca_file;            /* or NULL: the system's CAs */
    const char *cert_file, *key_file; /* a client certificate, or NULL */
    const char *const *headers;     /* "Name: value", nheaders of them */
    size_t nheaders;
    unsigned connect_timeout_ms, timeout_ms; /* per attempt */
    size_t max_body;                /* bytes of one response, after content decoding */
    unsigned max_attempts;          /* tries in all, 1 for no retry */
    unsigned backoff_ms, backoff_max_ms;
    gp_prom_limits limits;          /* caps on the decoded series and samples (per answer) */
    size_t range_points;            /* points a range query asks for at once (see below) */
} gp_prom_config;

/* What the last call did, for progress lines and tests. */
typedef struct {
    unsigned attempts;  /* requests sent */
    long http_status;   /* of the last one; 0 when none answered */
    double seconds;     /* wall time of the call, waits included */
    unsigned parts;     /* answers the call joined (a range asked in parts), else 1 */
} gp_prom_stats;

typedef struct gp_prom gp_prom;

/* Checks a Prometheus base URL without any request: scheme http or https, a non-empty host, a
 * port 1-65535 when one is given, no space or control character, and what else libcurl's URL
 * parser refuses. GP_EINVAL with what is wrong (the message does not name the flag), GP_ENOMEM. */
gp_status gp_prom_url_check(const char *url, gp_err *err) GP_WUR;

/* url for a message or a log line: a password in it ("http://user:secret@host") shown as "***".
 * Writes at most n bytes (cut when longer) into buf and returns buf. */
char *gp_prom_url_redact(const char *url, char *buf, size_t n);

/* Checks cfg (the URL by gp_prom_url_check(), header syntax, bounds) and makes a client. GP_EINVAL
 * naming the bad field, GP_ENOMEM. The caller frees *out with gp_prom_free(). */
gp_status gp_prom_new(const gp_prom_config *cfg, gp_prom **out, gp_err *err) GP_WUR;

/* Frees the client. NULL is harmless. */
void gp_prom_free(gp_prom *p);

/* An instant query (/api/v1/query) at time t (seconds since the epoch; NaN: the server's now).
 * On GP_OK the caller frees *out with gp_prom_result_free(); otherwise *out is NULL and err says
 * why (GP_EINVAL: Prometheus refused the query; GP_EIO: transport or server failure;
 * GP_ETOOBIG: a cap). */
gp_status gp_prom_query(gp_prom *p, const char *query, double t, gp_prom_result **out,
                        gp_err *err) GP_WUR;

/* A range query (/api/v1/query_range) from start to end (seconds) every step seconds (> 0);
 * results as gp_prom_query(). A range of more than range_points points is asked in parts of at
 * most that many, on the same grid (start + k * step), and the answers are joined by
 * gp_prom_result_append(): a series is then in the result once per part it is in, each with
 * its part's samples, and the caps apply to each answer. More than GP_PROM_MAX_RANGE_PARTS
 * parts is GP_EINVAL before any request. */
gp_status gp_prom_query_range(gp_prom *p, const char *query, double start, double end,
                              double step, gp_prom_result **out, gp_err *err) GP_WUR;

/* Instant queries queries[0..n) at times[0..n) in turn, the answers joined as a range's parts
 * are (a series once per answer); results and statistics (summed) as gp_prom_query(). For one
 * query asked over parts of a window, each part written for its own steps. */
gp_status gp_prom_query_parts(gp_prom *p, const char *const *queries, const double *times,
                              size_t n, gp_prom_result **out, gp_err *err) GP_WUR;

/* The statistics of the client's last query. */
gp_prom_stats gp_prom_last_stats(const gp_prom *p);

#endif
