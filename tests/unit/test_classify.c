/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of lib/classify.c: gp_classify() over the default policy (label, rule order, owner
 * kinds, no owner, no class) and over custom policies (defaultClass, namespace globs, label
 * selector operators and matchLabels, noOwner, AND of criteria), with the exact class and reason.
 *
 * Pods and policies are written with single quotes; q() turns them into JSON. Every test ends
 * with a leak check when built with AddressSanitizer. */
#include "gptest.h"

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "gpupack/arena.h"
#include "gpupack/mutate.h"
#include "gpupack/podview.h"
#include "gpupack/policy.h"


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

/* A policy with classes hit, other and training; rest (single-quoted) follows the header. */
static gp_policy *custom_policy(const char *rest)
{
    static const char head[] = "{'apiVersion':'gpupack.io/v1alpha1','kind':'Policy',"
                               "'classes':{'hit':{},'other':{},'training':{}},";
    size_t n = strlen(head) + strlen(rest) + 2;
    char *text = malloc(n), *s;
    gp_policy *p = NULL;
    char *errors = NULL;

    snprintf(text, n, "%s%s}", head, rest);
    s = q(text);
    if (gp_policy_parse(s, strlen(s), &p, &errors) != GP_OK) {
        printf("  custom policy %s:\n%s\n", s, errors ? errors : "?");
        gp_test_failed = 1;
    }
    free(errors);
    free(text);
    free(s);
    return p;
}

/* Classifies the pod (single-quoted JSON; namespace fallback "default") under pol and checks
 * the class and the reason (NULL for none). */
static void check_class(const gp_policy *pol, const char *pod_text, const char *want_class,
                        const char *want_why, int line)
{
    char *s = q(pod_text);
    cJSON *json = cJSON_Parse(s);
    const char *cls = "unset", *why = "unset";
    gp_arena a;
    gp_pod pod;
    gp_err err = { { 0 } };

    gp_arena_init(&a, 0);
    if (pol == NULL || gp_pod_from_json(json, "default", &a, &pod, &err) != GP_OK) {
        printf("  %s:%d: no policy, or pod does not decode: %s\n", __FILE__, line, err.msg);
        gp_test_failed = 1;
        goto out;
    }
    gp_classify(&pod, pol, &cls, &why, &a);
    if ((want_class == NULL) != (cls == NULL) || (cls && strcmp(cls, want_class) != 0) ||
        (want_why == NULL) != (why == NULL) || (why && strcmp(why, want_why) != 0)) {
        printf("  %s:%d: class %s (%s), want %s (%s)\n", __FILE__, line, cls ? cls : "NULL",
               why ? why : "NULL", want_class ? want_class : "NULL", want_why ? want_why : "NULL");
        gp_test_failed = 1;
    }
out:
    gp_arena_free(&a);
    cJSON_Delete(json);
    free(s);
}
#define CHECK_CLASS(pol, pod, cls, why) check_class(pol, pod, cls, why, __LINE__)

#define OWNER(kind) "'ownerReferences':[{'kind':'" kind "','name':'x','controller':true}]"

/* --- default policy ------------------------------------------------------------------------ */

GP_TEST(label_wins_over_rules)
{
    gp_policy *pol = default_policy();

    CHECK_CLASS(pol, "{'metadata':{'labels':{'gpupack.io/class':'training'}," OWNER("ReplicaSet")
                     "}}",
                "training", "label gpupack.io/class");
    CHECK_CLASS(pol, "{'metadata':{'labels':{'gpupack.io/class':'inference',"
                     "'notebook-name':'nb'}}}",
                "inference", "label gpupack.io/class");
    gp_policy_unref(pol);
}

GP_TEST(unknown_label_gives_no_class)
{
    gp_policy *pol = default_policy();

    /* The rules are not consulted: a Job-owned pod with a typo in its label gets no class. */
    CHECK_CLASS(pol, "{'metadata':{'labels':{'gpupack.io/class':'trainig'}," OWNER("Job") "}}",
                NULL, "unknown class label");
    CHECK_CLASS(pol, "{'metadata':{'labels':{'gpupack.io/class':''}}}", NULL,
                "unknown class label");
    gp_policy_unref(pol);
}

GP_TEST(notebook_statefulset_is_interactive_rule_order)
{
    gp_policy *pol = default_policy();

    CHECK_CLASS(pol, "{'metadata':{'labels':{'notebook-name':'nb'}," OWNER("StatefulSet") "}}",
                "interactive", "rule kubeflow-notebook");
    CHECK_CLASS(pol, "{'metadata':{'labels':{'notebook-name':''}," OWNER("StatefulSet") "}}",
                "interactive", "rule kubeflow-notebook");
    CHECK_CLASS(pol, "{'metadata':{'labels':{'component':'singleuser-server'},"
                     OWNER("Deployment") "}}",
                "interactive", "rule jupyterhub-singleuser");
    CHECK_CLASS(pol, "{'metadata':{'labels':{'component':'hub'}," OWNER("Deployment") "}}",
                "inference", "rule services: owner Deployment");
    gp_policy_unref(pol);
}

GP_TEST(job_kinds_are_training)
{
    gp_policy *pol = default_policy();

    CHECK_CLASS(pol, "{'metadata':{" OWNER("Job") "}}", "training", "rule batch-jobs: owner Job");
    CHECK_CLASS(pol, "{'metadata':{" OWNER("PyTorchJob") "}}", "training",
                "rule batch-jobs: owner PyTorchJob");
    CHECK_CLASS(pol, "{'metadata':{" OWNER("RayJob") "}}", "training",
                "rule batch-jobs: owner RayJob");
    /* Kinds are compared exactly. */
    CHECK_CLASS(pol, "{'metadata':{" OWNER("job") "}}", NULL, NULL);
    gp_policy_unref(pol);
}

/* KubeRay: a RayJob's pods are owned by the RayCluster it creates, labelled
 * ray.io/originated-from-crd: RayJob; rules listing RayJob match them (default: training). */
GP_TEST(rayjob_pods_via_raycluster_origin_label)
{
    gp_policy *pol = default_policy();
    gp_policy *both = custom_policy("'rules':[{'name':'clusters','class':'other','match':"
                                    "{'ownerKinds':['RayCluster']}},{'name':'jobs','class':"
                                    "'training','match':{'ownerKinds':['RayJob']}}]");

    CHECK_CLASS(pol, "{'metadata':{'labels':{'ray.io/originated-from-crd':'RayJob',"
                     "'ray.io/originated-from-cr-name':'train-1'}," OWNER("RayCluster") "}}",
                "training", "rule batch-jobs: owner RayCluster (from RayJob)");
    /* A plain RayCluster, a RayService's cluster, or the label on another owner: no RayJob. */
    CHECK_CLASS(pol, "{'metadata':{" OWNER("RayCluster") "}}", NULL, NULL);
    CHECK_CLASS(pol, "{'metadata':{'labels':{'ray.io/originated-from-crd':'RayService'},"
                     OWNER("RayCluster") "}}", NULL, NULL);
    CHECK_CLASS(pol, "{'metadata':{'labels':{'ray.io/originated-from-crd':'RayJob'},"
                     OWNER("DaemonSet") "}}", NULL, NULL);
    CHECK_CLASS(pol, "{'metadata':{'labels':{'ray.io/originated-from-crd':'RayJob'}}}",
                "interactive", "rule bare-pods: no owner");
    /* A rule listing RayCluster still matches; the first matching rule wins. */
    CHECK_CLASS(both, "{'metadata':{'labels':{'ray.io/originated-from-crd':'RayJob'},"
                      OWNER("RayCluster") "}}", "other", "rule clusters: owner RayCluster");
    gp_policy_unref(pol);
    gp_policy_unref(both);
}

GP_TEST(services_are_inference)
{
    gp_policy *pol = default_policy();

    CHECK_CLASS(pol, "{'metadata':{" OWNER("ReplicaSet") "}}", "inference",
                "rule services: owner ReplicaSet");
    CHECK_CLASS(pol, "{'metadata':{" OWNER("StatefulSet") "}}", "inference",
                "rule services: owner StatefulSet");
    CHECK_CLASS(pol, "{'metadata':{" OWNER("Deployment") "}}", "inference",
                "rule services: owner Deployment");
    /* The controller decides, not the first owner. */
    CHECK_CLASS(pol, "{'metadata':{'ownerReferences':[{'kind':'Job'},"
                     "{'kind':'ReplicaSet','controller':true}]}}",
                "inference", "rule services: owner ReplicaSet");
    gp_policy_unref(pol);
}

GP_TEST(no_owner_is_interactive)
{
    gp_policy *pol = default_policy();

    CHECK_CLASS(pol, "{'metadata':{'name':'p'}}", "interactive", "rule bare-pods: no owner");
    CHECK_CLASS(pol, "{}", "interactive", "rule bare-pods: no owner");
    gp_policy_unref(pol);
}

GP_TEST(daemonset_has_no_class_without_default)
{
    gp_policy *pol = default_policy();

    GP_CHECK(pol != NULL && pol->default_class == NULL);
    CHECK_CLASS(pol, "{'metadata':{" OWNER("DaemonSet") "}}", NULL, NULL);
    gp_policy_unref(pol);
}

/* --- custom policies ----------------------------------------------------------------------- */

GP_TEST(default_class_when_no_rule_matches)
{
    gp_policy *pol = custom_policy("'rules':[{'name':'jobs','class':'training',"
                                   "'match':{'ownerKinds':['Job']}}],'defaultClass':'other'");

    CHECK_CLASS(pol, "{'metadata':{" OWNER("DaemonSet") "}}", "other", "defaultClass");
    CHECK_CLASS(pol, "{}", "other", "defaultClass");
    CHECK_CLASS(pol, "{'metadata':{" OWNER("Job") "}}", "training", "rule jobs: owner Job");
    /* The label still wins over the default. */
    CHECK_CLASS(pol, "{'metadata':{'labels':{'gpupack.io/class':'hit'}}}", "hit",
                "label gpupack.io/class");
    gp_policy_unref(pol);
}

GP_TEST(rule_without_criteria_matches_every_pod)
{
    gp_policy *pol = custom_policy("'rules':[{'name':'all','class':'hit'},"
                                   "{'name':'never','class':'other'}]");

    CHECK_CLASS(pol, "{}", "hit", "rule all");
    CHECK_CLASS(pol, "{'metadata':{" OWNER("Job") "}}", "hit", "rule all");
    gp_policy_unref(pol);
}

GP_TEST(namespace_globs)
{
    gp_policy *pol = custom_policy("'rules':[{'name':'eval','class':'hit',"
                                   "'match':{'namespaces':['eval-*','team-?','prod']}}],"
                                   "'defaultClass':'other'");

    CHECK_CLASS(pol, "{'metadata':{'namespace':'eval-x'}}", "hit", "rule eval");
    CHECK_CLASS(pol, "{'metadata':{'namespace':'eval-'}}", "hit", "rule eval");
    CHECK_CLASS(pol, "{'metadata':{'namespace':'team-a'}}", "hit", "rule eval");
    CHECK_CLASS(pol, "{'metadata':{'namespace':'prod'}}", "hit", "rule eval");
    CHECK_CLASS(pol, "{'metadata':{'namespace':'team-ab'}}", "other", "defaultClass");
    CHECK_CLASS(pol, "{'metadata':{'namespace':'team-'}}", "other", "defaultClass");
    CHECK_CLASS(pol, "{'metadata':{'namespace':'evalx'}}", "other", "defaultClass");
    CHECK_CLASS(pol, "{'metadata':{'namespace':'production'}}", "other", "defaultClass");
    /* Without metadata.namespace the request's namespace (fallback "default") is used. */
    CHECK_CLASS(pol, "{}", "other", "defaultClass");
    gp_policy_unref(pol);
}

GP_TEST(namespace_fallback_is_matched)
{
    gp_policy *pol = custom_policy("'rules':[{'name':'d','class':'hit',"
                                   "'match':{'namespaces':['def*']}}]");

    CHECK_CLASS(pol, "{}", "hit", "rule d"); /* fallback "default" */
    CHECK_CLASS(pol, "{'metadata':{'namespace':'other'}}", NULL, NULL);
    gp_policy_unref(pol);
}

GP_TEST(selector_in)
{
    gp_policy *pol = custom_policy("'rules':[{'name':'r','class':'hit','match':{'labelSelector':"
                                   "{'matchExpressions':[{'key':'tier','operator':'In',"
                                   "'values':['a','b']}]}}}],'defaultClass':'other'");

    CHECK_CLASS(pol, "{'metadata':{'labels':{'tier':'a'}}}", "hit", "rule r");
    CHECK_CLASS(pol, "{'metadata':{'labels':{'tier':'b'}}}", "hit", "rule r");
    CHECK_CLASS(pol, "{'metadata':{'labels':{'tier':'c'}}}", "other", "defaultClass");
    CHECK_CLASS(pol, "{'metadata':{'labels':{'x':'a'}}}", "other", "defaultClass");
    gp_policy_unref(pol);
}

GP_TEST(selector_not_in)
{
    gp_policy *pol = custom_policy("'rules':[{'name':'r','class':'hit','match':{'labelSelector':"
                                   "{'matchExpressions':[{'key':'tier','operator':'NotIn',"
                                   "'values':['a','b']}]}}}],'defaultClass':'other'");

    CHECK_CLASS(pol, "{'metadata':{'labels':{'tier':'a'}}}", "other", "defaultClass");
    CHECK_CLASS(pol, "{'metadata':{'labels':{'tier':'c'}}}", "hit", "rule r");
    CHECK_CLASS(pol, "{'metadata':{'labels':{'x':'a'}}}", "hit", "rule r"); /* label absent */
    CHECK_CLASS(pol, "{}", "hit", "rule r");
    gp_policy_unref(pol);
}

GP_TEST(selector_exists_and_does_not_exist)
{
    gp_policy *ex = custom_policy("'rules':[{'name':'r','class':'hit','match':{'labelSelector':"
                                  "{'matchExpressions':[{'key':'gpu','operator':'Exists'}]}}}],"
                                  "'defaultClass':'other'");
    gp_policy *dne = custom_policy("'rules':[{'name':'r','class':'hit','match':{'labelSelector':"
                                   "{'matchExpressions':[{'key':'gpu','operator':'DoesNotExist'}]"
                                   "}}}],'defaultClass':'other'");

    CHECK_CLASS(ex, "{'metadata':{'labels':{'gpu':''}}}", "hit", "rule r");
    CHECK_CLASS(ex, "{'metadata':{'labels':{'gpux':'1'}}}", "other", "defaultClass");
    CHECK_CLASS(dne, "{'metadata':{'labels':{'gpu':'1'}}}", "other", "defaultClass");
    CHECK_CLASS(dne, "{'metadata':{'labels':{'gpux':'1'}}}", "hit", "rule r");
    CHECK_CLASS(dne, "{}", "hit", "rule r");
    gp_policy_unref(ex);
    gp_policy_unref(dne);
}

GP_TEST(selector_match_labels_and_expressions_all_hold)
{
    gp_policy *pol = custom_policy("'rules':[{'name':'r','class':'hit','match':{'labelSelector':"
                                   "{'matchLabels':{'app':'web','team':'a'},"
                                   "'matchExpressions':[{'key':'canary','operator':'DoesNotExist'}"
                                   "]}}}],'defaultClass':'other'");

    CHECK_CLASS(pol, "{'metadata':{'labels':{'app':'web','team':'a','x':'y'}}}", "hit", "rule r");
    CHECK_CLASS(pol, "{'metadata':{'labels':{'app':'web'}}}", "other", "defaultClass");
    CHECK_CLASS(pol, "{'metadata':{'labels':{'app':'web','team':'b'}}}", "other", "defaultClass");
    CHECK_CLASS(pol, "{'metadata':{'labels':{'app':'web','team':'a','canary':'1'}}}", "other",
                "defaultClass");
    gp_policy_unref(pol);
}

GP_TEST(empty_selector_matches_every_pod)
{
    gp_policy *pol = custom_policy("'rules':[{'name':'r','class':'hit','match':"
                                   "{'labelSelector':{}}}],'defaultClass':'other'");

    CHECK_CLASS(pol, "{}", "hit", "rule r");
    gp_policy_unref(pol);
}

GP_TEST(no_owner_false_needs_an_owner)
{
    gp_policy *pol = custom_policy("'rules':[{'name':'owned','class':'hit','match':"
                                   "{'noOwner':false}},{'name':'bare','class':'training',"
                                   "'match':{'noOwner':true}}]");

    CHECK_CLASS(pol, "{'metadata':{" OWNER("DaemonSet") "}}", "hit", "rule owned");
    CHECK_CLASS(pol, "{}", "training", "rule bare: no owner");
    gp_policy_unref(pol);
}

GP_TEST(owner_kinds_never_match_a_bare_pod)
{
    gp_policy *pol = custom_policy("'rules':[{'name':'jobs','class':'hit','match':"
                                   "{'ownerKinds':['Job','CronJob']}}]");

    CHECK_CLASS(pol, "{}", NULL, NULL);
    CHECK_CLASS(pol, "{'metadata':{" OWNER("CronJob") "}}", "hit", "rule jobs: owner CronJob");
    gp_policy_unref(pol);
}

GP_TEST(criteria_are_anded_and_first_rule_wins)
{
    gp_policy *pol = custom_policy("'rules':[{'name':'eval-jobs','class':'hit','match':"
                                   "{'namespaces':['eval-*'],'ownerKinds':['Job'],"
                                   "'labelSelector':{'matchLabels':{'kind':'eval'}}}},"
                                   "{'name':'jobs','class':'training','match':"
                                   "{'ownerKinds':['Job']}}],'defaultClass':'other'");

    CHECK_CLASS(pol, "{'metadata':{'namespace':'eval-1','labels':{'kind':'eval'}," OWNER("Job")
                     "}}",
                "hit", "rule eval-jobs: owner Job");
    CHECK_CLASS(pol, "{'metadata':{'namespace':'prod','labels':{'kind':'eval'}," OWNER("Job")
                     "}}",
                "training", "rule jobs: owner Job");
    CHECK_CLASS(pol, "{'metadata':{'namespace':'eval-1'," OWNER("Job") "}}", "training",
                "rule jobs: owner Job");
    CHECK_CLASS(pol, "{'metadata':{'namespace':'eval-1','labels':{'kind':'eval'}}}", "other",
                "defaultClass");
    gp_policy_unref(pol);
}

GP_MAIN(GP_CASE(label_wins_over_rules), GP_CASE(rayjob_pods_via_raycluster_origin_label), GP_CASE(unknown_label_gives_no_class),
        GP_CASE(notebook_statefulset_is_interactive_rule_order), GP_CASE(job_kinds_are_training),
        GP_CASE(services_are_inference), GP_CASE(no_owner_is_interactive),
        GP_CASE(daemonset_has_no_class_without_default),
        GP_CASE(default_class_when_no_rule_matches),
        GP_CASE(rule_without_criteria_matches_every_pod), GP_CASE(namespace_globs),
        GP_CASE(namespace_fallback_is_matched), GP_CASE(selector_in), GP_CASE(selector_not_in),
        GP_CASE(selector_exists_and_does_not_exist),
        GP_CASE(selector_match_labels_and_expressions_all_hold),
        GP_CASE(empty_selector_matches_every_pod), GP_CASE(no_owner_false_needs_an_owner),
        GP_CASE(owner_kinds_never_match_a_bare_pod),
        GP_CASE(criteria_are_anded_and_first_rule_wins))
