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
#include "gpupack/recs.h"
#include "gpupack/status.h"

#define GP_MAX_CHANGES 256
#define GP_MAX_WARNINGS 32
#define GP_WARNING_MAX_LEN 200 /* characters in one warning line */

/* What gpupack writes and reads for rightsizing and cost attribution (docs/webhook.md). */
#define GP_LABEL_RIGHTSIZING "gpupack.io/rightsizing" /* "off": never rightsize this pod */
#define GP_LABEL_WORKLOAD "gpupack.io/workload"       /* "deployment.ranker" */
#define GP_LABEL_MODEL "gpupack.io/model"             /* from the policy's advisor.modelLabels */
#define GP_ANN_RECOMMENDED "gpupack.io/recommended-gpu-memory"
#define GP_LABEL_VALUE_MAX 63 /* characters in a label value */

typedef enum {
    GP_CH_SET_LABEL,            /* metadata.labels[key] = value */
    GP_CH_SET_ANNOTATION,       /* metadata.annotations[key] = value */
    GP_CH_ADD_TOLERATION,       /* spec.tolerations += tol */
    GP_CH_SET_PRIORITY_CLASS,   /* spec.priorityClassName = value */
    GP_CH_REMOVE_PRIORITY,      /* remove spec.priority */
    GP_CH_REMOVE_PREEMPTION,    /* remove spec.preemptionPolicy */
    GP_CH_ADD_PREFERRED,        /* nodeAffinity.preferred += {weight, exprs} */
    GP_CH_ADD_REQUIRED,         /* every required term += the exprs it lacks (a new term when
                                   none; a term with no expression and no field is left alone) */
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
    X(GP_MK_GPU_MODEL, "gpu-model")             \
    X(GP_MK_MIG, "mig")                         \
    X(GP_MK_RUNTIME_CAP, "runtime-cap")         \
    X(GP_MK_SPOT, "spot")                       \
    X(GP_MK_ANNOTATION, "annotation")           \
    X(GP_MK_SCHEDULER_NAME, "scheduler-name")   \
    X(GP_MK_RIGHTSIZING, "rightsizing")         \
    X(GP_MK_COST_LABELS, "cost-labels")

#define GP_MUTATION_ENUM(id, label) id,
typedef enum { GP_MUTATION_KINDS(GP_MUTATION_ENUM) GP_MK_COUNT } gp_mutation_kind;
#undef GP_MUTATION_ENUM

/* A mutation kind's metric label; NULL past the table. */
const char *gp_mutation_kind_label(gp_mutation_kind k);

/* What became of the advisor's recommendation for a pod: (id, the action label of
 * gpupack_rightsizing_total). GP_RS_NONE (no recommendation looked at or found) is not counted. */
#define GP_RS_ACTIONS(X)                   \
    X(GP_RS_RECOMMEND, "recommend")        \
    X(GP_RS_APPLY, "apply")                \
    X(GP_RS_EXPIRED, "expired")            \
    X(GP_RS_OPTED_OUT, "opted-out")        \
    X(GP_RS_USER_SET, "user-set")

#define GP_RS_ENUM(id, label) id,
typedef enum { GP_RS_NONE = 0, GP_RS_ACTIONS(GP_RS_ENUM) GP_RS_COUNT } gp_rs_action;
#undef GP_RS_ENUM

/* An action's metric label; NULL for GP_RS_NONE and past the table. */
const char *gp_rs_action_label(gp_rs_action a);

typedef struct {
    gp_change_kind kind;
    gp_mutation_kind metric;    /* what it counts as in gpupack_mutations_total{kind} */
    const char *key;
    const char *value;
    const gp_toleration *tol;
    int weight;
    const gp_selector_req *exprs; /* ADD_PREFERRED / ADD_REQUIRED: matchExpressions */
    size_t nexprs;
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
    /* What became of the advisor's recommendation for the pod; GP_RS_NONE when there is none,
     * and for expired / opted-out / user-set on a pod that already carries gpupack.io/mutated
     * (a reinvocation: counted on the first call). */
    gp_rs_action rightsizing;
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

/* What gp_mutate() decides with besides the pod, the policy and the cluster view. */
typedef struct {
    /* The advisor's recommendations (recs.h), looked up by the pod's workload (gp_workload_of()
     * of its namespace, name or generateName, labels and controlling owner); NULL: none. Used
     * per the class's policy "rightsizing":
     *   recommend: annotation gpupack.io/recommended-gpu-memory (gp_rec_text()) and a warning;
     *   apply: the MIG rewrite as if the pod were annotated gpupack.io/gpu-memory with the
     *     recommendation (only in a class with migAllowed; in one without, as recommend), the
     *     evidence and the date in gpupack.io/mutated and gpupack.io/original-resources.
     * Never when the pod sets gpupack.io/gpu-memory itself (user-set), is labelled
     * gpupack.io/rightsizing: "off" (opted-out), or the recommendation has expired at now. */
    const gp_recs *recs;
    double now;          /* seconds since the epoch: expiry, and the date recorded on apply */
    /* Labels gpupack.io/workload ("<kind>.<name>", label-safe) and gpupack.io/model (the value
     * of the first of the policy's advisor.modelLabels the pod has), each when absent. */
    bool cost_labels;
} gp_mutate_opts;

/* Decides the changes for a pod being created. view may be NULL; opts may be NULL (no
 * recommendations, no cost labels). All memory comes from a. Returns GP_ENOMEM when the arena
 * is exhausted; the decision is then unusable. */
gp_status gp_mutate(const gp_pod *pod, const gp_policy *pol, const gp_cluster *view,
                    const gp_mutate_opts *opts, gp_arena *a, gp_decision *out) GP_WUR;

/* The text of annotation gpupack.io/recommended-gpu-memory for rec (from the arena; NULL when
 * it is exhausted): the quantity first, then the evidence, every part known
 *   "11Gi (mig 2g.20gb; peak 9216 MiB, p95 12%, 168 h to 2026-12-04T18:00:00Z,
 *    expires 2026-12-07T18:00:00Z)". */
const char *gp_rec_text(const gp_rec *rec, gp_arena *a);

/* A label value made of s: characters other than [A-Za-z0-9._-] become '-', leading and
 * trailing non-alphanumerics are dropped, and past 63 characters it is cut and ends in '-' and
 * 8 hex digits of a hash of s (so two long names stay distinct). NULL when nothing is left (or
 * the arena is exhausted). */
const char *gp_label_safe(const char *s, gp_arena *a);

/* Where a pod may land, for gp_mig_pick(): its own node selection (nodeName, nodeSelector,
 * required node affinity), the requirements the webhook itself adds (its class's required pool,
 * the GPU model rules of gpuaff.h; NULL / 0 when none), and how many slices of the profile the
 * pod will hold (a node with fewer allocatable instances of it cannot take the pod; 0 or 1:
 * one). */
typedef struct {
    const gp_pod *pod;
    const gp_selector_req *required;
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
