/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of gpupack-advisor serve's pure parts: the ConfigMap objects advisor/cmwrite.c
 * sends (one key replaced, everything else kept, resourceVersion as read) and the cost metrics
 * of advisor/serve.c (waste series bounded by --top-workloads, the rest "other"). */
#include "gptest.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cmwrite.h"
#include "gpupack/advise.h"
#include "gpupack/metrics.h"
#include "serve.h"

GP_TEST(new_object_is_a_labelled_configmap_with_the_key)
{
    char *t = gp_cm_new_object("gpupack-system", "gpupack-recommendations", "recommendations.json",
                               "{\"a\":1}");
    cJSON *o = cJSON_Parse(t);
    const cJSON *md = cJSON_GetObjectItemCaseSensitive(o, "metadata");

    GP_CHECK(o != NULL);
    GP_CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "kind")), "ConfigMap");
    GP_CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(md, "namespace")),
                 "gpupack-system");
    GP_CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(md, "name")),
                 "gpupack-recommendations");
    GP_CHECK(cJSON_GetObjectItemCaseSensitive(md, "resourceVersion") == NULL);
    GP_CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
                     cJSON_GetObjectItemCaseSensitive(o, "data"), "recommendations.json")),
                 "{\"a\":1}");
    cJSON_Delete(o);
    free(t);
}

GP_TEST(with_key_replaces_one_key_and_keeps_the_rest)
{
    const char *cur = "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"r\","
                      "\"namespace\":\"n\",\"resourceVersion\":\"42\",\"labels\":{\"x\":\"y\"},"
                      "\"annotations\":{\"note\":\"kept\"}},\"data\":{\"recommendations.json\":"
                      "\"old\",\"edited-by\":\"someone-else\"}}";
    char *t = gp_cm_with_key(cur, strlen(cur), "recommendations.json", "new");
    cJSON *o = cJSON_Parse(t);
    const cJSON *md = cJSON_GetObjectItemCaseSensitive(o, "metadata");
    const cJSON *data = cJSON_GetObjectItemCaseSensitive(o, "data");

    GP_CHECK(o != NULL);
    GP_CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(md, "resourceVersion")),
                 "42");
    GP_CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
                     cJSON_GetObjectItemCaseSensitive(md, "annotations"), "note")), "kept");
    GP_CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
                     cJSON_GetObjectItemCaseSensitive(md, "labels"), "x")), "y");
    GP_CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(data, "recommendations.json")),
                 "new");
    GP_CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(data, "edited-by")),
                 "someone-else");
    GP_CHECK_INT(cJSON_GetArraySize(data), 2);
    cJSON_Delete(o);
    free(t);
}

GP_TEST(with_key_adds_data_when_there_is_none_and_refuses_other_objects)
{
    const char *nodata = "{\"kind\":\"ConfigMap\",\"metadata\":{\"resourceVersion\":\"7\"}}";
    const char *secret = "{\"kind\":\"Secret\",\"metadata\":{}}";
    char *t = gp_cm_with_key(nodata, strlen(nodata), "k", "v");

    GP_CHECK(t != NULL && strstr(t, "\"data\":{\"k\":\"v\"}") != NULL);
    free(t);
    GP_CHECK(gp_cm_with_key(secret, strlen(secret), "k", "v") == NULL);
    GP_CHECK(gp_cm_with_key("not json", 8, "k", "v") == NULL);
    GP_CHECK(gp_cm_with_key("{\"kind\":\"ConfigMap\"}", 20, "k", "v") == NULL);
}

static void finding(gp_adv_finding *f, gp_adv_kind kind, const char *ns, const char *wl,
                    double per_hour)
{
    memset(f, 0, sizeof(*f));
    f->kind = kind;
    f->namespace = (char *)ns;
    f->workload = (char *)wl;
    f->per_hour = per_hour;
}

/* Lines of text starting with prefix. */
static int count_lines(const char *text, const char *prefix)
{
    int n = 0;
    size_t pl = strlen(prefix);

    for (const char *p = text; p != NULL && *p != '\0';) {
        if (strncmp(p, prefix, pl) == 0)
            n++;
        p = strchr(p, '\n');
        p = p != NULL ? p + 1 : NULL;
    }
    return n;
}

GP_TEST(cost_metrics_bound_the_waste_series_and_sum_the_rest_as_other)
{
    gp_adv_finding f[5];
    gp_adv_share cells[2];
    char k0[] = "ml\x1f" "inference\x1f" "ranker", k1[] = "ml\x1f" "inference\x1f" "bert";
    gp_adv_report rep;
    gp_metrics *m = gp_metrics_new();
    size_t len = 0;
    char *text;

    memset(&rep, 0, sizeof(rep));
    memset(cells, 0, sizeof(cells));
    finding(&f[0], GP_ADV_IDLE, "ml", "deployment/big", 5);
    finding(&f[1], GP_ADV_MIG, "ml", "deployment/mid", 3);
    finding(&f[2], GP_ADV_MIG, "ml", "deployment/small", 1);
    finding(&f[3], GP_ADV_MIG, "ml", "deployment/tiny", 0.5);
    finding(&f[4], GP_ADV_IDLE, "ml", "deployment/mid", 0.25);
    rep.findings = f;
    rep.nfindings = 5;
    cells[0] = (gp_adv_share){ .key = k0, .idle_gpu_hours = 168, .dollars_per_hour_at_end = 4 };
    cells[1] = (gp_adv_share){ .key = k1, .idle_gpu_hours = 84, .dollars_per_hour_at_end = 2 };
    rep.totals.by_cell = cells;
    rep.totals.nby_cell = 2;
    rep.totals.window_hours = 168;
    gp_adv_cost_metrics(&rep, 2, 3, 1, m);
    text = gp_metrics_render(m, &len);
    GP_CHECK(text != NULL);
    if (text == NULL) {
        gp_metrics_free(m);
        return;
    }
    GP_CHECK(strstr(text, "gpupack_advisor_waste_dollars_per_hour{namespace=\"ml\",workload="
                          "\"deployment/big\",finding=\"idle\"} 5") != NULL);
    GP_CHECK(strstr(text, "workload=\"deployment/mid\",finding=\"idle\"} 0.25") != NULL);
    GP_CHECK(strstr(text, "workload=\"other\",finding=\"mig\"} 1.5") != NULL);
    GP_CHECK(strstr(text, "deployment/small") == NULL && strstr(text, "deployment/tiny") == NULL);
    GP_CHECK_INT(count_lines(text, "gpupack_advisor_waste_dollars_per_hour{"), 4);
    GP_CHECK(strstr(text, "gpupack_advisor_gpu_cost_dollars_per_hour{namespace=\"ml\",class="
                          "\"inference\",model=\"ranker\"} 4") != NULL);
    /* Idle GPUs: one series per (namespace, class), the cells' idle hours over the window. */
    GP_CHECK_INT(count_lines(text, "gpupack_advisor_idle_gpus{"), 1);
    GP_CHECK(strstr(text, "gpupack_advisor_idle_gpus{namespace=\"ml\",class=\"inference\"} 1.5")
             != NULL);
    GP_CHECK(strstr(text, "gpupack_advisor_recommendations{state=\"written\"} 3") != NULL);
    GP_CHECK(strstr(text, "gpupack_advisor_recommendations{state=\"dropped\"} 1") != NULL);
    free(text);
    gp_metrics_free(m);
}

GP_TEST(cost_metrics_of_an_empty_report)
{
    gp_adv_report rep;
    gp_metrics *m = gp_metrics_new();
    size_t len = 0;
    char *text;

    memset(&rep, 0, sizeof(rep));
    gp_adv_cost_metrics(&rep, 50, 0, 0, m);
    text = gp_metrics_render(m, &len);
    GP_CHECK(text != NULL);
    if (text == NULL) {
        gp_metrics_free(m);
        return;
    }
    GP_CHECK(strstr(text, "gpupack_advisor_waste_dollars_per_hour{") == NULL);
    GP_CHECK(strstr(text, "gpupack_advisor_recommendations{state=\"written\"} 0") != NULL);
    free(text);
    gp_metrics_free(m);
}

GP_MAIN(GP_CASE(new_object_is_a_labelled_configmap_with_the_key),
        GP_CASE(with_key_replaces_one_key_and_keeps_the_rest),
        GP_CASE(with_key_adds_data_when_there_is_none_and_refuses_other_objects),
        GP_CASE(cost_metrics_bound_the_waste_series_and_sum_the_rest_as_other),
        GP_CASE(cost_metrics_of_an_empty_report))
