/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of lib/frag.c: fit rules, GPU choice, apply/remove, the mix selection and tally,
 * which tasks the learned mix counts, FGD's and gpupack's fragmentation on worked examples,
 * gpupack's scorer, the node-view mapping. */
#include "gptest.h"

#include <stdint.h>
#include <string.h>

#include "fragtest.h"
#include "gpupack/frag.h"

GP_TEST(fits_cpu_memory_and_cpu_only)
{
    gp_frag_node n = node(4000, 1024, 0, -1);

    GP_CHECK(gp_frag_fits(&n, &(gp_frag_task){ .cpu_milli = 4000, .mem_mib = 1024 }));
    GP_CHECK(!gp_frag_fits(&n, &(gp_frag_task){ .cpu_milli = 4001, .mem_mib = 1 }));
    GP_CHECK(!gp_frag_fits(&n, &(gp_frag_task){ .cpu_milli = 1, .mem_mib = 1025 }));
    gp_frag_task gpu = task(1, 1, 1, 1000);
    GP_CHECK(!gp_frag_fits(&n, &gpu)); /* no GPU on a CPU node */
}

GP_TEST(fits_share_needs_one_gpu_with_enough_free)
{
    gp_frag_node n = node(8000, 8192, 2, 0);
    gp_frag_task t = task(1000, 1, 1, 500);

    n.gpu_free[0] = 400;
    n.gpu_free[1] = 450;
    GP_CHECK(!gp_frag_fits(&n, &t)); /* 850 free in total, but no single GPU has 500 */
    n.gpu_free[1] = 500;
    GP_CHECK(gp_frag_fits(&n, &t));
}

GP_TEST(fits_multi_gpu_needs_fully_free_gpus)
{
    gp_frag_node n = node(8000, 8192, 4, 0);
    gp_frag_task t = task(1000, 1, 2, 1000);

    n.gpu_free[0] = 999;
    n.gpu_free[1] = 999;
    n.gpu_free[2] = 0;
    GP_CHECK(!gp_frag_fits(&n, &t)); /* only GPU 3 is fully free */
    n.gpu_free[1] = 1000;
    GP_CHECK(gp_frag_fits(&n, &t));
}

GP_TEST(fits_model_constraint)
{
    gp_frag_models m = { 0 };
    int t4 = gp_frag_models_id(&m, "T4", 2), v100 = gp_frag_models_id(&m, "V100M32", 7);
    gp_frag_node n = node(8000, 8192, 1, t4);
    gp_frag_task t = task(1000, 1, 1, 1000);

    GP_CHECK_INT(gp_frag_models_id(&m, "T4", 2), t4); /* interned once */
    GP_CHECK(gp_frag_fits(&n, &t)); /* no constraint: any model */
    t.models = 1u << v100;
    GP_CHECK(!gp_frag_fits(&n, &t));
    t.models |= 1u << t4;
    GP_CHECK(gp_frag_fits(&n, &t));
    gp_frag_task cpu = { .cpu_milli = 1, .models = 1u << v100 };
    GP_CHECK(gp_frag_fits(&n, &cpu)); /* a model list means nothing to a CPU-only task */
}

GP_TEST(task_valid_shapes)
{
    gp_err err = { { 0 } };

    GP_CHECK(gp_frag_task_valid(&(gp_frag_task){ .cpu_milli = 1 }, &err));
    gp_frag_task share = task(1, 1, 1, 300), two = task(1, 1, 2, 1000);
    GP_CHECK(gp_frag_task_valid(&share, &err) && gp_frag_task_is_share(&share));
    GP_CHECK(gp_frag_task_valid(&two, &err) && !gp_frag_task_is_share(&two));
    GP_CHECK_INT(gp_frag_task_gpu_total(&two), 2000);
    gp_frag_task bad = task(1, 1, 2, 500);
    GP_CHECK(!gp_frag_task_valid(&bad, &err) && strstr(err.msg, "whole GPUs"));
    bad = task(1, 1, GP_FRAG_MAX_GPUS + 1, 1000);
    GP_CHECK(!gp_frag_task_valid(&bad, &err));
    bad = task(1, 1, 1, 0);
    GP_CHECK(!gp_frag_task_valid(&bad, &err));
}

GP_TEST(pick_bestfit_share_takes_least_free_fitting_gpu)
{
    gp_frag_node n = node(8000, 8192, 4, 0);
    gp_frag_task t = task(1, 1, 1, 300);
    gp_frag_pick p;

    n.gpu_free[0] = 1000;
    n.gpu_free[1] = 250; /* too small */
    n.gpu_free[2] = 400;
    n.gpu_free[3] = 400;
    GP_CHECK(gp_frag_pick_bestfit(&n, &t, &p));
    GP_CHECK_INT(p.n, 1);
    GP_CHECK_INT(p.gpu[0], 2); /* the least free that fits; the lower index on ties */
}

GP_TEST(pick_bestfit_whole_takes_lowest_free_gpus)
{
    gp_frag_node n = node(8000, 8192, 4, 0);
    gp_frag_task t = task(1, 1, 2, 1000);
    gp_frag_pick p;

    n.gpu_free[0] = 500;
    GP_CHECK(gp_frag_pick_bestfit(&n, &t, &p));
    GP_CHECK(p.n == 2 && p.gpu[0] == 1 && p.gpu[1] == 2);
    n.gpu_free[1] = n.gpu_free[2] = 0;
    GP_CHECK(!gp_frag_pick_bestfit(&n, &t, &p) && p.n == 0);
}

GP_TEST(apply_commits_only_what_fits)
{
    gp_frag_node n = node(8000, 8192, 2, 0);
    gp_frag_task t = task(3000, 4096, 1, 600);
    gp_frag_pick p = { .n = 1, .gpu = { 1 } };

    GP_CHECK(gp_frag_apply(&n, &t, &p));
    GP_CHECK(n.cpu_free == 5000 && n.mem_free == 4096 && n.gpu_free[1] == 400 &&
             n.gpu_free[0] == 1000);
    GP_CHECK(!gp_frag_apply(&n, &t, &p)); /* GPU 1 has only 400 left: unchanged */
    GP_CHECK(n.gpu_free[1] == 400 && n.cpu_free == 5000);
    gp_frag_pick bad = { .n = 1, .gpu = { 5 } };
    GP_CHECK(!gp_frag_apply(&n, &t, &bad));
    GP_CHECK(n.gpu_free[1] == 400 && n.cpu_free == 5000 && n.mem_free == 4096);
}

/* Counts already made (the extender's pod watch): zero counts dropped, the most common first,
 * equal counts in ascending shape order, cut at the popularity and at max, renormalised. */
GP_TEST(mix_select_from_counts)
{
    gp_frag_shape s[5] = { { task(4000, 0, 1, 1000), 2 }, { task(8000, 0, 2, 1000), 5 },
                           { task(1000, 0, 1, 1000), 0 }, { task(2000, 0, 1, 1000), 2 },
                           { task(64000, 0, 8, 1000), 1 } };
    gp_frag_shape c[5];

    memcpy(c, s, sizeof(s));
    GP_CHECK_INT(gp_frag_mix_select(c, 5, 100, 32), 4);
    GP_CHECK(c[0].shape.num_gpu == 2);
    GP_CHECK_NEAR(c[0].freq, 0.5, 1e-12);
    GP_CHECK(c[1].shape.cpu_milli == 2000);
    GP_CHECK_NEAR(c[1].freq, 0.2, 1e-12);
    GP_CHECK(c[2].shape.cpu_milli == 4000);
    GP_CHECK_NEAR(c[2].freq, 0.2, 1e-12);
    GP_CHECK(c[3].shape.num_gpu == 8);
    GP_CHECK_NEAR(c[3].freq, 0.1, 1e-12);
    memcpy(c, s, sizeof(s));
    GP_CHECK_INT(gp_frag_mix_select(c, 5, 70, 32), 2); /* 5 + 2 of 10 cover 70% */
    memcpy(c, s, sizeof(s));
    GP_CHECK_INT(gp_frag_mix_select(c, 5, 71, 32), 3);
    memcpy(c, s, sizeof(s));
    GP_CHECK_INT(gp_frag_mix_select(c, 5, 100, 2), 2);
    GP_CHECK_NEAR(c[0].freq, 5.0 / 7, 1e-12);
    GP_CHECK_NEAR(c[1].freq, 2.0 / 7, 1e-12);
    s[0].freq = s[1].freq = s[3].freq = s[4].freq = 0;
    GP_CHECK_INT(gp_frag_mix_select(s, 5, 95, 32), 0);
}

/* The running count: same shapes (memory aside) share a slot, uncounting frees it for another
 * shape, shapes past the storage are untracked, and the mix follows the counts. */
GP_TEST(tally_counts_and_reuses_slots)
{
    gp_frag_shape store[2], scratch[2];
    gp_frag_tally t;
    gp_frag_task a = task(4000, 10, 1, 1000), a2 = task(4000, 99, 1, 1000);
    gp_frag_task b = task(1000, 0, 1, 500), c = task(0, 0, 0, 0);

    gp_frag_tally_init(&t, store, 2);
    GP_CHECK_INT(gp_frag_tally_mix(&t, scratch, 95, 2), 0);
    gp_frag_tally_add(&t, &a, 1);
    gp_frag_tally_add(&t, &a2, 1); /* memory is not part of a shape */
    gp_frag_tally_add(&t, &b, 1);
    GP_CHECK_INT(t.n, 2);
    gp_frag_tally_add(&t, &c, 1); /* no room */
    GP_CHECK_INT(t.untracked, 1);
    GP_CHECK_INT(gp_frag_tally_mix(&t, scratch, 100, 2), 2);
    GP_CHECK_NEAR(scratch[0].freq, 2.0 / 3, 1e-12);
    GP_CHECK(scratch[0].shape.mem_mib == 0);
    uint64_t v = t.version;
    gp_frag_tally_add(&t, &b, -1); /* b's slot is free again */
    GP_CHECK(t.version != v);
    gp_frag_tally_add(&t, &c, -1); /* the untracked one */
    GP_CHECK_INT(t.untracked, 0);
    gp_frag_tally_add(&t, &c, 1);
    GP_CHECK_INT(t.n, 2);
    GP_CHECK_INT(t.untracked, 0);
    GP_CHECK_INT(gp_frag_tally_mix(&t, scratch, 100, 2), 2);
    GP_CHECK(scratch[1].shape.num_gpu == 0);
    GP_CHECK_NEAR(scratch[1].freq, 1.0 / 3, 1e-12);
}

/* Which bound tasks the learned mix counts: whole-GPU tasks anywhere, CPU-only tasks next to
 * whole GPUs unless a DaemonSet's or holding MIG slices, never sharing tasks; memory and model
 * constraints dropped. */
GP_TEST(mix_counts_rule)
{
    gp_frag_task whole = task(8000, 500, 2, 1000), cpu = task(2000, 64, 0, 0);
    gp_frag_task share = task(1000, 10, 1, 500), out;
    gp_frag_bound elsewhere = { 0 }, next = { .next_to_gpus = true };
    gp_frag_bound ds = { .next_to_gpus = true, .daemonset = true };
    gp_frag_bound mig = { .next_to_gpus = true, .mig = true };

    whole.models = 1u << 3;
    GP_CHECK(gp_frag_mix_counts(&whole, &elsewhere, &out));
    GP_CHECK(out.num_gpu == 2 && out.cpu_milli == 8000 && out.mem_mib == 0 && out.models == 0);
    GP_CHECK(gp_frag_mix_counts(&cpu, &next, &out) && out.num_gpu == 0 && out.mem_mib == 0);
    GP_CHECK(!gp_frag_mix_counts(&cpu, &elsewhere, &out));
    GP_CHECK(!gp_frag_mix_counts(&share, &next, &out));
    GP_CHECK(!gp_frag_mix_counts(&cpu, &ds, &out));
    GP_CHECK(!gp_frag_mix_counts(&cpu, &mig, &out));
    GP_CHECK(gp_frag_mix_counts(&whole, &ds, &out) && gp_frag_mix_counts(&whole, &mig, &out));
    gp_frag_shape d = gp_frag_default_shape(4000);
    GP_CHECK(d.shape.num_gpu == 1 && d.shape.gpu_milli == 1000 && d.shape.cpu_milli == 4000);
    GP_CHECK(d.freq == 1.0);
}

/* Worked example (docs/simulation.md): GPUs free [1000, 300], 4 cores free; shapes: one whole GPU
 * (freq 0.5), a 500 share (0.25), CPU only (0.25). The whole-GPU and share shapes fit but cannot
 * use the 300 sliver: 0.5 x 300 + 0.25 x 300; CPU-only counts all 1300 free: 0.25 x 1300. */
GP_TEST(frag_worked_example)
{
    gp_frag_shape s[3] = { { task(1000, 0, 1, 1000), 0.5 }, { task(1000, 0, 1, 500), 0.25 },
                           { { .cpu_milli = 1000 }, 0.25 } };
    gp_frag_mix mix = { .n = 3, .shapes = s };
    gp_frag_node n = node(4000, 8192, 2, 0);

    n.gpu_free[1] = 300;
    GP_CHECK_NEAR(gp_frag_fgd(&n, &mix), 550.0, 1e-9);
    n.cpu_free = 500; /* Q4: not enough CPU for either GPU shape, all of it is fragment */
    GP_CHECK_NEAR(gp_frag_fgd(&n, &mix), 1300.0, 1e-9);
    n.cpu_free = 4000;
    s[0].shape.models = 1u << 3; /* no access to this model: all of it for that shape */
    GP_CHECK_NEAR(gp_frag_fgd(&n, &mix), (0.5 * 1300 + 75 + 325), 1e-9);
    n.gpu_free[0] = n.gpu_free[1] = 0;
    GP_CHECK(gp_frag_fgd(&n, &mix) == 0);
}

/* gpupack's measure: a 500 share needing 4 cores, on 8 free cores, can use two of the three
 * GPUs it fits (the two with the most free share); the third's share counts as fragmentation.
 * FGD counts only the 300 sliver until not one task fits (Q4). */
GP_TEST(frag_gpupack_counts_gpus_cpu_strands)
{
    gp_frag_shape sh;
    gp_frag_mix mix = one_shape(&sh, task(4000, 0, 1, 500));
    gp_frag_node n = node(8000, 8192, 4, 0);

    n.gpu_free[3] = 300;
    GP_CHECK_NEAR(gp_frag_fgd(&n, &mix), 300.0, 1e-9);
    GP_CHECK_NEAR(gp_frag_gpupack(&n, &mix), 1300.0, 1e-9); /* 3300 - 2 x 1000 */
    n.gpu_free[0] = 600;
    n.gpu_free[2] = 700;
    GP_CHECK_NEAR(gp_frag_gpupack(&n, &mix), 900.0, 1e-9); /* 2600 - (1000 + 700) */
    n.gpu_free[0] = n.gpu_free[2] = 1000;
    n.cpu_free = 12000; /* CPU for three: the same as FGD */
    GP_CHECK_NEAR(gp_frag_gpupack(&n, &mix), 300.0, 1e-9);
    n.cpu_free = 3000; /* not one: Q4 in both */
    GP_CHECK_NEAR(gp_frag_gpupack(&n, &mix), 3300.0, 1e-9);
    GP_CHECK_NEAR(gp_frag_fgd(&n, &mix), 3300.0, 1e-9);
    n.cpu_free = 8000; /* whole-GPU shapes keep FGD's rule (they are the extender's) */
    sh.shape = task(4000, 0, 1, 1000);
    GP_CHECK_NEAR(gp_frag_gpupack(&n, &mix), 300.0, 1e-9);
    sh.shape = task(0, 0, 1, 500); /* a shape without CPU: no limit */
    GP_CHECK_NEAR(gp_frag_gpupack(&n, &mix), 300.0, 1e-9);
}

/* gpupack: a CPU-only task changes no fragmentation here (bucket 0 on both nodes); it goes to the
 * node with no free GPU, keeping the CPU of the node with free GPUs for GPU tasks. */
GP_TEST(gpupack_cpu_only_prefers_nodes_without_free_gpus)
{
    gp_frag_shape sh;
    gp_frag_mix mix = one_shape(&sh, task(1000, 0, 1, 1000));
    gp_frag_ctx ctx = { .mix = &mix };
    gp_frag_node full = node(32000, 8192, 1, 0), idle = node(32000, 8192, 2, 0);
    gp_frag_task cpu = { .cpu_milli = 4000, .mem_mib = 1 };
    gp_frag_pick p;

    full.gpu_free[0] = 0;
    double a = gp_frag_score(&ctx, &full, &cpu, &p);
    double b = gp_frag_score(&ctx, &idle, &cpu, &p);
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
    gp_frag_shape s[2] = { { task(1000, 0, 1, 1000), 0.5 }, { task(1000, 0, 1, 1000), 0.5 } };
    gp_frag_mix mix = { .n = 2, .shapes = s };
    int64_t gpus[GP_FRAG_MAX_MODELS] = { 2, 6 };
    double pr[GP_FRAG_MAX_MODELS];

    s[0].shape.models = 1u << 0;
    gp_frag_model_pressure(&mix, gpus, pr);
    GP_CHECK_NEAR(pr[0], 2.0, 1e-12);
    GP_CHECK(pr[1] == 0 && pr[2] == 0);
    gp_frag_ctx ctx = { .mix = &mix, .model_pressure = pr };
    gp_frag_node m0 = node(8000, 8192, 2, 0), m1 = node(8000, 8192, 2, 1);
    gp_frag_task any = task(1000, 1, 1, 1000), only0 = task(1000, 1, 1, 1000);
    gp_frag_pick p;

    only0.models = 1u << 0;
    double a0 = gp_frag_score(&ctx, &m0, &any, &p);
    double a1 = gp_frag_score(&ctx, &m1, &any, &p);
    GP_CHECK_INT(a0, -50); /* floor((0 - 2 x 1000) / 40) */
    GP_CHECK_INT(a1, 12);  /* floor(500 / 40) */
    GP_CHECK(gp_frag_score(&ctx, &m1, &only0, &p) == GP_FRAG_INFEASIBLE);
    GP_CHECK_INT(gp_frag_score(&ctx, &m0, &only0, &p), -50); /* same on every model-0 node */
    ctx.model_pressure = NULL; /* unknown: the fragmentation alone */
    GP_CHECK_INT(gp_frag_score(&ctx, &m0, &any, &p), 0);
    gp_frag_model_pressure(&mix, (int64_t[GP_FRAG_MAX_MODELS]){ 0 }, pr); /* no capacity: none */
    GP_CHECK(pr[0] == 0 && pr[1] == 0);
}

/* The one mapping between node views and the model: the free GPUs first, a capacity the view
 * does not report unconstrained, and back. */
GP_TEST(node_view_round_trip)
{
    gp_node v, back;
    gp_frag_node n;

    memset(&v, 0, sizeof(v));
    memset(&back, 0, sizeof(back));
    v.gpu_alloc = 4;
    v.gpu_used = 1;
    v.cpu_alloc_m = 16000;
    v.cpu_used_m = 4000;
    v.mem_alloc = (int64_t)64 << 30;
    v.mem_used = (int64_t)16 << 30;
    GP_CHECK(gp_frag_from_view(&v, &n));
    GP_CHECK(n.ngpu == 4 && n.gpu_free[2] == 1000 && n.gpu_free[3] == 0 && n.model == -1);
    GP_CHECK(n.cpu_free == 12000 && n.mem_free == 48 << 10);
    gp_frag_to_view(&n, &back);
    GP_CHECK(back.gpu_alloc == 4 && back.gpu_used == 1 && back.gpu_pods == 1);
    GP_CHECK(back.cpu_used_m == 4000 && back.mem_alloc == v.mem_alloc);
    GP_CHECK(back.mem_used == v.mem_used);
    v.cpu_alloc_m = 0;
    v.mem_alloc = 0;
    GP_CHECK(gp_frag_from_view(&v, &n));
    GP_CHECK(n.cpu_free > (int64_t)1 << 60 && n.mem_free > (int64_t)1 << 60);
    v.gpu_alloc = 0; /* no whole GPUs (MIG only, or CPU only) */
    GP_CHECK(!gp_frag_from_view(&v, &n));
    v.gpu_alloc = GP_FRAG_MAX_GPUS + 1;
    GP_CHECK(!gp_frag_from_view(&v, &n));
}

/* A pod's usage as a task: whole GPUs, CPU, memory rounded up to MiB, MIG slices left out. */
GP_TEST(task_usage_round_trip)
{
    gp_usage u, back;
    gp_frag_task t;

    memset(&u, 0, sizeof(u));
    u.gpu = 2;
    u.cpu_m = 3000;
    u.mem = ((int64_t)5 << 20) + 1;
    u.nmig = 1;
    u.mig[0] = 1;
    GP_CHECK(gp_frag_task_from_usage(&u, &t));
    GP_CHECK(t.num_gpu == 2 && t.gpu_milli == 1000 && t.cpu_milli == 3000 && t.mem_mib == 6);
    gp_frag_task_to_usage(&t, &back);
    GP_CHECK(back.gpu == 2 && back.cpu_m == 3000 && back.mem == (int64_t)6 << 20 && back.nmig == 0);
    u.gpu = 0;
    GP_CHECK(gp_frag_task_from_usage(&u, &t) && t.num_gpu == 0 && t.gpu_milli == 0);
    u.gpu = GP_FRAG_MAX_GPUS + 1;
    GP_CHECK(!gp_frag_task_from_usage(&u, &t));
}

GP_MAIN(GP_CASE(fits_cpu_memory_and_cpu_only), GP_CASE(fits_share_needs_one_gpu_with_enough_free),
        GP_CASE(fits_multi_gpu_needs_fully_free_gpus), GP_CASE(fits_model_constraint),
        GP_CASE(task_valid_shapes), GP_CASE(pick_bestfit_share_takes_least_free_fitting_gpu),
        GP_CASE(pick_bestfit_whole_takes_lowest_free_gpus), GP_CASE(apply_commits_only_what_fits),
        GP_CASE(mix_select_from_counts), GP_CASE(tally_counts_and_reuses_slots),
        GP_CASE(mix_counts_rule), GP_CASE(frag_worked_example),
        GP_CASE(frag_gpupack_counts_gpus_cpu_strands),
        GP_CASE(gpupack_cpu_only_prefers_nodes_without_free_gpus), GP_CASE(gpupack_model_pressure),
        GP_CASE(node_view_round_trip), GP_CASE(task_usage_round_trip))
