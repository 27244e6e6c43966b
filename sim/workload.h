/* SPDX-License-Identifier: Apache-2.0 */
/* The replay's workloads (docs/simulation.md, "The replay"): sim_job arrays (sim/job.h) from the
 * tasks' own times (the trace's creation and deletion times, or a `kubectl get pods -o json`
 * dump's timestamps), or from a seeded generator that draws the trace's rows at a rate set for a
 * target GPU load, with the trace's daily cycle. Pure: reads a loaded sim_input (sim/load.h),
 * touches no file or clock; the arrays returned are malloc'd and the caller frees them. Every
 * array is sorted by arrive, ties in input (or generation) order. */
#ifndef GPUPACK_SIM_WORKLOAD_H
#define GPUPACK_SIM_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpupack/status.h"
#include "job.h"
#include "load.h"

#define SIM_DAY_SECONDS 86400

/* Parses an RFC 3339 time ("2024-05-01T12:00:00Z", "...T14:00:00+02:00", fractional seconds
 * allowed and dropped, 't'/'z' or a space as in RFC 3339 5.6's note) into Unix seconds, with
 * the calendar's own arithmetic (no locale, no time zone database). False when s is not one. */
bool sim_time_parse(const char *s, int64_t *unix_seconds);

/* The jobs of in's tasks at their own times: arrive = (created - the earliest created) /
 * time_scale, rounded down; duration = (ended - created) / time_scale rounded up, at least 1 s;
 * a task with no end (still running) gets open_duration (> 0; e.g. past the replay's end).
 * time_scale > 0 (100 makes the trace's 149 days about 1.5 days). GP_EINVAL with err naming the
 * task (sim_input_where()) for a task with no or an unreadable creation time, an unreadable end
 * or spec.priority, an end before its creation, or an arrival or end (after time_scale) more
 * than SIM_MAX_OWN_TIME_S after the earliest creation; GP_ETOOBIG above SIM_MAX_TASKS. *jobs is
 * NULL when *n is 0. */
/* The latest a task at its own times may arrive or end, after time_scale, counted from the
 * earliest creation: 10 years. The replay scans the pools every few seconds of simulated time
 * until the last pod leaves, so a row that says a pod lasts 3,000 years would keep it scanning
 * for hours; the trace itself spans 149 days. */
#define SIM_MAX_OWN_TIME_S (INT64_C(3650) * 86400)

gp_status sim_jobs_from_input(const sim_input *in, double time_scale, int64_t open_duration,
                              sim_job **jobs, size_t *n, gp_err *err) GP_WUR;

/* The trace's daily cycle: in's tasks counted by hour of day of their creation time (seconds
 * modulo a day, so UTC for a dump), normalised to a mean of 1; flat (every hour 1) when no task
 * has a creation time. Tasks without one are left out. */
void sim_workload_profile(const sim_input *in, double profile[24]);

typedef struct {
    uint64_t seed;
    double load;            /* the target mean GPU load, a fraction of fleet_gpus, > 0 */
    double fleet_gpus;      /* the GPUs of the pools at their maximum, > 0 */
    int64_t warmup, span;   /* seconds: arrivals in [0, warmup + span); load measured from warmup */
    int64_t default_duration; /* for tasks with no times (a CSV without them); 0: refuse them */
    int64_t max_duration;   /* the cap on durations; 0: warmup + span. At most warmup makes the
                             * expected load flat over the window (every job is whole by then) */
} sim_gen_opts;

/* What the generator computed (for messages and tests). */
typedef struct {
    double rate;            /* mean arrivals a second */
    double expected_jobs;   /* rate x (warmup + span) */
    double mean_gpus_in;    /* E[g min(D, t)] averaged over the window, GPU-seconds a job */
} sim_gen_info;

/* A seeded synthetic workload from in's tasks: each job is a task drawn uniformly (so shapes come
 * as often as in the input) with its own duration (ended - created, 0 -> 1 s; a task still
 * running: its age at the latest time in the input; no times: default_duration), its priority
 * and owner; durations capped at max_duration. Arrivals: a Poisson process whose rate follows
 * sim_workload_profile() by hour of day (thinning), from 0 to warmup + span. Its mean rate is
 * load x fleet_gpus / M, where M is the mean over the window [warmup, warmup + span) of
 * E[g min(D, t)] over the tasks (g = num_gpu x gpu_milli / 1000): the expected GPUs in use at t
 * of a steady process started at 0 (the daily cycle averages out over whole days). With the
 * trace's long jobs and a cap past the warmup, the load climbs through the window (at 0.6 of
 * 6212 GPUs, a day's warmup and a week: about 0.64 of the target on its first day, 1.3 on its
 * last); a cap at most the warmup keeps it flat. The same
 * seed gives the same jobs on every machine (sim/rng.h, no libm). GP_EINVAL for bad options or
 * a task whose duration cannot be known (named), or when no task asks for a GPU; GP_ETOOBIG when
 * the jobs would exceed SIM_MAX_TASKS. info may be NULL. */
gp_status sim_jobs_generate(const sim_input *in, const sim_gen_opts *o, sim_job **jobs,
                            size_t *n, sim_gen_info *info, gp_err *err) GP_WUR;

#endif
