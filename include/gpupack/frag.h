/* SPDX-License-Identifier: Apache-2.0 */
/* gpupack's fragmentation model: GPU nodes and tasks per device, FGD's fragmentation measure and
 * gpupack's (docs/simulation.md), the workload mix they are measured for, and gpupack's node
 * scorer, gp_frag_score(): the fragmentation component of gpupack-extender's prioritize and the
 * `gpupack` scorer of gpupack-sim are this one function. The extender's node views convert into
 * the model here (gp_frag_from_view()), and the simulator's nodes into views, so both programs
 * share one mapping.
 *
 * A node is CPU (milli-cores), memory (MiB) and up to GP_FRAG_MAX_GPUS GPUs, each with a free share
 * in milli-GPU (0..1000), all of one model. A task asks for CPU, memory, num_gpu GPUs and
 * gpu_milli of each, optionally only on some models:
 *   - num_gpu == 0: CPU and memory only;
 *   - num_gpu == 1 and gpu_milli < 1000: a sharing task, needing one GPU with that much free
 *     (only the simulator has them: a Kubernetes pod cannot request a fraction of a GPU);
 *   - otherwise: num_gpu GPUs that are fully free (free == 1000).
 * Which GPU(s) a task takes is part of a scorer's decision: it returns them in a gp_frag_pick
 * that gp_frag_apply() then commits.
 *
 * Everything here is pure: no I/O, no clock, no globals. */
#ifndef GPUPACK_FRAG_H
#define GPUPACK_FRAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpupack/nodeview.h"
#include "gpupack/status.h"

#define GP_FRAG_MAX_GPUS 16
#define GP_FRAG_MILLI 1000
/* GPU models a gp_frag_models table holds (a task's allowed models are a 32-bit mask). */
#define GP_FRAG_MAX_MODELS 32
#define GP_FRAG_MODEL_LEN 32
/* The score of a node that cannot take the task. Every feasible score is greater. */
#define GP_FRAG_INFEASIBLE (-1e300)
/* The largest node of the paper's simulator (128 cores, 8 GPUs): the simulator's DotProd and
 * BestFit and gp_frag_score()'s tie-break for CPU-only tasks normalise by it. */
#define GP_FRAG_MAX_SPEC_CPU 128000
#define GP_FRAG_MAX_SPEC_GPU 8000

/* Interned GPU model names: a model's id is its index. Zero-initialise. */
typedef struct {
    int n;
    char name[GP_FRAG_MAX_MODELS][GP_FRAG_MODEL_LEN];
} gp_frag_models;

/* The id of model name[0..len), added when new. Returns -1 when the table is full or the name is
 * empty or longer than GP_FRAG_MODEL_LEN - 1. */
int gp_frag_models_id(gp_frag_models *m, const char *name, size_t len);

typedef struct {
    uint32_t id; /* the caller's index (the simulator's `random` scorer hashes it) */
    int64_t cpu_cap, cpu_free; /* milli-cores */
    int64_t mem_cap, mem_free; /* MiB */
    int ngpu;                  /* 0..GP_FRAG_MAX_GPUS */
    int model;                 /* id in a gp_frag_models table, -1 when none */
    int32_t gpu_free[GP_FRAG_MAX_GPUS];
} gp_frag_node;

typedef struct {
    int64_t cpu_milli;
    int64_t mem_mib;
    int num_gpu;     /* 0..GP_FRAG_MAX_GPUS */
    int gpu_milli;   /* per GPU, 0..1000; 0 when num_gpu == 0 */
    uint32_t models; /* bit i set: model id i allowed; 0: any model */
} gp_frag_task;

/* Which GPUs of a node a task takes (indices into gpu_free). */
typedef struct {
    int n;
    int8_t gpu[GP_FRAG_MAX_GPUS];
} gp_frag_pick;

/* An empty node (all GPUs fully free). ngpu is clamped to 0..GP_FRAG_MAX_GPUS. */
void gp_frag_node_init(gp_frag_node *n, uint32_t id, int64_t cpu_milli, int64_t mem_mib, int ngpu,
                       int model);

/* True when the task's shape is one the model accepts (see the top of this file); on false, err
 * says why. */
bool gp_frag_task_valid(const gp_frag_task *t, gp_err *err);

/* True when a sharing task (num_gpu 1, gpu_milli < 1000). */
bool gp_frag_task_is_share(const gp_frag_task *t);

/* The task's whole GPU request in milli-GPU (num_gpu x gpu_milli). */
int64_t gp_frag_task_gpu_total(const gp_frag_task *t);

/* True when the node's model is one the task allows (always, for a CPU-only task). */
bool gp_frag_model_ok(const gp_frag_node *n, const gp_frag_task *t);

/* True when the node can take the task now: CPU, memory, model and GPUs. */
bool gp_frag_fits(const gp_frag_node *n, const gp_frag_task *t);

/* The free milli-GPU of all the node's GPUs. */
int64_t gp_frag_gpu_free_total(const gp_frag_node *n);

/* The number of fully free GPUs. */
int gp_frag_gpu_idle(const gp_frag_node *n);

/* The default GPU choice: a sharing task takes the fitting GPU with the least free share (lowest
 * index on ties); a whole-GPU task the lowest-indexed fully free GPUs; a CPU-only task none.
 * Returns false (and an empty pick) when the GPUs cannot take the task. */
bool gp_frag_pick_bestfit(const gp_frag_node *n, const gp_frag_task *t, gp_frag_pick *pick);

/* True when a and b ask for the same: CPU, memory, GPUs, share and models (a shape with its
 * memory, which gp_frag_shape_cmp() leaves out). */
bool gp_frag_task_same(const gp_frag_task *a, const gp_frag_task *b);

/* Commits a placement chosen for this task on this node; returns false and leaves the node
 * unchanged when the pick or the resources do not fit. */
bool gp_frag_apply(gp_frag_node *n, const gp_frag_task *t, const gp_frag_pick *pick);

/* Undoes gp_frag_apply() of the same task and pick (a task that leaves, in the time replay).
 * Returns false and leaves the node unchanged when it would free more than the capacity. */
bool gp_frag_release(gp_frag_node *n, const gp_frag_task *t, const gp_frag_pick *pick);

/* ---- The workload mix: task shapes and how often each arrives (FGD's "target workload"). ---- */

typedef struct {
    gp_frag_task shape; /* mem_mib is 0: the paper's shapes ignore memory */
    double freq;        /* 0..1; the frequencies of a mix sum to 1 */
} gp_frag_shape;

typedef struct {
    size_t n;
    gp_frag_shape *shapes; /* most frequent first */
} gp_frag_mix;

/* The order of shapes: CPU, then per-GPU share, GPU count and allowed models, ascending (<0, 0,
 * >0 as strcmp; memory is not compared). */
int gp_frag_shape_cmp(const gp_frag_task *a, const gp_frag_task *b);

/* The selection step of a mix on shapes already counted: shapes[i].freq holds a count (shapes
 * with count 0 are dropped). Sorts shapes[0..n) in place, most common first (ties in
 * gp_frag_shape_cmp() order), keeps the first ones until they cover popularity_pct % of the total
 * count or max shapes are kept, and normalises the kept counts to frequencies summing to 1.
 * Returns the number kept (0 when every count is 0). */
size_t gp_frag_mix_select(gp_frag_shape *shapes, size_t n, int popularity_pct, size_t max);

/* A running count of task shapes, to learn the mix from the tasks seen so far (the extender's pod
 * watch, `gpupack-sim --mix learned`). Fixed storage the caller provides; a shape whose count
 * falls to 0 frees its slot. Shapes beyond the storage are counted as untracked only. */
typedef struct {
    gp_frag_shape *slot; /* freq holds the count */
    size_t n, cap;
    uint64_t untracked;
    uint64_t version;    /* changes whenever a count does */
} gp_frag_tally;

void gp_frag_tally_init(gp_frag_tally *t, gp_frag_shape *storage, size_t cap);
/* Counts (sign > 0) or uncounts (sign < 0) one task of this shape (memory ignored). */
void gp_frag_tally_add(gp_frag_tally *t, const gp_frag_task *shape, int sign);
/* The mix of the counted shapes as gp_frag_mix_select() makes it: copies the counted shapes into
 * scratch (room for t->n), selects, and returns the number kept (0: nothing counted). */
size_t gp_frag_tally_mix(const gp_frag_tally *t, gp_frag_shape *scratch, int popularity_pct,
                         size_t max);

/* What the learned mix needs to know of a bound task besides its resources. */
typedef struct {
    bool next_to_gpus; /* bound to a node with whole GPUs */
    bool daemonset;    /* a DaemonSet's pod: it runs on every node whatever the scheduler does */
    bool mig;          /* holds MIG slices: a MIG node's fixed partition, not CPU-only work */
} gp_frag_bound;

/* Which bound tasks the learned workload mix counts, and as what: the one rule of
 * gpupack-extender's pod watch (lib/cache.c) and of gpupack-sim (`--mix learned`, the `extender`
 * scorer). A whole-GPU task counts; so does a CPU-only task bound next to whole GPUs, which
 * competes with GPU tasks for that node's CPU, unless it is a DaemonSet's or holds MIG slices.
 * A sharing task does not (Kubernetes cannot request one). When it counts, *shape is its shape,
 * (GPUs, CPU) without memory or model constraints, and it returns true. */
bool gp_frag_mix_counts(const gp_frag_task *t, const gp_frag_bound *b, gp_frag_task *shape);

/* The mix's stand-in before any task has been seen: a 1-GPU task with this CPU, frequency 1. */
gp_frag_shape gp_frag_default_shape(int64_t cpu_milli);

/* ---- Fragmentation ---- */

/* FGD's fragmentation of a node for a mix, in milli-GPU: for each shape (weighted by its
 * frequency), the free GPU share the shape cannot use. When the node can host the shape, that is
 * the free share of the GPUs too small for it (Q3); when it cannot (no access to the model, not
 * enough CPU, not enough GPUs; Q1, Q2, Q4) and for CPU-only shapes (the XL/XR cases), all of it. */
double gp_frag_fgd(const gp_frag_node *n, const gp_frag_mix *mix);

/* gpupack's fragmentation measure: gp_frag_fgd() except that a sharing shape (one GPU, share
 * below 1000) needing c milli-cores can use only as many of its fitting GPUs as the node has CPU
 * for tasks of it, floor(CPU free / c), the ones with the most free share; the free share of the
 * other fitting GPUs counts too. FGD counts a node's share as lost to a shape only when not one
 * task of it fits (Q4); this counts the part that CPU strands before the GPUs fill. Equal to
 * gp_frag_fgd() when the CPU feeds every fitting GPU and for mixes without sharing shapes (the
 * extender's). */
double gp_frag_gpupack(const gp_frag_node *n, const gp_frag_mix *mix);

/* The pressure of model-constrained work on each GPU model, into out[0..GP_FRAG_MAX_MODELS):
 * for each model-constrained GPU shape of the mix, its GPU demand (frequency x GPUs) spread over
 * the GPUs of its allowed models, summed per model, relative to the whole mix's GPU demand per
 * GPU of the cluster. 1 means the constrained shapes alone would use all of the model's GPUs if
 * the workload filled the cluster; 0 for a model no constrained shape names. model_gpus[i] is
 * the cluster's GPU count (capacity) of model i. Cheap enough to recompute when the mix or the
 * node list changes. Give it every shape seen, not a popularity-cut mix: constrained shapes are
 * rare one by one and add up. Frequencies may be plain counts: only ratios count. */
void gp_frag_model_pressure(const gp_frag_mix *mix, const int64_t model_gpus[GP_FRAG_MAX_MODELS],
                            double out[GP_FRAG_MAX_MODELS]);

/* ---- Scoring: higher is better; GP_FRAG_INFEASIBLE when the node cannot take the task. ---- */

/* What gp_frag_score() reads besides the task and the node. */
typedef struct {
    const gp_frag_mix *mix; /* the workload mix (required) */
    /* Optional (NULL: none): per GPU model id, how much of that model's GPUs the mix's
     * model-constrained shapes claim, from gp_frag_model_pressure(). A cluster-wide summary: the
     * mix and the cluster's GPU count per model, not its free state. */
    const double *model_pressure;
    /* Optional (NULL: none): what a sharing task of share milli-GPU pays, in milli-GPU of
     * fragmentation, for joining a GPU with taken milli-GPU already taken; share_arg is passed
     * back. The simulator's plan for sharing work (sim/plan.h) is one. */
    double (*share_cost)(const void *share_arg, int32_t share, int32_t taken);
    const void *share_arg;
} gp_frag_ctx;

/* A fragmentation measure: gp_frag_fgd() or gp_frag_gpupack(). */
typedef double (*gp_frag_measure_fn)(const gp_frag_node *n, const gp_frag_mix *mix);

/* The GPU of n with the highest value for sharing task t, a GPU's value being the decrease of
 * measure for ctx->mix when t takes it, less ctx->share_cost when set, through scale when not
 * NULL. Of GPUs with the same free share only the first is tried (placing there changes the node
 * the same way), and the lowest index wins ties. Returns the value and fills *pick;
 * GP_FRAG_INFEASIBLE and an empty pick when no GPU has room. */
double gp_frag_share_best(const gp_frag_ctx *ctx, gp_frag_measure_fn measure,
                          double (*scale)(double), const gp_frag_node *n, const gp_frag_task *t,
                          gp_frag_pick *pick);

/* gpupack's bucket width in milli-GPU: gp_frag_score() is floor(fragmentation decrease / this),
 * plus a fraction below 1 for CPU-only tasks. */
#define GP_FRAG_BUCKET 40.0

/* The tie-break inside a bucket of gp_frag_score() for a task asking for GPUs when ties are
 * broken at random (kube-scheduler picks among equal scores at random, which spreads pods where a
 * fixed node order packs them): the GPUs taken on the node after the placement, over
 * GP_FRAG_MAX_GPUS, times 0.5, in [0, 0.5]: the node that stays busiest wins, so lightly used
 * nodes empty and the autoscaler can remove them (docs/simulation.md, "The replay").
 * gpupack-extender adds the same to its fragmentation component (score.c). 0 for a CPU-only
 * task or a node without GPUs. */
double gp_frag_fit_tiebreak(const gp_frag_node *n, const gp_frag_task *t);

/* gpupack's score of node n for task t: the decrease of gp_frag_gpupack() for ctx->mix when the
 * node takes the task, less the model pressure and share cost the context states, cut into
 * GP_FRAG_BUCKET-wide buckets; CPU-only tasks break ties in favour of nodes with less free GPU
 * share. When feasible, fills *pick with the GPUs the task would take. */
double gp_frag_score(const gp_frag_ctx *ctx, const gp_frag_node *n, const gp_frag_task *t,
                     gp_frag_pick *pick);

/* ---- Node views (nodeview.h): the one mapping between the extender's and this model ---- */

/* The node view as this model sees it: its whole GPUs, the free ones first (whole-GPU pods take
 * any free GPU alike, so which ones are busy does not matter), CPU and memory (a capacity the
 * view does not report does not constrain); id 0, model -1. False for a node without whole GPUs
 * (MIG slices are partitions the MIG manager fixed: a placement cannot fragment them) or with
 * more than GP_FRAG_MAX_GPUS. */
bool gp_frag_from_view(const gp_node *v, gp_frag_node *out);

/* Sets the node view's capacity and usage from n: whole GPUs (allocatable, in use), CPU,
 * memory, and "running GPU work" (gpu_pods 1) when any GPU share is taken. The rest of the view
 * (name, labels, pods) is the caller's. */
void gp_frag_to_view(const gp_frag_node *n, gp_node *v);

/* A pod's usage as a task: its whole GPUs, CPU and memory (rounded up to MiB). MIG slices are not
 * whole GPUs: a MIG-only pod weighs on a node's whole GPUs through its CPU and memory only. False
 * for more than GP_FRAG_MAX_GPUS GPUs. */
bool gp_frag_task_from_usage(const gp_usage *u, gp_frag_task *out);

/* The task as a pod's usage: GPUs, CPU and memory, no MIG slices. */
void gp_frag_task_to_usage(const gp_frag_task *t, gp_usage *out);

#endif
