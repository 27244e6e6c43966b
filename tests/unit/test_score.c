/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of lib/score.c: the demand, the filter verdicts and their reasons, every
 * prioritize component (price, marginal cost, cost, fit, stranding), the 0..10 mapping, and the
 * scenarios a scheduler engineer checks first (docs/scoring.md).
 *
 * Nodes are built as structs; pods are written as JSON with single quotes. Prices come from the
 * shipped default policy (manifests/base/policy.json) unless a test parses its own. */
#include "gptest.h"

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "gpupack/arena.h"
#include "gpupack/nodeview.h"
#include "gpupack/podview.h"
#include "gpupack/policy.h"
#include "gpupack/score.h"

#define GIB (INT64_C(1) << 30)
/* Scores and their parts are compared to 1e-9. */
#define CHECK_NEAR(a, b) GP_CHECK_NEAR(a, b, 1e-9)

static char *quoted(const char *text)
{
    char *s = strdup(text);

    for (char *c = s; *c; c++)
        if (*c == '\'')
            *c = '"';
    return s;
}

static gp_policy *policy_q(const char *text)
{
    char *s = quoted(text), *errs = NULL;
    gp_policy *p = NULL;

    if (gp_policy_parse(s, strlen(s), &p, &errs) != GP_OK) {
        printf("  policy: %s\n", errs ? errs : "?");
        gp_test_failed = 1;
    }
    free(errs);
    free(s);
    return p;
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

/* A pod and its demand; the JSON tree and the arena stay alive until fx_done(). */
typedef struct {
    cJSON *json;
    gp_arena a;
    gp_pod pod;
    gp_demand d;
    gp_err err;
    gp_status st;
} fx;

/* meta is the inside of metadata after name and namespace (may be ""); spec the whole spec.
 * The status is left in f->st for the tests of bad pods; fx_pod() wants GP_OK. */
static void fx_pod_any(fx *f, const gp_policy *pol, const char *meta, const char *spec)
{
    char text[4096], *s;

    memset(f, 0, sizeof(*f));
    snprintf(text, sizeof(text), "{'metadata':{'name':'p','namespace':'d'%s%s},'spec':%s}",
             meta[0] ? "," : "", meta, spec);
    s = quoted(text);
    f->json = cJSON_Parse(s);
    free(s);
    gp_arena_init(&f->a, 0);
    f->st = gp_pod_from_json(f->json, NULL, &f->a, &f->pod, &f->err);
    if (f->st == GP_OK)
        f->st = gp_demand_from_pod(&f->pod, pol, &f->a, &f->d, &f->err);
}

/* fx_pod_any() that fails the test, with the status and the pod, unless the demand decodes:
 * a test must not pass by checking the zeroed demand of a pod that did not decode. */
#define fx_pod(f, pol, meta, spec) fx_pod_ok(f, pol, meta, spec, __LINE__)
static void fx_pod_ok(fx *f, const gp_policy *pol, const char *meta, const char *spec, int line)
{
    fx_pod_any(f, pol, meta, spec);
    if (f->st != GP_OK) {
        printf("  %s:%d: pod or demand: status %d (%s): %s\n    meta: %s\n    spec: %s\n",
               __FILE__, line, f->st, gp_status_str(f->st), f->err.msg, meta, spec);
        gp_test_failed = 1;
    }
}

static void fx_done(fx *f)
{
    gp_arena_free(&f->a);
    cJSON_Delete(f->json);
}

#define GPU1 "{'containers':[{'resources':{'limits':{'nvidia.com/gpu':'1'}}}]}"
#define GPUS(n) "{'containers':[{'resources':{'limits':{'nvidia.com/gpu':'" n "'}}}]}"
#define MIG2G "{'containers':[{'resources':{'limits':{'nvidia.com/mig-2g.20gb':'1'}}}]}"
#define CPU2 "{'containers':[{'resources':{'requests':{'cpu':'2','memory':'4Gi'}}}]}"
#define GPU1_CPU4 "{'containers':[{'resources':{'limits':{'nvidia.com/gpu':'1'},"              \
                  "'requests':{'cpu':'4','memory':'16Gi'}}}]}"

/* A node: gpus whole GPUs of which used are taken by gpu_pods pods; 96 CPUs, 1 TiB. */
static gp_node mk(const char *name, int32_t gpus, int32_t used, int32_t gpu_pods,
                  const char *instance_type, const char *product)
{
    gp_node n;

    memset(&n, 0, sizeof(n));
    snprintf(n.name, sizeof(n.name), "%s", name);
    n.instance_type = (char *)instance_type;
    n.gpu_product = (char *)product;
    n.gpu_alloc = gpus;
    n.gpu_used = used;
    n.gpu_pods = gpu_pods;
    n.cpu_alloc_m = 96000;
    n.mem_alloc = 1024 * GIB;
    n.pods_alloc = 110;
    n.pods_used = gpu_pods;
    return n;
}

static void add_mig(gp_node *n, const char *profile, int32_t alloc, int32_t used)
{
    gp_mig_count *m = &n->mig[n->nmig++];

    snprintf(m->profile, sizeof(m->profile), "%s", profile);
    m->alloc = alloc;
    m->used = used;
}

/* Scores nodes[0..n) into out. */
static void score(const gp_demand *d, gp_node *nodes, size_t n, const gp_policy *pol,
                  gp_score_parts *out)
{
    const gp_node *ptrs[64];
    gp_typical typ = { .cpu_m_per_gpu = pol->scoring.typical_cpu_milli_per_gpu,
                       .mem_per_gpu = pol->scoring.typical_memory_per_gpu,
                       .mix = NULL };

    for (size_t i = 0; i < n; i++)
        ptrs[i] = &nodes[i];
    gp_prioritize(d, ptrs, n, pol, &typ, out);
}

/* The filter's verdict, and its reason's message in reason (GP_REASON_MAX bytes) unless NULL. */
static gp_filter_verdict filt_d(const gp_demand *d, const gp_node *n, const gp_policy *pol,
                                char *reason)
{
    gp_filter_why why;
    gp_filter_verdict v;

    if (reason == NULL)
        return gp_filter_node(d, n, pol, NULL);
    v = gp_filter_node(d, n, pol, &why);
    GP_CHECK_INT(gp_filter_reason_verdict(why.reason), v); /* the table's verdict is the answer */
    gp_filter_why_text(&why, reason);
    return v;
}

static gp_filter_verdict filt(const fx *f, const gp_node *n, const gp_policy *pol, char *reason)
{
    return filt_d(&f->d, n, pol, reason);
}

/* ------------------------------------------------------------------------------------------- */
/* Demand. */

GP_TEST(demand_basics)
{
    gp_policy *pol = default_policy();
    fx f;

    fx_pod(&f, pol, "'labels':{'gpupack.io/class':'training'},"
                    "'annotations':{'gpupack.io/checkpointing':'true'}", GPUS("2"));
    GP_CHECK_INT(f.st, GP_OK);
    GP_CHECK(f.d.gpu && !f.d.never_filter && f.d.spot_ok);
    GP_CHECK_INT(f.d.usage.gpu, 2);
    GP_CHECK_STR(f.d.class_name, "training");
    GP_CHECK(f.d.class_name == gp_policy_class(pol, "training")->name); /* borrowed */
    GP_CHECK_INT(f.d.nallow + f.d.ndeny, 0);
    fx_done(&f);

    /* spot needs both the annotation and a class that allows spot */
    fx_pod(&f, pol, "'labels':{'gpupack.io/class':'inference'},"
                    "'annotations':{'gpupack.io/checkpointing':'true'}", GPU1);
    GP_CHECK(!f.d.spot_ok);
    fx_done(&f);
    fx_pod(&f, pol, "'labels':{'gpupack.io/class':'training'},"
                    "'annotations':{'gpupack.io/checkpointing':'True'}", GPU1);
    GP_CHECK(!f.d.spot_ok);
    fx_done(&f);
    fx_pod(&f, pol, "'labels':{'gpupack.io/class':'nosuch'},"
                    "'annotations':{'gpupack.io/checkpointing':'true'}", CPU2);
    GP_CHECK(f.d.class_name == NULL && !f.d.spot_ok && !f.d.gpu);
    GP_CHECK_INT(f.d.usage.cpu_m, 2000);
    fx_done(&f);
    gp_policy_unref(pol);
}

GP_TEST(demand_never_filter)
{
    gp_policy *pol = default_policy();
    fx f;

    fx_pod(&f, pol, "'ownerReferences':[{'kind':'DaemonSet','name':'dcgm','controller':true}]",
           GPU1);
    GP_CHECK(f.d.gpu && f.d.never_filter);
    fx_done(&f);
    fx_pod(&f, pol, "", "{'nodeName':'gpu-1','containers':[{'resources':{'limits':{"
                        "'nvidia.com/gpu':'1'}}}]}");
    GP_CHECK(f.d.never_filter);
    fx_done(&f);
    fx_pod(&f, pol, "'ownerReferences':[{'kind':'ReplicaSet','name':'r','controller':true}]",
           GPU1);
    GP_CHECK(!f.d.never_filter);
    fx_done(&f);
    gp_policy_unref(pol);
}

GP_TEST(demand_model_globs)
{
    gp_policy *pol = policy_q("{'apiVersion':'gpupack.io/v1alpha1','kind':'Policy','classes':{"
                              "'c':{'gpuModels':['NVIDIA-A100*'],'excludeGpuModels':['*-MIG-*']}}}");
    fx f;

    fx_pod(&f, pol, "'labels':{'gpupack.io/class':'c'},'annotations':{'gpupack.io/gpu-models':"
                    "' NVIDIA-H100* ,, ! Tesla-T4 ,!NVIDIA-L4,NVIDIA-A10G'}", GPU1);
    GP_CHECK_INT(f.st, GP_OK);
    GP_CHECK_INT(f.d.nallow, 3);
    GP_CHECK_INT(f.d.ndeny, 3);
    if (f.d.nallow == 3 && f.d.ndeny == 3) {
        GP_CHECK_STR(f.d.allow_models[0], "NVIDIA-A100*");
        GP_CHECK_STR(f.d.allow_models[1], "NVIDIA-H100*");
        GP_CHECK_STR(f.d.allow_models[2], "NVIDIA-A10G");
        GP_CHECK_STR(f.d.deny_models[0], "*-MIG-*");
        GP_CHECK_STR(f.d.deny_models[1], "Tesla-T4");
        GP_CHECK_STR(f.d.deny_models[2], "NVIDIA-L4");
    }
    fx_done(&f);

    fx_pod_any(&f, pol, "'annotations':{'gpupack.io/gpu-models':'a,b,c,d,e,f,g,h,i,j,k,l,m,"
                        "n,o,p,q,r,s,t,u,v,w,x,y,z,aa,bb,cc,dd,ee,ff,gg'}", GPU1);
    GP_CHECK_INT(f.st, GP_EINVAL);
    GP_CHECK_STR(f.err.msg, "metadata.annotations.gpupack.io/gpu-models: more than 32 globs");
    fx_done(&f);
    fx_pod(&f, pol, "'annotations':{'gpupack.io/gpu-models':' , ! ,'}", GPU1);
    GP_CHECK_INT(f.st, GP_OK);
    GP_CHECK_INT(f.d.nallow + f.d.ndeny, 0);
    fx_done(&f);
    gp_policy_unref(pol);
}

/* Three MIG profiles are a demand like any other; past GP_USAGE_MAX_MIG the pending pod gets a
 * clear error (the extender answers filter with it) rather than a partial demand. */
GP_TEST(demand_bad_usage)
{
    gp_policy *pol = default_policy();
    gp_node n = mk("n", 0, 0, 0, NULL, NULL);
    fx f;

    add_mig(&n, "1g.10gb", 7, 0);
    add_mig(&n, "2g.20gb", 3, 3);
    add_mig(&n, "3g.40gb", 2, 0);
    fx_pod(&f, pol, "", "{'containers':[{'resources':{'limits':{'nvidia.com/mig-1g.10gb':'1',"
                        "'nvidia.com/mig-2g.20gb':'1','nvidia.com/mig-3g.40gb':'1'}}}]}");
    GP_CHECK_INT(f.st, GP_OK);
    GP_CHECK_INT(f.d.usage.nmig, 3);
    GP_CHECK_INT(filt(&f, &n, pol, NULL), GP_FILTER_FULL); /* 2g.20gb: 0 of 3 free */
    fx_done(&f);
    fx_pod_any(&f, pol, "", "{'containers':[{'resources':{'limits':{"
                            "'nvidia.com/mig-1g.5gb':'1',"
                            "'nvidia.com/mig-1g.10gb':'1','nvidia.com/mig-2g.10gb':'1',"
                            "'nvidia.com/mig-2g.20gb':'1','nvidia.com/mig-3g.20gb':'1',"
                            "'nvidia.com/mig-3g.40gb':'1','nvidia.com/mig-4g.20gb':'1',"
                            "'nvidia.com/mig-7g.40gb':'1','nvidia.com/mig-7g.80gb':'1'}}}]}");
    GP_CHECK_INT(f.st, GP_ETOOBIG);
    GP_CHECK(strstr(f.err.msg, "more than 8 distinct MIG profiles") != NULL);
    fx_done(&f);
    gp_policy_unref(pol);
}

/* ------------------------------------------------------------------------------------------- */
/* Filter. */

GP_TEST(filter_whole_gpu_reasons)
{
    gp_policy *pol = default_policy();
    gp_node cpu = mk("cpu", 0, 0, 0, NULL, NULL), busy = mk("busy", 8, 6, 2, NULL, NULL);
    gp_node four = mk("four", 8, 4, 1, NULL, NULL);
    char reason[GP_REASON_MAX];
    fx f;

    fx_pod(&f, pol, "", GPU1);
    GP_CHECK_INT(filt(&f, &cpu, pol, reason), GP_FILTER_UNRESOLVABLE);
    GP_CHECK_STR(reason, "nvidia.com/gpu: node has 0, pod needs 1");
    GP_CHECK_INT(filt(&f, &busy, pol, reason), GP_FILTER_PASS);
    GP_CHECK_STR(reason, "");
    fx_done(&f);

    fx_pod(&f, pol, "", GPUS("4"));
    GP_CHECK_INT(filt(&f, &busy, pol, reason), GP_FILTER_FULL);
    GP_CHECK_STR(reason, "nvidia.com/gpu: 2 of 8 free, pod needs 4");
    GP_CHECK_INT(filt(&f, &four, pol, reason), GP_FILTER_PASS); /* exactly enough */
    busy.gpu_used = 9; /* more used than allocatable (a shrunk node) reads as 0 free */
    GP_CHECK_INT(filt(&f, &busy, pol, reason), GP_FILTER_FULL);
    GP_CHECK_STR(reason, "nvidia.com/gpu: 0 of 8 free, pod needs 4");
    fx_done(&f);

    fx_pod(&f, pol, "", GPUS("16"));
    GP_CHECK_INT(filt(&f, &four, pol, reason), GP_FILTER_UNRESOLVABLE);
    GP_CHECK_STR(reason, "nvidia.com/gpu: node has 8, pod needs 16");
    fx_done(&f);
    gp_policy_unref(pol);
}

GP_TEST(filter_mig_reasons)
{
    gp_policy *pol = default_policy();
    gp_node whole = mk("whole", 8, 0, 0, NULL, NULL), mig = mk("mig", 0, 0, 0, NULL, NULL);
    char reason[GP_REASON_MAX];
    fx f;

    add_mig(&mig, "2g.20gb", 3, 3);
    add_mig(&mig, "1g.10gb", 1, 0);
    fx_pod(&f, pol, "", MIG2G);
    GP_CHECK_INT(filt(&f, &whole, pol, reason), GP_FILTER_UNRESOLVABLE);
    GP_CHECK_STR(reason, "nvidia.com/mig-2g.20gb: node has none");
    GP_CHECK_INT(filt(&f, &mig, pol, reason), GP_FILTER_FULL);
    GP_CHECK_STR(reason, "nvidia.com/mig-2g.20gb: 0 of 3 free");
    mig.mig[0].used = 2;
    GP_CHECK_INT(filt(&f, &mig, pol, reason), GP_FILTER_PASS);
    fx_done(&f);

    fx_pod(&f, pol, "", "{'containers':[{'resources':{'limits':{'nvidia.com/mig-2g.20gb':'2'}}}]}");
    GP_CHECK_INT(filt(&f, &mig, pol, reason), GP_FILTER_FULL);
    GP_CHECK_STR(reason, "nvidia.com/mig-2g.20gb: 1 of 3 free, pod needs 2");
    fx_done(&f);
    fx_pod(&f, pol, "", "{'containers':[{'resources':{'limits':{'nvidia.com/mig-1g.10gb':'2'}}}]}");
    GP_CHECK_INT(filt(&f, &mig, pol, reason), GP_FILTER_UNRESOLVABLE);
    GP_CHECK_STR(reason, "nvidia.com/mig-1g.10gb: node has 1, pod needs 2");
    fx_done(&f);

    /* An entry with alloc 0 (usage of a profile the node no longer offers) is "none". */
    mig.mig[1].alloc = 0;
    mig.mig[1].used = 1;
    fx_pod(&f, pol, "", "{'containers':[{'resources':{'limits':{'nvidia.com/mig-1g.10gb':'1'}}}]}");
    GP_CHECK_INT(filt(&f, &mig, pol, reason), GP_FILTER_UNRESOLVABLE);
    GP_CHECK_STR(reason, "nvidia.com/mig-1g.10gb: node has none");
    fx_done(&f);
    gp_policy_unref(pol);
}

/* A node that is full now but lacks another resource entirely is unresolvable: preempting
 * pods would not help. */
GP_TEST(filter_unresolvable_wins_over_full)
{
    gp_policy *pol = default_policy();
    gp_node n = mk("n", 8, 8, 4, NULL, NULL);
    char reason[GP_REASON_MAX];
    fx f;

    fx_pod(&f, pol, "", "{'containers':[{'resources':{'limits':{'nvidia.com/gpu':'1',"
                        "'nvidia.com/mig-2g.20gb':'1'}}}]}");
    GP_CHECK_INT(filt(&f, &n, pol, reason), GP_FILTER_UNRESOLVABLE);
    GP_CHECK_STR(reason, "nvidia.com/mig-2g.20gb: node has none");
    fx_done(&f);
    gp_policy_unref(pol);
}

/* The reason table: each kind has a distinct label (the published metric labels, in
 * docs/extender.md), each reason a kind, a refusing verdict and a message that formats. */
GP_TEST(filter_reason_table)
{
    static const char *const published[] = {"gpu", "mig", "gpu-model", "cordoned", "spot",
                                            "unknown-node"};
    char text[GP_REASON_MAX];

    GP_CHECK_INT(GP_FK_COUNT, (int)(sizeof(published) / sizeof(published[0])));
    for (int k = 0; k < GP_FK_COUNT; k++) {
        const char *l = gp_filter_kind_label((gp_filter_kind)k);

        GP_CHECK(l != NULL && *l != '\0');
        for (int j = 0; l != NULL && j < k; j++)
            GP_CHECK(strcmp(l, gp_filter_kind_label((gp_filter_kind)j)) != 0);
        for (int j = 0; l != NULL && j < GP_FK_COUNT; j++)
            GP_CHECK((strcmp(l, published[j]) == 0) == (j == k));
    }
    GP_CHECK(gp_filter_kind_label(GP_FK_COUNT) == NULL);
    for (int r = 1; r < GP_FR_COUNT; r++) {
        gp_filter_why why = {(gp_filter_reason)r, {"s0", "s1", "s2"}, {7, 8, 9}};

        GP_CHECK(gp_filter_reason_kind(why.reason) < GP_FK_COUNT);
        GP_CHECK(gp_filter_reason_verdict(why.reason) != GP_FILTER_PASS);
        gp_filter_why_text(&why, text);
        GP_CHECK(strlen(text) > 10 && strchr(text, '%') == NULL);
        GP_CHECK(strstr(text, "(null)") == NULL); /* strings come before numbers */
    }
    gp_filter_why none = {GP_FR_NONE, {NULL, NULL, NULL}, {0, 0, 0}};

    GP_CHECK_STR(gp_filter_why_text(&none, text), "");
    GP_CHECK_INT(gp_filter_reason_verdict(GP_FR_NONE), GP_FILTER_PASS);
    GP_CHECK(gp_filter_kind_label(gp_filter_reason_kind(GP_FR_NONE)) == NULL);
}

/* The metric label of the reason the filter gives for node n. */
static const char *filter_label(const fx *f, const gp_node *n, const gp_policy *pol)
{
    gp_filter_why why;

    gp_filter_node(&f->d, n, pol, &why);
    return gp_filter_kind_label(gp_filter_reason_kind(why.reason));
}

/* Refusals map to the label of their kind, whatever their message says. */
GP_TEST(filter_reason_labels)
{
    gp_policy *pol = default_policy();
    gp_node cpu = mk("cpu", 0, 0, 0, NULL, NULL), busy = mk("busy", 8, 8, 2, NULL, NULL);
    gp_node t4 = mk("t4", 8, 0, 0, NULL, "Tesla-T4"), free8 = mk("free", 8, 0, 0, NULL, NULL);
    fx f;

    fx_pod(&f, pol, "", GPU1);
    GP_CHECK_STR(filter_label(&f, &cpu, pol), "gpu");
    GP_CHECK_STR(filter_label(&f, &busy, pol), "gpu");
    GP_CHECK(filter_label(&f, &free8, pol) == NULL); /* passes: no reason */
    free8.unschedulable = true;
    GP_CHECK_STR(filter_label(&f, &free8, pol), "cordoned");
    fx_done(&f);
    fx_pod(&f, pol, "'annotations':{'gpupack.io/gpu-models':'!Tesla-T4'}", GPU1);
    GP_CHECK_STR(filter_label(&f, &t4, pol), "gpu-model");
    fx_done(&f);
    fx_pod(&f, pol, "", MIG2G);
    GP_CHECK_STR(filter_label(&f, &t4, pol), "mig");
    fx_done(&f);
    gp_policy_unref(pol);
}

/* A cordoned node refuses a pod that does not tolerate node.kubernetes.io/unschedulable. */
GP_TEST(filter_cordoned)
{
    gp_policy *pol = default_policy();
    gp_node n = mk("n", 8, 0, 0, NULL, NULL);
    char reason[GP_REASON_MAX];
    fx f;

    n.unschedulable = true;
    fx_pod(&f, pol, "", GPU1);
    GP_CHECK_INT(filt(&f, &n, pol, reason), GP_FILTER_UNRESOLVABLE);
    GP_CHECK_STR(reason, "node is cordoned (spec.unschedulable)");
    GP_CHECK_INT(filt(&f, &n, pol, NULL), GP_FILTER_UNRESOLVABLE); /* reason may be NULL */
    fx_done(&f);
    gp_policy_unref(pol);
}

GP_TEST(filter_gpu_models)
{
    gp_policy *pol = policy_q("{'apiVersion':'gpupack.io/v1alpha1','kind':'Policy','classes':{"
                              "'inference':{'gpuModels':['NVIDIA-A100*','NVIDIA-L4'],"
                              "'excludeGpuModels':['*-40GB']},'any':{}}}");
    gp_node a80 = mk("a80", 8, 0, 0, NULL, "NVIDIA-A100-SXM4-80GB");
    gp_node a40 = mk("a40", 8, 0, 0, NULL, "NVIDIA-A100-SXM4-40GB");
    gp_node t4 = mk("t4", 1, 0, 0, NULL, "Tesla-T4"), bare = mk("bare", 1, 0, 0, NULL, NULL);
    char reason[GP_REASON_MAX];
    fx f;

    fx_pod(&f, pol, "'labels':{'gpupack.io/class':'inference'}", GPU1);
    GP_CHECK_INT(filt(&f, &a80, pol, reason), GP_FILTER_PASS);
    GP_CHECK_INT(filt(&f, &a40, pol, reason), GP_FILTER_UNRESOLVABLE);
    GP_CHECK_STR(reason, "GPU model NVIDIA-A100-SXM4-40GB excluded by class inference "
                         "(excludeGpuModels \"*-40GB\")");
    GP_CHECK_INT(filt(&f, &t4, pol, reason), GP_FILTER_UNRESOLVABLE);
    GP_CHECK_STR(reason, "GPU model Tesla-T4 not allowed by class inference (gpuModels)");
    GP_CHECK_INT(filt(&f, &bare, pol, reason), GP_FILTER_UNRESOLVABLE);
    GP_CHECK_STR(reason, "node has no nvidia.com/gpu.product label; GPU models are restricted "
                         "by class inference (gpuModels)");
    fx_done(&f);

    /* The annotation can narrow the class's models, never widen them; reasons say where a rule
     * came from. */
    fx_pod(&f, pol, "'labels':{'gpupack.io/class':'inference'},"
                    "'annotations':{'gpupack.io/gpu-models':'Tesla-*,!NVIDIA-A100-SXM4-80GB'}",
           GPU1);
    GP_CHECK_INT(filt(&f, &t4, pol, reason), GP_FILTER_UNRESOLVABLE);
    GP_CHECK_INT(filt(&f, &a80, pol, reason), GP_FILTER_UNRESOLVABLE);
    GP_CHECK_STR(reason, "GPU model NVIDIA-A100-SXM4-80GB excluded by annotation "
                         "gpupack.io/gpu-models (\"!NVIDIA-A100-SXM4-80GB\")");
    GP_CHECK_INT(filt(&f, &bare, pol, reason), GP_FILTER_UNRESOLVABLE);
    GP_CHECK_STR(reason, "node has no nvidia.com/gpu.product label; GPU models are restricted "
                         "by class inference (gpuModels) or annotation gpupack.io/gpu-models");
    fx_done(&f);

    fx_pod(&f, pol, "'annotations':{'gpupack.io/gpu-models':'NVIDIA-H100*'}", GPU1);
    GP_CHECK_INT(filt(&f, &t4, pol, reason), GP_FILTER_UNRESOLVABLE);
    GP_CHECK_STR(reason, "GPU model Tesla-T4 not allowed by annotation gpupack.io/gpu-models");
    fx_done(&f);

    /* Only exclusions: a node without the label passes. */
    fx_pod(&f, pol, "'annotations':{'gpupack.io/gpu-models':'!Tesla-T4'}", GPU1);
    GP_CHECK_INT(filt(&f, &bare, pol, reason), GP_FILTER_PASS);
    GP_CHECK_INT(filt(&f, &t4, pol, reason), GP_FILTER_UNRESOLVABLE);
    fx_done(&f);
    gp_policy_unref(pol);
}

/* kube-scheduler's NodeUnschedulable plugin lets a pod that tolerates the taint
 * node.kubernetes.io/unschedulable:NoSchedule onto a cordoned node (extenders only see nodes
 * that passed it): a wildcard or key-only Exists toleration, or Equal with the empty value; an
 * effect other than NoSchedule, or another key, does not tolerate it. Capacity still counts. */
GP_TEST(filter_cordoned_tolerated)
{
    static const char *const ok[] = {
        "{'operator':'Exists'}",
        "{'key':'node.kubernetes.io/unschedulable','operator':'Exists'}",
        "{'key':'node.kubernetes.io/unschedulable','operator':'Exists','effect':'NoSchedule'}",
        "{'key':'node.kubernetes.io/unschedulable','value':'','effect':'NoSchedule'}",
        "{'operator':'Exists','effect':'NoSchedule'}",
    };
    static const char *const no[] = {
        "{'key':'node.kubernetes.io/unschedulable','operator':'Exists','effect':'NoExecute'}",
        "{'key':'node.kubernetes.io/not-ready','operator':'Exists'}",
        "{'key':'node.kubernetes.io/unschedulable','value':'true','effect':'NoSchedule'}",
        "{'operator':'Exists','effect':'PreferNoSchedule'}",
    };
    gp_policy *pol = default_policy();
    gp_node n = mk("n", 8, 0, 0, NULL, NULL), full = mk("full", 8, 8, 2, NULL, NULL);
    char reason[GP_REASON_MAX], spec[512];
    fx f;

    n.unschedulable = full.unschedulable = true;
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        snprintf(spec, sizeof(spec), "{'tolerations':[%s],'containers':[{'resources':{'limits':"
                 "{'nvidia.com/gpu':'1'}}}]}", ok[i]);
        fx_pod(&f, pol, "", spec);
        GP_CHECK(f.d.cordon_ok);
        GP_CHECK_INT(filt(&f, &n, pol, reason), GP_FILTER_PASS);
        GP_CHECK_INT(filt(&f, &full, pol, reason), GP_FILTER_FULL);
        GP_CHECK_STR(reason, "nvidia.com/gpu: 0 of 8 free, pod needs 1");
        fx_done(&f);
    }
    for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
        snprintf(spec, sizeof(spec), "{'tolerations':[%s],'containers':[{'resources':{'limits':"
                 "{'nvidia.com/gpu':'1'}}}]}", no[i]);
        fx_pod(&f, pol, "", spec);
        GP_CHECK(!f.d.cordon_ok);
        GP_CHECK_INT(filt(&f, &n, pol, reason), GP_FILTER_UNRESOLVABLE);
        GP_CHECK_STR(reason, "node is cordoned (spec.unschedulable)");
        fx_done(&f);
    }
    gp_policy_unref(pol);
}

/* Prioritize follows filter: a cordoned node a tolerating pod may use is feasible and ranked
 * (here the only busy node, so it wins); for a pod without the toleration it scores 0. */
GP_TEST(prioritize_cordoned_tolerated)
{
    gp_policy *pol = default_policy();
    gp_node n[2];
    gp_score_parts out[2];
    fx f;

    n[0] = mk("cordoned-busy", 8, 2, 1, "p4d.24xlarge", NULL);
    n[0].unschedulable = true;
    n[1] = mk("empty", 8, 0, 0, "p4d.24xlarge", NULL);
    fx_pod(&f, pol, "", "{'tolerations':[{'operator':'Exists'}],'containers':[{'resources':"
                        "{'limits':{'nvidia.com/gpu':'1'}}}]}");
    score(&f.d, n, 2, pol, out);
    GP_CHECK(out[0].feasible);
    GP_CHECK_INT(out[0].score, 10);
    GP_CHECK(out[1].score < 10);
    fx_done(&f);
    fx_pod(&f, pol, "", GPU1);
    score(&f.d, n, 2, pol, out);
    GP_CHECK(!out[0].feasible);
    GP_CHECK_INT(out[0].score, 0);
    GP_CHECK_INT(out[1].score, 10);
    fx_done(&f);
    gp_policy_unref(pol);
}

/* DaemonSet pods, pinned pods and CPU pods pass every node, even cordoned full ones. */
GP_TEST(filter_never_restricts_some_pods)
{
    gp_policy *pol = default_policy();
    gp_node n = mk("n", 0, 0, 0, NULL, "Tesla-T4");
    char reason[GP_REASON_MAX];
    fx f;

    n.unschedulable = true;
    fx_pod(&f, pol, "'ownerReferences':[{'kind':'DaemonSet','name':'x','controller':true}]", GPU1);
    GP_CHECK_INT(filt(&f, &n, pol, reason), GP_FILTER_PASS);
    fx_done(&f);
    fx_pod(&f, pol, "", "{'nodeName':'n','containers':[{'resources':{'limits':{"
                        "'nvidia.com/mig-7g.80gb':'1'}}}]}");
    GP_CHECK_INT(filt(&f, &n, pol, reason), GP_FILTER_PASS);
    fx_done(&f);
    fx_pod(&f, pol, "'annotations':{'gpupack.io/gpu-models':'NVIDIA-H100*'}", CPU2);
    GP_CHECK_INT(filt(&f, &n, pol, reason), GP_FILTER_PASS);
    GP_CHECK_STR(reason, "");
    fx_done(&f);
    gp_policy_unref(pol);
}

/* Reasons stay within GP_REASON_MAX however long the names. */
GP_TEST(filter_reason_bounded)
{
    char glob[64], product[64], ann[160], meta[256], reason[GP_REASON_MAX + 16];
    gp_policy *pol = default_policy();
    gp_node n;
    fx f;

    memset(glob, 'G', 63);
    glob[63] = '\0';
    memset(product, 'P', 63);
    product[63] = '\0';
    memcpy(glob, product, 63); /* the glob matches the product exactly */
    snprintf(ann, sizeof(ann), "!%s", glob);
    snprintf(meta, sizeof(meta), "'annotations':{'gpupack.io/gpu-models':'%s'}", ann);
    n = mk("n", 1, 0, 0, NULL, product);
    fx_pod(&f, pol, meta, GPU1);
    memset(reason, 'x', sizeof(reason));
    GP_CHECK_INT(filt(&f, &n, pol, reason), GP_FILTER_UNRESOLVABLE);
    GP_CHECK(strlen(reason) < GP_REASON_MAX);
    GP_CHECK(reason[GP_REASON_MAX] == 'x');
    fx_done(&f);
    gp_policy_unref(pol);
}

/* ------------------------------------------------------------------------------------------- */
/* Components. */

/* Price by instance type, else GPU product x GPUs, else the default x GPUs; spot discounted. */
GP_TEST(price_and_marginal_cost)
{
    gp_policy *pol = policy_q(
        "{'apiVersion':'gpupack.io/v1alpha1','kind':'Policy','spot':{'nodeLabels':[]},"
        "'scoring':{'defaultGpuHourlyPrice':'2','spotDiscountPercent':75,'prices':{"
        "'instanceTypes':{'big':{'onDemand':'40','spot':'12.5'},'plain':{'onDemand':'8'}},"
        "'gpuProducts':{'NVIDIA-L4':{'onDemand':'0.8'},'Tesla-T4':{'onDemand':'0.5',"
        "'spot':'0.1'}}}}}");
    gp_node n[8];
    gp_score_parts out[8];
    fx f;

    n[0] = mk("big", 8, 0, 0, "big", "NVIDIA-L4");   /* instance type wins over product */
    n[1] = mk("big-spot", 8, 0, 0, "big", NULL);
    n[2] = mk("plain-spot", 8, 0, 0, "plain", NULL); /* 8 x 25% */
    n[3] = mk("l4", 4, 0, 0, "unlisted", "NVIDIA-L4"); /* 4 x 0.8 */
    n[4] = mk("t4-spot", 2, 0, 0, NULL, "Tesla-T4");  /* 2 x 0.1 */
    n[5] = mk("default", 3, 0, 0, NULL, "NVIDIA-B200"); /* 3 x 2 */
    n[6] = mk("default-spot", 1, 0, 0, NULL, NULL);   /* 1 x 2 x 25% */
    n[7] = mk("busy", 8, 1, 1, "big", NULL);
    n[1].spot = n[2].spot = n[4].spot = n[6].spot = true;
    fx_pod(&f, pol, "", GPU1);
    score(&f.d, n, 8, pol, out);
    CHECK_NEAR(out[0].marginal_cost, 40);
    CHECK_NEAR(out[1].marginal_cost, 12.5);
    CHECK_NEAR(out[2].marginal_cost, 2);
    CHECK_NEAR(out[3].marginal_cost, 3.2);
    CHECK_NEAR(out[4].marginal_cost, 0.2);
    CHECK_NEAR(out[5].marginal_cost, 6);
    CHECK_NEAR(out[6].marginal_cost, 0.5);
    CHECK_NEAR(out[7].marginal_cost, 0); /* already runs GPU work */
    fx_done(&f);
    gp_policy_unref(pol);
}

/* A MIG-only node costs its physical GPUs: slices / 7, rounded up, at least 1; profiles the
 * policy does not list count by their name's "<N>g". */
GP_TEST(price_of_mig_node)
{
    gp_policy *pol = default_policy();
    gp_node n[3];
    gp_score_parts out[3];
    fx f;

    n[0] = mk("a", 0, 0, 0, NULL, "NVIDIA-A100-SXM4-80GB");
    add_mig(&n[0], "1g.10gb", 7, 0);  /* 7 slices: 1 GPU */
    add_mig(&n[0], "3g.40gb", 2, 0);  /* 6 slices: 13 in all, 2 GPUs */
    n[1] = mk("b", 0, 0, 0, NULL, "NVIDIA-A100-SXM4-80GB");
    add_mig(&n[1], "1g.10gb", 1, 0);  /* 1 slice: still 1 GPU */
    n[2] = mk("c", 2, 0, 0, NULL, "NVIDIA-A100-SXM4-80GB");
    add_mig(&n[2], "2g.24gb", 3, 0);  /* unlisted: 6 slices by name, + 2 whole = 3 GPUs */
    fx_pod(&f, pol, "", "{'containers':[{'resources':{'limits':{'nvidia.com/mig-1g.10gb':'1'}}}]}");
    score(&f.d, n, 3, pol, out);
    CHECK_NEAR(out[0].marginal_cost, 2 * 3.4309);
    CHECK_NEAR(out[1].marginal_cost, 3.4309);
    CHECK_NEAR(out[2].marginal_cost, 3 * 3.4309);
    fx_done(&f);
    gp_policy_unref(pol);
}

/* cost = 1 at zero marginal cost, else 0.5 x cheapest unit price / this node's unit price. */
GP_TEST(cost_component)
{
    gp_policy *pol = default_policy();
    gp_node n[4];
    gp_score_parts out[4];
    fx f;

    n[0] = mk("p4d", 8, 0, 0, "p4d.24xlarge", NULL);         /* 21.9576 / 8 per GPU */
    n[1] = mk("a2", 8, 0, 0, "a2-highgpu-8g", NULL);          /* 29.3871 / 8 */
    n[2] = mk("busy", 8, 2, 1, "p5.48xlarge", NULL);
    n[3] = mk("cordoned", 8, 0, 0, "g6.xlarge", NULL);        /* cheap but infeasible */
    n[3].unschedulable = true;
    fx_pod(&f, pol, "", GPU1);
    score(&f.d, n, 4, pol, out);
    CHECK_NEAR(out[0].cost, 0.5);
    CHECK_NEAR(out[1].cost, 0.5 * (21.9576 / 8) / (29.3871 / 8));
    CHECK_NEAR(out[2].cost, 1);
    GP_CHECK(!out[3].feasible);
    GP_CHECK_INT(out[3].score, 0);
    GP_CHECK(out[0].feasible && out[1].feasible && out[2].feasible);
    fx_done(&f);
    gp_policy_unref(pol);
}

/* fit = 1 - free_after / alloc of the demanded resource; CPU for a CPU pod. With the
 * fragmentation component off, whole GPUs count too. */
GP_TEST(fit_component)
{
    gp_policy *pol = policy_q("{'apiVersion':'gpupack.io/v1alpha1','kind':'Policy','scoring':{"
                              "'weights':{'fragmentation':0}}}");
    gp_policy *def = default_policy();
    gp_node n[3];
    gp_score_parts out[3];
    fx f;

    n[0] = mk("a", 8, 6, 2, NULL, NULL);
    n[1] = mk("b", 8, 7, 3, NULL, NULL);
    n[2] = mk("c", 8, 0, 0, NULL, NULL);
    add_mig(&n[0], "2g.20gb", 3, 1);
    n[0].cpu_used_m = 48000;
    fx_pod(&f, pol, "", GPU1);
    score(&f.d, n, 3, pol, out);
    CHECK_NEAR(out[0].fit, 1 - 1.0 / 8);
    CHECK_NEAR(out[1].fit, 1);
    CHECK_NEAR(out[2].fit, 1.0 / 8);
    /* With it on (the default), whole GPUs are the fragmentation component's: fit is 0 and the
     * GPUs taken after placement (of at most 16) only break ties inside a bucket (half a bucket
     * of 0.04 GPU at most). */
    score(&f.d, n, 3, def, out);
    for (int i = 0; i < 3; i++)
        CHECK_NEAR(out[i].fit, 0);
    CHECK_NEAR(out[0].fragmentation, 0.5 * 7.0 / 16 * 0.04);
    CHECK_NEAR(out[1].fragmentation, 0.5 * 8.0 / 16 * 0.04);
    GP_CHECK_INT(out[1].score, 10);
    fx_done(&f);
    fx_pod(&f, pol, "", MIG2G);
    score(&f.d, n, 3, pol, out);
    CHECK_NEAR(out[0].fit, 1 - 1.0 / 3);
    CHECK_NEAR(out[1].fit, 0); /* does not fit at all */
    score(&f.d, n, 3, def, out); /* MIG slices stay fit's */
    CHECK_NEAR(out[0].fit, 1 - 1.0 / 3);
    fx_done(&f);
    fx_pod(&f, pol, "", CPU2);
    score(&f.d, n, 3, pol, out);
    CHECK_NEAR(out[0].fit, 1 - 46000.0 / 96000);
    CHECK_NEAR(out[2].fit, 1 - 94000.0 / 96000);
    score(&f.d, n, 3, def, out); /* a CPU pod next to whole GPUs: fragmentation decides */
    CHECK_NEAR(out[0].fit, 0);
    fx_done(&f);
    gp_policy_unref(pol);
    gp_policy_unref(def);
}

/* stranding = (F - usable) / gpu_alloc after placement, where usable is limited by the CPU and
 * memory a typical GPU pod needs (4 CPUs and 32 GiB per GPU by default). */
GP_TEST(stranding_component)
{
    gp_policy *pol = default_policy();
    gp_node n[4];
    gp_score_parts out[4];
    fx f;

    n[0] = mk("roomy", 8, 4, 1, NULL, NULL);
    n[1] = mk("cpu-short", 8, 4, 1, NULL, NULL);
    n[1].cpu_used_m = 96000 - 8000; /* 8 CPUs left, 4 after the pod: 1 more GPU pod fits */
    n[2] = mk("mem-short", 8, 4, 1, NULL, NULL);
    n[2].mem_used = 1024 * GIB - 80 * GIB; /* 64 GiB after the pod: 2 GPU pods fit */
    n[3] = mk("cpu-node", 0, 0, 0, NULL, NULL);
    fx_pod(&f, pol, "", GPU1_CPU4);
    score(&f.d, n, 4, pol, out);
    CHECK_NEAR(out[0].stranding, 0);
    CHECK_NEAR(out[1].stranding, (3 - 1) / 8.0);
    CHECK_NEAR(out[2].stranding, (3 - 2) / 8.0);
    CHECK_NEAR(out[3].stranding, 0);
    fx_done(&f);
    gp_policy_unref(pol);
}

/* raw = w_cost cost + w_fit fit - w_stranding stranding - (CPU pod on GPU node ? penalty : 0). */
GP_TEST(raw_weighted_sum)
{
    gp_policy *pol = policy_q("{'apiVersion':'gpupack.io/v1alpha1','kind':'Policy','scoring':{"
                              "'weights':{'cost':7,'fit':5,'stranding':11,'gpuNodePenalty':13,"
                              "'fragmentation':17}}}");
    gp_node n[2];
    gp_score_parts out[2];
    fx f;

    n[0] = mk("gpu", 8, 4, 1, NULL, NULL);
    n[0].cpu_used_m = 96000 - 6000;
    n[1] = mk("cpu", 0, 0, 0, NULL, NULL);
    fx_pod(&f, pol, "", CPU2);
    score(&f.d, n, 2, pol, out);
    CHECK_NEAR(out[0].cost, 1);
    /* 4 CPUs left after the pod feed 1 of the 4 free GPUs: 3 of 8 stranded */
    CHECK_NEAR(out[0].stranding, 3 / 8.0);
    /* the pod leaves room for the mix's 1-GPU pod (4 CPUs): no fragmentation change; a CPU pod
     * breaks the tie towards less free GPU: 0.5 x (1 - 4 free / 8) of a 40 milli-GPU bucket;
     * next to whole GPUs, CPU fit is the fragmentation component's, not fit's */
    CHECK_NEAR(out[0].fragmentation, 0.5 * 0.5 * 0.04);
    CHECK_NEAR(out[0].fit, 0);
    CHECK_NEAR(out[0].raw, 7 * 1 - 11 * 3 / 8.0 + 17 * 0.01 - 13);
    CHECK_NEAR(out[1].fragmentation, 0);
    CHECK_NEAR(out[1].raw, 7 * 1 + 5 * (1 - 94000.0 / 96000));
    GP_CHECK_INT(out[1].score, 10);
    GP_CHECK_INT(out[0].score, 1);
    fx_done(&f);
    gp_policy_unref(pol);
}

/* ------------------------------------------------------------------------------------------- */
/* The mapping. */

/* Busy nodes with distinct fits; free[i] GPUs free of 16. */
static void tiers_of(size_t count, gp_node *n, const int32_t *free_gpus)
{
    for (size_t i = 0; i < count; i++) {
        char name[32];

        snprintf(name, sizeof(name), "n%02zu", i);
        n[i] = mk(name, 16, 16 - free_gpus[i], 1, NULL, NULL);
    }
}

GP_TEST(mapping_spreads_tiers)
{
    static const int32_t free3[] = {3, 1, 2}, free5[] = {5, 1, 4, 2, 3};
    gp_policy *pol = default_policy();
    gp_node n[5];
    gp_score_parts out[5];
    fx f;

    fx_pod(&f, pol, "", GPU1);
    tiers_of(3, n, free3);
    score(&f.d, n, 3, pol, out);
    GP_CHECK_INT(out[1].score, 10);
    GP_CHECK_INT(out[2].score, 6);
    GP_CHECK_INT(out[0].score, 1);
    tiers_of(5, n, free5); /* 10, then 1 + 9 x 3/4, 2/4, 1/4, 0 = 7.75, 5.5, 3.25, 1 rounded half
                            up */
    score(&f.d, n, 5, pol, out);
    GP_CHECK_INT(out[1].score, 10);
    GP_CHECK_INT(out[3].score, 8);
    GP_CHECK_INT(out[4].score, 6);
    GP_CHECK_INT(out[2].score, 3);
    GP_CHECK_INT(out[0].score, 1);
    tiers_of(1, n, free5);
    score(&f.d, n, 1, pol, out);
    GP_CHECK_INT(out[0].score, 10);
    score(&f.d, n, 0, pol, out); /* no nodes: nothing to do */
    fx_done(&f);
    gp_policy_unref(pol);
}

GP_TEST(mapping_all_equal_all_ten)
{
    gp_policy *pol = default_policy();
    gp_node n[6];
    gp_score_parts out[6];
    fx f;

    for (int i = 0; i < 6; i++)
        n[i] = mk("same", 8, 2, 1, "p4d.24xlarge", NULL);
    fx_pod(&f, pol, "", GPU1);
    score(&f.d, n, 6, pol, out);
    for (int i = 0; i < 6; i++)
        GP_CHECK_INT(out[i].score, 10);
    fx_done(&f);
    gp_policy_unref(pol);
}

/* Raws closer than 1e-9 are one tier. */
GP_TEST(mapping_near_ties_are_one_tier)
{
    gp_policy *pol = policy_q("{'apiVersion':'gpupack.io/v1alpha1','kind':'Policy','scoring':{"
                              "'weights':{'cost':0,'fit':0,'stranding':0,'gpuNodePenalty':1,"
                              "'fragmentation':0}}}");
    gp_node n[3];
    gp_score_parts out[3];
    fx f;

    n[0] = mk("a", 8, 0, 0, NULL, NULL);
    n[1] = mk("b", 4, 0, 0, NULL, NULL);
    n[2] = mk("cpu", 0, 0, 0, NULL, NULL);
    fx_pod(&f, pol, "", CPU2);
    score(&f.d, n, 3, pol, out); /* raws -1, -1, 0 */
    GP_CHECK_INT(out[2].score, 10);
    GP_CHECK_INT(out[0].score, 1);
    GP_CHECK_INT(out[1].score, 1);
    fx_done(&f);
    gp_policy_unref(pol);
}

/* 13 tiers on 10 levels: the best is 10 and alone there, the worst 1, and the order never
 * inverts. */
GP_TEST(mapping_many_tiers_monotonic)
{
    static const int32_t free13[] = {7, 1, 13, 4, 10, 2, 12, 5, 3, 11, 6, 9, 8};
    gp_policy *pol = default_policy();
    gp_node n[13];
    gp_score_parts out[13];
    fx f;

    tiers_of(13, n, free13);
    fx_pod(&f, pol, "", GPU1);
    score(&f.d, n, 13, pol, out);
    int tens = 0;
    for (size_t i = 0; i < 13; i++)
        tens += out[i].score == 10;
    GP_CHECK_INT(tens, 1); /* kube-scheduler picks at random among equal totals */
    for (size_t i = 0; i < 13; i++) {
        GP_CHECK(out[i].score >= 1 && out[i].score <= 10);
        if (free13[i] == 1)
            GP_CHECK_INT(out[i].score, 10);
        if (free13[i] == 13)
            GP_CHECK_INT(out[i].score, 1);
        for (size_t j = 0; j < 13; j++) {
            if (out[i].raw > out[j].raw)
                GP_CHECK(out[i].score >= out[j].score);
            if (free13[i] + 2 <= free13[j]) /* two tiers apart: strictly better */
                GP_CHECK(out[i].score > out[j].score);
        }
    }
    fx_done(&f);
    gp_policy_unref(pol);
}

/* More nodes than the mapping ranks on the stack. */
GP_TEST(mapping_large_input)
{
    gp_policy *pol = default_policy();
    enum { N = 600 };
    gp_node *n = calloc(N, sizeof(*n));
    const gp_node **ptrs = calloc(N, sizeof(*ptrs));
    gp_score_parts *out = calloc(N, sizeof(*out));
    fx f;

    for (int i = 0; i < N; i++) {
        n[i] = mk("n", 1000, 1000 - (1 + i % 300), 1, NULL, NULL); /* 300 distinct fits */
        ptrs[i] = &n[i];
    }
    fx_pod(&f, pol, "", GPU1);
    gp_prioritize(&f.d, ptrs, N, pol, NULL, out); /* typ NULL: the policy's typical pod */
    GP_CHECK_INT(out[0].score, 10);
    GP_CHECK_INT(out[300].score, 10);
    GP_CHECK_INT(out[1].score, 9); /* only the best tier scores 10, however many tiers */
    GP_CHECK_INT(out[299].score, 1);
    for (int i = 1; i < 300; i++)
        GP_CHECK(out[i].score <= out[i - 1].score);
    fx_done(&f);
    free(n);
    free(ptrs);
    free(out);
    gp_policy_unref(pol);
}

/* The same nodes in any order get the same scores and parts. */
GP_TEST(deterministic_under_permutation)
{
    gp_policy *pol = default_policy();
    gp_node base[7], perm[7];
    gp_score_parts a[7], b[7];
    static const int orders[3][7] = {{6, 5, 4, 3, 2, 1, 0}, {3, 0, 6, 1, 5, 2, 4},
                                     {1, 2, 3, 4, 5, 6, 0}};
    fx f;

    base[0] = mk("p4d-empty", 8, 0, 0, "p4d.24xlarge", NULL);
    base[1] = mk("a2-empty", 8, 0, 0, "a2-highgpu-8g", NULL);
    base[2] = mk("busy-6", 8, 6, 3, "p4d.24xlarge", NULL);
    base[3] = mk("busy-4", 8, 4, 2, "p4d.24xlarge", NULL);
    base[4] = mk("busy-4b", 8, 4, 2, "p4d.24xlarge", NULL);
    base[5] = mk("full", 8, 8, 4, "p4d.24xlarge", NULL);
    base[6] = mk("spot", 8, 0, 0, "p4d.24xlarge", NULL);
    base[6].spot = true;
    fx_pod(&f, pol, "", GPU1);
    score(&f.d, base, 7, pol, a);
    for (int o = 0; o < 3; o++) {
        for (int i = 0; i < 7; i++)
            perm[i] = base[orders[o][i]];
        score(&f.d, perm, 7, pol, b);
        for (int i = 0; i < 7; i++) {
            const gp_score_parts *x = &a[orders[o][i]], *y = &b[i];

            GP_CHECK_INT(y->score, x->score);
            GP_CHECK(y->raw == x->raw && y->cost == x->cost && y->fit == x->fit);
            GP_CHECK(y->stranding == x->stranding && y->marginal_cost == x->marginal_cost);
            GP_CHECK(y->feasible == x->feasible);
        }
    }
    fx_done(&f);
    gp_policy_unref(pol);
}

/* ------------------------------------------------------------------------------------------- */
/* Scenarios. */

/* A node with 6 of 8 GPUs in use beats an empty node for a 1-GPU pod: no new node opens. */
GP_TEST(scenario_busy_node_beats_empty)
{
    gp_policy *pol = default_policy();
    gp_node n[2];
    gp_score_parts out[2];
    fx f;

    n[0] = mk("empty", 8, 0, 0, "p4d.24xlarge", NULL);
    n[1] = mk("six-used", 8, 6, 3, "p4d.24xlarge", NULL);
    fx_pod(&f, pol, "'labels':{'gpupack.io/class':'inference'}", GPU1);
    score(&f.d, n, 2, pol, out);
    GP_CHECK_INT(out[1].score, 10);
    GP_CHECK_INT(out[0].score, 1);
    CHECK_NEAR(out[1].marginal_cost, 0);
    CHECK_NEAR(out[0].marginal_cost, 21.9576);
    GP_CHECK(out[1].raw > out[0].raw);
    fx_done(&f);
    gp_policy_unref(pol);
}

/* A node already running MIG work with a free 2g.20gb slice beats an idle MIG node (which the
 * pod would open) and a node of whole GPUs (which has no such slice at all). */
GP_TEST(scenario_free_mig_slice_beats_new_gpu)
{
    gp_policy *pol = default_policy();
    gp_node n[3];
    gp_score_parts out[3];
    fx f;

    n[0] = mk("idle-mig", 0, 0, 0, NULL, "NVIDIA-A100-SXM4-80GB");
    add_mig(&n[0], "2g.20gb", 3, 0);
    n[1] = mk("busy-mig", 0, 0, 2, NULL, "NVIDIA-A100-SXM4-80GB");
    add_mig(&n[1], "2g.20gb", 3, 2);
    n[2] = mk("whole", 8, 0, 0, NULL, "NVIDIA-A100-SXM4-80GB");
    fx_pod(&f, pol, "'labels':{'gpupack.io/class':'inference'}", MIG2G);
    score(&f.d, n, 3, pol, out);
    GP_CHECK_INT(out[1].score, 10);
    GP_CHECK(out[1].raw > out[0].raw);
    GP_CHECK(out[0].feasible && !out[2].feasible);
    GP_CHECK_INT(out[2].score, 0);
    CHECK_NEAR(out[1].fit, 1); /* the last free slice: exact fit */
    CHECK_NEAR(out[0].marginal_cost, 3.4309);
    fx_done(&f);
    gp_policy_unref(pol);
}

/* gp_filter_node refuses spot node n to the pod as unresolvable, with this reason. */
static void check_spot_refused(const gp_demand *d, const gp_node *n, const gp_policy *pol,
                               const char *want)
{
    char reason[GP_REASON_MAX];

    GP_CHECK_INT(filt_d(d, n, pol, reason), GP_FILTER_UNRESOLVABLE);
    GP_CHECK_STR(reason, want);
}

/* Spot capacity only for pods that checkpoint and whose class allows spot. */
GP_TEST(scenario_spot_only_for_checkpointing)
{
    gp_policy *pol = default_policy();
    gp_node n[2];
    gp_score_parts out[2];
    fx f;

    n[0] = mk("on-demand", 8, 0, 0, "p4d.24xlarge", NULL);
    n[1] = mk("spot", 8, 0, 0, "p4d.24xlarge", NULL);
    n[1].spot = true;
    fx_pod(&f, pol, "'labels':{'gpupack.io/class':'training'},"
                    "'annotations':{'gpupack.io/checkpointing':'true'}", GPUS("8"));
    score(&f.d, n, 2, pol, out);
    GP_CHECK_INT(out[1].score, 10);
    GP_CHECK_INT(out[0].score, 1);
    CHECK_NEAR(out[1].marginal_cost, 21.9576 * 0.4);
    CHECK_NEAR(out[1].cost, 0.5);
    CHECK_NEAR(out[0].cost, 0.5 * 0.4);
    fx_done(&f);

    /* An inference pod may not use spot: the filter refuses the spot node (scoring.spotFilter
     * "hard", the default), naming the rule; prioritize scores it 0, infeasible. */
    fx_pod(&f, pol, "'labels':{'gpupack.io/class':'inference'}", GPU1);
    check_spot_refused(&f.d, &n[1], pol, "spot node: class inference does not allow spot");
    score(&f.d, n, 2, pol, out);
    GP_CHECK_INT(out[0].score, 10);
    GP_CHECK_INT(out[1].score, 0);
    GP_CHECK(!out[1].feasible && !out[1].spot_denied);
    CHECK_NEAR(out[0].cost, 0.5); /* the cheaper spot node is no candidate for the cheapest */
    fx_done(&f);

    /* A training pod that does not checkpoint is kept off spot too; the on-demand node, the
     * worst allowed one, still scores above 0. */
    fx_pod(&f, pol, "'labels':{'gpupack.io/class':'training'}", GPUS("4"));
    check_spot_refused(&f.d, &n[1], pol,
                       "spot node: class training needs annotation gpupack.io/checkpointing=true");
    score(&f.d, n, 2, pol, out);
    GP_CHECK_INT(out[1].score, 0);
    GP_CHECK_INT(out[0].score, 10);
    fx_done(&f);
    /* Pods gpupack does not class, or leaves alone, are not refused spot capacity for a rule
     * they were not given: no class, the skip label, an excluded namespace, an audit policy.
     * They still score it 0 (a GPU pod), and a CPU pod takes a spot node like any other. */
    {
        static const char *const alone[] = {
            "'annotations':{'gpupack.io/checkpointing':'true'}",
            "'labels':{'gpupack.io/class':'inference','gpupack.io/skip':'true'}",
        };

        for (size_t i = 0; i < 2; i++) {
            fx_pod(&f, pol, alone[i], GPU1);
            GP_CHECK_INT(gp_filter_node(&f.d, &n[1], pol, NULL), GP_FILTER_PASS);
            score(&f.d, n, 2, pol, out);
            GP_CHECK_INT(out[1].score, 0);
            GP_CHECK(out[1].spot_denied);
            fx_done(&f);
        }
    }
    fx_pod(&f, pol, "", CPU2);
    score(&f.d, n, 2, pol, out);
    GP_CHECK(!out[1].spot_denied && out[1].score > 0);
    fx_done(&f);
    gp_policy_unref(pol);
    /* The pods' namespace (d) excluded, or the policy in audit mode; the same pod is refused
     * under the enforced policy that does not exclude it. */
    {
        static const char *const pols[] = {
            "{'apiVersion':'gpupack.io/v1alpha1','kind':'Policy','excludedNamespaces':['d'],"
            "'classes':{'inference':{}}}",
            "{'apiVersion':'gpupack.io/v1alpha1','kind':'Policy','mode':'audit',"
            "'classes':{'inference':{}}}",
            "{'apiVersion':'gpupack.io/v1alpha1','kind':'Policy','classes':{'inference':{}}}",
        };

        for (size_t i = 0; i < 3; i++) {
            pol = policy_q(pols[i]);
            if (pol == NULL)
                continue;
            fx_pod(&f, pol, "'labels':{'gpupack.io/class':'inference'}", GPU1);
            GP_CHECK_INT(gp_filter_node(&f.d, &n[1], pol, NULL),
                         i < 2 ? GP_FILTER_PASS : GP_FILTER_UNRESOLVABLE);
            fx_done(&f);
            gp_policy_unref(pol);
        }
    }
}

/* scoring.spotFilter "soft": a spot node the pod may not use passes the filter and only scores
 * 0, below every node the pod may use (1..10). */
GP_TEST(scenario_spot_filter_soft)
{
    gp_policy *pol = default_policy();
    gp_node n[3];
    gp_score_parts out[3];
    char reason[GP_REASON_MAX];
    fx f;

    if (pol == NULL)
        return;
    pol->scoring.spot_filter = GP_SPOT_FILTER_SOFT; /* this test's own copy */
    n[0] = mk("on-demand", 8, 0, 0, "p4d.24xlarge", NULL);
    n[1] = mk("spot", 8, 0, 0, "p4d.24xlarge", NULL);
    n[1].spot = true;
    n[2] = mk("busy", 8, 4, 2, "p4d.24xlarge", NULL);
    fx_pod(&f, pol, "'labels':{'gpupack.io/class':'inference'}", GPU1);
    GP_CHECK_INT(filt(&f, &n[1], pol, reason), GP_FILTER_PASS);
    score(&f.d, n, 3, pol, out);
    GP_CHECK_INT(out[2].score, 10);
    GP_CHECK_INT(out[0].score, 1); /* the worst node the pod may use */
    GP_CHECK_INT(out[1].score, 0);
    GP_CHECK(out[1].feasible && out[1].spot_denied); /* only the score says no */
    CHECK_NEAR(out[1].cost, 0); /* and --explain shows the worst cost */
    CHECK_NEAR(out[0].cost, 0.5); /* the cheaper spot node is no candidate for the cheapest */
    fx_done(&f);
    gp_policy_unref(pol);
}

/* A CPU pod goes to CPU nodes first, then to GPU nodes already busy, idle GPU nodes last. */
GP_TEST(scenario_cpu_pod_prefers_non_gpu_nodes)
{
    gp_policy *pol = default_policy();
    gp_node n[4];
    gp_score_parts out[4];
    char reason[GP_REASON_MAX];
    fx f;

    n[0] = mk("gpu-idle", 8, 0, 0, "p4d.24xlarge", NULL);
    n[1] = mk("gpu-busy", 8, 4, 2, "p4d.24xlarge", NULL);
    n[2] = mk("cpu-a", 0, 0, 0, "m5.large", NULL);
    n[2].cpu_alloc_m = 2000;
    n[3] = mk("cpu-b", 0, 0, 0, "m5.24xlarge", NULL);
    fx_pod(&f, pol, "'ownerReferences':[{'kind':'ReplicaSet','name':'web','controller':true}]",
           CPU2);
    for (int i = 0; i < 4; i++)
        GP_CHECK_INT(filt(&f, &n[i], pol, reason), GP_FILTER_PASS);
    score(&f.d, n, 4, pol, out);
    GP_CHECK_INT(out[2].score, 10); /* exact CPU fit */
    GP_CHECK(out[3].score > out[1].score);
    GP_CHECK(out[1].score > out[0].score);
    GP_CHECK_INT(out[0].score, 1);
    CHECK_NEAR(out[0].marginal_cost, 21.9576); /* it would keep the GPU node from scaling down */
    CHECK_NEAR(out[1].marginal_cost, 0);
    fx_done(&f);
    gp_policy_unref(pol);
}

/* Equal free GPUs after placement, but one node would be left with too little CPU for the GPUs
 * it still has free: the other wins. */
GP_TEST(scenario_stranding_avoided)
{
    gp_policy *pol = default_policy();
    gp_node n[2];
    gp_score_parts out[2];
    fx f;

    n[0] = mk("cpu-starved", 8, 4, 2, "p4d.24xlarge", NULL);
    n[0].cpu_used_m = 96000 - 6000; /* 2 CPUs left after the pod for 3 free GPUs */
    n[1] = mk("balanced", 8, 4, 2, "p4d.24xlarge", NULL);
    fx_pod(&f, pol, "", GPU1_CPU4);
    score(&f.d, n, 2, pol, out);
    GP_CHECK_INT(out[1].score, 10);
    GP_CHECK_INT(out[0].score, 1);
    CHECK_NEAR(out[0].fit, out[1].fit);
    CHECK_NEAR(out[0].stranding, 3 / 8.0);
    CHECK_NEAR(out[1].stranding, 0);
    fx_done(&f);
    gp_policy_unref(pol);
}

/* The fragmentation component (gp_frag_score on whole GPUs). The mix: 2-GPU pods. A 1-GPU
 * pod on "pairs-left" (3 free -> 2) keeps room for a pair; on "last-pair" (2 free -> 1) the last
 * GPU fits no pair: fragmentation rises by 1 GPU. Best fit alone picks "last-pair". */
GP_TEST(scenario_fragmentation_keeps_pairs_whole)
{
    gp_policy *pol = default_policy();
    gp_frag_shape pair = {{.cpu_milli = 8000, .num_gpu = 2, .gpu_milli = 1000}, 1.0};
    gp_frag_mix mix = {1, &pair};
    gp_typical typ = { .cpu_m_per_gpu = 4000, .mem_per_gpu = 32 * GIB, .mix = &mix };
    const gp_node *ptrs[2];
    gp_node n[2];
    gp_score_parts out[2];
    fx f;

    n[0] = mk("pairs-left", 8, 5, 3, "p4d.24xlarge", NULL);
    n[1] = mk("last-pair", 8, 6, 3, "p4d.24xlarge", NULL);
    ptrs[0] = &n[0];
    ptrs[1] = &n[1];
    fx_pod(&f, pol, "", GPU1_CPU4);
    gp_prioritize(&f.d, ptrs, 2, pol, &typ, out);
    /* plus the tie-break inside a bucket: 0.5 x GPUs taken after / 16 x 0.04 (6 and 7 taken) */
    CHECK_NEAR(out[0].fragmentation, 0 + 0.5 * 6.0 / 16 * 0.04);
    CHECK_NEAR(out[1].fragmentation, -1.0 + 0.5 * 7.0 / 16 * 0.04);
    GP_CHECK_INT(out[0].score, 10);
    GP_CHECK_INT(out[1].score, 1);
    /* Without a mix, prioritize assumes 1-GPU pods: nothing fragments, the busier node wins. */
    typ.mix = NULL;
    gp_prioritize(&f.d, ptrs, 2, pol, &typ, out);
    CHECK_NEAR(out[0].fragmentation, 0.5 * 6.0 / 16 * 0.04);
    CHECK_NEAR(out[1].fragmentation, 0.5 * 7.0 / 16 * 0.04);
    GP_CHECK_INT(out[1].score, 10);
    GP_CHECK_INT(out[0].score, 1);
    /* MIG-only and CPU nodes have no whole GPUs: no fragmentation component. */
    typ.mix = &mix;
    n[0] = mk("mig", 0, 0, 1, NULL, NULL);
    add_mig(&n[0], "1g.10gb", 7, 0);
    n[1] = mk("cpu", 0, 0, 0, NULL, NULL);
    fx_done(&f);
    fx_pod(&f, pol, "", CPU2);
    gp_prioritize(&f.d, ptrs, 2, pol, &typ, out);
    CHECK_NEAR(out[0].fragmentation, 0);
    CHECK_NEAR(out[1].fragmentation, 0);
    fx_done(&f);
    gp_policy_unref(pol);
}

/* The model pressure judges a constraint the way the filter does (class gpuModels and
 * excludeGpuModels, the annotation, nodeSelector / affinity values) and spreads the kept GPUs
 * over the allowed models' GPUs, relative to all GPUs held per GPU of the cluster. */
GP_TEST(model_pressure_follows_the_filter)
{
    gp_policy *pol = policy_q("{'apiVersion':'gpupack.io/v1alpha1','kind':'Policy','classes':{"
                              "'inference':{'gpuModels':['NVIDIA-A100*','NVIDIA-L4'],"
                              "'excludeGpuModels':['*-40GB']},'any':{}}}");
    const char *models[3] = { "NVIDIA-A100-SXM4-80GB", "NVIDIA-A100-SXM4-40GB", "Tesla-T4" };
    const int64_t gpus[3] = { 8, 8, 16 }; /* 32 GPUs */
    const char *t4[1] = { "Tesla-T4" };
    gp_model_demand d[4];
    double out[3];

    memset(d, 0, sizeof(d));
    /* 4 GPUs of class inference: the 80GB A100s only. 16 GPUs held in all: 2 per GPU of the
     * cluster. 4 on 8 GPUs / (16 / 32) = 1. */
    d[0].class_label = "inference";
    d[0].gpus = 4;
    GP_CHECK(gp_score_model_pressure(d, 1, 16, models, gpus, 3, pol, out));
    CHECK_NEAR(out[0], 1.0);
    CHECK_NEAR(out[1], 0);
    CHECK_NEAR(out[2], 0);
    /* nodeSelector Tesla-T4 (2 GPUs), and an annotation that excludes the 40GB (2 GPUs: over
     * the 80GB A100s and the T4s, 24 GPUs). */
    d[1].products = t4;
    d[1].nproducts = 1;
    d[1].products_set = true;
    d[1].gpus = 2;
    d[2].annotation = "!*-40GB";
    d[2].gpus = 2;
    gp_score_model_pressure(d, 3, 16, models, gpus, 3, pol, out);
    CHECK_NEAR(out[0], (4.0 / 8 + 2.0 / 24) * 2);
    CHECK_NEAR(out[1], 0);
    CHECK_NEAR(out[2], (2.0 / 16 + 2.0 / 24) * 2);
    /* An annotation narrows the class (T4 is not an inference model: nowhere to go, no
     * pressure); a class without models allows every model: free to run anywhere, as is
     * "*"; and no constraint at all. */
    d[3].class_label = "inference";
    d[3].annotation = "Tesla-T4";
    d[3].gpus = 8;
    GP_CHECK(!gp_score_model_pressure(&d[3], 1, 16, models, gpus, 3, pol, out));
    CHECK_NEAR(out[0] + out[1] + out[2], 0);
    d[3].class_label = "any";
    d[3].annotation = NULL;
    GP_CHECK(!gp_score_model_pressure(&d[3], 1, 16, models, gpus, 3, pol, out));
    d[3].class_label = NULL;
    d[3].annotation = "*";
    GP_CHECK(!gp_score_model_pressure(&d[3], 1, 16, models, gpus, 3, pol, out));
    CHECK_NEAR(out[0] + out[1] + out[2], 0);
    GP_CHECK(!gp_score_model_pressure(d, 0, 16, models, gpus, 3, pol, out));
    /* Nodes without the label (models[i] NULL) are judged as the filter judges them: an
     * exclusion lets pods there, an allow list does not. "!Tesla-T4" keeps 4 GPUs off the 16
     * T4s: on the 8 + 8 A100s and 8 unlabeled GPUs (4 / 24, x 40 / 16). */
    const char *with_bare[4] = { models[0], models[1], models[2], NULL };
    const int64_t gpus_bare[4] = { 8, 8, 16, 8 };
    double out4[4];
    d[3].annotation = "!Tesla-T4";
    d[3].gpus = 4;
    GP_CHECK(gp_score_model_pressure(&d[3], 1, 16, with_bare, gpus_bare, 4, pol, out4));
    CHECK_NEAR(out4[3], 4.0 / 24 * 40 / 16);
    CHECK_NEAR(out4[0], 4.0 / 24 * 40 / 16);
    CHECK_NEAR(out4[2], 0);
    d[3].annotation = "NVIDIA-A100*";
    GP_CHECK(gp_score_model_pressure(&d[3], 1, 16, with_bare, gpus_bare, 4, pol, out4));
    CHECK_NEAR(out4[3], 0);
    CHECK_NEAR(out4[0], 4.0 / 16 * 40 / 16);
    gp_policy_unref(pol);
}

/* Two idle nodes alike but for the GPU model; bound pods kept to P100 hold half the P100 GPUs:
 * a pod free to run anywhere goes to the V100 node and leaves the P100 GPUs to the kept work
 * (neither model has a price in the policy: the cost component ties). */
GP_TEST(scenario_model_pressure_keeps_scarce_model_free)
{
    gp_policy *pol = default_policy();
    const char *models[2] = { "Tesla-P100-PCIE-16GB", "Tesla-V100-SXM2-16GB" };
    const int64_t gpus[2] = { 8, 8 };
    gp_model_demand kept = { .products = models, .nproducts = 1, .products_set = true,
                             .gpus = 4 };
    double pressure[2];
    gp_typical typ = { .cpu_m_per_gpu = 4000, .mem_per_gpu = 32 * GIB, .mix = NULL,
                       .model_pressure = pressure, .models = models, .nmodels = 2 };
    const gp_node *ptrs[2];
    gp_node n[2];
    gp_score_parts out[2];
    fx f;

    GP_CHECK(gp_score_model_pressure(&kept, 1, 4, models, gpus, 2, pol, pressure));
    CHECK_NEAR(pressure[0], 4.0 / 8 * (16.0 / 4)); /* 2 */
    CHECK_NEAR(pressure[1], 0);
    n[0] = mk("p100", 4, 0, 0, NULL, models[0]);
    n[1] = mk("v100", 4, 0, 0, NULL, models[1]);
    ptrs[0] = &n[0];
    ptrs[1] = &n[1];
    fx_pod(&f, pol, "", GPU1_CPU4);
    gp_prioritize(&f.d, ptrs, 2, pol, &typ, out);
    /* 2 GPUs of pressure per GPU asked, in the fragmentation component's GPUs. */
    CHECK_NEAR(out[1].fragmentation - out[0].fragmentation, 2.0);
    GP_CHECK_INT(out[1].score, 10);
    GP_CHECK(out[0].score < 10);
    /* Without it the two tie. */
    typ.model_pressure = NULL;
    gp_prioritize(&f.d, ptrs, 2, pol, &typ, out);
    CHECK_NEAR(out[1].fragmentation - out[0].fragmentation, 0);
    GP_CHECK_INT(out[0].score, 10);
    GP_CHECK_INT(out[1].score, 10);
    fx_done(&f);
    gp_policy_unref(pol);
}

/* Among empty nodes the cheaper per useful GPU wins, whatever the whole node costs. */
GP_TEST(scenario_cheaper_per_useful_gpu)
{
    gp_policy *pol = default_policy();
    gp_node n[2];
    gp_score_parts out[2];
    fx f;

    n[0] = mk("a2", 1, 0, 0, "a2-highgpu-1g", NULL);  /* $3.6734 for the node and per GPU */
    n[1] = mk("p4d", 8, 0, 0, "p4d.24xlarge", NULL);  /* $21.9576: $2.7447 per GPU */
    fx_pod(&f, pol, "", GPU1);
    score(&f.d, n, 2, pol, out);
    GP_CHECK_INT(out[1].score, 10);
    GP_CHECK_INT(out[0].score, 1);
    fx_done(&f);

    /* A 4 x A10G node ($4.024) is worth more per GPU than a 1 x A100 node ($3.4309), although
     * the A100 node costs less and would be an exact fit. */
    n[0] = mk("a10gx4", 4, 0, 0, NULL, "NVIDIA-A10G");
    n[1] = mk("a100x1", 1, 0, 0, NULL, "NVIDIA-A100-SXM4-80GB");
    fx_pod(&f, pol, "", GPU1);
    score(&f.d, n, 2, pol, out);
    GP_CHECK_INT(out[0].score, 10);
    GP_CHECK_INT(out[1].score, 1);
    CHECK_NEAR(out[1].cost, 0.5 * 1.006 / 3.4309);
    fx_done(&f);
    gp_policy_unref(pol);
}

/* Among busy nodes the tighter leftover wins; an exact fit is best. */
GP_TEST(scenario_exact_fit_beats_loose_fit)
{
    gp_policy *pol = default_policy();
    gp_node n[3];
    gp_score_parts out[3];
    fx f;

    n[0] = mk("loose", 8, 2, 1, "p4d.24xlarge", NULL);
    n[1] = mk("exact", 8, 6, 2, "p4d.24xlarge", NULL);
    n[2] = mk("tight", 8, 5, 2, "p4d.24xlarge", NULL);
    fx_pod(&f, pol, "", GPUS("2"));
    score(&f.d, n, 3, pol, out);
    GP_CHECK_INT(out[1].score, 10);
    GP_CHECK_INT(out[2].score, 6);
    GP_CHECK_INT(out[0].score, 1);
    CHECK_NEAR(out[1].fragmentation, 0.5 * 8.0 / 16 * 0.04); /* the exact fit, inside the bucket */
    fx_done(&f);
    gp_policy_unref(pol);
}

/* The filter verdicts kube-scheduler turns into FailedNodes and FailedAndUnresolvableNodes. */
GP_TEST(scenario_full_vs_unresolvable)
{
    gp_policy *pol = default_policy();
    gp_node full = mk("full", 8, 6, 3, NULL, NULL), cpu = mk("cpu", 0, 0, 0, NULL, NULL);
    gp_node mig = mk("mig", 0, 0, 3, NULL, NULL), ok = mk("ok", 8, 0, 0, NULL, NULL);
    gp_node nodes[4];
    gp_score_parts out[4];
    char reason[GP_REASON_MAX];
    fx f;

    add_mig(&mig, "2g.20gb", 3, 3);
    fx_pod(&f, pol, "", GPUS("4"));
    GP_CHECK_INT(filt(&f, &full, pol, reason), GP_FILTER_FULL);
    GP_CHECK_STR(reason, "nvidia.com/gpu: 2 of 8 free, pod needs 4");
    GP_CHECK_INT(filt(&f, &cpu, pol, reason), GP_FILTER_UNRESOLVABLE);
    GP_CHECK_STR(reason, "nvidia.com/gpu: node has 0, pod needs 4");
    nodes[0] = full;
    nodes[1] = cpu;
    nodes[2] = mig;
    nodes[3] = ok;
    score(&f.d, nodes, 4, pol, out);
    GP_CHECK(!out[0].feasible && !out[1].feasible && !out[2].feasible && out[3].feasible);
    GP_CHECK_INT(out[0].score + out[1].score + out[2].score, 0);
    GP_CHECK_INT(out[3].score, 10);
    fx_done(&f);
    fx_pod(&f, pol, "", MIG2G);
    GP_CHECK_INT(filt(&f, &mig, pol, reason), GP_FILTER_FULL);
    GP_CHECK_STR(reason, "nvidia.com/mig-2g.20gb: 0 of 3 free");
    fx_done(&f);
    gp_policy_unref(pol);
}

GP_MAIN(GP_CASE(demand_basics), GP_CASE(demand_never_filter), GP_CASE(demand_model_globs),
        GP_CASE(demand_bad_usage), GP_CASE(filter_whole_gpu_reasons), GP_CASE(filter_mig_reasons),
        GP_CASE(filter_unresolvable_wins_over_full), GP_CASE(filter_cordoned),
        GP_CASE(filter_reason_table), GP_CASE(filter_reason_labels),
        GP_CASE(filter_cordoned_tolerated), GP_CASE(prioritize_cordoned_tolerated),
        GP_CASE(filter_gpu_models), GP_CASE(filter_never_restricts_some_pods),
        GP_CASE(filter_reason_bounded), GP_CASE(price_and_marginal_cost),
        GP_CASE(price_of_mig_node), GP_CASE(cost_component), GP_CASE(fit_component),
        GP_CASE(stranding_component), GP_CASE(raw_weighted_sum), GP_CASE(mapping_spreads_tiers),
        GP_CASE(mapping_all_equal_all_ten), GP_CASE(mapping_near_ties_are_one_tier),
        GP_CASE(mapping_many_tiers_monotonic), GP_CASE(mapping_large_input),
        GP_CASE(deterministic_under_permutation), GP_CASE(scenario_busy_node_beats_empty),
        GP_CASE(scenario_free_mig_slice_beats_new_gpu),
        GP_CASE(scenario_spot_only_for_checkpointing), GP_CASE(scenario_spot_filter_soft),
        GP_CASE(scenario_cpu_pod_prefers_non_gpu_nodes), GP_CASE(scenario_stranding_avoided), GP_CASE(scenario_fragmentation_keeps_pairs_whole),
        GP_CASE(model_pressure_follows_the_filter),
        GP_CASE(scenario_model_pressure_keeps_scarce_model_free),
        GP_CASE(scenario_cheaper_per_useful_gpu), GP_CASE(scenario_exact_fit_beats_loose_fit),
        GP_CASE(scenario_full_vs_unresolvable))
