/* SPDX-License-Identifier: Apache-2.0 */
/* The cluster view the decisions consult: what the cluster really offers.
 *
 * For the webhook: the MIG profiles that nodes advertise (allocatable `nvidia.com/mig-<profile>`
 * greater than zero), the PriorityClasses that exist and which one is the global default. A view is immutable and reference-counted,
 * built from `kubectl get nodes -o json` / `kubectl get priorityclasses -o json` output (snapshot
 * files) or from the API. When a part is unknown (has_nodes / has_priority_classes false) the
 * decisions fall back to what the policy states. */
#ifndef GPUPACK_CLUSTER_H
#define GPUPACK_CLUSTER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "gpupack/k8s.h"
#include "gpupack/status.h"

#define GP_CLUSTER_MAX_BYTES (256u * 1024 * 1024) /* largest snapshot file accepted */
#define GP_CLUSTER_MAX_NAMES 4096                  /* distinct MIG profiles or priority classes */
#define GP_CLUSTER_MAX_MIG_NODES 16384  /* nodes offering MIG profiles a view keeps */
#define GP_CLUSTER_MAX_NODE_LABELS 1024 /* labels of one such node */

/* A node that offers MIG profiles, as the MIG choice needs it: where a pod may land is judged
 * on its name and labels (nodematch.h). Nodes that offer no profile are not kept. */
typedef struct {
    char *name;        /* "" when the object had none */
    gp_label *labels;  /* metadata.labels with string values, sorted by key */
    size_t nlabels;
    char **profiles;   /* offered profile names (allocatable > 0), sorted, unique */
    int32_t *counts;   /* allocatable instances of each profile (parallel to profiles) */
    uint32_t *idx;     /* each profile's position in the view's mig_profiles (parallel) */
    size_t nprofiles;
} gp_cluster_node;

typedef struct gp_cluster {
    atomic_int refs;
    bool has_nodes;
    char **mig_profiles; /* profile names ("2g.20gb") any node offers, sorted, unique */
    size_t nmig_profiles;
    gp_cluster_node *nodes; /* the nodes offering them, in list order */
    size_t nnodes;
    char **gpu_products; /* every nvidia.com/gpu.product value a node carries (label values
                            only), sorted, unique */
    size_t ngpu_products;
    bool has_priority_classes;
    char **priority_classes; /* names, sorted, unique */
    size_t npriority_classes;
    char *global_default; /* the globalDefault PriorityClass (lowest value if several); NULL */
} gp_cluster;

/* An empty view (nothing known). NULL on allocation failure. */
gp_cluster *gp_cluster_new(void);

/* Fills the node part from a NodeList's JSON (`kubectl get nodes -o json`, or a List of Nodes):
 * the profiles offered and, per node offering any, its name, labels and profiles; the GPU
 * products of all nodes. More than
 * GP_CLUSTER_MAX_MIG_NODES such nodes, or one with more than GP_CLUSTER_MAX_NODE_LABELS labels,
 * is GP_ETOOBIG (the view is left as it was). */
gp_status gp_cluster_set_nodes_json(gp_cluster *c, const char *json, size_t len, gp_err *err) GP_WUR;

/* Fills the PriorityClass part from a PriorityClassList's JSON. */
gp_status gp_cluster_set_priority_classes_json(gp_cluster *c, const char *json, size_t len,
                                               gp_err *err) GP_WUR;

bool gp_cluster_has_priority_class(const gp_cluster *c, const char *name);

/* The PriorityClass the Priority admission plugin gives pods that name none: the one with
 * globalDefault true (several: the lowest value, as the plugin picks). NULL when there is none
 * or the PriorityClasses are unknown. */
const char *gp_cluster_global_default(const gp_cluster *c);

/* A live source for the view, fed by informers (kube.h) on Nodes and PriorityClasses. Each
 * time what the webhook cares about changes (a node's offered MIG profiles, the labels of a node
 * that offers any, a node's nvidia.com/gpu.product, the set of
 * PriorityClasses, which one is globalDefault) and after each complete list, it builds a new gp_cluster and hands it to
 * publish (which takes the reference). Node heartbeats that change nothing publish nothing.
 * The node part counts as known after the first complete node list; likewise PriorityClasses. */
typedef struct gp_cluster_live gp_cluster_live;
typedef void (*gp_cluster_publish_fn)(void *ctx, gp_cluster *view);

gp_cluster_live *gp_cluster_live_new(gp_cluster_publish_fn publish, void *ctx);
void gp_cluster_live_free(gp_cluster_live *l); /* NULL is harmless */
void gp_cluster_live_nodes_begin(gp_cluster_live *l);
void gp_cluster_live_node(gp_cluster_live *l, const char *type, const cJSON *node);
void gp_cluster_live_nodes_end(gp_cluster_live *l);
void gp_cluster_live_pcs_begin(gp_cluster_live *l);
void gp_cluster_live_pc(gp_cluster_live *l, const char *type, const cJSON *pc);
void gp_cluster_live_pcs_end(gp_cluster_live *l);

gp_cluster *gp_cluster_ref(gp_cluster *c);
void gp_cluster_unref(gp_cluster *c); /* NULL is harmless */

#endif
