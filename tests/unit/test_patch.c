/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of lib/patch.c: RFC 6901 escaping, and the exact RFC 6902 operations
 * gp_patch_build() emits for each change kind: parents created only when absent (with the value
 * nested inside), "add" into existing maps and arrays, "replace" when the member exists, every
 * required term extended, resources replaced without touching the others, integers emitted as
 * JSON integers (an int64 stays exact), "[]" for no change. Where the exact text would be long,
 * the patch is applied (tests/unit/jsonpatch_apply.h) and the result compared with the expected
 * pod instead.
 *
 * JSON is written with single quotes; q() turns it into double quotes. Every test ends with a
 * leak check when built with AddressSanitizer. */
#include "gptest.h"

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "gpupack/arena.h"
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

static cJSON *parse_q(const char *text)
{
    char *s = q(text);
    cJSON *j = cJSON_Parse(s);

    if (j == NULL) {
        printf("  test JSON does not parse: %s\n", s);
        gp_test_failed = 1;
    }
    free(s);
    return j;
}

/* Builds the patch for changes over pod_text; checks the status and, when want is not NULL,
 * the exact patch text (single-quoted). */
static void check_patch(const char *pod_text, const gp_change *changes, size_t n,
                        gp_status want_st, const char *want, int line)
{
    cJSON *pod = parse_q(pod_text);
    char *before = cJSON_PrintUnformatted(pod);
    gp_decision d;
    char *out = (char *)"unset", *w = want ? q(want) : NULL, *after;
    size_t len = 12345;
    gp_status st;

    memset(&d, 0, sizeof(d));
    d.changes = (gp_change *)changes;
    d.nchanges = n;
    st = gp_patch_build(pod, &d, &out, &len);
    if (st != want_st) {
        printf("  %s:%d: status %d, want %d\n", __FILE__, line, st, want_st);
        gp_test_failed = 1;
    }
    if (st == GP_OK && (out == NULL || len != strlen(out))) {
        printf("  %s:%d: len %zu does not match the text\n", __FILE__, line, len);
        gp_test_failed = 1;
    }
    if (st != GP_OK && (out != NULL || len != 0)) {
        printf("  %s:%d: on failure *out must be NULL and *len 0\n", __FILE__, line);
        gp_test_failed = 1;
    }
    if (w != NULL && (out == NULL || strcmp(out, w) != 0)) {
        printf("  %s:%d: patch\n    %s\n  want\n    %s\n", __FILE__, line, out ? out : "(null)",
               w);
        gp_test_failed = 1;
    }
    after = cJSON_PrintUnformatted(pod);
    if (strcmp(before, after) != 0) {
        printf("  %s:%d: gp_patch_build changed its input pod\n", __FILE__, line);
        gp_test_failed = 1;
    }
    if (st == GP_OK)
        cJSON_free(out);
    free(w);
    cJSON_free(before);
    cJSON_free(after);
    cJSON_Delete(pod);
}
#define CHECK_PATCH(pod, ch, n, want) check_patch(pod, ch, n, GP_OK, want, __LINE__)

/* Builds the patch, applies it, and compares the result with want_pod (single-quoted). */
static void check_applied(const char *pod_text, const gp_change *changes, size_t n,
                          const char *want_pod, int line)
{
    cJSON *pod = parse_q(pod_text), *want = parse_q(want_pod);
    gp_decision d;
    char *out = NULL, msg[256] = "";
    size_t len = 0;

    memset(&d, 0, sizeof(d));
    d.changes = (gp_change *)changes;
    d.nchanges = n;
    if (gp_patch_build(pod, &d, &out, &len) != GP_OK) {
        printf("  %s:%d: gp_patch_build failed\n", __FILE__, line);
        gp_test_failed = 1;
    } else if (jp_apply(pod, out, msg, sizeof(msg)) != 0) {
        printf("  %s:%d: patch does not apply: %s\n    %s\n", __FILE__, line, msg, out);
        gp_test_failed = 1;
    } else if (!cJSON_Compare(pod, want, 1)) {
        char *got = cJSON_PrintUnformatted(pod), *exp = cJSON_PrintUnformatted(want);

        printf("  %s:%d: patched pod\n    %s\n  want\n    %s\n  patch\n    %s\n", __FILE__, line,
               got, exp, out);
        gp_test_failed = 1;
        cJSON_free(got);
        cJSON_free(exp);
    }
    cJSON_free(out);
    cJSON_Delete(pod);
    cJSON_Delete(want);
}
#define CHECK_APPLIED(pod, ch, n, want) check_applied(pod, ch, n, want, __LINE__)

static gp_change set_label(const char *key, const char *value)
{
    gp_change c = { .kind = GP_CH_SET_LABEL, .key = key, .value = value };

    return c;
}

static gp_change set_ann(const char *key, const char *value)
{
    gp_change c = { .kind = GP_CH_SET_ANNOTATION, .key = key, .value = value };

    return c;
}

static gp_change add_tol(const gp_toleration *t)
{
    gp_change c = { .kind = GP_CH_ADD_TOLERATION, .tol = t };

    return c;
}

static gp_toleration gpu_tol = { (char *)"nvidia.com/gpu", (char *)"Exists", (char *)"",
                                 (char *)"NoSchedule", false, 0 };

/* --- gp_json_pointer_escape ---------------------------------------------------------------- */

GP_TEST(pointer_escape)
{
    char buf[32] = "";

    GP_CHECK_INT(gp_json_pointer_escape("a/b~c", buf, sizeof(buf)), GP_OK);
    GP_CHECK_STR(buf, "a~1b~0c");
    strcpy(buf, "/x/");
    GP_CHECK_INT(gp_json_pointer_escape("gpupack.io/class", buf, sizeof(buf)), GP_OK);
    GP_CHECK_STR(buf, "/x/gpupack.io~1class"); /* appends */
    buf[0] = '\0';
    GP_CHECK_INT(gp_json_pointer_escape("~1", buf, sizeof(buf)), GP_OK);
    GP_CHECK_STR(buf, "~01"); /* a literal "~1" is not an escape */
    buf[0] = '\0';
    GP_CHECK_INT(gp_json_pointer_escape("", buf, sizeof(buf)), GP_OK);
    GP_CHECK_STR(buf, "");
    buf[0] = '\0';
    GP_CHECK_INT(gp_json_pointer_escape("//~~", buf, sizeof(buf)), GP_OK);
    GP_CHECK_STR(buf, "~1~1~0~0");
}

GP_TEST(pointer_escape_bounds)
{
    char buf[8];

    buf[0] = '\0';
    GP_CHECK_INT(gp_json_pointer_escape("ab", buf, 3), GP_OK); /* exactly fits with the NUL */
    GP_CHECK_STR(buf, "ab");
    buf[0] = '\0';
    GP_CHECK_INT(gp_json_pointer_escape("abc", buf, 3), GP_ETOOBIG);
    buf[0] = '\0';
    GP_CHECK_INT(gp_json_pointer_escape("~", buf, 3), GP_OK);
    GP_CHECK_STR(buf, "~0");
    buf[0] = '\0';
    GP_CHECK_INT(gp_json_pointer_escape("~", buf, 2), GP_ETOOBIG);
    strcpy(buf, "abcdef");
    GP_CHECK_INT(gp_json_pointer_escape("g", buf, 8), GP_OK);
    GP_CHECK_STR(buf, "abcdefg");
    GP_CHECK_INT(gp_json_pointer_escape("h", buf, 8), GP_ETOOBIG);
}

/* --- labels and annotations ---------------------------------------------------------------- */

GP_TEST(no_changes_is_empty_array)
{
    CHECK_PATCH("{'metadata':{}}", NULL, 0, "[]");
    CHECK_PATCH("{}", NULL, 0, "[]");
}

GP_TEST(label_without_map_adds_the_map)
{
    gp_change c = set_label("gpupack.io/class", "inference");

    CHECK_PATCH("{'metadata':{'name':'p'}}", &c, 1,
                "[{'op':'add','path':'/metadata/labels','value':"
                "{'gpupack.io/class':'inference'}}]");
    CHECK_PATCH("{'metadata':{'labels':null}}", &c, 1,
                "[{'op':'add','path':'/metadata/labels','value':"
                "{'gpupack.io/class':'inference'}}]");
    CHECK_PATCH("{'spec':{}}", &c, 1,
                "[{'op':'add','path':'/metadata','value':{'labels':{'gpupack.io/class':"
                "'inference'}}}]");
}

GP_TEST(label_with_map_adds_the_key)
{
    gp_change c = set_label("gpupack.io/class", "inference");

    CHECK_PATCH("{'metadata':{'labels':{'app':'x'}}}", &c, 1,
                "[{'op':'add','path':'/metadata/labels/gpupack.io~1class','value':'inference'}]");
    CHECK_PATCH("{'metadata':{'labels':{}}}", &c, 1,
                "[{'op':'add','path':'/metadata/labels/gpupack.io~1class','value':'inference'}]");
}

GP_TEST(label_existing_key_is_replaced)
{
    gp_change c = set_label("gpupack.io/class", "inference");

    CHECK_PATCH("{'metadata':{'labels':{'gpupack.io/class':'bogus','a':'b'}}}", &c, 1,
                "[{'op':'replace','path':'/metadata/labels/gpupack.io~1class',"
                "'value':'inference'}]");
}

/* A path's tokens escaped per RFC 6901 ('~' and '/'), then per JSON (a quote, a control byte),
 * and a path up to 1,023 bytes long once escaped; one byte more is an internal error. */
GP_TEST(paths_escaped_twice_and_bounded)
{
    gp_change c = set_label("a~b/c~", "v");
    char key[1100];
    size_t room = 1023 - strlen("/metadata/labels/");

    CHECK_PATCH("{'metadata':{'labels':{}}}", &c, 1,
                "[{'op':'add','path':'/metadata/labels/a~0b~1c~0','value':'v'}]");
    c = set_label("we\"i/rd\x01", "v");
    CHECK_PATCH("{'metadata':{'labels':{}}}", &c, 1,
                "[{'op':'add','path':'/metadata/labels/we\\\"i~1rd\\u0001','value':'v'}]");
    c = set_label(key, "v");
    for (int plain = 0; plain < 2; plain++) {
        memset(key, 'k', room);
        key[0] = plain ? 'k' : '\n';
        key[room] = '\0';
        check_patch("{'metadata':{'labels':{}}}", &c, 1, GP_OK, NULL, __LINE__);
        key[room] = 'k';
        key[room + 1] = '\0';
        check_patch("{'metadata':{'labels':{}}}", &c, 1, GP_EINTERNAL, NULL, __LINE__);
    }
    memset(key, '~', room / 2);
    key[room / 2] = '\0';
    check_patch("{'metadata':{'labels':{}}}", &c, 1, GP_OK, NULL, __LINE__);
    key[room / 2] = '~';
    key[room / 2 + 1] = '\0';
    check_patch("{'metadata':{'labels':{}}}", &c, 1, GP_EINTERNAL, NULL, __LINE__);
}

GP_TEST(later_changes_see_created_parents)
{
    gp_change c[] = { set_label("a", "1"), set_ann("gpupack.io/mutated", "x"), set_label("b", "2"),
                      set_ann("c~d/e", "y"), set_label("a", "3") };

    CHECK_PATCH("{}", c, 5,
                "[{'op':'add','path':'/metadata','value':{'labels':{'a':'1'}}},"
                "{'op':'add','path':'/metadata/annotations','value':{'gpupack.io/mutated':'x'}},"
                "{'op':'add','path':'/metadata/labels/b','value':'2'},"
                "{'op':'add','path':'/metadata/annotations/c~0d~1e','value':'y'},"
                "{'op':'replace','path':'/metadata/labels/a','value':'3'}]");
    CHECK_APPLIED("{}", c, 5,
                  "{'metadata':{'labels':{'a':'3','b':'2'},'annotations':{'gpupack.io/mutated':'x',"
                  "'c~d/e':'y'}}}");
}

GP_TEST(wrong_type_parent_is_einternal)
{
    gp_change c = set_label("gpupack.io/class", "inference");
    gp_change t = add_tol(&gpu_tol);

    check_patch("{'metadata':{'labels':'x'}}", &c, 1, GP_EINTERNAL, NULL, __LINE__);
    check_patch("{'metadata':[]}", &c, 1, GP_EINTERNAL, NULL, __LINE__);
    check_patch("{'spec':5}", &t, 1, GP_EINTERNAL, NULL, __LINE__);
}

/* --- tolerations --------------------------------------------------------------------------- */

GP_TEST(toleration_creates_or_appends)
{
    gp_change c = add_tol(&gpu_tol);
    gp_change two[] = { add_tol(&gpu_tol), add_tol(&gpu_tol) };

    CHECK_PATCH("{'spec':{}}", &c, 1,
                "[{'op':'add','path':'/spec/tolerations','value':[{'key':'nvidia.com/gpu',"
                "'operator':'Exists','effect':'NoSchedule'}]}]");
    CHECK_PATCH("{'spec':{'tolerations':[{'operator':'Exists','key':'a'}]}}", &c, 1,
                "[{'op':'add','path':'/spec/tolerations/-','value':{'key':'nvidia.com/gpu',"
                "'operator':'Exists','effect':'NoSchedule'}}]");
    CHECK_PATCH("{'spec':{'tolerations':[]}}", &c, 1,
                "[{'op':'add','path':'/spec/tolerations/-','value':{'key':'nvidia.com/gpu',"
                "'operator':'Exists','effect':'NoSchedule'}}]");
    CHECK_PATCH("{'spec':{}}", two, 2,
                "[{'op':'add','path':'/spec/tolerations','value':[{'key':'nvidia.com/gpu',"
                "'operator':'Exists','effect':'NoSchedule'}]},"
                "{'op':'add','path':'/spec/tolerations/-','value':{'key':'nvidia.com/gpu',"
                "'operator':'Exists','effect':'NoSchedule'}}]");
}

GP_TEST(toleration_fields_and_int64_seconds)
{
    gp_toleration t = { (char *)"k", (char *)"Equal", (char *)"v", (char *)"NoExecute", true,
                        INT64_MAX };
    gp_toleration all = { (char *)"", (char *)"Exists", (char *)"", (char *)"", false, 0 };
    gp_toleration neg = { (char *)"k", (char *)"Exists", (char *)"", (char *)"NoExecute", true,
                          -1 };
    gp_change c[] = { add_tol(&t), add_tol(&all), add_tol(&neg) };

    CHECK_PATCH("{'spec':{'tolerations':[]}}", c, 3,
                "[{'op':'add','path':'/spec/tolerations/-','value':{'key':'k','operator':'Equal',"
                "'value':'v','effect':'NoExecute','tolerationSeconds':9223372036854775807}},"
                "{'op':'add','path':'/spec/tolerations/-','value':{'operator':'Exists'}},"
                "{'op':'add','path':'/spec/tolerations/-','value':{'key':'k','operator':'Exists',"
                "'effect':'NoExecute','tolerationSeconds':-1}}]");
}

/* --- scalars ------------------------------------------------------------------------------- */

GP_TEST(priority_class_and_removals)
{
    gp_change pc = { .kind = GP_CH_SET_PRIORITY_CLASS, .value = "gpu-inference" };
    gp_change rm[] = { { .kind = GP_CH_REMOVE_PRIORITY }, { .kind = GP_CH_REMOVE_PREEMPTION } };
    gp_change all[] = { pc, rm[0], rm[1] };

    CHECK_PATCH("{'spec':{}}", &pc, 1,
                "[{'op':'add','path':'/spec/priorityClassName','value':'gpu-inference'}]");
    CHECK_PATCH("{}", &pc, 1,
                "[{'op':'add','path':'/spec','value':{'priorityClassName':'gpu-inference'}}]");
    CHECK_PATCH("{'spec':{'priorityClassName':''}}", &pc, 1,
                "[{'op':'replace','path':'/spec/priorityClassName','value':'gpu-inference'}]");
    CHECK_PATCH("{'spec':{'priority':10,'preemptionPolicy':'Never'}}", all, 3,
                "[{'op':'add','path':'/spec/priorityClassName','value':'gpu-inference'},"
                "{'op':'remove','path':'/spec/priority'},"
                "{'op':'remove','path':'/spec/preemptionPolicy'}]");
    /* Nothing to remove: no operation. */
    CHECK_PATCH("{'spec':{}}", rm, 2, "[]");
    CHECK_PATCH("{}", rm, 2, "[]");
}

GP_TEST(active_deadline_is_an_integer)
{
    gp_change c = { .kind = GP_CH_SET_ACTIVE_DEADLINE, .seconds = 43200 };
    gp_change big = { .kind = GP_CH_SET_ACTIVE_DEADLINE, .seconds = INT64_MAX };

    CHECK_PATCH("{'spec':{}}", &c, 1,
                "[{'op':'add','path':'/spec/activeDeadlineSeconds','value':43200}]");
    CHECK_PATCH("{'spec':{'activeDeadlineSeconds':5}}", &c, 1,
                "[{'op':'replace','path':'/spec/activeDeadlineSeconds','value':43200}]");
    CHECK_PATCH("{'spec':{}}", &big, 1,
                "[{'op':'add','path':'/spec/activeDeadlineSeconds','value':9223372036854775807}]");
}

/* --- node affinity ------------------------------------------------------------------------- */

static char *h100[] = { (char *)"h100" }, *z1[] = { (char *)"z1" };
static gp_selector_req pool_labels[] = { { (char *)"gpupack.io/pool", (char *)"In", h100, 1 },
                                         { (char *)"zone", (char *)"In", z1, 1 } };
static char *models[] = { (char *)"NVIDIA-H100-80GB-HBM3", (char *)"NVIDIA-A100-SXM4-80GB" };
static char *t4[] = { (char *)"Tesla-T4" };
static gp_selector_req model_reqs[] = {
    { (char *)"nvidia.com/gpu.product", (char *)"In", models, 2 },
    { (char *)"nvidia.com/gpu.product", (char *)"NotIn", t4, 1 }
};

#define REQ_PATH "/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution"
#define IN(k, v) "{'key':'" k "','operator':'In','values':['" v "']}"

GP_TEST(required_without_affinity_creates_it)
{
    gp_change c = { .kind = GP_CH_ADD_REQUIRED, .exprs = pool_labels, .nexprs = 1 };

    CHECK_PATCH("{'spec':{}}", &c, 1,
                "[{'op':'add','path':'/spec/affinity','value':{'nodeAffinity':{"
                "'requiredDuringSchedulingIgnoredDuringExecution':{'nodeSelectorTerms':["
                "{'matchExpressions':[" IN("gpupack.io/pool", "h100") "]}]}}}}]");
    CHECK_PATCH("{'spec':{'affinity':{'nodeAffinity':{}}}}", &c, 1,
                "[{'op':'add','path':'" REQ_PATH "','value':{'nodeSelectorTerms':["
                "{'matchExpressions':[" IN("gpupack.io/pool", "h100") "]}]}}]");
}

GP_TEST(required_added_to_every_term)
{
    gp_change c = { .kind = GP_CH_ADD_REQUIRED, .exprs = pool_labels, .nexprs = 2 };
    const char *pod = "{'spec':{'affinity':{'nodeAffinity':{"
                      "'requiredDuringSchedulingIgnoredDuringExecution':{'nodeSelectorTerms':["
                      "{'matchExpressions':[" IN("gpupack.io/pool", "h100") "]},"
                      "{'matchExpressions':[" IN("a", "b") "]},"
                      "{'matchFields':[" IN("metadata.name", "n1") "]}]}}}}}";

    CHECK_PATCH(pod, &c, 1,
                "[{'op':'add','path':'" REQ_PATH "/nodeSelectorTerms/0/matchExpressions/-',"
                "'value':" IN("zone", "z1") "},"
                "{'op':'add','path':'" REQ_PATH "/nodeSelectorTerms/1/matchExpressions/-',"
                "'value':" IN("gpupack.io/pool", "h100") "},"
                "{'op':'add','path':'" REQ_PATH "/nodeSelectorTerms/1/matchExpressions/-',"
                "'value':" IN("zone", "z1") "},"
                "{'op':'add','path':'" REQ_PATH "/nodeSelectorTerms/2/matchExpressions',"
                "'value':[" IN("gpupack.io/pool", "h100") "]},"
                "{'op':'add','path':'" REQ_PATH "/nodeSelectorTerms/2/matchExpressions/-',"
                "'value':" IN("zone", "z1") "}]");
    CHECK_APPLIED(pod, &c, 1,
                  "{'spec':{'affinity':{'nodeAffinity':{"
                  "'requiredDuringSchedulingIgnoredDuringExecution':{'nodeSelectorTerms':["
                  "{'matchExpressions':[" IN("gpupack.io/pool", "h100") "," IN("zone", "z1") "]},"
                  "{'matchExpressions':[" IN("a", "b") "," IN("gpupack.io/pool", "h100") ","
                  IN("zone", "z1") "]},"
                  "{'matchFields':[" IN("metadata.name", "n1") "],'matchExpressions':["
                  IN("gpupack.io/pool", "h100") "," IN("zone", "z1") "]}]}}}}}");
}

#define MODELS_IN                                                                                  \
    "{'key':'nvidia.com/gpu.product','operator':'In','values':['NVIDIA-H100-80GB-HBM3',"           \
    "'NVIDIA-A100-SXM4-80GB']}"
#define T4_OUT "{'key':'nvidia.com/gpu.product','operator':'NotIn','values':['Tesla-T4']}"

/* Two required changes in one patch (the pool, then the GPU models): the second sees the term
 * the first created; a term that already has an expression (its values in another order) does
 * not get it twice. */
GP_TEST(required_changes_compose)
{
    gp_change c[2] = { { .kind = GP_CH_ADD_REQUIRED, .exprs = pool_labels, .nexprs = 1 },
                       { .kind = GP_CH_ADD_REQUIRED, .exprs = model_reqs, .nexprs = 2 } };
    const char *pod = "{'spec':{'affinity':{'nodeAffinity':{"
                      "'requiredDuringSchedulingIgnoredDuringExecution':{'nodeSelectorTerms':["
                      "{'matchExpressions':[{'key':'nvidia.com/gpu.product','operator':'In',"
                      "'values':['NVIDIA-A100-SXM4-80GB','NVIDIA-H100-80GB-HBM3']}]}]}}}}}";

    CHECK_APPLIED("{'spec':{}}", c, 2,
                  "{'spec':{'affinity':{'nodeAffinity':{"
                  "'requiredDuringSchedulingIgnoredDuringExecution':{'nodeSelectorTerms':["
                  "{'matchExpressions':[" IN("gpupack.io/pool", "h100") "," MODELS_IN "," T4_OUT
                                                                        "]}]}}}}}");
    CHECK_PATCH(pod, &c[1], 1,
                "[{'op':'add','path':'" REQ_PATH "/nodeSelectorTerms/0/matchExpressions/-',"
                "'value':" T4_OUT "}]");
}

/* The builder writes into a copy-on-write view of the pod: what one change appended into an
 * array or map the pod already had is seen by the next, and the pod is left as it was. */
GP_TEST(later_changes_see_what_earlier_ones_added_to_existing_parents)
{
    gp_change req[] = { { .kind = GP_CH_ADD_REQUIRED, .exprs = pool_labels, .nexprs = 2 },
                        { .kind = GP_CH_ADD_REQUIRED, .exprs = pool_labels, .nexprs = 2 } };
    gp_change mix[] = { add_tol(&gpu_tol),   set_label("a", "1"),
                        add_tol(&gpu_tol),   { .kind = GP_CH_REMOVE_PRIORITY },
                        set_label("a", "2"), { .kind = GP_CH_REMOVE_PRIORITY } };
    const char *terms = "{'spec':{'affinity':{'nodeAffinity':{"
                        "'requiredDuringSchedulingIgnoredDuringExecution':{'nodeSelectorTerms':["
                        "{'matchExpressions':[" IN("a", "b") "]}]}}}}}";
    const char *pod = "{'metadata':{'labels':{'x':'y'}},'spec':{'priority':0,"
                      "'tolerations':[{'operator':'Exists'}]}}";

    CHECK_PATCH(terms, req, 2,
                "[{'op':'add','path':'" REQ_PATH "/nodeSelectorTerms/0/matchExpressions/-',"
                "'value':" IN("gpupack.io/pool", "h100") "},"
                "{'op':'add','path':'" REQ_PATH "/nodeSelectorTerms/0/matchExpressions/-',"
                "'value':" IN("zone", "z1") "}]");
    CHECK_PATCH(pod, mix, 6,
                "[{'op':'add','path':'/spec/tolerations/-','value':{'key':'nvidia.com/gpu',"
                "'operator':'Exists','effect':'NoSchedule'}},"
                "{'op':'add','path':'/metadata/labels/a','value':'1'},"
                "{'op':'add','path':'/spec/tolerations/-','value':{'key':'nvidia.com/gpu',"
                "'operator':'Exists','effect':'NoSchedule'}},"
                "{'op':'remove','path':'/spec/priority'},"
                "{'op':'replace','path':'/metadata/labels/a','value':'2'}]");
    CHECK_APPLIED(pod, mix, 6,
                  "{'metadata':{'labels':{'x':'y','a':'2'}},'spec':{'tolerations':["
                  "{'operator':'Exists'},{'key':'nvidia.com/gpu','operator':'Exists',"
                  "'effect':'NoSchedule'},{'key':'nvidia.com/gpu','operator':'Exists',"
                  "'effect':'NoSchedule'}]}}");
}

GP_TEST(preferred_creates_or_appends)
{
    gp_change c = { .kind = GP_CH_ADD_PREFERRED, .exprs = pool_labels, .nexprs = 2, .weight = 80 };

    CHECK_PATCH("{'spec':{'affinity':{}}}", &c, 1,
                "[{'op':'add','path':'/spec/affinity/nodeAffinity','value':{"
                "'preferredDuringSchedulingIgnoredDuringExecution':[{'preference':{"
                "'matchExpressions':[" IN("gpupack.io/pool", "h100") "," IN("zone", "z1") "]},"
                "'weight':80}]}}]");
    CHECK_PATCH("{'spec':{'affinity':{'nodeAffinity':{"
                "'preferredDuringSchedulingIgnoredDuringExecution':[{'weight':1,'preference':{}}]"
                "}}}}",
                &c, 1,
                "[{'op':'add','path':'/spec/affinity/nodeAffinity/"
                "preferredDuringSchedulingIgnoredDuringExecution/-','value':{'preference':{"
                "'matchExpressions':[" IN("gpupack.io/pool", "h100") "," IN("zone", "z1") "]},"
                "'weight':80}}]");
}

/* --- resources ----------------------------------------------------------------------------- */

GP_TEST(resource_replace_keeps_other_resources)
{
    gp_container k = { .name = "main", .init = false, .index = 1 };
    gp_change c = { .kind = GP_CH_REPLACE_RESOURCE, .container = &k, .key = "nvidia.com/gpu",
                    .value = "nvidia.com/mig-1g.10gb" };
    const char *pod = "{'spec':{'containers':[{'name':'side'},{'name':'main','resources':{"
                      "'limits':{'cpu':'1','nvidia.com/gpu':'1'},"
                      "'requests':{'nvidia.com/gpu':'1','memory':'1Gi'}}}]}}";

    CHECK_PATCH(pod, &c, 1,
                "[{'op':'remove','path':'/spec/containers/1/resources/limits/nvidia.com~1gpu'},"
                "{'op':'add','path':'/spec/containers/1/resources/limits/"
                "nvidia.com~1mig-1g.10gb','value':'1'},"
                "{'op':'remove','path':'/spec/containers/1/resources/requests/nvidia.com~1gpu'},"
                "{'op':'add','path':'/spec/containers/1/resources/requests/"
                "nvidia.com~1mig-1g.10gb','value':'1'}]");
    CHECK_APPLIED(pod, &c, 1,
                  "{'spec':{'containers':[{'name':'side'},{'name':'main','resources':{"
                  "'limits':{'cpu':'1','nvidia.com/mig-1g.10gb':'1'},"
                  "'requests':{'memory':'1Gi','nvidia.com/mig-1g.10gb':'1'}}}]}}");
}

GP_TEST(resource_replace_init_container_limits_only)
{
    gp_container k = { .name = "init", .init = true, .index = 0 };
    gp_change c = { .kind = GP_CH_REPLACE_RESOURCE, .container = &k, .key = "nvidia.com/gpu",
                    .value = "nvidia.com/mig-2g.20gb" };

    CHECK_PATCH("{'spec':{'containers':[{'name':'main'}],'initContainers':[{'name':'init',"
                "'resources':{'limits':{'nvidia.com/gpu':'1'}}}]}}",
                &c, 1,
                "[{'op':'remove','path':'/spec/initContainers/0/resources/limits/"
                "nvidia.com~1gpu'},"
                "{'op':'add','path':'/spec/initContainers/0/resources/limits/"
                "nvidia.com~1mig-2g.20gb','value':'1'}]");
}

/* Regression (was a bug): lib/patch.c replace_resource() silently skips a change whose container index does not
 * exist in the pod (get() returns NULL for both limits and requests, so nothing is emitted) and
 * gp_patch_build() returns GP_OK with "[]", while patch.h promises "GP_EINTERNAL when a change
 * does not fit the pod (e.g. a container index out of range)". A decision that says "rewritten"
 * then ships a patch that rewrites nothing. Input: pod {"spec":{"containers":[{"name":"main",
 * "resources":{"limits":{"nvidia.com/gpu":"1"}}}]}} and a REPLACE_RESOURCE change for container
 * index 3. */
GP_TEST(resource_replace_index_out_of_range_is_einternal)
{
    gp_container k = { .name = "main", .init = false, .index = 3 };
    gp_change c = { .kind = GP_CH_REPLACE_RESOURCE, .container = &k, .key = "nvidia.com/gpu",
                    .value = "nvidia.com/mig-1g.10gb" };

    check_patch("{'spec':{'containers':[{'name':'main','resources':{'limits':"
                "{'nvidia.com/gpu':'1'}}}]}}",
                &c, 1, GP_EINTERNAL, NULL, __LINE__);
}

/* --- end to end ---------------------------------------------------------------------------- */

GP_TEST(patch_for_a_real_decision)
{
    gp_policy *pol = NULL;
    char *errors = NULL, *out = NULL;
    cJSON *pod = parse_q("{'metadata':{'name':'p','ownerReferences':[{'kind':'ReplicaSet',"
                         "'controller':true}],'annotations':{'gpupack.io/gpu-memory':'5Gi'}},"
                         "'spec':{'priority':0,'containers':[{'name':'main','resources':{"
                         "'limits':{'nvidia.com/gpu':'1'}}}]}}");
    char *want = q("[{'op':'add','path':'/spec/tolerations','value':[{'key':'nvidia.com/gpu',"
                   "'operator':'Exists','effect':'NoSchedule'}]},"
                   "{'op':'add','path':'/metadata/labels','value':{'gpupack.io/class':"
                   "'inference'}},"
                   "{'op':'add','path':'/spec/priorityClassName','value':'gpu-inference'},"
                   "{'op':'remove','path':'/spec/priority'},"
                   "{'op':'remove','path':'/spec/containers/0/resources/limits/nvidia.com~1gpu'},"
                   "{'op':'add','path':'/spec/containers/0/resources/limits/"
                   "nvidia.com~1mig-1g.10gb','value':'1'},"
                   "{'op':'add','path':'/metadata/annotations/gpupack.io~1original-resources',"
                   "'value':'{\\'containers\\':{\\'main\\':{\\'limits\\':{\\'nvidia.com/gpu\\':"
                   "\\'1\\'}}}}'},"
                   "{'op':'add','path':'/metadata/annotations/gpupack.io~1mutated','value':"
                   "'toleration nvidia.com/gpu:NoSchedule (GPU pod); class inference (rule "
                   "services: owner ReplicaSet); priorityClassName gpu-inference (class "
                   "inference); container main: nvidia.com/gpu 1 -> nvidia.com/mig-1g.10gb "
                   "(needs 5Gi)'}]");
    gp_arena a;
    gp_pod view;
    gp_decision d;
    size_t len = 0;

    gp_arena_init(&a, 0);
    GP_CHECK_INT(gp_policy_default(&pol, &errors), GP_OK);
    if (pol != NULL) /* no node view here: the policy's list stands for what nodes offer */
        pol->mig_profiles_authoritative = true;
    GP_CHECK_INT(gp_pod_from_json(pod, "default", &a, &view, NULL), GP_OK);
    GP_CHECK_INT(gp_mutate(&view, pol, NULL, NULL, &a, &d), GP_OK);
    GP_CHECK_INT(gp_patch_build(pod, &d, &out, &len), GP_OK);
    GP_CHECK_STR(out, want);
    cJSON_free(out);
    free(want);
    free(errors);
    gp_arena_free(&a);
    cJSON_Delete(pod);
    gp_policy_unref(pol);
}

GP_MAIN(GP_CASE(pointer_escape), GP_CASE(pointer_escape_bounds), GP_CASE(no_changes_is_empty_array),
        GP_CASE(label_without_map_adds_the_map), GP_CASE(label_with_map_adds_the_key),
        GP_CASE(label_existing_key_is_replaced), GP_CASE(paths_escaped_twice_and_bounded),
        GP_CASE(later_changes_see_created_parents),
        GP_CASE(wrong_type_parent_is_einternal), GP_CASE(toleration_creates_or_appends),
        GP_CASE(toleration_fields_and_int64_seconds), GP_CASE(priority_class_and_removals),
        GP_CASE(active_deadline_is_an_integer), GP_CASE(required_without_affinity_creates_it),
        GP_CASE(required_added_to_every_term), GP_CASE(required_changes_compose),
        GP_CASE(later_changes_see_what_earlier_ones_added_to_existing_parents),
        GP_CASE(preferred_creates_or_appends), GP_CASE(resource_replace_keeps_other_resources),
        GP_CASE(resource_replace_init_container_limits_only),
        GP_CASE(resource_replace_index_out_of_range_is_einternal),
        GP_CASE(patch_for_a_real_decision))
