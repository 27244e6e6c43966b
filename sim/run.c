/* SPDX-License-Identifier: Apache-2.0 */
/* One simulation run (sim/run.h): the protocol of the FGD paper's artifact, described in
 * data/alibaba-gpu-v2023/README.md and docs/simulation.md. */
#include "run.h"

#include "extsim.h"
#include "plan.h"
#include "rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *const sim_class_names[SIM_CLASSES] = { "cpu", "share", "1gpu", "2gpu", "4gpu", "8gpu",
                                                   "other" };

int sim_task_class(const gp_frag_task *t)
{
    if (t->num_gpu == 0)
        return SIM_CLASS_CPU;
    if (gp_frag_task_is_share(t))
        return SIM_CLASS_SHARE;
    switch (t->num_gpu) {
    case 1: return SIM_CLASS_1;
    case 2: return SIM_CLASS_2;
    case 4: return SIM_CLASS_4;
    case 8: return SIM_CLASS_8;
    default: return SIM_CLASS_OTHER;
    }
}

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void shuffle(size_t *v, size_t n, sim_rng *rng)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)sim_rng_below(rng, i);
        size_t t = v[i - 1];
        v[i - 1] = v[j];
        v[j] = t;
    }
}

/* The workload: the tasks in a seeded random order, then resampled with replacement and appended
 * until the next sample would take the total GPU request past inflate x capacity (or random tasks
 * removed while it is above). Returns the list (malloc'd) and its length in *n. */
static size_t *workload(const sim_cfg *cfg, int64_t cap, sim_rng *rng, size_t *n)
{
    size_t len = cfg->n_tasks, room = len + 16;
    size_t *w = malloc(room * sizeof(*w));
    int64_t total = 0;

    if (!w)
        return NULL;
    for (size_t i = 0; i < len; i++) {
        w[i] = i;
        total += gp_frag_task_gpu_total(&cfg->tasks[i]);
    }
    shuffle(w, len, rng);
    double target = cfg->inflate * (double)cap;
    while (cfg->inflate > 0 && (double)total > target && len > 0) {
        size_t k = (size_t)sim_rng_below(rng, len);
        total -= gp_frag_task_gpu_total(&cfg->tasks[w[k]]);
        memmove(&w[k], &w[k + 1], (len - k - 1) * sizeof(*w));
        len--;
    }
    while (cfg->inflate > 0 && (double)total < target) {
        size_t k = (size_t)sim_rng_below(rng, cfg->n_tasks);
        int64_t g = gp_frag_task_gpu_total(&cfg->tasks[k]);
        if ((double)(total + g) > target)
            break;
        if (len == room) {
            size_t *q = realloc(w, (room *= 2) * sizeof(*w));
            if (!q) {
                free(w);
                return NULL;
            }
            w = q;
        }
        w[len++] = k;
        total += g;
    }
    *n = len;
    return w;
}

/* The best node for task t: the highest score; ties go to the earlier node in the (permuted)
 * order, or to a uniformly random one of them when cfg->ties_random. Returns -1 when none fits. */
static long best_node(const sim_cfg *cfg, const sim_ctx *ctx, const gp_frag_node *nodes,
                      const gp_frag_task *t, sim_rng *rng, gp_frag_pick *pick, uint64_t *scored)
{
    double best = GP_FRAG_INFEASIBLE;
    long bi = -1;
    uint64_t ties = 0;

    for (size_t i = 0; i < cfg->n_nodes; i++) {
        gp_frag_pick p;
        if (!gp_frag_fits(&nodes[i], t))
            continue;
        double s = cfg->scorer->score(ctx, &nodes[i], t, &p);
        if (s <= GP_FRAG_INFEASIBLE)
            continue;
        (*scored)++;
        if (bi < 0 || s > best) {
            best = s;
            bi = (long)i;
            *pick = p;
            ties = 1;
        } else if (s == best && cfg->ties_random && sim_rng_below(rng, ++ties) == 0) {
            bi = (long)i;
            *pick = p;
        }
    }
    return bi;
}

static double unalloc_pct(int64_t alloc, int64_t cap)
{
    return 100.0 - 100.0 * (double)alloc / (double)cap;
}

static double cluster_frag_pct(const gp_frag_node *nodes, size_t n, const gp_frag_mix *mix,
                               int64_t cap)
{
    double f = 0;

    if (!mix)
        return 0;
    for (size_t i = 0; i < n; i++)
        f += gp_frag_fgd(&nodes[i], mix);
    return 100.0 * f / (double)cap;
}

typedef struct {
    int64_t cap, alloc, arrived;
} progress;

void sim_result_free(sim_result *res)
{
    free(res->placed_task);
    free(res->placed_node);
    free(res->placed_why);
    res->placed_task = NULL;
    res->placed_node = NULL;
    res->placed_why = NULL;
}

/* Why no node took t: none could ever hold it (of its models, or at all), or none had room. */
static uint8_t why_unplaced(const sim_cfg *cfg, const gp_frag_task *t)
{
    bool model = false;

    for (size_t i = 0; i < cfg->n_nodes; i++) {
        const gp_frag_node *n = &cfg->nodes[i];
        gp_frag_node empty;

        gp_frag_node_init(&empty, n->id, n->cpu_cap, n->mem_cap, n->ngpu, n->model);
        if (gp_frag_fits(&empty, t))
            return SIM_WHY_NO_ROOM;
        model |= gp_frag_model_ok(n, t);
    }
    return model ? SIM_WHY_TOO_BIG : SIM_WHY_NO_MODEL;
}

/* Records the placement of arrival k (with cfg->record). */
static void record_placement(const sim_cfg *cfg, sim_result *res, const size_t *perm, size_t k,
                             size_t task, long bi)
{
    if (!res->placed_task)
        return;
    res->placed_task[k] = task;
    res->placed_node[k] = bi >= 0 ? (long)perm[bi] : -1;
    res->placed_why[k] = bi >= 0 ? SIM_WHY_PLACED : why_unplaced(cfg, &cfg->tasks[task]);
}

/* Records the curve points and the 100% metric the arrival just passed. */
static void observe(const sim_cfg *cfg, const gp_frag_node *nodes, const progress *p,
                    size_t tried, sim_result *res)
{
    while (res->curve_n <= SIM_CURVE_MAX &&
           p->arrived * 100 >= (int64_t)res->curve_n * p->cap)
        res->curve[res->curve_n++] = unalloc_pct(p->alloc, p->cap);
    if (!res->reached_100 && p->arrived >= p->cap) {
        res->reached_100 = true;
        res->unalloc_at_100 = unalloc_pct(p->alloc, p->cap);
        res->frag_at_100 = cluster_frag_pct(nodes, cfg->n_nodes, cfg->mix, p->cap);
        res->arrived_at_100 = tried;
        res->failed_at_100 = res->failed_all;
    }
}

/* The mix learned from the tasks placed so far, as the extender learns it from its pod watch
 * (docs/scoring.md): the most common shapes covering 95%, at most LEARNED_MAX_SHAPES. */
#define LEARNED_POPULARITY 95
#define LEARNED_MAX_SHAPES 32

typedef struct {
    gp_frag_tally tally;
    gp_frag_shape *store, *scratch;
    gp_frag_shape fallback;
    gp_frag_mix mix;
    uint64_t built; /* tally version the mix was built from */
    uint64_t pressure_built; /* tally version the model pressure was computed for */
    bool daemon_view;        /* count as gpupack-extender's cache does (the extender scorer) */
} learner;

/* Counts task t placed on node n (NULL: a bound pod whose node is not at hand). */
static void learner_add(learner *l, const gp_frag_task *t, const gp_frag_node *n)
{
    gp_frag_bound b = { .next_to_gpus = !n || n->ngpu > 0 };
    gp_frag_task d;

    if (!l->daemon_view)
        gp_frag_tally_add(&l->tally, t, 1);
    else if (gp_frag_mix_counts(t, &b, &d))
        gp_frag_tally_add(&l->tally, &d, 1);
}

static bool learner_init(learner *l, const sim_cfg *cfg)
{
    size_t cap = cfg->n_tasks + cfg->n_seen + 1;

    memset(l, 0, sizeof(*l));
    l->store = malloc(cap * sizeof(*l->store));
    l->scratch = malloc(cap * sizeof(*l->scratch));
    if (!l->store || !l->scratch)
        return false;
    gp_frag_tally_init(&l->tally, l->store, cap);
    l->daemon_view = cfg->scorer->score == NULL;
    for (size_t i = 0; i < cfg->n_seen; i++)
        learner_add(l, &cfg->seen[i], NULL);
    l->fallback = gp_frag_default_shape(cfg->fallback_cpu);
    l->built = UINT64_MAX;
    l->pressure_built = UINT64_MAX;
    return true;
}

static void learner_free(learner *l)
{
    free(l->store);
    free(l->scratch);
}

static const gp_frag_mix *learner_mix(learner *l)
{
    if (l->built != l->tally.version) {
        l->mix.n = gp_frag_tally_mix(&l->tally, l->scratch, LEARNED_POPULARITY, LEARNED_MAX_SHAPES);
        l->mix.shapes = l->scratch;
        l->built = l->tally.version;
        if (l->mix.n == 0) {
            l->mix.n = 1;
            l->mix.shapes = &l->fallback;
        }
    }
    return &l->mix;
}

/* The mix as gpupack-extender sees it (the extender scorer): its whole-GPU shapes without model
 * constraints, renormalised, into buf (room for in->n); the fallback shape when none is left. */
static gp_frag_mix daemon_mix(const gp_frag_mix *in, gp_frag_shape *buf, gp_frag_shape *fallback)
{
    gp_frag_mix m = { 0, buf };
    gp_frag_bound next_to_gpus = { .next_to_gpus = true };
    double total = 0;

    for (size_t i = 0; i < in->n; i++) {
        if (!gp_frag_mix_counts(&in->shapes[i].shape, &next_to_gpus, &buf[m.n].shape))
            continue;
        buf[m.n].freq = in->shapes[i].freq;
        total += buf[m.n++].freq;
    }
    for (size_t i = 0; i < m.n; i++)
        buf[i].freq /= total;
    if (m.n == 0) {
        m.n = 1;
        m.shapes = fallback;
    }
    return m;
}

/* Places the workload w[0..n) on nodes. */
static void place_all(const sim_cfg *cfg, gp_frag_node *nodes, const size_t *perm, const size_t *w,
                      size_t n, progress *p, sim_rng *rng, learner *l, sim_ext *ext,
                      const gp_frag_mix *ext_mix, sim_result *res)
{
    int64_t model_gpus[GP_FRAG_MAX_MODELS] = { 0 };
    double pressure[GP_FRAG_MAX_MODELS];

    for (size_t i = 0; i < cfg->n_nodes; i++)
        if (nodes[i].model >= 0 && nodes[i].model < GP_FRAG_MAX_MODELS)
            model_gpus[nodes[i].model] += nodes[i].ngpu;
    sim_plan plan;
    sim_ctx ctx = { .frag = { .mix = ext_mix ? ext_mix : cfg->score_mix ? cfg->score_mix : cfg->mix,
                              .model_pressure = pressure, .share_cost = sim_plan_cost,
                              .share_arg = &plan } };

    memset(&plan, 0, sizeof(plan));
    sim_plan_build(ctx.frag.mix, &plan);
    /* The model pressure counts every shape seen, not only the popular ones the scorers' mix
     * keeps: model-constrained shapes are rare one by one and add up (docs/simulation.md). */
    gp_frag_model_pressure(cfg->pressure_mix ? cfg->pressure_mix : ctx.frag.mix, model_gpus,
                           pressure);

    for (size_t k = 0; k < n; k++) {
        const gp_frag_task *t = &cfg->tasks[w[k]];
        gp_frag_pick pick = { 0 };
        ctx.salt = sim_rng_next(rng);
        if (l) {
            ctx.frag.mix = learner_mix(l);
            sim_plan_build(ctx.frag.mix, &plan); /* packs again only when its sample changes */
            if (l->pressure_built != l->tally.version) {
                gp_frag_mix seen = { l->tally.n, l->tally.slot }; /* counts, not frequencies */
                gp_frag_model_pressure(&seen, model_gpus, pressure);
                l->pressure_built = l->tally.version;
            }
        }
        long bi = ext ? sim_ext_best(ext, nodes, t, ctx.frag.mix, cfg->ties_random ? rng : NULL,
                                     &pick, &res->node_scores)
                      : best_node(cfg, &ctx, nodes, t, rng, &pick, &res->node_scores);
        if (bi >= 0 && !gp_frag_apply(&nodes[bi], t, &pick))
            bi = -1;
        record_placement(cfg, res, perm, k, w[k], bi);
        if (cfg->progress_tried && (k & 1023) == 0)
            atomic_store_explicit(cfg->progress_tried, k, memory_order_relaxed);
        if (bi >= 0) {
            p->alloc += gp_frag_task_gpu_total(t);
            if (l)
                learner_add(l, t, &nodes[bi]);
            if (ext)
                sim_ext_note(ext, t);
        } else {
            res->failed_all++;
            if (!res->reached_100)
                res->failed_class[sim_task_class(t)]++;
        }
        p->arrived += gp_frag_task_gpu_total(t);
        observe(cfg, nodes, p, k + 1, res);
    }
}

gp_status sim_run(const sim_cfg *cfg, sim_result *res, gp_err *err)
{
    double t0 = now_s();
    sim_rng rng;
    progress p = { 0 };
    size_t n = 0;

    memset(res, 0, sizeof(*res));
    for (size_t i = 0; i < cfg->n_nodes; i++)
        p.cap += (int64_t)cfg->nodes[i].ngpu * GP_FRAG_MILLI;
    if (p.cap == 0 || cfg->n_tasks == 0) {
        gp_err_set(err, "the cluster has no GPU or the workload no task");
        return GP_EINVAL;
    }
    sim_rng_seed(&rng, cfg->seed);
    size_t *perm = malloc(cfg->n_nodes * sizeof(*perm));
    gp_frag_node *nodes = malloc(cfg->n_nodes * sizeof(*nodes));
    learner learn = { .built = 0 };
    bool learning = cfg->learn_mix;
    size_t *w = perm && nodes && (!learning || learner_init(&learn, cfg))
                    ? workload(cfg, p.cap, &rng, &n)
                    : NULL;
    if (!w) {
        if (learning)
            learner_free(&learn);
        free(perm);
        free(nodes);
        return GP_ENOMEM;
    }
    /* The node order is a seeded permutation, drawn after the workload's. */
    for (size_t i = 0; i < cfg->n_nodes; i++)
        perm[i] = i;
    shuffle(perm, cfg->n_nodes, &rng);
    for (size_t i = 0; i < cfg->n_nodes; i++) {
        nodes[i] = cfg->nodes[perm[i]];
        p.alloc += (int64_t)nodes[i].ngpu * GP_FRAG_MILLI - gp_frag_gpu_free_total(&nodes[i]);
    }
    res->tasks = n;
    observe(cfg, nodes, &p, 0, res);
    double t1 = now_s();
    sim_ext ext;
    const char **names = NULL;
    gp_frag_shape *ext_shapes = NULL;
    gp_frag_shape fallback = gp_frag_default_shape(cfg->fallback_cpu);
    gp_frag_mix ext_mix = { 0 };
    bool extending = cfg->scorer->score == NULL;
    if (extending) {
        names = malloc((cfg->n_nodes ? cfg->n_nodes : 1) * sizeof(*names));
        ext_shapes = malloc((cfg->mix->n ? cfg->mix->n : 1) * sizeof(*ext_shapes));
        for (size_t i = 0; names && i < cfg->n_nodes; i++)
            names[i] = cfg->node_names[perm[i]];
        if (!names || !ext_shapes ||
            !sim_ext_init(&ext, cfg->policy, cfg->models, nodes, names, cfg->n_nodes)) {
            free(names);
            free(ext_shapes);
            if (learning)
                learner_free(&learn);
            free(w);
            free(perm);
            free(nodes);
            return GP_ENOMEM;
        }
        for (size_t i = 0; i < cfg->n_seen; i++)
            sim_ext_note(&ext, &cfg->seen[i]);
        if (!learning) /* the trace's tasks, known in advance, as its mix is */
            sim_ext_count(&ext, cfg->tasks, cfg->n_tasks);
        ext_mix = daemon_mix(cfg->score_mix ? cfg->score_mix : cfg->mix, ext_shapes, &fallback);
    }
    if (cfg->progress_total)
        atomic_store_explicit(cfg->progress_total, n, memory_order_relaxed);
    if (cfg->record) {
        res->placed_task = malloc((n ? n : 1) * sizeof(*res->placed_task));
        res->placed_node = malloc((n ? n : 1) * sizeof(*res->placed_node));
        res->placed_why = malloc(n ? n : 1);
        if (!res->placed_task || !res->placed_node || !res->placed_why)
            sim_result_free(res); /* the run goes on; main reports the missing record */
    }
    place_all(cfg, nodes, perm, w, n, &p, &rng, learning ? &learn : NULL,
              extending ? &ext : NULL, extending && !learning ? &ext_mix : NULL, res);
    if (cfg->progress_tried)
        atomic_store_explicit(cfg->progress_tried, n, memory_order_relaxed);
    if (extending) {
        sim_ext_free(&ext);
        free(names);
        free(ext_shapes);
    }
    if (learning)
        learner_free(&learn);
    double t2 = now_s();
    if (!res->reached_100) {
        res->unalloc_at_100 = unalloc_pct(p.alloc, p.cap);
        res->frag_at_100 = cluster_frag_pct(nodes, cfg->n_nodes, cfg->mix, p.cap);
        res->arrived_at_100 = n;
        res->failed_at_100 = res->failed_all;
    }
    res->unalloc_end = unalloc_pct(p.alloc, p.cap);
    res->us_per_node = res->node_scores ? (t2 - t1) * 1e6 / (double)res->node_scores : 0;
    free(w);
    free(perm);
    free(nodes);
    res->seconds = now_s() - t0;
    return GP_OK;
}
