/* SPDX-License-Identifier: Apache-2.0 */
/* Small builders for the unit tests of the fragmentation model (test_frag.c) and of the
 * simulator's scorers (test_sim_scorers.c): a node with every GPU free (id 7), a task, a mix of
 * one shape. */
#ifndef FRAGTEST_H
#define FRAGTEST_H

#include <stdint.h>

#include "gpupack/frag.h"

static inline gp_frag_node node(int64_t cpu, int64_t mem, int ngpu, int model)
{
    gp_frag_node n;

    gp_frag_node_init(&n, 7, cpu, mem, ngpu, model);
    return n;
}

static inline gp_frag_task task(int64_t cpu, int64_t mem, int num_gpu, int milli)
{
    gp_frag_task t = { .cpu_milli = cpu, .mem_mib = mem, .num_gpu = num_gpu, .gpu_milli = milli };
    return t;
}

/* A mix of one shape with frequency 1. */
static inline gp_frag_mix one_shape(gp_frag_shape *s, gp_frag_task shape)
{
    s->shape = shape;
    s->freq = 1.0;
    return (gp_frag_mix){ .n = 1, .shapes = s };
}

#endif
