/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of the kube-* scorers (sim/scorers.c): kube-scheduler v1.32's NodeResourcesFit
 * (LeastAllocated, MostAllocated, RequestedToCapacityRatio) + NodeResourcesBalancedAllocation,
 * on small nodes with the arithmetic worked by hand in the comments: integer division where Go
 * divides integers, math.Round in RequestedToCapacityRatio, the GPU skipped for CPU-only tasks
 * and on nodes without GPUs, the non-zero memory default pushing a request over capacity, ties,
 * and the order in which each scorer ranks an emptier and a fuller node, down to a placement by
 * sim_run(). Each score is Fit + Balanced (plugin weights 1). */
#include "gptest.h"

#include <stdint.h>
#include <stdlib.h>

#include "fragtest.h"
#include "gpupack/frag.h"
#include "run.h"
#include "scorers.h"

static double score(const char *name, const gp_frag_node *n, const gp_frag_task *t,
                    gp_frag_pick *pick)
{
    sim_ctx ctx = { .salt = 1 };

    return sim_scorer_find(name)->score(&ctx, n, t, pick);
}

/* A node of cpu milli-cores and mem MiB with cpu_used and mem_used taken and the GPUs' free
 * shares free[0..ngpu). */
static gp_frag_node used_node(int64_t cpu, int64_t cpu_used, int64_t mem, int64_t mem_used,
                              int ngpu, const int32_t *free)
{
    gp_frag_node n = node(cpu, mem, ngpu, 0);

    n.cpu_free = cpu - cpu_used;
    n.mem_free = mem - mem_used;
    for (int i = 0; i < ngpu; i++)
        n.gpu_free[i] = free[i];
    return n;
}

/* The half-used node: 8 cores and 32 GiB, half of each taken, GPU 0 taken and GPU 1 free. */
static gp_frag_node half_node(void)
{
    static const int32_t free[2] = { 0, 1000 };

    return used_node(8000, 4000, 32768, 16384, 2, free);
}

/* A 1-GPU task of 1 core and 4 GiB on the half-used node. Requested with the task: CPU 5000 of
 * 8000 (0.625), memory 20480 of 32768 MiB (0.625), GPU 2 of 2 (1).
 *   LeastAllocated: CPU 3000 x 100 / 8000 = 37 (37.5 truncated), memory 37, GPU 0;
 *                   (37 + 37 + 0) / 3 = 24 (74 / 3 truncated).
 *   MostAllocated:  CPU 62, memory 62, GPU 100; (62 + 62 + 3 x 100) / 5 = 84 (424 / 5 = 84.8).
 *   RequestedToCapacityRatio: utilization 62, 62, 100 -> the shape gives 62, 62, 100;
 *                   round(424 / 5 = 84.8) = 85.
 *   Balanced: fractions 0.625, 0.625, 1; mean 0.75; squares 0.015625 + 0.015625 + 0.0625 =
 *             0.09375; std sqrt(0.03125) = 0.17678; (1 - 0.17678) x 100 = 82.3 -> 82. */
GP_TEST(kube_whole_gpu_task_on_half_used_node)
{
    gp_frag_node n = half_node();
    gp_frag_task t = task(1000, 4096, 1, 1000);
    gp_frag_pick p;

    GP_CHECK_INT(score("kube-default", &n, &t, &p), 24 + 82);
    GP_CHECK(p.n == 1 && p.gpu[0] == 1);
    GP_CHECK_INT(score("kube-mostallocated", &n, &t, &p), 84 + 82);
    GP_CHECK_INT(score("kube-binpack", &n, &t, &p), 85 + 82);
    GP_CHECK(p.n == 1 && p.gpu[0] == 1);
}

/* A CPU-only task of 2 cores and 4 GiB on the same node: the GPU is an extended resource the
 * pod does not request, so it is skipped. CPU 6000 of 8000 (0.75), memory 20480 (0.625).
 *   LeastAllocated: CPU 2000 x 100 / 8000 = 25, memory 37; (25 + 37) / 2 = 31. (With the GPU,
 *                   1 of 2 used, it would be (25 + 37 + 50) / 3 = 37.)
 *   MostAllocated:  75, 62; 137 / 2 = 68. RequestedToCapacityRatio: round(68.5) = 69.
 *   Balanced: two fractions: |0.75 - 0.625| / 2 = 0.0625; 93.75 -> 93. */
GP_TEST(kube_cpu_only_task_skips_the_gpu)
{
    gp_frag_node n = half_node();
    gp_frag_task t = task(2000, 4096, 0, 0);
    gp_frag_pick p;

    GP_CHECK_INT(score("kube-default", &n, &t, &p), 31 + 93);
    GP_CHECK_INT(p.n, 0);
    GP_CHECK_INT(score("kube-mostallocated", &n, &t, &p), 68 + 93);
    GP_CHECK_INT(score("kube-binpack", &n, &t, &p), 69 + 93);
}

/* A node without GPUs (16 cores, 64 GiB, empty), a task of 4 cores and 16 GiB: 0.25 of each.
 *   LeastAllocated 75, 75 -> 75; MostAllocated 25, 25 -> 25; RequestedToCapacityRatio 25;
 *   Balanced: equal fractions, std 0 -> 100. */
GP_TEST(kube_node_without_gpus)
{
    gp_frag_node n = node(16000, 65536, 0, -1);
    gp_frag_task t = task(4000, 16384, 0, 0);
    gp_frag_pick p;

    GP_CHECK_INT(score("kube-default", &n, &t, &p), 75 + 100);
    GP_CHECK_INT(score("kube-mostallocated", &n, &t, &p), 25 + 100);
    GP_CHECK_INT(score("kube-binpack", &n, &t, &p), 25 + 100);
    gp_frag_task g = task(1000, 1024, 1, 1000);
    GP_CHECK(score("kube-default", &n, &g, &p) <= GP_FRAG_INFEASIBLE);
}

/* A task that requests no memory, on a node (4 cores, 1 GiB, no GPU) with 2 cores and 924 MiB
 * taken. NodeResourcesFit counts the default 200 MiB: 924 MiB + 209,715,200 bytes =
 * 1,178,599,424 bytes > 1 GiB (1,073,741,824): requested over capacity. CPU: 3000 of 4000.
 *   LeastAllocated: memory over -> 0; CPU 1000 x 100 / 4000 = 25; (25 + 0) / 2 = 12.
 *   MostAllocated:  memory counted as full, 100; CPU 75; 175 / 2 = 87.
 *   RequestedToCapacityRatio: memory at utilization 100 -> 100; CPU 75; round(87.5) = 88.
 *   Balanced reads the plain requests (no default): CPU 0.75, memory 924 / 1024 = 0.90234;
 *   |0.75 - 0.90234| / 2 = 0.07617; 92.38 -> 92. */
GP_TEST(kube_default_memory_request_over_capacity)
{
    gp_frag_node n = used_node(4000, 2000, 1024, 924, 0, NULL);
    gp_frag_task t = task(1000, 0, 0, 0);
    gp_frag_pick p;

    GP_CHECK_INT(score("kube-default", &n, &t, &p), 12 + 92);
    GP_CHECK_INT(score("kube-mostallocated", &n, &t, &p), 87 + 92);
    GP_CHECK_INT(score("kube-binpack", &n, &t, &p), 88 + 92);
}

/* The default is 200 MiB, not 200 MB: with 830 MiB taken of 1 GiB, 830 MiB + 200 MiB =
 * 1,030 MiB is over capacity (MostAllocated counts memory full, 100), where 200 MB (190.7 MiB)
 * would fit at 1,020.7 MiB (99). CPU (2000 + 1040) x 100 / 4000 = 76: (76 + 100) / 2 = 88, not
 * (76 + 99) / 2 = 87. Balanced: 0.76 and 830 / 1024 = 0.81055; |0.76 - 0.81055| / 2 = 0.02527;
 * 97.47 -> 97. */
GP_TEST(kube_default_memory_request_is_200_mib)
{
    gp_frag_node n = used_node(4000, 2000, 1024, 830, 0, NULL);
    gp_frag_task t = task(1040, 0, 0, 0);
    gp_frag_pick p;

    GP_CHECK_INT(score("kube-mostallocated", &n, &t, &p), 88 + 97);
}

/* An empty 8-GPU node of 128 cores and 1 TiB, a 1-GPU task of 1 core and 8 GiB: CPU and memory
 * at 1/128 (0.0078125), GPU 1000 of 8000 (0.125).
 *   RequestedToCapacityRatio: utilization 1000 x 100 / 128000 = 0 for CPU and memory, scoring
 *   0, which leaves them out of the mean; GPU 12 -> round(3 x 12 / 3) = 12 (with them in it
 *   would be 36 / 5 = 7).
 *   MostAllocated keeps them: (0 + 0 + 3 x 12) / 5 = 7.
 *   LeastAllocated: 127000 x 100 / 128000 = 99, 99, 7000 x 100 / 8000 = 87; 285 / 3 = 95.
 *   Balanced: mean 0.046875; squares 2 x 0.0390625^2 + 0.078125^2 = 0.0091553; std
 *   sqrt(0.0030518) = 0.05524; 94.48 -> 94. */
GP_TEST(kube_ratio_leaves_zero_scores_out)
{
    gp_frag_node n = node(128000, 1048576, 8, 0);
    gp_frag_task t = task(1000, 8192, 1, 1000);
    gp_frag_pick p;

    GP_CHECK_INT(score("kube-binpack", &n, &t, &p), 12 + 94);
    GP_CHECK_INT(score("kube-mostallocated", &n, &t, &p), 7 + 94);
    GP_CHECK_INT(score("kube-default", &n, &t, &p), 95 + 94);
    GP_CHECK(p.n == 1 && p.gpu[0] == 0);
}

/* A sharing task of 300 milli-GPU on a node whose GPU 0 has 600 free (400 taken) and GPU 1 is
 * free: it takes GPU 0 (best fit), and counts 0.3 GPU: 700 of 2000 milli-GPU requested. CPU 1000
 * of 8000, memory 1024 of 32768 MiB.
 *   LeastAllocated: 7000 x 100 / 8000 = 87, 31744 x 100 / 32768 = 96, 1300 x 100 / 2000 = 65;
 *                   248 / 3 = 82.
 *   MostAllocated:  12, 3, 35; (12 + 3 + 105) / 5 = 24. RequestedToCapacityRatio: 24.
 *   Balanced: 0.125, 0.03125, 0.35; mean 0.16875; squares 0.0019141 + 0.0189063 + 0.0328516 =
 *   0.0536719; std sqrt(0.0178906) = 0.13376; 86.6 -> 86. */
GP_TEST(kube_share_counts_its_fraction)
{
    static const int32_t free[2] = { 600, 1000 };
    gp_frag_node n = used_node(8000, 0, 32768, 0, 2, free);
    gp_frag_task t = task(1000, 1024, 1, 300);
    gp_frag_pick p;

    GP_CHECK_INT(score("kube-default", &n, &t, &p), 82 + 86);
    GP_CHECK(p.n == 1 && p.gpu[0] == 0);
    GP_CHECK_INT(score("kube-mostallocated", &n, &t, &p), 24 + 86);
    GP_CHECK_INT(score("kube-binpack", &n, &t, &p), 24 + 86);
}

/* Mirrored nodes, CPU 0.5 and memory 0.25 used on one and the other way round, tie for a
 * CPU-only task of 1 core and 2 GiB (every formula is symmetric in the two resources): the
 * simulator's tie-break decides. */
GP_TEST(kube_mirrored_nodes_tie)
{
    gp_frag_node a = used_node(8000, 4000, 16384, 4096, 0, NULL);
    gp_frag_node b = used_node(8000, 2000, 16384, 8192, 0, NULL);
    gp_frag_task t = task(1000, 2048, 0, 0);
    gp_frag_pick p;
    const char *names[] = { "kube-default", "kube-mostallocated", "kube-binpack" };

    for (int i = 0; i < 3; i++)
        GP_CHECK_INT(score(names[i], &a, &t, &p), score(names[i], &b, &t, &p));
}

/* An empty node and one with half its GPUs, CPU and memory taken (8 GPUs, 64 cores, 256 GiB):
 * for a 1-GPU task kube-default prefers the empty node (it spreads), kube-mostallocated and
 * kube-binpack the fuller one (they pack). */
GP_TEST(kube_spreads_or_packs)
{
    static const int32_t half[8] = { 0, 0, 0, 0, 1000, 1000, 1000, 1000 };
    gp_frag_node empty = node(64000, 262144, 8, 0);
    gp_frag_node full = used_node(64000, 32000, 262144, 131072, 8, half);
    gp_frag_task t = task(4000, 16384, 1, 1000);
    gp_frag_pick p;

    GP_CHECK(score("kube-default", &empty, &t, &p) > score("kube-default", &full, &t, &p));
    GP_CHECK(score("kube-mostallocated", &full, &t, &p) >
             score("kube-mostallocated", &empty, &t, &p));
    GP_CHECK(score("kube-binpack", &full, &t, &p) > score("kube-binpack", &empty, &t, &p));
}

/* The same through the simulator: two nodes and one task, the placement recorded. */
static long placed_on(const char *scorer, const gp_frag_node nodes[2])
{
    gp_frag_task t = task(4000, 16384, 1, 1000);
    gp_frag_shape sh;
    gp_frag_mix mix = one_shape(&sh, t);
    sim_cfg cfg = { .nodes = nodes, .n_nodes = 2, .tasks = &t, .n_tasks = 1, .mix = &mix,
                    .scorer = sim_scorer_find(scorer), .seed = 42, .record = true };
    sim_result res = { 0 };
    gp_err err = { { 0 } };
    long at = -2;

    if (sim_run(&cfg, &res, &err) == GP_OK && res.placed_node)
        at = res.placed_node[0];
    sim_result_free(&res);
    return at;
}

GP_TEST(kube_placement_in_the_simulator)
{
    static const int32_t half[8] = { 0, 0, 0, 0, 1000, 1000, 1000, 1000 };
    gp_frag_node nodes[2] = { node(64000, 262144, 8, 0),
                              used_node(64000, 32000, 262144, 131072, 8, half) };

    GP_CHECK_INT(placed_on("kube-default", nodes), 0);
    GP_CHECK_INT(placed_on("kube-mostallocated", nodes), 1);
    GP_CHECK_INT(placed_on("kube-binpack", nodes), 1);
}

/* kube-stock, kube-scheduler v1.32 unconfigured, scores cpu and memory only. The 1-GPU task on
 * the half-used node: LeastAllocated (37 + 37) / 2 = 37; Balanced over two resources:
 * 100 x (1 - |0.625 - 0.625| / 2) = 100. Then two nodes alike in CPU and memory, one with all
 * 8 GPUs free and one with 4 taken: kube-stock cannot tell them apart; kube-default (the GPU
 * added) can: 57 + 79 = 136 for the idle one, 41 + 97 = 138 for the busy one. */
GP_TEST(kube_stock_does_not_score_gpus)
{
    static const int32_t half[8] = { 0, 0, 0, 0, 1000, 1000, 1000, 1000 };
    static const int32_t free8[8] = { 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000 };
    gp_frag_node n = half_node();
    gp_frag_node idle = used_node(64000, 32000, 262144, 131072, 8, free8);
    gp_frag_node busy = used_node(64000, 32000, 262144, 131072, 8, half);
    gp_frag_task t = task(1000, 4096, 1, 1000), g = task(4000, 16384, 1, 1000);
    gp_frag_pick p;

    GP_CHECK_INT(score("kube-stock", &n, &t, &p), 37 + 100);
    GP_CHECK(p.n == 1 && p.gpu[0] == 1);
    GP_CHECK_INT(score("kube-stock", &idle, &g, &p), score("kube-stock", &busy, &g, &p));
    GP_CHECK_INT(score("kube-default", &idle, &g, &p), 57 + 79);
    GP_CHECK_INT(score("kube-default", &busy, &g, &p), 41 + 97);
}

/* The table: the ten scorers in order, the kube ones after fgd, none needing the mix, each
 * rejecting a node that cannot take the task. */
GP_TEST(kube_scorers_in_the_table)
{
    size_t k;
    const sim_scorer *all = sim_scorers(&k);
    gp_frag_node n = node(1000, 1024, 1, 0);
    gp_frag_task t = task(1000, 2048, 1, 1000);
    gp_frag_pick p;

    GP_CHECK_INT(k, 10);
    GP_CHECK_STR(all[5].name, "fgd");
    GP_CHECK_STR(all[6].name, "kube-default");
    GP_CHECK_STR(all[7].name, "kube-mostallocated");
    GP_CHECK_STR(all[8].name, "kube-binpack");
    GP_CHECK_STR(all[9].name, "kube-stock");
    for (size_t i = 6; i < k; i++) {
        GP_CHECK(!all[i].needs_mix);
        GP_CHECK(all[i].score(&(sim_ctx){ .salt = 1 }, &n, &t, &p) <= GP_FRAG_INFEASIBLE);
    }
}

GP_MAIN(GP_CASE(kube_whole_gpu_task_on_half_used_node), GP_CASE(kube_cpu_only_task_skips_the_gpu),
        GP_CASE(kube_node_without_gpus), GP_CASE(kube_default_memory_request_over_capacity),
        GP_CASE(kube_default_memory_request_is_200_mib),
        GP_CASE(kube_ratio_leaves_zero_scores_out), GP_CASE(kube_share_counts_its_fraction),
        GP_CASE(kube_mirrored_nodes_tie), GP_CASE(kube_spreads_or_packs),
        GP_CASE(kube_placement_in_the_simulator), GP_CASE(kube_stock_does_not_score_gpus),
        GP_CASE(kube_scorers_in_the_table))
