/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of the time replay (sim/replay.c) and its pools (sim/pools.c):
 * small replays whose answers are worked out by hand in the comments:
 * node-hours to the second, pending times, a pool at its maximum, scale-down in
 * both modes, billing's minimum, determinism per seed. */
#include "gptest.h"

#include <string.h>

#include "gpupack/policy.h"
#include "mix.h"
#include "pools.h"
#include "replay.h"
#include "scorers.h"

#define GIB 1024 /* MiB */

/* A pool of nodes with gpus GPUs, 8 cores, 32 GiB, 0..max nodes, $3.60/h
 * ($0.001/s), ready 240 s after the scale-up decision. */
static sim_pool pool(int gpus, int max)
{
    sim_pool p;

    memset(&p, 0, sizeof(p));
    strcpy(p.name, "p");
    gp_frag_node_init(&p.node, 0, 8000, 32 * GIB, gpus, 0);
    p.on_demand = 3.6;
    p.spot = 1.44;
    p.max_nodes = max;
    p.provision_s = 240;
    return p;
}

static sim_job job(int64_t at, int64_t dur, int gpus, uint8_t owner)
{
    sim_job j = { .arrive = at, .duration = dur, .owner = owner };

    j.task = (gp_frag_task){
        .cpu_milli = 1000, .mem_mib = GIB, .num_gpu = gpus, .gpu_milli = gpus ? 1000 : 0
    };
    return j;
}

typedef struct {
    sim_cfg place;
    gp_frag_mix mix;
    gp_frag_task tasks[16];
    sim_replay_cfg rc;
    sim_replay_result res;
} fixture;

/* Replays jobs[0..n) on pools with the scorer called name (ties to the first
 * node), until end. */
static gp_status run_with(fixture *f, const char *name, const sim_pool *pools, size_t np,
                          const sim_job *jobs, size_t n, sim_down_mode down, int64_t end,
                          int64_t unneeded)
{
    gp_err err = { { 0 } };
    sim_mix_opts mo = { .popularity_pct = 100, .cpu_tasks = true };
    static gp_frag_models models = { 1, { "T" } };

    for (size_t i = 0; i < n; i++)
        f->tasks[i] = jobs[i].task;
    if (sim_mix_build(f->tasks, n, &mo, &f->mix, &err) != GP_OK)
        return GP_EINVAL;
    f->place = (sim_cfg){ .scorer = sim_scorer_find(name),
                          .mix = &f->mix,
                          .tasks = f->tasks,
                          .n_tasks = n,
                          .models = &models,
                          .seed = 42,
                          .fallback_cpu = 4000 };
    sim_replay_defaults(&f->rc);
    f->rc.pools = pools;
    f->rc.n_pools = np;
    f->rc.jobs = jobs;
    f->rc.n_jobs = n;
    f->rc.place = &f->place;
    f->rc.end_s = end;
    f->rc.down = down;
    f->rc.sample_s = 60;
    if (unneeded >= 0)
        f->rc.unneeded_s = unneeded;
    gp_status st = sim_replay(&f->rc, &f->res, &err);
    if (st != GP_OK)
        printf("  sim_replay: %s\n", err.msg);
    return st;
}

static gp_status run(fixture *f, const char *name, const sim_pool *pools, size_t np,
                     const sim_job *jobs, size_t n, sim_down_mode down, int64_t end)
{
    return run_with(f, name, pools, np, jobs, n, down, end, -1);
}

static void done(fixture *f)
{
    sim_replay_result_free(&f->res);
    sim_mix_free(&f->mix);
}

/* Scale-up from nothing: a and b (1 GPU each) arrive at 0 with no node; the
 * scan at 0 packs both onto one new 2-GPU node, ready at 240, where both start
 * (each waited 240 s) and run to 3840. c arrives at 300, the node is full: a
 * second node is asked for at the scan at 300, ready at 540; c runs 540-1140.
 * Empty mode, 600 s: the second node goes at the first scan from 1740 (1140 +
 * 600), the first at 4440 (3840 + 600). Node-seconds 4200 + 1200 = 5400: 1.5
 * node-hours, $5.40 at $3.60/h; all three waited 240 s. */
GP_TEST(scale_up_then_empty_nodes_go)
{
    sim_pool p = pool(2, 4);
    sim_job jobs[] = { job(0, 3600, 1, SIM_OWNER_JOB), job(0, 3600, 1, SIM_OWNER_JOB),
                       job(300, 600, 1, SIM_OWNER_JOB) };
    fixture f;

    GP_CHECK(run(&f, "bestfit", &p, 1, jobs, 3, SIM_DOWN_EMPTY, 7200) == GP_OK);
    GP_CHECK_NEAR(f.res.gpu_node_hours, 1.5, 1e-9);
    GP_CHECK_NEAR(f.res.dollars, 5.4, 1e-9);
    GP_CHECK_NEAR(f.res.pending_p50_s, 240, 1e-9);
    GP_CHECK_NEAR(f.res.pending_p99_s, 240, 1e-9);
    GP_CHECK_INT(f.res.peak_nodes, 2);
    GP_CHECK_INT(f.res.never_placed, 0);
    GP_CHECK_INT(f.res.pools[0].scale_ups, 2);
    GP_CHECK_INT(f.res.pools[0].removals, 2);
    /* GPU-hours delivered: a and b 3600 s each, c 600 s: 7800 GPU-s; GPU-s up: 2
   * x 5400. */
    GP_CHECK_NEAR(f.res.gpu_hours_alloc, 7800.0 / 3600, 1e-9);
    GP_CHECK_NEAR(f.res.mean_gpu_alloc, 7800.0 / 10800, 1e-9);
    GP_CHECK_NEAR(f.res.dollars_per_gpu_hour, 5.4 / (7800.0 / 3600), 1e-9);
    /* The series: at 600 s two nodes up and 3 GPUs taken; at 1800 s one node (the
   * second went at 1740), 2 GPUs. */
    GP_CHECK_INT(f.res.nodes_up[10], 2);
    GP_CHECK_NEAR(f.res.gpus_alloc[10], 3, 1e-9);
    GP_CHECK_INT(f.res.nodes_up[30], 1);
    GP_CHECK_INT(f.res.nodes_up[0], 0);
    GP_CHECK_INT(f.res.pending[0], 2);
    done(&f);
}

/* Two whole-node pods p1, p2 (2 GPUs, 0-...): two nodes, ready at 240, both
 * busy until 840. q1 (1 GPU) arrives at 600: both nodes full and the pool at
 * its maximum (2), so it waits until p1 and p2 leave at 840 (240 s), then takes
 * the first node. q2 arrives at 900: a packing scorer puts it beside q1, so the
 * second node, empty since 840, goes at 1440; the first runs q1 to 4440 and q2
 * to 4500 and goes at 5100. Node-seconds: (5100 - 240) + (1440 - 240) = 6060.
 */
GP_TEST(packing_frees_a_node_at_the_right_minute)
{
    sim_pool p = pool(2, 2);
    sim_job jobs[] = { job(0, 600, 2, SIM_OWNER_JOB), job(0, 600, 2, SIM_OWNER_JOB),
                       job(600, 3600, 1, SIM_OWNER_JOB), job(900, 3600, 1, SIM_OWNER_JOB) };
    fixture f;

    GP_CHECK(run(&f, "bestfit", &p, 1, jobs, 4, SIM_DOWN_EMPTY, 7200) == GP_OK);
    GP_CHECK_NEAR(f.res.node_hours * 3600, 6060, 1e-6);
    GP_CHECK_INT(f.res.pools[0].removals, 2);
    /* Waits: 240, 240, 240 (q1, the pool at its maximum), 0 (q2): nearest rank
   * p50 = 240. */
    GP_CHECK_NEAR(f.res.pending_mean_s, 180, 1e-9);
    GP_CHECK_NEAR(f.res.pending_p99_s, 240, 1e-9);
    GP_CHECK_INT(f.res.peak_nodes, 2);
    done(&f);
}

/* A pod that never finds room: the pool (one 2-GPU node at most) is held by a
 * 2-GPU pod for the whole replay, so the 1-GPU pod arriving at 100 waits to the
 * end (3600): never placed, its wait counted as 3500 s. */
GP_TEST(pool_at_its_maximum_leaves_a_pod_pending)
{
    sim_pool p = pool(2, 1);
    sim_job jobs[] = { job(0, 100000, 2, SIM_OWNER_JOB), job(100, 60, 1, SIM_OWNER_JOB) };
    fixture f;

    GP_CHECK(run(&f, "bestfit", &p, 1, jobs, 2, SIM_DOWN_EMPTY, 3600) == GP_OK);
    GP_CHECK_INT(f.res.never_placed, 1);
    GP_CHECK_INT(f.res.pods, 2);
    GP_CHECK_NEAR(f.res.pending_p99_s, 3500, 1e-9);
    GP_CHECK_NEAR(f.res.node_hours * 3600, 3600 - 240, 1e-6);
    GP_CHECK_INT(f.res.pending[59], 1);
    done(&f);
}

/* cluster-autoscaler's rule. 4-GPU nodes: j1, j2 (3 GPUs, 0-1000 after
 * placement) need a node each (ready 240, leave 1240). d1 (1 GPU, at 300) takes
 * the first node's last GPU, d2 (at 310) the second's. After 1240 each node
 * holds one 1-GPU pod: 0.25 < 0.5. Checked least used first, node order on
 * ties: the first node's d1 fits on the second, so the first is unneeded from
 * the scan at 1240 and drained at 1840 (d1 moves); the second then holds both
 * to the end (3600). Node-seconds (1840 - 240) + (3600 - 240) = 4960, one
 * eviction. With Job pods instead of Deployment pods nothing moves: 2 x 3360 =
 * 6720. */
GP_TEST(cluster_autoscaler_drains_only_movable_pods)
{
    sim_pool p = pool(4, 2);
    sim_job jobs[] = { job(0, 1000, 3, SIM_OWNER_JOB), job(0, 1000, 3, SIM_OWNER_JOB),
                       job(300, 100000, 1, SIM_OWNER_DEPLOYMENT),
                       job(310, 100000, 1, SIM_OWNER_DEPLOYMENT) };
    fixture f;

    GP_CHECK(run(&f, "bestfit", &p, 1, jobs, 4, SIM_DOWN_CA, 3600) == GP_OK);
    GP_CHECK_NEAR(f.res.node_hours * 3600, 4960, 1e-6);
    GP_CHECK_INT(f.res.evictions, 1);
    GP_CHECK_INT(f.res.never_placed, 0);
    done(&f);
    jobs[2].owner = jobs[3].owner = SIM_OWNER_JOB;
    GP_CHECK(run(&f, "bestfit", &p, 1, jobs, 4, SIM_DOWN_CA, 3600) == GP_OK);
    GP_CHECK_NEAR(f.res.node_hours * 3600, 6720, 1e-6);
    GP_CHECK_INT(f.res.evictions, 0);
    done(&f);
    /* A bare pod (no controller) blocks it too. */
    jobs[2].owner = SIM_OWNER_NONE;
    jobs[3].owner = SIM_OWNER_DEPLOYMENT;
    GP_CHECK(run(&f, "bestfit", &p, 1, jobs, 4, SIM_DOWN_CA, 3600) == GP_OK);
    GP_CHECK_NEAR(f.res.node_hours * 3600, 6720 - (3600 - 1840), 1e-6);
    done(&f);
}

/* Billing's minimum: a node that lives 20 s (ready at 240, its pod leaves at
 * 260, removed at the scan at 260 with no unneeded time) is billed 60 s. */
GP_TEST(a_short_node_is_billed_a_minute)
{
    sim_pool p = pool(1, 1);
    sim_job jobs[] = { job(0, 20, 1, SIM_OWNER_JOB) };
    fixture f;

    GP_CHECK(run_with(&f, "bestfit", &p, 1, jobs, 1, SIM_DOWN_EMPTY, 3600, 0) == GP_OK);
    GP_CHECK_NEAR(f.res.node_hours * 3600, 60, 1e-6);
    done(&f);
    /* With the default 600 s: removed at 860, 620 s billed. */
    GP_CHECK(run(&f, "bestfit", &p, 1, jobs, 1, SIM_DOWN_EMPTY, 3600) == GP_OK);
    GP_CHECK_NEAR(f.res.node_hours * 3600, 620, 1e-6);
    done(&f);
}

/* The same seed gives the same replay; ties at random may differ between seeds.
 */
GP_TEST(deterministic_per_seed)
{
    sim_pool p = pool(8, 20);
    sim_job jobs[16];
    fixture a, b;

    for (int i = 0; i < 16; i++)
        jobs[i] = job(i * 37, 500 + (i * 97) % 900, 1 + i % 3, SIM_OWNER_DEPLOYMENT);
    GP_CHECK(run(&a, "random", &p, 1, jobs, 16, SIM_DOWN_CA, 7200) == GP_OK);
    GP_CHECK(run(&b, "random", &p, 1, jobs, 16, SIM_DOWN_CA, 7200) == GP_OK);
    GP_CHECK(a.res.node_hours == b.res.node_hours && a.res.dollars == b.res.dollars);
    GP_CHECK(memcmp(a.res.nodes_up, b.res.nodes_up, a.res.n_samples * sizeof(int32_t)) == 0);
    done(&a);
    done(&b);
}

/* The placer's score cache is exact: 300 pods of mixed shapes on two pools, every scorer that
 * uses it, both scale-down modes, ties at random: the same replay with and without it. */
GP_TEST(score_cache_changes_nothing)
{
    sim_pool p[2] = { pool(8, 12), pool(2, 20) };
    static sim_job jobs[300];
    static const char *const names[] = { "gpupack", "fgd", "bestfit", "kube-default",
                                         "kube-mostallocated", "gpupacking" };
    sim_mix_opts mo = { .popularity_pct = 100, .cpu_tasks = true };
    static gp_frag_task tasks[300];
    static gp_frag_models models = { 1, { "T" } };
    gp_frag_mix mix;
    gp_err err = { { 0 } };

    strcpy(p[1].name, "q");
    for (int i = 0; i < 300; i++) {
        jobs[i] = job(i * 23, 300 + (i * 7919) % 5000, (i * 31) % 5 == 0 ? 0 : 1 + (i % 3),
                      i % 4 ? SIM_OWNER_DEPLOYMENT : SIM_OWNER_JOB);
        jobs[i].task.cpu_milli = 500 + (i * 13) % 4 * 500;
        jobs[i].priority = i % 7 == 0 ? 100 : 0;
        tasks[i] = jobs[i].task;
    }
    GP_CHECK(sim_mix_build(tasks, 300, &mo, &mix, &err) == GP_OK);
    for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
        for (int down = 0; down < 2; down++) {
            sim_replay_result res[2];
            for (int cached = 0; cached < 2; cached++) {
                sim_cfg place = { .scorer = sim_scorer_find(names[k]), .mix = &mix,
                                  .tasks = tasks, .n_tasks = 300, .models = &models, .seed = 7,
                                  .fallback_cpu = 4000, .ties_random = true,
                                  .no_cache = !cached };
                sim_replay_cfg rc;
                sim_replay_defaults(&rc);
                rc.pools = p;
                rc.n_pools = 2;
                rc.jobs = jobs;
                rc.n_jobs = 300;
                rc.place = &place;
                rc.end_s = 12000;
                rc.down = down ? SIM_DOWN_CA : SIM_DOWN_EMPTY;
                rc.sample_s = 30;
                GP_CHECK(sim_replay(&rc, &res[cached], &err) == GP_OK);
            }
            GP_CHECK(res[0].node_hours == res[1].node_hours);
            GP_CHECK(res[0].pending_p99_s == res[1].pending_p99_s);
            GP_CHECK(res[0].node_scores == res[1].node_scores);
            GP_CHECK(res[0].n_samples == res[1].n_samples &&
                     memcmp(res[0].gpus_alloc, res[1].gpus_alloc,
                            res[0].n_samples * sizeof(double)) == 0);
            if (res[0].node_hours != res[1].node_hours)
                printf("  %s, %s: %.4f vs %.4f node-hours\n", names[k], down ? "ca" : "empty",
                       res[0].node_hours, res[1].node_hours);
            sim_replay_result_free(&res[0]);
            sim_replay_result_free(&res[1]);
        }
    sim_mix_free(&mix);
}

/* A job no pool's node can hold is refused, naming it. */
GP_TEST(job_larger_than_any_node_is_refused)
{
    sim_pool p = pool(2, 3);
    sim_job jobs[] = { job(0, 10, 1, SIM_OWNER_JOB), job(0, 10, 4, SIM_OWNER_JOB) };

    GP_CHECK(sim_replay_unplaceable(&p, 1, jobs, 2) == 1);
    fixture f;
    GP_CHECK(run(&f, "bestfit", &p, 1, jobs, 2, SIM_DOWN_EMPTY, 100) == GP_EINVAL);
    sim_mix_free(&f.mix);
}

/* Pools from a node list: one per shape, max the count, prices from the
 * policy's default $2.50 per GPU-hour. */
GP_TEST(pools_from_the_node_list)
{
    gp_frag_models models = { 2, { "V100", "T4" } };
    gp_frag_node nodes[3];
    sim_pool pools[SIM_MAX_POOLS];
    size_t n = 0;
    gp_err err = { { 0 } };
    gp_policy *pol = NULL;

    GP_CHECK(gp_policy_default(&pol, NULL) == GP_OK);
    gp_frag_node_init(&nodes[0], 0, 96000, 512 * GIB, 8, 0);
    gp_frag_node_init(&nodes[1], 1, 32000, 128 * GIB, 2, 1);
    gp_frag_node_init(&nodes[2], 2, 96000, 512 * GIB, 8, 0);
    GP_CHECK(pol != NULL);
    GP_CHECK(sim_pools_from_nodes(nodes, 3, &models, pol, -1, pools, &n, &err) == GP_OK);
    GP_CHECK_INT(n, 2);
    GP_CHECK_STR(pools[0].name, "v100-8gpu-96c-512g");
    GP_CHECK_INT(pools[0].max_nodes, 2);
    GP_CHECK_INT(pools[0].provision_s, 240);
    GP_CHECK_NEAR(pools[0].on_demand, 8 * 2.5, 1e-9);
    GP_CHECK_INT(sim_pools_fleet_gpus(pools, n), 18);
    gp_policy_unref(pol);
}

/* A pools file: prices given or from the policy; errors name the pool and
 * field. */
GP_TEST(pools_file)
{
    gp_frag_models models = { 0 };
    sim_pool pools[SIM_MAX_POOLS];
    size_t n = 0;
    gp_err err = { { 0 } };
    gp_policy *pol = NULL;
    GP_CHECK(gp_policy_default(&pol, NULL) == GP_OK);
    const char *ok = "{\"pools\": [{\"name\": \"a100\", \"instanceType\": \"p4d.24xlarge\", "
                     "\"gpus\": 8, \"gpuModel\": \"A100\", \"cpu\": \"96\", \"memory\": "
                     "\"1152Gi\", \"onDemand\": 21.9576, \"spot\": 8.5, \"capacityType\": "
                     "\"spot\", "
                     "\"minNodes\": 1, \"maxNodes\": 10, \"provisioningDelay\": \"5m\"}, "
                     "{\"name\": \"cpu\", \"cpu\": 16, \"memory\": \"64Gi\", \"maxNodes\": "
                     "5}]}";

    GP_CHECK(sim_pools_parse(ok, strlen(ok), &models, pol, pools, &n, &err) == GP_OK);
    GP_CHECK_INT(n, 2);
    GP_CHECK_NEAR(sim_pool_price(&pools[0]), 8.5, 1e-9);
    GP_CHECK_INT(pools[0].provision_s, 300);
    GP_CHECK_INT(pools[0].node.cpu_cap, 96000);
    GP_CHECK_INT(pools[0].node.mem_cap, 1152 * GIB);
    GP_CHECK_INT(pools[1].provision_s, 120);
    GP_CHECK_NEAR(pools[1].on_demand, 0, 1e-9); /* a node without GPUs: not in the price table */
    const char *bad = "{\"pools\": [{\"name\": \"x\", \"cpu\": \"8\", \"memory\": \"1Gi\", "
                      "\"gpus\": 2, \"maxNodes\": 3}]}";
    GP_CHECK(sim_pools_parse(bad, strlen(bad), &models, pol, pools, &n, &err) == GP_EINVAL);
    GP_CHECK(strstr(err.msg, "pools[0]: gpuModel") != NULL);
    const char *nomax = "{\"pools\": [{\"name\": \"x\", \"cpu\": \"8\", \"memory\": \"1Gi\"}]}";
    GP_CHECK(sim_pools_parse(nomax, strlen(nomax), &models, pol, pools, &n, &err) == GP_EINVAL);
    GP_CHECK(strstr(err.msg, "maxNodes") != NULL);
    gp_policy_unref(pol);
}

GP_MAIN(GP_CASE(scale_up_then_empty_nodes_go), GP_CASE(packing_frees_a_node_at_the_right_minute),
        GP_CASE(pool_at_its_maximum_leaves_a_pod_pending),
        GP_CASE(cluster_autoscaler_drains_only_movable_pods),
        GP_CASE(a_short_node_is_billed_a_minute), GP_CASE(deterministic_per_seed), GP_CASE(score_cache_changes_nothing),
        GP_CASE(job_larger_than_any_node_is_refused), GP_CASE(pools_from_the_node_list),
        GP_CASE(pools_file))
