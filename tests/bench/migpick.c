/* SPDX-License-Identifier: Apache-2.0 */
/* The MIG choice against a large node view: what gp_mutate() costs for a GPU pod annotated
 * gpupack.io/gpu-memory when the webhook's view holds N nodes offering MIG slices, each with 42
 * labels. Two pods: one any node may take (the choice stops looking early), one whose
 * nodeSelector no node matches (every node is matched against it, twice: once for the choice,
 * once to word the warning). Bench-only: `make bench` runs it (tools/bench.sh).
 * Usage: bench-migpick NODES DECISIONS; prints one JSON object a measurement. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "gpupack/mutate.h"

static double now_us(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* A NodeList of n A100/H100 nodes, each offering three profiles and carrying 42 labels. */
static char *node_list(int n)
{
    cJSON *root = cJSON_CreateObject(), *items = cJSON_AddArrayToObject(root, "items");
    char key[32], val[48];
    char *json;

    for (int i = 0; i < n; i++) {
        cJSON *node = cJSON_CreateObject(), *meta = cJSON_AddObjectToObject(node, "metadata");
        cJSON *labels = cJSON_AddObjectToObject(meta, "labels");
        cJSON *alloc = cJSON_AddObjectToObject(cJSON_AddObjectToObject(node, "status"),
                                               "allocatable");

        snprintf(val, sizeof(val), "node-%d", i);
        cJSON_AddStringToObject(meta, "name", val);
        cJSON_AddStringToObject(labels, "kubernetes.io/hostname", val);
        cJSON_AddStringToObject(labels, "nvidia.com/gpu.product",
                                i % 2 ? "NVIDIA-A100-SXM4-80GB" : "NVIDIA-H100-80GB-HBM3");
        for (int k = 0; k < 40; k++) {
            snprintf(key, sizeof(key), "example.com/label-%d", k);
            snprintf(val, sizeof(val), "value-%d-%d", i % 7, k);
            cJSON_AddStringToObject(labels, key, val);
        }
        cJSON_AddStringToObject(alloc, "nvidia.com/mig-1g.10gb", "7");
        cJSON_AddStringToObject(alloc, "nvidia.com/mig-2g.20gb", "3");
        cJSON_AddStringToObject(alloc, "nvidia.com/mig-3g.40gb", "2");
        cJSON_AddItemToArray(items, node);
    }
    json = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    return json;
}

static const char *const pods[] = {
    "{\"metadata\":{\"namespace\":\"ml\",\"ownerReferences\":[{\"kind\":\"ReplicaSet\","
    "\"name\":\"r\",\"controller\":true}],\"annotations\":{\"gpupack.io/gpu-memory\":\"16Gi\"}},"
    "\"spec\":{\"containers\":[{\"name\":\"m\",\"resources\":{\"limits\":{\"nvidia.com/gpu\":\"1\""
    "}}}]}}",
    "{\"metadata\":{\"namespace\":\"ml\",\"ownerReferences\":[{\"kind\":\"ReplicaSet\","
    "\"name\":\"r\",\"controller\":true}],\"annotations\":{\"gpupack.io/gpu-memory\":\"16Gi\"}},"
    "\"spec\":{\"nodeSelector\":{\"nvidia.com/gpu.product\":\"NVIDIA-L4\"},\"containers\":[{"
    "\"name\":\"m\",\"resources\":{\"limits\":{\"nvidia.com/gpu\":\"1\"}}}]}}",
};
static const char *const names[] = { "mig-choice-any-node", "mig-choice-no-node-matches" };

/* Microseconds per decision over n decisions of one pod; -1 on an error. */
static double time_pod(const char *text, const gp_policy *pol, const gp_cluster *view, int n)
{
    cJSON *j = cJSON_Parse(text);
    double t0 = now_us();

    for (int i = 0; j != NULL && i < n; i++) {
        gp_arena a;
        gp_pod pod;
        gp_decision d;
        gp_err err = { { 0 } };
        bool ok;

        gp_arena_init(&a, 4u * 1024 * 1024);
        ok = gp_pod_from_json(j, "ml", &a, &pod, &err) == GP_OK &&
             gp_mutate(&pod, pol, view, NULL, &a, &d) == GP_OK;
        gp_arena_free(&a);
        if (!ok) {
            cJSON_Delete(j);
            return -1;
        }
    }
    cJSON_Delete(j);
    return j == NULL ? -1 : (now_us() - t0) / n;
}

int main(int argc, char **argv)
{
    int nodes = argc > 1 ? atoi(argv[1]) : 2000, n = argc > 2 ? atoi(argv[2]) : 2000; /* NOLINT */
    gp_policy *pol = NULL;
    char *errs = NULL, *json;
    gp_cluster *view = gp_cluster_new();
    gp_err err = { { 0 } };
    double t0, build_ms;
    int rc = 0;

    if (nodes < 1 || n < 1 || view == NULL || gp_policy_default(&pol, &errs) != GP_OK)
        return 2;
    json = node_list(nodes);
    t0 = now_us();
    if (json == NULL || gp_cluster_set_nodes_json(view, json, strlen(json), &err) != GP_OK) {
        fprintf(stderr, "bench-migpick: %s\n", err.msg);
        return 1;
    }
    build_ms = (now_us() - t0) / 1e3;
    printf("{\"name\":\"mig-view-build\",\"nodes\":%d,\"ms\":%.1f}\n", nodes, build_ms);
    for (int p = 0; p < 2; p++) {
        double us = time_pod(pods[p], pol, view, n);

        rc |= us < 0;
        printf("{\"name\":\"%s\",\"nodes\":%d,\"us_per_decision\":%.1f}\n", names[p], nodes, us);
    }
    cJSON_free(json);
    gp_cluster_unref(view);
    gp_policy_unref(pol);
    return rc;
}
