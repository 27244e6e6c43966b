/* SPDX-License-Identifier: Apache-2.0 */
/* AdmissionReview path: raw body -> decode -> decision -> JSON patch -> encoded response, as
 * POST /mutate runs it, with the default policy and a cluster view that offers MIG profiles (on
 * a node with a GPU product, for the GPU model rules) and PriorityClasses. Properties: every answer is a 200 AdmissionReview that allows the pod, or a
 * 400 with an error body; a 200 answer parses as JSON and carries the request's uid; the answer
 * and the patch in it are UTF-8 (text cut by bytes never splits a character). */
#include "fuzz_common.h"

#include <cjson/cJSON.h>
#include <openssl/evp.h>

#include "gpupack/admission.h"
#include "gpupack/cluster.h"
#include "gpupack/webhook.h"

static gp_webhook hook;
static gp_policy_holder holder;

static void setup(void)
{
    static const char nodes[] =
        "{\"items\":[{\"metadata\":{\"labels\":{\"nvidia.com/gpu.product\":"
        "\"NVIDIA-A100-SXM4-80GB\"}},\"status\":{\"allocatable\":{\"nvidia.com/mig-1g.10gb\":\"7\","
        "\"nvidia.com/mig-2g.20gb\":\"3\",\"nvidia.com/mig-3g.40gb\":\"2\"}}}]}";
    static const char pcs[] = "{\"items\":[{\"metadata\":{\"name\":\"gpu-inference\"}},"
                              "{\"metadata\":{\"name\":\"gpu-training\"}}]}";
    gp_cluster *c = gp_cluster_new();
    gp_err err = { { 0 } };

    fuzz_default_policy(&holder);
    if (c == NULL || gp_cluster_set_nodes_json(c, nodes, strlen(nodes), &err) != GP_OK ||
        gp_cluster_set_priority_classes_json(c, pcs, strlen(pcs), &err) != GP_OK)
        abort();
    gp_webhook_init(&hook, &holder, c, NULL, NULL);
}

/* The base64 patch, decoded, is UTF-8 text. */
static void check_patch_utf8(const cJSON *patch)
{
    size_t n = cJSON_IsString(patch) ? strlen(patch->valuestring) : 0;
    unsigned char *raw = n ? malloc(n / 4 * 3 + 1) : NULL;
    int len;

    if (n == 0)
        return;
    FUZZ_ASSERT(raw != NULL, "out of memory");
    len = EVP_DecodeBlock(raw, (const unsigned char *)patch->valuestring, (int)n);
    FUZZ_ASSERT(len >= 0, "patch is not base64");
    while (len > 0 && raw[len - 1] == '\0') /* EVP_DecodeBlock keeps the padding's zero bytes */
        len--;
    FUZZ_ASSERT(gp_utf8_valid((const char *)raw, (size_t)len), "patch is not UTF-8");
    free(raw);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int ready;
    char *body = fuzz_body(data, size);
    gp_http_response resp = { .status = 200 };

    if (!ready) {
        setup();
        ready = 1;
    }
    gp_webhook_review(&hook, body, size, &resp);
    fuzz_check_response(&resp);
    FUZZ_ASSERT(resp.status == 200 || resp.status == 400, "status %d", resp.status);
    if (resp.status == 200) {
        cJSON *out = cJSON_ParseWithLength(resp.body, resp.body_len);
        const cJSON *r = cJSON_GetObjectItemCaseSensitive(out, "response");

        FUZZ_ASSERT(out != NULL, "200 answer is not JSON");
        FUZZ_ASSERT(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "allowed")),
                    "a pod was denied");
        FUZZ_ASSERT(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(r, "uid")), "no uid");
        FUZZ_ASSERT(gp_utf8_valid(resp.body, resp.body_len), "answer is not UTF-8");
        check_patch_utf8(cJSON_GetObjectItemCaseSensitive(r, "patch"));
        cJSON_Delete(out);
    }
    free(resp.body);
    free(body);
    return 0;
}
