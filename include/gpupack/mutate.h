/* SPDX-License-Identifier: Apache-2.0 */
/* The webhook's decisions: which class a GPU pod belongs to and which changes it needs.
 *
 * Pure: pod view + policy + cluster view in, a list of changes (each with a reason) out. Every
 * change is made only when the pod lacks it, so deciding over an already-mutated pod yields no
 * change (kube-apiserver reinvokes the webhook with reinvocationPolicy IfNeeded). */
#ifndef GPUPACK_MUTATE_H
#define GPUPACK_MUTATE_H

#include <stdbool.h>
#include <stddef.h>

#include "gpupack/arena.h"
#include "gpupack/cluster.h"
#include "gpupack/podview.h"
#include "gpupack/policy.h"
#include "gpupack/status.h"

#define GP_MAX_CHANGES 256
#define GP_MAX_WARNINGS 32
#define GP_WARNING_MAX_LEN 200 /* characters in one warning line */

typedef enum {
    GP_CH_SET_LABEL,            /* metadata.labels[key] = value */
    GP_CH_SET_ANNOTATION,       /* metadata.annotations[key] = value */
    GP_CH_ADD_TOLERATION,       /* spec.tolerations += tol */
    GP_CH_SET_PRIORITY_CLASS,   /* spec.priorityClassName = value */
    GP_CH_REMOVE_PRIORITY,      /* remove spec.priority */
    GP_CH_REMOVE_PREEMPTION,    /* remove spec.preemptionPolicy */
    GP_CH_ADD_PREFERRED,        /* nodeAffinity.preferred += {weight, exprs} */
    GP_CH_ADD_REQUIRED,         /* every required term += exprs (a new term when none) */
    GP_CH_REPLACE_RESOURCE,     /* container's key -> value, quantity "1", requests and limits */
    GP_CH_SET_ACTIVE_DEADLINE,  /* spec.activeDeadlineSeconds = seconds */
    GP_CH_SET_SCHEDULER_NAME    /* spec.schedulerName = value */
} gp_change_kind;

/* What a change counts as: (id, the kind label of gpupack_mutations_total and
 * gpupack_audit_would_mutate_total). The labels are listed in docs/webhook.md; keep them stable. */
#define GP_MUTATION_KINDS(X)                    \
    X(GP_MK_TOLERATION, "toleration")           \
    X(GP_MK_CLASS_LABEL, "class-label")         \
    X(GP_MK_PRIORITY_CLASS, "priority-class")   \
    X(GP_MK_PLACEMENT, "placement")             \
    X(GP_MK_MIG, "mig")                         \
    X(GP_MK_RUNTIME_CAP, "runtime-cap")         \
    X(GP_MK_SPOT, "spot")                       \
    X(GP_MK_ANNOTATION, "annotation")           \
    X(GP_MK_SCHEDULER_NAME, "scheduler-name")

#define GP_MUTATION_ENUM(id, label) id,
typedef enum { GP_MUTATION_KINDS(GP_MUTATION_ENUM) GP_MK_COUNT } gp_mutation_kind;
#undef GP_MUTATION_ENUM

/* A mutation kind's metric label; NULL past the table. */
const char *gp_mutation_kind_label(gp_mutation_kind k);

typedef struct {
    gp_change_kind kind;
    gp_mutation_kind metric;    /* what it counts as in gpupack_mutations_total{kind} */
    const char *key;
    const char *value;
    const gp_toleration *tol;
    int weight;
    const gp_label *labels;     /* ADD_PREFERRED / ADD_REQUIRED: key In [value] each */
    size_t nlabels;
    const gp_container *container;
    long long seconds;
    const char *reason;         /* one line for warnings and the summary */
} gp_change;

typedef struct {
    bool gpu;                /* the pod asks for GPU resources */
    bool skipped;  /* left alone on purpose (mirror pod, skip label, excluded namespace) */
    const char *skip_reason;
    const char *class_name;  /* NULL: no class */
    const char *class_why;   /* "label", "rule batch-jobs (owner Job)", "defaultClass" */
    gp_change *changes;
    size_t nchanges;
    const char **warnings;   /* extra warnings (not one per change): no MIG fit, bad hint,
                                no class */
    size_t nwarnings;
    const char *summary;     /* for gpupack.io/mutated; NULL when nothing changes */
} gp_decision;

/* Picks the pod's class: label gpupack.io/class when it names a policy class, else the first
 * matching rule, else the policy's defaultClass. *why says which; both NULL when no class. An
 * unknown label value gives no class and *why "unknown class label". */
void gp_classify(const gp_pod *pod, const gp_policy *pol, const char **class_name,
                 const char **why, gp_arena *a);

/* The kind a pod effectively belongs to when its controlling owner is an intermediate object:
 * KubeRay creates a RayCluster for each RayJob and labels the cluster's pods
 * ray.io/originated-from-crd: RayJob, so a RayCluster-owned pod with that label returns "RayJob".
 * NULL for every other pod. Rules listing this kind match the pod as well as rules listing its
 * direct owner's kind. */
const char *gp_pod_origin_kind(const gp_pod *pod);

/* Decides the changes for a pod being created. view may be NULL. All memory comes from a.
 * Returns GP_ENOMEM when the arena is exhausted; the decision is then unusable. */
gp_status gp_mutate(const gp_pod *pod, const gp_policy *pol, const gp_cluster *view, gp_arena *a,
                    gp_decision *out) GP_WUR;

/* Where a pod may land, for gp_mig_pick(): its own node selection (nodeName, nodeSelector,
 * required node affinity), the labels the webhook itself requires for its class (a required
 * pool; NULL / 0 when none), and how many slices of the profile the pod will hold (a node with
 * fewer allocatable instances of it cannot take the pod; 0 or 1: one). */
typedef struct {
    const gp_pod *pod;
    const gp_label *required;
    size_t nrequired;
    int32_t count;
} gp_mig_where;

/* The MIG profile for one GPU needing `need` memory: fewest compute slices, then least memory,
 * then name. A profile's memory is its usable framebuffer: the policy's figure, or for a profile
 * the policy does not list 7/8 of the <M> GiB in its name "<N>g.<M>gb". When the view knows
 * nodes (a snapshot, or a live view after its first list): among the profiles offered by nodes
 * the pod may use (where; NULL: any node). Otherwise among the policy's list only when the policy
 * says it is authoritative (where is not consulted: without nodes nothing says which node offers
 * what), else none: a slice no node offers would leave the pod Pending. Returns NULL when none
 * is large enough or none may be used. */
const gp_mig_profile *gp_mig_pick(const gp_policy *pol, const gp_cluster *view,
                                  const gp_mig_where *where, gp_qty need, gp_arena *a);

#endif
