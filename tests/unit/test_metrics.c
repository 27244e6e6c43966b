/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of lib/metrics.c: the Prometheus text format and the registry's bounds. */
#include "gpupack/metrics.h"

#include <math.h>
#include <pthread.h>

#include "gptest.h"
#include "metric_read.h"

static int count_occurrences(const char *hay, const char *needle)
{
    int n = 0;

    for (const char *p = strstr(hay, needle); p != NULL; p = strstr(p + 1, needle))
        n++;
    return n;
}

GP_TEST(counter_and_gauge_render)
{
    gp_metrics *m = gp_metrics_new();
    char *out;
    size_t len = 0;

    gp_metrics_add(m, "gpupack_x_total", "Things.", "code=\"200\"", 2);
    gp_metrics_add(m, "gpupack_x_total", "Ignored later help.", "code=\"404\"", 1);
    gp_metrics_add(m, "gpupack_x_total", "Things.", "code=\"200\"", 3);
    gp_metrics_set(m, "gpupack_expiry_seconds", "When.", "", 1767225600);
    gp_metrics_set(m, "gpupack_ratio", "Ratio.", "", 0.25);
    out = gp_metrics_render(m, &len);
    GP_CHECK(out != NULL);
    if (out == NULL) { /* failed above; the checks below would read NULL */
        gp_metrics_free(m);
        return;
    }
    GP_CHECK_INT(len, strlen(out));
    GP_CHECK(strstr(out, "# HELP gpupack_x_total Things.\n# TYPE gpupack_x_total counter\n"
                         "gpupack_x_total{code=\"200\"} 5\ngpupack_x_total{code=\"404\"} 1\n") !=
             NULL);
    GP_CHECK_INT(count_occurrences(out, "# TYPE gpupack_x_total"), 1);
    GP_CHECK(strstr(out, "# TYPE gpupack_expiry_seconds gauge\ngpupack_expiry_seconds "
                         "1767225600\n") != NULL);
    GP_CHECK(strstr(out, "gpupack_ratio 0.25\n") != NULL);
    GP_CHECK(strstr(out, "gpupack_metrics_dropped_series_total 0\n") != NULL);
    GP_CHECK(metric_value(m, "gpupack_x_total", "code=\"200\"") == 5);
    GP_CHECK(metric_value(m, "gpupack_x_total", "code=\"500\"") == 0);
    GP_CHECK(metric_value(m, "gpupack_ratio", "") == 0.25);
    GP_CHECK(metric_value(m, "gpupack_ratio", NULL) == 0.25);
    free(out);
    gp_metrics_free(m);
}

GP_TEST(histogram_cumulative_with_inf_sum_count)
{
    gp_metrics *m = gp_metrics_new();
    const char *lbl = "server=\"webhook\",route=\"/mutate\"";
    char *out;

    gp_metrics_observe(m, "gpupack_d_seconds", "Latency.", lbl, 0.00003); /* first bucket */
    gp_metrics_observe(m, "gpupack_d_seconds", "Latency.", lbl, 0.001);   /* exactly on le */
    gp_metrics_observe(m, "gpupack_d_seconds", "Latency.", lbl, 0.3);
    gp_metrics_observe(m, "gpupack_d_seconds", "Latency.", lbl, 10);      /* only +Inf */
    gp_metrics_observe(m, "gpupack_d_seconds", "Latency.", "", 0.002);
    out = gp_metrics_render(m, NULL);
    GP_CHECK(out != NULL);
    if (out == NULL) { /* failed above; the checks below would read NULL */
        gp_metrics_free(m);
        return;
    }
    GP_CHECK_INT(count_occurrences(out, "# HELP gpupack_d_seconds"), 1);
    GP_CHECK(strstr(out, "# TYPE gpupack_d_seconds histogram\n") != NULL);
    GP_CHECK(strstr(out, "gpupack_d_seconds_bucket{server=\"webhook\",route=\"/mutate\","
                         "le=\"5e-05\"} 1\n") != NULL);
    GP_CHECK(strstr(out, "route=\"/mutate\",le=\"0.0005\"} 1\n") != NULL);
    GP_CHECK(strstr(out, "route=\"/mutate\",le=\"0.001\"} 2\n") != NULL);
    GP_CHECK(strstr(out, "route=\"/mutate\",le=\"0.25\"} 2\n") != NULL);
    GP_CHECK(strstr(out, "route=\"/mutate\",le=\"0.5\"} 3\n") != NULL);
    GP_CHECK(strstr(out, "route=\"/mutate\",le=\"2.5\"} 3\n") != NULL);
    GP_CHECK(strstr(out, "route=\"/mutate\",le=\"+Inf\"} 4\n") != NULL);
    GP_CHECK(strstr(out, "gpupack_d_seconds_sum{server=\"webhook\",route=\"/mutate\"} 10.30103\n")
             != NULL);
    GP_CHECK(strstr(out, "gpupack_d_seconds_count{server=\"webhook\",route=\"/mutate\"} 4\n") !=
             NULL);
    GP_CHECK(strstr(out, "gpupack_d_seconds_bucket{le=\"0.0025\"} 1\n") != NULL);
    GP_CHECK(strstr(out, "gpupack_d_seconds_bucket{le=\"+Inf\"} 1\n") != NULL);
    GP_CHECK(strstr(out, "gpupack_d_seconds_sum 0.002\ngpupack_d_seconds_count 1\n") != NULL);
    GP_CHECK(metric_value(m, "gpupack_d_seconds", lbl) == 4);
    free(out);
    gp_metrics_free(m);
}

GP_TEST(help_escaped_and_specials)
{
    gp_metrics *m = gp_metrics_new();
    char *out;

    gp_metrics_set(m, "gpupack_g", "Line one\nback\\slash", "", INFINITY);
    gp_metrics_set(m, "gpupack_h", "h", "", -INFINITY);
    gp_metrics_set(m, "gpupack_i", "i", "", NAN);
    out = gp_metrics_render(m, NULL);
    GP_CHECK(strstr(out, "# HELP gpupack_g Line one\\nback\\\\slash\n") != NULL);
    GP_CHECK(strstr(out, "gpupack_g +Inf\n") != NULL);
    GP_CHECK(strstr(out, "gpupack_h -Inf\n") != NULL);
    GP_CHECK(strstr(out, "gpupack_i NaN\n") != NULL);
    free(out);
    gp_metrics_free(m);
}

GP_TEST(series_bounded_and_misuse_dropped)
{
    gp_metrics *m = gp_metrics_new();
    char lbl[64], *out;

    for (int i = 0; i < GP_METRICS_MAX_SERIES + 10; i++) {
        snprintf(lbl, sizeof(lbl), "n=\"%d\"", i);
        gp_metrics_add(m, "gpupack_many_total", "Many.", lbl, 1);
    }
    GP_CHECK(metric_value(m, "gpupack_metrics_dropped_series_total", "") == 10);
    GP_CHECK(metric_value(m, "gpupack_many_total", "n=\"0\"") == 1);
    GP_CHECK(metric_value(m, "gpupack_many_total", "n=\"1030\"") == 0);
    gp_metrics_add(m, "gpupack_many_total", "Many.", "n=\"0\"", 1); /* existing still counts */
    GP_CHECK(metric_value(m, "gpupack_many_total", "n=\"0\"") == 2);
    gp_metrics_set(m, "gpupack_many_total", "Wrong kind.", "n=\"0\"", 7); /* kind mismatch */
    gp_metrics_add(m, "bad name", "x", "", 1);
    gp_metrics_add(m, "9starts_with_digit", "x", "", 1);
    gp_metrics_add(m, NULL, "x", "", 1);
    GP_CHECK(metric_value(m, "gpupack_metrics_dropped_series_total", "") == 14);
    out = gp_metrics_render(m, NULL);
    GP_CHECK(strstr(out, "gpupack_metrics_dropped_series_total 14\n") != NULL);
    GP_CHECK(strstr(out, "bad name") == NULL);
    free(out);
    gp_metrics_free(m);
}

GP_TEST(null_registry_harmless)
{
    gp_metrics_add(NULL, "gpupack_a_total", "a", "", 1);
    gp_metrics_set(NULL, "gpupack_a", "a", "", 1);
    gp_metrics_observe(NULL, "gpupack_a_seconds", "a", "", 1);
    GP_CHECK(metric_value(NULL, "gpupack_a_total", "") == 0);
    GP_CHECK(gp_metrics_render(NULL, NULL) == NULL);
    gp_metrics_free(NULL);
}

static void *bump(void *arg)
{
    for (int i = 0; i < 10000; i++) {
        gp_metrics_add(arg, "gpupack_c_total", "c", "k=\"a\"", 1);
        gp_metrics_observe(arg, "gpupack_c_seconds", "c", "k=\"a\"", 0.001);
    }
    return NULL;
}

GP_TEST(concurrent_updates_counted)
{
    gp_metrics *m = gp_metrics_new();
    pthread_t t[8];

    for (int i = 0; i < 8; i++)
        pthread_create(&t[i], NULL, bump, m);
    for (int i = 0; i < 8; i++)
        pthread_join(t[i], NULL);
    GP_CHECK(metric_value(m, "gpupack_c_total", "k=\"a\"") == 80000);
    GP_CHECK(metric_value(m, "gpupack_c_seconds", "k=\"a\"") == 80000);
    gp_metrics_free(m);
}

typedef struct {
    gp_metrics *m;
    gp_counter *c;
    gp_histogram *h;
} handles;

static void *bump_handles(void *arg)
{
    handles *hs = arg;

    for (int i = 0; i < 10000; i++) {
        gp_counter_add(hs->c, 1);
        gp_metrics_add(hs->m, "gpupack_h_total", "h", "k=\"a\"", 1); /* the same series by name */
        gp_histogram_observe(hs->m, hs->h, 0.001);
    }
    return NULL;
}

/* A handle is the series gp_metrics_add() names: it renders at 0 once taken, counts with and
 * without the lock together exactly, and a refused or NULL one does nothing. */
GP_TEST(handles_count_the_same_series)
{
    gp_metrics *m = gp_metrics_new();
    handles hs = { m, gp_metrics_counter(m, "gpupack_h_total", "h", "k=\"a\""),
                   gp_metrics_histogram(m, "gpupack_h_seconds", "h", "k=\"a\"") };
    pthread_t t[8];
    char *out = gp_metrics_render(m, NULL);

    GP_CHECK(hs.c != NULL && hs.h != NULL);
    GP_CHECK(strstr(out, "gpupack_h_total{k=\"a\"} 0\n") != NULL);
    GP_CHECK(strstr(out, "gpupack_h_seconds_count{k=\"a\"} 0\n") != NULL);
    free(out);
    for (int i = 0; i < 8; i++)
        pthread_create(&t[i], NULL, bump_handles, &hs);
    for (int i = 0; i < 8; i++)
        pthread_join(t[i], NULL);
    GP_CHECK(metric_value(m, "gpupack_h_total", "k=\"a\"") == 160000);
    GP_CHECK(metric_value(m, "gpupack_h_seconds", "k=\"a\"") == 80000);
    out = gp_metrics_render(m, NULL);
    GP_CHECK(strstr(out, "gpupack_h_seconds_bucket{k=\"a\",le=\"0.001\"} 80000\n") != NULL);
    GP_CHECK(count_occurrences(out, "gpupack_h_total{") == 1);
    free(out);
    gp_metrics_set(m, "gpupack_g", "g", "", 1);
    GP_CHECK(gp_metrics_counter(m, "gpupack_g", "g", "") == NULL); /* a gauge's name */
    GP_CHECK(gp_metrics_histogram(m, "gpupack_h_total", "h", "") == NULL); /* a counter's */
    GP_CHECK(metric_value(m, "gpupack_metrics_dropped_series_total", "") == 2);
    gp_counter_add(NULL, 1);
    gp_histogram_observe(m, NULL, 1);
    GP_CHECK(gp_metrics_counter(NULL, "gpupack_h_total", "h", "") == NULL);
    gp_metrics_free(m);
}

GP_TEST(set_only_keeps_one_series)
{
    gp_metrics *m = gp_metrics_new();
    char labels[64], *out;

    /* Neighbours in the table must stay findable after removals shift entries back. */
    for (int i = 0; i < 300; i++) {
        snprintf(labels, sizeof(labels), "n=\"%d\"", i);
        gp_metrics_add(m, "gpupack_other_total", "Other.", labels, (uint64_t)i + 1);
    }
    /* Far more changes than GP_METRICS_MAX_SERIES: old series are freed, not accumulated. */
    for (int i = 0; i < 3000; i++) {
        snprintf(labels, sizeof(labels), "digest=\"%04d\"", i);
        gp_metrics_set_only(m, "gpupack_info", "Info.", labels, 1);
    }
    for (int i = 0; i < 300; i++) {
        snprintf(labels, sizeof(labels), "n=\"%d\"", i);
        GP_CHECK(metric_value(m, "gpupack_other_total", labels) == i + 1);
    }
    GP_CHECK(metric_value(m, "gpupack_info", "digest=\"2999\"") == 1);
    GP_CHECK(metric_value(m, "gpupack_info", "digest=\"2998\"") == 0);
    GP_CHECK(metric_value(m, "gpupack_metrics_dropped_series_total", NULL) == 0);
    out = gp_metrics_render(m, NULL);
    GP_CHECK(strstr(out, "# TYPE gpupack_info gauge\ngpupack_info{digest=\"2999\"} 1\n# HELP") !=
             NULL);
    GP_CHECK(count_occurrences(out, "gpupack_info{") == 1);
    free(out);
    gp_metrics_free(m);
}

/* Two registries served as one exposition (the advisor's process metrics, then its last run's
 * cost metrics): the second renders without the dropped-series family, whose count moves to the
 * first, so the text has each family once. */
GP_TEST(second_registry_served_after_the_first)
{
    gp_metrics *proc = gp_metrics_new(), *part = gp_metrics_new();
    char *a, *b, lbl[64];

    gp_metrics_add(proc, "gpupack_runs_total", "Runs.", "", 1);
    gp_metrics_add(proc, "bad name", "x", "", 1); /* one drop in the first */
    for (int i = 0; i < GP_METRICS_MAX_SERIES + 3; i++) {
        snprintf(lbl, sizeof(lbl), "w=\"%d\"", i);
        gp_metrics_set(part, "gpupack_cost", "Cost.", lbl, 1);
    }
    GP_CHECK(gp_metrics_dropped(part) == 3);
    b = gp_metrics_render_families(part, NULL);
    gp_metrics_count_dropped(proc, gp_metrics_dropped(part));
    a = gp_metrics_render(proc, NULL);
    GP_CHECK(a != NULL && b != NULL);
    GP_CHECK(strstr(b, "gpupack_metrics_dropped_series_total") == NULL);
    GP_CHECK(strstr(b, "# TYPE gpupack_cost gauge\ngpupack_cost{w=\"0\"} 1\n") != NULL);
    GP_CHECK(count_occurrences(a, "# HELP gpupack_metrics_dropped_series_total") == 1);
    GP_CHECK(strstr(a, "\ngpupack_metrics_dropped_series_total 4\n") != NULL);
    GP_CHECK(gp_metrics_dropped(NULL) == 0 && gp_metrics_render_families(NULL, NULL) == NULL);
    gp_metrics_count_dropped(NULL, 1);
    free(a);
    free(b);
    gp_metrics_free(proc);
    gp_metrics_free(part);
}

GP_MAIN(GP_CASE(counter_and_gauge_render), GP_CASE(histogram_cumulative_with_inf_sum_count),
        GP_CASE(help_escaped_and_specials), GP_CASE(series_bounded_and_misuse_dropped),
        GP_CASE(null_registry_harmless), GP_CASE(concurrent_updates_counted),
        GP_CASE(handles_count_the_same_series), GP_CASE(set_only_keeps_one_series),
        GP_CASE(second_registry_served_after_the_first))
