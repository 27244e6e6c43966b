/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of lib/extargs.c: decoding ExtenderArgs (real kube-scheduler v1.32 captures and
 * constructed fixtures from tests/fixtures/, relative to the repo root) and encoding
 * ExtenderFilterResult and HostPriorityList, checked by parsing the output with cJSON. */
#include "gptest.h"

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "gpupack/arena.h"
#include "gpupack/extargs.h"
#include "gpupack/fileio.h"

#define FIX "tests/fixtures/"
#define CAP FIX "kube-v1.32-captured/"

/* One decoded request: body, tree, arena and args, freed by req_done(). */
typedef struct {
    char *body;
    size_t len;
    gp_arena a;
    cJSON *root;
    gp_extargs args;
    gp_err err;
    gp_status st;
} req;

static void req_decode(req *r)
{
    memset(&r->err, 0, sizeof(r->err));
    r->root = NULL;
    gp_arena_init(&r->a, 0);
    r->st = gp_extargs_decode(r->body, r->len, &r->a, &r->root, &r->args, &r->err);
}

static void req_file(req *r, const char *path)
{
    gp_err err = { "" };

    memset(r, 0, sizeof(*r));
    if (gp_file_read(path, GP_EXTARGS_MAX_BODY, &r->body, &r->len, &err) != GP_OK) {
        printf("  cannot read %s: %s\n", path, err.msg);
        gp_test_failed = 1;
        r->body = strdup("");
        r->len = 0;
    }
    req_decode(r);
}

static void req_text(req *r, const char *text)
{
    memset(r, 0, sizeof(*r));
    r->body = strdup(text);
    r->len = strlen(text);
    req_decode(r);
}

static void req_done(req *r)
{
    cJSON_Delete(r->root);
    gp_arena_free(&r->a);
    free(r->body);
}

static const char *meta_name(const cJSON *obj)
{
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(obj, "metadata"), "name");

    return cJSON_IsString(n) ? n->valuestring : NULL;
}

static cJSON *parse_out(char *out, size_t len)
{
    cJSON *j = out ? cJSON_ParseWithLengthOpts(out, len + 1, NULL, 1) : NULL;

    if (j == NULL) {
        printf("  output does not parse: %s\n", out ? out : "(null)");
        gp_test_failed = 1;
    }
    GP_CHECK(out == NULL || strlen(out) == len);
    free(out);
    return j;
}

static const cJSON *get(const cJSON *o, const char *k)
{
    return cJSON_GetObjectItemCaseSensitive(o, k);
}

static const char *get_str(const cJSON *o, const char *k)
{
    const cJSON *v = get(o, k);

    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* ---- decoding the fixtures ---- */

GP_TEST(decode_captured_nodecache_filter)
{
    req r;

    req_file(&r, CAP "extenderargs-nodecache-filter-gpu.json");
    GP_CHECK_INT(r.st, GP_OK);
    GP_CHECK(!r.args.full_nodes);
    GP_CHECK_INT(r.args.n, 2);
    if (r.args.n == 2) {
        GP_CHECK_STR(r.args.names[0], "gpu-node-2");
        GP_CHECK_STR(r.args.names[1], "gpu-node-1");
    }
    GP_CHECK(r.args.nodes == NULL);
    GP_CHECK(cJSON_IsObject(r.args.pod));
    GP_CHECK_STR(meta_name(r.args.pod), "g3");
    GP_CHECK_STR(get_str(get(r.args.pod, "metadata"), "uid"),
                 "50f166cd-601b-45da-9b67-3f02a3a10ccc");
    req_done(&r);
}

GP_TEST(decode_captured_nodecache_prioritize)
{
    req r;

    req_file(&r, CAP "extenderargs-nodecache-prioritize-gpu.json");
    GP_CHECK_INT(r.st, GP_OK);
    GP_CHECK(!r.args.full_nodes);
    GP_CHECK(r.args.n >= 1);
    GP_CHECK(cJSON_IsObject(r.args.pod));
    req_done(&r);
}

GP_TEST(decode_captured_fullnodes_prioritize)
{
    req r;

    req_file(&r, CAP "extenderargs-fullnodes-prioritize-gpu.json");
    GP_CHECK_INT(r.st, GP_OK);
    GP_CHECK(r.args.full_nodes);
    GP_CHECK_INT(r.args.n, 2);
    GP_CHECK(r.args.nodes != NULL);
    if (r.args.n == 2 && r.args.nodes != NULL) {
        GP_CHECK_STR(r.args.names[0], "gpu-node-2");
        GP_CHECK_STR(r.args.names[1], "gpu-node-1");
        for (size_t i = 0; i < 2; i++) {
            GP_CHECK(cJSON_IsObject(r.args.nodes[i]));
            GP_CHECK_STR(meta_name(r.args.nodes[i]), r.args.names[i]);
            GP_CHECK(cJSON_IsObject(get(get(r.args.nodes[i], "status"), "allocatable")));
        }
    }
    GP_CHECK_STR(meta_name(r.args.pod), "g3");
    req_done(&r);
}

GP_TEST(decode_constructed_nodecache)
{
    req r;

    req_file(&r, FIX "extender-v1-ExtenderArgs-nodecache-gpu.constructed.json");
    GP_CHECK_INT(r.st, GP_OK);
    GP_CHECK(!r.args.full_nodes);
    GP_CHECK_INT(r.args.n, 2);
    if (r.args.n == 2) {
        GP_CHECK_STR(r.args.names[0], "gpu-node-1");
        GP_CHECK_STR(r.args.names[1], "gpu-node-2");
    }
    GP_CHECK_STR(meta_name(r.args.pod), "cuda-vectoradd");
    req_done(&r);
}

GP_TEST(decode_constructed_fullnodes)
{
    req r;

    req_file(&r, FIX "extender-v1-ExtenderArgs-fullnodes-gpu.constructed.json");
    GP_CHECK_INT(r.st, GP_OK);
    GP_CHECK(r.args.full_nodes);
    GP_CHECK_INT(r.args.n, 2);
    if (r.args.n == 2 && r.args.nodes != NULL) {
        GP_CHECK_STR(r.args.names[0], "gpu-node-1");
        GP_CHECK_STR(r.args.names[1], "gpu-node-2");
        GP_CHECK_STR(meta_name(r.args.nodes[0]), "gpu-node-1");
        GP_CHECK_STR(meta_name(r.args.nodes[1]), "gpu-node-2");
        GP_CHECK_STR(get_str(get(get(r.args.nodes[0], "metadata"), "labels"),
                             "nvidia.com/gpu.product"),
                     "NVIDIA-A100-SXM4-40GB");
    }
    GP_CHECK_STR(meta_name(r.args.pod), "cuda-vectoradd");
    req_done(&r);
}

GP_TEST(decode_inline_forms)
{
    req r;

    /* An empty NodeNames list is fine. */
    req_text(&r, "{\"Pod\":{},\"NodeNames\":[]}");
    GP_CHECK_INT(r.st, GP_OK);
    GP_CHECK_INT(r.args.n, 0);
    GP_CHECK(!r.args.full_nodes);
    req_done(&r);

    /* Both forms (upstream's round-trip test): full Nodes win when there are any, in either
     * order; NodeNames when the Nodes list is empty. */
    req_text(&r, "{\"Pod\":{},\"Nodes\":{\"items\":[{\"metadata\":{\"name\":\"full\"}}]},"
                 "\"NodeNames\":[\"n1\",\"n2\"]}");
    GP_CHECK_INT(r.st, GP_OK);
    GP_CHECK(r.args.full_nodes);
    GP_CHECK_INT(r.args.n, 1);
    if (r.args.n == 1)
        GP_CHECK_STR(r.args.names[0], "full");
    req_done(&r);
    req_text(&r, "{\"Pod\":{},\"NodeNames\":[\"n1\"],"
                 "\"Nodes\":{\"items\":[{\"metadata\":{\"name\":\"full\"}}]}}");
    GP_CHECK_INT(r.st, GP_OK);
    GP_CHECK(r.args.full_nodes);
    req_done(&r);
    req_text(&r, "{\"Pod\":{},\"Nodes\":{\"items\":[]},\"NodeNames\":[\"n1\"]}");
    GP_CHECK_INT(r.st, GP_OK);
    GP_CHECK(!r.args.full_nodes);
    GP_CHECK_INT(r.args.n, 1);
    req_done(&r);

    /* Only the top-level NodeNames lists nodes; one inside the Pod is the Pod's own. */
    req_text(&r, "{\"Pod\":{\"NodeNames\":[\"x\"]},\"NodeNames\":[\"a\",\"b\\u0063\"]}");
    GP_CHECK_INT(r.st, GP_OK);
    GP_CHECK_INT(r.args.n, 2);
    if (r.args.n == 2) {
        GP_CHECK_STR(r.args.names[0], "a");
        GP_CHECK_STR(r.args.names[1], "bc");
    }
    GP_CHECK(cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(r.root, "Pod"), "NodeNames")));
    req_done(&r);

    req_text(&r, "{\"Pod\":{},\"Nodes\":{\"items\":[]},\"NodeNames\":null}");
    GP_CHECK_INT(r.st, GP_OK);
    GP_CHECK_INT(r.args.n, 0);
    GP_CHECK(r.args.full_nodes);
    req_done(&r);

    req_text(&r, "{\"Pod\":{\"metadata\":{\"name\":\"p\"}},\"Nodes\":{\"items\":["
                 "{\"metadata\":{\"name\":\"a\"}},{\"metadata\":{\"name\":\"b\"}}]}}");
    GP_CHECK_INT(r.st, GP_OK);
    GP_CHECK(r.args.full_nodes);
    GP_CHECK_INT(r.args.n, 2);
    if (r.args.n == 2) {
        GP_CHECK_STR(r.args.names[0], "a");
        GP_CHECK_STR(r.args.names[1], "b");
    }
    req_done(&r);
}

/* ---- decoding errors ---- */

static void expect_einval(const char *body, size_t len, const char *needle)
{
    req r;

    memset(&r, 0, sizeof(r));
    r.body = malloc(len + 1);
    memcpy(r.body, body, len);
    r.body[len] = '\0';
    r.len = len;
    req_decode(&r);
    if (r.st != GP_EINVAL || strstr(r.err.msg, needle) == NULL) {
        printf("  body %.60s: status %d, message \"%s\", want GP_EINVAL with \"%s\"\n", body,
               (int)r.st, r.err.msg, needle);
        gp_test_failed = 1;
    }
    req_done(&r);
}

#define EXPECT_EINVAL(lit, needle) expect_einval(lit, sizeof(lit) - 1, needle)

GP_TEST(decode_errors)
{
    EXPECT_EINVAL("", "JSON");
    EXPECT_EINVAL("not json", "JSON");
    EXPECT_EINVAL("{\"Pod\":{},\"NodeNames\":[\"a\"]", "JSON");
    EXPECT_EINVAL("{\"Pod\":{},\"NodeNames\":[\"a\"]} trailing", "JSON");
    EXPECT_EINVAL("[]", "Pod");
    EXPECT_EINVAL("\"Pod\"", "Pod");
    EXPECT_EINVAL("{\"NodeNames\":[\"a\"]}", "Pod");
    EXPECT_EINVAL("{\"Pod\":null,\"NodeNames\":[\"a\"]}", "Pod");
    EXPECT_EINVAL("{\"Pod\":\"x\",\"NodeNames\":[\"a\"]}", "Pod");
    EXPECT_EINVAL("{\"Pod\":{}}", "neither");
    EXPECT_EINVAL("{\"Pod\":{},\"Nodes\":null,\"NodeNames\":null}", "neither");
    EXPECT_EINVAL("{\"Pod\":{},\"NodeNames\":\"a\"}", "neither");
    EXPECT_EINVAL("{\"Pod\":{},\"Nodes\":{\"items\":{}}}", "neither");
    EXPECT_EINVAL("{\"Pod\":{},\"NodeNames\":[\"a\",3]}", "NodeNames[1]");
    EXPECT_EINVAL("{\"Pod\":{},\"NodeNames\":[null]}", "NodeNames[0]");
    EXPECT_EINVAL("{\"Pod\":{},\"NodeNames\":[\"\"]}", "NodeNames[0]");
    EXPECT_EINVAL("{\"Pod\":{},\"NodeNames\":[[\"a\"]]}", "NodeNames[0]");
    EXPECT_EINVAL("{\"Pod\":{},\"NodeNames\":[\"a\",{\"b\":\"c\"},3]}", "NodeNames[1]");
    EXPECT_EINVAL("{\"Pod\":{},\"NodeNames\":[\"a\",true,\"\"]}", "NodeNames[1]");
    EXPECT_EINVAL("{\"Pod\":{},\"NodeNames\":[\"a\"],\"NodeNames\":[\"b\"]}",
                  "duplicate key \"NodeNames\"");
    EXPECT_EINVAL("{\"Pod\":{},\"NodeNames\":{\"a\":\"b\"}}", "neither");
    /* What NodeNames holds that is not a name is still read: its duplicate keys are found. */
    EXPECT_EINVAL("{\"Pod\":{},\"Nodes\":{\"items\":[]},\"NodeNames\":{\"a\":1,\"a\":2}}",
                  "duplicate key \"a\"");
    EXPECT_EINVAL("{\"Pod\":{},\"NodeNames\":[{\"a\":1,\"a\":2}]}", "duplicate key \"a\"");
    EXPECT_EINVAL("{\"Pod\":{},\"NodeNames\":[\"x\",{\"b\":[{\"c\":1,\"c\":1}]},\"y\"]}",
                  "duplicate key \"c\"");
    EXPECT_EINVAL("{\"Pod\":{},\"Nodes\":{\"items\":[{\"metadata\":{\"name\":\"a\"}},"
                  "{\"metadata\":{}}]}}",
                  "Nodes.items[1]");
    EXPECT_EINVAL("{\"Pod\":{},\"Nodes\":{\"items\":[{\"metadata\":{\"name\":7}}]}}",
                  "Nodes.items[0]");
    EXPECT_EINVAL("{\"Pod\":{},\"Nodes\":{\"items\":[\"a\"]}}", "Nodes.items[0]");
    /* Invalid UTF-8: a lone continuation byte, an overlong encoding, a truncated sequence. */
    EXPECT_EINVAL("{\"Pod\":{},\"NodeNames\":[\"a\x80\"]}", "UTF-8");
    EXPECT_EINVAL("{\"Pod\":{},\"NodeNames\":[\"\xc0\xaf\"]}", "UTF-8");
    EXPECT_EINVAL("{\"Pod\":{},\"NodeNames\":[\"\xe2\x82\"]}", "UTF-8");
    /* What Go reads differently from a C string or a first-wins lookup: refused, also inside
     * the parts of a full Node that are not kept. */
    EXPECT_EINVAL("{\"Pod\":{},\"NodeNames\":[\"a\\u0000b\"]}", "\\u0000");
    EXPECT_EINVAL("{\"Pod\":{},\"Nodes\":{\"items\":[{\"metadata\":{\"name\":\"a\"},"
                  "\"status\":{\"images\":[{\"names\":[\"x\\u0000\"]}]}}]}}", "\\u0000");
    EXPECT_EINVAL("{\"Pod\":{},\"Pod\":{},\"NodeNames\":[]}", "duplicate key \"Pod\"");
    EXPECT_EINVAL("{\"Pod\":{},\"Nodes\":{\"items\":[{\"metadata\":{\"name\":\"a\","
                  "\"name\":\"b\"}}]}}", "duplicate key \"name\"");
    EXPECT_EINVAL("{\"Pod\":{},\"Nodes\":{\"items\":[{\"metadata\":{\"name\":\"a\"},"
                  "\"status\":{\"allocatable\":{\"cpu\":\"1\",\"cpu\":\"2\"}}}]}}",
                  "duplicate key \"cpu\"");
    EXPECT_EINVAL("{\"Pod\":{},\"NodeNames\":[]} {}", "JSON");
    EXPECT_EINVAL("{\"Pod\":{},\"NodeNames\":[],}", "JSON");
    EXPECT_EINVAL("{\"Pod\":{},/* c */\"NodeNames\":[]}", "JSON");
    EXPECT_EINVAL("{\"Pod\":{},\"NodeNames\":[\"a\"]}\0", "not valid");
}

/* Nesting: 1,000 levels are read (as cJSON would), 1,001 are refused, also in a pruned part. */
static char *nested(const char *head, int levels, const char *tail)
{
    size_t hl = strlen(head), tl = strlen(tail);
    char *b = malloc(hl + 2 * (size_t)levels + tl + 1);
    size_t n = 0;

    memcpy(b, head, hl);
    n = hl;
    for (int i = 0; i < levels; i++)
        b[n++] = '[';
    for (int i = 0; i < levels; i++)
        b[n++] = ']';
    memcpy(b + n, tail, tl + 1);
    return b;
}

GP_TEST(decode_depth_limit)
{
    static const char *const heads[] = {
        "{\"Pod\":{\"x\":", /* kept */
        "{\"Pod\":{},\"Nodes\":{\"items\":[{\"metadata\":{\"name\":\"a\"},\"skip\":", /* pruned */
    };
    static const char *const tails[] = { "},\"NodeNames\":[]}", "}]}}" };

    for (int h = 0; h < 2; h++) {
        int base = h == 0 ? 2 : 4; /* the containers the head itself opens */
        char *ok = nested(heads[h], GP_EXTARGS_MAX_DEPTH - base - 1, tails[h]);
        char *deep = nested(heads[h], GP_EXTARGS_MAX_DEPTH - base + 1, tails[h]);
        req r;

        req_text(&r, ok);
        GP_CHECK_INT(r.st, GP_OK);
        req_done(&r);
        expect_einval(deep, strlen(deep), "nested too deeply");
        free(ok);
        free(deep);
    }
}

/* Full Nodes: the tree keeps what scoring reads and drops the rest; spans cover each object. */
GP_TEST(decode_full_nodes_pruned)
{
    static const char body[] =
        "{\"Pod\":{\"spec\":{\"containers\":[{\"name\":\"c\"}]}},\"Nodes\":{\"metadata\":{\"rv\":\"1\"},"
        "\"items\":[ {\"metadata\":{\"name\":\"n1\",\"labels\":{\"a\":\"b\"},\"uid\":\"u\","
        "\"managedFields\":[{\"f\":{}}]},\"spec\":{\"unschedulable\":true,\"taints\":[]},"
        "\"status\":{\"allocatable\":{\"nvidia.com/gpu\":\"8\",\"cpu\":64},\"conditions\":[{}],"
        "\"images\":[{\"names\":[\"i\"],\"sizeBytes\":1e3}]},\"extra\":[[[]]]} ,\n"
        "{ \"metadata\" : { \"name\" : \"n\\u00e9\\\"2\" } } ]},\"Other\":{\"kept\":[1,2.5,null,false]}}";
    req r;
    const cJSON *n1, *meta;

    req_text(&r, body);
    GP_CHECK_INT(r.st, GP_OK);
    GP_CHECK_INT(r.args.n, 2);
    if (r.st != GP_OK || r.args.n != 2) {
        req_done(&r);
        return;
    }
    n1 = r.args.nodes[0];
    meta = get(n1, "metadata");
    GP_CHECK_STR(get_str(meta, "name"), "n1");
    GP_CHECK_STR(get_str(get(meta, "labels"), "a"), "b");
    GP_CHECK(get(meta, "uid") == NULL && get(meta, "managedFields") == NULL);
    GP_CHECK(cJSON_IsTrue(get(get(n1, "spec"), "unschedulable")));
    GP_CHECK(get(get(n1, "spec"), "taints") == NULL);
    GP_CHECK_STR(get_str(get(get(n1, "status"), "allocatable"), "nvidia.com/gpu"), "8");
    GP_CHECK(get(get(get(n1, "status"), "allocatable"), "cpu")->valuedouble == 64);
    GP_CHECK(get(get(n1, "status"), "conditions") == NULL);
    GP_CHECK(get(get(n1, "status"), "images") == NULL && get(n1, "extra") == NULL);
    GP_CHECK_STR(r.args.names[1], "n\xc3\xa9\"2");
    /* Everything outside Nodes is kept whole. */
    GP_CHECK_STR(get_str(cJSON_GetArrayItem(get(get(r.args.pod, "spec"), "containers"), 0), "name"),
                 "c");
    GP_CHECK_INT(cJSON_GetArraySize(get(get(r.root, "Other"), "kept")), 4);
    /* The spans are the objects' own bytes. */
    GP_CHECK(r.args.body == r.body);
    GP_CHECK(strncmp(r.body + r.args.node_off[0], "{\"metadata\":{\"name\":\"n1\"", 24) == 0);
    GP_CHECK(strncmp(r.body + r.args.node_off[0] + r.args.node_len[0] - 15, "\"extra\":[[[]]]}", 15) == 0);
    GP_CHECK(r.body[r.args.node_off[0] + r.args.node_len[0] - 1] == '}');
    GP_CHECK(r.body[r.args.node_off[0] + r.args.node_len[0]] == ' ');
    GP_CHECK_INT(r.args.node_len[1],
                 strlen("{ \"metadata\" : { \"name\" : \"n\\u00e9\\\"2\" } }"));
    GP_CHECK(strncmp(r.body + r.args.node_off[1], "{ \"metadata\"", 12) == 0);
    req_done(&r);
}

GP_TEST(decode_utf8_names_ok)
{
    req r;

    req_text(&r, "{\"Pod\":{},\"NodeNames\":[\"n\xc3\xa9ud\"]}");
    GP_CHECK_INT(r.st, GP_OK);
    GP_CHECK_INT(r.args.n, 1);
    if (r.args.n == 1)
        GP_CHECK_STR(r.args.names[0], "n\xc3\xa9ud");
    req_done(&r);
}

/* A body of n NodeNames, "n0", "n1", ... */
static void names_body(req *r, size_t n)
{
    size_t cap = 64 + n * 12, off;

    memset(r, 0, sizeof(*r));
    r->body = malloc(cap);
    off = (size_t)snprintf(r->body, cap, "{\"Pod\":{},\"NodeNames\":[");
    for (size_t i = 0; i < n; i++)
        off += (size_t)snprintf(r->body + off, cap - off, "%s\"n%zu\"", i ? "," : "", i);
    off += (size_t)snprintf(r->body + off, cap - off, "]}");
    r->len = off;
}

/* Bodies that end with a NodeNames array are read by a faster way (the names from the end);
 * each array here must decode the same there as in the middle of a body (read by yajl alone):
 * the same status, names and order. */
GP_TEST(decode_names_at_the_end_as_in_the_middle)
{
    static const char *const arrays[] = {
        "[\"a\"]", "[ \"a\" ,\n\t\"b\" ]", "[\"\xc3\xa9\",\"x y\",\"\x7f\"]", "[\"a\\\"b\",\"c\"]",
        "[\"a\",\"b\\u0063\"]", "[\"\",\"a\"]", "[\"a\",\"\"]", "[\"a\",1]", "[1,\"a\"]",
        "[\"a\",]", "[,\"a\"]", "[\"a\" \"b\"]", "[\"a\"\"b\"]", "[]", "[\"a\tb\"]", "[\"a\\u0000\"]",
        "[\"a\",\"b]\"]", "[\"[\",\"]\"]", "[\"a\",[\"b\"]]", "[\"a\",{\"b\":\"c\"}]",
    };
    char end[256], mid[256];

    for (size_t i = 0; i < sizeof(arrays) / sizeof(arrays[0]); i++) {
        req a, b;

        snprintf(end, sizeof(end), "{\"Pod\":{\"metadata\":{\"name\":\"p\"}},\"Nodes\":null,"
                 "\"NodeNames\":%s} \n", arrays[i]);
        snprintf(mid, sizeof(mid), "{\"Pod\":{\"metadata\":{\"name\":\"p\"}},\"NodeNames\":%s,"
                 "\"Nodes\":null}", arrays[i]);
        req_text(&a, end);
        req_text(&b, mid);
        if (a.st != b.st || a.args.n != b.args.n) {
            printf("  %s: status %d, %zu names at the end; %d, %zu in the middle\n", arrays[i],
                   (int)a.st, a.args.n, (int)b.st, b.args.n);
            gp_test_failed = 1;
        }
        for (size_t k = 0; a.st == GP_OK && k < a.args.n && k < b.args.n; k++)
            GP_CHECK_STR(a.args.names[k], b.args.names[k]);
        req_done(&a);
        req_done(&b);
    }
}

/* One random element for a NodeNames array, into b (room for 64 bytes): a text before and after
 * a number, or a fixed text (num false). */
static void random_element(char *b, unsigned *seed)
{
    static const struct {
        const char *pre, *post;
        bool num;
    } kinds[] = {
        { "\"node-", "\"", true }, { "\"n", "\"", true }, { "\"a\\\"", "\"", true },
        { "\"\\u00", "\"", true }, { "", "", true }, { "null", "", false }, { "\"\"", "", false },
        { "{\"a\":", ",\"a\":1}", true }, { "[\"", "\"]", true }, { "\"\xc3\xa9", "\"", true },
        { "\"x\x7f", "\"", true }, { "\"b]", "\"", true }, { "true", "", false },
    };
    unsigned r = (unsigned)rand_r(seed), k = r % (sizeof(kinds) / sizeof(kinds[0]));

    if (kinds[k].num)
        snprintf(b, 64, "%s%02x%s", kinds[k].pre, (r >> 8) % 256, kinds[k].post);
    else
        snprintf(b, 64, "%s", kinds[k].pre);
}

/* The same with 3,000 arrays made of random elements (fixed seed) and random whitespace. */
GP_TEST(decode_random_names_at_the_end_as_in_the_middle)
{
    unsigned seed = 42;
    size_t differ = 0, fast = 0;

    for (int t = 0; t < 3000; t++) {
        char arr[2048] = "[", end[2300], mid[2300];
        size_t n = 1;
        int len = rand_r(&seed) % 12;
        req a, b;

        for (int i = 0; i < len; i++) {
            char e[64];

            random_element(e, &seed);
            n += (size_t)snprintf(arr + n, sizeof(arr) - n, "%s%s%s", i ? "," : "",
                                  rand_r(&seed) % 4 ? "" : " \n", e);
        }
        snprintf(arr + n, sizeof(arr) - n, "%s]", rand_r(&seed) % 4 ? "" : "\t");
        snprintf(end, sizeof(end), "{\"Pod\":{},\"Nodes\":null,\"NodeNames\":%s}", arr);
        snprintf(mid, sizeof(mid), "{\"Pod\":{},\"NodeNames\":%s,\"Nodes\":null}", arr);
        req_text(&a, end);
        req_text(&b, mid);
        fast += a.st == GP_OK && a.args.n > 0;
        if (a.st != b.st || a.args.n != b.args.n ||
            (a.st != GP_OK && strcmp(a.err.msg, b.err.msg) != 0 &&
             strstr(a.err.msg, "near byte") == NULL)) {
            if (differ++ < 5)
                printf("  %s: %d \"%s\" / %d \"%s\"\n", arr, (int)a.st, a.err.msg, (int)b.st,
                       b.err.msg);
        }
        for (size_t k = 0; a.st == GP_OK && b.st == GP_OK && k < a.args.n && k < b.args.n; k++)
            differ += strcmp(a.args.names[k], b.args.names[k]) != 0;
        req_done(&a);
        req_done(&b);
    }
    GP_CHECK_INT(differ, 0);
    GP_CHECK(fast > 100); /* enough bodies went the fast way */
}

/* A body moved around: NodeNames first (read by yajl) and last (the names from the end, the rest
 * by gp_json_parse_unambiguous). The same Pod tree, names and status, on every captured and
 * constructed ExtenderArgs with NodeNames, and with the Pod edited. */
static void same_both_ways(const char *pod, const char *names, bool strict)
{
    size_t n = strlen(pod) + strlen(names) + 64;
    char *first = malloc(n), *last = malloc(n);
    req a, b;

    if (first == NULL || last == NULL)
        abort();
    snprintf(first, n, "{\"NodeNames\":%s,\"Pod\":%s,\"Nodes\":null}", names, pod);
    snprintf(last, n, "{\"Pod\":%s,\"Nodes\":null,\"NodeNames\":%s}", pod, names);
    req_text(&a, first);
    req_text(&b, last);
    if (a.st != b.st || a.args.n != b.args.n ||
        (a.st == GP_OK && !cJSON_Compare(a.args.pod, b.args.pod, 1)) ||
        (a.st != GP_OK && strcmp(a.err.msg, b.err.msg) != 0 &&
         strstr(a.err.msg, "near byte") == NULL)) {
        printf("  differ (%d \"%s\" / %d \"%s\") on %.200s\n", (int)a.st, a.err.msg, (int)b.st,
               b.err.msg, last);
        gp_test_failed = 1;
    }
    for (size_t k = 0; a.st == GP_OK && b.st == GP_OK && k < a.args.n && k < b.args.n; k++)
        GP_CHECK_STR(a.args.names[k], b.args.names[k]);
    GP_CHECK(!a.args.strict_parse); /* names first: yajl's */
    if (b.args.strict_parse != strict) {
        printf("  names last: %s, want %s: %.200s\n", b.args.strict_parse ? "strict" : "yajl",
               strict ? "strict" : "yajl", last);
        gp_test_failed = 1;
    }
    req_done(&a);
    req_done(&b);
    free(first);
    free(last);
}

static char *names_json(const gp_extargs *args)
{
    cJSON *arr = cJSON_CreateArray();
    char *s;

    for (size_t k = 0; k < args->n; k++)
        cJSON_AddItemToArray(arr, cJSON_CreateString(args->names[k]));
    s = cJSON_PrintUnformatted(arr);
    cJSON_Delete(arr);
    return s;
}

GP_TEST(decode_pod_the_same_with_names_first_or_last)
{
    static const char *const files[] = {
        CAP "extenderargs-nodecache-filter-gpu.json",
        CAP "extenderargs-nodecache-prioritize-gpu.json",
        FIX "extender-v1-ExtenderArgs-nodecache-gpu.constructed.json",
    };
    /* The first three are read by the strict parser too, the others go to yajl (refused, or
     * \u0000 which yajl refuses with its own message) */
    static const char *const edits[][2] = {
        { "\"spec\":", "\"spec\": \t" }, { "\"name\"", "\"n\\u0061me\"" },
        /* (not 1e400: cJSON_Compare finds inf unequal to itself) */
        { "\"metadata\":{", "\"metadata\":{\"x\":1e300,\"y\":-0.5,\"z\":[true,false,null]," },
        { "\"metadata\":{", "\"metadata\":{\"name\":\"dup\"," },
        { "\"spec\":", "\"q\":\"a\\u0000\",\"spec\":" }, { "\"spec\":", "\"q\":[1,],\"spec\":" },
        { "\"spec\":", "\"q\":01,\"spec\":" }, { "\"spec\":", "\"q\":\"\\uD800\",\"spec\":" },
        { "\"spec\":", "\"q\":\"a\tb\",\"spec\":" },
    };


    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        req r;
        char *pod, *names;

        req_file(&r, files[i]);
        GP_CHECK_INT(r.st, GP_OK);
        pod = cJSON_PrintUnformatted(r.args.pod);
        names = names_json(&r.args); /* the tree holds [] in their place */
        GP_CHECK(pod != NULL && names != NULL && r.args.n > 0);
        if (pod != NULL && names != NULL)
            same_both_ways(pod, names, true);
        for (size_t e = 0; pod != NULL && names != NULL && e < sizeof(edits) / sizeof(edits[0]);
             e++) {
            const char *at = strstr(pod, edits[e][0]);
            size_t n = strlen(pod) + strlen(edits[e][1]) + 1;
            char *edited = malloc(n);

            if (at == NULL || edited == NULL) {
                free(edited);
                continue;
            }
            snprintf(edited, n, "%.*s%s%s", (int)(at - pod), pod, edits[e][1],
                     at + strlen(edits[e][0]));
            same_both_ways(edited, names, e < 3);
            free(edited);
        }
        cJSON_free(pod);
        cJSON_free(names);
        req_done(&r);
    }
}

/* Bodies the strict parser leaves to yajl though NodeNames comes last: full Nodes (pruned by
 * yajl, with its limit on their number) and a rest over GP_EXTARGS_STRICT_MAX bytes. */
GP_TEST(decode_names_last_left_to_yajl)
{
    size_t big = GP_EXTARGS_STRICT_MAX + 16;
    char *body = malloc(big + 64);
    req r;

    req_text(&r, "{\"Pod\":{},\"Nodes\":{\"items\":[]},\"NodeNames\":[\"a\"]}");
    GP_CHECK_INT(r.st, GP_OK);
    GP_CHECK(!r.args.strict_parse && r.args.n == 1);
    req_done(&r);
    req_text(&r, "{\"Pod\":{},\"Nodes\":null,\"NodeNames\":[\"a\"]}");
    GP_CHECK(r.st == GP_OK && r.args.strict_parse && r.args.n == 1);
    req_done(&r);
    if (body == NULL)
        abort();
    strcpy(body, "{\"Pod\":{\"x\":\"");
    memset(body + strlen(body), 'a', big);
    strcpy(body + 13 + big, "\"},\"NodeNames\":[\"a\",\"b\"]}"); /* 13: the start's length */
    req_text(&r, body);
    GP_CHECK_INT(r.st, GP_OK);
    GP_CHECK(!r.args.strict_parse && r.args.n == 2);
    req_done(&r);
    free(body);
}

/* The last array of a body is not always NodeNames: what is taken from the end must be the
 * top-level NodeNames array, once, or the body is read the usual way. */
GP_TEST(decode_names_only_from_the_node_names_array)
{
    req r;

    req_text(&r, "{\"Pod\":{},\"NodeNames\":[\"a\"],\"z\":[\"c\",\"d\"]}");
    GP_CHECK_INT(r.st, GP_OK);
    GP_CHECK_INT(r.args.n, 1);
    if (r.args.n == 1)
        GP_CHECK_STR(r.args.names[0], "a");
    req_done(&r);
    req_text(&r, "{\"Pod\":{\"NodeNames\":[\"x\"]},\"z\":[\"c\"]}");
    GP_CHECK_INT(r.st, GP_EINVAL);
    req_done(&r);
    req_text(&r, "{\"Pod\":{},\"NodeNames\":null,\"z\":{\"NodeNames\":[\"c\"]}}");
    GP_CHECK_INT(r.st, GP_EINVAL);
    req_done(&r);
    req_text(&r, "{\"Pod\":{},\"NodeNames\":[\"a\"],\"NodeNames\":[\"b\"]}");
    GP_CHECK_INT(r.st, GP_EINVAL);
    GP_CHECK(strstr(r.err.msg, "duplicate key \"NodeNames\"") != NULL);
    req_done(&r);
    req_text(&r, "{\"Pod\":{},\"k\":\"[\\\"a\\\"]}"); /* the tail inside a string */
    GP_CHECK_INT(r.st, GP_EINVAL);
    req_done(&r);
    req_text(&r, "{\"Pod\":{},\"NodeNames\":[],\"k\":\"[\"a\"]}"); /* not JSON */
    GP_CHECK_INT(r.st, GP_EINVAL);
    GP_CHECK(strstr(r.err.msg, "JSON") != NULL);
    req_done(&r);
}

/* The limit: exactly GP_EXTARGS_MAX_NODES names are read, in order; one more is refused. */
GP_TEST(decode_too_many_nodes)
{
    req r;
    size_t wrong = 0;

    names_body(&r, GP_EXTARGS_MAX_NODES);
    req_decode(&r);
    GP_CHECK_INT(r.st, GP_OK);
    GP_CHECK_INT(r.args.n, GP_EXTARGS_MAX_NODES);
    for (size_t i = 0; i < r.args.n; i++) {
        char want[24];

        snprintf(want, sizeof(want), "n%zu", i);
        wrong += strcmp(r.args.names[i], want) != 0;
    }
    GP_CHECK_INT(wrong, 0);
    req_done(&r);

    names_body(&r, GP_EXTARGS_MAX_NODES + 1);
    req_decode(&r);
    GP_CHECK_INT(r.st, GP_ETOOBIG);
    GP_CHECK(strstr(r.err.msg, "50000") != NULL);
    req_done(&r);
}

/* Every element counts toward the limit, names or not, wherever the bad one is. */
GP_TEST(decode_too_many_elements_of_any_kind)
{
    static const char *const extra[] = { "null", "\"\"", "1", "{\"a\":1}" };

    for (size_t i = 0; i < sizeof(extra) / sizeof(extra[0]); i++)
        for (int last = 0; last < 2; last++) {
            req r;
            char *b;
            size_t at;

            names_body(&r, GP_EXTARGS_MAX_NODES);
            b = malloc(r.len + 16);
            at = strlen("{\"Pod\":{},\"NodeNames\":[");
            if (last) /* ...,"n49999",null]} */
                snprintf(b, r.len + 16, "%.*s,%s]}", (int)(r.len - 2), r.body, extra[i]);
            else      /* [null,"n0",...]} */
                snprintf(b, r.len + 16, "%.*s%s,%s", (int)at, r.body, extra[i], r.body + at);
            free(r.body);
            r.body = b;
            r.len = strlen(b);
            req_decode(&r);
            if (r.st != GP_ETOOBIG)
                printf("  %s %s: status %d, \"%s\"\n", extra[i], last ? "last" : "first",
                       (int)r.st, r.err.msg);
            GP_CHECK_INT(r.st, GP_ETOOBIG);
            req_done(&r);
        }
}

/* ---- encoding ---- */

GP_TEST(encode_filter_nodenames_form)
{
    req r;
    gp_filter_out res[3] = { { 0, NULL }, { 1, "not enough GPUs" }, { 2, "cordoned" } };
    char *out = NULL;
    size_t len = 0;
    cJSON *j;
    const cJSON *names;

    req_text(&r, "{\"Pod\":{},\"Nodes\":null,\"NodeNames\":[\"a\",\"b\",\"c\"]}");
    GP_CHECK_INT(r.st, GP_OK);
    GP_CHECK_INT(gp_extargs_encode_filter(&r.args, res, NULL, &out, &len), GP_OK);
    j = parse_out(out, len);
    GP_CHECK(cJSON_IsNull(get(j, "Nodes")));
    names = get(j, "NodeNames");
    GP_CHECK(cJSON_IsArray(names));
    GP_CHECK_INT(cJSON_GetArraySize(names), 1);
    GP_CHECK_STR(cJSON_GetArrayItem(names, 0) ? cJSON_GetArrayItem(names, 0)->valuestring : NULL,
                 "a");
    GP_CHECK(cJSON_IsObject(get(j, "FailedNodes")));
    GP_CHECK_INT(cJSON_GetArraySize(get(j, "FailedNodes")), 1);
    GP_CHECK_STR(get_str(get(j, "FailedNodes"), "b"), "not enough GPUs");
    GP_CHECK(cJSON_IsObject(get(j, "FailedAndUnresolvableNodes")));
    GP_CHECK_INT(cJSON_GetArraySize(get(j, "FailedAndUnresolvableNodes")), 1);
    GP_CHECK_STR(get_str(get(j, "FailedAndUnresolvableNodes"), "c"), "cordoned");
    GP_CHECK_STR(get_str(j, "Error"), "");
    cJSON_Delete(j);
    req_done(&r);
}

GP_TEST(encode_filter_full_form)
{
    req r;
    gp_filter_out res[2] = { { 1, "too small" }, { 0, NULL } };
    char *out = NULL;
    size_t len = 0;
    cJSON *j, *whole;
    const cJSON *items, *first;

    req_file(&r, CAP "extenderargs-fullnodes-prioritize-gpu.json");
    GP_CHECK_INT(r.st, GP_OK);
    GP_CHECK_INT(r.args.n, 2);
    if (r.args.n != 2) {
        req_done(&r);
        return;
    }
    GP_CHECK_INT(gp_extargs_encode_filter(&r.args, res, NULL, &out, &len), GP_OK);
    j = parse_out(out, len);
    GP_CHECK(cJSON_IsNull(get(j, "NodeNames")));
    GP_CHECK(cJSON_IsObject(get(j, "Nodes")));
    items = get(get(j, "Nodes"), "items");
    GP_CHECK(cJSON_IsArray(items));
    GP_CHECK_INT(cJSON_GetArraySize(items), 1);
    first = cJSON_GetArrayItem(items, 0);
    GP_CHECK_STR(meta_name(first), "gpu-node-1");
    /* The whole Node object is passed back as it came (the decoded tree keeps only what scoring
     * reads), not just its name. */
    whole = cJSON_Parse(r.body);
    GP_CHECK(cJSON_Compare(first, cJSON_GetArrayItem(get(get(whole, "Nodes"), "items"), 1), 1));
    GP_CHECK(get(first, "status") != NULL && get(get(first, "status"), "capacity") != NULL);
    cJSON_Delete(whole);
    GP_CHECK_STR(get_str(get(j, "FailedNodes"), "gpu-node-2"), "too small");
    GP_CHECK_INT(cJSON_GetArraySize(get(j, "FailedNodes")), 1);
    GP_CHECK(cJSON_IsObject(get(j, "FailedAndUnresolvableNodes")));
    GP_CHECK_INT(cJSON_GetArraySize(get(j, "FailedAndUnresolvableNodes")), 0);
    GP_CHECK_STR(get_str(j, "Error"), "");
    cJSON_Delete(j);
    req_done(&r);
}

GP_TEST(encode_filter_all_fail_and_null_reason)
{
    req r;
    gp_filter_out res[2] = { { 2, NULL }, { 2, "x" } };
    char *out = NULL;
    size_t len = 0;
    cJSON *j;

    req_text(&r, "{\"Pod\":{},\"NodeNames\":[\"a\",\"b\"]}");
    GP_CHECK_INT(gp_extargs_encode_filter(&r.args, res, NULL, &out, &len), GP_OK);
    j = parse_out(out, len);
    /* No passing node: an empty list, not null (the form stays the one asked in). */
    GP_CHECK(cJSON_IsArray(get(j, "NodeNames")));
    GP_CHECK_INT(cJSON_GetArraySize(get(j, "NodeNames")), 0);
    GP_CHECK_STR(get_str(get(j, "FailedAndUnresolvableNodes"), "a"), "");
    GP_CHECK_STR(get_str(get(j, "FailedAndUnresolvableNodes"), "b"), "x");
    GP_CHECK_INT(cJSON_GetArraySize(get(j, "FailedNodes")), 0);
    cJSON_Delete(j);
    req_done(&r);
}

GP_TEST(encode_filter_with_error_argument)
{
    req r;
    gp_filter_out res[1] = { { 0, NULL } };
    char *out = NULL;
    size_t len = 0;
    cJSON *j;

    req_text(&r, "{\"Pod\":{},\"NodeNames\":[\"a\"]}");
    GP_CHECK_INT(gp_extargs_encode_filter(&r.args, res, "policy unavailable", &out, &len), GP_OK);
    j = parse_out(out, len);
    GP_CHECK_STR(get_str(j, "Error"), "policy unavailable");
    GP_CHECK(cJSON_IsNull(get(j, "NodeNames")));
    GP_CHECK(cJSON_IsNull(get(j, "Nodes")));
    GP_CHECK_INT(cJSON_GetArraySize(get(j, "FailedNodes")), 0);
    cJSON_Delete(j);
    req_done(&r);
}

GP_TEST(encode_filter_error)
{
    char *out = NULL;
    size_t len = 0;
    cJSON *j;

    GP_CHECK_INT(gp_extargs_encode_filter_error("body is not \"JSON\"\n", &out, &len), GP_OK);
    j = parse_out(out, len);
    GP_CHECK(cJSON_IsObject(j));
    GP_CHECK_STR(get_str(j, "Error"), "body is not \"JSON\"\n");
    GP_CHECK(cJSON_IsNull(get(j, "Nodes")));
    GP_CHECK(cJSON_IsNull(get(j, "NodeNames")));
    GP_CHECK(cJSON_IsObject(get(j, "FailedNodes")));
    GP_CHECK_INT(cJSON_GetArraySize(get(j, "FailedNodes")), 0);
    GP_CHECK(cJSON_IsObject(get(j, "FailedAndUnresolvableNodes")));
    GP_CHECK_INT(cJSON_GetArraySize(get(j, "FailedAndUnresolvableNodes")), 0);
    cJSON_Delete(j);
}

static void check_priorities(const char *path)
{
    req r;
    int scores[2] = { 7, 0 };
    char *out = NULL;
    size_t len = 0;
    cJSON *j;

    req_file(&r, path);
    GP_CHECK_INT(r.st, GP_OK);
    GP_CHECK_INT(r.args.n, 2);
    if (r.args.n != 2) {
        req_done(&r);
        return;
    }
    GP_CHECK_INT(gp_extargs_encode_priorities(&r.args, scores, &out, &len), GP_OK);
    j = parse_out(out, len);
    GP_CHECK(cJSON_IsArray(j));
    GP_CHECK_INT(cJSON_GetArraySize(j), 2);
    for (int i = 0; i < 2 && i < cJSON_GetArraySize(j); i++) {
        const cJSON *h = cJSON_GetArrayItem(j, i), *score = get(h, "Score");

        GP_CHECK_INT(cJSON_GetArraySize(h), 2);
        GP_CHECK_STR(get_str(h, "Host"), r.args.names[i]);
        GP_CHECK(cJSON_IsNumber(score));
        GP_CHECK_INT(score ? score->valueint : -1, scores[i]);
    }
    cJSON_Delete(j);
    req_done(&r);
}

/* Plain and escaped names mixed, first and later in the list, with scores of any width. */
GP_TEST(encode_priorities_plain_and_escaped_names)
{
    req r;
    int scores[4] = { 10, -2, 123456, 0 };
    char *out = NULL;
    size_t len = 0;

    req_text(&r, "{\"Pod\":{},\"NodeNames\":[\"node-0123456789abcdef\",\"a\\\"b\","
                 "\"n3\",\"\\u00e9t\\u00e9-long-name-of-nodes\"]}");
    GP_CHECK_INT(r.st, GP_OK);
    GP_CHECK_INT(gp_extargs_encode_priorities(&r.args, scores, &out, &len), GP_OK);
    GP_CHECK_STR(out, "[{\"Host\":\"node-0123456789abcdef\",\"Score\":10},"
                      "{\"Host\":\"a\\\"b\",\"Score\":-2},{\"Host\":\"n3\",\"Score\":123456},"
                      "{\"Host\":\"\xc3\xa9t\xc3\xa9-long-name-of-nodes\",\"Score\":0}]");
    GP_CHECK_INT(len, out ? strlen(out) : 0);
    free(out);
    out = NULL;
    r.args.n = 0;
    GP_CHECK_INT(gp_extargs_encode_priorities(&r.args, scores, &out, &len), GP_OK);
    GP_CHECK_STR(out, "[]");
    free(out);
    req_done(&r);
}

GP_TEST(encode_priorities_request_order)
{
    check_priorities(CAP "extenderargs-fullnodes-prioritize-gpu.json");
    check_priorities(CAP "extenderargs-nodecache-prioritize-gpu.json");
    check_priorities(FIX "extender-v1-ExtenderArgs-nodecache-gpu.constructed.json");
}

/* Names and reasons with characters JSON must escape come out as valid JSON with the same text. */
GP_TEST(encode_escapes)
{
    req r;
    gp_filter_out res[2] = { { 0, NULL }, { 1, "line1\nline2 \"q\" \\ \x01 tab\t" } };
    int scores[2] = { 7, 3 };
    char *out = NULL;
    size_t len = 0;
    cJSON *j;

    req_text(&r, "{\"Pod\":{},\"NodeNames\":[\"a\\\"b\",\"c\\\\d\\u001f\"]}");
    GP_CHECK_INT(r.st, GP_OK);
    GP_CHECK_INT(gp_extargs_encode_filter(&r.args, res, NULL, &out, &len), GP_OK);
    j = parse_out(out, len);
    GP_CHECK_STR(get(j, "NodeNames") ? get(j, "NodeNames")->child->valuestring : NULL, "a\"b");
    GP_CHECK_STR(get_str(get(j, "FailedNodes"), "c\\d\x1f"), res[1].reason);
    cJSON_Delete(j);
    GP_CHECK_INT(gp_extargs_encode_priorities(&r.args, scores, &out, &len), GP_OK);
    GP_CHECK_STR(out, "[{\"Host\":\"a\\\"b\",\"Score\":7},{\"Host\":\"c\\\\d\\u001f\",\"Score\":3}]");
    free(out);
    GP_CHECK_INT(gp_extargs_encode_filter_error("x\"\n", &out, &len), GP_OK);
    j = parse_out(out, len);
    GP_CHECK_STR(get_str(j, "Error"), "x\"\n");
    cJSON_Delete(j);
    req_done(&r);
}

GP_TEST(encode_priorities_text_and_empty)
{
    req r;
    int scores[3] = { 10, 0, 5 };
    char *out = NULL;
    size_t len = 0;

    req_text(&r, "{\"Pod\":{},\"NodeNames\":[\"z\",\"a\",\"m\"]}");
    GP_CHECK_INT(gp_extargs_encode_priorities(&r.args, scores, &out, &len), GP_OK);
    GP_CHECK_STR(out, "[{\"Host\":\"z\",\"Score\":10},{\"Host\":\"a\",\"Score\":0},"
                      "{\"Host\":\"m\",\"Score\":5}]");
    GP_CHECK_INT(len, out ? strlen(out) : 0);
    free(out);
    req_done(&r);

    req_text(&r, "{\"Pod\":{},\"NodeNames\":[]}");
    out = NULL;
    GP_CHECK_INT(gp_extargs_encode_priorities(&r.args, scores, &out, &len), GP_OK);
    GP_CHECK_STR(out, "[]");
    free(out);
    req_done(&r);
}

GP_MAIN(GP_CASE(decode_captured_nodecache_filter), GP_CASE(decode_captured_nodecache_prioritize),
        GP_CASE(decode_captured_fullnodes_prioritize), GP_CASE(decode_constructed_nodecache),
        GP_CASE(decode_constructed_fullnodes), GP_CASE(decode_inline_forms),
        GP_CASE(decode_errors), GP_CASE(decode_depth_limit), GP_CASE(decode_full_nodes_pruned),
        GP_CASE(encode_escapes), GP_CASE(encode_priorities_plain_and_escaped_names),
        GP_CASE(decode_utf8_names_ok), GP_CASE(decode_names_at_the_end_as_in_the_middle),
        GP_CASE(decode_random_names_at_the_end_as_in_the_middle),
        GP_CASE(decode_pod_the_same_with_names_first_or_last),
        GP_CASE(decode_names_last_left_to_yajl),
        GP_CASE(decode_names_only_from_the_node_names_array), GP_CASE(decode_too_many_nodes),
        GP_CASE(decode_too_many_elements_of_any_kind),
        GP_CASE(encode_filter_nodenames_form), GP_CASE(encode_filter_full_form),
        GP_CASE(encode_filter_all_fail_and_null_reason), GP_CASE(encode_filter_with_error_argument),
        GP_CASE(encode_filter_error), GP_CASE(encode_priorities_request_order),
        GP_CASE(encode_priorities_text_and_empty))
