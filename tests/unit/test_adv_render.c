/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of advisor/render.c, html.c and svg.c: each format on a hand-built report as a user
 * would check it (the table fits 100 columns and stays aligned, the JSON parses and carries the
 * documented fields and roundings, Markdown cells cannot break the table, HTML text cannot become
 * markup), top N, an empty report, and NaN that must never reach the JSON. */
#include "gptest.h"

#include <cjson/cJSON.h>
#include <math.h>

#include "render.h"

#define NF 4

typedef struct {
    gp_adv_finding f[NF];
    gp_adv_share ns[2];
    double alloc[3], idle[3];
    char *notes[2];
    gp_adv_report r;
} fixture;

static gp_adv_finding finding(gp_adv_kind k, char *ns, char *wl, double dollars, double monthly)
{
    return (gp_adv_finding){ .kind = k, .namespace = ns, .workload = wl,
                             .workload_kind = "Deployment", .workload_name = "x",
                             .class_name = "inference", .model_key = "",
                             .gpu_model = "NVIDIA-A100-SXM4-80GB", .pods = 2, .hours = 12.3456,
                             .dollars = dollars, .monthly = monthly, .per_hour = 1.006,
                             .mean = 0.0123456, .p95 = 0.05, .fb_peak_mib = 2048.4,
                             .samples = 1440, .coverage_hours = 12, .recommendation = "do it",
                             .evidence = "mean 1.2%" };
}

/* Three findings of three kinds, the first with a long UTF-8 name, a MIG and a GPUs one. */
static void build(fixture *x)
{
    memset(x, 0, sizeof *x);
    x->f[0] = finding(GP_ADV_IDLE, "team-\xc3\xa9\xc3\xa9\xc3\xa9-recommendations-experimental",
                      "deployment/candidate-generator-shadow-traffic-replay-\xc3\xa9\xc3\xa9\xc3"
                      "\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9-v2",
                      1310.4249, 5690.126);
    x->f[0].recommendation = "scale deployment team-recommendations-experimental/candidate-"
                             "generator-shadow-traffic-replay-v2 to zero, because nothing has "
                             "used its GPUs for a week and a half of the window";
    x->f[0].low_confidence = true;
    x->f[1] = finding(GP_ADV_MIG, "ml", "deployment/embedder", 1234567.891, 98765.4);
    x->f[1].mig_profile = "2g.20gb";
    x->f[1].gpu_memory = "11Gi";
    x->f[2] = finding(GP_ADV_GPUS, "research", "statefulset/llm-eval", 12.5, 0);
    x->f[2].gpus = 8;
    x->f[2].gpus_idle = 3;
    x->f[2].mean = NAN;
    x->f[2].fb_peak_mib = INFINITY;
    x->r.findings = x->f;
    x->r.nfindings = 3;
    x->r.start = 1764259200;
    x->r.end = 1764864000;
    x->r.step = 300;
    x->r.activity_metric = "DCGM_FI_PROF_GR_ENGINE_ACTIVE";
    x->ns[0] = (gp_adv_share){ "ml", 100, 410.5, 20, 82.1, 0 };
    x->ns[1] = (gp_adv_share){ "research", 50, 200, 0, 0, 0 };
    x->r.totals = (gp_adv_totals){ .window_hours = 168, .gpu_hours = 9800.004,
                                   .active_gpu_hours = 3000, .idle_gpu_hours = 2150.5,
                                   .idle_pct = 21.94, .dollars = 51234.567,
                                   .node_dollars = 60120, .waste_dollars = 1235000.31,
                                   .recoverable_monthly = 104455.53, .pods = 57,
                                   .by_namespace = x->ns, .nby_namespace = 2, .nhours = 3,
                                   .alloc_hourly = x->alloc, .idle_hourly = x->idle };
    x->r.totals.hist[0] = 2150.5;
    x->r.totals.hist[9] = 100;
    x->alloc[0] = 5;
    x->alloc[1] = NAN;
    x->alloc[2] = 7;
    x->idle[0] = 1;
    x->idle[1] = 2;
    x->idle[2] = 3;
    x->notes[0] = "a note long enough to wrap: the quick brown fox jumps over the lazy dog again "
                  "and again until the line is far longer than one hundred columns of a terminal";
    x->notes[1] = "escape \x1b[31mred\x1b[0m stays out";
    x->r.notes = x->notes;
    x->r.nnotes = 2;
}

/* The report rendered in f; the caller frees the text. */
static char *render(const gp_adv_report *r, gp_adv_format f, size_t top)
{
    gp_strbuf b;
    gp_err err = { { 0 } };
    char *out = NULL;
    size_t len;

    gp_strbuf_init(&b, 0);
    GP_CHECK_INT(gp_adv_render(r, f, top, &b, &err), GP_OK);
    if (gp_strbuf_take(&b, &out, &len) != GP_OK)
        gp_test_failed = 1;
    return out;
}

static size_t count(const char *s, const char *needle)
{
    size_t n = 0;

    for (const char *p = s; (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    return n;
}

/* Code points of the line starting at s (up to '\n'); *bad when a byte is not valid UTF-8. */
static size_t line_cps(const char *s, bool *bad)
{
    size_t n = strcspn(s, "\n"), w = 0;

    for (size_t i = 0; i < n; w++) {
        uint32_t cp;
        size_t len = gp_utf8_next(s + i, n - i, &cp);

        if (cp == 0xfffd && len == 1)
            *bad = true;
        i += len;
    }
    return w;
}

/* The line of text containing needle, as a pointer to its first byte (NULL: none). */
static const char *line_with(const char *text, const char *needle)
{
    const char *p = strstr(text, needle);

    if (!p)
        return NULL;
    while (p > text && p[-1] != '\n')
        p--;
    return p;
}

GP_TEST(parses_formats)
{
    gp_adv_format f = GP_ADV_FMT_JSON;

    GP_CHECK(gp_adv_format_parse("table", &f) && f == GP_ADV_FMT_TABLE);
    GP_CHECK(gp_adv_format_parse("json", &f) && f == GP_ADV_FMT_JSON);
    GP_CHECK(gp_adv_format_parse("markdown", &f) && f == GP_ADV_FMT_MARKDOWN);
    GP_CHECK(gp_adv_format_parse("html", &f) && f == GP_ADV_FMT_HTML);
    GP_CHECK(!gp_adv_format_parse("HTML", &f));
    GP_CHECK(!gp_adv_format_parse("md", &f));
    GP_CHECK(!gp_adv_format_parse("", &f));
    GP_CHECK(!gp_adv_format_parse(NULL, &f));
}

GP_TEST(refuses_unknown_format)
{
    fixture x;
    gp_strbuf b;
    gp_err err = { { 0 } };

    build(&x);
    gp_strbuf_init(&b, 0);
    GP_CHECK_INT(gp_adv_render(&x.r, (gp_adv_format)99, 0, &b, &err), GP_EINVAL);
    GP_CHECK(strstr(err.msg, "format") != NULL);
    GP_CHECK_INT(gp_adv_render(NULL, GP_ADV_FMT_JSON, 0, &b, &err), GP_EINVAL);
    gp_strbuf_free(&b);
}

static void check_dollars(double v, const char *want)
{
    gp_strbuf b;

    gp_strbuf_init(&b, 0);
    gp_adv_put_dollars(&b, v);
    GP_CHECK_STR(b.p, want);
    gp_strbuf_free(&b);
}

static void check_num(double v, int decimals, const char *want)
{
    gp_strbuf b;

    gp_strbuf_init(&b, 0);
    gp_adv_put_num(&b, v, decimals);
    GP_CHECK_STR(b.p, want);
    gp_strbuf_free(&b);
}

GP_TEST(formats_dollars_with_separators_and_cents)
{
    check_dollars(1310.42, "$1,310.42");
    check_dollars(1234567.891, "$1,234,567.89");
    check_dollars(999, "$999.00");
    check_dollars(0, "$0.00");
    check_dollars(-3.1, "-$3.10");
    check_dollars(-0.001, "$0.00");
    check_dollars(100000, "$100,000.00");
    check_dollars(NAN, "n/a");
    check_dollars(INFINITY, "n/a");
    check_num(9800.004, 2, "9,800.00");
    check_num(1234.56, 1, "1,234.6");
    check_num(12, 0, "12");
    check_num(-1234, 0, "-1,234");
}

GP_TEST(table_fits_100_columns_and_aligns)
{
    fixture x;
    char *t;
    const char *row1, *row2, *row3, *hdr;
    bool bad = false;

    build(&x);
    t = render(&x.r, GP_ADV_FMT_TABLE, 0);
    GP_CHECK(t != NULL);
    if (!t)
        return;
    for (const char *p = t; *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] ? 1 : 0)) {
        size_t w = line_cps(p, &bad);

        if (w > GP_ADV_TABLE_COLS) {
            printf("  line of %zu columns: %.*s\n", w, (int)strcspn(p, "\n"), p);
            gp_test_failed = 1;
        }
    }
    GP_CHECK(!bad); /* the truncation cut no code point in half */
    GP_CHECK(strchr(t, '\x1b') == NULL);
    hdr = line_with(t, "$ WINDOW");
    row1 = line_with(t, "$1,310.42");
    row2 = line_with(t, "$1,234,567.89");
    row3 = line_with(t, "$12.50");
    GP_CHECK(hdr && row1 && row2 && row3);
    if (hdr && row1 && row2 && row3) {
        /* right-aligned dollars end at the same column as their heading */
        size_t end = (size_t)(strstr(hdr, "$ WINDOW") - hdr) + strlen("$ WINDOW");

        GP_CHECK_INT(strstr(row2, "$1,234,567.89") - row2 + (long)strlen("$1,234,567.89"), end);
        GP_CHECK_INT(strstr(row3, "$12.50") - row3 + (long)strlen("$12.50"), end);
        /* the long name is cut with an ellipsis to exactly the width */
        GP_CHECK(strstr(row1, "\xe2\x80\xa6\n") != NULL);
        GP_CHECK_INT(line_cps(row1, &bad), GP_ADV_TABLE_COLS);
        GP_CHECK(strncmp(row1, "  1* idle", 9) == 0);
        GP_CHECK(strncmp(row2, "  2  mig", 8) == 0);
    }
    GP_CHECK(strstr(t, "ml/deployment/embedder") != NULL);
    GP_CHECK(strstr(t, "\n     \xe2\x86\x92 do it\n") != NULL);
    GP_CHECK(strstr(t, "$104,455.53/month recoverable") == t);
    GP_CHECK(strstr(t, "9,800.00 allocated, 3,000.00 active, 2,150.50 idle (21.9%)") != NULL);
    GP_CHECK(strstr(t, "step 5m") != NULL);
    GP_CHECK(strstr(t, "2025-11-27T16:00:00Z to 2025-12-04T16:00:00Z") != NULL);
    GP_CHECK(strstr(t, "DCGM_FI_PROF_GR_ENGINE_ACTIVE") != NULL);
    GP_CHECK(strstr(t, "* low confidence") != NULL);
    GP_CHECK(strstr(t, "Notes:\n  - a note long enough") != NULL);
    GP_CHECK(strstr(t, "escape ?[31mred?[0m stays out") != NULL);
    free(t);
}

GP_TEST(table_wraps_a_word_longer_than_a_line)
{
    fixture x;
    char word[400];
    char *t;
    bool bad = false;

    build(&x);
    memset(word, 'w', sizeof word - 1);
    word[sizeof word - 1] = '\0';
    x.f[0].recommendation = word;
    x.r.activity_metric = word;
    t = render(&x.r, GP_ADV_FMT_TABLE, 1);
    GP_CHECK(t != NULL);
    for (const char *p = t; t && *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] ? 1 : 0))
        GP_CHECK(line_cps(p, &bad) <= GP_ADV_TABLE_COLS);
    GP_CHECK(t && count(t, "w") >= 2 * 399); /* nothing of it lost */
    GP_CHECK(t && strstr(t, "Top 1 of 3 findings.") != NULL);
    free(t);
}

static cJSON *parse_json(const char *s)
{
    cJSON *j = s ? cJSON_ParseWithLengthOpts(s, strlen(s) + 1, NULL, 1) : NULL;

    GP_CHECK(j != NULL);
    return j;
}

static cJSON *at(const cJSON *o, const char *k)
{
    return cJSON_GetObjectItemCaseSensitive(o, k);
}

static double num_at(const cJSON *o, const char *k)
{
    const cJSON *v = at(o, k);

    GP_CHECK(cJSON_IsNumber(v));
    return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static const char *str_at(const cJSON *o, const char *k)
{
    const cJSON *v = at(o, k);

    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void check_json_finding0(const cJSON *f)
{
    const cJSON *ev = at(f, "evidence");
    const char *ns = str_at(f, "namespace");

    GP_CHECK_INT(num_at(f, "rank"), 1);
    GP_CHECK_STR(str_at(f, "kind"), "idle");
    GP_CHECK(ns && strncmp(ns, "team-\xc3\xa9", 7) == 0);
    GP_CHECK_NEAR(num_at(f, "dollars"), 1310.42, 1e-9);
    GP_CHECK_NEAR(num_at(f, "monthly_dollars"), 5690.13, 1e-9);
    GP_CHECK_NEAR(num_at(f, "dollars_per_hour"), 1.01, 1e-9);
    GP_CHECK_NEAR(num_at(f, "hours"), 12.35, 1e-9);
    GP_CHECK_INT(num_at(f, "pods"), 2);
    GP_CHECK_STR(str_at(f, "workload_kind"), "Deployment");
    GP_CHECK_STR(str_at(f, "class"), "inference");
    GP_CHECK_STR(str_at(f, "gpu_model"), "NVIDIA-A100-SXM4-80GB");
    GP_CHECK(str_at(f, "recommendation") && strstr(str_at(f, "recommendation"), "to zero"));
    GP_CHECK_NEAR(num_at(ev, "mean_activity"), 0.0123, 1e-9);
    GP_CHECK_NEAR(num_at(ev, "fb_peak_mib"), 2048, 1e-9);
    GP_CHECK(cJSON_IsTrue(at(ev, "low_confidence")));
    GP_CHECK(cJSON_IsFalse(at(ev, "time_sliced")));
    GP_CHECK(at(ev, "mig_profile") == NULL); /* kind-specific fields only on their kind */
}

static void check_json_kinds(const cJSON *fs)
{
    const cJSON *mig = at(cJSON_GetArrayItem(fs, 1), "evidence");
    const cJSON *gpus = cJSON_GetArrayItem(fs, 2), *gev = at(gpus, "evidence");

    GP_CHECK_STR(str_at(mig, "mig_profile"), "2g.20gb");
    GP_CHECK_STR(str_at(mig, "gpu_memory"), "11Gi");
    GP_CHECK_NEAR(num_at(cJSON_GetArrayItem(fs, 1), "dollars"), 1234567.89, 1e-6);
    GP_CHECK_INT(num_at(gev, "gpus"), 8);
    GP_CHECK_INT(num_at(gev, "gpus_idle"), 3);
    GP_CHECK(cJSON_IsNull(at(gev, "mean_activity"))); /* NaN */
    GP_CHECK(cJSON_IsNull(at(gev, "fb_peak_mib")));   /* infinity */
    GP_CHECK_NEAR(num_at(gpus, "monthly_dollars"), 0, 0);
}

static void check_json_totals(const cJSON *t)
{
    const cJSON *hist = at(t, "utilization_histogram"), *hourly = at(t, "hourly");
    const cJSON *alloc = at(hourly, "allocated"), *ns = at(t, "by_namespace");

    GP_CHECK_NEAR(num_at(t, "gpu_hours"), 9800, 1e-9);
    GP_CHECK_NEAR(num_at(t, "dollars"), 51234.57, 1e-9);
    GP_CHECK_NEAR(num_at(t, "waste_dollars"), 1235000.31, 1e-6);
    GP_CHECK_NEAR(num_at(t, "recoverable_monthly_dollars"), 104455.53, 1e-6);
    GP_CHECK_NEAR(num_at(t, "idle_pct"), 21.94, 1e-9);
    GP_CHECK_INT(num_at(t, "pods"), 57);
    GP_CHECK_INT(cJSON_GetArraySize(hist), GP_ADV_HIST_BUCKETS);
    GP_CHECK_NEAR(cJSON_GetArrayItem(hist, 0)->valuedouble, 2150.5, 1e-9);
    GP_CHECK_INT(cJSON_GetArraySize(alloc), 3);
    GP_CHECK(cJSON_IsNull(cJSON_GetArrayItem(alloc, 1)));
    GP_CHECK_INT(cJSON_GetArraySize(at(hourly, "idle")), 3);
    GP_CHECK_INT(cJSON_GetArraySize(ns), 2);
    GP_CHECK_STR(str_at(cJSON_GetArrayItem(ns, 0), "key"), "ml");
    GP_CHECK_NEAR(num_at(cJSON_GetArrayItem(ns, 0), "waste_dollars"), 82.1, 1e-9);
    GP_CHECK(cJSON_IsArray(at(t, "by_class")) && cJSON_GetArraySize(at(t, "by_class")) == 0);
    GP_CHECK(cJSON_IsArray(at(t, "by_model")) && cJSON_IsArray(at(t, "by_gpu_model")));
}

GP_TEST(json_parses_with_the_documented_fields)
{
    fixture x;
    char *s;
    cJSON *j;
    const cJSON *w;

    build(&x);
    s = render(&x.r, GP_ADV_FMT_JSON, 0);
    j = parse_json(s);
    if (!j) {
        free(s);
        return;
    }
    w = at(j, "window");
    GP_CHECK_STR(str_at(j, "schema"), "gpupack.io/advisor-report/v1");
    GP_CHECK_STR(str_at(w, "start"), "2025-11-27T16:00:00Z");
    GP_CHECK_STR(str_at(w, "end"), "2025-12-04T16:00:00Z");
    GP_CHECK_INT(num_at(w, "step_seconds"), 300);
    GP_CHECK_NEAR(num_at(w, "hours"), 168, 0);
    GP_CHECK_STR(str_at(j, "activity_metric"), "DCGM_FI_PROF_GR_ENGINE_ACTIVE");
    GP_CHECK_INT(num_at(j, "findings_total"), 3);
    GP_CHECK_INT(cJSON_GetArraySize(at(j, "findings")), 3);
    check_json_finding0(cJSON_GetArrayItem(at(j, "findings"), 0));
    check_json_kinds(at(j, "findings"));
    check_json_totals(at(j, "totals"));
    GP_CHECK_INT(cJSON_GetArraySize(at(j, "notes")), 2);
    GP_CHECK_STR(cJSON_GetArrayItem(at(j, "notes"), 1)->valuestring,
                 "escape \x1b[31mred\x1b[0m stays out");
    GP_CHECK(strstr(s, "NaN") == NULL && strstr(s, "Infinity") == NULL && strstr(s, "nan") == NULL);
    GP_CHECK(strstr(s, ":inf") == NULL && strstr(s, ":-inf") == NULL && strstr(s, ",inf") == NULL);
    cJSON_Delete(j);
    free(s);
}

GP_TEST(json_replaces_invalid_utf8_and_nan_totals)
{
    fixture x;
    char *s;
    cJSON *j;

    build(&x);
    x.f[1].workload = "deployment/bad-\xff\xc3-name\"\\";
    x.r.totals.idle_pct = NAN;
    x.r.totals.dollars = -INFINITY;
    x.r.start = NAN;
    x.r.activity_metric = NULL;
    s = render(&x.r, GP_ADV_FMT_JSON, 0);
    j = parse_json(s);
    if (j) {
        GP_CHECK_STR(str_at(cJSON_GetArrayItem(at(j, "findings"), 1), "workload"),
                     "deployment/bad-\xef\xbf\xbd\xef\xbf\xbd-name\"\\");
        GP_CHECK(cJSON_IsNull(at(at(j, "totals"), "idle_pct")));
        GP_CHECK(cJSON_IsNull(at(at(j, "totals"), "dollars")));
        GP_CHECK(cJSON_IsNull(at(at(j, "window"), "start")));
        GP_CHECK(cJSON_IsNull(at(j, "activity_metric")));
    }
    cJSON_Delete(j);
    free(s);
}

GP_TEST(top_n_limits_every_format)
{
    fixture x;
    char *s;
    cJSON *j;

    build(&x);
    s = render(&x.r, GP_ADV_FMT_JSON, 1);
    j = parse_json(s);
    GP_CHECK(j && cJSON_GetArraySize(at(j, "findings")) == 1);
    GP_CHECK(j && num_at(j, "findings_total") == 3);
    cJSON_Delete(j);
    free(s);
    s = render(&x.r, GP_ADV_FMT_TABLE, 2);
    GP_CHECK(s && strstr(s, "Top 2 of 3 findings.") && !strstr(s, "llm-eval"));
    free(s);
    s = render(&x.r, GP_ADV_FMT_MARKDOWN, 1);
    GP_CHECK(s && strstr(s, "### Top 1 of 3 findings") && !strstr(s, "embedder"));
    free(s);
    s = render(&x.r, GP_ADV_FMT_HTML, 2);
    GP_CHECK(s && strstr(s, "Top 2 of 3 findings") && strstr(s, "id=\"finding-2\"") &&
             !strstr(s, "id=\"finding-3\""));
    free(s);
    s = render(&x.r, GP_ADV_FMT_JSON, 10); /* more than there are: all of them */
    j = parse_json(s);
    GP_CHECK(j && cJSON_GetArraySize(at(j, "findings")) == 3);
    cJSON_Delete(j);
    free(s);
}

/* Every table row of the Markdown (a line starting with '|') has the same number of unescaped
 * pipes as its header row. */
static void check_md_rows(const char *s)
{
    size_t want = 0;

    for (const char *p = strstr(s, "| # |"); p && *p == '|'; p += strcspn(p, "\n") + 1) {
        size_t n = 0, len = strcspn(p, "\n");

        for (size_t i = 0; i < len; i++)
            n += p[i] == '|' && (i == 0 || p[i - 1] != '\\');
        if (want == 0)
            want = n;
        GP_CHECK_INT(n, want);
        if (!p[len])
            break;
    }
    GP_CHECK_INT(want, 9);
}

GP_TEST(markdown_escapes_cells)
{
    fixture x;
    char *s;

    build(&x);
    x.f[1].workload = "deployment/a|b";
    x.f[1].recommendation = "line one\nline two | <b>bold</b> *star* `tick`";
    s = render(&x.r, GP_ADV_FMT_MARKDOWN, 0);
    GP_CHECK(s != NULL);
    if (!s)
        return;
    GP_CHECK(strstr(s, "## gpupack-advisor: $104,455.53/month recoverable") == s);
    GP_CHECK(strstr(s, "| deployment/a\\|b |") != NULL);
    GP_CHECK(strstr(s, "line one line two \\| &lt;b&gt;bold&lt;/b&gt; \\*star\\* "
                       "\\`tick\\`") != NULL);
    GP_CHECK(strstr(s, "| GPU cost over the window | $51,234.57 |") != NULL);
    GP_CHECK(strstr(s, "| 1 | idle (low confidence) |") != NULL);
    GP_CHECK(strstr(s, "`DCGM_FI_PROF_GR_ENGINE_ACTIVE`") != NULL);
    GP_CHECK(strstr(s, "### Notes\n\n- a note") != NULL);
    GP_CHECK(strchr(s, '\x1b') == NULL);
    check_md_rows(s);
    free(s);
}

GP_TEST(html_escapes_text_and_loads_nothing)
{
    fixture x;
    char *s;

    build(&x);
    x.f[1].workload = "deployment/<b>\"x\"&'y'</b>";
    x.notes[0] = "<script>alert(1)</script>";
    s = render(&x.r, GP_ADV_FMT_HTML, 0);
    GP_CHECK(s != NULL);
    if (!s)
        return;
    GP_CHECK(strstr(s, "deployment/&lt;b&gt;&quot;x&quot;&amp;&#39;y&#39;&lt;/b&gt;") != NULL);
    GP_CHECK(strstr(s, "<b>") == NULL);
    GP_CHECK(strstr(s, "<script") == NULL);
    GP_CHECK(strstr(s, "&lt;script&gt;alert(1)&lt;/script&gt;") != NULL);
    GP_CHECK(strstr(s, "http://") == NULL && strstr(s, "https://") == NULL);
    GP_CHECK(strstr(s, "src=") == NULL && strstr(s, "href=") == NULL && strstr(s, "url(") == NULL);
    GP_CHECK(strstr(s, "default-src 'none'") != NULL);
    GP_CHECK_INT(count(s, "<svg"), 5);
    GP_CHECK_INT(count(s, "</svg>"), 5);
    GP_CHECK(strstr(s, "<h1 id=\"headline\">$104,455.53/month recoverable</h1>") != NULL);
    GP_CHECK(strstr(s, "ml/deployment") == NULL); /* namespace and workload in their own cells */
    GP_CHECK(strstr(s, "<td class=\"ns\">ml</td>") != NULL);
    GP_CHECK(strstr(s, "low confidence") != NULL);
    GP_CHECK(strstr(s, "GPU cost by namespace") && strstr(s, "GPU cost by model"));
    GP_CHECK(strstr(s, "Allocated GPU-hours by mean GPU activity") != NULL);
    GP_CHECK(strstr(s, "Allocated and idle GPUs over time") != NULL);
    GP_CHECK(strstr(s, ">GPU-hours</text>") != NULL); /* an axis label */
    GP_CHECK(strstr(s, "\x1b") == NULL);
    GP_CHECK(strstr(s, "</html>\n") != NULL);
    free(s);
}

GP_TEST(html_groups_many_namespaces)
{
    fixture x;
    gp_adv_share ns[14];
    char names[14][8];
    char *s;

    build(&x);
    for (size_t i = 0; i < 14; i++) {
        snprintf(names[i], sizeof names[i], "ns-%zu", i);
        ns[i] = (gp_adv_share){ names[i], 10, 100.0 - (double)i, 1, 5, 0 };
    }
    x.r.totals.by_namespace = ns;
    x.r.totals.nby_namespace = 14;
    s = render(&x.r, GP_ADV_FMT_HTML, 0);
    GP_CHECK(s && strstr(s, ">ns-9<") && !strstr(s, ">ns-10<") && strstr(s, "(4 others)"));
    free(s);
}

GP_TEST(empty_report_renders_in_every_format)
{
    gp_adv_report r;
    char *s;
    cJSON *j;

    memset(&r, 0, sizeof r);
    s = render(&r, GP_ADV_FMT_TABLE, 0);
    GP_CHECK(s && strstr(s, "$0.00/month recoverable") == s && strstr(s, "No findings"));
    GP_CHECK(s && strstr(s, "Activity   n/a") != NULL);
    free(s);
    s = render(&r, GP_ADV_FMT_JSON, 5);
    j = parse_json(s);
    if (j) {
        GP_CHECK_INT(cJSON_GetArraySize(at(j, "findings")), 0);
        GP_CHECK_INT(cJSON_GetArraySize(at(j, "notes")), 0);
        GP_CHECK_INT(cJSON_GetArraySize(at(at(at(j, "totals"), "hourly"), "idle")), 0);
        GP_CHECK_NEAR(num_at(at(j, "totals"), "recoverable_monthly_dollars"), 0, 0);
    }
    cJSON_Delete(j);
    free(s);
    s = render(&r, GP_ADV_FMT_MARKDOWN, 0);
    GP_CHECK(s && strstr(s, "No findings") && !strstr(s, "### Notes"));
    free(s);
    s = render(&r, GP_ADV_FMT_HTML, 0);
    GP_CHECK(s && count(s, "<svg") == 5 && count(s, ">no data<") == 5);
    GP_CHECK(s && strstr(s, "id=\"no-findings\"") && strstr(s, "NaN") == NULL);
    free(s);
}

/* Random bytes (a fixed seed) in every name: the JSON still parses and holds U+FFFD for what was
 * not UTF-8, the table still fits and carries no control character. */
GP_TEST(random_names_keep_every_format_valid)
{
    unsigned seed = 42;

    for (int round = 0; round < 200; round++) {
        char ns[40], wl[120];
        fixture x;
        char *j, *t, *h;
        cJSON *doc;
        bool bad = false;

        for (size_t i = 0; i < sizeof ns - 1; i++)
            ns[i] = (char)(1 + (seed = seed * 1103515245u + 12345u) % 255);
        for (size_t i = 0; i < sizeof wl - 1; i++)
            wl[i] = (char)(1 + (seed = seed * 1103515245u + 12345u) % 255);
        ns[sizeof ns - 1] = wl[sizeof wl - 1] = '\0';
        build(&x);
        x.f[0].namespace = ns;
        x.f[0].workload = wl;
        x.f[1].recommendation = wl;
        x.notes[0] = ns;
        j = render(&x.r, GP_ADV_FMT_JSON, 0);
        doc = parse_json(j);
        GP_CHECK(doc && cJSON_IsString(at(cJSON_GetArrayItem(at(doc, "findings"), 0), "workload")));
        cJSON_Delete(doc);
        t = render(&x.r, GP_ADV_FMT_TABLE, 0);
        for (const char *p = t; t && *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] ? 1 : 0))
            GP_CHECK(line_cps(p, &bad) <= GP_ADV_TABLE_COLS);
        GP_CHECK(!bad && t && !strchr(t, '\x1b') && !strchr(t, '\r') && !strchr(t, '\b'));
        h = render(&x.r, GP_ADV_FMT_HTML, 0);
        GP_CHECK(h && count(h, "<svg") == 5 && !strstr(h, "<script"));
        free(j);
        free(t);
        free(h);
        if (gp_test_failed)
            return;
    }
}

GP_MAIN(GP_CASE(parses_formats), GP_CASE(refuses_unknown_format),
        GP_CASE(formats_dollars_with_separators_and_cents),
        GP_CASE(table_fits_100_columns_and_aligns), GP_CASE(table_wraps_a_word_longer_than_a_line),
        GP_CASE(json_parses_with_the_documented_fields),
        GP_CASE(json_replaces_invalid_utf8_and_nan_totals), GP_CASE(top_n_limits_every_format),
        GP_CASE(markdown_escapes_cells), GP_CASE(html_escapes_text_and_loads_nothing),
        GP_CASE(html_groups_many_namespaces), GP_CASE(empty_report_renders_in_every_format),
        GP_CASE(random_names_keep_every_format_valid))
