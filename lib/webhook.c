/* SPDX-License-Identifier: Apache-2.0 */
/* The webhook service: review in, response out (see webhook.h). */
#include "gpupack/webhook.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "gpupack/admission.h"
#include "gpupack/arena.h"
#include "gpupack/fileio.h"
#include "gpupack/jsonpool.h"
#include "gpupack/mutate.h"
#include "gpupack/patch.h"
#include "gpupack/podview.h"
#include "gpupack/strbuf.h"

#define MAX_OUT_WARNINGS (GP_MAX_CHANGES + GP_MAX_WARNINGS + 1)

typedef struct {
    gp_webhook *w;
    gp_policy *pol;
    gp_cluster *view;
    gp_recs_shared *recs;
    gp_arena arena;
    cJSON *root;
    gp_admission_request req;
    gp_pod pod;
    gp_decision d;
    const char *outcome;     /* bounded: patched, unchanged, not-gpu, skipped, ignored, audit,
                                fail-open */
    const char *fail_reason; /* bounded: decode, internal, patch */
    const char *warnings[MAX_OUT_WARNINGS];
    size_t nwarnings;
    gp_label audit[3];
    size_t naudit;
    char *patch;
    size_t patch_len;
    gp_err err;
} review;

#define M_MUTATIONS_HELP "Pods changed, by kind of change (audit mode counts in " \
                         "gpupack_audit_would_mutate_total)."
#define M_WOULD_MUTATE_HELP "Pods audit mode would have changed, by kind of change (no patch sent)."

#define M_REVIEWS_HELP "AdmissionReviews answered, by outcome."
#define M_RIGHTSIZING "gpupack_rightsizing_total"
#define M_RIGHTSIZING_HELP "GPU pods with an advisor recommendation, by what became of it " \
    "(enforce mode only)."
#define M_RECS_RELOADS "gpupack_recommendations_reloads_total"
#define M_RECS_RELOADS_HELP "Live reloads of the --recommendations file, by result."
#define M_RECS_LOADED "gpupack_recommendations_loaded"
#define M_RECS_LOADED_HELP "Recommendations in the table in force (0: none, or no file)."
#define M_FAIL_OPEN_HELP "Reviews answered allowed-unchanged because of an internal error."

/* The outcomes a review has, and their label text (made here, not per review). */
static const char *const outcomes[] = { "patched", "unchanged", "not-gpu",   "skipped",
                                        "ignored", "audit",     "fail-open", "bad-request" };
static const char *const outcome_labels[] = { "outcome=\"patched\"",   "outcome=\"unchanged\"",
                                              "outcome=\"not-gpu\"",   "outcome=\"skipped\"",
                                              "outcome=\"ignored\"",   "outcome=\"audit\"",
                                              "outcome=\"fail-open\"", "outcome=\"bad-request\"" };
_Static_assert(sizeof(outcomes) / sizeof(outcomes[0]) ==
                   sizeof(outcome_labels) / sizeof(outcome_labels[0]),
               "one label for each outcome");
_Static_assert(sizeof(outcomes) / sizeof(outcomes[0]) == GP_WEBHOOK_OUTCOMES,
               "a counter for each outcome");

/* Every label value the webhook's counters take, at zero, so dashboards and alerts find the
 * series before the first event; the counters of every review are kept in w. */
static void preregister(gp_webhook *w)
{
    static const char *const reasons[] = { "decode", "internal", "patch", "encode" };
    gp_metrics *m = w->metrics;
    char labels[64];

    for (int k = 0; k < GP_MK_COUNT; k++) { /* every kind gp_mutate() reports */
        snprintf(labels, sizeof(labels), "kind=\"%s\"",
                 gp_mutation_kind_label((gp_mutation_kind)k));
        w->mutations[k] =
            gp_metrics_counter(m, "gpupack_mutations_total", M_MUTATIONS_HELP, labels);
        w->would_mutate[k] =
            gp_metrics_counter(m, "gpupack_audit_would_mutate_total", M_WOULD_MUTATE_HELP,
                               labels);
    }
    for (size_t i = 0; i < GP_WEBHOOK_OUTCOMES; i++)
        w->reviews[i] = gp_metrics_counter(m, "gpupack_admission_reviews_total", M_REVIEWS_HELP,
                                           outcome_labels[i]);
    for (size_t i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++) {
        snprintf(labels, sizeof(labels), "reason=\"%s\"", reasons[i]);
        gp_metrics_add(m, "gpupack_webhook_fail_open_total", M_FAIL_OPEN_HELP, labels, 0);
    }
    for (int k = GP_RS_NONE + 1; k < GP_RS_COUNT; k++) {
        snprintf(labels, sizeof(labels), "action=\"%s\"", gp_rs_action_label((gp_rs_action)k));
        w->rightsizing[k] = gp_metrics_counter(m, M_RIGHTSIZING, M_RIGHTSIZING_HELP, labels);
    }
    gp_metrics_add(m, M_RECS_RELOADS, M_RECS_RELOADS_HELP, "result=\"ok\"", 0);
    gp_metrics_add(m, M_RECS_RELOADS, M_RECS_RELOADS_HELP, "result=\"error\"", 0);
    gp_metrics_set(m, M_RECS_LOADED, M_RECS_LOADED_HELP, "", 0);
}

/* The slot's typed reference counting. */
static void *cluster_ref(void *c) { return gp_cluster_ref(c); }
static void cluster_unref(void *c) { gp_cluster_unref(c); }

void gp_webhook_init(gp_webhook *w, gp_policy_holder *policy, gp_cluster *cluster,
                     gp_metrics *metrics, gp_log *log)
{
    gp_json_pool_install();
    w->policy = policy;
    w->metrics = metrics;
    w->log = log;
    gp_snapshot_init(&w->cluster, cluster, cluster_ref, cluster_unref);
    gp_snapshot_init(&w->recs, NULL, gp_recs_shared_ref, gp_recs_shared_unref);
    preregister(w);
}

void gp_webhook_destroy(gp_webhook *w)
{
    gp_snapshot_destroy(&w->cluster);
    gp_snapshot_destroy(&w->recs);
}

void gp_webhook_set_cluster(gp_webhook *w, gp_cluster *cluster)
{
    gp_snapshot_set(&w->cluster, cluster);
}

void gp_webhook_set_recs(gp_webhook *w, gp_recs_shared *recs)
{
    const gp_recs *t = recs ? gp_recs_shared_table(recs) : NULL;

    gp_metrics_set(w->metrics, M_RECS_LOADED, M_RECS_LOADED_HELP, "", t ? (double)t->n : 0);
    gp_snapshot_set(&w->recs, recs);
}

static gp_status decode_recs(void *recs, const char *buf, size_t len, gp_err *err)
{
    return gp_recs_decode(buf, len, recs, err);
}

gp_status gp_webhook_load_recs(const char *path, gp_recs_shared **out, gp_err *err)
{
    gp_recs recs = { 0 };
    struct stat sb;
    gp_status st = GP_OK;

    *out = NULL;
    if (stat(path, &sb) != 0 && errno == ENOENT)
        goto share; /* not written yet: no recommendations */
    st = gp_file_decode(path, GP_RECS_CONFIGMAP_MAX, decode_recs, &recs, err);
    if (st != GP_OK)
        return st;
share:
    *out = gp_recs_shared_new(&recs);
    return *out ? GP_OK : GP_ENOMEM;
}

void gp_webhook_reload_recs(gp_webhook *w, const char *path)
{
    gp_err err = { { 0 } };
    gp_recs_shared *next = NULL;
    gp_status st = gp_webhook_load_recs(path, &next, &err);

    if (st != GP_OK) {
        gp_metrics_add(w->metrics, M_RECS_RELOADS, M_RECS_RELOADS_HELP, "result=\"error\"", 1);
        GP_LOG(w->log, GP_LOG_ERROR, "recommendations reload failed; keeping the last good table",
               GP_LS("file", path), GP_LS("error", err.msg[0] ? err.msg : gp_status_str(st)));
        return;
    }
    GP_LOG(w->log, GP_LOG_INFO, "recommendations reloaded", GP_LS("file", path),
           GP_LI("entries", (long long)gp_recs_shared_table(next)->n));
    gp_webhook_set_recs(w, next);
    gp_metrics_add(w->metrics, M_RECS_RELOADS, M_RECS_RELOADS_HELP, "result=\"ok\"", 1);
}

/* Every warning passes here: text in it, the pod's own included, may have been cut by bytes. */
static void warn(review *r, const char *s)
{
    if (s != NULL && r->nwarnings < MAX_OUT_WARNINGS)
        r->warnings[r->nwarnings++] = gp_utf8_repair((char *)s);
}

static void fail_open(review *r, const char *reason, const char *what)
{
    r->outcome = "fail-open";
    r->fail_reason = reason;
    r->nwarnings = 0;
    r->naudit = 0;
    free(r->patch);
    r->patch = NULL;
    warn(r, gp_arena_printf(&r->arena, "gpupack: could not process this pod (%s: %.120s); "
                            "admitted unchanged", what, r->err.msg));
    if (r->nwarnings == 0)
        warn(r, "gpupack: could not process this pod; admitted unchanged");
}

static bool is_pod_create(const gp_admission_request *q)
{
    return strcmp(q->kind, "Pod") == 0 && *q->kind_group == '\0' &&
           strcmp(q->resource, "pods") == 0 && *q->sub_resource == '\0' &&
           strcmp(q->operation, "CREATE") == 0;
}

/* "prefix text" in the arena, text cut at GP_WARNING_MAX_LEN bytes (as "%s %.*s" would write it,
 * without formatting); NULL when memory runs out. */
static const char *prefixed(review *r, const char *prefix, const char *text)
{
    size_t np = strlen(prefix), nt = strnlen(text, GP_WARNING_MAX_LEN);
    char *s = gp_arena_alloc_raw(&r->arena, np + 1 + nt + 1);

    if (s != NULL) {
        memcpy(s, prefix, np);
        s[np] = ' ';
        memcpy(s + np + 1, text, nt);
        s[np + 1 + nt] = '\0';
    }
    return s;
}

static void collect_warnings(review *r, bool audit)
{
    const char *prefix = audit ? "gpupack (audit mode) would set" : "gpupack:";

    for (size_t i = 0; i < r->d.nchanges; i++)
        if (r->d.changes[i].reason != NULL)
            warn(r, prefixed(r, prefix, r->d.changes[i].reason));
    for (size_t i = 0; i < r->d.nwarnings; i++)
        warn(r, prefixed(r, "gpupack:", r->d.warnings[i]));
}

static void add_audit(review *r, const char *key, const char *value)
{
    if (value != NULL && r->naudit < sizeof(r->audit) / sizeof(r->audit[0])) {
        r->audit[r->naudit].key = (char *)key;
        r->audit[r->naudit].value = (char *)value;
        r->naudit++;
    }
}

/* One increment per pod per kind of change, however many patch operations the kind took. */
static void count_changes(review *r, gp_counter *const *by_kind)
{
    for (size_t i = 0; i < r->d.nchanges; i++) {
        gp_mutation_kind kind = r->d.changes[i].metric;
        bool seen = false;

        for (size_t j = 0; j < i && !seen; j++)
            seen = r->d.changes[j].metric == kind;
        if (!seen && (unsigned)kind < GP_MK_COUNT)
            gp_counter_add(by_kind[kind], 1);
    }
}

static void decide_changes(review *r)
{
    bool audit = r->pol->mode == GP_MODE_AUDIT;

    collect_warnings(r, audit);
    add_audit(r, "class", r->d.class_name);
    if (r->d.nchanges == 0) {
        r->outcome = "unchanged";
        return;
    }
    if (audit) {
        r->outcome = "audit";
        add_audit(r, "would-mutate", r->d.summary);
        count_changes(r, r->w->would_mutate);
        return;
    }
    switch (gp_patch_build(r->req.object, &r->d, &r->patch, &r->patch_len)) {
    case GP_OK:
        break;
    case GP_ENOMEM:
        gp_err_set(&r->err, "out of memory");
        fail_open(r, "internal", "building the patch");
        return;
    default:
        gp_err_set(&r->err, "the pod's JSON does not have the expected shape");
        fail_open(r, "patch", "building the patch");
        return;
    }
    r->outcome = "patched";
    add_audit(r, "mutated", r->d.summary);
    count_changes(r, r->w->mutations);
}

/* gpupack_rightsizing_total: what became of the pod's recommendation, counted in enforce mode
 * (audit mode counts its would-be changes in gpupack_audit_would_mutate_total). */
static void count_rightsizing(review *r)
{
    gp_rs_action a = r->d.rightsizing;

    if (a <= GP_RS_NONE || a >= GP_RS_COUNT || r->pol->mode == GP_MODE_AUDIT ||
        strcmp(r->outcome, "fail-open") == 0)
        return;
    gp_counter_add(r->w->rightsizing[a], 1);
}

/* Now, as the recommendations' times are: seconds since the epoch. */
static double wall_seconds(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void decide(review *r)
{
    gp_mutate_opts opts = { .now = wall_seconds(), .cost_labels = true };
    gp_status st;

    if (!is_pod_create(&r->req)) {
        r->outcome = "ignored";
        return;
    }
    if (r->req.object == NULL) { /* kube-apiserver always sends the pod it creates */
        gp_err_set(&r->err, "request.object: missing, null or not an object");
        fail_open(r, "decode", "reading the pod");
        return;
    }
    st = gp_pod_from_json(r->req.object, r->req.namespace, &r->arena, &r->pod, &r->err);
    if (st != GP_OK) {
        fail_open(r, st == GP_ENOMEM ? "internal" : "decode", "reading the pod");
        return;
    }
    r->view = gp_snapshot_get(&r->w->cluster);
    r->recs = gp_snapshot_get(&r->w->recs);
    opts.recs = r->recs ? gp_recs_shared_table(r->recs) : NULL;
    st = gp_mutate(&r->pod, r->pol, r->view, &opts, &r->arena, &r->d);
    if (st != GP_OK) {
        gp_err_set(&r->err, "%s", gp_status_str(st));
        fail_open(r, "internal", "deciding");
        return;
    }
    if (!r->d.gpu || r->d.skipped) {
        r->outcome = r->d.gpu ? "skipped" : "not-gpu";
        return;
    }
    decide_changes(r);
    count_rightsizing(r);
}

static void reply_json_error(gp_http_response *resp, int status, const char *msg)
{
    cJSON *o = cJSON_CreateObject();
    char *s = NULL;

    if (o != NULL && cJSON_AddStringToObject(o, "error", msg) != NULL)
        s = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    resp->status = s ? status : 500;
    resp->body = s ? strdup(s) : NULL;
    resp->body_len = resp->body ? strlen(resp->body) : 0;
    cJSON_free(s);
}

static void reply(review *r, gp_http_response *resp)
{
    gp_admission_response ar = { .uid = r->req.uid, .allowed = true, .patch = r->patch,
                                 .patch_len = r->patch_len, .warnings = r->warnings,
                                 .nwarnings = r->nwarnings, .audit = r->audit,
                                 .naudit = r->naudit };
    char fallback[2048];
    size_t len = 0;

    resp->status = 200;
    /* the answer is malloc'd, not from the request's cJSON pool: the server takes it as it is */
    if (gp_admission_encode(&ar, &resp->body, &resp->body_len) == GP_OK)
        return;
    gp_metrics_add(r->w->metrics, "gpupack_webhook_fail_open_total",
                   M_FAIL_OPEN_HELP,
                   "reason=\"encode\"", 1);
    len = gp_admission_encode_allow_static(r->req.uid, "gpupack: out of memory; admitted "
                                           "unchanged", fallback, sizeof(fallback));
    resp->body = len ? strdup(fallback) : NULL;
    resp->body_len = resp->body ? len : 0;
    if (resp->body == NULL)
        resp->status = 500;
}

static double now_seconds(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Counts a review's outcome: through its counter when it is one of outcomes[], else by name. */
static void count_outcome(review *r)
{
    char labels[64];

    for (size_t i = 0; i < GP_WEBHOOK_OUTCOMES; i++)
        if (strcmp(r->outcome, outcomes[i]) == 0) {
            gp_counter_add(r->w->reviews[i], 1);
            return;
        }
    snprintf(labels, sizeof(labels), "outcome=\"%s\"", r->outcome);
    gp_metrics_add(r->w->metrics, "gpupack_admission_reviews_total", M_REVIEWS_HELP, labels, 1);
}

static void record(review *r, double started)
{
    char labels[64];
    const char *pod = r->pod.name ? r->pod.name : r->pod.generate_name;

    count_outcome(r);
    if (r->fail_reason != NULL) {
        snprintf(labels, sizeof(labels), "reason=\"%s\"", r->fail_reason);
        gp_metrics_add(r->w->metrics, "gpupack_webhook_fail_open_total",
                       M_FAIL_OPEN_HELP, labels,
                       1);
    }
    GP_LOG(r->w->log, r->fail_reason ? GP_LOG_WARN : GP_LOG_INFO, "admission",
           GP_LS("uid", r->req.uid), GP_LS("operation", r->req.operation),
           GP_LS("namespace", r->req.namespace), GP_LS("pod", pod),
           GP_LS("decision", r->outcome), GP_LS("class", r->d.class_name),
           GP_LS("changes", r->d.summary), GP_LS("skip_reason", r->d.skip_reason),
           GP_LS("error", r->fail_reason ? r->err.msg : NULL),
           GP_LI("dry_run", r->req.dry_run), GP_LF("duration_ms", (now_seconds() - started) * 1e3));
}

void gp_webhook_review(gp_webhook *w, const char *body, size_t len, gp_http_response *resp)
{
    review r;
    gp_json_pool pool;
    double started = now_seconds();

    memset(&r, 0, sizeof(r));
    r.w = w;
    gp_arena_init(&r.arena, GP_WEBHOOK_ARENA_LIMIT);
    /* Every cJSON tree of the request comes from one pool; the answer is copied out of it. */
    gp_json_pool_begin(&pool, GP_WEBHOOK_JSON_POOL_LIMIT);
    if (gp_admission_decode(body, len, &r.root, &r.req, &r.err) != GP_OK) {
        gp_metrics_add(w->metrics, "gpupack_admission_reviews_total", M_REVIEWS_HELP,
                       "outcome=\"bad-request\"", 1);
        GP_LOG(w->log, GP_LOG_WARN, "bad admission review", GP_LS("error", r.err.msg));
        gp_json_pool_end(&pool); /* first: the pool may be what ran out, the answer needs none */
        reply_json_error(resp, 400, r.err.msg);
        return;
    }
    r.pol = gp_policy_holder_get(w->policy);
    decide(&r);
    reply(&r, resp);
    record(&r, started);
    free(r.patch);
    gp_cluster_unref(r.view);
    if (r.recs != NULL)
        gp_recs_shared_unref(r.recs);
    gp_policy_unref(r.pol);
    gp_json_pool_drop(&pool, r.root); /* parsed inside the pool: released whole */
    gp_json_pool_end(&pool);
    gp_arena_free(&r.arena);
}

void gp_webhook_route(void *ctx, const gp_http_request *req, gp_http_response *resp)
{
    gp_webhook_review(ctx, req->body, req->body_len, resp);
}
