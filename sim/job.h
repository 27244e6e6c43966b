/* SPDX-License-Identifier: Apache-2.0 */
/* A workload in time for gpupack-sim --replay (docs/simulation.md, "The replay"): pods that
 * arrive at a second of the replay, run for a duration once placed, and leave. Built from the
 * trace's timestamps, from the seeded generator, or from a `kubectl get pods -o json` dump
 * (sim/workload.h); read by the replay (sim/replay.h). */
#ifndef GPUPACK_SIM_JOB_H
#define GPUPACK_SIM_JOB_H

#include <stdint.h>

#include "gpupack/frag.h"

/* What owns the pod, for the cluster-autoscaler's scale-down rule: pods of a Deployment (or
 * ReplicaSet, StatefulSet) may be moved to another node; pods of Jobs and pods without a
 * controller are not. */
typedef enum { SIM_OWNER_NONE = 0, SIM_OWNER_DEPLOYMENT = 1, SIM_OWNER_JOB = 2 } sim_owner;

typedef struct {
    int64_t arrive;    /* seconds from the start of the replay, >= 0 */
    int64_t duration;  /* seconds it runs once placed, >= 1 */
    gp_frag_task task;
    int32_t priority;  /* higher is placed first among the pending pods */
    uint8_t owner;     /* sim_owner */
    uint32_t src;      /* index of the task in the input it came from (names, messages) */
} sim_job;

#endif
