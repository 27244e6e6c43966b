/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of lib/advise.c and lib/advfind.c: each finding kind with hand-worked numbers, the
 * precedence that keeps a GPU-hour in one finding, prices (spot, MIG slices), totals and order.
 *
 * Prices of the test policy: node type "p4d" $32/h for the node; product "A100" $4/GPU-h
 * (81920Mi), "L4" $1 (23034Mi), "T4" $0.5 (memory unknown); spot = half of on-demand. */
#include "gptest.h"

#include <math.h>

#include "gpupack/advise.h"

#define POLICY                                                                                   \
    "{\"apiVersion\":\"gpupack.io/v1alpha1\",\"kind\":\"Policy\",\"classes\":{"                  \
    "\"inference\":{\"migAllowed\":true},\"serving\":{},"                                        \
    "\"training\":{\"runtimeCapSeconds\":36000}},"                                               \
    "\"migProfiles\":[{\"name\":\"1g.10gb\",\"memory\":\"9728Mi\",\"computeSlices\":1},"         \
    "{\"name\":\"2g.20gb\",\"memory\":\"19968Mi\",\"computeSlices\":2},"                         \
    "{\"name\":\"7g.80gb\",\"memory\":\"80896Mi\",\"computeSlices\":7}],"                        \
    "\"scoring\":{\"spotDiscountPercent\":50,\"defaultGpuHourlyPrice\":\"2\",\"prices\":{"       \
    "\"instanceTypes\":{\"p4d\":{\"onDemand\":\"32\"}},"                                         \
    "\"gpuProducts\":{\"A100\":{\"onDemand\":\"4\",\"memory\":\"81920Mi\"},"                     \
    "\"L4\":{\"onDemand\":\"1\",\"memory\":\"23034Mi\"},\"T4\":{\"onDemand\":\"0.5\"}}}},"       \
    "\"advisor\":{\"cheaperModelClasses\":[\"inference\",\"serving\"]}}"

static gp_policy *policy(void)
{
    gp_policy *p = NULL;
    char *errors = NULL;

    if (gp_policy_parse(POLICY, strlen(POLICY), &p, &errors) != GP_OK)
        printf("  policy: %s\n", errors ? errors : "?");
    free(errors);
    return p;
}

static char *sdup(const char *s)
{
    return s ? strdup(s) : NULL;
}

/* A data set of 48 one-hour buckets ending at 172800, 5-minute steps. */
static void data_init(gp_adv_data *d)
{
    memset(d, 0, sizeof(*d));
    d->end = 172800;
    d->step = 300;
    d->hours = 48;
    d->nhours = 48;
    d->activity_metric = sdup("DCGM_FI_PROF_GR_ENGINE_ACTIVE");
}

static gp_adv_node *add_node(gp_adv_data *d, const char *name, const char *type,
                             const char *product, double gpus)
{
    gp_adv_node *n;

    d->nodes = realloc(d->nodes, (d->nnodes + 1) * sizeof(*n));
    n = &d->nodes[d->nnodes++];
    memset(n, 0, sizeof(*n));
    n->name = sdup(name);
    n->instance_type = sdup(type);
    n->gpu_product = sdup(product);
    n->gpus = gpus;
    n->up_hours = 48;
    n->up_at_end = true;
    n->alloc_at_end = 1;
    return n;
}

static void node_mig(gp_adv_node *n, const char *profile, double count)
{
    n->mig = realloc(n->mig, (n->nmig + 1) * sizeof(*n->mig));
    n->mig[n->nmig].profile = sdup(profile);
    n->mig[n->nmig++].count = count;
}

/* A pod of workload owner (kind/name) running 10 h with gpus whole GPUs, still running. */
static gp_adv_pod *add_pod(gp_adv_data *d, const char *ns, const char *name, const char *node,
                           const char *okind, const char *oname, const char *cls, double gpus)
{
    gp_adv_pod *p;

    d->pods = realloc(d->pods, (d->npods + 1) * sizeof(*p));
    p = &d->pods[d->npods++];
    memset(p, 0, sizeof(*p));
    p->namespace = sdup(ns);
    p->name = sdup(name);
    p->node = sdup(node);
    p->owner_kind = sdup(okind);
    p->owner_name = sdup(oname);
    if (cls != NULL) {
        p->labels = calloc(1, sizeof(gp_label));
        p->labels[0].key = sdup("gpupack.io/class");
        p->labels[0].value = sdup(cls);
        p->nlabels = 1;
    }
    p->gpus = gpus;
    p->gpu_hours = 10 * gpus;
    p->run_hours = 10;
    p->running_at_end = true;
    p->gpus_at_end = gpus;
    p->hourly = malloc(48 * sizeof(double));
    for (int i = 0; i < 48; i++)
        p->hourly[i] = i < 38 ? NAN : 0.5; /* 10 hours of data */
    return p;
}

static gp_adv_gpu *add_dev(gp_adv_pod *p, double mean, double p95, double fb)
{
    gp_adv_gpu *g;

    p->devs = realloc(p->devs, (p->ndevs + 1) * sizeof(*g));
    g = &p->devs[p->ndevs++];
    memset(g, 0, sizeof(*g));
    g->node = sdup(p->node);
    g->uuid = sdup("GPU-1");
    g->has_activity = true;
    g->mean = mean;
    g->p95 = p95;
    g->samples = 1200;
    g->fb_peak_mib = fb;
    return g;
}

/* Runs gp_advise; the one finding of kind for workload (NULL when none, or several). */
static const gp_adv_finding *find(const gp_adv_report *r, gp_adv_kind kind, const char *wl)
{
    const gp_adv_finding *f = NULL;

    for (size_t i = 0; i < r->nfindings; i++)
        if (r->findings[i].kind == kind && strcmp(r->findings[i].workload, wl) == 0) {
            if (f != NULL)
                return NULL;
            f = &r->findings[i];
        }
    return f;
}

static int count_kind(const gp_adv_report *r, gp_adv_kind kind)
{
    int n = 0;

    for (size_t i = 0; i < r->nfindings; i++)
        n += r->findings[i].kind == kind;
    return n;
}

static bool advise(gp_adv_data *d, gp_policy **pol, gp_adv_report *r)
{
    gp_err err = {0};

    *pol = policy();
    if (*pol == NULL)
        return false;
    if (gp_advise(d, *pol, r, &err) != GP_OK) {
        printf("  advise: %s\n", err.msg);
        gp_policy_unref(*pol);
        return false;
    }
    return true;
}

static void done(gp_adv_data *d, gp_policy *pol, gp_adv_report *r)
{
    gp_adv_report_free(r);
    gp_adv_data_free(d);
    gp_policy_unref(pol);
}

#define SETUP                                                                                    \
    gp_adv_data d;                                                                               \
    gp_adv_report r;                                                                             \
    gp_policy *pol;                                                                              \
    data_init(&d)

#define RUN                                                                                      \
    do {                                                                                         \
        if (!advise(&d, &pol, &r)) {                                                             \
            gp_test_failed = 1;                                                                  \
            gp_adv_data_free(&d);                                                                \
            return;                                                                              \
        }                                                                                        \
    } while (0)

/* ---------------------------------------------------------------------------------------------
 * idle */

GP_TEST(idle_deployment)
{
    SETUP;
    gp_adv_pod *p;
    const gp_adv_finding *f;

    add_node(&d, "a1", NULL, "A100", 8);
    p = add_pod(&d, "ml", "ranker-abc-1", "a1", "ReplicaSet", "ranker-abc", "inference", 1);
    p->owner_owner_kind = sdup("Deployment");
    p->owner_owner_name = sdup("ranker");
    add_dev(p, 0.04, 0.09, 1000);
    /* mean exactly at the threshold: not idle */
    add_dev(add_pod(&d, "ml", "edge", "a1", NULL, NULL, "serving", 1), 0.05, 0.01, NAN);
    RUN;
    f = find(&r, GP_ADV_IDLE, "deployment/ranker");
    GP_CHECK(f != NULL);
    if (f != NULL) {
        GP_CHECK_NEAR(f->hours, 10, 1e-9);
        GP_CHECK_NEAR(f->dollars, 40, 1e-9);
        GP_CHECK_NEAR(f->per_hour, 4, 1e-9);
        GP_CHECK_NEAR(f->monthly, 2920, 1e-9);
        GP_CHECK_NEAR(f->mean, 0.04, 1e-12);
        GP_CHECK_NEAR(f->p95, 0.09, 1e-12);
        GP_CHECK_NEAR(f->coverage_hours, 10, 0);
        GP_CHECK(f->low_confidence); /* 10 h of data < 24 */
        GP_CHECK_STR(f->recommendation, "scale deployment ml/ranker to zero");
        GP_CHECK_STR(f->class_name, "inference");
        GP_CHECK_STR(f->gpu_model, "A100");
    }
    GP_CHECK(find(&r, GP_ADV_IDLE, "pod/edge") == NULL);
    GP_CHECK_NEAR(r.totals.idle_gpu_hours, 10, 1e-9);
    GP_CHECK_NEAR(r.totals.gpu_hours, 20, 1e-9);
    GP_CHECK_NEAR(r.totals.idle_pct, 50, 1e-9);
    done(&d, pol, &r);
}

/* p95 exactly at its threshold is not idle; a pod without devs has no finding but is noted. */
GP_TEST(idle_edges_and_no_dcgm)
{
    SETUP;
    gp_adv_pod *p;

    add_node(&d, "a1", NULL, "A100", 8);
    add_dev(add_pod(&d, "ml", "p95edge", "a1", NULL, NULL, "serving", 1), 0.01, 0.10, NAN);
    p = add_pod(&d, "ml", "nodcgm", "a1", NULL, NULL, "serving", 2);
    for (int i = 0; i < 48; i++)
        p->hourly[i] = NAN;
    RUN;
    GP_CHECK_INT(r.nfindings, 0);
    GP_CHECK_INT(r.totals.pods_without_dcgm, 1);
    GP_CHECK_NEAR(r.totals.gpu_hours_without_dcgm, 20, 1e-9);
    GP_CHECK(r.nnotes >= 1);
    if (r.nnotes >= 1)
        GP_CHECK_STR(r.notes[r.nnotes - 1],
                     "GPU pods without DCGM series: 1 (20.0 GPU-hours): their pod labels are "
                     "missing in dcgm-exporter's series");
    done(&d, pol, &r);
}

/* A workload that ended before the window's end: dollars, but nothing more per month. */
GP_TEST(idle_ended_monthly_zero)
{
    SETUP;
    gp_adv_pod *p;
    const gp_adv_finding *f;

    add_node(&d, "a1", NULL, "A100", 8);
    p = add_pod(&d, "ml", "nb-0", "a1", "Notebook", "nb", NULL, 1);
    p->running_at_end = false;
    p->gpus_at_end = 0;
    add_dev(p, 0, 0, 500);
    RUN;
    f = find(&r, GP_ADV_IDLE, "notebook/nb");
    GP_CHECK(f != NULL);
    if (f != NULL) {
        GP_CHECK_NEAR(f->dollars, 40, 1e-9);
        GP_CHECK_NEAR(f->monthly, 0, 0);
        GP_CHECK_STR(f->recommendation, "delete notebook ml/nb");
    }
    GP_CHECK_NEAR(r.totals.recoverable_monthly, 0, 0);
    done(&d, pol, &r);
}

/* Spot node: half price. MIG pod on a MIG node: its slice is slices/7 of the GPU price. */
GP_TEST(idle_spot_and_mig_slice_price)
{
    SETUP;
    gp_adv_node *m;
    gp_adv_pod *p;
    const gp_adv_finding *f;

    add_node(&d, "s1", NULL, "A100", 8)->spot = true;
    add_dev(add_pod(&d, "ml", "spotty", "s1", NULL, NULL, NULL, 1), 0, 0, NAN);
    m = add_node(&d, "m1", NULL, "A100", 0);
    node_mig(m, "1g.10gb", 7); /* one GPU cut in 7: $4/h for 7/7 */
    p = add_pod(&d, "ml", "slice", "m1", NULL, NULL, NULL, 0);
    p->mig = calloc(1, sizeof(gp_adv_mig_req));
    p->mig[0].profile = sdup("1g.10gb");
    p->mig[0].count = 1;
    p->nmig = 1;
    p->gpu_hours = 10.0 / 7;
    p->gpus_at_end = 1.0 / 7;
    add_dev(p, 0, 0, NAN)->mig_profile = sdup("1g.10gb");
    RUN;
    GP_CHECK_NEAR(gp_adv_gpu_price(pol, &d.nodes[0]), 2, 1e-12);
    GP_CHECK_NEAR(gp_adv_gpu_price(pol, &d.nodes[1]), 4, 1e-12);
    GP_CHECK_NEAR(gp_adv_gpu_price(pol, NULL), 2, 1e-12);
    f = find(&r, GP_ADV_IDLE, "pod/spotty");
    GP_CHECK(f != NULL && fabs(f->dollars - 20) < 1e-9);
    f = find(&r, GP_ADV_IDLE, "pod/slice");
    GP_CHECK(f != NULL);
    if (f != NULL) {
        GP_CHECK_NEAR(f->dollars, 40.0 / 7, 1e-9);
        GP_CHECK_NEAR(f->per_hour, 4.0 / 7, 1e-9);
    }
    done(&d, pol, &r);
}

/* Instance-type price for the node divided by its GPUs. */
GP_TEST(instance_type_price_per_gpu)
{
    SETUP;

    add_node(&d, "p", "p4d", "A100", 8);
    RUN;
    GP_CHECK_NEAR(gp_adv_gpu_price(pol, &d.nodes[0]), 4, 1e-12);
    d.nodes[0].gpus = 4;
    GP_CHECK_NEAR(gp_adv_gpu_price(pol, &d.nodes[0]), 8, 1e-12);
    done(&d, pol, &r);
}

/* ---------------------------------------------------------------------------------------------
 * gpus, precedence */

GP_TEST(gpus_some_idle)
{
    SETUP;
    gp_adv_pod *p;
    const gp_adv_finding *f;

    add_node(&d, "a1", NULL, "A100", 8);
    p = add_pod(&d, "ml", "train-0", "a1", "Job", "train", "serving", 4);
    add_dev(p, 0.01, 0.02, 100);
    add_dev(p, 0.01, 0.02, 100);
    add_dev(p, 0.8, 0.9, 70000);
    add_dev(p, 0.8, 0.9, 70000);
    RUN;
    f = find(&r, GP_ADV_GPUS, "job/train");
    GP_CHECK(f != NULL);
    if (f != NULL) {
        GP_CHECK_NEAR(f->hours, 20, 1e-9);
        GP_CHECK_NEAR(f->dollars, 80, 1e-9);
        GP_CHECK_NEAR(f->per_hour, 8, 1e-9);
        GP_CHECK_INT(f->gpus, 4);
        GP_CHECK_INT(f->gpus_idle, 2);
        GP_CHECK_STR(f->recommendation, "request 2 nvidia.com/gpu (not 4) in job ml/train");
    }
    GP_CHECK_INT(r.nfindings, 1); /* not also a model finding (precedence) */
    GP_CHECK_NEAR(r.totals.idle_gpu_hours, 20, 1e-9);
    done(&d, pol, &r);
}

/* A one-GPU pod recreated on another GPU in the window (busy on the first, idle on the second):
 * it never held two GPUs at once, so no "request 1 (not 2)". */
GP_TEST(gpus_not_for_a_pod_that_moved)
{
    SETUP;
    gp_adv_pod *p;

    add_node(&d, "a1", NULL, "A100", 8);
    p = add_pod(&d, "nb", "alice-0", "a1", "StatefulSet", "alice", "serving", 1);
    add_dev(p, 0.5, 0.6, 30000);
    free(add_dev(p, 0.01, 0.02, 100)->uuid);
    p->devs[1].uuid = sdup("GPU-2");
    RUN;
    GP_CHECK_INT(count_kind(&r, GP_ADV_GPUS), 0);
    GP_CHECK_NEAR(r.totals.idle_gpu_hours, 0, 1e-9);
    done(&d, pol, &r);
}

/* ---------------------------------------------------------------------------------------------
 * mig */

GP_TEST(mig_by_memory_in_mib)
{
    SETUP;
    gp_adv_node *m;
    const gp_adv_finding *f;

    add_node(&d, "a1", NULL, "A100", 8);
    m = add_node(&d, "m1", NULL, "A100", 0);
    node_mig(m, "1g.10gb", 7);
    node_mig(m, "2g.20gb", 3);
    /* 8000 MiB x 1.2 = 9600 <= 9728 (1g.10gb); 10Gi = 10240 would pick 2g.20gb: MiB */
    add_dev(add_pod(&d, "ml", "small", "a1", "StatefulSet", "small", "inference", 1), 0.3, 0.1,
            8000);
    RUN;
    f = find(&r, GP_ADV_MIG, "statefulset/small");
    GP_CHECK(f != NULL);
    if (f != NULL) {
        GP_CHECK_STR(f->mig_profile, "1g.10gb");
        GP_CHECK_STR(f->gpu_memory, "9600Mi");
        GP_CHECK_NEAR(f->dollars, 40 * 6.0 / 7, 1e-9);
        GP_CHECK_NEAR(f->per_hour, 4 * 6.0 / 7, 1e-9);
        GP_CHECK_STR(f->recommendation,
                     "set annotation gpupack.io/gpu-memory: \"9600Mi\" on statefulset ml/small "
                     "(\xe2\x86\x92 nvidia.com/mig-1g.10gb)");
    }
    GP_CHECK_INT(count_kind(&r, GP_ADV_MODEL), 0); /* mig wins over model */
    done(&d, pol, &r);
}

/* The device plugin's single strategy: the node advertises its 1g.10gb slices as nvidia.com/gpu,
 * so a pod holding "1 GPU" there is on a slice already (dcgm-exporter says so): no mig finding,
 * and no cheaper model either. */
GP_TEST(mig_not_for_a_pod_on_a_slice_already)
{
    SETUP;
    gp_adv_node *m;

    add_node(&d, "s1", NULL, "A100", 56);
    m = add_node(&d, "m1", NULL, "A100", 0);
    node_mig(m, "1g.10gb", 7);
    add_dev(add_pod(&d, "inf", "emb-0", "s1", "StatefulSet", "emb", "inference", 1), 0.3, 0.1,
            4000)->mig_profile = sdup("1g.10gb");
    RUN;
    GP_CHECK_INT(count_kind(&r, GP_ADV_MIG), 0);
    GP_CHECK_INT(count_kind(&r, GP_ADV_MODEL), 0);
    done(&d, pol, &r);
}

/* p95 0.2 > 1/7: the 1g slice lacks compute, so 2g.20gb (2/7) in whole GiB. */
GP_TEST(mig_raised_by_p95)
{
    SETUP;
    gp_adv_node *m;
    const gp_adv_finding *f;

    add_node(&d, "a1", NULL, "A100", 8);
    m = add_node(&d, "m1", NULL, "A100", 0);
    node_mig(m, "1g.10gb", 7);
    node_mig(m, "2g.20gb", 3);
    add_dev(add_pod(&d, "ml", "mid", "a1", NULL, NULL, "inference", 1), 0.15, 0.2, 8000);
    RUN;
    f = find(&r, GP_ADV_MIG, "pod/mid");
    GP_CHECK(f != NULL);
    if (f != NULL) {
        GP_CHECK_STR(f->mig_profile, "2g.20gb");
        GP_CHECK_STR(f->gpu_memory, "10Gi");
        GP_CHECK_NEAR(f->dollars, 40 * 5.0 / 7, 1e-9);
    }
    done(&d, pol, &r);
}

/* No node offers a MIG profile: no mig finding, and the class is not allowed MIG elsewhere. */
GP_TEST(mig_none_offered_falls_to_model)
{
    SETUP;
    const gp_adv_finding *f;

    add_node(&d, "a1", NULL, "A100", 8);
    add_dev(add_pod(&d, "ml", "srv", "a1", NULL, NULL, "inference", 1), 0.3, 0.4, 15000);
    RUN;
    GP_CHECK_INT(count_kind(&r, GP_ADV_MIG), 0);
    f = find(&r, GP_ADV_MODEL, "pod/srv");
    GP_CHECK(f != NULL);
    if (f != NULL) {
        GP_CHECK_STR(f->to_model, "L4"); /* 15000 x 1.2 = 18000 <= 23034; T4 memory unknown */
        GP_CHECK_NEAR(f->dollars, 30, 1e-9);
        GP_CHECK_NEAR(f->monthly, 3 * 730, 1e-9);
        GP_CHECK_STR(f->recommendation,
                     "set annotation gpupack.io/gpu-models: \"L4\" on pod ml/srv");
    }
    done(&d, pol, &r);
}

/* model: p95 above cheaperModelMaxP95Percent, or memory that fits no cheaper product: none. */
GP_TEST(model_limits)
{
    SETUP;

    add_node(&d, "a1", NULL, "A100", 8);
    add_dev(add_pod(&d, "ml", "busy", "a1", NULL, NULL, "serving", 1), 0.4, 0.51, 1000);
    add_dev(add_pod(&d, "ml", "big", "a1", NULL, NULL, "serving", 1), 0.3, 0.4, 20000);
    add_dev(add_pod(&d, "ml", "edge", "a1", NULL, NULL, "serving", 1), 0.3, 0.5, 1000);
    RUN;
    GP_CHECK(find(&r, GP_ADV_MODEL, "pod/busy") == NULL);
    GP_CHECK(find(&r, GP_ADV_MODEL, "pod/big") == NULL); /* 24000 > 23034 */
    GP_CHECK(find(&r, GP_ADV_MODEL, "pod/edge") != NULL); /* p95 exactly 50% */
    done(&d, pol, &r);
}

/* ---------------------------------------------------------------------------------------------
 * node */

GP_TEST(node_empty_and_half)
{
    SETUP;
    gp_adv_node *n;
    const gp_adv_finding *f;

    n = add_node(&d, "empty", "p4d", "A100", 8);
    n->empty_hours = 24; /* exactly idleNodeHours */
    n->alloc_at_end = 0;
    n = add_node(&d, "half", NULL, "A100", 8);
    n->half_hours = 30;
    n->half_free_gpu_hours = 100;
    n->alloc_at_end = 2;
    n = add_node(&d, "even", NULL, "A100", 8);
    n->half_hours = 24; /* exactly half of 48: no finding */
    n->empty_hours = 23.9;
    RUN;
    f = find(&r, GP_ADV_NODE, "node/empty");
    GP_CHECK(f != NULL);
    if (f != NULL) {
        GP_CHECK_NEAR(f->dollars, 32 * 24, 1e-9);
        GP_CHECK_NEAR(f->per_hour, 32, 1e-9);
        GP_CHECK_NEAR(f->monthly, 32 * 730, 1e-9);
        GP_CHECK_STR(f->namespace, "");
    }
    f = find(&r, GP_ADV_NODE, "node/half");
    GP_CHECK(f != NULL);
    if (f != NULL) {
        GP_CHECK_NEAR(f->dollars, 400, 1e-9);
        GP_CHECK_NEAR(f->per_hour, 24, 1e-9);
    }
    GP_CHECK(find(&r, GP_ADV_NODE, "node/even") == NULL);
    GP_CHECK_NEAR(r.totals.node_dollars, 48 * (32 + 32 + 32), 1e-6);
    /* sorted by dollars: empty (768) before half (400) */
    GP_CHECK_INT(r.nfindings, 2);
    if (r.nfindings == 2)
        GP_CHECK_STR(r.findings[0].workload, "node/empty");
    done(&d, pol, &r);
}

/* ---------------------------------------------------------------------------------------------
 * runaway */

GP_TEST(runaway_by_median)
{
    SETUP;
    gp_adv_pod *p;
    const gp_adv_finding *f;
    double runs[] = {2, 3, 4};

    add_node(&d, "a1", NULL, "A100", 8);
    for (int i = 0; i < 3; i++) {
        char name[32];

        snprintf(name, sizeof(name), "n-%d", i);
        p = add_pod(&d, "ml", name, "a1", "Job", name, NULL, 1);
        p->owner_owner_kind = sdup("CronJob");
        p->owner_owner_name = sdup("nightly");
        p->run_hours = runs[i];
        p->running_at_end = false;
        p->started_in_window = true;
        add_dev(p, 0.5, 0.9, 1000);
    }
    p = add_pod(&d, "ml", "n-now", "a1", "Job", "n-now", NULL, 1);
    p->owner_owner_kind = sdup("CronJob");
    p->owner_owner_name = sdup("nightly");
    p->run_hours = 13; /* 3 x median 3 = 9: 4 h too long */
    add_dev(p, 0.5, 0.9, 1000);
    RUN;
    f = find(&r, GP_ADV_RUNAWAY, "cronjob/nightly");
    GP_CHECK(f != NULL);
    if (f != NULL) {
        GP_CHECK_NEAR(f->dollars, 16, 1e-9);
        GP_CHECK_NEAR(f->per_hour, 4, 1e-9);
        GP_CHECK_NEAR(f->monthly, 0, 0);
        GP_CHECK(strstr(f->evidence, "median 3.0 h of 3 earlier runs") != NULL);
    }
    GP_CHECK_NEAR(r.totals.waste_dollars, 0, 0); /* runaway is not in the waste */
    done(&d, pol, &r);
}

GP_TEST(runaway_by_cap_and_idle)
{
    SETUP;
    gp_adv_pod *p;
    const gp_adv_finding *f;

    add_node(&d, "a1", NULL, "A100", 8);
    p = add_pod(&d, "ml", "capped", "a1", NULL, NULL, "training", 2);
    p->run_hours = 12; /* cap 10 h: 2 h x 2 GPUs x $4 */
    add_dev(p, 0.5, 0.9, 1000);
    add_dev(p, 0.5, 0.9, 1000);
    p = add_pod(&d, "ml", "stuck-0", "a1", "Job", "stuck", NULL, 1);
    for (int i = 38; i < 48; i++)
        p->hourly[i] = i < 41 ? 0.5 : 0.01; /* 7 trailing idle hours */
    add_dev(p, 0.2, 0.9, 1000);
    p = add_pod(&d, "ml", "gap-0", "a1", "Job", "gap", NULL, 1);
    for (int i = 38; i < 48; i++)
        p->hourly[i] = i == 45 ? NAN : 0.01; /* NaN stops the count at 2 */
    add_dev(p, 0.2, 0.9, 1000);
    RUN;
    f = find(&r, GP_ADV_RUNAWAY, "pod/capped");
    GP_CHECK(f != NULL && fabs(f->dollars - 16) < 1e-9);
    f = find(&r, GP_ADV_RUNAWAY, "job/stuck");
    GP_CHECK(f != NULL);
    if (f != NULL) {
        GP_CHECK_NEAR(f->dollars, 28, 1e-9);
        GP_CHECK(strstr(f->evidence, "idle the last 7 hours") != NULL);
    }
    GP_CHECK(find(&r, GP_ADV_RUNAWAY, "job/gap") == NULL);
    done(&d, pol, &r);
}

/* ---------------------------------------------------------------------------------------------
 * evidence, totals, order, errors */

GP_TEST(time_sliced_and_coverage)
{
    SETUP;
    gp_adv_pod *p;
    const gp_adv_finding *f;

    add_node(&d, "a1", NULL, "A100", 8);
    p = add_pod(&d, "ml", "ts", "a1", NULL, NULL, NULL, 1);
    add_dev(p, 0.01, 0.02, NAN)->time_sliced = true;
    for (int i = 0; i < 48; i++)
        p->hourly[i] = i % 2 ? 0.01 : NAN; /* 24 h of data: enough */
    RUN;
    f = find(&r, GP_ADV_IDLE, "pod/ts");
    GP_CHECK(f != NULL);
    if (f != NULL) {
        GP_CHECK(f->time_sliced);
        GP_CHECK(!f->low_confidence);
        GP_CHECK_NEAR(f->coverage_hours, 24, 0);
        GP_CHECK(strstr(f->evidence, "time-sliced GPU: every pod on it sees the device's "
                                     "activity") != NULL);
    }
    done(&d, pol, &r);
}

GP_TEST(totals_and_order)
{
    SETUP;

    add_node(&d, "a1", NULL, "A100", 8);
    add_dev(add_pod(&d, "b", "x", "a1", NULL, NULL, "serving", 1), 0, 0, NAN);
    add_dev(add_pod(&d, "a", "y", "a1", NULL, NULL, "serving", 1), 0, 0, NAN);
    add_dev(add_pod(&d, "a", "z", "a1", NULL, NULL, "serving", 2), 0.95, 0.99, NAN);
    RUN;
    GP_CHECK_INT(r.nfindings, 2);
    if (r.nfindings == 2) { /* equal dollars: namespace order */
        GP_CHECK_STR(r.findings[0].namespace, "a");
        GP_CHECK_STR(r.findings[1].namespace, "b");
    }
    GP_CHECK_NEAR(r.totals.gpu_hours, 40, 1e-9);
    GP_CHECK_NEAR(r.totals.dollars, 160, 1e-9);
    GP_CHECK_NEAR(r.totals.waste_dollars, 80, 1e-9);
    GP_CHECK_NEAR(r.totals.recoverable_monthly, 8 * 730, 1e-9);
    GP_CHECK_NEAR(r.totals.active_gpu_hours, 20 * 0.95, 1e-9);
    GP_CHECK_NEAR(r.totals.hist[0], 20, 1e-9);
    GP_CHECK_NEAR(r.totals.hist[9], 20, 1e-9);
    GP_CHECK_INT(r.totals.nby_namespace, 2);
    if (r.totals.nby_namespace == 2) {
        GP_CHECK_STR(r.totals.by_namespace[0].key, "a");
        GP_CHECK_NEAR(r.totals.by_namespace[0].dollars, 120, 1e-9);
        GP_CHECK_NEAR(r.totals.by_namespace[0].waste_dollars, 40, 1e-9);
    }
    GP_CHECK_STR(gp_adv_kind_name(GP_ADV_GPUS), "gpus");
    done(&d, pol, &r);
}

/* Dollars that print the same (to the cent) are tied whatever their last bits (Prometheus sums
 * in the order its blocks hold the samples): the key decides, so two runs over the same data
 * list them alike. */
GP_TEST(ties_to_the_cent_by_key)
{
    SETUP;

    add_node(&d, "a1", NULL, "A100", 8);
    add_dev(add_pod(&d, "b", "x", "a1", NULL, NULL, "serving", 1), 0, 0, NAN);
    add_dev(add_pod(&d, "a", "y", "a1", NULL, NULL, "serving", 1), 0, 0, NAN);
    d.pods[0].gpu_hours += 1e-9; /* b: a billionth of a GPU-hour more */
    RUN;
    GP_CHECK_INT(r.totals.nby_namespace, 2);
    if (r.totals.nby_namespace == 2) {
        GP_CHECK_STR(r.totals.by_namespace[0].key, "a");
        GP_CHECK_STR(r.totals.by_namespace[1].key, "b");
    }
    GP_CHECK_INT(r.nfindings, 2);
    if (r.nfindings == 2) {
        GP_CHECK_STR(r.findings[0].namespace, "a");
        GP_CHECK_STR(r.findings[1].namespace, "b");
    }
    done(&d, pol, &r);
}

GP_TEST(inconsistent_data)
{
    SETUP;
    gp_err err = {0};

    pol = policy();
    add_pod(&d, "a", "y", NULL, NULL, NULL, NULL, 1)->gpu_hours = -1;
    GP_CHECK_INT(gp_advise(&d, pol, &r, &err), GP_EINVAL);
    GP_CHECK(strstr(err.msg, "negative") != NULL);
    gp_adv_data_free(&d);
    gp_policy_unref(pol);
}

GP_MAIN(GP_CASE(idle_deployment), GP_CASE(idle_edges_and_no_dcgm), GP_CASE(idle_ended_monthly_zero),
        GP_CASE(idle_spot_and_mig_slice_price), GP_CASE(instance_type_price_per_gpu),
        GP_CASE(gpus_some_idle), GP_CASE(gpus_not_for_a_pod_that_moved),
        GP_CASE(mig_not_for_a_pod_on_a_slice_already), GP_CASE(mig_by_memory_in_mib), GP_CASE(mig_raised_by_p95),
        GP_CASE(mig_none_offered_falls_to_model), GP_CASE(model_limits),
        GP_CASE(node_empty_and_half), GP_CASE(runaway_by_median), GP_CASE(runaway_by_cap_and_idle),
        GP_CASE(time_sliced_and_coverage), GP_CASE(totals_and_order), GP_CASE(ties_to_the_cent_by_key),
        GP_CASE(inconsistent_data))
