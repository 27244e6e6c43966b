/* SPDX-License-Identifier: Apache-2.0 */
/* Nodes and pod usage as the extender scores them: small fixed-size structs, no JSON trees.
 *
 * A gp_node holds what scoring needs from a Node (allocatable GPUs, MIG slices per profile, CPU,
 * memory, pods; labels for price, GPU model and spot; cordon) plus the sum of what the pods bound
 * to it use. A gp_usage is one pod's effective request (kube-scheduler's semantics: the larger of
 * the sum over app containers and sidecars and the largest init phase; pod overhead is not
 * counted); the cache keeps a compact form of it per pod. The same decoding serves the live
 * cache, snapshot files and the full Node objects kube-scheduler sends when nodeCacheCapable is
 * false. */
#ifndef GPUPACK_NODEVIEW_H
#define GPUPACK_NODEVIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "gpupack/podview.h"
#include "gpupack/k8s.h"
#include "gpupack/status.h"

struct gp_policy; /* policy.h: only passed through here */

#define GP_NODE_MAX_MIG 8       /* distinct MIG profiles one node advertises */
#define GP_MIG_NAME_MAX 24      /* "7g.80gb", "1g.10gb+me" */
#define GP_NODE_NAME_MAX 253
/* Distinct MIG profiles of one pod that are counted: as many as a node view keeps, so a pod
 * that any node could take is counted whole (more: gp_usage_from_pod() says GP_ETOOBIG). */
#define GP_USAGE_MAX_MIG GP_NODE_MAX_MIG

typedef struct {
    char profile[GP_MIG_NAME_MAX]; /* without the "nvidia.com/mig-" prefix */
    int32_t alloc;
    int32_t used;
} gp_mig_count;

typedef struct {
    char name[GP_NODE_NAME_MAX + 1];
    char *instance_type;   /* node.kubernetes.io/instance-type, or NULL (malloc'd) */
    char *gpu_product;     /* nvidia.com/gpu.product, or NULL (malloc'd) */
    bool spot;             /* any of the policy's spot labels (karpenter, GKE, EKS, AKS) */
    bool unschedulable;    /* spec.unschedulable (cordoned) */
    int32_t gpu_alloc;     /* allocatable nvidia.com/gpu */
    int32_t gpu_used;
    gp_mig_count mig[GP_NODE_MAX_MIG];
    uint8_t nmig;
    int64_t cpu_alloc_m, cpu_used_m;
    int64_t mem_alloc, mem_used; /* bytes */
    int32_t pods_alloc, pods_used;
    int32_t gpu_pods;      /* bound, non-terminated pods that use GPU resources */
} gp_node;

typedef struct {
    int32_t gpu;                                  /* whole nvidia.com/gpu */
    char mig_profile[GP_USAGE_MAX_MIG][GP_MIG_NAME_MAX];
    int32_t mig[GP_USAGE_MAX_MIG];
    uint8_t nmig;
    int64_t cpu_m;
    int64_t mem;                                  /* bytes */
} gp_usage;

/* Decodes a Node object. Strings are copied; gp_node_clear() frees them. */
gp_status gp_node_from_json(const cJSON *node, const struct gp_policy *pol, gp_node *out,
                            gp_err *err) GP_WUR;
void gp_node_clear(gp_node *n);

/* One entry of a Node's status.allocatable read as MIG capacity, the one reading every program
 * uses: *profile (borrowed from the entry's key: "2g.20gb" of "nvidia.com/mig-2g.20gb") and
 * *count, the instances it offers (whole units rounded up, clamped to 0..INT32_MAX; 0 offers
 * nothing). GP_ENOTFOUND when the entry is not a MIG resource; GP_EINVAL (err set, naming the
 * path) when its value is not a quantity string. */
gp_status gp_node_mig_capacity(const cJSON *entry, const char **profile, int32_t *count,
                               gp_err *err) GP_WUR;

/* A pod's effective request: per resource, the larger of the sum over app containers and
 * sidecars (init containers with restartPolicy Always) and the largest init phase (a regular
 * init container plus the sidecars declared before it). GP_ETOOBIG (err set) when the pod asks
 * for more than GP_USAGE_MAX_MIG distinct MIG profiles: *out is still filled in, with GPUs, CPU,
 * memory and the first GP_USAGE_MAX_MIG profiles, for callers that must count what they can. */
gp_status gp_usage_from_pod(const gp_pod *pod, gp_usage *out, gp_err *err) GP_WUR;

/* True when the usage asks for any GPU or MIG resource. */
bool gp_usage_is_gpu(const gp_usage *u);

/* Adds (sign +1) or removes (sign -1) a pod's usage on a node: the one rule for used counters
 * (the cache counts bound and assumed pods with it). Each counter moves by the pod's request, as
 * kube-scheduler's NodeInfo does, and stays within 0..its type's maximum (removing more than was
 * added, or an overflow, saturates rather than wraps). Unknown MIG profiles are added as entries
 * with alloc 0 (while room lasts) so that removal balances; removal never adds an entry. */
void gp_node_apply_usage(gp_node *n, const gp_usage *u, int sign);

/* The node's MIG entry for a profile, or NULL. */
const gp_mig_count *gp_node_mig(const gp_node *n, const char *profile);

/* True when the node has any GPU or MIG capacity. */
bool gp_node_is_gpu(const gp_node *n);

#endif
