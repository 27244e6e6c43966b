/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of lib/nodeview.c: decoding Nodes (labels, spot, cordon, allocatable, MIG limits),
 * a pod's effective request with Kubernetes semantics, and the used counters.
 *
 * JSON is written with single quotes for readability; parse_q() turns them into double quotes.
 * The harness runs LeakSanitizer after every test. */
#include "gptest.h"

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "gpupack/arena.h"
#include "gpupack/nodeview.h"
#include "gpupack/podview.h"
#include "gpupack/policy.h"

#define GIB (INT64_C(1) << 30)

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

static gp_policy *default_policy(void)
{
    gp_policy *p = NULL;
    char *errs = NULL;

    if (gp_policy_default(&p, &errs) != GP_OK) {
        printf("  default policy: %s\n", errs ? errs : "?");
        gp_test_failed = 1;
    }
    free(errs);
    return p;
}

/* Decodes a node; returns the status and leaves the message in *err. */
static gp_status node_q(const char *text, const gp_policy *pol, gp_node *n, gp_err *err)
{
    cJSON *j = parse_q(text);
    gp_status st = gp_node_from_json(j, pol, n, err);

    cJSON_Delete(j);
    return st;
}

/* The usage of a pod whose spec is given. */
static gp_status usage_q(const char *spec, gp_usage *u, gp_err *err)
{
    char text[4096];
    gp_arena a;
    gp_pod pod;
    cJSON *j;
    gp_status st;

    snprintf(text, sizeof(text), "{'metadata':{'name':'p','namespace':'d'},'spec':%s}", spec);
    j = parse_q(text);
    gp_arena_init(&a, 0);
    st = gp_pod_from_json(j, NULL, &a, &pod, err);
    if (st == GP_OK)
        st = gp_usage_from_pod(&pod, u, err);
    gp_arena_free(&a);
    cJSON_Delete(j);
    return st;
}

static const char *full_node =
    "{'metadata':{'name':'gpu-a','labels':{'node.kubernetes.io/instance-type':'p4d.24xlarge',"
    "'nvidia.com/gpu.product':'NVIDIA-A100-SXM4-40GB','karpenter.sh/capacity-type':'spot'}},"
    "'spec':{'unschedulable':true,'taints':[{'key':'nvidia.com/gpu','effect':'NoSchedule'}]},"
    "'status':{'allocatable':{'cpu':'95690m','memory':'1056Gi','pods':'110',"
    "'nvidia.com/gpu':'8','nvidia.com/mig-1g.5gb':'7','nvidia.com/mig-2g.10gb':'0',"
    "'ephemeral-storage':'not even a quantity','hugepages-2Mi':'0'}}}";

GP_TEST(node_decodes_everything)
{
    gp_policy *pol = default_policy();
    gp_err err = {{0}};
    gp_node n;

    GP_CHECK_INT(node_q(full_node, pol, &n, &err), GP_OK);
    GP_CHECK_STR(n.name, "gpu-a");
    GP_CHECK_STR(n.instance_type, "p4d.24xlarge");
    GP_CHECK_STR(n.gpu_product, "NVIDIA-A100-SXM4-40GB");
    GP_CHECK(n.spot);
    GP_CHECK(n.unschedulable);
    GP_CHECK_INT(n.gpu_alloc, 8);
    GP_CHECK_INT(n.cpu_alloc_m, 95690);
    GP_CHECK_INT(n.mem_alloc, 1056 * GIB);
    GP_CHECK_INT(n.pods_alloc, 110);
    GP_CHECK_INT(n.nmig, 1); /* the profile advertised as 0 carries no capacity */
    GP_CHECK_STR(n.mig[0].profile, "1g.5gb");
    GP_CHECK_INT(n.mig[0].alloc, 7);
    GP_CHECK_INT(n.gpu_used + n.cpu_used_m + n.mem_used + n.pods_used + n.gpu_pods, 0);
    GP_CHECK_INT(n.mig[0].used, 0);
    GP_CHECK(gp_node_is_gpu(&n));
    gp_node_clear(&n);
    GP_CHECK(n.instance_type == NULL && n.gpu_product == NULL);
    gp_node_clear(&n); /* twice is harmless */
    gp_node_clear(NULL);
    gp_policy_unref(pol);
}

GP_TEST(node_minimal_cpu_only)
{
    gp_node n;

    GP_CHECK_INT(node_q("{'metadata':{'name':'cpu-1'},'status':{'allocatable':{'cpu':'4',"
                        "'memory':'16397948Ki'}}}",
                        NULL, &n, NULL),
                 GP_OK);
    GP_CHECK(n.instance_type == NULL && n.gpu_product == NULL);
    GP_CHECK(!n.spot && !n.unschedulable);
    GP_CHECK_INT(n.cpu_alloc_m, 4000);
    GP_CHECK_INT(n.mem_alloc, INT64_C(16397948) * 1024);
    GP_CHECK_INT(n.gpu_alloc, 0);
    GP_CHECK_INT(n.nmig, 0);
    GP_CHECK(!gp_node_is_gpu(&n));
    gp_node_clear(&n);
}

/* Each of the policy's spot labels marks a spot node; only the exact value counts. */
GP_TEST(node_spot_labels)
{
    static const char *spot[] = {"'karpenter.sh/capacity-type':'spot'",
                                 "'cloud.google.com/gke-spot':'true'",
                                 "'eks.amazonaws.com/capacityType':'SPOT'",
                                 "'kubernetes.azure.com/scalesetpriority':'spot'"};
    static const char *not_spot[] = {"'karpenter.sh/capacity-type':'on-demand'",
                                     "'cloud.google.com/gke-spot':'false'",
                                     "'eks.amazonaws.com/capacityType':'ON_DEMAND'",
                                     "'kubernetes.azure.com/scalesetpriority':'regular'", ""};
    gp_policy *pol = default_policy();
    char text[256];
    gp_node n;

    for (size_t i = 0; i < 4; i++) {
        snprintf(text, sizeof(text), "{'metadata':{'name':'n','labels':{%s}}}", spot[i]);
        GP_CHECK_INT(node_q(text, pol, &n, NULL), GP_OK);
        GP_CHECK(n.spot);
        gp_node_clear(&n);
    }
    for (size_t i = 0; i < 5; i++) {
        snprintf(text, sizeof(text), "{'metadata':{'name':'n','labels':{%s}}}", not_spot[i]);
        GP_CHECK_INT(node_q(text, pol, &n, NULL), GP_OK);
        GP_CHECK(!n.spot);
        gp_node_clear(&n);
    }
    /* Without a policy no label marks spot. */
    GP_CHECK_INT(node_q("{'metadata':{'name':'n','labels':{'karpenter.sh/capacity-type':'spot'}}}",
                        NULL, &n, NULL),
                 GP_OK);
    GP_CHECK(!n.spot);
    gp_node_clear(&n);
    gp_policy_unref(pol);
}

/* Up to GP_NODE_MAX_MIG profiles are kept, in document order; the rest are ignored. */
GP_TEST(node_mig_limits)
{
    char text[2048], *o = text;
    gp_node n;

    o += snprintf(o, sizeof(text), "{'metadata':{'name':'m'},'status':{'allocatable':{");
    for (int i = 0; i < GP_NODE_MAX_MIG + 3; i++)
        o += snprintf(o, sizeof(text) - (size_t)(o - text), "%s'nvidia.com/mig-%dg.%dgb':'%d'",
                      i ? "," : "", i + 1, 10 * (i + 1), i + 1);
    snprintf(o, sizeof(text) - (size_t)(o - text),
             ",'nvidia.com/mig-abcdefghijklmnopqrstuvwxyz':'1','nvidia.com/mig-':'1'}}}");
    GP_CHECK_INT(node_q(text, NULL, &n, NULL), GP_OK);
    GP_CHECK_INT(n.nmig, GP_NODE_MAX_MIG);
    GP_CHECK_STR(n.mig[0].profile, "1g.10gb");
    GP_CHECK_INT(n.mig[0].alloc, 1);
    GP_CHECK_STR(n.mig[7].profile, "8g.80gb");
    GP_CHECK_INT(n.mig[7].alloc, 8);
    GP_CHECK(gp_node_mig(&n, "9g.90gb") == NULL);
    GP_CHECK(gp_node_mig(&n, "3g.30gb") == &n.mig[2]);
    GP_CHECK(gp_node_is_gpu(&n)); /* MIG capacity alone makes a GPU node */
    gp_node_clear(&n);

    /* A name too long for gp_mig_count is ignored rather than cut short. */
    GP_CHECK_INT(node_q("{'metadata':{'name':'m'},'status':{'allocatable':{"
                        "'nvidia.com/mig-abcdefghijklmnopqrstuvwxyz':'1'}}}",
                        NULL, &n, NULL),
                 GP_OK);
    GP_CHECK_INT(n.nmig, 0);
    GP_CHECK(!gp_node_is_gpu(&n));
    gp_node_clear(&n);
}

GP_TEST(node_errors)
{
    gp_err err = {{0}};
    char text[512], name[300];
    gp_node n;

    GP_CHECK_INT(gp_node_from_json(NULL, NULL, &n, &err), GP_EINVAL);
    GP_CHECK_STR(err.msg, "node: must be a Node object");
    GP_CHECK_INT(node_q("[]", NULL, &n, &err), GP_EINVAL);
    GP_CHECK_INT(node_q("{'metadata':{}}", NULL, &n, &err), GP_EINVAL);
    GP_CHECK_STR(err.msg, "metadata.name: a Node must have a name");
    GP_CHECK_INT(node_q("{'metadata':{'name':'n','labels':{'nvidia.com/gpu.product':'X'}},"
                        "'status':{'allocatable':{'cpu':'4 cores'}}}",
                        NULL, &n, &err),
                 GP_EINVAL);
    GP_CHECK(strncmp(err.msg, "status.allocatable.cpu: ", 24) == 0);
    GP_CHECK(n.gpu_product == NULL); /* freed on failure */
    GP_CHECK_INT(node_q("{'metadata':{'name':'n'},'status':{'allocatable':{'nvidia.com/gpu':8}}}",
                        NULL, &n, &err),
                 GP_EINVAL);
    GP_CHECK_STR(err.msg, "status.allocatable.nvidia.com/gpu: must be a quantity string");
    memset(name, 'a', GP_NODE_NAME_MAX + 1);
    name[GP_NODE_NAME_MAX + 1] = '\0';
    snprintf(text, sizeof(text), "{'metadata':{'name':'%s'}}", name);
    GP_CHECK_INT(node_q(text, NULL, &n, &err), GP_EINVAL);
    GP_CHECK_STR(err.msg, "metadata.name: longer than 253 bytes");
    name[GP_NODE_NAME_MAX] = '\0';
    snprintf(text, sizeof(text), "{'metadata':{'name':'%s'}}", name);
    GP_CHECK_INT(node_q(text, NULL, &n, &err), GP_OK);
    GP_CHECK_INT(strlen(n.name), GP_NODE_NAME_MAX);
    gp_node_clear(&n);
}

/* Negative and enormous allocatable values clamp instead of wrapping. */
GP_TEST(node_allocatable_clamps)
{
    gp_node n;

    GP_CHECK_INT(node_q("{'metadata':{'name':'n'},'status':{'allocatable':{'nvidia.com/gpu':'-1',"
                        "'pods':'1e12','cpu':'-5'}}}",
                        NULL, &n, NULL),
                 GP_OK);
    GP_CHECK_INT(n.gpu_alloc, 0);
    GP_CHECK_INT(n.pods_alloc, INT32_MAX);
    GP_CHECK_INT(n.cpu_alloc_m, 0);
    gp_node_clear(&n);
}

/* ------------------------------------------------------------------------------------------- */

GP_TEST(usage_sums_app_containers)
{
    gp_usage u;

    GP_CHECK_INT(usage_q("{'containers':[{'resources':{'requests':{'cpu':'500m','memory':'1Gi',"
                         "'nvidia.com/gpu':'1'}}},{'resources':{'requests':{'cpu':'1.5',"
                         "'memory':'512Mi','nvidia.com/gpu':'2'}}}]}",
                         &u, NULL),
                 GP_OK);
    GP_CHECK_INT(u.cpu_m, 2000);
    GP_CHECK_INT(u.mem, GIB + GIB / 2);
    GP_CHECK_INT(u.gpu, 3);
    GP_CHECK_INT(u.nmig, 0);
    GP_CHECK(gp_usage_is_gpu(&u));
}

/* A resource with only a limit uses the limit (kube-apiserver defaults the request to it); a
 * request always wins over a limit. */
GP_TEST(usage_limits_default_requests)
{
    gp_usage u;

    GP_CHECK_INT(usage_q("{'containers':[{'resources':{'limits':{'nvidia.com/gpu':'1',"
                         "'cpu':'2','memory':'4Gi'},'requests':{'cpu':'1'}}}]}",
                         &u, NULL),
                 GP_OK);
    GP_CHECK_INT(u.gpu, 1);
    GP_CHECK_INT(u.cpu_m, 1000);
    GP_CHECK_INT(u.mem, 4 * GIB);
}

/* The larger of the app containers' sum and the largest init container, per resource. */
GP_TEST(usage_init_containers_take_max)
{
    gp_usage u;

    GP_CHECK_INT(usage_q("{'initContainers':[{'resources':{'requests':{'cpu':'3','memory':'1Gi'}}},"
                         "{'resources':{'requests':{'cpu':'1','memory':'8Gi',"
                         "'nvidia.com/gpu':'4'}}}],"
                         "'containers':[{'resources':{'requests':{'cpu':'1','memory':'2Gi',"
                         "'nvidia.com/gpu':'1'}}},{'resources':{'requests':{'cpu':'1'}}}]}",
                         &u, NULL),
                 GP_OK);
    GP_CHECK_INT(u.cpu_m, 3000); /* init 3 > app 2 */
    GP_CHECK_INT(u.mem, 8 * GIB);
    GP_CHECK_INT(u.gpu, 4); /* an init container holding 4 GPUs needs them free */
}

/* Sidecars (init containers with restartPolicy Always) run beside the app containers for the
 * pod's life: kube-scheduler adds their requests, GPUs and MIG slices included. The brief's
 * case: a 1-GPU sidecar and a 1-GPU app container hold 2 GPUs. */
GP_TEST(usage_sidecars_add_up)
{
    gp_usage u;

    GP_CHECK_INT(usage_q("{'initContainers':[{'restartPolicy':'Always','resources':{'limits':{"
                         "'nvidia.com/gpu':'1','nvidia.com/mig-1g.10gb':'1'},'requests':{"
                         "'cpu':'1','memory':'1Gi'}}}],"
                         "'containers':[{'resources':{'limits':{'nvidia.com/gpu':'1',"
                         "'nvidia.com/mig-1g.10gb':'2'},'requests':{'cpu':'2','memory':'2Gi'}}}]}",
                         &u, NULL),
                 GP_OK);
    GP_CHECK_INT(u.gpu, 2);
    GP_CHECK_INT(u.cpu_m, 3000);
    GP_CHECK_INT(u.mem, 3 * GIB);
    GP_CHECK_INT(u.nmig, 1);
    GP_CHECK_INT(u.mig[0], 3);
    /* Without restartPolicy Always the same init container only needs its GPU before the app
     * starts: the larger of 1 and 1. */
    GP_CHECK_INT(usage_q("{'initContainers':[{'resources':{'limits':{'nvidia.com/gpu':'1'}}}],"
                         "'containers':[{'resources':{'limits':{'nvidia.com/gpu':'1'}}}]}",
                         &u, NULL),
                 GP_OK);
    GP_CHECK_INT(u.gpu, 1);
}

/* A regular init container runs beside the sidecars declared before it, not after it:
 * max(app + sidecars, max over init i of (init_i + sidecars before i)). */
GP_TEST(usage_init_container_beside_earlier_sidecars)
{
    gp_usage u;

    /* sidecar 1 GPU, then init 4 GPUs: 1 + 4 = 5 > app 1 + sidecar 1. */
    GP_CHECK_INT(usage_q("{'initContainers':[{'restartPolicy':'Always','resources':{'limits':{"
                         "'nvidia.com/gpu':'1'}}},{'resources':{'limits':{'nvidia.com/gpu':'4'}}}],"
                         "'containers':[{'resources':{'limits':{'nvidia.com/gpu':'1'}}}]}",
                         &u, NULL),
                 GP_OK);
    GP_CHECK_INT(u.gpu, 5);
    /* init 4 GPUs first, then the sidecar: max(4, 1 + 1) = 4. */
    GP_CHECK_INT(usage_q("{'initContainers':[{'resources':{'limits':{'nvidia.com/gpu':'4'}}},"
                         "{'restartPolicy':'Always','resources':{'limits':{"
                         "'nvidia.com/gpu':'1'}}}],"
                         "'containers':[{'resources':{'limits':{'nvidia.com/gpu':'1'}}}]}",
                         &u, NULL),
                 GP_OK);
    GP_CHECK_INT(u.gpu, 4);
    /* CPU alike: sidecars 1 + 2, init 3 after the first: max(0.5 + 3, 3 + 1) = 4. */
    GP_CHECK_INT(usage_q("{'initContainers':[{'restartPolicy':'Always','resources':{'requests':{"
                         "'cpu':'1'}}},{'resources':{'requests':{'cpu':'3'}}},"
                         "{'restartPolicy':'Always','resources':{'requests':{'cpu':'2'}}}],"
                         "'containers':[{'resources':{'requests':{'cpu':'500m'}}}]}",
                         &u, NULL),
                 GP_OK);
    GP_CHECK_INT(u.cpu_m, 4000);
}

/* Sums are exact and rounded up once: three 1/3 CPUs are 1001m, not 999m or 1002m. */
GP_TEST(usage_rounds_up)
{
    gp_usage u;

    GP_CHECK_INT(usage_q("{'containers':[{'resources':{'requests':{'cpu':'333333333n',"
                         "'memory':'1500m'}}},{'resources':{'requests':{'cpu':'333333333n'}}},"
                         "{'resources':{'requests':{'cpu':'333333335n','memory':'0.6'}}}]}",
                         &u, NULL),
                 GP_OK);
    GP_CHECK_INT(u.cpu_m, 1001);
    GP_CHECK_INT(u.mem, 3); /* 1.5 + 0.6 = 2.1 bytes */
    GP_CHECK(!gp_usage_is_gpu(&u));
    GP_CHECK_INT(usage_q("{'containers':[{'resources':{'requests':{'nvidia.com/gpu':'500m'}}}]}",
                         &u, NULL),
                 GP_OK);
    GP_CHECK_INT(u.gpu, 1);
}

GP_TEST(usage_mig_profiles)
{
    gp_usage u;

    GP_CHECK_INT(usage_q("{'initContainers':[{'resources':{'limits':{'nvidia.com/mig-1g.10gb':"
                         "'3'}}}],'containers':[{'resources':{'limits':{'nvidia.com/mig-2g.20gb':"
                         "'1','nvidia.com/mig-1g.10gb':'1'}}},{'resources':{'requests':{"
                         "'nvidia.com/mig-2g.20gb':'1','nvidia.com/mig-3g.40gb':'0'}}}]}",
                         &u, NULL),
                 GP_OK);
    GP_CHECK_INT(u.nmig, 2);
    GP_CHECK_INT(u.gpu, 0);
    for (int i = 0; i < u.nmig; i++) {
        if (strcmp(u.mig_profile[i], "1g.10gb") == 0)
            GP_CHECK_INT(u.mig[i], 3);
        else
            GP_CHECK(strcmp(u.mig_profile[i], "2g.20gb") == 0 && u.mig[i] == 2);
    }
    GP_CHECK(gp_usage_is_gpu(&u));
}

/* A pod may use more than two profiles: up to GP_USAGE_MAX_MIG (as many as a node view keeps)
 * are all counted. Past that the call says GP_ETOOBIG but still fills in the rest, so that a
 * bound pod keeps its GPUs counted. */
GP_TEST(usage_many_mig_profiles)
{
    static const char *const prof[] = { "1g.5gb", "1g.10gb", "2g.10gb", "2g.20gb", "3g.20gb",
                                         "3g.40gb", "4g.20gb", "7g.40gb", "7g.80gb" };
    char spec[2048];
    size_t len;
    gp_usage u;
    gp_err err = {{0}};

    GP_CHECK_INT(usage_q("{'containers':[{'resources':{'requests':{'nvidia.com/mig-1g.10gb':'1',"
                         "'nvidia.com/mig-2g.20gb':'2','nvidia.com/mig-3g.40gb':'1'}}}]}",
                         &u, &err),
                 GP_OK);
    GP_CHECK_INT(u.nmig, 3);
    GP_CHECK_STR(u.mig_profile[2], "3g.40gb");
    GP_CHECK_INT(u.mig[1], 2);
    len = (size_t)snprintf(spec, sizeof(spec), "{'containers':[{'resources':{'requests':{"
                                               "'nvidia.com/gpu':'2'");
    for (int i = 0; i < 9; i++)
        len += (size_t)snprintf(spec + len, sizeof(spec) - len, ",'nvidia.com/mig-%s':'1'",
                                prof[i]);
    snprintf(spec + len, sizeof(spec) - len, "}}}]}");
    GP_CHECK_INT(usage_q(spec, &u, &err), GP_ETOOBIG);
    GP_CHECK_STR(err.msg, "pod asks for more than 8 distinct MIG profiles (nvidia.com/mig-*)");
    GP_CHECK_INT(u.gpu, 2);
    GP_CHECK_INT(u.nmig, GP_USAGE_MAX_MIG);
    GP_CHECK_STR(u.mig_profile[7], "7g.40gb");
    GP_CHECK_INT(u.mig[7], 1);
}

GP_TEST(usage_empty_and_other_resources)
{
    gp_usage u;

    GP_CHECK_INT(usage_q("{'containers':[{'name':'a'},{'resources':{'requests':{"
                         "'ephemeral-storage':'1Gi','nvidia.com/gpu.shared':'1'}}}]}",
                         &u, NULL),
                 GP_OK);
    GP_CHECK_INT(u.cpu_m + u.mem + u.gpu + u.nmig, 0);
    GP_CHECK(!gp_usage_is_gpu(&u));
}

/* ------------------------------------------------------------------------------------------- */

static gp_node gpu_node(int32_t gpus)
{
    gp_node n;

    memset(&n, 0, sizeof(n));
    snprintf(n.name, sizeof(n.name), "n");
    n.gpu_alloc = gpus;
    n.cpu_alloc_m = 96000;
    n.mem_alloc = 1024 * GIB;
    n.pods_alloc = 110;
    n.nmig = 1;
    snprintf(n.mig[0].profile, GP_MIG_NAME_MAX, "1g.10gb");
    n.mig[0].alloc = 7;
    return n;
}

GP_TEST(apply_usage_adds_and_removes)
{
    gp_node n = gpu_node(8);
    gp_usage u = {.gpu = 2, .cpu_m = 8000, .mem = 64 * GIB, .nmig = 1, .mig = {1}};

    snprintf(u.mig_profile[0], GP_MIG_NAME_MAX, "1g.10gb");
    gp_node_apply_usage(&n, &u, +1);
    gp_node_apply_usage(&n, &u, +1);
    GP_CHECK_INT(n.gpu_used, 4);
    GP_CHECK_INT(n.cpu_used_m, 16000);
    GP_CHECK_INT(n.mem_used, 128 * GIB);
    GP_CHECK_INT(n.pods_used, 2);
    GP_CHECK_INT(n.gpu_pods, 2);
    GP_CHECK_INT(n.mig[0].used, 2);
    gp_node_apply_usage(&n, &u, -1);
    gp_node_apply_usage(&n, &u, -1);
    GP_CHECK_INT(n.gpu_used + n.cpu_used_m + n.mem_used + n.pods_used + n.gpu_pods, 0);
    GP_CHECK_INT(n.mig[0].used, 0);
}

/* Removing more than was added never goes below zero. */
GP_TEST(apply_usage_clamps_at_zero)
{
    gp_node n = gpu_node(8);
    gp_usage u = {.gpu = 3, .cpu_m = 1000, .mem = GIB, .nmig = 1, .mig = {2}};

    snprintf(u.mig_profile[0], GP_MIG_NAME_MAX, "1g.10gb");
    gp_node_apply_usage(&n, &u, -1);
    GP_CHECK_INT(n.gpu_used, 0);
    GP_CHECK_INT(n.cpu_used_m, 0);
    GP_CHECK_INT(n.mem_used, 0);
    GP_CHECK_INT(n.pods_used, 0);
    GP_CHECK_INT(n.gpu_pods, 0);
    GP_CHECK_INT(n.mig[0].used, 0);
}

/* A CPU pod counts as a pod but not as GPU work. */
GP_TEST(apply_usage_cpu_pod)
{
    gp_node n = gpu_node(8);
    gp_usage u = {.cpu_m = 500, .mem = GIB};

    gp_node_apply_usage(&n, &u, +1);
    GP_CHECK_INT(n.pods_used, 1);
    GP_CHECK_INT(n.gpu_pods, 0);
    GP_CHECK_INT(n.cpu_used_m, 500);
}

/* A profile the node does not advertise gets an entry with alloc 0, so that removal balances
 * and the node still does not count as offering it. */
GP_TEST(apply_usage_unknown_mig_profile)
{
    gp_node n = gpu_node(0);
    gp_usage u = {.nmig = 1, .mig = {1}};
    const gp_mig_count *m;

    snprintf(u.mig_profile[0], GP_MIG_NAME_MAX, "3g.40gb");
    gp_node_apply_usage(&n, &u, -1); /* removing what was never added creates nothing */
    GP_CHECK_INT(n.nmig, 1);
    gp_node_apply_usage(&n, &u, +1);
    GP_CHECK_INT(n.nmig, 2);
    m = gp_node_mig(&n, "3g.40gb");
    GP_CHECK(m != NULL && m->alloc == 0 && m->used == 1);
    gp_node_apply_usage(&n, &u, -1);
    GP_CHECK(m != NULL && m->used == 0);
    GP_CHECK_INT(n.nmig, 2);
    n.mig[0].alloc = 0;
    GP_CHECK(!gp_node_is_gpu(&n)); /* entries with alloc 0 are not capacity */
}

/* While room lasts: a full table leaves the usage of a new profile uncounted. */
GP_TEST(apply_usage_mig_table_full)
{
    gp_node n = gpu_node(0);
    gp_usage u = {.gpu = 1, .nmig = 1, .mig = {1}};

    for (int i = 1; i < GP_NODE_MAX_MIG; i++) {
        snprintf(n.mig[i].profile, GP_MIG_NAME_MAX, "p%d", i);
        n.mig[i].alloc = 1;
    }
    n.nmig = GP_NODE_MAX_MIG;
    snprintf(u.mig_profile[0], GP_MIG_NAME_MAX, "7g.80gb");
    gp_node_apply_usage(&n, &u, +1);
    GP_CHECK_INT(n.nmig, GP_NODE_MAX_MIG);
    GP_CHECK(gp_node_mig(&n, "7g.80gb") == NULL);
    GP_CHECK_INT(n.gpu_used, 1); /* the rest is still counted */
    GP_CHECK_INT(n.gpu_pods, 1);
}

/* One allocatable entry read as MIG capacity: what the webhook's cluster view and the
 * extender's node view both use. */
GP_TEST(mig_capacity_entry)
{
    cJSON *a = parse_q("{'nvidia.com/mig-2g.20gb':'3','nvidia.com/mig-1g.5gb':'500m',"
                       "'nvidia.com/mig-3g.40gb':'0','nvidia.com/mig-':'1','nvidia.com/gpu':'8',"
                       "'nvidia.com/mig-4g.40gb':'lots','nvidia.com/mig-7g.80gb':'9999999999'}");
    const char *want[] = {"2g.20gb", "1g.5gb", "3g.40gb", NULL, NULL, "4g.40gb", "7g.80gb"};
    const int32_t counts[] = {3, 1, 0, 0, 0, 0, INT32_MAX};
    const gp_status st[] = {GP_OK, GP_OK, GP_OK, GP_ENOTFOUND, GP_ENOTFOUND, GP_EINVAL, GP_OK};
    const cJSON *e = a ? a->child : NULL;
    gp_err err = {{0}};

    for (int i = 0; i < 7 && e != NULL; i++, e = e->next) {
        const char *profile;
        int32_t count = -1;

        GP_CHECK_INT(gp_node_mig_capacity(e, &profile, &count, &err), st[i]);
        GP_CHECK_INT(count, counts[i]);
        if (want[i] != NULL)
            GP_CHECK_STR(profile, want[i]);
        else
            GP_CHECK(profile == NULL);
    }
    GP_CHECK(strstr(err.msg, "status.allocatable.nvidia.com/mig-4g.40gb") != NULL);
    cJSON_Delete(a);
}

GP_MAIN(GP_CASE(mig_capacity_entry), GP_CASE(node_decodes_everything),
        GP_CASE(node_minimal_cpu_only), GP_CASE(node_spot_labels), GP_CASE(node_mig_limits), GP_CASE(node_errors),
        GP_CASE(node_allocatable_clamps), GP_CASE(usage_sums_app_containers),
        GP_CASE(usage_limits_default_requests), GP_CASE(usage_init_containers_take_max),
        GP_CASE(usage_sidecars_add_up), GP_CASE(usage_init_container_beside_earlier_sidecars),
        GP_CASE(usage_rounds_up), GP_CASE(usage_mig_profiles), GP_CASE(usage_many_mig_profiles),
        GP_CASE(usage_empty_and_other_resources), GP_CASE(apply_usage_adds_and_removes),
        GP_CASE(apply_usage_clamps_at_zero), GP_CASE(apply_usage_cpu_pod),
        GP_CASE(apply_usage_unknown_mig_profile), GP_CASE(apply_usage_mig_table_full))
