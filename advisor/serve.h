/* SPDX-License-Identifier: Apache-2.0 */
/* `gpupack-advisor serve`: the report's analysis on a schedule (advisor/report.c's
 * gp_adv_analyse()), its recommendations (gpupack/recs.h) written to one ConfigMap or a file
 * (advisor/cmwrite.h), and the cost metrics, served with /healthz, /readyz and /metrics on the
 * daemons' server code. advisor/main.c parses the flags.
 *
 * A failed analysis (Prometheus down, a query refused) keeps the last good result: its metrics
 * stay, the ConfigMap is left as it is, readiness stays 200 once anything succeeded (its body
 * says "stale" and why) and gpupack_advisor_prometheus_up turns 0. A good analysis whose write
 * failed (the API down, RBAC) updates the metrics but is stale too, with the write's error, and
 * counts as an error in gpupack_advisor_analyses_total. Before the first good analysis
 * readiness is 503 with the reason. The --policy file is re-read before each analysis: a
 * changed valid one replaces the policy (a ConfigMap update needs no restart), an invalid one
 * is refused and the last good one stays, as in the daemons (gpupack_policy_* metrics). */
#ifndef GPUPACK_ADVISOR_SERVE_H
#define GPUPACK_ADVISOR_SERVE_H

#include <stdbool.h>
#include <stddef.h>

#include "gpupack/advise.h"
#include "gpupack/kubeconfig.h"
#include "gpupack/metrics.h"
#include "report.h"

typedef struct {
    gp_adv_report_opts report;   /* the analysis (until: set for each run; format unused; pol:
                                  * the policy at start) */
    const char *policy_path;     /* --policy, re-read before each analysis; NULL: embedded */
    const char *policy_digest;   /* the sha256 of report.pol's file */
    double interval;             /* seconds between runs */
    double ttl;                  /* seconds a recommendation stays valid */
    const char *listen;          /* HOST:PORT */
    const char *cm_namespace, *cm_name; /* the ConfigMap, when file is NULL */
    const char *file;            /* --recommendations-file, or NULL */
    const gp_kube_config *kube;  /* the API for the ConfigMap (NULL with a file) */
    size_t top_workloads;        /* workloads with their own waste series */
    size_t max_bytes;            /* the document's bound */
    bool once;                   /* one run, then exit */
    const char *log_level;
} gp_adv_serve_opts;

/* Runs serve until SIGTERM or SIGINT (then exits 0), or one run with once (0 when the analysis
 * and the write succeeded, else 1). 2 when the server cannot start (the message names
 * --listen). A signal ends the wait between runs at once; a run under way gets 10 s to finish,
 * then the process exits without it (_exit: 0, or 1 with once). */
int gp_adv_serve_run(const gp_adv_serve_opts *o);

/* The cost metrics of a report into m (pure apart from m): cost per (namespace, class, model),
 * idle GPUs per (namespace, class), waste $/hour per (namespace, workload, finding) for the top
 * workloads by waste (the rest of each namespace summed as workload="other"), and the
 * recommendations written and dropped. */
void gp_adv_cost_metrics(const gp_adv_report *rep, size_t top_workloads, size_t written,
                         size_t dropped, gp_metrics *m);

#endif
