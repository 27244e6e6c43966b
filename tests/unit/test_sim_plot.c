/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of the replay's picture (sim/plot.c): the document's structure (SVG and HTML), one
 * line per series per panel, the legend and axes, escaping of hostile names, the bound on points
 * of a week at 10 s steps, refused input, byte-identical output.
 *
 *   build/tests/test_sim_plot [name]      runs the tests (those whose name holds `name`)
 *   build/tests/test_sim_plot --write DIR writes DIR/sample.svg and DIR/sample.html from a
 *                                         realistic week (tests/e2e/sim-plot.sh opens them) */
#include "gptest.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "plot.h"

#define CURVE_N 101
#define SAMPLE_SERIES 3

/* A realistic replay: three scorers over days at step_s, a daily cycle of demand, curves. */
typedef struct {
    int32_t *nodes[SAMPLE_SERIES];
    double *gpus[SAMPLE_SERIES];
    double curve[SAMPLE_SERIES][CURVE_N];
    sim_plot_series s[SAMPLE_SERIES];
    size_t n;
} sample;

/* GPUs asked for at second t: a daily cycle around 160 with a quieter weekend. */
static double demand(double t)
{
    double day = t / 86400, d = 160 + 100 * sin(2 * M_PI * (day - 0.3));

    return fmod(day, 7) >= 5 ? d * 0.6 : d;
}

static bool sample_make(sample *x, int64_t step, int days, bool curves)
{
    static const char *const names[] = { "kube-default", "fgd", "gpupack" };
    static const double util[] = { 0.70, 0.82, 0.90 }, left[] = { 6.2, 4.1, 3.1 };
    static const double cap[] = { 225, 240, 1e9 }; /* GPUs placed before pods wait */

    memset(x, 0, sizeof(*x));
    x->n = (size_t)(days * 86400 / step) + 1;
    for (int k = 0; k < SAMPLE_SERIES; k++) {
        x->nodes[k] = malloc(x->n * sizeof(int32_t));
        x->gpus[k] = malloc(x->n * sizeof(double));
        if (!x->nodes[k] || !x->gpus[k])
            return false;
        for (size_t i = 0; i < x->n; i++) {
            double t = (double)i * (double)step, d = demand(t), held = fmax(d, demand(t - 1800));
            x->gpus[k][i] = round(fmin(d, cap[k]) * (0.97 + 0.01 * k));
            x->nodes[k][i] = (int32_t)ceil(held / (8 * util[k]));
        }
        for (int a = 0; a < CURVE_N; a++)
            x->curve[k][a] = fmax(100 - a, left[k] + 0.05 * (100 - a));
        x->s[k] = (sim_plot_series){ .scorer = names[k], .n = x->n, .nodes_up = x->nodes[k],
                                     .gpus_alloc = x->gpus[k],
                                     .curve = curves ? x->curve[k] : NULL,
                                     .curve_n = curves ? CURVE_N : 0 };
    }
    return true;
}

static void sample_free(sample *x)
{
    for (int k = 0; k < SAMPLE_SERIES; k++) {
        free(x->nodes[k]);
        free(x->gpus[k]);
    }
}

static const sim_plot_opts week_opts = {
    .title = "openb default, load 0.6, 7 days, cluster-autoscaler",
    .subtitle = "seed 42, 4 min provisioning, warm-up 6 h not drawn",
    .step_s = 300,
    .start_s = 6 * 3600,
};

/* The rendering as a NUL-terminated string (NULL when it failed; *st says why). */
static char *render(const sim_plot_series *s, size_t n, const sim_plot_opts *o, bool html,
                    gp_status *st)
{
    gp_strbuf b;
    gp_err err = { { 0 } };
    char *text = NULL;
    size_t len;

    gp_strbuf_init(&b, 0);
    *st = sim_plot_render(s, n, o, html, &b, &err);
    if (*st == GP_OK && gp_strbuf_take(&b, &text, &len) != GP_OK)
        text = NULL;
    gp_strbuf_free(&b);
    return text;
}

static size_t count(const char *s, const char *needle)
{
    size_t c = 0, n = strlen(needle);

    for (const char *p = s ? strstr(s, needle) : NULL; p; p = strstr(p + n, needle))
        c++;
    return c;
}

/* The text between the start of the element that `open` begins (e.g. "<g class=\"panel\"
 * id=\"panel-nodes\"") and the next "</g>\n" at its depth: the panels hold no nested g. */
static char *section(const char *s, const char *open, const char *close)
{
    const char *a = strstr(s, open), *e = a ? strstr(a, close) : NULL;
    char *out;

    if (!e)
        return NULL;
    out = malloc((size_t)(e - a) + 1);
    if (out) {
        memcpy(out, a, (size_t)(e - a));
        out[e - a] = '\0';
    }
    return out;
}

/* The value of attribute name (e.g. " points=\"") after position p, copied (caller frees). */
static char *attr_after(const char *p, const char *name)
{
    const char *a = strstr(p, name), *e;
    char *out;

    if (!a)
        return NULL;
    a += strlen(name);
    e = strchr(a, '"');
    if (!e)
        return NULL;
    out = malloc((size_t)(e - a) + 1);
    if (out) {
        memcpy(out, a, (size_t)(e - a));
        out[e - a] = '\0';
    }
    return out;
}

/* A reference after '&' that XML knows (or a numeric one): its length with ';', else 0. */
static size_t ref_len(const char *p)
{
    static const char *const refs[] = { "&amp;", "&lt;", "&gt;", "&quot;", "&#39;" };

    for (size_t i = 0; i < sizeof refs / sizeof refs[0]; i++)
        if (strncmp(p, refs[i], strlen(refs[i])) == 0)
            return strlen(refs[i]);
    return 0;
}

/* The end of the tag starting at p ('<'): past its '>', quoted attribute values skipped; NULL
 * when the tag is broken (no end, a '<' or a bad reference inside, an unquoted value). */
static const char *tag_end(const char *p, bool *self_closing)
{
    for (const char *q = p + 1; *q; q++) {
        if (*q == '"') {
            const char *e = strchr(q + 1, '"');
            if (!e)
                return NULL;
            for (const char *r = q + 1; r < e; r++)
                if (*r == '<' || (*r == '&' && ref_len(r) == 0))
                    return NULL;
            q = e;
        } else if (*q == '<' || *q == '\'') {
            return NULL;
        } else if (*q == '>') {
            *self_closing = q[-1] == '/';
            return q + 1;
        }
    }
    return NULL;
}

/* A minimal well-formedness check: every element closed in order, exactly one root, text free
 * of '<' and of unknown references, quoted attributes; a doctype and comments skipped. */
static bool well_formed(const char *s)
{
    const char *stack[64];
    size_t depth = 0, roots = 0;

    for (const char *p = s; *p;) {
        if (*p == '&') {
            if (ref_len(p) == 0)
                return false;
            p += ref_len(p);
        } else if (*p != '<') {
            p++;
        } else if (strncmp(p, "<!DOCTYPE", 9) == 0) {
            p = strchr(p, '>');
            if (!p || depth || roots)
                return false;
            p++;
        } else if (p[1] == '/') {
            size_t n = strcspn(p + 2, ">");
            if (depth == 0 || strncmp(stack[depth - 1], p + 2, n) != 0 ||
                strcspn(stack[depth - 1], " \n/>") != n)
                return false;
            depth--;
            p += n + 3;
        } else {
            bool self = false;
            const char *e = tag_end(p, &self);
            if (!e || !(p[1] >= 'a' && p[1] <= 'z') || depth == 64)
                return false;
            roots += depth == 0;
            if (!self)
                stack[depth++] = p + 1;
            p = e;
        }
    }
    return depth == 0 && roots == 1;
}

/* The number of points in the i-th polyline of text (-1 when it has none). */
static long points_of(const char *text, size_t i)
{
    const char *p = text;
    char *pts;
    long n = 0;

    for (size_t k = 0; p && k <= i; k++) {
        p = strstr(p, "<polyline");
        p = p ? p + 1 : NULL;
    }
    pts = p ? attr_after(p, " points=\"") : NULL;
    if (!pts)
        return -1;
    n = *pts ? 1 + (long)count(pts, " ") : 0;
    free(pts);
    return n;
}

GP_TEST(svg_structure)
{
    sample x;
    gp_status st;
    char *t, *panel;

    GP_CHECK(sample_make(&x, 300, 7, true));
    t = render(x.s, SAMPLE_SERIES, &week_opts, false, &st);
    GP_CHECK(st == GP_OK && t);
    if (!t) {
        sample_free(&x);
        return;
    }
    GP_CHECK(strncmp(t, "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
                        "viewBox=\"0 0 960 ", 69) == 0);
    GP_CHECK(well_formed(t));
    GP_CHECK(!strstr(t, "aria-") && !strstr(t, "role=")); /* SVG 1.1 has neither */
    GP_CHECK(strstr(t, "<title id=\"plot-title\">openb default, load 0.6, 7 days, "
                       "cluster-autoscaler</title>"));
    GP_CHECK(strstr(t, "<desc id=\"plot-desc\">seed 42, 4 min provisioning"));
    GP_CHECK_INT(count(t, "<polyline"), 3 * SAMPLE_SERIES);
    GP_CHECK_INT(count(t, "<g class=\"panel\""), 3);
    static const char *const ids[] = { "id=\"panel-nodes\"", "id=\"panel-gpus\"",
                                       "id=\"panel-curve\"" };
    for (size_t i = 0; i < 3; i++) {
        panel = section(t, ids[i], "</g>\n");
        GP_CHECK(panel && count(panel, "<polyline") == SAMPLE_SERIES);
        GP_CHECK(panel && count(panel, "<rect class=\"frame\"") == 1);
        free(panel);
    }
    /* The legend: every name once there, with its line's colour. */
    panel = section(t, "<g class=\"legend\">", "</g>\n</g>\n");
    GP_CHECK(panel && count(panel, "class=\"legend-entry\"") == SAMPLE_SERIES);
    GP_CHECK(panel && strstr(panel, ">kube-default</text>") && strstr(panel, ">fgd</text>") &&
             strstr(panel, ">gpupack</text>"));
    GP_CHECK(panel && strstr(panel, "stroke=\"#0072B2\"") && strstr(panel, "stroke=\"#D55E00\""));
    free(panel);
    /* Axes: a week is in days, ticks from day 1 (the warm-up's 6 h are not drawn) to day 7. */
    GP_CHECK_INT(count(t, ">days since the replay&#39;s start</text>"), 2);
    GP_CHECK(strstr(t, ">nodes</text>") && strstr(t, ">GPUs</text>"));
    GP_CHECK(strstr(t, ">unallocated GPU %</text>"));
    GP_CHECK(strstr(t, ">arrived GPU demand, % of capacity</text>"));
    panel = section(t, ids[0], "</g>\n");
    GP_CHECK(panel && !strstr(panel, "class=\"tick x\" x=\"72.0\"")); /* day 0: warm-up */
    GP_CHECK(panel && count(panel, "class=\"tick x\"") == 7);             /* days 1..7 */
    free(panel);
    GP_CHECK(strstr(t, "class=\"tick x\"") && count(t, ">7</text>") >= 2);
    GP_CHECK(strstr(t, ">100</text>")); /* the curve's x axis ends at 100% */
    free(t);
    sample_free(&x);
}

GP_TEST(html_page)
{
    sample x;
    gp_status st;
    char *t, *svg;

    GP_CHECK(sample_make(&x, 300, 7, true));
    t = render(x.s, SAMPLE_SERIES, &week_opts, true, &st);
    GP_CHECK(st == GP_OK && t);
    if (!t) {
        sample_free(&x);
        return;
    }
    GP_CHECK(strncmp(t, "<!DOCTYPE html>\n<html lang=\"en\">", 32) == 0);
    GP_CHECK(well_formed(t));
    GP_CHECK_INT(count(t, "<svg version=\"1.1\""), 1);
    GP_CHECK(strstr(t, "role=\"img\" aria-labelledby=\"plot-title plot-desc\""));
    GP_CHECK(!strstr(t, "http")); /* inline SVG needs no namespace: the page names no URL */
    GP_CHECK(!strstr(t, "<script") && !strstr(t, "<link") && !strstr(t, "url("));
    GP_CHECK(strstr(t, "<h1>openb default, load 0.6, 7 days, cluster-autoscaler</h1>"));
    GP_CHECK_INT(count(t, "<polyline"), 3 * SAMPLE_SERIES);
    /* The table: one row per series with where its lines end. */
    GP_CHECK_INT(count(t, "<tr id=\"row-"), SAMPLE_SERIES);
    svg = section(t, "<tr id=\"row-2\">", "</tr>");
    char want[128];
    snprintf(want, sizeof want, "gpupack</td><td>%d</td>", (int)x.nodes[2][x.n - 1]);
    GP_CHECK(svg && strstr(svg, want));
    GP_CHECK(svg && strstr(svg, "<td>3.1 at 100%</td>"));
    free(svg);
    free(t);
    sample_free(&x);
}

GP_TEST(hostile_names_are_escaped)
{
    sample x;
    gp_status st;
    sim_plot_opts o = week_opts;
    char *t;

    GP_CHECK(sample_make(&x, 300, 3, true));
    x.s[0].scorer = "a<b&\"c'>";
    x.s[1].scorer = "</svg><script>alert(1)</script>";
    x.s[2].scorer = "bad \xff\xfe utf8 \x01 and \xe2\x82 cut";
    o.title = "<title>&amp; \"q\"";
    o.subtitle = "]]> <!-- -->";
    for (int html = 0; html < 2; html++) {
        t = render(x.s, SAMPLE_SERIES, &o, html, &st);
        GP_CHECK(st == GP_OK && t && well_formed(t));
        GP_CHECK(t && strstr(t, "a&lt;b&amp;&quot;c&#39;&gt;"));
        GP_CHECK(t && strstr(t, "&lt;/svg&gt;&lt;script&gt;alert(1)&lt;/script&gt;"));
        GP_CHECK(t && !strstr(t, "<script") && count(t, "</svg>") == 1);
        GP_CHECK(t && strstr(t, "&lt;title&gt;&amp;amp; &quot;q&quot;"));
        GP_CHECK(t && !strstr(t, "<!--") && strstr(t, "]]&gt; &lt;!-- --&gt;"));
        /* Bytes that are not UTF-8 and controls became U+FFFD. */
        GP_CHECK(t && strstr(t, "bad \xef\xbf\xbd\xef\xbf\xbd utf8 \xef\xbf\xbd and "
                                 "\xef\xbf\xbd\xef\xbf\xbd cut"));
        GP_CHECK(t && !strstr(t, "\x01") && !strstr(t, "\xff"));
        free(t);
    }
    sample_free(&x);
}

GP_TEST(long_names_cut_in_legend_only)
{
    sample x;
    gp_status st;
    char *t, *legend;

    GP_CHECK(sample_make(&x, 300, 1, false));
    x.s[0].scorer = "gpupack-with-a-very-long-experimental-name-\xc3\xa9\xc3\xa9";
    t = render(x.s, 1, &week_opts, false, &st);
    GP_CHECK(st == GP_OK && t);
    legend = t ? section(t, "<g class=\"legend\">", "</g>\n</g>\n") : NULL;
    GP_CHECK(legend && strstr(legend, ">gpupack-with-a-very-long-e\xe2\x80\xa6</text>"));
    GP_CHECK(legend && strstr(legend, "<title>gpupack-with-a-very-long-experimental-name-"
                                      "\xc3\xa9\xc3\xa9</title>"));
    free(legend);
    free(t);
    /* Wide characters take two cells: 13 of them fit, and exactly 26 cells is not cut. */
    x.s[0].scorer = "\xe8\xb0\x83\xe5\xba\xa6\xe5\x99\xa8\xe8\xb0\x83\xe5\xba\xa6\xe5\x99\xa8"
                    "\xe8\xb0\x83\xe5\xba\xa6\xe5\x99\xa8\xe8\xb0\x83\xe5\xba\xa6\xe5\x99\xa8"
                    "\xe8\xb0\x83\xe5\xba\xa6"; /* 14 CJK characters */
    x.s[1].scorer = "abcdefghijklmnopqrstuvwxyz";
    t = render(x.s, 2, &week_opts, false, &st);
    legend = t ? section(t, "<g class=\"legend\">", "</g>\n</g>\n") : NULL;
    GP_CHECK(legend && strstr(legend, "\xe5\x99\xa8\xe8\xb0\x83\xe2\x80\xa6</text>"));
    GP_CHECK(legend && count(legend, "\xe8\xb0\x83") == 5 + 5); /* 5 in the cut name, 5 in full */
    GP_CHECK(legend && strstr(legend, ">abcdefghijklmnopqrstuvwxyz</text>"));
    free(legend);
    free(t);
    sample_free(&x);
}

/* A week at 10 s steps (60,480 samples) draws at most 2 points per pixel column, and a one-sample
 * peak still reaches the top of its frame. */
GP_TEST(downsampling_bounds_points_keeps_peaks)
{
    sample x;
    gp_status st;
    sim_plot_opts o = week_opts;
    char *t, *panel, *frame_y;

    GP_CHECK(sample_make(&x, 10, 7, true));
    GP_CHECK(x.n == 60481);
    for (int k = 0; k < SAMPLE_SERIES; k++)
        x.nodes[k][40000] = 100; /* others are below 50: the y axis tops at 100 */
    o.step_s = 10;
    t = render(x.s, SAMPLE_SERIES, &o, false, &st);
    GP_CHECK(st == GP_OK && t);
    if (!t) {
        sample_free(&x);
        return;
    }
    for (size_t i = 0; i < 2 * SAMPLE_SERIES; i++) {
        long pts = points_of(t, i);
        GP_CHECK(pts > 800 && pts <= 2 * SIM_PLOT_WIDTH);
    }
    GP_CHECK(strlen(t) < 200 * 1000);
    panel = section(t, "id=\"panel-nodes\"", "</g>\n");
    frame_y = panel ? attr_after(strstr(panel, "<rect class=\"frame\""), " y=\"") : NULL;
    char top[32];
    snprintf(top, sizeof top, ",%s.0 ", frame_y ? frame_y : "?");
    GP_CHECK(panel && count(panel, top) == SAMPLE_SERIES); /* each line reaches the top once */
    GP_CHECK(panel && strstr(panel, ">100</text>"));
    free(frame_y);
    free(panel);
    free(t);
    sample_free(&x);
}

GP_TEST(no_curve_no_curve_panel)
{
    sample x;
    gp_status st;
    char *t;

    GP_CHECK(sample_make(&x, 300, 7, false));
    for (int html = 0; html < 2; html++) {
        t = render(x.s, SAMPLE_SERIES, &week_opts, html, &st);
        GP_CHECK(st == GP_OK && t && well_formed(t));
        GP_CHECK(t && !strstr(t, "panel-curve") && !strstr(t, "arrived GPU demand"));
        GP_CHECK_INT(count(t, "<polyline"), 2 * SAMPLE_SERIES);
        GP_CHECK(t && !strstr(t, "unallocated GPU % at"));
        free(t);
    }
    /* One series with a curve: the panel, with that one line. */
    x.s[1].curve = x.curve[1];
    x.s[1].curve_n = CURVE_N;
    t = render(x.s, SAMPLE_SERIES, &week_opts, false, &st);
    char *panel = t ? section(t, "id=\"panel-curve\"", "</g>\n") : NULL;
    GP_CHECK(panel && count(panel, "<polyline") == 1 && strstr(panel, "class=\"series s1\""));
    free(panel);
    free(t);
    sample_free(&x);
}

/* Short spans are in hours at 1, 2, 3, 6 or 12 h; y ticks at round values, the top at one. */
GP_TEST(axes_hours_and_round_y)
{
    int32_t nodes[25];
    double gpus[25];
    sim_plot_series s = { .scorer = "one", .n = 25, .nodes_up = nodes, .gpus_alloc = gpus };
    sim_plot_opts o = { .title = "a day", .step_s = 3600 };
    gp_status st;
    char *t;

    for (int i = 0; i < 25; i++) {
        nodes[i] = i % 3 == 0 ? 37 : 12;
        gpus[i] = 0.1 * i; /* up to 2.4: ticks 0, 0.5, ..., 2.5 */
    }
    t = render(&s, 1, &o, false, &st);
    GP_CHECK(st == GP_OK && t && well_formed(t));
    GP_CHECK(t && count(t, ">hours since the replay&#39;s start</text>") == 2);
    char *nodes_panel = t ? section(t, "id=\"panel-nodes\"", "</g>\n") : NULL;
    char *gpus_panel = t ? section(t, "id=\"panel-gpus\"", "</g>\n") : NULL;
    GP_CHECK(nodes_panel && count(nodes_panel, "class=\"tick x\"") == 9); /* 0, 3, ..., 24 */
    GP_CHECK(nodes_panel && strstr(nodes_panel, ">21</text>"));
    GP_CHECK(nodes_panel && !strstr(nodes_panel, ">22</text>"));
    GP_CHECK(nodes_panel && count(nodes_panel, "class=\"tick y\"") == 5); /* 0..40 by 10 */
    GP_CHECK(nodes_panel && strstr(nodes_panel, ">40</text>"));
    GP_CHECK(nodes_panel && !strstr(nodes_panel, ">50</text>"));
    GP_CHECK(gpus_panel && strstr(gpus_panel, ">2.5</text>") && strstr(gpus_panel, ">0.5</text>"));
    GP_CHECK(gpus_panel && !strstr(gpus_panel, ">3.0</text>"));
    /* Every sample is drawn: 25 points, the first at the frame's left edge. */
    GP_CHECK_INT(points_of(t ? t : "", 0), 25);
    GP_CHECK(nodes_panel && strstr(nodes_panel, "points=\"72.0,"));
    free(nodes_panel);
    free(gpus_panel);
    free(t);
}

/* Shorter spans: minutes over 2 minutes (at 1, 2, 5, 10, 15 or 30), else seconds. */
GP_TEST(axes_minutes_and_seconds)
{
    int32_t nodes[30] = { 0 };
    double gpus[30] = { 0 };
    sim_plot_series s = { .scorer = "m", .n = 30, .nodes_up = nodes, .gpus_alloc = gpus };
    sim_plot_opts o = { .step_s = 60 };
    gp_status st;
    char *t = render(&s, 1, &o, false, &st), *panel;

    GP_CHECK(st == GP_OK && t && count(t, ">minutes since the replay&#39;s start</text>") == 2);
    panel = t ? section(t, "id=\"panel-nodes\"", "</g>\n") : NULL;
    GP_CHECK(panel && count(panel, "class=\"tick x\"") == 6); /* 0, 5, ..., 25 of 29 min */
    GP_CHECK(panel && strstr(panel, ">25</text>") && count(panel, "class=\"tick y\"") == 2);
    free(panel);
    free(t);
    s.n = 2;
    o.step_s = 1; /* one second drawn */
    t = render(&s, 1, &o, false, &st);
    GP_CHECK(st == GP_OK && t && count(t, ">seconds since the replay&#39;s start</text>") == 2);
    panel = t ? section(t, "id=\"panel-nodes\"", "</g>\n") : NULL;
    GP_CHECK(panel && count(panel, "class=\"tick x\"") == 2); /* 0 and 1 */
    free(panel);
    free(t);
}

/* Twelve series: twelve different (colour, dash) pairs. */
GP_TEST(twelve_series_distinct)
{
    int32_t nodes[10] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
    double gpus[10] = { 0 };
    sim_plot_series s[SIM_PLOT_MAX_SERIES + 1];
    char names[SIM_PLOT_MAX_SERIES + 1][16];
    sim_plot_opts o = { .step_s = 60 };
    gp_status st;
    char *t;

    for (int k = 0; k <= SIM_PLOT_MAX_SERIES; k++) {
        snprintf(names[k], sizeof names[k], "scorer-%u", (unsigned)k % 100u);
        s[k] = (sim_plot_series){ .scorer = names[k], .n = 10, .nodes_up = nodes,
                                  .gpus_alloc = gpus };
    }
    t = render(s, SIM_PLOT_MAX_SERIES, &o, false, &st);
    GP_CHECK(st == GP_OK && t && well_formed(t));
    char *legend = t ? section(t, "<g class=\"legend\">", "</g>\n</g>\n") : NULL;
    char style[SIM_PLOT_MAX_SERIES][96];
    for (int k = 0; legend && k < SIM_PLOT_MAX_SERIES; k++) {
        char want[64];
        snprintf(want, sizeof want, "<title>scorer-%d</title><line", k);
        const char *p = strstr(legend, want), *e = p ? strstr(p, "/>") : NULL;
        const char *a = p ? strstr(p, " fill=") : NULL;
        GP_CHECK(a && e && e > a && e - a < 96);
        snprintf(style[k], sizeof style[k], "%.*s", a && e && e > a ? (int)(e - a) : 0,
                 a ? a : "");
        for (int j = 0; j < k; j++)
            GP_CHECK(strcmp(style[j], style[k]) != 0);
    }
    GP_CHECK(legend && count(legend, "stroke-dasharray") == SIM_PLOT_MAX_SERIES - 6);
    free(legend);
    free(t);
    GP_CHECK(render(s, SIM_PLOT_MAX_SERIES + 1, &o, false, &st) == NULL && st == GP_EINVAL);
}

static gp_status try_render(const sim_plot_series *s, size_t n, const sim_plot_opts *o,
                            gp_err *err)
{
    gp_strbuf b;
    gp_status st;

    gp_strbuf_init(&b, 0);
    *err = (gp_err){ { 0 } };
    st = sim_plot_render(s, n, o, false, &b, err);
    gp_strbuf_free(&b);
    return st;
}

GP_TEST(invalid_input_refused)
{
    int32_t nodes[4] = { 1, 2, 3, 4 };
    double gpus[4] = { 1, 2, 3, 4 }, curve[3] = { 100, 50, 10 }, huge[4] = { 1, 2e12, 3, 4 };
    sim_plot_series ok = { .scorer = "a", .n = 4, .nodes_up = nodes, .gpus_alloc = gpus };
    sim_plot_opts o = { .step_s = 60 };
    sim_plot_series bad;
    sim_plot_opts bo;
    gp_err err;

    GP_CHECK(try_render(&ok, 1, &o, &err) == GP_OK);
    GP_CHECK(try_render(&ok, 0, &o, &err) == GP_EINVAL && strstr(err.msg, "0 series"));
    GP_CHECK(try_render(NULL, 1, &o, &err) == GP_EINVAL);
    GP_CHECK(try_render(&ok, 1, NULL, &err) == GP_EINVAL);
    bad = ok, bad.n = 0;
    GP_CHECK(try_render(&bad, 1, &o, &err) == GP_EINVAL && strstr(err.msg, "0 samples"));
    bad = ok, bad.nodes_up = NULL;
    GP_CHECK(try_render(&bad, 1, &o, &err) == GP_EINVAL && strstr(err.msg, "no array"));
    bad = ok, bad.gpus_alloc = NULL;
    GP_CHECK(try_render(&bad, 1, &o, &err) == GP_EINVAL);
    bad = ok, bad.scorer = NULL;
    GP_CHECK(try_render(&bad, 1, &o, &err) == GP_EINVAL && strstr(err.msg, "no scorer name"));
    bad = ok, bad.curve = curve, bad.curve_n = 0;
    GP_CHECK(try_render(&bad, 1, &o, &err) == GP_EINVAL && strstr(err.msg, "curve"));
    bad = ok, bad.curve_n = 3;
    GP_CHECK(try_render(&bad, 1, &o, &err) == GP_EINVAL);
    bad = ok, bad.curve = curve, bad.curve_n = 3;
    GP_CHECK(try_render(&bad, 1, &o, &err) == GP_OK);
    bad = ok, bad.gpus_alloc = huge;
    GP_CHECK(try_render(&bad, 1, &o, &err) == GP_EINVAL && strstr(err.msg, "out of range"));
    bad = ok, bad.n = SIZE_MAX / 2;
    GP_CHECK(try_render(&bad, 1, &o, &err) == GP_EINVAL);
    bo = o, bo.step_s = 0;
    GP_CHECK(try_render(&ok, 1, &bo, &err) == GP_EINVAL && strstr(err.msg, "step"));
    bo = o, bo.start_s = -1;
    GP_CHECK(try_render(&ok, 1, &bo, &err) == GP_EINVAL);
    bo = o, bo.start_s = 180; /* the last sample is at 180 s: nothing left to draw */
    GP_CHECK(try_render(&ok, 1, &bo, &err) == GP_EINVAL && strstr(err.msg, "starts at 180 s"));
    bo = o, bo.start_s = 179;
    GP_CHECK(try_render(&ok, 1, &bo, &err) == GP_OK);
    /* A single sample has no span to draw. */
    bad = ok, bad.n = 1;
    GP_CHECK(try_render(&bad, 1, &o, &err) == GP_EINVAL);
}

GP_TEST(gaps_and_negatives_stay_in_frame)
{
    int32_t nodes[6] = { 3, -2, 4, 5, 6, 7 };
    double gpus[6] = { 1, NAN, INFINITY, -1, 2, 3 };
    sim_plot_series s = { .scorer = "g", .n = 6, .nodes_up = nodes, .gpus_alloc = gpus };
    sim_plot_opts o = { .step_s = 60 };
    gp_status st;
    char *t = render(&s, 1, &o, true, &st);

    GP_CHECK(st == GP_OK && t && well_formed(t));
    GP_CHECK_INT(points_of(t ? t : "", 1), 4); /* NaN and infinity skipped */
    GP_CHECK(t && !strstr(t, "nan") && !strstr(t, "inf"));
    GP_CHECK(t && !strstr(t, ",-")); /* -2 nodes drawn at 0, inside the frame */
    free(t);
}

GP_TEST(out_of_memory_reported)
{
    sample x;
    gp_strbuf b;
    gp_err err = { { 0 } };

    GP_CHECK(sample_make(&x, 300, 7, true));
    gp_strbuf_init(&b, 4096);
    GP_CHECK(sim_plot_render(x.s, SAMPLE_SERIES, &week_opts, true, &b, &err) == GP_ENOMEM);
    GP_CHECK(strstr(err.msg, "out of memory"));
    gp_strbuf_free(&b);
    sample_free(&x);
}

/* The same input gives the same bytes, whatever the locale says about decimal points. */
GP_TEST(deterministic_and_locale_free)
{
    sample x;
    gp_status st;
    char *a, *b;

    GP_CHECK(sample_make(&x, 300, 7, true));
    a = render(x.s, SAMPLE_SERIES, &week_opts, true, &st);
    b = render(x.s, SAMPLE_SERIES, &week_opts, true, &st);
    GP_CHECK(a && b && strcmp(a, b) == 0);
    free(b);
    if (setlocale(LC_NUMERIC, "de_DE.UTF-8") || setlocale(LC_NUMERIC, "fr_FR.UTF-8")) {
        b = render(x.s, SAMPLE_SERIES, &week_opts, true, &st);
        GP_CHECK(a && b && strcmp(a, b) == 0);
        free(b);
        setlocale(LC_NUMERIC, "C");
    }
    GP_CHECK(a && strstr(a, "points=\"72.0,") && !strstr(a, "72,0"));
    free(a);
    sample_free(&x);
}

/* --write DIR: the sample files tests/e2e/sim-plot.sh opens in a browser. */
static int write_file(const char *dir, const char *name, const char *text)
{
    char path[4096];
    FILE *f;

    snprintf(path, sizeof path, "%s/%s", dir, name);
    f = fopen(path, "wb");
    if (!f || fputs(text, f) == EOF || fclose(f) != 0) {
        fprintf(stderr, "test_sim_plot: %s: %s\n", path, strerror(errno));
        return 1;
    }
    return 0;
}

/* The names of hostile.html: markup that must show as text. */
#define HOSTILE_0 "a<b&\"c'>"
#define HOSTILE_1 "</svg><script>alert(1)</script>"

static int write_one(const char *dir, const char *name, const sim_plot_series *s, bool html)
{
    gp_status st;
    char *text = render(s, SAMPLE_SERIES, &week_opts, html, &st);
    int rc;

    if (!text) {
        fprintf(stderr, "test_sim_plot: rendering %s failed (%d)\n", name, st);
        return 1;
    }
    rc = write_file(dir, name, text);
    free(text);
    return rc;
}

/* many.svg: twelve lines over two days (in hours), each a sample line shifted up, no curve. */
static int write_many(const char *dir, const sample *x)
{
    static const char *const names[] = { "kube-default", "kube-mostallocated", "kube-binpack",
                                         "gpupack", "fgd", "bestfit", "dotprod", "gpupacking",
                                         "random", "extender", "gpupack-learned", "fgd-learned" };
    sim_plot_series s[SIM_PLOT_MAX_SERIES];
    int32_t *nodes = malloc(SIM_PLOT_MAX_SERIES * x->n * sizeof(int32_t));
    double *gpus = malloc(SIM_PLOT_MAX_SERIES * x->n * sizeof(double));
    sim_plot_opts o = { .title = "twelve scorers, 2 days", .step_s = 300 };
    gp_status st;
    char *text = NULL;
    int rc = 1;

    for (size_t k = 0; nodes && gpus && k < SIM_PLOT_MAX_SERIES; k++) {
        for (size_t i = 0; i < x->n; i++) {
            nodes[k * x->n + i] = x->nodes[k % SAMPLE_SERIES][i] + 3 * (int32_t)k;
            gpus[k * x->n + i] = x->gpus[k % SAMPLE_SERIES][i] * (1 - 0.03 * (double)k);
        }
        s[k] = (sim_plot_series){ .scorer = names[k], .n = x->n, .nodes_up = nodes + k * x->n,
                                  .gpus_alloc = gpus + k * x->n };
    }
    if (nodes && gpus)
        text = render(s, SIM_PLOT_MAX_SERIES, &o, false, &st);
    if (text)
        rc = write_file(dir, "many.svg", text);
    free(text);
    free(nodes);
    free(gpus);
    return rc;
}

/* sample.svg and sample.html: a week at 300 s steps with curves; hostile.html: two days, no
 * curves, names full of markup; many.svg: twelve lines. */
static int write_samples(const char *dir)
{
    sample x, h;
    int rc = 1;

    bool ok = sample_make(&x, 300, 7, true);

    ok = sample_make(&h, 300, 2, false) && ok; /* both made: both freed */
    if (ok) {
        h.s[0].scorer = HOSTILE_0;
        h.s[1].scorer = HOSTILE_1;
        rc = write_one(dir, "sample.svg", x.s, false) | write_one(dir, "sample.html", x.s, true) |
             write_one(dir, "hostile.html", h.s, true) | write_many(dir, &h);
    }
    sample_free(&x);
    sample_free(&h);
    return rc;
}

int main(int argc, char **argv)
{
    static const gp_test_case cases[] = {
        GP_CASE(svg_structure), GP_CASE(html_page), GP_CASE(hostile_names_are_escaped),
        GP_CASE(long_names_cut_in_legend_only), GP_CASE(downsampling_bounds_points_keeps_peaks),
        GP_CASE(no_curve_no_curve_panel), GP_CASE(axes_hours_and_round_y),
        GP_CASE(axes_minutes_and_seconds),
        GP_CASE(twelve_series_distinct), GP_CASE(invalid_input_refused),
        GP_CASE(gaps_and_negatives_stay_in_frame), GP_CASE(out_of_memory_reported),
        GP_CASE(deterministic_and_locale_free),
    };

    if (argc == 3 && strcmp(argv[1], "--write") == 0)
        return write_samples(argv[2]);
    return gp_test_main(cases, sizeof cases / sizeof cases[0], argc, argv);
}
