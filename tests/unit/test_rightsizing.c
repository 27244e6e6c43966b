/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of the webhook's rightsizing and cost labels (lib/mutate.c, lib/webhook.c): what
 * gp_mutate() does with the advisor's recommendation for a pod's workload under each class
 * setting (recommend, apply through the MIG rewrite, off), when the user's own annotation, the
 * opt-out label or the expiry stop it, that a second pass over the patched pod changes nothing,
 * the labels gpupack.io/workload and gpupack.io/model, and the webhook's table: loading,
 * reloading (a bad file keeps the last good), its metrics, and audit mode. */
#include "gptest.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "gpupack/arena.h"
#include "gpupack/cluster.h"
#include "gpupack/metrics.h"
#include "gpupack/mutate.h"
#include "gpupack/patch.h"
#include "gpupack/podview.h"
#include "gpupack/policy.h"
#include "gpupack/recs.h"
#include "gpupack/webhook.h"

#include "jsonpatch_apply.h"
#include "metric_read.h"

#define NOW 1796412600.0 /* 2026-12-04T19:30:00Z */

/* The advisor's document: ranker (Deployment, 11Gi, 2g.20gb), big (30Gi), old (expired at
 * 2026-12-04T19:00:00Z), train (a Job), nb (a Notebook), lone (a bare pod). */
static const char recs_doc[] =
    "{\"apiVersion\": \"gpupack.io/recommendations/v1\", \"generated\": \"2026-12-04T18:00:00Z\","
    " \"window\": {\"start\": \"2026-11-27T18:00:00Z\", \"end\": \"2026-12-04T18:00:00Z\","
    " \"hours\": 168}, \"total\": 6, \"dropped\": 0, \"recommendations\": ["
    "{\"namespace\": \"ml\", \"kind\": \"Deployment\", \"name\": \"ranker\", \"gpuMemory\": \"11Gi\","
    " \"migProfile\": \"2g.20gb\", \"monthlyDollars\": 1310.2, \"evidence\": {\"windowHours\": 168,"
    " \"fbPeakMiB\": 9216, \"p95Activity\": 0.12, \"meanActivity\": 0.08, \"samples\": 20160},"
    " \"created\": \"2026-12-04T18:00:00Z\", \"expires\": \"2026-12-07T18:00:00Z\"},"
    "{\"namespace\": \"ml\", \"kind\": \"Deployment\", \"name\": \"big\", \"gpuMemory\": \"30Gi\","
    " \"migProfile\": \"3g.40gb\", \"monthlyDollars\": 900,"
    " \"created\": \"2026-12-04T18:00:00Z\", \"expires\": \"2026-12-07T18:00:00Z\"},"
    "{\"namespace\": \"ml\", \"kind\": \"Deployment\", \"name\": \"old\", \"gpuMemory\": \"5Gi\","
    " \"migProfile\": \"1g.10gb\", \"monthlyDollars\": 10,"
    " \"created\": \"2026-12-01T18:00:00Z\", \"expires\": \"2026-12-04T19:00:00Z\"},"
    "{\"namespace\": \"ml\", \"kind\": \"Job\", \"name\": \"train\", \"gpuMemory\": \"5Gi\","
    " \"migProfile\": \"1g.10gb\", \"monthlyDollars\": 10,"
    " \"created\": \"2026-12-04T18:00:00Z\", \"expires\": \"2026-12-07T18:00:00Z\"},"
    "{\"namespace\": \"ml\", \"kind\": \"Notebook\", \"name\": \"nb\", \"gpuMemory\": \"5Gi\","
    " \"migProfile\": \"\", \"monthlyDollars\": 10,"
    " \"created\": \"2026-12-04T18:00:00Z\", \"expires\": \"2026-12-07T18:00:00Z\"},"
    "{\"namespace\": \"ml\", \"kind\": \"Pod\", \"name\": \"lone\", \"gpuMemory\": \"5Gi\","
    " \"migProfile\": \"1g.10gb\", \"monthlyDollars\": 10,"
    " \"created\": \"2026-12-04T18:00:00Z\", \"expires\": \"2026-12-07T18:00:00Z\"}]}";

/* A malloc'd copy of text with every single quote turned into a double quote. */
static char *q(const char *text)
{
    char *s = strdup(text);

    for (char *c = s; *c; c++)
        if (*c == '\'')
            *c = '"';
    return s;
}

static gp_recs table; /* decoded once per test process (each test runs in its own) */

static const gp_recs *recs(void)
{
    gp_err err = { { 0 } };

    if (table.n == 0 && gp_recs_decode(recs_doc, strlen(recs_doc), &table, &err) != GP_OK) {
        printf("  recs: %s\n", err.msg);
        gp_test_failed = 1;
    }
    return &table;
}

/* The default policy, with every class's rightsizing set to rs (-1: as shipped) and the
 * policy's migProfiles taken as what nodes offer. */
static gp_policy *policy(int rs)
{
    gp_policy *p = NULL;
    char *errors = NULL;

    if (gp_policy_default(&p, &errors) != GP_OK) {
        printf("  default policy: %s\n", errors ? errors : "?");
        gp_test_failed = 1;
        free(errors);
        return NULL;
    }
    p->mig_profiles_authoritative = true;
    for (size_t i = 0; rs >= 0 && i < p->nclasses; i++)
        p->classes[i].rightsizing = (gp_rightsizing)rs;
    return p;
}

typedef struct {
    cJSON *json;
    gp_arena a;
    gp_pod pod;
    gp_decision d;
} fx;

static bool run(fx *f, const gp_policy *pol, const gp_mutate_opts *o, const char *pod_text)
{
    char *s = q(pod_text);
    gp_err err = { { 0 } };
    bool ok;

    memset(f, 0, sizeof(*f));
    gp_arena_init(&f->a, 0);
    f->json = cJSON_Parse(s);
    ok = pol != NULL && f->json != NULL &&
         gp_pod_from_json(f->json, "ml", &f->a, &f->pod, &err) == GP_OK &&
         gp_mutate(&f->pod, pol, NULL, o, &f->a, &f->d) == GP_OK;
    if (!ok) {
        printf("  pod does not decode or decide (%s): %s\n", err.msg, s);
        gp_test_failed = 1;
    }
    free(s);
    return ok;
}

static void fx_free(fx *f)
{
    gp_arena_free(&f->a);
    cJSON_Delete(f->json);
}

static const gp_change *find(const gp_decision *d, gp_change_kind kind, const char *key)
{
    for (size_t i = 0; i < d->nchanges; i++)
        if (d->changes[i].kind == kind &&
            (key == NULL || (d->changes[i].key && strcmp(d->changes[i].key, key) == 0)))
            return &d->changes[i];
    return NULL;
}

static const char *value_of(const gp_decision *d, gp_change_kind kind, const char *key)
{
    const gp_change *c = find(d, kind, key);

    return c ? c->value : NULL;
}

static bool any_warning(const gp_decision *d, const char *part)
{
    for (size_t i = 0; i < d->nwarnings; i++)
        if (strstr(d->warnings[i], part) != NULL)
            return true;
    return false;
}

static size_t count_kind(const gp_decision *d, gp_mutation_kind k)
{
    size_t n = 0;

    for (size_t i = 0; i < d->nchanges; i++)
        n += d->changes[i].metric == k;
    return n;
}

/* Applies f's patch to its pod and decides again: no change may follow. */
static void check_second_pass(fx *f, const gp_policy *pol, const gp_mutate_opts *o, int line)
{
    char *patch = NULL, *after = NULL, msg[256] = "";
    size_t len = 0;
    fx g;

    if (gp_patch_build(f->json, &f->d, &patch, &len) != GP_OK ||
        jp_apply(f->json, patch, msg, sizeof(msg)) != 0) {
        printf("  line %d: patch does not build or apply: %s\n", line, msg);
        gp_test_failed = 1;
        cJSON_free(patch);
        return;
    }
    after = cJSON_PrintUnformatted(f->json);
    memset(&g, 0, sizeof(g));
    gp_arena_init(&g.a, 0);
    g.json = cJSON_Parse(after);
    if (gp_pod_from_json(g.json, "ml", &g.a, &g.pod, NULL) != GP_OK ||
        gp_mutate(&g.pod, pol, NULL, o, &g.a, &g.d) != GP_OK || g.d.nchanges != 0) {
        printf("  line %d: the second pass changes %zu things (first: %s)\n    pod: %s\n", line,
               g.d.nchanges, g.d.nchanges ? g.d.changes[0].reason : "", after);
        gp_test_failed = 1;
    }
    cJSON_free(patch);
    cJSON_free(after);
    fx_free(&g);
}
#define SECOND_PASS(f, pol, o) check_second_pass(f, pol, o, __LINE__)

#define RS_META(name, hash, labels, anns)                                                     \
    "'metadata':{'namespace':'ml','generateName':'" name "-" hash "-','labels':{"             \
    "'pod-template-hash':'" hash "'" labels "}" anns ",'ownerReferences':[{'kind':"           \
    "'ReplicaSet','name':'" name "-" hash "','controller':true}]}"
#define GPU1 "'spec':{'containers':[{'name':'main','resources':{'limits':{'nvidia.com/gpu':'1'}," \
             "'requests':{'nvidia.com/gpu':'1'}}}]}"
#define RANKER(labels, anns) "{" RS_META("ranker", "6d4b9c7f8d", labels, anns) "," GPU1 "}"

static const gp_mutate_opts opts = { .now = NOW, .cost_labels = true };

static gp_mutate_opts with_recs(void)
{
    gp_mutate_opts o = opts;

    o.recs = recs();
    return o;
}

/* --- recommend ----------------------------------------------------------------------------- */

GP_TEST(recommend_annotates_and_warns)
{
    gp_policy *pol = policy(-1); /* shipped: inference recommends */
    gp_mutate_opts o = with_recs();
    fx f;

    if (run(&f, pol, &o, RANKER("", ""))) {
        GP_CHECK_STR(f.d.class_name, "inference");
        GP_CHECK_INT(f.d.rightsizing, GP_RS_RECOMMEND);
        GP_CHECK_STR(gp_rs_action_label(f.d.rightsizing), "recommend");
        GP_CHECK_STR(value_of(&f.d, GP_CH_SET_ANNOTATION, GP_ANN_RECOMMENDED),
                     "11Gi (mig 2g.20gb; peak 9216 MiB, p95 12%, 168 h to 2026-12-04T18:00:00Z, "
                     "expires 2026-12-07T18:00:00Z)");
        GP_CHECK(find(&f.d, GP_CH_REPLACE_RESOURCE, NULL) == NULL);
        GP_CHECK(find(&f.d, GP_CH_SET_ANNOTATION, GP_ANN_RECOMMENDED)->metric ==
                 GP_MK_RIGHTSIZING);
        GP_CHECK(strstr(f.d.summary, "rightsizing: the advisor recommends gpupack.io/gpu-memory "
                        "11Gi for deployment/ranker (mig 2g.20gb)") != NULL);
        SECOND_PASS(&f, pol, &o);
    }
    fx_free(&f);
    gp_policy_unref(pol);
}

/* Without a table, or with no entry for the workload, nothing about rightsizing happens. */
GP_TEST(no_table_or_no_entry_does_nothing)
{
    gp_policy *pol = policy(GP_RIGHTSIZE_APPLY);
    gp_mutate_opts o = with_recs();
    fx f;

    if (run(&f, pol, &opts, RANKER("", ""))) {
        GP_CHECK_INT(f.d.rightsizing, GP_RS_NONE);
        GP_CHECK_INT(count_kind(&f.d, GP_MK_RIGHTSIZING), 0);
    }
    fx_free(&f);
    if (run(&f, pol, &o, "{" RS_META("other", "5c5c5c5c5c", "", "") "," GPU1 "}")) {
        GP_CHECK_INT(f.d.rightsizing, GP_RS_NONE);
        GP_CHECK_INT(count_kind(&f.d, GP_MK_RIGHTSIZING), 0);
        GP_CHECK(find(&f.d, GP_CH_REPLACE_RESOURCE, NULL) == NULL);
    }
    fx_free(&f);
    /* The same name in another namespace is another workload. */
    if (run(&f, pol, &o, "{'metadata':{'namespace':'prod','generateName':'ranker-6d4b9c7f8d-',"
                         "'labels':{'pod-template-hash':'6d4b9c7f8d'},'ownerReferences':[{'kind':"
                         "'ReplicaSet','name':'ranker-6d4b9c7f8d','controller':true}]}," GPU1 "}"))
        GP_CHECK_INT(f.d.rightsizing, GP_RS_NONE);
    fx_free(&f);
    gp_policy_unref(pol);
}

/* --- apply --------------------------------------------------------------------------------- */

GP_TEST(apply_rewrites_to_mig_and_records_evidence)
{
    gp_policy *pol = policy(GP_RIGHTSIZE_APPLY);
    gp_mutate_opts o = with_recs();
    const char *orig;
    cJSON *j, *rs;
    fx f;

    if (run(&f, pol, &o, RANKER("", ""))) {
        const gp_change *c = find(&f.d, GP_CH_REPLACE_RESOURCE, NULL);

        GP_CHECK_INT(f.d.rightsizing, GP_RS_APPLY);
        GP_CHECK(c != NULL && strcmp(c->value, "nvidia.com/mig-2g.20gb") == 0 &&
                 c->metric == GP_MK_RIGHTSIZING);
        GP_CHECK(find(&f.d, GP_CH_SET_ANNOTATION, GP_ANN_RECOMMENDED) == NULL);
        GP_CHECK(strstr(f.d.summary, "container main: nvidia.com/gpu 1 -> nvidia.com/mig-2g.20gb "
                        "(needs 11Gi: advisor, deployment/ranker, peak 9216 MiB, p95 12%, 168 h "
                        "to 2026-12-04T18:00:00Z; applied 2026-12-04T19:30:00Z)") != NULL);
        orig = value_of(&f.d, GP_CH_SET_ANNOTATION, GP_ANN_ORIGINAL);
        j = orig ? cJSON_Parse(orig) : NULL;
        rs = cJSON_GetObjectItemCaseSensitive(j, "rightsizing");
        GP_CHECK(cJSON_GetObjectItemCaseSensitive(j, "containers") != NULL);
        GP_CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rs, "workload")),
                     "deployment/ranker");
        GP_CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rs, "gpuMemory")),
                     "11Gi");
        GP_CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rs, "applied")),
                     "2026-12-04T19:30:00Z");
        GP_CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(rs, "expires")),
                     "2026-12-07T18:00:00Z");
        GP_CHECK(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(
                     cJSON_GetObjectItemCaseSensitive(rs, "evidence"), "fbPeakMiB")) == 9216);
        cJSON_Delete(j);
        SECOND_PASS(&f, pol, &o);
    }
    fx_free(&f);
    gp_policy_unref(pol);
}

/* A class without migAllowed never gets a slice: apply there recommends. A rewrite that cannot
 * be made (no profile large enough) warns, prefixed, and recommends instead. */
GP_TEST(apply_respects_the_class_and_falls_back)
{
    gp_policy *pol = policy(GP_RIGHTSIZE_APPLY);
    gp_mutate_opts o = with_recs();
    fx f;

    for (size_t i = 0; pol != NULL && i < pol->nclasses; i++)
        if (strcmp(pol->classes[i].name, "inference") == 0)
            pol->classes[i].mig_allowed = false;
    if (run(&f, pol, &o, RANKER("", ""))) {
        GP_CHECK_INT(f.d.rightsizing, GP_RS_RECOMMEND);
        GP_CHECK(find(&f.d, GP_CH_REPLACE_RESOURCE, NULL) == NULL);
        GP_CHECK(strstr(f.d.summary, "class inference does not allow MIG") != NULL);
    }
    fx_free(&f);
    gp_policy_unref(pol);
    pol = policy(GP_RIGHTSIZE_APPLY);
    if (pol != NULL)
        pol->nmig_profiles = 2; /* 1g.10gb and 2g.20gb only: 30Gi fits none */
    if (run(&f, pol, &o, "{" RS_META("big", "7f7f7f7f7f", "", "") "," GPU1 "}")) {
        GP_CHECK_INT(f.d.rightsizing, GP_RS_RECOMMEND);
        GP_CHECK(find(&f.d, GP_CH_REPLACE_RESOURCE, NULL) == NULL);
        GP_CHECK(any_warning(&f.d, "rightsizing: no MIG profile offers 30Gi; keeps "
                                   "nvidia.com/gpu"));
        GP_CHECK(value_of(&f.d, GP_CH_SET_ANNOTATION, GP_ANN_RECOMMENDED) != NULL);
        SECOND_PASS(&f, pol, &o);
    }
    fx_free(&f);
    if (pol != NULL)
        pol->nmig_profiles = 5;
    gp_policy_unref(pol);
}

/* A pod that already runs on a slice (a reinvocation after the rewrite, or the user's own
 * choice) is left alone in apply mode. */
GP_TEST(apply_leaves_a_slice_alone)
{
    gp_policy *pol = policy(GP_RIGHTSIZE_APPLY);
    gp_mutate_opts o = with_recs();
    fx f;

    if (run(&f, pol, &o, "{" RS_META("ranker", "6d4b9c7f8d", "", "") ",'spec':{'containers':["
                         "{'name':'main','resources':{'limits':{'nvidia.com/mig-3g.40gb':'1'}}}]}}")) {
        GP_CHECK_INT(f.d.rightsizing, GP_RS_NONE);
        GP_CHECK_INT(count_kind(&f.d, GP_MK_RIGHTSIZING), 0);
    }
    fx_free(&f);
    gp_policy_unref(pol);
}

/* --- what stops it ------------------------------------------------------------------------- */

GP_TEST(user_annotation_wins)
{
    gp_policy *pol = policy(GP_RIGHTSIZE_APPLY);
    gp_mutate_opts o = with_recs();
    fx f;

    if (run(&f, pol, &o, RANKER("", ",'annotations':{'gpupack.io/gpu-memory':'30Gi'}"))) {
        const gp_change *c = find(&f.d, GP_CH_REPLACE_RESOURCE, NULL);

        GP_CHECK_INT(f.d.rightsizing, GP_RS_USER_SET);
        GP_CHECK(c != NULL && strcmp(c->value, "nvidia.com/mig-3g.40gb") == 0 &&
                 c->metric == GP_MK_MIG);
        GP_CHECK(find(&f.d, GP_CH_SET_ANNOTATION, GP_ANN_RECOMMENDED) == NULL);
        GP_CHECK(strstr(value_of(&f.d, GP_CH_SET_ANNOTATION, GP_ANN_ORIGINAL), "rightsizing") ==
                 NULL);
    }
    fx_free(&f);
    gp_policy_unref(pol);
}

GP_TEST(opt_out_label)
{
    gp_policy *pol = policy(GP_RIGHTSIZE_APPLY);
    gp_mutate_opts o = with_recs();
    fx f;

    if (run(&f, pol, &o, RANKER(",'gpupack.io/rightsizing':'off'", ""))) {
        GP_CHECK_INT(f.d.rightsizing, GP_RS_OPTED_OUT);
        GP_CHECK_STR(gp_rs_action_label(f.d.rightsizing), "opted-out");
        GP_CHECK_INT(count_kind(&f.d, GP_MK_RIGHTSIZING), 0);
        GP_CHECK(find(&f.d, GP_CH_REPLACE_RESOURCE, NULL) == NULL);
        /* Cost labels are not rightsizing: they still come. */
        GP_CHECK_STR(value_of(&f.d, GP_CH_SET_LABEL, GP_LABEL_WORKLOAD), "deployment.ranker");
    }
    fx_free(&f);
    /* A reinvocation (the pod carries gpupack.io/mutated) is not counted a second time. */
    if (run(&f, pol, &o, RANKER(",'gpupack.io/rightsizing':'off'",
                                ",'annotations':{'gpupack.io/mutated':'class inference'}")))
        GP_CHECK_INT(f.d.rightsizing, GP_RS_NONE);
    fx_free(&f);
    /* Only "off" opts out. */
    if (run(&f, pol, &o, RANKER(",'gpupack.io/rightsizing':'on'", "")))
        GP_CHECK_INT(f.d.rightsizing, GP_RS_APPLY);
    fx_free(&f);
    gp_policy_unref(pol);
}

GP_TEST(expired_is_ignored)
{
    gp_policy *pol = policy(GP_RIGHTSIZE_APPLY);
    gp_mutate_opts o = with_recs();
    fx f;

    if (run(&f, pol, &o, "{" RS_META("old", "4b4b4b4b4b", "", "") "," GPU1 "}")) {
        GP_CHECK_INT(f.d.rightsizing, GP_RS_EXPIRED);
        GP_CHECK_INT(count_kind(&f.d, GP_MK_RIGHTSIZING), 0);
        GP_CHECK(find(&f.d, GP_CH_REPLACE_RESOURCE, NULL) == NULL);
    }
    fx_free(&f);
    /* The same recommendation an hour earlier still applies. */
    o.now = NOW - 3600;
    if (run(&f, pol, &o, "{" RS_META("old", "4b4b4b4b4b", "", "") "," GPU1 "}"))
        GP_CHECK_INT(f.d.rightsizing, GP_RS_APPLY);
    fx_free(&f);
    gp_policy_unref(pol);
}

/* Training is off in the shipped policy; a class that does not say is off. */
GP_TEST(class_off_does_nothing)
{
    static const char job[] = "{'metadata':{'namespace':'ml','generateName':'train-',"
                              "'ownerReferences':[{'kind':'Job','name':'train','controller':true}]},"
                              GPU1 "}";
    gp_policy *pol = policy(-1);
    gp_mutate_opts o = with_recs();
    gp_policy *user = NULL;
    char *errors = NULL, *doc = q("{'apiVersion':'gpupack.io/v1alpha1','kind':'Policy',"
                                  "'classes':{'inference':{'migAllowed':true}},'rules':[{'name':"
                                  "'all','class':'inference'}],'migProfilesAuthoritative':true,"
                                  "'migProfiles':[{'name':'2g.20gb','memory':'19968Mi',"
                                  "'computeSlices':2}]}");
    fx f;

    if (run(&f, pol, &o, job)) {
        GP_CHECK_STR(f.d.class_name, "training");
        GP_CHECK_INT(f.d.rightsizing, GP_RS_NONE);
        GP_CHECK_INT(count_kind(&f.d, GP_MK_RIGHTSIZING), 0);
    }
    fx_free(&f);
    GP_CHECK_INT(gp_policy_parse(doc, strlen(doc), &user, &errors), GP_OK);
    GP_CHECK(user != NULL && user->classes[0].rightsizing == GP_RIGHTSIZE_OFF);
    if (user != NULL && run(&f, user, &o, RANKER("", ""))) {
        GP_CHECK_INT(f.d.rightsizing, GP_RS_NONE);
        GP_CHECK(find(&f.d, GP_CH_REPLACE_RESOURCE, NULL) == NULL);
    }
    if (user != NULL)
        fx_free(&f);
    free(errors);
    free(doc);
    gp_policy_unref(user);
    gp_policy_unref(pol);
}

/* Workloads other than Deployments: a Notebook (label notebook-name), a bare pod by its name. */
GP_TEST(workloads_by_the_advisors_rule)
{
    gp_policy *pol = policy(-1);
    gp_mutate_opts o = with_recs();
    fx f;

    if (run(&f, pol, &o, "{'metadata':{'namespace':'ml','name':'nb-0','labels':{'notebook-name':"
                         "'nb'},'ownerReferences':[{'kind':'StatefulSet','name':'nb',"
                         "'controller':true}]}," GPU1 "}")) {
        GP_CHECK_STR(f.d.class_name, "interactive");
        GP_CHECK_INT(f.d.rightsizing, GP_RS_RECOMMEND);
        GP_CHECK_STR(value_of(&f.d, GP_CH_SET_ANNOTATION, GP_ANN_RECOMMENDED),
                     "5Gi (expires 2026-12-07T18:00:00Z)");
        GP_CHECK_STR(value_of(&f.d, GP_CH_SET_LABEL, GP_LABEL_WORKLOAD), "notebook.nb");
    }
    fx_free(&f);
    if (run(&f, pol, &o, "{'metadata':{'namespace':'ml','name':'lone'}," GPU1 "}")) {
        GP_CHECK_INT(f.d.rightsizing, GP_RS_RECOMMEND);
        GP_CHECK_STR(value_of(&f.d, GP_CH_SET_LABEL, GP_LABEL_WORKLOAD), "pod.lone");
    }
    fx_free(&f);
    gp_policy_unref(pol);
}

/* --- cost labels --------------------------------------------------------------------------- */

GP_TEST(cost_labels_when_absent)
{
    gp_policy *pol = policy(-1);
    fx f;

    if (run(&f, pol, &opts, RANKER(",'app.kubernetes.io/name':'llama-3-8b'", ""))) {
        GP_CHECK_STR(value_of(&f.d, GP_CH_SET_LABEL, GP_LABEL_WORKLOAD), "deployment.ranker");
        GP_CHECK_STR(value_of(&f.d, GP_CH_SET_LABEL, GP_LABEL_MODEL), "llama-3-8b");
        GP_CHECK(find(&f.d, GP_CH_SET_LABEL, GP_LABEL_WORKLOAD)->metric == GP_MK_COST_LABELS);
        GP_CHECK(strstr(f.d.summary, "cost labels workload=deployment.ranker model=llama-3-8b"));
        SECOND_PASS(&f, pol, &opts);
    }
    fx_free(&f);
    /* The first of modelLabels wins: serving.kserve.io/inferenceservice before app.k8s.io/name
     * (and it names the workload, an InferenceService). */
    if (run(&f, pol, &opts, RANKER(",'app.kubernetes.io/name':'x',"
                                   "'serving.kserve.io/inferenceservice':'sklearn'", ""))) {
        GP_CHECK_STR(value_of(&f.d, GP_CH_SET_LABEL, GP_LABEL_MODEL), "sklearn");
        GP_CHECK_STR(value_of(&f.d, GP_CH_SET_LABEL, GP_LABEL_WORKLOAD),
                     "inferenceservice.sklearn");
    }
    fx_free(&f);
    /* Present: kept as the user wrote them; no modelLabels match: no model label. */
    if (run(&f, pol, &opts, RANKER(",'gpupack.io/workload':'mine'", ""))) {
        GP_CHECK(find(&f.d, GP_CH_SET_LABEL, GP_LABEL_WORKLOAD) == NULL);
        GP_CHECK(find(&f.d, GP_CH_SET_LABEL, GP_LABEL_MODEL) == NULL);
        GP_CHECK_INT(count_kind(&f.d, GP_MK_COST_LABELS), 0);
    }
    fx_free(&f);
    if (run(&f, pol, &opts, RANKER(",'gpupack.io/model':'m1','app.kubernetes.io/name':'x'", "")))
        GP_CHECK(find(&f.d, GP_CH_SET_LABEL, GP_LABEL_MODEL) == NULL);
    fx_free(&f);
    /* Without the option (the simulator, most tests): none. */
    if (run(&f, pol, NULL, RANKER("", "")))
        GP_CHECK_INT(count_kind(&f.d, GP_MK_COST_LABELS), 0);
    fx_free(&f);
    /* Non-GPU and skipped pods get nothing. */
    if (run(&f, pol, &opts, "{'metadata':{'name':'cpu'},'spec':{'containers':[{'name':'c'}]}}"))
        GP_CHECK_INT(f.d.nchanges, 0);
    fx_free(&f);
    if (run(&f, pol, &opts, RANKER(",'gpupack.io/skip':'true'", "")))
        GP_CHECK_INT(f.d.nchanges, 0);
    fx_free(&f);
    gp_policy_unref(pol);
}

static bool label_ok(const char *v)
{
    size_t n = v ? strlen(v) : 0;

    if (n == 0 || n > 63)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!(isalnum((unsigned char)v[i]) || v[i] == '.' || v[i] == '_' || v[i] == '-'))
            return false;
    return isalnum((unsigned char)v[0]) && isalnum((unsigned char)v[n - 1]);
}

GP_TEST(label_safe_values)
{
    gp_arena a;
    char long1[300], long2[300];
    const char *v1, *v2;

    gp_arena_init(&a, 0);
    GP_CHECK_STR(gp_label_safe("deployment.ranker", &a), "deployment.ranker");
    GP_CHECK_STR(gp_label_safe("-a b/c_", &a), "a-b-c");
    GP_CHECK_STR(gp_label_safe("Llama 3.1 (8B)", &a), "Llama-3.1--8B");
    GP_CHECK(gp_label_safe("--..__", &a) == NULL);
    GP_CHECK(gp_label_safe("", &a) == NULL);
    memset(long1, 'a', 200);
    long1[200] = '\0';
    memcpy(long2, long1, sizeof(long1));
    long2[199] = 'b';
    v1 = gp_label_safe(long1, &a);
    v2 = gp_label_safe(long2, &a);
    GP_CHECK(label_ok(v1) && label_ok(v2));
    GP_CHECK(v1 && strlen(v1) == 63 && v1[54] == '-');
    GP_CHECK(v1 && v2 && strcmp(v1, v2) != 0); /* the hash tells them apart */
    GP_CHECK(v1 && strcmp(gp_label_safe(long1, &a), v1) == 0); /* the same every time */
    /* A cut that would end on a separator drops it before the hash. */
    memset(long1, 'x', 60);
    long1[53] = '.';
    long1[60] = '\0';
    strcat(long1, "yyyyyyyy");
    v1 = gp_label_safe(long1, &a);
    GP_CHECK(label_ok(v1));
    GP_CHECK(v1 && strstr(v1, ".-") == NULL);
    gp_arena_free(&a);
}

/* A workload whose name makes "<kind>.<name>" longer than 63 characters. */
GP_TEST(long_workload_name_is_cut_with_a_hash)
{
    gp_policy *pol = policy(-1);
    fx f;

    if (run(&f, pol, &opts, "{'metadata':{'namespace':'ml','generateName':'x-',"
                            "'ownerReferences':[{'kind':'StatefulSet','name':'a-very-long-"
                            "statefulset-name-that-goes-on-and-on-and-on-for-ever','controller':"
                            "true}]}," GPU1 "}")) {
        const char *v = value_of(&f.d, GP_CH_SET_LABEL, GP_LABEL_WORKLOAD);

        GP_CHECK(label_ok(v));
        GP_CHECK(v && strncmp(v, "statefulset.a-very-long-statefulset-name-that-goes-on", 53) == 0);
        SECOND_PASS(&f, pol, &opts);
    }
    fx_free(&f);
    gp_policy_unref(pol);
}

/* --- policy -------------------------------------------------------------------------------- */

GP_TEST(policy_rightsizing_values)
{
    gp_policy *p = policy(-1);
    gp_policy *bad = NULL;
    char *errors = NULL;
    char *doc = q("{'apiVersion':'gpupack.io/v1alpha1','kind':'Policy','classes':{'inference':"
                  "{'rightsizing':'always'}}}");

    for (size_t i = 0; p != NULL && i < p->nclasses; i++)
        GP_CHECK_INT(p->classes[i].rightsizing, strcmp(p->classes[i].name, "training") == 0
                                                    ? GP_RIGHTSIZE_OFF : GP_RIGHTSIZE_RECOMMEND);
    GP_CHECK_INT(gp_policy_parse(doc, strlen(doc), &bad, &errors), GP_EINVAL);
    GP_CHECK(errors != NULL && strstr(errors, "classes.inference.rightsizing: ") != NULL &&
             strstr(errors, "\"apply\"") != NULL);
    free(errors);
    free(doc);
    gp_policy_unref(p);
}

/* --- the webhook's table ------------------------------------------------------------------- */

static char *temp_file(const char *content)
{
    char *path = strdup("/tmp/gpupack-rs-XXXXXX");
    int fd = mkstemp(path);

    if (content != NULL && fd >= 0 && write(fd, content, strlen(content)) < 0)
        gp_test_failed = 1;
    if (fd >= 0)
        close(fd);
    return path;
}

GP_TEST(webhook_loads_and_reloads)
{
    gp_metrics *m = gp_metrics_new();
    gp_policy_holder h;
    gp_webhook w;
    gp_recs_shared *r = NULL;
    gp_err err = { { 0 } };
    char *path = temp_file(recs_doc);
    FILE *f;

    gp_policy_holder_init(&h, policy(-1));
    gp_webhook_init(&w, &h, NULL, m, NULL);
    GP_CHECK(metric_value(m, "gpupack_recommendations_loaded", "") == 0);
    GP_CHECK(metric_value(m, "gpupack_rightsizing_total", "action=\"user-set\"") == 0);
    /* Missing: an empty table. */
    GP_CHECK_INT(gp_webhook_load_recs("/nonexistent/recommendations.json", &r, &err), GP_OK);
    GP_CHECK(r != NULL && gp_recs_shared_table(r)->n == 0);
    gp_recs_shared_unref(r);
    gp_webhook_reload_recs(&w, path);
    GP_CHECK(metric_value(m, "gpupack_recommendations_loaded", "") == 6);
    GP_CHECK(metric_value(m, "gpupack_recommendations_reloads_total", "result=\"ok\"") == 1);
    /* A bad file: the error names the file and the JSON path; the last good table stays. */
    f = fopen(path, "w");
    if (f != NULL) {
        fputs("{\"apiVersion\": \"gpupack.io/recommendations/v1\", \"recommendations\": "
              "[{\"namespace\": \"ml\"}]}", f);
        fclose(f);
    }
    GP_CHECK(gp_webhook_load_recs(path, &r, &err) == GP_EINVAL);
    GP_CHECK(strstr(err.msg, path) != NULL && strstr(err.msg, "recommendations[0]") != NULL);
    gp_webhook_reload_recs(&w, path);
    GP_CHECK(metric_value(m, "gpupack_recommendations_reloads_total", "result=\"error\"") == 1);
    GP_CHECK(metric_value(m, "gpupack_recommendations_loaded", "") == 6);
    r = gp_snapshot_get(&w.recs);
    GP_CHECK(r != NULL && gp_recs_shared_table(r)->n == 6);
    if (r != NULL)
        gp_recs_shared_unref(r);
    gp_webhook_destroy(&w);
    gp_policy_holder_destroy(&h);
    gp_metrics_free(m);
    unlink(path);
    free(path);
}

static char *review_of(const char *pod)
{
    char *p = q(pod);
    size_t n = strlen(p) + 512;
    char *s = malloc(n);

    snprintf(s, n, "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\","
             "\"request\":{\"uid\":\"u1\",\"kind\":{\"group\":\"\",\"version\":\"v1\",\"kind\":"
             "\"Pod\"},\"resource\":{\"group\":\"\",\"version\":\"v1\",\"resource\":\"pods\"},"
             "\"namespace\":\"ml\",\"operation\":\"CREATE\",\"object\":%s}}", p);
    free(p);
    return s;
}

/* Enforce mode patches and counts the action; audit mode reports, patches nothing, and counts
 * the would-be change. */
GP_TEST(webhook_counts_and_audits)
{
    gp_metrics *m = gp_metrics_new();
    gp_policy_holder h;
    gp_webhook w;
    gp_http_response resp = { 0 };
    char *path = temp_file(recs_doc), *body = review_of(RANKER("", ""));
    gp_policy *audit = policy(-1);
    cJSON *j;

    gp_policy_holder_init(&h, policy(-1));
    gp_webhook_init(&w, &h, NULL, m, NULL);
    gp_webhook_reload_recs(&w, path);
    gp_webhook_review(&w, body, strlen(body), &resp);
    j = cJSON_Parse(resp.body);
    GP_CHECK(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "response"),
                                              "patch") != NULL);
    GP_CHECK(resp.body && strstr(resp.body, "gpupack: rightsizing: the advisor recommends") != NULL);
    GP_CHECK(metric_value(m, "gpupack_rightsizing_total", "action=\"recommend\"") == 1);
    GP_CHECK(metric_value(m, "gpupack_mutations_total", "kind=\"rightsizing\"") == 1);
    GP_CHECK(metric_value(m, "gpupack_mutations_total", "kind=\"cost-labels\"") == 1);
    cJSON_Delete(j);
    free(resp.body);
    if (audit != NULL)
        audit->mode = GP_MODE_AUDIT;
    gp_policy_holder_set(&h, audit);
    memset(&resp, 0, sizeof(resp));
    gp_webhook_review(&w, body, strlen(body), &resp);
    j = cJSON_Parse(resp.body);
    GP_CHECK(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "response"),
                                              "patch") == NULL);
    GP_CHECK(resp.body && strstr(resp.body, "gpupack (audit mode) would set rightsizing: ") != NULL);
    GP_CHECK(metric_value(m, "gpupack_audit_would_mutate_total", "kind=\"rightsizing\"") == 1);
    GP_CHECK(metric_value(m, "gpupack_rightsizing_total", "action=\"recommend\"") == 1);
    cJSON_Delete(j);
    free(resp.body);
    gp_webhook_destroy(&w);
    gp_policy_holder_destroy(&h);
    gp_metrics_free(m);
    unlink(path);
    free(path);
    free(body);
}

GP_MAIN(GP_CASE(recommend_annotates_and_warns), GP_CASE(no_table_or_no_entry_does_nothing),
        GP_CASE(apply_rewrites_to_mig_and_records_evidence),
        GP_CASE(apply_respects_the_class_and_falls_back), GP_CASE(apply_leaves_a_slice_alone),
        GP_CASE(user_annotation_wins), GP_CASE(opt_out_label), GP_CASE(expired_is_ignored),
        GP_CASE(class_off_does_nothing), GP_CASE(workloads_by_the_advisors_rule),
        GP_CASE(cost_labels_when_absent), GP_CASE(label_safe_values),
        GP_CASE(long_workload_name_is_cut_with_a_hash), GP_CASE(policy_rightsizing_values),
        GP_CASE(webhook_loads_and_reloads), GP_CASE(webhook_counts_and_audits))
