/* SPDX-License-Identifier: Apache-2.0 */
/* Which nodes of a `kubectl get nodes -o json` dump admit a pod, by kube-scheduler's filters
 * besides resources (docs/simulation.md, "Inputs"): NodeUnschedulable (a cordoned node, as the
 * taint node.kubernetes.io/unschedulable:NoSchedule), TaintToleration (taints with effect
 * NoSchedule or NoExecute need a toleration; PreferNoSchedule only scores) and NodeAffinity
 * (spec.nodeSelector and the required node affinity against the node's labels). The rules are
 * the core's: gp_pod_may_use_node() (gpupack/nodematch.h) and gp_pod_tolerates()
 * (gpupack/podview.h).
 *
 * Pods with the same nodeSelector, required node affinity and (when some node is cordoned or
 * tainted) tolerations form a class; each class's nodes are judged once, when its first pod loads
 * (after the nodes), as for a pod yet to be placed (its spec.nodeName is not read: the caller
 * gives a pod bound to a node no class). Class 0 admits every node: a pod without any of them,
 * while no node is cordoned or tainted. CSV nodes have no labels or taints, and CSV tasks none of
 * the pod's fields. The nodes' labels and taints take what memory they need: the dump's size
 * bounds them. */
#ifndef GPUPACK_SIM_ADMIT_H
#define GPUPACK_SIM_ADMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "gpupack/arena.h"
#include "gpupack/k8s.h"
#include "gpupack/status.h"

#define SIM_ADMIT_MAX 255 /* classes, so that a task's class fits a byte */

typedef struct {
    gp_label *labels;
    size_t nlabels;
    gp_toleration *taints; /* each NoSchedule/NoExecute taint as an Equal toleration of it */
    size_t ntaints;
} sim_node_meta;

typedef struct {
    sim_node_meta *node; /* per node read by sim_admit_node(); the rest have none */
    size_t n_node, cap;
    bool tainted;        /* some node is cordoned or tainted NoSchedule/NoExecute */
    gp_arena arena;      /* the nodes' strings */
    bool arena_on;
    int n;               /* classes 1..n */
    char *key[SIM_ADMIT_MAX];
    uint64_t *bits;      /* class c admits node j: bit j of bits[(c - 1) * words ...] */
    size_t words;
} sim_admit;

/* Records node i's labels, cordon and taints from its Node object (i: the order of loading,
 * each node once). GP_EINVAL with err set when they are malformed; GP_ENOMEM. */
gp_status sim_admit_node(sim_admit *a, size_t i, const cJSON *node, gp_err *err) GP_WUR;

/* The class of a pod (NULL: a trace task, which has none of the fields) among nodes
 * [0..n_nodes), node j named by the string at names + j * name_len, into *cls. GP_EINVAL with
 * err set when the pod cannot be read or more than SIM_ADMIT_MAX classes are needed;
 * GP_ENOMEM. */
gp_status sim_admit_pod(sim_admit *a, const cJSON *pod, size_t n_nodes, const char *names,
                        size_t name_len, uint8_t *cls, gp_err *err) GP_WUR;

/* True when class cls admits node j. */
bool sim_admit_ok(const sim_admit *a, uint8_t cls, size_t j);

void sim_admit_free(sim_admit *a);

#endif
