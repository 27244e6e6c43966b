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
    return gp_frag_score(&ctx->frag, n, t, pick);
}

static const sim_scorer scorers[] = {
    { "gpupack", score_gpupack, true,
      "FGD's fragmentation decrease, counting GPUs the node's CPU strands for sharing work, in 40 "
      "milli-GPU buckets, less the pressure of model-constrained work on the node's model and, "
      "for a share joining a partly used GPU off the offline packing plan, 700; ties pack; "
      "CPU-only work avoids free GPUs" },
    { "random", score_random, false, "any feasible node, uniformly" },
    { "dotprod", score_dotprod, false, "smallest dot product of free and demand (Tetris)" },
    { "gpupacking", score_gpupacking, false,
      "partly used GPU, then free GPUs of a used node, then an empty node" },
    { "bestfit", score_bestfit, false, "least CPU and GPU left after placement" },
    { "fgd", score_fgd, true, "FGD: least fragmentation growth (Weng et al., ATC '23)" },
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
