/* SPDX-License-Identifier: Apache-2.0 */
/* One simulation run (sim/run.h): the protocol of the FGD paper's artifact, described in
 * data/alibaba-gpu-v2023/README.md and docs/simulation.md. */
#include "run.h"

#include "placer.h"
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

/* Why no node took task i: none admits it (labels, taints, cordons), none could ever hold it
 * (of its models, or at all), or none had room. */
static uint8_t why_unplaced(const sim_cfg *cfg, size_t task)
{
    const gp_frag_task *t = &cfg->tasks[task];
    uint8_t cls = cfg->admit ? cfg->admit[task] : 0;
    bool model = false, admitted = false;

    for (size_t i = 0; i < cfg->n_nodes; i++) {
        const gp_frag_node *n = &cfg->nodes[i];
        gp_frag_node empty;

        if (cls && !sim_admit_ok(cfg->admission, cls, i))
            continue;
        admitted = true;

        gp_frag_node_init(&empty, n->id, n->cpu_cap, n->mem_cap, n->ngpu, n->model);
        if (gp_frag_fits(&empty, t))
            return SIM_WHY_NO_ROOM;
        model |= gp_frag_model_ok(n, t);
    }
    return !admitted ? SIM_WHY_NOT_ADMITTED : model ? SIM_WHY_TOO_BIG : SIM_WHY_NO_MODEL;
}

/* Records the placement of arrival k (with cfg->record). */
static void record_placement(const sim_cfg *cfg, sim_result *res, const size_t *perm, size_t k,
                             size_t task, long bi)
{
    if (!res->placed_task)
        return;
    res->placed_task[k] = task;
    res->placed_node[k] = bi >= 0 ? (long)perm[bi] : -1;
    res->placed_why[k] = bi >= 0 ? SIM_WHY_PLACED : why_unplaced(cfg, task);
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

/* The 64-bit words of one admission class's node bits. */
static size_t admit_words(const sim_cfg *cfg)
{
    return (cfg->n_nodes + 63) / 64;
}

/* Each admission class's nodes in the permuted order: bit k of class c's words when node
 * perm[k] admits it (sim/admit.h). NULL with *ok true when nothing restricts the nodes. */
static uint64_t *permuted_admission(const sim_cfg *cfg, const size_t *perm, bool *ok)
{
    const sim_admit *a = cfg->admission;
    size_t words = admit_words(cfg);
    uint64_t *bits;

    *ok = true;
    if (!cfg->admit || !a || a->n == 0)
        return NULL;
    bits = calloc((size_t)a->n * words, sizeof(*bits));
    *ok = bits != NULL;
    for (int c = 1; bits && c <= a->n; c++)
        for (size_t k = 0; k < cfg->n_nodes; k++)
            if (sim_admit_ok(a, (uint8_t)c, perm[k]))
                bits[(size_t)(c - 1) * words + k / 64] |= UINT64_C(1) << (k % 64);
    return bits;
}

/* Places the workload w[0..n) on nodes; admit: permuted_admission()'s. */
static void place_all(const sim_cfg *cfg, gp_frag_node *nodes, const size_t *perm, const size_t *w,
                      size_t n, progress *p, sim_rng *rng, sim_placer *pl, sim_result *res,
                      const uint64_t *admit)
{
    size_t words = admit_words(cfg);

    for (size_t k = 0; k < n; k++) {
        const gp_frag_task *t = &cfg->tasks[w[k]];
        uint8_t cls = admit ? cfg->admit[w[k]] : 0;
        gp_frag_pick pick = { 0 };
        pl->admit = cls ? admit + (size_t)(cls - 1) * words : NULL;
        long bi = sim_placer_best(pl, nodes, t, rng, &pick, &res->node_scores);
        if (bi >= 0 && !gp_frag_apply(&nodes[bi], t, &pick))
            bi = -1;
        if (bi >= 0)
            sim_placer_touch(pl, (size_t)bi);
        record_placement(cfg, res, perm, k, w[k], bi);
        if (cfg->progress_tried && (k & 1023) == 0)
            atomic_store_explicit(cfg->progress_tried, k, memory_order_relaxed);
        if (bi >= 0) {
            p->alloc += gp_frag_task_gpu_total(t);
            sim_placer_placed(pl, t, &nodes[bi]);
        } else {
            res->failed_all++;
            if (!res->reached_100)
                res->failed_class[sim_task_class(t)]++;
        }
        p->arrived += gp_frag_task_gpu_total(t);
        observe(cfg, nodes, p, k + 1, res);
    }
}

/* Names of the nodes in the permuted order, for the extender scorer's views (NULL names when
 * not needed). Returns false on allocation failure. */
static bool permuted_names(const sim_cfg *cfg, const size_t *perm, const char ***out)
{
    *out = NULL;
    if (cfg->scorer->score != NULL)
        return true;
    const char **names = malloc((cfg->n_nodes ? cfg->n_nodes : 1) * sizeof(*names));
    if (!names)
        return false;
    for (size_t i = 0; i < cfg->n_nodes; i++)
        names[i] = cfg->node_names[perm[i]];
    *out = names;
    return true;
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
    size_t *w = perm && nodes ? workload(cfg, p.cap, &rng, &n) : NULL;
    if (!w) {
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
    const char **names = NULL;
    sim_placer pl;
    if (!permuted_names(cfg, perm, &names) ||
        !sim_placer_init(&pl, cfg, nodes, cfg->n_nodes, names, cfg->n_tasks)) {
        free(names);
        free(w);
        free(perm);
        free(nodes);
        return GP_ENOMEM;
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
    bool admit_ok;
    uint64_t *admit = permuted_admission(cfg, perm, &admit_ok);
    if (!admit_ok) {
        sim_result_free(res);
        gp_err_set(err, "out of memory");
        sim_placer_free(&pl);
        free(names);
        free(w);
        free(perm);
        free(nodes);
        return GP_ENOMEM;
    }
    place_all(cfg, nodes, perm, w, n, &p, &rng, &pl, res, admit);
    free(admit);
    if (cfg->progress_tried)
        atomic_store_explicit(cfg->progress_tried, n, memory_order_relaxed);
    sim_placer_free(&pl);
    free(names);
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
