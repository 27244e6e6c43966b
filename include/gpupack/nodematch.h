/* SPDX-License-Identifier: Apache-2.0 */
/* Whether a pod may run on a node, judged by the node selection Kubernetes checks for every pod
 * (the scheduler's NodeAffinity and NodeName filters, and the kubelet's admission again):
 * spec.nodeName, spec.nodeSelector and the required node affinity.
 *
 * Pure: the pod view (podview.h) and a node's name and labels in, a yes or no out. Semantics as
 * Kubernetes defines them: nodeSelector entries must all be on the node with equal values;
 * nodeSelectorTerms are ORed, the matchExpressions and matchFields inside one term ANDed, and a
 * term with neither matches no node; operators In, NotIn, Exists, DoesNotExist, Gt and Lt (Gt/Lt:
 * the node's value and the single listed value are base-10 int64, else no match); matchFields
 * only on metadata.name with In or NotIn. Anything else (an unknown operator or field) matches
 * nothing, as kube-apiserver would have rejected the pod. */
#ifndef GPUPACK_NODEMATCH_H
#define GPUPACK_NODEMATCH_H

#include <stdbool.h>
#include <stddef.h>

#include "gpupack/podview.h"
#include "gpupack/k8s.h"

/* True when the pod's node selection admits the node (name may be "" when unknown: then only a
 * pod without nodeName and without matchFields can match). extra lists requirements the node
 * must meet in addition (ANDed), for constraints the caller adds, such as the webhook's required
 * pool and GPU models; NULL with nextra 0 for none. */
bool gp_pod_may_use_node(const gp_pod *pod, const gp_selector_req *extra, size_t nextra,
                         const char *name, const gp_label *labels, size_t nlabels);

/* One requirement against a label set (Kubernetes NodeSelectorRequirement semantics above). */
bool gp_node_req_matches(const gp_selector_req *r, const gp_label *labels, size_t nlabels);

/* The nvidia.com/gpu.product values a pod may run on, by its nodeSelector and its required
 * node affinity (terms ORed, a term's expressions ANDed) both: In narrows, NotIn removes from
 * a narrowed set (from no restriction it cannot: still any), DoesNotExist allows none; other
 * keys are not read. v points into the pod. */
#define GP_MAX_PRODUCTS 64
typedef struct {
    const char *v[GP_MAX_PRODUCTS];
    size_t n;
    bool any; /* no restriction (v unused) */
} gp_products;

/* False when the values do not fit GP_MAX_PRODUCTS (the caller then counts the pod as free to
 * run on any product). Pure. */
bool gp_pod_gpu_products(const gp_pod *pod, gp_products *out);

#endif
