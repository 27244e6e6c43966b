/* SPDX-License-Identifier: Apache-2.0 */
/* One simulation run: the paper's protocol for one scorer and one seed (docs/simulation.md). */
#ifndef GPUPACK_SIM_RUN_H
#define GPUPACK_SIM_RUN_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpupack/frag.h"
#include "gpupack/policy.h"
#include "gpupack/status.h"

#include "admit.h"
#include "scorers.h"

/* The curve: unallocated GPU % at arrived = 0%, 1%, ..., SIM_CURVE_MAX% of capacity. */
#define SIM_CURVE_MAX 200

/* Failed tasks are counted by shape class. */
enum { SIM_CLASS_CPU, SIM_CLASS_SHARE, SIM_CLASS_1, SIM_CLASS_2, SIM_CLASS_4, SIM_CLASS_8,
       SIM_CLASS_OTHER, SIM_CLASSES };
extern const char *const sim_class_names[SIM_CLASSES];

typedef struct {
    const gp_frag_node *nodes; /* the cluster, empty or with bound pods already applied */
    size_t n_nodes;
    const gp_frag_task *tasks; /* the workload, in file order */
    size_t n_tasks;
    const gp_frag_mix *mix;    /* the workload mix (fragmentation metric, fgd, gpupack) */
    const gp_frag_mix *score_mix; /* the scorers' mix when not learned; NULL: mix */
    /* gpupack's model pressure when not learned: every shape of the workload (no popularity
     * cut); NULL: the scorers' mix */
    const gp_frag_mix *pressure_mix;
    bool learn_mix;           /* the scorers learn the mix from the tasks placed so far */
    const gp_frag_task *seen;  /* tasks already on the cluster (bound pods): learned from too */
    size_t n_seen;
    int64_t fallback_cpu;     /* learning with nothing placed yet: one shape, 1 GPU, this CPU */
    /* The `extender` scorer (a scorer whose score is NULL): gp_prioritize with this policy over
     * views of the nodes, which it names and whose models it reads from these. */
    const gp_policy *policy;
    const char *const *node_names;
    const gp_frag_models *models;
    const sim_scorer *scorer;
    uint64_t seed;
    double inflate;     /* resample to this x GPU capacity; <= 0: keep the workload as is */
    bool ties_random;   /* break score ties at random, not by the node permutation */
    bool record;        /* fill sim_result's placements (--placements) */
    bool no_cache;      /* score every node on every call (tests: the placer's cache is exact) */
    /* Which nodes admit each task (sim/admit.h): admit[i] is tasks[i]'s class in admission;
     * NULL: every node admits every task. */
    const uint8_t *admit;
    const sim_admit *admission;
    /* Progress for a watcher on another thread, or NULL: the tasks of the run after inflation,
     * and how many have been tried so far. */
    atomic_size_t *progress_total, *progress_tried;
} sim_cfg;

/* Why a task was left unplaced. */
enum { SIM_WHY_PLACED, SIM_WHY_NO_ROOM, SIM_WHY_TOO_BIG, SIM_WHY_NO_MODEL, SIM_WHY_NOT_ADMITTED };

typedef struct {
    bool reached_100;          /* the arrived GPU request reached 100% of capacity */
    double unalloc_at_100;     /* unallocated GPU % then (or at the end when not reached) */
    double frag_at_100;        /* FGD fragmentation of the cluster then, % of capacity */
    double unalloc_end;        /* unallocated GPU % after the whole workload */
    size_t tasks;              /* after inflation */
    size_t arrived_at_100;     /* tasks tried when the metric was read */
    size_t failed_at_100, failed_all;
    size_t failed_class[SIM_CLASSES]; /* up to the metric */
    int curve_n;               /* curve[0..curve_n) are set */
    double curve[SIM_CURVE_MAX + 1];
    uint64_t node_scores;      /* scorer calls on feasible nodes */
    double seconds;            /* the whole run */
    double us_per_node;        /* placement loop time / node_scores */
    /* With cfg->record, one entry per task tried, in arrival order (malloc'd, freed with
     * sim_result_free()): the task (an index into cfg->tasks), the node it was placed on (an
     * index into cfg->nodes, -1 when unplaced) and, when unplaced, why (SIM_WHY_*). */
    size_t *placed_task;
    long *placed_node;
    uint8_t *placed_why;
} sim_result;

void sim_result_free(sim_result *res);

/* Runs cfg; returns GP_ENOMEM or GP_EINVAL (empty cluster, no GPU). */
gp_status sim_run(const sim_cfg *cfg, sim_result *res, gp_err *err) GP_WUR;

/* The class of a task for failure counts. */
int sim_task_class(const gp_frag_task *t);

#endif
