/* SPDX-License-Identifier: Apache-2.0 */
/* Small inline SVG charts for the HTML report (render.h): horizontal bars, vertical bars and two
 * stacked areas over time, each with a title, axis labels and ticks at round values. Inline SVG
 * in HTML needs no namespace, so the page names no URL at all. Every label is escaped. */
#include <math.h>
#include <string.h>

#include "render.h"

#define CHART_W 580
#define WIDE_W 1200
#define TITLE_H 32
#define AXIS_H 44
#define HBAR_ROW 24
#define HBAR_LABEL_W 170
#define HBAR_VALUE_W 90
#define VBAR_H 300
#define PAD_L 70
#define PAD_R 20
#define LABEL_CPS 20 /* a bar label is cut to this many code points (the full one in a tooltip) */
#define TICKS 4
#define BAR_COLOR "#4c78a8"
#define PART_COLOR "#e45756"
#define AXIS_COLOR "#555"

/* A round step of about max / TICKS: 1, 2 or 5 times a power of ten. */
static double nice_step(double max)
{
    double raw = max / TICKS, p = pow(10, floor(log10(raw))), m = raw / p;

    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

static double value_of(double v)
{
    return isfinite(v) && v > 0 ? v : 0;
}

/* The axis label of a tick: dollars or a plain number, as many decimals as the step needs. */
static void put_tick(gp_strbuf *b, double v, double step, bool dollars)
{
    int decimals = step >= 1 ? 0 : step >= 0.1 ? 1 : 2;

    if (dollars)
        gp_strbuf_put(b, "$", 1);
    gp_adv_put_num(b, v, decimals);
}

static void svg_open(gp_strbuf *b, const char *cls, int w, int h, const char *title)
{
    gp_strbuf_printf(b, "<svg class=\"%s\" role=\"img\" viewBox=\"0 0 %d %d\" width=\"%d\" "
                        "height=\"%d\" aria-label=\"", cls, w, h, w, h);
    gp_adv_put_html(b, title);
    gp_strbuf_puts(b, "\"><title>");
    gp_adv_put_html(b, title);
    gp_strbuf_printf(b, "</title><text class=\"chart-title\" x=\"%d\" y=\"20\" "
                        "font-size=\"15\" font-weight=\"bold\">", 8);
    gp_adv_put_html(b, title);
    gp_strbuf_puts(b, "</text>");
}

/* The chart for no data: its title and a line saying so. */
static void svg_empty(gp_strbuf *b, const char *cls, const char *title)
{
    svg_open(b, cls, CHART_W, 120, title);
    gp_strbuf_printf(b, "<text class=\"no-data\" x=\"%d\" y=\"75\" text-anchor=\"middle\" "
                        "fill=\"#888\" font-size=\"14\">no data</text></svg>\n", CHART_W / 2);
}

static double max_value(const gp_adv_bar *bars, size_t n)
{
    double m = 0;

    for (size_t i = 0; i < n; i++)
        m = value_of(bars[i].value) > m ? value_of(bars[i].value) : m;
    return m;
}

/* A label cut to LABEL_CPS code points with an ellipsis, escaped. */
static void put_short_label(gp_strbuf *b, const char *s)
{
    size_t n = s ? strlen(s) : 0, i = 0, cps = 0;
    gp_strbuf cut;

    while (i < n && cps < LABEL_CPS) {
        uint32_t cp;

        i += gp_utf8_next(s + i, n - i, &cp);
        cps++;
    }
    if (i >= n) {
        gp_adv_put_html(b, s);
        return;
    }
    gp_strbuf_init(&cut, 0);
    gp_strbuf_put(&cut, s, i);
    gp_adv_put_html(b, cut.p ? cut.p : "");
    if (cut.failed)
        b->failed = true;
    gp_strbuf_free(&cut);
    gp_strbuf_puts(b, "\xe2\x80\xa6");
}

static void hbar_row(gp_strbuf *b, const gp_adv_bar *bar, int y, double max, int plot_w,
                     bool dollars)
{
    double v = value_of(bar->value), part = value_of(bar->part);
    int w = (int)lround(v / max * plot_w), pw = (int)lround((part > v ? v : part) / max * plot_w);

    gp_strbuf_printf(b, "<g class=\"bar\"><title>");
    gp_adv_put_html(b, bar->label);
    gp_strbuf_puts(b, ": ");
    if (dollars)
        gp_adv_put_dollars(b, v);
    else
        gp_adv_put_num(b, v, 2);
    gp_strbuf_printf(b, "</title><text x=\"%d\" y=\"%d\" text-anchor=\"end\" font-size=\"12\">",
                     HBAR_LABEL_W - 6, y + 15);
    put_short_label(b, bar->label);
    gp_strbuf_printf(b, "</text><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>",
                     HBAR_LABEL_W, y + 3, w, HBAR_ROW - 6, BAR_COLOR);
    if (isfinite(bar->part) && pw > 0)
        gp_strbuf_printf(b, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>",
                         HBAR_LABEL_W, y + 3, pw, HBAR_ROW - 6, PART_COLOR);
    gp_strbuf_printf(b, "<text x=\"%d\" y=\"%d\" font-size=\"12\">", HBAR_LABEL_W + w + 4, y + 15);
    if (dollars)
        gp_adv_put_dollars(b, v);
    else
        gp_adv_put_num(b, v, 2);
    gp_strbuf_puts(b, "</text></g>");
}

/* The x axis of a horizontal bar chart at y: a line, ticks at round values, the unit. */
static void hbar_axis(gp_strbuf *b, int y, double max, double step, int plot_w, const char *unit,
                      bool dollars)
{
    gp_strbuf_printf(b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\"/>",
                     HBAR_LABEL_W, y, HBAR_LABEL_W + plot_w, y, AXIS_COLOR);
    for (double t = 0; t <= max * (1 + 1e-9); t += step) {
        int x = HBAR_LABEL_W + (int)lround(t / max * plot_w);

        gp_strbuf_printf(b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\"/>"
                            "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"11\">",
                         x, y, x, y + 5, AXIS_COLOR, x, y + 18);
        put_tick(b, t, step, dollars);
        gp_strbuf_puts(b, "</text>");
    }
    gp_strbuf_printf(b, "<text class=\"axis-label\" x=\"%d\" y=\"%d\" text-anchor=\"middle\" "
                        "font-size=\"12\">", HBAR_LABEL_W + plot_w / 2, y + 36);
    gp_adv_put_html(b, unit);
    gp_strbuf_puts(b, "</text>");
}

static void hbar_legend(gp_strbuf *b, const char *part_legend, int y)
{
    gp_strbuf_printf(b, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                        "<text x=\"%d\" y=\"%d\" font-size=\"12\">",
                     CHART_W - 170, y - 11, PART_COLOR, CHART_W - 154, y);
    gp_adv_put_html(b, part_legend);
    gp_strbuf_puts(b, "</text>");
}

void gp_adv_svg_hbars(gp_strbuf *b, const char *title, const char *unit, const char *part_legend,
                      const gp_adv_bar *bars, size_t n)
{
    double max = max_value(bars, n), step;
    int plot_w = CHART_W - HBAR_LABEL_W - HBAR_VALUE_W, h;
    bool dollars = unit && strcmp(unit, "$") == 0;

    if (n == 0 || max <= 0) {
        svg_empty(b, "chart hbars", title);
        return;
    }
    step = nice_step(max);
    max = ceil(max / step - 1e-9) * step;
    h = TITLE_H + (int)n * HBAR_ROW + AXIS_H;
    svg_open(b, "chart hbars", CHART_W, h, title);
    if (part_legend)
        hbar_legend(b, part_legend, 20);
    for (size_t i = 0; i < n; i++)
        hbar_row(b, &bars[i], TITLE_H + (int)i * HBAR_ROW, max, plot_w, dollars);
    hbar_axis(b, TITLE_H + (int)n * HBAR_ROW, max, step, plot_w,
              dollars ? "dollars over the window" : unit, dollars);
    gp_strbuf_puts(b, "</svg>\n");
}

/* The y axis of a vertical chart: a line, ticks at round values, the label turned upright. */
static void y_axis(gp_strbuf *b, int top, int bottom, double max, double step, const char *label)
{
    gp_strbuf_printf(b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\"/>", PAD_L,
                     top, PAD_L, bottom, AXIS_COLOR);
    for (double t = 0; t <= max * (1 + 1e-9); t += step) {
        int y = bottom - (int)lround(t / max * (bottom - top));

        gp_strbuf_printf(b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\"/>"
                            "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" font-size=\"11\">",
                         PAD_L - 5, y, PAD_L, y, AXIS_COLOR, PAD_L - 8, y + 4);
        put_tick(b, t, step, false);
        gp_strbuf_puts(b, "</text>");
    }
    gp_strbuf_printf(b, "<text class=\"axis-label\" transform=\"translate(16 %d) rotate(-90)\" "
                        "text-anchor=\"middle\" font-size=\"12\">", (top + bottom) / 2);
    gp_adv_put_html(b, label);
    gp_strbuf_puts(b, "</text>");
}

static void x_label(gp_strbuf *b, int w, const char *label)
{
    gp_strbuf_printf(b, "<text class=\"axis-label\" x=\"%d\" y=\"%d\" text-anchor=\"middle\" "
                        "font-size=\"12\">", PAD_L + (w - PAD_L - PAD_R) / 2, VBAR_H - 8);
    gp_adv_put_html(b, label);
    gp_strbuf_puts(b, "</text>");
}

void gp_adv_svg_vbars(gp_strbuf *b, const char *title, const char *xlabel, const char *ylabel,
                      const gp_adv_bar *bars, size_t n)
{
    int top = TITLE_H + 8, bottom = VBAR_H - AXIS_H, plot_w = CHART_W - PAD_L - PAD_R;
    double max = max_value(bars, n), step;

    if (n == 0 || max <= 0) {
        svg_empty(b, "chart vbars", title);
        return;
    }
    step = nice_step(max);
    max = ceil(max / step - 1e-9) * step;
    svg_open(b, "chart vbars", CHART_W, VBAR_H, title);
    for (size_t i = 0; i < n; i++) {
        double v = value_of(bars[i].value);
        int slot = plot_w / (int)n, x = PAD_L + (int)i * slot;
        int hh = (int)lround(v / max * (bottom - top));

        gp_strbuf_puts(b, "<g class=\"bar\"><title>");
        gp_adv_put_html(b, bars[i].label);
        gp_strbuf_puts(b, ": ");
        gp_adv_put_num(b, v, 2);
        gp_strbuf_printf(b, "</title><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
                            "fill=\"%s\"/><text x=\"%d\" y=\"%d\" text-anchor=\"middle\" "
                            "font-size=\"11\">", x + 3, bottom - hh, slot - 6, hh, BAR_COLOR,
                         x + slot / 2, bottom + 16);
        put_short_label(b, bars[i].label);
        gp_strbuf_puts(b, "</text></g>");
    }
    gp_strbuf_printf(b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\"/>", PAD_L,
                     bottom, PAD_L + plot_w, bottom, AXIS_COLOR);
    y_axis(b, top, bottom, max, step, ylabel);
    x_label(b, CHART_W, xlabel);
    gp_strbuf_puts(b, "</svg>\n");
}

/* One series as a closed area path over the plot. */
static void area_path(gp_strbuf *b, const double *v, size_t n, double max, int top, int bottom,
                      int plot_w, const char *fill, const char *cls)
{
    double dx = n > 1 ? (double)plot_w / (double)(n - 1) : 0;

    gp_strbuf_printf(b, "<path class=\"%s\" fill=\"%s\" fill-opacity=\"0.75\" d=\"M%d %d", cls,
                     fill, PAD_L, bottom);
    for (size_t i = 0; i < n; i++) {
        double y = bottom - value_of(v[i]) / max * (bottom - top);

        gp_strbuf_printf(b, " L%.1f %.1f", PAD_L + dx * (double)i, y);
        if (n == 1)
            gp_strbuf_printf(b, " L%d %.1f", PAD_L + plot_w, y);
    }
    gp_strbuf_printf(b, " L%d %d Z\"/>", PAD_L + plot_w, bottom);
}

/* Time ticks under the plot: about six, at whole hours, as "MM-DD HH:00" UTC. */
static void time_axis(gp_strbuf *b, size_t n, double end, int bottom, int plot_w)
{
    size_t every = n > 6 ? (n + 5) / 6 : 1;
    double dx = n > 1 ? (double)plot_w / (double)(n - 1) : 0;

    for (size_t i = 0; i < n; i += every) {
        double x = PAD_L + dx * (double)i, t = end - (double)(n - 1 - i) * 3600;
        gp_strbuf s;

        gp_strbuf_init(&s, 0);
        gp_adv_put_time(&s, t);
        gp_strbuf_printf(b, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\"/>"
                            "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" font-size=\"11\">",
                         x, bottom, x, bottom + 5, AXIS_COLOR, x, bottom + 18);
        /* "2026-12-04T16:00:00Z" -> "12-04 16:00" */
        if (!s.failed && s.len == 20)
            gp_strbuf_printf(b, "%.5s %.5s", s.p + 5, s.p + 11);
        gp_strbuf_puts(b, "</text>");
        gp_strbuf_free(&s);
    }
}

static void area_legend(gp_strbuf *b, int w, const char *a, const char *bl)
{
    gp_strbuf_printf(b, "<rect x=\"%d\" y=\"9\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                        "<text x=\"%d\" y=\"20\" font-size=\"12\">", w - 360, BAR_COLOR, w - 344);
    gp_adv_put_html(b, a);
    gp_strbuf_printf(b, "</text><rect x=\"%d\" y=\"9\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                        "<text x=\"%d\" y=\"20\" font-size=\"12\">", w - 180, PART_COLOR, w - 164);
    gp_adv_put_html(b, bl);
    gp_strbuf_puts(b, "</text>");
}

void gp_adv_svg_area(gp_strbuf *b, const char *title, const char *ylabel, const char *a_legend,
                     const double *a, const char *b_legend, const double *bv, size_t n, double end)
{
    int top = TITLE_H + 8, bottom = VBAR_H - AXIS_H, plot_w = WIDE_W - PAD_L - PAD_R;
    double max = 0, step;

    for (size_t i = 0; i < n; i++) {
        max = a && value_of(a[i]) > max ? value_of(a[i]) : max;
        max = bv && value_of(bv[i]) > max ? value_of(bv[i]) : max;
    }
    if (n == 0 || max <= 0) {
        svg_empty(b, "chart area", title);
        return;
    }
    step = nice_step(max);
    max = ceil(max / step - 1e-9) * step;
    svg_open(b, "chart area", WIDE_W, VBAR_H, title);
    area_legend(b, WIDE_W, a_legend, b_legend);
    if (a)
        area_path(b, a, n, max, top, bottom, plot_w, BAR_COLOR, "series-a");
    if (bv)
        area_path(b, bv, n, max, top, bottom, plot_w, PART_COLOR, "series-b");
    gp_strbuf_printf(b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\"/>", PAD_L,
                     bottom, PAD_L + plot_w, bottom, AXIS_COLOR);
    time_axis(b, n, end, bottom, plot_w);
    y_axis(b, top, bottom, max, step, ylabel);
    x_label(b, WIDE_W, "hour ending (UTC)");
    gp_strbuf_puts(b, "</svg>\n");
}
