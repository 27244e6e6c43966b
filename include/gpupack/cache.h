/* SPDX-License-Identifier: Apache-2.0 */
/* The extender's live cluster view: Nodes and the resources bound pods use on them.
 *
 * Fed by two informers (list + watch, see kube.h) or by snapshot files (`kubectl get nodes -o
 * json`, `kubectl get pods -A -o json`). Pods are keyed by uid (a pod without one, as in a
 * hand-written snapshot, by namespace and name), so an event that repeats what the
 * cache already holds (a relist, a MODIFIED that changes nothing, the binding of a pod the
 * extender had assumed on a node) never counts a pod twice. A pod uses resources on its node from
 * the moment it is bound (spec.nodeName) until it is deleted or terminates (phase Succeeded or
 * Failed): terminated pods count as free. Each cached pod takes a fixed 40-byte record (and a pod
 * that uses MIG slices a 32-byte entry besides), never a JSON tree.
 *
 * Assumptions: after prioritize, the extender may assume the pod on its best node for a short
 * time (the scheduler binds a moment later), so the next pod scored before the watch reports the
 * binding sees that capacity as taken. An assumption is dropped when the pod shows up bound
 * (anywhere), is deleted, or expires.
 *
 * Threads: writers (informer threads) take a write lock per event; readers take the read lock
 * with gp_cache_rdlock() for a whole filter/prioritize call and build node views from it. */
#ifndef GPUPACK_CACHE_H
#define GPUPACK_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "gpupack/arena.h"
#include "gpupack/frag.h"
#include "gpupack/nodeview.h"
#include "gpupack/policy.h"
#include "gpupack/score.h"
#include "gpupack/status.h"

#define GP_CACHE_MAX_NODES 100000
#define GP_CACHE_MAX_PODS 2000000
#define GP_CACHE_MAX_ASSUMED 4096
#define GP_CACHE_MAX_SHAPES 1024       /* distinct pod shapes counted for the workload mix */
#define GP_CACHE_MIX_POPULARITY 95     /* the learned mix keeps the shapes covering 95% of pods */

typedef struct gp_cache gp_cache;

/* policy gives the spot labels used when decoding nodes; not owned. NULL on allocation failure. */
gp_cache *gp_cache_new(gp_policy_holder *policy);
void gp_cache_free(gp_cache *c); /* NULL is harmless */

/* A full list (first or relist): begin, put every item, end. Objects the list did not contain
 * are dropped at end. The first end of each kind marks it synced. */
void gp_cache_nodes_begin(gp_cache *c);
void gp_cache_nodes_end(gp_cache *c);
void gp_cache_pods_begin(gp_cache *c);
void gp_cache_pods_end(gp_cache *c);

/* One object, from a list or a watch event (type "ADDED", "MODIFIED", "DELETED"; NULL for list
 * items). Objects that cannot be decoded are skipped and counted (gp_cache_stats.bad). */
void gp_cache_node_event(gp_cache *c, const char *type, const cJSON *node);
void gp_cache_pod_event(gp_cache *c, const char *type, const cJSON *pod);

/* Loads both snapshot files' contents (List JSON) as full lists. Errors name the input; a pod
 * with neither metadata.uid nor metadata.name, or an item repeating an earlier item's pod, is an
 * error naming the item (the pods then stay unsynced). */
gp_status gp_cache_load_snapshot(gp_cache *c, const char *nodes_json, size_t nodes_len,
                                 const char *pods_json, size_t pods_len, gp_err *err) GP_WUR;

/* Assumes the pod (uid) on node until now_ms + ttl_ms. */
void gp_cache_assume(gp_cache *c, const char *uid, const char *node, const gp_usage *u,
                     int64_t now_ms, int64_t ttl_ms);

/* True once both the node and the pod lists have completed once. Cheap: for every call. */
bool gp_cache_synced(gp_cache *c);

/* Readers. */
void gp_cache_rdlock(gp_cache *c);
void gp_cache_unlock(gp_cache *c);

/* What a call reads the view for: the time assumptions are checked against, and the pod being
 * placed, whose own assumption is left out (a pod sent again after a failed cycle, a rejected
 * Permit or bind, must not find the node it was assumed on taken by itself). uid NULL or "":
 * no pod's assumption is left out. */
typedef struct gp_cache_at {
    int64_t now_ms;
    bool has_self;
    uint8_t self[16];
} gp_cache_at;
gp_cache_at gp_cache_at_for(const char *uid, int64_t now_ms);

/* Under the read lock: fills *out with the node named name as scoring sees it (allocatable,
 * used by bound pods, plus unexpired assumptions at at->now_ms but at->self's). Strings in *out
 * borrow from the cache and stay valid until gp_cache_unlock(). Returns false when the node is
 * unknown. */
bool gp_cache_view(gp_cache *c, const char *name, const gp_cache_at *at, gp_node *out);

/* Under the read lock: the bound usage on a node (for a Node object sent in full by the
 * scheduler) and its assumptions as gp_cache_view() counts them, added to out's used counters.
 * Returns false when the node is unknown. */
bool gp_cache_add_usage(gp_cache *c, const char *name, const gp_cache_at *at, gp_node *out);

/* Under the read lock: every known node's name, in a stable order (for --once without names). */
size_t gp_cache_node_names(gp_cache *c, const char **names, size_t max);

/* Under the read lock: the cluster's typical GPU pod per GPU (averages over bound GPU pods), or
 * the policy's defaults when there are none. */
gp_typical gp_cache_typical(gp_cache *c, const gp_policy *pol);

/* Under the read lock: the workload mix learned from the pod watch, as FGD builds its target
 * workload: the shapes (whole GPUs, CPU) of the bound pods that use whole GPUs and (CPU only) of
 * the CPU-only pods bound to nodes with whole GPUs, DaemonSet pods aside, the most common
 * first until they cover GP_CACHE_MIX_POPULARITY % of those pods, at most max shapes, with their
 * frequencies. The shapes are allocated from a. Returns out->n: 0 when no such pod is bound (or
 * on allocation failure); the caller then falls back to the policy's typical pod. */
size_t gp_cache_mix(gp_cache *c, gp_arena *a, size_t max, gp_frag_mix *out);

/* Under the read lock: the model pressure (gp_score_model_pressure()) of the bound whole-GPU
 * pods that a GPU model constraint keeps to some models (class gpuModels or excludeGpuModels,
 * annotation gpupack.io/gpu-models, nodeSelector or required node affinity In values on
 * nvidia.com/gpu.product), judged with pol, over the nodes' GPUs per nvidia.com/gpu.product,
 * into t (arrays from a; the model names borrow from the cache until gp_cache_unlock()).
 * Leaves t's pressure NULL when no bound pod has such a constraint (or on allocation
 * failure). */
void gp_cache_pressure(gp_cache *c, const gp_policy *pol, gp_arena *a, gp_typical *t);

typedef struct {
    size_t nodes;
    size_t pods;      /* records held (bound or pending) */
    size_t bound;     /* pods using resources on a node */
    size_t assumed;
    uint64_t bad;     /* objects skipped as undecodable */
    size_t shapes;    /* distinct (GPUs, CPU) shapes of bound whole-GPU pods: the learned mix */
    size_t constraints; /* distinct GPU model constraints of pods held (the model pressure) */
    size_t models;    /* distinct nvidia.com/gpu.product values of nodes */
    bool nodes_synced, pods_synced;
    size_t bytes;     /* memory held by the tables */
} gp_cache_stats;

gp_cache_stats gp_cache_get_stats(gp_cache *c);

#endif
