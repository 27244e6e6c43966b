/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of the replay's workloads (sim/workload.c) and what sim/load.c keeps for them: the
 * tasks' own times and the time scale, the trace's qos and a dump's priority and owner, the pods
 * the replay keeps or leaves out, RFC 3339 times, rows named in errors, and the seeded generator
 * (reproducible, its mean GPU load on the real trace, its daily cycle). Files under
 * tests/data/sim/ and data/, relative to the repo root. */
#include "gptest.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "job.h"
#include "load.h"
#include "workload.h"

#define DATA "tests/data/sim/"
#define TRACE "data/alibaba-gpu-v2023/openb_pod_list_default.csv"
#define DAY INT64_C(86400)
#define WEEK (7 * DAY)
#define T0 INT64_C(1714564800) /* 2024-05-01T12:00:00Z */
#define OPEN (INT64_C(1) << 40)

/* Loads path's tasks (names kept); with replay, the flags the replay sets. */
static bool load(const char *path, bool replay, sim_input *in)
{
    gp_err err = { { 0 } };

    memset(in, 0, sizeof(*in));
    in->keep_names = true;
    in->keep_finished = in->all_as_tasks = in->skip_daemonsets = replay;
    if (sim_load_tasks(path, in, &err) != GP_OK) {
        printf("  load %s: %s\n", path, err.msg);
        return false;
    }
    return true;
}

static int64_t rfc(const char *s)
{
    int64_t t = -12345;
    return sim_time_parse(s, &t) ? t : -12345;
}

GP_TEST(rfc3339_parses_zones_fractions_and_refuses_the_rest)
{
    int64_t t;

    GP_CHECK_INT(rfc("1970-01-01T00:00:00Z"), 0);
    GP_CHECK_INT(rfc("1969-12-31T23:59:59Z"), -1);
    GP_CHECK_INT(rfc("2024-05-01T12:00:00Z"), T0);
    GP_CHECK_INT(rfc("2024-05-01t12:00:00z"), T0);
    GP_CHECK_INT(rfc("2024-05-01 12:00:00Z"), T0);
    GP_CHECK_INT(rfc("2024-05-01T14:00:00+02:00"), T0);
    GP_CHECK_INT(rfc("2024-05-01T10:30:00-01:30"), T0);
    GP_CHECK_INT(rfc("2024-05-01T12:00:00.999999999Z"), T0);
    GP_CHECK_INT(rfc("2024-05-01T12:00:00.5+00:00"), T0);
    GP_CHECK_INT(rfc("2000-03-01T00:00:00Z"), 951868800);
    GP_CHECK_INT(rfc("2024-02-29T23:59:60Z"), 1709251200); /* a leap second: the next one */
    GP_CHECK(!sim_time_parse("2023-02-29T00:00:00Z", &t));
    GP_CHECK(!sim_time_parse("2024-05-01T12:00:00", &t));
    GP_CHECK(!sim_time_parse("2024-05-01T12:00:00Zjunk", &t));
    GP_CHECK(!sim_time_parse("2024-05-01T24:00:00Z", &t));
    GP_CHECK(!sim_time_parse("2024-13-01T00:00:00Z", &t));
    GP_CHECK(!sim_time_parse("2024-05-01T12:00:00.Z", &t));
    GP_CHECK(!sim_time_parse("2024-05-01T12:00:00+2:00", &t));
    GP_CHECK(!sim_time_parse("2024-5-01T12:00:00Z", &t));
    GP_CHECK(!sim_time_parse("", &t));
    GP_CHECK(!sim_time_parse(NULL, &t));
}

/* times.csv: t-be created at 400 (the earliest), t-ls 1000..4600, t-burst 1000..1000,
 * t-guar 7600..9000, t-none 1300 with no end. */
GP_TEST(trace_times_scale_and_qos)
{
    sim_input in;
    sim_job *j = NULL;
    size_t n = 0;
    gp_err err = { { 0 } };

    GP_CHECK(load(DATA "times.csv", false, &in));
    GP_CHECK_INT(in.n_tasks, 5);
    GP_CHECK(sim_jobs_from_input(&in, 1, OPEN, &j, &n, &err) == GP_OK);
    GP_CHECK_INT(n, 5);
    if (n == 5) {
        static const uint32_t src[] = { 1, 0, 2, 4, 3 }; /* by arrival; t-ls before t-burst */
        static const int64_t arrive[] = { 0, 600, 600, 900, 7200 };
        static const int64_t dur[] = { 1, 3600, 1, OPEN, 1400 };
        static const int32_t prio[] = { 0, 1000, 0, 0, 0 };
        static const uint8_t owner[] = { SIM_OWNER_JOB, SIM_OWNER_DEPLOYMENT, SIM_OWNER_NONE,
                                         SIM_OWNER_NONE, SIM_OWNER_NONE };
        for (size_t i = 0; i < 5; i++) {
            GP_CHECK_INT(j[i].src, src[i]);
            GP_CHECK_INT(j[i].arrive, arrive[i]);
            GP_CHECK_INT(j[i].duration, dur[i]);
            GP_CHECK_INT(j[i].priority, prio[i]);
            GP_CHECK_INT(j[i].owner, owner[i]);
        }
        GP_CHECK_INT(j[1].task.cpu_milli, 4000);
        GP_CHECK_INT(j[4].task.num_gpu, 2);
    }
    free(j);
    /* Compressed 7 times: arrivals rounded down, durations up. */
    GP_CHECK(sim_jobs_from_input(&in, 7, OPEN, &j, &n, &err) == GP_OK);
    if (n == 5) {
        GP_CHECK_INT(j[1].arrive, 85);    /* 600 / 7 = 85.7 */
        GP_CHECK_INT(j[1].duration, 515); /* 3600 / 7 = 514.3 */
        GP_CHECK_INT(j[4].arrive, 1028);  /* 7200 / 7 = 1028.6 */
        GP_CHECK_INT(j[4].duration, 200);
        GP_CHECK_INT(j[0].duration, 1);
        GP_CHECK_INT(j[3].duration, OPEN);
    }
    free(j);
    GP_CHECK(sim_jobs_from_input(&in, 0, OPEN, &j, &n, &err) == GP_EINVAL);
    GP_CHECK(j == NULL && n == 0);
    sim_input_free(&in);
}

GP_TEST(trace_end_before_creation_refused_naming_the_row)
{
    sim_input in;
    sim_job *j = NULL;
    size_t n = 0;
    gp_err err = { { 0 } };
    sim_gen_opts o = { .seed = 1, .load = 0.5, .fleet_gpus = 8, .span = DAY };

    GP_CHECK(load(DATA "bad-times.csv", false, &in)); /* the protocol reads no times */
    GP_CHECK(sim_jobs_from_input(&in, 1, OPEN, &j, &n, &err) == GP_EINVAL);
    GP_CHECK(j == NULL && n == 0);
    GP_CHECK(strstr(err.msg, "tests/data/sim/bad-times.csv:3 (back-1)") != NULL);
    GP_CHECK(strstr(err.msg, "ends before") != NULL);
    memset(&err, 0, sizeof(err));
    GP_CHECK(sim_jobs_generate(&in, &o, &j, &n, NULL, &err) == GP_EINVAL);
    GP_CHECK(strstr(err.msg, "bad-times.csv:3 (back-1)") != NULL);
    sim_input_free(&in);
}

GP_TEST(no_times_refused_by_the_replay_flat_for_the_generator)
{
    sim_input in;
    sim_job *j = NULL;
    size_t n = 0;
    gp_err err = { { 0 } };
    double p[24];
    sim_gen_opts o = { .seed = 3, .load = 0.5, .fleet_gpus = 64, .span = DAY };

    GP_CHECK(load(DATA "no-times.csv", false, &in));
    GP_CHECK_INT(in.n_tasks, 2);
    GP_CHECK(sim_jobs_from_input(&in, 1, OPEN, &j, &n, &err) == GP_EINVAL);
    GP_CHECK(strstr(err.msg, "no-times.csv:2 (a-0): it has no creation time") != NULL);
    sim_workload_profile(&in, p);
    for (int h = 0; h < 24; h++)
        GP_CHECK_NEAR(p[h], 1, 0);
    GP_CHECK(sim_jobs_generate(&in, &o, &j, &n, NULL, &err) == GP_EINVAL);
    GP_CHECK(strstr(err.msg, "no-times.csv:2 (a-0)") != NULL);
    o.default_duration = 3600;
    GP_CHECK(sim_jobs_generate(&in, &o, &j, &n, NULL, &err) == GP_OK);
    GP_CHECK(n > 100);
    for (size_t i = 0; i < n; i++)
        GP_CHECK_INT(j[i].duration, 3600);
    free(j);
    sim_input_free(&in);
}

/* pods-replay.json: infer-1 (ReplicaSet, priority 100, running), train-2 (Job, Succeeded,
 * finished 12:10Z), dcgm-3 (DaemonSet), bare-4 (bound to a node, deleted 12:30:00.5Z, priority
 * -5), fail-5 (CronJob, Failed, no container status), sts-6 (StatefulSet, created -01:30). */
GP_TEST(dump_replay_keeps_finished_and_bound_skips_daemonsets)
{
    sim_input in;
    sim_job *j = NULL;
    size_t n = 0;
    gp_err err = { { 0 } };
    char where[256];

    GP_CHECK(load(DATA "pods-replay.json", true, &in));
    GP_CHECK_INT(in.n_tasks, 5);
    GP_CHECK_INT(in.n_bound, 0);
    GP_CHECK_INT(in.n_daemonset, 1);
    sim_input_where(&in, 2, where, sizeof(where));
    GP_CHECK_STR(where, "tests/data/sim/pods-replay.json: items[3] (ml/bare-4)");
    GP_CHECK(sim_jobs_from_input(&in, 1, OPEN, &j, &n, &err) == GP_OK);
    GP_CHECK_INT(n, 5);
    if (n == 5) {
        /* The earliest: train-2 at 11:30Z. */
        static const uint32_t src[] = { 1, 2, 0, 3, 4 };
        static const int64_t arrive[] = { 0, 1799, 1800, 1810, 7200 };
        static const int64_t dur[] = { 2400, 1801, OPEN, OPEN, OPEN };
        static const int32_t prio[] = { 0, -5, 100, 0, 0 };
        static const uint8_t owner[] = { SIM_OWNER_JOB, SIM_OWNER_NONE, SIM_OWNER_DEPLOYMENT,
                                         SIM_OWNER_JOB, SIM_OWNER_DEPLOYMENT };
        for (size_t i = 0; i < 5; i++) {
            GP_CHECK_INT(j[i].src, src[i]);
            GP_CHECK_INT(j[i].arrive, arrive[i]);
            GP_CHECK_INT(j[i].duration, dur[i]);
            GP_CHECK_INT(j[i].priority, prio[i]);
            GP_CHECK_INT(j[i].owner, owner[i]);
        }
        GP_CHECK_INT(j[4].task.num_gpu, 0);
        GP_CHECK_INT(j[0].task.num_gpu, 1);
    }
    GP_CHECK_INT(in.task_info[0].created, T0);
    free(j);
    sim_input_free(&in);
}

GP_TEST(dump_protocol_unchanged_without_the_replay_flags)
{
    sim_input in;

    GP_CHECK(load(DATA "pods-replay.json", false, &in));
    /* Finished pods skipped; pods bound to a node outside the (empty) list left out. */
    GP_CHECK_INT(in.n_tasks, 2);
    GP_CHECK_INT(in.n_bound, 0);
    GP_CHECK_INT(in.n_daemonset, 0);
    if (in.n_tasks == 2) {
        GP_CHECK_STR(in.task_names[0], "ml/infer-1");
        GP_CHECK_STR(in.task_names[1], "db/sts-6");
        GP_CHECK_INT(in.task_info[1].created, T0 + 5400);
    }
    sim_input_free(&in);
}

GP_TEST(dump_bad_time_refused_naming_the_item)
{
    sim_input in;
    sim_job *j = NULL;
    size_t n = 0;
    gp_err err = { { 0 } };

    GP_CHECK(load(DATA "bad-time.json", true, &in));
    GP_CHECK_INT(in.n_tasks, 2);
    GP_CHECK(sim_jobs_from_input(&in, 1, OPEN, &j, &n, &err) == GP_EINVAL);
    GP_CHECK(strstr(err.msg, "tests/data/sim/bad-time.json: items[1] (ml/when-1): its creation "
                             "time is not a time") != NULL);
    sim_input_free(&in);
}

GP_TEST(generator_from_a_dump_running_pods_last_their_age)
{
    sim_input in;
    sim_job *j = NULL;
    size_t n = 0;
    gp_err err = { { 0 } };
    sim_gen_opts o = { .seed = 9, .load = 0.5, .fleet_gpus = 16, .warmup = 3600, .span = DAY };
    /* The latest time in the dump: sts-6's creation, T0 + 5400. */
    static const int64_t want[] = { 5400, 2400, 1801, 5390, 1 };

    GP_CHECK(load(DATA "pods-replay.json", true, &in));
    GP_CHECK(sim_jobs_generate(&in, &o, &j, &n, NULL, &err) == GP_OK);
    GP_CHECK(n > 50);
    for (size_t i = 0; i < n; i++) {
        GP_CHECK(j[i].src < 5);
        GP_CHECK_INT(j[i].duration, want[j[i].src < 5 ? j[i].src : 0]);
        GP_CHECK(i == 0 || j[i].arrive >= j[i - 1].arrive);
        GP_CHECK(j[i].arrive >= 0 && j[i].arrive < o.warmup + o.span);
    }
    free(j);
    sim_input_free(&in);
}

GP_TEST(profile_counts_hours_of_creation)
{
    sim_input in;
    double p[24], sum = 0;

    GP_CHECK(load(DATA "times.csv", false, &in)); /* created at 1000, 400, 1000, 7600, 1300 */
    sim_workload_profile(&in, p);
    GP_CHECK_NEAR(p[0], 4 * 24 / 5.0, 1e-12);
    GP_CHECK_NEAR(p[2], 24 / 5.0, 1e-12);
    for (int h = 0; h < 24; h++)
        sum += p[h];
    GP_CHECK_NEAR(sum, 24, 1e-9);
    sim_input_free(&in);
}

/* The realised mean GPUs in use over [w, w + s), queueing ignored: each job's GPU-seconds inside
 * the window. */
static double realised_load(const sim_job *j, size_t n, int64_t w, int64_t s)
{
    double busy = 0;

    for (size_t i = 0; i < n; i++) {
        int64_t a = j[i].arrive > w ? j[i].arrive : w;
        int64_t b = j[i].arrive + j[i].duration < w + s ? j[i].arrive + j[i].duration : w + s;
        if (b > a)
            busy += (double)j[i].task.num_gpu * j[i].task.gpu_milli / 1000 * (double)(b - a);
    }
    return busy / (double)s;
}

/* Field by field: a sim_job has padding. */
static bool same_jobs(const sim_job *a, size_t na, const sim_job *b, size_t nb)
{
    for (size_t i = 0; na == nb && i < na; i++)
        if (a[i].arrive != b[i].arrive || a[i].duration != b[i].duration ||
            a[i].src != b[i].src || a[i].priority != b[i].priority || a[i].owner != b[i].owner ||
            a[i].task.cpu_milli != b[i].task.cpu_milli || a[i].task.mem_mib != b[i].task.mem_mib ||
            a[i].task.num_gpu != b[i].task.num_gpu || a[i].task.gpu_milli != b[i].task.gpu_milli ||
            a[i].task.models != b[i].task.models)
            return false;
    return na == nb;
}

static const sim_gen_opts trace_opts = { .seed = 42, .load = 0.6, .fleet_gpus = 6212,
                                         .warmup = DAY, .span = WEEK };

GP_TEST(generator_is_reproducible_by_seed)
{
    sim_input in;
    sim_job *a = NULL, *b = NULL, *c = NULL;
    size_t na = 0, nb = 0, nc = 0;
    gp_err err = { { 0 } };
    sim_gen_opts o = trace_opts;

    GP_CHECK(load(TRACE, false, &in));
    GP_CHECK(sim_jobs_generate(&in, &o, &a, &na, NULL, &err) == GP_OK);
    GP_CHECK(sim_jobs_generate(&in, &o, &b, &nb, NULL, &err) == GP_OK);
    o.seed = 43;
    GP_CHECK(sim_jobs_generate(&in, &o, &c, &nc, NULL, &err) == GP_OK);
    GP_CHECK(na > 0 && na == nb);
    GP_CHECK(same_jobs(a, na, b, nb));
    GP_CHECK(!same_jobs(a, na, c, nc));
    /* A digest of the seed-42 jobs: the same on every machine (no libm, sim/rng.h only). */
    uint64_t h = 1469598103934665603u;
    for (size_t i = 0; i < na; i++)
        h = (h ^ (uint64_t)a[i].arrive ^ ((uint64_t)a[i].src << 32)) * 1099511628211u;
    printf("  seed 42: %zu jobs, digest %016llx\n", na, (unsigned long long)h);
    free(a);
    free(b);
    free(c);
    sim_input_free(&in);
}

GP_TEST(generator_meets_the_target_load_on_the_trace)
{
    sim_input in;
    gp_err err = { { 0 } };
    double target = trace_opts.load * trace_opts.fleet_gpus;

    GP_CHECK(load(TRACE, false, &in));
    for (uint64_t seed = 1; seed <= 3; seed++) {
        sim_gen_opts o = trace_opts;
        sim_gen_info info;
        sim_job *j = NULL;
        size_t n = 0;
        o.seed = seed;
        GP_CHECK(sim_jobs_generate(&in, &o, &j, &n, &info, &err) == GP_OK);
        double got = realised_load(j, n, o.warmup, o.span);
        printf("  seed %llu: %zu jobs (expected %.0f, %.3f/s), %.0f GPUs busy on average, "
               "target %.0f\n", (unsigned long long)seed, n, info.expected_jobs, info.rate, got,
               target);
        GP_CHECK_NEAR(got / target, 1, 0.05);
        /* Poisson: within 5 standard deviations of the expected count. */
        GP_CHECK_NEAR((double)n, info.expected_jobs, 5 * sqrt(info.expected_jobs));
        free(j);
    }
    sim_input_free(&in);
}

GP_TEST(generator_follows_the_daily_cycle)
{
    sim_input in;
    sim_job *j = NULL;
    size_t n = 0, count[24] = { 0 };
    gp_err err = { { 0 } };
    double p[24];
    int order[24];

    GP_CHECK(load(TRACE, false, &in));
    sim_workload_profile(&in, p);
    GP_CHECK(sim_jobs_generate(&in, &trace_opts, &j, &n, NULL, &err) == GP_OK);
    for (size_t i = 0; i < n; i++)
        count[(j[i].arrive % DAY) / 3600]++;
    for (int h = 0; h < 24; h++)
        order[h] = h;
    for (int a = 0; a < 24; a++) /* hours by the trace's profile, busiest first */
        for (int b = a + 1; b < 24; b++)
            if (p[order[b]] > p[order[a]]) {
                int t = order[a];
                order[a] = order[b];
                order[b] = t;
            }
    size_t busy = 0, quiet = 0;
    for (int k = 0; k < 6; k++) {
        busy += count[order[k]];
        quiet += count[order[23 - k]];
    }
    printf("  arrivals in the trace's 6 busiest hours %zu, 6 quietest %zu\n", busy, quiet);
    GP_CHECK(busy > 2 * quiet);
    free(j);
    sim_input_free(&in);
}

GP_TEST(generator_capped_at_the_warmup_keeps_the_load_flat)
{
    sim_input in;
    sim_job *j = NULL;
    size_t n = 0;
    gp_err err = { { 0 } };
    sim_gen_opts o = trace_opts;
    double target = o.load * o.fleet_gpus;

    o.max_duration = o.warmup;
    GP_CHECK(load(TRACE, false, &in));
    GP_CHECK(sim_jobs_generate(&in, &o, &j, &n, NULL, &err) == GP_OK);
    double first = realised_load(j, n, o.warmup, DAY) / target;
    double last = realised_load(j, n, o.warmup + o.span - DAY, DAY) / target;
    printf("  capped at a day: %zu jobs; first day %.3f of the target, last %.3f, window %.3f\n",
           n, first, last, realised_load(j, n, o.warmup, o.span) / target);
    GP_CHECK_NEAR(first, 1, 0.1);
    GP_CHECK_NEAR(last, 1, 0.1);
    for (size_t i = 0; i < n; i++)
        GP_CHECK(j[i].duration <= DAY);
    free(j);
    sim_input_free(&in);
}

GP_TEST(generator_refuses_bad_options_and_too_many_jobs)
{
    sim_input in;
    sim_job *j = NULL;
    size_t n = 0;
    gp_err err = { { 0 } };
    sim_gen_opts o = trace_opts;

    GP_CHECK(load(TRACE, false, &in));
    o.fleet_gpus = 1e9;
    GP_CHECK(sim_jobs_generate(&in, &o, &j, &n, NULL, &err) == GP_ETOOBIG);
    GP_CHECK(strstr(err.msg, "more than 20000000") != NULL);
    GP_CHECK(j == NULL && n == 0);
    o = trace_opts;
    o.load = 0;
    GP_CHECK(sim_jobs_generate(&in, &o, &j, &n, NULL, &err) == GP_EINVAL);
    o = trace_opts;
    o.span = 0;
    GP_CHECK(sim_jobs_generate(&in, &o, &j, &n, NULL, &err) == GP_EINVAL);
    sim_input_free(&in);
    /* Only CPU tasks: no rate makes a GPU load. */
    GP_CHECK(load(DATA "times.csv", false, &in));
    in.n_tasks = 1;
    in.tasks[0] = in.tasks[2]; /* t-burst asks for no GPU */
    o = trace_opts;
    GP_CHECK(sim_jobs_generate(&in, &o, &j, &n, NULL, &err) == GP_EINVAL);
    GP_CHECK(strstr(err.msg, "no task asks for a GPU") != NULL);
    in.n_tasks = 5;
    sim_input_free(&in);
}

GP_MAIN(GP_CASE(rfc3339_parses_zones_fractions_and_refuses_the_rest),
        GP_CASE(trace_times_scale_and_qos),
        GP_CASE(trace_end_before_creation_refused_naming_the_row),
        GP_CASE(no_times_refused_by_the_replay_flat_for_the_generator),
        GP_CASE(dump_replay_keeps_finished_and_bound_skips_daemonsets),
        GP_CASE(dump_protocol_unchanged_without_the_replay_flags),
        GP_CASE(dump_bad_time_refused_naming_the_item),
        GP_CASE(generator_from_a_dump_running_pods_last_their_age),
        GP_CASE(profile_counts_hours_of_creation), GP_CASE(generator_is_reproducible_by_seed),
        GP_CASE(generator_meets_the_target_load_on_the_trace),
        GP_CASE(generator_follows_the_daily_cycle),
        GP_CASE(generator_capped_at_the_warmup_keeps_the_load_flat),
        GP_CASE(generator_refuses_bad_options_and_too_many_jobs))
