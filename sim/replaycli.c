/* SPDX-License-Identifier: Apache-2.0 */
/* gpupack-sim --replay (sim/replaycli.h): wiring only. Flags, loading (sim/load.h), pools
 * (sim/pools.h), the workload per seed (sim/workload.h), a thread pool over (scorer, seed)
 * replays (sim/replay.h), output (sim/replayout.h) and the picture (sim/plot.h). */
#include "replaycli.h"

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpupack/daemon.h"
#include "gpupack/fileio.h"
#include "gpupack/flags.h"
#include "gpupack/log.h"
#include "gpupack/score.h"
#include "gpupack/strbuf.h"
#include "load.h"
#include "mix.h"
#include "plot.h"
#include "pools.h"
#include "replay.h"
#include "replayout.h"
#include "scorers.h"
#include "workload.h"

#define MAX_SEEDS 100
#define MAX_SCORERS 16
#define MAX_THREADS 64
#define PROG "gpupack-sim"
#define PLOT_STEP_S 600
#define OPEN_DURATION (INT64_MAX / 4) /* a pod still running runs past any replay's end */

static const char summary[] =
    "  --replay: pods arrive at their time and leave after their duration, on node pools with an\n"
    "  autoscaler, once per scorer and seed; GPU node-hours, dollars and pending times\n"
    "  (docs/simulation.md, \"The replay\").\n";

typedef struct {
    const char *nodes, *pools, *pods, *policy, *plot, *label, *json_file, *log_level;
    const char *load, *duration, *warmup, *time_scale, *unneeded, *threshold, *delay, *scan,
        *provision;
    gp_flag_func seed, seeds, scorer;
    gp_flag_choice down, ties, mix, sharing, format;
    unsigned threads;
    bool replay, json, help;
    /* Parsed. */
    uint64_t seedv[MAX_SEEDS];
    size_t n_seeds;
    const sim_scorer *scorers[MAX_SCORERS];
    size_t n_scorers;
    double loadv, scale;
    int64_t span, warm;
    gp_log_level level; /* warn and error: no notes on stderr */
    sim_replay_cfg rc;
} ropts;

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int fail(const char *fmt, ...)
{
    char msg[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return gp_flags_fail(stderr, PROG, msg);
}

static gp_status add_seed(ropts *o, uint64_t s, gp_err *err)
{
    for (size_t i = 0; i < o->n_seeds; i++)
        if (o->seedv[i] == s)
            return GP_OK;
    if (o->n_seeds == MAX_SEEDS) {
        gp_err_set(err, "--seed: at most %d seeds", MAX_SEEDS);
        return GP_EINVAL;
    }
    o->seedv[o->n_seeds++] = s;
    return GP_OK;
}

static gp_status seed_one(void *ctx, const char *v, gp_err *err)
{
    char *end = NULL;
    unsigned long long s = strtoull(v, &end, 10);

    if (!*v || *v == '-' || !end || *end) {
        gp_err_set(err, "--seed wants a whole number, not \"%s\"", v);
        return GP_EINVAL;
    }
    return add_seed(ctx, s, err);
}

static gp_status seed_range(void *ctx, const char *v, gp_err *err)
{
    unsigned long long a, b;
    char tail;

    if (sscanf(v, "%llu-%llu%c", &a, &b, &tail) != 2 || a > b || b - a >= MAX_SEEDS) {
        gp_err_set(err, "--seeds wants A-B with A <= B, at most %d seeds, not \"%s\"", MAX_SEEDS, v);
        return GP_EINVAL;
    }
    for (unsigned long long s = a; s <= b; s++)
        if (add_seed(ctx, s, err) != GP_OK)
            return GP_EINVAL;
    return GP_OK;
}

static gp_status add_scorer(ropts *o, const sim_scorer *s, gp_err *err)
{
    for (size_t i = 0; i < o->n_scorers; i++)
        if (o->scorers[i] == s)
            return GP_OK;
    if (o->n_scorers == MAX_SCORERS) {
        gp_err_set(err, "--scorer: at most %d", MAX_SCORERS);
        return GP_EINVAL;
    }
    o->scorers[o->n_scorers++] = s;
    return GP_OK;
}

/* "all": every per-node scorer and the extender. */
static gp_status scorer_flag(void *ctx, const char *v, gp_err *err)
{
    ropts *o = ctx;
    const sim_scorer *s = sim_scorer_named(v);

    if (!strcmp(v, "all")) {
        size_t n;
        const sim_scorer *every = sim_scorers(&n);
        for (size_t i = 0; i < n; i++)
            if (add_scorer(o, &every[i], err) != GP_OK)
                return GP_EINVAL;
        return add_scorer(o, sim_scorer_named("extender"), err);
    }
    if (!s) {
        gp_err_set(err, "--scorer: unknown scorer \"%s\" (see --help)", v);
        return GP_EINVAL;
    }
    return add_scorer(o, s, err);
}

#define NFLAGS 29

static void flag_table(ropts *o, gp_flag f[NFLAGS])
{
    static const char *const downs[] = { "cluster-autoscaler", "empty", NULL };
    static const char *const ties[] = { "random", "first", NULL };
    static const char *const mixes[] = { "trace", "learned", NULL };
    static const char *const sharing[] = { "whole", "keep", NULL };
    static const char *const formats[] = { "table", "markdown", NULL };
    const gp_flag t[NFLAGS] = {
        { .name = "replay", .kind = GP_FLAG_BOOL, .dest = &o->replay, .help = "the time replay (this mode)" },
        { .name = "nodes", .kind = GP_FLAG_STRING, .dest = &o->nodes, .arg = "FILE", .help = "node list (trace CSV or `kubectl get nodes -o json`): one pool per node shape, at most as many nodes as the list has of it", .once = true },
        { .name = "pools", .kind = GP_FLAG_STRING, .dest = &o->pools, .arg = "FILE", .help = "node pools (JSON, docs/simulation.md) instead of --nodes", .once = true },
        { .name = "pods", .kind = GP_FLAG_STRING, .dest = &o->pods, .arg = "FILE", .help = "the trace's task CSV or `kubectl get pods -A -o json`", .once = true },
        { .name = "load", .kind = GP_FLAG_STRING, .dest = &o->load, .arg = "X", .help = "generate the workload from --pods: Poisson arrivals with the trace's daily cycle at a mean GPU load of X of the pools' maximum (0 < X <= 2); without it the pods arrive at their own times", .once = true },
        { .name = "duration", .kind = GP_FLAG_STRING, .dest = &o->duration, .arg = "D", .help = "the measured window (default 7d with --load; else until the last pod ends)", .once = true },
        { .name = "warmup", .kind = GP_FLAG_STRING, .dest = &o->warmup, .arg = "D", .help = "replayed before the window, not counted (default 1d with --load, 0 otherwise)", .once = true },
        { .name = "time-scale", .kind = GP_FLAG_STRING, .dest = &o->time_scale, .arg = "K", .help = "divide the pods' own times by K, 1 or more (default 1)", .once = true },
        { .name = "scale-down", .kind = GP_FLAG_CHOICE, .dest = &o->down, .arg = "MODE", .help = "cluster-autoscaler (default): GPU requests below the threshold and every pod a Deployment's placeable elsewhere; empty: nodes without pods" },
        { .name = "scale-down-unneeded-time", .kind = GP_FLAG_STRING, .dest = &o->unneeded, .arg = "D", .help = "how long a node must be unneeded (empty) before it goes (default 10m)", .once = true },
        { .name = "scale-down-utilization-threshold", .kind = GP_FLAG_STRING, .dest = &o->threshold, .arg = "X", .help = "cluster-autoscaler's GPU threshold (default 0.5)", .once = true },
        { .name = "scale-down-delay-after-add", .kind = GP_FLAG_STRING, .dest = &o->delay, .arg = "D", .help = "no scale-down this long after a scale-up, cluster-autoscaler mode (default 10m; 0s: none)", .once = true },
        { .name = "scan-interval", .kind = GP_FLAG_STRING, .dest = &o->scan, .arg = "D", .help = "how often the autoscaler looks (default 10s)", .once = true },
        { .name = "provisioning-delay", .kind = GP_FLAG_STRING, .dest = &o->provision, .arg = "D", .help = "scale-up to ready for every pool (default: the pool's own, 4m for GPU nodes, 2m for CPU nodes)", .once = true },
        { .name = "gpu-sharing", .kind = GP_FLAG_CHOICE, .dest = &o->sharing, .arg = "MODE", .help = "whole (default): a task sharing a GPU asks for a whole one, as a Kubernetes pod does; keep: shares as the trace has them (not with the extender scorer)" },
        { .name = "seed", .kind = GP_FLAG_FUNC, .dest = &o->seed, .arg = "N", .help = "a seed (repeatable; default 42)" },
        { .name = "seeds", .kind = GP_FLAG_FUNC, .dest = &o->seeds, .arg = "A-B", .help = "a range of seeds" },
        { .name = "scorer", .kind = GP_FLAG_FUNC, .dest = &o->scorer, .arg = "NAME", .help = "a scorer of the paper protocol, extender, or all (repeatable; default all)" },
        { .name = "ties", .kind = GP_FLAG_CHOICE, .dest = &o->ties, .arg = "MODE", .help = "random (default): a uniformly random best node, as kube-scheduler picks; first: the first in pool order" },
        { .name = "mix", .kind = GP_FLAG_CHOICE, .dest = &o->mix, .arg = "MODE", .help = "the workload mix the scorers use: trace (default) or learned" },
        { .name = "policy", .kind = GP_FLAG_STRING, .dest = &o->policy, .arg = "FILE", .help = "a gpupack policy (default: the embedded one): prices, the extender scorer's", .once = true },
        { .name = "json", .kind = GP_FLAG_BOOL, .dest = &o->json, .help = "one JSON object per scorer and seed" },
        { .name = "json-file", .kind = GP_FLAG_STRING, .dest = &o->json_file, .arg = "FILE", .help = "also write the JSON lines to FILE (appended)", .once = true },
        { .name = "format", .kind = GP_FLAG_CHOICE, .dest = &o->format, .arg = "F", .help = "table (default) or markdown" },
        { .name = "plot", .kind = GP_FLAG_STRING, .dest = &o->plot, .arg = "FILE", .help = "draw nodes up and GPUs allocated over time, and the paper protocol's curve: FILE.svg, or FILE.html for a page", .once = true },
        { .name = "label", .kind = GP_FLAG_STRING, .dest = &o->label, .arg = "TEXT", .help = "a \"label\" in each JSON line and the table's title", .once = true },
        { .name = "jobs", .kind = GP_FLAG_UINT, .dest = &o->threads, .min = 1, .max = MAX_THREADS, .arg = "N", .help = "replays in parallel (default: the online CPUs)" },
        { .name = "log-level", .kind = GP_FLAG_STRING, .dest = &o->log_level, .arg = "LEVEL", .help = "debug, info (default), warn or error: warn and error drop the notes on stderr" },
        { .name = "help", .kind = GP_FLAG_BOOL, .dest = &o->help, .help = "this text" },
    };
    memcpy(f, t, sizeof(t));
    o->seed = (gp_flag_func){ seed_one, o };
    o->seeds = (gp_flag_func){ seed_range, o };
    o->scorer = (gp_flag_func){ scorer_flag, o };
    o->down = (gp_flag_choice){ downs, 0 };
    o->ties = (gp_flag_choice){ ties, 0 };
    o->mix = (gp_flag_choice){ mixes, 0 };
    o->sharing = (gp_flag_choice){ sharing, 0 };
    o->format = (gp_flag_choice){ formats, 0 };
}

/* A duration flag: "0s"/"0" or gp_duration_parse(); into *out when given. */
static bool duration(const char *v, int64_t *out)
{
    double s;

    if (!v)
        return true;
    if (!strcmp(v, "0") || !strcmp(v, "0s")) {
        *out = 0;
        return true;
    }
    if (gp_duration_parse(v, &s) != GP_OK || s > 400 * 86400.0)
        return false;
    *out = (int64_t)s;
    return true;
}

static bool number(const char *v, double lo, double hi, double *out)
{
    char *end = NULL;

    if (!v)
        return true;
    double x = strtod(v, &end);
    if (!*v || !end || *end || !(x > lo) || x > hi)
        return false;
    *out = x;
    return true;
}

/* The checks that need every flag; the replay's settings. Returns 2 on a usage error, else -1. */
static int finish(ropts *o)
{
    sim_replay_cfg *c = &o->rc;

    if (gp_log_level_parse(o->log_level ? o->log_level : "info", &o->level) != GP_OK)
        return fail("%s", "--log-level: expected debug, info, warn or error");
    if (!o->pods || (!o->nodes && !o->pools))
        return fail("%s", "--replay needs --pods and --nodes or --pools");
    size_t pl = o->plot ? strlen(o->plot) : 0;
    if (o->plot && !(pl > 4 && !strcmp(o->plot + pl - 4, ".svg")) &&
        !(pl > 5 && !strcmp(o->plot + pl - 5, ".html")))
        return fail("--plot wants a file name ending in .svg or .html, not \"%s\"", o->plot);
    sim_replay_defaults(c);
    c->down = o->down.index == 1 ? SIM_DOWN_EMPTY : SIM_DOWN_CA;
    o->scale = 1;
    o->span = o->load ? 7 * 86400 : 0;
    o->warm = o->load ? 86400 : 0;
    if (!number(o->load, 0, 2, &o->loadv))
        return fail("--load wants a number in (0, 2], not \"%s\"", o->load);
    if (!number(o->time_scale, 0, 1e9, &o->scale) || o->scale < 1)
        return fail("--time-scale compresses the pods' times: a number from 1 up, not \"%s\"",
                    o->time_scale);
    if (!number(o->threshold, 0, 1, &c->util_threshold))
        return fail("--scale-down-utilization-threshold wants a number in (0, 1], not \"%s\"",
                    o->threshold);
    if (!duration(o->duration, &o->span) || (o->duration && o->span == 0))
        return fail("--duration wants a duration such as 7d, not \"%s\"", o->duration);
    if (!duration(o->warmup, &o->warm))
        return fail("--warmup wants a duration such as 1d, not \"%s\"", o->warmup);
    if (!duration(o->unneeded, &c->unneeded_s) || !duration(o->delay, &c->delay_after_add_s))
        return fail("%s", "--scale-down-unneeded-time and --scale-down-delay-after-add want "
                          "durations such as 10m");
    if (!duration(o->scan, &c->scan_s) || c->scan_s == 0 || c->scan_s > 3600)
        return fail("--scan-interval wants a duration from 1s to 1h, not \"%s\"", o->scan);
    if (o->n_seeds == 0)
        o->seedv[o->n_seeds++] = 42;
    if (o->n_scorers == 0)
        (void)scorer_flag(o, "all", &(gp_err){ { 0 } });
    if (o->threads == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        o->threads = n < 1 ? 1 : n > MAX_THREADS ? MAX_THREADS : (unsigned)n;
    }
    return -1;
}

static int parse(int argc, char **argv, ropts *o)
{
    gp_flag flags[NFLAGS];
    gp_err err = { { 0 } };

    memset(o, 0, sizeof(*o));
    flag_table(o, flags);
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--inflate") || !strncmp(argv[i], "--inflate=", 10) ||
            !strcmp(argv[i], "--placements") || !strncmp(argv[i], "--placements=", 13) ||
            !strcmp(argv[i], "--place") || !strncmp(argv[i], "--place=", 8))
            return fail("%s: the paper protocol's flag; not with --replay", argv[i]);
    if (gp_flags_parse(flags, NFLAGS, argc, argv, &err) != GP_OK)
        return gp_flags_fail(stderr, PROG, err.msg);
    if (o->help) {
        gp_flags_usage(stdout, PROG " --replay", summary, flags, NFLAGS);
        return 0;
    }
    return finish(o);
}

/* ---- Inputs ---- */

typedef struct {
    sim_input in;
    gp_policy *pol;
    gp_frag_mix mix, every, policy_mix;
    gp_frag_shape policy_shapes[GP_SCORE_MAX_MIX];
    sim_pool pools[SIM_MAX_POOLS];
    size_t n_pools;
    sim_job **jobs; /* per seed (all the same array without --load) */
    size_t *n_jobs;
    bool shared_jobs;
} inputs;

/* The pools: --pools FILE, read before the pods so that their GPU models are known when a
 * pod's gpupack.io/gpu-models globs are matched (sim/load.h), or, without it, one pool per
 * node shape of --nodes (after the pods: nothing in them changes the nodes). */
static int load_pools(const ropts *o, inputs *x)
{
    gp_err err = { { 0 } };
    int64_t prov = -1;
    char *buf = NULL;
    size_t len = 0;

    if (!duration(o->provision, &prov))
        return fail("--provisioning-delay wants a duration such as 4m, not \"%s\"", o->provision);
    if (!o->pools)
        return sim_pools_from_nodes(x->in.nodes, x->in.n_nodes, &x->in.models, x->pol, prov,
                                    x->pools, &x->n_pools, &err) == GP_OK
                   ? 0
                   : (fprintf(stderr, PROG ": --nodes: %s\n", err.msg), 2);
    if (gp_file_read(o->pools, 1u << 20, &buf, &len, &err) != GP_OK ||
        sim_pools_parse(buf, len, &x->in.models, x->pol, x->pools, &x->n_pools, &err) != GP_OK) {
        fprintf(stderr, PROG ": --pools %s: %s\n", o->pools, err.msg);
        free(buf);
        return 2;
    }
    free(buf);
    for (size_t p = 0; prov >= 0 && p < x->n_pools; p++)
        x->pools[p].provision_s = prov;
    return 0;
}

static int load_inputs(const ropts *o, inputs *x)
{
    gp_err err = { { 0 } };

    if (gp_daemon_policy_flag(PROG, o->policy, &x->pol, NULL) != 0)
        return 2;
    x->policy_mix = (gp_frag_mix){ gp_score_policy_mix(x->pol, x->policy_shapes, GP_SCORE_MAX_MIX),
                                   x->policy_shapes };
    x->in.keep_finished = x->in.all_as_tasks = x->in.skip_daemonsets = x->in.keep_names = true;
    x->in.policy = x->pol;
    if (o->nodes && sim_load_nodes(o->nodes, &x->in, &err) != GP_OK) {
        fprintf(stderr, PROG ": %s\n", err.msg[0] ? err.msg : "out of memory");
        return 2;
    }
    int rc = o->pools ? load_pools(o, x) : 0;
    if (rc != 0)
        return rc;
    if (sim_load_tasks(o->pods, &x->in, &err) != GP_OK) {
        fprintf(stderr, PROG ": %s\n", err.msg[0] ? err.msg : "out of memory");
        return 2;
    }
    if (x->in.n_daemonset > 0 && o->level <= GP_LOG_INFO)
        fprintf(stderr, PROG ": note: %zu DaemonSet pod(s) left out (one per node, not placed "
                        "by demand)\n", x->in.n_daemonset);
    if (x->in.n_tasks == 0) {
        fprintf(stderr, PROG ": no pod to replay in %s\n", o->pods);
        return 2;
    }
    return o->pools ? 0 : load_pools(o, x);
}

/* Kubernetes asks for whole GPUs: a sharing task becomes a 1-GPU one (--gpu-sharing whole). */
static size_t whole_gpus(sim_input *in)
{
    size_t n = 0;

    for (size_t i = 0; i < in->n_tasks; i++)
        if (gp_frag_task_is_share(&in->tasks[i])) {
            in->tasks[i].gpu_milli = GP_FRAG_MILLI;
            n++;
        }
    return n;
}

static int check_shares(const ropts *o, const sim_input *in)
{
    bool ext = false;
    size_t shares = 0;

    for (size_t i = 0; i < o->n_scorers; i++)
        ext |= o->scorers[i]->score == NULL;
    for (size_t i = 0; ext && i < in->n_tasks; i++)
        shares += gp_frag_task_is_share(&in->tasks[i]);
    if (shares == 0)
        return 0;
    fprintf(stderr, PROG ": the extender scorer places whole GPUs only, and %zu tasks share a "
                    "GPU (--gpu-sharing keep); drop the extender or use --gpu-sharing whole\n",
            shares);
    return 2;
}

/* Why no pool can hold t: its GPU models are in no pool, or it is bigger than every node. */
static void unplaceable(const inputs *x, const gp_frag_task *t, const char *where)
{
    bool model = t->models == 0 || t->num_gpu == 0;
    char names[256] = "";
    size_t len = 0;

    for (size_t p = 0; p < x->n_pools && !model; p++)
        model = x->pools[p].node.model >= 0 && (t->models >> x->pools[p].node.model & 1u);
    if (!model) {
        for (int m = 0; m < x->in.models.n && len + 1 < sizeof(names); m++)
            if (t->models >> m & 1u)
                len += (size_t)snprintf(names + len, sizeof(names) - len, "%s%.31s",
                                        len ? "|" : "", x->in.models.name[m]);
        fprintf(stderr, PROG ": %s: asks for GPU model %s, which no pool has\n", where, names);
        return;
    }
    fprintf(stderr, PROG ": %s: asks %d GPU(s), %lldm CPU, %lld MiB: no pool's node can hold it "
                    "even when empty\n", where, t->num_gpu, (long long)t->cpu_milli,
            (long long)t->mem_mib);
}

/* Pods still running when the dump was taken run until then: the latest time the input shows. */
static void until_dump_time(const sim_input *in, double scale, sim_job *jobs, size_t n)
{
    int64_t latest = INT64_MIN;

    for (size_t i = 0; i < in->n_tasks; i++) {
        const sim_task_info *ti = &in->task_info[i];
        if (ti->created > SIM_TIME_BAD && ti->created > latest)
            latest = ti->created;
        if (ti->ended > SIM_TIME_BAD && ti->ended > latest)
            latest = ti->ended;
    }
    for (size_t j = 0; j < n; j++) {
        int64_t created = in->task_info[jobs[j].src].created;
        if (jobs[j].duration < OPEN_DURATION || created <= SIM_TIME_BAD)
            continue;
        double d = ceil((double)(latest - created) / scale);
        jobs[j].duration = d >= 1 ? (int64_t)d : 1;
    }
}

static int workload_for(const ropts *o, inputs *x, size_t k)
{
    gp_err err = { { 0 } };
    gp_status st;

    if (o->load) {
        sim_gen_opts g = { .seed = o->seedv[k], .load = o->loadv,
                           .fleet_gpus = (double)sim_pools_fleet_gpus(x->pools, x->n_pools),
                           .warmup = o->warm, .span = o->span, .max_duration = o->warm };
        if (g.max_duration == 0)
            g.max_duration = o->span;
        st = sim_jobs_generate(&x->in, &g, &x->jobs[k], &x->n_jobs[k], NULL, &err);
    } else {
        st = sim_jobs_from_input(&x->in, o->scale, OPEN_DURATION, &x->jobs[k], &x->n_jobs[k], &err);
        if (st == GP_OK && o->span == 0) /* else they run to the window's end */
            until_dump_time(&x->in, o->scale, x->jobs[k], x->n_jobs[k]);
    }
    if (st != GP_OK) {
        fprintf(stderr, PROG ": %s\n", err.msg[0] ? err.msg : "out of memory");
        return 2;
    }
    if (x->n_jobs[k] == 0) {
        fprintf(stderr, PROG ": no pod to replay\n");
        return 2;
    }
    long bad = sim_replay_unplaceable(x->pools, x->n_pools, x->jobs[k], x->n_jobs[k]);
    if (bad >= 0) {
        char where[256];
        sim_input_where(&x->in, x->jobs[k][bad].src, where, sizeof(where));
        unplaceable(x, &x->jobs[k][bad].task, where);
        return 2;
    }
    return 0;
}

static int workloads(const ropts *o, inputs *x)
{
    x->jobs = calloc(o->n_seeds, sizeof(*x->jobs));
    x->n_jobs = calloc(o->n_seeds, sizeof(*x->n_jobs));
    if (!x->jobs || !x->n_jobs)
        return fprintf(stderr, PROG ": out of memory\n"), 1;
    x->shared_jobs = !o->load;
    for (size_t k = 0; k < o->n_seeds; k++) {
        if (x->shared_jobs && k > 0) {
            x->jobs[k] = x->jobs[0];
            x->n_jobs[k] = x->n_jobs[0];
            continue;
        }
        int rc = workload_for(o, x, k);
        if (rc)
            return rc;
    }
    return 0;
}

static void inputs_free(inputs *x, size_t n_seeds)
{
    for (size_t k = 0; x->jobs && k < n_seeds && !(x->shared_jobs && k > 0); k++)
        free(x->jobs[k]);
    free(x->jobs);
    free(x->n_jobs);
    sim_mix_free(&x->mix);
    sim_mix_free(&x->every);
    gp_policy_unref(x->pol);
    sim_input_free(&x->in);
}

/* ---- Runs ---- */

typedef struct {
    const sim_scorer *scorer;
    size_t seed_index;
    sim_cfg place;
    sim_replay_cfg rc;
    sim_replay_result res;
    gp_status st;
    gp_err err;
} run;

typedef struct {
    pthread_mutex_t mu;
    size_t next, n;
    run *runs;
    size_t *order; /* the runs in the order they are started */
} queue;

static void *worker(void *arg)
{
    queue *q = arg;

    for (;;) {
        pthread_mutex_lock(&q->mu);
        size_t i = q->next < q->n ? q->next++ : q->n;
        pthread_mutex_unlock(&q->mu);
        if (i >= q->n)
            return NULL;
        run *r = &q->runs[q->order[i]];
        r->rc.place = &r->place;
        r->st = sim_replay(&r->rc, &r->res, &r->err);
    }
}

static gp_status run_all(run *runs, size_t n, unsigned threads)
{
    pthread_t tid[MAX_THREADS];
    queue q = { .n = n, .runs = runs, .order = malloc((n ? n : 1) * sizeof(size_t)) };
    size_t k = 0;

    if (!q.order)
        return GP_ENOMEM;
    /* The extender's replays take longest: first, so the threads end together. */
    for (size_t i = 0; i < n; i++)
        if (runs[i].scorer->score == NULL)
            q.order[k++] = i;
    for (size_t i = 0; i < n; i++)
        if (runs[i].scorer->score != NULL)
            q.order[k++] = i;
    unsigned started = 0;

    pthread_mutex_init(&q.mu, NULL);
    for (unsigned i = 0; i < threads && i < n; i++)
        started += pthread_create(&tid[started], NULL, worker, &q) == 0;
    if (started == 0)
        worker(&q);
    for (unsigned i = 0; i < started; i++)
        pthread_join(tid[i], NULL);
    pthread_mutex_destroy(&q.mu);
    free(q.order);
    for (size_t i = 0; i < n; i++)
        if (runs[i].st != GP_OK) {
            fprintf(stderr, PROG ": %s: %s\n", runs[i].scorer->name,
                    runs[i].err.msg[0] ? runs[i].err.msg : gp_status_str(runs[i].st));
            return runs[i].st;
        }
    return GP_OK;
}

static run *make_runs(const ropts *o, inputs *x)
{
    size_t n = o->n_scorers * o->n_seeds;
    run *runs = calloc(n, sizeof(*runs));
    bool policy_mix = x->policy_mix.n > 0;

    for (size_t i = 0; runs && i < n; i++) {
        run *r = &runs[i];
        size_t k = i % o->n_seeds;
        r->scorer = o->scorers[i / o->n_seeds];
        r->seed_index = k;
        r->place = (sim_cfg){ .scorer = r->scorer, .mix = &x->mix, .tasks = x->in.tasks,
                              .n_tasks = x->in.n_tasks,
                              .score_mix = policy_mix ? &x->policy_mix : NULL,
                              .pressure_mix = policy_mix ? &x->policy_mix : &x->every,
                              .learn_mix = o->mix.index == 1,
                              .fallback_cpu = x->pol->scoring.typical_cpu_milli_per_gpu,
                              .policy = x->pol, .models = &x->in.models, .seed = o->seedv[k],
                              .ties_random = o->ties.index == 0 };
        r->rc = o->rc;
        r->rc.pools = x->pools;
        r->rc.n_pools = x->n_pools;
        r->rc.jobs = x->jobs[k];
        r->rc.n_jobs = x->n_jobs[k];
        if (o->load) {
            r->rc.measure_from_s = o->warm;
            r->rc.end_s = o->warm + o->span;
        } else { /* without --duration, until the work is over (sim/replay.h) */
            r->rc.measure_from_s = o->warm;
            r->rc.end_s = o->span > 0 ? o->warm + o->span : 0;
        }
        r->rc.sample_s = o->plot ? PLOT_STEP_S : 0;
    }
    return runs;
}

/* ---- Output ---- */

static void describe(const ropts *o, const inputs *x, char *buf, size_t len)
{
    if (o->load)
        snprintf(buf, len, "generated from %s at load %g of %lld GPUs, %.3g days after %.3g "
                 "day(s) of warm-up", o->pods, o->loadv,
                 (long long)sim_pools_fleet_gpus(x->pools, x->n_pools), (double)o->span / 86400,
                 (double)o->warm / 86400);
    else
        snprintf(buf, len, "%s at its own times / %g", o->pods, o->scale);
}

/* --json-file: the JSON lines appended to path. */
static int append_json(const char *path, const sim_replay_meta *m, const sim_replay_run *rr,
                       size_t n)
{
    gp_strbuf b;
    char *text = NULL;
    size_t len = 0;

    gp_strbuf_init(&b, 0);
    for (size_t i = 0; i < n; i++)
        sim_replay_json(&b, m, &rr[i]);
    if (gp_strbuf_take(&b, &text, &len) != GP_OK)
        return fprintf(stderr, PROG ": out of memory\n"), 1;
    FILE *f = fopen(path, "a");
    bool ok = f && fwrite(text, 1, len, f) == len;
    if (f)
        ok = fclose(f) == 0 && ok;
    free(text);
    if (!ok)
        fprintf(stderr, PROG ": --json-file: cannot write %s\n", path);
    return ok ? 0 : 1;
}

static int print(const ropts *o, const inputs *x, run *runs)
{
    size_t n = o->n_scorers * o->n_seeds;
    sim_replay_run *rr = calloc(n, sizeof(*rr));
    char desc[512];
    gp_strbuf b;

    if (!rr)
        return 1;
    describe(o, x, desc, sizeof(desc));
    sim_replay_meta m = { .pools = x->pools, .n_pools = x->n_pools, .label = o->label,
                          .workload = desc,
                          .mode = o->rc.down == SIM_DOWN_EMPTY ? "empty" : "cluster-autoscaler",
                          .ties = o->ties.index == 0 ? "random" : "first", .jobs = x->n_jobs[0] };
    gp_strbuf_init(&b, 0);
    for (size_t i = 0; i < n; i++) {
        rr[i] = (sim_replay_run){ runs[i].scorer->name, o->seedv[runs[i].seed_index], &runs[i].res };
        if (o->json)
            sim_replay_json(&b, &m, &rr[i]);
    }
    if (o->json_file && append_json(o->json_file, &m, rr, n) != 0) {
        free(rr);
        gp_strbuf_free(&b);
        return 1;
    }
    if (!o->json)
        sim_replay_table(&b, &m, rr, o->n_scorers, o->n_seeds, o->format.index == 1);
    free(rr);
    char *text = NULL;
    size_t len = 0;
    if (gp_strbuf_take(&b, &text, &len) != GP_OK)
        return fprintf(stderr, PROG ": out of memory\n"), 1;
    fwrite(text, 1, len, stdout);
    free(text);
    return 0;
}

/* The paper protocol's curve for each scorer (first seed), on --nodes and the pods. */
static void protocol_curves(const ropts *o, const inputs *x, const run *runs, sim_result *curves)
{
    const char **names = malloc((x->in.n_nodes ? x->in.n_nodes : 1) * sizeof(*names));

    for (size_t i = 0; names && i < x->in.n_nodes; i++)
        names[i] = x->in.node_names[i];
    for (size_t s = 0; names && o->nodes && s < o->n_scorers; s++) {
        sim_cfg c = runs[s * o->n_seeds].place;
        gp_err err = { { 0 } };
        c.nodes = x->in.nodes;
        c.n_nodes = x->in.n_nodes;
        c.node_names = names;
        c.inflate = 1.3;
        c.ties_random = false;
        if (sim_run(&c, &curves[s], &err) != GP_OK)
            curves[s].curve_n = 0;
    }
    free(names);
}

static int plot(const ropts *o, const inputs *x, const run *runs)
{
    sim_plot_series s[MAX_SCORERS];
    sim_result curves[MAX_SCORERS];
    char title[600], sub[256];
    gp_strbuf b;
    gp_err err = { { 0 } };
    size_t len = strlen(o->plot);
    bool html = len > 5 && !strcmp(o->plot + len - 5, ".html");

    memset(curves, 0, sizeof(curves));
    protocol_curves(o, x, runs, curves);
    describe(o, x, title, sizeof(title));
    snprintf(sub, sizeof(sub), "scale-down %s, seed %llu; the paper protocol's curve: %s",
             o->rc.down == SIM_DOWN_EMPTY ? "empty" : "cluster-autoscaler",
             (unsigned long long)o->seedv[0], o->nodes ? "--nodes, inflate 1.3, ties first" : "none (--pools)");
    for (size_t i = 0; i < o->n_scorers; i++) {
        const sim_replay_result *r = &runs[i * o->n_seeds].res;
        s[i] = (sim_plot_series){ o->scorers[i]->name, r->n_samples, r->nodes_up, r->gpus_alloc,
                                  curves[i].curve_n ? curves[i].curve : NULL, curves[i].curve_n };
    }
    sim_plot_opts po = { .title = title, .step_s = PLOT_STEP_S, .start_s = runs[0].rc.measure_from_s,
                         .subtitle = sub };
    gp_strbuf_init(&b, 64u << 20);
    gp_status st = sim_plot_render(s, o->n_scorers, &po, html, &b, &err);
    char *text = NULL;
    size_t n = 0;
    if (st == GP_OK)
        st = gp_strbuf_take(&b, &text, &n);
    else
        gp_strbuf_free(&b);
    FILE *f = st == GP_OK ? fopen(o->plot, "w") : NULL;
    bool ok = f && fwrite(text, 1, n, f) == n;
    if (f)
        ok = fclose(f) == 0 && ok;
    free(text);
    for (size_t i = 0; i < o->n_scorers; i++)
        sim_result_free(&curves[i]);
    if (!ok)
        fprintf(stderr, PROG ": --plot: cannot write %s%s%s\n", o->plot, err.msg[0] ? ": " : "",
                err.msg);
    return ok ? 0 : 1;
}

int sim_replay_main(int argc, char **argv)
{
    ropts o;
    inputs x;
    int rc = parse(argc, argv, &o);
    sim_mix_opts mo = { .popularity_pct = 95, .cpu_tasks = true };
    sim_mix_opts every = { .popularity_pct = 100, .cpu_tasks = true };
    gp_err err = { { 0 } };

    if (rc >= 0)
        return rc;
    memset(&x, 0, sizeof(x));
    if ((rc = load_inputs(&o, &x)) != 0)
        goto out;
    if (o.sharing.index == 0 && whole_gpus(&x.in) > 0 && o.level <= GP_LOG_INFO)
        fprintf(stderr, PROG ": note: tasks sharing a GPU ask for a whole one, as a Kubernetes "
                        "pod does (--gpu-sharing keep: as the trace has them)\n");
    if ((rc = check_shares(&o, &x.in)) != 0)
        goto out;
    if (sim_mix_build(x.in.tasks, x.in.n_tasks, &mo, &x.mix, &err) != GP_OK ||
        sim_mix_build(x.in.tasks, x.in.n_tasks, &every, &x.every, &err) != GP_OK) {
        fprintf(stderr, PROG ": %s\n", err.msg[0] ? err.msg : "out of memory");
        rc = 2;
        goto out;
    }
    if ((rc = workloads(&o, &x)) != 0)
        goto out;
    run *runs = make_runs(&o, &x);
    if (!runs || run_all(runs, o.n_scorers * o.n_seeds, o.threads) != GP_OK)
        rc = 1;
    else
        rc = print(&o, &x, runs);
    if (rc == 0 && o.plot)
        rc = plot(&o, &x, runs);
    for (size_t i = 0; runs && i < o.n_scorers * o.n_seeds; i++)
        sim_replay_result_free(&runs[i].res);
    free(runs);
out:
    inputs_free(&x, o.n_seeds);
    return rc;
}
