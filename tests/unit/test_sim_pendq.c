/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of the replay's pending queue (sim/pendq.c): higher priority first, then arrival
 * order across shapes; dropping a shape; a read-only pass; jobs that stopped waiting; an evicted
 * pod going back to its place; growth past the first table. */
#include "gptest.h"

#include <string.h>

#include "pendq.h"

static sim_job jobs[2000];
static uint8_t waiting[2000];

static void mk(size_t j, int gpus, int32_t prio)
{
    jobs[j] = (sim_job){ .arrive = (int64_t)j, .duration = 10, .priority = prio };
    jobs[j].task = (gp_frag_task){
        .cpu_milli = 1000, .mem_mib = 1024, .num_gpu = gpus, .gpu_milli = gpus ? 1000 : 0
    };
}

/* The order of a taking pass that takes everything, into out; returns the count. */
static size_t drain_all(sim_pendq *q, long *out)
{
    size_t n = 0;
    long j;

    sim_pendq_begin(q, true);
    while ((j = sim_pendq_next(q)) >= 0) {
        out[n++] = j;
        waiting[j] = 0;
        sim_pendq_taken(q);
    }
    return n;
}

GP_TEST(priority_then_arrival_across_shapes)
{
    sim_pendq q;
    long out[8] = { 0 };
    /* jobs 0..5: shapes 1,2,1,2,1,2 GPUs; job 4 has priority 100 */
    for (size_t j = 0; j < 6; j++)
        mk(j, 1 + (int)(j % 2), j == 4 ? 100 : 0);
    GP_CHECK(sim_pendq_init(&q, jobs, waiting));
    for (size_t j = 0; j < 6; j++) {
        waiting[j] = 1;
        GP_CHECK(sim_pendq_push(&q, j));
    }
    GP_CHECK_INT(drain_all(&q, out), 6);
    GP_CHECK(out[0] == 4 && out[1] == 0 && out[2] == 1 && out[3] == 2 && out[4] == 3 &&
             out[5] == 5);
    sim_pendq_begin(&q, true);
    GP_CHECK(sim_pendq_next(&q) == -1);
    sim_pendq_free(&q);
}

GP_TEST(drop_keeps_a_shape_waiting)
{
    sim_pendq q;
    long j, out[8] = { 0 };
    size_t n = 0;

    for (size_t i = 0; i < 6; i++)
        mk(i, 1 + (int)(i % 2), 0);
    GP_CHECK(sim_pendq_init(&q, jobs, waiting));
    for (size_t i = 0; i < 6; i++) {
        waiting[i] = 1;
        GP_CHECK(sim_pendq_push(&q, i));
    }
    /* Take the 1-GPU pods, drop the 2-GPU shape at its first pod. */
    sim_pendq_begin(&q, true);
    while ((j = sim_pendq_next(&q)) >= 0) {
        if (jobs[j].task.num_gpu == 2) {
            sim_pendq_drop(&q);
            continue;
        }
        out[n++] = j;
        waiting[j] = 0;
        sim_pendq_taken(&q);
    }
    GP_CHECK(n == 3 && out[0] == 0 && out[1] == 2 && out[2] == 4);
    /* A read-only pass sees the 2-GPU pods and removes nothing; job 3 stops waiting. */
    waiting[3] = 0;
    n = 0;
    sim_pendq_begin(&q, false);
    while ((j = sim_pendq_next(&q)) >= 0) {
        out[n++] = j;
        sim_pendq_taken(&q);
    }
    GP_CHECK(n == 2 && out[0] == 1 && out[1] == 5);
    GP_CHECK_INT(drain_all(&q, out), 2);
    /* An evicted pod (job 0) goes back before later arrivals of its shape. */
    waiting[0] = waiting[2] = 1;
    GP_CHECK(sim_pendq_push(&q, 2));
    GP_CHECK(sim_pendq_push(&q, 0));
    GP_CHECK_INT(drain_all(&q, out), 2);
    GP_CHECK(out[0] == 0 && out[1] == 2);
    sim_pendq_free(&q);
}

/* More shapes than the first table holds, many pods each: order kept through growth. */
GP_TEST(grows)
{
    sim_pendq q;
    static long out[2000];

    GP_CHECK(sim_pendq_init(&q, jobs, waiting));
    for (size_t j = 0; j < 2000; j++) {
        mk(j, 1, 0);
        jobs[j].task.cpu_milli = 100 + (int64_t)(j % 400);
        waiting[j] = 1;
        GP_CHECK(sim_pendq_push(&q, j));
    }
    GP_CHECK_INT(drain_all(&q, out), 2000);
    bool sorted = true;
    for (size_t i = 0; i < 2000; i++)
        sorted &= out[i] == (long)i;
    GP_CHECK(sorted);
    sim_pendq_free(&q);
}

GP_MAIN(GP_CASE(priority_then_arrival_across_shapes), GP_CASE(drop_keeps_a_shape_waiting),
        GP_CASE(grows))
