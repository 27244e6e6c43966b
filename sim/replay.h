/* SPDX-License-Identifier: Apache-2.0 */
/* gpupack-sim --replay (docs/simulation.md, "The replay"): a workload in time (sim/job.h) on
 * node pools with an autoscaler, placed by one scorer through the simulator's placement decision
 * (sim/placer.h), billed per second. Pure: the same inputs and seed give the same result.
 *
 * The model, in the order things happen within one second:
 *   1. pods whose duration is over leave their node;
 *   2. nodes whose provisioning delay is over become ready;
 *   3. the pending pods (higher priority first, then arrival order) are tried again on the
 *      nodes that gained room in 1-2 (a pending pod fitted no other node, so only those can
 *      take it; the scorer still chooses among them);
 *   4. arriving pods are placed by the scorer, or join the pending queue;
 *   5. every scan_s seconds, the autoscaler: scale-up first (pending pods the nodes being
 *      provisioned will not hold are packed first fit onto new nodes of each pool below its
 *      maximum; the pool helping the most pods, then the cheapest, gets that many nodes, one pool
 *      per scan, ready after its provisioning delay); then, when nothing was added, scale-down:
 *      - SIM_DOWN_EMPTY: a node with no pod for unneeded_s is removed;
 *      - SIM_DOWN_CA: cluster-autoscaler's rule: a node whose GPU requests / allocatable
 *        (CPU and memory for a node without GPUs: the larger) is below util_threshold, whose
 *        pods are all Deployment pods (Job pods and bare pods are not moved) and fit on other
 *        nodes (first fit, room shared between the nodes checked in one scan), for unneeded_s,
 *        and no scale-up for delay_after_add_s; at most max_candidates non-empty nodes checked
 *        per scan, those found unneeded before first, then the least used; up to 10 empty
 *        nodes and 1 drained node removed per scan. A drained node's pods are placed again by
 *        the scorer at once.
 *   6. every sample_s seconds, a sample of the time series.
 * No pool goes below its minimum (those nodes are up from the start) or above its maximum.
 * A pod runs for its duration from the moment it is first placed (an evicted pod keeps its end).
 * Billing: per second from ready to removal, at least min_bill_s per node, counted inside the
 * measured window [measure_from_s, end_s); pending times of the pods arriving inside it. */
#ifndef GPUPACK_SIM_REPLAY_H
#define GPUPACK_SIM_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpupack/frag.h"
#include "gpupack/status.h"
#include "job.h"
#include "run.h"

#define SIM_POOL_NAME_LEN 64
#define SIM_MAX_POOLS 64
#define SIM_MAX_NODES_REPLAY 200000 /* the pools' maximums added up */

typedef struct {
    char name[SIM_POOL_NAME_LEN];
    char instance_type[SIM_POOL_NAME_LEN]; /* may be empty */
    gp_frag_node node;    /* an empty node of the pool: CPU, memory, GPUs and their model */
    double on_demand;     /* $/hour per node */
    double spot;          /* $/hour per node at the spot price */
    bool use_spot;        /* its nodes are bought at the spot price */
    int min_nodes, max_nodes;
    int64_t provision_s;  /* from the scale-up decision to the node being ready */
} sim_pool;

/* The $/hour one node of pool p is billed at. */
double sim_pool_price(const sim_pool *p);

typedef enum { SIM_DOWN_EMPTY = 0, SIM_DOWN_CA = 1 } sim_down_mode;

typedef struct {
    const sim_pool *pools;
    size_t n_pools;
    const sim_job *jobs;      /* sorted by arrive */
    size_t n_jobs;
    /* The placement's inputs (sim/placer.h): scorer, mixes, policy, models, seed, ties_random;
     * tasks/n_tasks the workload known in advance (the extender's model pressure); its nodes,
     * node_names, inflate and record fields are not read. */
    const sim_cfg *place;
    int64_t end_s;            /* the replay stops here */
    int64_t measure_from_s;   /* the report counts from here (before it: warm-up) */
    sim_down_mode down;
    int64_t unneeded_s;       /* 600 */
    double util_threshold;    /* 0.5 */
    int64_t scan_s;           /* 10 */
    int64_t delay_after_add_s; /* 600 (SIM_DOWN_CA) */
    int max_candidates;       /* 30 (SIM_DOWN_CA) */
    int64_t min_bill_s;       /* 60 */
    int64_t sample_s;         /* 0: no time series */
} sim_replay_cfg;

/* The defaults above, with end_s and the inputs left to set. */
void sim_replay_defaults(sim_replay_cfg *c);

typedef struct {
    double node_s;            /* billed node-seconds */
    double dollars;
    double gpu_alloc_s;       /* GPU-seconds allocated on its nodes (GPUs, shares summed) */
    double gpu_up_s;          /* GPU-seconds of its nodes up */
    int peak_nodes;
    size_t scale_ups;         /* nodes added */
    size_t removals;          /* nodes removed */
} sim_pool_result;

typedef struct {
    double gpu_node_hours;    /* node-hours of the pools with GPUs */
    double node_hours;        /* all pools */
    double dollars;
    double gpu_hours_alloc;   /* GPU-hours delivered (allocated) */
    double dollars_per_gpu_hour; /* dollars / gpu_hours_alloc (0 when nothing was allocated) */
    double mean_gpu_alloc;    /* GPU-seconds allocated / GPU-seconds up, 0..1 */
    double pending_p50_s, pending_p99_s, pending_mean_s; /* pods arriving in the window; a pod
                                                           never placed counts its wait to the end */
    size_t pods;              /* arriving in the window */
    size_t never_placed;      /* of those, not placed by the end */
    size_t evictions;         /* pods moved off drained nodes */
    int peak_nodes;
    sim_pool_result pools[SIM_MAX_POOLS];
    size_t n_samples;         /* samples at t = i * sample_s */
    int32_t *nodes_up;
    double *gpus_alloc;
    int32_t *pending;
    uint64_t node_scores;     /* scorer calls */
    double seconds;           /* wall time of the run */
} sim_replay_result;

void sim_replay_result_free(sim_replay_result *r);

/* Runs the replay. Returns GP_EINVAL (err says why: no pool, a job no pool's node can ever
 * hold, bad settings) or GP_ENOMEM. */
gp_status sim_replay(const sim_replay_cfg *cfg, sim_replay_result *res, gp_err *err) GP_WUR;

/* The first job no node of any pool can hold even when empty, or -1. */
long sim_replay_unplaceable(const sim_pool *pools, size_t n_pools, const sim_job *jobs,
                            size_t n_jobs);

#endif
