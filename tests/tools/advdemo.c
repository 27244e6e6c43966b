/* SPDX-License-Identifier: Apache-2.0 */
/* advdemo: renders a fixed, realistic advisor report (a week of a 12-namespace GPU cluster, one
 * finding of every kind) through advisor/render.c, for tests/e2e/advisor-html.sh and for people
 * who want to see the formats without a Prometheus. Exit 0, 2 on bad arguments.
 *
 *   advdemo table|json|markdown|html [--top N] [--empty] [--hostile]
 *
 * --empty renders a report with no findings and zero totals; --hostile puts markup and quotes
 * in a workload's name and a note (what escaping must neutralise). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"

#define DEMO_HOURS 168
#define DEMO_END 1764864000.0 /* 2025-12-04T16:00:00Z */
#define NFIND 10
#define NNS 12

typedef struct {
    gp_adv_finding f[NFIND];
    gp_adv_share ns[NNS], cls[3], model[5], gpu[3];
    double alloc[DEMO_HOURS], idle[DEMO_HOURS];
    char *notes[3];
} demo_store;

static void usage(const char *msg)
{
    fprintf(stderr, "advdemo: %s\nusage: advdemo table|json|markdown|html [--top N] [--empty] "
                    "[--hostile]\n", msg);
    exit(2);
}

/* The findings, by dollars: every kind, a low-confidence one, a time-sliced one, a long name. */
static void demo_findings(gp_adv_finding *f)
{
    f[0] = (gp_adv_finding){ GP_ADV_GPUS, "research", "statefulset/llm-eval", "StatefulSet",
        "llm-eval", "inference", "llama-70b", "NVIDIA-H100-80GB-HBM3", 1, 504, 3517.92,
        15285.32, 20.94, 0.031, 0.12, 61440, 40320, 168, false, false, 8, 3, NULL, NULL, NULL,
        "request 5 nvidia.com/gpu for statefulset research/llm-eval",
        "3 of 8 GPUs idle (mean 3.1%, p95 12.0%) on pod llm-eval-0" };
    f[1] = (gp_adv_finding){ GP_ADV_NODE, "", "node/gpu-a100-7", "Node", "gpu-a100-7", "", "",
        "NVIDIA-A100-SXM4-80GB", 0, 96, 3148.80, 23944.00, 32.80, NAN, NAN, NAN, 0, 0, false,
        false, 0, 0, NULL, NULL, NULL, "remove node gpu-a100-7 (p4d.24xlarge): empty 96.00 of "
        "168.00 hours, empty now; let the autoscaler scale its node group down",
        "8 GPUs allocatable, none allocated for 96.00 h" };
    f[2] = (gp_adv_finding){ GP_ADV_IDLE, "ml", "deployment/ranker-canary", "Deployment",
        "ranker-canary", "inference", "ranker-v3", "NVIDIA-A100-SXM4-80GB", 4, 672, 2755.20,
        11972.00, 16.40, 0.012, 0.031, 2100, 80640, 672, false, false, 0, 0, NULL, NULL, NULL,
        "scale deployment ml/ranker-canary to zero",
        "4 pods x 1 GPU, mean activity 1.2%, p95 3.1% over 672.00 GPU-hours" };
    f[3] = (gp_adv_finding){ GP_ADV_MIG, "ml", "deployment/embedder", "Deployment", "embedder",
        "inference", "bge-large", "NVIDIA-A100-SXM4-80GB", 3, 504, 1476.00, 6413.57, 8.79, 0.08,
        0.21, 9830, 60480, 504, false, false, 0, 0, "2g.20gb", "11Gi", NULL,
        "set annotation gpupack.io/gpu-memory: \"11Gi\" on deployment ml/embedder "
        "(\xe2\x86\x92 nvidia.com/mig-2g.20gb)",
        "memory peak 9,830 MiB of 81,920; p95 activity 21.0% fits 2 of 7 slices" };
    f[4] = (gp_adv_finding){ GP_ADV_MODEL, "search", "deployment/query-encoder", "Deployment",
        "query-encoder", "inference", "minilm", "NVIDIA-A100-SXM4-80GB", 2, 336, 1105.44, 4803.40,
        6.58, 0.05, 0.14, 4200, 40320, 336, false, false, 0, 0, NULL, NULL, "NVIDIA-L4",
        "run deployment search/query-encoder on NVIDIA-L4 (nodeSelector "
        "nvidia.com/gpu.product: NVIDIA-L4): $0.81 instead of $4.10 per GPU-hour",
        "p95 activity 14.0%, memory peak 4,200 MiB: fits a 24 GiB NVIDIA-L4" };
    f[5] = (gp_adv_finding){ GP_ADV_RUNAWAY, "research", "job/finetune-llama-7b-2025-11-30",
        "Job", "finetune-llama-7b-2025-11-30", "training", "llama-7b", "NVIDIA-H100-80GB-HBM3", 1,
        152, 1060.96, 0, 27.92, 0.004, 0.01, 4560, 18240, 38, false, false, 0, 0, NULL, NULL,
        NULL, "stop job research/finetune-llama-7b-2025-11-30: running 61.00 h, earlier runs "
        "took 9.50 h (median of 6)", "idle for the last 38 hours while Running on 4 GPUs" };
    f[6] = (gp_adv_finding){ GP_ADV_NODE, "", "node/gpu-h100-2", "Node", "gpu-h100-2", "", "",
        "NVIDIA-H100-80GB-HBM3", 0, 60, 418.80, 10190.80, 13.96, NAN, NAN, NAN, 0, 0, false,
        false, 0, 0, NULL, NULL, NULL,
        "move the 2 GPUs in use on node gpu-h100-2 elsewhere (under half allocated 71% of the "
        "time)", "under half of 8 GPUs allocated for 120.00 of 168.00 hours" };
    f[7] = (gp_adv_finding){ GP_ADV_IDLE, "team-recommendations-experimental",
        "deployment/candidate-generator-shadow-traffic-replay-v2", "Deployment",
        "candidate-generator-shadow-traffic-replay-v2", "inference", "", "NVIDIA-L4", 2, 336,
        272.16, 1182.60, 1.62, 0.0, 0.002, 1500, 40320, 336, false, true, 0, 0, NULL, NULL, NULL,
        "scale deployment team-recommendations-experimental/"
        "candidate-generator-shadow-traffic-replay-v2 to zero",
        "time-sliced GPU: every pod on it sees the device's activity; mean 0.0%" };
    f[9] = (gp_adv_finding){ GP_ADV_IDLE, "notebooks", "pod/jupyter-alice", "Pod",
        "jupyter-alice", "interactive", "", "NVIDIA-A100-SXM4-80GB", 1, 24, 98.40, 427.14, 0.59,
        0.001, 0.004, 360, 360, 3, true, false, 0, 0, NULL, NULL, NULL,
        "delete pod notebooks/jupyter-alice (an idle notebook)",
        "MIG 1g.10gb, mean activity 0.1% over 3.00 hours of data" };
    f[8] = (gp_adv_finding){ GP_ADV_MIG, "vision", "deployment/ocr", "Deployment", "ocr",
        "inference", "trocr", "NVIDIA-A100-SXM4-80GB", 1, 168, 393.60, 1710.57, 2.34, 0.11, 0.19,
        15100, 20160, 168, false, false, 0, 0, "3g.40gb", "17Gi", NULL,
        "set annotation gpupack.io/gpu-memory: \"17Gi\" on deployment vision/ocr "
        "(\xe2\x86\x92 nvidia.com/mig-3g.40gb)",
        "memory peak 15,100 MiB of 81,920; p95 activity 19.0%" };
}

static void demo_shares(demo_store *s)
{
    static const char *const ns[NNS] = { "ml", "research", "search", "vision", "speech",
        "team-recommendations-experimental", "notebooks", "ads", "fraud", "translation",
        "batch-eval", "playground" };
    static const double ns_dollars[NNS] = { 14210.40, 12980.18, 6120.00, 4402.50, 3105.77,
        2950.00, 2310.25, 1850.00, 1240.11, 990.35, 720.00, 355.00 };
    static const double ns_waste[NNS] = { 4231.20, 3517.92, 1105.44, 393.60, 0, 272.16, 98.40,
        0, 0, 0, 0, 0 };
    static const char *const cls[3] = { "inference", "training", "interactive" };
    static const char *const model[5] = { "llama-70b", "ranker-v3", "", "bge-large", "minilm" };
    static const char *const gpu[3] = { "NVIDIA-A100-SXM4-80GB", "NVIDIA-H100-80GB-HBM3",
                                        "NVIDIA-L4" };

    for (size_t i = 0; i < NNS; i++)
        s->ns[i] = (gp_adv_share){ (char *)ns[i], ns_dollars[i] / 4.10, ns_dollars[i],
                                   ns_waste[i] / 4.10, ns_waste[i], 0 };
    for (size_t i = 0; i < 3; i++)
        s->cls[i] = (gp_adv_share){ (char *)cls[i], 4000.0 / (double)(i + 1),
                                    30000.0 / (double)(i + 1), 900.0 / (double)(i + 1),
                                    5000.0 / (double)(i + 1), 0 };
    for (size_t i = 0; i < 5; i++)
        s->model[i] = (gp_adv_share){ (char *)model[i], 2500.0 - 400.0 * (double)i,
                                      15000.0 - 2500.0 * (double)i, 300,
                                      1500.0 - 200.0 * (double)i, 0 };
    for (size_t i = 0; i < 3; i++)
        s->gpu[i] = (gp_adv_share){ (char *)gpu[i], 5000.0 / (double)(i + 1),
                                    28000.0 / (double)(i * i + 1), 700, 4000.0 / (double)(i + 1),
                                    0 };
}

/* A week of hourly GPUs: a daily cycle of inference load over a floor of training jobs. */
static void demo_hourly(demo_store *s)
{
    for (size_t i = 0; i < DEMO_HOURS; i++) {
        double day = sin(2 * M_PI * (double)i / 24);

        s->alloc[i] = 58 + 6 * day + (i > 100 && i < 140 ? 8 : 0);
        s->idle[i] = 13 - 4 * day + (i > 100 && i < 140 ? 6 : 0);
    }
}

static void demo_totals(gp_adv_report *r, demo_store *s)
{
    static const double hist[GP_ADV_HIST_BUCKETS] = { 2150.5, 1210.25, 1405, 980, 760.75, 640,
                                                      820, 710.5, 590, 533 };
    gp_adv_totals *t = &r->totals;

    demo_shares(s);
    demo_hourly(s);
    *t = (gp_adv_totals){ .window_hours = DEMO_HOURS, .gpu_hours = 9800, .active_gpu_hours = 3112.4,
                          .idle_gpu_hours = 2150.5, .idle_pct = 21.94, .dollars = 51234.56,
                          .node_dollars = 60120, .pods = 57, .pods_without_dcgm = 4,
                          .gpu_hours_without_dcgm = 310 };
    for (size_t i = 0; i < r->nfindings; i++) {
        if (r->findings[i].kind != GP_ADV_RUNAWAY) {
            t->waste_dollars += r->findings[i].dollars;
            t->recoverable_monthly += r->findings[i].monthly;
        }
    }
    memcpy(t->hist, hist, sizeof hist);
    t->by_namespace = s->ns;
    t->nby_namespace = NNS;
    t->by_class = s->cls;
    t->nby_class = 3;
    t->by_model = s->model;
    t->nby_model = 5;
    t->by_gpu_model = s->gpu;
    t->nby_gpu_model = 3;
    t->alloc_hourly = s->alloc;
    t->idle_hourly = s->idle;
    t->nhours = DEMO_HOURS;
}

static void demo_report(gp_adv_report *r, demo_store *s, bool empty, bool hostile)
{
    *r = (gp_adv_report){ .start = DEMO_END - DEMO_HOURS * 3600, .end = DEMO_END, .step = 300,
                          .activity_metric = "DCGM_FI_PROF_GR_ENGINE_ACTIVE" };
    if (empty) {
        r->totals.window_hours = DEMO_HOURS;
        return;
    }
    demo_findings(s->f);
    r->findings = s->f;
    r->nfindings = NFIND;
    s->notes[0] = "2 DCGM GPUs had activity but no pod label (unattributed): 1.50 GPUs on average";
    s->notes[1] = "4 GPU pods had no DCGM series: 310.00 GPU-hours without utilization data";
    s->notes[2] = "prices: p4d.24xlarge and p5.48xlarge from the policy's instance types, "
                  "NVIDIA-L4 from its gpuProducts";
    if (hostile) {
        s->f[0].workload = "statefulset/<script>alert('x')</script>&\"q\"";
        s->notes[2] = "<img src=x onerror=alert(1)> & a | pipe\nand a newline";
    }
    r->notes = s->notes;
    r->nnotes = 3;
    demo_totals(r, s);
}

int main(int argc, char **argv)
{
    gp_adv_format f;
    gp_adv_report r;
    demo_store s;
    gp_strbuf out;
    gp_err err = { { 0 } };
    size_t top = 0;
    bool empty = false, hostile = false;

    if (argc < 2 || !gp_adv_format_parse(argv[1], &f))
        usage("want a format: table, json, markdown or html");
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--top") == 0 && i + 1 < argc) {
            char *end = NULL;
            unsigned long v = strtoul(argv[++i], &end, 10);

            if (!end || *end || v > 100000)
                usage("--top wants a whole number");
            top = v;
        } else if (strcmp(argv[i], "--empty") == 0) {
            empty = true;
        } else if (strcmp(argv[i], "--hostile") == 0) {
            hostile = true;
        } else {
            usage("unknown argument");
        }
    }
    memset(&s, 0, sizeof s);
    demo_report(&r, &s, empty, hostile);
    gp_strbuf_init(&out, 0);
    if (gp_adv_render(&r, f, top, &out, &err) != GP_OK) {
        fprintf(stderr, "advdemo: %s\n", err.msg);
        gp_strbuf_free(&out);
        return 1;
    }
    fwrite(out.p, 1, out.len, stdout);
    gp_strbuf_free(&out);
    return 0;
}
