/* SPDX-License-Identifier: Apache-2.0 */
/* Running the advisor's queries and assembling gp_adv_data (fetch.h). The assembly follows the
 * spec's "Derived numbers" from what Prometheus reduced: per (pod, resource) sums over the
 * Running steps weighted here (a MIG profile <N>g counts N/7) and × R/3600, per node step
 * counts and sums × R/3600, DCGM series keyed by the first label of each preference list a
 * series has (so exported_pod and pod variants of one GPU coalesce). */
#include "fetch.h"

#include <math.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpupack/score.h"
#include "gpupack/strbuf.h"

/* ---- running the queries ------------------------------------------------------------------ */

/* t as RFC 3339 UTC ("2026-12-04T16:00:00Z") into buf. */
static void put_time(double t, char *buf, size_t n)
{
    time_t s = (time_t)t;
    struct tm tm;

    if (!isfinite(t) || gmtime_r(&s, &tm) == NULL ||
        strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
        snprintf(buf, n, "%.0f", t);
}

static void show_query(const gp_adv_fetch_opts *o, size_t i, const gp_advq *q)
{
    char a[32], b[32];

    if (o->out == NULL || !o->show_queries)
        return;
    if (q->type == GP_ADVQ_INSTANT && q->nparts > 0) {
        put_time(q->time, a, sizeof(a));
        fprintf(o->out, "query %zu/%d %s (instant at %s, asked in %zu parts of the window's "
                "steps, each the same over its own: --query-steps):\n  %s\n", i + 1,
                GP_ADVQ_COUNT, q->name, a, q->nparts, q->promql);
    } else if (q->type == GP_ADVQ_INSTANT) {
        put_time(q->time, a, sizeof(a));
        fprintf(o->out, "query %zu/%d %s (instant at %s):\n  %s\n", i + 1, GP_ADVQ_COUNT,
                q->name, a, q->promql);
    } else {
        put_time(q->start, a, sizeof(a));
        put_time(q->end, b, sizeof(b));
        fprintf(o->out, "query %zu/%d %s (range %s to %s, step %.0fs):\n  %s\n", i + 1,
                GP_ADVQ_COUNT, q->name, a, b, q->step, q->promql);
    }
}

#define PROMQL_SHOWN 160 /* characters of a query's PromQL an error shows */

/* err = "NAME: WHY; PromQL: TEXT", TEXT cut after PROMQL_SHOWN characters (--show-queries prints
 * it whole): a query runs to 6,000 characters, and what went wrong must fit GP_ERR_MAX. */
static void query_error(gp_err *err, const gp_advq *q, const char *why)
{
    size_t n = strlen(q->promql);
    bool cut = n > PROMQL_SHOWN;

    gp_err_set(err, "%s: %s; PromQL: %.*s%s", q->name, why, (int)(cut ? PROMQL_SHOWN : n),
               q->promql, cut ? "... (--show-queries prints it whole)" : "");
}

gp_status gp_adv_fetch(gp_prom *p, const gp_advq_set *qs, const gp_adv_fetch_opts *o,
                       gp_adv_results *res, gp_err *err)
{
    memset(res, 0, sizeof(*res));
    for (size_t i = 0; i < GP_ADVQ_COUNT; i++) {
        const gp_advq *q = &qs->q[i];
        gp_status st;
        gp_prom_stats ps;

        show_query(o, i, q);
        if (q->nparts > 0) /* the parts' answers add up (a series once per part) */
            st = gp_prom_query_parts(p, (const char *const *)q->parts, q->part_times, q->nparts,
                                     &res->r[i], err);
        else if (q->type == GP_ADVQ_INSTANT)
            st = gp_prom_query(p, q->promql, q->time, &res->r[i], err);
        else
            st = gp_prom_query_range(p, q->promql, q->start, q->end, q->step, &res->r[i], err);
        if (st != GP_OK) {
            char why[GP_ERR_MAX + 128];

            snprintf(why, sizeof(why), "%s%s", err != NULL ? err->msg : "",
                     err != NULL && strstr(err->msg, "too many samples") != NULL
                         ? " (raise Prometheus's --query.max-samples, 50000000 by default, or "
                           "use a shorter --since or a larger --step)"
                         : "");
            query_error(err, q, why[0] != '\0' ? why : gp_status_str(st));
            return st;
        }
        ps = gp_prom_last_stats(p);
        for (size_t w = 0; o->out != NULL && w < res->r[i]->nwarnings; w++)
            fprintf(o->out, "warning: %s: Prometheus: %s\n", q->name, res->r[i]->warnings[w]);
        if (o->out != NULL && !o->quiet && ps.parts > 1)
            fprintf(o->out, "query %zu/%d %s: %.2f s, %zu series in %u parts\n", i + 1,
                    GP_ADVQ_COUNT, q->name, ps.seconds, res->r[i]->nseries, ps.parts);
        else if (o->out != NULL && !o->quiet)
            fprintf(o->out, "query %zu/%d %s: %.2f s, %zu series\n", i + 1, GP_ADVQ_COUNT,
                    q->name, ps.seconds, res->r[i]->nseries);
    }
    return GP_OK;
}

void gp_adv_results_free(gp_adv_results *res)
{
    for (size_t i = 0; i < GP_ADVQ_COUNT; i++) {
        gp_prom_result_free(res->r[i]);
        res->r[i] = NULL;
    }
}

/* ---- MIG resource names ------------------------------------------------------------------- */

bool gp_adv_mig_profile_of(const char *res, char *buf, size_t n)
{
    static const char prefix[] = "nvidia_com_mig_";
    const char *p = res, *g;
    size_t j = 0;

    if (strncmp(res, prefix, sizeof(prefix) - 1) != 0 || n == 0)
        return false;
    p += sizeof(prefix) - 1;
    g = p;
    while (*g >= '0' && *g <= '9')
        g++;
    if (g == p || *g != 'g')
        return false;
    for (const char *c = p; *c != '\0' && j + 1 < n; c++) {
        if (c == g + 1 && *c == '_')
            buf[j++] = '.';
        else if (*c == '_' && strncmp(c, "_me", 3) == 0 && c > g + 1)
            buf[j++] = '+';
        else
            buf[j++] = *c;
    }
    buf[j] = '\0';
    return j > (size_t)(g - p) + 1 && strchr(buf, '.') != NULL;
}

/* ---- a small string map: key → index ---------------------------------------------------- */

typedef struct {
    char **keys;
    size_t *vals;
    size_t cap, n;
} smap;

static uint64_t hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;

    for (; *s != '\0'; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* The slot holding k, -1 when k is not there. */
static long smap_slot(const smap *m, const char *k)
{
    if (m->cap == 0)
        return -1;
    for (size_t i = hash(k) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        if (m->keys[i] == NULL)
            return -1;
        if (strcmp(m->keys[i], k) == 0)
            return (long)i;
    }
}

static long smap_get(const smap *m, const char *k)
{
    long i = smap_slot(m, k);

    return i < 0 ? -1 : (long)m->vals[i];
}

static bool smap_put(smap *m, const char *k, size_t v);

static bool smap_grow(smap *m)
{
    smap g = { NULL, NULL, m->cap ? m->cap * 2 : 64, 0 };

    g.keys = calloc(g.cap, sizeof(*g.keys));
    g.vals = calloc(g.cap, sizeof(*g.vals));
    if (g.keys == NULL || g.vals == NULL) {
        free(g.keys);
        free(g.vals);
        return false;
    }
    for (size_t i = 0; i < m->cap; i++) {
        if (m->keys[i] != NULL) {
            size_t j = hash(m->keys[i]) & (g.cap - 1);

            while (g.keys[j] != NULL)
                j = (j + 1) & (g.cap - 1);
            g.keys[j] = m->keys[i];
            g.vals[j] = m->vals[i];
            g.n++;
        }
    }
    free(m->keys);
    free(m->vals);
    *m = g;
    return true;
}

/* Maps k (copied) to v; false when out of memory. k must not be there yet. */
static bool smap_put(smap *m, const char *k, size_t v)
{
    size_t i;

    if ((m->n + 1) * 2 > m->cap && !smap_grow(m))
        return false;
    i = hash(k) & (m->cap - 1);
    while (m->keys[i] != NULL)
        i = (i + 1) & (m->cap - 1);
    m->keys[i] = strdup(k);
    if (m->keys[i] == NULL)
        return false;
    m->vals[i] = v;
    m->n++;
    return true;
}

/* Adds 1 to k's value (0 when new); false when out of memory. */
static bool smap_incr(smap *m, const char *k)
{
    long i = smap_slot(m, k);

    if (i < 0)
        return smap_put(m, k, 1);
    m->vals[i]++;
    return true;
}

static void smap_free(smap *m)
{
    for (size_t i = 0; i < m->cap; i++)
        free(m->keys[i]);
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof(*m));
}

/* ---- assembly state ----------------------------------------------------------------------- */

/* What a pod has besides gp_adv_pod while it is assembled. */
typedef struct {
    double node_seen; /* creation time of the incarnation on its node (0: unknown) */
} pod_aux;

/* One DCGM GPU (or MIG instance) as seen for one pod, summed over its series. */
typedef struct {
    char *ns, *pod, *host, *uuid, *gpu, *model, *profile;
    bool prof;            /* DCGM_FI_PROF_GR_ENGINE_ACTIVE exists for it */
    double sum, count, p95, fb_peak;
    bool bad_sum;         /* its sum or count of activity was NaN or infinite */
    bool sliced;          /* shares its whole GPU with another pod in some hour */
    long pod_index;       /* into the data's pods, -1: none */
} dev_acc;

typedef struct {
    const gp_policy *pol;
    const gp_advq_set *qs;
    const gp_adv_window *w;
    gp_adv_data *d;
    pod_aux *aux;          /* parallel to d->pods */
    size_t pods_cap;
    smap pods;             /* "ns\x1fpod" → pod index */
    dev_acc *devs;
    size_t ndevs, devs_cap;
    smap devmap;           /* dev key → index */
    smap targets;          /* "host\x1fpod" of scrape targets: a pod label that came with a
                              preferred one (exported_pod) on some series names the exporter */
    size_t bad[GP_ADVQ_COUNT]; /* NaN or infinite samples ignored, per query */
    double unattributed;   /* Σ samples of series without a pod label */
    size_t unattributed_series, ignored_devs, bad_sum_devs;
    bool oom;
} asm_ctx;

static char *dup_or_null(asm_ctx *c, const char *s)
{
    char *r;

    if (s == NULL)
        return NULL;
    r = strdup(s);
    if (r == NULL)
        c->oom = true;
    return r;
}

static void note(asm_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void note(asm_ctx *c, const char *fmt, ...)
{
    char buf[1024];
    char **nv;
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    nv = realloc(c->d->notes, (c->d->nnotes + 1) * sizeof(*nv));
    if (nv == NULL) {
        c->oom = true;
        return;
    }
    c->d->notes = nv;
    nv[c->d->nnotes] = strdup(buf);
    if (nv[c->d->nnotes] == NULL)
        c->oom = true;
    else
        c->d->nnotes++;
}

static const char *label(const gp_prom_series *s, const char *name)
{
    const char *v = gp_prom_label_get(s, name);

    return v != NULL && v[0] != '\0' ? v : NULL;
}

/* The index of the first label of a preference list the series has, non-empty; n when none. */
static size_t first_label_index(const gp_prom_series *s, char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (label(s, names[i]) != NULL)
            return i;
    return n;
}

/* That label's value; NULL when none. */
static const char *first_label(const gp_prom_series *s, char **names, size_t n)
{
    size_t i = first_label_index(s, names, n);

    return i < n ? label(s, names[i]) : NULL;
}

/* A sample's value when finite; counts it as bad for query q otherwise. */
static bool finite_value(asm_ctx *c, gp_advq_id q, double v)
{
    if (isfinite(v))
        return true;
    c->bad[q]++;
    return false;
}

static void pod_key(const char *ns, const char *pod, char *buf, size_t n)
{
    snprintf(buf, n, "%s\x1f%s", ns, pod);
}

static long find_pod(asm_ctx *c, const gp_prom_series *s)
{
    const char *ns = label(s, "namespace"), *pod = label(s, "pod");
    char key[640];

    if (ns == NULL || pod == NULL)
        return -1;
    pod_key(ns, pod, key, sizeof(key));
    return smap_get(&c->pods, key);
}

/* The pod of a pod-requests series, added when new; -1 for a series without the labels. */
static long add_pod(asm_ctx *c, const gp_prom_series *s)
{
    const char *ns = label(s, "namespace"), *pod = label(s, "pod");
    char key[640];
    long i;
    gp_adv_pod *p;

    if (ns == NULL || pod == NULL)
        return -1;
    pod_key(ns, pod, key, sizeof(key));
    i = smap_get(&c->pods, key);
    if (i >= 0)
        return i;
    if (c->d->npods == c->pods_cap) {
        size_t cap = c->pods_cap ? c->pods_cap * 2 : 16;
        gp_adv_pod *np = realloc(c->d->pods, cap * sizeof(*np));
        pod_aux *na;

        if (np == NULL) {
            c->oom = true;
            return -1;
        }
        c->d->pods = np;
        na = realloc(c->aux, cap * sizeof(*na));
        if (na == NULL) {
            c->oom = true;
            return -1;
        }
        c->aux = na;
        c->pods_cap = cap;
    }
    p = &c->d->pods[c->d->npods];
    memset(p, 0, sizeof(*p));
    memset(&c->aux[c->d->npods], 0, sizeof(c->aux[0]));
    p->namespace = dup_or_null(c, ns);
    p->name = dup_or_null(c, pod);
    c->aux[c->d->npods].node_seen = -INFINITY;
    if (p->namespace == NULL || p->name == NULL || !smap_put(&c->pods, key, c->d->npods)) {
        c->oom = true;
        free(p->namespace);
        free(p->name);
        return -1;
    }
    return (long)c->d->npods++;
}

/* Adds count instances of profile to a request list (max over the window). */
static void mig_max(asm_ctx *c, gp_adv_mig_req **v, size_t *n, const char *profile, double count)
{
    gp_adv_mig_req *nv;

    for (size_t i = 0; i < *n; i++) {
        if (strcmp((*v)[i].profile, profile) == 0) {
            if (count > (*v)[i].count)
                (*v)[i].count = count;
            return;
        }
    }
    nv = realloc(*v, (*n + 1) * sizeof(*nv));
    if (nv == NULL) {
        c->oom = true;
        return;
    }
    *v = nv;
    nv[*n].profile = dup_or_null(c, profile);
    nv[*n].count = count;
    if (nv[*n].profile != NULL)
        (*n)++;
}

/* The GPU-equivalents of one instance of resource res, and its MIG profile (into prof, "" for
 * nvidia_com_gpu); 0 for a resource that is neither. */
static double resource_weight(const gp_policy *pol, const char *res, char *prof, size_t n)
{
    prof[0] = '\0';
    if (strcmp(res, "nvidia_com_gpu") == 0)
        return 1.0;
    if (!gp_adv_mig_profile_of(res, prof, n))
        return 0.0;
    return gp_score_mig_slices(pol, prof) / (double)GP_MIG_FULL_SLICES;
}

/* ---- pods -------------------------------------------------------------------------------- */

/* The value of an instant-vector series (NaN when it has none). */
static double value_of(const gp_prom_series *s)
{
    return s->nsamples > 0 ? s->samples[s->nsamples - 1].v : NAN;
}

/* pod-requests: the pods, and their peak requests per resource over the window. */
static void read_requests(asm_ctx *c, const gp_prom_result *r)
{
    for (size_t i = 0; i < r->nseries && !c->oom; i++) {
        const gp_prom_series *s = &r->series[i];
        const char *res = label(s, "resource");
        double peak = value_of(s);
        char prof[128];
        long p;

        if (res == NULL || resource_weight(c->pol, res, prof, sizeof(prof)) <= 0)
            continue;
        if ((p = add_pod(c, s)) < 0 || !finite_value(c, GP_ADVQ_POD_REQUESTS, peak))
            continue;
        if (peak <= 0)
            continue;
        if (prof[0] == '\0') {
            if (peak > c->d->pods[p].gpus)
                c->d->pods[p].gpus = peak;
        } else {
            mig_max(c, &c->d->pods[p].mig, &c->d->pods[p].nmig, prof, peak);
        }
    }
}

/* A per (pod, resource) result weighted and added into the pods' gpus_at_end (at_end) or
 * gpu_hours. */
static void add_weighted(asm_ctx *c, gp_advq_id q, const gp_prom_result *r, double scale,
                         bool at_end)
{
    for (size_t i = 0; i < r->nseries; i++) {
        const gp_prom_series *s = &r->series[i];
        const char *res = label(s, "resource");
        double v = value_of(s), wgt;
        char prof[128];
        long p = find_pod(c, s);

        if (p < 0 || res == NULL || !finite_value(c, q, v) || v <= 0 ||
            (wgt = resource_weight(c->pol, res, prof, sizeof(prof))) <= 0)
            continue;
        if (at_end)
            c->d->pods[p].gpus_at_end += v * wgt * scale;
        else
            c->d->pods[p].gpu_hours += v * wgt * scale;
    }
}

/* pod-gpu-steps, pod-run-steps, pod-end and pod-start: the pods' hours and state at the ends.
 * Steps come once per part of the window (gp_advq.parts): they are added up, then made hours
 * once, so the hours do not depend on how the window was cut. */
static void pod_totals(asm_ctx *c, const gp_adv_results *res)
{
    double h = c->w->step / 3600.0;
    const gp_prom_result *r;

    add_weighted(c, GP_ADVQ_POD_GPU_STEPS, res->r[GP_ADVQ_POD_GPU_STEPS], 1, false);
    add_weighted(c, GP_ADVQ_POD_END, res->r[GP_ADVQ_POD_END], 1, true);
    r = res->r[GP_ADVQ_POD_END];
    for (size_t i = 0; i < r->nseries; i++) {
        long p = find_pod(c, &r->series[i]);

        if (p >= 0)
            c->d->pods[p].running_at_end = true;
    }
    r = res->r[GP_ADVQ_POD_RUN_STEPS];
    for (size_t i = 0; i < r->nseries; i++) {
        long p = find_pod(c, &r->series[i]);
        double v = value_of(&r->series[i]);

        if (p >= 0 && finite_value(c, GP_ADVQ_POD_RUN_STEPS, v) && v > 0) {
            c->d->pods[p].run_hours += v;
            c->d->pods[p].started_in_window = true; /* unless Running at t_0, below */
        }
    }
    r = res->r[GP_ADVQ_POD_START];
    for (size_t i = 0; i < r->nseries; i++) {
        long p = find_pod(c, &r->series[i]);

        if (p >= 0)
            c->d->pods[p].started_in_window = false;
    }
    for (size_t p = 0; p < c->d->npods; p++) {
        c->d->pods[p].gpu_hours *= h;
        c->d->pods[p].run_hours *= h;
    }
}

static void read_pod_nodes(asm_ctx *c, const gp_prom_result *r)
{
    for (size_t i = 0; i < r->nseries; i++) {
        const gp_prom_series *s = &r->series[i];
        long p = find_pod(c, s);
        const char *node = label(s, "node");
        double seen = value_of(s);

        if (p < 0 || node == NULL)
            continue;
        if (!isfinite(seen))
            seen = -1e300; /* present, when unknown */
        if (seen > c->aux[p].node_seen) {
            char *n = dup_or_null(c, node);

            if (n == NULL)
                continue;
            free(c->d->pods[p].node);
            c->d->pods[p].node = n;
            c->aux[p].node_seen = seen;
        }
    }
}

static const char *owner_value(const gp_prom_series *s, const char *name)
{
    const char *v = label(s, name);

    return v != NULL && strcmp(v, "<none>") != 0 ? v : NULL;
}

static void read_owners(asm_ctx *c, const gp_prom_result *owners, const gp_prom_result *oo)
{
    smap m = { 0 };

    for (size_t i = 0; i < oo->nseries && !c->oom; i++) {
        const gp_prom_series *s = &oo->series[i];
        const char *ns = label(s, "namespace"), *rs = label(s, "replicaset");
        const char *job = label(s, "job_name");
        char key[800];

        if (ns == NULL || (rs == NULL && job == NULL) || owner_value(s, "owner_kind") == NULL)
            continue;
        snprintf(key, sizeof(key), "%s\x1f%s\x1f%s", ns, rs != NULL ? "ReplicaSet" : "Job",
                 rs != NULL ? rs : job);
        if (smap_get(&m, key) < 0 && !smap_put(&m, key, i))
            c->oom = true;
    }
    for (size_t i = 0; i < owners->nseries && !c->oom; i++) {
        const gp_prom_series *s = &owners->series[i];
        long p = find_pod(c, s), o;
        const char *kind = owner_value(s, "owner_kind"), *name = owner_value(s, "owner_name");
        gp_adv_pod *pod;
        char key[800];

        if (p < 0 || kind == NULL || name == NULL || c->d->pods[p].owner_kind != NULL)
            continue;
        pod = &c->d->pods[p];
        pod->owner_kind = dup_or_null(c, kind);
        pod->owner_name = dup_or_null(c, name);
        snprintf(key, sizeof(key), "%s\x1f%s\x1f%s", pod->namespace, kind, name);
        if ((o = smap_get(&m, key)) >= 0) {
            const gp_prom_series *os = &oo->series[o];

            pod->owner_owner_kind = dup_or_null(c, owner_value(os, "owner_kind"));
            pod->owner_owner_name = dup_or_null(c, owner_value(os, "owner_name"));
        }
    }
    smap_free(&m);
}

static void read_pod_labels(asm_ctx *c, const gp_prom_result *r)
{
    for (size_t i = 0; i < r->nseries && !c->oom; i++) {
        const gp_prom_series *s = &r->series[i];
        long p = find_pod(c, s);
        gp_adv_pod *pod;

        if (p < 0 || c->d->pods[p].nlabels > 0)
            continue;
        pod = &c->d->pods[p];
        for (size_t l = 0; l < c->qs->npod_labels && !c->oom; l++) {
            const char *v = label(s, c->qs->pod_labels[l].ksm);
            gp_label *nl;

            if (v == NULL)
                continue;
            nl = realloc(pod->labels, (pod->nlabels + 1) * sizeof(*nl));
            if (nl == NULL) {
                c->oom = true;
                break;
            }
            pod->labels = nl;
            nl[pod->nlabels].key = dup_or_null(c, c->qs->pod_labels[l].key);
            nl[pod->nlabels].value = dup_or_null(c, v);
            pod->nlabels++;
        }
    }
}

/* ---- nodes ------------------------------------------------------------------------------- */

static long node_index(const gp_adv_data *d, const char *name)
{
    for (size_t i = 0; name != NULL && i < d->nnodes; i++) {
        if (strcmp(d->nodes[i].name, name) == 0)
            return (long)i;
    }
    return -1;
}

static long add_node(asm_ctx *c, const char *name)
{
    long i = node_index(c->d, name);
    gp_adv_node *nv;

    if (i >= 0)
        return i;
    nv = realloc(c->d->nodes, (c->d->nnodes + 1) * sizeof(*nv));
    if (nv == NULL) {
        c->oom = true;
        return -1;
    }
    c->d->nodes = nv;
    memset(&nv[c->d->nnodes], 0, sizeof(*nv));
    nv[c->d->nnodes].name = dup_or_null(c, name);
    nv[c->d->nnodes].hourly_alloc = calloc(c->w->nhours ? c->w->nhours : 1, sizeof(double));
    if (nv[c->d->nnodes].name == NULL || nv[c->d->nnodes].hourly_alloc == NULL) {
        c->oom = true;
        free(nv[c->d->nnodes].name);
        free(nv[c->d->nnodes].hourly_alloc);
        return -1;
    }
    return (long)c->d->nnodes++;
}

/* Node capacity in GPU-equivalents. */
static double capacity(const gp_policy *pol, const gp_adv_node *n)
{
    double cap = n->gpus;

    for (size_t i = 0; i < n->nmig; i++)
        cap += n->mig[i].count * gp_score_mig_slices(pol, n->mig[i].profile) /
               (double)GP_MIG_FULL_SLICES;
    return cap;
}

static void read_node_alloc(asm_ctx *c, const gp_prom_result *r)
{
    for (size_t i = 0; i < r->nseries && !c->oom; i++) {
        const gp_prom_series *s = &r->series[i];
        const char *node = label(s, "node"), *res = label(s, "resource");
        double v = value_of(s);
        char prof[128];
        long n;

        if (node == NULL || res == NULL || !finite_value(c, GP_ADVQ_NODE_ALLOC, v) || v <= 0 ||
            resource_weight(c->pol, res, prof, sizeof(prof)) <= 0)
            continue;
        if ((n = add_node(c, node)) < 0)
            continue;
        if (prof[0] == '\0')
            c->d->nodes[n].gpus = v > c->d->nodes[n].gpus ? v : c->d->nodes[n].gpus;
        else
            mig_max(c, &c->d->nodes[n].mig, &c->d->nodes[n].nmig, prof, v);
    }
}

static bool is_spot_label(const gp_policy *pol, const char *key, const char *value)
{
    for (size_t i = 0; i < pol->spot.nnode_labels; i++) {
        const gp_label *l = &pol->spot.node_labels[i];

        if (strcmp(l->key, key) == 0 && (l->value == NULL || strcmp(l->value, value) == 0))
            return true;
    }
    return false;
}

static void read_node_labels(asm_ctx *c, const gp_prom_result *r)
{
    for (size_t i = 0; i < r->nseries && !c->oom; i++) {
        const gp_prom_series *s = &r->series[i];
        long n = node_index(c->d, label(s, "node"));
        gp_adv_node *node;

        if (n < 0)
            continue;
        node = &c->d->nodes[n];
        for (size_t l = 0; l < c->qs->nnode_labels; l++) {
            const char *v = label(s, c->qs->node_labels[l].ksm);

            if (v == NULL)
                continue;
            if (l == GP_ADVQ_NODE_LABEL_INSTANCE && node->instance_type == NULL)
                node->instance_type = dup_or_null(c, v);
            else if (l == GP_ADVQ_NODE_LABEL_PRODUCT && node->gpu_product == NULL)
                node->gpu_product = dup_or_null(c, v);
            else if (l > GP_ADVQ_NODE_LABEL_PRODUCT &&
                     is_spot_label(c->pol, c->qs->node_labels[l].key, v))
                node->spot = true;
        }
    }
}

/* The node of series s of a per-node result and its finite value; -1 when none. */
static long node_value(asm_ctx *c, gp_advq_id q, const gp_prom_series *s, double *v)
{
    long n = node_index(c->d, label(s, "node"));

    *v = value_of(s);
    return n >= 0 && finite_value(c, q, *v) ? n : -1;
}

/* The per-node step counts and sums (× R/3600), the state at end and the hourly means. */
static void node_totals(asm_ctx *c, const gp_adv_results *res)
{
    static const gp_advq_id q[] = { GP_ADVQ_NODE_UP_STEPS, GP_ADVQ_NODE_EMPTY_STEPS,
                                    GP_ADVQ_NODE_HALF_STEPS, GP_ADVQ_NODE_HALF_FREE,
                                    GP_ADVQ_NODE_UP_END, GP_ADVQ_NODE_ALLOC_END };
    double h = c->w->step / 3600.0, *per = NULL;
    size_t nh = c->w->nhours;

    for (size_t i = 0; i < sizeof(q) / sizeof(q[0]); i++) {
        const gp_prom_result *r = res->r[q[i]];

        for (size_t j = 0; j < r->nseries; j++) {
            double v;
            long n = node_value(c, q[i], &r->series[j], &v);
            gp_adv_node *node;

            if (n < 0)
                continue;
            node = &c->d->nodes[n];
            switch (q[i]) {
            /* steps, once per part of the window (gp_advq.parts): hours below */
            case GP_ADVQ_NODE_UP_STEPS: node->up_hours += v; break;
            case GP_ADVQ_NODE_EMPTY_STEPS: node->empty_hours += v; break;
            case GP_ADVQ_NODE_HALF_STEPS: node->half_hours += v; break;
            case GP_ADVQ_NODE_HALF_FREE: node->half_free_gpu_hours += v; break;
            case GP_ADVQ_NODE_UP_END: node->up_at_end = true; break;
            case GP_ADVQ_NODE_ALLOC_END: node->alloc_at_end = v; break;
            default: break;
            }
        }
    }
    for (size_t n = 0; n < c->d->nnodes; n++) {
        gp_adv_node *node = &c->d->nodes[n];

        node->up_hours *= h;
        node->empty_hours *= h;
        node->half_hours *= h;
        node->half_free_gpu_hours *= h;
        if (!node->up_at_end)
            node->alloc_at_end = 0;
    }
    /* node-hourly: Σ allocation over each bucket's steps; the mean is over the window's
     * steps in the bucket (a step without allocation counts 0) */
    per = calloc(nh ? nh : 1, sizeof(double));
    if (per == NULL) {
        c->oom = true;
        return;
    }
    for (size_t k = 0; k < c->w->steps; k++) {
        long b = gp_adv_window_hour_of(c->w, c->w->end - (double)(c->w->steps - 1 - k) *
                                                            c->w->step);
        if (b >= 0)
            per[b]++;
    }
    for (size_t i = 0; i < res->r[GP_ADVQ_NODE_HOURLY]->nseries; i++) {
        const gp_prom_series *s = &res->r[GP_ADVQ_NODE_HOURLY]->series[i];
        long n = node_index(c->d, label(s, "node"));

        for (size_t j = 0; n >= 0 && j < s->nsamples; j++) {
            long b = gp_adv_window_hour_of(c->w, s->samples[j].t);

            if (b >= 0 && per[b] > 0 &&
                finite_value(c, GP_ADVQ_NODE_HOURLY, s->samples[j].v))
                c->d->nodes[n].hourly_alloc[b] = s->samples[j].v / per[b];
        }
    }
    free(per);
}

/* ---- DCGM -------------------------------------------------------------------------------- */

static void target_key(const char *host, const char *pod, char *buf, size_t n)
{
    snprintf(buf, n, "%s\x1f%s", host ? host : "", pod);
}

/* With honorLabels off, Prometheus renames dcgm-exporter's pod label exported_pod and sets pod
 * to the exporter's own pod; a GPU no pod holds then carries that pod label alone. Every pod
 * label that comes after the one a series' pod was taken from is the scrape target's. */
static void learn_targets(asm_ctx *c, const gp_prom_result *r)
{
    const gp_advisor_policy *a = &c->pol->advisor;
    char key[700];

    for (size_t i = 0; i < r->nseries && !c->oom; i++) {
        const gp_prom_series *s = &r->series[i];
        const char *host = first_label(s, a->label_host, a->nlabel_host);

        for (size_t j = first_label_index(s, a->label_pod, a->nlabel_pod) + 1;
             j < a->nlabel_pod; j++) {
            const char *v = label(s, a->label_pod[j]);

            if (v == NULL)
                continue;
            target_key(host, v, key, sizeof(key));
            if (smap_get(&c->targets, key) < 0 && !smap_put(&c->targets, key, 0))
                c->oom = true;
        }
    }
}

/* True when pod (in namespace ns) on host is dcgm-exporter's own pod: a scrape target
 * (learn_targets()), or the series' host label itself (the exporter reports its container's
 * hostname, which is its pod's name unless NODE_NAME is set; with honorLabels on, an older
 * exporter's series of a GPU no pod holds carry the target's pod label and nothing tells it from
 * a workload's but this). A pod kube-state-metrics shows with a GPU request is never the
 * exporter: an exporter run as a sidecar of the workload shares its pod name and hostname. */
static bool exporter_pod(const asm_ctx *c, const char *ns, const char *host, const char *pod)
{
    char key[700];

    pod_key(ns ? ns : "", pod, key, sizeof(key));
    if (smap_get(&c->pods, key) >= 0)
        return false;
    if (host != NULL && strcmp(host, pod) == 0)
        return true;
    target_key(host, pod, key, sizeof(key));
    return smap_get(&c->targets, key) >= 0;
}

/* The pod a DCGM series names: the first of the preference list, unless it is the exporter's
 * own (exporter_pod()). */
static const char *dcgm_pod(asm_ctx *c, const gp_prom_series *s, const char *ns,
                            const char *host)
{
    const gp_advisor_policy *a = &c->pol->advisor;
    const char *pod = first_label(s, a->label_pod, a->nlabel_pod);

    return pod == NULL || exporter_pod(c, ns, host, pod) ? NULL : pod;
}

/* The device of a DCGM series (added when new); -1 for a series without a pod label (counted
 * as unattributed when count is set) or on failure. */
static long dev_of(asm_ctx *c, const gp_prom_series *s, bool count_unattributed)
{
    const gp_advisor_policy *a = &c->pol->advisor;
    const char *ns = first_label(s, a->label_namespace, a->nlabel_namespace);
    const char *host = first_label(s, a->label_host, a->nlabel_host);
    const char *pod = dcgm_pod(c, s, ns, host);
    const char *uuid = label(s, "UUID"), *gpu = label(s, "gpu"), *gi = label(s, "GPU_I_ID");
    const char *prof = label(s, "GPU_I_PROFILE");
    char key[1400];
    long i;
    dev_acc *d;

    if (pod == NULL) {
        if (count_unattributed) {
            double n = value_of(s);

            c->unattributed_series++;
            if (isfinite(n))
                c->unattributed += n;
        }
        return -1;
    }
    snprintf(key, sizeof(key), "%s\x1f%s\x1f%s\x1f%s\x1f%s\x1f%s\x1f%s", ns ? ns : "", pod,
             host ? host : "", uuid ? uuid : "", gpu ? gpu : "", gi ? gi : "", prof ? prof : "");
    if ((i = smap_get(&c->devmap, key)) >= 0)
        return i;
    if (c->ndevs == c->devs_cap) {
        size_t cap = c->devs_cap ? c->devs_cap * 2 : 16;
        dev_acc *nv = realloc(c->devs, cap * sizeof(*nv));

        if (nv == NULL) {
            c->oom = true;
            return -1;
        }
        c->devs = nv;
        c->devs_cap = cap;
    }
    d = &c->devs[c->ndevs];
    memset(d, 0, sizeof(*d));
    d->ns = dup_or_null(c, ns ? ns : "");
    d->pod = dup_or_null(c, pod);
    d->host = dup_or_null(c, host);
    d->uuid = dup_or_null(c, uuid);
    d->gpu = dup_or_null(c, gpu);
    d->model = dup_or_null(c, label(s, "modelName"));
    d->profile = dup_or_null(c, prof);
    d->p95 = d->fb_peak = NAN;
    d->pod_index = -1;
    c->ndevs++;
    if (c->oom || !smap_put(&c->devmap, key, c->ndevs - 1)) {
        c->oom = true;
        return -1;
    }
    return (long)c->ndevs - 1;
}

static double nanmax(double a, double b)
{
    return isnan(a) || b > a ? b : a;
}

/* Folds an instant query's per-device values into the devices. */
static void read_dcgm(asm_ctx *c, gp_advq_id q, const gp_prom_result *r)
{
    for (size_t i = 0; i < r->nseries && !c->oom; i++) {
        const gp_prom_series *s = &r->series[i];
        double v = value_of(s);
        long k = dev_of(c, s, q == GP_ADVQ_ACT_COUNT);
        dev_acc *d;

        if (k < 0)
            continue;
        d = &c->devs[k];
        if (!finite_value(c, q, v)) {
            d->bad_sum |= q == GP_ADVQ_ACT_SUM || q == GP_ADVQ_ACT_COUNT;
            continue;
        }
        switch (q) {
        case GP_ADVQ_DCGM_PROF: d->prof = true; break;
        case GP_ADVQ_ACT_SUM: d->sum += v; break;
        case GP_ADVQ_ACT_COUNT: d->count += v; break;
        case GP_ADVQ_ACT_P95: d->p95 = nanmax(d->p95, v); break;
        case GP_ADVQ_FB_PEAK: d->fb_peak = nanmax(d->fb_peak, v); break;
        default: break;
        }
    }
}

/* A row of activity-sliced that names a pod, not the exporter's own target pod. */
static bool sliced_pod_row(const asm_ctx *c, const gp_prom_series *s)
{
    const char *pod = label(s, "gp_pod"), *host = label(s, "gp_host");

    return pod != NULL && label(s, "UUID") != NULL &&
           !exporter_pod(c, label(s, "gp_namespace"), host, pod);
}

static void hour_key(const gp_prom_series *s, double t, char *buf, size_t n)
{
    const char *host = label(s, "gp_host");

    snprintf(buf, n, "%s\x1f%s\x1f%.0f", host ? host : "", label(s, "UUID"), t);
}

/* True when the pod of row s shared its GPU with another pod in one of its hours. */
static bool shared_an_hour(const smap *pods_per_hour, const gp_prom_series *s)
{
    char key[700];

    for (size_t j = 0; j < s->nsamples; j++) {
        hour_key(s, s->samples[j].t, key, sizeof(key));
        if (smap_get(pods_per_hour, key) >= 2)
            return true;
    }
    return false;
}

static void sliced_key(const char *ns, const char *pod, const char *host, const char *uuid,
                       char *buf, size_t n)
{
    snprintf(buf, n, "%s\x1f%s\x1f%s\x1f%s", ns ? ns : "", pod, host ? host : "", uuid);
}

/* Marks the whole-GPU devices whose (namespace, pod, host, UUID) is in sliced. */
static void mark_sliced(asm_ctx *c, const smap *sliced)
{
    char key[1400];

    for (size_t j = 0; j < c->ndevs && sliced->n > 0; j++) {
        dev_acc *a = &c->devs[j];

        if (a->profile != NULL || a->uuid == NULL)
            continue;
        sliced_key(a->ns, a->pod, a->host, a->uuid, key, sizeof(key));
        a->sliced = a->sliced || smap_get(sliced, key) >= 0;
    }
}

/* activity-sliced: the (namespace, pod, host, UUID) whole GPUs that shared an hour with another
 * pod; their devices are time-sliced. Prometheus counted every pod label there, the exporter's
 * own (exporter_pod()) too, so the pods of each GPU and hour are counted again without it. A
 * range asked in parts has a row once per part: every count is by hour, so that is the same. */
static void read_sliced(asm_ctx *c, const gp_prom_result *r)
{
    smap pods_per_hour = { 0 }, sliced = { 0 };
    char key[1400];

    for (size_t i = 0; i < r->nseries && !c->oom; i++) {
        if (!sliced_pod_row(c, &r->series[i]))
            continue;
        for (size_t j = 0; j < r->series[i].nsamples && !c->oom; j++) {
            hour_key(&r->series[i], r->series[i].samples[j].t, key, sizeof(key));
            c->oom = !smap_incr(&pods_per_hour, key);
        }
    }
    for (size_t i = 0; i < r->nseries && !c->oom; i++) {
        const gp_prom_series *s = &r->series[i];

        if (!sliced_pod_row(c, s) || !shared_an_hour(&pods_per_hour, s))
            continue;
        sliced_key(label(s, "gp_namespace"), label(s, "gp_pod"), label(s, "gp_host"),
                   label(s, "UUID"), key, sizeof(key));
        c->oom = smap_get(&sliced, key) < 0 && !smap_put(&sliced, key, 0);
    }
    if (!c->oom)
        mark_sliced(c, &sliced);
    smap_free(&pods_per_hour);
    smap_free(&sliced);
}

static void attach_dev(asm_ctx *c, dev_acc *a)
{
    gp_adv_pod *pod = &c->d->pods[a->pod_index];
    gp_adv_gpu *nv = realloc(pod->devs, (pod->ndevs + 1) * sizeof(*nv)), *g;

    if (nv == NULL) {
        c->oom = true;
        return;
    }
    pod->devs = nv;
    g = &nv[pod->ndevs++];
    memset(g, 0, sizeof(*g));
    g->node = a->host;
    g->uuid = a->uuid;
    g->gpu = a->gpu;
    g->model = a->model;
    g->mig_profile = a->profile;
    a->host = a->uuid = a->gpu = a->model = a->profile = NULL; /* moved */
    g->has_activity = a->count > 0;
    g->from_util = !a->prof;
    g->mean = a->count > 0 ? a->sum / a->count : NAN;
    g->p95 = a->p95;
    g->samples = a->count;
    g->fb_peak_mib = a->fb_peak;
    g->time_sliced = a->sliced;
}

/* activity-hourly: a pod's hourly activity, the mean over its GPUs (Prometheus averages each
 * label combination; a pod whose series carry different pod labels gets the mean of those). */
static void pod_hourly(asm_ctx *c, const gp_prom_result *r)
{
    const gp_advisor_policy *a = &c->pol->advisor;
    size_t nh = c->w->nhours ? c->w->nhours : 1;
    uint32_t *n = calloc(c->d->npods * nh + 1, sizeof(*n)); /* series summed in each */

    if (n == NULL) {
        c->oom = true;
        return;
    }
    for (size_t p = 0; p < c->d->npods && !c->oom; p++) {
        c->d->pods[p].hourly = calloc(nh, sizeof(double));
        if (c->d->pods[p].hourly == NULL)
            c->oom = true;
    }
    for (size_t i = 0; i < r->nseries && !c->oom; i++) {
        const gp_prom_series *s = &r->series[i];
        const char *ns = first_label(s, a->label_namespace, a->nlabel_namespace);
        const char *pod = first_label(s, a->label_pod, a->nlabel_pod);
        char key[640];
        long p;

        if (pod == NULL)
            continue;
        pod_key(ns ? ns : "", pod, key, sizeof(key));
        if ((p = smap_get(&c->pods, key)) < 0)
            continue;
        for (size_t j = 0; j < s->nsamples; j++) {
            long b = gp_adv_window_hour_of(c->w, s->samples[j].t);

            if (b < 0 || !finite_value(c, GP_ADVQ_ACT_HOURLY, s->samples[j].v))
                continue;
            c->d->pods[p].hourly[b] += s->samples[j].v;
            n[(size_t)p * nh + (size_t)b]++;
        }
    }
    for (size_t p = 0; p < c->d->npods && !c->oom; p++) {
        for (size_t b = 0; b < c->w->nhours; b++) {
            double k = (double)n[p * nh + b];

            c->d->pods[p].hourly[b] = k > 0 ? c->d->pods[p].hourly[b] / k : NAN;
        }
    }
    free(n);
}

/* The node's GPU product from DCGM's modelName when kube-state-metrics has no label. */
static void node_products(asm_ctx *c)
{
    for (size_t i = 0; i < c->ndevs; i++) {
        const dev_acc *a = &c->devs[i];
        long n = node_index(c->d, a->host);
        char *m;

        if (n < 0 || a->model == NULL || c->d->nodes[n].gpu_product != NULL)
            continue;
        m = dup_or_null(c, a->model);
        for (char *p = m; p != NULL && *p != '\0'; p++) {
            if (*p == ' ')
                *p = '-';
        }
        c->d->nodes[n].gpu_product = m;
    }
}

/* A NaN or infinite sample makes the window's sum of a device's activity NaN or infinite: its
 * count alone would make its mean 0, an idle GPU. Its activity is unknown instead. */
static void drop_bad_sums(asm_ctx *c)
{
    for (size_t i = 0; i < c->ndevs; i++) {
        if (!c->devs[i].bad_sum)
            continue;
        c->devs[i].sum = c->devs[i].count = 0;
        c->bad_sum_devs++;
    }
}

static void read_devices(asm_ctx *c, const gp_adv_results *res)
{
    static const gp_advq_id inst[] = { GP_ADVQ_ACT_COUNT, GP_ADVQ_ACT_SUM, GP_ADVQ_ACT_P95,
                                       GP_ADVQ_FB_PEAK, GP_ADVQ_DCGM_PROF };
    smap ignored = { 0 };

    for (size_t i = 0; i < sizeof(inst) / sizeof(inst[0]); i++)
        learn_targets(c, res->r[inst[i]]);
    for (size_t i = 0; i < sizeof(inst) / sizeof(inst[0]); i++)
        read_dcgm(c, inst[i], res->r[inst[i]]);
    drop_bad_sums(c);
    node_products(c);
    for (size_t i = 0; i < c->ndevs && !c->oom; i++) {
        char key[640];

        pod_key(c->devs[i].ns, c->devs[i].pod, key, sizeof(key));
        c->devs[i].pod_index = smap_get(&c->pods, key);
        if (c->devs[i].pod_index < 0 && c->devs[i].count > 0 && smap_get(&ignored, key) < 0) {
            c->ignored_devs++;
            if (!smap_put(&ignored, key, i))
                c->oom = true;
        }
    }
    smap_free(&ignored);
    read_sliced(c, res->r[GP_ADVQ_ACT_SLICED]);
    pod_hourly(c, res->r[GP_ADVQ_ACT_HOURLY]);
    for (size_t i = 0; i < c->ndevs && !c->oom; i++) {
        if (c->devs[i].pod_index >= 0 && (c->devs[i].count > 0 || !isnan(c->devs[i].fb_peak)))
            attach_dev(c, &c->devs[i]);
    }
}

/* ---- checks and notes -------------------------------------------------------------------- */

static gp_status require(const gp_advq_set *qs, const gp_adv_results *res, gp_err *err)
{
    const gp_advq *q = &qs->q[GP_ADVQ_ACT_COUNT];

    if (res->r[GP_ADVQ_ACT_COUNT]->nseries == 0) {
        query_error(err, q, "no DCGM_FI_PROF_GR_ENGINE_ACTIVE or DCGM_FI_DEV_GPU_UTIL series in "
                            "the window: is dcgm-exporter scraped by this Prometheus?");
        return GP_ENOTFOUND;
    }
    q = &qs->q[GP_ADVQ_POD_REQUESTS];
    if (res->r[GP_ADVQ_POD_REQUESTS]->nseries == 0) {
        query_error(err, q, "kube_pod_container_resource_requests has no GPU requests in the "
                            "window: is kube-state-metrics scraped?");
        return GP_ENOTFOUND;
    }
    return GP_OK;
}

/* Whether warning w of query q was already given by an earlier query (one note each). */
static bool seen_warning(const gp_adv_results *res, size_t q, size_t w)
{
    for (size_t i = 0; i <= q; i++) {
        size_t n = i < q ? res->r[i]->nwarnings : w;

        for (size_t j = 0; j < n; j++) {
            if (strcmp(res->r[i]->warnings[j], res->r[q]->warnings[w]) == 0)
                return true;
        }
    }
    return false;
}

static void notes(asm_ctx *c, const gp_adv_results *res)
{
    size_t nprof = res->r[GP_ADVQ_DCGM_PROF]->nseries, nutil = res->r[GP_ADVQ_DCGM_UTIL]->nseries;
    size_t from_util = 0;

    for (size_t i = 0; i < GP_ADVQ_COUNT; i++) {
        for (size_t w = 0; w < res->r[i]->nwarnings; w++) {
            if (!seen_warning(res, i, w))
                note(c, "Prometheus warning (%s): %s", c->qs->q[i].name, res->r[i]->warnings[w]);
        }
    }
    for (size_t i = 0; i < c->ndevs; i++)
        from_util += !c->devs[i].prof && c->devs[i].count > 0 && c->devs[i].pod_index >= 0;
    if (nprof == 0 && nutil > 0)
        note(c, "DCGM_FI_PROF_GR_ENGINE_ACTIVE absent: add it to dcgm-exporter's counters (MIG "
                "instances have no DCGM_FI_DEV_GPU_UTIL); activity is DCGM_FI_DEV_GPU_UTIL / 100");
    else if (from_util > 0)
        note(c, "%zu GPU series have no DCGM_FI_PROF_GR_ENGINE_ACTIVE; their activity is "
                "DCGM_FI_DEV_GPU_UTIL / 100", from_util);
    c->d->activity_metric = dup_or_null(c, nprof == 0 ? "DCGM_FI_DEV_GPU_UTIL / 100"
                                        : from_util > 0 ? "DCGM_FI_PROF_GR_ENGINE_ACTIVE (else "
                                                          "DCGM_FI_DEV_GPU_UTIL / 100)"
                                                        : "DCGM_FI_PROF_GR_ENGINE_ACTIVE");
    if (c->unattributed_series > 0)
        note(c, "%zu DCGM GPU series have no pod label (%s), %.1f GPUs on average: GPUs no pod "
                "was given, or dcgm-exporter's pod mapping is off or failing (--kubernetes, the "
                "kubelet pod-resources socket); their activity is not attributed",
             c->unattributed_series, c->qs->q[GP_ADVQ_ACT_COUNT].name, c->d->unattributed_gpus);
    if (c->ignored_devs > 0)
        note(c, "%zu DCGM series name a pod kube-state-metrics shows no GPU request for; "
                "ignored", c->ignored_devs);
    if (c->bad_sum_devs > 0)
        note(c, "activity of %zu GPUs left out: a NaN or infinite sample in the window makes "
                "their activity unknown (not idle)", c->bad_sum_devs);
    for (size_t i = 0; i < GP_ADVQ_COUNT; i++) {
        if (c->bad[i] > 0)
            note(c, "%s: %zu NaN or infinite values left out", c->qs->q[i].name, c->bad[i]);
    }
}

/* The mean number of GPUs busy without a pod label: their samples over the samples a GPU seen
 * the whole window has (the largest count of any series). */
static double unattributed_gpus(const asm_ctx *c, const gp_prom_result *count)
{
    double full = 0;

    for (size_t i = 0; i < count->nseries; i++) {
        double v = value_of(&count->series[i]);

        if (isfinite(v) && v > full)
            full = v;
    }
    return full > 0 ? c->unattributed / full : 0;
}

static void free_ctx(asm_ctx *c)
{
    free(c->aux);
    for (size_t i = 0; i < c->ndevs; i++) {
        dev_acc *a = &c->devs[i];

        free(a->ns);
        free(a->pod);
        free(a->host);
        free(a->uuid);
        free(a->gpu);
        free(a->model);
        free(a->profile);
    }
    free(c->devs);
    smap_free(&c->pods);
    smap_free(&c->devmap);
    smap_free(&c->targets);
}

/* Drops nodes without GPU capacity. */
static void keep_gpu_nodes(asm_ctx *c)
{
    size_t j = 0;

    for (size_t i = 0; i < c->d->nnodes; i++) {
        gp_adv_node *n = &c->d->nodes[i];

        if (capacity(c->pol, n) > 0) {
            c->d->nodes[j++] = *n;
            continue;
        }
        free(n->name);
        free(n->instance_type);
        free(n->gpu_product);
        for (size_t m = 0; m < n->nmig; m++)
            free(n->mig[m].profile);
        free(n->mig);
        free(n->hourly_alloc);
    }
    c->d->nnodes = j;
}

gp_status gp_adv_assemble(const gp_policy *pol, const gp_advq_set *qs, const gp_adv_results *res,
                          gp_adv_data *out, gp_err *err)
{
    asm_ctx c;
    gp_status st;

    memset(out, 0, sizeof(*out));
    for (size_t i = 0; i < GP_ADVQ_COUNT; i++) {
        if (res->r[i] == NULL) {
            gp_err_set(err, "%s: no result", qs->q[i].name);
            return GP_EINVAL;
        }
    }
    if ((st = require(qs, res, err)) != GP_OK)
        return st;
    memset(&c, 0, sizeof(c));
    c.pol = pol;
    c.qs = qs;
    c.w = &qs->w;
    c.d = out;
    out->end = qs->w.end;
    out->step = qs->w.step;
    out->hours = qs->w.window / 3600.0;
    out->nhours = qs->w.nhours;
    read_requests(&c, res->r[GP_ADVQ_POD_REQUESTS]);
    read_pod_nodes(&c, res->r[GP_ADVQ_POD_NODE]);
    read_owners(&c, res->r[GP_ADVQ_POD_OWNER], res->r[GP_ADVQ_OWNER_OWNER]);
    read_pod_labels(&c, res->r[GP_ADVQ_POD_LABELS]);
    pod_totals(&c, res);
    read_node_alloc(&c, res->r[GP_ADVQ_NODE_ALLOC]);
    read_node_labels(&c, res->r[GP_ADVQ_NODE_LABELS]);
    if (!c.oom)
        node_totals(&c, res);
    if (!c.oom)
        read_devices(&c, res);
    if (!c.oom)
        keep_gpu_nodes(&c);
    out->unattributed_gpus = unattributed_gpus(&c, res->r[GP_ADVQ_ACT_COUNT]);
    if (!c.oom)
        notes(&c, res);
    free_ctx(&c);
    if (c.oom) {
        gp_adv_data_free(out);
        memset(out, 0, sizeof(*out));
        gp_err_set(err, "out of memory assembling the report's data");
        return GP_ENOMEM;
    }
    return GP_OK;
}
