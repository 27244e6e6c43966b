/* SPDX-License-Identifier: Apache-2.0 */
/* The simulator's workload mix from a task list (FGD's "target workload", docs/simulation.md):
 * the trace's task shapes and how often each arrives. The selection itself is the core's
 * (gp_frag_mix_select()), the one the extender's pod watch uses. */
#ifndef GPUPACK_SIM_MIX_H
#define GPUPACK_SIM_MIX_H

#include <stdbool.h>
#include <stddef.h>

#include "gpupack/frag.h"
#include "gpupack/status.h"

/* How a mix is built from a task list. The paper's settings: popularity 95, cpu_tasks true. */
typedef struct {
    int popularity_pct; /* keep the most common shapes until they cover this % of the tasks */
    bool cpu_tasks;     /* count CPU-only tasks as shapes */
    double gpu_weight;  /* a whole-GPU task counts 1 + gpu_weight x num_gpu times (paper: 0) */
} sim_mix_opts;

/* Counts the shapes (CPU, GPU count, per-GPU share, allowed models) of tasks[0..n), keeps the most
 * common ones (gp_frag_mix_select()) until they cover opts->popularity_pct % of the tasks, and
 * normalises their frequencies to sum to 1. The caller frees with sim_mix_free(). Returns
 * GP_ENOMEM, or GP_EINVAL when no task counts. */
gp_status sim_mix_build(const gp_frag_task *tasks, size_t n, const sim_mix_opts *opts,
                        gp_frag_mix *out, gp_err *err) GP_WUR;
void sim_mix_free(gp_frag_mix *m);

#endif
