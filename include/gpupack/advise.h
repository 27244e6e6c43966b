/* SPDX-License-Identifier: Apache-2.0 */
/* The advisor's decisions: from what GPUs did (per pod and per node, already aggregated by
 * Prometheus and gathered by advisor/fetch.c) and the policy, the findings ranked by dollars and
 * the totals. Pure: plain structs in, plain structs out; no socket, file or clock. The report
 * renderers (advisor/render.c, advisor/html.c) only format a gp_adv_report.
 *
 * Units: hours are hours, dollars are dollars (double, rounded to cents only when printed),
 * activity is a ratio 0..1 (DCGM_FI_PROF_GR_ENGINE_ACTIVE, or DCGM_FI_DEV_GPU_UTIL / 100),
 * memory is MiB as dcgm-exporter reports it. A "GPU" in hours and counts is a GPU-equivalent: a
 * MIG slice of profile <N>g.* counts N/7 (gp_score_mig_slices() / 7); its price is that share of
 * its GPU's price.
 *
 * Definitions (docs/advisor.md has them with the PromQL):
 * - the window is `steps` evaluation steps of `step` seconds ending at `end`; a pod or node is
 *   counted at a step when kube-state-metrics shows it there (a Running pod, a present node);
 * - a pod's GPU-hours are the sum over its steps of its GPU requests (MIG weighted) x step;
 * - its dollars are its GPU-hours x the $/GPU-hour of its node (gp_adv_gpu_price());
 * - monthly dollars are window dollars / window hours x GP_ADV_HOURS_PER_MONTH, and 0 for a
 *   workload (or node) absent at the window's end: nothing more to recover there. */
#ifndef GPUPACK_ADVISE_H
#define GPUPACK_ADVISE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpupack/policy.h"
#include "gpupack/status.h"
#include "gpupack/workload.h"

#define GP_ADV_HOURS_PER_MONTH 730.0
#define GP_ADV_HIST_BUCKETS 10
#define GP_ADV_CELL_SEP '\x1f' /* between the parts of a by_cell key */ /* utilization histogram: [0,10%), [10,20%), ... [90,100%] */

/* ---------------------------------------------------------------------------------------------
 * Input: what the fetch gathered. Strings are owned by the data (gp_adv_data_free()). */

/* One GPU (or MIG instance) a pod was seen on by dcgm-exporter, stats over the window. */
typedef struct {
    char *node;       /* Hostname / hostname label */
    char *uuid;       /* UUID */
    char *gpu;        /* the "gpu" index label */
    char *model;      /* modelName as DCGM spells it ("NVIDIA A100-SXM4-80GB") */
    char *mig_profile; /* GPU_I_PROFILE ("2g.20gb"), NULL on a whole GPU */
    bool has_activity; /* activity samples were found */
    bool from_util;    /* activity came from DCGM_FI_DEV_GPU_UTIL (no PROF field) */
    double mean;       /* mean activity 0..1 over its samples */
    double p95;        /* 95th percentile of activity (max over series of the same GPU) */
    double samples;    /* activity samples */
    double fb_peak_mib;  /* max DCGM_FI_DEV_FB_USED; NaN when absent */
    bool time_sliced;  /* another pod was on the same GPU in the same hour */
} gp_adv_gpu;

/* One MIG resource request of a pod. */
typedef struct {
    char *profile;    /* "2g.20gb" */
    double count;     /* instances requested */
} gp_adv_mig_req;

/* One GPU pod seen by kube-state-metrics in the window. */
typedef struct {
    char *namespace, *name;
    char *node;             /* kube_pod_info node, NULL when never scheduled */
    gp_label *labels;       /* label keys as on the pod ("gpupack.io/class"), when allowlisted */
    size_t nlabels;
    char *owner_kind, *owner_name;             /* kube_pod_owner (controller), NULL: none */
    char *owner_owner_kind, *owner_owner_name; /* kube_replicaset_owner / kube_job_owner */
    double gpus;            /* whole nvidia.com/gpu requested */
    gp_adv_mig_req *mig;    /* MIG requests */
    size_t nmig;
    double gpu_hours;       /* GPU-equivalent hours allocated while Running, MIG weighted */
    double run_hours;       /* hours Running in the window */
    bool running_at_end;    /* Running at the window's last step */
    double gpus_at_end;     /* GPU-equivalents requested at the last step (0 when not Running) */
    bool started_in_window; /* its first Running step is after the window's first */
    gp_adv_gpu *devs;       /* the GPUs dcgm-exporter attributed to it */
    size_t ndevs;
    double *hourly;         /* mean activity per hour bucket (nhours of them; NaN: no data) */
} gp_adv_pod;

/* One GPU node seen by kube-state-metrics in the window. */
typedef struct {
    char *name;
    char *instance_type;   /* node.kubernetes.io/instance-type, NULL when not allowlisted */
    char *gpu_product;     /* nvidia.com/gpu.product, else DCGM modelName with '-' for ' ' */
    bool spot;             /* a spot label of the policy is on it */
    double gpus;           /* whole nvidia.com/gpu allocatable (max over the window) */
    gp_adv_mig_req *mig;   /* MIG allocatable per profile */
    size_t nmig;
    double up_hours;       /* hours present */
    double empty_hours;    /* hours present with no GPU allocated */
    double half_hours;     /* hours present, some but under half of its GPUs allocated */
    double half_free_gpu_hours; /* unallocated GPU-equivalent hours during half_hours */
    bool up_at_end;
    double alloc_at_end;   /* GPU-equivalents allocated at the last step (0 when not up) */
    double *hourly_alloc;  /* GPU-equivalents allocated per hour bucket (mean), nhours */
} gp_adv_node;

typedef struct {
    double end;            /* the window's last step, seconds since the epoch */
    double step;           /* seconds between steps */
    double hours;          /* window length in hours (steps x step / 3600) */
    size_t nhours;         /* hour buckets of the hourly series: bucket i covers
                            * (end - (nhours - i) x 3600, end - (nhours - i - 1) x 3600] */
    gp_adv_pod *pods;
    size_t npods;
    gp_adv_node *nodes;
    size_t nnodes;
    char **notes;          /* what the fetch noticed (absent metrics, missing labels, ...) */
    size_t nnotes;
    char *activity_metric; /* the metric activity came from, for the report */
    double unattributed_gpus; /* DCGM GPUs with activity but no pod label (mean count) */
} gp_adv_data;

/* Frees everything in d (not d itself). */
void gp_adv_data_free(gp_adv_data *d);

/* The $/hour of one GPU-equivalent on a node: the policy's price for its instance type divided
 * by its GPU-equivalents, else its GPU product's price, else the policy's default; spot prices
 * on spot nodes. The same table and rules as the extender's cost (score.c). */
double gp_adv_gpu_price(const gp_policy *pol, const gp_adv_node *n);

/* ---------------------------------------------------------------------------------------------
 * Output. */

typedef enum {
    GP_ADV_IDLE = 0, /* allocated GPUs doing (almost) nothing: release or scale to zero */
    GP_ADV_MIG,      /* a whole GPU where a MIG slice would do */
    GP_ADV_GPUS,     /* a multi-GPU pod with some GPUs idle */
    GP_ADV_MODEL,    /* a cheaper GPU model would do */
    GP_ADV_NODE,     /* a GPU node empty or under half allocated */
    GP_ADV_RUNAWAY,  /* a job running far longer than its earlier runs, or idle while running */
    GP_ADV_KINDS
} gp_adv_kind;

/* The JSON spelling: "idle", "mig", "gpus", "model", "node", "runaway". */
const char *gp_adv_kind_name(gp_adv_kind k);

typedef struct {
    gp_adv_kind kind;
    char *namespace;      /* "" for node findings */
    char *workload;       /* "deployment/ranker", "node/gpu-7" */
    char *workload_kind, *workload_name;
    char *class_name;     /* "" when none */
    char *model_key;      /* the policy's model label value, "" when none */
    char *gpu_model;      /* the GPU product it ran on, "" unknown */
    int pods;             /* pods of the workload it covers */
    double hours;         /* the GPU-hours wasted, those its dollars price (the idle GPUs' hours,
                           * or the share a MIG slice or fewer GPUs would give back); node-hours
                           * for node findings; the hours burned past the expected for runaway */
    double dollars;       /* $ wasted over the window */
    double monthly;       /* $/month at the current rate (0 when it ended) */
    double per_hour;      /* $/hour now (runaway: what each further hour costs) */
    /* Evidence. */
    double mean, p95;     /* activity, 0..1; NaN when not applicable */
    double fb_peak_mib;   /* NaN when not applicable */
    double samples;
    double coverage_hours; /* hours with utilization data behind the finding */
    bool low_confidence;  /* coverage under the policy's minimum */
    bool time_sliced;
    int gpus, gpus_idle;  /* per pod, for GP_ADV_GPUS */
    char *mig_profile;    /* GP_ADV_MIG: the profile; NULL otherwise */
    char *gpu_memory;     /* GP_ADV_MIG: the gpupack.io/gpu-memory value ("11Gi") */
    char *to_model;       /* GP_ADV_MODEL: the cheaper product */
    char *recommendation; /* the exact change, one line */
    char *evidence;       /* one line a person reads */
} gp_adv_finding;

/* A total broken down by one key (namespace, class, model, GPU model). */
typedef struct {
    char *key;            /* "" for none */
    double gpu_hours, dollars, idle_gpu_hours, waste_dollars;
    double dollars_per_hour_at_end; /* what the GPUs allocated at the window's last step cost an
                                     * hour */
} gp_adv_share;

typedef struct {
    double window_hours;
    double gpu_hours;         /* allocated GPU-equivalent hours */
    double active_gpu_hours;  /* GPU-hours x mean activity */
    double idle_gpu_hours;    /* in idle findings and the idle GPUs of multi-GPU pods */
    double idle_pct;          /* idle_gpu_hours / gpu_hours x 100 */
    double dollars;           /* allocated GPU cost over the window */
    double node_dollars;      /* cost of the GPU nodes up over the window */
    double waste_dollars;     /* sum of findings' dollars (runaway excluded: counted elsewhere) */
    double recoverable_monthly; /* sum of findings' monthly (runaway excluded) */
    int pods, pods_without_dcgm;
    double gpu_hours_without_dcgm;
    gp_adv_share *by_namespace, *by_class, *by_model, *by_gpu_model;
    size_t nby_namespace, nby_class, nby_model, nby_gpu_model; /* sorted by dollars, descending */
    gp_adv_share *by_cell;    /* by namespace, class and model together: key "ns\x1fclass\x1fmodel"
                               * (GP_ADV_CELL_SEP between); for the advisor's metrics */
    size_t nby_cell;
    double hist[GP_ADV_HIST_BUCKETS]; /* GPU-hours by mean activity bucket */
    double *idle_hourly;      /* idle GPU-equivalents per hour bucket (nhours) */
    double *alloc_hourly;     /* allocated GPU-equivalents per hour bucket (nhours) */
    size_t nhours;
} gp_adv_totals;

typedef struct {
    double start, end, step;  /* the window */
    char *activity_metric;
    gp_adv_finding *findings; /* sorted by dollars (then monthly, kind, namespace, workload) */
    size_t nfindings;
    gp_adv_totals totals;
    char **notes;             /* copied from the data, plus what the analysis noticed */
    size_t nnotes;
} gp_adv_report;

/* Analyses d under pol: the findings, the totals and the notes. On GP_OK the caller frees *out
 * with gp_adv_report_free(). GP_ENOMEM; GP_EINVAL with err when d is inconsistent (a pod's
 * hourly series longer than the window, a negative hour count). */
gp_status gp_advise(const gp_adv_data *d, const gp_policy *pol, gp_adv_report *out,
                    gp_err *err) GP_WUR;

/* Frees everything in r (not r itself). */
void gp_adv_report_free(gp_adv_report *r);

#endif
