/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of the simulator's scorers and their helpers (sim/scorers.c, sim/plan.c, sim/mix.c,
 * sim/rng.c): the mix from a task list, each baseline scorer on small cases with known answers,
 * FGD beside gpupack's scorer, the plan for sharing work, the PRNG. */
#include "gptest.h"

#include <stdint.h>
#include <string.h>

#include "fragtest.h"
#include "gpupack/frag.h"
#include "mix.h"
#include "plan.h"
#include "rng.h"
#include "scorers.h"

/* The simulator's scorer called name on node n for task t. */
static double score(const char *name, const sim_ctx *ctx, const gp_frag_node *n,
                    const gp_frag_task *t, gp_frag_pick *pick)
{
    return sim_scorer_find(name)->score(ctx, n, t, pick);
}

GP_TEST(mix_counts_keeps_popular_and_normalises)
{
    gp_frag_task tasks[10];
    gp_frag_mix m;
    gp_err err = { { 0 } };

    for (int i = 0; i < 6; i++)
        tasks[i] = task(1000, 100 + i, 1, 1000); /* memory differs: same shape */
    for (int i = 6; i < 9; i++)
        tasks[i] = task(2000, 1, 1, 500);
    tasks[9] = (gp_frag_task){ .cpu_milli = 500 };
    sim_mix_opts all = { .popularity_pct = 100, .cpu_tasks = true };
    GP_CHECK(sim_mix_build(tasks, 10, &all, &m, &err) == GP_OK);
    GP_CHECK_INT(m.n, 3);
    GP_CHECK_NEAR(m.shapes[0].freq, 0.6, 1e-12);
    GP_CHECK(m.shapes[0].shape.cpu_milli == 1000);
    GP_CHECK_NEAR(m.shapes[1].freq, 0.3, 1e-12);
    GP_CHECK(m.shapes[1].shape.gpu_milli == 500);
    GP_CHECK_NEAR(m.shapes[2].freq, 0.1, 1e-12);
    GP_CHECK(m.shapes[2].shape.num_gpu == 0);
    sim_mix_free(&m);
    /* 80%: the top two shapes cover 90% >= 80%; renormalised to 6/9 and 3/9. */
    sim_mix_opts pop = { .popularity_pct = 80, .cpu_tasks = true };
    GP_CHECK(sim_mix_build(tasks, 10, &pop, &m, &err) == GP_OK);
    GP_CHECK(m.n == 2);
    GP_CHECK_NEAR(m.shapes[0].freq, 6.0 / 9, 1e-12);
    sim_mix_free(&m);
    sim_mix_opts nocpu = { .popularity_pct = 100, .cpu_tasks = false };
    GP_CHECK(sim_mix_build(&tasks[9], 1, &nocpu, &m, &err) == GP_EINVAL);
}

/* The effect: a CPU-light 810 share goes where CPU strands GPUs. Mix: a 500 share needing 3.5
 * cores, an 810 share needing 0.5 (half each). Node A has 4 cores free, so only one 500 task fits
 * its two free GPUs: gpupack's measure 500 before, 190 after the 810 task takes a GPU (decrease
 * 310: bucket 7). Node B has 64 cores: 0 -> 190 (bucket -5). FGD sees -190 on both. */
GP_TEST(gpupack_fills_gpus_cpu_strands)
{
    gp_frag_shape s[2] = { { task(3500, 0, 1, 500), 0.5 }, { task(500, 0, 1, 810), 0.5 } };
    gp_frag_mix mix = { .n = 2, .shapes = s };
    sim_ctx ctx = { .frag = { .mix = &mix } };
    gp_frag_node a = node(4000, 8192, 2, 0), b = node(64000, 8192, 2, 0);
    gp_frag_task t = task(500, 1, 1, 810);
    gp_frag_pick p;

    GP_CHECK_INT(gp_frag_score(&ctx.frag, &a, &t, &p), 7);
    GP_CHECK(p.n == 1 && p.gpu[0] == 0);
    GP_CHECK_INT(gp_frag_score(&ctx.frag, &b, &t, &p), -5);
    GP_CHECK_INT(score("fgd", &ctx, &a, &t, &p), score("fgd", &ctx, &b, &t, &p));
}

/* A share task of 500 with a whole-GPU workload. Node A: GPUs [600, 1000]: on GPU 0 the node's
 * fragmentation goes 600 -> 100 (decrease 500), on GPU 1 600 -> 1100 (-500). */
GP_TEST(fgd_scores_and_picks_gpu)
{
    gp_frag_shape sh;
    gp_frag_mix mix = one_shape(&sh, task(1000, 0, 1, 1000));
    sim_ctx ctx = { .frag = { .mix = &mix } };
    gp_frag_node a = node(8000, 8192, 2, 0), b = node(8000, 8192, 2, 0);
    gp_frag_task t = task(1000, 1, 1, 500);
    gp_frag_pick p;

    a.gpu_free[0] = 600;
    GP_CHECK_INT(score("fgd", &ctx, &a, &t, &p), 62); /* floor(100 x sigmoid(0.5)) */
    GP_CHECK(p.n == 1 && p.gpu[0] == 0);
    GP_CHECK_INT(score("fgd", &ctx, &b, &t, &p), 37); /* empty node: 0 -> 500 */
    GP_CHECK(p.n == 1 && p.gpu[0] == 0);
    GP_CHECK_INT(gp_frag_score(&ctx.frag, &a, &t, &p), 12); /* floor(500 / 40) */
    GP_CHECK(p.gpu[0] == 0);
    GP_CHECK_INT(gp_frag_score(&ctx.frag, &b, &t, &p), -13);
    gp_frag_task whole = task(1000, 1, 1, 1000);
    GP_CHECK_INT(score("fgd", &ctx, &a, &whole, &p), 50); /* 600 -> 600: no change */
    GP_CHECK(p.gpu[0] == 1);
}

/* The plan: a mix of 650 (1/4), 470 (1/2) and 320 (1/4) shares packs, first fit decreasing, into
 * GPUs of 650 + 320 and of 470 + 470. A 320 share may join a 650 and a 470 share a 470; a 320
 * joining a 470 (or a 470 a 320) is off the plan. A size the plan has not seen is never off it. */
GP_TEST(plan_pairs_as_an_offline_packer)
{
    gp_frag_shape s[4] = { { task(1000, 0, 1, 650), 0.25 }, { task(1000, 0, 1, 470), 0.5 },
                           { task(1000, 0, 1, 320), 0.25 }, { task(1000, 0, 1, 1000), 2.0 } };
    gp_frag_mix mix = { .n = 4, .shapes = s };
    sim_plan plan;

    memset(&plan, 0, sizeof(plan));
    GP_CHECK(sim_plan_build(&mix, &plan));
    GP_CHECK(plan.any);
    GP_CHECK_INT(plan.nsizes, 3); /* whole GPUs are not shares */
    GP_CHECK_INT(plan.size[0], 650);
    GP_CHECK_INT(plan.copies[0], 250);
    GP_CHECK_INT(plan.copies[1], 500);
    GP_CHECK(sim_plan_fits(&plan, 320, 650));
    GP_CHECK(sim_plan_fits(&plan, 650, 320));
    GP_CHECK(sim_plan_fits(&plan, 470, 470));
    GP_CHECK(!sim_plan_fits(&plan, 320, 470));
    GP_CHECK(!sim_plan_fits(&plan, 470, 320));
    GP_CHECK(!sim_plan_fits(&plan, 320, 320));
    GP_CHECK(sim_plan_fits(&plan, 320, 0));    /* an untaken GPU */
    GP_CHECK(sim_plan_fits(&plan, 230, 470));  /* a size the plan has not seen */
    GP_CHECK(sim_plan_fits(NULL, 320, 470));
    GP_CHECK(!sim_plan_build(&mix, &plan));    /* the same sample: nothing to do */
    s[2].freq = 0.5;                              /* 650 : 470 : 320 = 1 : 2 : 2 */
    GP_CHECK(sim_plan_build(&mix, &plan));
    GP_CHECK(sim_plan_fits(&plan, 320, 320));  /* the 320s left over pack three to a GPU */
    GP_CHECK(sim_plan_fits(&plan, 320, 640));
    /* A rare size gets at least one copy: 160 (1 in 10,000) rides with an 810. */
    gp_frag_shape r[2] = { { task(1000, 0, 1, 810), 0.9999 }, { task(1000, 0, 1, 160), 0.0001 } };
    gp_frag_mix rare = { .n = 2, .shapes = r };
    GP_CHECK(sim_plan_build(&rare, &plan));
    GP_CHECK(sim_plan_fits(&plan, 160, 810));
    GP_CHECK(sim_plan_fits(&plan, 810, 160));
    GP_CHECK(!sim_plan_fits(&plan, 810, 150)); /* 160 (160..169) only */
    /* No sharing shape: no plan. */
    gp_frag_mix whole = { .n = 1, .shapes = &s[3] };
    GP_CHECK(sim_plan_build(&whole, &plan));
    GP_CHECK(!plan.any);
    GP_CHECK(sim_plan_fits(&plan, 320, 470));
}

/* gpupack charges a share SIM_PLAN_PENALTY for a partly used GPU off the plan. A node with one
 * GPU, 470 taken: a 320 share takes it from 530 free to 210. The mix above: before 530 x 1/4
 * (only the 650 cannot use it) = 132.5, after 210: decrease -77.5, bucket -2; off the plan
 * -777.5, bucket -20. With 650 taken (on the plan for 320) the plan changes nothing. FGD has no
 * plan. */
GP_TEST(gpupack_plan_penalty)
{
    gp_frag_shape s[3] = { { task(0, 0, 1, 650), 0.25 }, { task(0, 0, 1, 470), 0.5 },
                           { task(0, 0, 1, 320), 0.25 } };
    gp_frag_mix mix = { .n = 3, .shapes = s };
    sim_plan plan;
    sim_ctx ctx = { .frag = { .mix = &mix } };
    gp_frag_node a = node(8000, 8192, 1, 0);
    gp_frag_task t = task(0, 1, 1, 320);
    gp_frag_pick p;

    memset(&plan, 0, sizeof(plan));
    sim_plan_build(&mix, &plan);
    a.gpu_free[0] = 530;
    GP_CHECK_INT(gp_frag_score(&ctx.frag, &a, &t, &p), -2);
    double fgd = score("fgd", &ctx, &a, &t, &p);
    ctx.frag.share_cost = sim_plan_cost;
    ctx.frag.share_arg = &plan;
    GP_CHECK_INT(gp_frag_score(&ctx.frag, &a, &t, &p), -20);
    GP_CHECK(score("fgd", &ctx, &a, &t, &p) == fgd);
    a.gpu_free[0] = 350; /* 650 taken: 350 x 3/4 = 262.5 -> 30: decrease 232.5, bucket 5 */
    GP_CHECK_INT(gp_frag_score(&ctx.frag, &a, &t, &p), 5);
    ctx.frag.share_cost = NULL;
    GP_CHECK_INT(gp_frag_score(&ctx.frag, &a, &t, &p), 5);
    /* Inside a node the plan picks the GPU: 470 taken on GPU 0, 650 on GPU 1, a 470 share: on
     * GPU 0 (on the plan) 530 -> 60, on GPU 1 it does not fit; a 320 share goes to GPU 1. */
    gp_frag_node two = node(8000, 8192, 2, 0);
    ctx.frag.share_cost = sim_plan_cost;
    ctx.frag.share_arg = &plan;
    two.gpu_free[0] = 530;
    two.gpu_free[1] = 350;
    gp_frag_score(&ctx.frag, &two, &t, &p);
    GP_CHECK(p.n == 1 && p.gpu[0] == 1);
}

GP_TEST(gpupacking_levels)
{
    sim_ctx ctx = { 0 };
    gp_frag_node empty8 = node(96000, 8192, 8, 0), empty2 = node(96000, 8192, 2, 0);
    gp_frag_node used = node(96000, 8192, 2, 0);
    gp_frag_task share = task(1000, 1, 1, 400), whole = task(1000, 1, 1, 1000);
    gp_frag_pick p;

    GP_CHECK_INT(score("gpupacking", &ctx, &empty8, &share, &p), 25);
    GP_CHECK_INT(score("gpupacking", &ctx, &empty2, &share, &p), 31);
    used.gpu_free[0] = 600;
    GP_CHECK_INT(score("gpupacking", &ctx, &used, &share, &p), 94); /* 100 - 60 / 10 */
    GP_CHECK(p.gpu[0] == 0);
    GP_CHECK_INT(score("gpupacking", &ctx, &used, &whole, &p), 49); /* one free GPU used */
    GP_CHECK(p.gpu[0] == 1);
    gp_frag_task cpu = { .cpu_milli = 1 };
    GP_CHECK_INT(score("gpupacking", &ctx, &used, &cpu, &p), 0);
}

GP_TEST(bestfit_and_dotprod_values)
{
    sim_ctx ctx = { 0 };
    gp_frag_node n = node(64000, 8192, 2, 0);
    gp_frag_task t = task(32000, 1, 1, 1000);
    gp_frag_pick p;

    /* 1 - 0.5 x 32000/128000 - 0.5 x 1000/8000 = 0.8125 */
    GP_CHECK_INT(score("bestfit", &ctx, &n, &t, &p), 81);
    /* 1 - (0.5 x 0.25 + 0.25 x 0.125) / 2 = 0.921875 */
    GP_CHECK_INT(score("dotprod", &ctx, &n, &t, &p), 92);
    GP_CHECK(p.n == 1 && p.gpu[0] == 0);
}

GP_TEST(every_scorer_rejects_infeasible)
{
    size_t k;
    const sim_scorer *all = sim_scorers(&k);
    gp_frag_shape sh;
    gp_frag_mix mix = one_shape(&sh, task(1000, 0, 1, 1000));
    sim_ctx ctx = { .frag = { .mix = &mix }, .salt = 1 };
    gp_frag_node n = node(1000, 1024, 1, 0);
    gp_frag_task t = task(2000, 1, 1, 1000);
    gp_frag_pick p;

    GP_CHECK_INT(k, 10);
    for (size_t i = 0; i < k; i++) {
        GP_CHECK(all[i].score(&ctx, &n, &t, &p) <= GP_FRAG_INFEASIBLE);
        GP_CHECK(sim_scorer_find(all[i].name) == &all[i]);
    }
    GP_CHECK_STR(all[0].name, "gpupack");
    GP_CHECK(sim_scorer_find("nope") == NULL);
}

GP_TEST(random_is_a_function_of_the_salt)
{
    sim_ctx c1 = { .salt = 1 }, c2 = { .salt = 2 };
    gp_frag_node n = node(8000, 8192, 8, 0);
    gp_frag_task t = task(1, 1, 1, 100);
    gp_frag_pick p1, p2;
    int differ = 0;

    for (uint32_t id = 0; id < 32; id++) {
        n.id = id;
        double a = score("random", &c1, &n, &t, &p1);
        GP_CHECK(a == score("random", &c1, &n, &t, &p2) && p1.gpu[0] == p2.gpu[0]);
        differ += a != score("random", &c2, &n, &t, &p2);
        GP_CHECK(p1.n == 1 && p1.gpu[0] >= 0 && p1.gpu[0] < 8);
    }
    GP_CHECK(differ > 0);
}

GP_TEST(prng_is_deterministic)
{
    sim_rng a, b, c;
    int same = 1, diff = 0;

    sim_rng_seed(&a, 42);
    sim_rng_seed(&b, 42);
    sim_rng_seed(&c, 43);
    for (int i = 0; i < 100; i++) {
        uint64_t x = sim_rng_next(&a);
        same &= x == sim_rng_next(&b);
        diff += x != sim_rng_next(&c);
    }
    GP_CHECK(same && diff > 90);
    uint64_t st = 0;
    GP_CHECK(sim_splitmix64(&st) == 0xe220a8397b1dcdafULL); /* splitmix64's reference output */
    for (int i = 0; i < 1000; i++)
        GP_CHECK(sim_rng_below(&a, 7) < 7);
}


GP_MAIN(GP_CASE(mix_counts_keeps_popular_and_normalises), GP_CASE(gpupack_fills_gpus_cpu_strands),
        GP_CASE(fgd_scores_and_picks_gpu), GP_CASE(plan_pairs_as_an_offline_packer),
        GP_CASE(gpupack_plan_penalty), GP_CASE(gpupacking_levels),
        GP_CASE(bestfit_and_dotprod_values), GP_CASE(every_scorer_rejects_infeasible),
        GP_CASE(random_is_a_function_of_the_salt), GP_CASE(prng_is_deterministic))
