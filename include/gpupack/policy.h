/* SPDX-License-Identifier: Apache-2.0 */
/* The gpupack policy: one JSON document (the ConfigMap's content) that drives both daemons.
 *
 * gp_policy_parse() validates the whole document against a schema table and reports every error
 * with its JSON path ("classes.inference.runtimeCapSeconds: must be 1..2147483647"), one per line.
 * Unknown fields are errors. A loaded policy is immutable and reference-counted: readers take a
 * reference with gp_policy_ref(), drop it with gp_policy_unref(); a reload builds a new policy and
 * swaps the pointer (see gp_policy_holder). The schema is documented in docs/policy.md. */
#ifndef GPUPACK_POLICY_H
#define GPUPACK_POLICY_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pthread.h>

#include "gpupack/k8s.h"
#include "gpupack/quantity.h"
#include "gpupack/snapshot.h"
#include "gpupack/status.h"

/* Named limits on a policy document. */
#define GP_POLICY_MAX_BYTES (1024 * 1024)
#define GP_POLICY_MAX_ITEMS 256 /* entries in any one list or map */
#define GP_POLICY_MAX_STR 253   /* characters in any one string */
#define GP_POLICY_MAX_ERRORS 64 /* errors reported before the rest are summarised */

typedef enum { GP_MODE_ENFORCE = 0, GP_MODE_AUDIT = 1 } gp_mode;

/* A Kubernetes LabelSelector: all matchLabels and all matchExpressions must hold. */
typedef struct {
    gp_label *match_labels;
    size_t nmatch_labels;
    gp_selector_req *exprs;
    size_t nexprs;
} gp_label_selector;

typedef enum { GP_PLACE_NONE = 0, GP_PLACE_PREFERRED = 1, GP_PLACE_REQUIRED = 2 } gp_placement;

/* Where a class's pods should run: nodes carrying every label in labels. */
typedef struct {
    gp_placement placement; /* GP_PLACE_NONE when the class has no pool */
    int weight;             /* 1..100, for preferred placement */
    gp_label *labels;
    size_t nlabels;
} gp_pool;

/* What the webhook does with the advisor's recommendation for a class's pods (policy field
 * "rightsizing", docs/policy.md#rightsizing). */
typedef enum {
    GP_RIGHTSIZE_OFF = 0,       /* nothing (the default for a class that does not say) */
    GP_RIGHTSIZE_RECOMMEND = 1, /* a warning and annotation gpupack.io/recommended-gpu-memory */
    GP_RIGHTSIZE_APPLY = 2      /* as if the pod were annotated gpupack.io/gpu-memory */
} gp_rightsizing;

typedef struct {
    char *name;
    char **gpu_models;          /* globs over nvidia.com/gpu.product a pod may use; empty: any */
    size_t ngpu_models;
    char **exclude_gpu_models;  /* globs it must not use */
    size_t nexclude_gpu_models;
    char *priority_class;   /* "" when the class sets none */
    /* The PriorityClass for the class's pods annotated gpupack.io/checkpointing: "true" (they lose
     * minutes when preempted, not hours, so they should go first); "" to use priority_class. */
    char *checkpointing_priority_class;
    gp_toleration *tolerations; /* added to the class's pods that do not tolerate them yet */
    size_t ntolerations;
    bool mig_allowed;
    bool spot_allowed;
    int64_t runtime_cap_seconds; /* 0 when the class has no cap */
    gp_pool pool;
    gp_rightsizing rightsizing;  /* GP_RIGHTSIZE_OFF when the class does not say */
} gp_class;

/* One classification rule. Every criterion given must hold (AND); within a list any entry may
 * match (OR). A rule with no criteria matches every pod. */
typedef struct {
    char *name;
    char *class_name;
    char **namespaces; /* globs ('*' and '?'); empty: any namespace */
    size_t nnamespaces;
    char **owner_kinds; /* the controlling owner's kind; empty: any */
    size_t nowner_kinds;
    int no_owner;       /* -1 not given, 0 must have an owner, 1 must have none */
    bool has_selector;
    gp_label_selector selector;
} gp_rule;

/* A MIG profile: resource "nvidia.com/mig-<name>". */
typedef struct {
    char *name;   /* e.g. "2g.20gb" */
    gp_qty memory;
    int slices;   /* compute slices, the "2" of "2g" */
} gp_mig_profile;

typedef struct {
    gp_toleration *tolerations;
    size_t ntolerations;
    gp_label *node_labels; /* any one marks a spot node */
    size_t nnode_labels;
    int weight;            /* 1..100, preferred affinity weight */
} gp_spot;

/* A price in the policy's table: $/hour for a node matched by its instance type
 * (node.kubernetes.io/instance-type) or, when no instance type matches, by its GPU product
 * (nvidia.com/gpu.product, then per GPU). Held in micro-dollars to stay in integers. */
typedef struct {
    char *match;             /* the label value (exact) */
    int64_t on_demand_micro; /* $/hour x 1e6 (for gpu products: per GPU) */
    int64_t spot_micro;      /* the spot price when has_spot (may be 0) */
    bool has_spot;           /* false: spot = on_demand x (100 - spotDiscountPercent) / 100 */
    gp_qty memory;           /* gpuProducts only: one GPU's memory ("memory"); 0 when not given.
                              * The advisor suggests only products whose memory is known. */
} gp_price;

/* One shape of the workload mix a policy states (scoring.workloadMix): pods asking for this many
 * whole GPUs and this much CPU arrive with this relative frequency. */
typedef struct {
    int gpus;          /* whole GPUs per pod, 1..16 */
    int64_t cpu_milli; /* CPU per pod, milli-cores */
    int weight;        /* relative frequency, 1..1000000 */
} gp_mix_entry;

#define GP_POLICY_MAX_MIX 32 /* shapes in scoring.workloadMix */

/* scoring.spotFilter: hard, the filter refuses spot nodes to GPU pods that may not use spot;
 * soft, they pass and only score 0. */
typedef enum { GP_SPOT_FILTER_HARD = 0, GP_SPOT_FILTER_SOFT = 1 } gp_spot_filter;

/* The extender's scoring knobs (docs/scoring.md). Weights are 0..1000; the defaults make the
 * components count in the order cost > fit > stranding. */
typedef struct {
    int weight_cost;         /* default 100 */
    int weight_fit;          /* default 10 */
    int weight_stranding;    /* default 3 */
    int weight_gpu_node_penalty; /* non-GPU pod on a GPU node, default 50 */
    int weight_fragmentation; /* per GPU of fragmentation avoided (gp_dev), default 10 */
    int spot_discount_pct;   /* spot price = on-demand x (100 - this) / 100 when not listed; 60 */
    gp_spot_filter spot_filter; /* default GP_SPOT_FILTER_HARD */
    int64_t default_gpu_price_micro; /* per GPU-hour when nothing matches; default 2.5 $/h */
    int64_t typical_cpu_milli_per_gpu; /* a typical GPU pod's CPU per GPU; default 4000 */
    int64_t typical_memory_per_gpu;    /* bytes; default 32 GiB */
    gp_price *instance_prices;
    size_t ninstance_prices;
    gp_price *gpu_prices;
    size_t ngpu_prices;
    gp_mix_entry *mix;       /* the workload mix; empty: learned from the pods the cache sees */
    size_t nmix;
} gp_scoring;

/* How the webhook treats the pod's PriorityClass (policy field "priority"). */
typedef struct {
    /* A pod whose priorityClassName is the cluster's globalDefault PriorityClass counts as one
     * that names none, so its class's PriorityClass replaces it (the Priority admission plugin
     * sets the global default on every pod before any webhook runs). Default false. */
    bool override_global_default;
} gp_priority;

/* The advisor's section (policy field "advisor", docs/policy.md): thresholds, the pod labels that
 * name a model, the classes a cheaper GPU model may be suggested to, and the label names
 * dcgm-exporter's series carry (each list in order of preference: the first a series has wins). */
typedef struct {
    double idle_mean_pct;      /* "idleMeanPercent", default 5: mean activity under it... */
    double idle_p95_pct;       /* "idleP95Percent", default 10: ...and p95 under it is idle */
    double mig_headroom;       /* "migHeadroom", default 1.2: peak framebuffer x this must fit */
    double model_max_p95_pct;  /* "cheaperModelMaxP95Percent", default 50 */
    double runaway_factor;     /* "runawayFactor", default 3: x the median of earlier runs */
    int runaway_min_runs;      /* "runawayMinRuns", default 3: earlier runs before it counts */
    double runaway_idle_hours; /* "runawayIdleHours", default 6 */
    double idle_node_hours;    /* "idleNodeHours", default 24 */
    double min_coverage_hours; /* "minCoverageHours", default 24 */
    char **model_labels;       /* "modelLabels": gpupack.io/model,
                                * serving.kserve.io/inferenceservice, app.kubernetes.io/name */
    size_t nmodel_labels;
    char **cheaper_model_classes; /* "cheaperModelClasses", default ["inference"] */
    size_t ncheaper_model_classes;
    /* "dcgmLabels": {"namespace": [...], "pod": [...], "container": [...], "host": [...]} */
    char **label_namespace;    /* exported_namespace, namespace, pod_namespace */
    size_t nlabel_namespace;
    char **label_pod;          /* exported_pod, pod, pod_name */
    size_t nlabel_pod;
    char **label_container;    /* exported_container, container, container_name */
    size_t nlabel_container;
    char **label_host;         /* Hostname, hostname */
    size_t nlabel_host;
} gp_advisor_policy;

typedef struct gp_policy {
    atomic_int refs;
    gp_mode mode;
    char **gpu_resources; /* names; a trailing '*' matches any suffix */
    size_t ngpu_resources;
    char **excluded_namespaces; /* globs */
    size_t nexcluded_namespaces;
    gp_toleration *tolerations;
    size_t ntolerations;
    gp_class *classes;
    size_t nclasses;
    gp_rule *rules;
    size_t nrules;
    char *default_class; /* NULL: pods no rule matches get no class */
    char *scheduler_name; /* NULL: spec.schedulerName is left alone */
    gp_mig_profile *mig_profiles;
    size_t nmig_profiles;
    /* The webhook may rewrite to mig_profiles without a view of the nodes (a cluster where every
     * GPU node offers them). false: only profiles a synced node view shows offered. */
    bool mig_profiles_authoritative;
    gp_spot spot;
    gp_priority priority;
    gp_scoring scoring;
    gp_advisor_policy advisor;
    char digest[17]; /* 16 hex digits of a hash of the source bytes, for logs and metrics */
} gp_policy;

/* The default policy's JSON bytes, embedded at build time from manifests/base/policy.json. */
extern const char gp_default_policy_json[];
extern const size_t gp_default_policy_json_len;

/* Parses and validates a policy document (json need not be NUL-terminated). On success returns
 * GP_OK, *out with one reference (drop it with gp_policy_unref()) and *errors NULL. On failure
 * returns GP_EINVAL (GP_ENOMEM when an allocation failed, GP_ETOOBIG when len exceeds
 * GP_POLICY_MAX_BYTES), *out NULL and, when errors is non-NULL, a malloc'd string the caller frees:
 * every error, one "path: message\n" line each (path "document" for the document as a whole), at
 * most GP_POLICY_MAX_ERRORS of them followed by "... and N more errors". */
gp_status gp_policy_parse(const char *json, size_t len, gp_policy **out, char **errors) GP_WUR;

/* Parses the embedded default policy, as gp_policy_parse(). */
gp_status gp_policy_default(gp_policy **out, char **errors) GP_WUR;

/* Takes one more reference and returns p; dropping the last reference frees the policy and every
 * string in it. Both are thread-safe; NULL is harmless. */
gp_policy *gp_policy_ref(gp_policy *p);
void gp_policy_unref(gp_policy *p);

/* Lookups. Return NULL when absent. */
const gp_class *gp_policy_class(const gp_policy *p, const char *name);

/* True when resource name counts as a GPU resource under the policy. */
bool gp_policy_is_gpu_resource(const gp_policy *p, const char *resource);

/* True when namespace ns matches one of the policy's excluded globs. */
bool gp_policy_namespace_excluded(const gp_policy *p, const char *ns);

/* Shell-style glob match with '*' (any run, also empty) and '?' (one byte) only; no escapes or
 * character classes. Iterative, O(len(pattern) * len(s)) at worst. NULL never matches. */
bool gp_glob_match(const char *pattern, const char *s);

/* True when any of globs[0..n) matches s (none: false). */
bool gp_glob_any(char *const *globs, size_t n, const char *s);

/* The policy in force, swapped atomically on reload: a gp_snapshot slot (snapshot.h) typed for
 * policies. Readers call gp_policy_holder_get() and drop the returned reference when done;
 * gp_policy_holder_set() takes over the caller's reference and drops the previous policy's. */
typedef struct {
    gp_snapshot slot;
} gp_policy_holder;

void gp_policy_holder_init(gp_policy_holder *h, gp_policy *initial);
gp_policy *gp_policy_holder_get(gp_policy_holder *h);
void gp_policy_holder_set(gp_policy_holder *h, gp_policy *next);
void gp_policy_holder_destroy(gp_policy_holder *h);

#endif
