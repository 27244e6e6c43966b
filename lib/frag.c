/* SPDX-License-Identifier: Apache-2.0 */
/* The per-device GPU model and the simulator's scorers (include/gpupack/frag.h,
 * docs/simulation.md). Pure: no I/O, no clock, no globals. */
#include "gpupack/frag.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- Models ---- */

int gp_frag_models_id(gp_frag_models *m, const char *name, size_t len)
{
    if (len == 0 || len >= GP_FRAG_MODEL_LEN)
        return -1;
    for (int i = 0; i < m->n; i++)
        if (strlen(m->name[i]) == len && memcmp(m->name[i], name, len) == 0)
            return i;
    if (m->n >= GP_FRAG_MAX_MODELS)
        return -1;
    memcpy(m->name[m->n], name, len);
    m->name[m->n][len] = '\0';
    return m->n++;
}

/* ---- Nodes, tasks, fit ---- */

void gp_frag_node_init(gp_frag_node *n, uint32_t id, int64_t cpu_milli, int64_t mem_mib, int ngpu,
                       int model)
{
    memset(n, 0, sizeof(*n));
    n->id = id;
    n->cpu_cap = n->cpu_free = cpu_milli;
    n->mem_cap = n->mem_free = mem_mib;
    n->ngpu = ngpu < 0 ? 0 : ngpu > GP_FRAG_MAX_GPUS ? GP_FRAG_MAX_GPUS : ngpu;
    n->model = model;
    for (int i = 0; i < n->ngpu; i++)
        n->gpu_free[i] = GP_FRAG_MILLI;
}

bool gp_frag_task_valid(const gp_frag_task *t, gp_err *err)
{
    if (t->cpu_milli < 0 || t->mem_mib < 0) {
        gp_err_set(err, "negative CPU or memory request");
        return false;
    }
    if (t->num_gpu < 0 || t->num_gpu > GP_FRAG_MAX_GPUS) {
        gp_err_set(err, "num_gpu %d is outside 0..%d", t->num_gpu, GP_FRAG_MAX_GPUS);
        return false;
    }
    if (t->gpu_milli < 0 || t->gpu_milli > GP_FRAG_MILLI) {
        gp_err_set(err, "gpu_milli %d is outside 0..%d", t->gpu_milli, GP_FRAG_MILLI);
        return false;
    }
    if ((t->num_gpu == 0) != (t->gpu_milli == 0)) {
        gp_err_set(err, "num_gpu %d with gpu_milli %d: both or neither must be 0", t->num_gpu,
                   t->gpu_milli);
        return false;
    }
    if (t->num_gpu > 1 && t->gpu_milli != GP_FRAG_MILLI) {
        gp_err_set(err, "a %d-GPU task must take whole GPUs (gpu_milli 1000, not %d)",
                   t->num_gpu, t->gpu_milli);
        return false;
    }
    return true;
}

bool gp_frag_task_is_share(const gp_frag_task *t)
{
    return t->num_gpu == 1 && t->gpu_milli < GP_FRAG_MILLI;
}

int64_t gp_frag_task_gpu_total(const gp_frag_task *t)
{
    return (int64_t)t->num_gpu * t->gpu_milli;
}

bool gp_frag_model_ok(const gp_frag_node *n, const gp_frag_task *t)
{
    if (t->num_gpu == 0 || t->models == 0)
        return true;
    return n->model >= 0 && n->model < 32 && (t->models >> n->model & 1u);
}

int64_t gp_frag_gpu_free_total(const gp_frag_node *n)
{
    int64_t s = 0;

    for (int i = 0; i < n->ngpu; i++)
        s += n->gpu_free[i];
    return s;
}

int gp_frag_gpu_idle(const gp_frag_node *n)
{
    int k = 0;

    for (int i = 0; i < n->ngpu; i++)
        k += n->gpu_free[i] == GP_FRAG_MILLI;
    return k;
}

/* GPUs with at least `milli` free. */
static int gpus_with(const gp_frag_node *n, int milli)
{
    int k = 0;

    for (int i = 0; i < n->ngpu; i++)
        k += n->gpu_free[i] >= milli;
    return k;
}

bool gp_frag_fits(const gp_frag_node *n, const gp_frag_task *t)
{
    if (n->cpu_free < t->cpu_milli || n->mem_free < t->mem_mib)
        return false;
    if (t->num_gpu == 0)
        return true;
    if (!gp_frag_model_ok(n, t))
        return false;
    return gpus_with(n, t->gpu_milli) >= t->num_gpu;
}

bool gp_frag_pick_bestfit(const gp_frag_node *n, const gp_frag_task *t, gp_frag_pick *pick)
{
    pick->n = 0;
    if (t->num_gpu == 0)
        return true;
    if (gp_frag_task_is_share(t)) {
        int best = -1;

        for (int i = 0; i < n->ngpu; i++)
            if (n->gpu_free[i] >= t->gpu_milli && (best < 0 || n->gpu_free[i] < n->gpu_free[best]))
                best = i;
        if (best < 0)
            return false;
        pick->gpu[pick->n++] = (int8_t)best;
        return true;
    }
    for (int i = 0; i < n->ngpu && pick->n < t->num_gpu; i++)
        if (n->gpu_free[i] == GP_FRAG_MILLI)
            pick->gpu[pick->n++] = (int8_t)i;
    if (pick->n < t->num_gpu) {
        pick->n = 0;
        return false;
    }
    return true;
}

static bool pick_valid(const gp_frag_node *n, const gp_frag_task *t, const gp_frag_pick *pick)
{
    if (pick->n != t->num_gpu)
        return false;
    for (int i = 0; i < pick->n; i++) {
        if (pick->gpu[i] < 0 || pick->gpu[i] >= n->ngpu)
            return false;
        for (int j = 0; j < i; j++)
            if (pick->gpu[j] == pick->gpu[i])
                return false;
    }
    return true;
}

bool gp_frag_apply(gp_frag_node *n, const gp_frag_task *t, const gp_frag_pick *pick)
{
    if (!pick_valid(n, t, pick) || !gp_frag_model_ok(n, t) || n->cpu_free < t->cpu_milli ||
        n->mem_free < t->mem_mib)
        return false;
    for (int i = 0; i < pick->n; i++)
        if (n->gpu_free[pick->gpu[i]] < t->gpu_milli)
            return false;
    n->cpu_free -= t->cpu_milli;
    n->mem_free -= t->mem_mib;
    for (int i = 0; i < pick->n; i++)
        n->gpu_free[pick->gpu[i]] -= t->gpu_milli;
    return true;
}

bool gp_frag_task_same(const gp_frag_task *a, const gp_frag_task *b)
{
    return a->cpu_milli == b->cpu_milli && a->mem_mib == b->mem_mib && a->num_gpu == b->num_gpu &&
           a->gpu_milli == b->gpu_milli && a->models == b->models;
}

bool gp_frag_release(gp_frag_node *n, const gp_frag_task *t, const gp_frag_pick *pick)
{
    if (!pick_valid(n, t, pick) || n->cpu_free + t->cpu_milli > n->cpu_cap ||
        n->mem_free + t->mem_mib > n->mem_cap)
        return false;
    for (int i = 0; i < pick->n; i++)
        if (n->gpu_free[pick->gpu[i]] + t->gpu_milli > GP_FRAG_MILLI)
            return false;
    n->cpu_free += t->cpu_milli;
    n->mem_free += t->mem_mib;
    for (int i = 0; i < pick->n; i++)
        n->gpu_free[pick->gpu[i]] += t->gpu_milli;
    return true;
}

/* ---- The workload mix ---- */

int gp_frag_shape_cmp(const gp_frag_task *a, const gp_frag_task *b)
{
    if (a->cpu_milli != b->cpu_milli)
        return a->cpu_milli < b->cpu_milli ? -1 : 1;
    if (a->gpu_milli != b->gpu_milli)
        return a->gpu_milli < b->gpu_milli ? -1 : 1;
    if (a->num_gpu != b->num_gpu)
        return a->num_gpu < b->num_gpu ? -1 : 1;
    if (a->models != b->models)
        return a->models < b->models ? -1 : 1;
    return 0;
}

/* Most common first; equal counts in ascending shape order (the paper's stable order). Counts
 * are held in freq until gp_frag_mix_select() normalises them. */
static int shape_cmp_count(const void *pa, const void *pb)
{
    const gp_frag_shape *a = pa, *b = pb;

    if (a->freq != b->freq)
        return a->freq > b->freq ? -1 : 1;
    return gp_frag_shape_cmp(&a->shape, &b->shape);
}

size_t gp_frag_mix_select(gp_frag_shape *shapes, size_t n, int popularity_pct, size_t max)
{
    double total = 0, cum = 0;
    size_t keep = 0, m = 0;

    for (size_t i = 0; i < n; i++)
        if (shapes[i].freq > 0)
            shapes[m++] = shapes[i];
    qsort(shapes, m, sizeof(*shapes), shape_cmp_count);
    for (size_t i = 0; i < m; i++)
        total += shapes[i].freq;
    double want = (double)popularity_pct * total / 100.0;
    while (keep < m && keep < max && cum < want)
        cum += shapes[keep++].freq;
    for (size_t i = 0; i < keep; i++)
        shapes[i].freq /= cum;
    return keep;
}

void gp_frag_tally_init(gp_frag_tally *t, gp_frag_shape *storage, size_t cap)
{
    memset(t, 0, sizeof(*t));
    t->slot = storage;
    t->cap = cap;
}

void gp_frag_tally_add(gp_frag_tally *t, const gp_frag_task *shape, int sign)
{
    gp_frag_task key = *shape;
    gp_frag_shape *free_slot = NULL;

    key.mem_mib = 0;
    t->version++;
    for (size_t i = 0; i < t->n; i++) {
        gp_frag_shape *s = &t->slot[i];

        if (s->freq > 0 && gp_frag_shape_cmp(&s->shape, &key) == 0) {
            s->freq += sign > 0 ? 1 : -1;
            return;
        }
        if (s->freq <= 0 && free_slot == NULL)
            free_slot = s;
    }
    if (sign < 0) {
        t->untracked -= t->untracked > 0; /* one counted while the storage was full */
        return;
    }
    if (free_slot == NULL && t->n < t->cap)
        free_slot = &t->slot[t->n++];
    if (free_slot == NULL) {
        t->untracked++;
        return;
    }
    free_slot->shape = key;
    free_slot->freq = 1;
}

size_t gp_frag_tally_mix(const gp_frag_tally *t, gp_frag_shape *scratch, int popularity_pct,
                         size_t max)
{
    if (t->n == 0)
        return 0;
    memcpy(scratch, t->slot, t->n * sizeof(*scratch));
    return gp_frag_mix_select(scratch, t->n, popularity_pct, max);
}

bool gp_frag_mix_counts(const gp_frag_task *t, const gp_frag_bound *b, gp_frag_task *shape)
{
    if (t->num_gpu > 0 ? t->gpu_milli != GP_FRAG_MILLI : !b->next_to_gpus || b->daemonset || b->mig)
        return false;
    *shape = *t;
    shape->mem_mib = 0;
    shape->models = 0;
    return true;
}

gp_frag_shape gp_frag_default_shape(int64_t cpu_milli)
{
    gp_frag_shape s = { { .cpu_milli = cpu_milli, .num_gpu = 1, .gpu_milli = GP_FRAG_MILLI }, 1.0 };

    return s;
}

/* ---- Fragmentation ---- */

/* The free share of node n that shape s cannot use (see gp_frag_fgd()). With desc (gpupack's
 * measure, gp_frag_gpupack(): the node's free shares, largest first), a sharing shape can use
 * only as many of the fitting GPUs as the node's free CPU feeds tasks of it, the ones with the
 * most free share; the rest of their share is fragmentation too. */
static int64_t frag_for_shape(const gp_frag_node *n, const gp_frag_task *s, int64_t free_total,
                              const int32_t *desc)
{
    if (s->num_gpu == 0 || !gp_frag_model_ok(n, s) || n->cpu_free < s->cpu_milli)
        return free_total;
    int fit = 0;
    int64_t small = 0;
    for (int i = 0; i < n->ngpu; i++) {
        if (n->gpu_free[i] >= s->gpu_milli)
            fit++;
        else
            small += n->gpu_free[i];
    }
    if (fit < s->num_gpu)
        return free_total;
    if (!desc || !gp_frag_task_is_share(s) || s->cpu_milli <= 0 ||
        n->cpu_free / s->cpu_milli >= fit)
        return small;
    int64_t usable = 0; /* the fitting GPUs are the first `fit` of desc */
    for (int64_t i = 0; i < n->cpu_free / s->cpu_milli; i++)
        usable += desc[i];
    return free_total - usable;
}

static double frag_of(const gp_frag_node *n, const gp_frag_mix *mix, bool cpu_copies)
{
    int64_t free_total = gp_frag_gpu_free_total(n);
    int32_t desc[GP_FRAG_MAX_GPUS];
    double f = 0;

    if (free_total == 0)
        return 0;
    for (int i = 0; cpu_copies && i < n->ngpu; i++) { /* insertion, largest first */
        int j = i;
        for (; j > 0 && desc[j - 1] < n->gpu_free[i]; j--)
            desc[j] = desc[j - 1];
        desc[j] = n->gpu_free[i];
    }
    for (size_t i = 0; i < mix->n; i++)
        f += mix->shapes[i].freq * (double)frag_for_shape(n, &mix->shapes[i].shape, free_total,
                                                          cpu_copies ? desc : NULL);
    return f;
}

double gp_frag_fgd(const gp_frag_node *n, const gp_frag_mix *mix)
{
    return frag_of(n, mix, false);
}

double gp_frag_gpupack(const gp_frag_node *n, const gp_frag_mix *mix)
{
    return frag_of(n, mix, true);
}

void gp_frag_model_pressure(const gp_frag_mix *mix, const int64_t model_gpus[GP_FRAG_MAX_MODELS],
                            double out[GP_FRAG_MAX_MODELS])
{
    double demand = 0, cap = 0;

    for (int m = 0; m < GP_FRAG_MAX_MODELS; m++) {
        out[m] = 0;
        cap += (double)model_gpus[m];
    }
    for (size_t i = 0; mix && i < mix->n; i++) {
        const gp_frag_task *s = &mix->shapes[i].shape;
        double d = mix->shapes[i].freq * (double)gp_frag_task_gpu_total(s);
        double c = 0;

        demand += d;
        if (s->num_gpu == 0 || s->models == 0)
            continue;
        for (int m = 0; m < GP_FRAG_MAX_MODELS; m++)
            if (s->models >> m & 1u)
                c += (double)model_gpus[m];
        for (int m = 0; c > 0 && m < GP_FRAG_MAX_MODELS; m++)
            if (s->models >> m & 1u)
                out[m] += d / c;
    }
    for (int m = 0; m < GP_FRAG_MAX_MODELS; m++)
        out[m] = demand > 0 && cap > 0 ? out[m] * cap / demand : 0;
}

/* ---- Scoring ---- */

/* The node as it would be after taking the task on pick (CPU and GPUs; memory is not part of
 * the fragmentation measure). */
static gp_frag_node after(const gp_frag_node *n, const gp_frag_task *t, const gp_frag_pick *pick)
{
    gp_frag_node m = *n;

    m.cpu_free -= t->cpu_milli;
    m.mem_free -= t->mem_mib;
    for (int i = 0; i < pick->n; i++)
        m.gpu_free[pick->gpu[i]] -= t->gpu_milli;
    return m;
}

/* True when an earlier GPU has the same free share as GPU i: placing there changes the node the
 * same way, so only the first is tried (and the lowest index wins ties, as in the paper). */
static bool same_as_earlier(const gp_frag_node *n, int i)
{
    for (int j = 0; j < i; j++)
        if (n->gpu_free[j] == n->gpu_free[i])
            return true;
    return false;
}

double gp_frag_share_best(const gp_frag_ctx *ctx, gp_frag_measure_fn measure,
                          double (*scale)(double), const gp_frag_node *n, const gp_frag_task *t,
                          gp_frag_pick *pick)
{
    double before = measure(n, ctx->mix), best = GP_FRAG_INFEASIBLE;

    pick->n = 0;
    for (int i = 0; i < n->ngpu; i++) {
        if (n->gpu_free[i] < t->gpu_milli || same_as_earlier(n, i))
            continue;
        gp_frag_pick p = { .n = 1, .gpu = { (int8_t)i } };
        gp_frag_node m = after(n, t, &p);
        double d = before - measure(&m, ctx->mix);
        if (ctx->share_cost)
            d -= ctx->share_cost(ctx->share_arg, t->gpu_milli, GP_FRAG_MILLI - n->gpu_free[i]);
        double v = scale ? scale(d) : d;
        if (pick->n == 0 || v > best) {
            best = v;
            *pick = p;
        }
    }
    return best;
}

/* gpupack's tie-break for CPU-only tasks inside a bucket, in [0, 0.5]: the node with less free
 * GPU share wins, so CPU-only work leaves the CPU of nodes with free GPUs to GPU tasks. */
static double cpu_only_tiebreak(const gp_frag_node *n)
{
    double f = (double)gp_frag_gpu_free_total(n) / GP_FRAG_MAX_SPEC_GPU;

    return 0.5 * (1.0 - (f < 1 ? f : 1)); /* nodes of more than 8 GPUs: at least 0 */
}

double gp_frag_fit_tiebreak(const gp_frag_node *n, const gp_frag_task *t)
{
    if (t->num_gpu == 0 || n->ngpu <= 0)
        return 0;
    double taken = (double)n->ngpu * GP_FRAG_MILLI - (double)gp_frag_gpu_free_total(n) +
                   (double)gp_frag_task_gpu_total(t);
    double most = (double)GP_FRAG_MAX_GPUS * GP_FRAG_MILLI;
    return 0.5 * (taken < most ? taken : most) / most;
}

/* gpupack: the decrease of its fragmentation measure (gp_frag_gpupack(): FGD's, with sharing
 * shapes limited to the tasks the node's free CPU feeds) for the workload mix, on a linear scale
 * cut into GP_FRAG_BUCKET-wide buckets (where FGD truncates 100 x sigmoid(d / 1000)): decreases
 * within one bucket tie, and ties go to the earlier node of the scheduler's (stable) node order,
 * which packs; 40 is the width of one point of FGD's scale near d = 0. A sharing task takes the
 * GPU with the largest exact decrease; CPU-only tasks break ties with cpu_only_tiebreak(). A GPU
 * task also pays, before bucketing, its GPU request times the pressure of the node's model
 * (ctx->model_pressure): work that may run elsewhere leaves a model that constrained work
 * needs. */
double gp_frag_score(const gp_frag_ctx *ctx, const gp_frag_node *n, const gp_frag_task *t,
                     gp_frag_pick *pick)
{
    if (!ctx->mix || !gp_frag_fits(n, t))
        return GP_FRAG_INFEASIBLE;
    double d;
    if (gp_frag_task_is_share(t)) {
        d = gp_frag_share_best(ctx, gp_frag_gpupack, NULL, n, t, pick);
    } else {
        if (!gp_frag_pick_bestfit(n, t, pick))
            return GP_FRAG_INFEASIBLE;
        gp_frag_node m = after(n, t, pick);
        d = gp_frag_gpupack(n, ctx->mix) - gp_frag_gpupack(&m, ctx->mix);
    }
    if (t->num_gpu > 0 && ctx->model_pressure && n->model >= 0 && n->model < GP_FRAG_MAX_MODELS)
        d -= ctx->model_pressure[n->model] * (double)gp_frag_task_gpu_total(t);
    /* The fragmentation is a sum of frequencies x milli-GPU: a decrease that is a whole number
     * of buckets can come out a hair below it, which floor() must not push into the next. */
    double v = floor(d / GP_FRAG_BUCKET + 1e-9);
    return t->num_gpu == 0 ? v + cpu_only_tiebreak(n) : v;
}

/* ---- Node views ---- */

/* A capacity the view does not report does not constrain. */
#define UNREPORTED (INT64_MAX / 4)

bool gp_frag_from_view(const gp_node *v, gp_frag_node *out)
{
    int64_t idle = v->gpu_alloc > v->gpu_used ? v->gpu_alloc - v->gpu_used : 0;

    if (v->gpu_alloc <= 0 || v->gpu_alloc > GP_FRAG_MAX_GPUS)
        return false;
    gp_frag_node_init(out, 0, v->cpu_alloc_m > 0 ? v->cpu_alloc_m : UNREPORTED,
                      v->mem_alloc > 0 ? v->mem_alloc >> 20 : UNREPORTED, v->gpu_alloc, -1);
    if (v->cpu_alloc_m > 0)
        out->cpu_free = v->cpu_alloc_m - v->cpu_used_m;
    if (v->mem_alloc > 0)
        out->mem_free = (v->mem_alloc - v->mem_used) >> 20;
    for (int i = (int)idle; i < out->ngpu; i++)
        out->gpu_free[i] = 0;
    return true;
}

void gp_frag_to_view(const gp_frag_node *n, gp_node *v)
{
    int64_t taken = (int64_t)n->ngpu * GP_FRAG_MILLI - gp_frag_gpu_free_total(n);

    v->gpu_alloc = n->ngpu;
    v->gpu_used = n->ngpu - gp_frag_gpu_idle(n);
    v->gpu_pods = taken > 0;
    v->cpu_alloc_m = n->cpu_cap;
    v->cpu_used_m = n->cpu_cap - n->cpu_free;
    v->mem_alloc = n->mem_cap << 20;
    v->mem_used = (n->mem_cap - n->mem_free) << 20;
}

bool gp_frag_task_from_usage(const gp_usage *u, gp_frag_task *out)
{
    if (u->gpu < 0 || u->gpu > GP_FRAG_MAX_GPUS)
        return false;
    memset(out, 0, sizeof(*out));
    out->cpu_milli = u->cpu_m;
    out->mem_mib = (u->mem + (1 << 20) - 1) >> 20;
    out->num_gpu = u->gpu;
    out->gpu_milli = u->gpu > 0 ? GP_FRAG_MILLI : 0;
    return true;
}

void gp_frag_task_to_usage(const gp_frag_task *t, gp_usage *out)
{
    memset(out, 0, sizeof(*out));
    out->gpu = t->num_gpu;
    out->cpu_m = t->cpu_milli;
    out->mem = t->mem_mib << 20;
}
