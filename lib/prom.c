/* SPDX-License-Identifier: Apache-2.0 */
/* The Prometheus HTTP API client (the contract is in gpupack/prom.h).
 *
 * One libcurl easy handle per client, reset before every attempt, so connections are reused
 * between queries. A call is a loop of attempts: build the request (the token file is read
 * here), perform it, classify the outcome (done, retry, fail), and wait before the next try. */
#include "gpupack/prom.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>

#include "gpupack/curlbody.h"
#include "gpupack/fileio.h"
#include "gpupack/strbuf.h"

#ifndef GP_VERSION
#define GP_VERSION "0.0.0"
#endif

#define PROM_TOKEN_MAX (64u * 1024) /* a bearer token file */
#define PROM_HEADER_MAX 8192u       /* one extra header line */
#define PROM_ERRBODY_SHOWN 200      /* bytes of a non-Prometheus error body put in a message */

struct gp_prom {
    char *url; /* without a trailing '/' */
    char *token_file, *ca_file, *cert_file, *key_file;
    char **headers;
    size_t nheaders;
    unsigned connect_timeout_ms, timeout_ms, max_attempts, backoff_ms, backoff_max_ms;
    size_t max_body, range_points;
    gp_prom_limits limits;
    CURL *easy;
    gp_prom_stats last;
};

/* ---- configuration ------------------------------------------------------------------------- */

static char *dup_opt(const char *s, bool *oom)
{
    char *p;

    if (s == NULL)
        return NULL;
    if ((p = strdup(s)) == NULL)
        *oom = true;
    return p;
}

static unsigned or_default(unsigned v, unsigned def)
{
    return v ? v : def;
}

/* "Name: value": a token of visible characters before the colon, no CR or LF anywhere. */
static bool header_ok(const char *h)
{
    const char *colon = strchr(h, ':');

    if (colon == NULL || colon == h || strlen(h) > PROM_HEADER_MAX || strpbrk(h, "\r\n") != NULL)
        return false;
    for (const char *c = h; c < colon; c++)
        if (*c <= ' ' || *c >= 127)
            return false;
    return true;
}

/* The host and port libcurl found in u: a host, and a port 1-65535 when one is given. */
static gp_status url_parts_check(CURLU *u, gp_err *err)
{
    char *host = NULL, *port = NULL;
    gp_status st = GP_OK;
    CURLUcode rc = curl_url_get(u, CURLUPART_HOST, &host, 0);

    if (rc != CURLUE_OK || host == NULL || host[0] == '\0') {
        gp_err_set(err, "no host");
        st = GP_EINVAL;
    } else if ((rc = curl_url_get(u, CURLUPART_PORT, &port, 0)) == CURLUE_OK &&
               strtol(port, NULL, 10) < 1) {
        gp_err_set(err, "port %s is out of range 1-65535", port);
        st = GP_EINVAL;
    }
    curl_free(host);
    curl_free(port);
    return st;
}

char *gp_prom_url_redact(const char *url, char *buf, size_t n)
{
    const char *auth = strstr(url, "://"), *end, *at = NULL, *colon;

    auth = auth != NULL ? auth + 3 : url; /* "user:pw@host" without a scheme too */
    end = auth + strcspn(auth, "/?#");
    for (const char *p = auth; p < end; p++)
        at = *p == '@' ? p : at;
    colon = at != NULL ? memchr(auth, ':', (size_t)(at - auth)) : NULL;
    if (colon == NULL)
        snprintf(buf, n, "%s", url);
    else
        snprintf(buf, n, "%.*s***%s", (int)(colon + 1 - url), url, at);
    return buf;
}

gp_status gp_prom_url_check(const char *url, gp_err *err)
{
    CURLU *u;
    CURLUcode rc;
    gp_status st;

    if (url == NULL || (strncmp(url, "http://", 7) != 0 && strncmp(url, "https://", 8) != 0)) {
        gp_err_set(err, "want an http:// or https:// URL");
        return GP_EINVAL;
    }
    for (const unsigned char *c = (const unsigned char *)url; *c != '\0'; c++)
        if (*c <= ' ' || *c == 127) {
            gp_err_set(err, "a space or control character at byte %zu",
                       (size_t)(c - (const unsigned char *)url));
            return GP_EINVAL;
        }
    if ((u = curl_url()) == NULL) {
        gp_err_set(err, "out of memory");
        return GP_ENOMEM;
    }
    /* Only the schemes checked above; libcurl then checks host syntax and port range. */
    rc = curl_url_set(u, CURLUPART_URL, url, 0);
    if (rc != CURLUE_OK) {
        gp_err_set(err, "not a usable URL: %s", curl_url_strerror(rc));
        st = GP_EINVAL;
    } else {
        st = url_parts_check(u, err);
    }
    curl_url_cleanup(u);
    return st;
}

static gp_status check_config(const gp_prom_config *cfg, gp_err *err)
{
    gp_status st = gp_prom_url_check(cfg->url, err);

    if (st != GP_OK) {
        char prefix[160];

        snprintf(prefix, sizeof(prefix), "prometheus URL \"%.100s\"", cfg->url ? cfg->url : "");
        gp_err_prefix(err, prefix);
        return st;
    }
    if ((cfg->cert_file == NULL) != (cfg->key_file == NULL)) {
        gp_err_set(err, "prometheus client certificate: want both the certificate and the key");
        return GP_EINVAL;
    }
    if (cfg->nheaders > GP_PROM_MAX_HEADERS) {
        gp_err_set(err, "prometheus headers: more than %d", GP_PROM_MAX_HEADERS);
        return GP_EINVAL;
    }
    for (size_t i = 0; i < cfg->nheaders; i++)
        if (!header_ok(cfg->headers[i])) {
            gp_err_set(err, "prometheus header \"%.60s\": want \"Name: value\"", cfg->headers[i]);
            return GP_EINVAL;
        }
    return GP_OK;
}

static bool copy_strings(gp_prom *p, const gp_prom_config *cfg)
{
    bool oom = false;
    size_t n;

    p->url = dup_opt(cfg->url, &oom);
    if (!oom && (n = strlen(p->url)) > 0 && p->url[n - 1] == '/')
        p->url[n - 1] = '\0';
    p->token_file = dup_opt(cfg->token_file, &oom);
    p->ca_file = dup_opt(cfg->ca_file, &oom);
    p->cert_file = dup_opt(cfg->cert_file, &oom);
    p->key_file = dup_opt(cfg->key_file, &oom);
    if (cfg->nheaders > 0 && (p->headers = calloc(cfg->nheaders, sizeof(char *))) == NULL)
        return false;
    for (size_t i = 0; i < cfg->nheaders; i++)
        p->headers[p->nheaders++] = dup_opt(cfg->headers[i], &oom);
    return !oom;
}

gp_status gp_prom_new(const gp_prom_config *cfg, gp_prom **out, gp_err *err)
{
    gp_prom *p;
    gp_status st;

    *out = NULL;
    if ((st = check_config(cfg, err)) != GP_OK)
        return st;
    gp_curl_global_init();
    if ((p = calloc(1, sizeof(*p))) == NULL || !copy_strings(p, cfg) ||
        (p->easy = curl_easy_init()) == NULL) {
        gp_prom_free(p);
        gp_err_set(err, "out of memory");
        return GP_ENOMEM;
    }
    p->connect_timeout_ms = or_default(cfg->connect_timeout_ms, GP_PROM_DEFAULT_CONNECT_TIMEOUT_MS);
    p->timeout_ms = or_default(cfg->timeout_ms, GP_PROM_DEFAULT_TIMEOUT_MS);
    p->max_attempts = or_default(cfg->max_attempts, GP_PROM_DEFAULT_ATTEMPTS);
    p->backoff_ms = or_default(cfg->backoff_ms, GP_PROM_DEFAULT_BACKOFF_MS);
    p->backoff_max_ms = or_default(cfg->backoff_max_ms, GP_PROM_DEFAULT_BACKOFF_MAX_MS);
    p->max_body = cfg->max_body ? cfg->max_body : GP_PROM_DEFAULT_MAX_BODY;
    p->limits = cfg->limits;
    p->range_points = cfg->range_points ? cfg->range_points : GP_PROM_DEFAULT_RANGE_POINTS;
    *out = p;
    return GP_OK;
}

void gp_prom_free(gp_prom *p)
{
    if (p == NULL)
        return;
    if (p->easy != NULL)
        curl_easy_cleanup(p->easy);
    char *owned[] = { p->url, p->token_file, p->ca_file, p->cert_file, p->key_file };

    for (size_t i = 0; i < p->nheaders; i++)
        free(p->headers[i]);
    for (size_t i = 0; i < sizeof(owned) / sizeof(owned[0]); i++)
        free(owned[i]);
    free(p->headers);
    free(p);
}

gp_prom_stats gp_prom_last_stats(const gp_prom *p)
{
    return p->last;
}

/* ---- one attempt --------------------------------------------------------------------------- */

static void wipe_free(char *s)
{
    if (s != NULL) {
        explicit_bzero(s, strlen(s));
        free(s);
    }
}

/* "Authorization: Bearer <token>" from the token file (trailing whitespace removed). */
static gp_status auth_header(const gp_prom *p, char **out, gp_err *err)
{
    char *tok = NULL;
    size_t len = 0;
    gp_strbuf h;
    gp_status st;

    *out = NULL;
    if (p->token_file == NULL)
        return GP_OK;
    if ((st = gp_file_read(p->token_file, PROM_TOKEN_MAX, &tok, &len, err)) != GP_OK) {
        gp_err_prefix(err, "prometheus bearer token");
        return st;
    }
    while (len > 0 && (tok[len - 1] == '\n' || tok[len - 1] == '\r' || tok[len - 1] == ' ' ||
                       tok[len - 1] == '\t'))
        tok[--len] = '\0';
    if (len == 0 || strpbrk(tok, "\r\n") != NULL) {
        gp_err_set(err, "prometheus bearer token: %s is empty or has several lines", p->token_file);
        wipe_free(tok);
        return GP_EINVAL;
    }
    gp_strbuf_init(&h, 0);
    gp_strbuf_puts(&h, "Authorization: Bearer ");
    gp_strbuf_put(&h, tok, len);
    wipe_free(tok);
    if ((st = gp_strbuf_take(&h, out, &len)) != GP_OK)
        gp_err_set(err, "out of memory");
    return st;
}

static struct curl_slist *header_list(const gp_prom *p, const char *auth)
{
    struct curl_slist *l = NULL, *n;

    for (size_t i = 0; i <= p->nheaders + 1; i++) {
        const char *h = i == 0 ? "Accept: application/json"
                        : i == 1 ? auth
                                 : p->headers[i - 2];
        if (h == NULL)
            continue;
        if ((n = curl_slist_append(l, h)) == NULL) {
            curl_slist_free_all(l);
            return NULL;
        }
        l = n;
    }
    return l;
}

static void set_options(gp_prom *p, const char *url, const char *form, struct curl_slist *hdrs,
                        gp_curl_body *b, char *errbuf)
{
    CURL *e = p->easy;

    curl_easy_reset(e);
    curl_easy_setopt(e, CURLOPT_URL, url);
    curl_easy_setopt(e, CURLOPT_POSTFIELDS, form);
    curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(form));
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, hdrs);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, (long)p->connect_timeout_ms);
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, (long)p->timeout_ms);
    curl_easy_setopt(e, CURLOPT_USERAGENT, "gpupack/" GP_VERSION);
    curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, ""); /* the cap applies to the decoded bytes */
    curl_easy_setopt(e, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)p->max_body);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, gp_curl_body_write);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, b);
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, errbuf);
    if (p->ca_file != NULL)
        curl_easy_setopt(e, CURLOPT_CAINFO, p->ca_file);
    if (p->cert_file != NULL) {
        curl_easy_setopt(e, CURLOPT_SSLCERT, p->cert_file);
        curl_easy_setopt(e, CURLOPT_SSLKEY, p->key_file);
    }
}

typedef enum { ATT_DONE, ATT_RETRY, ATT_FAIL } att_outcome;

/* One attempt's raw outcome. */
typedef struct {
    CURLcode res;
    long code;
    long retry_after_s; /* -1: none */
    bool connected;     /* the connection was made (a timeout after that is a slow query) */
    gp_curl_body b;
    char curl_err[CURL_ERROR_SIZE];
} attempt;

static gp_status perform(gp_prom *p, const char *url, const char *form, attempt *a, gp_err *err)
{
    char *auth = NULL;
    struct curl_slist *hdrs;
    curl_off_t ra = -1, connect_us = 0;
    gp_status st;

    if ((st = auth_header(p, &auth, err)) != GP_OK)
        return st;
    hdrs = header_list(p, auth);
    wipe_free(auth);
    if (hdrs == NULL) {
        gp_err_set(err, "out of memory");
        return GP_ENOMEM;
    }
    set_options(p, url, form, hdrs, &a->b, a->curl_err);
    a->res = curl_easy_perform(p->easy);
    curl_easy_getinfo(p->easy, CURLINFO_RESPONSE_CODE, &a->code);
    /* 0 when the answer has no Retry-After (or "0"): the backoff applies */
    if (curl_easy_getinfo(p->easy, CURLINFO_RETRY_AFTER, &ra) == CURLE_OK && ra > 0)
        a->retry_after_s = (long)ra;
    a->connected = curl_easy_getinfo(p->easy, CURLINFO_CONNECT_TIME_T, &connect_us) == CURLE_OK &&
                   connect_us > 0;
    curl_slist_free_all(hdrs);
    curl_easy_setopt(p->easy, CURLOPT_HTTPHEADER, NULL);
    return GP_OK;
}

/* Failures worth another try: no connection, or the connection dropped before an answer. */
static bool transient(CURLcode res, bool connected)
{
    switch (res) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_GOT_NOTHING:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
        return true;
    case CURLE_OPERATION_TIMEDOUT:
        return !connected; /* the connect timeout; a slow query is not retried */
    default:
        return false;
    }
}

/* Prometheus's own words from an error body, or the start of whatever the body is. */
static gp_status http_error(gp_prom *p, const char *what, const attempt *a, gp_err *err)
{
    gp_prom_result *r = NULL;
    gp_err ignored = { "" };
    gp_status st = a->code >= 400 && a->code < 500 ? GP_EINVAL : GP_EIO;

    if (a->b.s.p != NULL &&
        gp_promjson_decode(a->b.s.p, a->b.s.len, &p->limits, &r, &ignored) == GP_OK &&
        !r->success)
        gp_err_set(err, "%s: HTTP %ld: %s: %s", what, a->code,
                   r->error_type ? r->error_type : "error", r->error);
    else
        gp_err_set(err, "%s: HTTP %ld: %.*s", what, a->code, PROM_ERRBODY_SHOWN,
                   a->b.s.p ? a->b.s.p : "");
    gp_prom_result_free(r);
    return st;
}

static gp_status transport_error(const char *what, const attempt *a, size_t max, gp_err *err)
{
    if (a->b.too_big || a->res == CURLE_FILESIZE_EXCEEDED) {
        gp_err_set(err, "%s: response larger than %zu bytes", what, max);
        return GP_ETOOBIG;
    }
    gp_err_set(err, "%s: %s", what, a->curl_err[0] ? a->curl_err : curl_easy_strerror(a->res));
    return GP_EIO;
}

static gp_status decode_ok(gp_prom *p, const char *what, const attempt *a, gp_prom_result **out,
                           gp_err *err)
{
    gp_status st;

    if (a->b.s.p == NULL) {
        gp_err_set(err, "%s: HTTP 200 with an empty body", what);
        return GP_EIO;
    }
    if ((st = gp_promjson_decode(a->b.s.p, a->b.s.len, &p->limits, out, err)) != GP_OK) {
        gp_err_prefix(err, what);
        return st;
    }
    if (!(*out)->success) {
        gp_err_set(err, "%s: %s: %s", what, (*out)->error_type ? (*out)->error_type : "error",
                   (*out)->error);
        gp_prom_result_free(*out);
        *out = NULL;
        return GP_EIO;
    }
    return GP_OK;
}

/* What to do after an attempt; sets *st (and err, *out) when the call ends here. */
static att_outcome classify(gp_prom *p, const char *what, const attempt *a, bool last,
                            gp_prom_result **out, gp_status *st, gp_err *err)
{
    bool retryable = a->res == CURLE_OK ? (a->code >= 500 || a->code == 429)
                                        : transient(a->res, a->connected) && !a->b.too_big;

    if (a->res == CURLE_OK && a->code >= 200 && a->code < 300) {
        *st = decode_ok(p, what, a, out, err);
        return *st == GP_OK ? ATT_DONE : ATT_FAIL;
    }
    if (retryable && !last)
        return ATT_RETRY;
    *st = a->res == CURLE_OK ? http_error(p, what, a, err)
                             : transport_error(what, a, p->max_body, err);
    return ATT_FAIL;
}

/* ---- the call ------------------------------------------------------------------------------ */

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_ms(unsigned ms)
{
    struct timespec ts = { (time_t)(ms / 1000), (long)(ms % 1000) * 1000000L };

    while (nanosleep(&ts, &ts) != 0)
        ;
}

/* The wait before attempt n + 1 (n >= 1): Retry-After when given, else backoff_ms * 2^(n-1);
 * both at most backoff_max_ms. */
static unsigned wait_ms(const gp_prom *p, unsigned n, long retry_after_s)
{
    unsigned long long w = retry_after_s >= 0 ? (unsigned long long)retry_after_s * 1000
                                              : (unsigned long long)p->backoff_ms << (n < 20 ? n - 1 : 19);

    return w < p->backoff_max_ms ? (unsigned)w : p->backoff_max_ms;
}

static gp_status call(gp_prom *p, const char *path, const char *form, gp_prom_result **out,
                      gp_err *err)
{
    char *url = NULL, what[96];
    double t0 = now_s();
    gp_status st = GP_EINTERNAL;

    *out = NULL;
    p->last = (gp_prom_stats){ .parts = 1 };
    snprintf(what, sizeof(what), "prometheus %s", path);
    if (asprintf(&url, "%s%s", p->url, path) < 0) {
        gp_err_set(err, "out of memory");
        return GP_ENOMEM;
    }
    for (unsigned n = 1; n <= p->max_attempts; n++) {
        attempt a = { .retry_after_s = -1, .b = { .max = p->max_body } };
        att_outcome o = ATT_FAIL;

        gp_strbuf_init(&a.b.s, 0);
        if ((st = perform(p, url, form, &a, err)) == GP_OK) {
            p->last.attempts = n;
            p->last.http_status = a.code;
            o = classify(p, what, &a, n == p->max_attempts, out, &st, err);
        }
        gp_strbuf_free(&a.b.s);
        if (o != ATT_RETRY)
            break;
        sleep_ms(wait_ms(p, n, a.retry_after_s));
    }
    free(url);
    p->last.seconds = now_s() - t0;
    return st;
}

/* ---- the queries --------------------------------------------------------------------------- */

static void form_param(gp_strbuf *b, const char *name, const char *value)
{
    char *enc = curl_easy_escape(NULL, value, 0);

    if (enc == NULL) {
        b->failed = true;
        return;
    }
    gp_strbuf_printf(b, "%s%s=%s", b->len ? "&" : "", name, enc);
    curl_free(enc);
}

static void form_time(gp_strbuf *b, const char *name, double t)
{
    gp_strbuf_printf(b, "&%s=%.3f", name, t);
}

static gp_status run_form(gp_prom *p, const char *path, gp_strbuf *form, gp_prom_result **out,
                          gp_err *err)
{
    char *text = NULL;
    size_t len;
    gp_status st;

    *out = NULL;
    if (gp_strbuf_take(form, &text, &len) != GP_OK) {
        gp_err_set(err, "out of memory");
        return GP_ENOMEM;
    }
    st = call(p, path, text, out, err);
    free(text);
    return st;
}

gp_status gp_prom_query(gp_prom *p, const char *query, double t, gp_prom_result **out,
                        gp_err *err)
{
    gp_strbuf form;

    gp_strbuf_init(&form, 0);
    form_param(&form, "query", query);
    if (!isnan(t))
        form_time(&form, "time", t);
    return run_form(p, "/api/v1/query", &form, out, err);
}

static gp_status range_part(gp_prom *p, const char *query, double start, double end,
                             double step, gp_prom_result **out, gp_err *err)
{
    gp_strbuf form;

    gp_strbuf_init(&form, 0);
    form_param(&form, "query", query);
    form_time(&form, "start", start);
    form_time(&form, "end", end);
    form_time(&form, "step", step);
    return run_form(p, "/api/v1/query_range", &form, out, err);
}

/* One part's outcome st (its answer part) into the joined answer *out and the statistics *sum
 * (the part's are p->last); returns the status to go on with. */
static gp_status join_part(gp_prom *p, gp_status st, gp_prom_result *part, gp_prom_result **out,
                           gp_prom_stats *sum, gp_err *err)
{
    sum->attempts += p->last.attempts;
    sum->http_status = p->last.http_status;
    sum->seconds += p->last.seconds;
    sum->parts += p->last.parts;
    if (st == GP_OK && *out == NULL)
        *out = part;
    else if (st == GP_OK && (st = gp_prom_result_append(*out, part)) != GP_OK)
        gp_err_set(err, "prometheus: joining the answers of a query's parts: %s",
                   gp_status_str(st));
    return st;
}

/* The end of a query in parts: the summed statistics, and no answer on failure. */
static gp_status parts_done(gp_prom *p, gp_status st, const gp_prom_stats *sum,
                            gp_prom_result **out)
{
    p->last = *sum;
    if (st != GP_OK) {
        gp_prom_result_free(*out);
        *out = NULL;
    }
    return st;
}

gp_status gp_prom_query_parts(gp_prom *p, const char *const *queries, const double *times,
                              size_t n, gp_prom_result **out, gp_err *err)
{
    gp_prom_stats sum = { 0 };
    gp_status st = GP_OK;

    *out = NULL;
    for (size_t k = 0; k < n && st == GP_OK; k++) {
        gp_prom_result *part = NULL;

        p->last = (gp_prom_stats){ 0 }; /* a part that fails before any request adds nothing */
        st = gp_prom_query(p, queries[k], times[k], &part, err);
        st = join_part(p, st, part, out, &sum, err);
    }
    return parts_done(p, st, &sum, out);
}

gp_status gp_prom_query_range(gp_prom *p, const char *query, double start, double end,
                              double step, gp_prom_result **out, gp_err *err)
{
    double points = floor((end - start) / step + 1e-9) + 1;
    gp_prom_stats sum = { 0 };
    gp_status st = GP_OK;

    *out = NULL;
    if (!(step > 0) || !isfinite(start) || !isfinite(end) || end < start) {
        gp_err_set(err, "prometheus range query: want start <= end and a step > 0");
        return GP_EINVAL;
    }
    if (points <= (double)p->range_points)
        return range_part(p, query, start, end, step, out, err);
    if (points / (double)p->range_points > GP_PROM_MAX_RANGE_PARTS) {
        gp_err_set(err, "prometheus range query: %.0f points, more than %u parts of %zu",
                   points, GP_PROM_MAX_RANGE_PARTS, p->range_points);
        return GP_EINVAL;
    }
    for (double k = 0; k < points && st == GP_OK; k += (double)p->range_points) {
        double last = fmin(k + (double)p->range_points, points) - 1;
        gp_prom_result *part = NULL;

        p->last = (gp_prom_stats){ 0 }; /* a part that fails before any request adds nothing */
        st = range_part(p, query, start + k * step, start + last * step, step, &part, err);
        st = join_part(p, st, part, out, &sum, err);
    }
    return parts_done(p, st, &sum, out);
}
