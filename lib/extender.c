/* SPDX-License-Identifier: Apache-2.0 */
/* The extender service (see extender.h). */
#include "gpupack/extender.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpupack/arena.h"
#include "gpupack/extargs.h"
#include "gpupack/jsonpool.h"
#include "gpupack/nodeview.h"
#include "gpupack/podview.h"
#include "gpupack/score.h"
#include "gpupack/strbuf.h"

#define MAX_ERROR 400
#define TOP_LOGGED 3
#define WHY_MAX (GP_REASON_MAX + 32) /* "  (infeasible: <reason>)" */
#define ROW_MAX 1024                 /* a node name (253) and the rest of an --explain row */

typedef struct {
    gp_extender *x;
    gp_verb verb;
    gp_policy *pol;
    gp_arena a;
    cJSON *root;
    gp_extargs args;
    gp_pod pod;
    const char *uid;        /* the pod's metadata.uid; NULL when it has none */
    gp_demand d;
    gp_node *nodes;         /* one per args node */
    bool *known;
    bool *owned;            /* nodes[i] holds strings to free (decoded from a full Node) */
    gp_filter_out *fres;
    gp_filter_reason *freason; /* why each node was refused (GP_FR_NONE: it passed) */
    gp_score_parts *parts;
    int *scores;
    gp_strbuf table;        /* the --explain table, written after the call's log line */
    bool locked;
    char error[MAX_ERROR];
    const char *outcome;
    int64_t now_ms;
} call;

static const char *verb_name(gp_verb v)
{
    return v == GP_VERB_FILTER ? "filter" : "prioritize";
}

/* "gpupack: <what>: <detail>", cut to fit. */
static void set_error(call *c, const char *what, const char *detail)
{
    int n = snprintf(c->error, sizeof(c->error), "gpupack: %.200s%s%.180s", what,
                     detail ? ": " : "", detail ? detail : "");

    (void)n;
}

/* An allocation failed: the call answers with an error, never with a partial decision. */
static bool out_of_memory(call *c)
{
    set_error(c, "out of memory", NULL);
    c->outcome = "internal";
    return false;
}

/* A Pod object: kind Pod, or no kind with metadata and spec objects (a Pod cut out of an
 * ExtenderArgs, which kube-scheduler sends without apiVersion and kind). */
static bool is_pod_object(const cJSON *o)
{
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive(o, "kind");

    if (kind != NULL)
        return cJSON_IsString(kind) && strcmp(kind->valuestring, "Pod") == 0;
    return cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(o, "metadata")) &&
           cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(o, "spec"));
}

/* A bare Pod instead of ExtenderArgs: score it against every node the cache knows. */
static bool bare_pod(call *c)
{
    size_t n;

    if (!is_pod_object(c->root) || c->x->cache == NULL)
        return false;
    memset(&c->args, 0, sizeof(c->args));
    c->args.pod = c->root;
    c->args.names = gp_arena_alloc(&c->a, GP_EXTARGS_MAX_NODES * sizeof(char *));
    if (c->args.names == NULL)
        return false;
    gp_cache_rdlock(c->x->cache);
    c->locked = true;
    n = gp_cache_node_names(c->x->cache, c->args.names, GP_EXTARGS_MAX_NODES);
    c->args.n = n;
    return true;
}

/* The pod's metadata.uid, or NULL when it has none (or an empty one). */
static const char *pod_uid(const call *c)
{
    const cJSON *uid = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(c->args.pod, "metadata"), "uid");

    return cJSON_IsString(uid) && *uid->valuestring != '\0' ? uid->valuestring : NULL;
}

static bool decode(call *c, const char *body, size_t len)
{
    gp_err err = { { 0 } };
    gp_status st = gp_extargs_decode(body, len, &c->a, &c->root, &c->args, &err);

    if (st != GP_OK && !(st == GP_EINVAL && c->root != NULL && bare_pod(c))) {
        set_error(c, "bad ExtenderArgs", err.msg);
        c->outcome = "bad-request";
        return false;
    }
    if (gp_pod_from_json(c->args.pod, NULL, &c->a, &c->pod, &err) != GP_OK ||
        gp_demand_from_pod(&c->pod, c->pol, &c->a, &c->d, &err) != GP_OK) {
        set_error(c, "cannot read the pod", err.msg);
        c->outcome = "bad-pod";
        return false;
    }
    c->uid = pod_uid(c);
    return true;
}

static bool alloc_arrays(call *c)
{
    size_t n = c->args.n ? c->args.n : 1;

    /* Not zeroed (n views of ~600 bytes, n parts of 56): resolve_nodes() fills each view,
     * run_prioritize() each part. */
    c->nodes = gp_arena_alloc_raw(&c->a, n * sizeof(*c->nodes));
    c->known = gp_arena_alloc(&c->a, n * sizeof(*c->known));
    c->owned = gp_arena_alloc(&c->a, n * sizeof(*c->owned));
    c->fres = gp_arena_alloc(&c->a, n * sizeof(*c->fres));
    c->freason = gp_arena_alloc(&c->a, n * sizeof(*c->freason));
    c->parts = gp_arena_alloc_raw(&c->a, n * sizeof(*c->parts));
    c->scores = gp_arena_alloc(&c->a, n * sizeof(*c->scores));
    if (!c->nodes || !c->known || !c->owned || !c->fres || !c->freason || !c->parts ||
        !c->scores)
        return out_of_memory(c);
    return true;
}

/* Node views: from the cache by name, or decoded from the full Node objects. The pod's own
 * assumption, from an earlier cycle that did not bind, is left out of them. */
static bool resolve_nodes(call *c)
{
    gp_cache *cache = c->x->cache;
    gp_cache_at at = gp_cache_at_for(c->uid, c->now_ms);

    if (!c->args.full_nodes && cache == NULL) {
        set_error(c, "no cluster view to look node names up in (run with --kubeconfig, in a "
                  "cluster, or --snapshot-nodes/--snapshot-pods; or set nodeCacheCapable: false)",
                  NULL);
        c->outcome = "no-view";
        return false;
    }
    if (cache != NULL && !c->locked) {
        if (!gp_cache_synced(cache)) {
            set_error(c, "cluster view not synced yet", NULL);
            c->outcome = "not-synced";
            return false;
        }
        gp_cache_rdlock(cache);
        c->locked = true;
    }
    for (size_t i = 0; i < c->args.n; i++) {
        gp_status st;

        if (!c->args.full_nodes) {
            c->known[i] = gp_cache_view(cache, c->args.names[i], &at, &c->nodes[i]);
            if (!c->known[i])
                memset(&c->nodes[i], 0, sizeof(c->nodes[i]));
            continue;
        }
        st = gp_node_from_json(c->args.nodes[i], c->pol, &c->nodes[i], NULL);
        if (st == GP_ENOMEM) {
            /* Never score a node as unknown because memory ran out: the answer would differ. */
            gp_node_clear(&c->nodes[i]);
            return out_of_memory(c);
        }
        c->known[i] = st == GP_OK;
        c->owned[i] = c->known[i];
        if (c->known[i] && cache != NULL)
            gp_cache_add_usage(cache, c->args.names[i], &at, &c->nodes[i]);
    }
    return true;
}

static bool run_filter(call *c)
{
    bool all_pass = !c->d.gpu || c->d.never_filter;

    for (size_t i = 0; i < c->args.n; i++) {
        gp_filter_why why = {GP_FR_NONE, {NULL, NULL, NULL}, {0, 0, 0}};
        char *text = NULL;

        if (!all_pass && !c->known[i])
            why.reason = GP_FR_UNKNOWN_NODE;
        else if (!all_pass)
            gp_filter_node(&c->d, &c->nodes[i], c->pol, &why);
        if (why.reason != GP_FR_NONE && (text = gp_arena_alloc(&c->a, GP_REASON_MAX)) == NULL)
            return out_of_memory(c);
        c->freason[i] = why.reason;
        c->fres[i].verdict = (int)gp_filter_reason_verdict(why.reason);
        c->fres[i].reason = text != NULL ? gp_filter_why_text(&why, text) : NULL;
    }
    return true;
}

/* The workload mix for the fragmentation component: the policy's when it states one, else the
 * one learned from the pod watch, else none (gp_prioritize then assumes 1-GPU pods). */
static void workload_mix(call *c, gp_frag_mix *mix)
{
    gp_frag_shape *shapes;

    mix->n = 0;
    mix->shapes = NULL;
    if (c->pol->scoring.weight_fragmentation <= 0)
        return;
    if (c->pol->scoring.nmix > 0) {
        shapes = gp_arena_alloc(&c->a, GP_SCORE_MAX_MIX * sizeof(*shapes));
        if (shapes != NULL) {
            mix->shapes = shapes;
            mix->n = gp_score_policy_mix(c->pol, shapes, GP_SCORE_MAX_MIX);
        }
        return;
    }
    if (c->x->cache != NULL && c->locked)
        gp_cache_mix(c->x->cache, &c->a, GP_SCORE_MAX_MIX, mix);
}

static bool run_prioritize(call *c)
{
    /* Not zeroed: the known nodes' pointers are written below, their parts by gp_prioritize(). */
    const gp_node **ptrs = gp_arena_alloc_raw(&c->a, (c->args.n ? c->args.n : 1) * sizeof(*ptrs));
    gp_score_parts *kp = gp_arena_alloc_raw(&c->a, (c->args.n ? c->args.n : 1) * sizeof(*kp));
    gp_typical typ = { .cpu_m_per_gpu = c->pol->scoring.typical_cpu_milli_per_gpu,
                       .mem_per_gpu = c->pol->scoring.typical_memory_per_gpu,
                       .mix = NULL };
    gp_frag_mix mix;
    size_t k = 0;

    if (ptrs == NULL || kp == NULL)
        return out_of_memory(c);
    if (c->x->cache != NULL && c->locked) {
        typ = gp_cache_typical(c->x->cache, c->pol);
        if (c->pol->scoring.weight_fragmentation > 0)
            gp_cache_pressure(c->x->cache, c->pol, &c->a, &typ);
    }
    workload_mix(c, &mix);
    typ.mix = &mix;
    for (size_t i = 0; i < c->args.n; i++)
        if (c->known[i])
            ptrs[k++] = &c->nodes[i];
    gp_prioritize(&c->d, ptrs, k, c->pol, &typ, kp);
    k = 0;
    for (size_t i = 0; i < c->args.n; i++) {
        if (c->known[i]) {
            c->parts[i] = kp[k++];
        } else {
            memset(&c->parts[i], 0, sizeof(c->parts[i]));
        }
        c->scores[i] = c->parts[i].score;
    }
    return true;
}

static int best_index(const call *c)
{
    int best = -1;

    for (size_t i = 0; i < c->args.n; i++)
        if (c->known[i] && c->parts[i].feasible && (best < 0 || c->scores[i] > c->scores[best]))
            best = (int)i;
    return best;
}

static void assume_best(call *c)
{
    int best = best_index(c);

    if (c->x->cache == NULL || c->x->assume_ttl_ms <= 0 || !c->d.gpu || c->d.never_filter ||
        best < 0 || c->uid == NULL)
        return;
    gp_cache_assume(c->x->cache, c->uid, c->args.names[best], &c->d.usage, c->now_ms,
                    c->x->assume_ttl_ms);
}

/* One row of the --explain table, appended to c->table. */
static void table_row(call *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void table_row(call *c, const char *fmt, ...)
{
    char line[ROW_MAX];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    gp_strbuf_puts(&c->table, line);
}

static const char *verdict_name(int v)
{
    return v == GP_FILTER_PASS ? "pass" : v == GP_FILTER_FULL ? "full" : "unresolvable";
}

/* Why a node scored 0 although it is known, into buf (WHY_MAX bytes): the filter's reason, or
 * spot the pod may not use; "" otherwise. */
static void why_zero(call *c, size_t i, char *buf)
{
    buf[0] = '\0';
    if (!c->parts[i].feasible) {
        char reason[GP_REASON_MAX];
        gp_filter_why why;

        gp_filter_node(&c->d, &c->nodes[i], c->pol, &why);
        snprintf(buf, WHY_MAX, "  (infeasible: %s)", gp_filter_why_text(&why, reason));
    } else if (c->parts[i].spot_denied) {
        snprintf(buf, WHY_MAX, "  (spot not allowed)");
    }
}

/* The --explain table, built while the call holds the cluster view and written after the
 * call's log line (explain_flush()), so that no log line lands inside it. */
static void explain(call *c)
{
    char why[WHY_MAX];

    if (c->x->explain == NULL)
        return;
    if (c->verb == GP_VERB_FILTER) {
        table_row(c, "%-40s %-14s %s\n", "NODE", "RESULT", "REASON");
        for (size_t i = 0; i < c->args.n; i++)
            table_row(c, "%-40s %-14s %s\n", c->args.names[i], verdict_name(c->fres[i].verdict),
                      c->fres[i].verdict ? c->fres[i].reason : "");
        return;
    }
    table_row(c, "%-40s %10s %6s %6s %6s %6s %9s %5s\n", "NODE", "MARGINAL$/h", "COST", "FIT",
              "STRAND", "FRAG", "RAW", "SCORE");
    for (size_t i = 0; i < c->args.n; i++) {
        const gp_score_parts *p = &c->parts[i];

        if (!c->known[i]) {
            table_row(c, "%-40s %s\n", c->args.names[i], "unknown node: 0");
            continue;
        }
        why_zero(c, i, why);
        table_row(c, "%-40s %10.3f %6.3f %6.3f %6.3f %6.2f %9.3f %5d%s\n", c->args.names[i],
                  p->marginal_cost, p->cost, p->fit, p->stranding, p->fragmentation, p->raw,
                  p->score, why);
    }
}

/* Writes the --explain table in one piece. */
static void explain_flush(call *c)
{
    char *text = NULL;
    size_t len = 0;

    if (c->x->explain == NULL)
        return;
    if (gp_strbuf_take(&c->table, &text, &len) != GP_OK) {
        fputs("gpupack-extender: --explain: out of memory\n", c->x->explain);
    } else if (len > 0) {
        fwrite(text, 1, len, c->x->explain);
    }
    fflush(c->x->explain);
    free(text);
}

static char *top_json(const call *c)
{
    cJSON *arr = cJSON_CreateArray();
    bool *taken = gp_arena_alloc((gp_arena *)&c->a, (c->args.n ? c->args.n : 1));
    char *s;

    for (int t = 0; arr != NULL && taken != NULL && t < TOP_LOGGED; t++) {
        int best = -1;
        cJSON *o;

        for (size_t i = 0; i < c->args.n; i++)
            if (!taken[i] && c->known[i] && (best < 0 || c->scores[i] > c->scores[best]))
                best = (int)i;
        if (best < 0)
            break;
        taken[best] = true;
        o = cJSON_CreateObject();
        if (o == NULL || !cJSON_AddItemToArray(arr, o)) {
            cJSON_Delete(o);
            break;
        }
        cJSON_AddStringToObject(o, "node", c->args.names[best]);
        cJSON_AddNumberToObject(o, "score", c->scores[best]);
        cJSON_AddNumberToObject(o, "marginal_cost", c->parts[best].marginal_cost);
        cJSON_AddNumberToObject(o, "fit", c->parts[best].fit);
        cJSON_AddNumberToObject(o, "stranding", c->parts[best].stranding);
        cJSON_AddNumberToObject(o, "fragmentation", c->parts[best].fragmentation);
    }
    s = arr ? cJSON_PrintUnformatted(arr) : NULL;
    cJSON_Delete(arr);
    return s;
}

#define M_CALLS_HELP "Extender calls answered, by verb and outcome."
#define M_FILTER_NODES_HELP "Nodes filtered, by result."

void gp_extender_preregister(gp_metrics *m)
{
    static const char *const verbs[] = { "filter", "prioritize" };
    static const char *const outcomes[] = { "ok", "internal", "bad-request", "bad-pod", "no-view",
                                            "not-synced" };
    static const char *const results[] = { "pass", "full", "unresolvable" };
    char labels[64];

    for (size_t v = 0; v < 2; v++)
        for (size_t o = 0; o < sizeof(outcomes) / sizeof(outcomes[0]); o++) {
            snprintf(labels, sizeof(labels), "verb=\"%s\",outcome=\"%s\"", verbs[v], outcomes[o]);
            gp_metrics_add(m, "gpupack_extender_calls_total", M_CALLS_HELP, labels, 0);
        }
    for (size_t r = 0; r < 3; r++) {
        snprintf(labels, sizeof(labels), "result=\"%s\"", results[r]);
        gp_metrics_add(m, "gpupack_extender_filter_nodes_total", M_FILTER_NODES_HELP, labels, 0);
    }
}

/* Filter counters, summed per (result, kind) first: one metrics update per distinct label set,
 * not one per refused node. */
static void count_filter(call *c)
{
    static const char *const names[] = { "pass", "full", "unresolvable" };
    uint64_t counts[3] = { 0, 0, 0 };
    uint64_t reasons[2][GP_FK_COUNT + 1];

    memset(reasons, 0, sizeof(reasons));
    for (size_t i = 0; i < c->args.n; i++) {
        int v = c->fres[i].verdict;
        gp_filter_kind k = gp_filter_reason_kind(c->freason[i]);

        counts[v >= 0 && v <= 2 ? v : 0]++;
        if (v != 0)
            reasons[v == 1 ? 0 : 1][k < GP_FK_COUNT ? k : GP_FK_COUNT]++;
    }
    for (int r = 0; r < 2; r++)
        for (int k = 0; k <= GP_FK_COUNT; k++) {
            const char *kind = gp_filter_kind_label((gp_filter_kind)k);
            char labels[64];

            if (reasons[r][k] == 0)
                continue;
            snprintf(labels, sizeof(labels), "result=\"%s\",reason=\"%s\"", names[r + 1],
                     kind ? kind : "other");
            gp_metrics_add(c->x->metrics, "gpupack_extender_filter_reasons_total",
                           "Nodes filtered out, by result and kind of reason.", labels,
                           reasons[r][k]);
        }
    for (int v = 0; v < 3; v++) {
        char labels[48];

        snprintf(labels, sizeof(labels), "result=\"%s\"", names[v]);
        if (counts[v])
            gp_metrics_add(c->x->metrics, "gpupack_extender_filter_nodes_total",
                           M_FILTER_NODES_HELP, labels, counts[v]);
    }
}

static double now_seconds(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Where one call's time went: decoding the body, deciding (node views and scores), encoding. */
static void record_phases(call *c, const double t[4])
{
    static const char *const phase[] = { "decode", "decide", "encode" };

    for (int i = 0; i < 3; i++) {
        char labels[64];

        snprintf(labels, sizeof(labels), "verb=\"%s\",phase=\"%s\"", verb_name(c->verb), phase[i]);
        gp_metrics_observe(c->x->metrics, "gpupack_extender_phase_duration_seconds",
                           "Time of each phase of an extender call (decode the body, decide, "
                           "encode the answer), by verb and phase.", labels, t[i + 1] - t[i]);
    }
}

static void record(call *c, double started)
{
    char labels[64];
    gp_log_level level = c->error[0] ? GP_LOG_WARN : GP_LOG_INFO;
    /* The top candidates only for a line that is written (at info, not in production's warn). */
    char *top =
        c->verb == GP_VERB_PRIORITIZE && c->outcome[0] == 'o' && gp_log_enabled(c->x->log, level)
            ? top_json(c)
            : NULL;
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(c->args.pod, "metadata");
    const cJSON *ns = cJSON_GetObjectItemCaseSensitive(meta, "namespace");
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(meta, "name");

    snprintf(labels, sizeof(labels), "verb=\"%s\",outcome=\"%s\"", verb_name(c->verb), c->outcome);
    gp_metrics_add(c->x->metrics, "gpupack_extender_calls_total", M_CALLS_HELP, labels, 1);
    snprintf(labels, sizeof(labels), "verb=\"%s\"", verb_name(c->verb));
    gp_metrics_add(c->x->metrics, "gpupack_extender_nodes_total",
                   "Nodes received in extender calls, by verb (divide by calls for nodes per "
                   "call).", labels, c->args.n);
    gp_metrics_observe(c->x->metrics, "gpupack_extender_decision_duration_seconds",
                       "Time to decode, decide and encode one extender call.", labels,
                       now_seconds() - started);
    if (c->verb == GP_VERB_FILTER && c->outcome[0] == 'o')
        count_filter(c);
    GP_LOG(c->x->log, level, verb_name(c->verb),
           GP_LS("namespace", cJSON_IsString(ns) ? ns->valuestring : NULL),
           GP_LS("pod", cJSON_IsString(name) ? name->valuestring : NULL),
           GP_LS("class", c->d.class_name), GP_LI("gpu", c->d.usage.gpu), GP_LI("nodes", c->args.n),
           GP_LS("outcome", c->outcome), GP_LS("error", c->error[0] ? c->error : NULL),
           GP_LJ("top", top), GP_LF("duration_ms", (now_seconds() - started) * 1e3));
    cJSON_free(top);
}

static int error_status(const call *c)
{
    if (!c->error[0] || strcmp(c->outcome, "internal") == 0)
        return 500;
    return strcmp(c->outcome, "not-synced") == 0 ? 503 : 400;
}

static void respond(call *c, gp_http_response *resp)
{
    char *out = NULL;
    size_t len = 0;
    gp_status st;

    if (c->verb == GP_VERB_FILTER)
        st = c->error[0] ? gp_extargs_encode_filter_error(c->error, &out, &len)
                         : gp_extargs_encode_filter(&c->args, c->fres, NULL, &out, &len);
    else if (c->error[0])
        st = GP_EINVAL;
    else
        st = gp_extargs_encode_priorities(&c->args, c->scores, &out, &len);
    resp->status = 200;
    if (st == GP_OK) {
        resp->body = out; /* both malloc'd: the server frees it */
        resp->body_len = len;
        return;
    }
    /* A HostPriorityList cannot carry an error: say it with a status the scheduler reports,
     * 400 for arguments it cannot use, 503 while the view is not synced, 500 for the rest. */
    resp->status = error_status(c);
    cJSON *e = cJSON_CreateObject();
    char *s = NULL;

    if (e != NULL && cJSON_AddStringToObject(e, "error", c->error[0] ? c->error : "out of memory"))
        s = cJSON_PrintUnformatted(e);
    cJSON_Delete(e);
    resp->body = s ? strdup(s) : NULL;
    resp->body_len = resp->body ? strlen(resp->body) : 0;
    cJSON_free(s);
}

static void cleanup(call *c)
{
    if (c->locked)
        gp_cache_unlock(c->x->cache);
    c->locked = false;
    for (size_t i = 0; c->owned != NULL && i < c->args.n; i++)
        if (c->owned[i])
            gp_node_clear(&c->nodes[i]);
    gp_strbuf_free(&c->table);
}

void gp_extender_call(gp_extender *x, gp_verb verb, const char *body, size_t len, int64_t now_ms,
                      gp_http_response *resp)
{
    call c;
    double t[4];
    gp_json_pool pool;

    t[0] = now_seconds();
    /* The call's cJSON trees (the Pod, the log line's candidates) come from one pool. */
    gp_json_pool_begin(&pool, 0);
    memset(&c, 0, sizeof(c));
    c.x = x;
    c.verb = verb;
    c.now_ms = now_ms;
    c.outcome = "ok";
    gp_arena_init(&c.a, GP_EXTENDER_ARENA_LIMIT);
    gp_strbuf_init(&c.table, GP_EXTENDER_ARENA_LIMIT);
    c.pol = gp_policy_holder_get(x->policy);
    bool decoded = decode(&c, body, len);

    t[1] = now_seconds();
    if (decoded && alloc_arrays(&c) && resolve_nodes(&c) &&
        (verb == GP_VERB_FILTER ? run_filter(&c) : run_prioritize(&c)))
        explain(&c);
    if (c.locked) {
        gp_cache_unlock(x->cache);
        c.locked = false;
    }
    if (verb == GP_VERB_PRIORITIZE && !c.error[0])
        assume_best(&c);
    t[2] = now_seconds();
    respond(&c, resp);
    t[3] = now_seconds();
    if (decoded)
        record_phases(&c, t);
    record(&c, t[0]);
    explain_flush(&c);
    cleanup(&c);
    gp_json_pool_drop(&pool, c.root);
    gp_json_pool_end(&pool);
    gp_policy_unref(c.pol);
    gp_arena_free(&c.a);
    if (len > GP_EXTENDER_TRIM_BYTES)
        gp_heap_trim();
}

static int64_t wall_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void gp_extender_route_filter(void *ctx, const gp_http_request *req, gp_http_response *resp)
{
    gp_extender_call(ctx, GP_VERB_FILTER, req->body, req->body_len, wall_ms(), resp);
}

void gp_extender_route_prioritize(void *ctx, const gp_http_request *req, gp_http_response *resp)
{
    gp_extender_call(ctx, GP_VERB_PRIORITIZE, req->body, req->body_len, wall_ms(), resp);
}
