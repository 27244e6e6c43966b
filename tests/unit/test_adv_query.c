/* SPDX-License-Identifier: Apache-2.0 */
/* advisor/query.c: the window arithmetic and the PromQL text (selectors, windows, steps). */
#include <math.h>
#include <string.h>

#include "gptest.h"
#include "advtest.h"
#include "query.h"
#include "report.h"
#include "gpupack/flags.h"

/* A policy with only what the queries reads (advtest.h). */
static void policy(gp_policy *p)
{
    advtest_policy(p, true);
}

GP_TEST(window_default_week)
{
    gp_adv_window w;

    /* until 1000 s past a 5-minute boundary: end is the boundary, 2016 steps of 300 s. */
    GP_CHECK(gp_adv_window_make(1764864000.0 + 100, 7 * 86400.0, 300, &w, NULL) == GP_OK);
    GP_CHECK_NEAR(w.end, 1764864000.0, 1e-6);
    GP_CHECK_INT(w.steps, 2016);
    GP_CHECK_NEAR(w.window, 604800.0, 1e-6);
    GP_CHECK_INT(w.nhours, 168);
    GP_CHECK_INT(gp_adv_window_step_of(&w, w.end), 2015);
    GP_CHECK_INT(gp_adv_window_step_of(&w, w.end - 2015 * 300.0), 0);
    GP_CHECK_INT(gp_adv_window_step_of(&w, w.end - 2016 * 300.0), -1);
    GP_CHECK_INT(gp_adv_window_step_of(&w, w.end - 150), -1);
    GP_CHECK_INT(gp_adv_window_hour_of(&w, w.end), 167);
    GP_CHECK_INT(gp_adv_window_hour_of(&w, w.end - 3600), 166);
    GP_CHECK_INT(gp_adv_window_hour_of(&w, w.end - 3599), 167);
    GP_CHECK_INT(gp_adv_window_hour_of(&w, w.end - 168 * 3600.0), -1);
}

GP_TEST(window_rounds_up_and_refuses_too_many_steps)
{
    gp_adv_window w;
    gp_err err = { "" };

    GP_CHECK(gp_adv_window_make(36000, 301, 300, &w, NULL) == GP_OK);
    GP_CHECK_INT(w.steps, 2);
    GP_CHECK_NEAR(w.window, 600, 1e-9);
    GP_CHECK_INT(w.nhours, 1);
    GP_CHECK(gp_adv_window_make(36000, 11001 * 60.0, 60, &w, &err) == GP_EINVAL);
    GP_CHECK(strstr(err.msg, "--since/--step") != NULL);
    GP_CHECK(strstr(err.msg, "11000") != NULL);
    GP_CHECK(gp_adv_window_make(36000, 11000 * 60.0, 60, &w, NULL) == GP_OK);
    GP_CHECK(gp_adv_window_make(36000, 10, 300, &w, &err) == GP_EINVAL);
    GP_CHECK(strstr(err.msg, "--since") != NULL);
    /* 8,400 steps of 2 h are 16,800 hours: a value per pod and hour over 16,800 hours */
    GP_CHECK(gp_adv_window_make(36000, 100 * 7 * 86400.0, 7200, &w, &err) == GP_EINVAL);
    GP_CHECK_STR(err.msg, "--since: 16800 hours; the report keeps a value per pod and hour, for "
                          "at most 11000 hours: use a shorter --since");
    GP_CHECK(gp_adv_window_make(1e9, 11000 * 3600.0, 7200, &w, NULL) == GP_OK);
}

static gp_advq_set built(gp_policy *p)
{
    gp_adv_window w;
    gp_advq_set s;

    policy(p);
    if (gp_adv_window_make(1764864000.0, 7 * 86400.0, 300, &w, NULL) != GP_OK ||
        gp_advq_build(p, &w, &s, NULL) != GP_OK)
        abort();
    return s;
}

#define HAS(id, text) GP_CHECK(strstr(s.q[id].promql, text) != NULL)

GP_TEST(activity_queries_prefer_prof_per_series)
{
    gp_policy p;
    gp_advq_set s = built(&p);
    const char *by = "by (exported_namespace, namespace, pod_namespace, exported_pod, pod, "
                     "pod_name, exported_container, container, container_name, Hostname, "
                     "hostname, gpu, UUID, modelName, GPU_I_PROFILE, GPU_I_ID)";

    GP_CHECK_STR(s.q[GP_ADVQ_ACT_SUM].promql,
                 "sum by (exported_namespace, namespace, pod_namespace, exported_pod, pod, "
                 "pod_name, exported_container, container, container_name, Hostname, hostname, "
                 "gpu, UUID, modelName, GPU_I_PROFILE, GPU_I_ID) (sum_over_time("
                 "DCGM_FI_PROF_GR_ENGINE_ACTIVE[604800s]) or sum_over_time("
                 "DCGM_FI_DEV_GPU_UTIL[604800s]) / 100)");
    HAS(GP_ADVQ_ACT_COUNT, by);
    HAS(GP_ADVQ_ACT_COUNT, "count_over_time(DCGM_FI_PROF_GR_ENGINE_ACTIVE[604800s]) or "
                           "count_over_time(DCGM_FI_DEV_GPU_UTIL[604800s])");
    HAS(GP_ADVQ_ACT_P95, "max by (");
    HAS(GP_ADVQ_ACT_P95, "quantile_over_time(0.95, DCGM_FI_PROF_GR_ENGINE_ACTIVE[604800s]) or "
                         "quantile_over_time(0.95, DCGM_FI_DEV_GPU_UTIL[604800s]) / 100");
    HAS(GP_ADVQ_ACT_HOURLY, "avg_over_time(DCGM_FI_PROF_GR_ENGINE_ACTIVE[1h]) or "
                            "avg_over_time(DCGM_FI_DEV_GPU_UTIL[1h]) / 100");
    HAS(GP_ADVQ_FB_PEAK, "max_over_time(DCGM_FI_DEV_FB_USED[604800s])");
    HAS(GP_ADVQ_DCGM_PROF, "last_over_time(DCGM_FI_PROF_GR_ENGINE_ACTIVE[604800s])");
    HAS(GP_ADVQ_DCGM_UTIL, "last_over_time(DCGM_FI_DEV_GPU_UTIL[604800s])");
    GP_CHECK_STR(s.q[GP_ADVQ_ACT_P95].name, "activity-p95");
    gp_advq_set_free(&s);
}

GP_TEST(kube_state_metrics_queries)
{
    gp_policy p;
    gp_advq_set s = built(&p);

    GP_CHECK_STR(s.q[GP_ADVQ_POD_REQUESTS].promql,
                 "max_over_time(sum by (namespace, pod, resource) (max by (namespace, pod, "
                 "container, resource) (kube_pod_container_resource_requests{resource=~\""
                 "nvidia_com_gpu|nvidia_com_mig_.*\"}))[604799s:300s])");
    GP_CHECK_STR(s.q[GP_ADVQ_POD_RUN_STEPS].promql,
                 "count_over_time((max by (namespace, pod) (kube_pod_status_phase{phase=\""
                 "Running\"} == 1) and on (namespace, pod) (sum by (namespace, pod) "
                 "(kube_pod_container_resource_requests{resource=~\"nvidia_com_gpu|"
                 "nvidia_com_mig_.*\"}) > 0))[604799s:300s])");
    HAS(GP_ADVQ_POD_GPU_STEPS, "sum_over_time((sum by (namespace, pod, resource) (");
    HAS(GP_ADVQ_POD_GPU_STEPS, ") and on (namespace, pod) (max by (namespace, pod) "
                               "(kube_pod_status_phase{phase=\"Running\"} == 1)");
    HAS(GP_ADVQ_POD_GPU_STEPS, "[604799s:300s])");
    HAS(GP_ADVQ_POD_END, "and on (namespace, pod) (max by (namespace, pod) (kube_pod_status");
    HAS(GP_ADVQ_POD_START, "kube_pod_status_phase{phase=\"Running\"} == 1");
    GP_CHECK_NEAR(s.q[GP_ADVQ_POD_START].time, 1764864000.0 - 2015 * 300.0, 1e-6);
    HAS(GP_ADVQ_POD_NODE, "(last_over_time(kube_pod_info{node!=\"\"}[604800s])) * on (namespace, "
                          "pod, uid) group_left max by (namespace, pod, uid) (last_over_time("
                          "kube_pod_created[604800s])) or ");
    GP_CHECK(strstr(s.q[GP_ADVQ_POD_NODE].promql, "[604799s:300s]") == NULL); /* no subquery */
    HAS(GP_ADVQ_POD_OWNER, "kube_pod_owner{owner_is_controller=\"true\"}[604800s]");
    HAS(GP_ADVQ_OWNER_OWNER, "kube_replicaset_owner");
    HAS(GP_ADVQ_OWNER_OWNER, "kube_job_owner");
    HAS(GP_ADVQ_POD_LABELS, "label_gpupack_io_class");
    HAS(GP_ADVQ_POD_LABELS, "label_gpupack_io_model");
    HAS(GP_ADVQ_POD_LABELS, "label_notebook_name");
    HAS(GP_ADVQ_POD_LABELS, "label_ray_io_originated_from_cr_name");
    HAS(GP_ADVQ_POD_LABELS, "label_pod_template_hash");
    HAS(GP_ADVQ_POD_LABELS, "label_serving_kserve_io_inferenceservice");
    HAS(GP_ADVQ_POD_LABELS, "label_leaderworkerset_sigs_k8s_io_name");
    HAS(GP_ADVQ_POD_LABELS, "label_jobset_sigs_k8s_io_jobset_name");
    HAS(GP_ADVQ_POD_LABELS, "label_ray_io_cluster");
    HAS(GP_ADVQ_NODE_UP_STEPS, "count_over_time((max by (node) (kube_node_info) and on (node) "
                               "(max by (node) (kube_node_status_allocatable{");
    HAS(GP_ADVQ_NODE_UP_END, "max by (node) (kube_node_info)");
    /* the weighted allocation: whole GPUs, the policy's profiles, then <N>g × N/7 */
    HAS(GP_ADVQ_NODE_ALLOC_END, "(sum by (node) ((sum by (namespace, pod) (max by (namespace, "
                                "pod, container, resource) (kube_pod_container_resource_"
                                "requests{resource=\"nvidia_com_gpu\"}) or ");
    HAS(GP_ADVQ_NODE_ALLOC_END, " or max by (namespace, pod, container, resource) (kube_pod_"
                                "container_resource_requests{resource=~\"nvidia_com_mig_3g_"
                                ".*\"}) * (3/7) or ");
    HAS(GP_ADVQ_NODE_ALLOC_END, "* on (namespace, pod) group_left (node) topk by (namespace, "
                                "pod) (1, max by (namespace, pod, node) (kube_pod_info{node!="
                                "\"\"}))))");
    HAS(GP_ADVQ_NODE_EMPTY_STEPS, "kube_node_status_allocatable{resource=\"nvidia_com_gpu\"}"
                                  "[604800s] @ 1764864000)");
    HAS(GP_ADVQ_NODE_EMPTY_STEPS, " > 0 unless on (node) (sum by (node) ");
    HAS(GP_ADVQ_NODE_HALF_STEPS, " > 0 < on (node) ((sum by (node) ");
    HAS(GP_ADVQ_NODE_HALF_STEPS, " / 2) and on (node) (max by (node) (kube_node_info)");
    HAS(GP_ADVQ_NODE_HALF_FREE, "sum_over_time(((sum by (node) ");
    HAS(GP_ADVQ_NODE_HALF_FREE, " - on (node) ((sum by (node) ");
    HAS(GP_ADVQ_NODE_HOURLY, "[3599s:300s])");
    HAS(GP_ADVQ_NODE_ALLOC, "max_over_time(kube_node_status_allocatable{resource=~");
    HAS(GP_ADVQ_NODE_LABELS, "label_node_kubernetes_io_instance_type, "
                             "label_nvidia_com_gpu_product, label_karpenter_sh_capacity_type");
    gp_advq_set_free(&s);
}

GP_TEST(range_queries_use_the_window_steps)
{
    gp_policy p;
    gp_advq_set s = built(&p);
    int ranges = 0;

    for (int i = 0; i < GP_ADVQ_COUNT; i++) {
        const gp_advq *q = &s.q[i];

        GP_CHECK(q->name != NULL && q->promql != NULL && q->promql[0] != '\0');
        if (q->type == GP_ADVQ_INSTANT) {
            if (i != GP_ADVQ_POD_START)
                GP_CHECK_NEAR(q->time, 1764864000.0, 1e-6);
            continue;
        }
        ranges++;
        GP_CHECK_NEAR(q->end, 1764864000.0, 1e-6);
        GP_CHECK_NEAR(q->step, 3600, 1e-9);
        GP_CHECK_NEAR(q->start, 1764864000.0 - 167 * 3600.0, 1e-6);
    }
    /* only the hourly ones: nothing returns a sample per step */
    GP_CHECK_INT(ranges, 3);
    GP_CHECK(s.q[GP_ADVQ_ACT_HOURLY].type == GP_ADVQ_RANGE);
    GP_CHECK(s.q[GP_ADVQ_ACT_SLICED].type == GP_ADVQ_RANGE);
    GP_CHECK(s.q[GP_ADVQ_NODE_HOURLY].type == GP_ADVQ_RANGE);
    gp_advq_set_free(&s);
}

GP_TEST(empty_dcgm_label_list_is_an_error)
{
    gp_policy p;
    gp_adv_window w;
    gp_advq_set s;
    gp_err err = { "" };

    policy(&p);
    p.advisor.nlabel_pod = 0;
    GP_CHECK(gp_adv_window_make(36000, 3600, 300, &w, NULL) == GP_OK);
    GP_CHECK(gp_advq_build(&p, &w, &s, &err) == GP_EINVAL);
    GP_CHECK(strstr(err.msg, "dcgmLabels.pod") != NULL);
}

GP_TEST(ksm_label_sanitising)
{
    char buf[64];

    GP_CHECK_STR(gp_advq_ksm_label("gpupack.io/class", buf, sizeof(buf)), "label_gpupack_io_class");
    GP_CHECK_STR(gp_advq_ksm_label("app.kubernetes.io/name", buf, sizeof(buf)),
                 "label_app_kubernetes_io_name");
    GP_CHECK_STR(gp_advq_ksm_label("a-b_C9", buf, sizeof(buf)), "label_a_b_C9");
    GP_CHECK_STR(gp_advq_ksm_label("abcdefghijkl", buf, 10), "label_abc");
}

GP_TEST(durations_and_times)
{
    double v = 0;

    GP_CHECK(gp_duration_parse("30s", &v) == GP_OK && v == 30);
    GP_CHECK(gp_duration_parse("5m", &v) == GP_OK && v == 300);
    GP_CHECK(gp_duration_parse("2h", &v) == GP_OK && v == 7200);
    GP_CHECK(gp_duration_parse("7d", &v) == GP_OK && v == 604800);
    GP_CHECK(gp_duration_parse("1w", &v) == GP_OK && v == 604800);
    GP_CHECK(gp_duration_parse("1h30m", &v) == GP_OK && v == 5400);
    GP_CHECK(gp_duration_parse("", &v) == GP_EINVAL);
    GP_CHECK(gp_duration_parse("7", &v) == GP_EINVAL);
    GP_CHECK(gp_duration_parse("3x", &v) == GP_EINVAL);
    GP_CHECK(gp_duration_parse("-5m", &v) == GP_EINVAL);
    GP_CHECK(gp_duration_parse("0s", &v) == GP_EINVAL);
    GP_CHECK(gp_adv_parse_time("2026-12-04T16:00:00Z", &v) == GP_OK && v == 1796400000.0);
    GP_CHECK(gp_adv_parse_time("2026-12-04T18:00:00+02:00", &v) == GP_OK && v == 1796400000.0);
    GP_CHECK(gp_adv_parse_time("2026-12-04T16:00:00.5Z", &v) == GP_OK && v == 1796400000.5);
    GP_CHECK(gp_adv_parse_time("1796400000", &v) == GP_OK && v == 1796400000.0);
    GP_CHECK(gp_adv_parse_time("2026-12-04 16:00:00", &v) == GP_EINVAL);
    GP_CHECK(gp_adv_parse_time("2026-12-04T16:00:00", &v) == GP_EINVAL);
    GP_CHECK(gp_adv_parse_time("yesterday", &v) == GP_EINVAL);
    GP_CHECK(gp_adv_parse_time("2026-13-04T16:00:00Z", &v) == GP_EINVAL);
}

/* A week of 2,016 steps in parts of 576: the per-step queries are asked over steps 0-575,
 * 576-1151, 1152-1727 and 1728-2015, each a subquery of its own steps at its last step; the
 * rest of each text (W, the capacity's @ end) stays the week's; other queries have no parts. */
GP_TEST(per_step_queries_in_parts)
{
    static const gp_advq_id ids[] = { GP_ADVQ_POD_REQUESTS, GP_ADVQ_POD_GPU_STEPS,
                                      GP_ADVQ_POD_RUN_STEPS, GP_ADVQ_NODE_UP_STEPS,
                                      GP_ADVQ_NODE_EMPTY_STEPS, GP_ADVQ_NODE_HALF_STEPS,
                                      GP_ADVQ_NODE_HALF_FREE };
    gp_policy p;
    gp_adv_window w;
    gp_advq_set s;
    double end = 1764864000.0;

    policy(&p);
    GP_CHECK(gp_adv_window_make(end, 7 * 86400.0, 300, &w, NULL) == GP_OK);
    w.part_steps = 576;
    GP_CHECK(gp_advq_build(&p, &w, &s, NULL) == GP_OK);
    for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
        const gp_advq *q = &s.q[ids[i]];

        GP_CHECK_INT(q->nparts, 4);
        if (q->nparts != 4)
            continue;
        GP_CHECK_NEAR(q->part_times[0], end - 1440 * 300.0, 1e-6);
        GP_CHECK_NEAR(q->part_times[2], end - 288 * 300.0, 1e-6);
        GP_CHECK_NEAR(q->part_times[3], end, 1e-6);
        GP_CHECK(strstr(q->parts[0], "[172799s:300s]") != NULL);
        GP_CHECK(strstr(q->parts[3], "[86399s:300s]") != NULL);
        GP_CHECK(strstr(q->parts[3], "[604799s:") == NULL);
        GP_CHECK(strstr(q->promql, "[604799s:300s]") != NULL);
    }
    GP_CHECK(strstr(s.q[GP_ADVQ_NODE_HALF_STEPS].parts[1], "[604800s] @ 1764864000") != NULL);
    GP_CHECK_INT(s.q[GP_ADVQ_POD_NODE].nparts, 0);
    GP_CHECK_INT(s.q[GP_ADVQ_ACT_SUM].nparts, 0);
    GP_CHECK_INT(s.q[GP_ADVQ_NODE_HOURLY].nparts, 0);
    gp_advq_set_free(&s);
    w.part_steps = 2016; /* the window fits one part */
    GP_CHECK(gp_advq_build(&p, &w, &s, NULL) == GP_OK);
    GP_CHECK_INT(s.q[GP_ADVQ_POD_REQUESTS].nparts, 0);
    gp_advq_set_free(&s);
}

/* The hourly range queries' parts follow --query-steps: its hours (at least one), a week at most
 * and for 0. */
GP_TEST(range_points_follow_query_steps)
{
    GP_CHECK_INT(gp_adv_range_points(576, 300), 48);
    GP_CHECK_INT(gp_adv_range_points(100, 300), 8);
    GP_CHECK_INT(gp_adv_range_points(5, 300), 1);
    GP_CHECK_INT(gp_adv_range_points(0, 300), 168);
    GP_CHECK_INT(gp_adv_range_points(11000, 3600), 168);
}

GP_MAIN(GP_CASE(window_default_week), GP_CASE(window_rounds_up_and_refuses_too_many_steps),
        GP_CASE(activity_queries_prefer_prof_per_series), GP_CASE(kube_state_metrics_queries),
        GP_CASE(range_queries_use_the_window_steps), GP_CASE(empty_dcgm_label_list_is_an_error),
        GP_CASE(ksm_label_sanitising), GP_CASE(durations_and_times),
        GP_CASE(per_step_queries_in_parts), GP_CASE(range_points_follow_query_steps))
