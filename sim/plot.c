/* SPDX-License-Identifier: Apache-2.0 */
/* The replay's picture (plot.h): panels stacked under one title and one legend, each a frame
 * with round ticks and one polyline per scorer. Every coordinate and label goes through
 * put_fixed() (integer arithmetic, so no locale and no platform's printf rounding decide a
 * byte), every name through put_xml(). Lines are thinned to the lowest and the highest sample
 * of each pixel column: a week at 10 s steps draws in at most 2 x the panel's width points, and
 * a one-sample peak still shows. */
#include "plot.h"

#include <math.h>
#include <string.h>

#define PAD_L 72
#define PAD_R 24
#define PLOT_W (SIM_PLOT_WIDTH - PAD_L - PAD_R)
#define LEGEND_COLS 4
#define LEGEND_ROW 20
#define LEGEND_CELLS 26 /* a legend name is cut to this many cells, wide characters taking two
                         * (in full in a tooltip), so it keeps to its column */
#define PANEL_HEAD 30   /* the panel's title above its frame */
#define FRAME_H 200
#define PANEL_FOOT 50   /* tick labels and the x axis' name under the frame */
#define PANEL_H (PANEL_HEAD + FRAME_H + PANEL_FOOT)
#define Y_TICKS 5
#define MAX_TICKS 40
#define VALUE_MAX 1e12
#define TEXT_COLOR "#222"
#define AXIS_COLOR "#555"
#define GRID_COLOR "#e3e3e3"
#define DASH "7 4"

/* Okabe and Ito's colour-blind-safe palette without its yellow (too light on white) and black
 * (the axes' colour); series 6..11 repeat the colours dashed. */
static const char *const palette[] = { "#0072B2", "#D55E00", "#009E73",
                                       "#CC79A7", "#E69F00", "#56B4E9" };
#define PALETTE_N (sizeof palette / sizeof palette[0])

typedef struct {
    int x, y, w, h; /* the frame in pixels */
    double x0, x1;  /* data x at the frame's left and right edges */
    double ymax;    /* data y at its top; 0 is at the bottom */
    double ystep;   /* between y ticks */
} frame;

/* Samples from..n-1 of one array (i32 or f64), sample i at data x = i * dx. */
typedef struct {
    const int32_t *i32;
    const double *f64;
    size_t from, n;
    double dx;
} line_src;

/* The lowest and the highest finite sample seen in one pixel column. */
typedef struct {
    int col;
    size_t lo, hi;
    double vlo, vhi;
} column;

/* ----------------------------------------------------------------------------------------- */
/* Text */

/* v rounded to decimals (0..3) digits after a '.', without the locale; "-0" never printed. */
static void put_fixed(gp_strbuf *b, double v, int decimals)
{
    static const long long scale[] = { 1, 10, 100, 1000 };
    long long s = scale[decimals], q = llround(v * (double)s);

    if (q < 0) {
        gp_strbuf_put(b, "-", 1);
        q = -q;
    }
    gp_strbuf_printf(b, "%lld", q / s);
    if (decimals > 0)
        gp_strbuf_printf(b, ".%0*lld", decimals, q % s);
}

/* A code point XML 1.0 does not allow, or a label should not carry: controls, non-characters. */
static bool unfit(uint32_t cp)
{
    return cp < 0x20 || (cp >= 0x7f && cp < 0xa0) || cp == 0xfffe || cp == 0xffff;
}

/* The cells code point cp takes: two from U+1100 (Hangul, CJK, emoji: about an em), else one. */
static size_t cells_of(uint32_t cp)
{
    return cp >= 0x1100 ? 2 : 1;
}

/* s as XML text or attribute value: & < > " ' as references, unfit code points and bytes that
 * are not UTF-8 as U+FFFD; cut to max_cells cells (cells_of()) and an ellipsis (0: no cut). */
static void put_xml_cut(gp_strbuf *b, const char *s, size_t max_cells)
{
    static const char *const refs[] = { ['&'] = "&amp;", ['<'] = "&lt;", ['>'] = "&gt;",
                                        ['"'] = "&quot;", ['\''] = "&#39;" };
    const unsigned char *u = (const unsigned char *)(s ? s : "");
    size_t n = strlen((const char *)u), cells = 0;

    for (size_t i = 0; i < n;) {
        uint32_t cp;
        size_t len = gp_utf8_next((const char *)u + i, n - i, &cp);

        cells += cells_of(cp);
        if (max_cells && cells > max_cells) {
            gp_strbuf_put_cp(b, 0x2026);
            return;
        }
        i += len;
        if (cp < sizeof refs / sizeof refs[0] && refs[cp])
            gp_strbuf_puts(b, refs[cp]);
        else
            gp_strbuf_put_cp(b, unfit(cp) ? 0xfffd : cp);
    }
}

static void put_xml(gp_strbuf *b, const char *s)
{
    put_xml_cut(b, s, 0);
}

/* ----------------------------------------------------------------------------------------- */
/* Checking the input */

static gp_status check_values(const double *v, size_t n, const char *what, const char *who,
                              gp_err *err)
{
    for (size_t i = 0; i < n; i++) {
        if (isfinite(v[i]) && fabs(v[i]) > VALUE_MAX) {
            gp_err_set(err, "plot: %s of %s at sample %zu is out of range", what, who, i);
            return GP_EINVAL;
        }
    }
    return GP_OK;
}

static gp_status check_series(const sim_plot_series *s, size_t k, int64_t step, gp_err *err)
{
    if (!s->scorer) {
        gp_err_set(err, "plot: series %zu has no scorer name", k);
        return GP_EINVAL;
    }
    if (s->n == 0 || !s->nodes_up || !s->gpus_alloc || s->n > (size_t)(INT64_MAX / step)) {
        gp_err_set(err, "plot: series %zu (%s) has %zu samples%s", k, s->scorer, s->n,
                   s->n && (!s->nodes_up || !s->gpus_alloc) ? " but no array" : "");
        return GP_EINVAL;
    }
    if (s->curve ? s->curve_n < 1 : s->curve_n != 0) {
        gp_err_set(err, "plot: series %zu (%s): a curve of %d points", k, s->scorer, s->curve_n);
        return GP_EINVAL;
    }
    gp_status st = check_values(s->gpus_alloc, s->n, "GPUs allocated", s->scorer, err);
    if (st == GP_OK && s->curve)
        st = check_values(s->curve, (size_t)s->curve_n, "the curve", s->scorer, err);
    return st;
}

/* The time of the last sample of the longest series. */
static int64_t end_time(const sim_plot_series *series, size_t n, int64_t step)
{
    int64_t end = 0;

    for (size_t k = 0; k < n; k++)
        if ((int64_t)(series[k].n - 1) * step > end)
            end = (int64_t)(series[k].n - 1) * step;
    return end;
}

static gp_status check_input(const sim_plot_series *series, size_t n, const sim_plot_opts *o,
                             const gp_strbuf *out, gp_err *err)
{
    if (!series || n == 0 || n > SIM_PLOT_MAX_SERIES || !o || !out) {
        gp_err_set(err, "plot: %zu series (1 to %d can be drawn)", series ? n : 0,
                   SIM_PLOT_MAX_SERIES);
        return GP_EINVAL;
    }
    if (o->step_s < 1 || o->start_s < 0) {
        gp_err_set(err, "plot: step %lld s, start %lld s (want a step >= 1 and a start >= 0)",
                   (long long)o->step_s, (long long)o->start_s);
        return GP_EINVAL;
    }
    for (size_t k = 0; k < n; k++) {
        gp_status st = check_series(&series[k], k, o->step_s, err);
        if (st != GP_OK)
            return st;
    }
    if (o->start_s >= end_time(series, n, o->step_s)) {
        gp_err_set(err, "plot: the x axis starts at %lld s, at or after the last sample (%lld s)",
                   (long long)o->start_s, (long long)end_time(series, n, o->step_s));
        return GP_EINVAL;
    }
    return GP_OK;
}

/* ----------------------------------------------------------------------------------------- */
/* Scales */

/* A round step of about raw: 1, 2 or 5 times a power of ten. */
static double nice_step(double raw)
{
    double p = pow(10, floor(log10(raw))), m = raw / p;

    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

static int decimals_for(double step)
{
    return step >= 1 ? 0 : step >= 0.1 ? 1 : step >= 0.01 ? 2 : 3;
}

/* The y range of f for data up to max: about Y_TICKS ticks at round values (whole ones for
 * counts), the top at a tick. */
static void scale_y(frame *f, double max, bool whole)
{
    double step = max > 0 ? nice_step(max / Y_TICKS) : whole ? 1 : 0.2;

    if (whole && step < 1)
        step = 1;
    f->ystep = step;
    f->ymax = max > 0 ? ceil(max / step - 1e-9) * step : step * (whole ? 1 : Y_TICKS);
}

static double value_at(const line_src *s, size_t i)
{
    return s->i32 ? (double)s->i32[i] : s->f64[i];
}

/* The largest finite value of the samples s draws (0 when none is). */
static double src_max(const line_src *s)
{
    double m = 0;

    for (size_t i = s->from; i < s->n; i++)
        if (isfinite(value_at(s, i)) && value_at(s, i) > m)
            m = value_at(s, i);
    return m;
}

static double map_x(const frame *f, double x)
{
    return f->x + (x - f->x0) / (f->x1 - f->x0) * f->w;
}

static double map_y(const frame *f, double y)
{
    y = y < 0 ? 0 : y > f->ymax ? f->ymax : y;
    return f->y + f->h - y / f->ymax * f->h;
}

/* ----------------------------------------------------------------------------------------- */
/* Lines */

static void line_style(gp_strbuf *b, size_t k)
{
    gp_strbuf_printf(b, " fill=\"none\" stroke=\"%s\" stroke-width=\"2\"", palette[k % PALETTE_N]);
    if (k >= PALETTE_N)
        gp_strbuf_puts(b, " stroke-dasharray=\"" DASH "\"");
}

static void put_point(gp_strbuf *b, const frame *f, const line_src *s, size_t i, bool *first)
{
    if (!*first)
        gp_strbuf_put(b, " ", 1);
    *first = false;
    put_fixed(b, map_x(f, (double)i * s->dx), 1);
    gp_strbuf_put(b, ",", 1);
    put_fixed(b, map_y(f, value_at(s, i)), 1);
}

/* The column's lowest and highest samples, in time order (one point when they are one). */
static void flush_column(gp_strbuf *b, const frame *f, const line_src *s, const column *c,
                         bool *first)
{
    if (c->col < 0)
        return;
    put_point(b, f, s, c->lo < c->hi ? c->lo : c->hi, first);
    if (c->lo != c->hi)
        put_point(b, f, s, c->lo < c->hi ? c->hi : c->lo, first);
}

static int column_of(const frame *f, double x)
{
    double c = floor(map_x(f, x) - f->x);

    return c < 0 ? 0 : c >= f->w ? f->w - 1 : (int)c;
}

static void put_points(gp_strbuf *b, const frame *f, const line_src *s)
{
    column c = { .col = -1 };
    bool first = true;

    for (size_t i = s->from; i < s->n; i++) {
        double v = value_at(s, i);
        int col = column_of(f, (double)i * s->dx);

        if (!isfinite(v))
            continue;
        if (col != c.col) {
            flush_column(b, f, s, &c, &first);
            c = (column){ .col = col, .lo = i, .hi = i, .vlo = v, .vhi = v };
        } else if (v < c.vlo) {
            c.lo = i;
            c.vlo = v;
        } else if (v > c.vhi) {
            c.hi = i;
            c.vhi = v;
        }
    }
    flush_column(b, f, s, &c, &first);
}

/* Series k's line in frame f, its name as a tooltip. */
static void put_line(gp_strbuf *b, const frame *f, const line_src *s, size_t k, const char *name)
{
    gp_strbuf_printf(b, "<polyline class=\"series s%zu\"", k);
    line_style(b, k);
    gp_strbuf_puts(b, " stroke-linejoin=\"round\" points=\"");
    put_points(b, f, s);
    gp_strbuf_puts(b, "\"><title>");
    put_xml(b, name);
    gp_strbuf_puts(b, "</title></polyline>\n");
}

/* ----------------------------------------------------------------------------------------- */
/* Frames, ticks and labels */

static void put_text_open(gp_strbuf *b, double x, double y, const char *anchor, int size,
                          const char *cls)
{
    gp_strbuf_printf(b, "<text class=\"%s\" x=\"", cls);
    put_fixed(b, x, 1);
    gp_strbuf_puts(b, "\" y=\"");
    put_fixed(b, y, 1);
    gp_strbuf_printf(b, "\" text-anchor=\"%s\" font-size=\"%d\" fill=\"" TEXT_COLOR "\">", anchor,
                     size);
}

static void put_label(gp_strbuf *b, double x, double y, const char *anchor, int size,
                      const char *cls, const char *text)
{
    put_text_open(b, x, y, anchor, size, cls);
    put_xml(b, text);
    gp_strbuf_puts(b, "</text>\n");
}

static void put_segment(gp_strbuf *b, double x1, double x2, double y1, double y2,
                        const char *color)
{
    gp_strbuf_puts(b, "<line x1=\"");
    put_fixed(b, x1, 1);
    gp_strbuf_puts(b, "\" x2=\"");
    put_fixed(b, x2, 1);
    gp_strbuf_puts(b, "\" y1=\"");
    put_fixed(b, y1, 1);
    gp_strbuf_puts(b, "\" y2=\"");
    put_fixed(b, y2, 1);
    gp_strbuf_printf(b, "\" stroke=\"%s\"/>", color);
}

/* Grid lines, ticks and labels at 0, ystep, ..., ymax, and the axis' name turned upright. */
static void y_axis(gp_strbuf *b, const frame *f, const char *name)
{
    long long last = llround(f->ymax / f->ystep);

    for (long long k = 0; k <= last && k <= MAX_TICKS; k++) {
        double y = map_y(f, (double)k * f->ystep);

        if (k > 0)
            put_segment(b, f->x, f->x + f->w, y, y, GRID_COLOR);
        put_segment(b, f->x - 5, f->x, y, y, AXIS_COLOR);
        put_text_open(b, f->x - 8, y + 4, "end", 11, "tick y");
        put_fixed(b, (double)k * f->ystep, decimals_for(f->ystep));
        gp_strbuf_puts(b, "</text>\n");
    }
    gp_strbuf_printf(b, "<text class=\"axis-label y\" transform=\"translate(18 %d) rotate(-90)\" "
                        "text-anchor=\"middle\" font-size=\"12\" fill=\"" TEXT_COLOR "\">",
                     f->y + f->h / 2);
    put_xml(b, name);
    gp_strbuf_puts(b, "</text>\n");
}

/* Ticks and labels at the multiples of step (in data x / unit) inside the frame, the axis'
 * name under them. */
static void x_axis(gp_strbuf *b, const frame *f, double unit, double step, const char *name)
{
    long long k0 = (long long)ceil(f->x0 / unit / step - 1e-9);
    long long k1 = (long long)floor(f->x1 / unit / step + 1e-9);

    for (long long k = k0; k <= k1 && k - k0 <= MAX_TICKS; k++) {
        double x = map_x(f, (double)k * step * unit);

        put_segment(b, x, x, f->y + f->h, f->y + f->h + 5, AXIS_COLOR);
        put_text_open(b, x, f->y + f->h + 18, "middle", 11, "tick x");
        put_fixed(b, (double)k * step, decimals_for(step));
        gp_strbuf_puts(b, "</text>\n");
    }
    put_label(b, f->x + f->w / 2.0, f->y + f->h + 38, "middle", 12, "axis-label x", name);
}

/* Opens panel id at pixel row y: its group, title and frame. */
static void panel_open(gp_strbuf *b, const char *id, int y, const char *title)
{
    gp_strbuf_printf(b, "<g class=\"panel\" id=\"%s\">\n", id);
    put_label(b, PAD_L, y + 20, "start", 14, "panel-title", title);
    gp_strbuf_printf(b, "<rect class=\"frame\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
                        "fill=\"none\" stroke=\"" AXIS_COLOR "\"/>\n", PAD_L, y + PANEL_HEAD,
                     PLOT_W, FRAME_H);
}

static frame frame_at(int y, double x0, double x1)
{
    return (frame){ .x = PAD_L, .y = y + PANEL_HEAD, .w = PLOT_W, .h = FRAME_H, .x0 = x0,
                    .x1 = x1, .ymax = 1, .ystep = 1 };
}

/* ----------------------------------------------------------------------------------------- */
/* Panels */

/* The time axis' units, largest first: the first that the drawn span exceeds twice is used. The
 * steps between ticks: the first listed that gives 8 ticks or fewer, else 1, 2 or 5 x 10^k
 * units (at least 1). */
typedef struct {
    double s;
    const char *name;
    double steps[6];
} time_unit;

static const time_unit time_units[] = {
    { 86400, "days since the replay's start", { 0 } },
    { 3600, "hours since the replay's start", { 1, 2, 3, 6, 12 } },
    { 60, "minutes since the replay's start", { 1, 2, 5, 10, 15, 30 } },
    { 1, "seconds since the replay's start", { 0 } },
};

typedef struct {
    const sim_plot_series *series;
    size_t n;
    const sim_plot_opts *o;
    double t1;       /* the last sample's time */
    const time_unit *unit; /* of the time axis */
    double step;     /* between x ticks, in units */
    bool has_curve;
    bool html;       /* the page shows the title and subtitle above the drawing */
} layout;

static line_src time_src(const layout *l, size_t k, bool nodes)
{
    const sim_plot_series *s = &l->series[k];
    int64_t step = l->o->step_s;

    return (line_src){ .i32 = nodes ? s->nodes_up : NULL, .f64 = nodes ? NULL : s->gpus_alloc,
                       .from = (size_t)((l->o->start_s + step - 1) / step), .n = s->n,
                       .dx = (double)step };
}

static line_src curve_src(const sim_plot_series *s)
{
    return (line_src){ .f64 = s->curve, .from = 0, .n = s->curve ? (size_t)s->curve_n : 0,
                       .dx = 1 };
}

/* Nodes up (nodes true) or GPUs allocated over time, at pixel row y. */
static void time_panel(gp_strbuf *b, const layout *l, int y, bool nodes)
{
    frame f = frame_at(y, (double)l->o->start_s, l->t1);
    double max = 0;

    for (size_t k = 0; k < l->n; k++) {
        line_src s = time_src(l, k, nodes);
        max = src_max(&s) > max ? src_max(&s) : max;
    }
    scale_y(&f, max, nodes);
    panel_open(b, nodes ? "panel-nodes" : "panel-gpus", y,
               nodes ? "Nodes up" : "GPUs allocated");
    y_axis(b, &f, nodes ? "nodes" : "GPUs");
    x_axis(b, &f, l->unit->s, l->step, l->unit->name);
    for (size_t k = 0; k < l->n; k++) {
        line_src s = time_src(l, k, nodes);
        put_line(b, &f, &s, k, l->series[k].scorer);
    }
    gp_strbuf_puts(b, "</g>\n");
}

/* The paper protocol's curves at pixel row y. */
static void curve_panel(gp_strbuf *b, const layout *l, int y)
{
    double max = 0, x1 = 1;

    for (size_t k = 0; k < l->n; k++) {
        line_src s = curve_src(&l->series[k]);
        max = src_max(&s) > max ? src_max(&s) : max;
        x1 = s.n > 1 && (double)(s.n - 1) > x1 ? (double)(s.n - 1) : x1;
    }
    frame f = frame_at(y, 0, x1);
    double step = nice_step(x1 / 8);

    scale_y(&f, max, false);
    panel_open(b, "panel-curve", y, "Paper protocol: GPUs left unallocated as demand arrives");
    y_axis(b, &f, "unallocated GPU %");
    x_axis(b, &f, 1, step < 1 ? 1 : step, "arrived GPU demand, % of capacity");
    for (size_t k = 0; k < l->n; k++) {
        line_src s = curve_src(&l->series[k]);
        if (s.n > 0)
            put_line(b, &f, &s, k, l->series[k].scorer);
    }
    gp_strbuf_puts(b, "</g>\n");
}

static void time_scale(layout *l)
{
    double span = l->t1 - (double)l->o->start_s;
    size_t u = 0, last = sizeof time_units / sizeof time_units[0] - 1;

    while (u < last && span <= 2 * time_units[u].s)
        u++;
    l->unit = &time_units[u];
    span /= l->unit->s;
    l->step = nice_step(span / 8) < 1 ? 1 : nice_step(span / 8);
    for (size_t i = 0; i < 6 && l->unit->steps[i] > 0; i++) {
        if (span / l->unit->steps[i] <= 8) {
            l->step = l->unit->steps[i];
            break;
        }
    }
}

/* ----------------------------------------------------------------------------------------- */
/* The document */

static int legend_rows(size_t n)
{
    return (int)((n + LEGEND_COLS - 1) / LEGEND_COLS);
}

static int legend_top(const layout *l)
{
    return l->html ? 12 : l->o->subtitle ? 62 : 44;
}

/* One entry per series: its line's colour and dash, its name (cut; in full in a tooltip). */
static void legend(gp_strbuf *b, const layout *l)
{
    int top = legend_top(l), col_w = PLOT_W / LEGEND_COLS;

    gp_strbuf_puts(b, "<g class=\"legend\">\n");
    for (size_t k = 0; k < l->n; k++) {
        int x = PAD_L + (int)(k % LEGEND_COLS) * col_w;
        int y = top + (int)(k / LEGEND_COLS) * LEGEND_ROW;

        gp_strbuf_printf(b, "<g class=\"legend-entry\"><title>");
        put_xml(b, l->series[k].scorer);
        gp_strbuf_printf(b, "</title><line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\"", x, x + 28,
                         y + 10, y + 10);
        line_style(b, k);
        gp_strbuf_printf(b, "/><text class=\"legend-name\" x=\"%d\" y=\"%d\" font-size=\"12\" "
                            "fill=\"" TEXT_COLOR "\">", x + 34, y + 14);
        put_xml_cut(b, l->series[k].scorer, LEGEND_CELLS);
        gp_strbuf_puts(b, "</text></g>\n");
    }
    gp_strbuf_puts(b, "</g>\n");
}

static void put_desc(gp_strbuf *b, const layout *l)
{
    gp_strbuf_puts(b, "<desc id=\"plot-desc\">");
    if (l->o->subtitle) {
        put_xml(b, l->o->subtitle);
        gp_strbuf_puts(b, ". ");
    }
    gp_strbuf_puts(b, "Nodes up and GPUs allocated over time");
    if (l->has_curve)
        gp_strbuf_puts(b, ", and the paper protocol's unallocated GPU % as demand arrives");
    gp_strbuf_puts(b, "; one line per scorer: ");
    for (size_t k = 0; k < l->n; k++) {
        gp_strbuf_puts(b, k ? ", " : "");
        put_xml(b, l->series[k].scorer);
    }
    gp_strbuf_puts(b, ".</desc>\n");
}

static int svg_height(const layout *l)
{
    int panels = l->has_curve ? 3 : 2;

    return legend_top(l) + legend_rows(l->n) * LEGEND_ROW + 10 + panels * PANEL_H;
}

static const char *title_of(const sim_plot_opts *o)
{
    return o->title ? o->title : "gpupack-sim replay";
}

/* The SVG document. Standalone: SVG 1.1's attributes only (its <title> and <desc> name it to
 * assistive technology). In a page: without the namespace attribute, which inline SVG does not
 * need, so the page names no URL at all; with ARIA's role and name, which HTML has; without the
 * title the page shows as its heading. */
static void put_svg(gp_strbuf *b, const layout *l)
{
    int h = svg_height(l), y = legend_top(l) + legend_rows(l->n) * LEGEND_ROW + 10;

    gp_strbuf_printf(b, "<svg%s version=\"1.1\" viewBox=\"0 0 %d %d\" width=\"%d\" "
                        "height=\"%d\"%s font-family=\"sans-serif\">\n<title id=\"plot-title\">",
                     l->html ? "" : " xmlns=\"http://www.w3.org/2000/svg\"", SIM_PLOT_WIDTH, h,
                     SIM_PLOT_WIDTH, h,
                     l->html ? " role=\"img\" aria-labelledby=\"plot-title plot-desc\"" : "");
    put_xml(b, title_of(l->o));
    gp_strbuf_puts(b, "</title>\n");
    put_desc(b, l);
    gp_strbuf_printf(b, "<rect class=\"background\" x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" "
                        "fill=\"#fff\"/>\n", SIM_PLOT_WIDTH, h);
    if (!l->html)
        put_label(b, PAD_L, 24, "start", 16, "title", title_of(l->o));
    if (!l->html && l->o->subtitle)
        put_label(b, PAD_L, 44, "start", 12, "subtitle", l->o->subtitle);
    legend(b, l);
    time_panel(b, l, y, true);
    time_panel(b, l, y + PANEL_H, false);
    if (l->has_curve)
        curve_panel(b, l, y + 2 * PANEL_H);
    gp_strbuf_puts(b, "</svg>\n");
}

/* ----------------------------------------------------------------------------------------- */
/* The HTML page */

/* The mean of the drawn samples of s (NaN when none is finite). */
static double src_mean(const line_src *s)
{
    double sum = 0;
    size_t m = 0;

    for (size_t i = s->from; i < s->n; i++) {
        if (isfinite(value_at(s, i))) {
            sum += value_at(s, i);
            m++;
        }
    }
    return m ? sum / (double)m : NAN;
}

static void cell(gp_strbuf *b, double v, int decimals)
{
    gp_strbuf_puts(b, "<td>");
    if (isfinite(v))
        put_fixed(b, v, decimals);
    else
        gp_strbuf_puts(b, "n/a");
    gp_strbuf_puts(b, "</td>");
}

static void table_row(gp_strbuf *b, const layout *l, size_t k)
{
    const sim_plot_series *s = &l->series[k];
    line_src nodes = time_src(l, k, true), gpus = time_src(l, k, false);

    gp_strbuf_printf(b, "<tr id=\"row-%zu\"><td><span class=\"swatch\" style=\"border-top-color:"
                        "%s;border-top-style:%s\"></span>", k, palette[k % PALETTE_N],
                     k >= PALETTE_N ? "dashed" : "solid");
    put_xml(b, s->scorer);
    gp_strbuf_puts(b, "</td>");
    cell(b, s->n > nodes.from ? s->nodes_up[s->n - 1] : NAN, 0);
    cell(b, src_mean(&nodes), 1);
    cell(b, s->n > gpus.from ? s->gpus_alloc[s->n - 1] : NAN, 1);
    cell(b, src_mean(&gpus), 1);
    if (s->curve) {
        gp_strbuf_puts(b, "<td>");
        if (isfinite(s->curve[s->curve_n - 1]))
            put_fixed(b, s->curve[s->curve_n - 1], 1);
        else
            gp_strbuf_puts(b, "n/a");
        gp_strbuf_printf(b, " at %d%%</td>", s->curve_n - 1);
    } else if (l->has_curve) {
        gp_strbuf_puts(b, "<td>n/a</td>");
    }
    gp_strbuf_puts(b, "</tr>\n");
}

static void table(gp_strbuf *b, const layout *l)
{
    gp_strbuf_puts(b, "<table id=\"ends\">\n<caption>Where each line ends (means over the "
                      "drawn time)</caption>\n<thead><tr><th>scorer</th><th>nodes up</th>"
                      "<th>mean nodes up</th><th>GPUs allocated</th><th>mean GPUs allocated</th>");
    if (l->has_curve)
        gp_strbuf_puts(b, "<th>unallocated GPU % at the curve&#39;s end</th>");
    gp_strbuf_puts(b, "</tr></thead>\n<tbody>\n");
    for (size_t k = 0; k < l->n; k++)
        table_row(b, l, k);
    gp_strbuf_puts(b, "</tbody>\n</table>\n");
}

static void put_html(gp_strbuf *b, const layout *l)
{
    gp_strbuf_puts(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
                      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n"
                      "<title>");
    put_xml(b, title_of(l->o));
    gp_strbuf_puts(b, "</title>\n<style>\nbody{font-family:sans-serif;color:#222;margin:16px}\n"
                      "svg{max-width:100%;height:auto}\n"
                      "table{border-collapse:collapse;margin-top:12px}\n"
                      "caption{text-align:left;font-weight:bold;padding:4px 0}\n"
                      "th,td{padding:3px 10px;border-bottom:1px solid #ddd;text-align:right}\n"
                      "th:first-child,td:first-child{text-align:left}\n"
                      ".swatch{display:inline-block;width:24px;border-top-width:3px;"
                      "vertical-align:middle;margin-right:6px}\n</style>\n</head>\n<body>\n"
                      "<h1>");
    put_xml(b, title_of(l->o));
    gp_strbuf_puts(b, "</h1>\n");
    if (l->o->subtitle) {
        gp_strbuf_puts(b, "<p class=\"subtitle\">");
        put_xml(b, l->o->subtitle);
        gp_strbuf_puts(b, "</p>\n");
    }
    put_svg(b, l);
    table(b, l);
    gp_strbuf_puts(b, "</body>\n</html>\n");
}

gp_status sim_plot_render(const sim_plot_series *series, size_t n, const sim_plot_opts *o,
                          bool html, gp_strbuf *out, gp_err *err)
{
    gp_status st = check_input(series, n, o, out, err);
    layout l = { .series = series, .n = n, .o = o, .html = html };

    if (st != GP_OK)
        return st;
    l.t1 = (double)end_time(series, n, o->step_s);
    for (size_t k = 0; k < n; k++)
        l.has_curve = l.has_curve || series[k].curve;
    time_scale(&l);
    if (html)
        put_html(out, &l);
    else
        put_svg(out, &l);
    if (out->failed) {
        gp_err_set(err, "plot: out of memory");
        return GP_ENOMEM;
    }
    return GP_OK;
}
