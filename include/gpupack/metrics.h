/* SPDX-License-Identifier: Apache-2.0 */
/* A small Prometheus registry: counters, gauges and histograms with label sets.
 *
 * Series are created on first use and live until gp_metrics_free(). Label sets are passed
 * pre-rendered ("route=\"/mutate\",code=\"200\"", or "" for none; NULL counts as ""); callers
 * only pass label values from a bounded set (routes, status codes, kinds), never user input, and
 * escape them. All calls are thread-safe. GP_METRICS_MAX_SERIES bounds memory: past
 * it, new series are dropped and counted in gpupack_metrics_dropped_series_total, which is always
 * rendered. The first use of a name fixes its kind and # HELP text; using the name later as
 * another kind, an invalid name, or a label set over 512 bytes is dropped and counted the same
 * way. Histograms use GP_METRICS_BUCKETS (seconds), which start well below one millisecond. */
#ifndef GPUPACK_METRICS_H
#define GPUPACK_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "gpupack/status.h"

#define GP_METRICS_MAX_SERIES 1024
#define GP_METRICS_BUCKETS                                                                      \
    { 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25,     \
      0.5, 1.0, 2.5 }

typedef struct gp_metrics gp_metrics;

gp_metrics *gp_metrics_new(void); /* NULL on allocation failure */
void gp_metrics_free(gp_metrics *m); /* NULL is harmless */

/* name: "gpupack_..." (with "_total" for counters); help: the # HELP text. m may be NULL. */
void gp_metrics_add(gp_metrics *m, const char *name, const char *help, const char *labels,
                    uint64_t by);
/* A handle on one counter series for hot paths. gp_metrics_counter() finds or creates the
 * series (a new one renders as 0 from then on, as after gp_metrics_add(..., 0)); gp_counter_add()
 * then adds with one atomic instruction, without a lookup or the registry's lock. The handle is
 * valid as long as m. NULL (m NULL, or the series refused as gp_metrics_add() would) makes
 * gp_counter_add() do nothing. */
typedef struct gp_counter gp_counter;
gp_counter *gp_metrics_counter(gp_metrics *m, const char *name, const char *help,
                               const char *labels);
void gp_counter_add(gp_counter *c, uint64_t by);

/* The same for a histogram series: no lookup per observation (but the registry's lock, which
 * keeps its buckets, count and sum consistent). The series is created with no observations;
 * m must be the registry the handle came from. */
typedef struct gp_histogram gp_histogram;
gp_histogram *gp_metrics_histogram(gp_metrics *m, const char *name, const char *help,
                                   const char *labels);
void gp_histogram_observe(gp_metrics *m, gp_histogram *h, double seconds);

void gp_metrics_set(gp_metrics *m, const char *name, const char *help, const char *labels,
                    double value);
void gp_metrics_observe(gp_metrics *m, const char *name, const char *help, const char *labels,
                        double seconds);

/* Sets the gauge name{labels} to value and removes every other series of that name, so an info
 * metric whose label changes (gpupack_policy_info{digest="..."}) renders only the one in force. */
void gp_metrics_set_only(gp_metrics *m, const char *name, const char *help, const char *labels,
                         double value);

/* Renders the Prometheus text exposition format (version 0.0.4): per name one # HELP and one
 * # TYPE line, then its series in creation order; histograms as cumulative _bucket{...,le="..."}
 * lines ending with le="+Inf", then _sum and _count. Returns a malloc'd string the caller frees
 * and its length in *len (len may be NULL), or NULL on allocation failure or when m is NULL. */
char *gp_metrics_render(gp_metrics *m, size_t *len);

/* The same without the gpupack_metrics_dropped_series_total family, for a registry whose text
 * is served after another registry's (one exposition has each family once); its own drops go
 * into the other registry's count with gp_metrics_count_dropped(m, gp_metrics_dropped(part)). */
char *gp_metrics_render_families(gp_metrics *m, size_t *len);
uint64_t gp_metrics_dropped(gp_metrics *m);      /* 0 when m is NULL */
void gp_metrics_count_dropped(gp_metrics *m, uint64_t n); /* m may be NULL */

#endif
