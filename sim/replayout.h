/* SPDX-License-Identifier: Apache-2.0 */
/* gpupack-sim --replay's output (docs/simulation.md, "The replay"): results in, text out. One
 * JSON object per scorer and seed; a table for a person (mean ± sd over the seeds per scorer,
 * then the difference from kube-stock, or kube-default when kube-stock did not run, then each
 * pool); the same table in Markdown for the docs. Pure: writes into a gp_strbuf. */
#ifndef GPUPACK_SIM_REPLAYOUT_H
#define GPUPACK_SIM_REPLAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpupack/strbuf.h"
#include "replay.h"

/* What the runs share: the pools, and words describing the setting. */
typedef struct {
    const sim_pool *pools;
    size_t n_pools;
    const char *label;    /* or NULL */
    const char *workload; /* e.g. "generated, load 0.6, 7d after 1d warm-up" */
    const char *mode;     /* "empty" or "cluster-autoscaler" */
    const char *ties;     /* "random" or "first" */
    size_t jobs;          /* the pods of the workload (first seed) */
} sim_replay_meta;

typedef struct {
    const char *scorer;
    uint64_t seed;
    const sim_replay_result *res;
} sim_replay_run;

/* One JSON line: scorer, seed, gpu_node_hours, dollars, pending_p99_seconds and the rest. */
void sim_replay_json(gp_strbuf *out, const sim_replay_meta *m, const sim_replay_run *r);

/* The table over runs[scorer * n_seeds + seed]: per scorer the mean ± sample sd of each figure,
 * the difference from the means of kube-stock, or kube-default when kube-stock did not run
 * (node-hours and $, absolute and %), and per pool node-hours and $; markdown: the docs' form. */
void sim_replay_table(gp_strbuf *out, const sim_replay_meta *m, const sim_replay_run *runs,
                      size_t n_scorers, size_t n_seeds, bool markdown);

#endif
