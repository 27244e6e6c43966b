/* SPDX-License-Identifier: Apache-2.0 */
/* The report subcommand's run (advisor/main.c parses the flags): the window, the queries through
 * Prometheus, the assembly, gp_advise(), a renderer, and the output written atomically. Also the
 * parsers of its flag values, pure and unit-tested. */
#ifndef GPUPACK_ADVISOR_REPORT_H
#define GPUPACK_ADVISOR_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "gpupack/kubeconfig.h"
#include "gpupack/policy.h"
#include "gpupack/prom.h"
#include "gpupack/status.h"
#include "render.h"


/* RFC 3339 ("2026-12-04T16:00:00Z", "...+02:00", fractions allowed) or unix seconds. */
gp_status gp_adv_parse_time(const char *s, double *t) GP_WUR;

typedef struct {
    const gp_prom_config *prom;
    const gp_policy *pol;
    double until, since, step;  /* seconds; until since the epoch */
    unsigned query_steps;       /* the window's part_steps (query.h); 0: no parts */
    gp_adv_format format;
    size_t top;                 /* 0: all */
    const char *output;         /* NULL: stdout */
    bool show_queries, quiet;
    FILE *log;                  /* progress, warnings and errors (stderr) */
    /* What fills in what kube-state-metrics did not export (advisor/kubefill.h): `kubectl get
     * -o json` files, and the API when kube is non-NULL. */
    const char *const *snapshots;
    size_t nsnapshots;
    const gp_kube_config *kube;
} gp_adv_report_opts;

/* gp_adv_analyse()'s status when Prometheus answered but the Kubernetes API (o->kube) failed
 * while filling in (gp_adv_report_run() exits 1 for it). */
#define GP_ADV_RC_KUBE 3

/* One analysis (the window ending at o->until, the queries, the assembly, the fill-in,
 * gp_advise()) into *rep, which the caller frees with gp_adv_report_free() whatever the result.
 * Returns 0, GP_ADV_RC_KUBE, or an exit status as gp_adv_report_run() does after its message on
 * o->log. */
int gp_adv_analyse(const gp_adv_report_opts *o, gp_adv_report *rep);

/* Runs a report; returns the exit status: 0 written, 1 Prometheus could not answer (or the
 * analysis or the output failed), 2 a bad window (the message names --since/--step). Every
 * failure is one line "gpupack-advisor: ..." on o->log. */
int gp_adv_report_run(const gp_adv_report_opts *o);

/* Writes len bytes to path atomically: a temporary file in the same directory, then rename. */
gp_status gp_adv_write_atomic(const char *path, const char *data, size_t len, gp_err *err) GP_WUR;

#endif
