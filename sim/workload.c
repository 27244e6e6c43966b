/* SPDX-License-Identifier: Apache-2.0 */
/* The replay's workloads (sim/workload.h): jobs at the tasks' own times, or generated. */
#include "workload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"

#define HOUR_SECONDS 3600
#define MAX_TIME_SCALE 1e9
#define MIN_TIME_SCALE 1e-3
#define MAX_HORIZON (INT64_C(100) * 365 * SIM_DAY_SECONDS) /* a century of replay */
#define MAX_FRACTION_DIGITS 18
#define WHERE_LEN 400

/* ---- RFC 3339 ---- */

/* n decimal digits at *p into *out, advancing *p. */
static bool digits(const char **p, int n, int *out)
{
    int v = 0;

    for (int i = 0; i < n; i++) {
        char c = (*p)[i];
        if (c < '0' || c > '9')
            return false;
        v = v * 10 + (c - '0');
    }
    *p += n;
    *out = v;
    return true;
}

static bool expect(const char **p, const char *any)
{
    if (**p == '\0' || strchr(any, **p) == NULL)
        return false;
    (*p)++;
    return true;
}

static bool leap_year(int y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int month_days(int y, int m)
{
    static const int days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    return m == 2 && leap_year(y) ? 29 : days[m - 1];
}

/* Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar (Howard Hinnant's
 * days_from_civil). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

/* The zone at *p as seconds east of UTC: 'Z', 'z' or +hh:mm / -hh:mm. */
static bool zone(const char **p, int64_t *east)
{
    int hh, mm;
    char sign = **p;

    if (expect(p, "Zz")) {
        *east = 0;
        return true;
    }
    if (!expect(p, "+-") || !digits(p, 2, &hh) || !expect(p, ":") || !digits(p, 2, &mm) ||
        hh > 23 || mm > 59)
        return false;
    *east = (sign == '-' ? -1 : 1) * (int64_t)(hh * HOUR_SECONDS + mm * 60);
    return true;
}

bool sim_time_parse(const char *s, int64_t *unix_seconds)
{
    int y, mo, d, h, mi, sec;
    int64_t east;
    const char *p = s;

    if (s == NULL || !digits(&p, 4, &y) || !expect(&p, "-") || !digits(&p, 2, &mo) ||
        !expect(&p, "-") || !digits(&p, 2, &d) || !expect(&p, "Tt ") || !digits(&p, 2, &h) ||
        !expect(&p, ":") || !digits(&p, 2, &mi) || !expect(&p, ":") || !digits(&p, 2, &sec))
        return false;
    if (mo < 1 || mo > 12 || d < 1 || d > month_days(y, mo) || h > 23 || mi > 59 || sec > 60)
        return false;
    if (*p == '.') {
        int n = 0;
        for (p++; *p >= '0' && *p <= '9' && n <= MAX_FRACTION_DIGITS; p++)
            n++;
        if (n == 0 || n > MAX_FRACTION_DIGITS)
            return false;
    }
    if (!zone(&p, &east) || *p != '\0')
        return false;
    *unix_seconds = days_from_civil(y, mo, d) * SIM_DAY_SECONDS + h * HOUR_SECONDS + mi * 60 +
                    sec - east;
    return true;
}

/* ---- Shared ---- */

static gp_status task_error(const sim_input *in, size_t i, const char *what, gp_err *err)
{
    char where[WHERE_LEN];

    sim_input_where(in, i, where, sizeof(where));
    gp_err_set(err, "%s: %s", where, what);
    return GP_EINVAL;
}

/* A time the replay cannot use, or NULL. */
static const char *bad_times(const sim_task_info *t)
{
    if (t->bad_priority)
        return "spec.priority is not a 32-bit integer";
    if (t->created == SIM_TIME_BAD)
        return "its creation time is not a time (want whole seconds >= 0, or RFC 3339)";
    if (t->ended == SIM_TIME_BAD)
        return "its end (deletion time or finishedAt) is not a time (want whole seconds >= 0, "
               "or RFC 3339)";
    if (t->created != SIM_TIME_NONE && t->ended != SIM_TIME_NONE && t->ended < t->created)
        return "it ends before it is created (deletion time < creation time)";
    return NULL;
}

static sim_job job_of(const sim_input *in, size_t i, int64_t arrive, int64_t duration)
{
    return (sim_job){ .arrive = arrive, .duration = duration, .task = in->tasks[i],
                      .priority = in->task_info[i].priority, .owner = in->task_info[i].owner,
                      .src = (uint32_t)i };
}

static int by_arrival(const void *a, const void *b)
{
    const sim_job *x = a, *y = b;

    if (x->arrive != y->arrive)
        return x->arrive < y->arrive ? -1 : 1;
    return x->src < y->src ? -1 : x->src > y->src;
}

/* ---- The tasks' own times ---- */

/* Checks every task's times; the earliest creation into *first. */
static gp_status check_times(const sim_input *in, int64_t *first, gp_err *err)
{
    *first = INT64_MAX;
    for (size_t i = 0; i < in->n_tasks; i++) {
        const sim_task_info *t = &in->task_info[i];
        const char *why = bad_times(t);
        if (why == NULL && t->created == SIM_TIME_NONE)
            why = "it has no creation time (the trace's creation_time column, or "
                  "metadata.creationTimestamp); without times, use the generator";
        if (why)
            return task_error(in, i, why, err);
        if (t->created < *first)
            *first = t->created;
    }
    return GP_OK;
}

gp_status sim_jobs_from_input(const sim_input *in, double time_scale, int64_t open_duration,
                              sim_job **jobs, size_t *n, gp_err *err)
{
    int64_t first;
    gp_status st;

    *jobs = NULL;
    *n = 0;
    if (!(time_scale >= MIN_TIME_SCALE && time_scale <= MAX_TIME_SCALE) || open_duration < 1) {
        gp_err_set(err, "time scale %g: want %g..%g (and an open duration >= 1 s)", time_scale,
                   MIN_TIME_SCALE, MAX_TIME_SCALE);
        return GP_EINVAL;
    }
    if (in->n_tasks > SIM_MAX_TASKS) {
        gp_err_set(err, "more than %d tasks", SIM_MAX_TASKS);
        return GP_ETOOBIG;
    }
    if (in->n_tasks == 0)
        return GP_OK;
    if ((st = check_times(in, &first, err)) != GP_OK)
        return st;
    if ((*jobs = malloc(in->n_tasks * sizeof(**jobs))) == NULL)
        return GP_ENOMEM;
    for (size_t i = 0; i < in->n_tasks; i++) {
        const sim_task_info *t = &in->task_info[i];
        double arrive = (double)(t->created - first) / time_scale;
        int64_t duration = open_duration;
        if (t->ended != SIM_TIME_NONE) {
            double d = (double)(t->ended - t->created) / time_scale;
            duration = (int64_t)d + ((double)(int64_t)d < d);
            duration = duration < 1 ? 1 : duration;
        }
        /* A pod still running ends at the latest time the input shows: bounded too. */
        double last = arrive + (t->ended != SIM_TIME_NONE ? (double)duration : 0);
        if (last > (double)SIM_MAX_OWN_TIME_S) {
            char why[160];
            snprintf(why, sizeof(why), "it %s %.0f days after the first pod's creation (after "
                     "--time-scale); the replay covers at most %lld days",
                     t->ended != SIM_TIME_NONE ? "ends" : "arrives", last / SIM_DAY_SECONDS,
                     (long long)(SIM_MAX_OWN_TIME_S / SIM_DAY_SECONDS));
            free(*jobs);
            *jobs = NULL;
            return task_error(in, i, why, err);
        }
        (*jobs)[i] = job_of(in, i, (int64_t)arrive, duration);
    }
    *n = in->n_tasks;
    qsort(*jobs, *n, sizeof(**jobs), by_arrival);
    return GP_OK;
}

/* ---- The generator ---- */

void sim_workload_profile(const sim_input *in, double profile[24])
{
    size_t count[24] = { 0 }, total = 0;

    for (size_t i = 0; i < in->n_tasks; i++) {
        int64_t c = in->task_info[i].created;
        if (c == SIM_TIME_NONE || c == SIM_TIME_BAD)
            continue;
        int64_t in_day = ((c % SIM_DAY_SECONDS) + SIM_DAY_SECONDS) % SIM_DAY_SECONDS;
        count[in_day / HOUR_SECONDS]++;
        total++;
    }
    for (int h = 0; h < 24; h++)
        profile[h] = total ? (double)count[h] * 24 / (double)total : 1.0;
}

/* The latest time in the input: "now" for a dump's pods still running. */
static int64_t latest_time(const sim_input *in)
{
    int64_t last = SIM_TIME_NONE;

    for (size_t i = 0; i < in->n_tasks; i++) {
        const sim_task_info *t = &in->task_info[i];
        if (t->created > last)
            last = t->created;
        if (t->ended > last)
            last = t->ended;
    }
    return last;
}

/* Each task's duration for the generator (see sim_jobs_generate()), capped. */
static gp_status durations(const sim_input *in, const sim_gen_opts *o, int64_t *dur, gp_err *err)
{
    int64_t now = latest_time(in), horizon = o->warmup + o->span;
    int64_t cap = o->max_duration > 0 && o->max_duration < horizon ? o->max_duration : horizon;

    for (size_t i = 0; i < in->n_tasks; i++) {
        const sim_task_info *t = &in->task_info[i];
        const char *why = bad_times(t);
        int64_t d = o->default_duration;
        if (why)
            return task_error(in, i, why, err);
        if (t->created != SIM_TIME_NONE)
            d = (t->ended != SIM_TIME_NONE ? t->ended : now) - t->created;
        else if (d < 1)
            return task_error(in, i, "it has no times, so no duration to draw (give the "
                              "generator a default duration)", err);
        dur[i] = d < 1 ? 1 : d > cap ? cap : d;
    }
    return GP_OK;
}

/* (1/S) x the integral over [W, W + S) of min(D, t) dt: a job of duration D that arrived at 0,
 * its mean time in use up to t over the window. */
static double window_mean(double d, double w, double s)
{
    if (d <= w)
        return d;
    if (d >= w + s)
        return w + s / 2;
    return ((d * d - w * w) / 2 + d * (w + s - d)) / s;
}

static double task_gpus(const gp_frag_task *t)
{
    return (double)t->num_gpu * t->gpu_milli / GP_FRAG_MILLI;
}

/* M: E[g min(D, t)] averaged over the window, over the tasks (fixed order: the same bits on
 * every machine). */
static double mean_gpu_seconds(const sim_input *in, const int64_t *dur, const sim_gen_opts *o)
{
    double sum = 0;

    for (size_t i = 0; i < in->n_tasks; i++)
        sum += task_gpus(&in->tasks[i]) *
               window_mean((double)dur[i], (double)o->warmup, (double)o->span);
    return sum / (double)in->n_tasks;
}

#define LN2 0.693147180559945309417232121458176568

/* ln(x) for x in (0, 1] from + - * / only (x = m 2^k, m in [1/2, 1); ln m = 2 atanh((m-1)/(m+1))
 * by its series, |z| <= 1/3): the same bits on every IEEE-754 machine, unlike libm's log(). */
static double portable_ln(double x)
{
    int k = 0;
    double z, z2, term, sum = 0;

    while (x < 0.5) {
        x *= 2;
        k++;
    }
    z = (x - 1) / (x + 1);
    z2 = z * z;
    term = z;
    for (int i = 1; i < 48; i += 2) {
        sum += term / i;
        term *= z2;
    }
    return 2 * sum - k * LN2;
}

/* A uniform double in (0, 1]. */
static double uniform01(sim_rng *r)
{
    return (double)((sim_rng_next(r) >> 11) + 1) * 0x1p-53;
}

static gp_status check_opts(const sim_input *in, const sim_gen_opts *o, gp_err *err)
{
    if (!(o->load > 0 && o->load <= 1e6) || !(o->fleet_gpus > 0 && o->fleet_gpus <= 1e9) ||
        o->warmup < 0 || o->span < 1 || o->warmup > MAX_HORIZON - o->span ||
        o->default_duration < 0 || o->max_duration < 0) {
        gp_err_set(err, "generator: want load > 0, fleet GPUs > 0, warmup >= 0 and span >= 1 s "
                   "(together at most a century), default and maximum durations >= 0");
        return GP_EINVAL;
    }
    if (in->n_tasks == 0 || in->n_tasks > SIM_MAX_TASKS) {
        gp_err_set(err, "generator: want 1..%d tasks to draw from, not %zu", SIM_MAX_TASKS,
                   in->n_tasks);
        return GP_EINVAL;
    }
    return GP_OK;
}

/* The arrival process: mean rate, the acceptance thresholds of thinning by hour (out of 2^53)
 * and the rate of the candidates. */
typedef struct {
    double rate, candidates;
    uint64_t accept[24];
} arrivals;

static void set_arrivals(const sim_input *in, double rate, arrivals *a)
{
    double profile[24], top = 0;

    sim_workload_profile(in, profile);
    for (int h = 0; h < 24; h++)
        top = profile[h] > top ? profile[h] : top;
    a->rate = rate;
    a->candidates = rate * top;
    for (int h = 0; h < 24; h++)
        a->accept[h] = (uint64_t)(profile[h] / top * 0x1p53);
}

static gp_status push(sim_job **jobs, size_t *n, size_t *cap, sim_job j, gp_err *err)
{
    if (*n >= SIM_MAX_TASKS) {
        gp_err_set(err, "generator: more than %d jobs; lower the load or the span",
                   SIM_MAX_TASKS);
        return GP_ETOOBIG;
    }
    if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : 1024;
        sim_job *p = realloc(*jobs, c * sizeof(*p));
        if (p == NULL)
            return GP_ENOMEM;
        *jobs = p;
        *cap = c;
    }
    (*jobs)[(*n)++] = j;
    return GP_OK;
}

/* Thinning: candidates at the peak hour's rate, each kept with its hour's share of the peak. */
static gp_status draw(const sim_input *in, const sim_gen_opts *o, const arrivals *a,
                      const int64_t *dur, sim_job **jobs, size_t *n, gp_err *err)
{
    double horizon = (double)(o->warmup + o->span), t = 0;
    size_t cap = 0;
    sim_rng r;
    gp_status st = GP_OK;

    sim_rng_seed(&r, o->seed);
    while (st == GP_OK) {
        t -= portable_ln(uniform01(&r)) / a->candidates;
        if (t >= horizon)
            break;
        int64_t at = (int64_t)t;
        if ((sim_rng_next(&r) >> 11) >= a->accept[(at % SIM_DAY_SECONDS) / HOUR_SECONDS])
            continue;
        size_t i = (size_t)sim_rng_below(&r, in->n_tasks);
        st = push(jobs, n, &cap, job_of(in, i, at, dur[i]), err);
    }
    return st;
}

gp_status sim_jobs_generate(const sim_input *in, const sim_gen_opts *o, sim_job **jobs,
                            size_t *n, sim_gen_info *info, gp_err *err)
{
    int64_t *dur = NULL, horizon = o->warmup + o->span;
    arrivals a;
    double m;
    gp_status st;

    *jobs = NULL;
    *n = 0;
    if ((st = check_opts(in, o, err)) != GP_OK)
        return st;
    if ((dur = malloc(in->n_tasks * sizeof(*dur))) == NULL)
        return GP_ENOMEM;
    if ((st = durations(in, o, dur, err)) != GP_OK)
        goto fail;
    m = mean_gpu_seconds(in, dur, o);
    if (!(m > 0)) {
        gp_err_set(err, "generator: no task asks for a GPU, so no rate makes a GPU load");
        st = GP_EINVAL;
        goto fail;
    }
    set_arrivals(in, o->load * o->fleet_gpus / m, &a);
    if (info)
        *info = (sim_gen_info){ .rate = a.rate, .expected_jobs = a.rate * (double)horizon,
                                .mean_gpus_in = m };
    if (a.rate * (double)horizon > SIM_MAX_TASKS) {
        gp_err_set(err, "generator: about %.0f jobs, more than %d; lower the load or the span",
                   a.rate * (double)horizon, SIM_MAX_TASKS);
        st = GP_ETOOBIG;
        goto fail;
    }
    st = draw(in, o, &a, dur, jobs, n, err);
fail:
    free(dur);
    if (st != GP_OK) {
        free(*jobs);
        *jobs = NULL;
        *n = 0;
    }
    return st;
}
