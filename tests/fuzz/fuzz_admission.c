/* SPDX-License-Identifier: Apache-2.0 */
/* AdmissionReview path: raw body -> decode -> decision -> JSON patch -> encoded response, as
 * POST /mutate runs it, with the default policy and a cluster view that offers MIG profiles (on
 * a node with a GPU product, for the GPU model rules) and PriorityClasses. Properties: every answer is a 200 AdmissionReview that allows the pod, or a
 * 400 with an error body; a 200 answer parses as JSON and carries the request's uid. */
#include "fuzz_common.h"

#include <cjson/cJSON.h>

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
        cJSON_Delete(out);
    }
    free(resp.body);
    free(body);
    return 0;
}
