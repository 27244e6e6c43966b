/* SPDX-License-Identifier: Apache-2.0 */
/* advisor/fetch.c's assembly from canned Prometheus answers (decoded by gp_promjson_decode):
 * hours worked by hand, node empty and half hours, label preference and variants, MIG names,
 * unattributed and ignored series, NaN/Inf samples, notes and the errors for absent data. */
#include <math.h>
#include <string.h>

#include "fetch.h"
#include "gpupack/strbuf.h"
#include "gptest.h"
#include "advtest.h"

/* A policy with only what the assembly reads (advtest.h). */
static void policy(gp_policy *p)
{
    advtest_policy(p, false);
}

/* The window: end 36000, step 300, 2 hours: 24 steps t_k = 36000 - (23 - k) x 300, 2 hour
 * buckets (28800, 32400] and (32400, 36000]. */
#define END 36000.0
#define T(k) (END - (23 - (k)) * 300.0)

typedef struct {
    gp_policy pol;
    gp_advq_set qs;
    gp_strbuf b[GP_ADVQ_COUNT];
    gp_adv_results res;
} fixture;

static void start(fixture *f)
{
    gp_adv_window w;

    memset(f, 0, sizeof(*f));
    policy(&f->pol);
    if (gp_adv_window_make(END, 7200, 300, &w, NULL) != GP_OK ||
        gp_advq_build(&f->pol, &w, &f->qs, NULL) != GP_OK)
        abort();
    for (int i = 0; i < GP_ADVQ_COUNT; i++)
        gp_strbuf_init(&f->b[i], 0);
}

/* One instant series: {labels} value. */
static void vec(fixture *f, gp_advq_id q, const char *labels, const char *value)
{
    gp_strbuf_printf(&f->b[q], "%s{\"metric\":{%s},\"value\":[%.0f,\"%s\"]}",
                     f->b[q].len ? "," : "", labels, END, value);
}

/* One hourly series of query q: values at the ends of bucket 0 (32400) and 1 (36000), NULL:
 * none. */
static void hourly_of(fixture *f, gp_advq_id q, const char *labels, const char *v0,
                      const char *v1)
{
    gp_strbuf_printf(&f->b[q], "%s{\"metric\":{%s},\"values\":[", f->b[q].len ? "," : "",
                     labels);
    if (v0 != NULL)
        gp_strbuf_printf(&f->b[q], "[32400,\"%s\"]%s", v0, v1 ? "," : "");
    if (v1 != NULL)
        gp_strbuf_printf(&f->b[q], "[36000,\"%s\"]", v1);
    gp_strbuf_puts(&f->b[q], "]}");
}

static void hourly(fixture *f, const char *labels, const char *v0, const char *v1)
{
    hourly_of(f, GP_ADVQ_ACT_HOURLY, labels, v0, v1);
}

/* Decodes every query's answer (warning: a Prometheus warning on pod-requests; on every query
 * when it starts with '*'). */
/* dcgm-exporter's count and sum of activity samples on one GPU series (its labels). */
static void samples(fixture *f, const char *labels, const char *count, const char *sum)
{
    vec(f, GP_ADVQ_ACT_COUNT, labels, count);
    vec(f, GP_ADVQ_ACT_SUM, labels, sum);
}

/* The same with the series' DCGM_FI_PROF_GR_ENGINE_ACTIVE present. */
static void seen(fixture *f, const char *labels, const char *count, const char *sum)
{
    vec(f, GP_ADVQ_DCGM_PROF, labels, "1");
    samples(f, labels, count, sum);
}

/* Pod ml/name asking for one whole GPU. */
static void asks_gpu(fixture *f, const char *name)
{
    char labels[160];

    snprintf(labels, sizeof(labels),
             "\"namespace\":\"ml\",\"pod\":\"%s\",\"resource\":\"nvidia_com_gpu\"", name);
    vec(f, GP_ADVQ_POD_REQUESTS, labels, "1");
}

static void decode(fixture *f, const char *warning)
{
    for (int i = 0; i < GP_ADVQ_COUNT; i++) {
        gp_strbuf body;
        bool range = f->qs.q[i].type == GP_ADVQ_RANGE;
        bool warn = warning != NULL && (warning[0] == '*' || i == GP_ADVQ_POD_REQUESTS);

        gp_strbuf_init(&body, 0);
        gp_strbuf_printf(&body, "{\"status\":\"success\",%s%s%s\"data\":{\"resultType\":\"%s\","
                         "\"result\":[%s]}}", warn ? "\"warnings\":[\"" : "",
                         warn ? warning : "", warn ? "\"]," : "",
                         range ? "matrix" : "vector", f->b[i].p ? f->b[i].p : "");
        if (gp_promjson_decode(body.p, body.len, NULL, &f->res.r[i], NULL) != GP_OK)
            abort();
        gp_strbuf_free(&body);
    }
}

static void finish(fixture *f)
{
    gp_adv_results_free(&f->res);
    for (int i = 0; i < GP_ADVQ_COUNT; i++)
        gp_strbuf_free(&f->b[i]);
    gp_advq_set_free(&f->qs);
}

#define A_LABELS "\"exported_namespace\":\"ml\",\"exported_pod\":\"a\",\"namespace\":\"monitoring\"," \
                 "\"pod\":\"dcgm-exporter-x\",\"Hostname\":\"n1\",\"UUID\":\"GPU-1\",\"gpu\":\"0\"," \
                 "\"modelName\":\"NVIDIA A100-SXM4-80GB\""
#define A_VARIANT "\"namespace\":\"ml\",\"pod\":\"a\",\"hostname\":\"n1\",\"UUID\":\"GPU-1\"," \
                  "\"gpu\":\"0\",\"modelName\":\"NVIDIA A100-SXM4-80GB\""
#define C_LABELS "\"namespace\":\"ml\",\"pod\":\"c\",\"Hostname\":\"n1\",\"UUID\":\"GPU-1\"," \
                 "\"gpu\":\"0\",\"modelName\":\"NVIDIA A100-SXM4-80GB\""
#define B_LABELS "\"namespace\":\"ml\",\"pod\":\"b\",\"Hostname\":\"n2\",\"UUID\":\"GPU-9\"," \
                 "\"gpu\":\"0\",\"GPU_I_PROFILE\":\"2g.20gb\",\"GPU_I_ID\":\"3\"," \
                 "\"modelName\":\"NVIDIA A100-SXM4-40GB\""
#define NOPOD "\"Hostname\":\"n1\",\"UUID\":\"GPU-2\",\"gpu\":\"1\""
#define GHOST "\"namespace\":\"x\",\"pod\":\"ghost\",\"Hostname\":\"n1\",\"UUID\":\"GPU-3\""

/* The cluster: n1 (8 GPUs, p4d) runs a and c (1 GPU each) the first hour; n2 (spot, 3 MIG
 * 2g.20gb instances) runs b (2 instances) the second hour. */
static void cluster(fixture *f)
{
    /* a and c request 1 GPU, Running steps 0..11; b 2 x 2g.20gb, Running steps 12..23 */
    vec(f, GP_ADVQ_POD_REQUESTS, "\"namespace\":\"ml\",\"pod\":\"a\",\"resource\":\"nvidia_com_gpu\"", "1");
    vec(f, GP_ADVQ_POD_REQUESTS, "\"namespace\":\"ml\",\"pod\":\"c\",\"resource\":\"nvidia_com_gpu\"", "1");
    vec(f, GP_ADVQ_POD_REQUESTS, "\"namespace\":\"ml\",\"pod\":\"b\",\"resource\":\"nvidia_com_mig_2g_20gb\"", "2");
    vec(f, GP_ADVQ_POD_GPU_STEPS, "\"namespace\":\"ml\",\"pod\":\"a\",\"resource\":\"nvidia_com_gpu\"", "12");
    vec(f, GP_ADVQ_POD_GPU_STEPS, "\"namespace\":\"ml\",\"pod\":\"c\",\"resource\":\"nvidia_com_gpu\"", "12");
    vec(f, GP_ADVQ_POD_GPU_STEPS, "\"namespace\":\"ml\",\"pod\":\"b\",\"resource\":\"nvidia_com_mig_2g_20gb\"", "24");
    vec(f, GP_ADVQ_POD_RUN_STEPS, "\"namespace\":\"ml\",\"pod\":\"a\"", "12");
    vec(f, GP_ADVQ_POD_RUN_STEPS, "\"namespace\":\"ml\",\"pod\":\"c\"", "12");
    vec(f, GP_ADVQ_POD_RUN_STEPS, "\"namespace\":\"ml\",\"pod\":\"b\"", "12");
    vec(f, GP_ADVQ_POD_START, "\"namespace\":\"ml\",\"pod\":\"a\"", "1");
    vec(f, GP_ADVQ_POD_START, "\"namespace\":\"ml\",\"pod\":\"c\"", "1");
    vec(f, GP_ADVQ_POD_END, "\"namespace\":\"ml\",\"pod\":\"b\",\"resource\":\"nvidia_com_mig_2g_20gb\"", "2");
    vec(f, GP_ADVQ_POD_NODE, "\"namespace\":\"ml\",\"pod\":\"a\",\"node\":\"n9\"", "20000");
    vec(f, GP_ADVQ_POD_NODE, "\"namespace\":\"ml\",\"pod\":\"a\",\"node\":\"n1\"", "32400");
    vec(f, GP_ADVQ_POD_NODE, "\"namespace\":\"ml\",\"pod\":\"c\",\"node\":\"n1\"", "32400");
    vec(f, GP_ADVQ_POD_NODE, "\"namespace\":\"ml\",\"pod\":\"b\",\"node\":\"n2\"", "36000");
    vec(f, GP_ADVQ_POD_OWNER, "\"namespace\":\"ml\",\"pod\":\"a\",\"owner_kind\":\"ReplicaSet\",\"owner_name\":\"a-7d9\"", "1");
    vec(f, GP_ADVQ_POD_OWNER, "\"namespace\":\"ml\",\"pod\":\"b\",\"owner_kind\":\"<none>\",\"owner_name\":\"<none>\"", "1");
    vec(f, GP_ADVQ_OWNER_OWNER, "\"namespace\":\"ml\",\"replicaset\":\"a-7d9\",\"owner_kind\":\"Deployment\",\"owner_name\":\"a\"", "1");
    vec(f, GP_ADVQ_POD_LABELS, "\"namespace\":\"ml\",\"pod\":\"a\",\"label_gpupack_io_class\":\"inference\",\"label_component\":\"\"", "1");
    /* n1: 2 of 8 allocated the first hour, none the second; n2: 4/7 of 6/7 the second */
    vec(f, GP_ADVQ_NODE_UP_STEPS, "\"node\":\"n1\"", "24");
    vec(f, GP_ADVQ_NODE_UP_STEPS, "\"node\":\"n2\"", "24");
    vec(f, GP_ADVQ_NODE_EMPTY_STEPS, "\"node\":\"n1\"", "12");
    vec(f, GP_ADVQ_NODE_EMPTY_STEPS, "\"node\":\"n2\"", "12");
    vec(f, GP_ADVQ_NODE_HALF_STEPS, "\"node\":\"n1\"", "12");
    vec(f, GP_ADVQ_NODE_HALF_FREE, "\"node\":\"n1\"", "72");
    vec(f, GP_ADVQ_NODE_UP_END, "\"node\":\"n1\"", "1");
    vec(f, GP_ADVQ_NODE_UP_END, "\"node\":\"n2\"", "1");
    vec(f, GP_ADVQ_NODE_ALLOC_END, "\"node\":\"n2\"", "0.5714285714285714");
    hourly_of(f, GP_ADVQ_NODE_HOURLY, "\"node\":\"n1\"", "24", NULL);
    hourly_of(f, GP_ADVQ_NODE_HOURLY, "\"node\":\"n2\"", NULL, "6.857142857142857");
    /* a and c shared GPU-1 in the first hour */
    hourly_of(f, GP_ADVQ_ACT_SLICED, "\"gp_namespace\":\"ml\",\"gp_pod\":\"a\",\"gp_host\":\"n1\",\"UUID\":\"GPU-1\"", "1", NULL);
    hourly_of(f, GP_ADVQ_ACT_SLICED, "\"gp_namespace\":\"ml\",\"gp_pod\":\"c\",\"gp_host\":\"n1\",\"UUID\":\"GPU-1\"", "1", NULL);
    vec(f, GP_ADVQ_NODE_ALLOC, "\"node\":\"n1\",\"resource\":\"nvidia_com_gpu\"", "8");
    vec(f, GP_ADVQ_NODE_ALLOC, "\"node\":\"n2\",\"resource\":\"nvidia_com_mig_2g_20gb\"", "3");
    vec(f, GP_ADVQ_NODE_LABELS, "\"node\":\"n1\",\"label_node_kubernetes_io_instance_type\":\"p4d.24xlarge\"", "1");
    vec(f, GP_ADVQ_NODE_LABELS, "\"node\":\"n2\",\"label_nvidia_com_gpu_product\":\"A100-MIG\",\"label_karpenter_sh_capacity_type\":\"spot\"", "1");
    /* DCGM: a seen under two label variants (exported_* and plain, Hostname and hostname). */
    vec(f, GP_ADVQ_DCGM_PROF, A_LABELS, "1");
    vec(f, GP_ADVQ_DCGM_PROF, C_LABELS, "1");
    vec(f, GP_ADVQ_DCGM_UTIL, B_LABELS, "1");
    vec(f, GP_ADVQ_ACT_COUNT, A_LABELS, "120");
    vec(f, GP_ADVQ_ACT_COUNT, A_VARIANT, "120");
    vec(f, GP_ADVQ_ACT_COUNT, C_LABELS, "120");
    vec(f, GP_ADVQ_ACT_COUNT, B_LABELS, "100");
    vec(f, GP_ADVQ_ACT_COUNT, NOPOD, "240");
    vec(f, GP_ADVQ_ACT_COUNT, GHOST, "10");
    vec(f, GP_ADVQ_ACT_SUM, A_LABELS, "12");
    vec(f, GP_ADVQ_ACT_SUM, A_VARIANT, "12");
    vec(f, GP_ADVQ_ACT_SUM, C_LABELS, "60");
    vec(f, GP_ADVQ_ACT_SUM, B_LABELS, "50");
    vec(f, GP_ADVQ_ACT_P95, A_LABELS, "0.3");
    vec(f, GP_ADVQ_ACT_P95, A_VARIANT, "0.2");
    vec(f, GP_ADVQ_ACT_P95, C_LABELS, "0.9");
    vec(f, GP_ADVQ_ACT_P95, B_LABELS, "NaN");
    vec(f, GP_ADVQ_FB_PEAK, A_LABELS, "30000");
    hourly(f, A_LABELS, "0.2", "+Inf");
    hourly(f, C_LABELS, "0.5", NULL);
    hourly(f, B_LABELS, NULL, "0.5");
}

static const gp_adv_pod *pod(const gp_adv_data *d, const char *name)
{
    for (size_t i = 0; i < d->npods; i++) {
        if (strcmp(d->pods[i].name, name) == 0)
            return &d->pods[i];
    }
    return NULL;
}

static const gp_adv_node *node(const gp_adv_data *d, const char *name)
{
    for (size_t i = 0; i < d->nnodes; i++) {
        if (strcmp(d->nodes[i].name, name) == 0)
            return &d->nodes[i];
    }
    return NULL;
}

static bool has_note(const gp_adv_data *d, const char *part)
{
    for (size_t i = 0; i < d->nnotes; i++) {
        if (strstr(d->notes[i], part) != NULL)
            return true;
    }
    return false;
}

GP_TEST(pods_hours_by_hand)
{
    fixture f;
    gp_adv_data d;
    const gp_adv_pod *a, *b;

    start(&f);
    cluster(&f);
    decode(&f, NULL);
    GP_CHECK(gp_adv_assemble(&f.pol, &f.qs, &f.res, &d, NULL) == GP_OK);
    GP_CHECK_INT(d.npods, 3);
    GP_CHECK_NEAR(d.end, END, 1e-9);
    GP_CHECK_NEAR(d.hours, 2, 1e-9);
    GP_CHECK_INT(d.nhours, 2);
    a = pod(&d, "a");
    b = pod(&d, "b");
    GP_CHECK(a != NULL && b != NULL);
    if (a == NULL || b == NULL)
        return;
    /* a: 1 GPU, Running 12 steps of 5 minutes: 1 GPU-hour. */
    GP_CHECK_NEAR(a->gpu_hours, 1.0, 1e-9);
    GP_CHECK_NEAR(a->run_hours, 1.0, 1e-9);
    GP_CHECK(!a->running_at_end && a->gpus_at_end == 0 && !a->started_in_window);
    GP_CHECK_NEAR(a->gpus, 1, 1e-9);
    GP_CHECK_STR(a->node, "n1"); /* the last node seen */
    GP_CHECK_STR(a->owner_kind, "ReplicaSet");
    GP_CHECK_STR(a->owner_owner_kind, "Deployment");
    GP_CHECK_STR(a->owner_owner_name, "a");
    GP_CHECK_INT(a->nlabels, 1);
    GP_CHECK_STR(a->labels[0].key, "gpupack.io/class");
    GP_CHECK_STR(a->labels[0].value, "inference");
    /* b: 2 x nvidia.com/mig-2g.20gb (2/7 each), Running the last 12 steps: 4/7 GPU-hour. */
    GP_CHECK_NEAR(b->gpu_hours, 4.0 / 7.0, 1e-9);
    GP_CHECK(b->running_at_end && b->started_in_window);
    GP_CHECK_NEAR(b->gpus_at_end, 4.0 / 7.0, 1e-9);
    GP_CHECK_INT(b->nmig, 1);
    GP_CHECK_STR(b->mig[0].profile, "2g.20gb");
    GP_CHECK_NEAR(b->mig[0].count, 2, 1e-9);
    GP_CHECK_NEAR(b->gpus, 0, 1e-9);
    GP_CHECK(b->owner_kind == NULL); /* <none> */
    gp_adv_data_free(&d);
    finish(&f);
}

GP_TEST(nodes_empty_and_half_hours)
{
    fixture f;
    gp_adv_data d;
    const gp_adv_node *n1, *n2;

    start(&f);
    cluster(&f);
    decode(&f, NULL);
    GP_CHECK(gp_adv_assemble(&f.pol, &f.qs, &f.res, &d, NULL) == GP_OK);
    GP_CHECK_INT(d.nnodes, 2);
    n1 = node(&d, "n1");
    n2 = node(&d, "n2");
    GP_CHECK(n1 != NULL && n2 != NULL);
    if (n1 == NULL || n2 == NULL)
        return;
    /* n1: 8 GPUs; 2 allocated the first hour (under half), none the second. */
    GP_CHECK_NEAR(n1->gpus, 8, 1e-9);
    GP_CHECK_NEAR(n1->up_hours, 2, 1e-9);
    GP_CHECK_NEAR(n1->empty_hours, 1, 1e-9);
    GP_CHECK_NEAR(n1->half_hours, 1, 1e-9);
    GP_CHECK_NEAR(n1->half_free_gpu_hours, 6, 1e-9);
    GP_CHECK(n1->up_at_end && n1->alloc_at_end == 0);
    GP_CHECK_NEAR(n1->hourly_alloc[0], 2, 1e-9);
    GP_CHECK_NEAR(n1->hourly_alloc[1], 0, 1e-9);
    GP_CHECK_STR(n1->instance_type, "p4d.24xlarge");
    GP_CHECK_STR(n1->gpu_product, "NVIDIA-A100-SXM4-80GB"); /* from DCGM's modelName */
    GP_CHECK(!n1->spot);
    /* n2: 3 x 2g (6/7); 4/7 allocated the second hour: not under half. */
    GP_CHECK_INT(n2->nmig, 1);
    GP_CHECK_NEAR(n2->empty_hours, 1, 1e-9);
    GP_CHECK_NEAR(n2->half_hours, 0, 1e-9);
    GP_CHECK_NEAR(n2->alloc_at_end, 4.0 / 7.0, 1e-9);
    GP_CHECK_STR(n2->gpu_product, "A100-MIG");
    GP_CHECK(n2->spot);
    gp_adv_data_free(&d);
    finish(&f);
}

GP_TEST(dcgm_label_variants_coalesce)
{
    fixture f;
    gp_adv_data d;
    const gp_adv_pod *a, *b, *c;

    start(&f);
    cluster(&f);
    decode(&f, NULL);
    GP_CHECK(gp_adv_assemble(&f.pol, &f.qs, &f.res, &d, NULL) == GP_OK);
    a = pod(&d, "a");
    b = pod(&d, "b");
    c = pod(&d, "c");
    GP_CHECK(a != NULL && b != NULL && c != NULL);
    if (a == NULL || b == NULL || c == NULL)
        return;
    /* exported_pod wins over the exporter's own pod label; both variants are one GPU. */
    GP_CHECK_INT(a->ndevs, 1);
    GP_CHECK_STR(a->devs[0].node, "n1");
    GP_CHECK_STR(a->devs[0].uuid, "GPU-1");
    GP_CHECK_NEAR(a->devs[0].samples, 240, 1e-9);
    GP_CHECK_NEAR(a->devs[0].mean, 0.1, 1e-12);
    GP_CHECK_NEAR(a->devs[0].p95, 0.3, 1e-12);
    GP_CHECK_NEAR(a->devs[0].fb_peak_mib, 30000, 1e-9);
    GP_CHECK(a->devs[0].has_activity && !a->devs[0].from_util);
    GP_CHECK(a->devs[0].mig_profile == NULL);
    /* a and c on the same whole GPU in hour 0: time-sliced. */
    GP_CHECK(a->devs[0].time_sliced);
    GP_CHECK_INT(c->ndevs, 1);
    GP_CHECK(c->devs[0].time_sliced);
    /* hourly: a's +Inf is ignored: NaN. */
    GP_CHECK_NEAR(a->hourly[0], 0.2, 1e-12);
    GP_CHECK(isnan(a->hourly[1]));
    /* b: a MIG instance with only DCGM_FI_DEV_GPU_UTIL; its p95 NaN is ignored. */
    GP_CHECK_INT(b->ndevs, 1);
    GP_CHECK_STR(b->devs[0].mig_profile, "2g.20gb");
    GP_CHECK(b->devs[0].from_util && !b->devs[0].time_sliced);
    GP_CHECK_NEAR(b->devs[0].mean, 0.5, 1e-12);
    GP_CHECK(isnan(b->devs[0].p95));
    GP_CHECK(isnan(b->devs[0].fb_peak_mib));
    GP_CHECK(isnan(b->hourly[0]));
    GP_CHECK_NEAR(b->hourly[1], 0.5, 1e-12);
    gp_adv_data_free(&d);
    finish(&f);
}

GP_TEST(unattributed_ignored_and_bad_samples_noted)
{
    fixture f;
    gp_adv_data d;

    start(&f);
    cluster(&f);
    decode(&f, "query hit a partial response");
    GP_CHECK(gp_adv_assemble(&f.pol, &f.qs, &f.res, &d, NULL) == GP_OK);
    GP_CHECK_NEAR(d.unattributed_gpus, 1.0, 1e-9); /* 240 samples, the most any series has */
    GP_CHECK(has_note(&d, "1 DCGM GPU series have no pod label"));
    GP_CHECK(has_note(&d, "1 DCGM series name a pod kube-state-metrics shows no GPU request"));
    GP_CHECK(has_note(&d, "activity-p95: 1 NaN or infinite values left out"));
    GP_CHECK(has_note(&d, "activity-hourly: 1 NaN or infinite values left out"));
    GP_CHECK(has_note(&d, "Prometheus warning (pod-requests): query hit a partial response"));
    GP_CHECK(has_note(&d, "1 GPU series have no DCGM_FI_PROF_GR_ENGINE_ACTIVE"));
    GP_CHECK(strstr(d.activity_metric, "DCGM_FI_PROF_GR_ENGINE_ACTIVE") == d.activity_metric);
    GP_CHECK(pod(&d, "ghost") == NULL);
    gp_adv_data_free(&d);
    finish(&f);
}

GP_TEST(same_warning_is_one_note)
{
    fixture f;
    gp_adv_data d;
    size_t n = 0;

    start(&f);
    cluster(&f);
    decode(&f, "*vector contains metrics with the same labelset");
    GP_CHECK(gp_adv_assemble(&f.pol, &f.qs, &f.res, &d, NULL) == GP_OK);
    for (size_t i = 0; i < d.nnotes; i++)
        n += strstr(d.notes[i], "the same labelset") != NULL;
    GP_CHECK_INT(n, 1);
    GP_CHECK(has_note(&d, "Prometheus warning (dcgm-prof-series): *vector contains"));
    gp_adv_data_free(&d);
    finish(&f);
}

GP_TEST(prof_absent_util_present_is_a_note)
{
    fixture f;
    gp_adv_data d;

    start(&f);
    vec(&f, GP_ADVQ_POD_REQUESTS, "\"namespace\":\"ml\",\"pod\":\"a\",\"resource\":\"nvidia_com_gpu\"", "1");
    vec(&f, GP_ADVQ_DCGM_UTIL, C_LABELS, "1");
    vec(&f, GP_ADVQ_ACT_COUNT, "\"namespace\":\"ml\",\"pod\":\"a\",\"Hostname\":\"n1\",\"UUID\":\"GPU-1\"", "10");
    decode(&f, NULL);
    GP_CHECK(gp_adv_assemble(&f.pol, &f.qs, &f.res, &d, NULL) == GP_OK);
    GP_CHECK(has_note(&d, "DCGM_FI_PROF_GR_ENGINE_ACTIVE absent: add it to dcgm-exporter's "
                          "counters (MIG instances have no DCGM_FI_DEV_GPU_UTIL)"));
    GP_CHECK_STR(d.activity_metric, "DCGM_FI_DEV_GPU_UTIL / 100");
    GP_CHECK_INT(d.npods, 1);
    GP_CHECK_INT(d.nnodes, 0);
    GP_CHECK_NEAR(d.pods[0].gpu_hours, 0, 1e-9); /* never Running */
    gp_adv_data_free(&d);
    finish(&f);
}

GP_TEST(no_dcgm_is_an_error_naming_the_query)
{
    fixture f;
    gp_adv_data d;
    gp_err err = { "" };

    start(&f);
    vec(&f, GP_ADVQ_POD_REQUESTS, "\"namespace\":\"ml\",\"pod\":\"a\",\"resource\":\"nvidia_com_gpu\"", "1");
    decode(&f, NULL);
    GP_CHECK(gp_adv_assemble(&f.pol, &f.qs, &f.res, &d, &err) == GP_ENOTFOUND);
    GP_CHECK(strncmp(err.msg, "activity-count: no DCGM_FI_PROF", 31) == 0);
    GP_CHECK(strstr(err.msg, "; PromQL: sum by (") != NULL);
    GP_CHECK(strstr(err.msg, "no DCGM_FI_PROF_GR_ENGINE_ACTIVE or DCGM_FI_DEV_GPU_UTIL series in "
                             "the window: is dcgm-exporter scraped by this Prometheus?") != NULL);
    GP_CHECK(d.npods == 0 && d.pods == NULL);
    finish(&f);
}

GP_TEST(no_ksm_requests_is_an_error)
{
    fixture f;
    gp_adv_data d;
    gp_err err = { "" };

    start(&f);
    vec(&f, GP_ADVQ_ACT_COUNT, A_LABELS, "10");
    decode(&f, NULL);
    GP_CHECK(gp_adv_assemble(&f.pol, &f.qs, &f.res, &d, &err) == GP_ENOTFOUND);
    GP_CHECK(strncmp(err.msg, "pod-requests: kube_pod_container_resource_requests", 50) == 0);
    GP_CHECK(strstr(err.msg, "; PromQL: max_over_time(sum by (namespace, pod, resource)") != NULL);
    GP_CHECK(strstr(err.msg, "kube_pod_container_resource_requests has no GPU requests in the "
                             "window: is kube-state-metrics scraped?") != NULL);
    finish(&f);
}

GP_TEST(series_with_missing_labels_are_skipped)
{
    fixture f;
    gp_adv_data d;

    start(&f);
    vec(&f, GP_ADVQ_POD_REQUESTS, "\"namespace\":\"ml\",\"pod\":\"a\",\"resource\":\"nvidia_com_gpu\"", "1");
    vec(&f, GP_ADVQ_POD_REQUESTS, "\"namespace\":\"ml\",\"resource\":\"nvidia_com_gpu\"", "1");
    vec(&f, GP_ADVQ_POD_REQUESTS, "\"namespace\":\"ml\",\"pod\":\"z\"", "1");
    vec(&f, GP_ADVQ_POD_RUN_STEPS, "\"pod\":\"a\"", "24");
    vec(&f, GP_ADVQ_POD_GPU_STEPS, "\"pod\":\"a\",\"resource\":\"nvidia_com_gpu\"", "24");
    vec(&f, GP_ADVQ_NODE_ALLOC, "\"resource\":\"nvidia_com_gpu\"", "8");
    vec(&f, GP_ADVQ_ACT_COUNT, "\"namespace\":\"ml\",\"pod\":\"a\"", "10");
    decode(&f, NULL);
    GP_CHECK(gp_adv_assemble(&f.pol, &f.qs, &f.res, &d, NULL) == GP_OK);
    GP_CHECK_INT(d.npods, 1);
    GP_CHECK_NEAR(d.pods[0].gpu_hours, 0, 1e-9);
    GP_CHECK_INT(d.nnodes, 0);
    GP_CHECK_INT(d.pods[0].ndevs, 1);
    GP_CHECK(d.pods[0].devs[0].node == NULL && d.pods[0].devs[0].uuid == NULL);
    gp_adv_data_free(&d);
    finish(&f);
}

GP_TEST(mig_resource_names)
{
    char buf[64];

    GP_CHECK(gp_adv_mig_profile_of("nvidia_com_mig_2g_20gb", buf, sizeof(buf)));
    GP_CHECK_STR(buf, "2g.20gb");
    GP_CHECK(gp_adv_mig_profile_of("nvidia_com_mig_1g_10gb_me", buf, sizeof(buf)));
    GP_CHECK_STR(buf, "1g.10gb+me");
    GP_CHECK(gp_adv_mig_profile_of("nvidia_com_mig_7g_80gb", buf, sizeof(buf)));
    GP_CHECK_STR(buf, "7g.80gb");
    GP_CHECK(gp_adv_mig_profile_of("nvidia_com_mig_1g_5gb", buf, sizeof(buf)));
    GP_CHECK_STR(buf, "1g.5gb");
    GP_CHECK(!gp_adv_mig_profile_of("nvidia_com_gpu", buf, sizeof(buf)));
    GP_CHECK(!gp_adv_mig_profile_of("nvidia_com_mig_", buf, sizeof(buf)));
    GP_CHECK(!gp_adv_mig_profile_of("nvidia_com_mig_g_5gb", buf, sizeof(buf)));
    GP_CHECK(!gp_adv_mig_profile_of("nvidia_com_mig_2g", buf, sizeof(buf)));
}

/* kube-prometheus-stack's default (honorLabels off): pod "late" is renamed exported_pod and pod
 * is the exporter's own; GPU-2, which no pod holds, carries the exporter's pod label alone. It is
 * a GPU no pod holds, not a pod without a GPU request; and late, alone on GPU-1 after the first
 * half hour, is not time-sliced with the exporter. */
#define EXP "\"namespace\":\"gpu-operator\",\"pod\":\"nvidia-dcgm-exporter-7xk2p\",\"Hostname\":\"n1\""
GP_TEST(exporter_pod_label_is_no_pod)
{
    fixture f;
    gp_adv_data d;
    const gp_adv_pod *late;

    start(&f);
    asks_gpu(&f, "late");
    seen(&f, EXP ",\"exported_namespace\":\"ml\",\"exported_pod\":\"late\",\"UUID\":\"GPU-1\"", "120", "60");
    samples(&f, EXP ",\"UUID\":\"GPU-1\"", "120", "0");
    samples(&f, EXP ",\"UUID\":\"GPU-2\"", "240", "0");
    /* Prometheus's own count of pod labels on GPU-1 in the first hour: late and the exporter */
    hourly_of(&f, GP_ADVQ_ACT_SLICED, "\"gp_namespace\":\"ml\",\"gp_pod\":\"late\",\"gp_host\":\"n1\",\"UUID\":\"GPU-1\"", "1", NULL);
    hourly_of(&f, GP_ADVQ_ACT_SLICED, "\"gp_namespace\":\"gpu-operator\",\"gp_pod\":\"nvidia-dcgm-exporter-7xk2p\",\"gp_host\":\"n1\",\"UUID\":\"GPU-1\"", "1", NULL);
    decode(&f, NULL);
    GP_CHECK(gp_adv_assemble(&f.pol, &f.qs, &f.res, &d, NULL) == GP_OK);
    late = pod(&d, "late");
    GP_CHECK(late != NULL && late->ndevs == 1);
    if (late != NULL && late->ndevs == 1) {
        GP_CHECK(!late->devs[0].time_sliced);
        GP_CHECK_NEAR(late->devs[0].mean, 0.5, 1e-12);
    }
    GP_CHECK_NEAR(d.unattributed_gpus, 1.5, 1e-9); /* GPU-2 all along, GPU-1 half the time */
    GP_CHECK(has_note(&d, "2 DCGM GPU series have no pod label"));
    GP_CHECK(!has_note(&d, "shows no GPU request"));
    gp_adv_data_free(&d);
    finish(&f);
}

/* honorLabels on, an older dcgm-exporter that leaves the pod labels out on a GPU no pod holds:
 * Prometheus adds the target's own pod and namespace, and no series tells them from a
 * workload's but the host label, which is the exporter's container hostname (its pod name). */
#define HON "\"namespace\":\"gpu-operator\",\"pod\":\"nvidia-dcgm-exporter-7xk2p\"," \
            "\"Hostname\":\"nvidia-dcgm-exporter-7xk2p\""
GP_TEST(exporter_hostname_pod_is_no_pod)
{
    fixture f;
    gp_adv_data d;
    const gp_adv_pod *late;

    start(&f);
    asks_gpu(&f, "late");
    seen(&f, "\"namespace\":\"ml\",\"pod\":\"late\",\"Hostname\":\"nvidia-dcgm-exporter-7xk2p\",\"UUID\":\"GPU-1\"", "120", "60");
    samples(&f, HON ",\"UUID\":\"GPU-1\"", "120", "0");
    samples(&f, HON ",\"UUID\":\"GPU-2\"", "240", "0");
    hourly_of(&f, GP_ADVQ_ACT_SLICED, "\"gp_namespace\":\"ml\",\"gp_pod\":\"late\",\"gp_host\":\"nvidia-dcgm-exporter-7xk2p\",\"UUID\":\"GPU-1\"", "1", NULL);
    hourly_of(&f, GP_ADVQ_ACT_SLICED, "\"gp_namespace\":\"gpu-operator\",\"gp_pod\":\"nvidia-dcgm-exporter-7xk2p\",\"gp_host\":\"nvidia-dcgm-exporter-7xk2p\",\"UUID\":\"GPU-1\"", "1", NULL);
    decode(&f, NULL);
    GP_CHECK(gp_adv_assemble(&f.pol, &f.qs, &f.res, &d, NULL) == GP_OK);
    late = pod(&d, "late");
    GP_CHECK(late != NULL && late->ndevs == 1);
    if (late != NULL && late->ndevs == 1)
        GP_CHECK(!late->devs[0].time_sliced);
    GP_CHECK(pod(&d, "nvidia-dcgm-exporter-7xk2p") == NULL);
    GP_CHECK_NEAR(d.unattributed_gpus, 1.5, 1e-9);
    GP_CHECK(!has_note(&d, "shows no GPU request"));
    gp_adv_data_free(&d);
    finish(&f);
}

/* dcgm-exporter as a sidecar of the workload: its hostname is the workload's pod name, and with
 * honorLabels off the scrape target's pod label is the workload's too. A pod kube-state-metrics
 * shows with a GPU request keeps its GPU either way. */
GP_TEST(sidecar_exporter_keeps_the_workload)
{
    fixture f;
    gp_adv_data d;
    const gp_adv_pod *p;

    start(&f);
    asks_gpu(&f, "train-0");
    asks_gpu(&f, "train-1");
    /* honorLabels on: pod and host labels both train-0 */
    seen(&f, "\"namespace\":\"ml\",\"pod\":\"train-0\",\"Hostname\":\"train-0\",\"UUID\":\"GPU-1\"", "120", "60");
    /* honorLabels off: exported_pod and the target's pod label both train-1 */
    seen(&f, "\"exported_namespace\":\"ml\",\"exported_pod\":\"train-1\",\"namespace\":\"ml\",\"pod\":\"train-1\",\"Hostname\":\"train-1\",\"UUID\":\"GPU-2\"", "120", "30");
    decode(&f, NULL);
    GP_CHECK(gp_adv_assemble(&f.pol, &f.qs, &f.res, &d, NULL) == GP_OK);
    p = pod(&d, "train-0");
    GP_CHECK(p != NULL && p->ndevs == 1);
    if (p != NULL && p->ndevs == 1)
        GP_CHECK_NEAR(p->devs[0].mean, 0.5, 1e-12);
    p = pod(&d, "train-1");
    GP_CHECK(p != NULL && p->ndevs == 1);
    if (p != NULL && p->ndevs == 1)
        GP_CHECK_NEAR(p->devs[0].mean, 0.25, 1e-12);
    GP_CHECK_NEAR(d.unattributed_gpus, 0, 1e-9);
    gp_adv_data_free(&d);
    finish(&f);
}

/* One NaN sample makes a GPU's sum of activity NaN: its activity is unknown, not a mean of 0. */
GP_TEST(nan_sum_is_unknown_activity)
{
    fixture f;
    gp_adv_data d;
    const gp_adv_pod *a;

    start(&f);
    vec(&f, GP_ADVQ_POD_REQUESTS, "\"namespace\":\"ml\",\"pod\":\"a\",\"resource\":\"nvidia_com_gpu\"", "1");
    vec(&f, GP_ADVQ_DCGM_PROF, C_LABELS, "1");
    vec(&f, GP_ADVQ_ACT_COUNT, "\"namespace\":\"ml\",\"pod\":\"a\",\"Hostname\":\"n1\",\"UUID\":\"GPU-1\"", "120");
    vec(&f, GP_ADVQ_ACT_SUM, "\"namespace\":\"ml\",\"pod\":\"a\",\"Hostname\":\"n1\",\"UUID\":\"GPU-1\"", "NaN");
    vec(&f, GP_ADVQ_FB_PEAK, "\"namespace\":\"ml\",\"pod\":\"a\",\"Hostname\":\"n1\",\"UUID\":\"GPU-1\"", "1000");
    decode(&f, NULL);
    GP_CHECK(gp_adv_assemble(&f.pol, &f.qs, &f.res, &d, NULL) == GP_OK);
    a = pod(&d, "a");
    GP_CHECK(a != NULL && a->ndevs == 1);
    if (a != NULL && a->ndevs == 1)
        GP_CHECK(!a->devs[0].has_activity && isnan(a->devs[0].mean));
    GP_CHECK(has_note(&d, "activity of 1 GPUs left out: a NaN or infinite sample"));
    gp_adv_data_free(&d);
    finish(&f);
}

GP_MAIN(GP_CASE(pods_hours_by_hand), GP_CASE(nodes_empty_and_half_hours),
        GP_CASE(dcgm_label_variants_coalesce), GP_CASE(unattributed_ignored_and_bad_samples_noted),
        GP_CASE(prof_absent_util_present_is_a_note), GP_CASE(same_warning_is_one_note),
        GP_CASE(no_dcgm_is_an_error_naming_the_query),
        GP_CASE(no_ksm_requests_is_an_error), GP_CASE(series_with_missing_labels_are_skipped),
        GP_CASE(mig_resource_names), GP_CASE(exporter_pod_label_is_no_pod),
        GP_CASE(exporter_hostname_pod_is_no_pod), GP_CASE(sidecar_exporter_keeps_the_workload),
        GP_CASE(nan_sum_is_unknown_activity))
