/* SPDX-License-Identifier: Apache-2.0 */
/* The advisor's PromQL (query.h). Every query is a pure function of the policy and the window. */
#include "query.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpupack/k8s.h"
#include "gpupack/strbuf.h"

#define GPU_RES "resource=~\"nvidia_com_gpu|nvidia_com_mig_.*\""
#define PROF "DCGM_FI_PROF_GR_ENGINE_ACTIVE"
#define UTIL "DCGM_FI_DEV_GPU_UTIL"

/* Pod labels a workload or class rule may read besides the policy's (workload.h, classify.c). */
static const char *const workload_labels[] = {
    GP_LABEL_CLASS, GP_LABEL_RAY_ORIGIN, "ray.io/originated-from-cr-name", "pod-template-hash",
    "notebook-name", "component",
    "app.kubernetes.io/name", "app.kubernetes.io/component", "app.kubernetes.io/instance",
    "leaderworkerset.sigs.k8s.io/name", "jobset.sigs.k8s.io/jobset-name", "ray.io/cluster",
    "serving.kserve.io/inferenceservice", "training.kubeflow.org/job-name",
};

/* DCGM labels kept besides the policy's lists. */
static const char *const dcgm_fixed[] = { "gpu", "UUID", "modelName", "GPU_I_PROFILE", "GPU_I_ID" };

gp_status gp_adv_window_make(double until, double since, double step, gp_adv_window *w,
                             gp_err *err)
{
    double steps;

    memset(w, 0, sizeof(*w));
    if (!(step >= 1 && step <= 86400)) {
        gp_err_set(err, "--step: must be 1s..1d, got %.0fs", step);
        return GP_EINVAL;
    }
    if (!(since >= step)) {
        gp_err_set(err, "--since: must be at least --step (%.0fs), got %.0fs", step, since);
        return GP_EINVAL;
    }
    if (!(until > 0 && until < 1e11)) {
        gp_err_set(err, "--until: out of range");
        return GP_EINVAL;
    }
    steps = ceil(since / step);
    if (steps > GP_ADV_MAX_STEPS) {
        gp_err_set(err, "--since/--step: %.0f steps of %.0fs; Prometheus refuses more than %u "
                   "points: use a larger --step or a shorter --since", steps, step,
                   GP_ADV_MAX_STEPS);
        return GP_EINVAL;
    }
    if (ceil(steps * step / 3600.0) > GP_ADV_MAX_STEPS) {
        gp_err_set(err, "--since: %.0f hours; the report keeps a value per pod and hour, for at "
                   "most %u hours: use a shorter --since", ceil(steps * step / 3600.0),
                   GP_ADV_MAX_STEPS);
        return GP_EINVAL;
    }
    w->step = step;
    w->end = floor(until / step) * step;
    w->steps = (size_t)steps;
    w->window = steps * step;
    w->nhours = (size_t)ceil(w->window / 3600.0);
    w->part_steps = 0;
    return GP_OK;
}

size_t gp_adv_range_points(unsigned part_steps, double step)
{
    double hours = floor((double)part_steps * step / 3600.0);

    if (part_steps == 0)
        return GP_ADV_RANGE_POINTS;
    return hours < 1 ? 1 : hours > GP_ADV_RANGE_POINTS ? GP_ADV_RANGE_POINTS : (size_t)hours;
}

long gp_adv_window_step_of(const gp_adv_window *w, double t)
{
    double k = (double)(w->steps - 1) - (w->end - t) / w->step;
    double r = floor(k + 0.5);

    if (!isfinite(k) || fabs(k - r) > 1e-6 || r < 0 || r >= (double)w->steps)
        return -1;
    return (long)r;
}

long gp_adv_window_hour_of(const gp_adv_window *w, double t)
{
    double back = w->end - t; /* seconds before end */

    if (!isfinite(back) || back < 0 || back >= (double)w->nhours * 3600.0)
        return -1;
    return (long)w->nhours - 1 - (long)floor(back / 3600.0);
}

char *gp_advq_ksm_label(const char *key, char *buf, size_t n)
{
    size_t j = 0;

    if (n == 0)
        return buf;
    j = (size_t)snprintf(buf, n, "label_");
    for (const char *p = key; *p != '\0' && j + 1 < n; p++, j++) {
        char c = *p;
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '_';
        buf[j] = ok ? c : '_';
    }
    buf[j < n ? j : n - 1] = '\0';
    return buf;
}

void gp_advq_duration(double seconds, char *buf, size_t n)
{
    snprintf(buf, n, "%.0fs", seconds);
}

/* ---- label lists ---------------------------------------------------------------------------- */

static bool has_str(char **v, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++) {
        if (strcmp(v[i], s) == 0)
            return true;
    }
    return false;
}

static gp_status push_str(char ***v, size_t *n, const char *s)
{
    char **nv;
    char *c;

    if (has_str(*v, *n, s))
        return GP_OK;
    nv = realloc(*v, (*n + 1) * sizeof(**v));
    if (nv == NULL)
        return GP_ENOMEM;
    *v = nv;
    c = strdup(s);
    if (c == NULL)
        return GP_ENOMEM;
    nv[(*n)++] = c;
    return GP_OK;
}

/* Appends key with its KSM name, unless that KSM name is there already. */
static gp_status push_label(gp_advq_label **v, size_t *n, const char *key)
{
    char ksm[512];
    gp_advq_label *nv;

    gp_advq_ksm_label(key, ksm, sizeof(ksm));
    for (size_t i = 0; i < *n; i++) {
        if (strcmp((*v)[i].ksm, ksm) == 0)
            return GP_OK;
    }
    nv = realloc(*v, (*n + 1) * sizeof(**v));
    if (nv == NULL)
        return GP_ENOMEM;
    *v = nv;
    nv[*n].key = strdup(key);
    nv[*n].ksm = strdup(ksm);
    (*n)++;
    return nv[*n - 1].key != NULL && nv[*n - 1].ksm != NULL ? GP_OK : GP_ENOMEM;
}

static gp_status dcgm_labels(const gp_advisor_policy *a, gp_advq_set *s, gp_err *err)
{
    char **const *lists[] = { &a->label_namespace, &a->label_pod, &a->label_container,
                              &a->label_host };
    const size_t nl[] = { a->nlabel_namespace, a->nlabel_pod, a->nlabel_container,
                          a->nlabel_host };
    static const char *const what[] = { "namespace", "pod", "container", "host" };
    gp_status st = GP_OK;

    for (size_t l = 0; l < 4; l++) {
        if (nl[l] == 0 && l != 2) {
            gp_err_set(err, "policy advisor.dcgmLabels.%s is empty", what[l]);
            return GP_EINVAL;
        }
        for (size_t i = 0; st == GP_OK && i < nl[l]; i++)
            st = push_str(&s->dcgm_by, &s->ndcgm_by, (*lists[l])[i]);
    }
    for (size_t i = 0; st == GP_OK && i < sizeof(dcgm_fixed) / sizeof(dcgm_fixed[0]); i++)
        st = push_str(&s->dcgm_by, &s->ndcgm_by, dcgm_fixed[i]);
    return st;
}

static gp_status kube_labels(const gp_policy *pol, gp_advq_set *s)
{
    gp_status st = GP_OK;

    for (size_t i = 0; st == GP_OK && i < sizeof(workload_labels) / sizeof(workload_labels[0]); i++)
        st = push_label(&s->pod_labels, &s->npod_labels, workload_labels[i]);
    for (size_t i = 0; st == GP_OK && i < pol->advisor.nmodel_labels; i++)
        st = push_label(&s->pod_labels, &s->npod_labels, pol->advisor.model_labels[i]);
    for (size_t r = 0; st == GP_OK && r < pol->nrules; r++) {
        const gp_label_selector *sel = &pol->rules[r].selector;

        for (size_t i = 0; st == GP_OK && i < sel->nmatch_labels; i++)
            st = push_label(&s->pod_labels, &s->npod_labels, sel->match_labels[i].key);
        for (size_t i = 0; st == GP_OK && i < sel->nexprs; i++)
            st = push_label(&s->pod_labels, &s->npod_labels, sel->exprs[i].key);
    }
    if (st == GP_OK)
        st = push_label(&s->node_labels, &s->nnode_labels, GP_LABEL_INSTANCE_TYPE);
    if (st == GP_OK)
        st = push_label(&s->node_labels, &s->nnode_labels, GP_LABEL_GPU_PRODUCT);
    for (size_t i = 0; st == GP_OK && i < pol->spot.nnode_labels; i++)
        st = push_label(&s->node_labels, &s->nnode_labels, pol->spot.node_labels[i].key);
    return st;
}

/* ---- query text --------------------------------------------------------------------------- */

static void put_list(gp_strbuf *b, char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        gp_strbuf_printf(b, "%s%s", i ? ", " : "", v[i]);
}

static void put_ksm_list(gp_strbuf *b, const gp_advq_label *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        gp_strbuf_printf(b, ", %s", v[i].ksm);
}

/* The GPU pods of the window: a kube-state-metrics request for a GPU at some point. */
static void put_gpu_pods(gp_strbuf *b, const char *W)
{
    gp_strbuf_printf(b, "max by (namespace, pod) (last_over_time("
                        "kube_pod_container_resource_requests{" GPU_RES "}[%s]))", W);
}

/* The GPU nodes of the window: allocatable GPUs or MIG instances at some point. */
static void put_gpu_nodes(gp_strbuf *b, const char *W)
{
    gp_strbuf_printf(b, "(max by (node) (max_over_time("
                        "kube_node_status_allocatable{" GPU_RES "}[%s])) > 0)", W);
}

/* ---- building blocks ------------------------------------------------------------------ */

/* KSM's resource name of a MIG profile: "2g.20gb" → "nvidia_com_mig_2g_20gb". */
static void mig_resource(const char *profile, char *buf, size_t n)
{
    size_t j = (size_t)snprintf(buf, n, "nvidia_com_mig_");

    for (const char *p = profile; *p != '\0' && j + 1 < n; p++, j++) {
        char c = *p;
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        buf[j] = ok ? c : '_';
    }
    buf[j < n ? j : n - 1] = '\0';
}

/* A selector's expression once per weight, joined by `or` so the
 * series (which differ by resource) are kept: whole GPUs × 1, the policy's MIG profiles × their
 * slices/7, other MIG resources "<N>g_..." × N/7: pre, the matcher, suf each time. */
static void put_term(gp_strbuf *b, const char *pre, const char *m, const char *suf)
{
    gp_strbuf_puts(b, pre);
    gp_strbuf_puts(b, m);
    gp_strbuf_puts(b, suf);
}

static void put_weighted(const gp_policy *pol, gp_strbuf *b, const char *pre, const char *suf)
{
    char m[400], res[300];

    gp_strbuf_puts(b, "(");
    snprintf(m, sizeof(m), "resource=\"nvidia_com_gpu\"");
    put_term(b, pre, m, suf);
    for (size_t i = 0; i < pol->nmig_profiles; i++) {
        mig_resource(pol->mig_profiles[i].name, res, sizeof(res));
        snprintf(m, sizeof(m), "resource=\"%s\"", res);
        gp_strbuf_puts(b, " or ");
        put_term(b, pre, m, suf);
        gp_strbuf_printf(b, " * (%d/7)", pol->mig_profiles[i].slices);
    }
    for (int n = 1; n <= 7; n++) {
        snprintf(m, sizeof(m), "resource=~\"nvidia_com_mig_%dg_.*\"", n);
        gp_strbuf_puts(b, " or ");
        put_term(b, pre, m, suf);
        gp_strbuf_printf(b, " * (%d/7)", n);
    }
    gp_strbuf_puts(b, ")");
}

/* A pod's GPU requests per resource; max by container first: two kube-state-metrics replicas
 * (or scrape jobs) export the same container twice; the sum is over the pod's containers. */
static void put_req(gp_strbuf *b)
{
    gp_strbuf_puts(b, "sum by (namespace, pod, resource) (max by (namespace, pod, container, "
                      "resource) (kube_pod_container_resource_requests{" GPU_RES "}))");
}

/* The GPU pods Running (value 1), by namespace and pod. */
static void put_running(gp_strbuf *b)
{
    gp_strbuf_puts(b, "(max by (namespace, pod) (kube_pod_status_phase{phase=\"Running\"} "
                      "== 1) and on (namespace, pod) (sum by (namespace, pod) "
                      "(kube_pod_container_resource_requests{" GPU_RES "}) > 0))");
}

/* GPU-equivalents allocated per node: the weighted requests of the pods Running, on the node
 * their kube_pod_info names (one node per pod: topk keeps the join one-to-one). */
static void put_alloc(const gp_policy *pol, gp_strbuf *b)
{
    gp_strbuf_puts(b, "(sum by (node) ((sum by (namespace, pod) ");
    put_weighted(pol, b, "max by (namespace, pod, container, resource) "
                         "(kube_pod_container_resource_requests{", "})");
    gp_strbuf_puts(b, " and on (namespace, pod) ");
    put_running(b);
    gp_strbuf_puts(b, ") * on (namespace, pod) group_left (node) topk by (namespace, pod) (1, "
                      "max by (namespace, pod, node) (kube_pod_info{node!=\"\"}))))");
}

/* GPU-equivalents allocatable per node: the max over the window, fixed at end with @. */
static void put_cap(const gp_policy *pol, gp_strbuf *b, const char *W, double end)
{
    char suf[100];

    snprintf(suf, sizeof(suf), "}[%s] @ %.0f))", W, end);
    gp_strbuf_puts(b, "(sum by (node) ");
    put_weighted(pol, b, "max by (node, resource) (max_over_time("
                         "kube_node_status_allocatable{", suf);
    gp_strbuf_puts(b, ")");
}

/* The GPU nodes present (kube_node_info) with allocatable GPUs now. */
static void put_up(gp_strbuf *b)
{
    gp_strbuf_puts(b, "(max by (node) (kube_node_info) and on (node) (max by (node) "
                      "(kube_node_status_allocatable{" GPU_RES "}) > 0))");
}

/* The steps a node was up with 0 < allocated < capacity / 2, valued by the allocation. */
static void put_half(const gp_policy *pol, gp_strbuf *b, const char *W, double end)
{
    gp_strbuf_puts(b, "(");
    put_alloc(pol, b);
    gp_strbuf_puts(b, " > 0 < on (node) (");
    put_cap(pol, b, W, end);
    gp_strbuf_puts(b, " / 2) and on (node) ");
    put_up(b);
    gp_strbuf_puts(b, ")");
}

/* label_replace chain: to = the first non-empty label of list (applied last-first). */
static void chain_open(gp_strbuf *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        gp_strbuf_puts(b, "label_replace(");
}

static void chain_close(gp_strbuf *b, const char *to, char **list, size_t n)
{
    for (size_t i = n; i-- > 0;)
        gp_strbuf_printf(b, ", \"%s\", \"$1\", \"%s\", \"(.+)\")", to, list[i]);
}

/* The whole-GPU activity series that name a pod, present in the hour before each step, as
 * (gp_namespace, gp_pod, gp_host, UUID) by the policy's label preferences. */
static void put_gpu_pod_hours(const gp_policy *pol, gp_strbuf *b)
{
    const gp_advisor_policy *a = &pol->advisor;
    static const char *const metric[] = { PROF, UTIL };

    gp_strbuf_puts(b, "group by (gp_namespace, gp_pod, gp_host, UUID) (");
    chain_open(b, a->nlabel_host);
    chain_open(b, a->nlabel_pod);
    chain_open(b, a->nlabel_namespace);
    gp_strbuf_puts(b, "(");
    for (size_t m = 0; m < 2; m++) {
        for (size_t i = 0; i < a->nlabel_pod; i++)
            gp_strbuf_printf(b, "%slast_over_time(%s{GPU_I_PROFILE=\"\", %s!=\"\"}[1h])",
                             m + i ? " or " : "", metric[m], a->label_pod[i]);
    }
    gp_strbuf_puts(b, ")");
    chain_close(b, "gp_namespace", a->label_namespace, a->nlabel_namespace);
    chain_close(b, "gp_pod", a->label_pod, a->nlabel_pod);
    chain_close(b, "gp_host", a->label_host, a->nlabel_host);
    gp_strbuf_puts(b, ")");
}

/* One query's text; b is emptied first. W is the window, Wm the window less 1 s (the subquery
 * range that evaluates at exactly the window's steps), R the step. */
static void text(const gp_policy *pol, const gp_advq_set *s, gp_advq_id id, const char *W,
                 const char *Wm, const char *R, gp_strbuf *b)
{
    const gp_advisor_policy *a = &pol->advisor;
    double end = s->w.end;

    gp_strbuf_clear(b);
    switch (id) {
    case GP_ADVQ_DCGM_PROF:
    case GP_ADVQ_DCGM_UTIL:
        gp_strbuf_puts(b, "count by (");
        put_list(b, s->dcgm_by, s->ndcgm_by);
        gp_strbuf_printf(b, ") (last_over_time(%s[%s]))",
                         id == GP_ADVQ_DCGM_PROF ? PROF : UTIL, W);
        break;
    case GP_ADVQ_ACT_SUM:
        gp_strbuf_puts(b, "sum by (");
        put_list(b, s->dcgm_by, s->ndcgm_by);
        gp_strbuf_printf(b, ") (sum_over_time(" PROF "[%s]) or sum_over_time(" UTIL
                            "[%s]) / 100)", W, W);
        break;
    case GP_ADVQ_ACT_COUNT:
        gp_strbuf_puts(b, "sum by (");
        put_list(b, s->dcgm_by, s->ndcgm_by);
        gp_strbuf_printf(b, ") (count_over_time(" PROF "[%s]) or count_over_time(" UTIL
                            "[%s]))", W, W);
        break;
    case GP_ADVQ_ACT_P95:
        gp_strbuf_puts(b, "max by (");
        put_list(b, s->dcgm_by, s->ndcgm_by);
        gp_strbuf_printf(b, ") (quantile_over_time(0.95, " PROF "[%s]) or quantile_over_time("
                            "0.95, " UTIL "[%s]) / 100)", W, W);
        break;
    case GP_ADVQ_ACT_HOURLY:
        /* per GPU first, then the mean of the pod's GPUs */
        gp_strbuf_puts(b, "avg by (");
        put_list(b, a->label_namespace, a->nlabel_namespace);
        gp_strbuf_puts(b, ", ");
        put_list(b, a->label_pod, a->nlabel_pod);
        gp_strbuf_puts(b, ") (avg by (");
        put_list(b, s->dcgm_by, s->ndcgm_by);
        gp_strbuf_puts(b, ") (avg_over_time(" PROF "[1h]) or avg_over_time(" UTIL "[1h]) / "
                          "100))");
        break;
    case GP_ADVQ_ACT_SLICED:
        put_gpu_pod_hours(pol, b);
        gp_strbuf_puts(b, " and on (gp_host, UUID) (count by (gp_host, UUID) (");
        put_gpu_pod_hours(pol, b);
        gp_strbuf_puts(b, ") > 1)");
        break;
    case GP_ADVQ_FB_PEAK:
        gp_strbuf_puts(b, "max by (");
        put_list(b, s->dcgm_by, s->ndcgm_by);
        gp_strbuf_printf(b, ") (max_over_time(DCGM_FI_DEV_FB_USED[%s]))", W);
        break;
    case GP_ADVQ_POD_REQUESTS:
        gp_strbuf_puts(b, "max_over_time(");
        put_req(b);
        gp_strbuf_printf(b, "[%s:%s])", Wm, R);
        break;
    case GP_ADVQ_POD_GPU_STEPS:
        gp_strbuf_puts(b, "sum_over_time((");
        put_req(b);
        gp_strbuf_puts(b, " and on (namespace, pod) ");
        put_running(b);
        gp_strbuf_printf(b, ")[%s:%s])", Wm, R);
        break;
    case GP_ADVQ_POD_RUN_STEPS:
        gp_strbuf_puts(b, "count_over_time(");
        put_running(b);
        gp_strbuf_printf(b, "[%s:%s])", Wm, R);
        break;
    case GP_ADVQ_POD_END:
        put_req(b);
        gp_strbuf_puts(b, " and on (namespace, pod) ");
        put_running(b);
        break;
    case GP_ADVQ_POD_START:
        put_running(b);
        break;
    case GP_ADVQ_POD_NODE:
        /* Each incarnation's node valued by its creation time (the newest wins), 0 when
         * kube_pod_created is missing. No subquery: one over every pod of the cluster at every
         * step holds pods x steps samples at once (Prometheus's --query.max-samples). */
        gp_strbuf_printf(b, "max by (namespace, pod, node) (max by (namespace, pod, uid, node) "
                            "(last_over_time(kube_pod_info{node!=\"\"}[%s])) * on (namespace, "
                            "pod, uid) group_left max by (namespace, pod, uid) (last_over_time("
                            "kube_pod_created[%s])) or max by (namespace, pod, uid, node) ("
                            "last_over_time(kube_pod_info{node!=\"\"}[%s])) * 0) and on "
                            "(namespace, pod) ", W, W, W);
        put_gpu_pods(b, W);
        break;
    case GP_ADVQ_POD_OWNER:
        gp_strbuf_printf(b, "max by (namespace, pod, owner_kind, owner_name) (last_over_time("
                            "kube_pod_owner{owner_is_controller=\"true\"}[%s])) and on "
                            "(namespace, pod) ", W);
        put_gpu_pods(b, W);
        break;
    case GP_ADVQ_OWNER_OWNER:
        gp_strbuf_printf(b, "max by (namespace, replicaset, job_name, owner_kind, owner_name) "
                            "(last_over_time(kube_replicaset_owner{owner_kind!=\"<none>\"}[%s]) "
                            "or last_over_time(kube_job_owner{owner_kind!=\"<none>\"}[%s]))",
                         W, W);
        break;
    case GP_ADVQ_POD_LABELS:
        gp_strbuf_puts(b, "max by (namespace, pod");
        put_ksm_list(b, s->pod_labels, s->npod_labels);
        gp_strbuf_printf(b, ") (last_over_time(kube_pod_labels[%s])) and on (namespace, pod) ",
                         W);
        put_gpu_pods(b, W);
        break;
    case GP_ADVQ_NODE_ALLOC:
        gp_strbuf_printf(b, "max by (node, resource) (max_over_time("
                            "kube_node_status_allocatable{" GPU_RES "}[%s])) > 0", W);
        break;
    case GP_ADVQ_NODE_LABELS:
        gp_strbuf_puts(b, "max by (node");
        put_ksm_list(b, s->node_labels, s->nnode_labels);
        gp_strbuf_printf(b, ") (last_over_time(kube_node_labels[%s])) and on (node) ", W);
        put_gpu_nodes(b, W);
        break;
    case GP_ADVQ_NODE_UP_STEPS:
        gp_strbuf_puts(b, "count_over_time(");
        put_up(b);
        gp_strbuf_printf(b, "[%s:%s])", Wm, R);
        break;
    case GP_ADVQ_NODE_EMPTY_STEPS:
        gp_strbuf_puts(b, "count_over_time((");
        put_up(b);
        gp_strbuf_puts(b, " and on (node) ");
        put_cap(pol, b, W, end);
        gp_strbuf_puts(b, " > 0 unless on (node) ");
        put_alloc(pol, b);
        gp_strbuf_printf(b, " > 0)[%s:%s])", Wm, R);
        break;
    case GP_ADVQ_NODE_HALF_STEPS:
        gp_strbuf_puts(b, "count_over_time(");
        put_half(pol, b, W, end);
        gp_strbuf_printf(b, "[%s:%s])", Wm, R);
        break;
    case GP_ADVQ_NODE_HALF_FREE:
        gp_strbuf_puts(b, "sum_over_time((");
        put_cap(pol, b, W, end);
        gp_strbuf_puts(b, " - on (node) ");
        put_half(pol, b, W, end);
        gp_strbuf_printf(b, ")[%s:%s])", Wm, R);
        break;
    case GP_ADVQ_NODE_UP_END:
        put_up(b);
        break;
    case GP_ADVQ_NODE_ALLOC_END:
        put_alloc(pol, b);
        break;
    case GP_ADVQ_NODE_HOURLY:
        gp_strbuf_puts(b, "sum_over_time(");
        put_alloc(pol, b);
        gp_strbuf_printf(b, "[3599s:%s])", R);
        break;
    case GP_ADVQ_COUNT:
        break;
    }
}

static const char *const names[GP_ADVQ_COUNT] = {
    [GP_ADVQ_DCGM_PROF] = "dcgm-prof-series", [GP_ADVQ_DCGM_UTIL] = "dcgm-util-series",
    [GP_ADVQ_ACT_SUM] = "activity-sum", [GP_ADVQ_ACT_COUNT] = "activity-count",
    [GP_ADVQ_ACT_P95] = "activity-p95", [GP_ADVQ_ACT_HOURLY] = "activity-hourly",
    [GP_ADVQ_ACT_SLICED] = "activity-sliced",
    [GP_ADVQ_FB_PEAK] = "fb-peak",
    [GP_ADVQ_POD_REQUESTS] = "pod-requests", [GP_ADVQ_POD_GPU_STEPS] = "pod-gpu-steps",
    [GP_ADVQ_POD_RUN_STEPS] = "pod-run-steps", [GP_ADVQ_POD_END] = "pod-end",
    [GP_ADVQ_POD_START] = "pod-start",
    [GP_ADVQ_POD_NODE] = "pod-node", [GP_ADVQ_POD_OWNER] = "pod-owner",
    [GP_ADVQ_OWNER_OWNER] = "owner-owner", [GP_ADVQ_POD_LABELS] = "pod-labels",
    [GP_ADVQ_NODE_ALLOC] = "node-alloc", [GP_ADVQ_NODE_LABELS] = "node-labels",
    [GP_ADVQ_NODE_UP_STEPS] = "node-up-steps", [GP_ADVQ_NODE_EMPTY_STEPS] = "node-empty-steps",
    [GP_ADVQ_NODE_HALF_STEPS] = "node-half-steps", [GP_ADVQ_NODE_HALF_FREE] = "node-half-free",
    [GP_ADVQ_NODE_UP_END] = "node-up-end", [GP_ADVQ_NODE_ALLOC_END] = "node-alloc-end",
    [GP_ADVQ_NODE_HOURLY] = "node-hourly",
};

static void timing(gp_advq *q, gp_advq_id id, const gp_adv_window *w)
{
    q->name = names[id];
    q->time = w->end;
    q->end = w->end;
    if (id == GP_ADVQ_POD_START)
        q->time = w->end - (double)(w->steps - 1) * w->step;
    if (id == GP_ADVQ_ACT_HOURLY || id == GP_ADVQ_ACT_SLICED || id == GP_ADVQ_NODE_HOURLY) {
        q->type = GP_ADVQ_RANGE;
        q->step = 3600;
        q->start = w->end - (double)(w->nhours - 1) * 3600.0;
    } else {
        q->type = GP_ADVQ_INSTANT;
    }
}

static bool per_step(gp_advq_id id)
{
    return id == GP_ADVQ_POD_REQUESTS || id == GP_ADVQ_POD_GPU_STEPS ||
           id == GP_ADVQ_POD_RUN_STEPS || id == GP_ADVQ_NODE_UP_STEPS ||
           id == GP_ADVQ_NODE_EMPTY_STEPS || id == GP_ADVQ_NODE_HALF_STEPS ||
           id == GP_ADVQ_NODE_HALF_FREE;
}

/* The parts of a per-step query: steps k x P .. min((k + 1) x P, steps) - 1, each a subquery
 * of its own steps ([n x R - 1s:R]) evaluated at its last step; everything else (W, the @ end
 * of the capacity) stays the whole window's. */
static gp_status build_parts(const gp_policy *pol, const gp_advq_set *s, gp_advq_id id,
                             const char *W, const char *R, gp_advq *q)
{
    const gp_adv_window *w = &s->w;
    size_t P = w->part_steps, n = (w->steps + P - 1) / P;
    gp_strbuf b;

    q->parts = calloc(n, sizeof(*q->parts));
    q->part_times = calloc(n, sizeof(*q->part_times));
    if (q->parts == NULL || q->part_times == NULL)
        return GP_ENOMEM;
    q->nparts = n;
    for (size_t k = 0; k < n; k++) {
        size_t first = k * P, last = (k + 1) * P < w->steps ? (k + 1) * P - 1 : w->steps - 1;
        char Pm[32];
        size_t len;

        gp_advq_duration((double)(last - first + 1) * w->step - 1, Pm, sizeof(Pm));
        q->part_times[k] = w->end - (double)(w->steps - 1 - last) * w->step;
        gp_strbuf_init(&b, 0);
        text(pol, s, id, W, Pm, R, &b);
        if (gp_strbuf_take(&b, &q->parts[k], &len) != GP_OK)
            return GP_ENOMEM;
    }
    return GP_OK;
}

gp_status gp_advq_build(const gp_policy *pol, const gp_adv_window *w, gp_advq_set *out,
                        gp_err *err)
{
    char W[32], Wm[32], R[32];
    gp_strbuf b;
    gp_status st;

    memset(out, 0, sizeof(*out));
    out->w = *w;
    st = dcgm_labels(&pol->advisor, out, err);
    if (st == GP_OK)
        st = kube_labels(pol, out);
    gp_advq_duration(w->window, W, sizeof(W));
    gp_advq_duration(w->window - 1, Wm, sizeof(Wm));
    gp_advq_duration(w->step, R, sizeof(R));
    gp_strbuf_init(&b, 0);
    for (int i = 0; st == GP_OK && i < GP_ADVQ_COUNT; i++) {
        size_t len;

        timing(&out->q[i], (gp_advq_id)i, w);
        text(pol, out, (gp_advq_id)i, W, Wm, R, &b);
        st = gp_strbuf_take(&b, &out->q[i].promql, &len);
        gp_strbuf_init(&b, 0);
        if (st == GP_OK && per_step((gp_advq_id)i) && w->part_steps > 0 &&
            w->steps > w->part_steps)
            st = build_parts(pol, out, (gp_advq_id)i, W, R, &out->q[i]);
    }
    gp_strbuf_free(&b);
    if (st != GP_OK) {
        if (st == GP_ENOMEM)
            gp_err_set(err, "out of memory building the queries");
        gp_advq_set_free(out);
    }
    return st;
}

void gp_advq_set_free(gp_advq_set *s)
{
    if (s == NULL)
        return;
    for (int i = 0; i < GP_ADVQ_COUNT; i++) {
        free(s->q[i].promql);
        for (size_t k = 0; k < s->q[i].nparts; k++)
            free(s->q[i].parts[k]);
        free(s->q[i].parts);
        free(s->q[i].part_times);
    }
    for (size_t i = 0; i < s->ndcgm_by; i++)
        free(s->dcgm_by[i]);
    free(s->dcgm_by);
    for (size_t i = 0; i < s->npod_labels; i++) {
        free(s->pod_labels[i].key);
        free(s->pod_labels[i].ksm);
    }
    free(s->pod_labels);
    for (size_t i = 0; i < s->nnode_labels; i++) {
        free(s->node_labels[i].key);
        free(s->node_labels[i].ksm);
    }
    free(s->node_labels);
    memset(s, 0, sizeof(*s));
}
