/* SPDX-License-Identifier: Apache-2.0 */
/* The watch stream: bytes split into chunks where the input says, fed to the line splitter the
 * informer uses, each line decoded as a watch event and applied to the extender's cache (pods or
 * nodes, as the first byte says), then a prioritize call reads the cache. Properties: the
 * splitter never hands out more than its limit, never a line with a newline in it; the cache
 * survives any sequence of events. */
#include "fuzz_common.h"

#include <cjson/cJSON.h>

#include "gpupack/cache.h"
#include "gpupack/extender.h"
#include "gpupack/kube.h"

#define LINE_MAX_BYTES 4096

static gp_policy_holder holder;

typedef struct {
    gp_cache *cache;
    bool nodes;
} sink;

static gp_status on_line(void *ctx, const char *line, size_t len)
{
    sink *s = ctx;
    cJSON *root;
    const cJSON *type, *obj;

    FUZZ_ASSERT(len <= LINE_MAX_BYTES, "line of %zu bytes over the limit", len);
    FUZZ_ASSERT(line[len] == '\0' && memchr(line, '\n', len) == NULL, "line not split right");
    root = cJSON_ParseWithLengthOpts(line, len + 1, NULL, 1);
    type = cJSON_GetObjectItemCaseSensitive(root, "type");
    obj = cJSON_GetObjectItemCaseSensitive(root, "object");
    if (cJSON_IsString(type) && cJSON_IsObject(obj)) {
        if (s->nodes)
            gp_cache_node_event(s->cache, type->valuestring, obj);
        else
            gp_cache_pod_event(s->cache, type->valuestring, obj);
    }
    cJSON_Delete(root);
    return GP_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int ready;
    static const char args[] = "{\"Pod\":{\"metadata\":{\"name\":\"p\",\"namespace\":\"ml\","
                               "\"uid\":\"u\"},\"spec\":{\"containers\":[{\"name\":\"c\","
                               "\"resources\":{\"limits\":{\"nvidia.com/gpu\":\"1\"}}}]}},"
                               "\"Nodes\":null,\"NodeNames\":[\"n1\",\"n2\",\"gpu-0\"]}";
    sink s;
    gp_linebuf lb;
    size_t off = 1, chunk;
    gp_extender x;
    gp_http_response resp = { .status = 200 };

    if (size < 2)
        return 0;
    if (!ready) {
        fuzz_default_policy(&holder);
        ready = 1;
    }
    s.cache = gp_cache_new(&holder);
    s.nodes = data[0] & 1;
    chunk = 1 + (data[0] >> 1); /* 1..128 bytes a chunk */
    gp_linebuf_init(&lb, LINE_MAX_BYTES);
    gp_cache_nodes_begin(s.cache);
    gp_cache_nodes_end(s.cache);
    gp_cache_pods_begin(s.cache);
    gp_cache_pods_end(s.cache);
    while (off < size) {
        size_t n = size - off < chunk ? size - off : chunk;

        if (gp_linebuf_feed(&lb, (const char *)data + off, n, on_line, &s) != GP_OK)
            gp_linebuf_reset(&lb); /* the informer ends the stream and starts a new one */
        off += n;
    }
    x = (gp_extender){ .policy = &holder, .cache = s.cache };
    gp_extender_call(&x, GP_VERB_PRIORITIZE, args, strlen(args), 1700000000000, &resp);
    FUZZ_ASSERT(resp.status == 200, "prioritize over the fuzzed cache: %d", resp.status);
    free(resp.body);
    gp_linebuf_free(&lb);
    gp_cache_free(s.cache);
    return 0;
}
