/* SPDX-License-Identifier: Apache-2.0 */
/* The advisor's report as one self-contained HTML page: inline CSS, inline SVG charts (svg.c),
 * no script, no font, no image and no URL, and a Content-Security-Policy that forbids loading
 * anything should a name ever slip through. Every string from the report is escaped. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "render.h"

#define MAX_BARS 10 /* bars per share chart; the rest are summed into one "others" bar */

static const char page_head[] =
    "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
    "style-src 'unsafe-inline'\">\n"
    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";

static const char page_style[] =
    "<style>\n"
    "body{font-family:system-ui,sans-serif;margin:24px;color:#222;background:#fff}\n"
    "h1{font-size:28px;margin:0 0 4px}h2{font-size:20px;margin:28px 0 8px}\n"
    ".window{color:#555;margin:0 0 16px}\n"
    ".totals{display:flex;flex-wrap:wrap;gap:12px}\n"
    ".card{border:1px solid #ddd;border-radius:6px;padding:10px 14px;min-width:150px}\n"
    ".card .v{font-size:20px;font-weight:bold}.card .k{color:#555;font-size:13px}\n"
    ".charts{display:flex;flex-wrap:wrap;gap:16px;align-items:flex-start}\n"
    "svg.chart{border:1px solid #eee;border-radius:6px;max-width:100%;height:auto}\n"
    "table{border-collapse:collapse;font-size:13px;width:100%}\n"
    "th,td{border:1px solid #ddd;padding:4px 8px;vertical-align:top;text-align:left}\n"
    "th{background:#f4f4f4}td.num{text-align:right;white-space:nowrap}\n"
    ".low{background:#fff3cd;color:#7a5d00;border-radius:3px;padding:0 4px;font-size:11px}\n"
    ".kind{font-weight:bold}.rec{font-family:ui-monospace,monospace;min-width:190px}\n"
    "td.ev{min-width:230px}td.workload{min-width:130px;overflow-wrap:anywhere}\n"
    ".ev{color:#444}.ev dl{margin:4px 0 0;display:grid;grid-template-columns:auto auto;gap:0 8px}\n"
    ".ev dt{color:#777}.ev dd{margin:0}\n"
    "footer{color:#777;font-size:12px;margin-top:24px}\n"
    "</style>\n</head>\n<body>\n";

/* ---------------------------------------------------------------------------------------------
 * Header and totals. */

static void put_headline(gp_strbuf *b, const gp_adv_report *r)
{
    gp_adv_put_dollars(b, r->totals.recoverable_monthly);
    gp_strbuf_puts(b, "/month recoverable");
}

static void html_header(gp_strbuf *b, const gp_adv_report *r)
{
    gp_strbuf_puts(b, "<title>gpupack-advisor: ");
    put_headline(b, r);
    gp_strbuf_puts(b, "</title>\n");
    gp_strbuf_puts(b, page_style);
    gp_strbuf_puts(b, "<header>\n<h1 id=\"headline\">");
    put_headline(b, r);
    gp_strbuf_puts(b, "</h1>\n<p class=\"window\">Window ");
    gp_adv_put_window(b, r);
    gp_strbuf_puts(b, ", activity from <code>");
    gp_adv_put_html(b, r->activity_metric ? r->activity_metric : "n/a");
    gp_strbuf_puts(b, "</code></p>\n</header>\n");
}

static void card_open(gp_strbuf *b, const char *id)
{
    gp_strbuf_printf(b, "<div class=\"card\" id=\"%s\"><div class=\"v\">", id);
}

static void card_close(gp_strbuf *b, const char *label)
{
    gp_strbuf_printf(b, "</div><div class=\"k\">%s</div></div>\n", label);
}

static void card_dollars(gp_strbuf *b, const char *id, double v, const char *label)
{
    card_open(b, id);
    gp_adv_put_dollars(b, v);
    card_close(b, label);
}

static void card_num(gp_strbuf *b, const char *id, double v, const char *label)
{
    card_open(b, id);
    gp_adv_put_num(b, v, 2);
    card_close(b, label);
}

static void html_totals(gp_strbuf *b, const gp_adv_totals *t)
{
    gp_strbuf_puts(b, "<section>\n<h2>Totals</h2>\n<div class=\"totals\">\n");
    card_dollars(b, "recoverable", t->recoverable_monthly, "recoverable per month");
    card_dollars(b, "waste", t->waste_dollars, "wasted over the window (in findings)");
    card_dollars(b, "cost", t->dollars, "allocated GPU cost over the window");
    card_dollars(b, "node-cost", t->node_dollars, "GPU node cost over the window");
    card_num(b, "gpu-hours", t->gpu_hours, "GPU-hours allocated");
    card_num(b, "active-hours", t->active_gpu_hours, "GPU-hours active");
    card_open(b, "idle-hours");
    gp_adv_put_num(b, t->idle_gpu_hours, 2);
    gp_strbuf_puts(b, " (");
    gp_adv_put_num(b, t->idle_pct, 1);
    gp_strbuf_puts(b, "%)");
    card_close(b, "GPU-hours idle");
    card_open(b, "pods");
    gp_strbuf_printf(b, "%d", t->pods);
    gp_strbuf_printf(b, "</div><div class=\"k\">GPU pods, %d without DCGM data</div></div>\n",
                     t->pods_without_dcgm);
    gp_strbuf_puts(b, "</div>\n</section>\n");
}

/* ---------------------------------------------------------------------------------------------
 * Charts. */

/* The share chart: the MAX_BARS largest by dollars, then one bar for the rest. */
static void share_chart(gp_strbuf *b, const char *title, const gp_adv_share *s, size_t n)
{
    gp_adv_bar bars[MAX_BARS + 1];
    char other[64];
    size_t nb = 0;

    for (size_t i = 0; i < n && i < MAX_BARS; i++, nb++)
        bars[nb] = (gp_adv_bar){ s[i].key && *s[i].key ? s[i].key : "(none)", s[i].dollars,
                                 s[i].waste_dollars };
    if (n > MAX_BARS) {
        bars[nb] = (gp_adv_bar){ other, 0, 0 };
        snprintf(other, sizeof other, "(%zu others)", n - MAX_BARS);
        for (size_t i = MAX_BARS; i < n; i++) {
            bars[nb].value += isfinite(s[i].dollars) ? s[i].dollars : 0;
            bars[nb].part += isfinite(s[i].waste_dollars) ? s[i].waste_dollars : 0;
        }
        nb++;
    }
    gp_adv_svg_hbars(b, title, "$", "waste in findings", bars, nb);
}

static void histogram_chart(gp_strbuf *b, const gp_adv_totals *t)
{
    static const char *const labels[GP_ADV_HIST_BUCKETS] = {
        "0-10%", "10-20%", "20-30%", "30-40%", "40-50%",
        "50-60%", "60-70%", "70-80%", "80-90%", "90-100%"
    };
    gp_adv_bar bars[GP_ADV_HIST_BUCKETS];

    for (size_t i = 0; i < GP_ADV_HIST_BUCKETS; i++)
        bars[i] = (gp_adv_bar){ labels[i], t->hist[i], NAN };
    gp_adv_svg_vbars(b, "Allocated GPU-hours by mean GPU activity", "mean GPU activity",
                     "GPU-hours", bars, GP_ADV_HIST_BUCKETS);
}

static void html_charts(gp_strbuf *b, const gp_adv_report *r)
{
    const gp_adv_totals *t = &r->totals;

    gp_strbuf_puts(b, "<section>\n<h2>Where the money goes</h2>\n<div class=\"charts\">\n");
    share_chart(b, "GPU cost by namespace", t->by_namespace, t->nby_namespace);
    share_chart(b, "GPU cost by model", t->by_model, t->nby_model);
    share_chart(b, "GPU cost by GPU model", t->by_gpu_model, t->nby_gpu_model);
    histogram_chart(b, t);
    gp_adv_svg_area(b, "Allocated and idle GPUs over time", "GPU-equivalents", "allocated",
                    t->alloc_hourly, "idle", t->idle_hourly, t->nhours, r->end);
    gp_strbuf_puts(b, "</div>\n</section>\n");
}

/* ---------------------------------------------------------------------------------------------
 * Findings. */

static void ev_item(gp_strbuf *b, const char *name)
{
    gp_strbuf_printf(b, "<dt>%s</dt><dd>", name);
}

static void ev_pct(gp_strbuf *b, const char *name, double v)
{
    if (!isfinite(v))
        return;
    ev_item(b, name);
    gp_adv_put_num(b, v * 100, 1);
    gp_strbuf_puts(b, "%</dd>");
}

static void ev_num(gp_strbuf *b, const char *name, double v, int decimals)
{
    if (!isfinite(v))
        return;
    ev_item(b, name);
    gp_adv_put_num(b, v, decimals);
    gp_strbuf_puts(b, "</dd>");
}

static void ev_str(gp_strbuf *b, const char *name, const char *v)
{
    if (!v || !*v)
        return;
    ev_item(b, name);
    gp_adv_put_html(b, v);
    gp_strbuf_puts(b, "</dd>");
}

static void html_evidence(gp_strbuf *b, const gp_adv_finding *f)
{
    gp_strbuf_puts(b, "<td class=\"ev\">");
    gp_adv_put_html(b, f->evidence);
    gp_strbuf_puts(b, "<dl>");
    ev_pct(b, "mean activity", f->mean);
    ev_pct(b, "p95 activity", f->p95);
    ev_num(b, "memory peak MiB", f->fb_peak_mib, 0);
    if (f->samples > 0)
        ev_num(b, "samples", f->samples, 0);
    if (f->coverage_hours > 0 || f->low_confidence)
        ev_num(b, "hours of data", f->coverage_hours, 2);
    ev_str(b, "class", f->class_name);
    ev_str(b, "model", f->model_key);
    ev_str(b, "GPU", f->gpu_model);
    ev_str(b, "MIG profile", f->kind == GP_ADV_MIG ? f->mig_profile : NULL);
    ev_str(b, "to model", f->kind == GP_ADV_MODEL ? f->to_model : NULL);
    if (f->kind == GP_ADV_GPUS)
        gp_strbuf_printf(b, "<dt>idle GPUs</dt><dd>%d of %d</dd>", f->gpus_idle, f->gpus);
    if (f->time_sliced)
        gp_strbuf_puts(b, "<dt>time-sliced</dt><dd>yes</dd>");
    gp_strbuf_puts(b, "</dl></td>");
}

static void td_dollars(gp_strbuf *b, double v)
{
    gp_strbuf_puts(b, "<td class=\"num\">");
    gp_adv_put_dollars(b, v);
    gp_strbuf_puts(b, "</td>");
}

static void html_finding(gp_strbuf *b, const gp_adv_finding *f, size_t rank)
{
    gp_strbuf_printf(b, "<tr id=\"finding-%zu\"><td class=\"num\">%zu</td><td class=\"kind\">%s",
                     rank, rank, gp_adv_kind_str(f->kind));
    if (f->low_confidence)
        gp_strbuf_puts(b, " <span class=\"low\">low confidence</span>");
    gp_strbuf_puts(b, "</td><td class=\"ns\">");
    gp_adv_put_html(b, f->namespace);
    gp_strbuf_puts(b, "</td><td class=\"workload\">");
    gp_adv_put_html(b, f->workload);
    gp_strbuf_printf(b, "</td><td class=\"num\">%d</td><td class=\"num\">", f->pods);
    gp_adv_put_num(b, f->hours, 2);
    gp_strbuf_puts(b, "</td>");
    td_dollars(b, f->dollars);
    td_dollars(b, f->monthly);
    td_dollars(b, f->per_hour);
    gp_strbuf_puts(b, "<td class=\"rec\">");
    gp_adv_put_html(b, f->recommendation);
    gp_strbuf_puts(b, "</td>");
    html_evidence(b, f);
    gp_strbuf_puts(b, "</tr>\n");
}

static void html_findings(gp_strbuf *b, const gp_adv_report *r, size_t n)
{
    if (n < r->nfindings)
        gp_strbuf_printf(b, "<section>\n<h2>Top %zu of %zu findings</h2>\n", n, r->nfindings);
    else
        gp_strbuf_printf(b, "<section>\n<h2>Findings (%zu)</h2>\n", n);
    if (n == 0) {
        gp_strbuf_puts(b, "<p id=\"no-findings\">No findings: every allocated GPU in the window "
                          "was busy enough.</p>\n</section>\n");
        return;
    }
    gp_strbuf_puts(b, "<table id=\"findings\">\n<thead><tr><th>#</th><th>Kind</th>"
                      "<th>Namespace</th><th>Workload</th><th>Pods</th><th>Hours</th>"
                      "<th>$ window</th><th>$/month</th><th>$/hour now</th>"
                      "<th>Recommendation</th><th>Evidence</th></tr></thead>\n<tbody>\n");
    for (size_t i = 0; i < n; i++)
        html_finding(b, &r->findings[i], i + 1);
    gp_strbuf_puts(b, "</tbody>\n</table>\n</section>\n");
}

static void html_notes(gp_strbuf *b, const gp_adv_report *r)
{
    if (r->nnotes == 0)
        return;
    gp_strbuf_puts(b, "<section>\n<h2>Notes</h2>\n<ul id=\"notes\">\n");
    for (size_t i = 0; i < r->nnotes; i++) {
        gp_strbuf_puts(b, "<li>");
        gp_adv_put_html(b, r->notes[i]);
        gp_strbuf_puts(b, "</li>\n");
    }
    gp_strbuf_puts(b, "</ul>\n</section>\n");
}

void gp_adv_render_html(const gp_adv_report *r, size_t top, gp_strbuf *out)
{
    size_t n = top && top < r->nfindings ? top : r->nfindings;

    gp_strbuf_puts(out, page_head);
    html_header(out, r);
    html_totals(out, &r->totals);
    html_charts(out, r);
    html_findings(out, r, n);
    html_notes(out, r);
    gp_strbuf_puts(out, "<footer>gpupack-advisor report, schema " GP_ADV_SCHEMA
                        " (the same data as --format json)</footer>\n</body>\n</html>\n");
}
