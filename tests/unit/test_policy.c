/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of lib/policy.c: the default policy, the defaults of a minimal one, every validation
 * error with its exact JSON path, globbing, lookups, the holder and file loading.
 *
 * Documents are written with single quotes for readability; doc() turns them into JSON. Built with
 * AddressSanitizer, every test ends with a leak check of its own process (the harness leaves each
 * test with _exit(), which skips LeakSanitizer's own check at exit). */
#include "gptest.h"

#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>

#include "gpupack/policy.h"


#define HEADER "{'apiVersion':'gpupack.io/v1alpha1','kind':'Policy'"

/* A malloc'd JSON document: "{" header, then ", rest" when rest is not empty, then "}";
 * single quotes become double quotes. */
static char *doc(const char *rest)
{
    size_t n = strlen(HEADER) + strlen(rest) + 3;
    char *s = malloc(n);

    snprintf(s, n, "%s%s%s}", HEADER, rest[0] ? "," : "", rest);
    for (char *c = s; *c; c++)
        if (*c == '\'')
            *c = '"';
    return s;
}

/* Same, for a whole document given literally. */
static char *quote(const char *text)
{
    char *s = strdup(text);

    for (char *c = s; *c; c++)
        if (*c == '\'')
            *c = '"';
    return s;
}

/* Parses text, which must fail with GP_EINVAL; returns the malloc'd error lines. */
static char *errors_of_text(const char *text)
{
    gp_policy *p = (gp_policy *)1;
    char *errs = NULL;
    gp_status st = gp_policy_parse(text, strlen(text), &p, &errs);

    GP_CHECK_INT(st, GP_EINVAL);
    GP_CHECK(p == NULL);
    GP_CHECK(errs != NULL);
    if (errs == NULL)
        errs = strdup("");
    return errs;
}

static char *errors_of(const char *rest)
{
    char *text = doc(rest), *errs = errors_of_text(text);

    free(text);
    return errs;
}

static bool has_line(const char *errs, const char *line)
{
    size_t n = strlen(line);

    for (const char *c = errs; c && *c;) {
        const char *eol = strchr(c, '\n');
        size_t len = eol ? (size_t)(eol - c) : strlen(c);

        if (len == n && memcmp(c, line, n) == 0)
            return true;
        c = eol ? eol + 1 : c + len;
    }
    return false;
}

static bool has_prefix(const char *errs, const char *prefix)
{
    size_t n = strlen(prefix);

    for (const char *c = errs; c && *c;) {
        const char *eol = strchr(c, '\n');

        if (strncmp(c, prefix, n) == 0)
            return true;
        if (eol == NULL)
            break;
        c = eol + 1;
    }
    return false;
}

static size_t count_lines(const char *errs)
{
    size_t n = 0;

    for (; *errs; errs++)
        n += *errs == '\n';
    return n;
}

/* Checks that rest produces exactly the error line want (among possibly others). */
#define EXPECT_ERROR(rest, want)                                                                \
    do {                                                                                        \
        char *e__ = errors_of(rest);                                                            \
        if (!has_line(e__, want)) {                                                             \
            printf("  %s:%d: missing error line \"%s\"; got:\n%s", __FILE__, __LINE__, want,    \
                   e__);                                                                        \
            gp_test_failed = 1;                                                                 \
        }                                                                                       \
        free(e__);                                                                              \
    } while (0)

/* Checks that rest produces an error at the JSON path (a line starting with "path: "). */
#define EXPECT_PATH(rest, path)                                                                 \
    do {                                                                                        \
        char *e__ = errors_of(rest);                                                            \
        if (!has_prefix(e__, path ": ")) {                                                      \
            printf("  %s:%d: no error at \"%s\"; got:\n%s", __FILE__, __LINE__, path, e__);     \
            gp_test_failed = 1;                                                                 \
        }                                                                                       \
        free(e__);                                                                              \
    } while (0)

static gp_policy *parse_ok(const char *rest)
{
    char *text = doc(rest), *errs = NULL;
    gp_policy *p = NULL;
    gp_status st = gp_policy_parse(text, strlen(text), &p, &errs);

    GP_CHECK_INT(st, GP_OK);
    GP_CHECK(p != NULL);
    GP_CHECK(errs == NULL);
    if (errs != NULL)
        printf("  unexpected errors:\n%s", errs);
    free(errs);
    free(text);
    return p;
}

#define CLASS_T "'classes':{'t':{}}"

/* ------------------------------------------------------------------------------------------- */

GP_TEST(default_policy_matches_contract)
{
    gp_policy *p = NULL;
    char *errs = NULL;
    const gp_class *c;
    static const char *rule_names[] = {"kubeflow-notebook", "jupyterhub-singleuser", "batch-jobs",
                                       "services", "bare-pods"};
    static const char *rule_classes[] = {"interactive", "interactive", "training", "inference",
                                         "interactive"};
    static const char *mig_names[] = {"1g.10gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"};
    /* What nvidia-smi mig -lgip reports on an A100-SXM4-80GB (below the H100's figures). */
    static const char *mig_mem[] = {"9.5Gi", "19.5Gi", "39.25Gi", "39.25Gi", "79Gi"};
    static const int mig_slices[] = {1, 2, 3, 4, 7};

    GP_CHECK_INT(gp_policy_default(&p, &errs), GP_OK);
    GP_CHECK(errs == NULL);
    if (p == NULL)
        return;
    GP_CHECK_INT(p->mode, GP_MODE_ENFORCE);
    GP_CHECK_INT(atomic_load(&p->refs), 1);

    GP_CHECK_INT(p->nclasses, 3);
    c = gp_policy_class(p, "inference");
    GP_CHECK(c != NULL && strcmp(c->priority_class, "gpu-inference") == 0);
    GP_CHECK(c != NULL && c->mig_allowed && !c->spot_allowed && c->runtime_cap_seconds == 0);
    GP_CHECK(c != NULL && c->pool.placement == GP_PLACE_NONE);
    GP_CHECK(c != NULL && c->rightsizing == GP_RIGHTSIZE_RECOMMEND);
    c = gp_policy_class(p, "training");
    GP_CHECK(c != NULL && c->rightsizing == GP_RIGHTSIZE_OFF);
    GP_CHECK(c != NULL && strcmp(c->priority_class, "gpu-training") == 0);
    GP_CHECK(c != NULL && !c->mig_allowed && c->spot_allowed && c->runtime_cap_seconds == 0);
    GP_CHECK(c != NULL && strcmp(c->checkpointing_priority_class, "gpu-training-preemptible") == 0);
    GP_CHECK(c != NULL && c->ntolerations == 0);
    c = gp_policy_class(p, "interactive");
    GP_CHECK(c != NULL && strcmp(c->priority_class, "gpu-interactive") == 0);
    GP_CHECK(c != NULL && c->mig_allowed && !c->spot_allowed);
    GP_CHECK(c != NULL && c->runtime_cap_seconds == 43200);
    GP_CHECK(c != NULL && c->rightsizing == GP_RIGHTSIZE_RECOMMEND);
    GP_CHECK(c != NULL && strcmp(c->checkpointing_priority_class, "") == 0);
    GP_CHECK(gp_policy_class(p, "batch") == NULL);
    GP_CHECK(!p->mig_profiles_authoritative);

    GP_CHECK_INT(p->ntolerations, 1);
    GP_CHECK_STR(p->tolerations[0].key, "nvidia.com/gpu");
    GP_CHECK_STR(p->tolerations[0].op, "Exists");
    GP_CHECK_STR(p->tolerations[0].value, "");
    GP_CHECK_STR(p->tolerations[0].effect, "NoSchedule");
    GP_CHECK(!p->tolerations[0].has_seconds);

    GP_CHECK_INT(p->nexcluded_namespaces, 4);
    GP_CHECK(gp_policy_namespace_excluded(p, "kube-system"));
    GP_CHECK(gp_policy_namespace_excluded(p, "kube-public"));
    GP_CHECK(gp_policy_namespace_excluded(p, "kube-node-lease"));
    GP_CHECK(gp_policy_namespace_excluded(p, "gpupack-system"));
    GP_CHECK(!gp_policy_namespace_excluded(p, "default"));

    GP_CHECK(gp_policy_is_gpu_resource(p, "nvidia.com/gpu"));
    GP_CHECK(gp_policy_is_gpu_resource(p, "nvidia.com/mig-1g.10gb"));
    GP_CHECK(!gp_policy_is_gpu_resource(p, "nvidia.com/gpu.shared"));
    GP_CHECK(!gp_policy_is_gpu_resource(p, "cpu"));

    GP_CHECK_INT(p->nrules, 5);
    for (size_t i = 0; i < 5 && i < p->nrules; i++) {
        GP_CHECK_STR(p->rules[i].name, rule_names[i]);
        GP_CHECK_STR(p->rules[i].class_name, rule_classes[i]);
    }
    if (p->nrules == 5) {
        GP_CHECK(p->rules[0].has_selector);
        GP_CHECK_INT(p->rules[0].selector.nexprs, 1);
        GP_CHECK_STR(p->rules[0].selector.exprs[0].key, "notebook-name");
        GP_CHECK_STR(p->rules[0].selector.exprs[0].op, "Exists");
        GP_CHECK_INT(p->rules[0].selector.exprs[0].nvalues, 0);
        GP_CHECK_INT(p->rules[1].selector.nmatch_labels, 1);
        GP_CHECK_STR(p->rules[1].selector.match_labels[0].key, "component");
        GP_CHECK_STR(p->rules[1].selector.match_labels[0].value, "singleuser-server");
        GP_CHECK_INT(p->rules[2].nowner_kinds, 9);
        GP_CHECK_STR(p->rules[2].owner_kinds[0], "Job");
        GP_CHECK_STR(p->rules[2].owner_kinds[8], "RayJob");
        GP_CHECK_INT(p->rules[2].no_owner, -1);
        GP_CHECK(!p->rules[2].has_selector);
        GP_CHECK_INT(p->rules[3].nowner_kinds, 3);
        GP_CHECK_INT(p->rules[4].no_owner, 1);
    }
    GP_CHECK(p->default_class == NULL);

    GP_CHECK_INT(p->nmig_profiles, 5);
    for (size_t i = 0; i < 5 && i < p->nmig_profiles; i++) {
        gp_qty q;

        GP_CHECK_STR(p->mig_profiles[i].name, mig_names[i]);
        GP_CHECK_INT(p->mig_profiles[i].slices, mig_slices[i]);
        GP_CHECK(gp_qty_parse_str(mig_mem[i], &q, NULL) == GP_OK);
        GP_CHECK(gp_qty_cmp(p->mig_profiles[i].memory, q) == 0);
    }

    GP_CHECK_INT(p->spot.ntolerations, 3);
    GP_CHECK_STR(p->spot.tolerations[0].key, "cloud.google.com/gke-spot");
    GP_CHECK_STR(p->spot.tolerations[0].op, "Equal");
    GP_CHECK_STR(p->spot.tolerations[0].value, "true");
    GP_CHECK_INT(p->spot.nnode_labels, 4);
    GP_CHECK_STR(p->spot.node_labels[2].key, "eks.amazonaws.com/capacityType");
    GP_CHECK_STR(p->spot.node_labels[2].value, "SPOT");
    GP_CHECK_INT(p->spot.weight, 50);
    GP_CHECK(!p->priority.override_global_default);
    GP_CHECK_INT(strlen(p->digest), 16);
    gp_policy_unref(p);
}

/* The golden defaults: what an empty policy means. */
GP_TEST(minimal_policy_defaults)
{
    gp_policy *p = parse_ok("");

    if (p == NULL)
        return;
    GP_CHECK_INT(p->mode, GP_MODE_ENFORCE);
    GP_CHECK_INT(p->ngpu_resources, 2);
    GP_CHECK_STR(p->gpu_resources[0], "nvidia.com/gpu");
    GP_CHECK_STR(p->gpu_resources[1], "nvidia.com/mig-*");
    GP_CHECK_INT(p->nexcluded_namespaces, 0);
    GP_CHECK_INT(p->ntolerations, 0);
    GP_CHECK_INT(p->nclasses, 0);
    GP_CHECK_INT(p->nrules, 0);
    GP_CHECK(p->default_class == NULL);
    GP_CHECK_INT(p->nmig_profiles, 0);
    GP_CHECK(!p->mig_profiles_authoritative);
    GP_CHECK_INT(p->spot.ntolerations, 0);
    GP_CHECK_INT(p->spot.nnode_labels, 0);
    GP_CHECK_INT(p->spot.weight, 50);
    GP_CHECK(!p->priority.override_global_default);
    GP_CHECK_INT(strspn(p->digest, "0123456789abcdef"), 16);
    GP_CHECK(!gp_policy_namespace_excluded(p, "kube-system"));
    gp_policy_unref(p);
}

/* The defaults inside each object. */
GP_TEST(nested_defaults)
{
    gp_policy *p = parse_ok("'mode':'audit','tolerations':[{'key':'a','effect':'NoExecute',"
                            "'tolerationSeconds':9007199254740993}],"
                            "'classes':{'c':{'pool':{'nodeLabels':{'gpupack.io/pool':'a'}}}},"
                            "'rules':[{'name':'r','class':'c'}],'defaultClass':'c'");
    const gp_class *c;

    if (p == NULL)
        return;
    GP_CHECK_INT(p->mode, GP_MODE_AUDIT);
    GP_CHECK_STR(p->tolerations[0].op, "Equal");
    GP_CHECK_STR(p->tolerations[0].value, "");
    GP_CHECK(p->tolerations[0].has_seconds);
    GP_CHECK(p->tolerations[0].seconds == INT64_C(9007199254740993)); /* not through a double */
    c = gp_policy_class(p, "c");
    GP_CHECK(c != NULL);
    if (c != NULL) {
        GP_CHECK_STR(c->name, "c");
        GP_CHECK_STR(c->priority_class, "");
        GP_CHECK_STR(c->checkpointing_priority_class, "");
        GP_CHECK_INT(c->ntolerations, 0);
        GP_CHECK(!c->mig_allowed && !c->spot_allowed);
        GP_CHECK_INT(c->runtime_cap_seconds, 0);
        GP_CHECK_INT(c->rightsizing, GP_RIGHTSIZE_OFF); /* absent: off */
        GP_CHECK_INT(c->pool.placement, GP_PLACE_PREFERRED);
        GP_CHECK_INT(c->pool.weight, 50);
        GP_CHECK_INT(c->pool.nlabels, 1);
        GP_CHECK_STR(c->pool.labels[0].key, "gpupack.io/pool");
        GP_CHECK_STR(c->pool.labels[0].value, "a");
    }
    GP_CHECK_INT(p->rules[0].no_owner, -1);
    GP_CHECK(!p->rules[0].has_selector);
    GP_CHECK_INT(p->rules[0].nnamespaces, 0);
    GP_CHECK_STR(p->default_class, "c");
    gp_policy_unref(p);
}

GP_TEST(int64_extremes)
{
    gp_policy *p = parse_ok("'tolerations':[{'key':'a','effect':'NoExecute',"
                            "'tolerationSeconds':-9223372036854775808},"
                            "{'key':'b','effect':'NoExecute',"
                            "'tolerationSeconds':9223372036854775807}]");

    if (p == NULL)
        return;
    GP_CHECK(p->tolerations[0].seconds == INT64_MIN);
    GP_CHECK(p->tolerations[1].seconds == INT64_MAX);
    gp_policy_unref(p);
    EXPECT_ERROR("'tolerations':[{'key':'a','effect':'NoExecute',"
                 "'tolerationSeconds':9223372036854775808}]",
                 "tolerations[0].tolerationSeconds: must be "
                 "-9223372036854775808..9223372036854775807");
}

/* ------------------------------------------------------------------------------------------- */

GP_TEST(err_bad_api_version)
{
    char *text = quote("{'apiVersion':'gpupack.io/v1','kind':'Policy'}");
    char *errs = errors_of_text(text);

    GP_CHECK(has_line(errs, "apiVersion: must be \"gpupack.io/v1alpha1\""));
    free(errs);
    free(text);
}

GP_TEST(err_missing_kind)
{
    char *text = quote("{'apiVersion':'gpupack.io/v1alpha1'}");
    char *errs = errors_of_text(text);

    GP_CHECK(has_line(errs, "kind: is required"));
    GP_CHECK_INT(count_lines(errs), 1);
    free(errs);
    free(text);
}

GP_TEST(err_wrong_kind)
{
    EXPECT_ERROR("'kind':'Polciy'", "document: duplicate key \"kind\"");
    {
        char *text = quote("{'apiVersion':'gpupack.io/v1alpha1','kind':'Polcy'}");
        char *errs = errors_of_text(text);

        GP_CHECK(has_line(errs, "kind: must be \"Policy\""));
        free(errs);
        free(text);
    }
}

GP_TEST(err_unknown_top_level_field)
{
    EXPECT_ERROR("'excludeNamespaces':['a']", "excludeNamespaces: unknown field");
    EXPECT_ERROR("'Mode':'audit'", "Mode: unknown field"); /* keys are case-sensitive */
}

GP_TEST(err_unknown_nested_field)
{
    EXPECT_ERROR("'classes':{'inference':{'migAlowed':true}}",
                 "classes.inference.migAlowed: unknown field");
    EXPECT_ERROR("'classes':{'c':{'pool':{'nodeLabels':{'a':'b'},'wieght':3}}}",
                 "classes.c.pool.wieght: unknown field");
    EXPECT_ERROR(CLASS_T ",'rules':[{'name':'r','class':'t','match':{'owners':['Job']}}]",
                 "rules[0].match.owners: unknown field");
    EXPECT_ERROR("'spot':{'toleration':[]}", "spot.toleration: unknown field");
    EXPECT_ERROR("'migProfiles':[{'name':'1g.10gb','memory':'10Gi','computeSlices':1,'x':1}]",
                 "migProfiles[0].x: unknown field");
}

GP_TEST(err_wrong_types)
{
    EXPECT_ERROR("'classes':{'training':{'migAllowed':'yes'}}",
                 "classes.training.migAllowed: must be a boolean");
    EXPECT_ERROR("'mode':1", "mode: must be a string");
    EXPECT_ERROR("'mode':'dryrun'", "mode: must be one of \"enforce\", \"audit\"");
    EXPECT_ERROR("'gpuResources':'nvidia.com/gpu'", "gpuResources: must be an array");
    EXPECT_ERROR("'gpuResources':[7]", "gpuResources[0]: must be a string");
    EXPECT_ERROR("'classes':[]", "classes: must be an object");
    EXPECT_ERROR("'classes':{'c':true}", "classes.c: must be an object");
    EXPECT_ERROR("'rules':{}", "rules: must be an array");
    EXPECT_ERROR("'spot':[]", "spot: must be an object");
    EXPECT_ERROR("'spot':{'weight':'50'}", "spot.weight: must be an integer");
    EXPECT_ERROR("'defaultClass':null", "defaultClass: must be a string");
    EXPECT_ERROR(CLASS_T ",'rules':[{'name':'r','class':'t','match':{'noOwner':1}}]",
                 "rules[0].match.noOwner: must be a boolean");
    EXPECT_ERROR("'migProfiles':[{'name':'1g.10gb','memory':10,'computeSlices':1}]",
                 "migProfiles[0].memory: must be a string (a quantity such as \"20Gi\")");
    EXPECT_ERROR("'tolerations':['nvidia.com/gpu']", "tolerations[0]: must be an object");
}

GP_TEST(err_runtime_cap_zero)
{
    EXPECT_ERROR("'classes':{'inference':{'runtimeCapSeconds':0}}",
                 "classes.inference.runtimeCapSeconds: must be 1..2147483647");
}

GP_TEST(err_runtime_cap_too_big)
{
    EXPECT_ERROR("'classes':{'inference':{'runtimeCapSeconds':2147483648}}",
                 "classes.inference.runtimeCapSeconds: must be 1..2147483647");
    EXPECT_ERROR("'classes':{'inference':{'runtimeCapSeconds':99999999999999999999999}}",
                 "classes.inference.runtimeCapSeconds: must be 1..2147483647");
}

GP_TEST(err_runtime_cap_fraction)
{
    EXPECT_ERROR("'classes':{'inference':{'runtimeCapSeconds':1.5}}",
                 "classes.inference.runtimeCapSeconds: must be an integer");
    EXPECT_ERROR("'classes':{'inference':{'runtimeCapSeconds':10.0}}",
                 "classes.inference.runtimeCapSeconds: must be an integer");
    EXPECT_ERROR("'classes':{'inference':{'runtimeCapSeconds':1e3}}",
                 "classes.inference.runtimeCapSeconds: must be an integer");
}

GP_TEST(err_runtime_cap_string)
{
    EXPECT_ERROR("'classes':{'inference':{'runtimeCapSeconds':'10'}}",
                 "classes.inference.runtimeCapSeconds: must be an integer");
}

GP_TEST(runtime_cap_bounds_accepted)
{
    gp_policy *p = parse_ok("'classes':{'a':{'runtimeCapSeconds':1},"
                            "'b':{'runtimeCapSeconds':2147483647}}");

    if (p == NULL)
        return;
    GP_CHECK_INT(gp_policy_class(p, "a")->runtime_cap_seconds, 1);
    GP_CHECK_INT(gp_policy_class(p, "b")->runtime_cap_seconds, 2147483647);
    gp_policy_unref(p);
}

GP_TEST(err_unknown_rule_class)
{
    EXPECT_ERROR("'classes':{'training':{}},'rules':[{'name':'a','class':'training'},"
                 "{'name':'b','class':'training'},{'name':'c','class':'trainig'}]",
                 "rules[2].class: unknown class \"trainig\"");
}

GP_TEST(err_rule_required_fields)
{
    EXPECT_ERROR(CLASS_T ",'rules':[{'class':'t'}]", "rules[0].name: is required");
    EXPECT_ERROR(CLASS_T ",'rules':[{'name':'x'}]", "rules[0].class: is required");
}

GP_TEST(err_duplicate_rule_name)
{
    EXPECT_ERROR(CLASS_T ",'rules':[{'name':'a','class':'t'},{'name':'b','class':'t'},"
                 "{'name':'a','class':'t'}]",
                 "rules[2].name: duplicate name \"a\" (also at index 0)");
}

GP_TEST(err_default_class_unknown)
{
    EXPECT_ERROR(CLASS_T ",'defaultClass':'x'", "defaultClass: unknown class \"x\"");
}

GP_TEST(err_duplicate_key)
{
    EXPECT_ERROR("'mode':'audit','mode':'enforce'", "document: duplicate key \"mode\"");
    EXPECT_ERROR("'classes':{'a':{'migAllowed':true,'migAllowed':false}}",
                 "classes.a: duplicate key \"migAllowed\"");
    EXPECT_ERROR("'classes':{'a':{},'a':{}}", "classes: duplicate key \"a\"");
}

GP_TEST(err_toleration_operator)
{
    EXPECT_ERROR("'tolerations':[{'key':'a','operator':'exists'}]",
                 "tolerations[0].operator: must be one of \"Exists\", \"Equal\"");
}

GP_TEST(err_toleration_effect)
{
    EXPECT_ERROR("'tolerations':[{'key':'a'},{'key':'b','effect':'NoSchedul'}]",
                 "tolerations[1].effect: must be one of \"\", \"NoSchedule\", "
                 "\"PreferNoSchedule\", \"NoExecute\"");
}

GP_TEST(err_toleration_exists_with_value)
{
    EXPECT_ERROR("'tolerations':[{'key':'a','operator':'Exists','value':'x'}]",
                 "tolerations[0].value: must be empty when operator is \"Exists\"");
}

GP_TEST(err_toleration_empty_key_needs_exists)
{
    EXPECT_ERROR("'tolerations':[{'value':'x'}]",
                 "tolerations[0].operator: must be \"Exists\" when key is empty");
}

GP_TEST(err_toleration_seconds_without_noexecute)
{
    EXPECT_ERROR("'spot':{'tolerations':[{'key':'a','effect':'NoSchedule','tolerationSeconds':5}]}",
                 "spot.tolerations[0].tolerationSeconds: only allowed with effect \"NoExecute\"");
}

GP_TEST(err_toleration_bad_key)
{
    EXPECT_PATH("'tolerations':[{'key':'bad key','operator':'Exists'}]", "tolerations[0].key");
}

GP_TEST(err_selector_operator)
{
    EXPECT_ERROR(CLASS_T ",'rules':[{'name':'r','class':'t','match':{'labelSelector':"
                 "{'matchExpressions':[{'key':'a','operator':'Exist'}]}}}]",
                 "rules[0].match.labelSelector.matchExpressions[0].operator: must be one of "
                 "\"In\", \"NotIn\", \"Exists\", \"DoesNotExist\"");
}

GP_TEST(err_selector_in_without_values)
{
    EXPECT_ERROR(CLASS_T ",'rules':[{'name':'r','class':'t','match':{'labelSelector':"
                 "{'matchExpressions':[{'key':'a','operator':'In'}]}}}]",
                 "rules[0].match.labelSelector.matchExpressions[0].values: must have at least 1 "
                 "item when operator is \"In\" or \"NotIn\"");
}

GP_TEST(err_selector_exists_with_values)
{
    EXPECT_ERROR(CLASS_T ",'rules':[{'name':'r','class':'t','match':{'labelSelector':"
                 "{'matchExpressions':[{'key':'a','operator':'DoesNotExist','values':['x']}]}}}]",
                 "rules[0].match.labelSelector.matchExpressions[0].values: must be empty when "
                 "operator is \"Exists\" or \"DoesNotExist\"");
}

GP_TEST(err_selector_label_value)
{
    EXPECT_PATH(CLASS_T ",'rules':[{'name':'r','class':'t','match':{'labelSelector':"
                "{'matchLabels':{'app':'-bad'}}}}]",
                "rules[0].match.labelSelector.matchLabels.app");
}

GP_TEST(err_mig_memory_quantity)
{
    EXPECT_PATH("'migProfiles':[{'name':'1g.10gb','memory':'10GB','computeSlices':1}]",
                "migProfiles[0].memory");
    EXPECT_ERROR("'migProfiles':[{'name':'1g.10gb','memory':'0','computeSlices':1}]",
                 "migProfiles[0].memory: must be positive");
}

GP_TEST(err_mig_duplicate)
{
    EXPECT_ERROR("'migProfiles':[{'name':'1g.10gb','memory':'10Gi','computeSlices':1},"
                 "{'name':'1g.10gb','memory':'10Gi','computeSlices':1}]",
                 "migProfiles[1].name: duplicate name \"1g.10gb\" (also at index 0)");
}

GP_TEST(err_mig_slices_zero)
{
    EXPECT_ERROR("'migProfiles':[{'name':'1g.10gb','memory':'10Gi','computeSlices':0}]",
                 "migProfiles[0].computeSlices: must be 1..8");
    EXPECT_ERROR("'migProfiles':[{'name':'1g.10gb','memory':'10Gi'}]",
                 "migProfiles[0].computeSlices: is required");
}

GP_TEST(err_mig_name)
{
    EXPECT_ERROR("'migProfiles':[{'name':'1G.10GB','memory':'10Gi','computeSlices':1}]",
                 "migProfiles[0].name: must contain only lower-case letters, digits, '.', '+' "
                 "and '-'");
}

GP_TEST(err_weight_0)
{
    EXPECT_ERROR("'classes':{'c':{'pool':{'nodeLabels':{'a':'b'},'weight':0}}}",
                 "classes.c.pool.weight: must be 1..100");
    EXPECT_ERROR("'spot':{'weight':0}", "spot.weight: must be 1..100");
}

GP_TEST(err_weight_101)
{
    EXPECT_ERROR("'classes':{'c':{'pool':{'nodeLabels':{'a':'b'},'weight':101}}}",
                 "classes.c.pool.weight: must be 1..100");
    EXPECT_ERROR("'spot':{'weight':101}", "spot.weight: must be 1..100");
}

GP_TEST(err_bad_placement)
{
    EXPECT_ERROR("'classes':{'c':{'pool':{'nodeLabels':{'a':'b'},'placement':'Required'}}}",
                 "classes.c.pool.placement: must be one of \"preferred\", \"required\"");
}

GP_TEST(err_bad_rightsizing)
{
    EXPECT_ERROR("'classes':{'c':{'rightsizing':'on'}}",
                 "classes.c.rightsizing: must be one of \"off\", \"recommend\", \"apply\"");
    EXPECT_ERROR("'classes':{'c':{'rightsizing':true}}", "classes.c.rightsizing: must be a string");
}

GP_TEST(err_pool_needs_labels)
{
    EXPECT_ERROR("'classes':{'c':{'pool':{}}}", "classes.c.pool.nodeLabels: is required");
    EXPECT_ERROR("'classes':{'c':{'pool':{'nodeLabels':{}}}}",
                 "classes.c.pool.nodeLabels: must have at least 1 entry");
}

GP_TEST(err_dotted_key_in_path)
{
    EXPECT_PATH("'classes':{'inference':{'pool':{'nodeLabels':{'gpupack.io/pool':'bad value'}}}}",
                "classes.inference.pool.nodeLabels.gpupack.io/pool");
}

GP_TEST(err_class_name_invalid)
{
    EXPECT_PATH("'classes':{'Inference':{}}", "classes.Inference");
    EXPECT_PATH("'classes':{'-x':{}}", "classes.-x");
    EXPECT_PATH("'classes':{'a_b':{}}", "classes.a_b");
}

GP_TEST(err_priority_class_name)
{
    EXPECT_PATH("'classes':{'c':{'priorityClassName':'High'}}", "classes.c.priorityClassName");
}

GP_TEST(scheduler_name)
{
    gp_policy *p = NULL;
    char *errors = NULL;
    static const char ok[] = "{\"apiVersion\":\"gpupack.io/v1alpha1\",\"kind\":\"Policy\","
                             "\"schedulerName\":\"gpupack-scheduler\"}";

    GP_CHECK_INT(gp_policy_parse(ok, strlen(ok), &p, &errors), GP_OK);
    if (p != NULL)
        GP_CHECK_STR(p->scheduler_name, "gpupack-scheduler");
    gp_policy_unref(p);
    free(errors);
    EXPECT_PATH("'schedulerName':'Gpupack'", "schedulerName");
    EXPECT_PATH("'schedulerName':'a b'", "schedulerName");
    EXPECT_PATH("'schedulerName':''", "schedulerName");
    EXPECT_ERROR("'schedulerName':7", "schedulerName: must be a string");
}

/* priority.overrideGlobalDefault: a boolean, false unless set; nothing else in the object. */
GP_TEST(priority_override_global_default)
{
    gp_policy *p = parse_ok("'priority':{'overrideGlobalDefault':true}");

    if (p != NULL)
        GP_CHECK(p->priority.override_global_default);
    gp_policy_unref(p);
    p = parse_ok("'priority':{}");
    if (p != NULL)
        GP_CHECK(!p->priority.override_global_default);
    gp_policy_unref(p);
    EXPECT_ERROR("'priority':{'overrideGlobalDefault':'true'}",
                 "priority.overrideGlobalDefault: must be a boolean");
    EXPECT_PATH("'priority':{'overrideGlobaldefault':true}", "priority.overrideGlobaldefault");
    EXPECT_ERROR("'priority':true", "priority: must be an object");
}

GP_TEST(err_gpu_resource_star)
{
    EXPECT_ERROR("'gpuResources':['nvidia.com/*-gpu']",
                 "gpuResources[0]: '*' is only allowed as the last character");
    EXPECT_ERROR("'gpuResources':['']", "gpuResources[0]: must not be empty");
}

GP_TEST(err_too_many_items)
{
    size_t n = 300 * 6 + 64;
    char *rest = malloc(n), *o = rest;

    o += snprintf(o, n, "'excludedNamespaces':[");
    for (int i = 0; i < 300; i++)
        o += snprintf(o, n - (size_t)(o - rest), "%s'a'", i ? "," : "");
    snprintf(o, n - (size_t)(o - rest), "]");
    EXPECT_ERROR(rest, "excludedNamespaces: too many items (more than 256)");
    free(rest);
}

GP_TEST(err_string_too_long)
{
    char rest[600], name[300];

    memset(name, 'a', 254);
    name[254] = '\0';
    snprintf(rest, sizeof(rest), "'gpuResources':['%s']", name);
    EXPECT_ERROR(rest, "gpuResources[0]: too long (254 characters, at most 253)");
}

GP_TEST(err_syntax_position)
{
    char *text = quote("{\n  'apiVersion': 'gpupack.io/v1alpha1',\n  'kind' 'Policy'\n}");
    char *errs = errors_of_text(text);

    GP_CHECK_STR(errs, "document: invalid JSON at byte 50 (line 3, column 10)\n");
    free(errs);
    free(text);
}

GP_TEST(err_trailing_garbage)
{
    char *text = doc("");
    size_t n = strlen(text);
    char *more = malloc(n + 4);

    snprintf(more, n + 4, "%s x", text);
    {
        char *errs = errors_of_text(more);

        GP_CHECK(has_prefix(errs, "document: invalid JSON at byte"));
        free(errs);
    }
    free(more);
    free(text);
}

GP_TEST(err_empty_document)
{
    char *errs = errors_of_text("");

    GP_CHECK_STR(errs, "document: empty document\n");
    free(errs);
    errs = errors_of_text(" \n\t ");
    GP_CHECK_STR(errs, "document: empty document\n");
    free(errs);
}

GP_TEST(err_non_object_root)
{
    char *errs = errors_of_text("[1,2]");

    GP_CHECK_STR(errs, "document: must be an object\n");
    free(errs);
}

GP_TEST(err_nul_in_document)
{
    const char text[] = "{\"kind\":\"Policy\"}\0{}";
    char *errs = NULL;
    gp_policy *p = NULL;

    GP_CHECK_INT(gp_policy_parse(text, sizeof(text) - 1, &p, &errs), GP_EINVAL);
    GP_CHECK(has_prefix(errs, "document: NUL byte at byte 17"));
    free(errs);
    errs = errors_of("'defaultClass':'a\\u0000b'");
    GP_CHECK(has_prefix(errs, "document: \\u0000 is not allowed in strings"));
    free(errs);
}

GP_TEST(err_document_too_big)
{
    size_t n = GP_POLICY_MAX_BYTES + 1;
    char *big = malloc(n), *errs = NULL;
    gp_policy *p = NULL;

    memset(big, ' ', n);
    GP_CHECK_INT(gp_policy_parse(big, n, &p, &errs), GP_ETOOBIG);
    GP_CHECK(p == NULL);
    GP_CHECK(has_prefix(errs, "document: larger than"));
    free(errs);
    free(big);
}

GP_TEST(control_characters_do_not_split_lines)
{
    char *errs = errors_of("'a\\nb':1");

    GP_CHECK_STR(errs, "a?b: unknown field\n");
    free(errs);
}

/* ------------------------------------------------------------------------------------------- */

GP_TEST(all_errors_in_one_pass)
{
    char *errs = errors_of("'mode':'strict','bogus':1,"
                           "'classes':{'training':{'migAllowed':'no','runtimeCapSeconds':0}},"
                           "'rules':[{'name':'r','class':'trainig'}],"
                           "'migProfiles':[{'name':'x','memory':'lots','computeSlices':9}],"
                           "'spot':{'weight':0}");

    GP_CHECK(has_line(errs, "bogus: unknown field"));
    GP_CHECK(has_line(errs, "mode: must be one of \"enforce\", \"audit\""));
    GP_CHECK(has_line(errs, "classes.training.migAllowed: must be a boolean"));
    GP_CHECK(has_line(errs, "classes.training.runtimeCapSeconds: must be 1..2147483647"));
    GP_CHECK(has_line(errs, "rules[0].class: unknown class \"trainig\""));
    GP_CHECK(has_prefix(errs, "migProfiles[0].memory: "));
    GP_CHECK(has_line(errs, "migProfiles[0].computeSlices: must be 1..8"));
    GP_CHECK(has_line(errs, "spot.weight: must be 1..100"));
    GP_CHECK_INT(count_lines(errs), 8);
    free(errs);
}

GP_TEST(errors_are_capped)
{
    size_t n = 100 * 12 + 16;
    char *rest = malloc(n), *o = rest, *errs;

    for (int i = 0; i < 100; i++)
        o += snprintf(o, n - (size_t)(o - rest), "%s'x%d':1", i ? "," : "", i);
    errs = errors_of(rest);
    GP_CHECK_INT(count_lines(errs), GP_POLICY_MAX_ERRORS + 1);
    GP_CHECK(has_line(errs, "x0: unknown field"));
    GP_CHECK(has_line(errs, "... and 36 more errors"));
    free(errs);
    free(rest);
}

GP_TEST(errors_may_be_null)
{
    const char *text = "{}";
    gp_policy *p = NULL;

    GP_CHECK_INT(gp_policy_parse(text, strlen(text), &p, NULL), GP_EINVAL);
    GP_CHECK(p == NULL);
}

GP_TEST(digest_follows_bytes)
{
    gp_policy *a = parse_ok(""), *b = parse_ok(""), *c = parse_ok("'mode':'audit'");

    if (a && b && c) {
        GP_CHECK_STR(a->digest, b->digest);
        GP_CHECK(strcmp(a->digest, c->digest) != 0);
    }
    gp_policy_unref(a);
    gp_policy_unref(b);
    gp_policy_unref(c);
}

/* ------------------------------------------------------------------------------------------- */

GP_TEST(glob_matching)
{
    GP_CHECK(gp_glob_match("kube-system", "kube-system"));
    GP_CHECK(!gp_glob_match("kube-system", "kube-systemx"));
    GP_CHECK(!gp_glob_match("kube-system", "kube-syste"));
    GP_CHECK(gp_glob_match("kube-*", "kube-"));
    GP_CHECK(gp_glob_match("kube-*", "kube-public"));
    GP_CHECK(!gp_glob_match("kube-*", "kub"));
    GP_CHECK(gp_glob_match("*", ""));
    GP_CHECK(gp_glob_match("*", "anything"));
    GP_CHECK(gp_glob_match("", ""));
    GP_CHECK(!gp_glob_match("", "a"));
    GP_CHECK(gp_glob_match("team-?", "team-a"));
    GP_CHECK(!gp_glob_match("team-?", "team-"));
    GP_CHECK(!gp_glob_match("team-?", "team-ab"));
    GP_CHECK(gp_glob_match("*-system", "gpupack-system"));
    GP_CHECK(gp_glob_match("a*b*c", "axxbyyc"));
    GP_CHECK(gp_glob_match("a*b*c", "abcbc"));
    GP_CHECK(!gp_glob_match("a*b*c", "axxbyy"));
    GP_CHECK(gp_glob_match("**a**", "bab"));
    GP_CHECK(gp_glob_match("?*?", "ab"));
    GP_CHECK(!gp_glob_match("?*?", "a"));
    GP_CHECK(!gp_glob_match(NULL, "a"));
    GP_CHECK(!gp_glob_match("a", NULL));
}

/* A pathological pattern must not take exponential time (the test has a time limit). */
GP_TEST(glob_no_blowup)
{
    char pat[64], s[4096];

    for (int i = 0; i < 30; i++) {
        pat[2 * i] = '*';
        pat[2 * i + 1] = 'a';
    }
    pat[60] = 'b';
    pat[61] = '\0';
    memset(s, 'a', sizeof(s) - 1);
    s[sizeof(s) - 1] = '\0';
    GP_CHECK(!gp_glob_match(pat, s));
}

GP_TEST(lookups)
{
    gp_policy *p = parse_ok("'gpuResources':['nvidia.com/gpu','amd.com/*'],"
                            "'excludedNamespaces':['kube-*','team-?'],'classes':{'a':{},'b':{}}");

    if (p == NULL)
        return;
    GP_CHECK(gp_policy_is_gpu_resource(p, "nvidia.com/gpu"));
    GP_CHECK(!gp_policy_is_gpu_resource(p, "nvidia.com/mig-1g.10gb"));
    GP_CHECK(gp_policy_is_gpu_resource(p, "amd.com/gpu"));
    GP_CHECK(gp_policy_is_gpu_resource(p, "amd.com/"));
    GP_CHECK(!gp_policy_is_gpu_resource(p, "amd.co"));
    GP_CHECK(gp_policy_namespace_excluded(p, "kube-flow"));
    GP_CHECK(gp_policy_namespace_excluded(p, "team-x"));
    GP_CHECK(!gp_policy_namespace_excluded(p, "team-xy"));
    GP_CHECK(gp_policy_class(p, "b") == &p->classes[1]);
    GP_CHECK(gp_policy_class(p, "c") == NULL);
    GP_CHECK(gp_policy_class(p, NULL) == NULL);
    gp_policy_unref(p);
}

GP_TEST(holder_ref_and_swap)
{
    gp_policy *a = parse_ok(""), *b = parse_ok("'mode':'audit'"), *got, *got2;
    gp_policy_holder h;

    if (a == NULL || b == NULL)
        return;
    gp_policy_holder_init(&h, a); /* takes over a's reference */
    got = gp_policy_holder_get(&h);
    GP_CHECK(got == a);
    GP_CHECK_INT(atomic_load(&a->refs), 2);

    gp_policy_holder_set(&h, b); /* the holder drops its reference to a */
    GP_CHECK_INT(atomic_load(&a->refs), 1);
    GP_CHECK_INT(got->mode, GP_MODE_ENFORCE); /* a reader's snapshot stays valid */
    got2 = gp_policy_holder_get(&h);
    GP_CHECK(got2 == b);
    GP_CHECK_INT(got2->mode, GP_MODE_AUDIT);
    GP_CHECK_INT(atomic_load(&b->refs), 2);

    gp_policy_unref(got); /* frees a */
    gp_policy_unref(got2);
    GP_CHECK_INT(atomic_load(&b->refs), 1);
    gp_policy_holder_destroy(&h); /* frees b */
    gp_policy_unref(NULL);
    GP_CHECK(gp_policy_ref(NULL) == NULL);
}

/* ------------------------------------------------------------------------------------------- */
/* Scoring and GPU models (the extender's part of the policy). */

static const gp_price *price_of(const gp_price *t, size_t n, const char *match)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(t[i].match, match) == 0)
            return &t[i];
    return NULL;
}

/* Every price the shipped policy lists, parsed exactly into micro-dollars. */
GP_TEST(default_policy_scoring)
{
    static const struct {
        const char *match;
        int64_t micro;
        int64_t spot; /* 0: none listed */
    } inst[] = {{"p4d.24xlarge", 21957600, 0},         {"p4de.24xlarge", 27447100, 0},
                {"p5.48xlarge", 55040000, 0},          {"p5en.48xlarge", 63296000, 0},
                {"p6-b200.48xlarge", 113932800, 0},    {"g5.xlarge", 1006000, 0},
                {"g5.12xlarge", 5672000, 0},           {"g6.xlarge", 804800, 0},
                {"g6.12xlarge", 4601600, 0},           {"g6e.xlarge", 1861000, 0},
                {"a2-highgpu-1g", 3673400, 1928000},   {"a2-highgpu-8g", 29387100, 15424200},
                {"a2-ultragpu-8g", 40550400, 22076400}, {"a3-highgpu-8g", 88490000, 50609500},
                {"g2-standard-4", 706800, 397300},     {"Standard_ND96asr_v4", 27197000, 0},
                {"Standard_ND96amsr_A100_v4", 32770000, 0},
                {"Standard_ND96isr_H100_v5", 98320000, 0},
                {"Standard_NC24ads_A100_v4", 3673000, 0},
                {"Standard_NC40ads_H100_v5", 6980000, 0}},
      gpu[] = {{"NVIDIA-A100-SXM4-40GB", 2744700, 0}, {"NVIDIA-A100-SXM4-80GB", 3430900, 0},
               {"NVIDIA-H100-80GB-HBM3", 6880000, 0}, {"NVIDIA-H200", 7912000, 0},
               {"NVIDIA-B200", 14241600, 0},          {"NVIDIA-L40S", 1861000, 0},
               {"NVIDIA-L4", 804800, 0},              {"NVIDIA-A10G", 1006000, 0}};
    gp_policy *p = NULL;
    char *errs = NULL;
    const gp_scoring *s;

    GP_CHECK_INT(gp_policy_default(&p, &errs), GP_OK);
    GP_CHECK(errs == NULL);
    if (p == NULL)
        return;
    s = &p->scoring;
    GP_CHECK_INT(s->weight_cost, 100);
    GP_CHECK_INT(s->weight_fit, 10);
    GP_CHECK_INT(s->weight_stranding, 3);
    GP_CHECK_INT(s->weight_gpu_node_penalty, 50);
    GP_CHECK_INT(s->weight_fragmentation, 10);
    GP_CHECK_INT(s->nmix, 0); /* learned from the pod watch */
    GP_CHECK_INT(s->spot_discount_pct, 60);
    GP_CHECK_INT(s->default_gpu_price_micro, 2500000);
    GP_CHECK_INT(s->typical_cpu_milli_per_gpu, 4000);
    GP_CHECK_INT(s->typical_memory_per_gpu, INT64_C(32) << 30);
    GP_CHECK_INT(s->ninstance_prices, sizeof(inst) / sizeof(inst[0]));
    GP_CHECK_INT(s->ngpu_prices, sizeof(gpu) / sizeof(gpu[0]));
    for (size_t i = 0; i < sizeof(inst) / sizeof(inst[0]); i++) {
        const gp_price *pr = price_of(s->instance_prices, s->ninstance_prices, inst[i].match);

        GP_CHECK(pr != NULL);
        if (pr == NULL)
            continue;
        GP_CHECK_INT(pr->on_demand_micro, inst[i].micro);
        GP_CHECK(pr->has_spot == (inst[i].spot != 0));
        if (pr->has_spot)
            GP_CHECK_INT(pr->spot_micro, inst[i].spot);
    }
    for (size_t i = 0; i < sizeof(gpu) / sizeof(gpu[0]); i++) {
        const gp_price *pr = price_of(s->gpu_prices, s->ngpu_prices, gpu[i].match);

        GP_CHECK(pr != NULL);
        if (pr != NULL)
            GP_CHECK_INT(pr->on_demand_micro, gpu[i].micro);
    }
    for (size_t i = 0; i < p->nclasses; i++) {
        GP_CHECK_INT(p->classes[i].ngpu_models, 0);
        GP_CHECK_INT(p->classes[i].nexclude_gpu_models, 0);
    }
    gp_policy_unref(p);
}

/* The golden scoring defaults, with "scoring" absent and with it empty. */
GP_TEST(scoring_defaults_golden)
{
    const char *docs[] = {"", "'scoring':{}", "'scoring':{'weights':{},'typicalGpuPod':{},"
                                              "'prices':{}}"};

    for (size_t i = 0; i < 3; i++) {
        gp_policy *p = parse_ok(docs[i]);
        const gp_scoring *s;

        if (p == NULL)
            continue;
        s = &p->scoring;
        GP_CHECK_INT(s->weight_cost, 100);
        GP_CHECK_INT(s->weight_fit, 10);
        GP_CHECK_INT(s->weight_stranding, 3);
        GP_CHECK_INT(s->weight_gpu_node_penalty, 50);
        GP_CHECK_INT(s->weight_fragmentation, 10);
        GP_CHECK_INT(s->nmix, 0);
        GP_CHECK(s->mix == NULL);
        GP_CHECK_INT(s->spot_discount_pct, 60);
        GP_CHECK_INT(s->spot_filter, GP_SPOT_FILTER_HARD);
        GP_CHECK_INT(s->default_gpu_price_micro, 2500000);
        GP_CHECK_INT(s->typical_cpu_milli_per_gpu, 4000);
        GP_CHECK_INT(s->typical_memory_per_gpu, INT64_C(34359738368));
        GP_CHECK_INT(s->ninstance_prices, 0);
        GP_CHECK(s->instance_prices == NULL);
        GP_CHECK_INT(s->ngpu_prices, 0);
        GP_CHECK(s->gpu_prices == NULL);
        gp_policy_unref(p);
    }
}

GP_TEST(scoring_values_parsed)
{
    gp_policy *p = parse_ok(
        "'scoring':{'weights':{'cost':0,'fit':1000,'stranding':7,'gpuNodePenalty':0,"
        "'fragmentation':1000},'workloadMix':[{'gpus':1,'cpu':'3500m','weight':6},"
        "{'gpus':8,'weight':1000000}],"
        "'spotDiscountPercent':0,'defaultGpuHourlyPrice':'0.000001',"
        "'typicalGpuPod':{'cpuPerGpu':'1500m','memoryPerGpu':'0.5Gi'},"
        "'prices':{'instanceTypes':{'a.b':{'onDemand':'1000000','spot':'0'},"
        "'c_d':{'onDemand':'00.5'}},"
        "'gpuProducts':{'NVIDIA-L4':{'onDemand':'999999.999999','spot':'0.25'}}}}");
    const gp_price *pr;

    if (p == NULL)
        return;
    GP_CHECK_INT(p->scoring.weight_cost, 0);
    GP_CHECK_INT(p->scoring.weight_fit, 1000);
    GP_CHECK_INT(p->scoring.weight_stranding, 7);
    GP_CHECK_INT(p->scoring.weight_gpu_node_penalty, 0);
    GP_CHECK_INT(p->scoring.weight_fragmentation, 1000);
    GP_CHECK_INT(p->scoring.nmix, 2);
    if (p->scoring.nmix == 2) {
        GP_CHECK_INT(p->scoring.mix[0].gpus, 1);
        GP_CHECK_INT(p->scoring.mix[0].cpu_milli, 3500);
        GP_CHECK_INT(p->scoring.mix[0].weight, 6);
        GP_CHECK_INT(p->scoring.mix[1].gpus, 8);
        GP_CHECK_INT(p->scoring.mix[1].cpu_milli, 1000); /* default: 1 CPU */
        GP_CHECK_INT(p->scoring.mix[1].weight, 1000000);
    }
    GP_CHECK_INT(p->scoring.spot_discount_pct, 0);
    GP_CHECK_INT(p->scoring.default_gpu_price_micro, 1);
    GP_CHECK_INT(p->scoring.typical_cpu_milli_per_gpu, 1500);
    GP_CHECK_INT(p->scoring.typical_memory_per_gpu, INT64_C(536870912));
    pr = price_of(p->scoring.instance_prices, p->scoring.ninstance_prices, "a.b");
    GP_CHECK(pr != NULL && pr->on_demand_micro == INT64_C(1000000000000));
    GP_CHECK(pr != NULL && pr->has_spot && pr->spot_micro == 0); /* a listed spot price of 0 */
    pr = price_of(p->scoring.instance_prices, p->scoring.ninstance_prices, "c_d");
    GP_CHECK(pr != NULL && pr->on_demand_micro == 500000 && !pr->has_spot);
    pr = price_of(p->scoring.gpu_prices, p->scoring.ngpu_prices, "NVIDIA-L4");
    GP_CHECK(pr != NULL && pr->on_demand_micro == INT64_C(999999999999));
    GP_CHECK(pr != NULL && pr->has_spot && pr->spot_micro == 250000);
    gp_policy_unref(p);
}

GP_TEST(class_gpu_models_parsed)
{
    gp_policy *p = parse_ok("'classes':{'c':{'gpuModels':['NVIDIA-A100*','*H100?80GB*'],"
                            "'excludeGpuModels':['Tesla-T4']}}");
    const gp_class *c;

    if (p == NULL)
        return;
    c = gp_policy_class(p, "c");
    GP_CHECK(c != NULL);
    if (c != NULL) {
        GP_CHECK_INT(c->ngpu_models, 2);
        GP_CHECK_STR(c->gpu_models[0], "NVIDIA-A100*");
        GP_CHECK_STR(c->gpu_models[1], "*H100?80GB*");
        GP_CHECK_INT(c->nexclude_gpu_models, 1);
        GP_CHECK_STR(c->exclude_gpu_models[0], "Tesla-T4");
    }
    gp_policy_unref(p);
}

GP_TEST(err_class_gpu_models)
{
    EXPECT_ERROR("'classes':{'c':{'gpuModels':'A100'}}", "classes.c.gpuModels: must be an array");
    EXPECT_ERROR("'classes':{'c':{'gpuModels':['A100 80GB']}}",
                 "classes.c.gpuModels[0]: must be a GPU model glob (letters, digits, '-', '_', "
                 "'.', '*' and '?')");
    EXPECT_ERROR("'classes':{'c':{'excludeGpuModels':['T4','']}}",
                 "classes.c.excludeGpuModels[1]: must not be empty");
    EXPECT_ERROR("'classes':{'c':{'excludeGpuModels':[4]}}",
                 "classes.c.excludeGpuModels[0]: must be a string");
    EXPECT_ERROR("'classes':{'c':{'gpuModel':['A100']}}", "classes.c.gpuModel: unknown field");
}

GP_TEST(err_scoring_unknown_fields)
{
    EXPECT_ERROR("'scoring':{'weight':{}}", "scoring.weight: unknown field");
    EXPECT_ERROR("'scoring':{'weights':{'price':1}}", "scoring.weights.price: unknown field");
    EXPECT_ERROR("'scoring':{'typicalGpuPod':{'gpuPerPod':'1'}}",
                 "scoring.typicalGpuPod.gpuPerPod: unknown field");
    EXPECT_ERROR("'scoring':{'prices':{'instances':{}}}", "scoring.prices.instances: unknown field");
    EXPECT_ERROR("'scoring':{'prices':{'instanceTypes':{'x':{'onDemand':'1','onDemnad':'1'}}}}",
                 "scoring.prices.instanceTypes.x.onDemnad: unknown field");
    EXPECT_ERROR("'scoring':[]", "scoring: must be an object");
    EXPECT_ERROR("'scoring':{'weights':5}", "scoring.weights: must be an object");
}

/* advisor: absent, every default of policy.h. */
GP_TEST(advisor_defaults)
{
    gp_policy *p = parse_ok("");

    if (p == NULL)
        return;
    GP_CHECK_NEAR(p->advisor.idle_mean_pct, 5, 0);
    GP_CHECK_NEAR(p->advisor.idle_p95_pct, 10, 0);
    GP_CHECK_NEAR(p->advisor.mig_headroom, 1.2, 0);
    GP_CHECK_NEAR(p->advisor.model_max_p95_pct, 50, 0);
    GP_CHECK_NEAR(p->advisor.runaway_factor, 3, 0);
    GP_CHECK_INT(p->advisor.runaway_min_runs, 3);
    GP_CHECK_NEAR(p->advisor.runaway_idle_hours, 6, 0);
    GP_CHECK_NEAR(p->advisor.idle_node_hours, 24, 0);
    GP_CHECK_NEAR(p->advisor.min_coverage_hours, 24, 0);
    GP_CHECK_INT(p->advisor.nmodel_labels, 3);
    if (p->advisor.nmodel_labels == 3) {
        GP_CHECK_STR(p->advisor.model_labels[0], "gpupack.io/model");
        GP_CHECK_STR(p->advisor.model_labels[2], "app.kubernetes.io/name");
    }
    GP_CHECK_INT(p->advisor.ncheaper_model_classes, 1);
    if (p->advisor.ncheaper_model_classes == 1)
        GP_CHECK_STR(p->advisor.cheaper_model_classes[0], "inference");
    GP_CHECK_INT(p->advisor.nlabel_namespace, 3);
    GP_CHECK_INT(p->advisor.nlabel_pod, 3);
    GP_CHECK_INT(p->advisor.nlabel_container, 3);
    GP_CHECK_INT(p->advisor.nlabel_host, 2);
    if (p->advisor.nlabel_host == 2 && p->advisor.nlabel_pod == 3) {
        GP_CHECK_STR(p->advisor.label_host[0], "Hostname");
        GP_CHECK_STR(p->advisor.label_pod[0], "exported_pod");
    }
    gp_policy_unref(p);
}

/* advisor: given values replace the defaults; an empty list stays empty; dcgmLabels lists not
 * given keep theirs. */
GP_TEST(advisor_overrides)
{
    gp_policy *p = parse_ok("'advisor':{'idleMeanPercent':2.5,'idleP95Percent':0,"
                            "'migHeadroom':1,'cheaperModelMaxP95Percent':100,"
                            "'runawayFactor':2,'runawayMinRuns':5,'runawayIdleHours':0.5,"
                            "'idleNodeHours':12,'minCoverageHours':0,'modelLabels':['app'],"
                            "'cheaperModelClasses':[],'dcgmLabels':{'pod':['pod']}}");

    if (p == NULL)
        return;
    GP_CHECK_NEAR(p->advisor.idle_mean_pct, 2.5, 0);
    GP_CHECK_NEAR(p->advisor.idle_p95_pct, 0, 0);
    GP_CHECK_NEAR(p->advisor.mig_headroom, 1, 0);
    GP_CHECK_NEAR(p->advisor.model_max_p95_pct, 100, 0);
    GP_CHECK_NEAR(p->advisor.runaway_factor, 2, 0);
    GP_CHECK_INT(p->advisor.runaway_min_runs, 5);
    GP_CHECK_NEAR(p->advisor.runaway_idle_hours, 0.5, 0);
    GP_CHECK_NEAR(p->advisor.idle_node_hours, 12, 0);
    GP_CHECK_NEAR(p->advisor.min_coverage_hours, 0, 0);
    GP_CHECK_INT(p->advisor.nmodel_labels, 1);
    GP_CHECK_INT(p->advisor.ncheaper_model_classes, 0);
    GP_CHECK_INT(p->advisor.nlabel_pod, 1);
    GP_CHECK_INT(p->advisor.nlabel_namespace, 3);
    gp_policy_unref(p);
}

GP_TEST(advisor_gpu_product_memory)
{
    gp_policy *p = parse_ok("'scoring':{'prices':{'gpuProducts':{'L4':{'onDemand':'0.8',"
                            "'memory':'23034Mi'},'T4':{'onDemand':'0.5'}}}}");

    if (p == NULL)
        return;
    GP_CHECK_INT(p->scoring.ngpu_prices, 2);
    if (p->scoring.ngpu_prices == 2) {
        GP_CHECK(p->scoring.gpu_prices[0].memory.nano == (__int128)23034 * 1048576 * 1000000000);
        GP_CHECK(p->scoring.gpu_prices[1].memory.nano == 0);
    }
    gp_policy_unref(p);
}

/* The shipped policy states the advisor defaults and the memory of every GPU product it prices. */
GP_TEST(default_policy_advisor)
{
    gp_policy *p = NULL;
    char *errors = NULL;

    GP_CHECK_INT(gp_policy_default(&p, &errors), GP_OK);
    if (p == NULL)
        return;
    GP_CHECK_NEAR(p->advisor.mig_headroom, 1.2, 0);
    GP_CHECK_INT(p->advisor.runaway_min_runs, 3);
    GP_CHECK_INT(p->advisor.nlabel_host, 2);
    GP_CHECK_INT(p->scoring.ngpu_prices, 8);
    for (size_t i = 0; i < p->scoring.ngpu_prices; i++)
        GP_CHECK(p->scoring.gpu_prices[i].memory.nano > 0);
    gp_policy_unref(p);
}

GP_TEST(err_advisor)
{
    EXPECT_ERROR("'advisor':{'idleMeanPercent':101}", "advisor.idleMeanPercent: must be 0..100");
    EXPECT_ERROR("'advisor':{'idleP95Percent':-1}", "advisor.idleP95Percent: must be 0..100");
    EXPECT_ERROR("'advisor':{'idleP95Percent':'5'}", "advisor.idleP95Percent: must be a number");
    EXPECT_ERROR("'advisor':{'migHeadroom':0.9}", "advisor.migHeadroom: must be 1..10");
    EXPECT_ERROR("'advisor':{'migHeadroom':10.5}", "advisor.migHeadroom: must be 1..10");
    EXPECT_ERROR("'advisor':{'cheaperModelMaxP95Percent':200}",
                 "advisor.cheaperModelMaxP95Percent: must be 0..100");
    EXPECT_ERROR("'advisor':{'runawayFactor':0.5}", "advisor.runawayFactor: must be 1..1000");
    EXPECT_ERROR("'advisor':{'runawayMinRuns':0}", "advisor.runawayMinRuns: must be 1..1000");
    EXPECT_ERROR("'advisor':{'runawayMinRuns':2.5}", "advisor.runawayMinRuns: must be an integer");
    EXPECT_ERROR("'advisor':{'runawayIdleHours':-1}", "advisor.runawayIdleHours: must be 0..8760");
    EXPECT_ERROR("'advisor':{'idleNodeHours':9000}", "advisor.idleNodeHours: must be 0..8760");
    EXPECT_ERROR("'advisor':{'minCoverageHours':true}",
                 "advisor.minCoverageHours: must be a number");
    EXPECT_ERROR("'advisor':{'modelLabels':['bad key!']}",
                 "advisor.modelLabels[0]: must be a label key ([prefix/]name: name of at most 63 "
                 "letters, digits, '-', '_' and '.', starting and ending with a letter or digit; "
                 "prefix a DNS subdomain)");
    EXPECT_ERROR("'advisor':{'cheaperModelClasses':['Big']}",
                 "advisor.cheaperModelClasses[0]: must be a DNS label (lower-case letters, "
                 "digits and '-', at most 63, starting and ending with a letter or digit)");
    EXPECT_ERROR("'advisor':{'dcgmLabels':{'pod':[]}}",
                 "advisor.dcgmLabels.pod: must have at least 1 item");
    EXPECT_ERROR("'advisor':{'dcgmLabels':{'host':['9host']}}",
                 "advisor.dcgmLabels.host[0]: must be a Prometheus label name "
                 "([a-zA-Z_][a-zA-Z0-9_]*)");
    EXPECT_ERROR("'advisor':{'dcgmLabels':{'host':['ho-st']}}",
                 "advisor.dcgmLabels.host[0]: must be a Prometheus label name "
                 "([a-zA-Z_][a-zA-Z0-9_]*)");
    EXPECT_ERROR("'advisor':{'dcgmLabels':{'node':['x']}}",
                 "advisor.dcgmLabels.node: unknown field");
    EXPECT_ERROR("'advisor':{'idleFoo':1}", "advisor.idleFoo: unknown field");
    EXPECT_ERROR("'scoring':{'prices':{'gpuProducts':{'L4':{'onDemand':'1','memory':'lots'}}}}",
                 "scoring.prices.gpuProducts.L4.memory: must be a quantity such as \"20Gi\" "
                 "(\"lots\": not a number (no digits before the suffix \"lots\"))");
}

GP_TEST(err_scoring_weights)
{
    EXPECT_ERROR("'scoring':{'weights':{'cost':1001}}", "scoring.weights.cost: must be 0..1000");
    EXPECT_ERROR("'scoring':{'weights':{'fit':-1}}", "scoring.weights.fit: must be 0..1000");
    EXPECT_ERROR("'scoring':{'weights':{'stranding':2.5}}",
                 "scoring.weights.stranding: must be an integer");
    EXPECT_ERROR("'scoring':{'weights':{'gpuNodePenalty':'50'}}",
                 "scoring.weights.gpuNodePenalty: must be an integer");
    EXPECT_ERROR("'scoring':{'spotDiscountPercent':100}",
                 "scoring.spotDiscountPercent: must be 0..99");
    EXPECT_ERROR("'scoring':{'spotDiscountPercent':-5}",
                 "scoring.spotDiscountPercent: must be 0..99");
    EXPECT_ERROR("'scoring':{'spotFilter':'off'}",
                 "scoring.spotFilter: must be one of \"hard\", \"soft\"");
    EXPECT_ERROR("'scoring':{'spotFilter':true}", "scoring.spotFilter: must be a string");
}

/* scoring.spotFilter: "hard" (the default) or "soft". */
GP_TEST(scoring_spot_filter)
{
    gp_policy *p = parse_ok("'scoring':{'spotFilter':'soft'}");

    if (p != NULL)
        GP_CHECK_INT(p->scoring.spot_filter, GP_SPOT_FILTER_SOFT);
    gp_policy_unref(p);
    p = parse_ok("'scoring':{'spotFilter':'hard'}");
    if (p != NULL)
        GP_CHECK_INT(p->scoring.spot_filter, GP_SPOT_FILTER_HARD);
    gp_policy_unref(p);
}

GP_TEST(err_scoring_price)
{
    static const char *bad[] = {"-1", "abc", "", "2.", ".5", " 2.50", "2.50 ", "1e3", "+2",
                                "2,50", "$2.50", "0x10", "1.2.3"};
    const char *want = "scoring.defaultGpuHourlyPrice: must be a price in dollars like \"2.50\"";
    char rest[128];

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        snprintf(rest, sizeof(rest), "'scoring':{'defaultGpuHourlyPrice':'%s'}", bad[i]);
        EXPECT_ERROR(rest, want);
    }
    EXPECT_ERROR("'scoring':{'defaultGpuHourlyPrice':'2.5000001'}",
                 "scoring.defaultGpuHourlyPrice: must be a price in dollars like \"2.50\" (at "
                 "most 6 decimal places)");
    EXPECT_ERROR("'scoring':{'defaultGpuHourlyPrice':'1000000.000001'}",
                 "scoring.defaultGpuHourlyPrice: must be a price in dollars like \"2.50\" (at "
                 "most 1000000)");
    EXPECT_ERROR("'scoring':{'defaultGpuHourlyPrice':'99999999999999999999999'}",
                 "scoring.defaultGpuHourlyPrice: must be a price in dollars like \"2.50\" (at "
                 "most 1000000)");
    EXPECT_ERROR("'scoring':{'defaultGpuHourlyPrice':2.5}",
                 "scoring.defaultGpuHourlyPrice: must be a string (a price in dollars like "
                 "\"2.50\")");
    EXPECT_ERROR("'scoring':{'prices':{'gpuProducts':{'Tesla-T4':{'onDemand':'0.53',"
                 "'spot':'-0.2'}}}}",
                 "scoring.prices.gpuProducts.Tesla-T4.spot: must be a price in dollars like "
                 "\"2.50\"");
}

GP_TEST(err_scoring_price_table)
{
    EXPECT_ERROR("'scoring':{'prices':{'instanceTypes':{'p4d.24xlarge':{'spot':'12.00'}}}}",
                 "scoring.prices.instanceTypes.p4d.24xlarge.onDemand: is required");
    EXPECT_PATH("'scoring':{'prices':{'instanceTypes':{'bad type':{'onDemand':'1'}}}}",
                "scoring.prices.instanceTypes.bad type");
    EXPECT_ERROR("'scoring':{'prices':{'gpuProducts':{'NVIDIA-L4':'0.81'}}}",
                 "scoring.prices.gpuProducts.NVIDIA-L4: must be an object");
    EXPECT_ERROR("'scoring':{'prices':{'gpuProducts':[]}}",
                 "scoring.prices.gpuProducts: must be an object");
    EXPECT_ERROR("'scoring':{'prices':{'gpuProducts':{'a':{'onDemand':'1'},'a':{'onDemand':'2'}}}}",
                 "scoring.prices.gpuProducts: duplicate key \"a\"");
}

GP_TEST(err_scoring_workload_mix)
{
    char doc[4096] = "'scoring':{'workloadMix':[";

    EXPECT_ERROR("'scoring':{'weights':{'fragmentation':1001}}",
                 "scoring.weights.fragmentation: must be 0..1000");
    EXPECT_ERROR("'scoring':{'workloadMix':{}}", "scoring.workloadMix: must be an array");
    EXPECT_ERROR("'scoring':{'workloadMix':[{'gpus':0,'weight':1}]}",
                 "scoring.workloadMix[0].gpus: must be 1..16");
    EXPECT_ERROR("'scoring':{'workloadMix':[{'gpus':1,'weight':1},{'gpus':17,'weight':1}]}",
                 "scoring.workloadMix[1].gpus: must be 1..16");
    EXPECT_ERROR("'scoring':{'workloadMix':[{'gpus':1}]}",
                 "scoring.workloadMix[0].weight: is required");
    EXPECT_ERROR("'scoring':{'workloadMix':[{'gpus':1,'weight':0}]}",
                 "scoring.workloadMix[0].weight: must be 1..1000000");
    EXPECT_ERROR("'scoring':{'workloadMix':[{'gpus':1,'weight':1,'cpu':'-1'}]}",
                 "scoring.workloadMix[0].cpu: must be positive");
    EXPECT_ERROR("'scoring':{'workloadMix':[{'gpus':1,'weight':1,'memory':'1Gi'}]}",
                 "scoring.workloadMix[0].memory: unknown field");
    for (int i = 0; i <= GP_POLICY_MAX_MIX; i++)
        snprintf(doc + strlen(doc), sizeof(doc) - strlen(doc), "%s{'gpus':1,'weight':%d}",
                 i ? "," : "", i + 1);
    snprintf(doc + strlen(doc), sizeof(doc) - strlen(doc), "]}");
    EXPECT_ERROR(doc, "scoring.workloadMix: at most 32 shapes");
}

GP_TEST(err_scoring_typical_pod)
{
    EXPECT_ERROR("'scoring':{'typicalGpuPod':{'cpuPerGpu':'0'}}",
                 "scoring.typicalGpuPod.cpuPerGpu: must be positive");
    EXPECT_ERROR("'scoring':{'typicalGpuPod':{'memoryPerGpu':'-1Gi'}}",
                 "scoring.typicalGpuPod.memoryPerGpu: must be positive");
    EXPECT_ERROR("'scoring':{'typicalGpuPod':{'cpuPerGpu':4}}",
                 "scoring.typicalGpuPod.cpuPerGpu: must be a string (a quantity such as \"4\")");
    EXPECT_PATH("'scoring':{'typicalGpuPod':{'memoryPerGpu':'32GB'}}",
                "scoring.typicalGpuPod.memoryPerGpu");
    {
        char *e = errors_of("'scoring':{'typicalGpuPod':{'memoryPerGpu':'lots'}}");

        GP_CHECK(has_prefix(e, "scoring.typicalGpuPod.memoryPerGpu: must be a quantity such as "
                               "\"32Gi\" ("));
        free(e);
    }
}

/* One pass reports every scoring error. */
GP_TEST(scoring_errors_in_one_pass)
{
    char *errs = errors_of("'scoring':{'weights':{'cost':2000,'fit':-3},'spotDiscountPercent':99,"
                           "'defaultGpuHourlyPrice':'x','typicalGpuPod':{'cpuPerGpu':'0'},"
                           "'prices':{'instanceTypes':{'t':{}}},'extra':true}");

    GP_CHECK(has_line(errs, "scoring.weights.cost: must be 0..1000"));
    GP_CHECK(has_line(errs, "scoring.weights.fit: must be 0..1000"));
    GP_CHECK(has_line(errs, "scoring.defaultGpuHourlyPrice: must be a price in dollars like "
                            "\"2.50\""));
    GP_CHECK(has_line(errs, "scoring.typicalGpuPod.cpuPerGpu: must be positive"));
    GP_CHECK(has_line(errs, "scoring.prices.instanceTypes.t.onDemand: is required"));
    GP_CHECK(has_line(errs, "scoring.extra: unknown field"));
    GP_CHECK_INT(count_lines(errs), 6);
    free(errs);
}

/* classes.<name>.tolerations: the shape and the checks of the top-level list. */
GP_TEST(class_tolerations_parsed_and_checked)
{
    gp_policy *p = parse_ok("'classes':{'training':{'tolerations':[{'key':'pool','operator':"
                            "'Equal','value':'training','effect':'NoSchedule'}]}}");
    char *errs = NULL;

    if (p != NULL) {
        const gp_class *c = gp_policy_class(p, "training");

        GP_CHECK_INT(c->ntolerations, 1);
        GP_CHECK_STR(c->tolerations[0].key, "pool");
        GP_CHECK_STR(c->tolerations[0].value, "training");
        GP_CHECK_STR(c->tolerations[0].effect, "NoSchedule");
        gp_policy_unref(p);
    }
    errs = errors_of("'classes':{'t':{'tolerations':[{'operator':'Equal','value':'x'},"
                        "{'key':'a','operator':'Exists','value':'b'},{'key':'a','effect':'No'},"
                        "{'key':'a','tolerationSeconds':5},{'key':'a','x':1}]}}");
    GP_CHECK(has_line(errs, "classes.t.tolerations[0].operator: must be \"Exists\" when key is "
                            "empty"));
    GP_CHECK(has_line(errs, "classes.t.tolerations[1].value: must be empty when operator is "
                            "\"Exists\""));
    GP_CHECK(has_prefix(errs, "classes.t.tolerations[2].effect: must be one of "));
    GP_CHECK(has_line(errs, "classes.t.tolerations[3].tolerationSeconds: only allowed with "
                            "effect \"NoExecute\""));
    GP_CHECK(has_line(errs, "classes.t.tolerations[4].x: unknown field"));
    free(errs);
}

GP_TEST(checkpointing_priority_class_and_mig_switch)
{
    gp_policy *p = parse_ok("'classes':{'t':{'priorityClassName':'gpu-training',"
                            "'checkpointingPriorityClassName':'gpu-training-preemptible'}},"
                            "'migProfilesAuthoritative':true");
    char *errs;

    if (p != NULL) {
        GP_CHECK_STR(gp_policy_class(p, "t")->checkpointing_priority_class,
                     "gpu-training-preemptible");
        GP_CHECK(p->mig_profiles_authoritative);
        gp_policy_unref(p);
    }
    errs = errors_of("'classes':{'t':{'checkpointingPriorityClassName':'Low'}},"
                        "'migProfilesAuthoritative':'yes'");
    GP_CHECK(has_prefix(errs, "classes.t.checkpointingPriorityClassName: must be a DNS "
                              "subdomain"));
    GP_CHECK(has_line(errs, "migProfilesAuthoritative: must be a boolean"));
    free(errs);
}

GP_MAIN(GP_CASE(class_tolerations_parsed_and_checked),
        GP_CASE(checkpointing_priority_class_and_mig_switch),
        GP_CASE(default_policy_matches_contract), GP_CASE(minimal_policy_defaults),
        GP_CASE(nested_defaults), GP_CASE(int64_extremes), GP_CASE(err_bad_api_version),
        GP_CASE(err_missing_kind), GP_CASE(err_wrong_kind), GP_CASE(err_unknown_top_level_field),
        GP_CASE(err_unknown_nested_field), GP_CASE(err_wrong_types),
        GP_CASE(err_runtime_cap_zero), GP_CASE(err_runtime_cap_too_big),
        GP_CASE(err_runtime_cap_fraction), GP_CASE(err_runtime_cap_string),
        GP_CASE(runtime_cap_bounds_accepted), GP_CASE(err_unknown_rule_class),
        GP_CASE(err_rule_required_fields), GP_CASE(err_duplicate_rule_name),
        GP_CASE(err_default_class_unknown), GP_CASE(err_duplicate_key),
        GP_CASE(err_toleration_operator), GP_CASE(err_toleration_effect),
        GP_CASE(err_toleration_exists_with_value), GP_CASE(err_toleration_empty_key_needs_exists),
        GP_CASE(err_toleration_seconds_without_noexecute), GP_CASE(err_toleration_bad_key),
        GP_CASE(err_selector_operator), GP_CASE(err_selector_in_without_values),
        GP_CASE(err_selector_exists_with_values), GP_CASE(err_selector_label_value),
        GP_CASE(err_mig_memory_quantity), GP_CASE(err_mig_duplicate),
        GP_CASE(err_mig_slices_zero), GP_CASE(err_mig_name), GP_CASE(err_weight_0),
        GP_CASE(err_weight_101), GP_CASE(err_bad_placement), GP_CASE(err_bad_rightsizing), GP_CASE(err_pool_needs_labels),
        GP_CASE(err_dotted_key_in_path), GP_CASE(err_class_name_invalid), GP_CASE(scheduler_name), GP_CASE(priority_override_global_default),
        GP_CASE(err_priority_class_name), GP_CASE(err_gpu_resource_star),
        GP_CASE(err_too_many_items), GP_CASE(err_string_too_long), GP_CASE(err_syntax_position),
        GP_CASE(err_trailing_garbage), GP_CASE(err_empty_document), GP_CASE(err_non_object_root),
        GP_CASE(err_nul_in_document), GP_CASE(err_document_too_big),
        GP_CASE(control_characters_do_not_split_lines), GP_CASE(all_errors_in_one_pass),
        GP_CASE(errors_are_capped), GP_CASE(errors_may_be_null), GP_CASE(digest_follows_bytes),
        GP_CASE(glob_matching), GP_CASE(glob_no_blowup), GP_CASE(lookups),
        GP_CASE(holder_ref_and_swap),
        GP_CASE(default_policy_scoring),
        GP_CASE(scoring_defaults_golden), GP_CASE(scoring_values_parsed),
        GP_CASE(class_gpu_models_parsed), GP_CASE(err_class_gpu_models),
        GP_CASE(err_scoring_unknown_fields), GP_CASE(err_scoring_weights),
        GP_CASE(scoring_spot_filter),
        GP_CASE(err_scoring_price), GP_CASE(err_scoring_price_table),
        GP_CASE(err_scoring_workload_mix), GP_CASE(err_scoring_typical_pod), GP_CASE(scoring_errors_in_one_pass),
        GP_CASE(advisor_defaults), GP_CASE(advisor_overrides), GP_CASE(advisor_gpu_product_memory),
        GP_CASE(err_advisor), GP_CASE(default_policy_advisor))
