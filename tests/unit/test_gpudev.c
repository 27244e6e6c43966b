/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of lib/gpudev.c: fit rules, GPU choice, apply/remove, the workload mix, FGD's
 * fragmentation on worked examples, each scorer on small cases with known answers, the PRNG. */
#include "gptest.h"

#include <stdint.h>
#include <string.h>

#include "gpupack/gpudev.h"

static gp_dev_node node(int64_t cpu, int64_t mem, int ngpu, int model)
{
    gp_dev_node n;

    gp_dev_node_init(&n, 7, cpu, mem, ngpu, model);
    return n;
}

static gp_dev_task task(int64_t cpu, int64_t mem, int num_gpu, int milli)
{
    gp_dev_task t = { .cpu_milli = cpu, .mem_mib = mem, .num_gpu = num_gpu, .gpu_milli = milli };
    return t;
}

/* A mix of one shape with frequency 1. */
static gp_dev_mix one_shape(gp_dev_shape *s, gp_dev_task shape)
{
    s->shape = shape;
    s->freq = 1.0;
    return (gp_dev_mix){ .n = 1, .shapes = s };
}

GP_TEST(fits_cpu_memory_and_cpu_only)
{
    gp_dev_node n = node(4000, 1024, 0, -1);

    GP_CHECK(gp_dev_fits(&n, &(gp_dev_task){ .cpu_milli = 4000, .mem_mib = 1024 }));
    GP_CHECK(!gp_dev_fits(&n, &(gp_dev_task){ .cpu_milli = 4001, .mem_mib = 1 }));
    GP_CHECK(!gp_dev_fits(&n, &(gp_dev_task){ .cpu_milli = 1, .mem_mib = 1025 }));
    gp_dev_task gpu = task(1, 1, 1, 1000);
    GP_CHECK(!gp_dev_fits(&n, &gpu)); /* no GPU on a CPU node */
}

GP_TEST(fits_share_needs_one_gpu_with_enough_free)
{
    gp_dev_node n = node(8000, 8192, 2, 0);
    gp_dev_task t = task(1000, 1, 1, 500);

    n.gpu_free[0] = 400;
    n.gpu_free[1] = 450;
    GP_CHECK(!gp_dev_fits(&n, &t)); /* 850 free in total, but no single GPU has 500 */
    n.gpu_free[1] = 500;
    GP_CHECK(gp_dev_fits(&n, &t));
}

GP_TEST(fits_multi_gpu_needs_fully_free_gpus)
{
    gp_dev_node n = node(8000, 8192, 4, 0);
    gp_dev_task t = task(1000, 1, 2, 1000);

    n.gpu_free[0] = 999;
    n.gpu_free[1] = 999;
    n.gpu_free[2] = 0;
    GP_CHECK(!gp_dev_fits(&n, &t)); /* only GPU 3 is fully free */
    n.gpu_free[1] = 1000;
    GP_CHECK(gp_dev_fits(&n, &t));
}

GP_TEST(fits_model_constraint)
{
    gp_dev_models m = { 0 };
    int t4 = gp_dev_models_id(&m, "T4", 2), v100 = gp_dev_models_id(&m, "V100M32", 7);
    gp_dev_node n = node(8000, 8192, 1, t4);
    gp_dev_task t = task(1000, 1, 1, 1000);

    GP_CHECK_INT(gp_dev_models_id(&m, "T4", 2), t4); /* interned once */
    GP_CHECK(gp_dev_fits(&n, &t)); /* no constraint: any model */
    t.models = 1u << v100;
    GP_CHECK(!gp_dev_fits(&n, &t));
    t.models |= 1u << t4;
    GP_CHECK(gp_dev_fits(&n, &t));
    gp_dev_task cpu = { .cpu_milli = 1, .models = 1u << v100 };
    GP_CHECK(gp_dev_fits(&n, &cpu)); /* a model list means nothing to a CPU-only task */
}

GP_TEST(task_valid_shapes)
{
    gp_err err = { { 0 } };

    GP_CHECK(gp_dev_task_valid(&(gp_dev_task){ .cpu_milli = 1 }, &err));
    gp_dev_task share = task(1, 1, 1, 300), two = task(1, 1, 2, 1000);
    GP_CHECK(gp_dev_task_valid(&share, &err) && gp_dev_task_is_share(&share));
    GP_CHECK(gp_dev_task_valid(&two, &err) && !gp_dev_task_is_share(&two));
    GP_CHECK_INT(gp_dev_task_gpu_total(&two), 2000);
    gp_dev_task bad = task(1, 1, 2, 500);
    GP_CHECK(!gp_dev_task_valid(&bad, &err) && strstr(err.msg, "whole GPUs"));
    bad = task(1, 1, GP_DEV_MAX_GPUS + 1, 1000);
    GP_CHECK(!gp_dev_task_valid(&bad, &err));
    bad = task(1, 1, 1, 0);
    GP_CHECK(!gp_dev_task_valid(&bad, &err));
}

GP_TEST(pick_bestfit_share_takes_least_free_fitting_gpu)
{
    gp_dev_node n = node(8000, 8192, 4, 0);
    gp_dev_task t = task(1, 1, 1, 300);
    gp_dev_pick p;

    n.gpu_free[0] = 1000;
    n.gpu_free[1] = 250; /* too small */
    n.gpu_free[2] = 400;
    n.gpu_free[3] = 400;
    GP_CHECK(gp_dev_pick_bestfit(&n, &t, &p));
    GP_CHECK_INT(p.n, 1);
    GP_CHECK_INT(p.gpu[0], 2); /* the least free that fits; the lower index on ties */
}

GP_TEST(pick_bestfit_whole_takes_lowest_free_gpus)
{
    gp_dev_node n = node(8000, 8192, 4, 0);
    gp_dev_task t = task(1, 1, 2, 1000);
    gp_dev_pick p;

    n.gpu_free[0] = 500;
    GP_CHECK(gp_dev_pick_bestfit(&n, &t, &p));
    GP_CHECK(p.n == 2 && p.gpu[0] == 1 && p.gpu[1] == 2);
    n.gpu_free[1] = n.gpu_free[2] = 0;
    GP_CHECK(!gp_dev_pick_bestfit(&n, &t, &p) && p.n == 0);
}

GP_TEST(apply_and_remove_round_trip)
{
    gp_dev_node n = node(8000, 8192, 2, 0), orig;
    gp_dev_task t = task(3000, 4096, 1, 600);
    gp_dev_pick p = { .n = 1, .gpu = { 1 } };

    orig = n;
    GP_CHECK(gp_dev_apply(&n, &t, &p));
    GP_CHECK(n.cpu_free == 5000 && n.mem_free == 4096 && n.gpu_free[1] == 400 &&
             n.gpu_free[0] == 1000);
    GP_CHECK(!gp_dev_apply(&n, &t, &p)); /* GPU 1 has only 400 left: unchanged */
    GP_CHECK(n.gpu_free[1] == 400 && n.cpu_free == 5000);
    gp_dev_pick bad = { .n = 1, .gpu = { 5 } };
    GP_CHECK(!gp_dev_apply(&n, &t, &bad));
    GP_CHECK(gp_dev_remove(&n, &t, &p));
    GP_CHECK(memcmp(&n, &orig, sizeof(n)) == 0);
    GP_CHECK(!gp_dev_remove(&n, &t, &p)); /* would exceed the capacity */
}

GP_TEST(mix_counts_keeps_popular_and_normalises)
{
    gp_dev_task tasks[10];
    gp_dev_mix m;
    gp_err err = { { 0 } };

    for (int i = 0; i < 6; i++)
        tasks[i] = task(1000, 100 + i, 1, 1000); /* memory differs: same shape */
    for (int i = 6; i < 9; i++)
        tasks[i] = task(2000, 1, 1, 500);
    tasks[9] = (gp_dev_task){ .cpu_milli = 500 };
    gp_dev_mix_opts all = { .popularity_pct = 100, .cpu_tasks = true };
    GP_CHECK(gp_dev_mix_build(tasks, 10, &all, &m, &err) == GP_OK);
    GP_CHECK_INT(m.n, 3);
    GP_CHECK_NEAR(m.shapes[0].freq, 0.6, 1e-12);
    GP_CHECK(m.shapes[0].shape.cpu_milli == 1000);
    GP_CHECK_NEAR(m.shapes[1].freq, 0.3, 1e-12);
    GP_CHECK(m.shapes[1].shape.gpu_milli == 500);
    GP_CHECK_NEAR(m.shapes[2].freq, 0.1, 1e-12);
    GP_CHECK(m.shapes[2].shape.num_gpu == 0);
    gp_dev_mix_free(&m);
    /* 80%: the top two shapes cover 90% >= 80%; renormalised to 6/9 and 3/9. */
    gp_dev_mix_opts pop = { .popularity_pct = 80, .cpu_tasks = true };
    GP_CHECK(gp_dev_mix_build(tasks, 10, &pop, &m, &err) == GP_OK);
    GP_CHECK(m.n == 2);
    GP_CHECK_NEAR(m.shapes[0].freq, 6.0 / 9, 1e-12);
    gp_dev_mix_free(&m);
    gp_dev_mix_opts nocpu = { .popularity_pct = 100, .cpu_tasks = false };
    GP_CHECK(gp_dev_mix_build(&tasks[9], 1, &nocpu, &m, &err) == GP_EINVAL);
}

/* Counts already made (the extender's pod watch): zero counts dropped, the most common first,
 * equal counts in ascending shape order, cut at the popularity and at max, renormalised. */
GP_TEST(mix_select_from_counts)
{
    gp_dev_shape s[5] = { { task(4000, 0, 1, 1000), 2 }, { task(8000, 0, 2, 1000), 5 },
                          { task(1000, 0, 1, 1000), 0 }, { task(2000, 0, 1, 1000), 2 },
                          { task(64000, 0, 8, 1000), 1 } };
    gp_dev_shape c[5];

    memcpy(c, s, sizeof(s));
    GP_CHECK_INT(gp_dev_mix_select(c, 5, 100, 32), 4);
    GP_CHECK(c[0].shape.num_gpu == 2);
    GP_CHECK_NEAR(c[0].freq, 0.5, 1e-12);
    GP_CHECK(c[1].shape.cpu_milli == 2000);
    GP_CHECK_NEAR(c[1].freq, 0.2, 1e-12);
    GP_CHECK(c[2].shape.cpu_milli == 4000);
    GP_CHECK_NEAR(c[2].freq, 0.2, 1e-12);
    GP_CHECK(c[3].shape.num_gpu == 8);
    GP_CHECK_NEAR(c[3].freq, 0.1, 1e-12);
    memcpy(c, s, sizeof(s));
    GP_CHECK_INT(gp_dev_mix_select(c, 5, 70, 32), 2); /* 5 + 2 of 10 cover 70% */
    memcpy(c, s, sizeof(s));
    GP_CHECK_INT(gp_dev_mix_select(c, 5, 71, 32), 3);
    memcpy(c, s, sizeof(s));
    GP_CHECK_INT(gp_dev_mix_select(c, 5, 100, 2), 2);
    GP_CHECK_NEAR(c[0].freq, 5.0 / 7, 1e-12);
    GP_CHECK_NEAR(c[1].freq, 2.0 / 7, 1e-12);
    s[0].freq = s[1].freq = s[3].freq = s[4].freq = 0;
    GP_CHECK_INT(gp_dev_mix_select(s, 5, 95, 32), 0);
}

/* The running count: same shapes (memory aside) share a slot, uncounting frees it for another
 * shape, shapes past the storage are untracked, and the mix follows the counts. */
GP_TEST(tally_counts_and_reuses_slots)
{
    gp_dev_shape store[2], scratch[2];
    gp_dev_tally t;
    gp_dev_task a = task(4000, 10, 1, 1000), a2 = task(4000, 99, 1, 1000);
    gp_dev_task b = task(1000, 0, 1, 500), c = task(0, 0, 0, 0);

    gp_dev_tally_init(&t, store, 2);
    GP_CHECK_INT(gp_dev_tally_mix(&t, scratch, 95, 2), 0);
    gp_dev_tally_add(&t, &a, 1);
    gp_dev_tally_add(&t, &a2, 1); /* memory is not part of a shape */
    gp_dev_tally_add(&t, &b, 1);
    GP_CHECK_INT(t.n, 2);
    gp_dev_tally_add(&t, &c, 1); /* no room */
    GP_CHECK_INT(t.untracked, 1);
    GP_CHECK_INT(gp_dev_tally_mix(&t, scratch, 100, 2), 2);
    GP_CHECK_NEAR(scratch[0].freq, 2.0 / 3, 1e-12);
    GP_CHECK(scratch[0].shape.mem_mib == 0);
    uint64_t v = t.version;
    gp_dev_tally_add(&t, &b, -1); /* b's slot is free again */
    GP_CHECK(t.version != v);
    gp_dev_tally_add(&t, &c, -1); /* the untracked one */
    GP_CHECK_INT(t.untracked, 0);
    gp_dev_tally_add(&t, &c, 1);
    GP_CHECK_INT(t.n, 2);
    GP_CHECK_INT(t.untracked, 0);
    GP_CHECK_INT(gp_dev_tally_mix(&t, scratch, 100, 2), 2);
    GP_CHECK(scratch[1].shape.num_gpu == 0);
    GP_CHECK_NEAR(scratch[1].freq, 1.0 / 3, 1e-12);
}

/* What the extender's pod watch counts: whole-GPU tasks anywhere, CPU-only tasks next to whole
 * GPUs, never sharing tasks; memory and model constraints dropped. */
GP_TEST(watch_shape_rule)
{
    gp_dev_task whole = task(8000, 500, 2, 1000), cpu = task(2000, 64, 0, 0);
    gp_dev_task share = task(1000, 10, 1, 500), out;

    whole.models = 1u << 3;
    GP_CHECK(gp_dev_watch_shape(&whole, false, &out));
    GP_CHECK(out.num_gpu == 2 && out.cpu_milli == 8000 && out.mem_mib == 0 && out.models == 0);
    GP_CHECK(gp_dev_watch_shape(&cpu, true, &out) && out.num_gpu == 0 && out.mem_mib == 0);
    GP_CHECK(!gp_dev_watch_shape(&cpu, false, &out));
    GP_CHECK(!gp_dev_watch_shape(&share, true, &out));
    gp_dev_shape d = gp_dev_default_shape(4000);
    GP_CHECK(d.shape.num_gpu == 1 && d.shape.gpu_milli == 1000 && d.shape.cpu_milli == 4000);
    GP_CHECK(d.freq == 1.0);
}

/* Worked example (docs/simulation.md): GPUs free [1000, 300], 4 cores free; shapes: one whole GPU
 * (freq 0.5), a 500 share (0.25), CPU only (0.25). The whole-GPU and share shapes fit but cannot
 * use the 300 sliver: 0.5 x 300 + 0.25 x 300; CPU-only counts all 1300 free: 0.25 x 1300. */
GP_TEST(frag_worked_example)
{
    gp_dev_shape s[3] = { { task(1000, 0, 1, 1000), 0.5 }, { task(1000, 0, 1, 500), 0.25 },
                          { { .cpu_milli = 1000 }, 0.25 } };
    gp_dev_mix mix = { .n = 3, .shapes = s };
    gp_dev_node n = node(4000, 8192, 2, 0);

    n.gpu_free[1] = 300;
    GP_CHECK_NEAR(gp_dev_frag(&n, &mix), 550.0, 1e-9);
    n.cpu_free = 500; /* Q4: not enough CPU for either GPU shape, all of it is fragment */
    GP_CHECK_NEAR(gp_dev_frag(&n, &mix), 1300.0, 1e-9);
    n.cpu_free = 4000;
    s[0].shape.models = 1u << 3; /* no access to this model: all of it for that shape */
    GP_CHECK_NEAR(gp_dev_frag(&n, &mix), (0.5 * 1300 + 75 + 325), 1e-9);
    n.gpu_free[0] = n.gpu_free[1] = 0;
    GP_CHECK(gp_dev_frag(&n, &mix) == 0);
}

/* gpupack's measure: a 500 share needing 4 cores, on 8 free cores, can use two of the three
 * GPUs it fits (the two with the most free share); the third's share counts as fragmentation.
 * FGD counts only the 300 sliver until not one task fits (Q4). */
GP_TEST(frag_gpupack_counts_gpus_cpu_strands)
{
    gp_dev_shape sh;
    gp_dev_mix mix = one_shape(&sh, task(4000, 0, 1, 500));
    gp_dev_node n = node(8000, 8192, 4, 0);

    n.gpu_free[3] = 300;
    GP_CHECK_NEAR(gp_dev_frag(&n, &mix), 300.0, 1e-9);
    GP_CHECK_NEAR(gp_dev_frag_gpupack(&n, &mix), 1300.0, 1e-9); /* 3300 - 2 x 1000 */
    n.gpu_free[0] = 600;
    n.gpu_free[2] = 700;
    GP_CHECK_NEAR(gp_dev_frag_gpupack(&n, &mix), 900.0, 1e-9); /* 2600 - (1000 + 700) */
    n.gpu_free[0] = n.gpu_free[2] = 1000;
    n.cpu_free = 12000; /* CPU for three: the same as FGD */
    GP_CHECK_NEAR(gp_dev_frag_gpupack(&n, &mix), 300.0, 1e-9);
    n.cpu_free = 3000; /* not one: Q4 in both */
    GP_CHECK_NEAR(gp_dev_frag_gpupack(&n, &mix), 3300.0, 1e-9);
    GP_CHECK_NEAR(gp_dev_frag(&n, &mix), 3300.0, 1e-9);
    n.cpu_free = 8000; /* whole-GPU shapes keep FGD's rule (they are the extender's) */
    sh.shape = task(4000, 0, 1, 1000);
    GP_CHECK_NEAR(gp_dev_frag_gpupack(&n, &mix), 300.0, 1e-9);
    sh.shape = task(0, 0, 1, 500); /* a shape without CPU: no limit */
    GP_CHECK_NEAR(gp_dev_frag_gpupack(&n, &mix), 300.0, 1e-9);
}

/* The effect: a CPU-light 810 share goes where CPU strands GPUs. Mix: a 500 share needing 3.5
 * cores, an 810 share needing 0.5 (half each). Node A has 4 cores free, so only one 500 task fits
 * its two free GPUs: gpupack's measure 500 before, 190 after the 810 task takes a GPU (decrease
 * 310: bucket 7). Node B has 64 cores: 0 -> 190 (bucket -5). FGD sees -190 on both. */
GP_TEST(gpupack_fills_gpus_cpu_strands)
{
    gp_dev_shape s[2] = { { task(3500, 0, 1, 500), 0.5 }, { task(500, 0, 1, 810), 0.5 } };
    gp_dev_mix mix = { .n = 2, .shapes = s };
    gp_dev_ctx ctx = { .mix = &mix };
    gp_dev_node a = node(4000, 8192, 2, 0), b = node(64000, 8192, 2, 0);
    gp_dev_task t = task(500, 1, 1, 810);
    gp_dev_pick p;

    GP_CHECK_INT(gp_dev_score_gpupack(&ctx, &a, &t, &p), 7);
    GP_CHECK(p.n == 1 && p.gpu[0] == 0);
    GP_CHECK_INT(gp_dev_score_gpupack(&ctx, &b, &t, &p), -5);
    GP_CHECK_INT(gp_dev_score_fgd(&ctx, &a, &t, &p), gp_dev_score_fgd(&ctx, &b, &t, &p));
}

/* A share task of 500 with a whole-GPU workload. Node A: GPUs [600, 1000]: on GPU 0 the node's
 * fragmentation goes 600 -> 100 (decrease 500), on GPU 1 600 -> 1100 (-500). */
GP_TEST(fgd_scores_and_picks_gpu)
{
    gp_dev_shape sh;
    gp_dev_mix mix = one_shape(&sh, task(1000, 0, 1, 1000));
    gp_dev_ctx ctx = { .mix = &mix };
    gp_dev_node a = node(8000, 8192, 2, 0), b = node(8000, 8192, 2, 0);
    gp_dev_task t = task(1000, 1, 1, 500);
    gp_dev_pick p;

    a.gpu_free[0] = 600;
    GP_CHECK_INT(gp_dev_score_fgd(&ctx, &a, &t, &p), 62); /* floor(100 x sigmoid(0.5)) */
    GP_CHECK(p.n == 1 && p.gpu[0] == 0);
    GP_CHECK_INT(gp_dev_score_fgd(&ctx, &b, &t, &p), 37); /* empty node: 0 -> 500 */
    GP_CHECK(p.n == 1 && p.gpu[0] == 0);
    GP_CHECK_INT(gp_dev_score_gpupack(&ctx, &a, &t, &p), 12); /* floor(500 / 40) */
    GP_CHECK(p.gpu[0] == 0);
    GP_CHECK_INT(gp_dev_score_gpupack(&ctx, &b, &t, &p), -13);
    gp_dev_task whole = task(1000, 1, 1, 1000);
    GP_CHECK_INT(gp_dev_score_fgd(&ctx, &a, &whole, &p), 50); /* 600 -> 600: no change */
    GP_CHECK(p.gpu[0] == 1);
}

/* gpupack: a CPU-only task changes no fragmentation here (bucket 0 on both nodes); it goes to the
 * node with no free GPU, keeping the CPU of the node with free GPUs for GPU tasks. */
GP_TEST(gpupack_cpu_only_prefers_nodes_without_free_gpus)
{
    gp_dev_shape sh;
    gp_dev_mix mix = one_shape(&sh, task(1000, 0, 1, 1000));
    gp_dev_ctx ctx = { .mix = &mix };
    gp_dev_node full = node(32000, 8192, 1, 0), idle = node(32000, 8192, 2, 0);
    gp_dev_task cpu = { .cpu_milli = 4000, .mem_mib = 1 };
    gp_dev_pick p;

    full.gpu_free[0] = 0;
    double a = gp_dev_score_gpupack(&ctx, &full, &cpu, &p);
    double b = gp_dev_score_gpupack(&ctx, &idle, &cpu, &p);
    GP_CHECK_NEAR(a, 0.5, 1e-12);
    GP_CHECK_NEAR(b, 0.375, 1e-12);
    GP_CHECK(p.n == 0);
}

/* Model pressure: models 0 (2 GPUs) and 1 (6 GPUs); half the tasks (by GPU) may only use model 0,
 * the other half any model. Demand per GPU of the cluster: 1 / 8; model 0 gets 0.5 / 2 = 0.25,
 * i.e. 2x. A whole-GPU task that may run anywhere pays 2 x 1000 on model 0 and nothing on model
 * 1, so it leaves model 0 to the constrained work. Fragmentation alone already leans to model 1
 * (its free GPUs are fragment for the model-0 shape: 1000 -> 500, bucket 12) but only by 12
 * buckets; the pressure adds 50. */
GP_TEST(gpupack_model_pressure)
{
    gp_dev_shape s[2] = { { task(1000, 0, 1, 1000), 0.5 }, { task(1000, 0, 1, 1000), 0.5 } };
    gp_dev_mix mix = { .n = 2, .shapes = s };
    int64_t gpus[GP_DEV_MAX_MODELS] = { 2, 6 };
    double pr[GP_DEV_MAX_MODELS];

    s[0].shape.models = 1u << 0;
    gp_dev_model_pressure(&mix, gpus, pr);
    GP_CHECK_NEAR(pr[0], 2.0, 1e-12);
    GP_CHECK(pr[1] == 0 && pr[2] == 0);
    gp_dev_ctx ctx = { .mix = &mix, .model_pressure = pr };
    gp_dev_node m0 = node(8000, 8192, 2, 0), m1 = node(8000, 8192, 2, 1);
    gp_dev_task any = task(1000, 1, 1, 1000), only0 = task(1000, 1, 1, 1000);
    gp_dev_pick p;

    only0.models = 1u << 0;
    double a0 = gp_dev_score_gpupack(&ctx, &m0, &any, &p);
    double a1 = gp_dev_score_gpupack(&ctx, &m1, &any, &p);
    GP_CHECK_INT(a0, -50); /* floor((0 - 2 x 1000) / 40) */
    GP_CHECK_INT(a1, 12);  /* floor(500 / 40) */
    GP_CHECK(gp_dev_score_gpupack(&ctx, &m1, &only0, &p) == GP_DEV_INFEASIBLE);
    GP_CHECK_INT(gp_dev_score_gpupack(&ctx, &m0, &only0, &p), -50); /* same on every model-0 node */
    ctx.model_pressure = NULL; /* unknown: the fragmentation alone */
    GP_CHECK_INT(gp_dev_score_gpupack(&ctx, &m0, &any, &p), 0);
    gp_dev_model_pressure(&mix, (int64_t[GP_DEV_MAX_MODELS]){ 0 }, pr); /* no capacity: none */
    GP_CHECK(pr[0] == 0 && pr[1] == 0);
}

/* The plan: a mix of 650 (1/4), 470 (1/2) and 320 (1/4) shares packs, first fit decreasing, into
 * GPUs of 650 + 320 and of 470 + 470. A 320 share may join a 650 and a 470 share a 470; a 320
 * joining a 470 (or a 470 a 320) is off the plan. A size the plan has not seen is never off it. */
GP_TEST(plan_pairs_as_an_offline_packer)
{
    gp_dev_shape s[4] = { { task(1000, 0, 1, 650), 0.25 }, { task(1000, 0, 1, 470), 0.5 },
                          { task(1000, 0, 1, 320), 0.25 }, { task(1000, 0, 1, 1000), 2.0 } };
    gp_dev_mix mix = { .n = 4, .shapes = s };
    gp_dev_plan plan;

    memset(&plan, 0, sizeof(plan));
    GP_CHECK(gp_dev_plan_build(&mix, &plan));
    GP_CHECK(plan.any);
    GP_CHECK_INT(plan.nsizes, 3); /* whole GPUs are not shares */
    GP_CHECK_INT(plan.size[0], 650);
    GP_CHECK_INT(plan.copies[0], 250);
    GP_CHECK_INT(plan.copies[1], 500);
    GP_CHECK(gp_dev_plan_fits(&plan, 320, 650));
    GP_CHECK(gp_dev_plan_fits(&plan, 650, 320));
    GP_CHECK(gp_dev_plan_fits(&plan, 470, 470));
    GP_CHECK(!gp_dev_plan_fits(&plan, 320, 470));
    GP_CHECK(!gp_dev_plan_fits(&plan, 470, 320));
    GP_CHECK(!gp_dev_plan_fits(&plan, 320, 320));
    GP_CHECK(gp_dev_plan_fits(&plan, 320, 0));    /* an untaken GPU */
    GP_CHECK(gp_dev_plan_fits(&plan, 230, 470));  /* a size the plan has not seen */
    GP_CHECK(gp_dev_plan_fits(NULL, 320, 470));
    GP_CHECK(!gp_dev_plan_build(&mix, &plan));    /* the same sample: nothing to do */
    s[2].freq = 0.5;                              /* 650 : 470 : 320 = 1 : 2 : 2 */
    GP_CHECK(gp_dev_plan_build(&mix, &plan));
    GP_CHECK(gp_dev_plan_fits(&plan, 320, 320));  /* the 320s left over pack three to a GPU */
    GP_CHECK(gp_dev_plan_fits(&plan, 320, 640));
    /* A rare size gets at least one copy: 160 (1 in 10,000) rides with an 810. */
    gp_dev_shape r[2] = { { task(1000, 0, 1, 810), 0.9999 }, { task(1000, 0, 1, 160), 0.0001 } };
    gp_dev_mix rare = { .n = 2, .shapes = r };
    GP_CHECK(gp_dev_plan_build(&rare, &plan));
    GP_CHECK(gp_dev_plan_fits(&plan, 160, 810));
    GP_CHECK(gp_dev_plan_fits(&plan, 810, 160));
    GP_CHECK(!gp_dev_plan_fits(&plan, 810, 150)); /* 160 (160..169) only */
    /* No sharing shape: no plan. */
    gp_dev_mix whole = { .n = 1, .shapes = &s[3] };
    GP_CHECK(gp_dev_plan_build(&whole, &plan));
    GP_CHECK(!plan.any);
    GP_CHECK(gp_dev_plan_fits(&plan, 320, 470));
}

/* gpupack charges a share GP_DEV_PLAN_PENALTY for a partly used GPU off the plan. A node with one
 * GPU, 470 taken: a 320 share takes it from 530 free to 210. The mix above: before 530 x 1/4
 * (only the 650 cannot use it) = 132.5, after 210: decrease -77.5, bucket -2; off the plan
 * -777.5, bucket -20. With 650 taken (on the plan for 320) the plan changes nothing. FGD has no
 * plan. */
GP_TEST(gpupack_plan_penalty)
{
    gp_dev_shape s[3] = { { task(0, 0, 1, 650), 0.25 }, { task(0, 0, 1, 470), 0.5 },
                          { task(0, 0, 1, 320), 0.25 } };
    gp_dev_mix mix = { .n = 3, .shapes = s };
    gp_dev_plan plan;
    gp_dev_ctx ctx = { .mix = &mix };
    gp_dev_node a = node(8000, 8192, 1, 0);
    gp_dev_task t = task(0, 1, 1, 320);
    gp_dev_pick p;

    memset(&plan, 0, sizeof(plan));
    gp_dev_plan_build(&mix, &plan);
    a.gpu_free[0] = 530;
    GP_CHECK_INT(gp_dev_score_gpupack(&ctx, &a, &t, &p), -2);
    double fgd = gp_dev_score_fgd(&ctx, &a, &t, &p);
    ctx.plan = &plan;
    GP_CHECK_INT(gp_dev_score_gpupack(&ctx, &a, &t, &p), -20);
    GP_CHECK(gp_dev_score_fgd(&ctx, &a, &t, &p) == fgd);
    a.gpu_free[0] = 350; /* 650 taken: 350 x 3/4 = 262.5 -> 30: decrease 232.5, bucket 5 */
    GP_CHECK_INT(gp_dev_score_gpupack(&ctx, &a, &t, &p), 5);
    ctx.plan = NULL;
    GP_CHECK_INT(gp_dev_score_gpupack(&ctx, &a, &t, &p), 5);
    /* Inside a node the plan picks the GPU: 470 taken on GPU 0, 650 on GPU 1, a 470 share: on
     * GPU 0 (on the plan) 530 -> 60, on GPU 1 it does not fit; a 320 share goes to GPU 1. */
    gp_dev_node two = node(8000, 8192, 2, 0);
    ctx.plan = &plan;
    two.gpu_free[0] = 530;
    two.gpu_free[1] = 350;
    gp_dev_score_gpupack(&ctx, &two, &t, &p);
    GP_CHECK(p.n == 1 && p.gpu[0] == 1);
}

GP_TEST(gpupacking_levels)
{
    gp_dev_ctx ctx = { 0 };
    gp_dev_node empty8 = node(96000, 8192, 8, 0), empty2 = node(96000, 8192, 2, 0);
    gp_dev_node used = node(96000, 8192, 2, 0);
    gp_dev_task share = task(1000, 1, 1, 400), whole = task(1000, 1, 1, 1000);
    gp_dev_pick p;

    GP_CHECK_INT(gp_dev_score_gpupacking(&ctx, &empty8, &share, &p), 25);
    GP_CHECK_INT(gp_dev_score_gpupacking(&ctx, &empty2, &share, &p), 31);
    used.gpu_free[0] = 600;
    GP_CHECK_INT(gp_dev_score_gpupacking(&ctx, &used, &share, &p), 94); /* 100 - 60 / 10 */
    GP_CHECK(p.gpu[0] == 0);
    GP_CHECK_INT(gp_dev_score_gpupacking(&ctx, &used, &whole, &p), 49); /* one free GPU used */
    GP_CHECK(p.gpu[0] == 1);
    gp_dev_task cpu = { .cpu_milli = 1 };
    GP_CHECK_INT(gp_dev_score_gpupacking(&ctx, &used, &cpu, &p), 0);
}

GP_TEST(bestfit_and_dotprod_values)
{
    gp_dev_ctx ctx = { 0 };
    gp_dev_node n = node(64000, 8192, 2, 0);
    gp_dev_task t = task(32000, 1, 1, 1000);
    gp_dev_pick p;

    /* 1 - 0.5 x 32000/128000 - 0.5 x 1000/8000 = 0.8125 */
    GP_CHECK_INT(gp_dev_score_bestfit(&ctx, &n, &t, &p), 81);
    /* 1 - (0.5 x 0.25 + 0.25 x 0.125) / 2 = 0.921875 */
    GP_CHECK_INT(gp_dev_score_dotprod(&ctx, &n, &t, &p), 92);
    GP_CHECK(p.n == 1 && p.gpu[0] == 0);
}

GP_TEST(every_scorer_rejects_infeasible)
{
    size_t k;
    const gp_dev_scorer *all = gp_dev_scorers(&k);
    gp_dev_shape sh;
    gp_dev_mix mix = one_shape(&sh, task(1000, 0, 1, 1000));
    gp_dev_ctx ctx = { .mix = &mix, .salt = 1 };
    gp_dev_node n = node(1000, 1024, 1, 0);
    gp_dev_task t = task(2000, 1, 1, 1000);
    gp_dev_pick p;

    GP_CHECK_INT(k, 6);
    for (size_t i = 0; i < k; i++) {
        GP_CHECK(all[i].score(&ctx, &n, &t, &p) <= GP_DEV_INFEASIBLE);
        GP_CHECK(gp_dev_scorer_find(all[i].name) == &all[i]);
    }
    GP_CHECK_STR(all[0].name, "gpupack");
    GP_CHECK(gp_dev_scorer_find("nope") == NULL);
}

GP_TEST(random_is_a_function_of_the_salt)
{
    gp_dev_ctx c1 = { .salt = 1 }, c2 = { .salt = 2 };
    gp_dev_node n = node(8000, 8192, 8, 0);
    gp_dev_task t = task(1, 1, 1, 100);
    gp_dev_pick p1, p2;
    int differ = 0;

    for (uint32_t id = 0; id < 32; id++) {
        n.id = id;
        double a = gp_dev_score_random(&c1, &n, &t, &p1);
        GP_CHECK(a == gp_dev_score_random(&c1, &n, &t, &p2) && p1.gpu[0] == p2.gpu[0]);
        differ += a != gp_dev_score_random(&c2, &n, &t, &p2);
        GP_CHECK(p1.n == 1 && p1.gpu[0] >= 0 && p1.gpu[0] < 8);
    }
    GP_CHECK(differ > 0);
}

GP_TEST(prng_is_deterministic)
{
    gp_dev_rng a, b, c;
    int same = 1, diff = 0;

    gp_dev_rng_seed(&a, 42);
    gp_dev_rng_seed(&b, 42);
    gp_dev_rng_seed(&c, 43);
    for (int i = 0; i < 100; i++) {
        uint64_t x = gp_dev_rng_next(&a);
        same &= x == gp_dev_rng_next(&b);
        diff += x != gp_dev_rng_next(&c);
    }
    GP_CHECK(same && diff > 90);
    uint64_t st = 0;
    GP_CHECK(gp_dev_splitmix64(&st) == 0xe220a8397b1dcdafULL); /* splitmix64's reference output */
    for (int i = 0; i < 1000; i++)
        GP_CHECK(gp_dev_rng_below(&a, 7) < 7);
}

GP_MAIN(GP_CASE(fits_cpu_memory_and_cpu_only), GP_CASE(fits_share_needs_one_gpu_with_enough_free),
        GP_CASE(fits_multi_gpu_needs_fully_free_gpus), GP_CASE(fits_model_constraint),
        GP_CASE(task_valid_shapes), GP_CASE(pick_bestfit_share_takes_least_free_fitting_gpu),
        GP_CASE(pick_bestfit_whole_takes_lowest_free_gpus), GP_CASE(apply_and_remove_round_trip),
        GP_CASE(mix_counts_keeps_popular_and_normalises), GP_CASE(mix_select_from_counts),
        GP_CASE(tally_counts_and_reuses_slots), GP_CASE(watch_shape_rule),
        GP_CASE(frag_worked_example), GP_CASE(frag_gpupack_counts_gpus_cpu_strands),
        GP_CASE(gpupack_fills_gpus_cpu_strands),
        GP_CASE(fgd_scores_and_picks_gpu),
        GP_CASE(gpupack_cpu_only_prefers_nodes_without_free_gpus), GP_CASE(gpupack_model_pressure),
        GP_CASE(plan_pairs_as_an_offline_packer), GP_CASE(gpupack_plan_penalty),
        GP_CASE(gpupacking_levels),
        GP_CASE(bestfit_and_dotprod_values), GP_CASE(every_scorer_rejects_infeasible),
        GP_CASE(random_is_a_function_of_the_salt), GP_CASE(prng_is_deterministic))
