/* SPDX-License-Identifier: Apache-2.0 */
/* A Kubernetes API client for list+watch (libcurl). The configuration to reach the API is
 * gpupack/kubeconfig.h.
 *
 * An informer lists a collection (in pages), hands every item to the handlers, then watches from
 * the list's resourceVersion with allowWatchBookmarks; it re-watches on EOF or timeout from the
 * last resourceVersion seen (bookmarks included), relists on 410 Gone (as an HTTP status, an
 * in-stream ERROR event, or an expired continue token), and backs off with full jitter on errors
 * (200 ms doubling up to backoff_max_ms). Every request has a connect timeout and TCP keepalive;
 * lists have an overall timeout, watches a low-speed timeout (no byte for watch_timeout_s + 60 s).
 * Handlers run on the informer's own thread. The bearer token is never logged. The top of
 * lib/kube.c describes the design. */
#ifndef GPUPACK_KUBE_H
#define GPUPACK_KUBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "gpupack/kubeconfig.h"
#include "gpupack/log.h"
#include "gpupack/metrics.h"
#include "gpupack/status.h"
#include "gpupack/strbuf.h"

#define GP_KUBE_MAX_OBJECT (4u * 1024 * 1024)      /* one watch event line */
#define GP_KUBE_MAX_LIST_PAGE (64u * 1024 * 1024)  /* one list response */
#define GP_KUBE_CONNECT_TIMEOUT_S 10
#define GP_KUBE_LIST_TIMEOUT_S 120                 /* a whole list request (one page) */
#define GP_KUBE_BACKOFF_MIN_MS 200

/* One GET of path (which may carry a query string) against cfg's server, with the same TLS,
 * authentication and timeouts as a list. On a 2xx, *body (malloc'd, NUL-terminated, at most max
 * bytes) and *len are set; on another status GP_EIO, with the status in *http_status and the
 * server's message in err. *http_status is 0 when no response arrived. The caller frees *body. */
gp_status gp_kube_get(const gp_kube_config *cfg, const char *path, size_t max, char **body,
                      size_t *len, long *http_status, gp_err *err) GP_WUR;

/* The same as gp_kube_get() with another method ("POST", "PUT"; NULL: GET) and a JSON body
 * (send, NUL-terminated; NULL: none). A non-2xx answer is GP_EIO with its status in
 * *http_status (409 for a conflicting update) and the server's message in err. */
gp_status gp_kube_request(const gp_kube_config *cfg, const char *method, const char *send,
                          const char *path, size_t max, char **body, size_t *len,
                          long *http_status, gp_err *err) GP_WUR;

/* The handlers of one informer. Every list attempt that gets a first page calls list_begin, then
 * list_item for each item of each page in order, then list_end when the last page is in. A list
 * that fails midway (an error, or 410 on a continue token) is retried from the start, calling
 * list_begin again without a list_end: a consumer that replaces its state should do so at
 * list_end (items delivered by an abandoned attempt were true when delivered). After list_end,
 * event is called for every watch event (type ADDED, MODIFIED or DELETED; bookmarks and errors
 * are handled inside). obj is only valid during the call. Any handler may be NULL. */
typedef struct {
    void (*list_begin)(void *ctx);                  /* a full list starts (first or relist) */
    void (*list_item)(void *ctx, const cJSON *obj); /* one item of it */
    void (*list_end)(void *ctx);                    /* the list is complete */
    void (*event)(void *ctx, const char *type, const cJSON *obj); /* ADDED, MODIFIED, DELETED */
} gp_informer_handlers;

/* Defines `static const gp_informer_handlers name` for a consumer with three functions taking
 * its own context pointer: begin_fn(ctx) at list_begin, end_fn(ctx) at list_end, and
 * event_fn(ctx, type, obj) for every watch event and, with type NULL, every list item. */
#define GP_INFORMER_HANDLERS(name, begin_fn, event_fn, end_fn)                                     \
    static void name##_begin(void *ctx) { begin_fn(ctx); }                                         \
    static void name##_item(void *ctx, const cJSON *o) { event_fn(ctx, NULL, o); }                 \
    static void name##_end(void *ctx) { end_fn(ctx); }                                             \
    static void name##_event(void *ctx, const char *t, const cJSON *o) { event_fn(ctx, t, o); }    \
    static const gp_informer_handlers name = { name##_begin, name##_item, name##_end, name##_event }

typedef struct {
    const char *name;           /* "nodes", for logs and metric labels: [a-z0-9_-], 1-32 bytes */
    const char *path;           /* "/api/v1/nodes" */
    const char *field_selector; /* or NULL; sent url-encoded */
    unsigned page_limit;        /* list page size (limit=, continue=), 0: 500 */
    unsigned watch_timeout_s;   /* server-side timeoutSeconds, 0: 300 */
    unsigned backoff_max_ms;    /* 0: 30000 */
} gp_informer_spec;

typedef struct gp_informer gp_informer;

/* Starts the informer thread. cfg and spec are copied; h, ctx, log and metrics must outlive the
 * informer (log and metrics may be NULL). Metrics, each labelled informer="<name>":
 * gpupack_kube_lists_total (full lists started), gpupack_kube_relists_total{reason="gone|error"}
 * (lists after the first: after a 410, or retrying a failed list),
 * gpupack_kube_watch_restarts_total (watches started without a list before them),
 * gpupack_kube_events_total{type} (ADDED, MODIFIED, DELETED, BOOKMARK, ERROR) and
 * gpupack_kube_errors_total (failed requests and undecodable events). GP_EINVAL for a bad spec,
 * GP_ENOMEM, GP_EINTERNAL if the thread cannot start. */
gp_status gp_informer_start(const gp_kube_config *cfg, const gp_informer_spec *spec,
                            const gp_informer_handlers *h, void *ctx, gp_log *log,
                            gp_metrics *metrics, gp_informer **out, gp_err *err) GP_WUR;

/* True once the first full list has been delivered (list_end returned); stays true. */
bool gp_informer_synced(gp_informer *inf);

/* Milliseconds since the informer last heard from the API server successfully (list page, watch
 * event or bookmark, or a watch that ended normally); -1 before the first list. */
int64_t gp_informer_staleness_ms(gp_informer *inf);

/* The last resourceVersion the informer has seen ("" before the first list), copied into buf
 * (truncated to bufsz): where the view stopped, for /readyz and logs. */
void gp_informer_resource_version(gp_informer *inf, char *buf, size_t bufsz);

/* Stops the thread (promptly: an open transfer is aborted and a backoff sleep is woken) and frees
 * it. Must not be called from a handler. NULL is harmless. */
void gp_informer_stop(gp_informer *inf);

/* Splitting a watch stream into events: bytes in, one callback per complete line (events are
 * newline-delimited JSON). Chunks may split lines anywhere; a trailing '\r' is removed and empty
 * lines are skipped. The line passed to fn is NUL-terminated (line[len] == '\0') and valid only
 * during the call. A line longer than max bytes (without its terminator) is GP_ETOOBIG; a status
 * other than GP_OK from fn stops feeding and is returned. After an error the buffer holds no
 * partial line; a stream that continues would be parsed from mid-line, so callers end it. At most
 * max + 2 bytes are buffered. Pure, for fuzzing. */
typedef struct {
    gp_strbuf s; /* the partial line */
    size_t max;
} gp_linebuf;

typedef gp_status (*gp_line_fn)(void *ctx, const char *line, size_t len);

void gp_linebuf_init(gp_linebuf *lb, size_t max);
void gp_linebuf_free(gp_linebuf *lb);
/* Drops a partial line (a new stream starts); keeps the memory. */
void gp_linebuf_reset(gp_linebuf *lb);
gp_status gp_linebuf_feed(gp_linebuf *lb, const char *data, size_t n, gp_line_fn fn,
                          void *ctx) GP_WUR;

#endif
