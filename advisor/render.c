/* SPDX-License-Identifier: Apache-2.0 */
/* The table, JSON and Markdown renderers of the advisor's report, and the text helpers the HTML
 * renderer shares (render.h). Each writes straight into a gp_strbuf: a failed append marks the
 * buffer, and gp_adv_render() reports it once at the end. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "render.h"

/* Values printed past this magnitude switch to scientific notation (a bounded text). */
#define BIG_NUMBER 1e18
/* The table's kind column and the indent of the lines under a finding. */
#define KIND_COLS 7
#define SUB_INDENT 5

bool gp_adv_format_parse(const char *s, gp_adv_format *out)
{
    static const struct {
        const char *name;
        gp_adv_format f;
    } names[] = { { "table", GP_ADV_FMT_TABLE },
                  { "json", GP_ADV_FMT_JSON },
                  { "markdown", GP_ADV_FMT_MARKDOWN },
                  { "html", GP_ADV_FMT_HTML } };

    for (size_t i = 0; s && i < sizeof names / sizeof names[0]; i++) {
        if (strcmp(s, names[i].name) == 0) {
            *out = names[i].f;
            return true;
        }
    }
    return false;
}

const char *gp_adv_kind_str(gp_adv_kind k)
{
    static const char *const names[GP_ADV_KINDS] = { "idle", "mig", "gpus", "model", "node",
                                                     "runaway" };

    return (unsigned)k < GP_ADV_KINDS ? names[k] : "unknown";
}

/* ---------------------------------------------------------------------------------------------
 * Text helpers. */

/* digits ("1310.42") with a comma every three digits of its integer part. */
static void put_grouped(gp_strbuf *b, const char *digits)
{
    size_t intlen = strcspn(digits, ".");

    for (size_t i = 0; i < intlen; i++) {
        if (i > 0 && (intlen - i) % 3 == 0)
            gp_strbuf_put(b, ",", 1);
        gp_strbuf_put(b, digits + i, 1);
    }
    gp_strbuf_puts(b, digits + intlen);
}

/* |v| rounded to decimals, and whether it prints as zero (no sign then). */
static bool abs_digits(double v, int decimals, char *t, size_t tn)
{
    snprintf(t, tn, "%.*f", decimals, fabs(v));
    return strspn(t, "0.") == strlen(t);
}

void gp_adv_put_num(gp_strbuf *b, double v, int decimals)
{
    char t[64];

    if (!isfinite(v)) {
        gp_strbuf_puts(b, "n/a");
        return;
    }
    if (fabs(v) >= BIG_NUMBER) {
        gp_strbuf_printf(b, "%.3g", v);
        return;
    }
    if (!abs_digits(v, decimals, t, sizeof t) && v < 0)
        gp_strbuf_put(b, "-", 1);
    put_grouped(b, t);
}

void gp_adv_put_dollars(gp_strbuf *b, double v)
{
    char t[64];

    if (!isfinite(v)) {
        gp_strbuf_puts(b, "n/a");
        return;
    }
    if (fabs(v) >= BIG_NUMBER) {
        gp_strbuf_printf(b, "$%.3g", v);
        return;
    }
    gp_strbuf_puts(b, !abs_digits(v, 2, t, sizeof t) && v < 0 ? "-$" : "$");
    put_grouped(b, t);
}

void gp_adv_put_time(gp_strbuf *b, double t)
{
    struct tm tm;
    time_t s;

    if (!isfinite(t) || t < 0 || t >= 253402300800.0) {
        gp_strbuf_puts(b, "n/a");
        return;
    }
    s = (time_t)t;
    if (!gmtime_r(&s, &tm)) {
        gp_strbuf_puts(b, "n/a");
        return;
    }
    gp_strbuf_printf(b, "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

void gp_adv_put_duration(gp_strbuf *b, double seconds)
{
    static const struct {
        double s;
        const char *unit;
    } units[] = { { 86400, "d" }, { 3600, "h" }, { 60, "m" } };

    if (!isfinite(seconds) || seconds <= 0 || seconds > 1e12 || seconds != floor(seconds)) {
        gp_adv_put_num(b, seconds, 2);
        gp_strbuf_puts(b, "s");
        return;
    }
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (fmod(seconds, units[i].s) == 0) {
            gp_strbuf_printf(b, "%.0f%s", seconds / units[i].s, units[i].unit);
            return;
        }
    }
    gp_strbuf_printf(b, "%.0fs", seconds);
}

/* A code point a terminal or a table cell must not receive as is: C0 and C1 controls, DEL. */
static bool is_control(uint32_t cp)
{
    return cp < 0x20 || (cp >= 0x7f && cp < 0xa0);
}

void gp_adv_put_html(gp_strbuf *b, const char *s)
{
    static const char *const refs[] = { ['&'] = "&amp;", ['<'] = "&lt;", ['>'] = "&gt;",
                                        ['"'] = "&quot;", ['\''] = "&#39;" };
    size_t n = s ? strlen(s) : 0;

    for (size_t i = 0; i < n;) {
        uint32_t cp;
        size_t len = gp_utf8_next(s + i, n - i, &cp);

        if (cp < sizeof refs / sizeof refs[0] && refs[cp])
            gp_strbuf_puts(b, refs[cp]);
        else if (is_control(cp) && cp != '\t' && cp != '\n')
            gp_strbuf_put_cp(b, 0xfffd);
        else
            gp_strbuf_put_cp(b, cp);
        i += len;
    }
}

/* s as one line of terminal text: controls (newlines too) as '?', then invalid UTF-8 as U+FFFD.
 * Returns its width in code points. */
static size_t put_clean(gp_strbuf *b, const char *s)
{
    size_t n = s ? strlen(s) : 0, w = 0;

    for (size_t i = 0; i < n; w++) {
        uint32_t cp;

        i += gp_utf8_next(s + i, n - i, &cp);
        gp_strbuf_put_cp(b, cp == '\t' || cp == '\n' || cp == '\r' ? ' ' : is_control(cp) ? '?' : cp);
    }
    return w;
}

/* The width of UTF-8 text s in code points (one column each: names and notes are not expected
 * to hold double-width characters). */
static size_t cp_width(const char *s, size_t n)
{
    size_t w = 0;

    for (size_t i = 0; i < n; w++) {
        uint32_t cp;

        i += gp_utf8_next(s + i, n - i, &cp);
    }
    return w;
}

/* The byte length of s's first `cols` code points. */
static size_t cp_prefix(const char *s, size_t n, size_t cols)
{
    size_t i = 0;

    for (size_t w = 0; i < n && w < cols; w++) {
        uint32_t cp;

        i += gp_utf8_next(s + i, n - i, &cp);
    }
    return i;
}

/* ---------------------------------------------------------------------------------------------
 * Table. */

/* Empties the scratch buffer t, carrying a failure of it over to b (clearing forgets it). */
static void reset(gp_strbuf *t, gp_strbuf *b)
{
    if (t->failed)
        b->failed = true;
    gp_strbuf_clear(t);
}

/* Appends clean text (already through put_clean) as lines of at most GP_ADV_TABLE_COLS columns:
 * the first line starts at column `col` (what the caller already wrote on it), the next ones with
 * `indent` spaces. Breaks at spaces, and inside a word longer than a line. Ends the last line. */
static void put_wrapped(gp_strbuf *b, const char *text, size_t col, size_t indent)
{
    const char *p = text;
    bool line_has_word = false;

    while (*p) {
        size_t wlen = strcspn(p, " "), w = cp_width(p, wlen);

        if (wlen == 0) {
            p++;
            continue;
        }
        if (line_has_word && col + 1 + w > GP_ADV_TABLE_COLS) {
            gp_strbuf_printf(b, "\n%*s", (int)indent, "");
            col = indent;
            line_has_word = false;
        }
        if (line_has_word) {
            gp_strbuf_put(b, " ", 1);
            col++;
        }
        while (col + w > GP_ADV_TABLE_COLS && GP_ADV_TABLE_COLS > col) {
            size_t fit = cp_prefix(p, wlen, GP_ADV_TABLE_COLS - col);

            gp_strbuf_put(b, p, fit);
            gp_strbuf_printf(b, "\n%*s", (int)indent, "");
            p += fit;
            wlen -= fit;
            w = cp_width(p, wlen);
            col = indent;
        }
        gp_strbuf_put(b, p, wlen);
        col += w;
        p += wlen;
        line_has_word = true;
    }
    gp_strbuf_put(b, "\n", 1);
}

/* A labelled header line: "Label      text", the text wrapped under itself. */
static void table_field(gp_strbuf *b, const char *label, const char *text)
{
    gp_strbuf clean;

    gp_strbuf_init(&clean, 0);
    put_clean(&clean, text);
    gp_strbuf_printf(b, "%-11s", label);
    put_wrapped(b, clean.p ? clean.p : "", 11, 11);
    if (clean.failed)
        b->failed = true;
    gp_strbuf_free(&clean);
}

static void table_headline(gp_strbuf *b, const gp_adv_report *r)
{
    gp_strbuf t;

    gp_strbuf_init(&t, 0);
    gp_adv_put_dollars(&t, r->totals.recoverable_monthly);
    gp_strbuf_puts(&t, "/month recoverable (");
    gp_adv_put_dollars(&t, r->totals.waste_dollars);
    gp_strbuf_puts(&t, " wasted over the window)");
    put_wrapped(b, t.p ? t.p : "", 0, 0);
    if (t.failed)
        b->failed = true;
    gp_strbuf_free(&t);
}

static void window_text(gp_strbuf *s, const gp_adv_report *r)
{
    gp_adv_put_time(s, r->start);
    gp_strbuf_puts(s, " to ");
    gp_adv_put_time(s, r->end);
    gp_strbuf_puts(s, " (");
    gp_adv_put_num(s, r->totals.window_hours, 2);
    gp_strbuf_puts(s, " h, step ");
    gp_adv_put_duration(s, r->step);
    gp_strbuf_puts(s, ")");
}

static void hours_text(gp_strbuf *s, const gp_adv_totals *t)
{
    gp_adv_put_num(s, t->gpu_hours, 2);
    gp_strbuf_puts(s, " allocated, ");
    gp_adv_put_num(s, t->active_gpu_hours, 2);
    gp_strbuf_puts(s, " active, ");
    gp_adv_put_num(s, t->idle_gpu_hours, 2);
    gp_strbuf_puts(s, " idle (");
    gp_adv_put_num(s, t->idle_pct, 1);
    gp_strbuf_puts(s, "%)");
}

static void cost_text(gp_strbuf *s, const gp_adv_totals *t)
{
    gp_adv_put_dollars(s, t->dollars);
    gp_strbuf_puts(s, " allocated GPUs, ");
    gp_adv_put_dollars(s, t->node_dollars);
    gp_strbuf_puts(s, " GPU nodes, ");
    gp_adv_put_dollars(s, t->waste_dollars);
    gp_strbuf_puts(s, " in findings");
}

static void pods_text(gp_strbuf *s, const gp_adv_totals *t)
{
    gp_strbuf_printf(s, "%d GPU pods, %d without DCGM data (", t->pods, t->pods_without_dcgm);
    gp_adv_put_num(s, t->gpu_hours_without_dcgm, 2);
    gp_strbuf_puts(s, " GPU-hours)");
}

/* The headline, then one labelled line each: window, activity metric, GPU-hours, cost, pods. */
static void table_header(gp_strbuf *b, const gp_adv_report *r)
{
    gp_strbuf s;

    gp_strbuf_init(&s, 0);
    table_headline(b, r);
    gp_strbuf_put(b, "\n", 1);
    window_text(&s, r);
    table_field(b, "Window", s.p);
    table_field(b, "Activity", r->activity_metric ? r->activity_metric : "n/a");
    reset(&s, b);
    hours_text(&s, &r->totals);
    table_field(b, "GPU-hours", s.p);
    reset(&s, b);
    cost_text(&s, &r->totals);
    table_field(b, "Cost", s.p);
    reset(&s, b);
    pods_text(&s, &r->totals);
    table_field(b, "Pods", s.p);
    reset(&s, b);
    gp_strbuf_free(&s);
}

/* "ml/deployment/ranker", or the workload alone for node findings, cleaned. */
static void put_target(gp_strbuf *b, const gp_adv_finding *f)
{
    if (f->namespace && *f->namespace) {
        put_clean(b, f->namespace);
        gp_strbuf_put(b, "/", 1);
    }
    put_clean(b, f->workload ? f->workload : "");
}

typedef struct {
    size_t rank, dollars, monthly, target; /* column widths */
} table_cols;

static size_t dollars_width(double v)
{
    gp_strbuf t;
    size_t n;

    gp_strbuf_init(&t, 0);
    gp_adv_put_dollars(&t, v);
    n = t.failed ? 0 : t.len;
    gp_strbuf_free(&t);
    return n;
}

static table_cols table_widths(const gp_adv_report *r, size_t n)
{
    table_cols c = { 3, strlen("$ WINDOW"), strlen("$/MONTH"), 0 };

    for (size_t k = 1000; k <= n; k *= 10)
        c.rank++;

    for (size_t i = 0; i < n; i++) {
        size_t d = dollars_width(r->findings[i].dollars), m = dollars_width(r->findings[i].monthly);

        c.dollars = d > c.dollars ? d : c.dollars;
        c.monthly = m > c.monthly ? m : c.monthly;
    }
    c.target = GP_ADV_TABLE_COLS - (c.rank + 2 + KIND_COLS + 2 + c.dollars + 2 + c.monthly + 2);
    return c;
}

/* The target cut to width columns, with an ellipsis when it was longer. */
static void put_truncated(gp_strbuf *b, const char *clean, size_t width)
{
    size_t n = strlen(clean);

    if (cp_width(clean, n) <= width) {
        gp_strbuf_put(b, clean, n);
        return;
    }
    gp_strbuf_put(b, clean, cp_prefix(clean, n, width - 1));
    gp_strbuf_puts(b, "\xe2\x80\xa6");
}

/* Under a row, indented and wrapped: "→ recommendation", then the evidence. */
static void table_sublines(gp_strbuf *b, const gp_adv_finding *f, gp_strbuf *tmp)
{
    reset(tmp, b);
    gp_strbuf_puts(tmp, "\xe2\x86\x92 ");
    put_clean(tmp, f->recommendation ? f->recommendation : "");
    gp_strbuf_printf(b, "%*s", SUB_INDENT, "");
    put_wrapped(b, tmp->p ? tmp->p : "", SUB_INDENT, SUB_INDENT + 2);
    if (f->evidence && *f->evidence) {
        reset(tmp, b);
        put_clean(tmp, f->evidence);
        gp_strbuf_printf(b, "%*s", SUB_INDENT + 2, "");
        put_wrapped(b, tmp->p ? tmp->p : "", SUB_INDENT + 2, SUB_INDENT + 2);
    }
}

static void table_row(gp_strbuf *b, const gp_adv_finding *f, size_t rank, const table_cols *c,
                      gp_strbuf *tmp)
{
    reset(tmp, b);
    gp_strbuf_printf(b, "%*zu%c %-*s  ", (int)c->rank, rank, f->low_confidence ? '*' : ' ',
                     KIND_COLS, gp_adv_kind_str(f->kind));
    gp_adv_put_dollars(tmp, f->dollars);
    gp_strbuf_printf(b, "%*s  ", (int)c->dollars, tmp->p ? tmp->p : "");
    reset(tmp, b);
    gp_adv_put_dollars(tmp, f->monthly);
    gp_strbuf_printf(b, "%*s  ", (int)c->monthly, tmp->p ? tmp->p : "");
    reset(tmp, b);
    put_target(tmp, f);
    put_truncated(b, tmp->p ? tmp->p : "", c->target);
    gp_strbuf_put(b, "\n", 1);
    table_sublines(b, f, tmp);
}

static bool any_low_confidence(const gp_adv_report *r, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (r->findings[i].low_confidence)
            return true;
    }
    return false;
}

static void table_findings(gp_strbuf *b, const gp_adv_report *r, size_t n)
{
    table_cols c = table_widths(r, n);
    gp_strbuf tmp;

    gp_strbuf_put(b, "\n", 1);
    if (n == 0) {
        gp_strbuf_puts(b, "No findings: every allocated GPU in the window was busy enough.\n");
        return;
    }
    if (n < r->nfindings)
        gp_strbuf_printf(b, "Top %zu of %zu findings.\n", n, r->nfindings);
    gp_strbuf_printf(b, "%*s  %-*s  %*s  %*s  %s\n", (int)c.rank, "#", KIND_COLS, "KIND",
                     (int)c.dollars, "$ WINDOW",
                     (int)c.monthly, "$/MONTH", "NAMESPACE/WORKLOAD");
    gp_strbuf_init(&tmp, 0);
    for (size_t i = 0; i < n; i++)
        table_row(b, &r->findings[i], i + 1, &c, &tmp);
    if (tmp.failed)
        b->failed = true;
    gp_strbuf_free(&tmp);
    if (any_low_confidence(r, n))
        gp_strbuf_puts(b, "  * low confidence: few hours of utilization data behind the finding\n");
}

static void table_notes(gp_strbuf *b, const gp_adv_report *r)
{
    gp_strbuf tmp;

    if (r->nnotes == 0)
        return;
    gp_strbuf_puts(b, "\nNotes:\n");
    gp_strbuf_init(&tmp, 0);
    for (size_t i = 0; i < r->nnotes; i++) {
        reset(&tmp, b);
        put_clean(&tmp, r->notes[i]);
        gp_strbuf_puts(b, "  - ");
        put_wrapped(b, tmp.p ? tmp.p : "", 4, 4);
    }
    if (tmp.failed)
        b->failed = true;
    gp_strbuf_free(&tmp);
}

static void render_table(const gp_adv_report *r, size_t n, gp_strbuf *b)
{
    table_header(b, r);
    table_findings(b, r, n);
    table_notes(b, r);
}

/* ---------------------------------------------------------------------------------------------
 * JSON. */

/* s as a JSON string: gp_json_escape() for ASCII, valid UTF-8 as is, invalid bytes as
 * \ufffd; NULL as null. */
static void json_str(gp_strbuf *b, const char *s)
{
    size_t n;

    if (!s) {
        gp_strbuf_puts(b, "null");
        return;
    }
    n = strlen(s);
    gp_strbuf_put(b, "\"", 1);
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        size_t len = gp_utf8_next(s + i, n - i, &cp);
        char tmp[8];
        const char *esc = cp < 0x80 ? gp_json_escape((unsigned char)cp, tmp) : NULL;

        if (esc)
            gp_strbuf_puts(b, esc);
        else if (cp == 0xfffd && len == 1)
            gp_strbuf_puts(b, "\\ufffd");
        else
            gp_strbuf_put(b, s + i, len);
        i += len;
    }
    gp_strbuf_put(b, "\"", 1);
}

/* v rounded to decimals digits, shortest form; null when not finite. */
static void json_num(gp_strbuf *b, double v, int decimals)
{
    double scale = pow(10, decimals), x;

    if (!isfinite(v)) {
        gp_strbuf_puts(b, "null");
        return;
    }
    x = fabs(v) < 1e15 ? round(v * scale) / scale : v;
    gp_strbuf_printf(b, "%.15g", x == 0 ? 0.0 : x);
}

/* A JSON object's key, preceded by a comma unless it is the first. */
static void json_key(gp_strbuf *b, bool *first, const char *key)
{
    if (!*first)
        gp_strbuf_put(b, ",", 1);
    *first = false;
    json_str(b, key);
    gp_strbuf_put(b, ":", 1);
}

static void json_kstr(gp_strbuf *b, bool *first, const char *key, const char *v)
{
    json_key(b, first, key);
    json_str(b, v);
}

static void json_knum(gp_strbuf *b, bool *first, const char *key, double v, int decimals)
{
    json_key(b, first, key);
    json_num(b, v, decimals);
}

static void json_kint(gp_strbuf *b, bool *first, const char *key, int64_t v)
{
    json_key(b, first, key);
    gp_strbuf_int(b, v);
}

static void json_kbool(gp_strbuf *b, bool *first, const char *key, bool v)
{
    json_key(b, first, key);
    gp_strbuf_puts(b, v ? "true" : "false");
}

static void json_time(gp_strbuf *b, bool *first, const char *key, double t)
{
    gp_strbuf s;

    json_key(b, first, key);
    if (!isfinite(t) || t < 0 || t >= 253402300800.0) {
        gp_strbuf_puts(b, "null");
        return;
    }
    gp_strbuf_init(&s, 0);
    gp_adv_put_time(&s, t);
    json_str(b, s.p ? s.p : "");
    if (s.failed)
        b->failed = true;
    gp_strbuf_free(&s);
}

static void json_window(gp_strbuf *b, const gp_adv_report *r)
{
    bool first = true;

    gp_strbuf_put(b, "{", 1);
    json_time(b, &first, "start", r->start);
    json_time(b, &first, "end", r->end);
    json_knum(b, &first, "start_unix", r->start, 0);
    json_knum(b, &first, "end_unix", r->end, 0);
    json_knum(b, &first, "step_seconds", r->step, 2);
    json_knum(b, &first, "hours", r->totals.window_hours, 2);
    gp_strbuf_put(b, "}", 1);
}

static void json_shares(gp_strbuf *b, bool *first, const char *key, const gp_adv_share *s,
                        size_t n)
{
    json_key(b, first, key);
    gp_strbuf_put(b, "[", 1);
    for (size_t i = 0; i < n; i++) {
        bool f = true;

        gp_strbuf_puts(b, i ? ",{" : "{");
        json_kstr(b, &f, "key", s[i].key ? s[i].key : "");
        json_knum(b, &f, "gpu_hours", s[i].gpu_hours, 2);
        json_knum(b, &f, "dollars", s[i].dollars, 2);
        json_knum(b, &f, "idle_gpu_hours", s[i].idle_gpu_hours, 2);
        json_knum(b, &f, "waste_dollars", s[i].waste_dollars, 2);
        gp_strbuf_put(b, "}", 1);
    }
    gp_strbuf_put(b, "]", 1);
}

static void json_array(gp_strbuf *b, bool *first, const char *key, const double *v, size_t n,
                       int decimals)
{
    json_key(b, first, key);
    gp_strbuf_put(b, "[", 1);
    for (size_t i = 0; v && i < n; i++) {
        if (i)
            gp_strbuf_put(b, ",", 1);
        json_num(b, v[i], decimals);
    }
    gp_strbuf_put(b, "]", 1);
}

static void json_totals(gp_strbuf *b, const gp_adv_totals *t)
{
    bool first = true, hf = true;

    gp_strbuf_put(b, "{", 1);
    json_knum(b, &first, "window_hours", t->window_hours, 2);
    json_knum(b, &first, "gpu_hours", t->gpu_hours, 2);
    json_knum(b, &first, "active_gpu_hours", t->active_gpu_hours, 2);
    json_knum(b, &first, "idle_gpu_hours", t->idle_gpu_hours, 2);
    json_knum(b, &first, "idle_pct", t->idle_pct, 2);
    json_knum(b, &first, "dollars", t->dollars, 2);
    json_knum(b, &first, "node_dollars", t->node_dollars, 2);
    json_knum(b, &first, "waste_dollars", t->waste_dollars, 2);
    json_knum(b, &first, "recoverable_monthly_dollars", t->recoverable_monthly, 2);
    json_kint(b, &first, "pods", t->pods);
    json_kint(b, &first, "pods_without_dcgm", t->pods_without_dcgm);
    json_knum(b, &first, "gpu_hours_without_dcgm", t->gpu_hours_without_dcgm, 2);
    json_shares(b, &first, "by_namespace", t->by_namespace, t->nby_namespace);
    json_shares(b, &first, "by_class", t->by_class, t->nby_class);
    json_shares(b, &first, "by_model", t->by_model, t->nby_model);
    json_shares(b, &first, "by_gpu_model", t->by_gpu_model, t->nby_gpu_model);
    json_array(b, &first, "utilization_histogram", t->hist, GP_ADV_HIST_BUCKETS, 2);
    json_key(b, &first, "hourly");
    gp_strbuf_put(b, "{", 1);
    json_array(b, &hf, "allocated", t->alloc_hourly, t->nhours, 2);
    json_array(b, &hf, "idle", t->idle_hourly, t->nhours, 2);
    gp_strbuf_puts(b, "}}");
}

static void json_evidence(gp_strbuf *b, const gp_adv_finding *f)
{
    bool first = true;

    gp_strbuf_put(b, "{", 1);
    json_kstr(b, &first, "summary", f->evidence ? f->evidence : "");
    json_knum(b, &first, "mean_activity", f->mean, 4);
    json_knum(b, &first, "p95_activity", f->p95, 4);
    json_knum(b, &first, "fb_peak_mib", f->fb_peak_mib, 0);
    json_knum(b, &first, "samples", f->samples, 0);
    json_knum(b, &first, "coverage_hours", f->coverage_hours, 2);
    json_kbool(b, &first, "time_sliced", f->time_sliced);
    json_kbool(b, &first, "low_confidence", f->low_confidence);
    if (f->kind == GP_ADV_MIG) {
        json_kstr(b, &first, "mig_profile", f->mig_profile);
        json_kstr(b, &first, "gpu_memory", f->gpu_memory);
    } else if (f->kind == GP_ADV_MODEL) {
        json_kstr(b, &first, "to_model", f->to_model);
    } else if (f->kind == GP_ADV_GPUS) {
        json_kint(b, &first, "gpus", f->gpus);
        json_kint(b, &first, "gpus_idle", f->gpus_idle);
    }
    gp_strbuf_put(b, "}", 1);
}

static void json_finding(gp_strbuf *b, const gp_adv_finding *f, size_t rank)
{
    bool first = true;

    gp_strbuf_put(b, "{", 1);
    json_kint(b, &first, "rank", (int64_t)rank);
    json_kstr(b, &first, "kind", gp_adv_kind_str(f->kind));
    json_kstr(b, &first, "namespace", f->namespace ? f->namespace : "");
    json_kstr(b, &first, "workload", f->workload ? f->workload : "");
    json_kstr(b, &first, "workload_kind", f->workload_kind ? f->workload_kind : "");
    json_kstr(b, &first, "workload_name", f->workload_name ? f->workload_name : "");
    json_kstr(b, &first, "class", f->class_name ? f->class_name : "");
    json_kstr(b, &first, "model", f->model_key ? f->model_key : "");
    json_kstr(b, &first, "gpu_model", f->gpu_model ? f->gpu_model : "");
    json_kint(b, &first, "pods", f->pods);
    json_knum(b, &first, "hours", f->hours, 2);
    json_knum(b, &first, "dollars", f->dollars, 2);
    json_knum(b, &first, "monthly_dollars", f->monthly, 2);
    json_knum(b, &first, "dollars_per_hour", f->per_hour, 2);
    json_kstr(b, &first, "recommendation", f->recommendation ? f->recommendation : "");
    json_key(b, &first, "evidence");
    json_evidence(b, f);
    gp_strbuf_put(b, "}", 1);
}

static void render_json(const gp_adv_report *r, size_t n, gp_strbuf *b)
{
    bool first = true;

    gp_strbuf_put(b, "{", 1);
    json_kstr(b, &first, "schema", GP_ADV_SCHEMA);
    json_key(b, &first, "window");
    json_window(b, r);
    json_kstr(b, &first, "activity_metric", r->activity_metric);
    json_key(b, &first, "totals");
    json_totals(b, &r->totals);
    json_kint(b, &first, "findings_total", (int64_t)r->nfindings);
    json_key(b, &first, "findings");
    gp_strbuf_put(b, "[", 1);
    for (size_t i = 0; i < n; i++) {
        if (i)
            gp_strbuf_put(b, ",", 1);
        json_finding(b, &r->findings[i], i + 1);
    }
    gp_strbuf_put(b, "]", 1);
    json_key(b, &first, "notes");
    gp_strbuf_put(b, "[", 1);
    for (size_t i = 0; i < r->nnotes; i++) {
        if (i)
            gp_strbuf_put(b, ",", 1);
        json_str(b, r->notes[i] ? r->notes[i] : "");
    }
    gp_strbuf_puts(b, "]}\n");
}

/* ---------------------------------------------------------------------------------------------
 * Markdown. */

/* s as inline Markdown text that renders as itself: Markdown's punctuation backslash-escaped,
 * the pipe too (table cells), < > & as character references (no raw HTML), every line break
 * and control character as a space, invalid UTF-8 as U+FFFD. */
static void md_text(gp_strbuf *b, const char *s)
{
    size_t n = s ? strlen(s) : 0;

    for (size_t i = 0; i < n;) {
        uint32_t cp;

        i += gp_utf8_next(s + i, n - i, &cp);
        if (cp == '<')
            gp_strbuf_puts(b, "&lt;");
        else if (cp == '>')
            gp_strbuf_puts(b, "&gt;");
        else if (cp == '&')
            gp_strbuf_puts(b, "&amp;");
        else if (is_control(cp))
            gp_strbuf_put(b, " ", 1);
        else if (cp < 0x80 && strchr("\\`*_[]|#~!", (int)cp)) {
            gp_strbuf_put(b, "\\", 1);
            gp_strbuf_put_cp(b, cp);
        } else
            gp_strbuf_put_cp(b, cp);
    }
}

/* s's code points as they are, invalid UTF-8 as U+FFFD. */
static void md_text_raw(gp_strbuf *b, const char *s)
{
    size_t n = strlen(s);

    for (size_t i = 0; i < n;) {
        uint32_t cp;

        i += gp_utf8_next(s + i, n - i, &cp);
        gp_strbuf_put_cp(b, cp);
    }
}

/* s as a code span when it holds no backtick and no control character, else as md_text(). */
static void md_code(gp_strbuf *b, const char *s)
{
    for (const char *p = s; *p; p++) {
        if (*p == '`' || (unsigned char)*p < 0x20 || *p == 0x7f) {
            md_text(b, s);
            return;
        }
    }
    gp_strbuf_put(b, "`", 1);
    md_text_raw(b, s);
    gp_strbuf_put(b, "`", 1);
}

static void md_totals(gp_strbuf *b, const gp_adv_report *r)
{
    const gp_adv_totals *t = &r->totals;

    gp_strbuf_puts(b, "| Total | Value |\n|---|--:|\n| GPU-hours allocated | ");
    gp_adv_put_num(b, t->gpu_hours, 2);
    gp_strbuf_puts(b, " |\n| GPU-hours active | ");
    gp_adv_put_num(b, t->active_gpu_hours, 2);
    gp_strbuf_puts(b, " |\n| GPU-hours idle | ");
    gp_adv_put_num(b, t->idle_gpu_hours, 2);
    gp_strbuf_puts(b, " (");
    gp_adv_put_num(b, t->idle_pct, 1);
    gp_strbuf_puts(b, "%) |\n| GPU cost over the window | ");
    gp_adv_put_dollars(b, t->dollars);
    gp_strbuf_puts(b, " |\n| GPU node cost over the window | ");
    gp_adv_put_dollars(b, t->node_dollars);
    gp_strbuf_puts(b, " |\n| Waste in findings over the window | ");
    gp_adv_put_dollars(b, t->waste_dollars);
    gp_strbuf_puts(b, " |\n| Recoverable per month | ");
    gp_adv_put_dollars(b, t->recoverable_monthly);
    gp_strbuf_printf(b, " |\n| GPU pods (without DCGM data) | %d (%d) |\n\n", t->pods,
                     t->pods_without_dcgm);
}

static void md_finding(gp_strbuf *b, const gp_adv_finding *f, size_t rank)
{
    gp_strbuf_printf(b, "| %zu | %s%s | ", rank, gp_adv_kind_str(f->kind),
                     f->low_confidence ? " (low confidence)" : "");
    md_text(b, f->namespace);
    gp_strbuf_puts(b, " | ");
    md_text(b, f->workload);
    gp_strbuf_puts(b, " | ");
    gp_adv_put_dollars(b, f->dollars);
    gp_strbuf_puts(b, " | ");
    gp_adv_put_dollars(b, f->monthly);
    gp_strbuf_puts(b, " | ");
    md_text(b, f->recommendation);
    gp_strbuf_puts(b, " | ");
    md_text(b, f->evidence);
    gp_strbuf_puts(b, " |\n");
}

static void md_findings(gp_strbuf *b, const gp_adv_report *r, size_t n)
{
    if (n == 0) {
        gp_strbuf_puts(b, "### Findings\n\nNo findings: every allocated GPU in the window was "
                          "busy enough.\n");
        return;
    }
    if (n < r->nfindings)
        gp_strbuf_printf(b, "### Top %zu of %zu findings\n\n", n, r->nfindings);
    else
        gp_strbuf_printf(b, "### Findings (%zu)\n\n", n);
    gp_strbuf_puts(b, "| # | Kind | Namespace | Workload | $ window | $/month | Recommendation "
                      "| Evidence |\n|--:|---|---|---|--:|--:|---|---|\n");
    for (size_t i = 0; i < n; i++)
        md_finding(b, &r->findings[i], i + 1);
}

void gp_adv_put_window(gp_strbuf *b, const gp_adv_report *r)
{
    gp_adv_put_time(b, r->start);
    gp_strbuf_puts(b, " to ");
    gp_adv_put_time(b, r->end);
    gp_strbuf_puts(b, " (");
    gp_adv_put_num(b, r->totals.window_hours, 2);
    gp_strbuf_puts(b, " h, step ");
    gp_adv_put_duration(b, r->step);
    gp_strbuf_puts(b, ")");
}

static void render_markdown(const gp_adv_report *r, size_t n, gp_strbuf *b)
{
    gp_strbuf_puts(b, "## gpupack-advisor: ");
    gp_adv_put_dollars(b, r->totals.recoverable_monthly);
    gp_strbuf_puts(b, "/month recoverable\n\n");
    gp_strbuf_puts(b, "Window ");
    gp_adv_put_window(b, r);
    gp_strbuf_puts(b, ", activity from ");
    md_code(b, r->activity_metric ? r->activity_metric : "n/a");
    gp_strbuf_puts(b, ".\n\n");
    md_totals(b, r);
    md_findings(b, r, n);
    if (r->nnotes)
        gp_strbuf_puts(b, "\n### Notes\n\n");
    for (size_t i = 0; i < r->nnotes; i++) {
        gp_strbuf_puts(b, "- ");
        md_text(b, r->notes[i]);
        gp_strbuf_put(b, "\n", 1);
    }
}

/* ---------------------------------------------------------------------------------------------
 * Entry point. */

gp_status gp_adv_render(const gp_adv_report *r, gp_adv_format f, size_t top, gp_strbuf *out,
                        gp_err *err)
{
    size_t n;

    if (!r || !out) {
        gp_err_set(err, "render: no report or no buffer");
        return GP_EINVAL;
    }
    n = top && top < r->nfindings ? top : r->nfindings;
    switch (f) {
    case GP_ADV_FMT_TABLE:
        render_table(r, n, out);
        break;
    case GP_ADV_FMT_JSON:
        render_json(r, n, out);
        break;
    case GP_ADV_FMT_MARKDOWN:
        render_markdown(r, n, out);
        break;
    case GP_ADV_FMT_HTML:
        gp_adv_render_html(r, n, out);
        break;
    default:
        gp_err_set(err, "render: unknown format %d", (int)f);
        return GP_EINVAL;
    }
    if (out->failed) {
        gp_err_set(err, "render: out of memory");
        return GP_ENOMEM;
    }
    return GP_OK;
}
