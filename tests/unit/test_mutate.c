/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of lib/mutate.c: which changes gp_mutate() decides for a pod, in which order and
 * why, each only when the pod lacks it; gp_mig_pick() ordering over the policy and the cluster
 * view; and idempotence: decide, build the patch, apply it (tests/unit/jsonpatch_apply.h), decide
 * again, and expect no change.
 *
 * A decision is checked as one string, one item per change in order ("tol nvidia.com/gpu; label
 * gpupack.io/class=interactive; ..."), so a missing, extra or reordered change fails the test.
 * Pods and policies are written with single quotes; q() turns them into JSON. Every test ends
 * with a leak check when built with AddressSanitizer. */
#include "gptest.h"

#include <stdarg.h>
#include <stdbool.h>

#include <cjson/cJSON.h>

#include "gpupack/arena.h"
#include "gpupack/cluster.h"
#include "gpupack/mutate.h"
#include "gpupack/patch.h"
#include "gpupack/podview.h"
#include "gpupack/policy.h"

#include "jsonpatch_apply.h"


/* A malloc'd copy of text with every single quote turned into a double quote. */
static char *q(const char *text)
{
    char *s = strdup(text);

    for (char *c = s; *c; c++)
        if (*c == '\'')
            *c = '"';
    return s;
}

static gp_policy *default_policy(void)
{
    gp_policy *p = NULL;
    char *errors = NULL;

    if (gp_policy_default(&p, &errors) != GP_OK) {
        printf("  default policy: %s\n", errors ? errors : "?");
        gp_test_failed = 1;
    }
    free(errors);
    return p;
}

static gp_policy *policy_of(const char *text)
{
    char *s = q(text);
    gp_policy *p = NULL;
    char *errors = NULL;

    if (gp_policy_parse(s, strlen(s), &p, &errors) != GP_OK) {
        printf("  policy %s:\n%s\n", s, errors ? errors : "?");
        gp_test_failed = 1;
    }
    free(errors);
    free(s);
    return p;
}

/* The default policy with migProfilesAuthoritative on: its migProfiles stand for what nodes
 * offer when the webhook has no view of them. */
static gp_policy *listed_policy(void)
{
    gp_policy *p = default_policy();

    if (p != NULL)
        p->mig_profiles_authoritative = true;
    return p;
}

/* A cluster view whose nodes offer the given allocatable map (single-quoted JSON object). */
static gp_cluster *cluster_offering(const char *alloc)
{
    gp_cluster *c = gp_cluster_new();
    size_t n = strlen(alloc) + 64;
    char *text = malloc(n), *s;
    gp_err err = { { 0 } };

    snprintf(text, n, "{'items':[{'status':{'allocatable':%s}}]}", alloc);
    s = q(text);
    if (c == NULL || gp_cluster_set_nodes_json(c, s, strlen(s), &err) != GP_OK) {
        printf("  cluster view: %s\n", err.msg);
        gp_test_failed = 1;
    }
    free(text);
    free(s);
    return c;
}

static void check_idempotent(const gp_policy *pol, const gp_cluster *view, const char *pod_text,
                             int line);
#define CHECK_IDEMPOTENT(pol, view, pod) check_idempotent(pol, view, pod, __LINE__)

/* --- a decision and its description -------------------------------------------------------- */

typedef struct {
    cJSON *json;
    gp_arena a;
    gp_pod pod;
    gp_decision d;
    gp_status st;
    char desc[4096];
} mfx;

static void app(char *buf, size_t sz, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void app(char *buf, size_t sz, const char *fmt, ...)
{
    size_t n = strlen(buf);
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(buf + n, sz - n, fmt, ap);
    va_end(ap);
}

/* "K=V" for "K In [V]", else "K Op V1|V2"; joined by ",". */
static void describe_exprs(char *buf, size_t sz, const gp_selector_req *r, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (strcmp(r[i].op, "In") == 0 && r[i].nvalues == 1) {
            app(buf, sz, "%s%s=%s", i ? "," : "", r[i].key, r[i].values[0]);
            continue;
        }
        app(buf, sz, "%s%s %s ", i ? "," : "", r[i].key, r[i].op);
        for (size_t j = 0; j < r[i].nvalues; j++)
            app(buf, sz, "%s%s", j ? "|" : "", r[i].values[j]);
    }
}

/* One item per change: "tol KEY", "label K=V", "ann K", "pc NAME", "-priority", "-preemption",
 * "pref W K=V,...", "req K=V,...", "res c0|i0 KEY->VALUE", "deadline N", "sched NAME"; joined
 * by "; ". */
static void describe(const gp_decision *d, char *buf, size_t sz)
{
    buf[0] = '\0';
    for (size_t i = 0; i < d->nchanges; i++) {
        const gp_change *c = &d->changes[i];

        if (i)
            app(buf, sz, "; ");
        switch (c->kind) {
        case GP_CH_SET_LABEL:
            app(buf, sz, "label %s=%s", c->key, c->value);
            break;
        case GP_CH_SET_ANNOTATION:
            app(buf, sz, "ann %s", c->key);
            break;
        case GP_CH_ADD_TOLERATION:
            app(buf, sz, "tol %s", c->tol ? c->tol->key : "(null)");
            break;
        case GP_CH_SET_PRIORITY_CLASS:
            app(buf, sz, "pc %s", c->value);
            break;
        case GP_CH_REMOVE_PRIORITY:
            app(buf, sz, "-priority");
            break;
        case GP_CH_REMOVE_PREEMPTION:
            app(buf, sz, "-preemption");
            break;
        case GP_CH_ADD_PREFERRED:
            app(buf, sz, "pref %d ", c->weight);
            describe_exprs(buf, sz, c->exprs, c->nexprs);
            break;
        case GP_CH_ADD_REQUIRED:
            app(buf, sz, "req ");
            describe_exprs(buf, sz, c->exprs, c->nexprs);
            break;
        case GP_CH_REPLACE_RESOURCE:
            app(buf, sz, "res %c%d %s->%s", c->container->init ? 'i' : 'c', c->container->index,
                c->key, c->value);
            break;
        case GP_CH_SET_ACTIVE_DEADLINE:
            app(buf, sz, "deadline %lld", c->seconds);
            break;
        case GP_CH_SET_SCHEDULER_NAME:
            app(buf, sz, "sched %s", c->value);
            break;
        default:
            app(buf, sz, "?%d", (int)c->kind);
        }
    }
}

/* Decodes the pod (namespace fallback "default") and decides. Returns false, and fails the
 * test with the status and the pod, when the pod does not decode or gp_mutate() fails: a
 * caller that checks the decision only under `if (mfx_run(...))` must not pass silently. */
static bool mfx_run(mfx *f, const gp_policy *pol, const gp_cluster *view, const char *pod_text)
{
    char *s = q(pod_text);
    gp_err err = { { 0 } };

    memset(f, 0, sizeof(*f));
    gp_arena_init(&f->a, 0);
    f->json = cJSON_Parse(s);
    f->st = GP_EINVAL;
    if (pol == NULL || gp_pod_from_json(f->json, "default", &f->a, &f->pod, &err) != GP_OK) {
        printf("  no policy or pod does not decode: %s\n    pod: %s\n", err.msg, s);
        gp_test_failed = 1;
        free(s);
        return false;
    }
    f->st = gp_mutate(&f->pod, pol, view, NULL, &f->a, &f->d);
    if (f->st != GP_OK) {
        printf("  gp_mutate: status %d (%s)\n    pod: %s\n", f->st, gp_status_str(f->st), s);
        gp_test_failed = 1;
        free(s);
        return false;
    }
    free(s);
    describe(&f->d, f->desc, sizeof(f->desc));
    return true;
}

static void mfx_free(mfx *f)
{
    gp_arena_free(&f->a);
    cJSON_Delete(f->json);
}

static const gp_change *find_change(const gp_decision *d, gp_change_kind kind, const char *key)
{
    for (size_t i = 0; i < d->nchanges; i++)
        if (d->changes[i].kind == kind &&
            (key == NULL || (d->changes[i].key && strcmp(d->changes[i].key, key) == 0)))
            return &d->changes[i];
    return NULL;
}

static const char *ann_value(const gp_decision *d, const char *key)
{
    const gp_change *c = find_change(d, GP_CH_SET_ANNOTATION, key);

    return c ? c->value : NULL;
}

/* Decides for the pod and checks the description of the changes. */
static void check_changes(const gp_policy *pol, const gp_cluster *view, const char *pod,
                          const char *want, int line)
{
    mfx f;

    if (mfx_run(&f, pol, view, pod) && strcmp(f.desc, want) != 0) {
        printf("  %s:%d: changes\n    \"%s\"\n  want\n    \"%s\"\n", __FILE__, line, f.desc, want);
        gp_test_failed = 1;
    } else if (f.st != GP_OK) {
        printf("  %s:%d: gp_mutate status %d\n", __FILE__, line, f.st);
        gp_test_failed = 1;
    }
    mfx_free(&f);
}
#define CHECK_CHANGES(pol, view, pod, want) check_changes(pol, view, pod, want, __LINE__)

#define OWNER(kind) "'ownerReferences':[{'kind':'" kind "','name':'x','controller':true}]"
#define GPU_LIMIT(n) "'resources':{'limits':{'nvidia.com/gpu':'" n "'}}"
#define GPU1 "'containers':[{'name':'main'," GPU_LIMIT("1") "}]"
#define TOL "tol nvidia.com/gpu"
#define MUTATED "ann gpupack.io/mutated"
#define INTERACTIVE "label gpupack.io/class=interactive; pc gpu-interactive"
#define INFERENCE "label gpupack.io/class=inference; pc gpu-inference"
#define TRAINING "label gpupack.io/class=training; pc gpu-training"
#define TRAINING_CP "label gpupack.io/class=training; pc gpu-training-preemptible"

/* --- the basic decision -------------------------------------------------------------------- */

/* The mutation kinds: distinct non-empty labels, the ones docs/webhook.md publishes. */
GP_TEST(mutation_kind_table)
{
    static const char *const published[] = { "toleration",     "class-label", "priority-class",
                                             "placement",      "gpu-model",   "mig",
                                             "runtime-cap",    "spot",        "annotation",
                                             "scheduler-name", "rightsizing", "cost-labels" };

    GP_CHECK_INT(GP_MK_COUNT, (int)(sizeof(published) / sizeof(published[0])));
    for (int k = 0; k < GP_MK_COUNT; k++) {
        const char *l = gp_mutation_kind_label((gp_mutation_kind)k);

        GP_CHECK(l != NULL && *l != '\0');
        for (int j = 0; l != NULL && j < GP_MK_COUNT; j++)
            GP_CHECK((strcmp(l, published[j]) == 0) == (j == k));
    }
    GP_CHECK(gp_mutation_kind_label(GP_MK_COUNT) == NULL);
}

GP_TEST(bare_gpu_pod_gets_everything_in_order)
{
    gp_policy *pol = default_policy();
    mfx f;

    if (mfx_run(&f, pol, NULL, "{'metadata':{'name':'p'},'spec':{" GPU1 "}}")) {
        GP_CHECK_STR(f.desc, TOL "; " INTERACTIVE "; deadline 43200; " MUTATED);
        GP_CHECK(f.d.gpu);
        GP_CHECK(!f.d.skipped);
        GP_CHECK(f.d.skip_reason == NULL);
        GP_CHECK_STR(f.d.class_name, "interactive");
        GP_CHECK_STR(f.d.class_why, "rule bare-pods: no owner");
        GP_CHECK_INT(f.d.nwarnings, 0);
        GP_CHECK_STR(f.d.summary, "toleration nvidia.com/gpu:NoSchedule (GPU pod); "
                                  "class interactive (rule bare-pods: no owner); "
                                  "priorityClassName gpu-interactive (class interactive); "
                                  "activeDeadlineSeconds 43200 (class interactive runtime cap)");
        GP_CHECK_STR(ann_value(&f.d, GP_ANN_MUTATED), f.d.summary);
        GP_CHECK_INT(f.d.nchanges, 5);
        if (f.d.nchanges == 5) {
            GP_CHECK_STR(gp_mutation_kind_label(f.d.changes[0].metric), "toleration");
            GP_CHECK(f.d.changes[0].tol == &pol->tolerations[0]);
            GP_CHECK_STR(gp_mutation_kind_label(f.d.changes[1].metric), "class-label");
            GP_CHECK_STR(gp_mutation_kind_label(f.d.changes[2].metric), "priority-class");
            GP_CHECK_STR(gp_mutation_kind_label(f.d.changes[3].metric), "runtime-cap");
            GP_CHECK_INT(f.d.changes[3].seconds, 43200);
            GP_CHECK_STR(gp_mutation_kind_label(f.d.changes[4].metric), "annotation");
        }
    }
    mfx_free(&f);
    gp_policy_unref(pol);
}

GP_TEST(non_gpu_pod_is_left_alone)
{
    gp_policy *pol = default_policy();
    mfx f;

    if (mfx_run(&f, pol, NULL,
                "{'spec':{'containers':[{'resources':{'limits':{'cpu':'1'}}},"
                "{'resources':{'limits':{'nvidia.com/gpu':'0'}}}]}}")) {
        GP_CHECK(!f.d.gpu);
        GP_CHECK(!f.d.skipped);
        GP_CHECK(f.d.class_name == NULL);
        GP_CHECK_INT(f.d.nchanges, 0);
        GP_CHECK_INT(f.d.nwarnings, 0);
        GP_CHECK(f.d.summary == NULL);
    }
    mfx_free(&f);
    gp_policy_unref(pol);
}

GP_TEST(skip_label_true_skips)
{
    gp_policy *pol = default_policy();
    mfx f;

    if (mfx_run(&f, pol, NULL, "{'metadata':{'labels':{'gpupack.io/skip':'true'}},'spec':{" GPU1
                               "}}")) {
        GP_CHECK(f.d.gpu);
        GP_CHECK(f.d.skipped);
        GP_CHECK_STR(f.d.skip_reason, "label gpupack.io/skip=true");
        GP_CHECK(f.d.class_name == NULL);
        GP_CHECK_INT(f.d.nchanges, 0);
        GP_CHECK(f.d.summary == NULL);
    }
    mfx_free(&f);
    /* Only "true" skips. */
    CHECK_CHANGES(pol, NULL,
                  "{'metadata':{'labels':{'gpupack.io/skip':'false'}},'spec':{" GPU1 "}}",
                  TOL "; " INTERACTIVE "; deadline 43200; " MUTATED);
    CHECK_CHANGES(pol, NULL,
                  "{'metadata':{'labels':{'gpupack.io/skip':'True'}},'spec':{" GPU1 "}}",
                  TOL "; " INTERACTIVE "; deadline 43200; " MUTATED);
    gp_policy_unref(pol);
}

GP_TEST(excluded_namespaces_skip)
{
    static const char *const nss[] = { "kube-system", "kube-public", "kube-node-lease",
                                       "gpupack-system" };
    gp_policy *pol = default_policy();
    char pod[256];
    mfx f;

    for (size_t i = 0; i < 4; i++) {
        snprintf(pod, sizeof(pod), "{'metadata':{'namespace':'%s'},'spec':{" GPU1 "}}", nss[i]);
        if (mfx_run(&f, pol, NULL, pod)) {
            GP_CHECK(f.d.skipped);
            GP_CHECK_STR(f.d.skip_reason, "namespace excluded by policy");
            GP_CHECK_INT(f.d.nchanges, 0);
        }
        mfx_free(&f);
    }
    CHECK_CHANGES(pol, NULL, "{'metadata':{'namespace':'kube-systems'},'spec':{" GPU1 "}}",
                  TOL "; " INTERACTIVE "; deadline 43200; " MUTATED);
    gp_policy_unref(pol);
}

/* Static pods' mirrors (created by the kubelet, annotation kubernetes.io/config.mirror) are
 * left alone like the skip label, whatever the class rules say. */
GP_TEST(mirror_pods_are_skipped)
{
    gp_policy *pol = default_policy();
    mfx f;

    if (mfx_run(&f, pol, NULL, "{'metadata':{'name':'etcd-n1','annotations':{"
                               "'kubernetes.io/config.mirror':'0d3f',"
                               "'gpupack.io/gpu-memory':'5Gi'}," OWNER("Node") "},"
                               "'spec':{'nodeName':'n1'," GPU1 "}}")) {
        GP_CHECK(f.d.gpu);
        GP_CHECK(f.d.skipped);
        GP_CHECK_STR(f.d.skip_reason, "mirror pod (annotation kubernetes.io/config.mirror)");
        GP_CHECK(f.d.class_name == NULL);
        GP_CHECK_INT(f.d.nchanges, 0);
        GP_CHECK_INT(f.d.nwarnings, 0);
        GP_CHECK(f.d.summary == NULL);
    }
    mfx_free(&f);
    /* An empty annotation value still marks a mirror. */
    CHECK_CHANGES(pol, NULL, "{'metadata':{'annotations':{'kubernetes.io/config.mirror':''}},"
                             "'spec':{" GPU1 "}}", "");
    /* The other kubelet annotations do not. */
    CHECK_CHANGES(pol, NULL, "{'metadata':{'annotations':{'kubernetes.io/config.source':'file'}},"
                             "'spec':{" GPU1 "}}",
                  TOL "; " INTERACTIVE "; deadline 43200; " MUTATED);
    gp_policy_unref(pol);
}

GP_TEST(excluded_namespace_from_fallback)
{
    gp_policy *pol = default_policy();
    char *s = q("{'spec':{" GPU1 "}}");
    cJSON *json = cJSON_Parse(s);
    gp_arena a;
    gp_pod pod;
    gp_decision d;

    gp_arena_init(&a, 0);
    GP_CHECK_INT(gp_pod_from_json(json, "kube-system", &a, &pod, NULL), GP_OK);
    GP_CHECK_INT(gp_mutate(&pod, pol, NULL, NULL, &a, &d), GP_OK);
    GP_CHECK(d.skipped);
    GP_CHECK_INT(d.nchanges, 0);
    gp_arena_free(&a);
    cJSON_Delete(json);
    free(s);
    gp_policy_unref(pol);
}

/* --- toleration ---------------------------------------------------------------------------- */

GP_TEST(toleration_only_when_not_covered)
{
    gp_policy *pol = default_policy();

    CHECK_CHANGES(pol, NULL, "{'spec':{'tolerations':[{'operator':'Exists'}]," GPU1 "}}",
                  INTERACTIVE "; deadline 43200; " MUTATED);
    CHECK_CHANGES(pol, NULL,
                  "{'spec':{'tolerations':[{'key':'nvidia.com/gpu','operator':'Exists'}]," GPU1
                  "}}",
                  INTERACTIVE "; deadline 43200; " MUTATED);
    CHECK_CHANGES(pol, NULL,
                  "{'spec':{'tolerations':[{'key':'nvidia.com/gpu','operator':'Exists',"
                  "'effect':'NoSchedule'}]," GPU1 "}}",
                  INTERACTIVE "; deadline 43200; " MUTATED);
    CHECK_CHANGES(pol, NULL,
                  "{'spec':{'tolerations':[{'key':'nvidia.com/gpu','operator':'Exists',"
                  "'effect':'NoExecute'}]," GPU1 "}}",
                  TOL "; " INTERACTIVE "; deadline 43200; " MUTATED);
    CHECK_CHANGES(pol, NULL,
                  "{'spec':{'tolerations':[{'key':'nvidia.com/gpu','value':'present',"
                  "'effect':'NoSchedule'}]," GPU1 "}}",
                  TOL "; " INTERACTIVE "; deadline 43200; " MUTATED);
    gp_policy_unref(pol);
}

/* --- class, priority, runtime cap ---------------------------------------------------------- */

GP_TEST(class_label_only_when_different)
{
    gp_policy *pol = default_policy();
    mfx f;

    if (mfx_run(&f, pol, NULL, "{'metadata':{'labels':{'gpupack.io/class':'interactive'}},"
                               "'spec':{" GPU1 "}}")) {
        GP_CHECK_STR(f.desc, TOL "; pc gpu-interactive; deadline 43200; " MUTATED);
        GP_CHECK_STR(f.d.class_why, "label gpupack.io/class");
    }
    mfx_free(&f);
    /* A label naming another class than the rules would give is kept (the label wins). */
    CHECK_CHANGES(pol, NULL, "{'metadata':{'labels':{'gpupack.io/class':'training'}," OWNER(
                                 "ReplicaSet") "},'spec':{" GPU1 "}}",
                  TOL "; pc gpu-training; " MUTATED);
    gp_policy_unref(pol);
}

GP_TEST(unknown_class_label_warns_and_skips_class_changes)
{
    gp_policy *pol = default_policy();
    mfx f;

    if (mfx_run(&f, pol, NULL, "{'metadata':{'labels':{'gpupack.io/class':'bogus'}},"
                               "'spec':{" GPU1 "}}")) {
        GP_CHECK_STR(f.desc, TOL "; " MUTATED);
        GP_CHECK(f.d.class_name == NULL);
        GP_CHECK_STR(f.d.class_why, "unknown class label");
        GP_CHECK_INT(f.d.nwarnings, 1);
        if (f.d.nwarnings == 1)
            GP_CHECK_STR(f.d.warnings[0], "label gpupack.io/class \"bogus\" names no class of the "
                                          "policy; class changes skipped");
        GP_CHECK_STR(f.d.summary, "toleration nvidia.com/gpu:NoSchedule (GPU pod)");
    }
    mfx_free(&f);
    gp_policy_unref(pol);
}

#define IN(k, v) "{'key':'" k "','operator':'In','values':['" v "']}"
#define AFF_REQ(terms) "'affinity':{'nodeAffinity':{'requiredDuringSchedulingIgnoredDuring" \
                       "Execution':{'nodeSelectorTerms':[" terms "]}}}"
#define NO_CLASS(seen) "no class: no rule matched (" seen ") and the policy has no defaultClass"

/* A GPU pod no rule matches gets only the tolerations, and a warning and the summary say why,
 * naming the owner kind seen (issue 15: a RayCluster worker got no class and no word why). */
GP_TEST(no_class_gets_only_the_toleration)
{
    gp_policy *pol = default_policy();
    mfx f;

    if (mfx_run(&f, pol, NULL, "{'metadata':{" OWNER("DaemonSet") "},'spec':{" GPU1 "}}")) {
        GP_CHECK_STR(f.desc, TOL "; " MUTATED);
        GP_CHECK(f.d.class_name == NULL);
        GP_CHECK(f.d.class_why == NULL);
        GP_CHECK_INT(f.d.nwarnings, 1);
        if (f.d.nwarnings == 1)
            GP_CHECK_STR(f.d.warnings[0], NO_CLASS("owner DaemonSet"));
        GP_CHECK_STR(f.d.summary, "toleration nvidia.com/gpu:NoSchedule (GPU pod); "
                                  NO_CLASS("owner DaemonSet"));
    }
    mfx_free(&f);
    /* Only the annotation when the pod already tolerates the taint. */
    if (mfx_run(&f, pol, NULL, "{'metadata':{" OWNER("RayCluster") "},'spec':{'tolerations':"
                               "[{'operator':'Exists'}]," GPU1 "}}")) {
        GP_CHECK_STR(f.desc, MUTATED);
        GP_CHECK_STR(f.d.summary, NO_CLASS("owner RayCluster"));
        GP_CHECK_INT(f.d.nwarnings, 1);
    }
    mfx_free(&f);
    /* ... and nothing once the annotation says it (the reinvocation). */
    if (mfx_run(&f, pol, NULL, "{'metadata':{" OWNER("RayCluster") ",'annotations':{"
                               "'gpupack.io/mutated':'" NO_CLASS("owner RayCluster") "'}},"
                               "'spec':{'tolerations':[{'operator':'Exists'}]," GPU1 "}}")) {
        GP_CHECK_STR(f.desc, "");
        GP_CHECK(f.d.summary == NULL);
        GP_CHECK_INT(f.d.nwarnings, 1);
    }
    mfx_free(&f);
    gp_policy_unref(pol);
}

/* The note names "no owner" for bare pods (under a policy without a bare-pods rule), and is not
 * given when a defaultClass classes the pod or when the class label names an unknown class. */
GP_TEST(no_class_note_owner_and_default_class)
{
    gp_policy *norules = policy_of("{'apiVersion':'gpupack.io/v1alpha1','kind':'Policy',"
                                   "'classes':{'c':{}},'rules':[{'name':'jobs','class':'c',"
                                   "'match':{'ownerKinds':['Job']}}]}");
    gp_policy *withdef = policy_of("{'apiVersion':'gpupack.io/v1alpha1','kind':'Policy',"
                                   "'classes':{'c':{}},'defaultClass':'c'}");
    mfx f;

    if (mfx_run(&f, norules, NULL, "{'spec':{" GPU1 "}}")) {
        GP_CHECK_STR(f.desc, MUTATED);
        GP_CHECK_STR(f.d.summary, NO_CLASS("no owner"));
    }
    mfx_free(&f);
    if (mfx_run(&f, norules, NULL, "{'metadata':{'labels':{'ray.io/originated-from-crd':"
                                   "'RayJob'}," OWNER("RayCluster") "},'spec':{" GPU1 "}}"))
        GP_CHECK_STR(f.d.summary, NO_CLASS("owner RayCluster from RayJob"));
    mfx_free(&f);
    if (mfx_run(&f, withdef, NULL, "{'metadata':{" OWNER("RayCluster") "},'spec':{" GPU1 "}}")) {
        GP_CHECK_STR(f.desc, "label gpupack.io/class=c; " MUTATED);
        GP_CHECK_STR(f.d.summary, "class c (defaultClass)");
        GP_CHECK_INT(f.d.nwarnings, 0);
    }
    mfx_free(&f);
    CHECK_IDEMPOTENT(norules, NULL, "{'spec':{" GPU1 "}}");
    CHECK_IDEMPOTENT(norules, NULL, "{'metadata':{" OWNER("DaemonSet") "},'spec':{"
                                            "'tolerations':[{'operator':'Exists'}]," GPU1 "}}");
    gp_policy_unref(norules);
    gp_policy_unref(withdef);
}

GP_TEST(priority_class_only_when_none)
{
    gp_policy *pol = default_policy();

    CHECK_CHANGES(pol, NULL, "{'spec':{'priorityClassName':'mine','priority':7," GPU1 "}}",
                  TOL "; label gpupack.io/class=interactive; deadline 43200; " MUTATED);
    /* An empty name counts as none. */
    CHECK_CHANGES(pol, NULL, "{'spec':{'priorityClassName':''," GPU1 "}}",
                  TOL "; " INTERACTIVE "; deadline 43200; " MUTATED);
    gp_policy_unref(pol);
}

GP_TEST(priority_fields_removed_only_when_present)
{
    gp_policy *pol = default_policy();

    CHECK_CHANGES(pol, NULL, "{'spec':{'priority':0,'preemptionPolicy':'PreemptLowerPriority',"
                             GPU1 "}}",
                  TOL "; " INTERACTIVE "; -priority; -preemption; deadline 43200; " MUTATED);
    CHECK_CHANGES(pol, NULL, "{'spec':{'priority':0," GPU1 "}}",
                  TOL "; " INTERACTIVE "; -priority; deadline 43200; " MUTATED);
    CHECK_CHANGES(pol, NULL, "{'spec':{'preemptionPolicy':'Never'," GPU1 "}}",
                  TOL "; " INTERACTIVE "; -preemption; deadline 43200; " MUTATED);
    gp_policy_unref(pol);
}

GP_TEST(priority_class_missing_from_cluster_warns)
{
    gp_policy *pol = default_policy();
    gp_cluster *view = gp_cluster_new();
    static const char pcs[] = "{\"items\":[{\"metadata\":{\"name\":\"gpu-training\"}},"
                              "{\"metadata\":{\"name\":\"gpu-inference\"}}]}";
    mfx f;

    GP_CHECK_INT(gp_cluster_set_priority_classes_json(view, pcs, strlen(pcs), NULL), GP_OK);
    if (mfx_run(&f, pol, view, "{'spec':{'priority':0," GPU1 "}}")) {
        GP_CHECK_STR(f.desc, TOL "; label gpupack.io/class=interactive; deadline 43200; " MUTATED);
        GP_CHECK_INT(f.d.nwarnings, 1);
        if (f.d.nwarnings == 1)
            GP_CHECK_STR(f.d.warnings[0], "PriorityClass gpu-interactive does not exist; "
                                          "priorityClassName left unset");
    }
    mfx_free(&f);
    /* A class the cluster has is set as usual. */
    CHECK_CHANGES(pol, view, "{'metadata':{" OWNER("Job") "},'spec':{" GPU1 "}}",
                  TOL "; " TRAINING "; " MUTATED);
    /* A view that knows no PriorityClasses does not restrict. */
    {
        gp_cluster *empty = gp_cluster_new();

        CHECK_CHANGES(pol, empty, "{'spec':{" GPU1 "}}",
                      TOL "; " INTERACTIVE "; deadline 43200; " MUTATED);
        gp_cluster_unref(empty);
    }
    gp_cluster_unref(view);
    gp_policy_unref(pol);
}

/* A view whose PriorityClasses are gpu-training, gpu-inference, gpu-interactive and the
 * globalDefault class `global`. */
static gp_cluster *view_with_global_default(const char *global)
{
    gp_cluster *c = gp_cluster_new();
    char text[512], *s;

    snprintf(text, sizeof(text), "{'items':[{'metadata':{'name':'gpu-training'},'value':50000},"
             "{'metadata':{'name':'gpu-inference'}},{'metadata':{'name':'gpu-interactive'}},"
             "{'metadata':{'name':'%s'},'value':0,'globalDefault':true}]}", global);
    s = q(text);
    if (c == NULL || gp_cluster_set_priority_classes_json(c, s, strlen(s), NULL) != GP_OK)
        gp_test_failed = 1;
    free(s);
    return c;
}

#define OVERRIDE_POLICY "{'apiVersion':'gpupack.io/v1alpha1','kind':'Policy','classes':{" \
                        "'training':{'priorityClassName':'gpu-training'}},'rules':[{'name':" \
                        "'jobs','class':'training','match':{'ownerKinds':['Job']}}],"     \
                        "'priority':{'overrideGlobalDefault':%s}}"
#define JOB_WITH_PC(pc) "{'metadata':{" OWNER("Job") "},'spec':{'priorityClassName':'" pc "'," \
                        "'priority':0,'preemptionPolicy':'PreemptLowerPriority'," GPU1 "}}"

/* priority.overrideGlobalDefault: the globalDefault class the Priority plugin put on the pod
 * counts as none, so the class's PriorityClass replaces it (and the computed fields go). */
GP_TEST(priority_override_global_default)
{
    char text[512];
    gp_policy *on, *off;
    gp_cluster *view = view_with_global_default("cluster-default");
    gp_cluster *pcs_only_none = gp_cluster_new();
    mfx f;

    snprintf(text, sizeof(text), OVERRIDE_POLICY, "true");
    on = policy_of(text);
    snprintf(text, sizeof(text), OVERRIDE_POLICY, "false");
    off = policy_of(text);
    if (on == NULL || off == NULL)
        goto out;
    if (mfx_run(&f, on, view, JOB_WITH_PC("cluster-default"))) {
        GP_CHECK_STR(f.desc, "label gpupack.io/class=training; pc gpu-training; -priority; "
                             "-preemption; " MUTATED);
        GP_CHECK_STR(f.d.summary, "class training (rule jobs: owner Job); priorityClassName "
                                  "gpu-training (class training; replaces the global default "
                                  "cluster-default)");
    }
    mfx_free(&f);
    CHECK_IDEMPOTENT(on, view, JOB_WITH_PC("cluster-default"));
    /* Off (the default): the global default stays. */
    CHECK_CHANGES(off, view, JOB_WITH_PC("cluster-default"),
                  "label gpupack.io/class=training; " MUTATED);
    /* Another class the pod names is its own choice. */
    CHECK_CHANGES(on, view, JOB_WITH_PC("gpu-inference"),
                  "label gpupack.io/class=training; " MUTATED);
    /* Without a known global default nothing is replaced. */
    CHECK_CHANGES(on, NULL, JOB_WITH_PC("cluster-default"),
                  "label gpupack.io/class=training; " MUTATED);
    CHECK_CHANGES(on, pcs_only_none, JOB_WITH_PC("cluster-default"),
                  "label gpupack.io/class=training; " MUTATED);
    /* The class's PriorityClass missing from the cluster: the global default stays, warned. */
    {
        gp_cluster *v2 = view_with_global_default("cluster-default");
        static const char pcs[] = "{\"items\":[{\"metadata\":{\"name\":\"cluster-default\"},"
                                  "\"globalDefault\":true}]}";

        GP_CHECK_INT(gp_cluster_set_priority_classes_json(v2, pcs, strlen(pcs), NULL), GP_OK);
        if (mfx_run(&f, on, v2, JOB_WITH_PC("cluster-default"))) {
            GP_CHECK_STR(f.desc, "label gpupack.io/class=training; " MUTATED);
            GP_CHECK_INT(f.d.nwarnings, 1);
            if (f.d.nwarnings == 1)
                GP_CHECK_STR(f.d.warnings[0], "PriorityClass gpu-training does not exist; "
                                              "priorityClassName keeps the global default");
        }
        mfx_free(&f);
        gp_cluster_unref(v2);
    }
out:
    gp_cluster_unref(pcs_only_none);
    gp_cluster_unref(view);
    gp_policy_unref(on);
    gp_policy_unref(off);
}

/* The class's own PriorityClass being the global default: already set, nothing to replace (a
 * reinvocation loop otherwise). */
GP_TEST(priority_override_class_is_the_global_default)
{
    char text[512];
    gp_policy *on;
    gp_cluster *view = view_with_global_default("gpu-training");

    snprintf(text, sizeof(text), OVERRIDE_POLICY, "true");
    on = policy_of(text);
    CHECK_CHANGES(on, view, JOB_WITH_PC("gpu-training"), "label gpupack.io/class=training; "
                  MUTATED);
    gp_cluster_unref(view);
    gp_policy_unref(on);
}

GP_TEST(runtime_cap_only_when_unset)
{
    gp_policy *pol = default_policy();

    CHECK_CHANGES(pol, NULL, "{'spec':{'activeDeadlineSeconds':60," GPU1 "}}",
                  TOL "; " INTERACTIVE "; " MUTATED);
    /* inference has no cap */
    CHECK_CHANGES(pol, NULL, "{'metadata':{" OWNER("ReplicaSet") "},'spec':{" GPU1 "}}",
                  TOL "; " INFERENCE "; " MUTATED);
    gp_policy_unref(pol);
}

GP_TEST(existing_mutated_annotation_is_extended)
{
    gp_policy *pol = default_policy();
    mfx f;

    if (mfx_run(&f, pol, NULL, "{'metadata':{" OWNER("ReplicaSet") ",'annotations':"
                               "{'gpupack.io/mutated':'earlier'}},'spec':{" GPU1 "}}")) {
        GP_CHECK_STR(ann_value(&f.d, GP_ANN_MUTATED),
                     "earlier; toleration nvidia.com/gpu:NoSchedule (GPU pod); class inference "
                     "(rule services: owner ReplicaSet); priorityClassName gpu-inference "
                     "(class inference)");
        GP_CHECK_STR(f.d.summary, "toleration nvidia.com/gpu:NoSchedule (GPU pod); class "
                                  "inference (rule services: owner ReplicaSet); "
                                  "priorityClassName gpu-inference (class inference)");
    }
    mfx_free(&f);
    gp_policy_unref(pol);
}

/* --- MIG ----------------------------------------------------------------------------------- */

#define DEPLOY_HINT(h) "'metadata':{" OWNER("ReplicaSet") ",'annotations':" \
                       "{'gpupack.io/gpu-memory':'" h "'}}"

static void check_mig(const gp_policy *pol, const gp_cluster *view, const char *hint,
                      const char *want_profile, int line)
{
    char pod[512];
    mfx f;

    snprintf(pod, sizeof(pod), "{" DEPLOY_HINT("%s") ",'spec':{" GPU1 "}}", hint);
    if (mfx_run(&f, pol, view, pod)) {
        const gp_change *c = find_change(&f.d, GP_CH_REPLACE_RESOURCE, NULL);
        const char *got = c ? c->value : NULL;

        if ((want_profile == NULL) != (got == NULL) ||
            (got && strcmp(got, want_profile) != 0)) {
            printf("  %s:%d: hint %s: got %s, want %s\n", __FILE__, line, hint,
                   got ? got : "no rewrite", want_profile ? want_profile : "no rewrite");
            gp_test_failed = 1;
        }
    }
    mfx_free(&f);
}
#define CHECK_MIG(pol, view, hint, want) check_mig(pol, view, hint, want, __LINE__)

GP_TEST(mig_rewrite_for_one_gpu_with_hint)
{
    gp_policy *pol = listed_policy();
    mfx f;

    if (mfx_run(&f, pol, NULL, "{" DEPLOY_HINT("5Gi") ",'spec':{" GPU1 "}}")) {
        const gp_change *c = find_change(&f.d, GP_CH_REPLACE_RESOURCE, NULL);

        GP_CHECK_STR(f.desc, TOL "; " INFERENCE "; res c0 nvidia.com/gpu->nvidia.com/mig-1g.10gb; "
                             "ann gpupack.io/original-resources; " MUTATED);
        GP_CHECK(c != NULL && c->container == &f.pod.containers[0]);
        GP_CHECK(c != NULL && strcmp(gp_mutation_kind_label(c->metric), "mig") == 0);
        GP_CHECK_STR(c ? c->reason : NULL,
                     "container main: nvidia.com/gpu 1 -> nvidia.com/mig-1g.10gb (needs 5Gi)");
        GP_CHECK_STR(ann_value(&f.d, GP_ANN_ORIGINAL),
                     "{\"containers\":{\"main\":{\"limits\":{\"nvidia.com/gpu\":\"1\"}}}}");
        GP_CHECK_INT(f.d.nwarnings, 0);
    }
    mfx_free(&f);
    gp_policy_unref(pol);
}

GP_TEST(mig_rewrite_records_request_and_limit)
{
    gp_policy *pol = listed_policy();
    mfx f;

    if (mfx_run(&f, pol, NULL, "{" DEPLOY_HINT("19Gi") ",'spec':{'containers':[{'name':'main',"
                               "'resources':{'requests':{'nvidia.com/gpu':'1','cpu':'1'},"
                               "'limits':{'nvidia.com/gpu':'1'}}}]}}")) {
        GP_CHECK_STR(f.desc, TOL "; " INFERENCE "; res c0 nvidia.com/gpu->nvidia.com/mig-2g.20gb; "
                             "ann gpupack.io/original-resources; " MUTATED);
        GP_CHECK_STR(ann_value(&f.d, GP_ANN_ORIGINAL),
                     "{\"containers\":{\"main\":{\"requests\":{\"nvidia.com/gpu\":\"1\"},"
                     "\"limits\":{\"nvidia.com/gpu\":\"1\"}}}}");
    }
    mfx_free(&f);
    gp_policy_unref(pol);
}

/* A container that has only a request (no limits map) is rewritten in its requests, and
 * gpupack.io/original-resources records only what it had: no invented limit. (Regression test:
 * record_original() used to write "limits" for every rewritten container.) */
GP_TEST(mig_original_resources_request_only)
{
    gp_policy *pol = listed_policy();
    mfx f;

    if (mfx_run(&f, pol, NULL, "{" DEPLOY_HINT("5Gi") ",'spec':{'containers':[{'name':'main',"
                               "'resources':{'requests':{'nvidia.com/gpu':'1'}}}]}}")) {
        GP_CHECK_STR(f.desc, TOL "; " INFERENCE "; res c0 nvidia.com/gpu->nvidia.com/mig-1g.10gb; "
                             "ann gpupack.io/original-resources; " MUTATED);
        GP_CHECK_STR(ann_value(&f.d, GP_ANN_ORIGINAL),
                     "{\"containers\":{\"main\":{\"requests\":{\"nvidia.com/gpu\":\"1\"}}}}");
    }
    mfx_free(&f);
    gp_policy_unref(pol);
}

GP_TEST(mig_hint_sizes_pick_smallest_fit)
{
    gp_policy *pol = listed_policy();

    /* The default figures are the slices' real framebuffers, below their names: a pod that
     * needs 10Gi does not fit a 1g.10gb (9.5Gi). */
    CHECK_MIG(pol, NULL, "1Mi", "nvidia.com/mig-1g.10gb");
    CHECK_MIG(pol, NULL, "9.5Gi", "nvidia.com/mig-1g.10gb");
    CHECK_MIG(pol, NULL, "10200547329", "nvidia.com/mig-2g.20gb"); /* 9.5Gi + 1 byte */
    CHECK_MIG(pol, NULL, "10Gi", "nvidia.com/mig-2g.20gb");
    CHECK_MIG(pol, NULL, "19.5Gi", "nvidia.com/mig-2g.20gb");
    CHECK_MIG(pol, NULL, "20Gi", "nvidia.com/mig-3g.40gb"); /* 3 slices beat 4 at 39.25Gi */
    CHECK_MIG(pol, NULL, "39.25Gi", "nvidia.com/mig-3g.40gb");
    CHECK_MIG(pol, NULL, "40Gi", "nvidia.com/mig-7g.80gb");
    CHECK_MIG(pol, NULL, "79Gi", "nvidia.com/mig-7g.80gb");
    CHECK_MIG(pol, NULL, "80Gi", NULL);
    gp_policy_unref(pol);
}

GP_TEST(mig_only_for_classes_that_allow_it)
{
    gp_policy *pol = listed_policy();

    CHECK_CHANGES(pol, NULL, "{'metadata':{" OWNER("Job") ",'annotations':"
                             "{'gpupack.io/gpu-memory':'5Gi'}},'spec':{" GPU1 "}}",
                  TOL "; " TRAINING "; " MUTATED);
    /* interactive allows it */
    CHECK_CHANGES(pol, NULL, "{'metadata':{'annotations':{'gpupack.io/gpu-memory':'5Gi'}},"
                             "'spec':{" GPU1 "}}",
                  TOL "; " INTERACTIVE "; res c0 nvidia.com/gpu->nvidia.com/mig-1g.10gb; "
                  "ann gpupack.io/original-resources; deadline 43200; " MUTATED);
    /* no hint, no rewrite and no warning */
    CHECK_CHANGES(pol, NULL, "{'metadata':{" OWNER("ReplicaSet") "},'spec':{" GPU1 "}}",
                  TOL "; " INFERENCE "; " MUTATED);
    gp_policy_unref(pol);
}

static void check_hint_warning(const gp_policy *pol, const gp_cluster *view, const char *hint,
                               const char *want, int line)
{
    char pod[512];
    mfx f;

    snprintf(pod, sizeof(pod), "{" DEPLOY_HINT("%s") ",'spec':{" GPU1 "}}", hint);
    if (mfx_run(&f, pol, view, pod)) {
        if (strcmp(f.desc, TOL "; " INFERENCE "; " MUTATED) != 0 || f.d.nwarnings != 1 ||
            strcmp(f.d.warnings[0], want) != 0) {
            printf("  %s:%d: hint %s: changes \"%s\", %zu warnings (first \"%s\"), want \"%s\"\n",
                   __FILE__, line, hint, f.desc, f.d.nwarnings,
                   f.d.nwarnings ? f.d.warnings[0] : "", want);
            gp_test_failed = 1;
        }
    }
    mfx_free(&f);
}

GP_TEST(mig_bad_hint_and_no_fit_warn)
{
    gp_policy *pol = listed_policy();

    check_hint_warning(pol, NULL, "lots",
                       "annotation gpupack.io/gpu-memory \"lots\" is not a positive quantity; "
                       "no MIG rewrite",
                       __LINE__);
    check_hint_warning(pol, NULL, "0",
                       "annotation gpupack.io/gpu-memory \"0\" is not a positive quantity; "
                       "no MIG rewrite",
                       __LINE__);
    check_hint_warning(pol, NULL, "-5Gi",
                       "annotation gpupack.io/gpu-memory \"-5Gi\" is not a positive quantity; "
                       "no MIG rewrite",
                       __LINE__);
    check_hint_warning(pol, NULL, "100Gi", "no MIG profile offers 100Gi; keeps nvidia.com/gpu",
                       __LINE__);
    gp_policy_unref(pol);
}

/* Every container that asks for GPUs asks for exactly one: the whole pod moves to slices (app
 * containers, init containers and native sidecars alike); containers without GPUs are untouched. */
GP_TEST(mig_several_containers_and_init)
{
    gp_policy *pol = listed_policy();
    mfx f;

    if (mfx_run(&f, pol, NULL, "{" DEPLOY_HINT("5Gi") ",'spec':{'containers':["
                               "{'name':'side','resources':{'limits':{'cpu':'1'}}},"
                               "{'name':'second'," GPU_LIMIT("1") "},"
                               "{'name':'main'," GPU_LIMIT("1") "}],"
                               "'initContainers':[{'name':'init'," GPU_LIMIT("1") "},"
                               "{'name':'proxy','restartPolicy':'Always'," GPU_LIMIT("1")
                               "}]}}")) {
        GP_CHECK_STR(f.desc, TOL "; " INFERENCE "; res c1 nvidia.com/gpu->nvidia.com/mig-1g.10gb; "
                             "res c2 nvidia.com/gpu->nvidia.com/mig-1g.10gb; "
                             "res i0 nvidia.com/gpu->nvidia.com/mig-1g.10gb; "
                             "res i1 nvidia.com/gpu->nvidia.com/mig-1g.10gb; "
                             "ann gpupack.io/original-resources; " MUTATED);
        GP_CHECK_STR(ann_value(&f.d, GP_ANN_ORIGINAL),
                     "{\"containers\":{\"second\":{\"limits\":{\"nvidia.com/gpu\":\"1\"}},"
                     "\"main\":{\"limits\":{\"nvidia.com/gpu\":\"1\"}}},"
                     "\"initContainers\":{\"init\":{\"limits\":{\"nvidia.com/gpu\":\"1\"}},"
                     "\"proxy\":{\"limits\":{\"nvidia.com/gpu\":\"1\"}}}}");
        GP_CHECK_STR(f.d.changes[5].reason, "init container init: nvidia.com/gpu 1 -> "
                                            "nvidia.com/mig-1g.10gb (needs 5Gi)");
        GP_CHECK_INT(f.d.nwarnings, 0);
    }
    mfx_free(&f);
    gp_policy_unref(pol);
}

/* The rewrite never grows the pod (issue 15): a container asking for GPUs otherwise than one
 * whole GPU keeps every container as it is, with a warning naming it. */
static void check_mixed(const gp_policy *pol, const char *containers, const char *want_warning,
                        int line)
{
    char pod[1024];
    mfx f;

    snprintf(pod, sizeof(pod), "{" DEPLOY_HINT("5Gi") ",'spec':{%s}}", containers);
    if (mfx_run(&f, pol, NULL, pod)) {
        if (strcmp(f.desc, TOL "; " INFERENCE "; " MUTATED) != 0 || f.d.nwarnings != 1 ||
            strcmp(f.d.warnings[0], want_warning) != 0) {
            printf("  %s:%d: changes \"%s\", %zu warnings (first \"%s\"), want \"%s\"\n",
                   __FILE__, line, f.desc, f.d.nwarnings, f.d.nwarnings ? f.d.warnings[0] : "",
                   want_warning);
            gp_test_failed = 1;
        }
    }
    mfx_free(&f);
}

#define MIXED(who) "no MIG rewrite: " who " asks for GPUs other than one whole nvidia.com/gpu, " \
                   "and slices beside them would grow the pod; keeps nvidia.com/gpu"

GP_TEST(mig_never_grows_the_pod)
{
    gp_policy *pol = listed_policy();

    /* An init container's GPU beside an app container's two costs nothing extra (the pod needs
     * max(1, 2) = 2 GPUs); a slice for it would add a device. */
    check_mixed(pol, "'containers':[{'name':'two'," GPU_LIMIT("2") "}],"
                     "'initContainers':[{'name':'init'," GPU_LIMIT("1") "}]",
                MIXED("container two"), __LINE__);
    /* One GPU beside two: two whole GPUs plus a slice would be three devices. */
    check_mixed(pol, "'containers':[{'name':'one'," GPU_LIMIT("1") "},{'name':'two',"
                     GPU_LIMIT("2") "}]",
                MIXED("container two"), __LINE__);
    /* A sidecar with two GPUs, and a slice already asked for beside a whole GPU. */
    check_mixed(pol, "'containers':[{'name':'one'," GPU_LIMIT("1") "}],'initContainers':[{"
                     "'name':'proxy','restartPolicy':'Always'," GPU_LIMIT("2") "}]",
                MIXED("init container proxy"), __LINE__);
    check_mixed(pol, "'containers':[{'name':'one'," GPU_LIMIT("1") "},{'name':'mig','resources':"
                     "{'limits':{'nvidia.com/mig-1g.10gb':'1'}}}]",
                MIXED("container mig"), __LINE__);
    check_mixed(pol, "'containers':[{'name':'both','resources':{'limits':{'nvidia.com/gpu':'1',"
                     "'nvidia.com/mig-1g.10gb':'1'}}}]",
                MIXED("container both"), __LINE__);
    gp_policy_unref(pol);
}

#define NOT_ONE(who) "no MIG rewrite: " who " asks for a number of nvidia.com/gpu other than " \
                    "one, and a MIG slice stands for exactly one; keeps nvidia.com/gpu"

/* Only a pod whose GPU containers each ask for exactly one whole GPU moves to slices; one that
 * asks for whole GPUs otherwise is told why not, one already on slices is left alone quietly. */
GP_TEST(mig_only_for_exactly_one_gpu)
{
    gp_policy *pol = listed_policy();
    mfx f;

    check_mixed(pol, "'containers':[{'name':'two'," GPU_LIMIT("2") "}]",
                NOT_ONE("container two"), __LINE__);
    check_mixed(pol, "'containers':[{'name':'r2','resources':{'requests':{'nvidia.com/gpu':'2'},"
                     "'limits':{'nvidia.com/gpu':'1'}}}]",
                NOT_ONE("container r2"), __LINE__);
    check_mixed(pol, "'containers':[{'name':'req','resources':{'requests':{'nvidia.com/gpu':'1'},"
                     "'limits':{'cpu':'1'}}}]",
                NOT_ONE("container req"), __LINE__);
    check_mixed(pol, "'containers':[{'name':'frac'," GPU_LIMIT("1500m") "}]",
                NOT_ONE("container frac"), __LINE__);
    check_mixed(pol, "'containers':[{'name':'a'," GPU_LIMIT("2") "}],'initContainers':[{'name':"
                     "'setup','resources':{'limits':{'nvidia.com/mig-1g.10gb':'1'}}}]",
                NOT_ONE("container a"), __LINE__);
    /* Already on a slice (a reinvocation after the rewrite): nothing to rewrite or to say. */
    if (mfx_run(&f, pol, NULL, "{" DEPLOY_HINT("5Gi") ",'spec':{'containers':[{'resources':{"
                               "'limits':{'nvidia.com/mig-1g.10gb':'1'}}}]}}")) {
        GP_CHECK_STR(f.desc, TOL "; " INFERENCE "; " MUTATED);
        GP_CHECK(f.d.nwarnings == 0);
    }
    mfx_free(&f);
    gp_policy_unref(pol);
}

/* A pod template copied from a mutated pod and set back to one whole GPU: the record says what
 * this rewrite replaced, not what an earlier one did. */
GP_TEST(mig_original_annotation_replaced)
{
    gp_policy *pol = listed_policy();
    mfx f;

    if (mfx_run(&f, pol, NULL, "{'metadata':{" OWNER("ReplicaSet") ",'annotations':{"
                               "'gpupack.io/gpu-memory':'5Gi','gpupack.io/original-resources':"
                               "'{\\'containers\\':{\\'x\\':{}}}'}},'spec':{" GPU1 "}}")) {
        GP_CHECK_STR(f.desc, TOL "; " INFERENCE "; res c0 nvidia.com/gpu->nvidia.com/mig-1g.10gb; "
                             "ann gpupack.io/original-resources; " MUTATED);
        GP_CHECK_STR(ann_value(&f.d, "gpupack.io/original-resources"),
                     "{\"containers\":{\"main\":{\"limits\":{\"nvidia.com/gpu\":\"1\"}}}}");
    }
    mfx_free(&f);
    gp_policy_unref(pol);
}

/* --- gp_mig_pick --------------------------------------------------------------------------- */

/* Profiles listed worst-first, so that list order never decides. */
static const char mig_policy[] =
    "{'apiVersion':'gpupack.io/v1alpha1','kind':'Policy','migProfilesAuthoritative':true,"
    "'migProfiles':["
    "{'name':'2g.10gb','memory':'10Gi','computeSlices':2},"
    "{'name':'1g.20gb','memory':'20Gi','computeSlices':1},"
    "{'name':'1g.10gb+me','memory':'10Gi','computeSlices':1},"
    "{'name':'1g.10gb','memory':'10Gi','computeSlices':1},"
    "{'name':'1g.5gb','memory':'5Gi','computeSlices':1}]}";

static const char *pick(const gp_policy *pol, const gp_cluster *view, const char *need)
{
    gp_qty q;
    gp_arena a;
    const gp_mig_profile *p;
    static char name[64];

    if (gp_qty_parse_str(need, &q, NULL) != GP_OK)
        return "(bad quantity)";
    gp_arena_init(&a, 0);
    p = gp_mig_pick(pol, view, NULL, q, &a);
    snprintf(name, sizeof(name), "%s", p ? p->name : "NULL");
    gp_arena_free(&a);
    return name;
}

GP_TEST(mig_pick_fewest_slices_then_memory_then_name)
{
    gp_policy *pol = policy_of(mig_policy);

    if (pol == NULL)
        return;
    GP_CHECK_STR(pick(pol, NULL, "1Gi"), "1g.5gb");  /* least memory among 1 slice */
    GP_CHECK_STR(pick(pol, NULL, "5Gi"), "1g.5gb");  /* exactly enough is enough */
    GP_CHECK_STR(pick(pol, NULL, "6Gi"), "1g.10gb"); /* name breaks the tie with 1g.10gb+me */
    GP_CHECK_STR(pick(pol, NULL, "10Gi"), "1g.10gb");
    GP_CHECK_STR(pick(pol, NULL, "11Gi"), "1g.20gb"); /* fewest slices */
    GP_CHECK_STR(pick(pol, NULL, "20Gi"), "1g.20gb");
    GP_CHECK_STR(pick(pol, NULL, "21Gi"), "NULL");
    gp_policy_unref(pol);
}

GP_TEST(mig_pick_fewer_slices_beats_less_memory)
{
    gp_policy *pol = policy_of("{'apiVersion':'gpupack.io/v1alpha1','kind':'Policy',"
                               "'migProfilesAuthoritative':true,'migProfiles':["
                               "{'name':'2g.10gb','memory':'10Gi','computeSlices':2},"
                               "{'name':'1g.40gb','memory':'40Gi','computeSlices':1}]}");

    if (pol == NULL)
        return;
    GP_CHECK_STR(pick(pol, NULL, "8Gi"), "1g.40gb");
    gp_policy_unref(pol);
}

GP_TEST(mig_pick_no_profiles)
{
    gp_policy *pol = policy_of("{'apiVersion':'gpupack.io/v1alpha1','kind':'Policy'}");

    if (pol == NULL)
        return;
    GP_CHECK_STR(pick(pol, NULL, "1"), "NULL");
    gp_policy_unref(pol);
}

GP_TEST(mig_cluster_view_restricts_profiles)
{
    gp_policy *pol = default_policy();
    gp_cluster *view = cluster_offering("{'nvidia.com/mig-3g.40gb':'2','nvidia.com/mig-7g.80gb':"
                                        "'1','nvidia.com/mig-1g.10gb':'0'}");

    GP_CHECK_STR(pick(pol, view, "5Gi"), "3g.40gb");
    GP_CHECK_STR(pick(pol, view, "41Gi"), "7g.80gb");
    GP_CHECK_STR(pick(pol, view, "81Gi"), "NULL");
    CHECK_MIG(pol, view, "5Gi", "nvidia.com/mig-3g.40gb");
    /* A view without nodes falls back to the policy's list only when it is authoritative. */
    {
        gp_cluster *pcs_only = gp_cluster_new();
        gp_policy *listed = listed_policy();

        GP_CHECK_STR(pick(pol, pcs_only, "5Gi"), "NULL");
        GP_CHECK_STR(pick(listed, pcs_only, "5Gi"), "1g.10gb");
        gp_cluster_unref(pcs_only);
        gp_policy_unref(listed);
    }
    gp_cluster_unref(view);
    gp_policy_unref(pol);
}

GP_TEST(mig_cluster_offering_nothing_means_no_rewrite)
{
    gp_policy *pol = default_policy();
    gp_cluster *view = cluster_offering("{'nvidia.com/gpu':'8'}");

    GP_CHECK(view != NULL && view->has_nodes && view->nmig_profiles == 0);
    GP_CHECK_STR(pick(pol, view, "5Gi"), "NULL");
    check_hint_warning(pol, view, "5Gi", "no node offers MIG slices; keeps nvidia.com/gpu",
                       __LINE__);
    gp_cluster_unref(view);
    gp_policy_unref(pol);
}

/* Without a synced node view the policy's list is not proof that any node offers a slice (a
 * cluster without MIG nodes would leave the pod Pending): no rewrite unless the policy says its
 * list is authoritative. */
GP_TEST(mig_needs_a_node_view_or_an_authoritative_list)
{
    gp_policy *pol = default_policy(), *listed = listed_policy();
    gp_cluster *pcs_only = gp_cluster_new();
    static const char want[] = "no MIG rewrite: the webhook has no synced view of the nodes, so "
                               "nothing says which MIG slices exist; keeps nvidia.com/gpu";

    GP_CHECK_STR(pick(pol, NULL, "5Gi"), "NULL");
    check_hint_warning(pol, NULL, "5Gi", want, __LINE__);
    check_hint_warning(pol, pcs_only, "5Gi", want, __LINE__);
    CHECK_MIG(listed, NULL, "5Gi", "nvidia.com/mig-1g.10gb");
    CHECK_MIG(listed, pcs_only, "5Gi", "nvidia.com/mig-1g.10gb");
    gp_cluster_unref(pcs_only);
    gp_policy_unref(listed);
    gp_policy_unref(pol);
}

GP_TEST(mig_profile_parsed_from_name_when_not_in_policy)
{
    gp_policy *pol = default_policy();
    gp_cluster *view = cluster_offering("{'nvidia.com/mig-1g.20gb':'1',"
                                        "'nvidia.com/mig-2g.20gb':'1',"
                                        "'nvidia.com/mig-weird':'1','nvidia.com/mig-0g.5gb':'1',"
                                        "'nvidia.com/mig-1g.5gb+me':'1'}");
    gp_qty need;
    gp_arena a;
    const gp_mig_profile *p;

    gp_arena_init(&a, 0);
    GP_CHECK_INT(gp_qty_parse_str("15Gi", &need, NULL), GP_OK);
    p = gp_mig_pick(pol, view, NULL, need, &a);
    GP_CHECK(p != NULL);
    if (p != NULL) {
        GP_CHECK_STR(p->name, "1g.20gb");
        GP_CHECK_INT(p->slices, 1);
        /* 20 GiB x 7/8: the name overstates a slice's framebuffer. */
        GP_CHECK(p->memory.nano == (__int128)20 * 896 * 1048576 * 1000000000);
    }
    /* "1g.5gb+me", "0g.5gb" and "weird" cannot be parsed and are not in the policy: ignored. */
    GP_CHECK_INT(gp_qty_parse_str("1Gi", &need, NULL), GP_OK);
    p = gp_mig_pick(pol, view, NULL, need, &a);
    GP_CHECK_STR(p ? p->name : "NULL", "1g.20gb");
    GP_CHECK_STR(pick(pol, view, "17.5Gi"), "1g.20gb");
    GP_CHECK_STR(pick(pol, view, "18Gi"), "2g.20gb"); /* the policy's 19.5Gi */
    GP_CHECK_STR(pick(pol, view, "20Gi"), "NULL");
    gp_arena_free(&a);
    gp_cluster_unref(view);
    gp_policy_unref(pol);
}

/* --- MIG: only profiles a node the pod can use offers (issue 15) ----------------------------- */

static gp_cluster *cluster_of(const char *items)
{
    gp_cluster *c = gp_cluster_new();
    char text[4096], *s;
    gp_err err = { { 0 } };

    snprintf(text, sizeof(text), "{'items':[%s]}", items);
    s = q(text);
    if (c == NULL || gp_cluster_set_nodes_json(c, s, strlen(s), &err) != GP_OK) {
        printf("  cluster view: %s\n", err.msg);
        gp_test_failed = 1;
    }
    free(s);
    return c;
}

/* An A100 node sliced 1g.10gb, an H100 node sliced 3g.40gb (pool h100), an L4 node (no MIG). */
#define NODE_A100 "{'metadata':{'name':'a100-1','labels':{'nvidia.com/gpu.product':" \
                  "'NVIDIA-A100-SXM4-80GB','gpupack.io/pool':'a100'}},'status':{'allocatable':" \
                  "{'nvidia.com/mig-1g.10gb':'7'}}}"
#define NODE_H100 "{'metadata':{'name':'h100-1','labels':{'nvidia.com/gpu.product':" \
                  "'NVIDIA-H100-80GB-HBM3','gpupack.io/pool':'h100'}},'status':{'allocatable':" \
                  "{'nvidia.com/mig-3g.40gb':'2'}}}"
#define NODE_L4 "{'metadata':{'name':'l4-1','labels':{'nvidia.com/gpu.product':'NVIDIA-L4'," \
                "'gpupack.io/pool':'l4'}},'status':{'allocatable':{'nvidia.com/gpu':'4'}}}"
#define NOT_HERE(h) "no node this pod can use offers a MIG profile with " h "; keeps nvidia.com/gpu"

/* The pod's own selection: nodeSelector, required affinity, nodeName. */
static void check_mig_where(const gp_policy *pol, const gp_cluster *view, const char *spec,
                            const char *want_profile, const char *want_warning, int line)
{
    char pod[2048];
    mfx f;

    snprintf(pod, sizeof(pod), "{" DEPLOY_HINT("5Gi") ",'spec':{%s" GPU1 "}}", spec);
    if (mfx_run(&f, pol, view, pod)) {
        const gp_change *c = find_change(&f.d, GP_CH_REPLACE_RESOURCE, NULL);
        const char *got = c ? c->value : NULL, *w = f.d.nwarnings ? f.d.warnings[0] : NULL;

        if ((want_profile == NULL) != (got == NULL) || (got && strcmp(got, want_profile) != 0) ||
            (want_warning == NULL) != (w == NULL) || (w && strcmp(w, want_warning) != 0)) {
            printf("  %s:%d: got %s (warning %s), want %s (warning %s)\n", __FILE__, line,
                   got ? got : "no rewrite", w ? w : "none",
                   want_profile ? want_profile : "no rewrite", want_warning ? want_warning : "none");
            gp_test_failed = 1;
        }
    }
    mfx_free(&f);
}
#define CHECK_MIG_WHERE(pol, view, spec, want, warning) \
    check_mig_where(pol, view, spec, want, warning, __LINE__)

static size_t count_changes(const gp_decision *d, gp_change_kind kind)
{
    size_t n = 0;

    for (size_t i = 0; i < d->nchanges; i++)
        n += d->changes[i].kind == kind;
    return n;
}

/* A container that states nvidia.com/gpu: 0 asks for nothing (Kubernetes counts it so): it neither
 * blocks the rewrite of the others nor is rewritten itself. */
GP_TEST(mig_gpu_zero_container_asks_for_nothing)
{
    gp_policy *pol = default_policy();
    gp_cluster *view = cluster_of(NODE_A100);

    CHECK_MIG_WHERE(pol, view, "'initContainers':[{'name':'setup'," GPU_LIMIT("0") "}],",
                    "nvidia.com/mig-1g.10gb", NULL);
    {
        mfx f;

        if (mfx_run(&f, pol, view, "{" DEPLOY_HINT("5Gi") ",'spec':{'containers':[{'name':'main',"
                                   GPU_LIMIT("1") "},{'name':'metrics'," GPU_LIMIT("0") "}]}}")) {
            GP_CHECK_INT(f.d.nwarnings, 0);
            GP_CHECK_INT(count_changes(&f.d, GP_CH_REPLACE_RESOURCE), 1);
            const gp_change *c = find_change(&f.d, GP_CH_REPLACE_RESOURCE, NULL);

            GP_CHECK(c != NULL);
            if (c != NULL)
                GP_CHECK_STR(c->container->name, "main");
        }
        mfx_free(&f);
    }
    gp_cluster_unref(view);
    gp_policy_unref(pol);
}

/* A pod of two 1-GPU containers needs two slices: a node with one instance of the profile
 * cannot take it, so a profile some usable node offers twice is chosen, or none. */
#define NODE_ONE_3G "{'metadata':{'name':'nc24-1','labels':{'gpupack.io/pool':'one'}},'status':" \
                    "{'allocatable':{'nvidia.com/mig-3g.40gb':'1'}}}"
#define NODE_TWO_7G "{'metadata':{'name':'big-1','labels':{'gpupack.io/pool':'big'}},'status':" \
                    "{'allocatable':{'nvidia.com/mig-7g.80gb':'2'}}}"
#define TWO_GPU1 "'containers':[{'name':'a'," GPU_LIMIT("1") "},{'name':'b'," GPU_LIMIT("1") "}]"

static const char *two_container_pick(const gp_policy *pol, const gp_cluster *view,
                                      const char **warning)
{
    static char got[64];
    mfx f;

    *got = '\0';
    *warning = NULL;
    if (mfx_run(&f, pol, view, "{" DEPLOY_HINT("30Gi") ",'spec':{" TWO_GPU1 "}}")) {
        const gp_change *c = find_change(&f.d, GP_CH_REPLACE_RESOURCE, NULL);

        snprintf(got, sizeof(got), "%s", c ? c->value : "");
        *warning = f.d.nwarnings ? "warned" : NULL;
        if (f.d.nwarnings)
            printf("  warning: %s\n", f.d.warnings[0]);
    }
    mfx_free(&f);
    return got;
}

GP_TEST(mig_profile_needs_enough_instances)
{
    gp_policy *pol = default_policy();
    gp_cluster *one = cluster_of(NODE_ONE_3G), *both = cluster_of(NODE_ONE_3G "," NODE_TWO_7G);
    const char *w;

    GP_CHECK(one != NULL && one->nnodes == 1 && one->nodes[0].counts[0] == 1);
    GP_CHECK_STR(two_container_pick(pol, one, &w), "");
    GP_CHECK(w != NULL);
    GP_CHECK_STR(two_container_pick(pol, both, &w), "nvidia.com/mig-7g.80gb");
    GP_CHECK(w == NULL);
    /* One container: one instance is enough. */
    CHECK_MIG_WHERE(pol, one, "", "nvidia.com/mig-3g.40gb", NULL);
    gp_cluster_unref(one);
    gp_cluster_unref(both);
    gp_policy_unref(pol);
}

GP_TEST(mig_only_on_nodes_the_pod_can_use)
{
    gp_policy *pol = default_policy();
    gp_cluster *view = cluster_of(NODE_A100 "," NODE_H100 "," NODE_L4);

    GP_CHECK(view != NULL && view->nnodes == 2); /* the L4 node offers nothing: not kept */
    /* Anywhere: the smallest fit of all. */
    CHECK_MIG_WHERE(pol, view, "", "nvidia.com/mig-1g.10gb", NULL);
    /* nodeSelector on the L4 product: no L4 node has slices. */
    CHECK_MIG_WHERE(pol, view, "'nodeSelector':{'nvidia.com/gpu.product':'NVIDIA-L4'},", NULL,
                    NOT_HERE("5Gi"));
    /* nodeSelector on the H100: its slice, not the A100's smaller one. */
    CHECK_MIG_WHERE(pol, view, "'nodeSelector':{'nvidia.com/gpu.product':'NVIDIA-H100-80GB-HBM3'},",
                    "nvidia.com/mig-3g.40gb", NULL);
    /* Required affinity (terms ORed): H100 or L4. */
    CHECK_MIG_WHERE(pol, view, AFF_REQ("{'matchExpressions':[" IN("gpupack.io/pool", "l4") "]},"
                                       "{'matchExpressions':[" IN("gpupack.io/pool", "h100") "]}")
                    ",", "nvidia.com/mig-3g.40gb", NULL);
    CHECK_MIG_WHERE(pol, view, AFF_REQ("{'matchExpressions':[{'key':'gpupack.io/pool','operator':"
                                       "'NotIn','values':['a100','h100']}]}") ",", NULL,
                    NOT_HERE("5Gi"));
    CHECK_MIG_WHERE(pol, view, AFF_REQ("{'matchFields':[" IN("metadata.name", "h100-1") "]}") ",",
                    "nvidia.com/mig-3g.40gb", NULL);
    /* Created bound to a node: only that node's slices. */
    CHECK_MIG_WHERE(pol, view, "'nodeName':'l4-1',", NULL, NOT_HERE("5Gi"));
    CHECK_MIG_WHERE(pol, view, "'nodeName':'gone',", NULL, NOT_HERE("5Gi"));
    CHECK_MIG_WHERE(pol, view, "'nodeName':'h100-1',", "nvidia.com/mig-3g.40gb", NULL);
    /* Nothing anywhere is large enough: the old message. */
    {
        mfx f;

        if (mfx_run(&f, pol, view, "{" DEPLOY_HINT("50Gi") ",'spec':{" GPU1 "}}")) {
            GP_CHECK_INT(f.d.nwarnings, 1);
            if (f.d.nwarnings == 1)
                GP_CHECK_STR(f.d.warnings[0], "no MIG profile offers 50Gi; keeps nvidia.com/gpu");
        }
        mfx_free(&f);
    }
    gp_cluster_unref(view);
    gp_policy_unref(pol);
}

/* The class's required pool is where the pod will run: only its nodes' slices count. */
GP_TEST(mig_only_in_the_required_pool)
{
    gp_policy *pol = policy_of("{'apiVersion':'gpupack.io/v1alpha1','kind':'Policy',"
                               "'classes':{'h':{'migAllowed':true,'pool':{'nodeLabels':"
                               "{'gpupack.io/pool':'h100'},'placement':'required'}},"
                               "'l':{'migAllowed':true,'pool':{'nodeLabels':"
                               "{'gpupack.io/pool':'l4'},'placement':'required'}},"
                               "'p':{'migAllowed':true,'pool':{'nodeLabels':"
                               "{'gpupack.io/pool':'l4'},'placement':'preferred'}}},"
                               "'rules':[{'name':'h','class':'h','match':{'namespaces':['h']}},"
                               "{'name':'l','class':'l','match':{'namespaces':['l']}},"
                               "{'name':'p','class':'p','match':{'namespaces':['p']}}]}");
    gp_cluster *view = cluster_of(NODE_A100 "," NODE_H100 "," NODE_L4);
    mfx f;

    if (mfx_run(&f, pol, view, "{'metadata':{'namespace':'h','annotations':{"
                               "'gpupack.io/gpu-memory':'5Gi'}},'spec':{" GPU1 "}}"))
        GP_CHECK_STR(f.desc, "label gpupack.io/class=h; req gpupack.io/pool=h100; "
                             "res c0 nvidia.com/gpu->nvidia.com/mig-3g.40gb; "
                             "ann gpupack.io/original-resources; " MUTATED);
    mfx_free(&f);
    if (mfx_run(&f, pol, view, "{'metadata':{'namespace':'l','annotations':{"
                               "'gpupack.io/gpu-memory':'5Gi'}},'spec':{" GPU1 "}}")) {
        GP_CHECK_STR(f.desc, "label gpupack.io/class=l; req gpupack.io/pool=l4; " MUTATED);
        GP_CHECK_INT(f.d.nwarnings, 1);
        if (f.d.nwarnings == 1)
            GP_CHECK_STR(f.d.warnings[0], NOT_HERE("5Gi"));
    }
    mfx_free(&f);
    /* A preferred pool does not restrict. */
    if (mfx_run(&f, pol, view, "{'metadata':{'namespace':'p','annotations':{"
                               "'gpupack.io/gpu-memory':'5Gi'}},'spec':{" GPU1 "}}"))
        GP_CHECK_STR(f.desc, "label gpupack.io/class=p; pref 50 gpupack.io/pool=l4; "
                             "res c0 nvidia.com/gpu->nvidia.com/mig-1g.10gb; "
                             "ann gpupack.io/original-resources; " MUTATED);
    mfx_free(&f);
    /* Idempotent: the reinvocation sees the pool term and the slice. */
    CHECK_IDEMPOTENT(pol, view, "{'metadata':{'namespace':'h','annotations':{"
                                "'gpupack.io/gpu-memory':'5Gi'}},'spec':{" GPU1 "}}");
    gp_cluster_unref(view);
    gp_policy_unref(pol);
}

/* --- spot ---------------------------------------------------------------------------------- */

#define SPOT_TOLS "tol cloud.google.com/gke-spot; tol kubernetes.azure.com/scalesetpriority; " \
                  "tol karpenter.sh/capacity-type"
#define SPOT_PREFS "pref 50 karpenter.sh/capacity-type=spot; pref 50 cloud.google.com/gke-spot=" \
                   "true; pref 50 eks.amazonaws.com/capacityType=SPOT; pref 50 "                 \
                   "kubernetes.azure.com/scalesetpriority=spot"
#define JOB_CP(v) "'metadata':{" OWNER("Job") ",'annotations':{'gpupack.io/checkpointing':'" v "'}}"

GP_TEST(spot_for_checkpointing_training)
{
    gp_policy *pol = default_policy();
    mfx f;

    if (mfx_run(&f, pol, NULL, "{" JOB_CP("true") ",'spec':{" GPU1 "}}")) {
        GP_CHECK_STR(f.desc, TOL "; " TRAINING_CP "; " SPOT_TOLS "; " SPOT_PREFS "; " MUTATED);
        GP_CHECK_INT(f.d.nchanges, 11);
        if (f.d.nchanges == 11) {
            GP_CHECK_STR(f.d.changes[3].reason, "spot tolerations and preferred spot nodes "
                                                "(checkpointing, class training)");
            GP_CHECK_STR(gp_mutation_kind_label(f.d.changes[3].metric), "spot");
            for (size_t i = 4; i < 10; i++) {
                GP_CHECK(f.d.changes[i].reason == NULL);
                GP_CHECK_STR(gp_mutation_kind_label(f.d.changes[i].metric), "spot");
            }
        }
        GP_CHECK_STR(f.d.summary, "toleration nvidia.com/gpu:NoSchedule (GPU pod); class training "
                                  "(rule batch-jobs: owner Job); priorityClassName "
                                  "gpu-training-preemptible (class training, checkpointing); spot "
                                  "tolerations and preferred spot nodes "
                                  "(checkpointing, class training)");
    }
    mfx_free(&f);
    gp_policy_unref(pol);
}

GP_TEST(spot_only_with_true_and_spot_class)
{
    gp_policy *pol = default_policy();

    CHECK_CHANGES(pol, NULL, "{" JOB_CP("True") ",'spec':{" GPU1 "}}",
                  TOL "; " TRAINING "; " MUTATED);
    CHECK_CHANGES(pol, NULL, "{" JOB_CP("yes") ",'spec':{" GPU1 "}}",
                  TOL "; " TRAINING "; " MUTATED);
    CHECK_CHANGES(pol, NULL, "{'metadata':{" OWNER("Job") "},'spec':{" GPU1 "}}",
                  TOL "; " TRAINING "; " MUTATED);
    /* inference is not spotAllowed */
    CHECK_CHANGES(pol, NULL, "{'metadata':{" OWNER("ReplicaSet") ",'annotations':"
                             "{'gpupack.io/checkpointing':'true'}},'spec':{" GPU1 "}}",
                  TOL "; " INFERENCE "; " MUTATED);
    gp_policy_unref(pol);
}

GP_TEST(spot_skips_what_the_pod_has)
{
    gp_policy *pol = default_policy();

    CHECK_CHANGES(pol, NULL, "{" JOB_CP("true") ",'spec':{'tolerations':[{'key':"
                             "'cloud.google.com/gke-spot','operator':'Exists'}],'affinity':{"
                             "'nodeAffinity':{'preferredDuringSchedulingIgnoredDuringExecution':["
                             "{'weight':1,'preference':{'matchExpressions':[{'key':"
                             "'karpenter.sh/capacity-type','operator':'In',"
                             "'values':['spot']}]}}]}},"
                             GPU1 "}}",
                  TOL "; " TRAINING_CP "; tol kubernetes.azure.com/scalesetpriority; "
                  "tol karpenter.sh/capacity-type; pref 50 cloud.google.com/gke-spot=true; "
                  "pref 50 eks.amazonaws.com/capacityType=SPOT; "
                  "pref 50 kubernetes.azure.com/scalesetpriority=spot; " MUTATED);
    /* A pod bound to a node gets the tolerations but no affinity. */
    CHECK_CHANGES(pol, NULL, "{" JOB_CP("true") ",'spec':{'nodeName':'n1'," GPU1 "}}",
                  TOL "; " TRAINING_CP "; " SPOT_TOLS "; " MUTATED);
    gp_policy_unref(pol);
}

/* --- pools --------------------------------------------------------------------------------- */

static const char pool_policy[] =
    "{'apiVersion':'gpupack.io/v1alpha1','kind':'Policy',"
    "'tolerations':[{'key':'nvidia.com/gpu','operator':'Exists','effect':'NoSchedule'}],"
    "'classes':{"
    "'pref':{'pool':{'nodeLabels':{'gpupack.io/pool':'a100','zone':'z1'},'placement':'preferred',"
    "'weight':80}},"
    "'req':{'spotAllowed':true,'pool':{'nodeLabels':{'gpupack.io/pool':'h100'},"
    "'placement':'required'}}},"
    "'rules':[{'name':'p','class':'pref','match':{'namespaces':['pref']}},"
    "{'name':'r','class':'req','match':{'namespaces':['req']}}],"
    "'spot':{'tolerations':[{'key':'spot','operator':'Exists','effect':'NoSchedule'}],"
    "'nodeLabels':[{'key':'spot','value':'true'}],'weight':10}}";

#define PREF_TERM(w, exprs) "{'weight':" #w ",'preference':{'matchExpressions':[" exprs "]}}"
#define AFF_PREF(terms) "'affinity':{'nodeAffinity':{'preferredDuringSchedulingIgnoredDuring" \
                        "Execution':[" terms "]}}"

GP_TEST(pool_preferred)
{
    gp_policy *pol = policy_of(pool_policy);

    CHECK_CHANGES(pol, NULL, "{'metadata':{'namespace':'pref'},'spec':{" GPU1 "}}",
                  TOL "; label gpupack.io/class=pref; pref 80 gpupack.io/pool=a100,zone=z1; "
                  MUTATED);
    /* An equivalent term (with more expressions) is enough. */
    CHECK_CHANGES(pol, NULL, "{'metadata':{'namespace':'pref'},'spec':{" AFF_PREF(PREF_TERM(
                                 3, IN("zone", "z1") "," IN("x", "y") "," IN("gpupack.io/pool",
                                                                          "a100"))) "," GPU1 "}}",
                  TOL "; label gpupack.io/class=pref; " MUTATED);
    /* Half of the labels is not. */
    CHECK_CHANGES(pol, NULL, "{'metadata':{'namespace':'pref'},'spec':{" AFF_PREF(PREF_TERM(
                                 3, IN("zone", "z1"))) "," GPU1 "}}",
                  TOL "; label gpupack.io/class=pref; pref 80 gpupack.io/pool=a100,zone=z1; "
                  MUTATED);
    /* Bound to a node: no affinity. */
    CHECK_CHANGES(pol, NULL, "{'metadata':{'namespace':'pref'},'spec':{'nodeName':'n'," GPU1 "}}",
                  TOL "; label gpupack.io/class=pref; " MUTATED);
    gp_policy_unref(pol);
}

GP_TEST(pool_required)
{
    gp_policy *pol = policy_of(pool_policy);

    CHECK_CHANGES(pol, NULL, "{'metadata':{'namespace':'req'},'spec':{" GPU1 "}}",
                  TOL "; label gpupack.io/class=req; req gpupack.io/pool=h100; " MUTATED);
    /* Every term already requires the pool. */
    CHECK_CHANGES(pol, NULL, "{'metadata':{'namespace':'req'},'spec':{" AFF_REQ(
                                 "{'matchExpressions':[" IN("gpupack.io/pool", "h100") "]},"
                                 "{'matchExpressions':[" IN("a", "b") "," IN("gpupack.io/pool",
                                                                             "h100") "]}") ","
                                 GPU1 "}}",
                  TOL "; label gpupack.io/class=req; " MUTATED);
    /* One term does not. */
    CHECK_CHANGES(pol, NULL, "{'metadata':{'namespace':'req'},'spec':{" AFF_REQ(
                                 "{'matchExpressions':[" IN("gpupack.io/pool", "h100") "]},"
                                 "{'matchFields':[" IN("metadata.name", "n1") "]}") "," GPU1 "}}",
                  TOL "; label gpupack.io/class=req; req gpupack.io/pool=h100; " MUTATED);
    /* In with two values is not the same requirement. */
    CHECK_CHANGES(pol, NULL, "{'metadata':{'namespace':'req'},'spec':{" AFF_REQ(
                                 "{'matchExpressions':[{'key':'gpupack.io/pool','operator':'In',"
                                 "'values':['h100','a100']}]}") "," GPU1 "}}",
                  TOL "; label gpupack.io/class=req; req gpupack.io/pool=h100; " MUTATED);
    CHECK_CHANGES(pol, NULL, "{'metadata':{'namespace':'req'},'spec':{'nodeName':'n'," GPU1 "}}",
                  TOL "; label gpupack.io/class=req; " MUTATED);
    /* An empty term matches no node: it neither needs the pool nor gets it. */
    CHECK_CHANGES(pol, NULL, "{'metadata':{'namespace':'req'},'spec':{" AFF_REQ(
                                 "{'matchExpressions':[" IN("gpupack.io/pool", "h100") "]},{}")
                                 "," GPU1 "}}",
                  TOL "; label gpupack.io/class=req; " MUTATED);
    CHECK_CHANGES(pol, NULL, "{'metadata':{'namespace':'req'},'spec':{" AFF_REQ(
                                 "{'matchExpressions':[" IN("a", "b") "]},{'matchExpressions':[]}")
                                 "," GPU1 "}}",
                  TOL "; label gpupack.io/class=req; req gpupack.io/pool=h100; " MUTATED);
    gp_policy_unref(pol);
}

/* --- GPU models as required node affinity ------------------------------------------------ */

static const char models_policy[] =
    "{'apiVersion':'gpupack.io/v1alpha1','kind':'Policy',"
    "'tolerations':[{'key':'nvidia.com/gpu','operator':'Exists','effect':'NoSchedule'}],"
    "'classes':{'train':{'gpuModels':['NVIDIA-H100-80GB-HBM3','NVIDIA-A100*'],"
    "'excludeGpuModels':['*-PCIe-*']},'any':{}},"
    "'rules':[{'name':'t','class':'train','match':{'namespaces':['train']}},"
    "{'name':'a','class':'any','match':{'namespaces':['any']}}],"
    "'scoring':{'prices':{'gpuProducts':{'NVIDIA-A100-SXM4-80GB':{'onDemand':'3'}}}}}";

/* Nodes of three models (and one without the label): what the webhook's view knows. */
static gp_cluster *cluster_of_models(void)
{
    static const char nodes[] =
        "{'items':["
        "{'metadata':{'name':'a','labels':{'nvidia.com/gpu.product':'NVIDIA-A100-SXM4-40GB'}}},"
        "{'metadata':{'name':'b','labels':{'nvidia.com/gpu.product':'NVIDIA-A100-PCIe-40GB'}}},"
        "{'metadata':{'name':'c','labels':{'nvidia.com/gpu.product':'Tesla-T4'}}},"
        "{'metadata':{'name':'d','labels':{'nvidia.com/gpu.product':'Tesla-T4'}}},"
        "{'metadata':{'name':'e'}}]}";
    gp_cluster *c = gp_cluster_new();
    char *s = q(nodes);
    gp_err err = { { 0 } };

    if (c == NULL || gp_cluster_set_nodes_json(c, s, strlen(s), &err) != GP_OK) {
        printf("  cluster view: %s\n", err.msg);
        gp_test_failed = 1;
    }
    free(s);
    return c;
}

#define PRODUCT "nvidia.com/gpu.product"
#define ANN_MODELS(v) "'annotations':{'gpupack.io/gpu-models':'" v "'}"

GP_TEST(cluster_view_lists_gpu_products)
{
    gp_cluster *c = cluster_of_models();

    GP_CHECK_INT((int)c->ngpu_products, 3);
    if (c->ngpu_products == 3) {
        GP_CHECK_STR(c->gpu_products[0], "NVIDIA-A100-PCIe-40GB");
        GP_CHECK_STR(c->gpu_products[1], "NVIDIA-A100-SXM4-40GB");
        GP_CHECK_STR(c->gpu_products[2], "Tesla-T4");
    }
    gp_cluster_unref(c);
}

/* The models' demand is worked out only for a pod with a model constraint: a pod asking for
 * more distinct MIG profiles than a demand holds (nine) is still classed and steered. */
GP_TEST(gpu_models_demand_only_when_constrained)
{
    gp_policy *pol = default_policy();
    mfx f;
    char pod[2048] = "{'metadata':{'name':'p'},'spec':{'containers':[";
    static const char *const profiles[] = { "1g.5gb",  "1g.10gb", "1g.12gb", "1g.24gb", "2g.10gb",
                                            "2g.20gb", "3g.20gb", "3g.40gb", "7g.80gb" };

    for (size_t i = 0; i < 9; i++)
        app(pod, sizeof(pod), "%s{'name':'c%zu','resources':{'limits':{'nvidia.com/mig-%s':'1'}}}",
            i ? "," : "", i, profiles[i]);
    app(pod, sizeof(pod), "]}}");
    if (mfx_run(&f, pol, NULL, pod))
        GP_CHECK(find_change(&f.d, GP_CH_SET_LABEL, "gpupack.io/class") != NULL);
    mfx_free(&f);
    gp_policy_unref(pol);
}

/* The class's model lists become required node affinity: exact names as they are, globs as the
 * models known (the view's nodes, the policy's prices) that they match. */
GP_TEST(gpu_models_become_required_affinity)
{
    gp_policy *pol = policy_of(models_policy);
    gp_cluster *view = cluster_of_models();
    const char *pod = "{'metadata':{'namespace':'train'},'spec':{" GPU1 "}}";

    /* No view: the glob stands for the priced model only; the exclusion matches nothing known. */
    CHECK_CHANGES(pol, NULL, pod,
                  TOL "; label gpupack.io/class=train; req " PRODUCT " In NVIDIA-A100-SXM4-80GB|"
                      "NVIDIA-H100-80GB-HBM3; " MUTATED);
    CHECK_CHANGES(pol, view, pod,
                  TOL "; label gpupack.io/class=train; req " PRODUCT " In NVIDIA-A100-PCIe-40GB|"
                      "NVIDIA-A100-SXM4-40GB|NVIDIA-A100-SXM4-80GB|NVIDIA-H100-80GB-HBM3," PRODUCT
                      " NotIn NVIDIA-A100-PCIe-40GB; " MUTATED);
    CHECK_IDEMPOTENT(pol, view, pod);
    /* The annotation narrows (its own In) and excludes more; exact names need no view. */
    CHECK_CHANGES(pol, view,
                  "{'metadata':{'namespace':'train'," ANN_MODELS(
                      "NVIDIA-A100-SXM4*, !Tesla-T4, !B9") "},'spec':{" GPU1 "}}",
                  TOL "; label gpupack.io/class=train; req " PRODUCT " In NVIDIA-A100-PCIe-40GB|"
                      "NVIDIA-A100-SXM4-40GB|NVIDIA-A100-SXM4-80GB|NVIDIA-H100-80GB-HBM3," PRODUCT
                      " In NVIDIA-A100-SXM4-40GB|NVIDIA-A100-SXM4-80GB," PRODUCT
                      " NotIn B9|NVIDIA-A100-PCIe-40GB|Tesla-T4; " MUTATED);
    /* A class without model lists: only the annotation's, also for a pod of no class. */
    CHECK_CHANGES(pol, view,
                  "{'metadata':{'namespace':'any'," ANN_MODELS("Tesla-T4") "},'spec':{" GPU1 "}}",
                  TOL "; label gpupack.io/class=any; req " PRODUCT "=Tesla-T4; " MUTATED);
    CHECK_CHANGES(pol, view,
                  "{'metadata':{'namespace':'none'," ANN_MODELS("!Tesla*") "},'spec':{" GPU1 "}}",
                  TOL "; req " PRODUCT " NotIn Tesla-T4; " MUTATED);
    CHECK_IDEMPOTENT(
        pol, view, "{'metadata':{'namespace':'none'," ANN_MODELS("!Tesla*") "},'spec':{" GPU1 "}}");
    /* Bound pods and DaemonSet pods: the filter passes them everywhere, nothing is stated. */
    CHECK_CHANGES(pol, view, "{'metadata':{'namespace':'train'},'spec':{'nodeName':'a'," GPU1 "}}",
                  TOL "; label gpupack.io/class=train; " MUTATED);
    CHECK_CHANGES(pol, view,
                  "{'metadata':{'namespace':'train'," OWNER("DaemonSet") "},'spec':{" GPU1 "}}",
                  TOL "; label gpupack.io/class=train; " MUTATED);
    /* A pod without GPUs is not the webhook's. */
    CHECK_CHANGES(pol, view,
                  "{'metadata':{'namespace':'train'},'spec':{'containers':[{'name':'c'}]}}", "");
    gp_cluster_unref(view);
    gp_policy_unref(pol);
}

static bool has_warning(const gp_decision *d, const char *part)
{
    for (size_t i = 0; i < d->nwarnings; i++)
        if (strstr(d->warnings[i], part) != NULL)
            return true;
    return false;
}

/* Composed with the pod's own terms (every term gets the models), and what cannot be stated is
 * said in a warning, never written wrong. */
GP_TEST(gpu_models_compose_and_warn)
{
    gp_policy *pol = policy_of(models_policy);
    gp_cluster *view = cluster_of_models();
    mfx f;

    CHECK_CHANGES(pol, view,
                  "{'metadata':{'namespace':'any'," ANN_MODELS(
                      "Tesla-T4") "},'spec':{"
                                  "'affinity':{'nodeAffinity':{'"
                                  "requiredDuringSchedulingIgnoredDuringExecution':{"
                                  "'nodeSelectorTerms':[{'matchExpressions':[" IN(
                                      "zone", "a") "]},"
                                                   "{'matchExpressions':[" IN(
                                                       PRODUCT, "Tesla-T4") "]}]}}}," GPU1 "}}",
                  TOL "; label gpupack.io/class=any; req " PRODUCT "=Tesla-T4; " MUTATED);
    CHECK_CHANGES(
        pol, view,
        "{'metadata':{'namespace':'any'," ANN_MODELS(
            "Tesla-T4") "},'spec':{"
                        "'affinity':{'nodeAffinity':{'"
                        "requiredDuringSchedulingIgnoredDuringExecution':{"
                        "'nodeSelectorTerms':[{'matchExpressions':[" IN("zone", "a") "," IN(
                            PRODUCT, "Tesla-T4") "]},"
                                                 "{'matchExpressions':[" IN(
                                                     PRODUCT, "Tesla-T4") "]}]}}}," GPU1 "}}",
        TOL "; label gpupack.io/class=any; " MUTATED);
    /* A glob no known model matches: stated as a model no node has, with a warning. */
    if (mfx_run(&f, pol, view,
                "{'metadata':{'namespace':'any'," ANN_MODELS("B200*") "},'spec':{" GPU1 "}}")) {
        GP_CHECK(strstr(f.desc, "req " PRODUCT "=no-known-model.gpupack.io") != NULL);
        GP_CHECK(has_warning(&f.d, "annotation gpupack.io/gpu-models (B200*) names no GPU model "
                                   "known to the cluster"));
    }
    mfx_free(&f);
    /* Not a label value: left out (it matches no node), the rest stated. */
    CHECK_CHANGES(
        pol, view,
        "{'metadata':{'namespace':'any'," ANN_MODELS("!has space,Tesla-T4") "},'spec':{" GPU1 "}}",
        TOL "; label gpupack.io/class=any; req " PRODUCT "=Tesla-T4; " MUTATED);
    /* A malformed annotation (more than 32 globs): a warning, no affinity. */
    if (mfx_run(
            &f, pol, view,
            "{'metadata':{'namespace':'any'," ANN_MODELS(
                "a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q,r,s,t,u,v,w,x,y,z,a1,b1,c1,d1,e1,f1,g1") "},'"
                                                                                            "spec':"
                                                                                            "{" GPU1
                                                                                            "}}")) {
        GP_CHECK(strstr(f.desc, "req ") == NULL);
        GP_CHECK(has_warning(&f.d, "more than 32 globs: GPU models not stated as node affinity"));
    }
    mfx_free(&f);
    /* The pod's nodeSelector names a model the class refuses: a warning that it stays Pending. */
    if (mfx_run(&f, pol, view,
                "{'metadata':{'namespace':'train'},'spec':{'nodeSelector':{"
                "'nvidia.com/gpu.product':'Tesla-T4'}," GPU1 "}}"))
        GP_CHECK(has_warning(&f.d, "the pod's nodeSelector sets nvidia.com/gpu.product=Tesla-T4, "
                                   "which class train does not allow"));
    mfx_free(&f);
    gp_cluster_unref(view);
    gp_policy_unref(pol);
}

/* --- preemption that spares long runs ----------------------------------------------------- */

/* A checkpointing training pod loses minutes when preempted: it gets the class's lower
 * checkpointingPriorityClassName, so preemption takes it before a pod that would lose hours. */
GP_TEST(checkpointing_pods_get_the_preemptible_class)
{
    gp_policy *pol = default_policy();
    gp_cluster *view = view_with_global_default("low");
    mfx f;

    if (mfx_run(&f, pol, NULL, "{" JOB_CP("true") ",'spec':{'priority':0," GPU1 "}}")) {
        const gp_change *c = find_change(&f.d, GP_CH_SET_PRIORITY_CLASS, NULL);

        GP_CHECK_STR(c ? c->value : NULL, "gpu-training-preemptible");
        GP_CHECK_STR(c ? c->reason : NULL, "priorityClassName gpu-training-preemptible (class "
                                           "training, checkpointing)");
        GP_CHECK(find_change(&f.d, GP_CH_REMOVE_PRIORITY, NULL) != NULL);
    }
    mfx_free(&f);
    /* Not checkpointing ("false", absent): the class's own. */
    CHECK_CHANGES(pol, NULL, "{" JOB_CP("false") ",'spec':{" GPU1 "}}",
                  TOL "; " TRAINING "; " MUTATED);
    CHECK_CHANGES(pol, NULL, "{'metadata':{" OWNER("Job") "},'spec':{" GPU1 "}}",
                  TOL "; " TRAINING "; " MUTATED);
    /* A class without the field: checkpointing changes nothing about priority. */
    CHECK_CHANGES(pol, NULL, "{'metadata':{'annotations':{'gpupack.io/checkpointing':'true'}},"
                             "'spec':{" GPU1 "}}",
                  TOL "; " INTERACTIVE "; deadline 43200; " MUTATED);
    /* The pod's own choice stays, and a pod already carrying either class is left alone. */
    CHECK_CHANGES(pol, NULL, "{" JOB_CP("true") ",'spec':{'priorityClassName':'gpu-training',"
                             GPU1 "}}",
                  TOL "; label gpupack.io/class=training; " SPOT_TOLS "; " SPOT_PREFS "; "
                  MUTATED);
    /* The cluster view lacks gpu-training-preemptible: a warning, nothing set. */
    if (mfx_run(&f, pol, view, "{" JOB_CP("true") ",'spec':{" GPU1 "}}")) {
        GP_CHECK(find_change(&f.d, GP_CH_SET_PRIORITY_CLASS, NULL) == NULL);
        GP_CHECK(f.d.nwarnings == 1 &&
                 strcmp(f.d.warnings[0], "PriorityClass gpu-training-preemptible does not "
                                         "exist; priorityClassName left unset") == 0);
    }
    mfx_free(&f);
    CHECK_IDEMPOTENT(pol, NULL, "{" JOB_CP("true") ",'spec':{'priority':0,'preemptionPolicy':"
                                "'PreemptLowerPriority'," GPU1 "}}");
    gp_cluster_unref(view);
    gp_policy_unref(pol);
}

/* --- class tolerations ---------------------------------------------------------------------- */

static const char tainted_pool_policy[] =
    "{'apiVersion':'gpupack.io/v1alpha1','kind':'Policy',"
    "'tolerations':[{'key':'nvidia.com/gpu','operator':'Exists','effect':'NoSchedule'}],"
    "'classes':{'training':{'pool':{'nodeLabels':{'pool':'training'},'placement':'required'},"
    "'tolerations':[{'key':'pool','operator':'Equal','value':'training','effect':'NoSchedule'}]},"
    "'interactive':{'migAllowed':true}},"
    "'rules':[{'name':'jobs','class':'training','match':{'ownerKinds':['Job']}},"
    "{'name':'rest','class':'interactive'}]}";

/* A tainted pool belongs to its class: the class's pods get its toleration beside the required
 * pool; other GPU pods do not, so notebooks stay off the training nodes. */
GP_TEST(class_tolerations_only_for_the_class)
{
    gp_policy *pol = policy_of(tainted_pool_policy);
    mfx f;

    if (mfx_run(&f, pol, NULL, "{'metadata':{" OWNER("Job") "},'spec':{" GPU1 "}}")) {
        GP_CHECK_STR(f.desc, TOL "; label gpupack.io/class=training; req pool=training; "
                             "tol pool; " MUTATED);
        GP_CHECK_STR(f.d.summary, "toleration nvidia.com/gpu:NoSchedule (GPU pod); class training "
                                  "(rule jobs: owner Job); required node affinity pool=training "
                                  "(class training pool); toleration pool=training:NoSchedule "
                                  "(class training)");
    }
    mfx_free(&f);
    CHECK_CHANGES(pol, NULL, "{'spec':{" GPU1 "}}",
                  TOL "; label gpupack.io/class=interactive; " MUTATED);
    /* Already tolerated (here by an Exists on the key): nothing added. */
    CHECK_CHANGES(pol, NULL, "{'metadata':{" OWNER("Job") "},'spec':{'tolerations':[{'key':"
                             "'pool','operator':'Exists'}]," GPU1 "}}",
                  TOL "; label gpupack.io/class=training; req pool=training; " MUTATED);
    CHECK_IDEMPOTENT(pol, NULL, "{'metadata':{" OWNER("Job") "},'spec':{" GPU1 "}}");
    gp_policy_unref(pol);
    /* A class toleration that a top-level one already covers is not added twice. */
    pol = policy_of("{'apiVersion':'gpupack.io/v1alpha1','kind':'Policy','tolerations':[{'key':"
                    "'pool','operator':'Exists'}],'classes':{'c':{'tolerations':[{'key':'pool',"
                    "'operator':'Equal','value':'training','effect':'NoSchedule'}]}},"
                    "'defaultClass':'c'}");
    CHECK_CHANGES(pol, NULL, "{'spec':{" GPU1 "}}", "tol pool; label gpupack.io/class=c; " MUTATED);
    gp_policy_unref(pol);
}

/* --- runtime cap: only pods whose controller finishes --------------------------------------- */

static void check_cap(const gp_policy *pol, const char *owner_meta, const char *want_desc,
                      const char *want_warning, int line)
{
    char pod[512];
    mfx f;

    snprintf(pod, sizeof(pod), "{'metadata':{%s},'spec':{" GPU1 "}}", owner_meta);
    if (mfx_run(&f, pol, NULL, pod)) {
        const char *w = f.d.nwarnings ? f.d.warnings[0] : NULL;

        if (strcmp(f.desc, want_desc) != 0 || (want_warning == NULL) != (w == NULL) ||
            (w && strcmp(w, want_warning) != 0)) {
            printf("  %s:%d: changes \"%s\" warning \"%s\", want \"%s\" \"%s\"\n", __FILE__,
                   line, f.desc, w ? w : "", want_desc, want_warning ? want_warning : "");
            gp_test_failed = 1;
        }
    }
    mfx_free(&f);
}

GP_TEST(runtime_cap_skips_controllers_that_restart)
{
    gp_policy *pol = policy_of("{'apiVersion':'gpupack.io/v1alpha1','kind':'Policy',"
                               "'classes':{'capped':{'runtimeCapSeconds':3600}},"
                               "'defaultClass':'capped'}");
    static const char cap[] = "label gpupack.io/class=capped; deadline 3600; " MUTATED;
    static const char nocap[] = "label gpupack.io/class=capped; " MUTATED;

    check_cap(pol, "'name':'bare'", cap, NULL, __LINE__);
    check_cap(pol, OWNER("Job"), cap, NULL, __LINE__);
    check_cap(pol, OWNER("StatefulSet"), nocap,
              "no runtime cap: owner StatefulSet would recreate the pod at its deadline (a "
              "restart loop); scale it to zero when idle (the cost advisor reports idle "
              "notebooks)", __LINE__);
    check_cap(pol, OWNER("ReplicaSet"), nocap,
              "no runtime cap: owner ReplicaSet would recreate the pod at its deadline (a "
              "restart loop); scale it to zero when idle (the cost advisor reports idle "
              "notebooks)", __LINE__);
    check_cap(pol, OWNER("DaemonSet"), nocap,
              "no runtime cap: owner DaemonSet would recreate the pod at its deadline (a "
              "restart loop); scale it to zero when idle (the cost advisor reports idle "
              "notebooks)", __LINE__);
    check_cap(pol, OWNER("Notebook"), nocap,
              "no runtime cap: owner Notebook would recreate the pod at its deadline (a "
              "restart loop); scale it to zero when idle (the cost advisor reports idle "
              "notebooks)", __LINE__);
    check_cap(pol, OWNER("PyTorchJob"), nocap,
              "no runtime cap on a pod of a PyTorchJob: its controller may start a failed pod "
              "again; set the PyTorchJob's own activeDeadlineSeconds instead", __LINE__);
    check_cap(pol, OWNER("RayCluster") ",'labels':{'ray.io/originated-from-crd':'RayJob'}",
              nocap,
              "no runtime cap on a pod of a RayJob: its controller may start a failed pod "
              "again; set the RayJob's own activeDeadlineSeconds instead", __LINE__);
    /* The pod's own deadline stays whoever owns it, without a warning. */
    CHECK_CHANGES(pol, NULL, "{'metadata':{" OWNER("StatefulSet") "},'spec':{"
                             "'activeDeadlineSeconds':60," GPU1 "}}", nocap);
    gp_policy_unref(pol);
}

/* --- a required pool the pod rules out ------------------------------------------------------ */

#define REQ_NS "'metadata':{'namespace':'req'}"

static void check_pool_conflict(const gp_policy *pol, const char *spec, const char *want_warning,
                                int line)
{
    char pod[1024];
    mfx f;

    snprintf(pod, sizeof(pod), "{" REQ_NS ",'spec':{%s," GPU1 "}}", spec);
    if (mfx_run(&f, pol, NULL, pod)) {
        const char *w = f.d.nwarnings ? f.d.warnings[0] : NULL;
        const char *want = want_warning ? TOL "; label gpupack.io/class=req; " MUTATED
                                        : TOL "; label gpupack.io/class=req; req "
                                          "gpupack.io/pool=h100; " MUTATED;

        if (strcmp(f.desc, want) != 0 || (want_warning == NULL) != (w == NULL) ||
            (w && strcmp(w, want_warning) != 0)) {
            printf("  %s:%d: changes \"%s\" warning \"%s\", want \"%s\" \"%s\"\n", __FILE__,
                   line, f.desc, w ? w : "", want, want_warning ? want_warning : "");
            gp_test_failed = 1;
        }
    }
    mfx_free(&f);
}

#define EXCLUDED "class req pool gpupack.io/pool=h100 not required: the pod's required node " \
                 "affinity excludes it"

GP_TEST(pool_conflicting_with_the_pod_is_skipped)
{
    gp_policy *pol = policy_of(pool_policy);

    check_pool_conflict(pol, "'nodeSelector':{'gpupack.io/pool':'a100'}",
                        "class req pool gpupack.io/pool=h100 not required: the pod's "
                        "nodeSelector sets gpupack.io/pool=a100", __LINE__);
    check_pool_conflict(pol, AFF_REQ("{'matchExpressions':[" IN("gpupack.io/pool", "a100") "]}"),
                        EXCLUDED, __LINE__);
    check_pool_conflict(pol, AFF_REQ("{'matchExpressions':[{'key':'gpupack.io/pool','operator':"
                                     "'NotIn','values':['h100']}]},{'matchExpressions':[{'key':"
                                     "'gpupack.io/pool','operator':'DoesNotExist'}]}"),
                        EXCLUDED, __LINE__);
    /* Compatible: the same value, another key, a term that admits the pool, or Exists. */
    check_pool_conflict(pol, "'nodeSelector':{'gpupack.io/pool':'h100','zone':'z'}", NULL,
                        __LINE__);
    check_pool_conflict(pol, AFF_REQ("{'matchExpressions':[" IN("gpupack.io/pool", "a100") "]},"
                                     "{'matchExpressions':[" IN("zone", "z") "]}"),
                        NULL, __LINE__);
    check_pool_conflict(pol, AFF_REQ("{'matchExpressions':[{'key':'gpupack.io/pool','operator':"
                                     "'In','values':['a100','h100']}]}"),
                        NULL, __LINE__);
    check_pool_conflict(pol, AFF_REQ("{'matchExpressions':[{'key':'gpupack.io/pool','operator':"
                                     "'Exists'}]}"),
                        NULL, __LINE__);
    CHECK_IDEMPOTENT(pol, NULL, "{" REQ_NS ",'spec':{'nodeSelector':{'gpupack.io/pool':'a100'},"
                                GPU1 "}}");
    gp_policy_unref(pol);
}

/* --- memory exhaustion --------------------------------------------------------------------- */

GP_TEST(arena_exhaustion_is_enomem)
{
    static const char *const pods[] = {
        "{'spec':{" GPU1 "}}",
        "{" DEPLOY_HINT("5Gi") ",'spec':{" GPU1 "}}",
        "{" JOB_CP("true") ",'spec':{" GPU1 "}}",
    };
    gp_policy *pol = listed_policy();

    for (size_t i = 0; pol != NULL && i < 3; i++) {
        char *s = q(pods[i]);
        cJSON *json = cJSON_Parse(s);
        gp_arena pa, ma;
        gp_pod pod;
        gp_decision d;

        gp_arena_init(&pa, 0);
        gp_arena_init(&ma, 1); /* nothing fits */
        GP_CHECK_INT(gp_pod_from_json(json, "default", &pa, &pod, NULL), GP_OK);
        GP_CHECK_INT(gp_mutate(&pod, pol, NULL, NULL, &ma, &d), GP_ENOMEM);
        gp_arena_free(&ma);
        gp_arena_free(&pa);
        cJSON_Delete(json);
        free(s);
    }
    gp_policy_unref(pol);
}

/* Runs gp_mutate() with the arena running out at every point (a one-block arena pre-filled by
 * pad bytes, for every pad): it must fail with GP_ENOMEM or give a decision whose texts are whole.
 * A text with "(null)" in it means an inner gp_arena_printf() failed and its NULL was passed on
 * to "%s" (undefined behaviour; glibc happens to print "(null)"). */
static void check_exhaustion(const gp_policy *pol, const char *pod_text, int line)
{
    char *s = q(pod_text);
    size_t bad = 0;

    for (size_t pad = 16; pol != NULL && pad < 8192; pad += 16) {
        cJSON *json = cJSON_Parse(s);
        gp_arena pa, ma;
        gp_pod p;
        gp_decision d;
        gp_status st;

        gp_arena_init(&pa, 0);
        gp_arena_init(&ma, 8192);
        (void)gp_arena_alloc(&ma, pad);
        GP_CHECK_INT(gp_pod_from_json(json, "default", &pa, &p, NULL), GP_OK);
        st = gp_mutate(&p, pol, NULL, NULL, &ma, &d);
        GP_CHECK(st == GP_OK || st == GP_ENOMEM);
        for (size_t i = 0; st == GP_OK && i < d.nchanges; i++) {
            const gp_change *c = &d.changes[i];
            const char *r = c->reason ? c->reason : "", *v = c->value ? c->value : "";

            if ((strstr(r, "(null)") || strstr(v, "(null)")) && bad++ == 0)
                printf("  %s:%d: pad %zu: GP_OK with change %zu: reason \"%s\" value \"%s\"\n",
                       __FILE__, line, pad, i, r, v);
        }
        gp_arena_free(&ma);
        gp_arena_free(&pa);
        cJSON_Delete(json);
    }
    if (bad > 0) {
        printf("  %s:%d: %zu texts with (null)\n", __FILE__, line, bad);
        gp_test_failed = 1;
    }
    free(s);
}

GP_TEST(arena_exhaustion_at_every_point_mig)
{
    char name[201], pod[1024];
    gp_policy *pol = listed_policy();

    memset(name, 'n', 200);
    name[200] = '\0';
    snprintf(pod, sizeof(pod),
             "{" DEPLOY_HINT("5Gi") ",'spec':{'containers':[{'name':'%s'," GPU_LIMIT("1") "}]}}",
             name);
    check_exhaustion(pol, pod, __LINE__);
    check_exhaustion(pol, "{" JOB_CP("true") ",'spec':{" GPU1 "}}", __LINE__);
    gp_policy_unref(pol);
}

/* Regression (was a bug): lib/mutate.c add_tolerations() formats the reason as
 * gp_arena_printf(a, "toleration %s (%s)", toleration_text(a, tol), why) without checking that
 * toleration_text() succeeded. When the arena runs out exactly there (a long toleration key needs
 * more room than the short outer text), NULL is passed to "%s" (undefined behaviour) and gp_mutate
 * returns GP_OK with the reason and gpupack.io/mutated "toleration (null) (GPU pod)". The same
 * pattern is in rewrite_containers() (container_label()) and decide_pool() (labels_text()).
 * Input: a policy whose only toleration has a 190-character key, a DaemonSet-owned GPU pod, an
 * 8192-byte arena already holding about 7.3 KiB. */
GP_TEST(arena_exhaustion_at_every_point_long_toleration)
{
    char key[256], doc[1024];
    gp_policy *pol;

    snprintf(key, sizeof(key), "%.60s.%.60s.%.60s.io/gpu",
             "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
             "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
             "ccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc");
    snprintf(doc, sizeof(doc), "{'apiVersion':'gpupack.io/v1alpha1','kind':'Policy',"
             "'tolerations':[{'key':'%s','operator':'Exists','effect':'NoSchedule'}]}", key);
    pol = policy_of(doc);
    check_exhaustion(pol, "{'metadata':{" OWNER("DaemonSet") "},'spec':{" GPU1 "}}", __LINE__);
    gp_policy_unref(pol);
}

/* --- idempotence --------------------------------------------------------------------------- */

GP_TEST(jsonpatch_applier_is_strict)
{
    cJSON *doc = cJSON_Parse("{\"a\":{\"b~c/d\":1},\"l\":[1,2]}");
    cJSON *want = cJSON_Parse("{\"a\":{\"b~c/d\":2,\"n\":{\"x\":true}},\"l\":[0,1,2,3]}");
    char msg[256];

    GP_CHECK_INT(jp_apply(doc, "[{\"op\":\"replace\",\"path\":\"/a/b~0c~1d\",\"value\":2},"
                               "{\"op\":\"add\",\"path\":\"/a/n\",\"value\":{\"x\":true}},"
                               "{\"op\":\"add\",\"path\":\"/l/-\",\"value\":3},"
                               "{\"op\":\"add\",\"path\":\"/l/0\",\"value\":0}]",
                          msg, sizeof(msg)),
                 0);
    GP_CHECK(cJSON_Compare(doc, want, 1));
    GP_CHECK_INT(jp_apply(doc, "[{\"op\":\"add\",\"path\":\"/missing/x\",\"value\":1}]", msg,
                          sizeof(msg)),
                 -1);
    GP_CHECK_INT(jp_apply(doc, "[{\"op\":\"replace\",\"path\":\"/a/zz\",\"value\":1}]", msg,
                          sizeof(msg)),
                 -1);
    GP_CHECK_INT(jp_apply(doc, "[{\"op\":\"remove\",\"path\":\"/a/zz\"}]", msg, sizeof(msg)), -1);
    GP_CHECK_INT(jp_apply(doc, "[{\"op\":\"add\",\"path\":\"/l/9\",\"value\":1}]", msg,
                          sizeof(msg)),
                 -1);
    GP_CHECK_INT(jp_apply(doc, "[{\"op\":\"move\",\"from\":\"/a\",\"path\":\"/b\"}]", msg,
                          sizeof(msg)),
                 -1);
    GP_CHECK_INT(jp_apply(doc, "[{\"op\":\"remove\",\"path\":\"/a/b~0c~1d\"}]", msg, sizeof(msg)),
                 0);
    GP_CHECK(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "a"),
                                              "b~c/d") == NULL);
    cJSON_Delete(doc);
    cJSON_Delete(want);
}

/* Decides, patches, applies, decides again: the second decision must have no change. Returns
 * the first decision's description in desc. */
static void check_idempotent(const gp_policy *pol, const gp_cluster *view, const char *pod_text,
                             int line)
{
    mfx f1, f2;
    char *patch = NULL, *after = NULL;
    size_t len = 0;
    char msg[256] = "";
    gp_status st;

    if (!mfx_run(&f1, pol, view, pod_text)) {
        printf("  %s:%d: first decision failed\n", __FILE__, line);
        gp_test_failed = 1;
        mfx_free(&f1);
        return;
    }
    if (f1.d.nchanges == 0) {
        printf("  %s:%d: the first decision changes nothing; not a useful case\n", __FILE__, line);
        gp_test_failed = 1;
    }
    st = gp_patch_build(f1.json, &f1.d, &patch, &len);
    if (st != GP_OK || patch == NULL) {
        printf("  %s:%d: gp_patch_build: %d\n", __FILE__, line, st);
        gp_test_failed = 1;
        mfx_free(&f1);
        return;
    }
    if (jp_apply(f1.json, patch, msg, sizeof(msg)) != 0) {
        printf("  %s:%d: patch does not apply: %s\n    %s\n", __FILE__, line, msg, patch);
        gp_test_failed = 1;
    }
    after = cJSON_PrintUnformatted(f1.json);
    memset(&f2, 0, sizeof(f2));
    gp_arena_init(&f2.a, 0);
    f2.json = cJSON_Parse(after);
    if (gp_pod_from_json(f2.json, "default", &f2.a, &f2.pod, NULL) != GP_OK ||
        gp_mutate(&f2.pod, pol, view, NULL, &f2.a, &f2.d) != GP_OK) {
        printf("  %s:%d: patched pod does not decode or decide:\n    %s\n", __FILE__, line, after);
        gp_test_failed = 1;
    } else if (f2.d.nchanges != 0) {
        describe(&f2.d, f2.desc, sizeof(f2.desc));
        printf("  %s:%d: second decision is not empty: \"%s\"\n    first: \"%s\"\n"
               "    patch: %s\n    pod after: %s\n",
               __FILE__, line, f2.desc, f1.desc, patch, after);
        gp_test_failed = 1;
    } else if (f2.d.skipped || !f2.d.gpu ||
               (f1.d.class_name && (!f2.d.class_name ||
                                    strcmp(f1.d.class_name, f2.d.class_name) != 0))) {
        printf("  %s:%d: second decision differs in gpu/skipped/class\n", __FILE__, line);
        gp_test_failed = 1;
    }
    cJSON_free(patch);
    cJSON_free(after);
    mfx_free(&f1);
    mfx_free(&f2);
}
GP_TEST(idempotent_default_policy)
{
    gp_policy *pol = default_policy();

    CHECK_IDEMPOTENT(pol, NULL, "{'spec':{" GPU1 "}}");
    CHECK_IDEMPOTENT(pol, NULL, "{'metadata':{'name':'p','labels':{'app':'x'},'annotations':{}},"
                                "'spec':{'tolerations':null,'priority':0,'preemptionPolicy':"
                                "'PreemptLowerPriority'," GPU1 "}}");
    CHECK_IDEMPOTENT(pol, NULL, "{" DEPLOY_HINT("20Gi") ",'spec':{'containers':[{'name':'main',"
                                "'resources':{'requests':{'nvidia.com/gpu':'1','cpu':'2'},"
                                "'limits':{'nvidia.com/gpu':'1','memory':'1Gi'}}}]}}");
    CHECK_IDEMPOTENT(pol, NULL, "{" DEPLOY_HINT("5Gi") ",'spec':{'containers':["
                                "{'name':'side','resources':{'limits':{'cpu':'1'}}},"
                                "{'name':'a/b~c'," GPU_LIMIT("1") "}],"
                                "'initContainers':[{'name':'init'," GPU_LIMIT("1") "}]}}");
    CHECK_IDEMPOTENT(pol, NULL, "{" JOB_CP("true") ",'spec':{" GPU1 "}}");
    CHECK_IDEMPOTENT(pol, NULL, "{" JOB_CP("true") ",'spec':{'affinity':{}," GPU1 "}}");
    CHECK_IDEMPOTENT(pol, NULL, "{" JOB_CP("true") ",'spec':{'affinity':{'nodeAffinity':{"
                                "'preferredDuringSchedulingIgnoredDuringExecution':[]}},"
                                "'tolerations':[]," GPU1 "}}");
    CHECK_IDEMPOTENT(pol, NULL, "{'metadata':{'labels':{'gpupack.io/class':'bogus'},"
                                "'annotations':{'gpupack.io/mutated':'earlier'}},'spec':{" GPU1
                                "}}");
    CHECK_IDEMPOTENT(pol, NULL, "{'metadata':{" OWNER("DaemonSet") "},'spec':{" GPU1 "}}");
    CHECK_IDEMPOTENT(pol, NULL, "{'metadata':{'labels':null,'annotations':null},'spec':{" GPU1
                                "}}");
    gp_policy_unref(pol);
}

GP_TEST(idempotent_with_cluster_view)
{
    gp_policy *pol = default_policy();
    gp_cluster *view = cluster_offering("{'nvidia.com/mig-1g.20gb':'4'}");
    static const char pcs[] = "{\"items\":[{\"metadata\":{\"name\":\"gpu-inference\"}}]}";

    GP_CHECK_INT(gp_cluster_set_priority_classes_json(view, pcs, strlen(pcs), NULL), GP_OK);
    CHECK_IDEMPOTENT(pol, view, "{" DEPLOY_HINT("5Gi") ",'spec':{" GPU1 "}}");
    CHECK_IDEMPOTENT(pol, view, "{'metadata':{'annotations':{'gpupack.io/gpu-memory':'5Gi'}},"
                                "'spec':{'priority':0," GPU1 "}}");
    gp_cluster_unref(view);
    gp_policy_unref(pol);
}

GP_TEST(idempotent_pools)
{
    gp_policy *pol = policy_of(pool_policy);

    CHECK_IDEMPOTENT(pol, NULL, "{'metadata':{'namespace':'pref'},'spec':{" GPU1 "}}");
    CHECK_IDEMPOTENT(pol, NULL, "{'metadata':{'namespace':'pref'},'spec':{" AFF_PREF(PREF_TERM(
                                    3, IN("zone", "z1"))) "," GPU1 "}}");
    CHECK_IDEMPOTENT(pol, NULL, "{'metadata':{'namespace':'req'},'spec':{" GPU1 "}}");
    CHECK_IDEMPOTENT(pol, NULL, "{'metadata':{'namespace':'req','annotations':{"
                                "'gpupack.io/checkpointing':'true'}},'spec':{" AFF_REQ(
                                    "{'matchExpressions':[" IN("gpupack.io/pool", "h100") "]},"
                                    "{'matchFields':[" IN("metadata.name", "n1") "]},"
                                    "{'matchExpressions':[" IN("a", "b") "]}") "," GPU1 "}}");
    CHECK_IDEMPOTENT(pol, NULL, "{'metadata':{'namespace':'req'},'spec':{'affinity':{"
                                "'nodeAffinity':{'requiredDuringSchedulingIgnoredDuringExecution':"
                                "{'nodeSelectorTerms':[]}}}," GPU1 "}}");
    gp_policy_unref(pol);
}

/* Regression: the pod's tolerationSeconds is read through a double, the policy's exactly; a pod
 * carrying exactly the policy's toleration (9007199254740993 s) must count as covered, or every
 * reinvocation would add it again. */
GP_TEST(large_toleration_seconds_already_present)
{
    gp_policy *pol = policy_of("{'apiVersion':'gpupack.io/v1alpha1','kind':'Policy','tolerations':"
                               "[{'key':'k','operator':'Exists','effect':'NoExecute',"
                               "'tolerationSeconds':9007199254740993}]}");

    if (pol == NULL)
        return;
    GP_CHECK_INT(pol->tolerations[0].seconds, 9007199254740993LL);
    CHECK_CHANGES(pol, NULL, "{'spec':{'tolerations':[{'key':'k','operator':'Exists','effect':"
                             "'NoExecute','tolerationSeconds':9007199254740993}]," GPU1 "}}",
                  "");
    /* A longer one covers it; a shorter one does not (these hold today). */
    CHECK_CHANGES(pol, NULL, "{'spec':{'tolerations':[{'key':'k','operator':'Exists','effect':"
                             "'NoExecute','tolerationSeconds':9007199254750000}]," GPU1 "}}",
                  "");
    CHECK_CHANGES(pol, NULL, "{'spec':{'tolerations':[{'key':'k','operator':'Exists','effect':"
                             "'NoExecute','tolerationSeconds':9007199254700000}]," GPU1 "}}",
                  "tol k; " MUTATED);
    gp_policy_unref(pol);
}

/* --- schedulerName: GPU pods go to the policy's scheduler (the secondary gpupack-scheduler) --- */

static const char sched_policy[] = "{'apiVersion':'gpupack.io/v1alpha1','kind':'Policy',"
                                   "'excludedNamespaces':['kube-system'],"
                                   "'schedulerName':'gpupack-scheduler'}";

GP_TEST(scheduler_name_for_default_or_unset)
{
    gp_policy *pol = policy_of(sched_policy);
    gp_policy *def = default_policy();
    mfx f;

    if (pol == NULL || def == NULL)
        goto out;
    GP_CHECK(def->scheduler_name == NULL);
    CHECK_CHANGES(def, NULL, "{'spec':{'schedulerName':'default-scheduler'," GPU1 "}}",
                  TOL "; " INTERACTIVE "; deadline 43200; " MUTATED);
    CHECK_CHANGES(pol, NULL, "{'spec':{'schedulerName':'default-scheduler'," GPU1 "}}",
                  "sched gpupack-scheduler; " MUTATED);
    CHECK_CHANGES(pol, NULL, "{'spec':{" GPU1 "}}", "sched gpupack-scheduler; " MUTATED);
    CHECK_CHANGES(pol, NULL, "{'spec':{'schedulerName':''," GPU1 "}}",
                  "sched gpupack-scheduler; " MUTATED);
    if (mfx_run(&f, pol, NULL, "{'spec':{'schedulerName':'default-scheduler'," GPU1 "}}"))
        GP_CHECK_STR(f.d.summary,
                     "schedulerName gpupack-scheduler (policy; was default-scheduler)");
    mfx_free(&f);
out:
    gp_policy_unref(pol);
    gp_policy_unref(def);
}

GP_TEST(scheduler_name_leaves_other_schedulers_bound_and_cpu_pods)
{
    gp_policy *pol = policy_of(sched_policy);

    if (pol == NULL)
        return;
    CHECK_CHANGES(pol, NULL, "{'spec':{'schedulerName':'volcano'," GPU1 "}}", "");
    CHECK_CHANGES(pol, NULL, "{'spec':{'schedulerName':'gpupack-scheduler'," GPU1 "}}",
                  "");
    CHECK_CHANGES(pol, NULL, "{'spec':{'nodeName':'n1'," GPU1 "}}", "");
    CHECK_CHANGES(pol, NULL, "{'spec':{'containers':[{'resources':{'limits':{'cpu':'1'}}}]}}", "");
    CHECK_CHANGES(pol, NULL, "{'metadata':{'namespace':'kube-system'},'spec':{" GPU1 "}}", "");
    CHECK_IDEMPOTENT(pol, NULL, "{'spec':{'schedulerName':'default-scheduler'," GPU1 "}}");
    CHECK_IDEMPOTENT(pol, NULL, "{'spec':{" GPU1 "}}");
    gp_policy_unref(pol);
}

GP_MAIN(GP_CASE(mutation_kind_table), GP_CASE(bare_gpu_pod_gets_everything_in_order),
        GP_CASE(scheduler_name_for_default_or_unset),
        GP_CASE(scheduler_name_leaves_other_schedulers_bound_and_cpu_pods),
        GP_CASE(non_gpu_pod_is_left_alone), GP_CASE(skip_label_true_skips),
        GP_CASE(excluded_namespaces_skip), GP_CASE(excluded_namespace_from_fallback),
        GP_CASE(mirror_pods_are_skipped), GP_CASE(toleration_only_when_not_covered),
        GP_CASE(class_label_only_when_different),
        GP_CASE(unknown_class_label_warns_and_skips_class_changes),
        GP_CASE(no_class_gets_only_the_toleration), GP_CASE(no_class_note_owner_and_default_class),
        GP_CASE(priority_class_only_when_none), GP_CASE(priority_fields_removed_only_when_present),
        GP_CASE(priority_class_missing_from_cluster_warns),
        GP_CASE(priority_override_global_default),
        GP_CASE(priority_override_class_is_the_global_default),
        GP_CASE(runtime_cap_only_when_unset), GP_CASE(existing_mutated_annotation_is_extended),
        GP_CASE(mig_rewrite_for_one_gpu_with_hint), GP_CASE(mig_rewrite_records_request_and_limit),
        GP_CASE(mig_original_resources_request_only), GP_CASE(mig_hint_sizes_pick_smallest_fit),
        GP_CASE(mig_only_for_exactly_one_gpu), GP_CASE(mig_only_for_classes_that_allow_it),
        GP_CASE(mig_bad_hint_and_no_fit_warn), GP_CASE(mig_several_containers_and_init),
        GP_CASE(mig_never_grows_the_pod), GP_CASE(mig_original_annotation_replaced),
        GP_CASE(mig_pick_fewest_slices_then_memory_then_name),
        GP_CASE(mig_pick_fewer_slices_beats_less_memory), GP_CASE(mig_pick_no_profiles),
        GP_CASE(mig_cluster_view_restricts_profiles),
        GP_CASE(mig_cluster_offering_nothing_means_no_rewrite),
        GP_CASE(mig_profile_parsed_from_name_when_not_in_policy),
        GP_CASE(mig_gpu_zero_container_asks_for_nothing),
        GP_CASE(mig_profile_needs_enough_instances), GP_CASE(mig_only_on_nodes_the_pod_can_use),
        GP_CASE(mig_only_in_the_required_pool), GP_CASE(spot_for_checkpointing_training),
        GP_CASE(spot_only_with_true_and_spot_class), GP_CASE(spot_skips_what_the_pod_has),
        GP_CASE(pool_preferred), GP_CASE(pool_required), GP_CASE(cluster_view_lists_gpu_products),
        GP_CASE(gpu_models_demand_only_when_constrained),
        GP_CASE(gpu_models_become_required_affinity), GP_CASE(gpu_models_compose_and_warn),
        GP_CASE(mig_needs_a_node_view_or_an_authoritative_list),
        GP_CASE(checkpointing_pods_get_the_preemptible_class),
        GP_CASE(class_tolerations_only_for_the_class),
        GP_CASE(runtime_cap_skips_controllers_that_restart),
        GP_CASE(pool_conflicting_with_the_pod_is_skipped), GP_CASE(arena_exhaustion_is_enomem),
        GP_CASE(arena_exhaustion_at_every_point_mig),
        GP_CASE(arena_exhaustion_at_every_point_long_toleration),
        GP_CASE(jsonpatch_applier_is_strict), GP_CASE(idempotent_default_policy),
        GP_CASE(idempotent_with_cluster_view), GP_CASE(idempotent_pools),
        GP_CASE(large_toleration_seconds_already_present))
