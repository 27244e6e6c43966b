/* SPDX-License-Identifier: Apache-2.0 */
/* The advisor's decisions (advise.h): per pod what its GPUs did and cost, then the findings
 * (advfind.c), the totals and the notes. Pure: no I/O, no clock. */
#include "gpupack/advise.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advint.h"
#include "gpupack/mutate.h"
#include "gpupack/nodeview.h"
#include "gpupack/score.h"

static const char *const kind_names[GP_ADV_KINDS] = {"idle", "mig", "gpus", "model", "node",
                                                     "runaway"};

const char *gp_adv_kind_name(gp_adv_kind k)
{
    return k < GP_ADV_KINDS ? kind_names[k] : "unknown";
}

/* ---------------------------------------------------------------------------------------------
 * Freeing. */

static void free_strv(char **v, size_t n)
{
    for (size_t i = 0; v != NULL && i < n; i++)
        free(v[i]);
    free(v);
}

static void free_migs(gp_adv_mig_req *m, size_t n)
{
    for (size_t i = 0; m != NULL && i < n; i++)
        free(m[i].profile);
    free(m);
}

static void free_pod(gp_adv_pod *p)
{
    free(p->namespace);
    free(p->name);
    free(p->node);
    for (size_t i = 0; p->labels != NULL && i < p->nlabels; i++) {
        free(p->labels[i].key);
        free(p->labels[i].value);
    }
    free(p->labels);
    free(p->owner_kind);
    free(p->owner_name);
    free(p->owner_owner_kind);
    free(p->owner_owner_name);
    free_migs(p->mig, p->nmig);
    for (size_t i = 0; p->devs != NULL && i < p->ndevs; i++) {
        free(p->devs[i].node);
        free(p->devs[i].uuid);
        free(p->devs[i].gpu);
        free(p->devs[i].model);
        free(p->devs[i].mig_profile);
    }
    free(p->devs);
    free(p->hourly);
}

void gp_adv_data_free(gp_adv_data *d)
{
    for (size_t i = 0; d->pods != NULL && i < d->npods; i++)
        free_pod(&d->pods[i]);
    free(d->pods);
    for (size_t i = 0; d->nodes != NULL && i < d->nnodes; i++) {
        free(d->nodes[i].name);
        free(d->nodes[i].instance_type);
        free(d->nodes[i].gpu_product);
        free_migs(d->nodes[i].mig, d->nodes[i].nmig);
        free(d->nodes[i].hourly_alloc);
    }
    free(d->nodes);
    free_strv(d->notes, d->nnotes);
    free(d->activity_metric);
    memset(d, 0, sizeof(*d));
}

static void free_finding(gp_adv_finding *f)
{
    free(f->namespace);
    free(f->workload);
    free(f->workload_kind);
    free(f->workload_name);
    free(f->class_name);
    free(f->model_key);
    free(f->gpu_model);
    free(f->mig_profile);
    free(f->gpu_memory);
    free(f->to_model);
    free(f->recommendation);
    free(f->evidence);
}

static void free_shares(gp_adv_share *s, size_t n)
{
    for (size_t i = 0; s != NULL && i < n; i++)
        free(s[i].key);
    free(s);
}

void gp_adv_report_free(gp_adv_report *r)
{
    gp_adv_totals *t = &r->totals;

    for (size_t i = 0; r->findings != NULL && i < r->nfindings; i++)
        free_finding(&r->findings[i]);
    free(r->findings);
    free_shares(t->by_namespace, t->nby_namespace);
    free_shares(t->by_class, t->nby_class);
    free_shares(t->by_model, t->nby_model);
    free_shares(t->by_cell, t->nby_cell);
    free_shares(t->by_gpu_model, t->nby_gpu_model);
    free(t->idle_hourly);
    free(t->alloc_hourly);
    free_strv(r->notes, r->nnotes);
    free(r->activity_metric);
    memset(r, 0, sizeof(*r));
}

/* ---------------------------------------------------------------------------------------------
 * Allocation helpers: a failure sets ctx->oom and returns NULL; gp_advise checks it once. */

char *adv_strdup(adv_ctx *c, const char *s)
{
    char *r = strdup(s != NULL ? s : "");

    if (r == NULL)
        c->oom = true;
    return r;
}

char *adv_printf(adv_ctx *c, const char *fmt, ...)
{
    va_list ap;
    char *r = NULL;

    va_start(ap, fmt);
    if (vasprintf(&r, fmt, ap) < 0) {
        r = NULL;
        c->oom = true;
    }
    va_end(ap);
    return r;
}

void *adv_grow(adv_ctx *c, void *arr, size_t *cap, size_t n, size_t size)
{
    void *p;
    size_t ncap;

    if (n < *cap)
        return arr;
    ncap = *cap ? *cap * 2 : 16;
    p = realloc(arr, ncap * size);
    if (p == NULL) {
        c->oom = true;
        return NULL;
    }
    memset((char *)p + *cap * size, 0, (ncap - *cap) * size);
    *cap = ncap;
    return p;
}

void adv_note(adv_ctx *c, char *s)
{
    gp_adv_report *r = c->out;
    char **v;

    if (s == NULL)
        return;
    v = adv_grow(c, r->notes, &c->notes_cap, r->nnotes, sizeof(char *));
    if (v == NULL) {
        free(s);
        return;
    }
    r->notes = v;
    r->notes[r->nnotes++] = s;
}

/* ---------------------------------------------------------------------------------------------
 * Prices. */

/* The node as score.c sees it, for its price rule. Strings are borrowed. */
static void as_gp_node(const gp_adv_node *n, const gp_policy *pol, gp_node *g)
{
    memset(g, 0, sizeof(*g));
    g->instance_type = n->instance_type;
    g->gpu_product = n->gpu_product;
    g->spot = n->spot;
    g->gpu_alloc = n->gpus > 0 ? (int32_t)(n->gpus + 0.5) : 0;
    for (size_t i = 0; i < n->nmig && g->nmig < GP_NODE_MAX_MIG; i++) {
        gp_mig_count *m = &g->mig[g->nmig++];

        snprintf(m->profile, sizeof(m->profile), "%s", n->mig[i].profile);
        m->alloc = n->mig[i].count > 0 ? (int32_t)(n->mig[i].count + 0.5) : 0;
    }
    (void)pol;
}

double adv_node_hourly(const gp_policy *pol, const gp_adv_node *n)
{
    gp_node g;

    as_gp_node(n, pol, &g);
    return gp_score_node_price(&g, pol);
}

double gp_adv_gpu_price(const gp_policy *pol, const gp_adv_node *n)
{
    gp_node g;
    int64_t gpus;

    if (n == NULL)
        return (double)pol->scoring.default_gpu_price_micro / 1e6;
    as_gp_node(n, pol, &g);
    gpus = gp_score_node_gpus(&g, pol);
    return gp_score_node_price(&g, pol) / (double)(gpus < 1 ? 1 : gpus);
}

/* ---------------------------------------------------------------------------------------------
 * Per pod. */

static const char *pod_label(const gp_adv_pod *p, const char *key)
{
    for (size_t i = 0; p->labels != NULL && i < p->nlabels; i++)
        if (p->labels[i].key != NULL && strcmp(p->labels[i].key, key) == 0)
            return p->labels[i].value;
    return NULL;
}

static const gp_adv_node *find_node(const gp_adv_data *d, const char *name)
{
    for (size_t i = 0; name != NULL && i < d->nnodes; i++)
        if (d->nodes[i].name != NULL && strcmp(d->nodes[i].name, name) == 0)
            return &d->nodes[i];
    return NULL;
}

/* The class: label gpupack.io/class when the policy knows it, else gp_classify(). */
static const char *pod_class(const gp_adv_pod *p, const gp_policy *pol, gp_arena *a)
{
    const char *cls = pod_label(p, "gpupack.io/class"), *why = NULL;
    gp_pod gp;

    if (cls != NULL && gp_policy_class(pol, cls) != NULL)
        return cls;
    memset(&gp, 0, sizeof(gp));
    gp.namespace = p->namespace;
    gp.name = p->name;
    gp.labels = p->labels;
    gp.nlabels = p->nlabels;
    gp.owner_kind = p->owner_kind;
    cls = NULL;
    gp_classify(&gp, pol, &cls, &why, a);
    return cls;
}

static const char *model_key(const gp_adv_pod *p, const gp_policy *pol)
{
    for (size_t i = 0; i < pol->advisor.nmodel_labels; i++) {
        const char *v = pod_label(p, pol->advisor.model_labels[i]);

        if (v != NULL && *v != '\0')
            return v;
    }
    return "";
}

static bool dev_idle(const gp_adv_gpu *g, const gp_policy *pol)
{
    return g->has_activity && g->mean < pol->advisor.idle_mean_pct / 100.0 &&
           g->p95 < pol->advisor.idle_p95_pct / 100.0;
}

/* Activity stats over the pod's devs: mean weighted by samples, max p95 and fb peak. */
static void pod_stats(const gp_adv_pod *p, const gp_policy *pol, adv_pod *a)
{
    double num = 0, den = 0;

    a->mean = a->p95 = a->fb_peak = NAN;
    for (size_t i = 0; i < p->ndevs; i++) {
        const gp_adv_gpu *g = &p->devs[i];
        double w = g->samples > 0 ? g->samples : 1;

        a->nidle += dev_idle(g, pol);
        a->time_sliced |= g->time_sliced;
        if (!g->has_activity)
            continue;
        a->nactive++;
        num += g->mean * w;
        den += w;
        a->samples += g->samples;
        a->p95 = isnan(a->p95) || g->p95 > a->p95 ? g->p95 : a->p95;
        if (!isnan(g->fb_peak_mib))
            a->fb_peak = isnan(a->fb_peak) || g->fb_peak_mib > a->fb_peak ? g->fb_peak_mib
                                                                            : a->fb_peak;
    }
    if (den > 0)
        a->mean = num / den;
    a->all_idle = p->ndevs > 0 && a->nidle == (int)p->ndevs;
}

static double coverage_of(const gp_adv_pod *p, size_t nhours)
{
    double n = 0;

    for (size_t i = 0; p->hourly != NULL && i < nhours; i++)
        n += !isnan(p->hourly[i]);
    return n;
}

static const char *gpu_model_of(const gp_adv_pod *p, const gp_adv_node *n)
{
    if (n != NULL && n->gpu_product != NULL)
        return n->gpu_product;
    for (size_t i = 0; i < p->ndevs; i++)
        if (p->devs[i].model != NULL)
            return p->devs[i].model;
    return "";
}

static void analyse_pod(adv_ctx *c, size_t i)
{
    const gp_adv_pod *p = &c->d->pods[i];
    adv_pod *a = &c->pods[i];
    gp_workload_in in = {p->namespace, p->name, p->labels, p->nlabels, p->owner_kind,
                         p->owner_name, p->owner_owner_kind, p->owner_owner_name};

    a->pod = p;
    gp_workload_of(&in, &a->wl);
    gp_workload_ref(&a->wl, a->ref, sizeof(a->ref));
    a->node = find_node(c->d, p->node);
    a->price = gp_adv_gpu_price(c->pol, a->node);
    a->cls = pod_class(p, c->pol, &c->arena);
    a->model_key = model_key(p, c->pol);
    a->gpu_model = gpu_model_of(p, a->node);
    a->coverage = coverage_of(p, c->d->nhours);
    pod_stats(p, c->pol, a);
}

/* ---------------------------------------------------------------------------------------------
 * Totals. */

static gp_adv_share *share_of(adv_ctx *c, gp_adv_share **v, size_t *n, size_t *cap,
                              const char *key)
{
    gp_adv_share *g;

    key = key != NULL ? key : "";
    for (size_t i = 0; i < *n; i++)
        if (strcmp((*v)[i].key, key) == 0)
            return &(*v)[i];
    g = adv_grow(c, *v, cap, *n, sizeof(gp_adv_share));
    if (g == NULL)
        return NULL;
    *v = g;
    g[*n].key = adv_strdup(c, key);
    return &g[(*n)++];
}

static void add_share(adv_ctx *c, int which, const char *key, const adv_pod *a)
{
    gp_adv_totals *t = &c->out->totals;
    gp_adv_share **v[] = {&t->by_namespace, &t->by_class, &t->by_model, &t->by_gpu_model,
                          &t->by_cell};
    size_t *n[] = {&t->nby_namespace, &t->nby_class, &t->nby_model, &t->nby_gpu_model,
                   &t->nby_cell};
    gp_adv_share *s = share_of(c, v[which], n[which], &c->share_cap[which], key);

    if (s == NULL)
        return;
    s->gpu_hours += a->pod->gpu_hours;
    s->dollars += a->pod->gpu_hours * a->price;
    s->idle_gpu_hours += a->idle_hours;
    s->waste_dollars += a->waste;
    s->dollars_per_hour_at_end += a->pod->gpus_at_end * a->price;
}

/* The pod's (namespace, class, model) cell. */
static void add_cell(adv_ctx *c, const adv_pod *a)
{
    char key[768];

    snprintf(key, sizeof(key), "%s%c%s%c%s", a->pod->namespace, GP_ADV_CELL_SEP,
             a->cls != NULL ? a->cls : "", GP_ADV_CELL_SEP,
             a->model_key != NULL ? a->model_key : "");
    add_share(c, 4, key, a);
}

/* Larger first, by whole cents: amounts that print alike are tied whatever their last bits
 * (Prometheus's sums depend on how its blocks hold the samples), so the caller's next key
 * decides and two reports over the same data list them alike. */
static int cents_desc(double a, double b)
{
    double ca = round(a * 100), cb = round(b * 100);

    return ca == cb ? 0 : ca > cb ? -1 : 1;
}

static int share_cmp(const void *x, const void *y)
{
    const gp_adv_share *a = x, *b = y;
    int r = cents_desc(a->dollars, b->dollars);

    return r != 0 ? r : strcmp(a->key, b->key);
}

/* (qsort's array must not be NULL, even when empty) */
static void sort_shares(gp_adv_share *v, size_t n)
{
    if (n > 1)
        qsort(v, n, sizeof(*v), share_cmp);
}

static double pod_weight(const gp_adv_pod *p, const gp_policy *pol)
{
    double w = p->gpus;

    for (size_t i = 0; i < p->nmig; i++)
        w += p->mig[i].count * gp_score_mig_slices(pol, p->mig[i].profile) / 7.0;
    return w;
}

static void pod_totals(adv_ctx *c, const adv_pod *a)
{
    gp_adv_totals *t = &c->out->totals;
    const gp_adv_pod *p = a->pod;
    double thr = c->pol->advisor.idle_mean_pct / 100.0, w = pod_weight(p, c->pol);

    t->gpu_hours += p->gpu_hours;
    t->dollars += p->gpu_hours * a->price;
    if (a->nactive == 0) {
        t->pods_without_dcgm++;
        t->gpu_hours_without_dcgm += p->gpu_hours;
    } else {
        int b = (int)floor(a->mean * GP_ADV_HIST_BUCKETS);

        t->active_gpu_hours += p->gpu_hours * a->mean;
        t->hist[b < 0 ? 0 : b >= GP_ADV_HIST_BUCKETS ? GP_ADV_HIST_BUCKETS - 1 : b] +=
            p->gpu_hours;
    }
    for (size_t h = 0; p->hourly != NULL && h < t->nhours; h++)
        if (!isnan(p->hourly[h]) && p->hourly[h] < thr)
            t->idle_hourly[h] += w;
    add_share(c, 0, p->namespace, a);
    add_share(c, 1, a->cls, a);
    add_share(c, 2, a->model_key, a);
    add_share(c, 3, a->gpu_model, a);
    add_cell(c, a);
}

static void totals(adv_ctx *c)
{
    gp_adv_totals *t = &c->out->totals;
    const gp_adv_data *d = c->d;

    t->window_hours = d->hours;
    t->pods = (int)d->npods;
    t->nhours = d->nhours;
    t->idle_hourly = calloc(d->nhours ? d->nhours : 1, sizeof(double));
    t->alloc_hourly = calloc(d->nhours ? d->nhours : 1, sizeof(double));
    if (t->idle_hourly == NULL || t->alloc_hourly == NULL) {
        c->oom = true;
        return;
    }
    for (size_t i = 0; i < d->npods; i++)
        pod_totals(c, &c->pods[i]);
    for (size_t i = 0; i < d->nnodes; i++) {
        t->node_dollars += d->nodes[i].up_hours * adv_node_hourly(c->pol, &d->nodes[i]);
        for (size_t h = 0; d->nodes[i].hourly_alloc != NULL && h < d->nhours; h++)
            t->alloc_hourly[h] += d->nodes[i].hourly_alloc[h];
    }
    for (size_t i = 0; i < c->out->nfindings; i++) {
        const gp_adv_finding *f = &c->out->findings[i];

        if (f->kind == GP_ADV_RUNAWAY)
            continue;
        t->waste_dollars += f->dollars;
        t->recoverable_monthly += f->monthly;
        if (f->kind == GP_ADV_IDLE || f->kind == GP_ADV_GPUS)
            t->idle_gpu_hours += f->hours;
    }
    t->idle_pct = t->gpu_hours > 0 ? t->idle_gpu_hours / t->gpu_hours * 100 : 0;
    sort_shares(t->by_namespace, t->nby_namespace);
    sort_shares(t->by_class, t->nby_class);
    sort_shares(t->by_model, t->nby_model);
    sort_shares(t->by_gpu_model, t->nby_gpu_model);
    sort_shares(t->by_cell, t->nby_cell);
}

/* ---------------------------------------------------------------------------------------------
 * Notes, sorting, the entry point. */

static void notes(adv_ctx *c)
{
    const gp_adv_totals *t = &c->out->totals;

    for (size_t i = 0; i < c->d->nnotes; i++)
        adv_note(c, adv_strdup(c, c->d->notes[i]));
    /* The fetch's own notes already say how many DCGM series had no pod label. */
    if (t->pods_without_dcgm > 0)
        adv_note(c, adv_printf(c,
                               "GPU pods without DCGM series: %d (%.1f GPU-hours): their pod "
                               "labels are missing in dcgm-exporter's series",
                               t->pods_without_dcgm, t->gpu_hours_without_dcgm));
}

static int finding_cmp(const void *x, const void *y)
{
    const gp_adv_finding *a = x, *b = y;
    int r;

    if ((r = cents_desc(a->dollars, b->dollars)) != 0 ||
        (r = cents_desc(a->monthly, b->monthly)) != 0)
        return r;
    r = strcmp(gp_adv_kind_name(a->kind), gp_adv_kind_name(b->kind));
    if (r == 0)
        r = strcmp(a->namespace, b->namespace);
    return r != 0 ? r : strcmp(a->workload, b->workload);
}

static gp_status check_data(const gp_adv_data *d, gp_err *err)
{
    if (!(d->hours >= 0) || !(d->step > 0) || d->nhours > (size_t)ceil(d->hours + 1e-9) + 1) {
        gp_err_set(err, "advise: window of %g hours, step %g s, %zu hour buckets is inconsistent",
                   d->hours, d->step, d->nhours);
        return GP_EINVAL;
    }
    for (size_t i = 0; i < d->npods; i++)
        if (!(d->pods[i].gpu_hours >= 0) || !(d->pods[i].run_hours >= 0) ||
            d->pods[i].namespace == NULL || d->pods[i].name == NULL) {
            gp_err_set(err, "advise: pod %zu has a negative hour count or no name", i);
            return GP_EINVAL;
        }
    for (size_t i = 0; i < d->nnodes; i++)
        if (!(d->nodes[i].up_hours >= 0) || !(d->nodes[i].empty_hours >= 0) ||
            d->nodes[i].name == NULL) {
            gp_err_set(err, "advise: node %zu has a negative hour count or no name", i);
            return GP_EINVAL;
        }
    return GP_OK;
}

gp_status gp_advise(const gp_adv_data *d, const gp_policy *pol, gp_adv_report *out, gp_err *err)
{
    adv_ctx c = {.d = d, .pol = pol, .out = out};
    gp_status st = check_data(d, err);

    memset(out, 0, sizeof(*out));
    if (st != GP_OK)
        return st;
    gp_arena_init(&c.arena, 0);
    c.pods = calloc(d->npods ? d->npods : 1, sizeof(adv_pod));
    out->start = d->end - d->hours * 3600;
    out->end = d->end;
    out->step = d->step;
    out->activity_metric = adv_strdup(&c, d->activity_metric);
    if (c.pods == NULL)
        c.oom = true;
    for (size_t i = 0; !c.oom && i < d->npods; i++)
        analyse_pod(&c, i);
    if (!c.oom)
        adv_findings(&c);
    if (!c.oom)
        totals(&c);
    if (!c.oom)
        notes(&c);
    if (!c.oom && out->nfindings > 1)
        qsort(out->findings, out->nfindings, sizeof(gp_adv_finding), finding_cmp);
    free(c.pods);
    gp_arena_free(&c.arena);
    if (!c.oom)
        return GP_OK;
    gp_adv_report_free(out);
    gp_err_set(err, "advise: out of memory");
    return GP_ENOMEM;
}
