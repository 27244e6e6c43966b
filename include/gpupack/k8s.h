/* SPDX-License-Identifier: Apache-2.0 */
/* Kubernetes names and the small shared types every codec and decision uses.
 *
 * The resource, label and annotation names gpupack reads or writes, defined once, and the plain
 * structs of Kubernetes objects that several modules pass around (a label, a toleration, a
 * selector requirement), with the few helpers over them that several modules need: a label
 * lookup, the MIG profile of a resource name, an object's metadata.name, and gp_relist, the
 * list generation an informer consumer keeps per kind. Codecs (podview, nodeview, cluster,
 * admission, nodematch) include this header, not policy.h. Names are string literals so that
 * messages can be built by concatenation ("node has no " GP_LABEL_GPU_PRODUCT " label"). */
#ifndef GPUPACK_K8S_H
#define GPUPACK_K8S_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

/* Extended resources (NVIDIA device plugin). A MIG slice is GP_RES_MIG_PREFIX + its profile. */
#define GP_RES_GPU "nvidia.com/gpu"
#define GP_RES_MIG_PREFIX "nvidia.com/mig-"

/* Node labels. */
#define GP_LABEL_GPU_PRODUCT "nvidia.com/gpu.product" /* GPU model (GPU feature discovery) */
#define GP_LABEL_INSTANCE_TYPE "node.kubernetes.io/instance-type"
#define GP_TAINT_UNSCHEDULABLE "node.kubernetes.io/unschedulable" /* a cordoned node's taint */

/* Pod labels and annotations gpupack reads or writes. */
#define GP_LABEL_CLASS "gpupack.io/class"
#define GP_LABEL_SKIP "gpupack.io/skip"
#define GP_ANN_GPU_MEMORY "gpupack.io/gpu-memory"
#define GP_ANN_GPU_MODELS "gpupack.io/gpu-models" /* "A100*,H100*" allow; "!T4*" exclude */
#define GP_ANN_CHECKPOINTING "gpupack.io/checkpointing"
#define GP_ANN_MUTATED "gpupack.io/mutated"
#define GP_ANN_ORIGINAL "gpupack.io/original-resources"
#define GP_ANN_MIRROR "kubernetes.io/config.mirror" /* the kubelet's static-pod mirrors */
#define GP_LABEL_RAY_ORIGIN "ray.io/originated-from-crd" /* KubeRay: the CR a pod comes from */

#define GP_DEFAULT_SCHEDULER "default-scheduler" /* what kube-apiserver defaults to */

/* A pod toleration. op is "Exists" or "Equal"; key, value, effect may be "" (never NULL).
 * effect is "", "NoSchedule", "PreferNoSchedule" or "NoExecute". */
typedef struct {
    char *key;
    char *op;
    char *value;
    char *effect;
    bool has_seconds; /* tolerationSeconds was given (only with effect NoExecute) */
    int64_t seconds;
} gp_toleration;

/* A label (or annotation) key=value pair. */
typedef struct {
    char *key;
    char *value;
} gp_label;

/* A label selector requirement; op is "In", "NotIn", "Exists" or "DoesNotExist". */
typedef struct {
    char *key;
    char *op;
    char **values;
    size_t nvalues;
} gp_selector_req;

/* Where a consumer of informers (kube.h) stands in its full lists of one kind of object: each
 * list_begin starts a generation; objects stamped with an older one at list_end were not in the
 * list and are dropped. The caller holds its own lock around these. */
typedef struct {
    uint32_t gen;  /* the current list's generation: stamp objects the list delivers with it */
    bool listing;  /* between list_begin and list_end */
    bool synced;   /* a full list has completed */
} gp_relist;

void gp_relist_begin(gp_relist *r);
void gp_relist_end(gp_relist *r);

/* True when a change should be passed on at once: a list has completed and none is under way
 * (one under way passes on everything at its end). */
bool gp_relist_settled(const gp_relist *r);

/* An object's metadata.name when it is a non-empty string, else NULL (borrowed from obj). */
const char *gp_object_name(const cJSON *obj);

/* The value of key among labels l[0..n), or NULL when absent. */
const char *gp_label_find(const gp_label *l, size_t n, const char *key);

/* The profile a resource name asks for ("2g.20gb" of "nvidia.com/mig-2g.20gb"), or NULL when
 * the name is not a MIG resource or names no profile. */
const char *gp_mig_profile_of(const char *resource);

#endif
