/* SPDX-License-Identifier: Apache-2.0 */
/* The simulator's node scorers (scorers.h, docs/simulation.md). */
#include "scorers.h"

#include <math.h>
#include <string.h>

#include "rng.h"

/* Random: every feasible node is equally likely (the paper's RandomScore picks one feasible node
 * uniformly); a sharing task takes a uniformly chosen fitting GPU. */
static double score_random(const sim_ctx *ctx, const gp_frag_node *n, const gp_frag_task *t,
                           gp_frag_pick *pick)
{
    if (!gp_frag_fits(n, t) || !gp_frag_pick_bestfit(n, t, pick))
        return GP_FRAG_INFEASIBLE;
    uint64_t h = sim_hash64(ctx->salt ^ sim_hash64((uint64_t)n->id + 0x9e3779b97f4a7c15ULL));
    if (gp_frag_task_is_share(t)) {
        uint64_t best = 0;

        for (int i = 0; i < n->ngpu; i++) {
            uint64_t g = sim_hash64(h + (uint64_t)i + 1);
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
static double score_dotprod(const sim_ctx *ctx, const gp_frag_node *n, const gp_frag_task *t,
                            gp_frag_pick *pick)
{
    (void)ctx;
    if (!gp_frag_fits(n, t) || !gp_frag_pick_bestfit(n, t, pick))
        return GP_FRAG_INFEASIBLE;
    double cpu = (double)n->cpu_free / GP_FRAG_MAX_SPEC_CPU * (double)t->cpu_milli /
                 GP_FRAG_MAX_SPEC_CPU;
    double gpu = (double)gp_frag_gpu_free_total(n) / GP_FRAG_MAX_SPEC_GPU *
                 (double)gp_frag_task_gpu_total(t) / GP_FRAG_MAX_SPEC_GPU;
    return floor(100.0 * (1.0 - (cpu + gpu) / 2.0));
}

/* GpuPacking: a partly used GPU first (100 minus a tenth of the percent free on the GPUs used,
 * at least 50), then fully free GPUs on a used node (50 minus their number, at least 33), then an
 * empty node (33 minus its GPU count, at least that count). CPU-only tasks score 0 everywhere.
 * GPU choice: the fitting GPUs with the least free share first. */
static double score_gpupacking(const sim_ctx *ctx, const gp_frag_node *n, const gp_frag_task *t,
                               gp_frag_pick *pick)
{
    (void)ctx;
    if (!gp_frag_fits(n, t) || !gp_frag_pick_bestfit(n, t, pick))
        return GP_FRAG_INFEASIBLE;
    if (t->num_gpu == 0)
        return 0;
    int idle = gp_frag_gpu_idle(n);
    if (idle == n->ngpu)
        return fmax(33 - idle, idle);
    int whole = 0;
    int64_t pct = 0;
    for (int i = 0; i < pick->n; i++) {
        int32_t f = n->gpu_free[pick->gpu[i]];
        whole += f == GP_FRAG_MILLI;
        pct += f * 100 / GP_FRAG_MILLI;
    }
    if (whole > 0)
        return fmax(50 - whole, 33);
    return fmax((double)(100 - pct / 10), 50);
}

/* BestFit: 100 x (1 - the CPU and GPU left after placement, each over the largest node's and
 * weighted 1/2), truncated to an integer. GPU choice: best fit. */
static double score_bestfit(const sim_ctx *ctx, const gp_frag_node *n, const gp_frag_task *t,
                            gp_frag_pick *pick)
{
    (void)ctx;
    if (!gp_frag_fits(n, t) || !gp_frag_pick_bestfit(n, t, pick))
        return GP_FRAG_INFEASIBLE;
    double cpu = (double)(n->cpu_free - t->cpu_milli) / GP_FRAG_MAX_SPEC_CPU;
    double gpu =
        (double)(gp_frag_gpu_free_total(n) - gp_frag_task_gpu_total(t)) / GP_FRAG_MAX_SPEC_GPU;
    return trunc(100.0 * (1.0 - 0.5 * cpu - 0.5 * gpu));
}

/* The paper's FGD score of a fragmentation decrease d (milli-GPU): 100 x sigmoid(d / 1000),
 * truncated to an integer. */
static double fgd_quantize(double d)
{
    return floor(100.0 / (1.0 + exp(-d / 1000.0)));
}

/* FGD (fragmentation gradient descent), as the paper ran it: the decrease of the node's
 * fragmentation for the workload mix when it takes the task, through 100 x sigmoid(d / 1000)
 * truncated to an integer. A sharing task takes the GPU with the best such score (the lowest
 * index on ties); whole-GPU tasks take the lowest-indexed free GPUs. */
static double score_fgd(const sim_ctx *ctx, const gp_frag_node *n, const gp_frag_task *t,
                        gp_frag_pick *pick)
{
    gp_frag_ctx plain = { .mix = ctx->frag.mix }; /* FGD has no plan for sharing work */

    if (!plain.mix || !gp_frag_fits(n, t))
        return GP_FRAG_INFEASIBLE;
    if (gp_frag_task_is_share(t))
        return gp_frag_share_best(&plain, gp_frag_fgd, fgd_quantize, n, t, pick);
    if (!gp_frag_pick_bestfit(n, t, pick))
        return GP_FRAG_INFEASIBLE;
    gp_frag_node m = *n;
    gp_frag_apply(&m, t, pick);
    return fgd_quantize(gp_frag_fgd(n, plain.mix) - gp_frag_fgd(&m, plain.mix));
}

/* gpupack's own: the extender's fragmentation component, with the simulator's context. */
static double score_gpupack(const sim_ctx *ctx, const gp_frag_node *n, const gp_frag_task *t,
                            gp_frag_pick *pick)
{
    double v = gp_frag_score(&ctx->frag, n, t, pick);

    return ctx->ties_random && v > GP_FRAG_INFEASIBLE ? v + gp_frag_fit_tiebreak(n, t) : v;
}

/* ---- kube-scheduler's own resource scoring (docs/simulation.md, "kube-scheduler's own
 * scoring"): NodeResourcesFit (one of three strategies) + NodeResourcesBalancedAllocation, as
 * kube-scheduler v1.32 computes them in pkg/scheduler/framework/plugins/noderesources. ---- */

#define KUBE_MAX_NODE_SCORE 100  /* framework.MaxNodeScore */
#define KUBE_MAX_CUSTOM_SCORE 10 /* config.MaxCustomPriorityScore, the shape's scale */
#define KUBE_MAX_UTILIZATION 100
/* schedutil.DefaultMilliCPURequest and DefaultMemoryRequest: what NodeResourcesFit counts for a
 * pod that requests no CPU or no memory. */
#define KUBE_DEFAULT_MILLI_CPU 100
#define KUBE_DEFAULT_MEMORY_BYTES (200LL * 1024 * 1024)
#define KUBE_MIB 1048576LL

/* The resources scored, in the order of the configuration's resources list. */
enum { KUBE_CPU, KUBE_MEM, KUBE_GPU, KUBE_NRES };

typedef enum { KUBE_LEAST_ALLOCATED, KUBE_MOST_ALLOCATED, KUBE_REQUESTED_TO_CAPACITY } kube_type;

/* A profile: NodeResourcesFit's scoringStrategy (type, resource weights) and the plugin weights
 * of NodeResourcesFit and NodeResourcesBalancedAllocation (over cpu, memory and, when gpu is set,
 * nvidia.com/gpu, each weight 1 as that plugin requires). Without gpu, neither plugin lists
 * nvidia.com/gpu, as in kube-scheduler's stock configuration. */
typedef struct {
    kube_type type;
    int64_t weight[KUBE_NRES];
    int64_t fit_weight, balanced_weight;
    bool gpu;
} kube_profile;

/* Per resource, the node's allocatable and what is requested on it with the incoming task; an
 * allocatable of 0 marks a resource the plugins skip. CPU in milli-cores, memory in bytes, GPUs
 * in milli-GPU (so a whole-GPU count k of n gives the same integer ratios as kube-scheduler's k
 * GPUs of n, and a share counts as its fraction). */
typedef struct {
    int64_t alloc[KUBE_NRES], req[KUBE_NRES];
} kube_use;

/* The node's allocatable and requested with task t added. nonzero: NodeResourcesFit's view, in
 * which a pod that requests no CPU (memory) counts as 100 milli-cores (200 MB); applied to the
 * incoming task only, as the simulator's node keeps totals, not pods (trace tasks always request
 * CPU, and CPU-only ones memory). BalancedAllocation reads the plain requests. The GPU is
 * skipped, as kube-scheduler skips an extended resource, when the task requests none or the
 * node has none, and always when the profile does not list it (with_gpu false). */
static kube_use kube_use_of(const gp_frag_node *n, const gp_frag_task *t, bool nonzero,
                            bool with_gpu)
{
    kube_use u = { { 0 }, { 0 } };
    int64_t cpu = t->cpu_milli, mem = t->mem_mib * KUBE_MIB, gpu = gp_frag_task_gpu_total(t);

    if (nonzero && cpu == 0)
        cpu = KUBE_DEFAULT_MILLI_CPU;
    if (nonzero && mem == 0)
        mem = KUBE_DEFAULT_MEMORY_BYTES;
    u.alloc[KUBE_CPU] = n->cpu_cap;
    u.req[KUBE_CPU] = n->cpu_cap - n->cpu_free + cpu;
    u.alloc[KUBE_MEM] = n->mem_cap * KUBE_MIB;
    u.req[KUBE_MEM] = (n->mem_cap - n->mem_free) * KUBE_MIB + mem;
    if (with_gpu && gpu > 0 && n->ngpu > 0) {
        u.alloc[KUBE_GPU] = (int64_t)n->ngpu * GP_FRAG_MILLI;
        u.req[KUBE_GPU] = u.alloc[KUBE_GPU] - gp_frag_gpu_free_total(n) + gpu;
    }
    return u;
}

/* LeastAllocated's per-resource score: the free part, 0..100, rounded down; 0 when over. */
static int64_t kube_least(int64_t req, int64_t alloc)
{
    return req > alloc ? 0 : (alloc - req) * KUBE_MAX_NODE_SCORE / alloc;
}

/* MostAllocated's: the used part, 0..100, rounded down; a request over capacity counts as full. */
static int64_t kube_most(int64_t req, int64_t alloc)
{
    return (req > alloc ? alloc : req) * KUBE_MAX_NODE_SCORE / alloc;
}

/* RequestedToCapacityRatio's shape for bin packing (utilization 0 -> score 0, 100 -> 10), its
 * scores scaled by MaxNodeScore / MaxCustomPriorityScore. */
typedef struct {
    int64_t utilization, score;
} kube_point;
static const kube_point kube_binpack_shape[] = { { 0, 0 }, { 100, 10 } };
#define KUBE_SHAPE_N (sizeof(kube_binpack_shape) / sizeof(kube_binpack_shape[0]))

/* The shape's broken linear function at utilization p (helper.BuildBrokenLinearFunction):
 * the first point's score below it, the last's above, integer interpolation between. */
static int64_t kube_shape_at(int64_t p)
{
    const int64_t scale = KUBE_MAX_NODE_SCORE / KUBE_MAX_CUSTOM_SCORE;

    for (size_t i = 0; i < KUBE_SHAPE_N; i++) {
        const kube_point *b = &kube_binpack_shape[i];
        if (p > b->utilization)
            continue;
        if (i == 0)
            return b->score * scale;
        const kube_point *a = &kube_binpack_shape[i - 1];
        return a->score * scale + (b->score - a->score) * scale * (p - a->utilization) /
                                      (b->utilization - a->utilization);
    }
    return kube_binpack_shape[KUBE_SHAPE_N - 1].score * scale;
}

/* RequestedToCapacityRatio's per-resource score: the shape at the utilization in percent,
 * rounded down; at 100% when the request is over capacity. */
static int64_t kube_ratio(int64_t req, int64_t alloc)
{
    return kube_shape_at(req > alloc ? KUBE_MAX_UTILIZATION : req * KUBE_MAX_UTILIZATION / alloc);
}

/* NodeResourcesFit's score, 0..100: the weighted mean of the per-resource scores over the
 * resources not skipped, in integers, rounded down (LeastAllocated, MostAllocated) or to the
 * nearest (RequestedToCapacityRatio, which also leaves resources scoring 0 out of the mean). */
static int64_t kube_fit(const kube_profile *pr, const kube_use *u)
{
    int64_t sum = 0, wsum = 0;

    for (int i = 0; i < KUBE_NRES; i++) {
        if (u->alloc[i] == 0)
            continue;
        int64_t s = pr->type == KUBE_LEAST_ALLOCATED ? kube_least(u->req[i], u->alloc[i])
                    : pr->type == KUBE_MOST_ALLOCATED ? kube_most(u->req[i], u->alloc[i])
                                                      : kube_ratio(u->req[i], u->alloc[i]);
        if (pr->type == KUBE_REQUESTED_TO_CAPACITY && s <= 0)
            continue;
        sum += s * pr->weight[i];
        wsum += pr->weight[i];
    }
    if (wsum == 0)
        return 0;
    if (pr->type == KUBE_REQUESTED_TO_CAPACITY)
        return (int64_t)round((double)sum / (double)wsum);
    return sum / wsum;
}

/* NodeResourcesBalancedAllocation's score, 0..100: 100 x (1 - the standard deviation of the
 * requested fractions, each capped at 1), truncated; with two resources the deviation is
 * |f1 - f2| / 2, with more the population standard deviation, with fewer 0. */
static int64_t kube_balanced(const kube_use *u)
{
    double f[KUBE_NRES], total = 0, sd = 0;
    int k = 0;

    for (int i = 0; i < KUBE_NRES; i++) {
        if (u->alloc[i] == 0)
            continue;
        f[k] = fmin((double)u->req[i] / (double)u->alloc[i], 1.0);
        total += f[k++];
    }
    if (k == 2) {
        sd = fabs((f[0] - f[1]) / 2);
    } else if (k > 2) {
        double mean = total / k, sum = 0;
        for (int i = 0; i < k; i++)
            sum += (f[i] - mean) * (f[i] - mean);
        sd = sqrt(sum / k);
    }
    return (int64_t)((1 - sd) * KUBE_MAX_NODE_SCORE);
}

/* A kube profile's score of node n for task t: the plugins' weighted total (0..200 with plugin
 * weights 1), an integer. GPU choice: best fit. */
static double kube_score(const kube_profile *pr, const gp_frag_node *n, const gp_frag_task *t,
                         gp_frag_pick *pick)
{
    if (!gp_frag_fits(n, t) || !gp_frag_pick_bestfit(n, t, pick))
        return GP_FRAG_INFEASIBLE;
    kube_use fit = kube_use_of(n, t, true, pr->gpu), plain = kube_use_of(n, t, false, pr->gpu);
    return (double)(pr->fit_weight * kube_fit(pr, &fit) +
                    pr->balanced_weight * kube_balanced(&plain));
}

/* kube-scheduler v1.32's stock default profile, as it scores with no configuration:
 * NodeResourcesFit LeastAllocated over cpu and memory (weights 1) + BalancedAllocation over cpu
 * and memory, plugin weights 1. nvidia.com/gpu is not scored: GPUs only filter. */
static double score_kube_stock(const sim_ctx *ctx, const gp_frag_node *n, const gp_frag_task *t,
                               gp_frag_pick *pick)
{
    static const kube_profile pr = { KUBE_LEAST_ALLOCATED, { 1, 1, 0 }, 1, 1, false };

    (void)ctx;
    return kube_score(&pr, n, t, pick);
}

/* The default profile configured to see GPUs: nvidia.com/gpu added to both plugins' resources
 * (weight 1). Not what kube-scheduler does unconfigured: that is kube-stock. */
static double score_kube_default(const sim_ctx *ctx, const gp_frag_node *n,
                                 const gp_frag_task *t, gp_frag_pick *pick)
{
    static const kube_profile pr = { KUBE_LEAST_ALLOCATED, { 1, 1, 1 }, 1, 1, true };

    (void)ctx;
    return kube_score(&pr, n, t, pick);
}

/* The same with NodeResourcesFit's MostAllocated, the docs' weights (extended resource 3). */
static double score_kube_most(const sim_ctx *ctx, const gp_frag_node *n, const gp_frag_task *t,
                              gp_frag_pick *pick)
{
    static const kube_profile pr = { KUBE_MOST_ALLOCATED, { 1, 1, 3 }, 1, 1, true };

    (void)ctx;
    return kube_score(&pr, n, t, pick);
}

/* The same with RequestedToCapacityRatio and the docs' bin-packing shape. */
static double score_kube_binpack(const sim_ctx *ctx, const gp_frag_node *n,
                                 const gp_frag_task *t, gp_frag_pick *pick)
{
    static const kube_profile pr = { KUBE_REQUESTED_TO_CAPACITY, { 1, 1, 3 }, 1, 1, true };

    (void)ctx;
    return kube_score(&pr, n, t, pick);
}

static const sim_scorer scorers[] = {
    { "gpupack", score_gpupack, true,
      "FGD's fragmentation decrease, counting GPUs the node's CPU strands for sharing work, in 40 "
      "milli-GPU buckets, less the pressure of model-constrained work on the node's model and, "
      "for a share joining a partly used GPU off the offline packing plan, 700; ties pack; "
      "CPU-only work avoids free GPUs", false },
    { "random", score_random, false, "any feasible node, uniformly", true },
    { "dotprod", score_dotprod, false, "smallest dot product of free and demand (Tetris)", false },
    { "gpupacking", score_gpupacking, false,
      "partly used GPU, then free GPUs of a used node, then an empty node", false },
    { "bestfit", score_bestfit, false, "least CPU and GPU left after placement", false },
    { "fgd", score_fgd, true, "FGD: least fragmentation growth (Weng et al., ATC '23)", false },
    { "kube-default", score_kube_default, false,
      "kube-scheduler's default strategies configured to see GPUs: NodeResourcesFit "
      "LeastAllocated + BalancedAllocation over cpu, memory and nvidia.com/gpu", false },
    { "kube-mostallocated", score_kube_most, false,
      "kube-scheduler with NodeResourcesFit MostAllocated (cpu 1, memory 1, GPU 3) + "
      "BalancedAllocation", false },
    { "kube-binpack", score_kube_binpack, false,
      "kube-scheduler with NodeResourcesFit RequestedToCapacityRatio (0 -> 0, 100 -> 10; cpu 1, "
      "memory 1, GPU 3) + BalancedAllocation", false },
    { "kube-stock", score_kube_stock, false,
      "kube-scheduler v1.32 unconfigured: NodeResourcesFit LeastAllocated + BalancedAllocation "
      "over cpu and memory only (GPUs not scored)", false },
};

const sim_scorer *sim_scorers(size_t *n)
{
    *n = sizeof(scorers) / sizeof(scorers[0]);
    return scorers;
}

const sim_scorer *sim_scorer_find(const char *name)
{
    for (size_t i = 0; i < sizeof(scorers) / sizeof(scorers[0]); i++)
        if (name && strcmp(scorers[i].name, name) == 0)
            return &scorers[i];
    return NULL;
}

/* The `extender` scorer (sim/extsim.h): not a per-node scorer, so its score is NULL. */
static const sim_scorer extender = {
    "extender", NULL, false,
    "gpupack-extender's whole prioritize (cost, fit, stranding, fragmentation) with the policy",
    false
};

const sim_scorer *sim_scorer_named(const char *name)
{
    return name && !strcmp(name, "extender") ? &extender : sim_scorer_find(name);
}
