/* SPDX-License-Identifier: Apache-2.0 */
/* Private to lib/advise.c and lib/advfind.c: the analysis context shared by the two halves of
 * gp_advise(). Not installed, not part of any contract. */
#ifndef GPUPACK_ADVINT_H
#define GPUPACK_ADVINT_H

#include <stdbool.h>
#include <stddef.h>

#include "gpupack/advise.h"
#include "gpupack/arena.h"

/* What gp_advise() works out per pod before the findings. */
typedef struct {
    const gp_adv_pod *pod;
    gp_workload wl;
    char ref[GP_WORKLOAD_KIND_MAX + GP_WORKLOAD_NAME_MAX + 2]; /* "deployment/ranker" */
    const gp_adv_node *node; /* NULL when unknown */
    double price;            /* $/GPU-equivalent-hour on its node */
    const char *cls;         /* NULL: no class */
    const char *model_key;   /* "" when none */
    const char *gpu_model;   /* "" unknown */
    double coverage;         /* hour buckets with activity */
    double mean, p95, fb_peak, samples; /* over its devs with activity; NaN when none */
    int nactive, nidle;
    bool all_idle, time_sliced;
    bool claimed;            /* in an idle, gpus or mig finding (precedence) */
    double idle_hours, waste; /* its share of idle GPU-hours and wasted dollars */
} adv_pod;

typedef struct {
    const gp_adv_data *d;
    const gp_policy *pol;
    gp_adv_report *out;
    adv_pod *pods;
    gp_arena arena;
    size_t findings_cap, notes_cap, share_cap[5];
    bool oom;
} adv_ctx;

char *adv_strdup(adv_ctx *c, const char *s);
char *adv_printf(adv_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void *adv_grow(adv_ctx *c, void *arr, size_t *cap, size_t n, size_t size);
void adv_note(adv_ctx *c, char *s);
double adv_node_hourly(const gp_policy *pol, const gp_adv_node *n);

/* Appends every finding to c->out (advfind.c). */
void adv_findings(adv_ctx *c);

#endif
