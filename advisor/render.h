/* SPDX-License-Identifier: Apache-2.0 */
/* The advisor's report renderers: a gp_adv_report (advise.h) as a terminal table, one JSON
 * document (schema "gpupack.io/advisor-report/v1", docs/advisor.md), Markdown to paste into a
 * pull request or an issue, or one self-contained HTML page with inline SVG charts. They only
 * format: no I/O, no clock, no policy. Every string from the report (namespaces, workload names,
 * notes) is untrusted text: each format escapes it, and bytes that are not UTF-8 become U+FFFD. */
#ifndef GPUPACK_ADVISOR_RENDER_H
#define GPUPACK_ADVISOR_RENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpupack/advise.h"
#include "gpupack/status.h"
#include "gpupack/strbuf.h"

typedef enum {
    GP_ADV_FMT_TABLE,
    GP_ADV_FMT_JSON,
    GP_ADV_FMT_MARKDOWN,
    GP_ADV_FMT_HTML
} gp_adv_format;

/* The JSON document's "schema": a consumer checks it; fields are only ever added under it. */
#define GP_ADV_SCHEMA "gpupack.io/advisor-report/v1"
/* The table's width: no line of it is longer (in code points). */
#define GP_ADV_TABLE_COLS 100

/* Parses "table", "json", "markdown", "html"; false otherwise. */
bool gp_adv_format_parse(const char *s, gp_adv_format *out);

/* Renders r in format f, at most top findings (0: all), appending to out. GP_EINVAL with err on
 * an unknown format, GP_ENOMEM when out failed to grow (out is then in its failed state). */
gp_status gp_adv_render(const gp_adv_report *r, gp_adv_format f, size_t top, gp_strbuf *out,
                        gp_err *err) GP_WUR;

/* ---------------------------------------------------------------------------------------------
 * Shared by the renderers (render.c, html.c, svg.c); not for other callers. */

/* The HTML page (html.c): what gp_adv_render() does for GP_ADV_FMT_HTML. */
void gp_adv_render_html(const gp_adv_report *r, size_t top, gp_strbuf *out);


/* v with decimals digits after the point and thousands separators ("1,310.42"); "n/a" for NaN
 * or an infinity. */
void gp_adv_put_num(gp_strbuf *b, double v, int decimals);

/* Dollars with cents and thousands separators ("$1,310.42", "-$3.10"); "n/a" when not finite. */
void gp_adv_put_dollars(gp_strbuf *b, double v);

/* Seconds since the epoch as RFC 3339 UTC ("2026-12-04T16:00:00Z"); "n/a" when out of range. */
void gp_adv_put_time(gp_strbuf *b, double t);

/* A step or a length of time as people write it: "5m", "1h", "90s". */
void gp_adv_put_duration(gp_strbuf *b, double seconds);
/* "START to END (H h, step S)": the report's window, as the Markdown and HTML headers say it. */
void gp_adv_put_window(gp_strbuf *b, const gp_adv_report *r);

/* The kind as the JSON spells it ("idle", "mig", ...), "unknown" out of range. */
const char *gp_adv_kind_str(gp_adv_kind k);

/* s with & < > " ' as character references and invalid UTF-8 and control characters (but tab
 * and newline) as U+FFFD; NULL as nothing. */
void gp_adv_put_html(gp_strbuf *b, const char *s);

/* One bar of a bar chart. */
typedef struct {
    const char *label; /* untrusted text, escaped */
    double value;      /* the bar; NaN or negative counts as 0 */
    double part;       /* a darker part of the bar drawn over it (waste of a cost); NaN: none */
} gp_adv_bar;

/* A horizontal bar chart as inline SVG: title, the unit of the values for the axis ("$" prints
 * dollars, anything else a number and the unit), the part's legend (NULL: no parts). An empty or
 * all-zero chart says "no data". */
void gp_adv_svg_hbars(gp_strbuf *b, const char *title, const char *unit, const char *part_legend,
                      const gp_adv_bar *bars, size_t n);

/* A vertical bar chart with one label under each bar: the utilization histogram. */
void gp_adv_svg_vbars(gp_strbuf *b, const char *title, const char *xlabel, const char *ylabel,
                      const gp_adv_bar *bars, size_t n);

/* Two series over hour buckets as areas (a, the larger, behind b) with a time axis: bucket i
 * ends at end - (n - 1 - i) x 3600. NaN values are drawn as 0. */
void gp_adv_svg_area(gp_strbuf *b, const char *title, const char *ylabel, const char *a_legend,
                     const double *a, const char *b_legend, const double *bv, size_t n, double end);

#endif
