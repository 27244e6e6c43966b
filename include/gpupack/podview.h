/* SPDX-License-Identifier: Apache-2.0 */
/* A Pod as the decisions need it: a small C struct decoded from the Pod's JSON.
 *
 * Strings are borrowed from the cJSON tree the view was decoded from (keep the tree alive while
 * the view is used); arrays are allocated from the caller's arena. Decoding is lenient where
 * Kubernetes is (absent fields are empty) and strict where a wrong type would make a decision
 * wrong (a container's resources that are not an object of quantity strings): those give GP_EINVAL
 * with a message naming the JSON path, and the webhook then fails open. */
#ifndef GPUPACK_PODVIEW_H
#define GPUPACK_PODVIEW_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "gpupack/arena.h"
#include "gpupack/k8s.h"
#include "gpupack/quantity.h"
#include "gpupack/status.h"

struct gp_policy; /* policy.h: only passed through here */

#define GP_POD_MAX_CONTAINERS 256 /* containers + init containers */
#define GP_POD_MAX_ITEMS 1024     /* tolerations, resources, terms, values */
/* Labels, annotations, nodeSelector: Kubernetes bounds annotations by their 256 KiB of keys and
 * values, not by count, and labels only by the object's size. */
#define GP_POD_MAX_MAP 262144

typedef struct {
    const char *name;
    gp_qty qty;
} gp_resource;

typedef struct {
    const char *name;
    bool init;    /* from spec.initContainers */
    bool sidecar; /* an init container with restartPolicy Always: runs beside the app (KEP-753) */
    int index;    /* position in its array */
    bool has_requests;
    gp_resource *requests;
    size_t nrequests;
    bool has_limits;
    gp_resource *limits;
    size_t nlimits;
} gp_container;

/* One node selector term (required) or preference (preferred): its matchExpressions and
 * matchFields (key metadata.name). */
typedef struct {
    int weight; /* preferred terms only */
    gp_selector_req *exprs;
    size_t nexprs;
    gp_selector_req *fields;
    size_t nfields;
} gp_node_term;

typedef struct {
    const char *namespace;
    const char *name;
    const char *generate_name;
    gp_label *labels;
    size_t nlabels;
    gp_label *annotations;
    size_t nannotations;
    const char *owner_kind; /* the controlling owner's kind (or the first owner's); NULL: none */
    const char *owner_name; /* the same owner's name; NULL when it has none */
    gp_container *containers;
    size_t ncontainers;
    gp_toleration *tolerations;
    size_t ntolerations;
    const char *priority_class; /* NULL or "" when unset */
    bool has_priority;          /* spec.priority present */
    bool has_preemption_policy; /* spec.preemptionPolicy present */
    bool has_active_deadline;
    const char *node_name;      /* spec.nodeName, NULL when unset */
    gp_label *node_selector;    /* spec.nodeSelector (string values) */
    size_t nnode_selector;
    const char *scheduler_name; /* spec.schedulerName, NULL when unset */
    gp_node_term *required;     /* requiredDuringScheduling...nodeSelectorTerms */
    size_t nrequired;
    gp_node_term *preferred;    /* preferredDuringScheduling... preferences */
    size_t npreferred;
} gp_pod;

/* Decodes a Pod object. ns_fallback is used when metadata.namespace is absent (kube-apiserver
 * puts the namespace in the AdmissionRequest, not always in the object). */
gp_status gp_pod_from_json(const cJSON *pod, const char *ns_fallback, gp_arena *a, gp_pod *out,
                           gp_err *err) GP_WUR;

/* Lookups; NULL when absent. */
const char *gp_pod_label(const gp_pod *p, const char *key);
const char *gp_pod_annotation(const gp_pod *p, const char *key);
const gp_resource *gp_container_request(const gp_container *c, const char *name);
const gp_resource *gp_container_limit(const gp_container *c, const char *name);

/* True when any container or init container requests or limits a GPU resource of the policy. */
bool gp_pod_is_gpu(const gp_pod *p, const struct gp_policy *pol);

/* True when toleration have tolerates every taint that want tolerates (Kubernetes semantics:
 * empty key with Exists matches any key; empty effect matches any effect; Exists matches any
 * value; a NoExecute tolerationSeconds limit is weaker than none). */
bool gp_toleration_covers(const gp_toleration *have, const gp_toleration *want);

/* True when one of the pod's tolerations covers taint, as kube-scheduler's TaintToleration
 * filter judges it (tolerationSeconds, which only delays an eviction, is not read). */
bool gp_pod_tolerates(const gp_pod *pod, const gp_toleration *taint);

#endif
