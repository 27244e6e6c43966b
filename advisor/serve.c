/* SPDX-License-Identifier: Apache-2.0 */
/* gpupack-advisor serve (the contract is in serve.h). The main thread runs the analyses and
 * waits between them on a condition variable; a signal thread takes SIGTERM and SIGINT (blocked
 * everywhere else) and ends the wait, or the process when a run outlasts STOP_GRACE_S; the
 * server's threads answer the routes from what the last run left, under one mutex. */
#include "serve.h"

#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmwrite.h"
#include "gpupack/daemon.h"
#include "gpupack/metrics.h"
#include "gpupack/recs.h"
#include "gpupack/server.h"
#include "gpupack/strbuf.h"

#define PROG "gpupack-advisor"
#define RECS_KEY "recommendations.json"

typedef struct {
    const gp_adv_serve_opts *o;
    gp_metrics *metrics;    /* the process's: HTTP, runs, errors */
    gp_log *log;
    pthread_mutex_t mu;     /* guards what follows */
    char *cost;             /* the last good run's cost metrics, rendered */
    size_t cost_len;
    bool good;              /* a run has succeeded */
    bool stale;             /* the last run failed */
    char why[GP_ERR_MAX];   /* why it failed */
    double last_good;       /* when the last good run ended */
    pthread_cond_t cv;      /* stop or busy changed */
    bool stop;              /* SIGTERM or SIGINT came */
    bool busy;              /* a run is under way */
    gp_policy_holder pol;   /* the policy in force; the run thread alone swaps it */
    gp_policy_seen seen;
} serve_state;

/* How long a run under way may go on after SIGTERM before the process exits without it. */
#define STOP_GRACE_S 10

static double now_s(void)
{
    return (double)time(NULL);
}

/* ---- the cost metrics --------------------------------------------------------------------- */

/* A label value escaped for the exposition format, into buf. */
static const char *esc(const char *s, char *buf, size_t n)
{
    size_t j = 0;

    for (; s != NULL && *s != '\0' && j + 3 < n; s++) {
        if (*s == '\\' || *s == '"' || *s == '\n') {
            buf[j++] = '\\';
            buf[j++] = *s == '\n' ? 'n' : *s;
        } else {
            buf[j++] = *s;
        }
    }
    buf[j] = '\0';
    return buf;
}

/* The three parts of a by_cell key ("ns\x1fclass\x1fmodel"). */
static void cell_parts(const char *key, char part[3][256])
{
    const char *p = key;

    for (int i = 0; i < 3; i++) {
        const char *e = strchr(p, GP_ADV_CELL_SEP);
        size_t n = e != NULL ? (size_t)(e - p) : strlen(p);

        snprintf(part[i], 256, "%.*s", (int)(n < 255 ? n : 255), p);
        p = e != NULL ? e + 1 : p + n;
    }
}

static void cost_cells(const gp_adv_report *rep, gp_metrics *m)
{
    const gp_adv_totals *t = &rep->totals;

    for (size_t i = 0; i < t->nby_cell; i++) {
        char part[3][256], a[520], b[520], c[520], labels[1700];

        cell_parts(t->by_cell[i].key, part);
        snprintf(labels, sizeof(labels), "namespace=\"%s\",class=\"%s\",model=\"%s\"",
                 esc(part[0], a, sizeof(a)), esc(part[1], b, sizeof(b)), esc(part[2], c, sizeof(c)));
        gp_metrics_set(m, "gpupack_advisor_gpu_cost_dollars_per_hour",
                       "What the GPUs allocated at the end of the last analysis window cost per "
                       "hour, by namespace, class and model label",
                       labels, t->by_cell[i].dollars_per_hour_at_end);
    }
}

/* Idle GPUs per (namespace, class): the mean over the window, summed over the model cells. */
static void idle_gpus(const gp_adv_report *rep, gp_metrics *m)
{
    const gp_adv_totals *t = &rep->totals;
    double hours = t->window_hours > 0 ? t->window_hours : 1;

    for (size_t i = 0; i < t->nby_cell; i++) {
        char part[3][256], a[300], b[300], labels[700];
        double sum = 0;
        bool first = true;

        cell_parts(t->by_cell[i].key, part);
        for (size_t j = 0; j < t->nby_cell && first; j++) {
            char other[3][256];

            cell_parts(t->by_cell[j].key, other);
            if (strcmp(other[0], part[0]) != 0 || strcmp(other[1], part[1]) != 0)
                continue;
            if (j < i)
                first = false; /* counted at its first cell */
            sum += t->by_cell[j].idle_gpu_hours;
        }
        if (!first)
            continue;
        snprintf(labels, sizeof(labels), "namespace=\"%s\",class=\"%s\"",
                 esc(part[0], a, sizeof(a)), esc(part[1], b, sizeof(b)));
        gp_metrics_set(m, "gpupack_advisor_idle_gpus",
                       "Idle allocated GPUs (GPU-equivalents), mean over the last analysis window",
                       labels, sum / hours);
    }
}

/* One workload's waste: its namespace, its reference and its $/hour over all findings. */
typedef struct {
    const char *ns, *workload;
    double per_hour;
} wl_waste;

static int wl_cmp(const void *x, const void *y)
{
    const wl_waste *a = x, *b = y;

    if (a->per_hour != b->per_hour)
        return a->per_hour > b->per_hour ? -1 : 1;
    return strcmp(a->workload, b->workload);
}

/* The workloads with findings, by waste $/hour, descending; NULL when there are none. */
static wl_waste *rank_workloads(const gp_adv_report *rep, size_t *n)
{
    wl_waste *v = rep->nfindings ? calloc(rep->nfindings, sizeof(*v)) : NULL;

    *n = 0;
    for (size_t i = 0; v != NULL && i < rep->nfindings; i++) {
        const gp_adv_finding *f = &rep->findings[i];
        size_t j = 0;

        while (j < *n && !(strcmp(v[j].ns, f->namespace) == 0 &&
                           strcmp(v[j].workload, f->workload) == 0))
            j++;
        if (j == *n)
            v[(*n)++] = (wl_waste){ f->namespace, f->workload, 0 };
        v[j].per_hour += isfinite(f->per_hour) ? f->per_hour : 0;
    }
    if (*n > 1)
        qsort(v, *n, sizeof(*v), wl_cmp);
    return v;
}

static bool in_top(const wl_waste *v, size_t top, const gp_adv_finding *f)
{
    for (size_t i = 0; i < top; i++)
        if (strcmp(v[i].ns, f->namespace) == 0 && strcmp(v[i].workload, f->workload) == 0)
            return true;
    return false;
}

/* One waste series being summed: its labels and $/hour. */
typedef struct {
    char labels[1200];
    double v;
} series_sum;

/* Adds v to the series with labels in acc (n used of cap); false when it is full. */
static bool sum_into(series_sum *acc, size_t *n, size_t cap, const char *labels, double v)
{
    for (size_t i = 0; i < *n; i++) {
        if (strcmp(acc[i].labels, labels) == 0) {
            acc[i].v += v;
            return true;
        }
    }
    if (*n == cap)
        return false;
    snprintf(acc[*n].labels, sizeof(acc[*n].labels), "%s", labels);
    acc[(*n)++].v = v;
    return true;
}

static void waste(const gp_adv_report *rep, size_t top_workloads, gp_metrics *m)
{
    size_t n = 0, top, ns = 0;
    wl_waste *v = rank_workloads(rep, &n);
    series_sum *acc = rep->nfindings ? calloc(rep->nfindings, sizeof(*acc)) : NULL;

    top = n < top_workloads ? n : top_workloads;
    for (size_t i = 0; acc != NULL && v != NULL && i < rep->nfindings; i++) {
        const gp_adv_finding *f = &rep->findings[i];
        char a[520], b[1040], labels[1200];

        snprintf(labels, sizeof(labels), "namespace=\"%s\",workload=\"%s\",finding=\"%s\"",
                 esc(f->namespace, a, sizeof(a)),
                 in_top(v, top, f) ? esc(f->workload, b, sizeof(b)) : "other",
                 gp_adv_kind_name(f->kind));
        sum_into(acc, &ns, rep->nfindings, labels, isfinite(f->per_hour) ? f->per_hour : 0);
    }
    for (size_t i = 0; i < ns; i++)
        gp_metrics_set(m, "gpupack_advisor_waste_dollars_per_hour",
                       "What the waste the findings name costs per hour now, by namespace, "
                       "workload (the top workloads by waste; the rest of a namespace as "
                       "\"other\") and finding",
                       acc[i].labels, acc[i].v);
    free(acc);
    free(v);
}

void gp_adv_cost_metrics(const gp_adv_report *rep, size_t top_workloads, size_t written,
                         size_t dropped, gp_metrics *m)
{
    cost_cells(rep, m);
    idle_gpus(rep, m);
    waste(rep, top_workloads, m);
    gp_metrics_set(m, "gpupack_advisor_recommendations",
                   "Recommendations in the last document written, and those left out to keep it "
                   "under the size bound", "state=\"written\"", (double)written);
    gp_metrics_set(m, "gpupack_advisor_recommendations", NULL, "state=\"dropped\"",
                   (double)dropped);
}

/* ---- one run ------------------------------------------------------------------------------ */

/* Writes the document to the file or the ConfigMap; counts the outcome. */
static gp_status write_doc(serve_state *s, const char *doc, gp_err *err)
{
    const gp_adv_serve_opts *o = s->o;
    gp_cm_write_stats cs = { 0, false };
    gp_status st;

    if (o->file != NULL)
        return gp_adv_write_atomic(o->file, doc, strlen(doc), err);
    st = gp_cm_write(o->kube, o->cm_namespace, o->cm_name, RECS_KEY, doc, &cs, err);
    if (cs.conflicts > 0)
        gp_metrics_add(s->metrics, "gpupack_advisor_configmap_writes_total", NULL,
                       "result=\"conflict\"", cs.conflicts);
    gp_metrics_add(s->metrics, "gpupack_advisor_configmap_writes_total", NULL,
                   st == GP_OK ? "result=\"ok\"" : "result=\"error\"", 1);
    return st;
}

/* The recommendations of rep, encoded and written; *written and *dropped for the metrics. */
static gp_status publish(serve_state *s, const gp_adv_report *rep, double now, size_t *written,
                         size_t *dropped, gp_err *err)
{
    gp_recs recs;
    gp_strbuf b;
    gp_status st = gp_recs_from_report(rep, now, s->o->ttl, &recs);

    *written = *dropped = 0;
    if (st != GP_OK) {
        gp_err_set(err, "out of memory making the recommendations");
        return st;
    }
    gp_strbuf_init(&b, 0);
    st = gp_recs_encode(&recs, s->o->max_bytes, &b, written);
    if (st != GP_OK)
        gp_err_set(err, "encoding the recommendations: %s", gp_status_str(st));
    else
        st = write_doc(s, b.p, err);
    *dropped = recs.n - *written;
    gp_strbuf_free(&b);
    gp_recs_free(&recs);
    return st;
}

/* The new cost metrics rendered, swapped in with the run's state: fresh, or stale because of
 * stale_why (the write failed). */
static void keep_good(serve_state *s, const gp_adv_report *rep, size_t written, size_t dropped,
                      const char *stale_why)
{
    gp_metrics *m = gp_metrics_new();
    size_t len = 0;
    char *text = NULL;

    if (m != NULL) {
        gp_adv_cost_metrics(rep, s->o->top_workloads, written, dropped, m);
        text = gp_metrics_render_families(m, &len); /* served after s->metrics' text */
        gp_metrics_count_dropped(s->metrics, gp_metrics_dropped(m));
        gp_metrics_free(m);
    }
    pthread_mutex_lock(&s->mu);
    if (text != NULL) {
        free(s->cost);
        s->cost = text;
        s->cost_len = len;
    }
    s->good = true;
    s->stale = stale_why != NULL;
    snprintf(s->why, sizeof(s->why), "%s", stale_why != NULL ? stale_why : "");
    s->last_good = now_s();
    pthread_mutex_unlock(&s->mu);
}

static void mark_stale(serve_state *s, const char *why)
{
    pthread_mutex_lock(&s->mu);
    s->stale = true;
    snprintf(s->why, sizeof(s->why), "%s", why);
    pthread_mutex_unlock(&s->mu);
}

/* What the analysis printed on its log, its last line: the reason a run failed. */
static void last_line(FILE *f, char *buf, size_t n)
{
    char line[GP_ERR_MAX];

    buf[0] = '\0';
    rewind(f);
    while (fgets(line, sizeof(line), f) != NULL) {
        line[strcspn(line, "\n")] = '\0';
        if (line[0] != '\0' && strncmp(line, "see ", 4) != 0)
            snprintf(buf, n, "%s", line);
    }
}

/* One analysis and write. Returns 0, or 1 when either failed. A failed analysis keeps the last
 * good result; a good analysis whose write failed replaces the cost metrics (they are right) and
 * is served as stale, with the write's error, until a write succeeds. */
static int run_once(serve_state *s)
{
    gp_adv_report_opts ro = s->o->report;
    gp_adv_report rep;
    FILE *log = tmpfile();
    double t0 = now_s(), now;
    size_t written = 0, dropped = 0;
    gp_err err = { "" };
    char why[GP_ERR_MAX] = "";
    int rc;
    bool wrote = false;

    if (s->o->policy_path != NULL)
        gp_daemon_refresh_policy(s->o->policy_path, &s->pol, &s->seen, s->metrics, s->log);
    ro.pol = gp_policy_holder_get(&s->pol);
    ro.until = t0;
    ro.log = log != NULL ? log : stderr;
    ro.quiet = true;
    rc = gp_adv_analyse(&ro, &rep);
    now = now_s();
    gp_metrics_observe(s->metrics, "gpupack_advisor_analysis_duration_seconds",
                       "How long one analysis took (queries, assembly, decisions)", NULL, now - t0);
    if (log != NULL)
        last_line(log, why, sizeof(why));
    if (rc != 0) { /* nothing to publish: the last written document stays */
        if (rc != GP_ADV_RC_KUBE)
            gp_metrics_add(s->metrics, "gpupack_advisor_prometheus_errors_total", NULL, NULL, 1);
    } else if (publish(s, &rep, now, &written, &dropped, &err) == GP_OK) {
        wrote = true;
    } else {
        snprintf(why, sizeof(why), "writing the recommendations: %.470s", err.msg);
    }
    gp_metrics_set(s->metrics, "gpupack_advisor_prometheus_up",
                   "1 when the last analysis got every answer from Prometheus", NULL,
                   rc == 0 || rc == GP_ADV_RC_KUBE);
    gp_metrics_add(s->metrics, "gpupack_advisor_analyses_total", NULL,
                   wrote ? "result=\"ok\"" : "result=\"error\"", 1);
    if (rc == 0)
        keep_good(s, &rep, written, dropped, wrote ? NULL : why);
    if (wrote) {
        gp_metrics_set(s->metrics, "gpupack_advisor_last_success_timestamp_seconds",
                       "When the last successful analysis and write ended (unix seconds)", NULL,
                       now);
        GP_LOG(s->log, GP_LOG_INFO, "analysis done", GP_LF("seconds", now - t0),
               GP_LI("findings", rep.nfindings), GP_LI("recommendations", written),
               GP_LI("dropped", dropped));
    } else {
        if (rc != 0)
            mark_stale(s, why[0] ? why : "the analysis failed");
        GP_LOG(s->log, GP_LOG_WARN, rc != 0 ? "analysis failed; keeping the last good result"
                                            : "writing the recommendations failed; the last "
                                              "written document stays",
               GP_LS("error", why));
    }
    gp_adv_report_free(&rep);
    gp_policy_unref((gp_policy *)ro.pol);
    if (log != NULL)
        fclose(log);
    return wrote ? 0 : 1;
}

/* ---- routes ------------------------------------------------------------------------------- */

static void route_readyz(void *ctx, const gp_http_request *req, gp_http_response *resp)
{
    serve_state *s = ctx;
    char body[GP_ERR_MAX + 64];
    int status;

    (void)req;
    pthread_mutex_lock(&s->mu);
    if (!s->good) {
        status = 503;
        snprintf(body, sizeof(body), "not ready: %s\n",
                 s->why[0] ? s->why : "the first analysis has not finished");
    } else if (s->stale) {
        status = 200;
        snprintf(body, sizeof(body), "ok, stale: %s\n", s->why);
    } else {
        status = 200;
        snprintf(body, sizeof(body), "ok\n");
    }
    pthread_mutex_unlock(&s->mu);
    gp_reply_text(resp, status, body);
}

static void route_metrics(void *ctx, const gp_http_request *req, gp_http_response *resp)
{
    serve_state *s = ctx;
    size_t len = 0;
    char *base = gp_metrics_render(s->metrics, &len), *all;

    (void)req;
    resp->content_type = "text/plain; version=0.0.4; charset=utf-8";
    pthread_mutex_lock(&s->mu);
    all = base != NULL ? malloc(len + s->cost_len + 1) : NULL;
    if (all != NULL) {
        memcpy(all, base, len);
        if (s->cost_len > 0)
            memcpy(all + len, s->cost, s->cost_len);
        all[len + s->cost_len] = '\0';
        resp->body_len = len + s->cost_len;
    }
    pthread_mutex_unlock(&s->mu);
    free(base);
    resp->body = all;
    resp->status = all != NULL ? 200 : 500;
}

/* ---- the loop ----------------------------------------------------------------------------- */

static gp_status start_server(serve_state *s, gp_server **srv, gp_err *err)
{
    const gp_route routes[] = {
        { .path = "/healthz", .method = "GET", .fn = gp_route_healthz },
        { .path = "/readyz", .method = "GET", .fn = route_readyz, .ctx = s },
        { .path = "/metrics", .method = "GET", .fn = route_metrics, .ctx = s },
    };
    gp_server_config cfg = { .max_body = 4096, .threads = 2, .idle_timeout_s = 60,
                             .request_timeout_s = 10, .routes = routes,
                             .nroutes = sizeof(routes) / sizeof(routes[0]),
                             .metrics = s->metrics, .log = s->log, .name = "advisor" };
    char host[256];

    if (gp_server_parse_listen(s->o->listen, host, sizeof(host), &cfg.port, err) != GP_OK) {
        gp_err_prefix(err, "--listen");
        return GP_EINVAL;
    }
    cfg.host = host;
    cfg.listen_flag = "--listen";
    return gp_server_start(&cfg, srv, err);
}

/* Zero every counter the alerts read, so they exist before anything happens. */
static void first_metrics(gp_metrics *m)
{
    /* GpupackAdvisorStale reads it where no analysis has succeeded since the start. */
    gp_metrics_set(m, "gpupack_advisor_start_timestamp_seconds",
                   "When this advisor process started (unix seconds)", NULL, (double)time(NULL));
    gp_metrics_add(m, "gpupack_advisor_analyses_total",
                   "Analyses run, by result (ok, error)", "result=\"ok\"", 0);
    gp_metrics_add(m, "gpupack_advisor_analyses_total", NULL, "result=\"error\"", 0);
    gp_metrics_add(m, "gpupack_advisor_prometheus_errors_total",
                   "Analyses that failed because Prometheus did not answer a query", NULL, 0);
    gp_metrics_add(m, "gpupack_advisor_configmap_writes_total",
                   "Writes of the recommendations ConfigMap, by result (ok, conflict: a 409 "
                   "retried, error)", "result=\"ok\"", 0);
    gp_metrics_add(m, "gpupack_advisor_configmap_writes_total", NULL, "result=\"conflict\"", 0);
    gp_metrics_add(m, "gpupack_advisor_configmap_writes_total", NULL, "result=\"error\"", 0);
}

/* The wait before the next analysis: --interval after a good one; after failures in a row,
 * RETRY_FIRST_S doubling with each, never more than the interval. A Prometheus (or API server)
 * that was not ready when the advisor started is read soon after it is, not an interval later,
 * and /readyz turns ready with it. */
#define RETRY_FIRST_S 15.0
static double next_wait(double interval, int failures)
{
    double w = RETRY_FIRST_S;

    if (failures == 0)
        return interval;
    for (int i = 1; i < failures && w < interval; i++)
        w *= 2;
    return w < interval ? w : interval;
}

/* Waits up to seconds for a stop; true when one came. */
static bool wait_for_stop(serve_state *s, double seconds)
{
    struct timespec ts;
    bool stop;

    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += (time_t)seconds;
    ts.tv_nsec += (long)((seconds - floor(seconds)) * 1e9);
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&s->mu);
    while (!s->stop && pthread_cond_timedwait(&s->cv, &s->mu, &ts) == 0)
        ;
    stop = s->stop;
    pthread_mutex_unlock(&s->mu);
    return stop;
}

static void set_busy(serve_state *s, bool busy)
{
    pthread_mutex_lock(&s->mu);
    s->busy = busy;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

/* The signal thread: waits for SIGTERM or SIGINT (blocked in every thread), says stop, and when
 * a run is still under way STOP_GRACE_S later (a Prometheus that does not answer), exits the
 * process without it: 0, or 1 with --once (the run did not finish). */
static void *signal_thread(void *arg)
{
    serve_state *s = arg;
    sigset_t set;
    struct timespec ts;
    int sig = 0;
    bool busy;

    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    if (sigwait(&set, &sig) != 0)
        return NULL;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += STOP_GRACE_S;
    pthread_mutex_lock(&s->mu);
    s->stop = true;
    pthread_cond_broadcast(&s->cv);
    while (s->busy && pthread_cond_timedwait(&s->cv, &s->mu, &ts) == 0)
        ;
    busy = s->busy;
    pthread_mutex_unlock(&s->mu);
    if (busy) {
        GP_LOG(s->log, GP_LOG_WARN, "stopping during an analysis; its result is dropped",
               GP_LI("grace_seconds", STOP_GRACE_S));
        _exit(s->o->once ? 1 : 0);
    }
    return NULL;
}

int gp_adv_serve_run(const gp_adv_serve_opts *o)
{
    serve_state s = { .o = o };
    gp_log log;
    gp_log_level lvl = GP_LOG_INFO;
    gp_server *srv = NULL;
    gp_err err = { "" };
    pthread_t sigthr;
    bool have_sigthr, stopped;
    int rc = 0;

    if (o->log_level != NULL && gp_log_level_parse(o->log_level, &lvl) != GP_OK)
        lvl = GP_LOG_INFO;
    gp_log_init(&log, lvl, stderr);
    s.log = &log;
    s.metrics = gp_metrics_new();
    pthread_mutex_init(&s.mu, NULL);
    pthread_cond_init(&s.cv, NULL);
    first_metrics(s.metrics);
    gp_policy_holder_init(&s.pol, gp_policy_ref((gp_policy *)o->report.pol));
    snprintf(s.seen.in_force, sizeof(s.seen.in_force), "%s",
             o->policy_digest != NULL ? o->policy_digest : "");
    gp_daemon_policy_started(o->policy_path, s.seen.in_force, GP_VERSION, s.metrics, &log);
    gp_daemon_block_signals();
    have_sigthr = pthread_create(&sigthr, NULL, signal_thread, &s) == 0;
    if (!o->once && start_server(&s, &srv, &err) != GP_OK) {
        fprintf(stderr, PROG ": %s\n", err.msg);
        rc = 2;
    } else {
        if (srv != NULL)
            GP_LOG(&log, GP_LOG_INFO, "serving", GP_LS("listen", o->listen),
                   GP_LI("port", gp_server_port(srv)));
        int failures = 0;

        do {
            set_busy(&s, true);
            rc = run_once(&s);
            set_busy(&s, false);
            failures = rc == 0 ? 0 : failures + 1;
        } while (!o->once && !wait_for_stop(&s, next_wait(o->interval, failures)));
        if (!o->once)
            rc = 0;
    }
    gp_server_quiesce(srv); /* a report being sent is sent whole */
    gp_server_stop(srv);
    if (have_sigthr) {
        pthread_mutex_lock(&s.mu);
        stopped = s.stop;
        pthread_mutex_unlock(&s.mu);
        if (!stopped)
            pthread_kill(sigthr, SIGTERM); /* its own sigwait() takes it: the thread ends */
        pthread_join(sigthr, NULL);
    }
    free(s.cost);
    gp_policy_holder_destroy(&s.pol);
    pthread_cond_destroy(&s.cv);
    pthread_mutex_destroy(&s.mu);
    gp_metrics_free(s.metrics);
    gp_log_destroy(&log);
    return rc;
}
