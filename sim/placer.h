/* SPDX-License-Identifier: Apache-2.0 */
/* The simulator's placement decision for one task (docs/simulation.md): the scorer over every
 * node that can take it, the best score winning (ties by node order or at random), with what the
 * scorers read besides the node: the workload mix (given, or learned from the tasks placed so
 * far as gpupack-extender learns it), gpupack's plan for sharing work, the model pressure, and
 * for the `extender` scorer gpupack-extender's whole prioritize over views of the nodes. The
 * paper protocol (sim/run.c) and the time replay (sim/replay.c) place through this one module.
 * Pure: randomness comes from the caller's sim_rng. */
#ifndef GPUPACK_SIM_PLACER_H
#define GPUPACK_SIM_PLACER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "extsim.h"
#include "plan.h"
#include "rng.h"
#include "run.h"

/* The mix learned from the tasks placed so far. */
typedef struct {
    gp_frag_tally tally;
    gp_frag_shape *store, *scratch;
    gp_frag_shape fallback;
    gp_frag_mix mix;
    uint64_t built;          /* tally version the mix was built from */
    uint64_t pressure_built; /* tally version the model pressure was computed for */
    bool daemon_view;        /* count as gpupack-extender's cache does (the extender scorer) */
} sim_learner;

/* Scores remembered per task shape and node, for a scorer whose score depends only on the node
 * and the task (not salted, mix not learned): a node's score is computed again only when the
 * node changed since; whoever changes a node says so with sim_placer_touch(). Exact: the
 * placements are the same with or without it (a unit test replays both ways). */
#define SIM_CACHE_SHAPES 64
#define SIM_CACHE_MAX_BYTES (64u << 20)

typedef struct {
    gp_frag_task key;
    uint64_t used;        /* for least recently used replacement */
    uint32_t *ver;        /* per node: the node's version when scored; 0: never */
    double *score;        /* per node */
    gp_frag_pick *pick;   /* per node */
} sim_cache_slot;

typedef struct {
    size_t nslots;
    sim_cache_slot slot[SIM_CACHE_SHAPES];
    uint32_t *ver; /* each node's version, bumped by sim_placer_touch() */
    uint64_t clock;
} sim_cache;

typedef struct {
    const sim_cfg *cfg;
    size_t n_nodes;
    sim_cache *cache; /* NULL: scores every node on every call */
    sim_ctx ctx;
    sim_plan plan;
    double pressure[GP_FRAG_MAX_MODELS];
    int64_t model_gpus[GP_FRAG_MAX_MODELS];
    bool learning, extending;
    sim_learner learn;
    sim_ext ext;
    gp_frag_shape *ext_shapes, ext_fallback;
    gp_frag_mix ext_mix;
    /* Set by the caller before each sim_placer_best(): bit i set when node i admits the task
     * (labels, taints, cordons: sim/admit.h); NULL: every node does. */
    const uint64_t *admit;
} sim_placer;

/* Prepares to place cfg's scorer on nodes[0..n) named names[i] (the extender scorer's views;
 * both must outlive p). The nodes' capacity and models are read once (the model pressure's GPUs
 * per model); their free state is read on each call. learn_cap bounds the distinct shapes the
 * learned mix may count (the tasks that may be placed). Returns false on allocation failure
 * (nothing to free). */
bool sim_placer_init(sim_placer *p, const sim_cfg *cfg, const gp_frag_node *nodes, size_t n,
                     const char *const *names, size_t learn_cap);
void sim_placer_free(sim_placer *p);

/* The node (an index into nodes[0..n)) the scorer places task t on, -1 when none can take it;
 * fills *pick and adds the nodes scored to *scored. Ties: the earlier node, or with
 * cfg->ties_random a uniformly random one drawn from rng. Draws one salt from rng per call. */
long sim_placer_best(sim_placer *p, const gp_frag_node *nodes, const gp_frag_task *t, sim_rng *rng,
                     gp_frag_pick *pick, uint64_t *scored);

/* Tells the placer that node i (an index into the nodes it places on) changed: a task was
 * placed on it or left it, or it came up or went away. Every change must be told. */
void sim_placer_touch(sim_placer *p, size_t i);

/* Tells the placer that t was placed on n (the learned mix and the extender's typical pod). */
void sim_placer_placed(sim_placer *p, const gp_frag_task *t, const gp_frag_node *n);

/* Tells the placer that t left n (the time replay): uncounted as the extender's cache uncounts a
 * deleted pod. */
void sim_placer_removed(sim_placer *p, const gp_frag_task *t, const gp_frag_node *n);

#endif
