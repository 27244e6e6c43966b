/* SPDX-License-Identifier: Apache-2.0 */
/* ExtenderArgs path for both verbs: the first byte picks filter or prioritize, the rest is the
 * body, answered against a snapshot cluster (tests/extender/) with assumptions on (they expire as
 * the fake clock moves). Properties: filter always answers 200 with an ExtenderFilterResult
 * (errors in its Error field), prioritize 200 with a list of scores 0..10 or 400. */
#include "fuzz_common.h"

#include <cjson/cJSON.h>

#include "gpupack/cache.h"
#include "gpupack/extender.h"
#include "gpupack/fileio.h"

static gp_extender ext;
static gp_policy_holder holder;

static char *read_or_die(const char *dir, const char *name, size_t *len)
{
    char path[4096];
    char *buf = NULL;
    gp_err err = { { 0 } };

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    if (gp_file_read(path, 64u << 20, &buf, len, &err) != GP_OK) {
        fprintf(stderr, "%s: %s (set GP_FUZZ_SNAPSHOT to tests/extender)\n", path, err.msg);
        abort();
    }
    return buf;
}

static void setup(void)
{
    const char *dir = getenv("GP_FUZZ_SNAPSHOT") ? getenv("GP_FUZZ_SNAPSHOT") : "tests/extender";
    size_t nl, pl;
    char *nodes = read_or_die(dir, "nodes.json", &nl), *pods = read_or_die(dir, "pods.json", &pl);
    gp_err err = { { 0 } };
    gp_cache *c;

    fuzz_default_policy(&holder);
    c = gp_cache_new(&holder);
    if (c == NULL || gp_cache_load_snapshot(c, nodes, nl, pods, pl, &err) != GP_OK)
        abort();
    free(nodes);
    free(pods);
    ext = (gp_extender){ .policy = &holder, .cache = c, .assume_ttl_ms = 50 };
}

static void check_filter(const gp_http_response *r)
{
    cJSON *out = cJSON_ParseWithLength(r->body, r->body_len);

    FUZZ_ASSERT(r->status == 200, "filter status %d", r->status);
    FUZZ_ASSERT(cJSON_IsObject(out), "filter answer is not an object");
    FUZZ_ASSERT(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(out, "Error")), "no Error field");
    cJSON_Delete(out);
}

static void check_prioritize(const gp_http_response *r)
{
    cJSON *out, *h;

    FUZZ_ASSERT(r->status == 200 || r->status == 400, "prioritize status %d", r->status);
    if (r->status != 200)
        return;
    out = cJSON_ParseWithLength(r->body, r->body_len);
    FUZZ_ASSERT(cJSON_IsArray(out), "prioritize answer is not a list");
    cJSON_ArrayForEach(h, out) {
        const cJSON *s = cJSON_GetObjectItemCaseSensitive(h, "Score");

        FUZZ_ASSERT(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(h, "Host")), "no Host");
        FUZZ_ASSERT(cJSON_IsNumber(s) && s->valuedouble >= 0 && s->valuedouble <= 10,
                    "score out of 0..10");
    }
    cJSON_Delete(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int ready;
    static int64_t now_ms = 1700000000000;
    gp_verb verb;
    char *body;
    gp_http_response resp = { .status = 200 };

    if (size < 1)
        return 0;
    if (!ready) {
        setup();
        ready = 1;
    }
    verb = (data[0] & 1) ? GP_VERB_PRIORITIZE : GP_VERB_FILTER;
    body = fuzz_body(data + 1, size - 1);
    now_ms += 20;
    gp_extender_call(&ext, verb, body, size - 1, now_ms, &resp);
    fuzz_check_response(&resp);
    if (verb == GP_VERB_FILTER)
        check_filter(&resp);
    else
        check_prioritize(&resp);
    free(resp.body);
    free(body);
    return 0;
}
