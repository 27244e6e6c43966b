/* SPDX-License-Identifier: Apache-2.0 */
/* The simulator's `extender` scorer: gpupack-extender's whole prioritize (gp_prioritize: cost,
 * fit, stranding and fragmentation, with a policy) over views of the simulated nodes, the way
 * kube-scheduler calls the extender with the nodes its own filters passed (docs/simulation.md). */
#ifndef GPUPACK_SIM_EXTSIM_H
#define GPUPACK_SIM_EXTSIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpupack/frag.h"
#include "gpupack/nodeview.h"
#include "gpupack/policy.h"
#include "gpupack/score.h"

#include "rng.h"

typedef struct {
    const gp_policy *pol;
    const gp_frag_models *models;
    gp_node *views;           /* one per node, names and models set once */
    const gp_node **cand;     /* the candidates of one call */
    size_t *cand_idx;
    gp_score_parts *parts;
    size_t n;
    int64_t sum_gpu, sum_cpu_m, sum_mem_mib; /* GPU tasks placed: the typical pod, as the cache
                                               averages it over bound GPU pods */
    /* The model pressure, as the cache learns it: whole GPUs of the counted tasks per allowed-
     * models mask (mask 0: any model), recomputed when they change. */
    struct {
        uint32_t mask;
        int64_t gpus;
    } kept[GP_FRAG_MAX_MODELS];
    size_t nkept;
    int64_t any_gpus;         /* beyond the masks kept apart: free to run anywhere */
    bool has_pressure;
    bool counting;            /* sim_ext_note() counts (false: fixed by sim_ext_count()) */
    bool stale;
    double pressure[GP_FRAG_MAX_MODELS];
    const char *model_names[GP_FRAG_MAX_MODELS];
    int64_t model_gpus[GP_FRAG_MAX_MODELS]; /* the cluster's GPUs per model (capacity: fixed) */
} sim_ext;

/* Views of nodes[0..n) named names[i] (which must outlive e). Returns false on allocation
 * failure. */
bool sim_ext_init(sim_ext *e, const gp_policy *pol, const gp_frag_models *models,
                  const gp_frag_node *nodes, const char *const *names, size_t n);
void sim_ext_free(sim_ext *e);

/* Counts (sign 1) a placed (or already bound) task towards the typical GPU pod and, unless
 * sim_ext_count() fixed it, the model pressure; sign -1 uncounts one that left, as the
 * extender's cache does for a deleted pod. */
void sim_ext_note(sim_ext *e, const gp_frag_task *t, int sign);

/* Fixes the model pressure to that of tasks[0..n) (the trace's, known in advance). */
void sim_ext_count(sim_ext *e, const gp_frag_task *tasks, size_t n);

/* The node the extender ranks best for whole-GPU or CPU-only task t among the nodes that can
 * take it (CPU, memory, GPUs, model: kube-scheduler's filters and the extender's) and admit it
 * (bit i of admit set for node i; NULL: all), with mix as the workload mix; ties go to the first
 * in node order, or a uniformly random one when rng is set. Fills *pick (the lowest free GPUs)
 * and adds the candidates to *scored. -1 when none. */
long sim_ext_best(sim_ext *e, const gp_frag_node *nodes, const gp_frag_task *t,
                  const uint64_t *admit, const gp_frag_mix *mix, sim_rng *rng, gp_frag_pick *pick,
                  uint64_t *scored);

#endif
