/* SPDX-License-Identifier: Apache-2.0 */
/* gpupack-sim: replays a workload (the Alibaba GPU trace, or Kubernetes dumps) on a cluster one
 * task at a time with each scorer of sim/scorers.c, and reports how well the cluster is packed
 * (docs/simulation.md). Wiring only: flags, loading, a thread pool over (scorer, seed) runs,
 * output. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "gpupack/daemon.h"
#include "gpupack/fileio.h"
#include "gpupack/flags.h"
#include "gpupack/frag.h"
#include "gpupack/log.h"
#include "gpupack/policy.h"
#include "gpupack/score.h"
#include "gpupack/strbuf.h"
#include "load.h"
#include "mix.h"
#include "replaycli.h"
#include "run.h"
#include "scorers.h"
#include "stats.h"

#ifndef GP_VERSION
#define GP_VERSION "0.0.0"
#endif

#define MAX_SEEDS 1000
#define MAX_SCORERS 16
#define MAX_JOBS 256

static const char help_summary[] =
    "       gpupack-sim --replay --pods FILE (--nodes FILE | --pools FILE) [flags]\n"
    "                 (the time replay with an autoscaler; gpupack-sim --replay --help)\n"
    "       gpupack-sim --summarize FILE...   (a markdown table from --json output)\n"
    "Replays a trace's tasks onto its nodes with each scorer and seed (docs/simulation.md).";

typedef struct {
    const char *nodes_path, *pods_path, *label, *policy_path, *place_path, *placements_path;
    bool learn_mix;
    bool policy_mix;      /* the policy states scoring.workloadMix */
    int64_t typical_cpu;  /* the policy's typicalGpuPod.cpuPerGpu */
    uint64_t seeds[MAX_SEEDS];
    size_t n_seeds;
    const sim_scorer *scorers[MAX_SCORERS];
    size_t n_scorers;
    double inflate;
    bool json, ties_random;
    long jobs;
    const char *log_level;
    gp_log_level level;   /* warn and error: no progress lines or notes; error: no warnings */
} options;

__attribute__((format(printf, 1, 2))) static int die_usage(const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "gpupack-sim: ");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nsee gpupack-sim --help\n");
    return 2;
}

/* A bad flag value: err says what, for gp_flags_fail() to print as die_usage() would. */
__attribute__((format(printf, 2, 3))) static gp_status usage_err(gp_err *err, const char *fmt,
                                                                 ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
    va_end(ap);
    return GP_EINVAL;
}

static bool parse_u64(const char *s, uint64_t max, uint64_t *out)
{
    char *end = NULL;

    if (!s || !*s || *s == '-' || *s == '+')
        return false;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || !end || *end || v > max)
        return false;
    *out = v;
    return true;
}

static gp_status add_seed(options *o, uint64_t s, gp_err *err)
{
    if (o->n_seeds >= MAX_SEEDS)
        return usage_err(err, "more than %s seeds", "1000");
    o->seeds[o->n_seeds++] = s;
    return GP_OK;
}

static gp_status add_seed_range(void *ctx, const char *arg, gp_err *err)
{
    options *o = ctx;
    char buf[64];
    uint64_t a, b;

    snprintf(buf, sizeof(buf), "%s", arg);
    char *dash = strchr(buf, '-');
    if (!dash)
        return usage_err(err, "--seeds wants A-B, not \"%s\"", arg);
    *dash = '\0';
    if (!parse_u64(buf, UINT32_MAX, &a) || !parse_u64(dash + 1, UINT32_MAX, &b) || b < a ||
        b - a >= MAX_SEEDS)
        return usage_err(err, "--seeds wants A-B with A <= B, at most 1000 seeds, not \"%s\"", arg);
    for (uint64_t s = a; s <= b; s++)
        if (add_seed(o, s, err) != GP_OK)
            return GP_EINVAL;
    return GP_OK;
}

/* The simulator's scorers by index: sim/scorers.c's, then `extender`; NULL past the end. */
static const sim_scorer *scorer_at(size_t i)
{
    size_t n;
    const sim_scorer *all = sim_scorers(&n);

    return i < n ? &all[i] : i == n ? sim_scorer_named("extender") : NULL;
}

static gp_status add_scorer(void *ctx, const char *name, gp_err *err)
{
    options *o = ctx;

    if (strcmp(name, "all") == 0) {
        size_t n;
        const sim_scorer *all = sim_scorers(&n);
        for (size_t i = 0; i < n; i++)
            if (add_scorer(o, all[i].name, err) != GP_OK)
                return GP_EINVAL;
        return GP_OK;
    }
    const sim_scorer *s = sim_scorer_named(name);
    if (!s)
        return usage_err(err, "unknown scorer \"%s\" (gpupack, random, dotprod, gpupacking, "
                         "bestfit, fgd, kube-default, kube-mostallocated, kube-binpack, "
                         "kube-stock, all, extender)", name);
    for (size_t i = 0; i < o->n_scorers; i++)
        if (o->scorers[i] == s)
            return GP_OK;
    if (o->n_scorers >= MAX_SCORERS)
        return usage_err(err, "too many scorers%s", "");
    o->scorers[o->n_scorers++] = s;
    return GP_OK;
}

static gp_status add_seed_value(void *ctx, const char *v, gp_err *err)
{
    uint64_t u;

    return parse_u64(v, UINT64_MAX, &u) ? add_seed(ctx, u, err)
                                        : usage_err(err, "bad --seed \"%s\"", v);
}

static gp_status set_label(void *ctx, const char *v, gp_err *err)
{
    if (strlen(v) > 60 || strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                    "0123456789._-") != strlen(v))
        return usage_err(err, "--label wants at most 60 of [A-Za-z0-9._-], not \"%s\"", v);
    ((options *)ctx)->label = v;
    return GP_OK;
}

static gp_status set_inflate(void *ctx, const char *v, gp_err *err)
{
    options *o = ctx;
    char *end = NULL;

    errno = 0;
    o->inflate = strtod(v, &end);
    if (errno || !end || *end || !(o->inflate >= 0 && o->inflate <= 100))
        return usage_err(err, "--inflate wants a number in 0..100, not \"%s\"", v);
    return GP_OK;
}

/* The command line's choices and switches before they land in options. */
typedef struct {
    gp_flag_func seed, seeds, scorer, label, inflate;
    gp_flag_choice ties, mix;
    unsigned jobs;
    bool help, version;
} cli;

#define NFLAGS 17

static void flag_table(options *o, cli *c, gp_flag f[NFLAGS])
{
    static const char *const ties[] = { "first", "random", NULL };
    static const char *const mixes[] = { "trace", "learned", NULL };
    const gp_flag t[NFLAGS] = {
        { .name = "nodes", .kind = GP_FLAG_STRING, .dest = &o->nodes_path, .arg = "FILE", .help = "node list: the trace's CSV (sn,cpu_milli,memory_mib,gpu,model) or `kubectl get nodes -o json`", .once = true },
        { .name = "pods", .kind = GP_FLAG_STRING, .dest = &o->pods_path, .arg = "FILE", .help = "tasks: the trace's CSV (name,cpu_milli,memory_mib,num_gpu,gpu_milli [,gpu_spec]) or `kubectl get pods -A -o json` (pods with spec.nodeName are placed first, as they are)", .once = true },
        { .name = "place", .kind = GP_FLAG_STRING, .dest = &o->place_path, .arg = "FILE", .help = "more tasks to place after those of --pods, in the same formats (e.g. --pods: the cluster's pods now; --place: this week's pods)", .once = true },
        { .name = "placements", .kind = GP_FLAG_STRING, .dest = &o->placements_path, .arg = "FILE", .help = "one JSON line per pod: the node it was placed on, or why it was not (one scorer and one seed; with --inflate 0 each pod appears once)", .once = true },
        { .name = "seed", .kind = GP_FLAG_FUNC, .dest = &c->seed, .arg = "N", .help = "a seed (repeatable; default 42)" },
        { .name = "seeds", .kind = GP_FLAG_FUNC, .dest = &c->seeds, .arg = "A-B", .help = "a range of seeds" },
        { .name = "inflate", .kind = GP_FLAG_FUNC, .dest = &c->inflate, .arg = "X", .help = "resample the tasks to X times the GPU capacity (default 1.3; 0: as is)" },
        { .name = "scorer", .kind = GP_FLAG_FUNC, .dest = &c->scorer, .arg = "NAME", .help = "gpupack (default), random, dotprod, gpupacking, bestfit, fgd, kube-default, kube-mostallocated, kube-binpack, kube-stock (kube-scheduler's own scoring; kube-stock as it scores unconfigured), or all (those ten; repeatable); extender: gpupack-extender's whole prioritize with --policy (whole-GPU and CPU-only tasks only)" },
        { .name = "json", .kind = GP_FLAG_BOOL, .dest = &o->json, .help = "one JSON object per scorer and seed instead of a table" },
        { .name = "ties", .kind = GP_FLAG_CHOICE, .dest = &c->ties, .arg = "MODE", .help = "first: the first best node in a seeded node permutation (default); random: a uniformly random one of the best" },
        { .name = "jobs", .kind = GP_FLAG_UINT, .dest = &c->jobs, .min = 1, .max = MAX_JOBS, .arg = "N", .help = "runs in parallel (default: the online CPUs)" },
        { .name = "label", .kind = GP_FLAG_FUNC, .dest = &c->label, .arg = "TEXT", .help = "a \"label\" field in each JSON line (e.g. the trace variant)" },
        { .name = "mix", .kind = GP_FLAG_CHOICE, .dest = &c->mix, .arg = "MODE", .help = "the workload mix gpupack and fgd score with: trace: every task's shape, known in advance (the paper's, default); learned: the shapes of the tasks placed so far, as gpupack-extender learns them from its pod watch" },
        { .name = "policy", .kind = GP_FLAG_STRING, .dest = &o->policy_path, .arg = "FILE", .help = "a gpupack policy (default: the embedded one): the extender scorer's; its scoring.workloadMix, when stated, is the mix (as in gpupack-extender), and typicalGpuPod.cpuPerGpu the learned mix's start", .once = true },
        { .name = "log-level", .kind = GP_FLAG_STRING, .dest = &o->log_level, .arg = "LEVEL", .help = "debug, info (default), warn or error: warn drops the progress lines and notes on stderr, error the warnings too" },
        { .name = "help", .kind = GP_FLAG_BOOL, .dest = &c->help, .help = "this text" },
        { .name = "version", .kind = GP_FLAG_BOOL, .dest = &c->version, .help = "print the version" },
    };

    *c = (cli){ .seed = { add_seed_value, o }, .seeds = { add_seed_range, o },
                .scorer = { add_scorer, o }, .label = { set_label, o },
                .inflate = { set_inflate, o }, .ties = { ties, 0 }, .mix = { mixes, 0 } };
    memcpy(f, t, sizeof(t));
}

/* Defaults and the checks that need every flag. Returns 2 on a usage error, else -1. */
static int finish_options(options *o, const cli *c)
{
    o->ties_random = c->ties.index == 1;
    o->learn_mix = c->mix.index == 1;
    o->jobs = (long)c->jobs;
    if (gp_log_level_parse(o->log_level ? o->log_level : "info", &o->level) != GP_OK)
        return die_usage("%s", "--log-level: expected debug, info, warn or error");
    if (!o->nodes_path || !o->pods_path)
        return die_usage("%s", "--nodes and --pods are required");
    if (o->n_seeds == 0)
        o->seeds[o->n_seeds++] = 42;
    if (o->n_scorers == 0)
        o->scorers[o->n_scorers++] = sim_scorer_find("gpupack");
    if (o->placements_path && (o->n_scorers > 1 || o->n_seeds > 1))
        return die_usage("%s", "--placements: one scorer and one seed");
    if (o->jobs == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        o->jobs = n < 1 ? 1 : n > MAX_JOBS ? MAX_JOBS : n;
    }
    return -1;
}

/* Returns the exit status when done (0 after --help or --version, 2 on a usage error), or -1. */
static int parse_args(int argc, char **argv, options *o)
{
    gp_flag flags[NFLAGS];
    gp_err err = { { 0 } };
    cli c;

    flag_table(o, &c, flags);
    o->inflate = 1.3;
    if (gp_flags_parse(flags, NFLAGS, argc, argv, &err) != GP_OK)
        return gp_flags_fail(stderr, "gpupack-sim", err.msg);
    if (c.help) {
        gp_flags_usage(stdout, "gpupack-sim", help_summary, flags, NFLAGS);
        return 0;
    }
    if (c.version) {
        printf("gpupack-sim %s\n", GP_VERSION);
        return 0;
    }
    return finish_options(o, &c);
}

/* ---- Runs in parallel ---- */

typedef struct {
    const sim_scorer *scorer;
    uint64_t seed;
    sim_result res;
    gp_status st;
    gp_err err;
    atomic_size_t total, tried; /* progress, read by the main thread */
    atomic_bool done;
} job;

typedef struct {
    pthread_mutex_t mu;
    size_t next, n;
    job *jobs;
    const sim_cfg *base;
} pool;

static void *worker(void *arg)
{
    pool *p = arg;

    for (;;) {
        pthread_mutex_lock(&p->mu);
        size_t i = p->next < p->n ? p->next++ : p->n;
        pthread_mutex_unlock(&p->mu);
        if (i >= p->n)
            return NULL;
        job *j = &p->jobs[i];
        sim_cfg cfg = *p->base;
        cfg.scorer = j->scorer;
        cfg.seed = j->seed;
        cfg.progress_total = &j->total;
        cfg.progress_tried = &j->tried;
        j->st = sim_run(&cfg, &j->res, &j->err);
        atomic_store(&j->done, true);
    }
}

static double mono_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Progress on stderr while the runs take longer than PROGRESS_AFTER_S: every PROGRESS_EVERY_S,
 * the runs done and the share of the tasks tried. Returns when every job is done. */
#define PROGRESS_AFTER_S 3.0
#define PROGRESS_EVERY_S 5.0

static void watch_progress(job *jobs, size_t n, bool show)
{
    double t0 = mono_s(), next = t0 + PROGRESS_AFTER_S;

    for (;;) {
        size_t done = 0;
        double share = 0;

        for (size_t i = 0; i < n; i++) {
            size_t total = atomic_load_explicit(&jobs[i].total, memory_order_relaxed);

            done += atomic_load(&jobs[i].done);
            share += atomic_load(&jobs[i].done) ? 1
                     : total ? (double)atomic_load_explicit(&jobs[i].tried, memory_order_relaxed) /
                                   (double)total
                             : 0;
        }
        if (done == n)
            return;
        if (show && mono_s() >= next) {
            fprintf(stderr, "gpupack-sim: %zu of %zu runs done, %.0f%% of the tasks tried, "
                    "%.0f s\n", done, n, 100.0 * share / (double)n, mono_s() - t0);
            next += PROGRESS_EVERY_S;
        }
        usleep(100000);
    }
}

/* show: the progress lines on stderr (--log-level info or debug). */
static gp_status run_all(const sim_cfg *base, job *jobs, size_t n, long threads, bool show)
{
    pool p = { .next = 0, .n = n, .jobs = jobs, .base = base };
    pthread_t tid[MAX_JOBS];
    long started = 0;

    pthread_mutex_init(&p.mu, NULL);
    for (long i = 0; i < threads && (size_t)i < n; i++)
        if (pthread_create(&tid[started], NULL, worker, &p) == 0)
            started++;
    if (started == 0)
        worker(&p);
    else
        watch_progress(jobs, n, show);
    for (long i = 0; i < started; i++)
        pthread_join(tid[i], NULL);
    pthread_mutex_destroy(&p.mu);
    for (size_t i = 0; i < n; i++)
        if (jobs[i].st)
            return jobs[i].st;
    return GP_OK;
}

/* ---- Output ---- */

/* Which mix the scorers used: the policy's, learned, or the trace's. */
static const char *mix_name(const options *o)
{
    return o->policy_mix ? "policy" : o->learn_mix ? "learned" : "trace";
}

static void print_json(const options *o, const sim_input *in, const job *j)
{
    const sim_result *r = &j->res;
    int64_t gpus = 0;

    for (size_t i = 0; i < in->n_nodes; i++)
        gpus += in->nodes[i].ngpu;
    printf("{\"scorer\":\"%s\",\"seed\":%llu,", j->scorer->name, (unsigned long long)j->seed);
    if (o->label)
        printf("\"label\":\"%s\",", o->label);
    printf("\"mix\":\"%s\",", mix_name(o));
    printf("\"nodes\":%zu,\"gpus\":%lld,\"mig_nodes\":%zu,\"mig_gpus\":%lld,\"tasks\":%zu,"
           "\"inflate\":%g,\"ties\":\"%s\",",
           in->n_nodes, (long long)gpus, in->n_mig_nodes, (long long)in->mig_gpus, r->tasks,
           o->inflate, o->ties_random ? "random" : "first");
    /* A run whose arrivals never reached the capacity has no value at 100%: null. */
    if (r->reached_100)
        printf("\"unallocated_gpu_pct_at_100\":%.4f,\"reached_100\":true,"
               "\"fragmentation_pct_at_100\":%.4f,", r->unalloc_at_100, r->frag_at_100);
    else
        printf("\"unallocated_gpu_pct_at_100\":null,\"reached_100\":false,"
               "\"fragmentation_pct_at_100\":null,");
    printf("\"unallocated_gpu_pct_end\":%.4f,", r->unalloc_end);
    if (r->reached_100)
        printf("\"arrived_tasks_at_100\":%zu,\"failed_pods\":%zu,", r->arrived_at_100,
               r->failed_at_100);
    else
        printf("\"arrived_tasks_at_100\":null,\"failed_pods\":null,");
    printf("\"failed_pods_all\":%zu,\"failed_by_shape\":{", r->failed_all);
    for (int c = 0; c < SIM_CLASSES; c++)
        printf("%s\"%s\":%zu", c ? "," : "", sim_class_names[c], r->failed_class[c]);
    printf("},\"node_scores\":%llu,\"us_per_node_scored\":%.4f,\"seconds\":%.3f,\"curve\":[",
           (unsigned long long)r->node_scores, r->us_per_node, r->seconds);
    for (int k = 0; k < r->curve_n; k++)
        printf("%s%.3f", k ? "," : "", r->curve[k]);
    printf("]}\n");
}

static void print_table(const options *o, const sim_input *in, const job *jobs)
{
    int64_t gpus = 0;

    for (size_t i = 0; i < in->n_nodes; i++)
        gpus += in->nodes[i].ngpu;
    printf("%zu nodes (%lld GPUs", in->n_nodes, (long long)gpus);
    if (in->n_mig_nodes > 0)
        printf("; %zu with MIG slices: %lld GPUs more, not simulated", in->n_mig_nodes,
               (long long)in->mig_gpus);
    printf("), %zu tasks, inflate %g, %zu seed(s), ties %s, mix %s\n", in->n_tasks, o->inflate,
           o->n_seeds, o->ties_random ? "random" : "first", mix_name(o));
    printf("%-18s %-18s %-16s %-16s %9s %9s\n", "scorer", "unalloc% @100", "frag% @100",
           "failed @100", "seconds", "us/node");
    for (size_t s = 0; s < o->n_scorers; s++) {
        sim_stat u = { 0 }, f = { 0 }, fl = { 0 }, sec = { 0 }, us = { 0 }, end = { 0 };
        for (size_t k = 0; k < o->n_seeds; k++) {
            const sim_result *r = &jobs[s * o->n_seeds + k].res;
            if (r->reached_100) { /* the @100 columns average the runs that reached 100% */
                sim_stat_add(&u, r->unalloc_at_100);
                sim_stat_add(&f, r->frag_at_100);
                sim_stat_add(&fl, (double)r->failed_at_100);
            }
            sim_stat_add(&end, r->unalloc_end);
            sim_stat_add(&sec, r->seconds);
            sim_stat_add(&us, r->us_per_node);
        }
        if (u.n > 0)
            printf("%-18s %6.2f +- %-8.2f %6.2f +- %-6.2f %6.0f +- %-6.0f %9.2f %9.3f\n",
                   o->scorers[s]->name, sim_stat_mean(&u), sim_stat_sd(&u), sim_stat_mean(&f), sim_stat_sd(&f),
                   sim_stat_mean(&fl), sim_stat_sd(&fl), sim_stat_mean(&sec), sim_stat_mean(&us));
        else
            printf("%-18s %-18s %-16s %-16s %9.2f %9.3f\n", o->scorers[s]->name, "not reached",
                   "-", "-", sim_stat_mean(&sec), sim_stat_mean(&us));
        if (u.n < o->n_seeds)
            printf("  %s: %zu of %zu run(s) never had 100%% of the GPU capacity asked for (the "
                   "workload is smaller than the cluster; --inflate resamples it): %.2f%% of the "
                   "GPUs unallocated at their end\n", o->scorers[s]->name, o->n_seeds - u.n,
                   o->n_seeds, sim_stat_mean(&end));
    }
}

/* ---- --summarize: a markdown table (rows: labels, columns: scorers) from JSON lines ---- */

#define SUM_MAX_LABELS 64
#define SUM_LABEL_LEN 64

typedef struct {
    char labels[SUM_MAX_LABELS][SUM_LABEL_LEN];
    size_t n_labels;
    sim_stat cell[SUM_MAX_LABELS][MAX_SCORERS];
    sim_stat us[MAX_SCORERS];
    bool ran[MAX_SCORERS]; /* a line named the scorer: it has a column */
} summary;

static int scorer_index(const char *name)
{
    const sim_scorer *s;

    for (size_t i = 0; (s = scorer_at(i)) != NULL; i++)
        if (name && !strcmp(s->name, name))
            return (int)i;
    return -1;
}

static long label_index(summary *s, const char *label)
{
    for (size_t i = 0; i < s->n_labels; i++)
        if (!strcmp(s->labels[i], label))
            return (long)i;
    if (s->n_labels >= SUM_MAX_LABELS)
        return -1;
    snprintf(s->labels[s->n_labels], SUM_LABEL_LEN, "%s", label);
    return (long)s->n_labels++;
}

static int summarize_line(summary *s, const char *line, size_t len, const char *path, size_t ln)
{
    cJSON *o = cJSON_ParseWithLengthOpts(line, len, NULL, 0);
    const cJSON *sc = cJSON_GetObjectItemCaseSensitive(o, "scorer");
    const cJSON *lb = cJSON_GetObjectItemCaseSensitive(o, "label");
    const cJSON *u = cJSON_GetObjectItemCaseSensitive(o, "unallocated_gpu_pct_at_100");
    const cJSON *us = cJSON_GetObjectItemCaseSensitive(o, "us_per_node_scored");
    int si = scorer_index(cJSON_IsString(sc) ? sc->valuestring : NULL);
    long li = label_index(s, cJSON_IsString(lb) ? lb->valuestring : "-");

    if (o && si >= 0)
        s->ran[si] = true;
    if (o && si >= 0 && li >= 0 && cJSON_IsNull(u)) { /* never reached 100%: no value */
        cJSON_Delete(o);
        return 0;
    }
    if (!o || si < 0 || li < 0 || !cJSON_IsNumber(u)) {
        fprintf(stderr, "gpupack-sim: %s:%zu: not a gpupack-sim --json line\n", path, ln);
        cJSON_Delete(o);
        return 2;
    }
    sim_stat_add(&s->cell[li][si], u->valuedouble);
    if (cJSON_IsNumber(us))
        sim_stat_add(&s->us[si], us->valuedouble);
    cJSON_Delete(o);
    return 0;
}

/* The table: a column for each scorer the lines name, in scorer_at() order (sim/scorers.c's
 * table, then `extender`). */
static void summary_print(const summary *s)
{
    const sim_scorer *sc;

    printf("| trace |");
    for (size_t i = 0; (sc = scorer_at(i)) != NULL; i++)
        if (s->ran[i])
            printf(" %s |", sc->name);
    printf("\n|---|");
    for (size_t i = 0; scorer_at(i) != NULL; i++)
        if (s->ran[i])
            printf("---|");
    printf("\n");
    for (size_t l = 0; l < s->n_labels; l++) {
        printf("| %s |", s->labels[l]);
        for (size_t i = 0; scorer_at(i) != NULL; i++)
            if (s->ran[i] && s->cell[l][i].n)
                printf(" %.2f ± %.2f |", sim_stat_mean(&s->cell[l][i]), sim_stat_sd(&s->cell[l][i]));
            else if (s->ran[i])
                printf(" - |");
        printf("\n");
    }
    printf("| µs per node scored |");
    for (size_t i = 0; scorer_at(i) != NULL; i++)
        if (s->ran[i])
            printf(s->us[i].n ? " %.2f |" : " - |", sim_stat_mean(&s->us[i]));
    printf("\n");
}

static int summarize(int argc, char **argv)
{
    summary *s = calloc(1, sizeof(*s));
    int rc = 0;

    if (!s)
        return 1;
    for (int i = 0; i < argc && rc == 0; i++) {
        char *buf = NULL;
        size_t len = 0, ln = 0;
        gp_err err = { { 0 } };
        if (gp_file_read(argv[i], SIM_MAX_FILE_BYTES, &buf, &len, &err)) {
            fprintf(stderr, "gpupack-sim: %s\n", err.msg);
            rc = 2;
            break;
        }
        for (char *p = buf; rc == 0 && p && *p;) {
            char *nl = strchr(p, '\n');
            size_t l = nl ? (size_t)(nl - p) : strlen(p);
            ln++;
            if (l)
                rc = summarize_line(s, p, l, argv[i], ln);
            p = nl ? nl + 1 : NULL;
        }
        free(buf);
    }
    if (rc == 0)
        summary_print(s);
    free(s);
    return rc;
}

/* ---- --placements ---- */

static void why_text(const gp_frag_task *t, uint8_t why, char *buf, size_t len)
{
    char asks[128];

    snprintf(asks, sizeof(asks), "asks %d GPU(s)%s, %lldm CPU, %lld MiB", t->num_gpu,
             gp_frag_task_is_share(t) ? " (shared)" : "", (long long)t->cpu_milli,
             (long long)t->mem_mib);
    if (why == SIM_WHY_NO_MODEL)
        snprintf(buf, len, "no node has one of its GPU models (%s)", asks);
    else if (why == SIM_WHY_NOT_ADMITTED)
        snprintf(buf, len, "no node admits it: cordoned, tainted without its toleration, or "
                 "not matching its nodeSelector or node affinity (%s)", asks);
    else if (why == SIM_WHY_TOO_BIG)
        snprintf(buf, len, "no node is big enough even when empty (%s)", asks);
    else
        snprintf(buf, len, "no node had room when it arrived (%s)", asks);
}

/* One line: {"pod": name, "node": node} or {"pod": name, "node": null, "reason": why}. */
static void placement_line(gp_strbuf *b, const char *pod, const char *node, const char *reason,
                           bool bound)
{
    gp_strbuf_puts(b, "{\"pod\":");
    gp_strbuf_json_string(b, pod ? pod : "");
    gp_strbuf_puts(b, ",\"node\":");
    if (node)
        gp_strbuf_json_string(b, node);
    else
        gp_strbuf_puts(b, "null");
    if (bound)
        gp_strbuf_puts(b, ",\"bound\":true");
    if (reason) {
        gp_strbuf_puts(b, ",\"reason\":");
        gp_strbuf_json_string(b, reason);
    }
    gp_strbuf_puts(b, "}\n");
}

/* Writes --placements: the pods bound before the run (where they are), then each task in
 * arrival order. Returns 0, or 1 when the file cannot be written. */
static int write_placements(const char *path, const sim_input *in, const sim_result *r)
{
    gp_strbuf b;
    char *text = NULL, why[256];
    size_t len = 0;
    FILE *f;
    int rc = 0;

    if (!r->placed_task) {
        fprintf(stderr, "gpupack-sim: --placements: out of memory\n");
        return 1;
    }
    gp_strbuf_init(&b, 0);
    for (size_t i = 0; i < in->n_bound; i++)
        placement_line(&b, in->bound_names[i], in->bound_node[i] == SIZE_MAX ? NULL
                       : in->node_names[in->bound_node[i]],
                       in->bound_node[i] == SIZE_MAX ? "bound, but does not fit on its node: "
                       "left out" : NULL, true);
    for (size_t k = 0; k < r->tasks; k++) {
        long node = r->placed_node[k];

        if (node < 0)
            why_text(&in->tasks[r->placed_task[k]], r->placed_why[k], why, sizeof(why));
        placement_line(&b, in->task_names[r->placed_task[k]],
                       node >= 0 ? in->node_names[node] : NULL, node >= 0 ? NULL : why, false);
    }
    if (gp_strbuf_take(&b, &text, &len) != GP_OK || (f = fopen(path, "w")) == NULL) {
        fprintf(stderr, "gpupack-sim: --placements: cannot write %s\n", path);
        free(text);
        return 1;
    }
    if (fwrite(text, 1, len, f) != len)
        rc = 1;
    if (fclose(f) != 0)
        rc = 1;
    if (rc)
        fprintf(stderr, "gpupack-sim: --placements: cannot write %s\n", path);
    free(text);
    return rc;
}

/* ---- main ---- */

/* Applies the pods a JSON dump had already bound to nodes. */
static int apply_bound(sim_input *in, bool warn)
{
    for (size_t i = 0; i < in->n_bound; i++) {
        gp_frag_node *n = &in->nodes[in->bound_node[i]];
        gp_frag_pick pick;
        if (!gp_frag_pick_bestfit(n, &in->bound[i], &pick) ||
            !gp_frag_apply(n, &in->bound[i], &pick)) {
            if (warn)
                fprintf(stderr, "gpupack-sim: warning: a bound pod does not fit on node %s; "
                        "left out\n", in->node_names[in->bound_node[i]]);
            in->bound_node[i] = SIZE_MAX; /* --placements says so */
        }
    }
    return 0;
}

/* True, after saying why on stderr, when the nodes have no GPU to simulate: the paper's metric
 * is a share of the cluster's GPUs. MIG-only nodes get their own reason. */
static bool no_gpus(const options *o, const sim_input *in)
{
    for (size_t i = 0; i < in->n_nodes; i++)
        if (in->nodes[i].ngpu > 0)
            return false;
    if (in->n_mig_nodes > 0)
        fprintf(stderr, "gpupack-sim: %s: the cluster has no GPU to simulate: its GPUs are MIG "
                "slices only (%zu node(s), %lld GPUs), and MIG-only nodes cannot be simulated: "
                "their partition into slices is fixed and which GPU holds a free slice is not in "
                "the Node object, while the simulator places whole GPUs and shares of them "
                "(docs/simulation.md, \"Inputs\"); give nodes with nvidia.com/gpu\n",
                o->nodes_path, in->n_mig_nodes, (long long)in->mig_gpus);
    else
        fprintf(stderr, "gpupack-sim: %s: the cluster has no GPU: no node has nvidia.com/gpu "
                "(JSON) or a gpu count above 0 (CSV), and the metric is a share of the "
                "cluster's GPUs\n", o->nodes_path);
    return true;
}

/* Loads the inputs and builds the workload mix (the paper's: the shapes covering 95% of the
 * tasks) and the mix of every shape (the model pressure's). */
static int load(const options *o, sim_input *in, gp_frag_mix *mix, gp_frag_mix *all)
{
    gp_err err = { { 0 } };
    sim_mix_opts mo = { .popularity_pct = 95, .cpu_tasks = true };
    sim_mix_opts every = { .popularity_pct = 100, .cpu_tasks = true };

    if (sim_load_nodes(o->nodes_path, in, &err) || sim_load_tasks(o->pods_path, in, &err) ||
        (o->place_path && sim_load_tasks(o->place_path, in, &err))) {
        fprintf(stderr, "gpupack-sim: %s\n", err.msg[0] ? err.msg : "out of memory");
        return 2;
    }
    if (in->n_tasks == 0 && in->n_bound > 0 && !o->place_path) {
        fprintf(stderr, "gpupack-sim: every pod in %s is already bound to a node (%zu pods), so "
                "they are the cluster as it is and nothing is left to place; give the pods to "
                "place with --place FILE (e.g. --pods: the cluster's pods now, --place: this "
                "week's pods)\n", o->pods_path, in->n_bound);
        return 2;
    }
    if (in->n_tasks == 0) {
        fprintf(stderr, "gpupack-sim: no task to place in %s%s%s\n", o->pods_path,
                o->place_path ? " or " : "", o->place_path ? o->place_path : "");
        return 2;
    }
    if (no_gpus(o, in))
        return 2;
    if (in->n_mig_nodes > 0 && o->level <= GP_LOG_INFO)
        fprintf(stderr, "gpupack-sim: note: %zu node(s) have MIG slices, %lld GPUs counted from "
                "their compute slices (7 a GPU); MIG placement is not simulated: those GPUs are "
                "left out of the capacity, and pods asking for nvidia.com/mig-* count as "
                "CPU-only tasks\n", in->n_mig_nodes, (long long)in->mig_gpus);
    if (sim_mix_build(in->tasks, in->n_tasks, &mo, mix, &err) ||
        sim_mix_build(in->tasks, in->n_tasks, &every, all, &err)) {
        fprintf(stderr, "gpupack-sim: %s\n", err.msg[0] ? err.msg : "out of memory");
        return 2;
    }
    return apply_bound(in, o->level <= GP_LOG_WARN);
}

/* --policy (or the embedded default): its workload mix (the extender's gp_score_policy_mix())
 * into shapes[], its typical pod's CPU, and the policy itself in *pol for the `extender` scorer.
 * Returns 0 or 2. */
static int load_policy(options *o, gp_frag_shape *shapes, gp_frag_mix *out, gp_policy **pol)
{
    out->n = 0;
    out->shapes = shapes;
    if (gp_daemon_policy_flag("gpupack-sim", o->policy_path, pol, NULL) != 0)
        return 2;
    out->n = gp_score_policy_mix(*pol, shapes, GP_SCORE_MAX_MIX);
    o->typical_cpu = (*pol)->scoring.typical_cpu_milli_per_gpu;
    o->policy_mix = out->n > 0;
    if (o->policy_mix && o->learn_mix)
        return die_usage("%s", "--mix learned with a policy that states scoring.workloadMix: "
                               "gpupack-extender would use the policy's mix; drop one");
    return 0;
}

/* The `extender` scorer places whole GPUs only, as Kubernetes requests them. */
static int check_extender(const options *o, const sim_input *in)
{
    size_t shares = 0;
    bool wanted = false;

    for (size_t i = 0; i < o->n_scorers; i++)
        wanted |= o->scorers[i]->score == NULL;
    for (size_t i = 0; wanted && i < in->n_tasks; i++)
        shares += gp_frag_task_is_share(&in->tasks[i]);
    if (shares == 0)
        return 0;
    fprintf(stderr, "gpupack-sim: the extender scorer places whole GPUs only (Kubernetes has no "
                    "fractional nvidia.com/gpu request), and %zu of the tasks share a GPU\n",
            shares);
    return 2;
}

/* Each task's admission class (sim/admit.h), for sim_cfg.admit; NULL with *ok true when every
 * node admits every task. */
static uint8_t *admit_classes(const sim_input *in, bool *ok)
{
    uint8_t *c = NULL;

    *ok = true;
    if (in->admit.n == 0)
        return NULL;
    c = malloc(in->n_tasks ? in->n_tasks : 1);
    *ok = c != NULL;
    for (size_t i = 0; c && i < in->n_tasks; i++)
        c[i] = in->task_info[i].admit;
    return c;
}

/* A run that failed: the first failing run's own message (sim_run()'s), exit status 2 for
 * input it refuses, 1 otherwise. */
static int run_failed(const job *jobs, size_t n, gp_status st)
{
    for (size_t i = 0; jobs && i < n; i++)
        if (jobs[i].st != GP_OK && jobs[i].err.msg[0]) {
            fprintf(stderr, "gpupack-sim: %s\n", jobs[i].err.msg);
            return jobs[i].st == GP_EINVAL ? 2 : 1;
        }
    fprintf(stderr, "gpupack-sim: %s\n", gp_status_str(st));
    return st == GP_EINVAL ? 2 : 1;
}

int main(int argc, char **argv)
{
    options o = { 0 };
    sim_input in = { 0 };
    gp_frag_mix mix = { 0 }, all = { 0 }, policy_mix = { 0 };
    gp_frag_shape policy_shapes[GP_SCORE_MAX_MIX];
    gp_policy *pol = NULL;
    const char **names = NULL;
    int rc;

    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--replay"))
            return sim_replay_main(argc, argv);
    if (argc > 1 && !strcmp(argv[1], "--summarize"))
        return argc > 2 ? summarize(argc - 2, argv + 2) : die_usage("%s", "--summarize FILE...");
    if ((rc = parse_args(argc, argv, &o)) >= 0)
        return rc;
    in.keep_names = o.placements_path != NULL;
    if ((rc = load_policy(&o, policy_shapes, &policy_mix, &pol)) == 0)
        in.policy = pol;
    if (rc != 0 || (rc = load(&o, &in, &mix, &all)) != 0 ||
        (rc = check_extender(&o, &in)) != 0) {
        sim_mix_free(&mix);
        sim_mix_free(&all);
        gp_policy_unref(pol);
        sim_input_free(&in);
        return rc;
    }
    names = malloc((in.n_nodes ? in.n_nodes : 1) * sizeof(*names));
    for (size_t i = 0; names && i < in.n_nodes; i++)
        names[i] = in.node_names[i];
    size_t n = o.n_scorers * o.n_seeds;
    job *jobs = calloc(n, sizeof(*jobs));
    bool admit_ok;
    uint8_t *admit = admit_classes(&in, &admit_ok);
    sim_cfg base = { .nodes = in.nodes, .n_nodes = in.n_nodes, .tasks = in.tasks,
                     .n_tasks = in.n_tasks, .mix = &mix, .inflate = o.inflate,
                     .ties_random = o.ties_random,
                     .score_mix = o.policy_mix ? &policy_mix : NULL, .learn_mix = o.learn_mix,
                     .pressure_mix = o.policy_mix ? &policy_mix : &all,
                     .seen = in.bound, .n_seen = in.n_bound, .fallback_cpu = o.typical_cpu,
                     .policy = pol, .node_names = names, .models = &in.models,
                     .record = o.placements_path != NULL, .admit = admit,
                     .admission = &in.admit };
    for (size_t i = 0; jobs && i < n; i++) {
        jobs[i].scorer = o.scorers[i / o.n_seeds];
        jobs[i].seed = o.seeds[i % o.n_seeds];
    }
    gp_status st = jobs && names && admit_ok ? run_all(&base, jobs, n, o.jobs, o.level <= GP_LOG_INFO) : GP_ENOMEM;
    if (st) {
        rc = run_failed(jobs, n, st);
    } else if (o.json) {
        for (size_t i = 0; i < n; i++)
            print_json(&o, &in, &jobs[i]);
    } else {
        print_table(&o, &in, jobs);
    }
    if (!st && o.placements_path)
        rc = write_placements(o.placements_path, &in, &jobs[0].res);
    for (size_t i = 0; jobs && i < n; i++)
        sim_result_free(&jobs[i].res);
    free(jobs);
    free(names);
    free(admit);
    gp_policy_unref(pol);
    sim_mix_free(&mix);
    sim_mix_free(&all);
    sim_input_free(&in);
    return rc;
}
