/* SPDX-License-Identifier: Apache-2.0 */
/* The per-device GPU model and the node scorers the simulator compares (docs/simulation.md).
 *
 * A node is CPU (milli-cores), memory (MiB) and up to GP_DEV_MAX_GPUS GPUs, each with a free share
 * in milli-GPU (0..1000), all of one model. A task asks for CPU, memory, num_gpu GPUs and
 * gpu_milli of each, optionally only on some models:
 *   - num_gpu == 0: CPU and memory only;
 *   - num_gpu == 1 and gpu_milli < 1000: a sharing task, needing one GPU with that much free;
 *   - otherwise: num_gpu GPUs that are fully free (free == 1000).
 * Which GPU(s) a task takes is part of each scorer's decision: scorers return it in a gp_dev_pick
 * that gp_dev_apply() then commits.
 *
 * Everything here is pure: no I/O, no clock, no globals. Randomness (the `random` scorer) comes
 * from a salt the caller passes in gp_dev_ctx, so the same inputs always give the same answer.
 * The PRNG (splitmix64 seeding xoshiro256**) is here too, so the simulator's runs are the same on
 * every machine. */
#ifndef GPUPACK_GPUDEV_H
#define GPUPACK_GPUDEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpupack/status.h"

#define GP_DEV_MAX_GPUS 16
#define GP_DEV_MILLI 1000
/* GPU models a gp_dev_models table holds (a task's allowed models are a 32-bit mask). */
#define GP_DEV_MAX_MODELS 32
#define GP_DEV_MODEL_LEN 32
/* The score of a node that cannot take the task. Every feasible score is greater. */
#define GP_DEV_INFEASIBLE (-1e300)
/* Normalisation constants of the paper's simulator for DotProd and BestFit: the largest node
 * (128 cores, 8 GPUs). */
#define GP_DEV_MAX_SPEC_CPU 128000
#define GP_DEV_MAX_SPEC_GPU 8000

/* Interned GPU model names: a model's id is its index. Zero-initialise. */
typedef struct {
    int n;
    char name[GP_DEV_MAX_MODELS][GP_DEV_MODEL_LEN];
} gp_dev_models;

/* The id of model name[0..len), added when new. Returns -1 when the table is full or the name is
 * empty or longer than GP_DEV_MODEL_LEN - 1. */
int gp_dev_models_id(gp_dev_models *m, const char *name, size_t len);

typedef struct {
    uint32_t id; /* the caller's index; only the `random` scorer reads it (as a hash input) */
    int64_t cpu_cap, cpu_free; /* milli-cores */
    int64_t mem_cap, mem_free; /* MiB */
    int ngpu;                  /* 0..GP_DEV_MAX_GPUS */
    int model;                 /* id in a gp_dev_models table, -1 when none */
    int32_t gpu_free[GP_DEV_MAX_GPUS];
} gp_dev_node;

typedef struct {
    int64_t cpu_milli;
    int64_t mem_mib;
    int num_gpu;     /* 0..GP_DEV_MAX_GPUS */
    int gpu_milli;   /* per GPU, 0..1000; 0 when num_gpu == 0 */
    uint32_t models; /* bit i set: model id i allowed; 0: any model */
} gp_dev_task;

/* Which GPUs of a node a task takes (indices into gpu_free). */
typedef struct {
    int n;
    int8_t gpu[GP_DEV_MAX_GPUS];
} gp_dev_pick;

/* An empty node (all GPUs fully free). ngpu is clamped to 0..GP_DEV_MAX_GPUS. */
void gp_dev_node_init(gp_dev_node *n, uint32_t id, int64_t cpu_milli, int64_t mem_mib, int ngpu,
                      int model);

/* True when the task's shape is one the model accepts (see the top of this file); on false, err
 * says why. */
bool gp_dev_task_valid(const gp_dev_task *t, gp_err *err);

/* True when a sharing task (num_gpu 1, gpu_milli < 1000). */
bool gp_dev_task_is_share(const gp_dev_task *t);

/* The task's whole GPU request in milli-GPU (num_gpu x gpu_milli). */
int64_t gp_dev_task_gpu_total(const gp_dev_task *t);

/* True when the node's model is one the task allows (always, for a CPU-only task). */
bool gp_dev_model_ok(const gp_dev_node *n, const gp_dev_task *t);

/* True when the node can take the task now: CPU, memory, model and GPUs. */
bool gp_dev_fits(const gp_dev_node *n, const gp_dev_task *t);

/* The free milli-GPU of all the node's GPUs. */
int64_t gp_dev_gpu_free_total(const gp_dev_node *n);

/* The number of fully free GPUs. */
int gp_dev_gpu_idle(const gp_dev_node *n);

/* The default GPU choice: a sharing task takes the fitting GPU with the least free share (lowest
 * index on ties); a whole-GPU task the lowest-indexed fully free GPUs; a CPU-only task none.
 * Returns false (and an empty pick) when the GPUs cannot take the task. */
bool gp_dev_pick_bestfit(const gp_dev_node *n, const gp_dev_task *t, gp_dev_pick *pick);

/* Commits / undoes a placement chosen for this task on this node. gp_dev_apply() returns false and
 * leaves the node unchanged when the pick or the resources do not fit; gp_dev_remove() returns
 * false and leaves it unchanged when undoing would exceed a capacity. */
bool gp_dev_apply(gp_dev_node *n, const gp_dev_task *t, const gp_dev_pick *pick);
bool gp_dev_remove(gp_dev_node *n, const gp_dev_task *t, const gp_dev_pick *pick);

/* ---- The workload mix: task shapes and how often each arrives (FGD's "target workload"). ---- */

typedef struct {
    gp_dev_task shape; /* mem_mib is 0: the paper's shapes ignore memory */
    double freq;       /* 0..1; the frequencies of a mix sum to 1 */
} gp_dev_shape;

typedef struct {
    size_t n;
    gp_dev_shape *shapes; /* most frequent first */
} gp_dev_mix;

/* How a mix is built from a task list. The paper's settings: popularity 95, cpu_tasks true. */
typedef struct {
    int popularity_pct; /* keep the most common shapes until they cover this % of the tasks */
    bool cpu_tasks;     /* count CPU-only tasks as shapes */
    double gpu_weight;  /* a whole-GPU task counts 1 + gpu_weight x num_gpu times (paper: 0) */
} gp_dev_mix_opts;

/* Counts the shapes (CPU, GPU count, per-GPU share, allowed models) of tasks[0..n), keeps the most
 * common ones (by count, then by CPU, share, GPU count, models ascending) until they cover
 * opts->popularity_pct % of the tasks, and normalises their frequencies to sum to 1. The caller
 * frees with gp_dev_mix_free(). Returns GP_ENOMEM, or GP_EINVAL when no task counts. */
gp_status gp_dev_mix_build(const gp_dev_task *tasks, size_t n, const gp_dev_mix_opts *opts,
                           gp_dev_mix *out, gp_err *err) GP_WUR;
void gp_dev_mix_free(gp_dev_mix *m);

/* The selection step of gp_dev_mix_build() on shapes already counted: shapes[i].freq holds a
 * count (shapes with count 0 are dropped). Sorts shapes[0..n) in place, most common first (ties
 * in ascending shape order), keeps the first ones until they cover popularity_pct % of the total
 * count or max shapes are kept, and normalises the kept counts to frequencies summing to 1.
 * Returns the number kept (0 when every count is 0). The extender uses it on the counts its pod
 * watch keeps. */
size_t gp_dev_mix_select(gp_dev_shape *shapes, size_t n, int popularity_pct, size_t max);

/* A running count of task shapes, to learn the mix from the tasks seen so far (the extender's pod
 * watch, `gpupack-sim --mix learned`). Fixed storage the caller provides; a shape whose count
 * falls to 0 frees its slot. Shapes beyond the storage are counted as untracked only. */
typedef struct {
    gp_dev_shape *slot; /* freq holds the count */
    size_t n, cap;
    uint64_t untracked;
    uint64_t version;   /* changes whenever a count does */
} gp_dev_tally;

void gp_dev_tally_init(gp_dev_tally *t, gp_dev_shape *storage, size_t cap);
/* Counts (sign > 0) or uncounts (sign < 0) one task of this shape (memory ignored). */
void gp_dev_tally_add(gp_dev_tally *t, const gp_dev_task *shape, int sign);
/* The mix of the counted shapes as gp_dev_mix_select() makes it: copies the counted shapes into
 * scratch (room for t->n), selects, and returns the number kept (0: nothing counted). */
size_t gp_dev_tally_mix(const gp_dev_tally *t, gp_dev_shape *scratch, int popularity_pct,
                        size_t max);

/* The shape gpupack-extender's pod watch counts for a bound task (its learned mix, lib/cache.c;
 * `gpupack-sim --scorer extender --mix learned` counts the same): a whole-GPU task, or a CPU-only
 * task bound next to whole GPUs (next_to_gpus), as (GPUs, CPU) without memory or model
 * constraints. False for a task it does not count: a sharing task (Kubernetes cannot request
 * one) or a CPU-only task elsewhere. */
bool gp_dev_watch_shape(const gp_dev_task *t, bool next_to_gpus, gp_dev_task *out);

/* The mix's stand-in before any pod has been seen: a 1-GPU task with this CPU, frequency 1. */
gp_dev_shape gp_dev_default_shape(int64_t cpu_milli);

/* FGD's fragmentation of a node for a mix, in milli-GPU: for each shape (weighted by its
 * frequency), the free GPU share the shape cannot use. When the node can host the shape, that is
 * the free share of the GPUs too small for it (Q3); when it cannot (no access to the model, not
 * enough CPU, not enough GPUs; Q1, Q2, Q4) and for CPU-only shapes (the XL/XR cases), all of it. */
double gp_dev_frag(const gp_dev_node *n, const gp_dev_mix *mix);

/* gpupack's fragmentation measure: gp_dev_frag() except that a sharing shape (one GPU, share
 * below 1000) needing c milli-cores can use only as many of its fitting GPUs as the node has CPU
 * for tasks of it, floor(CPU free / c), the ones with the most free share; the free share of the
 * other fitting GPUs counts too. FGD counts a node's share as lost to a shape only when not one
 * task of it fits (Q4); this counts the part that CPU strands before the GPUs fill. Equal to
 * gp_dev_frag() when the CPU feeds every fitting GPU and for mixes without sharing shapes (the
 * extender's). */
double gp_dev_frag_gpupack(const gp_dev_node *n, const gp_dev_mix *mix);

/* gpupack's plan for sharing work: which partly used GPUs a share may join. Built from the
 * mix's sharing shapes (one GPU, share below 1000) by packing a sample of GP_DEV_PLAN_SAMPLE of
 * them offline, first fit decreasing, the way an offline packer pairs them (470 + 470,
 * 650 + 320, 810 + 160, ...); a share s may join a GPU with u milli-GPU taken when one of those
 * GPUs holds s and other shares that sum to u. Held at 10 milli-GPU steps (a share or a sum is
 * rounded down). Every sharing shape of the mix is in the sample at least once. */
#define GP_DEV_PLAN_SAMPLE 1000
#define GP_DEV_PLAN_STEPS 101 /* 0, 10, ..., 1000 milli-GPU */
#define GP_DEV_PLAN_MAX_SIZES 64
typedef struct {
    bool any; /* false: the mix has no sharing shape (no share is ever off the plan) */
    uint8_t good[GP_DEV_PLAN_STEPS][(GP_DEV_PLAN_STEPS + 7) / 8]; /* [share step][taken step] */
    uint8_t known[(GP_DEV_PLAN_STEPS + 7) / 8]; /* share steps the sample has (others: no plan) */
    /* The sample it was built from (share sizes and copies), so that rebuilding from a mix
     * whose sample is the same costs no packing. */
    size_t nsizes;
    int32_t size[GP_DEV_PLAN_MAX_SIZES], copies[GP_DEV_PLAN_MAX_SIZES];
} gp_dev_plan;

/* Builds (or keeps, when the mix gives the same sample) the plan for mix into *p. Zero-initialise
 * *p before the first call. Returns false when nothing changed. Sharing sizes beyond
 * GP_DEV_PLAN_MAX_SIZES (the rarest) are left out of the sample. */
bool gp_dev_plan_build(const gp_dev_mix *mix, gp_dev_plan *p);

/* True when a share of share milli-GPU may join a GPU with taken milli-GPU already taken under
 * plan p: always for an untaken GPU, for a share the plan does not know, and when p is NULL or
 * has no sharing shapes. */
bool gp_dev_plan_fits(const gp_dev_plan *p, int32_t share, int32_t taken);

/* What a sharing task pays, in milli-GPU of fragmentation, for joining a partly used GPU off the
 * plan: about the fragmentation FGD's measure charges for breaking into an empty 8-GPU node, so
 * that off-plan pairing is avoided but not at the price of opening nodes. Chosen on seeds 52-61
 * (500 / 700 / 1000 swept, docs/simulation.md); the table reports seeds 42-51. */
#define GP_DEV_PLAN_PENALTY 700

/* ---- Scorers: higher is better; GP_DEV_INFEASIBLE when the node cannot take the task. ---- */

/* What a scorer may read besides the task and the node. */
typedef struct {
    const gp_dev_mix *mix; /* fgd, gpupack: the workload mix (required) */
    uint64_t salt;         /* random: a fresh random number per task */
    /* gpupack (optional, NULL: none): per GPU model id, how much of that model's GPUs the mix's
     * model-constrained shapes claim, from gp_dev_model_pressure(). A cluster-wide summary: the
     * mix and the cluster's GPU count per model, not its free state. */
    const double *model_pressure;
    /* gpupack (optional, NULL: none): the plan for sharing work (gp_dev_plan_build() from the
     * mix); a sharing task pays GP_DEV_PLAN_PENALTY for a partly used GPU off the plan. */
    const gp_dev_plan *plan;
} gp_dev_ctx;

/* The pressure of model-constrained work on each GPU model, into out[0..GP_DEV_MAX_MODELS):
 * for each model-constrained GPU shape of the mix, its GPU demand (frequency x GPUs) spread over
 * the GPUs of its allowed models, summed per model, relative to the whole mix's GPU demand per
 * GPU of the cluster. 1 means the constrained shapes alone would use all of the model's GPUs if
 * the workload filled the cluster; 0 for a model no constrained shape names. model_gpus[i] is
 * the cluster's GPU count (capacity) of model i. Cheap enough to recompute when the mix or the
 * node list changes. Give it every shape seen, not a popularity-cut mix: constrained shapes are
 * rare one by one and add up (the learned mix's 32 most common shapes left most of them out:
 * gpuspec33 11.8% unallocated against 5.7%). Frequencies may be plain counts: only ratios
 * count. */
void gp_dev_model_pressure(const gp_dev_mix *mix, const int64_t model_gpus[GP_DEV_MAX_MODELS],
                           double out[GP_DEV_MAX_MODELS]);

/* Scores node n for task t and, when feasible, fills *pick with the GPUs the task would take. */
typedef double (*gp_dev_score_fn)(const gp_dev_ctx *ctx, const gp_dev_node *n,
                                  const gp_dev_task *t, gp_dev_pick *pick);

typedef struct {
    const char *name;
    gp_dev_score_fn score;
    bool needs_mix;
    const char *summary;
} gp_dev_scorer;

/* The scorers, in a fixed order: gpupack, random, dotprod, gpupacking, bestfit, fgd. */
const gp_dev_scorer *gp_dev_scorers(size_t *n);
/* The scorer called name, or NULL. */
const gp_dev_scorer *gp_dev_scorer_find(const char *name);

double gp_dev_score_random(const gp_dev_ctx *ctx, const gp_dev_node *n, const gp_dev_task *t,
                           gp_dev_pick *pick);
double gp_dev_score_dotprod(const gp_dev_ctx *ctx, const gp_dev_node *n, const gp_dev_task *t,
                            gp_dev_pick *pick);
double gp_dev_score_gpupacking(const gp_dev_ctx *ctx, const gp_dev_node *n, const gp_dev_task *t,
                               gp_dev_pick *pick);
double gp_dev_score_bestfit(const gp_dev_ctx *ctx, const gp_dev_node *n, const gp_dev_task *t,
                            gp_dev_pick *pick);
double gp_dev_score_fgd(const gp_dev_ctx *ctx, const gp_dev_node *n, const gp_dev_task *t,
                        gp_dev_pick *pick);
/* gpupack's bucket width in milli-GPU: its score is floor(fragmentation decrease / this), plus a
 * fraction below 1 for CPU-only tasks. */
#define GP_DEV_GPUPACK_BUCKET 40.0
double gp_dev_score_gpupack(const gp_dev_ctx *ctx, const gp_dev_node *n, const gp_dev_task *t,
                            gp_dev_pick *pick);

/* ---- A seeded PRNG: xoshiro256** seeded through splitmix64 (Blackman and Vigna). ---- */

typedef struct {
    uint64_t s[4];
} gp_dev_rng;

/* One splitmix64 step: advances *state and returns the next output. */
uint64_t gp_dev_splitmix64(uint64_t *state);
void gp_dev_rng_seed(gp_dev_rng *r, uint64_t seed);
uint64_t gp_dev_rng_next(gp_dev_rng *r);
/* A uniform integer in [0, bound) (bound > 0), without modulo bias. */
uint64_t gp_dev_rng_below(gp_dev_rng *r, uint64_t bound);

#endif
