/* SPDX-License-Identifier: Apache-2.0 */
/* The per-device GPU model and the simulator's scorers (include/gpupack/gpudev.h,
 * docs/simulation.md). Pure: no I/O, no clock, no globals. */
#include "gpupack/gpudev.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- Models ---- */

int gp_dev_models_id(gp_dev_models *m, const char *name, size_t len)
{
    if (len == 0 || len >= GP_DEV_MODEL_LEN)
        return -1;
    for (int i = 0; i < m->n; i++)
        if (strlen(m->name[i]) == len && memcmp(m->name[i], name, len) == 0)
            return i;
    if (m->n >= GP_DEV_MAX_MODELS)
        return -1;
    memcpy(m->name[m->n], name, len);
    m->name[m->n][len] = '\0';
    return m->n++;
}

/* ---- Nodes, tasks, fit ---- */

void gp_dev_node_init(gp_dev_node *n, uint32_t id, int64_t cpu_milli, int64_t mem_mib, int ngpu,
                      int model)
{
    memset(n, 0, sizeof(*n));
    n->id = id;
    n->cpu_cap = n->cpu_free = cpu_milli;
    n->mem_cap = n->mem_free = mem_mib;
    n->ngpu = ngpu < 0 ? 0 : ngpu > GP_DEV_MAX_GPUS ? GP_DEV_MAX_GPUS : ngpu;
    n->model = model;
    for (int i = 0; i < n->ngpu; i++)
        n->gpu_free[i] = GP_DEV_MILLI;
}

bool gp_dev_task_valid(const gp_dev_task *t, gp_err *err)
{
    if (t->cpu_milli < 0 || t->mem_mib < 0) {
        gp_err_set(err, "negative CPU or memory request");
        return false;
    }
    if (t->num_gpu < 0 || t->num_gpu > GP_DEV_MAX_GPUS) {
        gp_err_set(err, "num_gpu %d is outside 0..%d", t->num_gpu, GP_DEV_MAX_GPUS);
        return false;
    }
    if (t->gpu_milli < 0 || t->gpu_milli > GP_DEV_MILLI) {
        gp_err_set(err, "gpu_milli %d is outside 0..%d", t->gpu_milli, GP_DEV_MILLI);
        return false;
    }
    if ((t->num_gpu == 0) != (t->gpu_milli == 0)) {
        gp_err_set(err, "num_gpu %d with gpu_milli %d: both or neither must be 0", t->num_gpu,
                   t->gpu_milli);
        return false;
    }
    if (t->num_gpu > 1 && t->gpu_milli != GP_DEV_MILLI) {
        gp_err_set(err, "a %d-GPU task must take whole GPUs (gpu_milli 1000, not %d)",
                   t->num_gpu, t->gpu_milli);
        return false;
    }
    return true;
}

bool gp_dev_task_is_share(const gp_dev_task *t)
{
    return t->num_gpu == 1 && t->gpu_milli < GP_DEV_MILLI;
}

int64_t gp_dev_task_gpu_total(const gp_dev_task *t)
{
    return (int64_t)t->num_gpu * t->gpu_milli;
}

bool gp_dev_model_ok(const gp_dev_node *n, const gp_dev_task *t)
{
    if (t->num_gpu == 0 || t->models == 0)
        return true;
    return n->model >= 0 && n->model < 32 && (t->models >> n->model & 1u);
}

int64_t gp_dev_gpu_free_total(const gp_dev_node *n)
{
    int64_t s = 0;

    for (int i = 0; i < n->ngpu; i++)
        s += n->gpu_free[i];
    return s;
}

int gp_dev_gpu_idle(const gp_dev_node *n)
{
    int k = 0;

    for (int i = 0; i < n->ngpu; i++)
        k += n->gpu_free[i] == GP_DEV_MILLI;
    return k;
}

/* GPUs with at least `milli` free. */
static int gpus_with(const gp_dev_node *n, int milli)
{
    int k = 0;

    for (int i = 0; i < n->ngpu; i++)
        k += n->gpu_free[i] >= milli;
    return k;
}

bool gp_dev_fits(const gp_dev_node *n, const gp_dev_task *t)
{
    if (n->cpu_free < t->cpu_milli || n->mem_free < t->mem_mib)
        return false;
    if (t->num_gpu == 0)
        return true;
    if (!gp_dev_model_ok(n, t))
        return false;
    return gpus_with(n, t->gpu_milli) >= t->num_gpu;
}

bool gp_dev_pick_bestfit(const gp_dev_node *n, const gp_dev_task *t, gp_dev_pick *pick)
{
    pick->n = 0;
    if (t->num_gpu == 0)
        return true;
    if (gp_dev_task_is_share(t)) {
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
        if (n->gpu_free[i] == GP_DEV_MILLI)
            pick->gpu[pick->n++] = (int8_t)i;
    if (pick->n < t->num_gpu) {
        pick->n = 0;
        return false;
    }
    return true;
}

static bool pick_valid(const gp_dev_node *n, const gp_dev_task *t, const gp_dev_pick *pick)
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

bool gp_dev_apply(gp_dev_node *n, const gp_dev_task *t, const gp_dev_pick *pick)
{
    if (!pick_valid(n, t, pick) || !gp_dev_model_ok(n, t) || n->cpu_free < t->cpu_milli ||
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

bool gp_dev_remove(gp_dev_node *n, const gp_dev_task *t, const gp_dev_pick *pick)
{
    if (!pick_valid(n, t, pick) || n->cpu_free + t->cpu_milli > n->cpu_cap ||
        n->mem_free + t->mem_mib > n->mem_cap)
        return false;
    for (int i = 0; i < pick->n; i++)
        if (n->gpu_free[pick->gpu[i]] + t->gpu_milli > GP_DEV_MILLI)
            return false;
    n->cpu_free += t->cpu_milli;
    n->mem_free += t->mem_mib;
    for (int i = 0; i < pick->n; i++)
        n->gpu_free[pick->gpu[i]] += t->gpu_milli;
    return true;
}

/* ---- The workload mix ---- */

static int shape_cmp_key(const gp_dev_task *a, const gp_dev_task *b)
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
 * are held in freq until gp_dev_mix_select() normalises them. */
static int shape_cmp_count(const void *pa, const void *pb)
{
    const gp_dev_shape *a = pa, *b = pb;

    if (a->freq != b->freq)
        return a->freq > b->freq ? -1 : 1;
    return shape_cmp_key(&a->shape, &b->shape);
}

static int shape_cmp_plain(const void *pa, const void *pb)
{
    return shape_cmp_key(&((const gp_dev_shape *)pa)->shape, &((const gp_dev_shape *)pb)->shape);
}

/* Distinct shapes of the counted tasks, with their counts in freq, into out. Returns the number. */
static size_t count_shapes(const gp_dev_task *tasks, size_t n, const gp_dev_mix_opts *o,
                           gp_dev_shape *out)
{
    size_t k = 0;

    for (size_t i = 0; i < n; i++) {
        if (!o->cpu_tasks && tasks[i].num_gpu == 0)
            continue;
        out[k].shape = tasks[i];
        out[k].shape.mem_mib = 0;
        out[k].freq = 1;
        if (tasks[i].gpu_milli == GP_DEV_MILLI)
            out[k].freq += o->gpu_weight * tasks[i].num_gpu;
        k++;
    }
    if (k == 0)
        return 0;
    qsort(out, k, sizeof(*out), shape_cmp_plain);
    size_t m = 0;
    for (size_t i = 0; i < k; i++) {
        if (m > 0 && shape_cmp_key(&out[m - 1].shape, &out[i].shape) == 0)
            out[m - 1].freq += out[i].freq;
        else
            out[m++] = out[i];
    }
    return m;
}

size_t gp_dev_mix_select(gp_dev_shape *shapes, size_t n, int popularity_pct, size_t max)
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

gp_status gp_dev_mix_build(const gp_dev_task *tasks, size_t n, const gp_dev_mix_opts *opts,
                           gp_dev_mix *out, gp_err *err)
{
    gp_dev_shape *sc = n ? malloc(n * sizeof(*sc)) : NULL;

    out->n = 0;
    out->shapes = NULL;
    if (n && !sc)
        return GP_ENOMEM;
    size_t m = count_shapes(tasks, n, opts, sc);
    if (m == 0) {
        free(sc);
        gp_err_set(err, "no task to learn the workload mix from");
        return GP_EINVAL;
    }
    out->n = gp_dev_mix_select(sc, m, opts->popularity_pct, m);
    out->shapes = sc; /* n entries held, the first out->n used */
    return GP_OK;
}

void gp_dev_tally_init(gp_dev_tally *t, gp_dev_shape *storage, size_t cap)
{
    memset(t, 0, sizeof(*t));
    t->slot = storage;
    t->cap = cap;
}

void gp_dev_tally_add(gp_dev_tally *t, const gp_dev_task *shape, int sign)
{
    gp_dev_task key = *shape;
    gp_dev_shape *free_slot = NULL;

    key.mem_mib = 0;
    t->version++;
    for (size_t i = 0; i < t->n; i++) {
        gp_dev_shape *s = &t->slot[i];

        if (s->freq > 0 && shape_cmp_key(&s->shape, &key) == 0) {
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

size_t gp_dev_tally_mix(const gp_dev_tally *t, gp_dev_shape *scratch, int popularity_pct,
                        size_t max)
{
    if (t->n == 0)
        return 0;
    memcpy(scratch, t->slot, t->n * sizeof(*scratch));
    return gp_dev_mix_select(scratch, t->n, popularity_pct, max);
}

bool gp_dev_watch_shape(const gp_dev_task *t, bool next_to_gpus, gp_dev_task *out)
{
    if (t->num_gpu > 0 ? t->gpu_milli != GP_DEV_MILLI : !next_to_gpus)
        return false;
    *out = *t;
    out->mem_mib = 0;
    out->models = 0;
    return true;
}

gp_dev_shape gp_dev_default_shape(int64_t cpu_milli)
{
    gp_dev_shape s = { { .cpu_milli = cpu_milli, .num_gpu = 1, .gpu_milli = GP_DEV_MILLI }, 1.0 };

    return s;
}

void gp_dev_mix_free(gp_dev_mix *m)
{
    if (!m)
        return;
    free(m->shapes);
    m->shapes = NULL;
    m->n = 0;
}

/* The free share of node n that shape s cannot use (see gp_dev_frag()). With desc (gpupack's
 * measure, gp_dev_frag_gpupack(): the node's free shares, largest first), a sharing shape can use
 * only as many of the fitting GPUs as the node's free CPU feeds tasks of it, the ones with the
 * most free share; the rest of their share is fragmentation too. */
static int64_t frag_for_shape(const gp_dev_node *n, const gp_dev_task *s, int64_t free_total,
                              const int32_t *desc)
{
    if (s->num_gpu == 0 || !gp_dev_model_ok(n, s) || n->cpu_free < s->cpu_milli)
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
    if (!desc || !gp_dev_task_is_share(s) || s->cpu_milli <= 0 ||
        n->cpu_free / s->cpu_milli >= fit)
        return small;
    int64_t usable = 0; /* the fitting GPUs are the first `fit` of desc */
    for (int64_t i = 0; i < n->cpu_free / s->cpu_milli; i++)
        usable += desc[i];
    return free_total - usable;
}

static double frag_of(const gp_dev_node *n, const gp_dev_mix *mix, bool cpu_copies)
{
    int64_t free_total = gp_dev_gpu_free_total(n);
    int32_t desc[GP_DEV_MAX_GPUS];
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

double gp_dev_frag(const gp_dev_node *n, const gp_dev_mix *mix)
{
    return frag_of(n, mix, false);
}

double gp_dev_frag_gpupack(const gp_dev_node *n, const gp_dev_mix *mix)
{
    return frag_of(n, mix, true);
}

/* ---- The plan for sharing work ---- */

#define PLAN_WORDS ((GP_DEV_MILLI + 1 + 63) / 64) /* a set of sums 0..1000 */

/* The sample: the mix's sharing sizes (in mix order, the commonest first, up to
 * GP_DEV_PLAN_MAX_SIZES), each with round(its share of the sharing tasks x GP_DEV_PLAN_SAMPLE)
 * copies and at least one, largest size first. Returns the number of sizes. */
static size_t plan_sample(const gp_dev_mix *mix, int32_t *size, int32_t *copies)
{
    double f[GP_DEV_PLAN_MAX_SIZES], total = 0;
    size_t n = 0;

    for (size_t i = 0; mix && i < mix->n; i++) {
        const gp_dev_task *t = &mix->shapes[i].shape;
        size_t k = 0;

        if (!gp_dev_task_is_share(t) || t->gpu_milli <= 0 || mix->shapes[i].freq <= 0)
            continue;
        while (k < n && size[k] != t->gpu_milli)
            k++;
        if (k == n) {
            if (n == GP_DEV_PLAN_MAX_SIZES)
                continue;
            size[n] = t->gpu_milli;
            f[n++] = 0;
        }
        f[k] += mix->shapes[i].freq;
        total += mix->shapes[i].freq;
    }
    for (size_t i = 0; i < n; i++) {
        double c = floor(f[i] / total * GP_DEV_PLAN_SAMPLE + 0.5);
        copies[i] = c < 1 ? 1 : (int32_t)c;
    }
    for (size_t i = 1; i < n; i++) /* insertion sort, largest size first */
        for (size_t j = i; j > 0 && size[j - 1] < size[j]; j--) {
            int32_t ts = size[j], tc = copies[j];
            size[j] = size[j - 1];
            copies[j] = copies[j - 1];
            size[j - 1] = ts;
            copies[j - 1] = tc;
        }
    return n;
}

/* sums |= sums shifted up by k (sums above 1000 drop out). */
static void sums_add(uint64_t *sums, int32_t k)
{
    uint64_t out[PLAN_WORDS] = { 0 };

    for (int w = PLAN_WORDS - 1; w >= 0; w--) {
        int src = w - k / 64, bit = k % 64;
        uint64_t v = 0;

        if (src >= 0)
            v = sums[src] << bit;
        if (bit && src - 1 >= 0)
            v |= sums[src - 1] >> (64 - bit);
        out[w] = v;
    }
    for (int w = 0; w < PLAN_WORDS; w++)
        sums[w] |= out[w];
    sums[PLAN_WORDS - 1] &= (1ull << ((GP_DEV_MILLI + 1) % 64)) - 1;
}

/* Marks in p what one packed GPU allows: each of its sizes may join every sum of the others. */
static void plan_mark(gp_dev_plan *p, const int32_t *size, size_t n, const int32_t *count)
{
    for (size_t s = 0; s < n; s++) {
        uint64_t sums[PLAN_WORDS] = { 1 }; /* the empty sum */

        if (count[s] == 0)
            continue;
        for (size_t k = 0; k < n; k++)
            for (int32_t c = k == s ? 1 : 0; c < count[k]; c++)
                sums_add(sums, size[k]);
        for (int u = 0; u <= GP_DEV_MILLI; u++)
            if (sums[u / 64] >> (u % 64) & 1u)
                p->good[size[s] / 10][u / 10 / 8] |= (uint8_t)(1u << (u / 10 % 8));
    }
}

bool gp_dev_plan_build(const gp_dev_mix *mix, gp_dev_plan *p)
{
    int32_t size[GP_DEV_PLAN_MAX_SIZES], copies[GP_DEV_PLAN_MAX_SIZES];
    size_t n = plan_sample(mix, size, copies), items = 0;

    if (n == p->nsizes && memcmp(size, p->size, n * sizeof(*size)) == 0 &&
        memcmp(copies, p->copies, n * sizeof(*copies)) == 0)
        return false;
    memset(p, 0, sizeof(*p));
    p->nsizes = n;
    memcpy(p->size, size, n * sizeof(*size));
    memcpy(p->copies, copies, n * sizeof(*copies));
    for (size_t i = 0; i < n; i++)
        items += (size_t)copies[i];
    /* First fit decreasing: the sizes come largest first. A GPU's content is a count per size. */
    int32_t *used = calloc(items ? items : 1, sizeof(*used));
    int32_t *count = calloc((items ? items : 1) * (n ? n : 1), sizeof(*count));
    size_t gpus = 0;
    if (!used || !count) { /* no plan (nothing is off it) until a later call packs again */
        free(used);
        free(count);
        p->nsizes = 0;
        return true;
    }
    for (size_t i = 0; i < n; i++) {
        for (int32_t c = 0; c < copies[i]; c++) {
            size_t g = 0;
            while (g < gpus && used[g] + size[i] > GP_DEV_MILLI)
                g++;
            gpus += g == gpus;
            used[g] += size[i];
            count[g * n + i]++;
        }
        p->known[size[i] / 10 / 8] |= (uint8_t)(1u << (size[i] / 10 % 8));
    }
    for (size_t g = 0; g < gpus; g++) /* first fit fills alike GPUs one after another */
        if (g == 0 || memcmp(&count[g * n], &count[(g - 1) * n], n * sizeof(*count)) != 0)
            plan_mark(p, size, n, &count[g * n]);
    p->any = n > 0;
    free(used);
    free(count);
    return true;
}

bool gp_dev_plan_fits(const gp_dev_plan *p, int32_t share, int32_t taken)
{
    if (p == NULL || !p->any || taken <= 0 || share <= 0 || share >= GP_DEV_MILLI)
        return true;
    if (taken > GP_DEV_MILLI)
        taken = GP_DEV_MILLI;
    int s = share / 10, u = taken / 10;
    if (!(p->known[s / 8] >> (s % 8) & 1u))
        return true;
    return p->good[s][u / 8] >> (u % 8) & 1u;
}

/* ---- Scorers ---- */

/* splitmix64's finaliser: a well-mixed 64-bit hash. */
static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Random: every feasible node is equally likely (the paper's RandomScore picks one feasible node
 * uniformly); a sharing task takes a uniformly chosen fitting GPU. */
double gp_dev_score_random(const gp_dev_ctx *ctx, const gp_dev_node *n, const gp_dev_task *t,
                           gp_dev_pick *pick)
{
    if (!gp_dev_fits(n, t) || !gp_dev_pick_bestfit(n, t, pick))
        return GP_DEV_INFEASIBLE;
    uint64_t h = mix64(ctx->salt ^ mix64((uint64_t)n->id + 0x9e3779b97f4a7c15ULL));
    if (gp_dev_task_is_share(t)) {
        uint64_t best = 0;

        for (int i = 0; i < n->ngpu; i++) {
            uint64_t g = mix64(h + (uint64_t)i + 1);
            if (n->gpu_free[i] >= t->gpu_milli && (pick->n == 0 || g > best)) {
                best = g;
                pick->n = 1;
                pick->gpu[0] = (int8_t)i;
            }
        }
    }
    return (double)(h >> 11);
}

/* DotProd (Tetris), as the paper ran it ("merge" GPU dimension, "max" normalisation): the node's
 * free (CPU, total GPU) and the task's demand, each divided by the largest node's, dotted and
 * halved; a smaller product is better; the score is 100 x (1 - product), truncated to an integer
 * as the Kubernetes framework's scores are. GPU choice: best fit. */
double gp_dev_score_dotprod(const gp_dev_ctx *ctx, const gp_dev_node *n, const gp_dev_task *t,
                            gp_dev_pick *pick)
{
    (void)ctx;
    if (!gp_dev_fits(n, t) || !gp_dev_pick_bestfit(n, t, pick))
        return GP_DEV_INFEASIBLE;
    double cpu = (double)n->cpu_free / GP_DEV_MAX_SPEC_CPU * (double)t->cpu_milli / GP_DEV_MAX_SPEC_CPU;
    double gpu = (double)gp_dev_gpu_free_total(n) / GP_DEV_MAX_SPEC_GPU *
                 (double)gp_dev_task_gpu_total(t) / GP_DEV_MAX_SPEC_GPU;
    return floor(100.0 * (1.0 - (cpu + gpu) / 2.0));
}

/* GpuPacking: a partly used GPU first (100 minus a tenth of the percent free on the GPUs used,
 * at least 50), then fully free GPUs on a used node (50 minus their number, at least 33), then an
 * empty node (33 minus its GPU count, at least that count). CPU-only tasks score 0 everywhere.
 * GPU choice: the fitting GPUs with the least free share first. */
double gp_dev_score_gpupacking(const gp_dev_ctx *ctx, const gp_dev_node *n, const gp_dev_task *t,
                               gp_dev_pick *pick)
{
    (void)ctx;
    if (!gp_dev_fits(n, t) || !gp_dev_pick_bestfit(n, t, pick))
        return GP_DEV_INFEASIBLE;
    if (t->num_gpu == 0)
        return 0;
    int idle = gp_dev_gpu_idle(n);
    if (idle == n->ngpu)
        return fmax(33 - idle, idle);
    int whole = 0;
    int64_t pct = 0;
    for (int i = 0; i < pick->n; i++) {
        int32_t f = n->gpu_free[pick->gpu[i]];
        whole += f == GP_DEV_MILLI;
        pct += f * 100 / GP_DEV_MILLI;
    }
    if (whole > 0)
        return fmax(50 - whole, 33);
    return fmax((double)(100 - pct / 10), 50);
}

/* BestFit: 100 x (1 - the CPU and GPU left after placement, each over the largest node's and
 * weighted 1/2), truncated to an integer. GPU choice: best fit. */
double gp_dev_score_bestfit(const gp_dev_ctx *ctx, const gp_dev_node *n, const gp_dev_task *t,
                            gp_dev_pick *pick)
{
    (void)ctx;
    if (!gp_dev_fits(n, t) || !gp_dev_pick_bestfit(n, t, pick))
        return GP_DEV_INFEASIBLE;
    double cpu = (double)(n->cpu_free - t->cpu_milli) / GP_DEV_MAX_SPEC_CPU;
    double gpu = (double)(gp_dev_gpu_free_total(n) - gp_dev_task_gpu_total(t)) / GP_DEV_MAX_SPEC_GPU;
    return trunc(100.0 * (1.0 - 0.5 * cpu - 0.5 * gpu));
}

/* The node as it would be after taking the task on pick (CPU and GPUs; memory is not part of
 * the fragmentation measure). */
static gp_dev_node after(const gp_dev_node *n, const gp_dev_task *t, const gp_dev_pick *pick)
{
    gp_dev_node m = *n;

    m.cpu_free -= t->cpu_milli;
    m.mem_free -= t->mem_mib;
    for (int i = 0; i < pick->n; i++)
        m.gpu_free[pick->gpu[i]] -= t->gpu_milli;
    return m;
}

/* True when an earlier GPU has the same free share as GPU i: placing there changes the node the
 * same way, so only the first is tried (and the lowest index wins ties, as in the paper). */
static bool same_as_earlier(const gp_dev_node *n, int i)
{
    for (int j = 0; j < i; j++)
        if (n->gpu_free[j] == n->gpu_free[i])
            return true;
    return false;
}

/* The paper's FGD score of a fragmentation decrease d (milli-GPU): 100 x sigmoid(d / 1000),
 * truncated to an integer. */
static double fgd_quantize(double d)
{
    return floor(100.0 / (1.0 + exp(-d / 1000.0)));
}

/* The best GPU for a sharing task under value(before - after); returns the best value and sets
 * *pick. fgd: FGD's measure on the paper's integer scale; else gpupack's measure, unscaled. */
static double share_best(const gp_dev_node *n, const gp_dev_task *t, const gp_dev_mix *mix,
                         double before, bool fgd, const gp_dev_plan *plan, gp_dev_pick *pick)
{
    double best = GP_DEV_INFEASIBLE;

    pick->n = 0;
    for (int i = 0; i < n->ngpu; i++) {
        if (n->gpu_free[i] < t->gpu_milli || same_as_earlier(n, i))
            continue;
        gp_dev_pick p = { .n = 1, .gpu = { (int8_t)i } };
        gp_dev_node m = after(n, t, &p);
        double d = before - frag_of(&m, mix, !fgd);
        if (!gp_dev_plan_fits(plan, t->gpu_milli, GP_DEV_MILLI - n->gpu_free[i]))
            d -= GP_DEV_PLAN_PENALTY;
        double v = fgd ? fgd_quantize(d) : d;
        if (pick->n == 0 || v > best) {
            best = v;
            *pick = p;
        }
    }
    return best;
}

/* FGD (fragmentation gradient descent), as the paper ran it: the decrease of the node's
 * fragmentation for the workload mix when it takes the task, through 100 x sigmoid(d / 1000)
 * truncated to an integer. A sharing task takes the GPU with the best such score (the lowest
 * index on ties); whole-GPU tasks take the lowest-indexed free GPUs. */
double gp_dev_score_fgd(const gp_dev_ctx *ctx, const gp_dev_node *n, const gp_dev_task *t,
                        gp_dev_pick *pick)
{
    if (!ctx->mix || !gp_dev_fits(n, t))
        return GP_DEV_INFEASIBLE;
    double before = gp_dev_frag(n, ctx->mix);
    if (gp_dev_task_is_share(t))
        return share_best(n, t, ctx->mix, before, true, NULL, pick);
    if (!gp_dev_pick_bestfit(n, t, pick))
        return GP_DEV_INFEASIBLE;
    gp_dev_node m = after(n, t, pick);
    return fgd_quantize(before - gp_dev_frag(&m, ctx->mix));
}

/* gpupack's bucket of fragmentation decrease, in milli-GPU: decreases within one bucket tie, and
 * ties go to the earlier node of the scheduler's (stable) node order, which packs. 40 is the width
 * of one point of FGD's 100 x sigmoid(d / 1000) near d = 0. Swept (docs/simulation.md): exact
 * (no buckets) is far worse (7.0% on the default trace), 40 to 150 are within noise of each other
 * there, 40 is best on gpushare40. */
#define GPUPACK_BUCKET GP_DEV_GPUPACK_BUCKET

/* gpupack's tie-break for CPU-only tasks inside a bucket, in [0, 0.5]: the node with less free
 * GPU share wins, so CPU-only work leaves the CPU of nodes with free GPUs to GPU tasks (default
 * trace 4.71% -> 4.61%, cpu200 5.05% -> 4.88%, never worse on the traces tried). */
static double cpu_only_tiebreak(const gp_dev_node *n)
{
    double f = (double)gp_dev_gpu_free_total(n) / GP_DEV_MAX_SPEC_GPU;

    return 0.5 * (1.0 - (f < 1 ? f : 1)); /* nodes of more than 8 GPUs: at least 0 */
}

void gp_dev_model_pressure(const gp_dev_mix *mix, const int64_t model_gpus[GP_DEV_MAX_MODELS],
                           double out[GP_DEV_MAX_MODELS])
{
    double demand = 0, cap = 0;

    for (int m = 0; m < GP_DEV_MAX_MODELS; m++) {
        out[m] = 0;
        cap += (double)model_gpus[m];
    }
    for (size_t i = 0; mix && i < mix->n; i++) {
        const gp_dev_task *s = &mix->shapes[i].shape;
        double d = mix->shapes[i].freq * (double)gp_dev_task_gpu_total(s);
        double c = 0;

        demand += d;
        if (s->num_gpu == 0 || s->models == 0)
            continue;
        for (int m = 0; m < GP_DEV_MAX_MODELS; m++)
            if (s->models >> m & 1u)
                c += (double)model_gpus[m];
        for (int m = 0; c > 0 && m < GP_DEV_MAX_MODELS; m++)
            if (s->models >> m & 1u)
                out[m] += d / c;
    }
    for (int m = 0; m < GP_DEV_MAX_MODELS; m++)
        out[m] = demand > 0 && cap > 0 ? out[m] * cap / demand : 0;
}

/* gpupack: the decrease of its fragmentation measure (gp_dev_frag_gpupack(): FGD's, with sharing
 * shapes limited to the tasks the node's free CPU feeds) for the workload mix, on a linear scale
 * cut into GPUPACK_BUCKET-wide buckets (where FGD truncates 100 x sigmoid(d / 1000)); a sharing
 * task takes the GPU with the largest exact decrease; CPU-only tasks break ties with
 * cpu_only_tiebreak().
 * A GPU task also pays, before bucketing, its GPU request times the pressure of the node's model
 * (ctx->model_pressure): work that may run elsewhere leaves a model that constrained work needs
 * (gpuspec33: 12.34% -> 5.75%; traces without model constraints are unchanged). A sharing task
 * pays GP_DEV_PLAN_PENALTY for a partly used GPU that the plan (ctx->plan) does not pair it with:
 * shares pair on GPUs as an offline packing of the mix pairs them (default trace 4.24% ->
 * 3.90%). */
double gp_dev_score_gpupack(const gp_dev_ctx *ctx, const gp_dev_node *n, const gp_dev_task *t,
                            gp_dev_pick *pick)
{
    if (!ctx->mix || !gp_dev_fits(n, t))
        return GP_DEV_INFEASIBLE;
    double before = gp_dev_frag_gpupack(n, ctx->mix);
    double d;
    if (gp_dev_task_is_share(t)) {
        d = share_best(n, t, ctx->mix, before, false, ctx->plan, pick);
    } else {
        if (!gp_dev_pick_bestfit(n, t, pick))
            return GP_DEV_INFEASIBLE;
        gp_dev_node m = after(n, t, pick);
        d = before - gp_dev_frag_gpupack(&m, ctx->mix);
    }
    if (t->num_gpu > 0 && ctx->model_pressure && n->model >= 0 && n->model < GP_DEV_MAX_MODELS)
        d -= ctx->model_pressure[n->model] * (double)gp_dev_task_gpu_total(t);
    /* The fragmentation is a sum of frequencies x milli-GPU: a decrease that is a whole number
     * of buckets can come out a hair below it, which floor() must not push into the next. */
    double v = floor(d / GPUPACK_BUCKET + 1e-9);
    return t->num_gpu == 0 ? v + cpu_only_tiebreak(n) : v;
}

static const gp_dev_scorer scorers[] = {
    { "gpupack", gp_dev_score_gpupack, true,
      "FGD's fragmentation decrease, counting GPUs the node's CPU strands for sharing work, in 40 "
      "milli-GPU buckets, less the pressure of model-constrained work on the node's model and, "
      "for a share joining a partly used GPU off the offline packing plan, 700; ties pack; "
      "CPU-only work avoids free GPUs" },
    { "random", gp_dev_score_random, false, "any feasible node, uniformly" },
    { "dotprod", gp_dev_score_dotprod, false, "smallest dot product of free and demand (Tetris)" },
    { "gpupacking", gp_dev_score_gpupacking, false,
      "partly used GPU, then free GPUs of a used node, then an empty node" },
    { "bestfit", gp_dev_score_bestfit, false, "least CPU and GPU left after placement" },
    { "fgd", gp_dev_score_fgd, true, "FGD: least fragmentation growth (Weng et al., ATC '23)" },
};

const gp_dev_scorer *gp_dev_scorers(size_t *n)
{
    *n = sizeof(scorers) / sizeof(scorers[0]);
    return scorers;
}

const gp_dev_scorer *gp_dev_scorer_find(const char *name)
{
    for (size_t i = 0; i < sizeof(scorers) / sizeof(scorers[0]); i++)
        if (name && strcmp(scorers[i].name, name) == 0)
            return &scorers[i];
    return NULL;
}

/* ---- PRNG ---- */

uint64_t gp_dev_splitmix64(uint64_t *state)
{
    *state += 0x9e3779b97f4a7c15ULL;
    return mix64(*state);
}

void gp_dev_rng_seed(gp_dev_rng *r, uint64_t seed)
{
    uint64_t s = seed;

    for (int i = 0; i < 4; i++)
        r->s[i] = gp_dev_splitmix64(&s);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t gp_dev_rng_next(gp_dev_rng *r)
{
    uint64_t *s = r->s;
    uint64_t out = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;

    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return out;
}

uint64_t gp_dev_rng_below(gp_dev_rng *r, uint64_t bound)
{
    uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
    uint64_t x;

    do
        x = gp_dev_rng_next(r);
    while (x >= limit);
    return x % bound;
}
