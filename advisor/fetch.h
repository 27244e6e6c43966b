/* SPDX-License-Identifier: Apache-2.0 */
/* Running the advisor's queries (query.h) through gp_prom, and assembling what they return into
 * a gp_adv_data (advise.h) by the spec's "Derived numbers". The assembly is pure: canned
 * gp_prom_result values in, data out, so tests need no HTTP. */
#ifndef GPUPACK_ADVISOR_FETCH_H
#define GPUPACK_ADVISOR_FETCH_H

#include <stdbool.h>
#include <stdio.h>

#include "gpupack/advise.h"
#include "gpupack/prom.h"
#include "query.h"

/* The decoded answers, one per query (NULL: not run). A range query asked in parts holds a
 * series once per part (the assembly keys every sample by its labels and time). */
typedef struct {
    gp_prom_result *r[GP_ADVQ_COUNT];
} gp_adv_results;

typedef struct {
    FILE *out;          /* progress and --show-queries lines (stderr); NULL: none */
    bool show_queries;  /* each query's name, PromQL and time before it runs */
    bool quiet;         /* no progress lines ("query 5/26 activity-p95: 0.42 s, 1520 series") */
} gp_adv_fetch_opts;

/* Runs every query of qs in order, stopping at the first failure: then err reads
 * "activity-p95: <PromQL>: <what gp_prom said>" and the status is gp_prom's. Prometheus's
 * warnings are printed on o->out as they come (and kept in the results for the notes). On any
 * return the caller frees *res with gp_adv_results_free(). */
gp_status gp_adv_fetch(gp_prom *p, const gp_advq_set *qs, const gp_adv_fetch_opts *o,
                       gp_adv_results *res, gp_err *err) GP_WUR;

void gp_adv_results_free(gp_adv_results *res);

/* Builds the data from the results (every one of qs present). GP_ENOTFOUND when Prometheus has
 * nothing to report on, err naming the query, its PromQL and what to enable: no DCGM activity
 * series, or no kube-state-metrics GPU requests. GP_ENOMEM. On GP_OK the caller frees *out with
 * gp_adv_data_free(); otherwise *out is empty. */
gp_status gp_adv_assemble(const gp_policy *pol, const gp_advq_set *qs, const gp_adv_results *res,
                          gp_adv_data *out, gp_err *err) GP_WUR;

/* The resource's profile: "nvidia_com_mig_2g_20gb" → "2g.20gb", "nvidia_com_mig_1g_10gb_me" →
 * "1g.10gb+me", into buf (size n). False when res is not a KSM MIG resource name. */
bool gp_adv_mig_profile_of(const char *res, char *buf, size_t n);

#endif
