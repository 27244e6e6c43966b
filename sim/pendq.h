/* SPDX-License-Identifier: Apache-2.0 */
/* The time replay's pending queue (sim/replay.h): pods that found no node, taken higher priority
 * first, then in arrival order (a job's index is its arrival order). Held as one FIFO per
 * (task shape, priority), merged by a small heap, so that a pass over the queue that learns "no
 * pod of this shape fits" drops the whole shape at once: a pass costs the shapes waiting and the
 * pods placed, not the pods waiting. Pure. */
#ifndef GPUPACK_SIM_PENDQ_H
#define GPUPACK_SIM_PENDQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "job.h"

typedef struct {
    gp_frag_task key;
    int32_t prio;
    bool used;
    size_t *v, head, cur, n, cap; /* v[head..n) waits; cur: the pass's cursor */
} sim_pendq_sub;

typedef struct {
    const sim_job *jobs;
    const uint8_t *waiting; /* waiting[j]: job j still waits (else it is skipped, dropped) */
    sim_pendq_sub *sub;     /* open addressing by (shape, priority) */
    size_t cap, nsub;
    size_t *heap, nheap;    /* the pass: subs by the job at their cursor */
    bool take;              /* the pass removes what it passes (retry) or only reads (estimates) */
} sim_pendq;

/* An empty queue over jobs; waiting[j] non-zero while job j waits. Returns false on allocation
 * failure. */
bool sim_pendq_init(sim_pendq *q, const sim_job *jobs, const uint8_t *waiting);
void sim_pendq_free(sim_pendq *q);

/* Adds job j (one that is not in the queue). Returns false on allocation failure. */
bool sim_pendq_push(sim_pendq *q, size_t j);

/* Starts a pass over the waiting jobs in queue order. take: sim_pendq_taken() removes the job
 * returned; otherwise the pass only reads (sim_pendq_taken() moves on without removing). */
void sim_pendq_begin(sim_pendq *q, bool take);
/* The next job of the pass, or -1 at its end. The caller then calls sim_pendq_taken() or
 * sim_pendq_drop(). */
long sim_pendq_next(sim_pendq *q);
/* The job sim_pendq_next() returned is placed (a taking pass: removed) or read. */
void sim_pendq_taken(sim_pendq *q);
/* No job of the returned job's shape and priority is wanted in this pass any more (none fits):
 * they stay in the queue. */
void sim_pendq_drop(sim_pendq *q);

#endif
