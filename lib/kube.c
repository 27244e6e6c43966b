/* SPDX-License-Identifier: Apache-2.0 */
/* List+watch against the Kubernetes API with libcurl.
 *
 * Design. Each informer owns one thread and one curl multi handle (its connection pool, so list
 * pages and watches reuse a keep-alive connection). The thread runs a small state machine:
 *
 *   LIST  (pages of limit=N&continue=T)  --ok-->  WATCH from the list's resourceVersion
 *   WATCH ends normally (EOF, server timeout, connection dropped after 200)  --> WATCH again
 *         from the last resourceVersion seen (events and bookmarks), no relist
 *   WATCH gets 410 (HTTP status or in-stream ERROR code 410)  --> LIST ("gone")
 *   WATCH fails otherwise (connect error, 5xx, 401, ERROR event, undecodable line, or a watch
 *         that ends within a second with nothing in it)  --> backoff, WATCH again
 *   LIST fails (transport, non-200, bad JSON)  --> backoff, LIST again ("error");
 *         410 on a continue token (the snapshot expired)  --> LIST again at once
 *
 * Backoff is "full jitter": a uniform random delay in [0, min(backoff_max, 200 ms * 2^n)] for the
 * n-th consecutive failure, reset by any success. Transfers run under curl_multi_poll(), which
 * gp_informer_stop() interrupts with curl_multi_wakeup(), so stopping never waits for the
 * one-second progress-callback tick (a XFERINFOFUNCTION checks the stop flag as well); backoff
 * sleeps wait on a condition variable that stop signals.
 *
 * A watch response is fed to a gp_linebuf as it arrives; each complete line is one event,
 * parsed with cJSON and freed after the handler returns, so memory is bounded by the largest
 * event (GP_KUBE_MAX_OBJECT), and a list by GP_KUBE_MAX_LIST_PAGE per page.
 *
 * The bearer token is read (from token_file when set, or from an exec plugin's cache, which runs
 * the plugin when the credential is missing or about to expire) before every request and put in
 * a header list that is wiped after the transfer; it never reaches a log line or an error
 * message. A 401 invalidates an exec plugin's credential, so the next request (gp_kube_get():
 * at once, an informer: after its backoff) runs the plugin again. */
#include "gpupack/kube.h"

#include "gpupack/curlbody.h"
#include "gpupack/jsonparse.h"
#include "gpupack/jsonpool.h"
#include "gpupack/kubeexec.h"
#include <curl/curl.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef GP_VERSION
#define GP_VERSION "0.0.0"
#endif

#define KUBE_RV_MAX 128          /* a resourceVersion */
#define KUBE_CONTINUE_MAX 8192   /* a continue token */
#define KUBE_ERRBODY_MAX 8192    /* the body of a non-2xx response, kept for the message */
#define KUBE_NAME_MAX 32         /* an informer's name */
#define KUBE_JSON_DEPTH 999      /* lists and watch events: 1,000 containers deep, cJSON's limit */
#define KUBE_PATH_MAX 1024       /* an informer's path, and its field selector */
#define KUBE_SHORT_WATCH_MS 1000 /* a watch ending sooner than this with no event is a failure */
#define KUBE_KEEPIDLE_S 30
#define KUBE_KEEPINTVL_S 15

/* ---- small helpers ------------------------------------------------------------------------- */

static int64_t now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static bool unreserved(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '-' || c == '.' || c == '_' || c == '~';
}

/* Percent-encodes s for a query value. The caller frees the result; NULL on allocation failure. */
static char *url_encode(const char *s)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t n = strlen(s), j = 0;
    char *o = malloc(n * 3 + 1);

    if (o == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];

        if (unreserved(c)) {
            o[j++] = (char)c;
        } else {
            o[j++] = '%';
            o[j++] = hex[c >> 4];
            o[j++] = hex[c & 15];
        }
    }
    o[j] = '\0';
    return o;
}

/* A malloc'd concatenation of n strings (NULLs are skipped), or NULL on allocation failure. */
static char *concat(const char *const *parts, size_t n)
{
    size_t total = 1, off = 0;
    char *o;

    for (size_t i = 0; i < n; i++)
        total += parts[i] ? strlen(parts[i]) : 0;
    if ((o = malloc(total)) == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        size_t l = parts[i] ? strlen(parts[i]) : 0;

        memcpy(o + off, parts[i] ? parts[i] : "", l);
        off += l;
    }
    o[off] = '\0';
    return o;
}

static void wipe_free(char *s)
{
    if (s != NULL) {
        explicit_bzero(s, strlen(s));
        free(s);
    }
}

/* ---- line splitting (pure) ----------------------------------------------------------------- */

void gp_linebuf_init(gp_linebuf *lb, size_t max)
{
    gp_strbuf_init(&lb->s, max + 2); /* one byte over max for the '\r' of a CRLF, and a NUL */
    lb->max = max;
}

void gp_linebuf_free(gp_linebuf *lb)
{
    gp_strbuf_free(&lb->s);
}

void gp_linebuf_reset(gp_linebuf *lb)
{
    gp_strbuf_clear(&lb->s);
}

/* Appends n bytes of a line; one byte over max is allowed for the '\r' of a CRLF. */
static gp_status lb_append(gp_linebuf *lb, const char *data, size_t n)
{
    if (n > lb->max + 1 - lb->s.len) {
        gp_strbuf_clear(&lb->s);
        return GP_ETOOBIG;
    }
    gp_strbuf_put(&lb->s, data, n);
    if (lb->s.failed) {
        gp_strbuf_clear(&lb->s);
        return GP_ENOMEM;
    }
    return GP_OK;
}

/* Hands the buffered line to fn, then empties the buffer. */
static gp_status lb_emit(gp_linebuf *lb, gp_line_fn fn, void *ctx)
{
    char *line = lb->s.p;
    size_t len = lb->s.len;
    gp_status st = GP_OK;

    if (len > 0 && line[len - 1] == '\r')
        len--;
    if (len > lb->max) {
        st = GP_ETOOBIG;
    } else if (len > 0) {
        line[len] = '\0';
        st = fn(ctx, line, len);
    }
    gp_strbuf_clear(&lb->s);
    return st;
}

gp_status gp_linebuf_feed(gp_linebuf *lb, const char *data, size_t n, gp_line_fn fn, void *ctx)
{
    while (n > 0) {
        const char *nl = memchr(data, '\n', n);
        size_t seg = nl ? (size_t)(nl - data) : n;
        gp_status st = seg > 0 ? lb_append(lb, data, seg) : GP_OK;

        if (st == GP_OK && nl != NULL)
            st = lb_emit(lb, fn, ctx);
        if (st != GP_OK) {
            gp_strbuf_clear(&lb->s);
            return st;
        }
        if (nl == NULL)
            break;
        data += seg + 1;
        n -= seg + 1;
    }
    return GP_OK;
}

/* ---- one request ----------------------------------------------------------------------------- */

/* Everything a configured easy handle points at, freed after its transfer. */
typedef struct {
    CURL *easy;
    char *url;
    struct curl_slist *headers;    /* holds the bearer token: wiped before it is freed */
    struct curl_slist *connect_to; /* tls-server-name: connect to the URL's real host */
    char curl_err[CURL_ERROR_SIZE];
} kube_req;

static void req_free(kube_req *r)
{
    if (r->easy != NULL)
        curl_easy_cleanup(r->easy);
    for (struct curl_slist *h = r->headers; h != NULL; h = h->next)
        explicit_bzero(h->data, strlen(h->data));
    curl_slist_free_all(r->headers);
    curl_slist_free_all(r->connect_to);
    free(r->url);
    *r = (kube_req){ 0 };
}

/* The server URL to use, and, with tls-server-name, a CONNECT_TO entry that sends the connection
 * to the real host while TLS (SNI and verification) uses the name. */
static gp_status base_url(const gp_kube_config *cfg, char **url, struct curl_slist **connect_to,
                          gp_err *err)
{
    CURLU *u;
    char *host = NULL, *port = NULL, *s = NULL, *ct = NULL;
    gp_status st = GP_EINVAL;

    if (cfg->tls_server_name == NULL) {
        *url = strdup(cfg->server);
        return *url ? GP_OK : GP_ENOMEM;
    }
    if ((u = curl_url()) == NULL)
        return GP_ENOMEM;
    if (curl_url_set(u, CURLUPART_URL, cfg->server, 0) != CURLUE_OK ||
        curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK ||
        curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) != CURLUE_OK ||
        curl_url_set(u, CURLUPART_HOST, cfg->tls_server_name, 0) != CURLUE_OK ||
        curl_url_get(u, CURLUPART_URL, &s, 0) != CURLUE_OK) {
        gp_err_set(err, "server \"%.200s\": cannot apply tls-server-name", cfg->server);
        goto out;
    }
    ct = concat((const char *[]){ "::", host, ":", port }, 4);
    if (ct == NULL || (*connect_to = curl_slist_append(NULL, ct)) == NULL) {
        st = GP_ENOMEM;
        goto out;
    }
    for (size_t n = strlen(s); n > 0 && s[n - 1] == '/'; n--)
        s[n - 1] = '\0';
    *url = strdup(s);
    st = *url ? GP_OK : GP_ENOMEM;
out:
    free(ct);
    curl_free(host);
    curl_free(port);
    curl_free(s);
    curl_url_cleanup(u);
    return st;
}

static gp_status add_header(kube_req *r, const char *h)
{
    struct curl_slist *n = curl_slist_append(r->headers, h);

    if (n == NULL)
        return GP_ENOMEM;
    r->headers = n;
    return GP_OK;
}

static gp_status set_auth_header(kube_req *r, const char *token)
{
    char *h;
    gp_status st;

    if (token == NULL)
        return GP_OK;
    if ((h = concat((const char *[]){ "Authorization: Bearer ", token }, 2)) == NULL)
        return GP_ENOMEM;
    st = add_header(r, h);
    wipe_free(h);
    return st;
}

/* A PEM given inline (as a blob, typed PEM when type_opt is not 0) or as a file. */
static void set_pem(CURL *e, const char *pem, const char *file, CURLoption blob_opt,
                    CURLoption file_opt, CURLoption type_opt)
{
    if (pem != NULL) {
        struct curl_blob b = { (void *)pem, strlen(pem), CURL_BLOB_COPY };

        curl_easy_setopt(e, blob_opt, &b);
        if (type_opt != 0)
            curl_easy_setopt(e, type_opt, "PEM");
    } else if (file != NULL) {
        curl_easy_setopt(e, file_opt, file);
    }
}

static void set_tls(CURL *e, const gp_kube_config *cfg)
{
    set_pem(e, cfg->ca_pem, cfg->ca_file, CURLOPT_CAINFO_BLOB, CURLOPT_CAINFO, 0);
    if (cfg->insecure) {
        curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    set_pem(e, cfg->cert_pem, cfg->cert_file, CURLOPT_SSLCERT_BLOB, CURLOPT_SSLCERT,
            CURLOPT_SSLCERTTYPE);
    set_pem(e, cfg->key_pem, cfg->key_file, CURLOPT_SSLKEY_BLOB, CURLOPT_SSLKEY,
            CURLOPT_SSLKEYTYPE);
}

static void set_common(kube_req *r)
{
    CURL *e = r->easy;

    curl_easy_setopt(e, CURLOPT_URL, r->url);
    curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
#if LIBCURL_VERSION_NUM >= 0x075500
    curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
#endif
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT, (long)GP_KUBE_CONNECT_TIMEOUT_S);
    curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(e, CURLOPT_TCP_KEEPIDLE, (long)KUBE_KEEPIDLE_S);
    curl_easy_setopt(e, CURLOPT_TCP_KEEPINTVL, (long)KUBE_KEEPINTVL_S);
    curl_easy_setopt(e, CURLOPT_USERAGENT, "gpupack/" GP_VERSION);
    curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, ""); /* caps apply to the decoded bytes */
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, r->headers);
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, r->curl_err);
    if (r->connect_to != NULL)
        curl_easy_setopt(e, CURLOPT_CONNECT_TO, r->connect_to);
}

/* With an exec plugin that gave a client certificate: use it (from the cache, which the token
 * lookup just refreshed) instead of the kubeconfig's. */
static gp_status set_exec_cert(kube_req *r, const gp_kube_config *cfg, gp_err *err)
{
    char *tok = NULL, *cert = NULL, *key = NULL;
    gp_status st;

    if (cfg->exec == NULL || cfg->exec_cache == NULL)
        return GP_OK;
    st = gp_exec_cache_get(cfg->exec_cache, cfg->exec, cfg, &tok, &cert, &key, err);
    if (st == GP_OK && cert != NULL && key != NULL) {
        struct curl_blob c = { cert, strlen(cert), CURL_BLOB_COPY };
        struct curl_blob k = { key, strlen(key), CURL_BLOB_COPY };

        curl_easy_setopt(r->easy, CURLOPT_SSLCERT_BLOB, &c);
        curl_easy_setopt(r->easy, CURLOPT_SSLCERTTYPE, "PEM");
        curl_easy_setopt(r->easy, CURLOPT_SSLKEY_BLOB, &k);
        curl_easy_setopt(r->easy, CURLOPT_SSLKEYTYPE, "PEM");
    }
    wipe_free(tok);
    free(cert);
    wipe_free(key);
    return st;
}

/* A 401 means an exec plugin's credential is no longer accepted: run the plugin again next. */
static void unauthorized(const gp_kube_config *cfg, long code)
{
    if (code == 401 && cfg->exec_cache != NULL)
        gp_exec_cache_invalidate(cfg->exec_cache);
}

/* Prepares r for GET server + path (path includes the query). */
static gp_status req_init(kube_req *r, const gp_kube_config *cfg, const char *token,
                          const char *path, gp_err *err)
{
    char *base = NULL;
    gp_status st;

    *r = (kube_req){ 0 };
    gp_curl_global_init();
    if ((st = base_url(cfg, &base, &r->connect_to, err)) != GP_OK)
        goto fail;
    r->url = concat((const char *[]){ base, path }, 2);
    r->easy = curl_easy_init();
    if (r->url == NULL || r->easy == NULL || add_header(r, "Accept: application/json") != GP_OK ||
        set_auth_header(r, token) != GP_OK) {
        st = GP_ENOMEM;
        goto fail;
    }
    free(base);
    set_common(r);
    set_tls(r->easy, cfg);
    if ((st = set_exec_cert(r, cfg, err)) != GP_OK)
        goto fail;
    return GP_OK;
fail:
    free(base);
    req_free(r);
    return st;
}

/* Makes r a method request (POST, PUT) with body send (not copied: it must outlive r). */
static void set_method(kube_req *r, const char *method, const char *send)
{
    curl_easy_setopt(r->easy, CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(r->easy, CURLOPT_POSTFIELDS, send != NULL ? send : "");
    curl_easy_setopt(r->easy, CURLOPT_POSTFIELDSIZE_LARGE,
                     (curl_off_t)(send != NULL ? strlen(send) : 0));
}

/* The message of a Kubernetes Status body ("nodes is forbidden: ..."), or the start of the body. */
static void status_message(const char *body, size_t len, char *out, size_t outsz)
{
    cJSON *root = body ? cJSON_ParseWithLengthOpts(body, len + 1, NULL, 1) : NULL;
    const cJSON *msg = cJSON_GetObjectItemCaseSensitive(root, "message");

    if (cJSON_IsString(msg))
        snprintf(out, outsz, "%s", msg->valuestring);
    else
        snprintf(out, outsz, "%.*s", (int)(len < 200 ? len : 200), body ? body : "");
    cJSON_Delete(root);
}

/* Sets err from a finished transfer: curl's error, or the HTTP status and message. */
static void transfer_error(gp_err *err, const char *what, CURLcode res, const kube_req *r,
                           long code, const gp_curl_body *b)
{
    char msg[256];

    if (res != CURLE_OK && code == 0) {
        gp_err_set(err, "%s: %s", what, r->curl_err[0] ? r->curl_err : curl_easy_strerror(res));
    } else if (b != NULL && b->too_big) {
        gp_err_set(err, "%s: response larger than %zu bytes", what, b->max);
    } else if (res != CURLE_OK) {
        gp_err_set(err, "%s: HTTP %ld, then %s", what, code,
                   r->curl_err[0] ? r->curl_err : curl_easy_strerror(res));
    } else {
        status_message(b ? b->s.p : NULL, b ? b->s.len : 0, msg, sizeof(msg));
        gp_err_set(err, "%s: HTTP %ld: %s", what, code, msg);
    }
}

/* One request: GET when method is NULL, else method with send (JSON) as its body. */
static gp_status kube_get_once(const gp_kube_config *cfg, const char *method, const char *send,
                               const char *path, size_t max, char **body, size_t *len,
                               long *http_status, gp_err *err)
{
    kube_req r;
    gp_curl_body b = { .max = max };
    char *token = NULL;
    CURLcode res;
    gp_status st;

    *body = NULL;
    *len = 0;
    *http_status = 0;
    if ((st = gp_kube_config_token(cfg, &token, err)) != GP_OK)
        return st;
    st = req_init(&r, cfg, token, path, err);
    wipe_free(token);
    if (st != GP_OK)
        return st;
    if (method != NULL) {
        if (add_header(&r, "Content-Type: application/json") != GP_OK) {
            req_free(&r);
            return GP_ENOMEM;
        }
        set_method(&r, method, send);
    }
    curl_easy_setopt(r.easy, CURLOPT_TIMEOUT, (long)GP_KUBE_LIST_TIMEOUT_S);
    curl_easy_setopt(r.easy, CURLOPT_WRITEFUNCTION, gp_curl_body_write);
    curl_easy_setopt(r.easy, CURLOPT_WRITEDATA, &b);
    res = curl_easy_perform(r.easy);
    curl_easy_getinfo(r.easy, CURLINFO_RESPONSE_CODE, http_status);
    if (res != CURLE_OK || *http_status < 200 || *http_status > 299) {
        transfer_error(err, path, res, &r, *http_status, &b);
        req_free(&r);
        gp_strbuf_free(&b.s);
        return b.too_big ? GP_ETOOBIG : GP_EIO;
    }
    req_free(&r);
    return gp_strbuf_take(&b.s, body, len);
}

gp_status gp_kube_request(const gp_kube_config *cfg, const char *method, const char *send,
                          const char *path, size_t max, char **body, size_t *len,
                          long *http_status, gp_err *err)
{
    gp_status st = kube_get_once(cfg, method, send, path, max, body, len, http_status, err);

    if (st == GP_EIO && *http_status == 401 && cfg->exec_cache != NULL) {
        unauthorized(cfg, *http_status); /* a fresh credential from the plugin, then once more */
        st = kube_get_once(cfg, method, send, path, max, body, len, http_status, err);
    }
    return st;
}

gp_status gp_kube_get(const gp_kube_config *cfg, const char *path, size_t max, char **body,
                      size_t *len, long *http_status, gp_err *err)
{
    return gp_kube_request(cfg, NULL, NULL, path, max, body, len, http_status, err);
}

/* ---- the informer -------------------------------------------------------------------------- */

typedef enum { OUT_OK, OUT_GONE, OUT_ERROR, OUT_SHORT, OUT_STOP } outcome;

struct gp_informer {
    gp_kube_config *cfg;
    char name[KUBE_NAME_MAX + 1];
    char *path, *selector; /* selector: url-encoded, or NULL */
    unsigned page_limit, watch_timeout_s, backoff_max_ms;
    gp_informer_handlers h;
    void *ctx;
    gp_log *log;
    gp_metrics *metrics;
    char label[64]; /* informer="<name>" */

    CURLM *multi;
    pthread_t thread;
    pthread_mutex_t mu; /* with cv: the backoff sleep; guards rv for readers */
    pthread_cond_t cv;
    atomic_bool stop;
    atomic_bool synced;
    _Atomic int64_t last_ok_ms; /* monotonic; -1 before the first list */

    /* Only the informer thread touches these (rv is also read under mu). */
    char rv[KUBE_RV_MAX];
    char *token;      /* the last token read: used if the token file is briefly unreadable */
    uint64_t rng;     /* xorshift64 state for the jitter */
    unsigned attempt; /* consecutive failures */
    bool listed;      /* a list has completed before */
    gp_linebuf lines;
};

static bool stopping(gp_informer *inf)
{
    return atomic_load(&inf->stop);
}

static void touch(gp_informer *inf)
{
    atomic_store(&inf->last_ok_ms, now_ms());
}

static void count(gp_informer *inf, const char *metric, const char *help, const char *extra_key,
                  const char *extra_val)
{
    char labels[160];

    if (extra_key == NULL)
        snprintf(labels, sizeof(labels), "%s", inf->label);
    else
        snprintf(labels, sizeof(labels), "%s,%s=\"%s\"", inf->label, extra_key, extra_val);
    gp_metrics_add(inf->metrics, metric, help, labels, 1);
}

static void count_error(gp_informer *inf)
{
    count(inf, "gpupack_kube_errors_total",
          "Failed API requests and undecodable watch events, per informer.", NULL, NULL);
}

static void set_rv(gp_informer *inf, const char *rv)
{
    pthread_mutex_lock(&inf->mu);
    snprintf(inf->rv, sizeof(inf->rv), "%s", rv);
    pthread_mutex_unlock(&inf->mu);
}

static uint64_t next_random(gp_informer *inf)
{
    uint64_t x = inf->rng;

    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return inf->rng = x;
}

/* Sleeps up to ms, waking at once when the informer stops. */
static void sleep_ms(gp_informer *inf, uint64_t ms)
{
    struct timespec deadline;

    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += (time_t)(ms / 1000);
    deadline.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&inf->mu);
    while (!stopping(inf) && pthread_cond_timedwait(&inf->cv, &inf->mu, &deadline) != ETIMEDOUT)
        ;
    pthread_mutex_unlock(&inf->mu);
}

/* Full jitter: uniform in [0, min(max, 200 ms * 2^attempt)]. */
static void backoff(gp_informer *inf)
{
    unsigned shift = inf->attempt < 20 ? inf->attempt : 20;
    uint64_t cap = (uint64_t)GP_KUBE_BACKOFF_MIN_MS << shift;
    uint64_t ms;

    if (cap > inf->backoff_max_ms)
        cap = inf->backoff_max_ms;
    ms = next_random(inf) % (cap + 1);
    inf->attempt++;
    GP_LOG(inf->log, GP_LOG_DEBUG, "kube: backing off", GP_LS("informer", inf->name),
           GP_LI("ms", ms), GP_LI("attempt", inf->attempt));
    sleep_ms(inf, ms);
}

static int xferinfo(void *arg, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
                    curl_off_t ulnow)
{
    (void)dltotal, (void)dlnow, (void)ultotal, (void)ulnow;
    return stopping(arg) ? 1 : 0;
}

/* Reads the token for the next request. A token file that cannot be read keeps the last token
 * that could (kubelet replaces it atomically, but a reader may still catch a bad moment). */
static gp_status current_token(gp_informer *inf, const char **out)
{
    char *tok = NULL;
    gp_err err = { { 0 } };
    gp_status st = gp_kube_config_token(inf->cfg, &tok, &err);

    if (st == GP_OK) {
        wipe_free(inf->token);
        inf->token = tok;
    } else if (inf->token == NULL) {
        GP_LOG(inf->log, GP_LOG_ERROR, "kube: cannot read the token", GP_LS("informer", inf->name),
               GP_LS("error", err.msg));
        return st;
    } else {
        GP_LOG(inf->log, GP_LOG_WARN, "kube: cannot re-read the token, using the previous one",
               GP_LS("informer", inf->name), GP_LS("error", err.msg));
    }
    *out = inf->token;
    return GP_OK;
}

/* Runs r's transfer on the informer's multi handle until it ends or the informer stops. */
static CURLcode run_transfer(gp_informer *inf, kube_req *r)
{
    CURLcode res = CURLE_OK;
    CURLMsg *m;
    int running = 1, queued;

    curl_easy_setopt(r->easy, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(r->easy, CURLOPT_XFERINFOFUNCTION, xferinfo);
    curl_easy_setopt(r->easy, CURLOPT_XFERINFODATA, inf);
    if (curl_multi_add_handle(inf->multi, r->easy) != CURLM_OK)
        return CURLE_FAILED_INIT;
    while (running && !stopping(inf)) {
        if (curl_multi_perform(inf->multi, &running) != CURLM_OK)
            break;
        if (running && curl_multi_poll(inf->multi, NULL, 0, 1000, NULL) != CURLM_OK)
            break;
    }
    res = running ? CURLE_ABORTED_BY_CALLBACK : CURLE_OK;
    while ((m = curl_multi_info_read(inf->multi, &queued)) != NULL)
        if (m->msg == CURLMSG_DONE && m->easy_handle == r->easy)
            res = m->data.result;
    curl_multi_remove_handle(inf->multi, r->easy);
    return res;
}

/* Prepares a request to inf->path + query with the current token. */
static gp_status informer_req(gp_informer *inf, const char *query, kube_req *r)
{
    const char *token = NULL;
    gp_err err = { { 0 } };
    char *path;
    gp_status st = current_token(inf, &token);

    if (st != GP_OK)
        return st;
    if ((path = concat((const char *[]){ inf->path, query }, 2)) == NULL)
        return GP_ENOMEM;
    st = req_init(r, inf->cfg, token, path, &err);
    free(path);
    if (st != GP_OK)
        GP_LOG(inf->log, GP_LOG_ERROR, "kube: cannot prepare a request",
               GP_LS("informer", inf->name), GP_LS("error", err.msg));
    return st;
}

/* ---- list ---------------------------------------------------------------------------------- */

static char *list_query(gp_informer *inf, const char *cont)
{
    char limit[32];
    char *enc = cont[0] ? url_encode(cont) : NULL, *q;

    if (cont[0] && enc == NULL)
        return NULL;
    snprintf(limit, sizeof(limit), "?limit=%u", inf->page_limit);
    q = concat((const char *[]){ limit, enc ? "&continue=" : NULL, enc,
                                 inf->selector ? "&fieldSelector=" : NULL, inf->selector },
               5);
    free(enc);
    return q;
}

/* One list page's JSON: its items, resourceVersion and continue token (bounded). */
static gp_status parse_page(const char *body, size_t len, cJSON **root, const cJSON **items,
                            const char **rv, const char **cont, gp_err *err)
{
    const cJSON *meta, *jrv, *jcont;

    *root = gp_json_parse(body, len, KUBE_JSON_DEPTH, NULL);
    meta = cJSON_GetObjectItemCaseSensitive(*root, "metadata");
    jrv = cJSON_GetObjectItemCaseSensitive(meta, "resourceVersion");
    jcont = cJSON_GetObjectItemCaseSensitive(meta, "continue");
    *items = cJSON_GetObjectItemCaseSensitive(*root, "items");
    if (*root == NULL) {
        gp_err_set(err, "list: the response is not JSON");
        return GP_EINVAL;
    }
    if (!(cJSON_IsArray(*items) || cJSON_IsNull(*items)) || !cJSON_IsString(jrv) ||
        jrv->valuestring[0] == '\0' || strlen(jrv->valuestring) >= KUBE_RV_MAX) {
        gp_err_set(err, "list: no items array or no metadata.resourceVersion");
        return GP_EINVAL;
    }
    if (jcont != NULL && !cJSON_IsNull(jcont) &&
        (!cJSON_IsString(jcont) || strlen(jcont->valuestring) > KUBE_CONTINUE_MAX)) {
        gp_err_set(err, "list: metadata.continue is not a string of at most %d bytes",
                   KUBE_CONTINUE_MAX);
        return GP_EINVAL;
    }
    *rv = jrv->valuestring;
    *cont = cJSON_IsString(jcont) ? jcont->valuestring : "";
    return GP_OK;
}

/* Fetches one page. On success *body holds it; OUT_GONE for 410 on a continue token. */
static outcome fetch_page(gp_informer *inf, const char *cont, gp_curl_body *b, gp_err *err)
{
    kube_req r;
    char *q = list_query(inf, cont);
    long code = 0;
    CURLcode res;

    if (q == NULL || informer_req(inf, q, &r) != GP_OK) {
        free(q);
        gp_err_set(err, "list: cannot prepare the request");
        return OUT_ERROR;
    }
    free(q);
    curl_easy_setopt(r.easy, CURLOPT_TIMEOUT, (long)GP_KUBE_LIST_TIMEOUT_S);
    curl_easy_setopt(r.easy, CURLOPT_WRITEFUNCTION, gp_curl_body_write);
    curl_easy_setopt(r.easy, CURLOPT_WRITEDATA, b);
    res = run_transfer(inf, &r);
    curl_easy_getinfo(r.easy, CURLINFO_RESPONSE_CODE, &code);
    if (stopping(inf)) {
        req_free(&r);
        return OUT_STOP;
    }
    if (res == CURLE_OK && code == 200) {
        req_free(&r);
        return OUT_OK;
    }
    transfer_error(err, "list", res, &r, code, b);
    unauthorized(inf->cfg, code);
    req_free(&r);
    return res == CURLE_OK && code == 410 && cont[0] ? OUT_GONE : OUT_ERROR;
}

/* Delivers one parsed page; returns true when it was the last. */
static bool deliver_page(gp_informer *inf, const cJSON *items, const char *rv, const char *cont,
                         bool *begun)
{
    const cJSON *it;

    if (!*begun) {
        *begun = true;
        if (inf->h.list_begin)
            inf->h.list_begin(inf->ctx);
    }
    cJSON_ArrayForEach(it, items) {
        if (inf->h.list_item)
            inf->h.list_item(inf->ctx, it);
    }
    touch(inf);
    if (cont[0] != '\0')
        return false;
    set_rv(inf, rv);
    if (inf->h.list_end)
        inf->h.list_end(inf->ctx);
    return true;
}

static outcome list_pages(gp_informer *inf, gp_err *err)
{
    char cont[KUBE_CONTINUE_MAX + 1] = "";
    bool begun = false, last = false;
    size_t items_total = 0;

    while (!last) {
        gp_curl_body b = { .max = GP_KUBE_MAX_LIST_PAGE };
        cJSON *root = NULL;
        const cJSON *items;
        const char *rv, *next;
        outcome o = fetch_page(inf, cont, &b, err);

        if (o == OUT_OK && parse_page(b.s.p ? b.s.p : "", b.s.len, &root, &items, &rv, &next,
                                      err) != GP_OK)
            o = OUT_ERROR;
        gp_strbuf_free(&b.s);
        if (o != OUT_OK) {
            cJSON_Delete(root);
            return o;
        }
        items_total += (size_t)cJSON_GetArraySize(items);
        last = deliver_page(inf, items, rv, next, &begun);
        snprintf(cont, sizeof(cont), "%s", next);
        cJSON_Delete(root);
        if (!last && stopping(inf))
            return OUT_STOP;
    }
    GP_LOG(inf->log, GP_LOG_INFO, "kube: listed", GP_LS("informer", inf->name),
           GP_LI("items", items_total), GP_LS("resourceVersion", inf->rv));
    return OUT_OK;
}

static outcome do_list(gp_informer *inf, const char *reason)
{
    gp_err err = { { 0 } };
    outcome o;

    count(inf, "gpupack_kube_lists_total", "Full lists started, per informer.", NULL, NULL);
    if (reason != NULL)
        count(inf, "gpupack_kube_relists_total",
              "Lists after the first: reason gone (410) or error (retrying a failed list).",
              "reason", reason);
    o = list_pages(inf, &err);
    if (o == OUT_OK) {
        inf->listed = true;
        atomic_store(&inf->synced, true);
    } else if (o != OUT_STOP) {
        if (o != OUT_GONE) /* an expired snapshot is the protocol, not a failure */
            count_error(inf);
        GP_LOG(inf->log, o == OUT_GONE ? GP_LOG_INFO : GP_LOG_WARN, "kube: list failed",
               GP_LS("informer", inf->name), GP_LS("error", err.msg));
    }
    return o;
}

/* ---- watch --------------------------------------------------------------------------------- */

typedef struct {
    gp_informer *inf;
    CURL *easy;
    long code;
    gp_curl_body errbody; /* a non-200 response's body */
    outcome result;   /* set by an event that ends the watch (ERROR) */
    unsigned events;
    gp_status feed_st;
    char msg[GP_ERR_MAX];
} watch_ctx;

static const char *object_rv(const cJSON *obj)
{
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    const cJSON *rv = cJSON_GetObjectItemCaseSensitive(meta, "resourceVersion");

    if (!cJSON_IsString(rv) || rv->valuestring[0] == '\0' ||
        strlen(rv->valuestring) >= KUBE_RV_MAX)
        return NULL;
    return rv->valuestring;
}

static gp_status on_error_event(watch_ctx *w, const cJSON *obj)
{
    const cJSON *code = cJSON_GetObjectItemCaseSensitive(obj, "code");
    const cJSON *msg = cJSON_GetObjectItemCaseSensitive(obj, "message");

    snprintf(w->msg, sizeof(w->msg), "ERROR event: %s",
             cJSON_IsString(msg) ? msg->valuestring : "(no message)");
    w->result = cJSON_IsNumber(code) && code->valuedouble == 410 ? OUT_GONE : OUT_ERROR;
    return GP_EIO; /* ends the transfer */
}

static gp_status on_event(watch_ctx *w, const char *type, const cJSON *obj)
{
    gp_informer *inf = w->inf;
    const char *rv = object_rv(obj);
    bool is_bookmark = strcmp(type, "BOOKMARK") == 0;

    if (strcmp(type, "ERROR") == 0) {
        count(inf, "gpupack_kube_events_total", "Watch events, per informer and type.", "type",
              "ERROR");
        return on_error_event(w, obj);
    }
    if (!is_bookmark && strcmp(type, "ADDED") != 0 && strcmp(type, "MODIFIED") != 0 &&
        strcmp(type, "DELETED") != 0) {
        snprintf(w->msg, sizeof(w->msg), "unknown event type \"%.32s\"", type);
        return GP_EINVAL;
    }
    if (rv == NULL) {
        snprintf(w->msg, sizeof(w->msg), "%s event without metadata.resourceVersion", type);
        return GP_EINVAL;
    }
    w->events++;
    count(inf, "gpupack_kube_events_total", "Watch events, per informer and type.", "type", type);
    if (!is_bookmark && inf->h.event)
        inf->h.event(inf->ctx, type, obj);
    set_rv(inf, rv);
    touch(inf);
    return GP_OK;
}

/* One watch event. Its cJSON tree comes from a pool (jsonpool.h) released after the handler:
 * handlers copy what they keep. */
static gp_status on_line(void *arg, const char *line, size_t len)
{
    watch_ctx *w = arg;
    gp_json_pool pool;

    gp_json_pool_begin(&pool, 0);
    cJSON *root = gp_json_parse(line, len, KUBE_JSON_DEPTH, NULL);
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(root, "type");
    const cJSON *obj = cJSON_GetObjectItemCaseSensitive(root, "object");
    gp_status st;

    if (!cJSON_IsString(type) || !cJSON_IsObject(obj)) {
        snprintf(w->msg, sizeof(w->msg), "undecodable watch event (%zu bytes)", len);
        st = GP_EINVAL;
    } else {
        st = on_event(w, type->valuestring, obj);
    }
    gp_json_pool_drop(&pool, root);
    gp_json_pool_end(&pool);
    if (stopping(w->inf) && st == GP_OK)
        st = GP_EIO;
    return st;
}

static size_t watch_write(char *data, size_t size, size_t nmemb, void *arg)
{
    watch_ctx *w = arg;
    size_t n = size * nmemb;

    if (w->code == 0)
        curl_easy_getinfo(w->easy, CURLINFO_RESPONSE_CODE, &w->code);
    if (w->code != 200) {
        /* Keep the start of an error body for the message; the rest is not needed. */
        size_t room = w->errbody.max - w->errbody.s.len;

        if (room > 0)
            (void)gp_curl_body_write(data, 1, n < room ? n : room, &w->errbody);
        return n;
    }
    w->feed_st = gp_linebuf_feed(&w->inf->lines, data, n, on_line, w);
    if (w->feed_st == GP_ETOOBIG)
        snprintf(w->msg, sizeof(w->msg), "watch event longer than %u bytes", GP_KUBE_MAX_OBJECT);
    return w->feed_st == GP_OK ? n : 0;
}

static char *watch_query(gp_informer *inf)
{
    char head[96];
    char *rv = url_encode(inf->rv), *q;

    if (rv == NULL)
        return NULL;
    snprintf(head, sizeof(head), "?watch=1&allowWatchBookmarks=true&timeoutSeconds=%u",
             inf->watch_timeout_s);
    q = concat((const char *[]){ head, "&resourceVersion=", rv,
                                 inf->selector ? "&fieldSelector=" : NULL, inf->selector },
               5);
    free(rv);
    return q;
}

/* What a finished watch means for the state machine. */
static outcome watch_outcome(watch_ctx *w, CURLcode res, int64_t elapsed_ms, kube_req *r)
{
    gp_informer *inf = w->inf;

    if (stopping(inf))
        return OUT_STOP;
    if (w->result == OUT_GONE || w->result == OUT_ERROR)
        return w->result;
    if (w->code == 0)
        curl_easy_getinfo(r->easy, CURLINFO_RESPONSE_CODE, &w->code);
    if (w->code != 200) {
        gp_err e = { { 0 } };

        transfer_error(&e, "watch", w->code ? CURLE_OK : res, r, w->code, &w->errbody);
        unauthorized(inf->cfg, w->code);
        snprintf(w->msg, sizeof(w->msg), "%s", e.msg);
        return w->code == 410 ? OUT_GONE : OUT_ERROR;
    }
    if (w->feed_st != GP_OK)
        return OUT_ERROR;
    if (res != CURLE_OK)
        GP_LOG(inf->log, GP_LOG_DEBUG, "kube: watch ended", GP_LS("informer", inf->name),
               GP_LS("reason", r->curl_err[0] ? r->curl_err : curl_easy_strerror(res)));
    else
        touch(inf);
    if (w->events == 0 && elapsed_ms < KUBE_SHORT_WATCH_MS)
        return OUT_SHORT;
    return OUT_OK;
}

static void log_watch_end(gp_informer *inf, outcome o, const watch_ctx *w)
{
    if (o == OUT_GONE) {
        GP_LOG(inf->log, GP_LOG_INFO, "kube: watch expired (410), relisting",
               GP_LS("informer", inf->name), GP_LS("resourceVersion", inf->rv),
               GP_LS("detail", w->msg));
    } else if (o == OUT_ERROR) {
        count_error(inf);
        GP_LOG(inf->log, GP_LOG_WARN, "kube: watch failed", GP_LS("informer", inf->name),
               GP_LS("error", w->msg));
    }
}

static outcome do_watch(gp_informer *inf, bool restart)
{
    watch_ctx w = { .inf = inf, .errbody = { .max = KUBE_ERRBODY_MAX }, .result = OUT_OK };
    kube_req r;
    char *q = watch_query(inf);
    int64_t t0 = now_ms();
    CURLcode res;
    outcome o;

    if (restart)
        count(inf, "gpupack_kube_watch_restarts_total",
              "Watches started again without a list before them, per informer.", NULL, NULL);
    if (q == NULL || informer_req(inf, q, &r) != GP_OK) {
        free(q);
        snprintf(w.msg, sizeof(w.msg), "cannot prepare the watch request");
        log_watch_end(inf, OUT_ERROR, &w);
        return OUT_ERROR;
    }
    free(q);
    w.easy = r.easy;
    gp_linebuf_reset(&inf->lines);
    curl_easy_setopt(r.easy, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(r.easy, CURLOPT_LOW_SPEED_TIME, (long)inf->watch_timeout_s + 60);
    curl_easy_setopt(r.easy, CURLOPT_WRITEFUNCTION, watch_write);
    curl_easy_setopt(r.easy, CURLOPT_WRITEDATA, &w);
    res = run_transfer(inf, &r);
    o = watch_outcome(&w, res, now_ms() - t0, &r);
    log_watch_end(inf, o, &w);
    req_free(&r);
    gp_strbuf_free(&w.errbody.s);
    return o;
}

/* ---- the thread ---------------------------------------------------------------------------- */

/* Lists until a list succeeds or the informer stops. reason: why this list ("gone"), or NULL
 * for the first; retries after a failure count as "error" (or "gone" after an expired continue
 * token, which is retried at once the first time, like a 410 watch). */
static outcome list_until_ok(gp_informer *inf, const char *reason)
{
    for (;;) {
        outcome o = do_list(inf, reason);

        if (o == OUT_OK || o == OUT_STOP)
            return o;
        if (o == OUT_GONE && inf->attempt == 0)
            inf->attempt++;
        else
            backoff(inf);
        if (stopping(inf))
            return OUT_STOP;
        reason = o == OUT_GONE ? "gone" : "error";
    }
}

static void *informer_main(void *arg)
{
    gp_informer *inf = arg;
    bool need_list = true, after_list = false;
    const char *reason = NULL;

    while (!stopping(inf)) {
        if (need_list) {
            if (list_until_ok(inf, reason) != OUT_OK)
                break;
            need_list = false;
            after_list = true;
            inf->attempt = 0;
        }
        switch (do_watch(inf, !after_list)) {
        case OUT_OK:
            inf->attempt = 0;
            break;
        case OUT_GONE:
            need_list = true;
            reason = "gone";
            break;
        case OUT_ERROR:
        case OUT_SHORT:
            backoff(inf);
            break;
        case OUT_STOP:
            break;
        }
        after_list = false;
    }
    return NULL;
}

/* ---- start, stop, queries ------------------------------------------------------------------ */

static bool name_ok(const char *s)
{
    size_t n = s ? strlen(s) : 0;

    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_' ||
              s[i] == '-'))
            return false;
    return n > 0 && n <= KUBE_NAME_MAX;
}

static gp_status check_spec(const gp_kube_config *cfg, const gp_informer_spec *spec, gp_err *err)
{
    if (cfg == NULL || cfg->server == NULL) {
        gp_err_set(err, "informer: no server configured");
        return GP_EINVAL;
    }
    if (!name_ok(spec->name)) {
        gp_err_set(err, "informer: name must be 1-%d bytes of [a-z0-9_-]", KUBE_NAME_MAX);
        return GP_EINVAL;
    }
    if (spec->path == NULL || spec->path[0] != '/' || strlen(spec->path) > KUBE_PATH_MAX ||
        strpbrk(spec->path, "?# \r\n") != NULL) {
        gp_err_set(err, "informer %s: path must start with '/' and have no query", spec->name);
        return GP_EINVAL;
    }
    if (spec->field_selector != NULL && strlen(spec->field_selector) > KUBE_PATH_MAX) {
        gp_err_set(err, "informer %s: field selector longer than %d bytes", spec->name,
                   KUBE_PATH_MAX);
        return GP_EINVAL;
    }
    return GP_OK;
}

static gp_status informer_init_sync(gp_informer *inf)
{
    pthread_condattr_t ca;

    if (pthread_mutex_init(&inf->mu, NULL) != 0)
        return GP_EINTERNAL;
    if (pthread_condattr_init(&ca) != 0)
        return GP_EINTERNAL;
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    if (pthread_cond_init(&inf->cv, &ca) != 0) {
        pthread_condattr_destroy(&ca);
        return GP_EINTERNAL;
    }
    pthread_condattr_destroy(&ca);
    return GP_OK;
}

/* Undoes informer_init_sync(). */
static void informer_fini_sync(gp_informer *inf)
{
    pthread_cond_destroy(&inf->cv);
    pthread_mutex_destroy(&inf->mu);
}

static void informer_free(gp_informer *inf)
{
    if (inf == NULL)
        return;
    if (inf->multi != NULL)
        curl_multi_cleanup(inf->multi);
    gp_kube_config_free(inf->cfg);
    free(inf->path);
    free(inf->selector);
    wipe_free(inf->token);
    gp_linebuf_free(&inf->lines);
    informer_fini_sync(inf);
    free(inf);
}

static gp_informer *informer_new(const gp_kube_config *cfg, const gp_informer_spec *spec)
{
    gp_informer *inf = calloc(1, sizeof(*inf));
    struct timespec ts;

    if (inf == NULL)
        return NULL;
    if (informer_init_sync(inf) != GP_OK) {
        free(inf);
        return NULL;
    }
    snprintf(inf->name, sizeof(inf->name), "%s", spec->name);
    snprintf(inf->label, sizeof(inf->label), "informer=\"%s\"", spec->name);
    inf->page_limit = spec->page_limit ? spec->page_limit : 500;
    inf->watch_timeout_s = spec->watch_timeout_s ? spec->watch_timeout_s : 300;
    inf->backoff_max_ms = spec->backoff_max_ms ? spec->backoff_max_ms : 30000;
    atomic_init(&inf->stop, false);
    atomic_init(&inf->synced, false);
    atomic_init(&inf->last_ok_ms, -1);
    clock_gettime(CLOCK_REALTIME, &ts);
    inf->rng = ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)ts.tv_sec ^ (uint64_t)(uintptr_t)inf;
    inf->rng |= 1;
    gp_linebuf_init(&inf->lines, GP_KUBE_MAX_OBJECT);
    inf->cfg = gp_kube_config_copy(cfg);
    inf->path = strdup(spec->path);
    inf->selector = spec->field_selector && spec->field_selector[0]
                        ? url_encode(spec->field_selector)
                        : NULL;
    gp_curl_global_init();
    inf->multi = curl_multi_init();
    if (inf->cfg == NULL || inf->path == NULL || inf->multi == NULL ||
        (spec->field_selector && spec->field_selector[0] && inf->selector == NULL)) {
        informer_free(inf);
        return NULL;
    }
    return inf;
}

gp_status gp_informer_start(const gp_kube_config *cfg, const gp_informer_spec *spec,
                            const gp_informer_handlers *h, void *ctx, gp_log *log,
                            gp_metrics *metrics, gp_informer **out, gp_err *err)
{
    gp_informer *inf;
    gp_status st = check_spec(cfg, spec, err);

    *out = NULL;
    if (st != GP_OK)
        return st;
    if ((inf = informer_new(cfg, spec)) == NULL) {
        gp_err_set(err, "informer %s: out of memory", spec->name);
        return GP_ENOMEM;
    }
    inf->h = *h;
    inf->ctx = ctx;
    inf->log = log;
    inf->metrics = metrics;
    if (pthread_create(&inf->thread, NULL, informer_main, inf) != 0) {
        gp_err_set(err, "informer %s: cannot start a thread", spec->name);
        informer_free(inf);
        return GP_EINTERNAL;
    }
    GP_LOG(log, GP_LOG_INFO, "kube: informer started", GP_LS("informer", inf->name),
           GP_LS("path", inf->path), GP_LS("server", inf->cfg->server));
    if (strncmp(inf->cfg->server, "http://", 7) == 0 &&
        (inf->cfg->token != NULL || inf->cfg->token_file != NULL || inf->cfg->exec != NULL))
        GP_LOG(log, GP_LOG_WARN, "kube: sending a bearer token over plain HTTP",
               GP_LS("informer", inf->name), GP_LS("server", inf->cfg->server));
    *out = inf;
    return GP_OK;
}

bool gp_informer_synced(gp_informer *inf)
{
    return inf != NULL && atomic_load(&inf->synced);
}

int64_t gp_informer_staleness_ms(gp_informer *inf)
{
    int64_t last;

    if (inf == NULL || !atomic_load(&inf->synced))
        return -1;
    last = atomic_load(&inf->last_ok_ms);
    return last < 0 ? -1 : now_ms() - last;
}

void gp_informer_resource_version(gp_informer *inf, char *buf, size_t bufsz)
{
    if (bufsz == 0)
        return;
    buf[0] = '\0';
    if (inf == NULL)
        return;
    pthread_mutex_lock(&inf->mu);
    snprintf(buf, bufsz, "%s", inf->rv);
    pthread_mutex_unlock(&inf->mu);
}

void gp_informer_stop(gp_informer *inf)
{
    if (inf == NULL)
        return;
    pthread_mutex_lock(&inf->mu);
    atomic_store(&inf->stop, true);
    pthread_cond_broadcast(&inf->cv);
    pthread_mutex_unlock(&inf->mu);
    curl_multi_wakeup(inf->multi);
    /* A credential plugin still running (or about to) must not hold the stop. */
    gp_exec_cache_cancel(inf->cfg->exec_cache);
    pthread_join(inf->thread, NULL);
    GP_LOG(inf->log, GP_LOG_INFO, "kube: informer stopped", GP_LS("informer", inf->name));
    informer_free(inf);
}
