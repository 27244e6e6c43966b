/* SPDX-License-Identifier: Apache-2.0 */
/* The node scorers gpupack-sim compares (docs/simulation.md): gpupack's own (gp_frag_score(),
 * the extender's fragmentation component), the paper's baselines, random, dotprod, gpupacking,
 * bestfit and fgd, and kube-scheduler v1.32's own resource scoring in four configurations:
 * kube-default, kube-mostallocated and kube-binpack (NodeResourcesFit's LeastAllocated,
 * MostAllocated or RequestedToCapacityRatio strategy + NodeResourcesBalancedAllocation, over
 * cpu, memory and nvidia.com/gpu), and kube-stock, the scheduler as it scores unconfigured
 * (LeastAllocated + BalancedAllocation over cpu and memory only); in kube-scheduler's integer
 * arithmetic, each returning the plugins' weighted total, 0..200; on the fragmentation model of
 * gpupack/frag.h. Pure: randomness
 * (the `random` scorer) comes from a salt the caller passes in sim_ctx, so the same inputs
 * always give the same answer. */
#ifndef GPUPACK_SIM_SCORERS_H
#define GPUPACK_SIM_SCORERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpupack/frag.h"

/* What a scorer may read besides the task and the node. */
typedef struct {
    gp_frag_ctx frag; /* gpupack: all of it; fgd: the mix (required) */
    uint64_t salt;    /* random: a fresh random number per task */
    bool ties_random; /* the caller breaks ties at random: gpupack adds gp_frag_fit_tiebreak() */
} sim_ctx;

/* Scores node n for task t, higher is better, GP_FRAG_INFEASIBLE when the node cannot take it,
 * and, when feasible, fills *pick with the GPUs the task would take. */
typedef double (*sim_score_fn)(const sim_ctx *ctx, const gp_frag_node *n, const gp_frag_task *t,
                               gp_frag_pick *pick);

typedef struct {
    const char *name;
    sim_score_fn score;
    bool needs_mix;
    const char *summary;
    bool salted; /* reads ctx->salt: its score for a node changes from task to task */
} sim_scorer;

/* The scorers, in a fixed order: gpupack, random, dotprod, gpupacking, bestfit, fgd,
 * kube-default, kube-mostallocated, kube-binpack, kube-stock. */
const sim_scorer *sim_scorers(size_t *n);
/* The scorer called name, or NULL. */
const sim_scorer *sim_scorer_find(const char *name);

/* sim_scorer_find(), or the `extender` scorer (gpupack-extender's whole prioritize, placed by
 * sim/extsim.h: its score is NULL) for "extender". */
const sim_scorer *sim_scorer_named(const char *name);

#endif
