/* SPDX-License-Identifier: Apache-2.0 */
/* The replay's picture (gpupack-sim --replay --plot FILE.svg|.html, docs/simulation.md): for a
 * person deciding whether gpupack saves money, nodes up and GPUs allocated over time with one
 * line per scorer, and the paper protocol's unallocated-GPU curve when there is one. A pure
 * renderer: plain arrays in, one self-contained SVG 1.1 document (or an HTML5 page holding it
 * inline) out, byte-identical for the same input, nothing loaded from anywhere (no script, font,
 * stylesheet or link), numbers printed with '.' whatever the locale. Names are untrusted text:
 * they are escaped, and bytes that are not UTF-8 become U+FFFD. */
#ifndef GPUPACK_SIM_PLOT_H
#define GPUPACK_SIM_PLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpupack/status.h"
#include "gpupack/strbuf.h"

/* At most this many lines: six colour-blind-safe colours (Okabe and Ito), solid, then dashed. */
#define SIM_PLOT_MAX_SERIES 12
/* The drawing's width in pixels (its viewBox); a line holds at most two points (the lowest and
 * the highest sample) per pixel column of its panel, so at most 2 x SIM_PLOT_WIDTH points. */
#define SIM_PLOT_WIDTH 960

typedef struct {
    const char *scorer;          /* legend name */
    size_t n;                    /* samples at t = i * step_s, i in [0, n) */
    const int32_t *nodes_up;     /* nodes up (ready) at each sample */
    const double *gpus_alloc;    /* GPUs allocated at each sample (whole-GPU units) */
    const double *curve;         /* paper protocol: unallocated GPU % at arrived 0..curve_n-1 %, or NULL */
    int curve_n;
} sim_plot_series;

typedef struct {
    const char *title;           /* e.g. "openb default, load 0.6, 7 days, cluster-autoscaler" */
    int64_t step_s;              /* seconds between samples */
    int64_t start_s;             /* the x axis starts here (samples before it are not drawn: warm-up) */
    const char *subtitle;        /* one line of context or NULL */
} sim_plot_opts;

/* Renders the plot of series[0..n) into out: a standalone SVG document, or with html an HTML5
 * page holding it inline plus a small table of the numbers each line ends at. Pure. Returns
 * GP_EINVAL for no series or bad sizes, GP_ENOMEM. */
/* In detail: the panels are "nodes up" and "GPUs allocated" against time since the replay's
 * start (in days when the drawn span is over 2 days, else hours, minutes or seconds by the same
 * rule), then the curve panel when
 * any series has a curve. A sample that is NaN or infinite is skipped (the line joins its
 * neighbours); negative values are drawn at 0. GP_EINVAL (with err naming what is wrong) also for more than
 * SIM_PLOT_MAX_SERIES series, a NULL scorer name or array, step_s < 1, start_s < 0 or at/after
 * every series' last sample, a curve with curve_n < 1 (or curve_n set without a curve), or a
 * finite value beyond +-1e12. GP_ENOMEM when out failed to grow (out is then in its failed
 * state; what was appended is incomplete). The page is also well-formed XML, so XML tools can
 * check it. */
gp_status sim_plot_render(const sim_plot_series *series, size_t n, const sim_plot_opts *o, bool html,
                          gp_strbuf *out, gp_err *err) GP_WUR;

#endif
