/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of lib/podview.c: decoding a Pod's JSON into gp_pod (namespace fallback, owner kind,
 * containers and init containers, quantities, tolerations, affinity), the errors a wrongly typed
 * field gives (with its JSON path), gp_pod_is_gpu and the gp_toleration_covers truth table.
 *
 * Pods are written with single quotes for readability; parse_q() turns them into JSON. Every test
 * ends with a leak check when built with AddressSanitizer (the harness leaves each test with
 * _exit(), which skips LeakSanitizer's own check at exit). */
#include "gptest.h"

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "gpupack/arena.h"
#include "gpupack/podview.h"
#include "gpupack/policy.h"


/* Parses text after turning every single quote into a double quote. */
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

typedef struct {
    cJSON *json;
    gp_arena a;
    gp_pod pod;
    gp_err err;
} fx;

static gp_status fx_decode(fx *f, const char *text, const char *ns)
{
    memset(f, 0, sizeof(*f));
    gp_arena_init(&f->a, 0);
    f->json = parse_q(text);
    return gp_pod_from_json(f->json, ns, &f->a, &f->pod, &f->err);
}

static void fx_free(fx *f)
{
    gp_arena_free(&f->a);
    cJSON_Delete(f->json);
}

/* Decodes text, which must fail with GP_EINVAL and exactly the message want. */
static void check_einval(const char *text, const char *want, int line)
{
    fx f;
    gp_status st = fx_decode(&f, text, "default");

    if (st != GP_EINVAL || strcmp(f.err.msg, want) != 0) {
        printf("  %s:%d: status %d message \"%s\", want GP_EINVAL \"%s\"\n", __FILE__, line, st,
               f.err.msg, want);
        gp_test_failed = 1;
    }
    fx_free(&f);
}
#define CHECK_EINVAL(text, want) check_einval(text, want, __LINE__)

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

/* --- metadata ------------------------------------------------------------------------------ */

GP_TEST(namespace_from_metadata)
{
    fx f;

    GP_CHECK_INT(fx_decode(&f, "{'metadata':{'namespace':'team-a','name':'p'}}", "other"), GP_OK);
    GP_CHECK_STR(f.pod.namespace, "team-a");
    GP_CHECK_STR(f.pod.name, "p");
    GP_CHECK(f.pod.generate_name == NULL);
    fx_free(&f);
}

GP_TEST(namespace_fallback_when_absent_or_empty)
{
    fx f;

    GP_CHECK_INT(fx_decode(&f, "{'metadata':{'generateName':'p-'}}", "from-request"), GP_OK);
    GP_CHECK_STR(f.pod.namespace, "from-request");
    GP_CHECK_STR(f.pod.generate_name, "p-");
    GP_CHECK(f.pod.name == NULL);
    fx_free(&f);

    GP_CHECK_INT(fx_decode(&f, "{'metadata':{'namespace':''}}", "from-request"), GP_OK);
    GP_CHECK_STR(f.pod.namespace, "from-request");
    fx_free(&f);

    GP_CHECK_INT(fx_decode(&f, "{'metadata':{'namespace':5}}", "from-request"), GP_OK);
    GP_CHECK_STR(f.pod.namespace, "from-request");
    fx_free(&f);

    /* No metadata at all and no fallback: the empty namespace, never NULL. */
    GP_CHECK_INT(fx_decode(&f, "{}", NULL), GP_OK);
    GP_CHECK_STR(f.pod.namespace, "");
    GP_CHECK_INT(f.pod.ncontainers, 0);
    GP_CHECK(f.pod.owner_kind == NULL);
    fx_free(&f);
}

GP_TEST(owner_controller_wins_over_first)
{
    fx f;

    GP_CHECK_INT(fx_decode(&f,
                           "{'metadata':{'ownerReferences':["
                           "{'kind':'ConfigMap','name':'a'},"
                           "{'kind':'Other','controller':false},"
                           "{'kind':'ReplicaSet','name':'rs','controller':true}]}}",
                           "ns"),
                 GP_OK);
    GP_CHECK_STR(f.pod.owner_kind, "ReplicaSet");
    fx_free(&f);
}

GP_TEST(owner_first_when_no_controller)
{
    fx f;

    GP_CHECK_INT(fx_decode(&f,
                           "{'metadata':{'ownerReferences':["
                           "{'name':'no-kind','controller':true},"
                           "{'kind':'Job','controller':false},"
                           "{'kind':'ConfigMap'}]}}",
                           "ns"),
                 GP_OK);
    GP_CHECK_STR(f.pod.owner_kind, "Job");
    fx_free(&f);

    GP_CHECK_INT(fx_decode(&f, "{'metadata':{'ownerReferences':[]}}", "ns"), GP_OK);
    GP_CHECK(f.pod.owner_kind == NULL);
    fx_free(&f);

    GP_CHECK_INT(fx_decode(&f, "{'metadata':{'ownerReferences':{'kind':'Job'}}}", "ns"), GP_OK);
    GP_CHECK(f.pod.owner_kind == NULL);
    fx_free(&f);
}

GP_TEST(labels_and_annotations)
{
    fx f;

    GP_CHECK_INT(fx_decode(&f,
                           "{'metadata':{'labels':{'a':'1','n':5,'gpupack.io/class':'inference'},"
                           "'annotations':{'gpupack.io/gpu-memory':'10Gi'}}}",
                           "ns"),
                 GP_OK);
    GP_CHECK_INT(f.pod.nlabels, 2); /* the non-string value is skipped */
    GP_CHECK_STR(gp_pod_label(&f.pod, "a"), "1");
    GP_CHECK_STR(gp_pod_label(&f.pod, "gpupack.io/class"), "inference");
    GP_CHECK(gp_pod_label(&f.pod, "n") == NULL);
    GP_CHECK(gp_pod_label(&f.pod, "A") == NULL);
    GP_CHECK_INT(f.pod.nannotations, 1);
    GP_CHECK_STR(gp_pod_annotation(&f.pod, "gpupack.io/gpu-memory"), "10Gi");
    GP_CHECK(gp_pod_annotation(&f.pod, "a") == NULL);
    fx_free(&f);
}

/* --- containers ---------------------------------------------------------------------------- */

GP_TEST(containers_then_init_containers_with_index_and_flag)
{
    fx f;

    GP_CHECK_INT(fx_decode(&f,
                           "{'spec':{'initContainers':[{'name':'i0'},{'name':'i1'}],"
                           "'containers':[{'name':'c0'},{'name':'c1'},{}]}}",
                           "ns"),
                 GP_OK);
    GP_CHECK_INT(f.pod.ncontainers, 5);
    if (f.pod.ncontainers == 5) {
        static const char *names[] = { "c0", "c1", NULL, "i0", "i1" };
        static const int idx[] = { 0, 1, 2, 0, 1 };

        for (size_t i = 0; i < 5; i++) {
            const gp_container *c = &f.pod.containers[i];

            if (names[i] != NULL)
                GP_CHECK_STR(c->name, names[i]);
            else
                GP_CHECK(c->name == NULL);
            GP_CHECK_INT(c->index, idx[i]);
            GP_CHECK_INT(c->init, i >= 3);
            GP_CHECK(!c->has_requests && !c->has_limits);
            GP_CHECK_INT(c->nrequests + c->nlimits, 0);
        }
    }
    fx_free(&f);
}

/* Only an init container with restartPolicy Always is a sidecar (KEP-753); the field on an app
 * container, or another value, is not. */
GP_TEST(sidecar_is_init_container_restart_always)
{
    fx f;

    GP_CHECK_INT(fx_decode(&f,
                           "{'spec':{'initContainers':[{'name':'s','restartPolicy':'Always'},"
                           "{'name':'i','restartPolicy':'OnFailure'},{'name':'j'},"
                           "{'name':'k','restartPolicy':7}],"
                           "'containers':[{'name':'c','restartPolicy':'Always'}]}}",
                           "ns"),
                 GP_OK);
    GP_CHECK_INT(f.pod.ncontainers, 5);
    if (f.pod.ncontainers == 5) {
        GP_CHECK(!f.pod.containers[0].sidecar); /* the app container */
        GP_CHECK(f.pod.containers[1].init && f.pod.containers[1].sidecar);
        for (size_t i = 2; i < 5; i++)
            GP_CHECK(f.pod.containers[i].init && !f.pod.containers[i].sidecar);
    }
    fx_free(&f);
}

GP_TEST(null_container_arrays_are_empty)
{
    fx f;

    GP_CHECK_INT(fx_decode(&f, "{'spec':{'containers':null,'initContainers':null}}", "ns"), GP_OK);
    GP_CHECK_INT(f.pod.ncontainers, 0);
    GP_CHECK(f.pod.containers == NULL);
    fx_free(&f);
}

GP_TEST(requests_and_limits_quantities)
{
    const gp_container *c;
    const gp_resource *r;
    fx f;

    GP_CHECK_INT(fx_decode(&f,
                           "{'spec':{'containers':[{'name':'main','resources':{"
                           "'requests':{'cpu':'500m','memory':'1.5Gi','nvidia.com/gpu':'1'},"
                           "'limits':{'nvidia.com/gpu':'2e0'}}}]}}",
                           "ns"),
                 GP_OK);
    GP_CHECK_INT(f.pod.ncontainers, 1);
    if (f.pod.ncontainers != 1)
        goto out;
    c = &f.pod.containers[0];
    GP_CHECK(c->has_requests);
    GP_CHECK(c->has_limits);
    GP_CHECK_INT(c->nrequests, 3);
    GP_CHECK_INT(c->nlimits, 1);
    r = gp_container_request(c, "cpu");
    GP_CHECK(r != NULL && r->qty.nano == (__int128)500000000);
    GP_CHECK(r != NULL && strcmp(r->name, "cpu") == 0);
    r = gp_container_request(c, "memory");
    GP_CHECK(r != NULL && r->qty.nano == (__int128)1610612736 * 1000000000);
    r = gp_container_request(c, "nvidia.com/gpu");
    GP_CHECK(r != NULL && gp_qty_equals_units(r->qty, 1));
    r = gp_container_limit(c, "nvidia.com/gpu");
    GP_CHECK(r != NULL && gp_qty_equals_units(r->qty, 2));
    GP_CHECK(gp_container_limit(c, "cpu") == NULL);
    GP_CHECK(gp_container_request(c, "nvidia.com/GPU") == NULL);
out:
    fx_free(&f);
}

GP_TEST(empty_and_null_resource_maps)
{
    fx f;

    GP_CHECK_INT(fx_decode(&f,
                           "{'spec':{'containers':["
                           "{'resources':{'requests':{},'limits':null}},"
                           "{'resources':null},"
                           "{'resources':{}}]}}",
                           "ns"),
                 GP_OK);
    GP_CHECK_INT(f.pod.ncontainers, 3);
    if (f.pod.ncontainers == 3) {
        GP_CHECK(f.pod.containers[0].has_requests);
        GP_CHECK(!f.pod.containers[0].has_limits);
        GP_CHECK_INT(f.pod.containers[0].nrequests, 0);
        GP_CHECK(!f.pod.containers[1].has_requests && !f.pod.containers[1].has_limits);
        GP_CHECK(!f.pod.containers[2].has_requests && !f.pod.containers[2].has_limits);
    }
    fx_free(&f);
}

/* --- wrong types --------------------------------------------------------------------------- */

GP_TEST(wrong_type_quantity_names_path)
{
    CHECK_EINVAL("{'spec':{'containers':[{'resources':{'limits':{'nvidia.com/gpu':1}}}]}}",
                 "spec.containers[0].resources.limits.nvidia.com/gpu: must be a quantity string");
    CHECK_EINVAL("{'spec':{'containers':[{},{'resources':{'requests':{'cpu':null}}}]}}",
                 "spec.containers[1].resources.requests.cpu: must be a quantity string");
    CHECK_EINVAL("{'spec':{'initContainers':[{},{'resources':{'limits':{'cpu':true}}}]}}",
                 "spec.initContainers[1].resources.limits.cpu: must be a quantity string");
}

GP_TEST(bad_quantity_names_path_and_reason)
{
    fx f;
    const char *prefix = "spec.containers[0].resources.limits.nvidia.com/gpu: ";

    GP_CHECK_INT(fx_decode(&f,
                           "{'spec':{'containers':[{'resources':{'limits':"
                           "{'nvidia.com/gpu':'1x'}}}]}}",
                           "ns"),
                 GP_EINVAL);
    GP_CHECK(strncmp(f.err.msg, prefix, strlen(prefix)) == 0);
    GP_CHECK(strstr(f.err.msg, "\"1x\"") != NULL); /* the quantity parser quotes the input */
    fx_free(&f);
}

GP_TEST(wrong_type_structure_names_path)
{
    CHECK_EINVAL("[]", "object: must be a Pod object");
    CHECK_EINVAL("{'spec':[]}", "spec: must be an object");
    CHECK_EINVAL("{'spec':{'containers':{}}}", "spec.containers: must be an array");
    CHECK_EINVAL("{'spec':{'containers':['x']}}", "spec.containers[0]: must be an object");
    CHECK_EINVAL("{'spec':{'initContainers':[{},{},3]}}",
                 "spec.initContainers[2]: must be an object");
    CHECK_EINVAL("{'spec':{'containers':[{'resources':'x'}]}}",
                 "spec.containers[0].resources: must be an object");
    CHECK_EINVAL("{'spec':{'containers':[{'resources':{'requests':[]}}]}}",
                 "spec.containers[0].resources: requests and limits must be objects");
    CHECK_EINVAL("{'spec':{'initContainers':[{'resources':{'limits':'1'}}]}}",
                 "spec.initContainers[0].resources: requests and limits must be objects");
}

/* A wrongly typed spec.initContainers is named as such. (Regression test: the message used to
 * say "spec.containers".) */
GP_TEST(wrong_type_init_containers_names_its_path)
{
    CHECK_EINVAL("{'spec':{'initContainers':{}}}", "spec.initContainers: must be an array");
}

GP_TEST(too_many_containers_is_etoobig)
{
    size_t n = GP_POD_MAX_CONTAINERS + 1, cap = 32 + n * 3;
    char *s = malloc(cap);
    size_t o = (size_t)snprintf(s, cap, "{\"spec\":{\"containers\":[");
    fx f;

    for (size_t i = 0; i < n; i++)
        o += (size_t)snprintf(s + o, cap - o, "%s{}", i ? "," : "");
    snprintf(s + o, cap - o, "]}}");
    GP_CHECK_INT(fx_decode(&f, s, "ns"), GP_ETOOBIG);
    GP_CHECK_STR(f.err.msg, "spec: more than 256 containers");
    fx_free(&f);
    free(s);
}

/* Kubernetes counts annotations by their bytes (256 KiB), not their number: 5,000 one-character
 * annotations and as many labels are a valid pod. Past GP_POD_MAX_MAP the map is refused. */
static char *big_maps(size_t n)
{
    size_t cap = 64 + 2 * n * 24;
    char *s = malloc(cap);
    size_t o = (size_t)snprintf(s, cap, "{\"metadata\":{\"annotations\":{");

    for (size_t i = 0; i < n; i++)
        o += (size_t)snprintf(s + o, cap - o, "%s\"a%zu\":\"\"", i ? "," : "", i);
    o += (size_t)snprintf(s + o, cap - o, "},\"labels\":{");
    for (size_t i = 0; i < n; i++)
        o += (size_t)snprintf(s + o, cap - o, "%s\"l%zu\":\"v\"", i ? "," : "", i);
    snprintf(s + o, cap - o, "}},\"spec\":{}}");
    return s;
}

GP_TEST(many_labels_and_annotations)
{
    char *s = big_maps(5000);
    fx f;

    GP_CHECK_INT(fx_decode(&f, s, "ns"), GP_OK);
    GP_CHECK(f.pod.nannotations == 5000 && f.pod.nlabels == 5000);
    fx_free(&f);
    free(s);
    s = big_maps(GP_POD_MAX_MAP + 1);
    GP_CHECK_INT(fx_decode(&f, s, "ns"), GP_ETOOBIG);
    GP_CHECK_STR(f.err.msg, "metadata.labels: more than 262144 entries");
    fx_free(&f);
    free(s);
}

/* --- spec fields --------------------------------------------------------------------------- */

GP_TEST(spec_scalars)
{
    fx f;

    GP_CHECK_INT(fx_decode(&f,
                           "{'spec':{'priorityClassName':'high','priority':1000,"
                           "'preemptionPolicy':'Never','activeDeadlineSeconds':60,"
                           "'nodeName':'n1'}}",
                           "ns"),
                 GP_OK);
    GP_CHECK_STR(f.pod.priority_class, "high");
    GP_CHECK(f.pod.has_priority);
    GP_CHECK(f.pod.has_preemption_policy);
    GP_CHECK(f.pod.has_active_deadline);
    GP_CHECK_STR(f.pod.node_name, "n1");
    fx_free(&f);

    GP_CHECK_INT(fx_decode(&f, "{'spec':{'nodeName':'','activeDeadlineSeconds':'60'}}", "ns"),
                 GP_OK);
    GP_CHECK(f.pod.priority_class == NULL);
    GP_CHECK(!f.pod.has_priority);
    GP_CHECK(!f.pod.has_preemption_policy);
    GP_CHECK(!f.pod.has_active_deadline);
    GP_CHECK(f.pod.node_name == NULL);
    fx_free(&f);
}

GP_TEST(tolerations_decoded_with_defaults)
{
    fx f;

    GP_CHECK_INT(fx_decode(&f,
                           "{'spec':{'tolerations':["
                           "{'operator':'Exists'},"
                           "{'key':'k','value':'v','effect':'NoExecute','tolerationSeconds':30},"
                           "'junk',"
                           "{'key':'e','operator':''}]}}",
                           "ns"),
                 GP_OK);
    GP_CHECK_INT(f.pod.ntolerations, 3);
    if (f.pod.ntolerations == 3) {
        const gp_toleration *t = f.pod.tolerations;

        GP_CHECK_STR(t[0].key, "");
        GP_CHECK_STR(t[0].op, "Exists");
        GP_CHECK_STR(t[0].value, "");
        GP_CHECK_STR(t[0].effect, "");
        GP_CHECK(!t[0].has_seconds);
        GP_CHECK_STR(t[1].key, "k");
        GP_CHECK_STR(t[1].op, "Equal"); /* Kubernetes' default operator */
        GP_CHECK_STR(t[1].value, "v");
        GP_CHECK_STR(t[1].effect, "NoExecute");
        GP_CHECK(t[1].has_seconds);
        GP_CHECK_INT(t[1].seconds, 30);
        GP_CHECK_STR(t[2].key, "e");
        GP_CHECK_STR(t[2].op, "Equal");
    }
    fx_free(&f);
}

/* cJSON reads numbers as doubles: tolerationSeconds above 2^53 arrive rounded to the nearest
 * double (9007199254740993 -> ...992), values at or past 2^63 saturate to INT64_MAX instead of
 * overflowing, and gp_toleration_covers() compares at double precision so that idempotence holds
 * (test_mutate.c large_toleration_seconds_already_present). */
GP_TEST(toleration_seconds_int64_exact)
{
    fx f;

    GP_CHECK_INT(fx_decode(&f,
                           "{'spec':{'tolerations':["
                           "{'key':'a','effect':'NoExecute','tolerationSeconds':9007199254740993},"
                           "{'key':'b','effect':'NoExecute',"
                           "'tolerationSeconds':9223372036854775807}"
                           "]}}",
                           "ns"),
                 GP_OK);
    GP_CHECK_INT(f.pod.ntolerations, 2);
    if (f.pod.ntolerations == 2) {
        GP_CHECK_INT(f.pod.tolerations[0].seconds, 9007199254740992LL);
        GP_CHECK_INT(f.pod.tolerations[1].seconds, INT64_MAX);
    }
    fx_free(&f);
}

GP_TEST(node_affinity_terms)
{
    fx f;

    GP_CHECK_INT(fx_decode(&f,
                           "{'spec':{'affinity':{'nodeAffinity':{"
                           "'requiredDuringSchedulingIgnoredDuringExecution':{'nodeSelectorTerms':["
                           "{'matchExpressions':[{'key':'pool','operator':'In','values':['a','b']},"
                           "{'key':'gpu','operator':'Exists'}]},"
                           "{'matchFields':[{'key':'metadata.name','operator':'In',"
                           "'values':['n1']}]}]},"
                           "'preferredDuringSchedulingIgnoredDuringExecution':["
                           "{'weight':7,'preference':{'matchExpressions':"
                           "[{'key':'spot','operator':'In','values':['true']}]}}]}}}}",
                           "ns"),
                 GP_OK);
    GP_CHECK_INT(f.pod.nrequired, 2);
    GP_CHECK_INT(f.pod.npreferred, 1);
    if (f.pod.nrequired == 2 && f.pod.npreferred == 1) {
        const gp_node_term *r = f.pod.required, *p = f.pod.preferred;

        GP_CHECK_INT(r[0].nexprs, 2);
        if (r[0].nexprs == 2) {
            GP_CHECK_STR(r[0].exprs[0].key, "pool");
            GP_CHECK_STR(r[0].exprs[0].op, "In");
            GP_CHECK_INT(r[0].exprs[0].nvalues, 2);
            if (r[0].exprs[0].nvalues == 2)
                GP_CHECK_STR(r[0].exprs[0].values[1], "b");
            GP_CHECK_STR(r[0].exprs[1].op, "Exists");
            GP_CHECK_INT(r[0].exprs[1].nvalues, 0);
        }
        GP_CHECK_INT(r[1].nexprs, 0); /* matchFields only */
        GP_CHECK_INT(p[0].weight, 7);
        GP_CHECK_INT(p[0].nexprs, 1);
        if (p[0].nexprs == 1)
            GP_CHECK_STR(p[0].exprs[0].values[0], "true");
    }
    fx_free(&f);
}

/* --- gp_pod_is_gpu ------------------------------------------------------------------------- */

static int is_gpu(const gp_policy *pol, const char *text)
{
    fx f;
    int r = -1;

    if (fx_decode(&f, text, "ns") == GP_OK)
        r = gp_pod_is_gpu(&f.pod, pol);
    else
        printf("  decode failed: %s\n", f.err.msg);
    fx_free(&f);
    return r;
}

GP_TEST(is_gpu_default_policy)
{
    gp_policy *pol = default_policy();

    if (pol == NULL)
        return;
    GP_CHECK_INT(is_gpu(pol, "{'spec':{'containers':[{'resources':{'limits':"
                             "{'nvidia.com/gpu':'1'}}}]}}"),
                 1);
    GP_CHECK_INT(is_gpu(pol, "{'spec':{'containers':[{'resources':{'requests':"
                             "{'nvidia.com/mig-1g.10gb':'1'}}}]}}"),
                 1);
    GP_CHECK_INT(is_gpu(pol, "{'spec':{'containers':[{}],'initContainers':[{'resources':"
                             "{'limits':{'nvidia.com/gpu':'1'}}}]}}"),
                 1);
    GP_CHECK_INT(is_gpu(pol, "{'spec':{'containers':[{'resources':{'limits':"
                             "{'cpu':'1'}}},{'resources':{'limits':{'nvidia.com/gpu':'500m'}}}]}}"),
                 1);
    /* A zero quantity is no GPU. */
    GP_CHECK_INT(is_gpu(pol, "{'spec':{'containers':[{'resources':{'limits':"
                             "{'nvidia.com/gpu':'0'},"
                             "'requests':{'nvidia.com/mig-2g.20gb':'0'}}}]}}"),
                 0);
    GP_CHECK_INT(is_gpu(pol, "{'spec':{'containers':[{'resources':{'limits':"
                             "{'cpu':'4','memory':'8Gi'}}}]}}"),
                 0);
    GP_CHECK_INT(is_gpu(pol, "{'spec':{'containers':[{'resources':{'limits':"
                             "{'amd.com/gpu':'1','nvidia.com/gpus':'1','nvidia.com/mig':'1'}}}]}}"),
                 0);
    GP_CHECK_INT(is_gpu(pol, "{'spec':{}}"), 0);
    gp_policy_unref(pol);
}

GP_TEST(is_gpu_custom_resources)
{
    static const char doc[] = "{\"apiVersion\":\"gpupack.io/v1alpha1\",\"kind\":\"Policy\","
                              "\"gpuResources\":[\"amd.com/gpu\"]}";
    gp_policy *pol = NULL;
    char *errors = NULL;

    GP_CHECK_INT(gp_policy_parse(doc, strlen(doc), &pol, &errors), GP_OK);
    free(errors);
    if (pol == NULL)
        return;
    GP_CHECK_INT(is_gpu(pol, "{'spec':{'containers':[{'resources':{'limits':"
                             "{'nvidia.com/gpu':'1'}}}]}}"),
                 0);
    GP_CHECK_INT(is_gpu(pol, "{'spec':{'containers':[{'resources':{'limits':"
                             "{'amd.com/gpu':'1'}}}]}}"),
                 1);
    gp_policy_unref(pol);
}

/* --- gp_toleration_covers ------------------------------------------------------------------ */

static gp_toleration tol(const char *key, const char *op, const char *value, const char *effect)
{
    gp_toleration t = { (char *)key, (char *)op, (char *)value, (char *)effect, false, 0 };

    return t;
}

static gp_toleration tol_s(const char *key, const char *value, int64_t secs)
{
    gp_toleration t = tol(key, value[0] ? "Equal" : "Exists", value, "NoExecute");

    t.has_seconds = true;
    t.seconds = secs;
    return t;
}

GP_TEST(covers_empty_key_exists_covers_all)
{
    gp_toleration all = tol("", "Exists", "", "");
    gp_toleration all_ns = tol("", "Exists", "", "NoSchedule");
    gp_toleration w1 = tol("nvidia.com/gpu", "Exists", "", "NoSchedule");
    gp_toleration w2 = tol("spot", "Equal", "true", "NoExecute");
    gp_toleration w3 = tol_s("x", "", 10);

    GP_CHECK(gp_toleration_covers(&all, &w1));
    GP_CHECK(gp_toleration_covers(&all, &w2));
    GP_CHECK(gp_toleration_covers(&all, &w3));
    GP_CHECK(gp_toleration_covers(&all_ns, &w1));
    GP_CHECK(!gp_toleration_covers(&all_ns, &w2)); /* effect NoSchedule only */
}

GP_TEST(covers_empty_key_equal_covers_nothing)
{
    gp_toleration bad = tol("", "Equal", "", "");
    gp_toleration w = tol("", "Exists", "", "");
    gp_toleration w1 = tol("nvidia.com/gpu", "Exists", "", "NoSchedule");

    GP_CHECK(!gp_toleration_covers(&bad, &w1));
    GP_CHECK(!gp_toleration_covers(&bad, &w));
}

GP_TEST(covers_effect)
{
    gp_toleration any = tol("k", "Exists", "", "");
    gp_toleration ns = tol("k", "Exists", "", "NoSchedule");
    gp_toleration ne = tol("k", "Exists", "", "NoExecute");
    gp_toleration want_ns = tol("k", "Exists", "", "NoSchedule");
    gp_toleration want_any = tol("k", "Exists", "", "");

    GP_CHECK(gp_toleration_covers(&any, &want_ns));
    GP_CHECK(gp_toleration_covers(&any, &want_any));
    GP_CHECK(gp_toleration_covers(&ns, &want_ns));
    GP_CHECK(!gp_toleration_covers(&ne, &want_ns));
    GP_CHECK(!gp_toleration_covers(&ns, &want_any)); /* wants every effect, has one */
}

GP_TEST(covers_equal_vs_exists_and_values)
{
    gp_toleration ex = tol("k", "Exists", "", "NoSchedule");
    gp_toleration eq_v = tol("k", "Equal", "v", "NoSchedule");
    gp_toleration eq_w = tol("k", "Equal", "w", "NoSchedule");
    gp_toleration eq_empty = tol("k", "Equal", "", "NoSchedule");
    gp_toleration other = tol("other", "Exists", "", "NoSchedule");

    GP_CHECK(gp_toleration_covers(&ex, &eq_v));  /* Exists matches any value */
    GP_CHECK(gp_toleration_covers(&ex, &ex));
    GP_CHECK(!gp_toleration_covers(&eq_v, &ex)); /* one value does not cover all values */
    GP_CHECK(gp_toleration_covers(&eq_v, &eq_v));
    GP_CHECK(!gp_toleration_covers(&eq_v, &eq_w)); /* value mismatch */
    GP_CHECK(!gp_toleration_covers(&eq_empty, &eq_v));
    GP_CHECK(gp_toleration_covers(&eq_empty, &eq_empty));
    GP_CHECK(!gp_toleration_covers(&other, &ex)); /* key mismatch */
    GP_CHECK(!gp_toleration_covers(&ex, &other));
}

GP_TEST(covers_toleration_seconds)
{
    gp_toleration none = tol("k", "Exists", "", "NoExecute");
    gp_toleration s10 = tol_s("k", "", 10);
    gp_toleration s20 = tol_s("k", "", 20);
    gp_toleration s30 = tol_s("k", "", 30);

    GP_CHECK(gp_toleration_covers(&none, &s20));  /* forever covers 20 s */
    GP_CHECK(!gp_toleration_covers(&s10, &none)); /* 10 s does not cover forever */
    GP_CHECK(!gp_toleration_covers(&s10, &s20));  /* shorter is weaker */
    GP_CHECK(gp_toleration_covers(&s20, &s20));
    GP_CHECK(gp_toleration_covers(&s30, &s20));
    GP_CHECK(gp_toleration_covers(&none, &none));
}

GP_MAIN(GP_CASE(namespace_from_metadata), GP_CASE(namespace_fallback_when_absent_or_empty),
        GP_CASE(owner_controller_wins_over_first), GP_CASE(owner_first_when_no_controller),
        GP_CASE(labels_and_annotations),
        GP_CASE(containers_then_init_containers_with_index_and_flag),
        GP_CASE(sidecar_is_init_container_restart_always),
        GP_CASE(null_container_arrays_are_empty), GP_CASE(requests_and_limits_quantities),
        GP_CASE(empty_and_null_resource_maps), GP_CASE(wrong_type_quantity_names_path),
        GP_CASE(bad_quantity_names_path_and_reason), GP_CASE(wrong_type_structure_names_path),
        GP_CASE(wrong_type_init_containers_names_its_path), GP_CASE(too_many_containers_is_etoobig),
        GP_CASE(many_labels_and_annotations),
        GP_CASE(spec_scalars), GP_CASE(tolerations_decoded_with_defaults),
        GP_CASE(toleration_seconds_int64_exact), GP_CASE(node_affinity_terms),
        GP_CASE(is_gpu_default_policy), GP_CASE(is_gpu_custom_resources),
        GP_CASE(covers_empty_key_exists_covers_all), GP_CASE(covers_empty_key_equal_covers_nothing),
        GP_CASE(covers_effect), GP_CASE(covers_equal_vs_exists_and_values),
        GP_CASE(covers_toleration_seconds))
