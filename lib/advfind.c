/* SPDX-License-Identifier: Apache-2.0 */
/* The advisor's findings (advise.h, docs/advisor.md "Findings"): idle, gpus, mig, model per
 * workload in that precedence (a pod is in at most one of them, so their GPU-hours add up), node
 * findings per node, runaway findings per pod. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advint.h"
#include "gpupack/cluster.h"
#include "gpupack/k8s.h"
#include "gpupack/mutate.h"
#include "gpupack/nodeview.h"
#include "gpupack/score.h"
#include "gpupack/strbuf.h"

#define MIB 1048576.0
#define MIG_FULL 7.0

/* ---------------------------------------------------------------------------------------------
 * Building findings. */

static gp_adv_finding *new_finding(adv_ctx *c, gp_adv_kind kind)
{
    gp_adv_report *r = c->out;
    gp_adv_finding *v = adv_grow(c, r->findings, &c->findings_cap, r->nfindings, sizeof(*v));
    gp_adv_finding *f;

    if (v == NULL)
        return NULL;
    r->findings = v;
    f = &v[r->nfindings++];
    f->kind = kind;
    f->mean = f->p95 = f->fb_peak_mib = NAN;
    return f;
}

static bool same_workload(const gp_adv_finding *f, const adv_pod *a)
{
    return strcmp(f->namespace, a->pod->namespace) == 0 && strcmp(f->workload, a->ref) == 0;
}

/* The finding of kind for a's workload, created on first use; NULL on allocation failure. */
static gp_adv_finding *finding_for(adv_ctx *c, gp_adv_kind kind, const adv_pod *a)
{
    gp_adv_finding *f;

    for (size_t i = 0; kind != GP_ADV_RUNAWAY && i < c->out->nfindings; i++)
        if (c->out->findings[i].kind == kind && same_workload(&c->out->findings[i], a))
            return &c->out->findings[i];
    f = new_finding(c, kind);
    if (f == NULL)
        return NULL;
    f->namespace = adv_strdup(c, a->pod->namespace);
    f->workload = adv_strdup(c, a->ref);
    f->workload_kind = adv_strdup(c, a->wl.kind);
    f->workload_name = adv_strdup(c, a->wl.name);
    f->class_name = adv_strdup(c, a->cls);
    f->model_key = adv_strdup(c, a->model_key);
    f->gpu_model = adv_strdup(c, a->gpu_model);
    return f;
}

static double max_nan(double a, double b)
{
    return isnan(a) || b > a ? b : a;
}

/* Adds one pod: its hours, dollars and $/hour now, and its evidence (f->mean holds the sum of
 * mean x samples until finish()). */
static void add_pod(gp_adv_finding *f, adv_pod *a, double hours, double dollars, double per_hour)
{
    f->pods++;
    f->hours += hours;
    f->dollars += dollars;
    f->per_hour += per_hour;
    if (a->nactive > 0) {
        f->mean = (isnan(f->mean) ? 0 : f->mean) + a->mean * a->samples;
        f->samples += a->samples;
        f->p95 = max_nan(f->p95, a->p95);
    }
    if (!isnan(a->fb_peak))
        f->fb_peak_mib = max_nan(f->fb_peak_mib, a->fb_peak);
    f->coverage_hours += a->coverage;
    f->time_sliced |= a->time_sliced;
}

/* $/hour now of a pod's GPUs (0 when it is not running at the window's end). */
static double now_cost(const adv_pod *a)
{
    return a->pod->running_at_end ? a->pod->gpus_at_end * a->price : 0;
}

/* ---------------------------------------------------------------------------------------------
 * idle and gpus. */

static void idle_pods(adv_ctx *c)
{
    for (size_t i = 0; i < c->d->npods; i++) {
        adv_pod *a = &c->pods[i];
        gp_adv_finding *f;

        if (!a->all_idle || (f = finding_for(c, GP_ADV_IDLE, a)) == NULL)
            continue;
        add_pod(f, a, a->pod->gpu_hours, a->pod->gpu_hours * a->price, now_cost(a));
        a->claimed = true;
        a->idle_hours = a->pod->gpu_hours;
        a->waste = a->pod->gpu_hours * a->price;
    }
}

/* The pod's whole GPUs (n) and how many of them were idle (k). n is 0 when dcgm-exporter saw it
 * on other GPUs than it holds at once (it was recreated elsewhere in the window): which of them
 * were idle together cannot be told. */
static void whole_devs(const adv_pod *a, const gp_policy *pol, int *n, int *k)
{
    *n = *k = 0;
    for (size_t i = 0; i < a->pod->ndevs; i++) {
        const gp_adv_gpu *g = &a->pod->devs[i];

        if (g->mig_profile != NULL)
            continue;
        (*n)++;
        *k += g->has_activity && g->mean < pol->advisor.idle_mean_pct / 100.0 &&
              g->p95 < pol->advisor.idle_p95_pct / 100.0;
    }
    if ((double)*n > a->pod->gpus)
        *n = *k = 0;
}

static void gpus_pods(adv_ctx *c)
{
    for (size_t i = 0; i < c->d->npods; i++) {
        adv_pod *a = &c->pods[i];
        gp_adv_finding *f;
        int n, k;
        double share;

        whole_devs(a, c->pol, &n, &k);
        if (a->claimed || n < 2 || k == 0 || k >= n || (f = finding_for(c, GP_ADV_GPUS, a)) == NULL)
            continue;
        share = (double)k / n;
        add_pod(f, a, a->pod->gpu_hours * share, a->pod->gpu_hours * share * a->price,
                now_cost(a) * share);
        if (n - k > f->gpus - f->gpus_idle) {
            f->gpus = n;
            f->gpus_idle = k;
        }
        a->claimed = true;
        a->idle_hours = a->pod->gpu_hours * share;
        a->waste = a->idle_hours * a->price;
    }
}

/* ---------------------------------------------------------------------------------------------
 * mig. */

/* A view of the MIG profiles the nodes offer, through the cluster's own NodeList reader. */
static gp_cluster *mig_view(adv_ctx *c)
{
    gp_cluster *v = gp_cluster_new();
    gp_strbuf b;
    gp_err err;
    bool first = true;

    if (v == NULL)
        return NULL;
    gp_strbuf_init(&b, 0);
    gp_strbuf_puts(&b, "{\"kind\":\"NodeList\",\"items\":[");
    for (size_t i = 0; i < c->d->nnodes; i++) {
        const gp_adv_node *n = &c->d->nodes[i];

        if (n->nmig == 0)
            continue;
        gp_strbuf_puts(&b, first ? "{\"metadata\":{\"name\":" : ",{\"metadata\":{\"name\":");
        first = false;
        gp_strbuf_json_string(&b, n->name);
        gp_strbuf_puts(&b, "},\"status\":{\"allocatable\":{");
        for (size_t j = 0; j < n->nmig; j++)
            gp_strbuf_printf(&b, "%s\"" GP_RES_MIG_PREFIX "%s\":\"%lld\"", j ? "," : "",
                             n->mig[j].profile, (long long)ceil(n->mig[j].count));
        gp_strbuf_puts(&b, "}}}");
    }
    gp_strbuf_puts(&b, "]}");
    if (b.failed || gp_cluster_set_nodes_json(v, b.p, b.len, &err) != GP_OK) {
        gp_cluster_unref(v);
        v = NULL;
    }
    gp_strbuf_free(&b);
    return v;
}

static gp_qty qty_mib(double mib)
{
    gp_qty q;

    q.nano = (__int128)ceil(mib) * 1048576 * 1000000000;
    return q;
}

static double profile_mib(const gp_mig_profile *p)
{
    return (double)(p->memory.nano / 1000000000) / MIB;
}

/* True when dcgm-exporter saw the pod on a MIG instance: a node of the device plugin's single
 * strategy advertises its slices as nvidia.com/gpu, so a request for one is already a slice. */
static bool on_mig_instance(const adv_pod *a)
{
    for (size_t i = 0; i < a->pod->ndevs; i++)
        if (a->pod->devs[i].mig_profile != NULL)
            return true;
    return false;
}

static bool mig_eligible(const adv_pod *a, const gp_policy *pol)
{
    const gp_class *cls = a->cls != NULL ? gp_policy_class(pol, a->cls) : NULL;

    return !a->claimed && a->nactive > 0 && a->pod->gpus == 1 && a->pod->nmig == 0 &&
           cls != NULL && cls->mig_allowed && !isnan(a->fb_peak) && !on_mig_instance(a);
}

/* The largest fb peak and p95 over the workload's pods that qualify (by eligible). */
static void workload_peaks(adv_ctx *c, const adv_pod *a0, bool (*eligible)(const adv_pod *,
                                                                           const gp_policy *),
                           double *fb, double *p95)
{
    *fb = *p95 = 0;
    for (size_t i = 0; i < c->d->npods; i++) {
        const adv_pod *a = &c->pods[i];

        if (!eligible(a, c->pol) || strcmp(a->pod->namespace, a0->pod->namespace) != 0 ||
            strcmp(a->ref, a0->ref) != 0)
            continue;
        *fb = fmax(*fb, a->fb_peak);
        *p95 = isnan(a->p95) ? *p95 : fmax(*p95, a->p95);
    }
}

/* The profile for need MiB with compute for p95: gp_mig_pick, raised past profiles too small
 * in compute. *need_mib ends as the memory asked for. */
static const gp_mig_profile *pick_profile(adv_ctx *c, gp_cluster *view, double *need_mib,
                                          double p95)
{
    const gp_mig_profile *p = gp_mig_pick(c->pol, view, NULL, qty_mib(*need_mib), &c->arena);

    for (int i = 0; p != NULL && p->slices / MIG_FULL < p95 && i < 16; i++) {
        *need_mib = profile_mib(p) + 1;
        p = gp_mig_pick(c->pol, view, NULL, qty_mib(*need_mib), &c->arena);
    }
    return p;
}

/* The gpupack.io/gpu-memory value: whole GiB when that picks the same profile, else MiB. */
static char *memory_value(adv_ctx *c, gp_cluster *view, double need_mib, const gp_mig_profile *p)
{
    double gib = ceil(need_mib / 1024);
    const gp_mig_profile *q = gp_mig_pick(c->pol, view, NULL, qty_mib(gib * 1024), &c->arena);

    if (q != NULL && strcmp(q->name, p->name) == 0)
        return adv_printf(c, "%.0fGi", gib);
    return adv_printf(c, "%.0fMi", ceil(need_mib));
}

static void mig_workload(adv_ctx *c, gp_cluster *view, adv_pod *a0)
{
    double fb, p95, need, save;
    const gp_mig_profile *p;
    gp_adv_finding *f = NULL;

    workload_peaks(c, a0, mig_eligible, &fb, &p95);
    need = fb * c->pol->advisor.mig_headroom;
    p = pick_profile(c, view, &need, p95);
    if (p == NULL || p->slices >= MIG_FULL)
        return;
    save = 1 - p->slices / MIG_FULL;
    for (size_t i = 0; i < c->d->npods; i++) {
        adv_pod *a = &c->pods[i];

        if (!mig_eligible(a, c->pol) || strcmp(a->pod->namespace, a0->pod->namespace) != 0 ||
            strcmp(a->ref, a0->ref) != 0)
            continue;
        if (f == NULL && (f = finding_for(c, GP_ADV_MIG, a)) == NULL)
            return;
        add_pod(f, a, a->pod->gpu_hours * save, a->pod->gpu_hours * a->price * save,
                now_cost(a) * save);
        a->claimed = true;
        a->waste = a->pod->gpu_hours * a->price * save;
    }
    if (f != NULL && f->mig_profile == NULL) {
        f->mig_profile = adv_strdup(c, p->name);
        f->gpu_memory = memory_value(c, view, need, p);
    }
}

static void mig_pods(adv_ctx *c)
{
    gp_cluster *view = NULL;

    for (size_t i = 0; i < c->d->npods && !c->oom; i++) {
        if (!mig_eligible(&c->pods[i], c->pol))
            continue;
        if (view == NULL && (view = mig_view(c)) == NULL) {
            c->oom = true;
            return;
        }
        mig_workload(c, view, &c->pods[i]);
    }
    gp_cluster_unref(view);
}

/* ---------------------------------------------------------------------------------------------
 * model. */

static bool in_list(char *const *v, size_t n, const char *s)
{
    for (size_t i = 0; s != NULL && i < n; i++)
        if (strcmp(v[i], s) == 0)
            return true;
    return false;
}

static bool model_eligible(const adv_pod *a, const gp_policy *pol)
{
    return !a->claimed && a->nactive > 0 && a->pod->gpus >= 1 && a->pod->nmig == 0 &&
           !isnan(a->fb_peak) && !on_mig_instance(a) &&
           in_list(pol->advisor.cheaper_model_classes, pol->advisor.ncheaper_model_classes,
                   a->cls);
}

/* One GPU of product pr on a (spot or on-demand) node, priced by score.c's rule. */
static double product_price(const gp_policy *pol, const gp_price *pr, bool spot)
{
    gp_node g;

    memset(&g, 0, sizeof(g));
    g.gpu_product = pr->match;
    g.spot = spot;
    g.gpu_alloc = 1;
    return gp_score_node_price(&g, pol);
}

/* The cheapest product with known memory of at least need_mib, cheaper than a's price. */
static const gp_price *cheaper(const adv_ctx *c, const adv_pod *a, double need_mib,
                               double *price)
{
    const gp_scoring *s = &c->pol->scoring;
    const gp_price *best = NULL;
    bool spot = a->node != NULL && a->node->spot;

    *price = a->price;
    for (size_t i = 0; i < s->ngpu_prices; i++) {
        const gp_price *pr = &s->gpu_prices[i];
        double p = product_price(c->pol, pr, spot);

        if (pr->memory.nano > 0 && (double)(pr->memory.nano / 1000000000) / MIB >= need_mib &&
            p < *price) {
            best = pr;
            *price = p;
        }
    }
    return best;
}

static void model_pods(adv_ctx *c)
{
    double thr = c->pol->advisor.model_max_p95_pct / 100.0;

    for (size_t i = 0; i < c->d->npods; i++) {
        adv_pod *a = &c->pods[i];
        double fb, p95, price;
        const gp_price *to;
        gp_adv_finding *f;

        if (!model_eligible(a, c->pol))
            continue;
        workload_peaks(c, a, model_eligible, &fb, &p95);
        to = cheaper(c, a, fb * c->pol->advisor.mig_headroom, &price);
        if (p95 > thr || to == NULL || (f = finding_for(c, GP_ADV_MODEL, a)) == NULL)
            continue;
        add_pod(f, a, a->pod->gpu_hours, a->pod->gpu_hours * (a->price - price),
                a->pod->running_at_end ? a->pod->gpus_at_end * (a->price - price) : 0);
        a->waste = a->pod->gpu_hours * (a->price - price);
        if (f->to_model == NULL)
            f->to_model = adv_strdup(c, to->match);
    }
}

/* ---------------------------------------------------------------------------------------------
 * node. */

static double node_capacity(const gp_adv_node *n, const gp_policy *pol)
{
    double cap = n->gpus;

    for (size_t i = 0; i < n->nmig; i++)
        cap += n->mig[i].count * gp_score_mig_slices(pol, n->mig[i].profile) / MIG_FULL;
    return cap;
}

static gp_adv_finding *node_finding(adv_ctx *c, const gp_adv_node *n)
{
    gp_adv_finding *f = new_finding(c, GP_ADV_NODE);

    if (f == NULL)
        return NULL;
    f->namespace = adv_strdup(c, "");
    f->workload = adv_printf(c, "node/%s", n->name);
    f->workload_kind = adv_strdup(c, "Node");
    f->workload_name = adv_strdup(c, n->name);
    f->class_name = adv_strdup(c, "");
    f->model_key = adv_strdup(c, "");
    f->gpu_model = adv_strdup(c, n->gpu_product);
    f->coverage_hours = n->up_hours;
    return f;
}

static void node_one(adv_ctx *c, const gp_adv_node *n)
{
    double cap = node_capacity(n, c->pol), hourly, price;
    gp_adv_finding *f;

    if (cap <= 0)
        return;
    hourly = adv_node_hourly(c->pol, n);
    price = gp_adv_gpu_price(c->pol, n);
    if (n->empty_hours > 0 && n->empty_hours >= c->pol->advisor.idle_node_hours &&
        (f = node_finding(c, n)) != NULL) {
        f->hours = n->empty_hours;
        f->dollars = hourly * n->empty_hours;
        f->per_hour = n->up_at_end && n->alloc_at_end == 0 ? hourly : 0;
        f->gpus = (int)ceil(cap);
        f->evidence = adv_printf(c, "empty (no GPU allocated) %.1f of its %.1f hours up",
                                 n->empty_hours, n->up_hours);
    }
    if (n->up_hours > 0 && n->half_hours > 0.5 * n->up_hours && (f = node_finding(c, n)) != NULL) {
        bool now = n->up_at_end && n->alloc_at_end > 0 && n->alloc_at_end < cap / 2;

        f->hours = n->half_hours;
        f->dollars = n->half_free_gpu_hours * price;
        f->per_hour = now ? (cap - n->alloc_at_end) * price : 0;
        f->gpus = (int)ceil(cap);
        f->gpus_idle = now ? (int)floor(cap - n->alloc_at_end) : 0;
        f->evidence = adv_printf(c,
                                 "under half of its %.4g GPUs allocated %.1f of its %.1f hours "
                                 "up (%.1f GPU-hours free)",
                                 cap, n->half_hours, n->up_hours, n->half_free_gpu_hours);
    }
}

/* ---------------------------------------------------------------------------------------------
 * runaway. */

static bool batch_kind(const gp_policy *pol, const adv_pod *a)
{
    const char *k = a->wl.kind;
    size_t n = strlen(k);

    if ((a->cls != NULL && strcmp(a->cls, "training") == 0) || strcmp(k, "CronJob") == 0 ||
        strcmp(k, "JobSet") == 0 || (n >= 3 && strcmp(k + n - 3, "Job") == 0))
        return true;
    for (size_t i = 0; i < pol->nrules; i++)
        if (pol->rules[i].class_name != NULL && strcmp(pol->rules[i].class_name, "training") == 0 &&
            in_list(pol->rules[i].owner_kinds, pol->rules[i].nowner_kinds, k))
            return true;
    return false;
}

static int dbl_cmp(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;

    return a < b ? -1 : a > b;
}

/* The median run of the workload's earlier pods (ended and started in the window); NaN when
 * there are fewer than runawayMinRuns. */
static double earlier_median(adv_ctx *c, const adv_pod *a0, int *nruns)
{
    double *runs = calloc(c->d->npods ? c->d->npods : 1, sizeof(double)), med = NAN;
    size_t n = 0;

    if (runs == NULL) {
        c->oom = true;
        return NAN;
    }
    for (size_t i = 0; i < c->d->npods; i++) {
        const adv_pod *a = &c->pods[i];

        if (a != a0 && !a->pod->running_at_end && a->pod->started_in_window &&
            a->pod->run_hours > 0 && strcmp(a->pod->namespace, a0->pod->namespace) == 0 &&
            strcmp(a->ref, a0->ref) == 0)
            runs[n++] = a->pod->run_hours;
    }
    qsort(runs, n, sizeof(double), dbl_cmp);
    if (n > 0 && n >= (size_t)c->pol->advisor.runaway_min_runs)
        med = n % 2 ? runs[n / 2] : (runs[n / 2 - 1] + runs[n / 2]) / 2;
    *nruns = (int)n;
    free(runs);
    return med;
}

static double trailing_idle_hours(const adv_ctx *c, const gp_adv_pod *p)
{
    double n = 0, thr = c->pol->advisor.idle_mean_pct / 100.0;

    for (size_t i = c->d->nhours; p->hourly != NULL && i > 0; i--) {
        if (isnan(p->hourly[i - 1]) || p->hourly[i - 1] >= thr)
            break;
        n++;
    }
    return n;
}

/* The largest excess of the three rules, in hours, with its explanation. */
static double runaway_excess(adv_ctx *c, const adv_pod *a, char **why)
{
    const gp_adv_pod *p = a->pod;
    const gp_class *cls = a->cls != NULL ? gp_policy_class(c->pol, a->cls) : NULL;
    double factor = c->pol->advisor.runaway_factor, best = 0, idle = trailing_idle_hours(c, p);
    int nruns = 0;
    double med = earlier_median(c, a, &nruns);

    if (!isnan(med) && p->run_hours > factor * med) {
        best = p->run_hours - factor * med;
        *why = adv_printf(c, "running %.1f h, over %gx the median %.1f h of %d earlier runs",
                          p->run_hours, factor, med, nruns);
    }
    if (cls != NULL && cls->runtime_cap_seconds > 0 &&
        p->run_hours - cls->runtime_cap_seconds / 3600.0 > best) {
        best = p->run_hours - cls->runtime_cap_seconds / 3600.0;
        free(*why);
        *why = adv_printf(c, "running %.1f h, past class %s's runtime cap of %.1f h",
                          p->run_hours, cls->name, cls->runtime_cap_seconds / 3600.0);
    }
    if (idle > 0 && idle >= c->pol->advisor.runaway_idle_hours && idle > best) {
        best = idle;
        free(*why);
        *why = adv_printf(c, "idle the last %.0f hours while running", idle);
    }
    return best;
}

static void runaway_pods(adv_ctx *c)
{
    for (size_t i = 0; i < c->d->npods && !c->oom; i++) {
        adv_pod *a = &c->pods[i];
        char *why = NULL;
        double excess;
        gp_adv_finding *f;

        if (!a->pod->running_at_end || !batch_kind(c->pol, a))
            continue;
        excess = runaway_excess(c, a, &why);
        if (excess <= 0 || (f = finding_for(c, GP_ADV_RUNAWAY, a)) == NULL) {
            free(why);
            continue;
        }
        add_pod(f, a, excess * a->pod->gpus_at_end, excess * now_cost(a), now_cost(a));
        f->evidence = adv_printf(c, "pod %s %s", a->pod->name, why ? why : "");
        free(why);
    }
}

/* ---------------------------------------------------------------------------------------------
 * Texts. */

static char *recommend_idle(adv_ctx *c, const gp_adv_finding *f, const char *kl)
{
    static const char *const scalable[] = {"Deployment", "StatefulSet", "ReplicaSet",
                                           "LeaderWorkerSet", "InferenceService"};

    for (size_t i = 0; i < sizeof(scalable) / sizeof(scalable[0]); i++)
        if (strcmp(f->workload_kind, scalable[i]) == 0)
            return adv_printf(c, "scale %s %s/%s to zero", kl, f->namespace, f->workload_name);
    if (strcmp(f->workload_kind, "CronJob") == 0)
        return adv_printf(c, "suspend cronjob %s/%s", f->namespace, f->workload_name);
    return adv_printf(c, "delete %s %s/%s", kl, f->namespace, f->workload_name);
}

static char *recommend(adv_ctx *c, const gp_adv_finding *f)
{
    char kl[GP_WORKLOAD_KIND_MAX];
    size_t i = 0;

    for (; f->workload_kind[i] && i + 1 < sizeof(kl); i++)
        kl[i] = (char)(f->workload_kind[i] | ((f->workload_kind[i] >= 'A' &&
                                               f->workload_kind[i] <= 'Z') ? 0x20 : 0));
    kl[i] = '\0';
    switch (f->kind) {
    case GP_ADV_IDLE: return recommend_idle(c, f, kl);
    case GP_ADV_GPUS:
        return adv_printf(c, "request %d nvidia.com/gpu (not %d) in %s %s/%s",
                          f->gpus - f->gpus_idle, f->gpus, kl, f->namespace, f->workload_name);
    case GP_ADV_MIG:
        return adv_printf(c, "set annotation " GP_ANN_GPU_MEMORY ": \"%s\" on %s %s/%s "
                          "(\xe2\x86\x92 " GP_RES_MIG_PREFIX "%s)",
                          f->gpu_memory, kl, f->namespace, f->workload_name, f->mig_profile);
    case GP_ADV_MODEL:
        return adv_printf(c, "set annotation " GP_ANN_GPU_MODELS ": \"%s\" on %s %s/%s",
                          f->to_model, kl, f->namespace, f->workload_name);
    case GP_ADV_NODE:
        return f->gpus_idle > 0 || strstr(f->evidence ? f->evidence : "", "under half")
                   ? adv_printf(c, "consolidate GPU pods off node %s so it can be removed",
                                f->workload_name)
                   : adv_printf(c, "remove node %s (or let the autoscaler scale it down)",
                                f->workload_name);
    case GP_ADV_RUNAWAY:
        return adv_printf(c, "check %s %s/%s: stop it if it is stuck", kl, f->namespace,
                          f->workload_name);
    default: return adv_strdup(c, "");
    }
}

static char *evidence(adv_ctx *c, const gp_adv_finding *f)
{
    char fb[64] = "";

    if (!isnan(f->fb_peak_mib))
        snprintf(fb, sizeof(fb), ", peak memory %.0f MiB", f->fb_peak_mib);
    return adv_printf(c, "%s%smean %.1f%%, p95 %.1f%% of %.0f samples%s over %.0f h of data%s%s",
                      f->evidence ? f->evidence : "", f->evidence ? "; " : "",
                      isnan(f->mean) ? 0 : f->mean * 100, isnan(f->p95) ? 0 : f->p95 * 100,
                      f->samples, fb, f->coverage_hours,
                      f->low_confidence ? "; low confidence: little utilization data" : "",
                      f->time_sliced ? "; time-sliced GPU: every pod on it sees the device's "
                                       "activity"
                                     : "");
}

static void finish(adv_ctx *c, gp_adv_finding *f)
{
    char *ev;

    if (f->samples > 0 && !isnan(f->mean))
        f->mean /= f->samples;
    else
        f->mean = NAN;
    f->monthly = f->kind == GP_ADV_RUNAWAY ? 0 : f->per_hour * GP_ADV_HOURS_PER_MONTH;
    f->low_confidence = f->coverage_hours < c->pol->advisor.min_coverage_hours;
    f->recommendation = recommend(c, f);
    if (f->kind == GP_ADV_NODE)
        return;
    ev = evidence(c, f);
    free(f->evidence);
    f->evidence = ev;
}

void adv_findings(adv_ctx *c)
{
    idle_pods(c);
    gpus_pods(c);
    mig_pods(c);
    model_pods(c);
    for (size_t i = 0; i < c->d->nnodes; i++)
        node_one(c, &c->d->nodes[i]);
    runaway_pods(c);
    for (size_t i = 0; !c->oom && i < c->out->nfindings; i++)
        finish(c, &c->out->findings[i]);
}
