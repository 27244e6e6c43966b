/* SPDX-License-Identifier: Apache-2.0 */
/* The extender's decisions: a pod's demand, the filter verdict per node, and the prioritize
 * score per node. Pure: plain structs in, plain structs out (docs/scoring.md).
 *
 * Prioritize runs in two phases. First every node gets its components on its own (price,
 * marginal cost, fit, stranding), except that the cost component compares a node's price per
 * useful unit with the cheapest among the candidate empty nodes. Then the weighted sums are
 * ranked into tiers and the tiers spread over 0..10, so that the order survives the scheduler's
 * coarse scale. Every step depends on the multiset of nodes only, never on their order. */
#include "gpupack/score.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpupack/k8s.h"

#define MAX_ANN_MODELS 32     /* globs in one gpupack.io/gpu-models annotation */
#define MIG_FULL_SLICES GP_MIG_FULL_SLICES /* compute slices of a whole A100/H100 */
#define TIER_EPS 1e-9         /* raw scores closer than this are one tier */
#define TIER_STACK 256        /* nodes ranked without a heap allocation */

/* ---------------------------------------------------------------------------------------------
 * Demand. */

static bool is_space(char c)
{
    return c == ' ' || c == '\t';
}

/* Splits the annotation into globs: comma-separated, spaces trimmed, "!glob" denies. */
static gp_status parse_model_annotation(const char *ann, gp_arena *a, const char **allow,
                                        size_t *nallow, const char **deny, size_t *ndeny,
                                        gp_err *err)
{
    size_t count = 0;

    for (const char *p = ann; p != NULL && *p != '\0';) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        bool neg;
        char *g;

        while (len > 0 && is_space(*p))
            p++, len--;
        neg = len > 0 && *p == '!';
        if (neg)
            p++, len--;
        while (len > 0 && is_space(*p))
            p++, len--;
        while (len > 0 && is_space(p[len - 1]))
            len--;
        if (len > 0) {
            if (++count > MAX_ANN_MODELS) {
                gp_err_set(err, "metadata.annotations.%s: more than %d globs", GP_ANN_GPU_MODELS,
                           MAX_ANN_MODELS);
                return GP_EINVAL;
            }
            g = gp_arena_alloc(a, len + 1);
            if (g == NULL)
                return GP_ENOMEM;
            memcpy(g, p, len);
            if (neg)
                deny[(*ndeny)++] = g;
            else
                allow[(*nallow)++] = g;
        }
        p = end ? end + 1 : p + len;
        if (end == NULL)
            break;
    }
    return GP_OK;
}

static gp_status demand_models(const char *ann, const gp_class *cls, gp_arena *a,
                               gp_demand *out, gp_err *err)
{
    size_t ca = cls ? cls->ngpu_models : 0, cd = cls ? cls->nexclude_gpu_models : 0;
    const char **allow = gp_arena_alloc(a, (ca + MAX_ANN_MODELS) * sizeof(char *));
    const char **deny = gp_arena_alloc(a, (cd + MAX_ANN_MODELS) * sizeof(char *));

    if (allow == NULL || deny == NULL) {
        gp_err_set(err, "out of memory");
        return GP_ENOMEM;
    }
    for (size_t i = 0; i < ca; i++)
        allow[out->nallow++] = cls->gpu_models[i];
    for (size_t i = 0; i < cd; i++)
        deny[out->ndeny++] = cls->exclude_gpu_models[i];
    out->allow_models = allow;
    out->deny_models = deny;
    return parse_model_annotation(ann, a, allow, &out->nallow, deny, &out->ndeny, err);
}

/* True when one of the pod's tolerations tolerates the taint a cordon stands for,
 * node.kubernetes.io/unschedulable:NoSchedule (kube-scheduler's NodeUnschedulable plugin asks
 * the same; tolerationSeconds play no part in NoSchedule). */
static bool tolerates_cordon(const gp_pod *pod)
{
    gp_toleration taint = { .key = GP_TAINT_UNSCHEDULABLE, .op = "Equal",
                            .value = "", .effect = "NoSchedule" };

    return gp_pod_tolerates(pod, &taint);
}

/* Whether the filter may refuse spot nodes to this pod: only to a pod gpupack classes (its class
 * label names a policy class) under an enforced policy with scoring.spotFilter "hard". A pod
 * gpupack leaves alone (skip label, excluded namespace, audit mode, no class) is never refused
 * capacity for a rule it was not given. */
static bool spot_enforced(const gp_pod *pod, const gp_policy *pol, const gp_class *cls)
{
    const char *skip = gp_pod_label(pod, GP_LABEL_SKIP);

    return cls != NULL && pol->scoring.spot_filter == GP_SPOT_FILTER_HARD &&
           pol->mode == GP_MODE_ENFORCE && !(skip != NULL && strcmp(skip, "true") == 0) &&
           !gp_policy_namespace_excluded(pol, pod->namespace);
}

gp_status gp_demand_from_pod(const gp_pod *pod, const gp_policy *pol, gp_arena *a,
                             gp_demand *out, gp_err *err)
{
    return gp_demand_for_class(pod, pol, gp_policy_class(pol, gp_pod_label(pod, GP_LABEL_CLASS)), a,
                               out, err);
}

gp_status gp_demand_for_class(const gp_pod *pod, const gp_policy *pol, const gp_class *cls,
                              gp_arena *a, gp_demand *out, gp_err *err)
{
    const char *ck = gp_pod_annotation(pod, GP_ANN_CHECKPOINTING);
    gp_status st;

    memset(out, 0, sizeof(*out));
    st = gp_usage_from_pod(pod, &out->usage, err);
    if (st != GP_OK)
        return st;
    out->gpu = gp_usage_is_gpu(&out->usage);
    out->never_filter = (pod->owner_kind != NULL && strcmp(pod->owner_kind, "DaemonSet") == 0) ||
                        pod->node_name != NULL;
    out->class_name = cls ? cls->name : NULL;
    out->spot_ok = cls != NULL && cls->spot_allowed && ck != NULL && strcmp(ck, "true") == 0;
    out->spot_hard = spot_enforced(pod, pol, cls);
    out->cordon_ok = tolerates_cordon(pod);
    return demand_models(gp_pod_annotation(pod, GP_ANN_GPU_MODELS), cls, a, out, err);
}

/* ---------------------------------------------------------------------------------------------
 * Filter. */

typedef struct {
    gp_filter_kind kind;
    gp_filter_verdict verdict;
    const char *format;
} reason_row;

#define KIND_LABEL(id, label) [id] = label,
#define REASON_ROW(id, kind, verdict, format) [id] = {kind, verdict, format},
static const char *const kind_labels[GP_FK_COUNT] = {GP_FILTER_KINDS(KIND_LABEL)};
static const reason_row reasons[GP_FR_COUNT] = {
    [GP_FR_NONE] = {GP_FK_COUNT, GP_FILTER_PASS, ""}, GP_FILTER_REASONS(REASON_ROW)};
#undef KIND_LABEL
#undef REASON_ROW

gp_filter_verdict gp_filter_reason_verdict(gp_filter_reason r)
{
    return r < GP_FR_COUNT ? reasons[r].verdict : GP_FILTER_UNRESOLVABLE;
}

gp_filter_kind gp_filter_reason_kind(gp_filter_reason r)
{
    return r < GP_FR_COUNT ? reasons[r].kind : GP_FK_COUNT;
}

const char *gp_filter_kind_label(gp_filter_kind k)
{
    return k < GP_FK_COUNT ? kind_labels[k] : NULL;
}

/* How many strings a format takes (its "%s"; the table's formats have no "%%"). */
static int string_args(const char *fmt)
{
    int n = 0;

    for (const char *p = strstr(fmt, "%s"); p != NULL; p = strstr(p + 2, "%s"))
        n++;
    return n;
}

/* Formats one of the table's messages. The table's formats are constants; they reach printf
 * as data through a va_list, and the unit tests format every row. */
static void format_row(char *buf, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral" /* clang: the table's rows are data here */
    vsnprintf(buf, GP_REASON_MAX, fmt, ap);
#pragma GCC diagnostic pop
    va_end(ap);
}

char *gp_filter_why_text(const gp_filter_why *why, char *buf)
{
    const char *f = why->reason < GP_FR_COUNT ? reasons[why->reason].format : "";
    const char *const *s = why->s;
    const int *n = why->n;

    /* Every format takes its strings first, then its numbers; numbers it does not use are
     * ignored (C11 7.21.6.1p2). */
    switch (string_args(f)) {
    case 0:
        format_row(buf, f, n[0], n[1], n[2]);
        break;
    case 1:
        format_row(buf, f, s[0], n[0], n[1], n[2]);
        break;
    case 2:
        format_row(buf, f, s[0], s[1], n[0], n[1], n[2]);
        break;
    default:
        format_row(buf, f, s[0], s[1], s[2], n[0], n[1], n[2]);
    }
    return buf;
}

/* Refuses the node for reason r with its string and number arguments (why may be NULL). */
static gp_filter_verdict refuse(gp_filter_why *why, gp_filter_reason r, const char *s0,
                                const char *s1, const char *s2, int n0, int n1, int n2)
{
    if (why != NULL)
        *why = (gp_filter_why){r, {s0, s1, s2}, {n0, n1, n2}};
    return reasons[r].verdict;
}

/* True when glob g is one of the class's own (as opposed to the annotation's). */
static bool from_class(const char *g, char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (list[i] == g)
            return true;
    return false;
}

static gp_filter_verdict check_denied(const gp_demand *d, const gp_class *cls, const char *model,
                                      gp_filter_why *why)
{
    for (size_t i = 0; i < d->ndeny; i++) {
        const char *g = d->deny_models[i];

        if (!gp_glob_match(g, model))
            continue;
        if (cls != NULL && from_class(g, cls->exclude_gpu_models, cls->nexclude_gpu_models))
            return refuse(why, GP_FR_MODEL_DENIED_CLASS, model, cls->name, g, 0, 0, 0);
        return refuse(why, GP_FR_MODEL_DENIED_ANN, model, g, NULL, 0, 0, 0);
    }
    return GP_FILTER_PASS;
}

/* The reason a model is not allowed, by who restricts the models: the class, the annotation
 * or both (rows ordered class, annotation, both from first). */
static gp_filter_verdict refuse_model(const gp_demand *d, const gp_class *cls, const char *model,
                                      gp_filter_reason first, gp_filter_why *why)
{
    size_t from_cls = 0;
    int by;

    for (size_t i = 0; cls != NULL && i < d->nallow; i++)
        from_cls += from_class(d->allow_models[i], cls->gpu_models, cls->ngpu_models);
    by = from_cls == d->nallow ? 0 : from_cls == 0 ? 1 : 2;
    if (model == NULL) /* the unlabeled rows take the class name first */
        return refuse(why, first + by, cls ? cls->name : "?", NULL, NULL, 0, 0, 0);
    return refuse(why, first + by, model, cls ? cls->name : "?", NULL, 0, 0, 0);
}

static gp_filter_verdict check_models(const gp_demand *d, const gp_node *n, const gp_policy *pol,
                                      gp_filter_why *why)
{
    const gp_class *cls;
    const char *model = n->gpu_product;

    if (d->ndeny == 0 && d->nallow == 0)
        return GP_FILTER_PASS; /* no model constraint: no class to look up, once a node */
    cls = gp_policy_class(pol, d->class_name);

    if (model != NULL && check_denied(d, cls, model, why) != GP_FILTER_PASS)
        return GP_FILTER_UNRESOLVABLE;
    bool has_cls = false, has_ann = false, cls_ok = false, ann_ok = false;

    if (d->nallow == 0)
        return GP_FILTER_PASS;
    /* The class's list and the annotation's list must each allow the model: an annotation can
     * narrow what a class allows, never widen it. */
    for (size_t i = 0; i < d->nallow; i++) {
        bool is_cls = cls != NULL && from_class(d->allow_models[i], cls->gpu_models,
                                                cls->ngpu_models);
        bool match = model != NULL && gp_glob_match(d->allow_models[i], model);

        has_cls |= is_cls;
        has_ann |= !is_cls;
        cls_ok |= is_cls && match;
        ann_ok |= !is_cls && match;
    }
    if ((!has_cls || cls_ok) && (!has_ann || ann_ok))
        return GP_FILTER_PASS;
    return refuse_model(d, cls, model, model ? GP_FR_MODEL_NOT_CLASS : GP_FR_UNLABELED_CLASS,
                        why);
}

/* The models of models[0..nmodels) that pods with constraint m may run on, as a mask; the
 * annotation's globs come from a. GP_EINVAL with err set when the filter refuses the annotation. */
static gp_status models_mask(const gp_model_demand *m, const char *const *models, int nmodels,
                             const gp_policy *pol, gp_arena *a, uint32_t *mask, gp_err *err)
{
    const gp_class *cls = gp_policy_class(pol, m->class_label);
    gp_demand d;
    gp_node probe;
    gp_status st;

    *mask = 0;
    memset(&d, 0, sizeof(d));
    memset(&probe, 0, sizeof(probe));
    d.class_name = cls ? cls->name : NULL;
    if ((st = demand_models(m->annotation, cls, a, &d, err)) != GP_OK)
        return st;
    for (int i = 0; i < nmodels && i < GP_FRAG_MAX_MODELS; i++) {
        bool listed = !m->products_set;

        for (size_t k = 0; !listed && models[i] != NULL && k < m->nproducts; k++)
            listed = strcmp(m->products[k], models[i]) == 0;
        probe.gpu_product = (char *)models[i]; /* NULL: nodes without the label */
        if (listed && check_models(&d, &probe, pol, NULL) == GP_FILTER_PASS)
            *mask |= 1u << i;
    }
    return GP_OK;
}

/* models_mask(), 0 for an annotation the filter refuses: such a pod cannot have been placed. */
static uint32_t allowed_models(const gp_model_demand *m, const char *const *models, int nmodels,
                               const gp_policy *pol, gp_arena *a)
{
    uint32_t mask;

    return models_mask(m, models, nmodels, pol, a, &mask, NULL) == GP_OK ? mask : 0;
}

gp_status gp_score_models_mask(const gp_model_demand *m, const char *const *models, int nmodels,
                               const gp_policy *pol, uint32_t *mask, gp_err *err)
{
    gp_arena a;
    gp_status st;

    gp_arena_init(&a, 64u * 1024);
    st = models_mask(m, models, nmodels, pol, &a, mask, err);
    gp_arena_free(&a);
    return st;
}

bool gp_score_model_pressure(const gp_model_demand *d, size_t n, int64_t total_gpus,
                             const char *const *models, const int64_t *model_gpus, int nmodels,
                             const gp_policy *pol, double *out)
{
    gp_frag_shape shapes[GP_FRAG_MAX_MODELS + 1];
    int64_t gpus[GP_FRAG_MAX_MODELS];
    double full[GP_FRAG_MAX_MODELS];
    gp_frag_mix mix = { 0, shapes };
    int64_t kept = 0;
    int counted = nmodels < GP_FRAG_MAX_MODELS ? nmodels : GP_FRAG_MAX_MODELS;
    uint32_t every = 0; /* the models that have GPUs: a pod allowed all of them is free */
    gp_arena a;

    for (int i = 0; i < GP_FRAG_MAX_MODELS; i++) {
        gpus[i] = i < counted ? model_gpus[i] : 0;
        every |= gpus[i] > 0 ? 1u << i : 0;
    }
    gp_arena_init(&a, 64u * 1024);
    /* One shape per distinct mask, its frequency the GPUs held: only ratios count. */
    for (size_t i = 0; i < n; i++) {
        uint32_t mask = d[i].gpus > 0 ? allowed_models(&d[i], models, counted, pol, &a) : 0;
        size_t k = 0;

        gp_arena_free(&a); /* one constraint's globs at a time */
        mask &= every;
        if (mask == 0 || mask == every) /* nowhere, or anywhere: no model is preferred */
            continue;
        while (k < mix.n && shapes[k].shape.models != mask)
            k++;
        if (k == mix.n) {
            if (mix.n == GP_FRAG_MAX_MODELS) /* more masks than room: free to run anywhere */
                continue;
            memset(&shapes[mix.n++], 0, sizeof(shapes[0]));
            shapes[k].shape.num_gpu = 1;
            shapes[k].shape.gpu_milli = GP_FRAG_MILLI;
            shapes[k].shape.models = mask;
        }
        shapes[k].freq += (double)d[i].gpus;
        kept += d[i].gpus;
    }
    gp_arena_free(&a);
    if (total_gpus > kept) { /* the pods that may run on any model */
        memset(&shapes[mix.n], 0, sizeof(shapes[0]));
        shapes[mix.n].shape.num_gpu = 1;
        shapes[mix.n].shape.gpu_milli = GP_FRAG_MILLI;
        shapes[mix.n++].freq = (double)(total_gpus - kept);
    }
    for (int i = 0; i < nmodels; i++)
        out[i] = 0;
    if (kept == 0)
        return false;
    gp_frag_model_pressure(&mix, gpus, full);
    for (int i = 0; i < counted; i++)
        out[i] = full[i];
    return true;
}

static int32_t free_of(int32_t alloc, int32_t used)
{
    return alloc > used ? alloc - used : 0;
}

/* Resources the node does not have at all, or not in the amount asked. */
static gp_filter_verdict check_capacity(const gp_usage *u, const gp_node *n, gp_filter_why *why)
{
    if (u->gpu > 0 && n->gpu_alloc < u->gpu)
        return refuse(why, GP_FR_GPU_TOO_FEW, NULL, NULL, NULL, n->gpu_alloc, u->gpu, 0);
    for (uint8_t i = 0; i < u->nmig; i++) {
        const gp_mig_count *m = gp_node_mig(n, u->mig_profile[i]);
        const char *p = u->mig_profile[i];

        if (u->mig[i] <= 0)
            continue;
        if (m == NULL || m->alloc <= 0)
            return refuse(why, GP_FR_MIG_NONE, p, NULL, NULL, 0, 0, 0);
        if (m->alloc < u->mig[i])
            return refuse(why, GP_FR_MIG_TOO_FEW, p, NULL, NULL, m->alloc, u->mig[i], 0);
    }
    return GP_FILTER_PASS;
}

/* Resources the node has, but not free now. */
static gp_filter_verdict check_free(const gp_usage *u, const gp_node *n, gp_filter_why *why)
{
    int32_t f = free_of(n->gpu_alloc, n->gpu_used);

    if (u->gpu > 0 && f < u->gpu)
        return refuse(why, GP_FR_GPU_FULL, NULL, NULL, NULL, f, n->gpu_alloc, u->gpu);
    for (uint8_t i = 0; i < u->nmig; i++) {
        const gp_mig_count *m = gp_node_mig(n, u->mig_profile[i]);

        if (u->mig[i] <= 0 || m == NULL)
            continue;
        f = free_of(m->alloc, m->used);
        if (f >= u->mig[i])
            continue;
        return refuse(why, u->mig[i] == 1 ? GP_FR_MIG_FULL_ONE : GP_FR_MIG_FULL, m->profile,
                      NULL, NULL, f, m->alloc, u->mig[i]);
    }
    return GP_FILTER_PASS;
}

/* A spot node for a pod that may not use spot, with scoring.spotFilter "hard": the rule the
 * pod misses, named. */
static gp_filter_verdict check_spot(const gp_demand *d, const gp_node *n, const gp_policy *pol,
                                    gp_filter_why *why)
{
    const gp_class *cls;

    if (!n->spot || d->spot_ok || !d->spot_hard)
        return GP_FILTER_PASS;
    if ((cls = gp_policy_class(pol, d->class_name)) == NULL)
        return GP_FILTER_PASS;
    return refuse(why, cls->spot_allowed ? GP_FR_SPOT_CHECKPOINT : GP_FR_SPOT_CLASS, cls->name,
                  NULL, NULL, 0, 0, 0);
}

gp_filter_verdict gp_filter_node(const gp_demand *d, const gp_node *n, const gp_policy *pol,
                                 gp_filter_why *why)
{
    gp_filter_verdict v;

    if (why != NULL)
        *why = (gp_filter_why){GP_FR_NONE, {NULL, NULL, NULL}, {0, 0, 0}};
    if (!d->gpu || d->never_filter)
        return GP_FILTER_PASS;
    if (n->unschedulable && !d->cordon_ok)
        return refuse(why, GP_FR_CORDONED, NULL, NULL, NULL, 0, 0, 0);
    v = check_models(d, n, pol, why);
    if (v == GP_FILTER_PASS)
        v = check_spot(d, n, pol, why);
    if (v == GP_FILTER_PASS)
        v = check_capacity(&d->usage, n, why);
    if (v == GP_FILTER_PASS)
        v = check_free(&d->usage, n, why);
    return v;
}

/* ---------------------------------------------------------------------------------------------
 * Price. */

/* Price lookups of one prioritize call, by a hash of the name: a cluster has a handful of
 * instance types and GPU models, so most of its nodes are answered with one comparison instead
 * of a walk of the price table. */
#define MEMO_SLOTS 32

typedef struct {
    const char *key[MEMO_SLOTS];
    const gp_price *val[MEMO_SLOTS];
} price_memo;

static unsigned memo_slot(const char *s)
{
    uint32_t h = 2166136261u;

    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h % MEMO_SLOTS;
}

static const gp_price *find_price(const gp_price *table, size_t n, const char *match,
                                  price_memo *m)
{
    const gp_price *found = NULL;
    unsigned k;

    if (match == NULL)
        return NULL;
    k = memo_slot(match);
    if (m->key[k] != NULL && (m->key[k] == match || strcmp(m->key[k], match) == 0))
        return m->val[k];
    for (size_t i = 0; found == NULL && i < n; i++)
        if (strcmp(table[i].match, match) == 0)
            found = &table[i];
    m->key[k] = match; /* the node's string outlives the call */
    m->val[k] = found;
    return found;
}

int gp_score_mig_slices(const gp_policy *pol, const char *profile)
{
    int n = 0;

    for (size_t i = 0; pol != NULL && i < pol->nmig_profiles; i++)
        if (strcmp(pol->mig_profiles[i].name, profile) == 0)
            return pol->mig_profiles[i].slices;
    for (const char *p = profile; *p >= '0' && *p <= '9' && n < MIG_FULL_SLICES; p++)
        n = n * 10 + (*p - '0');
    if (n < 1 || n > MIG_FULL_SLICES || profile[strspn(profile, "0123456789")] != 'g')
        return 1;
    return n;
}

/* The physical GPUs a node's price covers: whole GPUs plus its MIG slices in whole GPUs (7
 * slices each, rounded up); at least 1 on a GPU node. */
static int64_t node_gpus(const gp_node *n, const gp_policy *pol)
{
    int64_t slices = 0, gpus;

    for (uint8_t i = 0; i < n->nmig; i++)
        if (n->mig[i].alloc > 0)
            slices += (int64_t)n->mig[i].alloc * gp_score_mig_slices(pol, n->mig[i].profile);
    gpus = n->gpu_alloc + (slices + MIG_FULL_SLICES - 1) / MIG_FULL_SLICES;
    return gpus < 1 && gp_node_is_gpu(n) ? 1 : gpus;
}

/* $/hour of one price entry (or the default when pr is NULL) on a spot or on-demand node. */
static double entry_price(const gp_scoring *s, const gp_price *pr, bool spot)
{
    double on_demand = (double)(pr ? pr->on_demand_micro : s->default_gpu_price_micro) / 1e6;

    if (!spot)
        return on_demand;
    if (pr != NULL && pr->has_spot)
        return (double)pr->spot_micro / 1e6;
    return on_demand * (100 - s->spot_discount_pct) / 100.0;
}

/* The node's $/hour: its instance type, else its GPU product per GPU, else the default per GPU
 * on a GPU node, else 0. */
static double node_price(const gp_node *n, const gp_policy *pol, price_memo memo[2])
{
    const gp_scoring *s = &pol->scoring;
    const gp_price *pr = find_price(s->instance_prices, s->ninstance_prices, n->instance_type,
                                    &memo[0]);

    if (pr != NULL)
        return entry_price(s, pr, n->spot);
    if (!gp_node_is_gpu(n))
        return 0;
    pr = find_price(s->gpu_prices, s->ngpu_prices, n->gpu_product, &memo[1]);
    return entry_price(s, pr, n->spot) * (double)node_gpus(n, pol);
}

double gp_score_node_price(const gp_node *n, const gp_policy *pol)
{
    price_memo memo[2] = {0};

    return node_price(n, pol, memo);
}

int64_t gp_score_node_gpus(const gp_node *n, const gp_policy *pol)
{
    return node_gpus(n, pol);
}

/* ---------------------------------------------------------------------------------------------
 * Components. */

/* $/hour this placement adds: an idle GPU node's whole price when the pod opens it (a GPU pod)
 * or keeps it from scaling down (a CPU pod), else nothing. */
static double marginal_cost(const gp_demand *d, const gp_node *n, double price)
{
    bool idle_gpu = gp_node_is_gpu(n) && n->gpu_pods <= 0;

    if (d->gpu)
        return n->gpu_pods > 0 ? 0 : price;
    return idle_gpu ? price : 0;
}

/* The node's capacity of what the pod asks for, the denominator of its price per useful unit. */
static double useful_units(const gp_demand *d, const gp_node *n)
{
    int64_t units = 0;

    if (!d->gpu)
        return 1;
    if (d->usage.gpu > 0)
        units += n->gpu_alloc;
    for (uint8_t i = 0; i < d->usage.nmig; i++) {
        const gp_mig_count *m = gp_node_mig(n, d->usage.mig_profile[i]);

        units += m ? m->alloc : 0;
    }
    return units > 0 ? (double)units : 1;
}

/* 1 - free_after / alloc of what the pod asks for (CPU for a CPU pod); 0 when it does not fit.
 * A node's whole GPUs, and the CPU a CPU pod takes from them, count only when whole_gpus is set
 * (see components()). */
static double fit_of(const gp_demand *d, const gp_node *n, bool whole_gpus)
{
    const gp_usage *u = &d->usage;
    double alloc = 0, free_after = 0;

    if (!d->gpu && whole_gpus) {
        alloc = (double)n->cpu_alloc_m;
        free_after = (double)n->cpu_alloc_m - (double)n->cpu_used_m - (double)u->cpu_m;
    }
    if (d->gpu && u->gpu > 0 && whole_gpus) {
        alloc += n->gpu_alloc;
        free_after += free_of(n->gpu_alloc, n->gpu_used) - u->gpu;
    }
    for (uint8_t i = 0; d->gpu && i < u->nmig; i++) {
        const gp_mig_count *m = gp_node_mig(n, u->mig_profile[i]);

        alloc += m ? m->alloc : 0;
        free_after += (m ? free_of(m->alloc, m->used) : 0) - u->mig[i];
    }
    if (alloc <= 0 || free_after < 0)
        return 0;
    return 1 - (free_after > alloc ? alloc : free_after) / alloc;
}

static int64_t left_after(int64_t alloc, int64_t used, int64_t asked)
{
    int64_t l = alloc - used - asked;

    return l > 0 ? l : 0;
}

/* The share of the node's GPUs left free after placement that a typical GPU pod could not use
 * for lack of CPU or memory. Only CPU and memory the node reports constrain. */
static double stranding_of(const gp_demand *d, const gp_node *n, const gp_typical *typ)
{
    const gp_usage *u = &d->usage;
    int64_t f, usable;

    if (n->gpu_alloc <= 0)
        return 0;
    f = left_after(n->gpu_alloc, n->gpu_used, u->gpu);
    usable = f;
    if (typ->cpu_m_per_gpu > 0 && n->cpu_alloc_m > 0) {
        int64_t by_cpu = left_after(n->cpu_alloc_m, n->cpu_used_m, u->cpu_m) / typ->cpu_m_per_gpu;

        usable = by_cpu < usable ? by_cpu : usable;
    }
    if (typ->mem_per_gpu > 0 && n->mem_alloc > 0) {
        int64_t by_mem = left_after(n->mem_alloc, n->mem_used, u->mem) / typ->mem_per_gpu;

        usable = by_mem < usable ? by_mem : usable;
    }
    return (double)(f - usable) / (double)n->gpu_alloc;
}

/* ---------------------------------------------------------------------------------------------
 * Prioritize. */

/* Ranked nodes take part in the tiers: feasible, and not a spot node the pod may not use (with
 * scoring.spotFilter "soft", or for a pod the filter passes everywhere, such a node stays
 * feasible but scores 0). */
static bool is_ranked(const gp_score_parts *p)
{
    return p->feasible && !p->spot_denied;
}

/* The cheapest price per useful unit among the ranked nodes the pod would open; 0 when none. */
static double cheapest_unit(const gp_demand *d, const gp_node *const *nodes, size_t n,
                            const gp_score_parts *out)
{
    double best = 0;
    bool any = false;

    for (size_t i = 0; i < n; i++) {
        double unit;

        if (!is_ranked(&out[i]) || out[i].marginal_cost <= 0)
            continue;
        unit = out[i].marginal_cost / useful_units(d, nodes[i]);
        if (!any || unit < best)
            best = unit;
        any = true;
    }
    return best;
}

/* gpupack's fragmentation score (gp_frag_score(), the simulator's `gpupack` scorer,
 * docs/simulation.md) in GPUs of fragmentation removed; 0 when the node has no whole GPUs or
 * gp_frag_score() finds no room. Inside a bucket, a pod asking for whole GPUs prefers the node
 * with the most GPUs taken after it (gp_frag_fit_tiebreak(), up to half a bucket): where the
 * simulator's fixed node order packs tied nodes, kube-scheduler picks among tied nodes at
 * random, which would spread pods and keep lightly used nodes from emptying.
 * *covered says whether the node's whole GPUs were scored here (the fit component then leaves
 * them out). */
static double fragmentation_of(const gp_demand *d, const gp_node *n, const gp_typical *typ,
                               const gp_frag_ctx *ctx, bool *covered)
{
    gp_frag_node dn;
    gp_frag_task t;
    gp_frag_pick pick;
    double v;

    *covered = false;
    if (ctx->mix == NULL || !gp_frag_from_view(n, &dn) ||
        !gp_frag_task_from_usage(&d->usage, &t))
        return 0;
    /* The node's whole GPUs are this component's from here on, also when gp_frag_score() finds
     * no room (kube-scheduler's own filters judge CPU and memory; the cache's view of them may
     * lag): fit must not score this node alone on its whole-GPU scale. */
    *covered = true;
    for (int i = 0; typ->model_pressure && i < typ->nmodels && dn.model < 0; i++)
        if (n->gpu_product == NULL ? typ->models[i] == NULL
                                   : typ->models[i] && strcmp(typ->models[i], n->gpu_product) == 0)
            dn.model = i;
    v = gp_frag_score(ctx, &dn, &t, &pick);
    if (v <= GP_FRAG_INFEASIBLE)
        return 0;
    if (t.num_gpu > 0)
        v += gp_frag_fit_tiebreak(&dn, &t);
    return v * GP_FRAG_BUCKET / GP_FRAG_MILLI;
}

size_t gp_score_policy_mix(const gp_policy *pol, gp_frag_shape *out, size_t max)
{
    const gp_scoring *s = &pol->scoring;
    double total = 0;
    size_t n = s->nmix < max ? s->nmix : max;

    for (size_t i = 0; i < n; i++)
        total += s->mix[i].weight;
    for (size_t i = 0; i < n; i++) {
        memset(&out[i], 0, sizeof(out[i]));
        out[i].shape.cpu_milli = s->mix[i].cpu_milli;
        out[i].shape.num_gpu = s->mix[i].gpus;
        out[i].shape.gpu_milli = GP_FRAG_MILLI;
        out[i].freq = s->mix[i].weight / total;
    }
    return n;
}

static void components(const gp_demand *d, const gp_node *n, const gp_policy *pol,
                       const gp_typical *typ, const gp_frag_ctx *ctx, price_memo memo[2],
                       gp_score_parts *p)
{
    bool covered = false;

    memset(p, 0, sizeof(*p));
    p->feasible = gp_filter_node(d, n, pol, NULL) == GP_FILTER_PASS;
    p->spot_denied = p->feasible && d->gpu && n->spot && !d->spot_ok;
    p->marginal_cost = marginal_cost(d, n, node_price(n, pol, memo));
    p->fit = fit_of(d, n, true);
    if (p->feasible && pol->scoring.weight_fragmentation > 0)
        p->fragmentation = fragmentation_of(d, n, typ, ctx, &covered);
    /* A node's whole GPUs the fragmentation component scored leave the fit component (and so
     * does the CPU a CPU pod would take next to them): best fit on GPU or CPU counts at fit's
     * weight overrides fragmentation differences smaller than a GPU, and packing CPU pods
     * tightly strands GPUs (docs/scoring.md, measured with gpupack-sim --scorer extender). */
    if (covered)
        p->fit = fit_of(d, n, false);
    p->stranding = stranding_of(d, n, typ);
}

static void weigh(const gp_demand *d, const gp_node *n, const gp_scoring *s, double cheapest,
                  gp_score_parts *p)
{
    double unit = p->marginal_cost / useful_units(d, n);

    if (d->gpu && n->spot && !d->spot_ok)
        p->cost = 0; /* capacity the pod may not use: the worst cost, whatever the price */
    else
        p->cost = p->marginal_cost <= 0 ? 1 : unit > 0 ? 0.5 * (cheapest / unit) : 0;
    if (p->cost > 1)
        p->cost = 1; /* an infeasible node cheaper than every candidate */
    p->raw = s->weight_cost * p->cost + s->weight_fit * p->fit -
             s->weight_stranding * p->stranding + s->weight_fragmentation * p->fragmentation -
             (!d->gpu && gp_node_is_gpu(n) ? s->weight_gpu_node_penalty : 0);
}

static int cmp_desc(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? 1 : x > y ? -1 : 0;
}

/* Collapses sorted (descending) raws into tier heads in place; returns the number of tiers. */
static size_t tier_heads(double *v, size_t n)
{
    size_t t = 0;

    for (size_t i = 0; i < n; i++)
        if (t == 0 || v[t - 1] - v[i] >= TIER_EPS)
            v[t++] = v[i];
    return t;
}

/* The tier of raw r: the first head closer than TIER_EPS (heads are descending). */
static size_t tier_of(const double *heads, size_t t, double r)
{
    size_t lo = 0, hi = t;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (heads[mid] - r >= TIER_EPS)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < t ? lo : t - 1;
}

/* Tier t of tiers: the best alone at GP_SCORE_MAX, the others spread over 1..9 (0 is left to
 * nodes the pod cannot or may not use). */
static int tier_score(size_t t, size_t tiers)
{
    size_t span = tiers - 1, levels = GP_SCORE_MAX - GP_SCORE_MIN_RANKED;
    int v;

    if (tiers <= 1 || t == 0)
        return GP_SCORE_MAX;
    v = GP_SCORE_MIN_RANKED + (int)((2 * levels * (span - t) + span) / (2 * span));
    return v < GP_SCORE_MAX ? v : GP_SCORE_MAX - 1;
}

/* Ranks the ranked nodes into tiers of equal raw and spreads the tiers over 1..10. When the
 * scratch array cannot be allocated, every ranked node scores 10: gpupack abstains rather than
 * guess. */
static void map_scores(size_t n, gp_score_parts *out)
{
    double stack[TIER_STACK], *raws = stack;
    size_t k = 0, tiers;

    if (n > TIER_STACK && (raws = malloc(n * sizeof(*raws))) == NULL) {
        for (size_t i = 0; i < n; i++)
            out[i].score = is_ranked(&out[i]) ? GP_SCORE_MAX : 0;
        return;
    }
    for (size_t i = 0; i < n; i++)
        if (is_ranked(&out[i]))
            raws[k++] = out[i].raw;
    qsort(raws, k, sizeof(*raws), cmp_desc);
    tiers = tier_heads(raws, k);
    for (size_t i = 0; i < n; i++)
        out[i].score = is_ranked(&out[i])
                           ? tier_score(tier_of(raws, tiers, out[i].raw), tiers)
                           : 0;
    if (raws != stack)
        free(raws);
}

void gp_prioritize(const gp_demand *d, const gp_node *const *nodes, size_t n,
                   const gp_policy *pol, const gp_typical *typ, gp_score_parts *out)
{
    gp_typical def = { .cpu_m_per_gpu = pol->scoring.typical_cpu_milli_per_gpu,
                       .mem_per_gpu = pol->scoring.typical_memory_per_gpu,
                       .mix = NULL };
    gp_frag_shape one;
    gp_frag_mix fallback = {1, &one};
    gp_frag_ctx ctx = {.mix = &fallback};
    price_memo memo[2];
    double cheapest;

    memset(memo, 0, sizeof(memo));
    if (typ == NULL)
        typ = &def;
    one = gp_frag_default_shape(typ->cpu_m_per_gpu);
    if (typ->mix != NULL && typ->mix->n > 0)
        ctx.mix = typ->mix;
    ctx.model_pressure = typ->model_pressure;
    for (size_t i = 0; i < n; i++)
        components(d, nodes[i], pol, typ, &ctx, memo, &out[i]);
    cheapest = cheapest_unit(d, nodes, n, out);
    for (size_t i = 0; i < n; i++)
        weigh(d, nodes[i], &pol->scoring, cheapest, &out[i]);
    map_scores(n, out);
}
