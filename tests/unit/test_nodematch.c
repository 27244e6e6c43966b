/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of lib/nodematch.c: whether a pod's node selection (spec.nodeName,
 * spec.nodeSelector, required node affinity) admits a node with a given name and labels, with
 * Kubernetes' semantics: terms ORed, expressions and fields ANDed, an empty term matching
 * nothing, operators In, NotIn, Exists, DoesNotExist, Gt, Lt, matchFields on metadata.name, and
 * the caller's extra labels.
 *
 * Pods are written with single quotes; q() turns them into JSON. Nodes are "name" plus a
 * "k=v,k=v" label list. */
#include "gptest.h"

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "gpupack/arena.h"
#include "gpupack/nodematch.h"
#include "gpupack/podview.h"

static char *q(const char *text)
{
    char *s = strdup(text);

    for (char *c = s; *c; c++)
        if (*c == '\'')
            *c = '"';
    return s;
}

/* Splits "k=v,k=v" into labels (pointing into buf). */
static size_t labels_of(char *buf, gp_label *out, size_t cap)
{
    size_t n = 0;

    for (char *tok = strtok(buf, ","); tok != NULL && n < cap; tok = strtok(NULL, ",")) {
        char *eq = strchr(tok, '=');

        if (eq == NULL)
            continue;
        *eq = '\0';
        out[n].key = tok;
        out[n++].value = eq + 1;
    }
    return n;
}

/* Decodes the pod's spec (single-quoted JSON object body) and judges the node. */
static bool may_use(const char *spec, const char *extra, const char *name, const char *labels)
{
    char text[2048], lbuf[512], ebuf[256], *s;
    gp_label l[32], e[8];
    gp_selector_req r[8]; /* the extra labels as the caller's requirements: key In [value] */
    size_t nl, ne;
    cJSON *json;
    gp_arena a;
    gp_pod pod;
    bool ok = false;

    snprintf(text, sizeof(text), "{'spec':{%s}}", spec);
    snprintf(lbuf, sizeof(lbuf), "%s", labels);
    snprintf(ebuf, sizeof(ebuf), "%s", extra ? extra : "");
    nl = labels_of(lbuf, l, 32);
    ne = labels_of(ebuf, e, 8);
    for (size_t i = 0; i < ne; i++)
        r[i] = (gp_selector_req){ e[i].key, (char *)"In", &e[i].value, 1 };
    s = q(text);
    json = cJSON_Parse(s);
    gp_arena_init(&a, 0);
    if (gp_pod_from_json(json, "default", &a, &pod, NULL) == GP_OK)
        ok = gp_pod_may_use_node(&pod, ne ? r : NULL, ne, name, l, nl);
    else
        printf("  pod does not decode: %s\n", s), gp_test_failed = 1;
    gp_arena_free(&a);
    cJSON_Delete(json);
    free(s);
    return ok;
}

#define REQ(terms) "'affinity':{'nodeAffinity':{'requiredDuringSchedulingIgnoredDuringExecution':" \
                   "{'nodeSelectorTerms':[" terms "]}}}"
#define EXPR(k, op, vals) "{'key':'" k "','operator':'" op "','values':[" vals "]}"
#define TERM(exprs) "{'matchExpressions':[" exprs "]}"
#define FIELDS(exprs) "{'matchFields':[" exprs "]}"

#define A100 "nvidia.com/gpu.product=NVIDIA-A100-SXM4-80GB,pool=a100,zone=z1,gpus=8"
#define L4 "nvidia.com/gpu.product=NVIDIA-L4,pool=l4,zone=z2,gpus=4"

GP_TEST(no_selection_admits_every_node)
{
    GP_CHECK(may_use("", NULL, "a", A100));
    GP_CHECK(may_use("", NULL, "", ""));
}

GP_TEST(node_name)
{
    GP_CHECK(may_use("'nodeName':'a'", NULL, "a", A100));
    GP_CHECK(!may_use("'nodeName':'a'", NULL, "b", A100));
    GP_CHECK(!may_use("'nodeName':'a'", NULL, "", A100));
    GP_CHECK(may_use("'nodeName':''", NULL, "b", A100)); /* empty: unset */
}

GP_TEST(node_selector_all_entries)
{
    GP_CHECK(may_use("'nodeSelector':{'nvidia.com/gpu.product':'NVIDIA-L4'}", NULL, "l", L4));
    GP_CHECK(!may_use("'nodeSelector':{'nvidia.com/gpu.product':'NVIDIA-L4'}", NULL, "a", A100));
    GP_CHECK(!may_use("'nodeSelector':{'pool':'l4','zone':'z1'}", NULL, "l", L4));
    GP_CHECK(may_use("'nodeSelector':{'pool':'l4','zone':'z2'}", NULL, "l", L4));
    GP_CHECK(!may_use("'nodeSelector':{'missing':''}", NULL, "l", L4));
    GP_CHECK(may_use("'nodeSelector':{}", NULL, "l", L4));
}

GP_TEST(terms_or_expressions_and)
{
    static const char two[] = REQ(TERM(EXPR("pool", "In", "'a100'") "," EXPR("zone", "In", "'z9'"))
                                  "," TERM(EXPR("pool", "In", "'l4'")));

    GP_CHECK(!may_use(two, NULL, "a", A100)); /* first term: zone fails; second: pool fails */
    GP_CHECK(may_use(two, NULL, "l", L4));
    /* A term with neither expressions nor fields matches no node. */
    GP_CHECK(!may_use(REQ("{}"), NULL, "a", A100));
    GP_CHECK(may_use(REQ("{}," TERM(EXPR("pool", "Exists", ""))), NULL, "a", A100));
    /* No terms: no constraint (kube-apiserver rejects it anyway). */
    GP_CHECK(may_use(REQ(""), NULL, "a", A100));
    /* nodeSelector and affinity both hold. */
    GP_CHECK(!may_use("'nodeSelector':{'zone':'z2'}," REQ(TERM(EXPR("pool", "In", "'a100'"))),
                      NULL, "a", A100));
}

GP_TEST(operators)
{
    GP_CHECK(may_use(REQ(TERM(EXPR("pool", "In", "'x','a100'"))), NULL, "a", A100));
    GP_CHECK(!may_use(REQ(TERM(EXPR("nope", "In", "'a100'"))), NULL, "a", A100));
    GP_CHECK(may_use(REQ(TERM(EXPR("pool", "NotIn", "'l4'"))), NULL, "a", A100));
    GP_CHECK(!may_use(REQ(TERM(EXPR("pool", "NotIn", "'a100'"))), NULL, "a", A100));
    GP_CHECK(may_use(REQ(TERM(EXPR("nope", "NotIn", "'a100'"))), NULL, "a", A100));
    GP_CHECK(may_use(REQ(TERM(EXPR("zone", "Exists", ""))), NULL, "a", A100));
    GP_CHECK(!may_use(REQ(TERM(EXPR("nope", "Exists", ""))), NULL, "a", A100));
    GP_CHECK(may_use(REQ(TERM(EXPR("nope", "DoesNotExist", ""))), NULL, "a", A100));
    GP_CHECK(!may_use(REQ(TERM(EXPR("zone", "DoesNotExist", ""))), NULL, "a", A100));
    GP_CHECK(!may_use(REQ(TERM(EXPR("pool", "Bogus", "'a100'"))), NULL, "a", A100));
}

GP_TEST(gt_lt_integers)
{
    GP_CHECK(may_use(REQ(TERM(EXPR("gpus", "Gt", "'4'"))), NULL, "a", A100));
    GP_CHECK(!may_use(REQ(TERM(EXPR("gpus", "Gt", "'8'"))), NULL, "a", A100));
    GP_CHECK(may_use(REQ(TERM(EXPR("gpus", "Lt", "'9'"))), NULL, "a", A100));
    GP_CHECK(!may_use(REQ(TERM(EXPR("gpus", "Lt", "'8'"))), NULL, "a", A100));
    GP_CHECK(may_use(REQ(TERM(EXPR("gpus", "Gt", "'-1'"))), NULL, "a", A100));
    GP_CHECK(may_use(REQ(TERM(EXPR("gpus", "Gt", "'+7'"))), NULL, "a", A100));
    /* Not integers, a missing label, two values: no match. */
    GP_CHECK(!may_use(REQ(TERM(EXPR("pool", "Gt", "'1'"))), NULL, "a", A100));
    GP_CHECK(!may_use(REQ(TERM(EXPR("gpus", "Gt", "'1.5'"))), NULL, "a", A100));
    GP_CHECK(!may_use(REQ(TERM(EXPR("gpus", "Gt", "' 1'"))), NULL, "a", A100));
    GP_CHECK(!may_use(REQ(TERM(EXPR("nope", "Lt", "'100'"))), NULL, "a", A100));
    GP_CHECK(!may_use(REQ(TERM(EXPR("gpus", "Gt", "'1','2'"))), NULL, "a", A100));
    GP_CHECK(!may_use(REQ(TERM(EXPR("gpus", "Gt", ""))), NULL, "a", A100));
    /* int64 bounds. */
    GP_CHECK(may_use(REQ(TERM(EXPR("n", "Lt", "'9223372036854775807'"))), NULL, "a",
                     "n=-9223372036854775808"));
    GP_CHECK(!may_use(REQ(TERM(EXPR("n", "Lt", "'9223372036854775808'"))), NULL, "a", "n=1"));
}

GP_TEST(match_fields_metadata_name)
{
    GP_CHECK(may_use(REQ(FIELDS(EXPR("metadata.name", "In", "'a'"))), NULL, "a", A100));
    GP_CHECK(!may_use(REQ(FIELDS(EXPR("metadata.name", "In", "'a'"))), NULL, "b", A100));
    GP_CHECK(may_use(REQ(FIELDS(EXPR("metadata.name", "NotIn", "'a'"))), NULL, "b", A100));
    GP_CHECK(!may_use(REQ(FIELDS(EXPR("metadata.name", "NotIn", "'a'"))), NULL, "a", A100));
    GP_CHECK(!may_use(REQ(FIELDS(EXPR("metadata.uid", "In", "'a'"))), NULL, "a", A100));
    GP_CHECK(!may_use(REQ(FIELDS(EXPR("metadata.name", "Exists", ""))), NULL, "a", A100));
    /* Fields and expressions in one term: both hold. */
    GP_CHECK(!may_use(REQ("{'matchExpressions':[" EXPR("pool", "In", "'l4'") "],'matchFields':["
                          EXPR("metadata.name", "In", "'a'") "]}"),
                      NULL, "a", A100));
    GP_CHECK(may_use(REQ("{'matchExpressions':[" EXPR("pool", "In", "'a100'") "],'matchFields':["
                         EXPR("metadata.name", "In", "'a'") "]}"),
                     NULL, "a", A100));
}

GP_TEST(extra_labels)
{
    GP_CHECK(may_use("", "pool=a100", "a", A100));
    GP_CHECK(!may_use("", "pool=h100", "a", A100));
    GP_CHECK(!may_use("", "pool=a100,zone=z2", "a", A100));
    GP_CHECK(!may_use(REQ(TERM(EXPR("pool", "In", "'a100'"))), "zone=z2", "a", A100));
}

/* gp_pod_gpu_products() of the pod spec: "*" for any, else the values sorted and joined by
 * spaces ("" for none), "!" when they do not fit. */
static void products_of(const char *spec, char *out, size_t n)
{
    char text[4096], *s;
    cJSON *json;
    gp_arena a;
    gp_pod pod;
    gp_products ps;

    snprintf(text, sizeof(text), "{'spec':{%s}}", spec);
    s = q(text);
    json = cJSON_Parse(s);
    gp_arena_init(&a, 0);
    snprintf(out, n, "(does not decode)");
    if (gp_pod_from_json(json, "default", &a, &pod, NULL) == GP_OK) {
        if (!gp_pod_gpu_products(&pod, &ps)) {
            snprintf(out, n, "!");
        } else if (ps.any) {
            snprintf(out, n, "*");
        } else {
            out[0] = '\0';
            for (size_t i = 0; i < ps.n; i++) /* small: insertion order is the test's */
                snprintf(out + strlen(out), n - strlen(out), "%s%s", i ? " " : "", ps.v[i]);
        }
    }
    gp_arena_free(&a);
    cJSON_Delete(json);
    free(s);
}

#define P "nvidia.com/gpu.product"
GP_TEST(gpu_products_from_selector_and_affinity)
{
    char got[512], many[4096] = "";

    products_of("", got, sizeof(got));
    GP_CHECK_STR(got, "*");
    products_of("'nodeSelector':{'pool':'a'}", got, sizeof(got));
    GP_CHECK_STR(got, "*");
    products_of("'nodeSelector':{'" P "':'L4'}", got, sizeof(got));
    GP_CHECK_STR(got, "L4");
    /* terms ORed: the union; a term without a product expression allows any */
    products_of(REQ(TERM(EXPR(P, "In", "'A100','H100'")) "," TERM(EXPR(P, "In", "'L4','A100'"))),
                got, sizeof(got));
    GP_CHECK_STR(got, "A100 H100 L4");
    products_of(REQ(TERM(EXPR(P, "In", "'A100'")) "," TERM(EXPR("pool", "In", "'x'"))), got,
                sizeof(got));
    GP_CHECK_STR(got, "*");
    /* expressions ANDed: In then NotIn narrows; NotIn alone cannot; DoesNotExist allows none */
    products_of(REQ(TERM(EXPR(P, "In", "'A100','H100'") "," EXPR(P, "NotIn", "'H100'"))), got,
                sizeof(got));
    GP_CHECK_STR(got, "A100");
    products_of(REQ(TERM(EXPR(P, "NotIn", "'H100'"))), got, sizeof(got));
    GP_CHECK_STR(got, "*");
    products_of(REQ(TERM(EXPR(P, "DoesNotExist", ""))), got, sizeof(got));
    GP_CHECK_STR(got, "");
    /* nodeSelector and affinity both: the selector's value when the affinity allows it */
    products_of("'nodeSelector':{'" P "':'L4'}," REQ(TERM(EXPR(P, "In", "'A100','L4'"))), got,
                sizeof(got));
    GP_CHECK_STR(got, "L4");
    products_of("'nodeSelector':{'" P "':'L4'}," REQ(TERM(EXPR(P, "In", "'A100'"))), got,
                sizeof(got));
    GP_CHECK_STR(got, "");
    /* more values than fit */
    for (int i = 0; i <= GP_MAX_PRODUCTS; i++)
        snprintf(many + strlen(many), sizeof(many) - strlen(many), "%s'm%d'", i ? "," : "", i);
    snprintf(got, sizeof(got), "x");
    {
        char spec[4600];

        snprintf(spec, sizeof(spec), REQ(TERM("{'key':'" P "','operator':'In','values':[%s]}")),
                 many);
        products_of(spec, got, sizeof(got));
    }
    GP_CHECK_STR(got, "!");
}

GP_MAIN(GP_CASE(no_selection_admits_every_node), GP_CASE(gpu_products_from_selector_and_affinity), GP_CASE(node_name),
        GP_CASE(node_selector_all_entries), GP_CASE(terms_or_expressions_and), GP_CASE(operators),
        GP_CASE(gt_lt_integers), GP_CASE(match_fields_metadata_name), GP_CASE(extra_labels))
