/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of lib/cache.c: the live cluster view fed by list/watch events and snapshots.
 *
 * Nodes and pods are built inline (single quotes in the text, turned into double quotes before
 * parsing). Each test owns its cache and policy holder; the harness runs LeakSanitizer after
 * every test. */
#include "gptest.h"

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "gpupack/cache.h"
#include "gpupack/nodeview.h"
#include "gpupack/policy.h"

#define GIB (INT64_C(1) << 30)
#define UID1 "11111111-1111-4111-8111-111111111111"
#define UID2 "22222222-2222-4222-8222-222222222222"
#define UID3 "33333333-3333-4333-8333-333333333333"

static cJSON *parse_q(const char *text)
{
    char *s = strdup(text);
    cJSON *j;

    for (char *c = s; *c; c++)
        if (*c == '\'')
            *c = '"';
    j = cJSON_Parse(s);
    if (j == NULL) {
        printf("  test JSON does not parse: %s\n", s);
        gp_test_failed = 1;
    }
    free(s);
    return j;
}

/* A cache with its own policy holder (the default policy). */
typedef struct {
    gp_policy_holder holder;
    gp_cache *c;
} fixture;

static void fx_init(fixture *f)
{
    gp_policy *p = NULL;
    char *errs = NULL;

    if (gp_policy_default(&p, &errs) != GP_OK) {
        printf("  default policy: %s\n", errs ? errs : "?");
        gp_test_failed = 1;
    }
    free(errs);
    gp_policy_holder_init(&f->holder, p);
    f->c = gp_cache_new(&f->holder);
    GP_CHECK(f->c != NULL);
}

static void fx_done(fixture *f)
{
    gp_cache_free(f->c);
    gp_policy_holder_destroy(&f->holder);
}

/* A Node with 8 GPUs, 7 1g.10gb MIG slices, 64 CPUs, 256Gi, 110 pods (gpus < 0: a CPU node). */
static void node_ev(gp_cache *c, const char *type, const char *name, int gpus)
{
    char text[1024];
    cJSON *j;

    if (gpus >= 0)
        snprintf(text, sizeof(text),
                 "{'metadata':{'name':'%s','labels':{'nvidia.com/gpu.product':'A100'}},"
                 "'status':{'allocatable':{'nvidia.com/gpu':'%d','nvidia.com/mig-1g.10gb':'7',"
                 "'cpu':'64','memory':'256Gi','pods':'110'}}}",
                 name, gpus);
    else
        snprintf(text, sizeof(text),
                 "{'metadata':{'name':'%s'},'status':{'allocatable':{'cpu':'16',"
                 "'memory':'64Gi','pods':'110'}}}",
                 name);
    j = parse_q(text);
    gp_cache_node_event(c, type, j);
    cJSON_Delete(j);
}

/* A pod: node NULL for pending, phase NULL for Running; mig > 0 asks for 1g.10gb slices. */
static void pod_ev(gp_cache *c, const char *type, const char *uid, const char *node,
                   const char *phase, int gpus, int mig, const char *cpu, const char *mem)
{
    char text[2048], nodefield[300] = "", phasefield[64] = "", res[256];
    cJSON *j;

    if (node != NULL)
        snprintf(nodefield, sizeof(nodefield), "'nodeName':'%s',", node);
    if (phase != NULL)
        snprintf(phasefield, sizeof(phasefield), ",'status':{'phase':'%s'}", phase);
    snprintf(res, sizeof(res), "'cpu':'%s','memory':'%s'", cpu, mem);
    if (gpus > 0)
        snprintf(res + strlen(res), sizeof(res) - strlen(res), ",'nvidia.com/gpu':'%d'", gpus);
    if (mig > 0)
        snprintf(res + strlen(res), sizeof(res) - strlen(res),
                 ",'nvidia.com/mig-1g.10gb':'%d'", mig);
    snprintf(text, sizeof(text),
             "{'metadata':{'name':'p-%s','namespace':'ml','uid':'%s'},"
             "'spec':{%s'containers':[{'name':'c','resources':{'requests':{%s},'limits':{%s}}}]}"
             "%s}",
             uid, uid, nodefield, res, res, phasefield);
    j = parse_q(text);
    gp_cache_pod_event(c, type, j);
    cJSON_Delete(j);
}

/* A bound, running GPU pod with 1 CPU and 4Gi per GPU. */
static void gpu_pod(gp_cache *c, const char *type, const char *uid, const char *node, int gpus)
{
    char cpu[16], mem[16];

    snprintf(cpu, sizeof(cpu), "%d", gpus);
    snprintf(mem, sizeof(mem), "%dGi", 4 * gpus);
    pod_ev(c, type, uid, node, NULL, gpus, 0, cpu, mem);
}

/* The view of a node (false when unknown), taken under the read lock. */
static bool view(gp_cache *c, const char *name, int64_t now_ms, gp_node *out)
{
    gp_cache_at at = gp_cache_at_for(NULL, now_ms);
    bool ok;

    memset(out, 0, sizeof(*out));
    gp_cache_rdlock(c);
    ok = gp_cache_view(c, name, &at, out);
    gp_cache_unlock(c);
    return ok;
}

static int32_t mig_used(const gp_node *n, const char *profile)
{
    const gp_mig_count *m = gp_node_mig(n, profile);

    return m ? m->used : -1;
}

static int32_t mig_alloc(const gp_node *n, const char *profile)
{
    const gp_mig_count *m = gp_node_mig(n, profile);

    return m ? m->alloc : -1;
}

/* ---- views ---- */

GP_TEST(view_shows_allocatable_and_used)
{
    fixture f;
    gp_node n;

    fx_init(&f);
    gp_cache_nodes_begin(f.c);
    node_ev(f.c, NULL, "gpu-1", 8);
    gp_cache_nodes_end(f.c);
    gp_cache_pods_begin(f.c);
    pod_ev(f.c, NULL, UID1, "gpu-1", NULL, 2, 0, "3500m", "10Gi");
    pod_ev(f.c, NULL, UID2, "gpu-1", "Running", 0, 3, "1", "2Gi");
    pod_ev(f.c, NULL, UID3, "gpu-1", NULL, 0, 0, "250m", "512Mi");
    gp_cache_pods_end(f.c);

    GP_CHECK(view(f.c, "gpu-1", 0, &n));
    GP_CHECK_STR(n.name, "gpu-1");
    GP_CHECK_STR(n.gpu_product, "A100");
    GP_CHECK_INT(n.gpu_alloc, 8);
    GP_CHECK_INT(n.gpu_used, 2);
    GP_CHECK_INT(mig_alloc(&n, "1g.10gb"), 7);
    GP_CHECK_INT(mig_used(&n, "1g.10gb"), 3);
    GP_CHECK_INT(n.cpu_alloc_m, 64000);
    GP_CHECK_INT(n.cpu_used_m, 3500 + 1000 + 250);
    GP_CHECK_INT(n.mem_alloc, 256 * GIB);
    GP_CHECK_INT(n.mem_used, 10 * GIB + 2 * GIB + GIB / 2);
    GP_CHECK_INT(n.pods_alloc, 110);
    GP_CHECK_INT(n.pods_used, 3);
    GP_CHECK_INT(n.gpu_pods, 2);
    GP_CHECK(!view(f.c, "nope", 0, &n));
    fx_done(&f);
}

GP_TEST(pod_bound_later_counts_once)
{
    fixture f;
    gp_node n;
    gp_cache_stats s;

    fx_init(&f);
    node_ev(f.c, "ADDED", "gpu-1", 8);
    gpu_pod(f.c, "ADDED", UID1, NULL, 2);
    GP_CHECK(view(f.c, "gpu-1", 0, &n));
    GP_CHECK_INT(n.gpu_used, 0);
    GP_CHECK_INT(n.pods_used, 0);
    s = gp_cache_get_stats(f.c);
    GP_CHECK_INT(s.pods, 1);
    GP_CHECK_INT(s.bound, 0);

    gpu_pod(f.c, "MODIFIED", UID1, "gpu-1", 2);
    GP_CHECK(view(f.c, "gpu-1", 0, &n));
    GP_CHECK_INT(n.gpu_used, 2);
    GP_CHECK_INT(n.pods_used, 1);
    GP_CHECK_INT(n.gpu_pods, 1);
    GP_CHECK_INT(n.cpu_used_m, 2000);
    GP_CHECK_INT(n.mem_used, 8 * GIB);
    s = gp_cache_get_stats(f.c);
    GP_CHECK_INT(s.pods, 1);
    GP_CHECK_INT(s.bound, 1);
    fx_done(&f);
}

GP_TEST(same_event_twice_counts_once)
{
    fixture f;
    gp_node n;

    fx_init(&f);
    node_ev(f.c, "ADDED", "gpu-1", 8);
    gpu_pod(f.c, "ADDED", UID1, "gpu-1", 3);
    gpu_pod(f.c, "ADDED", UID1, "gpu-1", 3);
    gpu_pod(f.c, "MODIFIED", UID1, "gpu-1", 3);
    /* A relist that repeats it too. */
    gp_cache_pods_begin(f.c);
    gpu_pod(f.c, NULL, UID1, "gpu-1", 3);
    gp_cache_pods_end(f.c);
    GP_CHECK(view(f.c, "gpu-1", 0, &n));
    GP_CHECK_INT(n.gpu_used, 3);
    GP_CHECK_INT(n.pods_used, 1);
    GP_CHECK_INT(n.gpu_pods, 1);
    GP_CHECK_INT(n.cpu_used_m, 3000);
    GP_CHECK_INT(gp_cache_get_stats(f.c).pods, 1);
    GP_CHECK_INT(gp_cache_get_stats(f.c).bound, 1);
    fx_done(&f);
}

GP_TEST(modified_request_replaces_usage)
{
    fixture f;
    gp_node n;

    fx_init(&f);
    node_ev(f.c, "ADDED", "gpu-1", 8);
    gpu_pod(f.c, "ADDED", UID1, "gpu-1", 4);
    gpu_pod(f.c, "MODIFIED", UID1, "gpu-1", 1);
    GP_CHECK(view(f.c, "gpu-1", 0, &n));
    GP_CHECK_INT(n.gpu_used, 1);
    GP_CHECK_INT(n.cpu_used_m, 1000);
    GP_CHECK_INT(n.mem_used, 4 * GIB);
    fx_done(&f);
}

GP_TEST(pod_relist_drops_missing_pod)
{
    fixture f;
    gp_node n;

    fx_init(&f);
    node_ev(f.c, "ADDED", "gpu-1", 8);
    gp_cache_pods_begin(f.c);
    gpu_pod(f.c, NULL, UID1, "gpu-1", 2);
    gpu_pod(f.c, NULL, UID2, "gpu-1", 1);
    gp_cache_pods_end(f.c);
    GP_CHECK(view(f.c, "gpu-1", 0, &n));
    GP_CHECK_INT(n.gpu_used, 3);

    gp_cache_pods_begin(f.c);
    gpu_pod(f.c, NULL, UID2, "gpu-1", 1);
    gp_cache_pods_end(f.c);
    GP_CHECK(view(f.c, "gpu-1", 0, &n));
    GP_CHECK_INT(n.gpu_used, 1);
    GP_CHECK_INT(n.pods_used, 1);
    GP_CHECK_INT(n.gpu_pods, 1);
    GP_CHECK_INT(gp_cache_get_stats(f.c).pods, 1);
    GP_CHECK_INT(gp_cache_get_stats(f.c).bound, 1);

    /* An empty relist drops everything. */
    gp_cache_pods_begin(f.c);
    gp_cache_pods_end(f.c);
    GP_CHECK(view(f.c, "gpu-1", 0, &n));
    GP_CHECK_INT(n.gpu_used, 0);
    GP_CHECK_INT(n.pods_used, 0);
    GP_CHECK_INT(gp_cache_get_stats(f.c).pods, 0);
    fx_done(&f);
}

GP_TEST(node_relist_drops_missing_node)
{
    fixture f;
    gp_node n;
    const char *names[4];
    size_t k;

    fx_init(&f);
    gp_cache_nodes_begin(f.c);
    node_ev(f.c, NULL, "gpu-1", 8);
    node_ev(f.c, NULL, "gpu-2", 4);
    node_ev(f.c, NULL, "cpu-1", -1);
    gp_cache_nodes_end(f.c);
    GP_CHECK_INT(gp_cache_get_stats(f.c).nodes, 3);

    gp_cache_nodes_begin(f.c);
    node_ev(f.c, NULL, "gpu-2", 4);
    node_ev(f.c, NULL, "cpu-1", -1);
    gp_cache_nodes_end(f.c);
    GP_CHECK(!view(f.c, "gpu-1", 0, &n));
    GP_CHECK(view(f.c, "gpu-2", 0, &n));
    GP_CHECK_INT(n.gpu_alloc, 4);
    GP_CHECK(view(f.c, "cpu-1", 0, &n));
    GP_CHECK_INT(n.gpu_alloc, 0);
    GP_CHECK_INT(n.cpu_alloc_m, 16000);
    GP_CHECK_INT(gp_cache_get_stats(f.c).nodes, 2);
    gp_cache_rdlock(f.c);
    k = gp_cache_node_names(f.c, names, 4);
    gp_cache_unlock(f.c);
    GP_CHECK_INT(k, 2);
    for (size_t i = 0; i < k; i++)
        GP_CHECK(strcmp(names[i], "gpu-1") != 0);
    fx_done(&f);
}

GP_TEST(deleted_pod_frees_usage)
{
    fixture f;
    gp_node n;

    fx_init(&f);
    node_ev(f.c, "ADDED", "gpu-1", 8);
    gpu_pod(f.c, "ADDED", UID1, "gpu-1", 2);
    gpu_pod(f.c, "ADDED", UID2, "gpu-1", 1);
    gpu_pod(f.c, "DELETED", UID1, "gpu-1", 2);
    GP_CHECK(view(f.c, "gpu-1", 0, &n));
    GP_CHECK_INT(n.gpu_used, 1);
    GP_CHECK_INT(n.pods_used, 1);
    GP_CHECK_INT(n.cpu_used_m, 1000);
    GP_CHECK_INT(n.mem_used, 4 * GIB);
    GP_CHECK_INT(gp_cache_get_stats(f.c).pods, 1);
    /* Deleting twice, or deleting an unknown pod, changes nothing. */
    gpu_pod(f.c, "DELETED", UID1, "gpu-1", 2);
    gpu_pod(f.c, "DELETED", UID3, "gpu-1", 2);
    GP_CHECK(view(f.c, "gpu-1", 0, &n));
    GP_CHECK_INT(n.gpu_used, 1);
    GP_CHECK_INT(n.pods_used, 1);
    fx_done(&f);
}

GP_TEST(deleted_mig_pod_frees_slices)
{
    fixture f;
    gp_node n;

    fx_init(&f);
    node_ev(f.c, "ADDED", "gpu-1", 0);
    pod_ev(f.c, "ADDED", UID1, "gpu-1", NULL, 0, 2, "1", "1Gi");
    pod_ev(f.c, "ADDED", UID2, "gpu-1", NULL, 0, 3, "1", "1Gi");
    GP_CHECK(view(f.c, "gpu-1", 0, &n));
    GP_CHECK_INT(mig_used(&n, "1g.10gb"), 5);
    GP_CHECK_INT(n.gpu_pods, 2);
    pod_ev(f.c, "DELETED", UID1, "gpu-1", NULL, 0, 2, "1", "1Gi");
    GP_CHECK(view(f.c, "gpu-1", 0, &n));
    GP_CHECK_INT(mig_used(&n, "1g.10gb"), 3);
    GP_CHECK_INT(n.gpu_pods, 1);
    fx_done(&f);
}

/* A node with 1 GPU and one slice of each of 8 MIG profiles (mig_prof). */
static const char *const mig_prof[] = { "1g.5gb", "1g.10gb", "2g.10gb", "2g.20gb", "3g.20gb",
                                        "3g.40gb", "4g.20gb", "7g.40gb", "7g.80gb" };

static void mig8_node(gp_cache *c, const char *name)
{
    char text[2048];
    size_t len;
    cJSON *j;

    len = (size_t)snprintf(text, sizeof(text), "{'metadata':{'name':'%s'},'status':{'allocatable':"
                                               "{'nvidia.com/gpu':'1','cpu':'64'", name);
    for (int i = 0; i < 8; i++)
        len += (size_t)snprintf(text + len, sizeof(text) - len, ",'nvidia.com/mig-%s':'1'",
                                mig_prof[i]);
    snprintf(text + len, sizeof(text) - len, "}}}");
    j = parse_q(text);
    gp_cache_node_event(c, "ADDED", j);
    cJSON_Delete(j);
}

/* A pod bound to node with gpus GPUs and one slice of each of the first nprof of mig_prof (from
 * the first: from index first on). */
static void mig_pod(gp_cache *c, const char *type, const char *uid, const char *node, int gpus,
                    int first, int nprof)
{
    char text[2048];
    size_t len;
    cJSON *j;

    len = (size_t)snprintf(text, sizeof(text), "{'metadata':{'name':'m-%s','namespace':'ml',"
                           "'uid':'%s'},'spec':{'nodeName':'%s','containers':[{'name':'c',"
                           "'resources':{'limits':{'cpu':'1','nvidia.com/gpu':'%d'",
                           uid, uid, node, gpus);
    for (int i = first; i < first + nprof; i++)
        len += (size_t)snprintf(text + len, sizeof(text) - len, ",'nvidia.com/mig-%s':'1'",
                                mig_prof[i]);
    snprintf(text + len, sizeof(text) - len, "}}}]}}");
    j = parse_q(text);
    gp_cache_pod_event(c, type, j);
    cJSON_Delete(j);
}

/* Issue 15: a bound pod using three MIG profiles used to be dropped from the cache (its node
 * looked empty). Every profile counts now; a change of profiles replaces them; deletion frees. */
GP_TEST(mig_pod_with_many_profiles_counts)
{
    fixture f;
    gp_node n;

    fx_init(&f);
    mig8_node(f.c, "mig-1");
    mig_pod(f.c, "ADDED", UID1, "mig-1", 0, 0, 3);
    GP_CHECK(view(f.c, "mig-1", 0, &n));
    for (int i = 0; i < 8; i++)
        GP_CHECK_INT(mig_used(&n, mig_prof[i]), i < 3);
    GP_CHECK_INT(n.gpu_pods, 1);
    GP_CHECK_INT(n.cpu_used_m, 1000);
    mig_pod(f.c, "MODIFIED", UID1, "mig-1", 0, 2, 6); /* profiles 2..7 */
    GP_CHECK(view(f.c, "mig-1", 0, &n));
    for (int i = 0; i < 8; i++)
        GP_CHECK_INT(mig_used(&n, mig_prof[i]), i >= 2);
    mig_pod(f.c, "DELETED", UID1, "mig-1", 0, 2, 6);
    GP_CHECK(view(f.c, "mig-1", 0, &n));
    for (int i = 0; i < 8; i++)
        GP_CHECK_INT(mig_used(&n, mig_prof[i]), 0);
    GP_CHECK_INT(n.gpu_pods, 0);
    GP_CHECK_INT(n.pods_used, 0);
    fx_done(&f);
}

/* Past GP_USAGE_MAX_MIG profiles a bound pod is not dropped: its GPUs, CPU and first profiles
 * still count, so its node does not look empty. */
GP_TEST(mig_pod_past_profile_limit_still_counts)
{
    fixture f;
    gp_node n;

    fx_init(&f);
    mig8_node(f.c, "mig-1");
    mig_pod(f.c, "ADDED", UID1, "mig-1", 1, 0, 9);
    GP_CHECK(view(f.c, "mig-1", 0, &n));
    GP_CHECK_INT(n.gpu_used, 1);
    GP_CHECK_INT(n.pods_used, 1);
    GP_CHECK_INT(n.cpu_used_m, 1000);
    GP_CHECK_INT(mig_used(&n, "1g.5gb"), 1);
    GP_CHECK_INT(mig_used(&n, "7g.40gb"), 1);
    GP_CHECK_INT(gp_cache_get_stats(f.c).bad, 0);
    fx_done(&f);
}

/* MIG usage lives out of line: pods created and deleted reuse the entries (the table does not
 * grow with churn), and a pod that stops using MIG gives its entry back. */
GP_TEST(mig_churn_reuses_entries)
{
    fixture f;
    gp_node n;
    gp_cache_stats s0, s;
    char uid[64];

    fx_init(&f);
    mig8_node(f.c, "mig-1");
    for (int i = 0; i < 4; i++) {
        snprintf(uid, sizeof(uid), "mchurn-%d", i);
        mig_pod(f.c, "ADDED", uid, "mig-1", 0, i % 4, 2);
    }
    s0 = gp_cache_get_stats(f.c);
    for (int i = 4; i < 20000; i++) {
        snprintf(uid, sizeof(uid), "mchurn-%d", i);
        mig_pod(f.c, "ADDED", uid, "mig-1", 0, i % 4, 2);
        snprintf(uid, sizeof(uid), "mchurn-%d", i - 4);
        mig_pod(f.c, "DELETED", uid, "mig-1", 0, (i - 4) % 4, 2);
    }
    s = gp_cache_get_stats(f.c);
    GP_CHECK_INT(s.pods, 4);
    GP_CHECK(s.bytes <= s0.bytes + 64u * 1024); /* the pod table may rehash; MIG entries stay */
    GP_CHECK(view(f.c, "mig-1", 0, &n));
    /* Pods 19996..19999 use profiles (i % 4, i % 4 + 1): 0-1, 1-2, 2-3, 3-4. */
    GP_CHECK_INT(mig_used(&n, "1g.5gb"), 1);
    GP_CHECK_INT(mig_used(&n, "1g.10gb"), 2);
    GP_CHECK_INT(mig_used(&n, "2g.10gb"), 2);
    GP_CHECK_INT(mig_used(&n, "2g.20gb"), 2);
    GP_CHECK_INT(mig_used(&n, "3g.20gb"), 1);
    snprintf(uid, sizeof(uid), "mchurn-%d", 19999);
    mig_pod(f.c, "MODIFIED", uid, "mig-1", 1, 0, 0); /* now a whole-GPU pod */
    GP_CHECK(view(f.c, "mig-1", 0, &n));
    GP_CHECK_INT(mig_used(&n, "2g.20gb"), 1);
    GP_CHECK_INT(mig_used(&n, "3g.20gb"), 0);
    GP_CHECK_INT(n.gpu_used, 1);
    fx_done(&f);
}

GP_TEST(terminated_phase_frees)
{
    fixture f;
    gp_node n;
    gp_cache_stats s;

    fx_init(&f);
    node_ev(f.c, "ADDED", "gpu-1", 8);
    pod_ev(f.c, "ADDED", UID1, "gpu-1", "Running", 2, 0, "2", "8Gi");
    pod_ev(f.c, "ADDED", UID2, "gpu-1", "Running", 1, 0, "1", "4Gi");
    pod_ev(f.c, "MODIFIED", UID1, "gpu-1", "Succeeded", 2, 0, "2", "8Gi");
    pod_ev(f.c, "MODIFIED", UID2, "gpu-1", "Failed", 1, 0, "1", "4Gi");
    pod_ev(f.c, "ADDED", UID3, "gpu-1", "Succeeded", 4, 0, "4", "4Gi");
    GP_CHECK(view(f.c, "gpu-1", 0, &n));
    GP_CHECK_INT(n.gpu_used, 0);
    GP_CHECK_INT(n.pods_used, 0);
    GP_CHECK_INT(n.gpu_pods, 0);
    GP_CHECK_INT(n.cpu_used_m, 0);
    GP_CHECK_INT(n.mem_used, 0);
    s = gp_cache_get_stats(f.c);
    GP_CHECK_INT(s.bound, 0);
    /* Deleting a terminated pod does not take anything away twice. */
    pod_ev(f.c, "ADDED", "44444444-4444-4444-8444-444444444444", "gpu-1", NULL, 1, 0, "1", "1Gi");
    pod_ev(f.c, "DELETED", UID1, "gpu-1", "Succeeded", 2, 0, "2", "8Gi");
    GP_CHECK(view(f.c, "gpu-1", 0, &n));
    GP_CHECK_INT(n.gpu_used, 1);
    GP_CHECK_INT(n.pods_used, 1);
    fx_done(&f);
}

GP_TEST(pod_before_node_counts_when_node_arrives)
{
    fixture f;
    gp_node n;

    fx_init(&f);
    gpu_pod(f.c, "ADDED", UID1, "gpu-1", 2);
    GP_CHECK(!view(f.c, "gpu-1", 0, &n));
    GP_CHECK_INT(gp_cache_get_stats(f.c).nodes, 0);
    node_ev(f.c, "ADDED", "gpu-1", 8);
    GP_CHECK(view(f.c, "gpu-1", 0, &n));
    GP_CHECK_INT(n.gpu_alloc, 8);
    GP_CHECK_INT(n.gpu_used, 2);
    GP_CHECK_INT(n.pods_used, 1);
    GP_CHECK_INT(gp_cache_get_stats(f.c).nodes, 1);
    fx_done(&f);
}

GP_TEST(node_readded_keeps_pod_usage)
{
    fixture f;
    gp_node n;

    fx_init(&f);
    node_ev(f.c, "ADDED", "gpu-1", 8);
    gpu_pod(f.c, "ADDED", UID1, "gpu-1", 3);
    node_ev(f.c, "DELETED", "gpu-1", 8);
    GP_CHECK(!view(f.c, "gpu-1", 0, &n));
    GP_CHECK_INT(gp_cache_get_stats(f.c).nodes, 0);
    node_ev(f.c, "ADDED", "gpu-1", 4);
    GP_CHECK(view(f.c, "gpu-1", 0, &n));
    GP_CHECK_INT(n.gpu_alloc, 4);
    GP_CHECK_INT(n.gpu_used, 3);
    GP_CHECK_INT(n.pods_used, 1);
    /* A node relist that drops and a later one that re-adds behaves the same. */
    gp_cache_nodes_begin(f.c);
    gp_cache_nodes_end(f.c);
    GP_CHECK(!view(f.c, "gpu-1", 0, &n));
    gp_cache_nodes_begin(f.c);
    node_ev(f.c, NULL, "gpu-1", 8);
    gp_cache_nodes_end(f.c);
    GP_CHECK(view(f.c, "gpu-1", 0, &n));
    GP_CHECK_INT(n.gpu_used, 3);
    fx_done(&f);
}

GP_TEST(node_modified_updates_allocatable)
{
    fixture f;
    gp_node n;

    fx_init(&f);
    node_ev(f.c, "ADDED", "gpu-1", 8);
    gpu_pod(f.c, "ADDED", UID1, "gpu-1", 3);
    node_ev(f.c, "MODIFIED", "gpu-1", 6);
    GP_CHECK(view(f.c, "gpu-1", 0, &n));
    GP_CHECK_INT(n.gpu_alloc, 6);
    GP_CHECK_INT(n.gpu_used, 3);
    GP_CHECK_INT(gp_cache_get_stats(f.c).nodes, 1);
    fx_done(&f);
}

GP_TEST(add_usage_adds_to_caller_node)
{
    fixture f;
    gp_node n;
    gp_cache_at at = gp_cache_at_for(NULL, 0);

    fx_init(&f);
    node_ev(f.c, "ADDED", "gpu-1", 8);
    gpu_pod(f.c, "ADDED", UID1, "gpu-1", 2);
    memset(&n, 0, sizeof(n));
    n.gpu_used = 1;
    gp_cache_rdlock(f.c);
    GP_CHECK(gp_cache_add_usage(f.c, "gpu-1", &at, &n));
    GP_CHECK(!gp_cache_add_usage(f.c, "unknown", &at, &n));
    gp_cache_unlock(f.c);
    GP_CHECK_INT(n.gpu_used, 3);
    GP_CHECK_INT(n.pods_used, 1);
    GP_CHECK_INT(n.cpu_used_m, 2000);
    fx_done(&f);
}

/* ---- assumptions ---- */

static gp_usage usage_gpus(int gpus)
{
    gp_usage u;

    memset(&u, 0, sizeof(u));
    u.gpu = gpus;
    u.cpu_m = 1000 * gpus;
    u.mem = 4 * GIB * gpus;
    return u;
}

GP_TEST(assume_adds_until_expiry)
{
    fixture f;
    gp_node n;
    gp_usage u = usage_gpus(2);

    fx_init(&f);
    node_ev(f.c, "ADDED", "gpu-1", 8);
    gpu_pod(f.c, "ADDED", UID1, "gpu-1", 1);
    gp_cache_assume(f.c, UID2, "gpu-1", &u, 1000, 500);
    GP_CHECK_INT(gp_cache_get_stats(f.c).assumed, 1);
    GP_CHECK(view(f.c, "gpu-1", 1000, &n));
    GP_CHECK_INT(n.gpu_used, 3);
    GP_CHECK_INT(n.pods_used, 2);
    GP_CHECK_INT(n.gpu_pods, 2);
    GP_CHECK_INT(n.cpu_used_m, 3000);
    GP_CHECK_INT(n.mem_used, 12 * GIB);
    GP_CHECK(view(f.c, "gpu-1", 1499, &n));
    GP_CHECK_INT(n.gpu_used, 3);
    GP_CHECK(view(f.c, "gpu-1", 1500, &n));
    GP_CHECK_INT(n.gpu_used, 1);
    GP_CHECK_INT(n.pods_used, 1);
    /* The bound pods' usage never expires. */
    GP_CHECK(view(f.c, "gpu-1", INT64_C(1) << 50, &n));
    GP_CHECK_INT(n.gpu_used, 1);
    fx_done(&f);
}

GP_TEST(assume_mig_usage)
{
    fixture f;
    gp_node n;
    gp_usage u;

    fx_init(&f);
    node_ev(f.c, "ADDED", "gpu-1", 0);
    memset(&u, 0, sizeof(u));
    snprintf(u.mig_profile[0], GP_MIG_NAME_MAX, "1g.10gb");
    u.mig[0] = 2;
    u.nmig = 1;
    gp_cache_assume(f.c, UID1, "gpu-1", &u, 0, 100);
    GP_CHECK(view(f.c, "gpu-1", 50, &n));
    GP_CHECK_INT(mig_used(&n, "1g.10gb"), 2);
    GP_CHECK_INT(mig_alloc(&n, "1g.10gb"), 7);
    GP_CHECK_INT(n.gpu_pods, 1);
    fx_done(&f);
}

GP_TEST(assumption_dropped_when_bound)
{
    fixture f;
    gp_node n;
    gp_usage u = usage_gpus(2);

    fx_init(&f);
    node_ev(f.c, "ADDED", "gpu-1", 8);
    gpu_pod(f.c, "ADDED", UID1, NULL, 2);
    gp_cache_assume(f.c, UID1, "gpu-1", &u, 0, 60000);
    GP_CHECK(view(f.c, "gpu-1", 10, &n));
    GP_CHECK_INT(n.gpu_used, 2);
    gpu_pod(f.c, "MODIFIED", UID1, "gpu-1", 2);
    GP_CHECK(view(f.c, "gpu-1", 10, &n));
    GP_CHECK_INT(n.gpu_used, 2); /* not 4 */
    GP_CHECK_INT(n.pods_used, 1);
    GP_CHECK_INT(gp_cache_get_stats(f.c).assumed, 0);
    fx_done(&f);
}

GP_TEST(assumption_dropped_when_bound_elsewhere)
{
    fixture f;
    gp_node n;
    gp_usage u = usage_gpus(2);

    fx_init(&f);
    node_ev(f.c, "ADDED", "gpu-1", 8);
    node_ev(f.c, "ADDED", "gpu-2", 8);
    /* Assumed before the cache has ever seen the pod. */
    gp_cache_assume(f.c, UID1, "gpu-1", &u, 0, 60000);
    GP_CHECK(view(f.c, "gpu-1", 10, &n));
    GP_CHECK_INT(n.gpu_used, 2);
    gpu_pod(f.c, "ADDED", UID1, "gpu-2", 2);
    GP_CHECK(view(f.c, "gpu-1", 10, &n));
    GP_CHECK_INT(n.gpu_used, 0);
    GP_CHECK_INT(n.pods_used, 0);
    GP_CHECK(view(f.c, "gpu-2", 10, &n));
    GP_CHECK_INT(n.gpu_used, 2);
    GP_CHECK_INT(gp_cache_get_stats(f.c).assumed, 0);
    fx_done(&f);
}

GP_TEST(assumption_dropped_when_deleted)
{
    fixture f;
    gp_node n;
    gp_usage u = usage_gpus(2);

    fx_init(&f);
    node_ev(f.c, "ADDED", "gpu-1", 8);
    gpu_pod(f.c, "ADDED", UID1, NULL, 2);
    gp_cache_assume(f.c, UID1, "gpu-1", &u, 0, 60000);
    gpu_pod(f.c, "DELETED", UID1, NULL, 2);
    GP_CHECK(view(f.c, "gpu-1", 10, &n));
    GP_CHECK_INT(n.gpu_used, 0);
    GP_CHECK_INT(gp_cache_get_stats(f.c).assumed, 0);
    fx_done(&f);
}

GP_TEST(assumption_kept_while_pending_update)
{
    fixture f;
    gp_node n;
    gp_usage u = usage_gpus(2);

    fx_init(&f);
    node_ev(f.c, "ADDED", "gpu-1", 8);
    gpu_pod(f.c, "ADDED", UID1, NULL, 2);
    gp_cache_assume(f.c, UID1, "gpu-1", &u, 0, 60000);
    /* A MODIFIED that still has no nodeName keeps the assumption. */
    gpu_pod(f.c, "MODIFIED", UID1, NULL, 2);
    GP_CHECK(view(f.c, "gpu-1", 10, &n));
    GP_CHECK_INT(n.gpu_used, 2);
    fx_done(&f);
}

GP_TEST(assume_bound_pod_or_unknown_node_is_ignored)
{
    fixture f;
    gp_node n;
    gp_usage u = usage_gpus(2);

    fx_init(&f);
    node_ev(f.c, "ADDED", "gpu-1", 8);
    node_ev(f.c, "ADDED", "gpu-2", 8);
    gpu_pod(f.c, "ADDED", UID1, "gpu-2", 2);
    gp_cache_assume(f.c, UID1, "gpu-1", &u, 0, 60000);
    gp_cache_assume(f.c, UID2, "no-such-node", &u, 0, 60000);
    GP_CHECK(view(f.c, "gpu-1", 10, &n));
    GP_CHECK_INT(n.gpu_used, 0);
    GP_CHECK(view(f.c, "gpu-2", 10, &n));
    GP_CHECK_INT(n.gpu_used, 2);
    GP_CHECK_INT(gp_cache_get_stats(f.c).assumed, 0);
    fx_done(&f);
}

GP_TEST(reassume_replaces_previous)
{
    fixture f;
    gp_node n;
    gp_usage u = usage_gpus(2);

    fx_init(&f);
    node_ev(f.c, "ADDED", "gpu-1", 8);
    node_ev(f.c, "ADDED", "gpu-2", 8);
    gp_cache_assume(f.c, UID1, "gpu-1", &u, 0, 60000);
    gp_cache_assume(f.c, UID1, "gpu-2", &u, 0, 60000);
    GP_CHECK(view(f.c, "gpu-1", 10, &n));
    GP_CHECK_INT(n.gpu_used, 0);
    GP_CHECK(view(f.c, "gpu-2", 10, &n));
    GP_CHECK_INT(n.gpu_used, 2);
    GP_CHECK_INT(gp_cache_get_stats(f.c).assumed, 1);
    fx_done(&f);
}

/* A pod scheduled again (its cycle failed after prioritize: Permit, PreBind or the bind call)
 * sees the node it was assumed on as it was before: its own assumption is left out, other
 * pods' are not, on a view and on a full Node's usage alike. */
GP_TEST(own_assumption_left_out_of_the_view)
{
    fixture f;
    gp_node n;
    gp_usage u = usage_gpus(8);
    gp_cache_at self = gp_cache_at_for(UID1, 10), other = gp_cache_at_for(UID2, 10);
    gp_cache_at none = gp_cache_at_for("", 10);

    fx_init(&f);
    node_ev(f.c, "ADDED", "gpu-1", 8);
    gp_cache_assume(f.c, UID1, "gpu-1", &u, 0, 60000);
    GP_CHECK(!none.has_self);
    gp_cache_rdlock(f.c);
    memset(&n, 0, sizeof(n));
    GP_CHECK(gp_cache_view(f.c, "gpu-1", &self, &n));
    GP_CHECK_INT(n.gpu_used, 0);
    GP_CHECK_INT(n.pods_used, 0);
    memset(&n, 0, sizeof(n));
    GP_CHECK(gp_cache_view(f.c, "gpu-1", &other, &n));
    GP_CHECK_INT(n.gpu_used, 8);
    memset(&n, 0, sizeof(n));
    GP_CHECK(gp_cache_view(f.c, "gpu-1", &none, &n));
    GP_CHECK_INT(n.gpu_used, 8);
    memset(&n, 0, sizeof(n));
    GP_CHECK(gp_cache_add_usage(f.c, "gpu-1", &self, &n));
    GP_CHECK_INT(n.gpu_used, 0);
    GP_CHECK(gp_cache_add_usage(f.c, "gpu-1", &other, &n));
    GP_CHECK_INT(n.gpu_used, 8);
    gp_cache_unlock(f.c);
    fx_done(&f);
}

/* ---- typical pod ---- */

GP_TEST(typical_averages_bound_gpu_pods)
{
    fixture f;
    gp_policy *pol;
    gp_typical t;

    fx_init(&f);
    pol = gp_policy_holder_get(&f.holder);
    node_ev(f.c, "ADDED", "gpu-1", 8);
    /* 1 GPU with 2 CPUs and 8Gi, 3 GPUs with 6 CPUs and 40Gi: 8 CPUs, 48Gi over 4 GPUs. */
    pod_ev(f.c, "ADDED", UID1, "gpu-1", NULL, 1, 0, "2", "8Gi");
    pod_ev(f.c, "ADDED", UID2, "gpu-1", NULL, 3, 0, "6", "40Gi");
    /* Ignored: a CPU pod, a pending GPU pod, a finished GPU pod. */
    pod_ev(f.c, "ADDED", UID3, "gpu-1", NULL, 0, 0, "30", "100Gi");
    pod_ev(f.c, "ADDED", "44444444-4444-4444-8444-444444444444", NULL, NULL, 1, 0, "50", "1Gi");
    pod_ev(f.c, "ADDED", "55555555-5555-4555-8555-555555555555", "gpu-1", "Succeeded", 1, 0,
           "50", "1Gi");
    gp_cache_rdlock(f.c);
    t = gp_cache_typical(f.c, pol);
    gp_cache_unlock(f.c);
    GP_CHECK_INT(t.cpu_m_per_gpu, 2000);
    GP_CHECK_INT(t.mem_per_gpu, 12 * GIB);
    gp_policy_unref(pol);
    fx_done(&f);
}

GP_TEST(typical_falls_back_to_policy)
{
    fixture f;
    gp_policy *pol;
    gp_typical t;

    fx_init(&f);
    pol = gp_policy_holder_get(&f.holder);
    node_ev(f.c, "ADDED", "gpu-1", 8);
    pod_ev(f.c, "ADDED", UID3, "gpu-1", NULL, 0, 0, "30", "100Gi");
    gp_cache_rdlock(f.c);
    t = gp_cache_typical(f.c, pol);
    gp_cache_unlock(f.c);
    GP_CHECK_INT(t.cpu_m_per_gpu, pol->scoring.typical_cpu_milli_per_gpu);
    GP_CHECK_INT(t.mem_per_gpu, pol->scoring.typical_memory_per_gpu);
    GP_CHECK_INT(t.cpu_m_per_gpu, 4000);
    GP_CHECK_INT(t.mem_per_gpu, 32 * GIB);
    /* Back to the defaults once the last GPU pod is gone. */
    gpu_pod(f.c, "ADDED", UID1, "gpu-1", 1);
    gpu_pod(f.c, "DELETED", UID1, "gpu-1", 1);
    gp_cache_rdlock(f.c);
    t = gp_cache_typical(f.c, pol);
    gp_cache_unlock(f.c);
    GP_CHECK_INT(t.cpu_m_per_gpu, 4000);
    GP_CHECK_INT(t.mem_per_gpu, 32 * GIB);
    gp_policy_unref(pol);
    fx_done(&f);
}

/* ---- workload mix ---- */

/* A uid from a number: "00000000-0000-4000-8000-00000000NNNN". */
static void uid_n(char *buf, size_t size, int n)
{
    snprintf(buf, size, "00000000-0000-4000-8000-%012d", n);
}

/* The learned mix under the read lock, into shapes allocated from a. */
static size_t mix_of(gp_cache *c, gp_arena *a, size_t max, gp_frag_mix *m)
{
    size_t n;

    gp_cache_rdlock(c);
    n = gp_cache_mix(c, a, max, m);
    gp_cache_unlock(c);
    return n;
}

GP_TEST(mix_learned_from_bound_gpu_pods)
{
    fixture f;
    gp_arena a;
    gp_frag_mix m;
    char uid[40];

    fx_init(&f);
    gp_arena_init(&a, 0);
    node_ev(f.c, "ADDED", "gpu-1", 8);
    GP_CHECK_INT(mix_of(f.c, &a, 32, &m), 0); /* nothing seen yet */
    /* 6 pods of 1 GPU with 4 CPUs, 3 of 2 GPUs with 8 CPUs, 1 of 8 GPUs with 64 CPUs. */
    for (int i = 0; i < 10; i++) {
        uid_n(uid, sizeof(uid), i);
        pod_ev(f.c, "ADDED", uid, "gpu-1", NULL, i < 6 ? 1 : i < 9 ? 2 : 8, 0,
               i < 6 ? "4" : i < 9 ? "8" : "64", "1Gi");
    }
    /* Not counted: a CPU pod on a CPU node, a MIG pod, a pending and a finished GPU pod. */
    node_ev(f.c, "ADDED", "cpu-1", -1);
    pod_ev(f.c, "ADDED", UID1, "cpu-1", NULL, 0, 0, "30", "1Gi");
    pod_ev(f.c, "ADDED", UID2, "gpu-1", NULL, 0, 1, "2", "1Gi");
    pod_ev(f.c, "ADDED", UID3, NULL, NULL, 4, 0, "2", "1Gi");
    pod_ev(f.c, "ADDED", "44444444-4444-4444-8444-444444444444", "gpu-1", "Succeeded", 4, 0,
           "2", "1Gi");
    /* 95% of 10 pods: all three shapes, most common first. */
    GP_CHECK_INT(mix_of(f.c, &a, 32, &m), 3);
    GP_CHECK_INT(m.shapes[0].shape.num_gpu, 1);
    GP_CHECK_INT(m.shapes[0].shape.cpu_milli, 4000);
    GP_CHECK_INT(m.shapes[0].shape.gpu_milli, 1000);
    GP_CHECK_NEAR(m.shapes[0].freq, 0.6, 1e-9);
    GP_CHECK_INT(m.shapes[1].shape.num_gpu, 2);
    GP_CHECK_NEAR(m.shapes[1].freq, 0.3, 1e-9);
    GP_CHECK_INT(m.shapes[2].shape.num_gpu, 8);
    GP_CHECK_INT(m.shapes[2].shape.cpu_milli, 64000);
    /* At most 2 shapes: the two most common, renormalised. */
    GP_CHECK_INT(mix_of(f.c, &a, 2, &m), 2);
    GP_CHECK_NEAR(m.shapes[0].freq, 6.0 / 9, 1e-9);
    /* Pods that go away leave the mix: delete the 8-GPU pod, finish two 2-GPU pods. */
    uid_n(uid, sizeof(uid), 9);
    pod_ev(f.c, "DELETED", uid, "gpu-1", NULL, 8, 0, "64", "1Gi");
    for (int i = 7; i < 9; i++) {
        uid_n(uid, sizeof(uid), i);
        pod_ev(f.c, "MODIFIED", uid, "gpu-1", "Succeeded", 2, 0, "8", "1Gi");
    }
    GP_CHECK_INT(mix_of(f.c, &a, 32, &m), 2);
    GP_CHECK_NEAR(m.shapes[0].freq, 6.0 / 7, 1e-9);
    GP_CHECK_INT(m.shapes[1].shape.num_gpu, 2);
    /* A pod whose request changes (a MODIFIED with other numbers) moves to its new shape. */
    uid_n(uid, sizeof(uid), 6);
    pod_ev(f.c, "MODIFIED", uid, "gpu-1", NULL, 1, 0, "4", "1Gi");
    GP_CHECK_INT(mix_of(f.c, &a, 32, &m), 1);
    GP_CHECK_NEAR(m.shapes[0].freq, 1.0, 1e-9);
    gp_arena_free(&a);
    fx_done(&f);
}

/* A pod with a DaemonSet owner, bound to node, asking for cpu. */
static void ds_pod(gp_cache *c, const char *type, const char *uid, const char *node,
                   const char *cpu)
{
    char text[1024];
    cJSON *j;

    snprintf(text, sizeof(text),
             "{'metadata':{'name':'ds','namespace':'kube-system','uid':'%s','ownerReferences':"
             "[{'apiVersion':'apps/v1','kind':'DaemonSet','name':'d','uid':'u','controller':true}]},"
             "'spec':{'nodeName':'%s','containers':[{'name':'c','resources':{'requests':"
             "{'cpu':'%s'}}}]}}",
             uid, node, cpu);
    j = parse_q(text);
    gp_cache_pod_event(c, type, j);
    cJSON_Delete(j);
}

/* CPU-only pods compete with GPU pods for a GPU node's CPU: the mix counts them there (not on
 * CPU nodes, not DaemonSet pods, not MIG pods), and their removal balances even when the node
 * lost its GPUs meanwhile. */
GP_TEST(mix_counts_cpu_pods_next_to_gpus)
{
    fixture f;
    gp_arena a;
    gp_frag_mix m;
    char uid[40];

    fx_init(&f);
    gp_arena_init(&a, 0);
    node_ev(f.c, "ADDED", "gpu-1", 8);
    node_ev(f.c, "ADDED", "mig-1", 0); /* MIG slices only */
    node_ev(f.c, "ADDED", "cpu-1", -1);
    uid_n(uid, sizeof(uid), 1);
    pod_ev(f.c, "ADDED", uid, "gpu-1", NULL, 1, 0, "8", "1Gi");
    uid_n(uid, sizeof(uid), 2);
    pod_ev(f.c, "ADDED", uid, "gpu-1", NULL, 0, 0, "2", "1Gi"); /* counted */
    uid_n(uid, sizeof(uid), 3);
    pod_ev(f.c, "ADDED", uid, "cpu-1", NULL, 0, 0, "2", "1Gi");
    uid_n(uid, sizeof(uid), 4);
    pod_ev(f.c, "ADDED", uid, "mig-1", NULL, 0, 0, "2", "1Gi");
    uid_n(uid, sizeof(uid), 5);
    pod_ev(f.c, "ADDED", uid, "gpu-1", NULL, 0, 1, "2", "1Gi"); /* a MIG pod */
    ds_pod(f.c, "ADDED", UID1, "gpu-1", "2");
    GP_CHECK_INT(mix_of(f.c, &a, 32, &m), 2);
    GP_CHECK(m.shapes[0].shape.num_gpu + m.shapes[1].shape.num_gpu == 1);
    for (int i = 0; i < 2; i++)
        if (m.shapes[i].shape.num_gpu == 0) {
            GP_CHECK_INT(m.shapes[i].shape.cpu_milli, 2000);
            GP_CHECK_INT(m.shapes[i].shape.gpu_milli, 0);
            GP_CHECK_NEAR(m.shapes[i].freq, 0.5, 1e-9);
        }
    GP_CHECK_INT(gp_cache_get_stats(f.c).shapes, 2);
    /* The node loses its GPUs; the counted CPU pod still leaves the mix when it goes. */
    node_ev(f.c, "MODIFIED", "gpu-1", 0);
    uid_n(uid, sizeof(uid), 2);
    pod_ev(f.c, "DELETED", uid, "gpu-1", NULL, 0, 0, "2", "1Gi");
    GP_CHECK_INT(mix_of(f.c, &a, 32, &m), 1);
    GP_CHECK_INT(m.shapes[0].shape.num_gpu, 1);
    GP_CHECK_INT(gp_cache_get_stats(f.c).shapes, 1);
    gp_arena_free(&a);
    fx_done(&f);
}

GP_TEST(mix_popularity_cut_and_full_table)
{
    fixture f;
    gp_arena a;
    gp_frag_mix m;
    char uid[40], cpu[16];
    int id = 0;

    fx_init(&f);
    gp_arena_init(&a, 0);
    node_ev(f.c, "ADDED", "gpu-1", 8);
    /* 96 pods of one shape, then one pod each of GP_CACHE_MAX_SHAPES + 10 other shapes: the
     * table keeps GP_CACHE_MAX_SHAPES shapes, the common one covers 95% of what it counts. */
    for (int i = 0; i < 96; i++, id++) {
        uid_n(uid, sizeof(uid), id);
        pod_ev(f.c, "ADDED", uid, "gpu-1", NULL, 1, 0, "4", "1Gi");
    }
    GP_CHECK_INT(mix_of(f.c, &a, 32, &m), 1);
    for (int i = 0; i < GP_CACHE_MAX_SHAPES + 10; i++, id++) {
        uid_n(uid, sizeof(uid), id);
        snprintf(cpu, sizeof(cpu), "%dm", 100 + i);
        pod_ev(f.c, "ADDED", uid, "gpu-1", NULL, 1, 0, cpu, "1Gi");
    }
    /* 96 of 96 + 1023 counted pods: the cut needs 32 shapes (the cap) */
    GP_CHECK_INT(mix_of(f.c, &a, 32, &m), 32);
    GP_CHECK_INT(m.shapes[0].shape.cpu_milli, 4000);
    GP_CHECK_NEAR(m.shapes[0].freq, 96.0 / 127, 1e-9);
    GP_CHECK_INT(m.shapes[1].shape.cpu_milli, 100); /* equal counts: ascending shape order */
    /* Deleting every one-off pod (also the untracked ones) leaves the common shape alone, and
     * freed slots take new shapes again. */
    for (int i = 96; i < id; i++) {
        uid_n(uid, sizeof(uid), i);
        pod_ev(f.c, "DELETED", uid, "gpu-1", NULL, 1, 0, "1", "1Gi");
    }
    GP_CHECK_INT(mix_of(f.c, &a, 32, &m), 1);
    uid_n(uid, sizeof(uid), id);
    pod_ev(f.c, "ADDED", uid, "gpu-1", NULL, 2, 0, "16", "1Gi");
    GP_CHECK_INT(mix_of(f.c, &a, 32, &m), 1); /* 96 + 1: the common shape covers 95% */
    for (int i = 0; i < 90; i++) {
        uid_n(uid, sizeof(uid), i);
        pod_ev(f.c, "DELETED", uid, "gpu-1", NULL, 1, 0, "4", "1Gi");
    }
    GP_CHECK_INT(mix_of(f.c, &a, 32, &m), 2); /* 6 + 1: 95% needs both */
    GP_CHECK_INT(m.shapes[1].shape.num_gpu, 2);
    GP_CHECK_INT(m.shapes[1].shape.cpu_milli, 16000);
    gp_arena_free(&a);
    fx_done(&f);
}

/* ---- model pressure ---- */

/* A node with gpus whole GPUs of the given nvidia.com/gpu.product, 64 CPUs, 256Gi. */
static void model_node(gp_cache *c, const char *name, const char *product, int gpus)
{
    char text[1024];
    cJSON *j;

    snprintf(text, sizeof(text),
             "{'metadata':{'name':'%s','labels':{'nvidia.com/gpu.product':'%s'}},"
             "'status':{'allocatable':{'nvidia.com/gpu':'%d','cpu':'64','memory':'256Gi',"
             "'pods':'110'}}}",
             name, product, gpus);
    j = parse_q(text);
    gp_cache_node_event(c, "ADDED", j);
    cJSON_Delete(j);
}

/* A running pod of gpus GPUs on node (NULL: pending) with more metadata (after the uid, may
 * be "") and more of spec (before the containers, may be ""). */
static void kept_pod(gp_cache *c, const char *type, const char *uid, const char *node, int gpus,
                     const char *meta, const char *spec)
{
    char text[4096], nodefield[300] = "";
    cJSON *j;

    if (node != NULL)
        snprintf(nodefield, sizeof(nodefield), "'nodeName':'%s',", node);
    snprintf(text, sizeof(text),
             "{'metadata':{'name':'p-%s','namespace':'ml','uid':'%s'%s%s},"
             "'spec':{%s%s%s'containers':[{'name':'c','resources':{'limits':"
             "{'nvidia.com/gpu':'%d'}}}]}}",
             uid, uid, meta[0] ? "," : "", meta, nodefield, spec, spec[0] ? "," : "", gpus);
    j = parse_q(text);
    gp_cache_pod_event(c, type, j);
    cJSON_Delete(j);
}

/* A cache with the default policy and what the last pressure_of() read: p[0..n) in the cache's
 * model order, names the models'. */
typedef struct {
    fixture f;
    gp_policy *pol;
    double p[GP_FRAG_MAX_MODELS];
    const char *names[GP_FRAG_MAX_MODELS];
    int n;
} pfx;

static void pfx_init(pfx *x)
{
    memset(x, 0, sizeof(*x));
    fx_init(&x->f);
    x->pol = gp_policy_holder_get(&x->f.holder);
}

static void pfx_done(pfx *x)
{
    gp_policy_unref(x->pol);
    fx_done(&x->f);
}

/* The pressure with x->pol under the read lock, into x; false when none. */
static bool pressure_with(gp_cache *c, const gp_policy *pol, double *p, const char **names, int *n)
{
    gp_arena a;
    gp_typical t;
    bool some;

    memset(&t, 0, sizeof(t));
    gp_arena_init(&a, 0);
    gp_cache_rdlock(c);
    gp_cache_pressure(c, pol, &a, &t);
    some = t.model_pressure != NULL;
    *n = some ? t.nmodels : 0;
    for (int i = 0; i < *n; i++) {
        p[i] = t.model_pressure[i];
        names[i] = t.models[i];
    }
    gp_cache_unlock(c);
    gp_arena_free(&a);
    return some;
}

static bool pressure_of(pfx *x)
{
    return pressure_with(x->f.c, x->pol, x->p, x->names, &x->n);
}

#define SEL_T4 "'nodeSelector':{'nvidia.com/gpu.product':'Tesla-T4'}"
#define AFF(terms) "'affinity':{'nodeAffinity':{'requiredDuringSchedulingIgnoredDuringExecution':" \
                   "{'nodeSelectorTerms':[" terms "]}}}"
#define IN_T4 "{'matchExpressions':[{'key':'nvidia.com/gpu.product','operator':'In'," \
              "'values':['Tesla-T4']}]}"

/* The pod watch learns who is kept to which models: nodeSelector, required affinity In values,
 * the gpu-models annotation; pods that may run anywhere only add to the GPUs held. */
GP_TEST(pressure_learned_from_bound_pods)
{
    pfx x;

    pfx_init(&x);
    model_node(x.f.c, "t4-a", "Tesla-T4", 4);
    model_node(x.f.c, "t4-b", "Tesla-T4", 4);
    model_node(x.f.c, "a10", "NVIDIA-A10G", 8);
    GP_CHECK(!pressure_of(&x)); /* no pod yet */
    kept_pod(x.f.c, "ADDED", UID1, "a10", 4, "", "");
    GP_CHECK(!pressure_of(&x)); /* nobody is kept to a model */
    kept_pod(x.f.c, "ADDED", UID2, "t4-a", 2, "", SEL_T4);
    kept_pod(x.f.c, "ADDED", UID3, "t4-a", 1, "", AFF(IN_T4));
    kept_pod(x.f.c, "ADDED", "44444444-4444-4444-8444-444444444444", "a10", 1,
             "'annotations':{'gpupack.io/gpu-models':'NVIDIA-A10*'}", "");
    GP_CHECK(pressure_of(&x));
    GP_CHECK_INT(x.n, 3);
    GP_CHECK_STR(x.names[0], "Tesla-T4");
    GP_CHECK_STR(x.names[1], "NVIDIA-A10G");
    GP_CHECK(x.names[2] == NULL); /* GPU nodes without the label: none here */
    /* 8 GPUs held on 16: 0.5 per GPU. T4: 3 kept on 8 GPUs; A10G: 1 on 8. */
    GP_CHECK_NEAR(x.p[0], 3.0 / 8 / 0.5, 1e-9);
    GP_CHECK_NEAR(x.p[1], 1.0 / 8 / 0.5, 1e-9);
    /* nodeSelector and affinity to the same model are one constraint. */
    GP_CHECK_INT(gp_cache_get_stats(x.f.c).constraints, 2);
    GP_CHECK_INT(gp_cache_get_stats(x.f.c).models, 2);
    /* The kept pods leave: the pressure goes, and so do their constraints. */
    kept_pod(x.f.c, "DELETED", UID2, "t4-a", 2, "", SEL_T4);
    kept_pod(x.f.c, "MODIFIED", UID3, "t4-a", 1, "", ""); /* the constraint dropped */
    GP_CHECK(pressure_of(&x));
    GP_CHECK_NEAR(x.p[0], 0, 1e-9);
    GP_CHECK_NEAR(x.p[1], 1.0 / 8 / (6.0 / 16), 1e-9);
    GP_CHECK_INT(gp_cache_get_stats(x.f.c).constraints, 1);
    gp_cache_pods_begin(x.f.c); /* a relist without the annotated pod */
    kept_pod(x.f.c, "ADDED", UID1, "a10", 4, "", "");
    kept_pod(x.f.c, "ADDED", UID3, "t4-a", 1, "", "");
    gp_cache_pods_end(x.f.c);
    GP_CHECK(!pressure_of(&x));
    GP_CHECK_INT(gp_cache_get_stats(x.f.c).constraints, 0);
    pfx_done(&x);
}

/* What does not keep a pod to some models: affinity with a term that names no product (terms
 * are ORed), NotIn, a pending pod, a CPU pod. nodeSelector and affinity that disagree leave
 * the pod nowhere to run: it presses on no model. */
GP_TEST(pressure_constraint_edges)
{
    pfx x;

    pfx_init(&x);
    model_node(x.f.c, "t4", "Tesla-T4", 4);
    model_node(x.f.c, "a10", "NVIDIA-A10G", 4);
    kept_pod(x.f.c, "ADDED", UID1, "t4", 1, "",
             AFF(IN_T4 ",{'matchExpressions':[{'key':'zone','operator':'In','values':['a']}]}"));
    kept_pod(x.f.c, "ADDED", UID2, "a10", 1, "",
             AFF("{'matchExpressions':[{'key':'nvidia.com/gpu.product','operator':'NotIn',"
                 "'values':['Tesla-T4']}]}"));
    kept_pod(x.f.c, "ADDED", UID3, NULL, 1, "", SEL_T4);
    GP_CHECK(!pressure_of(&x));
    kept_pod(x.f.c, "ADDED", "44444444-4444-4444-8444-444444444444", "t4", 1, "",
             SEL_T4 "," AFF("{'matchExpressions':[{'key':'nvidia.com/gpu.product',"
                            "'operator':'In','values':['NVIDIA-A10G']}]}"));
    GP_CHECK(!pressure_of(&x));
    /* A class label whose class names no models, and an annotation that allows every model,
     * keep a pod nowhere in particular (the webhook labels every GPU pod with its class). */
    kept_pod(x.f.c, "ADDED", "55555555-5555-4555-8555-555555555555", "t4", 1,
             "'labels':{'gpupack.io/class':'training'}", "");
    kept_pod(x.f.c, "ADDED", "66666666-6666-4666-8666-666666666666", "a10", 1,
             "'annotations':{'gpupack.io/gpu-models':'*'}", "");
    GP_CHECK(!pressure_of(&x));
    /* The pending pod binds: now it counts. */
    kept_pod(x.f.c, "MODIFIED", UID3, "t4", 1, "", SEL_T4);
    GP_CHECK(pressure_of(&x));
    GP_CHECK_NEAR(x.p[0], 1.0 / 4 / (6.0 / 8), 1e-9); /* 6 GPUs held on 8 */
    pfx_done(&x);
}

/* One term's expressions are ANDed: two In lists intersect, NotIn removes, DoesNotExist
 * allows no model; values in any order are one constraint. */
GP_TEST(pressure_affinity_expressions_and)
{
    pfx x;

    pfx_init(&x);
    model_node(x.f.c, "t4", "Tesla-T4", 4);
    model_node(x.f.c, "a10", "NVIDIA-A10G", 4);
    model_node(x.f.c, "l4", "NVIDIA-L4", 4);
    /* In [T4, A10G] and In [A10G, L4]: A10G only. */
    kept_pod(x.f.c, "ADDED", UID1, "a10", 2, "",
             AFF("{'matchExpressions':[{'key':'nvidia.com/gpu.product','operator':'In',"
                 "'values':['Tesla-T4','NVIDIA-A10G']},{'key':'nvidia.com/gpu.product',"
                 "'operator':'In','values':['NVIDIA-L4','NVIDIA-A10G']}]}"));
    GP_CHECK(pressure_of(&x));
    GP_CHECK_NEAR(x.p[0], 0, 1e-9);
    GP_CHECK_NEAR(x.p[2], 0, 1e-9);
    GP_CHECK(x.p[1] > 0);
    /* In [A10G, T4] then NotIn [T4]: A10G only again, and the same key as In [A10G]. */
    kept_pod(x.f.c, "ADDED", UID2, "a10", 1, "",
             AFF("{'matchExpressions':[{'key':'nvidia.com/gpu.product','operator':'In',"
                 "'values':['NVIDIA-A10G','Tesla-T4']},{'key':'nvidia.com/gpu.product',"
                 "'operator':'NotIn','values':['Tesla-T4']}]}"));
    kept_pod(x.f.c, "ADDED", UID3, "a10", 1, "",
             AFF("{'matchExpressions':[{'key':'nvidia.com/gpu.product','operator':'In',"
                 "'values':['NVIDIA-A10G']}]}"));
    GP_CHECK_INT(gp_cache_get_stats(x.f.c).constraints, 1);
    GP_CHECK(pressure_of(&x));
    GP_CHECK_NEAR(x.p[1], 4.0 / 4 / (4.0 / 12), 1e-9);
    /* DoesNotExist: no model at all (nowhere to press). */
    kept_pod(x.f.c, "MODIFIED", UID1, "a10", 2, "",
             AFF("{'matchExpressions':[{'key':'nvidia.com/gpu.product',"
                 "'operator':'DoesNotExist'}]}"));
    GP_CHECK(pressure_of(&x));
    GP_CHECK_NEAR(x.p[1], 2.0 / 4 / (4.0 / 12), 1e-9);
    pfx_done(&x);
}

/* Separator bytes in a label, annotation or value cannot break the key: such a pod is not
 * learned (and nothing crashes when the pressure is read). Pending and finished pods take no
 * slot. */
GP_TEST(pressure_hostile_and_unbound_pods)
{
    pfx x;

    pfx_init(&x);
    model_node(x.f.c, "t4", "Tesla-T4", 4);
    model_node(x.f.c, "a10", "NVIDIA-A10G", 4);
    kept_pod(x.f.c, "ADDED", UID1, "t4", 1,
             "'annotations':{'gpupack.io/gpu-models':'x\\u001fPy'}", "");
    kept_pod(x.f.c, "ADDED", UID2, "t4", 1, "'labels':{'gpupack.io/class':'a\\u001eb'}", "");
    kept_pod(x.f.c, "ADDED", UID3, "t4", 1, "",
             "'nodeSelector':{'nvidia.com/gpu.product':'Tesla-T4\\u001e'}");
    GP_CHECK_INT(gp_cache_get_stats(x.f.c).constraints, 0);
    GP_CHECK(!pressure_of(&x));
    kept_pod(x.f.c, "ADDED", "44444444-4444-4444-8444-444444444444", NULL, 1, "", SEL_T4);
    GP_CHECK_INT(gp_cache_get_stats(x.f.c).constraints, 0);
    kept_pod(x.f.c, "MODIFIED", "44444444-4444-4444-8444-444444444444", "t4", 1, "", SEL_T4);
    GP_CHECK_INT(gp_cache_get_stats(x.f.c).constraints, 1);
    GP_CHECK(pressure_of(&x));
    gp_cache_pod_event(x.f.c, "MODIFIED", NULL); /* undecodable: counted as bad, nothing else */
    pod_ev(x.f.c, "MODIFIED", "44444444-4444-4444-8444-444444444444", "t4", "Succeeded", 1, 0,
           "1", "1Gi");
    GP_CHECK_INT(gp_cache_get_stats(x.f.c).constraints, 0);
    GP_CHECK(!pressure_of(&x));
    pfx_done(&x);
}

/* 31 models on present nodes at most (one id is for nodes without the label); the id of a
 * model whose nodes are gone is reused. */
GP_TEST(pressure_models_reused)
{
    fixture f;
    char name[32], product[32];

    fx_init(&f);
    for (int i = 0; i < 40; i++) {
        snprintf(name, sizeof(name), "n%d", i);
        snprintf(product, sizeof(product), "GPU-%d", i);
        model_node(f.c, name, product, 1);
        if (i >= 4) { /* the node of four models ago goes */
            char text[128];
            cJSON *j;

            snprintf(text, sizeof(text), "{'metadata':{'name':'n%d'}}", i - 4);
            j = parse_q(text);
            gp_cache_node_event(f.c, "DELETED", j);
            cJSON_Delete(j);
        }
    }
    GP_CHECK_INT(gp_cache_get_stats(f.c).models, 31);
    /* Every present node has its model: a pod kept to the newest one presses on it alone. */
    gp_policy *pol = gp_policy_holder_get(&f.holder);
    double p[40];
    const char *names[40];
    int n = 0;

    kept_pod(f.c, "ADDED", UID1, "n39", 1, "",
             "'nodeSelector':{'nvidia.com/gpu.product':'GPU-39'}");
    kept_pod(f.c, "ADDED", UID2, "n38", 1, "", "");
    GP_CHECK(pressure_with(f.c, pol, p, names, &n));
    int hits = 0;
    for (int i = 0; i < n; i++) {
        if (names[i] != NULL && strcmp(names[i], "GPU-39") == 0) {
            hits++;
            GP_CHECK_NEAR(p[i], 1.0 / 1 / (2.0 / 4), 1e-9);
        } else {
            GP_CHECK_NEAR(p[i], 0, 1e-9);
        }
    }
    GP_CHECK_INT(hits, 1);
    gp_policy_unref(pol);
    fx_done(&f);
}

/* The pressure is recomputed when the policy changes (a class gains gpuModels) and when pods
 * or nodes change, not otherwise. */
GP_TEST(pressure_follows_policy_and_cluster)
{
    fixture f;
    gp_policy *pol, *next = NULL;
    char *errs = NULL;
    const char *text = "{'apiVersion':'gpupack.io/v1alpha1','kind':'Policy','classes':{"
                       "'pinned':{'gpuModels':['Tesla-T4']}}}";
    char *q = strdup(text);
    double p[8];
    const char *names[8];
    int n = 0;

    for (char *ch = q; *ch; ch++)
        if (*ch == '\'')
            *ch = '"';
    fx_init(&f);
    model_node(f.c, "t4", "Tesla-T4", 4);
    model_node(f.c, "a10", "NVIDIA-A10G", 4);
    kept_pod(f.c, "ADDED", UID1, "t4", 2, "'labels':{'gpupack.io/class':'pinned'}", "");
    pol = gp_policy_holder_get(&f.holder);
    GP_CHECK(!pressure_with(f.c, pol, p, names, &n)); /* no class "pinned" in the default */
    GP_CHECK(!pressure_with(f.c, pol, p, names, &n)); /* the same, remembered */
    gp_policy_unref(pol);
    GP_CHECK_INT(gp_policy_parse(q, strlen(q), &next, &errs), GP_OK);
    gp_policy_holder_set(&f.holder, next);
    pol = gp_policy_holder_get(&f.holder);
    GP_CHECK(pressure_with(f.c, pol, p, names, &n));
    GP_CHECK_NEAR(p[0], 2.0 / 4 / (2.0 / 8), 1e-9);
    /* More T4 GPUs: the pressure on them drops. */
    model_node(f.c, "t4-2", "Tesla-T4", 4);
    GP_CHECK(pressure_with(f.c, pol, p, names, &n));
    GP_CHECK_NEAR(p[0], 2.0 / 8 / (2.0 / 12), 1e-9);
    /* An unconstrained pod binds: the load per GPU rises, the pressure falls. */
    kept_pod(f.c, "ADDED", UID2, "a10", 2, "", "");
    GP_CHECK(pressure_with(f.c, pol, p, names, &n));
    GP_CHECK_NEAR(p[0], 2.0 / 8 / (4.0 / 12), 1e-9);
    gp_policy_unref(pol);
    free(errs);
    free(q);
    fx_done(&f);
}

/* More distinct constraints than the table holds: the rest count as free to run anywhere, and
 * the table empties again when the pods go. */
GP_TEST(pressure_constraint_table_bounded)
{
    fixture f;
    char uid[64], meta[128];

    gp_policy *pol;
    double p[8];
    const char *names[8];
    int n = 0;

    fx_init(&f);
    pol = gp_policy_holder_get(&f.holder);
    model_node(f.c, "t4", "Tesla-T4", 8);
    model_node(f.c, "a10", "NVIDIA-A10G", 8);
    for (int i = 0; i < 300; i++) {
        snprintf(uid, sizeof(uid), "uid-%d", i);
        snprintf(meta, sizeof(meta), "'annotations':{'gpupack.io/gpu-models':'Tesla-T4,m%d'}", i);
        kept_pod(f.c, "ADDED", uid, "t4", 1, meta, "");
    }
    GP_CHECK_INT(gp_cache_get_stats(f.c).constraints, 255);
    /* 255 kept to T4 (each judged), 45 beyond the table free: 300 GPUs held on 16. */
    GP_CHECK(pressure_with(f.c, pol, p, names, &n));
    GP_CHECK_NEAR(p[0], 255.0 / 8 / (300.0 / 16), 1e-9);
    gp_policy_unref(pol);
    for (int i = 0; i < 300; i++) {
        snprintf(uid, sizeof(uid), "uid-%d", i);
        kept_pod(f.c, "DELETED", uid, "t4", 1, "", "");
    }
    GP_CHECK_INT(gp_cache_get_stats(f.c).constraints, 0);
    GP_CHECK_INT(gp_cache_get_stats(f.c).bound, 0);
    fx_done(&f);
}

/* ---- stats, keys, snapshots ---- */

GP_TEST(stats_counts_and_sync_flags)
{
    fixture f;
    gp_cache_stats s;
    cJSON *j;

    fx_init(&f);
    s = gp_cache_get_stats(f.c);
    GP_CHECK(!s.nodes_synced);
    GP_CHECK(!s.pods_synced);
    GP_CHECK_INT(s.nodes, 0);
    GP_CHECK_INT(s.pods, 0);
    GP_CHECK_INT(s.bad, 0);

    gp_cache_nodes_begin(f.c);
    node_ev(f.c, NULL, "gpu-1", 8);
    node_ev(f.c, NULL, "gpu-2", 8);
    s = gp_cache_get_stats(f.c);
    GP_CHECK(!s.nodes_synced);
    gp_cache_nodes_end(f.c);
    s = gp_cache_get_stats(f.c);
    GP_CHECK(s.nodes_synced);
    GP_CHECK(!s.pods_synced);
    GP_CHECK_INT(s.nodes, 2);

    gp_cache_pods_begin(f.c);
    gpu_pod(f.c, NULL, UID1, "gpu-1", 1);
    gpu_pod(f.c, NULL, UID2, NULL, 1);
    pod_ev(f.c, NULL, UID3, "gpu-2", "Succeeded", 1, 0, "1", "1Gi");
    gp_cache_pods_end(f.c);
    s = gp_cache_get_stats(f.c);
    GP_CHECK(s.pods_synced);
    GP_CHECK_INT(s.pods, 3);
    GP_CHECK_INT(s.bound, 1);
    GP_CHECK_INT(s.bad, 0);

    /* Undecodable objects: a node without a name, a pod without a uid, not objects at all, a
     * node whose allocatable does not parse. */
    j = parse_q("{'metadata':{}}");
    gp_cache_node_event(f.c, "ADDED", j);
    gp_cache_pod_event(f.c, "ADDED", j);
    cJSON_Delete(j);
    j = parse_q("[1,2]");
    gp_cache_node_event(f.c, "ADDED", j);
    gp_cache_pod_event(f.c, "ADDED", j);
    cJSON_Delete(j);
    j = parse_q("{'metadata':{'name':'x'},'status':{'allocatable':{'cpu':'lots'}}}");
    gp_cache_node_event(f.c, "ADDED", j);
    cJSON_Delete(j);
    s = gp_cache_get_stats(f.c);
    GP_CHECK_INT(s.bad, 5);
    GP_CHECK_INT(s.nodes, 2);
    GP_CHECK_INT(s.pods, 3);
    GP_CHECK(s.bytes > 0);
    fx_done(&f);
}

GP_TEST(non_uuid_uids)
{
    fixture f;
    gp_node n;

    fx_init(&f);
    node_ev(f.c, "ADDED", "gpu-1", 8);
    gpu_pod(f.c, "ADDED", "pod-a", "gpu-1", 1);
    gpu_pod(f.c, "ADDED", "pod-b", "gpu-1", 2);
    gpu_pod(f.c, "ADDED", "12345", "gpu-1", 3);
    gpu_pod(f.c, "ADDED", "pod-a", "gpu-1", 1);
    GP_CHECK(view(f.c, "gpu-1", 0, &n));
    GP_CHECK_INT(n.gpu_used, 6);
    GP_CHECK_INT(gp_cache_get_stats(f.c).pods, 3);
    gpu_pod(f.c, "DELETED", "pod-b", "gpu-1", 2);
    GP_CHECK(view(f.c, "gpu-1", 0, &n));
    GP_CHECK_INT(n.gpu_used, 4);
    GP_CHECK_INT(gp_cache_get_stats(f.c).pods, 2);
    fx_done(&f);
}

GP_TEST(uuids_differing_in_one_digit_are_distinct)
{
    fixture f;
    gp_node n;

    fx_init(&f);
    node_ev(f.c, "ADDED", "gpu-1", 8);
    gpu_pod(f.c, "ADDED", "abcdef01-2345-4678-9abc-def012345678", "gpu-1", 1);
    gpu_pod(f.c, "ADDED", "abcdef01-2345-4678-9abc-def012345679", "gpu-1", 2);
    GP_CHECK(view(f.c, "gpu-1", 0, &n));
    GP_CHECK_INT(n.gpu_used, 3);
    gpu_pod(f.c, "DELETED", "abcdef01-2345-4678-9abc-def012345678", "gpu-1", 1);
    GP_CHECK(view(f.c, "gpu-1", 0, &n));
    GP_CHECK_INT(n.gpu_used, 2);
    fx_done(&f);
}

GP_TEST(snapshot_loads_lists)
{
    fixture f;
    gp_node n;
    gp_err err = { "" };
    const char *nodes = "{\"kind\":\"List\",\"items\":[{\"metadata\":{\"name\":\"gpu-1\"},"
                        "\"status\":{\"allocatable\":{\"nvidia.com/gpu\":\"8\",\"cpu\":\"64\"}}}]}";
    const char *pods = "{\"items\":[{\"metadata\":{\"uid\":\"u1\",\"name\":\"a\"},"
                       "\"spec\":{\"nodeName\":\"gpu-1\",\"containers\":[{\"name\":\"c\","
                       "\"resources\":{\"limits\":{\"nvidia.com/gpu\":\"2\"}}}]}}]}";
    gp_cache_stats s;

    fx_init(&f);
    GP_CHECK_INT(gp_cache_load_snapshot(f.c, nodes, strlen(nodes), pods, strlen(pods), &err),
                 GP_OK);
    GP_CHECK(view(f.c, "gpu-1", 0, &n));
    GP_CHECK_INT(n.gpu_alloc, 8);
    GP_CHECK_INT(n.gpu_used, 2);
    s = gp_cache_get_stats(f.c);
    GP_CHECK(s.nodes_synced);
    GP_CHECK(s.pods_synced);
    GP_CHECK_INT(s.nodes, 1);
    GP_CHECK_INT(s.pods, 1);
    fx_done(&f);
}

/* Issue 15: pods without metadata.uid (hand-written snapshots, which README.md invites) used to
 * be dropped silently, so a node whose 8 GPUs two such pods hold looked empty. They are keyed by
 * namespace and name now. */
GP_TEST(snapshot_pods_without_uid_count)
{
    fixture f;
    gp_node n;
    gp_err err = { "" };
    const char *nodes = "{'items':[{'metadata':{'name':'gpu-1'},'status':{'allocatable':"
                        "{'nvidia.com/gpu':'8','cpu':'64'}}}]}";
    /* Two pods named alike in two namespaces, one in none: three pods. */
    const char *pods = "{'items':["
                       "{'metadata':{'name':'a','namespace':'ml'},'spec':{'nodeName':'gpu-1',"
                       "'containers':[{'resources':{'limits':{'nvidia.com/gpu':'4'}}}]}},"
                       "{'metadata':{'name':'a','namespace':'web'},'spec':{'nodeName':'gpu-1',"
                       "'containers':[{'resources':{'limits':{'nvidia.com/gpu':'3'}}}]}},"
                       "{'metadata':{'name':'a'},'spec':{'nodeName':'gpu-1',"
                       "'containers':[{'resources':{'limits':{'nvidia.com/gpu':'1'}}}]}}]}";
    cJSON *nj, *pj;
    char *ns, *ps;

    fx_init(&f);
    nj = parse_q(nodes);
    pj = parse_q(pods);
    ns = cJSON_PrintUnformatted(nj);
    ps = cJSON_PrintUnformatted(pj);
    GP_CHECK_INT(gp_cache_load_snapshot(f.c, ns, strlen(ns), ps, strlen(ps), &err), GP_OK);
    GP_CHECK(view(f.c, "gpu-1", 0, &n));
    GP_CHECK_INT(n.gpu_used, 8);
    GP_CHECK_INT(n.pods_used, 3);
    GP_CHECK_INT(gp_cache_get_stats(f.c).pods, 3);
    GP_CHECK_INT(gp_cache_get_stats(f.c).bad, 0);
    free(ns);
    free(ps);
    cJSON_Delete(nj);
    cJSON_Delete(pj);
    fx_done(&f);
}

/* Events without uid are keyed by namespace and name alike: a MODIFIED replaces, a DELETED
 * frees; a pod with a uid and one without, named alike, are two pods. */
GP_TEST(pod_events_without_uid_keyed_by_name)
{
    fixture f;
    gp_node n;
    cJSON *j;

    fx_init(&f);
    node_ev(f.c, "ADDED", "gpu-1", 8);
    j = parse_q("{'metadata':{'name':'p','namespace':'ml'},'spec':{'nodeName':'gpu-1',"
                "'containers':[{'resources':{'limits':{'nvidia.com/gpu':'2'}}}]}}");
    gp_cache_pod_event(f.c, "ADDED", j);
    gp_cache_pod_event(f.c, "MODIFIED", j);
    GP_CHECK(view(f.c, "gpu-1", 0, &n));
    GP_CHECK_INT(n.gpu_used, 2);
    pod_ev(f.c, "ADDED", UID1, "gpu-1", NULL, 1, 0, "1", "1Gi"); /* its name is p-<uid> */
    GP_CHECK(view(f.c, "gpu-1", 0, &n));
    GP_CHECK_INT(n.gpu_used, 3);
    gp_cache_pod_event(f.c, "DELETED", j);
    GP_CHECK(view(f.c, "gpu-1", 0, &n));
    GP_CHECK_INT(n.gpu_used, 1);
    GP_CHECK_INT(gp_cache_get_stats(f.c).pods, 1);
    cJSON_Delete(j);
    fx_done(&f);
}

/* A snapshot pod that cannot be keyed (neither uid nor name), or that repeats an earlier item's
 * key, is refused with a message naming it: never a view silently a pod short. */
GP_TEST(snapshot_refuses_unkeyed_and_repeated_pods)
{
    static const char *const bad[][2] = {
        { "{'items':[{'metadata':{'uid':'u1','name':'a'}},{'metadata':{'namespace':'ml'},"
          "'spec':{'nodeName':'gpu-1'}}]}",
          "pods snapshot: items[1] has neither metadata.uid nor metadata.name" },
        { "{'items':[{'metadata':{'name':'a','namespace':'ml'}},"
          "{'metadata':{'name':'a','namespace':'ml'}}]}",
          "pods snapshot: items[1] (ml/a) is a pod an earlier item already gave" },
        { "{'items':[{'metadata':{'uid':'" UID1 "','name':'a'}},"
          "{'metadata':{'uid':'" UID1 "','name':'b'}}]}",
          "pods snapshot: items[1] (/b) is a pod an earlier item already gave" },
    };
    const char *nodes = "{\"items\":[{\"metadata\":{\"name\":\"gpu-1\"}}]}";

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        fixture f;
        gp_err err = { "" };
        cJSON *pj = parse_q(bad[i][0]);
        char *ps = cJSON_PrintUnformatted(pj);

        fx_init(&f);
        GP_CHECK_INT(gp_cache_load_snapshot(f.c, nodes, strlen(nodes), ps, strlen(ps), &err),
                     GP_EINVAL);
        GP_CHECK(strncmp(err.msg, bad[i][1], strlen(bad[i][1])) == 0);
        if (strncmp(err.msg, bad[i][1], strlen(bad[i][1])) != 0)
            printf("  got: %s\n", err.msg);
        GP_CHECK(!gp_cache_synced(f.c)); /* nothing scores from half a view */
        free(ps);
        cJSON_Delete(pj);
        fx_done(&f);
    }
}

GP_TEST(snapshot_errors)
{
    fixture f;
    gp_err err;
    const char *ok = "{\"items\":[]}";

    fx_init(&f);
    memset(&err, 0, sizeof(err));
    GP_CHECK_INT(gp_cache_load_snapshot(f.c, "{nope", 5, ok, strlen(ok), &err), GP_EINVAL);
    GP_CHECK(strstr(err.msg, "nodes") != NULL);
    GP_CHECK(strstr(err.msg, "JSON") != NULL);

    memset(&err, 0, sizeof(err));
    GP_CHECK_INT(gp_cache_load_snapshot(f.c, ok, strlen(ok), "[1,", 3, &err), GP_EINVAL);
    GP_CHECK(strstr(err.msg, "pods") != NULL);
    GP_CHECK(strstr(err.msg, "JSON") != NULL);

    memset(&err, 0, sizeof(err));
    GP_CHECK_INT(gp_cache_load_snapshot(f.c, "{\"kind\":\"Node\"}", 15, NULL, 0, &err),
                 GP_EINVAL);
    GP_CHECK(strstr(err.msg, "nodes") != NULL);
    GP_CHECK(strstr(err.msg, "items") != NULL);

    memset(&err, 0, sizeof(err));
    GP_CHECK_INT(gp_cache_load_snapshot(f.c, NULL, 0, "{\"items\":{}}", 12, &err), GP_EINVAL);
    GP_CHECK(strstr(err.msg, "pods") != NULL);
    GP_CHECK(strstr(err.msg, "items") != NULL);
    GP_CHECK(strstr(err.msg, "kubectl get pods -A -o json") != NULL);
    fx_done(&f);
}

/* 10,000 pods on 100 nodes: the tables stay small (the header promises 40 bytes per record). */
GP_TEST(memory_per_pod_10k)
{
    fixture f;
    gp_cache_stats empty, s;
    char uid[64], node[32];

    fx_init(&f);
    gp_cache_nodes_begin(f.c);
    for (int i = 0; i < 100; i++) {
        snprintf(node, sizeof(node), "gpu-%d", i);
        node_ev(f.c, NULL, node, 8);
    }
    gp_cache_nodes_end(f.c);
    empty = gp_cache_get_stats(f.c);
    gp_cache_pods_begin(f.c);
    for (int i = 0; i < 10000; i++) {
        snprintf(uid, sizeof(uid), "%08x-0000-4000-8000-%012x", (unsigned)i, (unsigned)i * 7u);
        snprintf(node, sizeof(node), "gpu-%d", i % 100);
        pod_ev(f.c, NULL, uid, node, NULL, 0, 0, "100m", "128Mi");
    }
    gp_cache_pods_end(f.c);
    s = gp_cache_get_stats(f.c);
    GP_CHECK_INT(s.pods, 10000);
    GP_CHECK_INT(s.bound, 10000);
    printf("  bytes: %zu total, %zu before the pods; %.1f per pod total, %.1f per pod added\n",
           s.bytes, empty.bytes, (double)s.bytes / 10000, (double)(s.bytes - empty.bytes) / 10000);
    GP_CHECK((s.bytes - empty.bytes) / s.pods < 100);
    /* Regression: the assumption table used to be allocated at its maximum up front (458,752
     * bytes); it now grows on demand, so a 10,000-pod view stays under 100 bytes per pod. */
    GP_CHECK(s.bytes / s.pods < 100);
    fx_done(&f);
}

/* Many pods created and deleted with few alive at a time: tombstones are reclaimed, the table
 * does not grow without bound, and lookups never loop forever. */
GP_TEST(pod_churn_keeps_table_bounded)
{
    fixture f;
    gp_node n;
    gp_cache_stats s;
    char uid[64];

    fx_init(&f);
    node_ev(f.c, "ADDED", "gpu-1", 8);
    for (int i = 0; i < 50000; i++) {
        snprintf(uid, sizeof(uid), "churn-%d", i);
        gpu_pod(f.c, "ADDED", uid, "gpu-1", 1);
        if (i >= 4) {
            snprintf(uid, sizeof(uid), "churn-%d", i - 4);
            gpu_pod(f.c, "DELETED", uid, "gpu-1", 1);
        }
    }
    s = gp_cache_get_stats(f.c);
    GP_CHECK_INT(s.pods, 4);
    GP_CHECK_INT(s.bound, 4);
    GP_CHECK(s.bytes < 2u * 1024 * 1024);
    GP_CHECK(view(f.c, "gpu-1", 0, &n));
    GP_CHECK_INT(n.gpu_used, 4);
    GP_CHECK_INT(n.pods_used, 4);
    fx_done(&f);
}

GP_MAIN(GP_CASE(view_shows_allocatable_and_used), GP_CASE(pod_bound_later_counts_once),
        GP_CASE(same_event_twice_counts_once), GP_CASE(modified_request_replaces_usage),
        GP_CASE(pod_relist_drops_missing_pod), GP_CASE(node_relist_drops_missing_node),
        GP_CASE(deleted_pod_frees_usage), GP_CASE(deleted_mig_pod_frees_slices),
        GP_CASE(mig_pod_with_many_profiles_counts),
        GP_CASE(mig_pod_past_profile_limit_still_counts), GP_CASE(mig_churn_reuses_entries),
        GP_CASE(terminated_phase_frees), GP_CASE(pod_before_node_counts_when_node_arrives),
        GP_CASE(node_readded_keeps_pod_usage), GP_CASE(node_modified_updates_allocatable),
        GP_CASE(add_usage_adds_to_caller_node), GP_CASE(assume_adds_until_expiry),
        GP_CASE(assume_mig_usage), GP_CASE(assumption_dropped_when_bound),
        GP_CASE(assumption_dropped_when_bound_elsewhere), GP_CASE(assumption_dropped_when_deleted),
        GP_CASE(assumption_kept_while_pending_update),
        GP_CASE(assume_bound_pod_or_unknown_node_is_ignored), GP_CASE(reassume_replaces_previous),
        GP_CASE(own_assumption_left_out_of_the_view),
        GP_CASE(typical_averages_bound_gpu_pods), GP_CASE(typical_falls_back_to_policy),
        GP_CASE(mix_learned_from_bound_gpu_pods), GP_CASE(mix_counts_cpu_pods_next_to_gpus), GP_CASE(mix_popularity_cut_and_full_table),
        GP_CASE(pressure_learned_from_bound_pods), GP_CASE(pressure_constraint_edges),
        GP_CASE(pressure_constraint_table_bounded), GP_CASE(pressure_affinity_expressions_and),
        GP_CASE(pressure_hostile_and_unbound_pods), GP_CASE(pressure_models_reused),
        GP_CASE(pressure_follows_policy_and_cluster),
        GP_CASE(stats_counts_and_sync_flags), GP_CASE(non_uuid_uids),
        GP_CASE(uuids_differing_in_one_digit_are_distinct), GP_CASE(snapshot_loads_lists),
        GP_CASE(snapshot_pods_without_uid_count), GP_CASE(pod_events_without_uid_keyed_by_name),
        GP_CASE(snapshot_refuses_unkeyed_and_repeated_pods), GP_CASE(snapshot_errors),
        GP_CASE(memory_per_pod_10k), GP_CASE(pod_churn_keeps_table_bounded))
