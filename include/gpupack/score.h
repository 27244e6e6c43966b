/* SPDX-License-Identifier: Apache-2.0 */
/* The extender's decisions: which nodes can take a pod (filter) and how good each is (prioritize).
 *
 * Pure: a pod's demand + node views + policy in, per-node verdicts out. No clock, no I/O.
 * docs/scoring.md explains the components and the 0..10 mapping with worked examples. */
#ifndef GPUPACK_SCORE_H
#define GPUPACK_SCORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpupack/arena.h"
#include "gpupack/frag.h"
#include "gpupack/nodeview.h"
#include "gpupack/podview.h"
#include "gpupack/policy.h"
#include "gpupack/status.h"

#define GP_SCORE_MAX 10
#define GP_SCORE_MIN_RANKED 1 /* the worst score of a node the pod may use; 0 means it may not */
#define GP_REASON_MAX 160

/* What a pod needs and allows. */
typedef struct {
    gp_usage usage;
    bool gpu;            /* asks for GPU resources */
    bool never_filter;   /* DaemonSet-owned or pinned to a node (spec.nodeName): filter passes all */
    bool spot_ok;        /* checkpointing "true" and its class allows spot */
    bool spot_hard;      /* the filter enforces the spot rule for this pod: scoring.spotFilter
                            "hard", the policy enforced, and the pod one gpupack classes (a
                            class label of the policy; not skipped, not in an excluded
                            namespace). Other GPU pods keep spot nodes at score 0 only. */
    bool cordon_ok;      /* tolerates node.kubernetes.io/unschedulable:NoSchedule, so a cordoned
                            node may take it (kube-scheduler's NodeUnschedulable plugin) */
    const char *class_name; /* from label gpupack.io/class, NULL when none or unknown */
    const char **allow_models; /* globs (class gpuModels, then the annotation's); empty: any */
    size_t nallow;
    const char **deny_models;
    size_t ndeny;
} gp_demand;

/* Builds the demand, the class being the one the pod's gpupack.io/class label names. Strings
 * borrow from pod and pol; arrays come from a. allow_models lists the class's gpuModels first
 * (cls->ngpu_models of them), then the annotation's; deny_models likewise. */
gp_status gp_demand_from_pod(const gp_pod *pod, const gp_policy *pol, gp_arena *a,
                             gp_demand *out, gp_err *err) GP_WUR;

/* The same for a pod of class cls (NULL: none), which its label may not name yet: the webhook
 * judges the pod it is about to label. */
gp_status gp_demand_for_class(const gp_pod *pod, const gp_policy *pol, const gp_class *cls,
                              gp_arena *a, gp_demand *out, gp_err *err) GP_WUR;

typedef enum {
    GP_FILTER_PASS = 0,
    GP_FILTER_FULL = 1,         /* FailedNodes: only full now; preemption may help */
    GP_FILTER_UNRESOLVABLE = 2  /* FailedAndUnresolvableNodes: no such resource or model at all,
                                   cordoned (for a pod that does not tolerate it), or a spot
                                   node the pod may not use (scoring.spotFilter "hard") */
} gp_filter_verdict;

/* The kinds of reason the filter gives: (id, label). The label is the reason label of
 * gpupack_extender_filter_reasons_total, listed in docs/extender.md; keep them stable. */
#define GP_FILTER_KINDS(X)               \
    X(GP_FK_GPU, "gpu")                  \
    X(GP_FK_MIG, "mig")                  \
    X(GP_FK_GPU_MODEL, "gpu-model")      \
    X(GP_FK_CORDONED, "cordoned")        \
    X(GP_FK_SPOT, "spot")                \
    X(GP_FK_UNKNOWN_NODE, "unknown-node")

/* Every reason the filter gives: (id, kind, verdict, message format). A format takes its string
 * arguments first (gp_filter_why.s, in order), then its numbers (gp_filter_why.n). The messages
 * reach users (FailedNodes, --explain) and fixture cases compare them. */
#define GP_FILTER_REASONS(X)                                                                     \
    X(GP_FR_CORDONED, GP_FK_CORDONED, GP_FILTER_UNRESOLVABLE,                                    \
      "node is cordoned (spec.unschedulable)")                                                   \
    X(GP_FR_UNKNOWN_NODE, GP_FK_UNKNOWN_NODE, GP_FILTER_FULL,                                    \
      "node unknown to gpupack's cluster view")                                                  \
    X(GP_FR_MODEL_DENIED_CLASS, GP_FK_GPU_MODEL, GP_FILTER_UNRESOLVABLE,                         \
      "GPU model %s excluded by class %s (excludeGpuModels \"%s\")")                             \
    X(GP_FR_MODEL_DENIED_ANN, GP_FK_GPU_MODEL, GP_FILTER_UNRESOLVABLE,                           \
      "GPU model %s excluded by annotation " GP_ANN_GPU_MODELS " (\"!%s\")")                     \
    X(GP_FR_MODEL_NOT_CLASS, GP_FK_GPU_MODEL, GP_FILTER_UNRESOLVABLE,                            \
      "GPU model %s not allowed by class %s (gpuModels)")                                        \
    X(GP_FR_MODEL_NOT_ANN, GP_FK_GPU_MODEL, GP_FILTER_UNRESOLVABLE,                              \
      "GPU model %s not allowed by annotation " GP_ANN_GPU_MODELS)                               \
    X(GP_FR_MODEL_NOT_BOTH, GP_FK_GPU_MODEL, GP_FILTER_UNRESOLVABLE,                             \
      "GPU model %s not allowed by class %s (gpuModels) or annotation " GP_ANN_GPU_MODELS)       \
    X(GP_FR_UNLABELED_CLASS, GP_FK_GPU_MODEL, GP_FILTER_UNRESOLVABLE,                            \
      "node has no " GP_LABEL_GPU_PRODUCT " label; GPU models are restricted by class %s "       \
      "(gpuModels)")                                                                             \
    X(GP_FR_UNLABELED_ANN, GP_FK_GPU_MODEL, GP_FILTER_UNRESOLVABLE,                              \
      "node has no " GP_LABEL_GPU_PRODUCT " label; GPU models are restricted by annotation "     \
      GP_ANN_GPU_MODELS)                                                                         \
    X(GP_FR_UNLABELED_BOTH, GP_FK_GPU_MODEL, GP_FILTER_UNRESOLVABLE,                             \
      "node has no " GP_LABEL_GPU_PRODUCT " label; GPU models are restricted by class %s "       \
      "(gpuModels) or annotation " GP_ANN_GPU_MODELS)                                            \
    X(GP_FR_SPOT_CLASS, GP_FK_SPOT, GP_FILTER_UNRESOLVABLE,                                      \
      "spot node: class %s does not allow spot")                                                 \
    X(GP_FR_SPOT_CHECKPOINT, GP_FK_SPOT, GP_FILTER_UNRESOLVABLE,                                 \
      "spot node: class %s needs annotation " GP_ANN_CHECKPOINTING "=true")                      \
    X(GP_FR_GPU_TOO_FEW, GP_FK_GPU, GP_FILTER_UNRESOLVABLE,                                      \
      GP_RES_GPU ": node has %d, pod needs %d")                                                  \
    X(GP_FR_MIG_NONE, GP_FK_MIG, GP_FILTER_UNRESOLVABLE, GP_RES_MIG_PREFIX "%s: node has none") \
    X(GP_FR_MIG_TOO_FEW, GP_FK_MIG, GP_FILTER_UNRESOLVABLE,                                      \
      GP_RES_MIG_PREFIX "%s: node has %d, pod needs %d")                                         \
    X(GP_FR_GPU_FULL, GP_FK_GPU, GP_FILTER_FULL, GP_RES_GPU ": %d of %d free, pod needs %d")     \
    X(GP_FR_MIG_FULL_ONE, GP_FK_MIG, GP_FILTER_FULL, GP_RES_MIG_PREFIX "%s: %d of %d free")      \
    X(GP_FR_MIG_FULL, GP_FK_MIG, GP_FILTER_FULL,                                                 \
      GP_RES_MIG_PREFIX "%s: %d of %d free, pod needs %d")

#define GP_FILTER_ENUM2(id, label) id,
#define GP_FILTER_ENUM4(id, kind, verdict, format) id,
typedef enum { GP_FILTER_KINDS(GP_FILTER_ENUM2) GP_FK_COUNT } gp_filter_kind;
typedef enum { GP_FR_NONE = 0, GP_FILTER_REASONS(GP_FILTER_ENUM4) GP_FR_COUNT } gp_filter_reason;
#undef GP_FILTER_ENUM2
#undef GP_FILTER_ENUM4

/* Why a node is refused: a reason of the table and its arguments, which borrow from the demand,
 * the node and the policy given to gp_filter_node() (valid while they are). Nothing is formatted
 * until gp_filter_why_text() is called. */
typedef struct {
    gp_filter_reason reason; /* GP_FR_NONE when the node passes */
    const char *s[3];
    int n[3];
} gp_filter_why;

/* Decides one node; *why (may be NULL) says which reason refused it, e.g. GP_FR_MIG_FULL_ONE
 * with "2g.20gb", 0, 3 for "nvidia.com/mig-2g.20gb: 0 of 3 free". */
gp_filter_verdict gp_filter_node(const gp_demand *d, const gp_node *n, const gp_policy *pol,
                                 gp_filter_why *why);

/* Formats why's message from the table into buf (GP_REASON_MAX bytes, truncated to fit); ""
 * for GP_FR_NONE. Returns buf. */
char *gp_filter_why_text(const gp_filter_why *why, char *buf);

/* The verdict a reason gives (GP_FILTER_PASS for GP_FR_NONE). */
gp_filter_verdict gp_filter_reason_verdict(gp_filter_reason r);

/* A reason's kind, and a kind's metric label (NULL past the table). */
gp_filter_kind gp_filter_reason_kind(gp_filter_reason r);
const char *gp_filter_kind_label(gp_filter_kind k);

/* Compute slices of one instance of MIG profile ("2g.20gb"): the policy's migProfiles table
 * (pol may be NULL), else the "<N>g" of the name, else 1. A whole GPU has 7 (GP_MIG_FULL_SLICES);
 * the price of a MIG node counts its slices / 7, rounded up, as GPUs. */
#define GP_MIG_FULL_SLICES 7
int gp_score_mig_slices(const gp_policy *pol, const char *profile);

/* A node's $/hour as the cost component prices it: its instance type's price, else its GPU
 * product's price (else scoring.defaultGpuHourlyPrice) per GPU of gp_score_node_gpus(); spot
 * prices on spot nodes; 0 for a node without GPUs. */
double gp_score_node_price(const gp_node *n, const gp_policy *pol);

/* The physical GPUs a node's price covers: whole GPUs plus its MIG slices / 7 rounded up; at
 * least 1 on a GPU node. */
int64_t gp_score_node_gpus(const gp_node *n, const gp_policy *pol);

/* What prioritize knows about the cluster's workload besides the nodes: a typical GPU pod per
 * GPU (the stranding component) and the workload mix (the fragmentation component). */
typedef struct {
    int64_t cpu_m_per_gpu;
    int64_t mem_per_gpu;
    const gp_frag_mix *mix; /* NULL or empty: one shape, a 1-GPU pod with cpu_m_per_gpu */
    /* The model pressure (gp_score_model_pressure()): model_pressure[i] for the nodes whose
     * nvidia.com/gpu.product is models[i]; NULL: none (no bound pod is kept to some models). */
    const double *model_pressure;
    const char *const *models;
    int nmodels;
} gp_typical;

/* A GPU model constraint the pod watch saw on bound GPU pods, and the whole GPUs those pods
 * hold: the pods' gpupack.io/class label and gpupack.io/gpu-models annotation (judged with the
 * policy in force, as the filter judges them) and the nvidia.com/gpu.product values their
 * nodeSelector or required node affinity keeps them to (products_set false: none named). */
typedef struct {
    const char *class_label;          /* NULL: none */
    const char *annotation;           /* NULL: none */
    const char *const *products;
    size_t nproducts;
    bool products_set;
    int64_t gpus;
} gp_model_demand;

/* The pressure of model-kept work on each GPU model of the cluster (gp_frag_model_pressure():
 * 1 means the pods kept to it would fill that model's GPUs alone), into out[0..nmodels):
 * models[i] is a nvidia.com/gpu.product value of the nodes (NULL: the nodes without the label,
 * judged as the filter judges them), model_gpus[i] their whole GPUs, total_gpus the whole GPUs
 * all bound pods hold, kept to some models or not. A constraint that allows every model with
 * GPUs (a class without gpuModels, say) keeps a pod nowhere in particular. At most
 * GP_FRAG_MAX_MODELS models count; the others get 0. Returns false (out all 0) when no pod is
 * kept to some of the models. Pure. */
bool gp_score_model_pressure(const gp_model_demand *d, size_t n, int64_t total_gpus,
                             const char *const *models, const int64_t *model_gpus, int nmodels,
                             const gp_policy *pol, double *out);

/* The GPU models a pod with constraint m may use, as the filter judges them (the class's
 * gpuModels and excludeGpuModels, the gpupack.io/gpu-models annotation's comma-separated globs
 * with '!' excluding, and, when products_set, the nvidia.com/gpu.product values listed): bit i of
 * *mask set when models[i] passes (NULL: a node without the label); at most GP_FRAG_MAX_MODELS
 * count. gpus is not read. GP_EINVAL with err set when the filter refuses the annotation (err
 * names it); GP_ENOMEM. The simulator's reading of a pod's models. Pure. */
gp_status gp_score_models_mask(const gp_model_demand *m, const char *const *models, int nmodels,
                               const gp_policy *pol, uint32_t *mask, gp_err *err) GP_WUR;

/* The most shapes of a workload mix prioritize uses (the fragmentation of a node costs one pass
 * over the shapes). */
#define GP_SCORE_MAX_MIX 32

/* The policy's scoring.workloadMix as shapes with frequencies (whole GPUs, gpu_milli 1000) into
 * out[0..max). Returns the number written: 0 when the policy states no mix. */
size_t gp_score_policy_mix(const gp_policy *pol, gp_frag_shape *out, size_t max);

/* One node's score and the parts it came from (for --explain and logs). */
typedef struct {
    double marginal_cost;   /* $/hour this placement adds (0 on a node already running GPU work) */
    double cost;            /* 0..1, 1 = cheapest */
    double fit;             /* 0..1, 1 = exact fit */
    double stranding;       /* 0..1, 1 = worst stranding (or a CPU pod on a GPU node) */
    double fragmentation;   /* GPUs of FGD fragmentation the placement removes (negative: adds),
                               from gp_frag_score() on the node's whole GPUs; 0 on nodes
                               without whole GPUs */
    double raw;             /* weighted sum */
    int score;              /* 0..10 */
    bool feasible;          /* the node could take the pod (filter would pass) */
    bool spot_denied;       /* feasible, but a spot node the pod may not use (scoring.spotFilter
                               "soft", or a pod the filter passes everywhere): scores 0 */
} gp_score_parts;

/* Scores every node (n >= 0): out[i] for nodes[i]. Deterministic: the same input gives the same
 * output. Nodes the pod cannot take (infeasible) or may not use (spot_denied) score 0; the
 * others are ranked into tiers of equal raw score: the best tier alone scores 10, the others
 * spread over 1..9. */
void gp_prioritize(const gp_demand *d, const gp_node *const *nodes, size_t n,
                   const gp_policy *pol, const gp_typical *typ, gp_score_parts *out);

#endif
