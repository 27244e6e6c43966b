/* SPDX-License-Identifier: Apache-2.0 */
/* The advisor's PromQL: the window (steps of R seconds ending at `end`, /work spec "Window and
 * steps") and the fixed list of queries the report runs, one per concern, each aggregated by
 * Prometheus so a result holds about one number per GPU, pod or node: per-step sums and counts
 * are subqueries at the window's steps ([W-1s:R], which evaluates at exactly t_0..t_{steps-1}
 * whether the engine's windows are open or closed on the left). Only activity-hourly,
 * activity-sliced and node-hourly are range queries, at step 1h. MIG requests weigh N/7 by
 * the profile's slices (the policy's migProfiles first, else the <N>g of the name). Pure:
 * policy and window in, text out. docs/advisor.md lists them. */
#ifndef GPUPACK_ADVISOR_QUERY_H
#define GPUPACK_ADVISOR_QUERY_H

#include <stdbool.h>
#include <stddef.h>

#include "gpupack/policy.h"
#include "gpupack/status.h"

#define GP_ADV_MAX_STEPS 11000u /* Prometheus refuses range queries with more points */

/* The window: steps t_k = end - (steps - 1 - k) x step, k = 0..steps-1. */
typedef struct {
    double end;     /* floor(until / step) x step */
    double step;    /* R, seconds */
    size_t steps;   /* ceil(since / step) */
    double window;  /* W = steps x step, seconds */
    size_t nhours;  /* ceil(W / 3600) hour buckets */
    size_t part_steps; /* steps a per-step subquery asks at once (gp_advq.parts); 0: all */
} gp_adv_window;

/* The default part_steps: two days of 5-minute steps. A per-step subquery holds 2 x series x
 * steps samples at once in Prometheus (its --query.max-samples, 50,000,000 by default). */
#define GP_ADV_PART_STEPS 576u

/* The most points an hourly range query asks for at once: a week, so that one answer stays under
 * the decoder's sample cap up to about 30,000 pods (GP_PROM_DEFAULT_MAX_SAMPLES / 168). */
#define GP_ADV_RANGE_POINTS 168u

/* The points an hourly range query asks for at once (gp_prom_config.range_points) under
 * part_steps steps of step seconds: their hours (at least 1, at most GP_ADV_RANGE_POINTS), so
 * that its [1h:step] subqueries, which Prometheus evaluates over the whole range at once, hold
 * no more steps than a per-step query's part; part_steps 0: GP_ADV_RANGE_POINTS. */
size_t gp_adv_range_points(unsigned part_steps, double step);

/* Makes the window from --until (seconds since the epoch), --since and --step (seconds > 0).
 * GP_EINVAL with a message naming --since/--step when steps > GP_ADV_MAX_STEPS, --since when
 * the window has more hours than that (the hourly range queries), or a value out of range. */
gp_status gp_adv_window_make(double until, double since, double step, gp_adv_window *w,
                             gp_err *err) GP_WUR;

/* The step index of time t (a multiple of the step inside the window), or -1. */
long gp_adv_window_step_of(const gp_adv_window *w, double t);
/* The hour bucket of a time t in (end - nhours x 3600, end], or -1. */
long gp_adv_window_hour_of(const gp_adv_window *w, double t);

typedef enum {
    GP_ADVQ_DCGM_PROF = 0, /* which GPUs have DCGM_FI_PROF_GR_ENGINE_ACTIVE */
    GP_ADVQ_DCGM_UTIL,     /* which GPUs have DCGM_FI_DEV_GPU_UTIL */
    GP_ADVQ_ACT_SUM,       /* Σ activity samples per GPU */
    GP_ADVQ_ACT_COUNT,     /* number of activity samples per GPU */
    GP_ADVQ_ACT_P95,       /* 95th percentile of activity per GPU */
    GP_ADVQ_ACT_HOURLY,    /* hourly mean activity per pod (range, step 1h) */
    GP_ADVQ_ACT_SLICED,    /* pods sharing a whole GPU in an hour (range, step 1h) */
    GP_ADVQ_FB_PEAK,       /* peak framebuffer used per GPU */
    GP_ADVQ_POD_REQUESTS,  /* GPU requests per pod and resource (max over the steps) */
    GP_ADVQ_POD_GPU_STEPS, /* Σ over Running steps of the requests per pod and resource */
    GP_ADVQ_POD_RUN_STEPS, /* number of steps each GPU pod was Running */
    GP_ADVQ_POD_END,       /* requests of the pods Running at end */
    GP_ADVQ_POD_START,     /* GPU pods Running at t_0 (instant at t_0) */
    GP_ADVQ_POD_NODE,      /* each GPU pod's node, valued by when it was last seen there */
    GP_ADVQ_POD_OWNER,     /* each GPU pod's controlling owner */
    GP_ADVQ_OWNER_OWNER,   /* ReplicaSets' and Jobs' owners */
    GP_ADVQ_POD_LABELS,    /* GPU pods' labels that matter */
    GP_ADVQ_NODE_ALLOC,    /* GPU nodes' allocatable GPUs and MIG instances (max over W) */
    GP_ADVQ_NODE_LABELS,   /* GPU nodes' instance type, GPU product and spot labels */
    GP_ADVQ_NODE_UP_STEPS, /* steps each GPU node was up */
    GP_ADVQ_NODE_EMPTY_STEPS, /* steps up with nothing allocated */
    GP_ADVQ_NODE_HALF_STEPS,  /* steps up with 0 < allocated < capacity / 2 */
    GP_ADVQ_NODE_HALF_FREE,   /* Σ over those steps of capacity - allocated */
    GP_ADVQ_NODE_UP_END,   /* GPU nodes up at end */
    GP_ADVQ_NODE_ALLOC_END, /* GPU-equivalents allocated per node at end */
    GP_ADVQ_NODE_HOURLY,   /* Σ allocated over each hour bucket's steps (range, step 1h) */
    GP_ADVQ_COUNT
} gp_advq_id;

typedef enum { GP_ADVQ_INSTANT, GP_ADVQ_RANGE } gp_advq_type;

typedef struct {
    const char *name;  /* short name in messages: "activity-p95" */
    gp_advq_type type;
    char *promql;
    double time;       /* GP_ADVQ_INSTANT: evaluated at the window's end (pod-start: t_0) */
    double start, end, step; /* GP_ADVQ_RANGE */
    /* A per-step query (a sum, count or maximum over the window's steps by a subquery) on a
     * window of more than part_steps steps: the same query over consecutive parts of the
     * steps, each at its own time; the answers add up (or take the maximum) to the whole. */
    char **parts;
    double *part_times;
    size_t nparts;
} gp_advq;

/* A label key a query reads from kube-state-metrics, and its sanitised label name there. */
typedef struct {
    char *key;   /* "gpupack.io/class" */
    char *ksm;   /* "label_gpupack_io_class" */
} gp_advq_label;

typedef struct {
    gp_advq q[GP_ADVQ_COUNT];
    gp_adv_window w;
    char **dcgm_by;         /* the labels DCGM series are aggregated by, in "by" order */
    size_t ndcgm_by;
    gp_advq_label *pod_labels; /* read from kube_pod_labels */
    size_t npod_labels;
    gp_advq_label *node_labels; /* read from kube_node_labels: [0] instance type, [1] GPU
                                 * product, then the policy's spot labels */
    size_t nnode_labels;
} gp_advq_set;

#define GP_ADVQ_NODE_LABEL_INSTANCE 0
#define GP_ADVQ_NODE_LABEL_PRODUCT 1

/* The queries for pol's advisor section over window w. GP_ENOMEM; GP_EINVAL when a DCGM label
 * list of the policy is empty. The caller frees *out with gp_advq_set_free(). */
gp_status gp_advq_build(const gp_policy *pol, const gp_adv_window *w, gp_advq_set *out,
                        gp_err *err) GP_WUR;
void gp_advq_set_free(gp_advq_set *s);

/* kube-state-metrics' label name for a Kubernetes label key: "label_" and the key with every
 * byte not [a-zA-Z0-9_] as '_'; into buf (size n). Returns buf. */
char *gp_advq_ksm_label(const char *key, char *buf, size_t n);

/* A duration as PromQL writes it in a selector: whole seconds ("604800s"). */
void gp_advq_duration(double seconds, char *buf, size_t n);

#endif
