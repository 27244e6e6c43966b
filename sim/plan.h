/* SPDX-License-Identifier: Apache-2.0 */
/* The simulator's plan for sharing work (docs/simulation.md): only the simulator has sharing
 * tasks (a Kubernetes pod cannot request a fraction of a GPU), so the plan is the simulator's
 * and reaches gpupack's scorer (gp_frag_score()) through the share_cost hook of its context. */
#ifndef GPUPACK_SIM_PLAN_H
#define GPUPACK_SIM_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpupack/frag.h"

/* gpupack's plan for sharing work: which partly used GPUs a share may join. Built from the
 * mix's sharing shapes (one GPU, share below 1000) by packing a sample of SIM_PLAN_SAMPLE of
 * them offline, first fit decreasing, the way an offline packer pairs them (470 + 470,
 * 650 + 320, 810 + 160, ...); a share s may join a GPU with u milli-GPU taken when one of those
 * GPUs holds s and other shares that sum to u. Held at 10 milli-GPU steps (a share or a sum is
 * rounded down). Every sharing shape of the mix is in the sample at least once. */
#define SIM_PLAN_SAMPLE 1000
#define SIM_PLAN_STEPS 101 /* 0, 10, ..., 1000 milli-GPU */
#define SIM_PLAN_MAX_SIZES 64
typedef struct {
    bool any; /* false: the mix has no sharing shape (no share is ever off the plan) */
    uint8_t good[SIM_PLAN_STEPS][(SIM_PLAN_STEPS + 7) / 8]; /* [share step][taken step] */
    uint8_t known[(SIM_PLAN_STEPS + 7) / 8]; /* share steps the sample has (others: no plan) */
    /* The sample it was built from (share sizes and copies), so that rebuilding from a mix
     * whose sample is the same costs no packing. */
    size_t nsizes;
    int32_t size[SIM_PLAN_MAX_SIZES], copies[SIM_PLAN_MAX_SIZES];
} sim_plan;

/* Builds (or keeps, when the mix gives the same sample) the plan for mix into *p. Zero-initialise
 * *p before the first call. Returns false when nothing changed. Sharing sizes beyond
 * SIM_PLAN_MAX_SIZES (the rarest) are left out of the sample. */
bool sim_plan_build(const gp_frag_mix *mix, sim_plan *p);

/* True when a share of share milli-GPU may join a GPU with taken milli-GPU already taken under
 * plan p: always for an untaken GPU, for a share the plan does not know, and when p is NULL or
 * has no sharing shapes. */
bool sim_plan_fits(const sim_plan *p, int32_t share, int32_t taken);

/* What a sharing task pays, in milli-GPU of fragmentation, for joining a partly used GPU off the
 * plan: about the fragmentation FGD's measure charges for breaking into an empty 8-GPU node, so
 * that off-plan pairing is avoided but not at the price of opening nodes (docs/simulation.md says
 * how it was chosen). */
#define SIM_PLAN_PENALTY 700

/* gp_frag_ctx's share_cost hook for plan arg (a const sim_plan *): SIM_PLAN_PENALTY when a share
 * of share milli-GPU joining a GPU with taken milli-GPU taken is off the plan, else 0. */
double sim_plan_cost(const void *arg, int32_t share, int32_t taken);

#endif
