/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of gpupack-advisor serve's pure parts: the ConfigMap objects it creates and updates
 * (advisor/cmwrite.c: only its key changes, resourceVersion and everything else kept) and the
 * cost metrics of a report (advisor/serve.c: cells, idle GPUs summed over models, waste bounded
 * to the top workloads with the rest as "other"). */
#include "gptest.h"

#include <cjson/cJSON.h>

#include "cmwrite.h"
#include "serve.h"

GP_TEST(new_object_is_a_labelled_configmap)
{
    char *t = gp_cm_new_object("gpupack-system", "recs", "recommendations.json", "{\"a\":1}");
    cJSON *o = t != NULL ? cJSON_Parse(t) : NULL;
    const cJSON *md = cJSON_GetObjectItem(o, "metadata");

    GP_CHECK(o != NULL);
    GP_CHECK_STR(cJSON_GetObjectItem(o, "kind")->valuestring, "ConfigMap");
    GP_CHECK_STR(cJSON_GetObjectItem(md, "namespace")->valuestring, "gpupack-system");
    GP_CHECK_STR(cJSON_GetObjectItem(md, "name")->valuestring, "recs");
    GP_CHECK_STR(cJSON_GetObjectItem(cJSON_GetObjectItem(md, "labels"),
                                     "app.kubernetes.io/name")->valuestring, "gpupack");
    GP_CHECK_STR(cJSON_GetObjectItem(cJSON_GetObjectItem(o, "data"),
                                     "recommendations.json")->valuestring, "{\"a\":1}");
    cJSON_Delete(o);
    free(t);
}

GP_TEST(with_key_changes_only_the_key)
{
    const char *cur = "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"r\","
                      "\"resourceVersion\":\"42\",\"annotations\":{\"x\":\"y\"}},\"data\":{"
                      "\"recommendations.json\":\"old\",\"notes\":\"mine\"}}";
    char *t = gp_cm_with_key(cur, strlen(cur), "recommendations.json", "new\"doc");
    cJSON *o = t != NULL ? cJSON_Parse(t) : NULL;
    const cJSON *md = cJSON_GetObjectItem(o, "metadata"), *data = cJSON_GetObjectItem(o, "data");

    GP_CHECK(o != NULL);
    GP_CHECK_STR(cJSON_GetObjectItem(md, "resourceVersion")->valuestring, "42");
    GP_CHECK_STR(cJSON_GetObjectItem(cJSON_GetObjectItem(md, "annotations"), "x")->valuestring,
                 "y");
    GP_CHECK_STR(cJSON_GetObjectItem(data, "recommendations.json")->valuestring, "new\"doc");
    GP_CHECK_STR(cJSON_GetObjectItem(data, "notes")->valuestring, "mine");
    GP_CHECK_INT(cJSON_GetArraySize(data), 2);
    cJSON_Delete(o);
    free(t);
}

GP_TEST(with_key_adds_data_and_refuses_other_objects)
{
    const char *nodata = "{\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"r\"},\"data\":null}";
    const char *secret = "{\"kind\":\"Secret\",\"metadata\":{\"name\":\"r\"}}";
    char *t = gp_cm_with_key(nodata, strlen(nodata), "k", "v");

    GP_CHECK(t != NULL && strstr(t, "\"data\":{\"k\":\"v\"}") != NULL);
    free(t);
    GP_CHECK(gp_cm_with_key(secret, strlen(secret), "k", "v") == NULL);
    GP_CHECK(gp_cm_with_key("not json", 8, "k", "v") == NULL);
    GP_CHECK(gp_cm_with_key("{\"kind\":\"ConfigMap\"}", 20, "k", "v") == NULL);
}

static gp_adv_finding waste_finding(gp_adv_kind k, char *ns, char *wl, double per_hour)
{
    return (gp_adv_finding){ .kind = k, .namespace = ns, .workload = wl, .per_hour = per_hour };
}

/* The value of the series whose line starts with prefix (its last field), or -1. */
static double value(const char *text, const char *prefix)
{
    const char *p = text;
    size_t n = strlen(prefix);

    while (p != NULL && *p != '\0') {
        if (strncmp(p, prefix, n) == 0 && p[n] == ' ')
            return strtod(p + n + 1, NULL);
        p = strchr(p, '\n');
        p = p != NULL ? p + 1 : NULL;
    }
    return -1;
}

GP_TEST(cost_metrics_are_bounded)
{
    gp_adv_finding f[] = {
        waste_finding(GP_ADV_IDLE, "ml", "deployment/a", 5),
        waste_finding(GP_ADV_MIG, "ml", "deployment/b", 3),
        waste_finding(GP_ADV_IDLE, "ml", "deployment/c", 1),
        waste_finding(GP_ADV_IDLE, "ml", "deployment/d", 0.5),
        waste_finding(GP_ADV_MIG, "ml", "deployment/a", 2),
        waste_finding(GP_ADV_NODE, "", "node/gpu-1", 4),
    };
    gp_adv_share cells[] = {
        { .key = "ml\x1finference\x1fllama", .idle_gpu_hours = 168, .dollars_per_hour_at_end = 8 },
        { .key = "ml\x1finference\x1f", .idle_gpu_hours = 84, .dollars_per_hour_at_end = 2 },
        { .key = "ml\x1ftraining\x1f\"q\"", .idle_gpu_hours = 0, .dollars_per_hour_at_end = 1 },
    };
    gp_adv_report rep;
    gp_metrics *m = gp_metrics_new();
    char *text;

    memset(&rep, 0, sizeof(rep));
    rep.findings = f;
    rep.nfindings = sizeof(f) / sizeof(f[0]);
    rep.totals.by_cell = cells;
    rep.totals.nby_cell = 3;
    rep.totals.window_hours = 168;
    gp_adv_cost_metrics(&rep, 2, 7, 1, m);
    text = gp_metrics_render(m, NULL);
    GP_CHECK(text != NULL);
    if (text == NULL)
        return;
    GP_CHECK_NEAR(value(text, "gpupack_advisor_gpu_cost_dollars_per_hour{namespace=\"ml\",class="
                              "\"inference\",model=\"llama\"}"), 8, 0);
    GP_CHECK_NEAR(value(text, "gpupack_advisor_gpu_cost_dollars_per_hour{namespace=\"ml\",class="
                              "\"training\",model=\"\\\"q\\\"\"}"), 1, 0);
    GP_CHECK_NEAR(value(text, "gpupack_advisor_idle_gpus{namespace=\"ml\",class=\"inference\"}"),
                  1.5, 1e-12);
    GP_CHECK_NEAR(value(text, "gpupack_advisor_idle_gpus{namespace=\"ml\",class=\"training\"}"), 0,
                  0);
    /* top 2 by waste: deployment/a (7) and node/gpu-1 (4); b, c, d are "other" */
    GP_CHECK_NEAR(value(text, "gpupack_advisor_waste_dollars_per_hour{namespace=\"ml\",workload="
                              "\"deployment/a\",finding=\"idle\"}"), 5, 0);
    GP_CHECK_NEAR(value(text, "gpupack_advisor_waste_dollars_per_hour{namespace=\"ml\",workload="
                              "\"deployment/a\",finding=\"mig\"}"), 2, 0);
    GP_CHECK_NEAR(value(text, "gpupack_advisor_waste_dollars_per_hour{namespace=\"\",workload="
                              "\"node/gpu-1\",finding=\"node\"}"), 4, 0);
    GP_CHECK_NEAR(value(text, "gpupack_advisor_waste_dollars_per_hour{namespace=\"ml\",workload="
                              "\"other\",finding=\"idle\"}"), 1.5, 1e-12);
    GP_CHECK_NEAR(value(text, "gpupack_advisor_waste_dollars_per_hour{namespace=\"ml\",workload="
                              "\"other\",finding=\"mig\"}"), 3, 0);
    GP_CHECK(strstr(text, "deployment/b") == NULL && strstr(text, "deployment/c") == NULL);
    GP_CHECK_NEAR(value(text, "gpupack_advisor_recommendations{state=\"written\"}"), 7, 0);
    GP_CHECK_NEAR(value(text, "gpupack_advisor_recommendations{state=\"dropped\"}"), 1, 0);
    free(text);
    gp_metrics_free(m);
}

GP_MAIN(GP_CASE(new_object_is_a_labelled_configmap), GP_CASE(with_key_changes_only_the_key),
        GP_CASE(with_key_adds_data_and_refuses_other_objects), GP_CASE(cost_metrics_are_bounded))
