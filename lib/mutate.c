/* SPDX-License-Identifier: Apache-2.0 */
/* The webhook's decisions for a pod being created. Each step adds a change only when the pod
 * lacks what the policy asks for, so a second pass over the mutated pod adds nothing. */
#include "gpupack/mutate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "gpupack/gpuaff.h"
#include "gpupack/nodematch.h"
#include "gpupack/nodeview.h"
#include "gpupack/strbuf.h"
#include "gpupack/workload.h"

typedef struct {
    const gp_pod *pod;
    const gp_policy *pol;
    const gp_cluster *view;
    const gp_class *cls;
    gp_arena *a;
    gp_decision *d;
    size_t cap;
    const char *no_class; /* why the GPU pod has no class (summary and warning); NULL: it has */
    bool pool_conflict;   /* the class's required pool contradicts the pod's own node selection */
    const gp_mutate_opts *opts; /* never NULL here */
    const gp_rec *applying;     /* the recommendation the MIG rewrite applies; NULL: the user's */
    const char *workload_ref;   /* "deployment/ranker" while applying */
    const char *warn_prefix;    /* put before every warning; NULL: none */
    gp_gpu_affinity models;     /* the GPU model rules stated as affinity (gpuaff.h) */
    gp_status models_st;        /* GP_OK, or GP_EINVAL with models_err: a bad annotation */
    gp_err models_err;
} mctx;

#define MUTATION_LABEL(id, label) [id] = label,
static const char *const mutation_labels[GP_MK_COUNT] = {GP_MUTATION_KINDS(MUTATION_LABEL)};
#undef MUTATION_LABEL

const char *gp_mutation_kind_label(gp_mutation_kind k)
{
    return k < GP_MK_COUNT ? mutation_labels[k] : NULL;
}

#define RS_LABEL(id, label) [id] = label,
static const char *const rs_labels[GP_RS_COUNT] = {[GP_RS_NONE] = NULL, GP_RS_ACTIONS(RS_LABEL)};
#undef RS_LABEL

const char *gp_rs_action_label(gp_rs_action a)
{
    return a > GP_RS_NONE && a < GP_RS_COUNT ? rs_labels[a] : NULL;
}

static gp_change *add_change(mctx *m, gp_change_kind kind, gp_mutation_kind metric,
                             const char *reason)
{
    gp_change *c;

    if (m->d->nchanges == m->cap) {
        size_t ncap = m->cap ? m->cap * 2 : 8;

        if (ncap > GP_MAX_CHANGES)
            return NULL;
        m->d->changes = gp_arena_grow(m->a, m->d->changes, m->cap * sizeof(gp_change),
                                      ncap * sizeof(gp_change));
        if (m->d->changes == NULL)
            return NULL;
        m->cap = ncap;
    }
    c = &m->d->changes[m->d->nchanges++];
    memset(c, 0, sizeof(*c));
    c->kind = kind;
    c->metric = metric;
    c->reason = reason;
    return c;
}

static gp_status add_warning(mctx *m, const char *w)
{
    const char **nw;

    if (w != NULL && m->warn_prefix != NULL)
        w = gp_arena_printf(m->a, "%s%s", m->warn_prefix, w);
    if (w == NULL)
        return GP_ENOMEM;
    if (m->d->nwarnings >= GP_MAX_WARNINGS)
        return GP_OK;
    nw = gp_arena_grow(m->a, m->d->warnings, m->d->nwarnings * sizeof(char *),
                       (m->d->nwarnings + 1) * sizeof(char *));
    if (nw == NULL)
        return GP_ENOMEM;
    nw[m->d->nwarnings++] = w;
    m->d->warnings = nw;
    return GP_OK;
}

static bool pod_tolerates(const gp_pod *pod, const gp_toleration *want)
{
    for (size_t i = 0; i < pod->ntolerations; i++)
        if (gp_toleration_covers(&pod->tolerations[i], want))
            return true;
    return false;
}

static const char *toleration_text(gp_arena *a, const gp_toleration *t)
{
    if (strcmp(t->op, "Exists") == 0)
        return gp_arena_printf(a, "%s%s%s", *t->key ? t->key : "*", *t->effect ? ":" : "",
                               t->effect);
    return gp_arena_printf(a, "%s=%s%s%s", t->key, t->value, *t->effect ? ":" : "", t->effect);
}

/* True when a toleration this decision already adds covers want (a class's toleration equal to
 * a top-level one is added once). */
static bool adding_toleration(const mctx *m, const gp_toleration *want)
{
    for (size_t i = 0; i < m->d->nchanges; i++)
        if (m->d->changes[i].kind == GP_CH_ADD_TOLERATION &&
            gp_toleration_covers(m->d->changes[i].tol, want))
            return true;
    return false;
}

static gp_status add_tolerations(mctx *m, const gp_toleration *tols, size_t n,
                                 gp_mutation_kind metric, const char *why)
{
    for (size_t i = 0; i < n; i++) {
        gp_change *c;

        if (pod_tolerates(m->pod, &tols[i]) || adding_toleration(m, &tols[i]))
            continue;
        c = add_change(m, GP_CH_ADD_TOLERATION, metric, NULL);
        if (c == NULL)
            return GP_ENOMEM;
        c->tol = &tols[i];
        if (why != NULL) {
            const char *text = toleration_text(m->a, &tols[i]);

            c->reason = text ? gp_arena_printf(m->a, "toleration %s (%s)", text, why) : NULL;
            if (c->reason == NULL)
                return GP_ENOMEM;
        }
    }
    return GP_OK;
}

static gp_status decide_class_label(mctx *m)
{
    const char *have = gp_pod_label(m->pod, GP_LABEL_CLASS);
    gp_change *c;

    if (have != NULL && strcmp(have, m->cls->name) == 0)
        return GP_OK;
    c = add_change(m, GP_CH_SET_LABEL, GP_MK_CLASS_LABEL,
                   gp_arena_printf(m->a, "class %s (%s)", m->cls->name, m->d->class_why));
    if (c == NULL || c->reason == NULL)
        return GP_ENOMEM;
    c->key = GP_LABEL_CLASS;
    c->value = m->cls->name;
    return GP_OK;
}

/* The pod's priorityClassName when it counts as the pod's own choice; NULL when it names none,
 * or (policy priority.overrideGlobalDefault) names the cluster's globalDefault PriorityClass,
 * which the Priority admission plugin set before the webhook ran. *global is set then. */
static const char *own_priority_class(const mctx *m, const char **global)
{
    const char *have = m->pod->priority_class;

    *global = NULL;
    if (have == NULL || *have == '\0')
        return NULL;
    if (m->pol->priority.override_global_default && gp_cluster_global_default(m->view) != NULL &&
        strcmp(have, gp_cluster_global_default(m->view)) == 0) {
        *global = have;
        return NULL;
    }
    return have;
}

static bool checkpointing(const gp_pod *pod)
{
    const char *cp = gp_pod_annotation(pod, GP_ANN_CHECKPOINTING);

    return cp != NULL && strcmp(cp, "true") == 0;
}

/* The class's PriorityClass for this pod: a checkpointing pod loses minutes when preempted, so
 * it gets the class's lower checkpointingPriorityClassName when there is one. */
static const char *class_priority(const mctx *m, bool *ckpt)
{
    *ckpt = *m->cls->checkpointing_priority_class != '\0' && checkpointing(m->pod);
    return *ckpt ? m->cls->checkpointing_priority_class : m->cls->priority_class;
}

static gp_status decide_priority(mctx *m)
{
    bool ckpt;
    const char *pc = class_priority(m, &ckpt), *global, *have = m->pod->priority_class;
    const char *why;
    gp_change *c;

    /* The class's own name is never replaced, even when it is the global default: the
     * reinvocation must find nothing to do. */
    if (*pc == '\0' || own_priority_class(m, &global) != NULL ||
        (have != NULL && strcmp(have, pc) == 0))
        return GP_OK;
    if (m->view != NULL && m->view->has_priority_classes &&
        !gp_cluster_has_priority_class(m->view, pc))
        return add_warning(m, gp_arena_printf(m->a, "PriorityClass %s does not exist; "
                                              "priorityClassName %s", pc,
                                              global ? "keeps the global default" : "left unset"));
    why = ckpt ? gp_arena_printf(m->a, "class %s, checkpointing", m->cls->name)
               : gp_arena_printf(m->a, "class %s", m->cls->name);
    c = why == NULL ? NULL
        : add_change(m, GP_CH_SET_PRIORITY_CLASS, GP_MK_PRIORITY_CLASS,
                     global ? gp_arena_printf(m->a, "priorityClassName %s (%s; replaces the "
                                              "global default %.60s)", pc, why, global)
                            : gp_arena_printf(m->a, "priorityClassName %s (%s)", pc, why));
    if (c == NULL || c->reason == NULL)
        return GP_ENOMEM;
    c->value = pc;
    /* The Priority admission plugin already ran and will run again after the webhook: a stale
     * integer would make it reject the pod, so both computed fields go. */
    if (m->pod->has_priority &&
        add_change(m, GP_CH_REMOVE_PRIORITY, GP_MK_PRIORITY_CLASS, NULL) == NULL)
        return GP_ENOMEM;
    if (m->pod->has_preemption_policy &&
        add_change(m, GP_CH_REMOVE_PREEMPTION, GP_MK_PRIORITY_CLASS, NULL) == NULL)
        return GP_ENOMEM;
    return GP_OK;
}

/* True when the requirements list the same values (each list's values are unique). */
static bool same_values(const gp_selector_req *a, const gp_selector_req *b)
{
    if (a->nvalues != b->nvalues)
        return false;
    for (size_t i = 0; i < a->nvalues; i++) {
        size_t j = 0;

        while (j < b->nvalues && strcmp(a->values[i], b->values[j]) != 0)
            j++;
        if (j == b->nvalues)
            return false;
    }
    return true;
}

static bool term_has(const gp_node_term *t, const gp_selector_req *want)
{
    for (size_t i = 0; i < t->nexprs; i++) {
        const gp_selector_req *r = &t->exprs[i];

        if (strcmp(r->key, want->key) == 0 && strcmp(r->op, want->op) == 0 && same_values(r, want))
            return true;
    }
    return false;
}

static bool term_has_all(const gp_node_term *t, const gp_selector_req *exprs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!term_has(t, &exprs[i]))
            return false;
    return true;
}

static bool has_preferred(const gp_pod *pod, const gp_selector_req *exprs, size_t n)
{
    for (size_t i = 0; i < pod->npreferred; i++)
        if (term_has_all(&pod->preferred[i], exprs, n))
            return true;
    return false;
}

/* Writes "key In [value]" for each label into r[0..n). */
static void put_label_reqs(gp_selector_req *r, const gp_label *l, size_t n)
{
    for (size_t i = 0; i < n; i++)
        r[i] = (gp_selector_req){ l[i].key, "In", (char **)&l[i].value, 1 };
}

/* "key In [value]" for each label (from a); NULL on allocation failure. */
static gp_selector_req *label_reqs(gp_arena *a, const gp_label *l, size_t n)
{
    gp_selector_req *r = gp_arena_alloc(a, (n + 1) * sizeof(*r));

    if (r != NULL)
        put_label_reqs(r, l, n);
    return r;
}

/* A term with no expression and no field matches no node; the pool is not added to it (ANDing
 * into nothing is nothing, and widening it would let the pod land where its own terms forbid). */
static bool term_is_empty(const gp_node_term *t)
{
    return t->nexprs == 0 && t->nfields == 0;
}

/* True when every term that can match a node already requires the pool's labels; a pod whose
 * terms are all empty can land nowhere, and the pool would change nothing. */
static bool required_satisfied(const gp_pod *pod, const gp_selector_req *exprs, size_t n)
{
    if (pod->nrequired == 0)
        return false;
    for (size_t i = 0; i < pod->nrequired; i++)
        if (!term_is_empty(&pod->required[i]) && !term_has_all(&pod->required[i], exprs, n))
            return false;
    return true;
}

static const char *labels_text(gp_arena *a, const gp_label *l, size_t n)
{
    const char *s = "";

    for (size_t i = 0; i < n && s != NULL; i++)
        s = gp_arena_printf(a, "%s%s%s=%s", s, i ? "," : "", l[i].key, l[i].value);
    return s;
}

/* The pod's nodeSelector entry that names a pool label key with another value; NULL if none. */
static const gp_label *selector_conflict(const gp_pod *pod, const gp_pool *p)
{
    for (size_t i = 0; i < pod->nnode_selector; i++) {
        const char *want = gp_label_find(p->labels, p->nlabels, pod->node_selector[i].key);

        if (want != NULL && strcmp(want, pod->node_selector[i].value) != 0)
            return &pod->node_selector[i];
    }
    return NULL;
}

/* True when the term's expressions on the pool's keys reject the pool's values (a node in the
 * pool can never match the term, whatever its other labels). */
static bool term_excludes_pool(const gp_node_term *t, const gp_pool *p)
{
    for (size_t i = 0; i < t->nexprs; i++)
        if (gp_label_find(p->labels, p->nlabels, t->exprs[i].key) != NULL &&
            !gp_node_req_matches(&t->exprs[i], p->labels, p->nlabels))
            return true;
    return false;
}

/* True when every required term (they are ORed) rejects the pool. */
static bool affinity_excludes_pool(const gp_pod *pod, const gp_pool *p)
{
    if (pod->nrequired == 0)
        return false;
    for (size_t i = 0; i < pod->nrequired; i++)
        if (!term_excludes_pool(&pod->required[i], p))
            return false;
    return true;
}

/* A required pool that the pod's own node selection rules out would leave it Pending for ever:
 * the pool is skipped, and a warning says why. */
static gp_status warn_pool_conflict(mctx *m, const char *text)
{
    const gp_label *sel = selector_conflict(m->pod, &m->cls->pool);

    m->pool_conflict = true;
    if (sel != NULL)
        return add_warning(m, gp_arena_printf(m->a, "class %s pool %.80s not required: the "
                                              "pod's nodeSelector sets %.60s=%.40s", m->cls->name,
                                              text, sel->key, sel->value));
    return add_warning(m, gp_arena_printf(m->a, "class %s pool %.80s not required: the pod's "
                                          "required node affinity excludes it", m->cls->name,
                                          text));
}

static gp_status decide_pool(mctx *m)
{
    const gp_pool *p = &m->cls->pool;
    bool required = p->placement == GP_PLACE_REQUIRED;
    gp_selector_req *exprs;
    gp_change *c;

    if (p->placement == GP_PLACE_NONE || p->nlabels == 0 || m->pod->node_name != NULL)
        return GP_OK;
    const char *text;

    if (required && (selector_conflict(m->pod, p) != NULL || affinity_excludes_pool(m->pod, p))) {
        text = labels_text(m->a, p->labels, p->nlabels);
        return text ? warn_pool_conflict(m, text) : GP_ENOMEM;
    }

    exprs = label_reqs(m->a, p->labels, p->nlabels);
    if (exprs == NULL)
        return GP_ENOMEM;
    if (required ? required_satisfied(m->pod, exprs, p->nlabels)
                 : has_preferred(m->pod, exprs, p->nlabels))
        return GP_OK;
    text = labels_text(m->a, p->labels, p->nlabels);
    if (text == NULL)
        return GP_ENOMEM;
    c = add_change(m, required ? GP_CH_ADD_REQUIRED : GP_CH_ADD_PREFERRED, GP_MK_PLACEMENT,
                   gp_arena_printf(m->a, "%s node affinity %s (class %s pool)",
                                   required ? "required" : "preferred", text, m->cls->name));
    if (c == NULL || c->reason == NULL)
        return GP_ENOMEM;
    c->exprs = exprs;
    c->nexprs = p->nlabels;
    c->weight = p->weight;
    return GP_OK;
}

/* Usable memory of a profile the policy does not list, from its name "<N>g.<M>gb": M GiB x 7/8.
 * A slice's framebuffer is a little below the number in its name (nvidia-smi mig -lgip shows
 * 9.5 GiB for an A100-80GB's 1g.10gb, 16 GiB for an H200's 1g.18gb, 0.89 of its name), so the
 * name alone overstates it; 7/8 stays below every part measured. */
#define GP_MIG_NAME_MIB_PER_GB 896

/* Parses "<N>g.<M>gb" into compute slices and usable memory, for profiles the cluster offers
 * that the policy does not list. */
static bool parse_profile_name(const char *name, int *slices, gp_qty *mem)
{
    long g = 0, gb = 0;
    const char *p = name;

    while (*p >= '0' && *p <= '9' && g < 100)
        g = g * 10 + (*p++ - '0');
    if (p == name || *p++ != 'g' || *p++ != '.')
        return false;
    if (*p < '0' || *p > '9')
        return false;
    while (*p >= '0' && *p <= '9' && gb < 100000)
        gb = gb * 10 + (*p++ - '0');
    if (strcmp(p, "gb") != 0 || g == 0 || gb == 0)
        return false;
    *slices = (int)g;
    mem->nano = (__int128)gb * GP_MIG_NAME_MIB_PER_GB * 1048576 * 1000000000;
    return true;
}

static const gp_mig_profile *policy_profile(const gp_policy *pol, const char *name)
{
    for (size_t i = 0; i < pol->nmig_profiles; i++)
        if (strcmp(pol->mig_profiles[i].name, name) == 0)
            return &pol->mig_profiles[i];
    return NULL;
}

static bool better(const gp_mig_profile *a, const gp_mig_profile *b)
{
    int c;

    if (b == NULL)
        return true;
    if (a->slices != b->slices)
        return a->slices < b->slices;
    c = gp_qty_cmp(a->memory, b->memory);
    if (c != 0)
        return c < 0;
    return strcmp(a->name, b->name) < 0;
}

static const gp_mig_profile *view_profile(const gp_policy *pol, const char *name, gp_arena *a)
{
    const gp_mig_profile *known = policy_profile(pol, name);
    gp_mig_profile *p;

    if (known != NULL)
        return known;
    p = gp_arena_alloc(a, sizeof(*p));
    if (p == NULL || !parse_profile_name(name, &p->slices, &p->memory))
        return NULL;
    p->name = (char *)name;
    return p;
}

/* The view's profiles resolved once (policy entry, or slices and memory from the name; NULL for
 * a name neither gives), in the order of view->mig_profiles. */
static const gp_mig_profile **resolve_view(const gp_policy *pol, const gp_cluster *view,
                                           gp_arena *a)
{
    const gp_mig_profile **res = gp_arena_alloc(a, (view->nmig_profiles + 1) * sizeof(*res));

    for (size_t i = 0; res != NULL && i < view->nmig_profiles; i++)
        res[i] = view_profile(pol, view->mig_profiles[i], a);
    return res;
}

/* The best fitting profile one node offers, if it beats best; NULL otherwise. */
static const gp_mig_profile *node_best(const gp_cluster *view, const gp_cluster_node *node,
                                       const gp_mig_profile **res, gp_qty need, int32_t count,
                                       const gp_mig_profile *best)
{
    const gp_mig_profile *found = NULL;

    for (size_t j = 0; j < node->nprofiles; j++) {
        uint32_t at = node->idx ? node->idx[j] : UINT32_MAX;
        const gp_mig_profile *p = at < view->nmig_profiles ? res[at] : NULL;

        if (p != NULL && gp_qty_cmp(p->memory, need) >= 0 && node->counts[j] >= count &&
            better(p, found ? found : best))
            found = p;
    }
    return found;
}

static bool may_use(const gp_mig_where *where, const gp_cluster_node *node)
{
    return where == NULL || gp_pod_may_use_node(where->pod, where->required, where->nrequired,
                                                node->name, node->labels, node->nlabels);
}

/* Node by node: only a node that would improve on the best so far is matched against the pod. */
static const gp_mig_profile *pick_from_nodes(const gp_policy *pol, const gp_cluster *view,
                                             const gp_mig_where *where, gp_qty need, gp_arena *a)
{
    const gp_mig_profile **res = resolve_view(pol, view, a), *best = NULL;

    for (size_t i = 0; res != NULL && i < view->nnodes; i++) {
        const gp_mig_profile *p = node_best(view, &view->nodes[i], res, need,
                                              where ? where->count : 1, best);

        if (p != NULL && may_use(where, &view->nodes[i]))
            best = p;
    }
    return best;
}

const gp_mig_profile *gp_mig_pick(const gp_policy *pol, const gp_cluster *view,
                                  const gp_mig_where *where, gp_qty need, gp_arena *a)
{
    const gp_mig_profile *best = NULL;

    if (view != NULL && view->has_nodes)
        return pick_from_nodes(pol, view, where, need, a);
    if (!pol->mig_profiles_authoritative)
        return NULL;
    for (size_t i = 0; i < pol->nmig_profiles; i++) {
        const gp_mig_profile *p = &pol->mig_profiles[i];

        if (gp_qty_cmp(p->memory, need) >= 0 && better(p, best))
            best = p;
    }
    return best;
}

/* True when the container asks for exactly one whole GPU (limit 1, request absent or 1). */
static bool wants_one_gpu(const gp_container *c)
{
    const gp_resource *lim = gp_container_limit(c, GP_RES_GPU);
    const gp_resource *req = gp_container_request(c, GP_RES_GPU);

    if (lim == NULL)
        return req != NULL && gp_qty_equals_units(req->qty, 1) && !c->has_limits;
    return gp_qty_equals_units(lim->qty, 1) && (req == NULL || gp_qty_equals_units(req->qty, 1));
}

static const char *container_label(gp_arena *a, const gp_container *c)
{
    return gp_arena_printf(a, "%s%s", c->init ? "init container " : "container ",
                           c->name ? c->name : "(unnamed)");
}

/* Adds the container's original GPU request and limit to the JSON record of what was rewritten:
 * {"containers":{"main":{"requests":{"nvidia.com/gpu":"1"},"limits":{...}}},"initContainers":...}.
 * Built with cJSON so that any container name is escaped correctly. */
static bool record_original(cJSON *root, const gp_container *k)
{
    const char *group = k->init ? "initContainers" : "containers";
    cJSON *g = cJSON_GetObjectItemCaseSensitive(root, group);
    cJSON *ent = cJSON_CreateObject();
    bool ok = ent != NULL;

    if (g == NULL && ent != NULL)
        g = cJSON_AddObjectToObject(root, group);
    if (ok && gp_container_request(k, GP_RES_GPU) != NULL)
        ok = cJSON_AddStringToObject(cJSON_AddObjectToObject(ent, "requests"), GP_RES_GPU, "1");
    if (ok && gp_container_limit(k, GP_RES_GPU) != NULL)
        ok = cJSON_AddStringToObject(cJSON_AddObjectToObject(ent, "limits"), GP_RES_GPU, "1");
    if (!ok || g == NULL) {
        cJSON_Delete(ent);
        return false;
    }
    if (!cJSON_AddItemToObject(g, k->name ? k->name : "", ent)) {
        cJSON_Delete(ent);
        return false;
    }
    return true;
}

/* "2026-12-04T18:00:00Z" for t seconds since the epoch, into buf (at least 32 bytes). */
static const char *rfc3339(double t, char *buf, size_t n)
{
    struct tm tm;
    time_t s = (time_t)t;

    if (!isfinite(t) || gmtime_r(&s, &tm) == NULL ||
        strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
        snprintf(buf, n, "unknown");
    return buf;
}

static bool add_number(cJSON *o, const char *key, double v)
{
    return !isfinite(v) || cJSON_AddNumberToObject(o, key, v) != NULL;
}

static bool add_time(cJSON *o, const char *key, double t)
{
    char buf[32];

    return cJSON_AddStringToObject(o, key, rfc3339(t, buf, sizeof(buf))) != NULL;
}

/* The recommendation a rewrite applied, in gpupack.io/original-resources: which workload, what,
 * on which evidence, made and applied when. */
static bool record_applied(cJSON *root, const mctx *m)
{
    const gp_rec *r = m->applying;
    cJSON *o = cJSON_AddObjectToObject(root, "rightsizing"), *e;
    bool ok = o != NULL && cJSON_AddStringToObject(o, "workload", m->workload_ref) &&
              cJSON_AddStringToObject(o, "gpuMemory", r->gpu_memory) &&
              (*r->mig_profile == '\0' || cJSON_AddStringToObject(o, "migProfile", r->mig_profile));

    e = ok ? cJSON_AddObjectToObject(o, "evidence") : NULL;
    ok = e != NULL && add_number(e, "windowHours", r->window_hours) &&
         add_number(e, "fbPeakMiB", r->fb_peak_mib) && add_number(e, "p95Activity", r->p95) &&
         add_number(e, "meanActivity", r->mean) && add_number(e, "samples", r->samples);
    return ok && add_time(o, "created", r->created) && add_time(o, "expires", r->expires) &&
           add_time(o, "applied", m->opts->now);
}

static gp_status original_json(mctx *m, const gp_container *const *cs, size_t n)
{
    cJSON *root;
    char *json = NULL;
    bool ok;
    gp_change *c;

    root = cJSON_CreateObject();
    ok = root != NULL;
    for (size_t i = 0; ok && i < n; i++)
        ok = record_original(root, cs[i]);
    if (ok && m->applying != NULL)
        ok = record_applied(root, m);
    if (ok)
        json = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    c = json ? add_change(m, GP_CH_SET_ANNOTATION, GP_MK_ANNOTATION, NULL) : NULL;
    if (c != NULL) {
        c->key = GP_ANN_ORIGINAL;
        c->value = gp_arena_strdup(m->a, json);
    }
    cJSON_free(json);
    return c != NULL && c->value != NULL ? GP_OK : GP_ENOMEM;
}

static gp_status rewrite_containers(mctx *m, const gp_mig_profile *prof, const char *hint)
{
    const gp_container *done[GP_POD_MAX_CONTAINERS];
    size_t ndone = 0;
    const char *res = gp_arena_printf(m->a, GP_RES_MIG_PREFIX "%s", prof->name);

    if (res == NULL)
        return GP_ENOMEM;
    for (size_t i = 0; i < m->pod->ncontainers; i++) {
        const gp_container *k = &m->pod->containers[i];
        const char *label;
        gp_change *c;

        if (!wants_one_gpu(k))
            continue;
        label = container_label(m->a, k);
        if (label == NULL)
            return GP_ENOMEM;
        c = add_change(m, GP_CH_REPLACE_RESOURCE, m->applying ? GP_MK_RIGHTSIZING : GP_MK_MIG,
                       gp_arena_printf(m->a, "%s: " GP_RES_GPU " 1 -> %s (needs %s)", label, res,
                                       hint));
        if (c == NULL || c->reason == NULL)
            return GP_ENOMEM;
        c->container = k;
        c->key = GP_RES_GPU;
        c->value = res;
        done[ndone++] = k;
    }
    return ndone ? original_json(m, done, ndone) : GP_OK;
}

static bool any_one_gpu(const gp_pod *pod)
{
    for (size_t i = 0; i < pod->ncontainers; i++)
        if (wants_one_gpu(&pod->containers[i]))
            return true;
    return false;
}

/* True when the container asks for whole GPUs (an nvidia.com/gpu request or limit above 0). */
static bool asks_whole_gpus(const gp_container *c)
{
    const gp_resource *lim = gp_container_limit(c, GP_RES_GPU);
    const gp_resource *req = gp_container_request(c, GP_RES_GPU);

    return (lim != NULL && lim->qty.nano > 0) || (req != NULL && req->qty.nano > 0);
}

/* The first container that asks for whole GPUs but not for exactly one; NULL when none. */
static const gp_container *not_one_gpu_container(const gp_pod *pod)
{
    for (size_t i = 0; i < pod->ncontainers; i++)
        if (asks_whole_gpus(&pod->containers[i]) && !wants_one_gpu(&pod->containers[i]))
            return &pod->containers[i];
    return NULL;
}

/* True when r holds a GPU resource of the policy, other than skip, above zero. */
static bool other_gpu(const gp_resource *r, size_t n, const gp_policy *pol, const char *skip)
{
    static const gp_qty zero = { 0 };

    for (size_t i = 0; i < n; i++)
        if (strcmp(r[i].name, skip) != 0 && gp_qty_cmp(r[i].qty, zero) > 0 &&
            gp_policy_is_gpu_resource(pol, r[i].name))
            return true;
    return false;
}

/* True when the container asks for some GPU but not for exactly one whole nvidia.com/gpu and
 * nothing else GPU-like (a MIG slice beside it, two GPUs). */
static bool odd_gpu(const gp_container *c, const gp_policy *pol)
{
    /* A stated 0 asks for nothing, as Kubernetes counts it ("nvidia.com/gpu: 0" keeps a
     * container of a GPU pod away from the devices). */
    bool gpu = asks_whole_gpus(c);
    bool other = other_gpu(c->requests, c->nrequests, pol, GP_RES_GPU) ||
                 other_gpu(c->limits, c->nlimits, pol, GP_RES_GPU);

    return other || (gpu && !wants_one_gpu(c));
}

/* The first container (app, init or sidecar) that asks for GPUs otherwise than one whole GPU;
 * NULL when every GPU container asks for exactly one. The rewrite is all or nothing: the pod's
 * effective request is the larger of its largest init container and the sum of its app
 * containers and sidecars, so a slice beside whole GPUs (an init container's GPU becoming a slice
 * beside an app container's two GPUs, say) would only add a device to the pod. */
static const gp_container *odd_gpu_container(const gp_pod *pod, const gp_policy *pol)
{
    for (size_t i = 0; i < pod->ncontainers; i++)
        if (odd_gpu(&pod->containers[i], pol))
            return &pod->containers[i];
    return NULL;
}

/* "no MIG rewrite: <container c> <why>; keeps nvidia.com/gpu". */
static gp_status warn_kept(mctx *m, const gp_container *c, const char *why)
{
    const char *label = container_label(m->a, c);

    return add_warning(m, label ? gp_arena_printf(m->a, "no MIG rewrite: %.60s %s; keeps "
                                                  GP_RES_GPU, label, why)
                                : NULL);
}

static gp_status warn_mixed(mctx *m, const gp_container *odd)
{
    return warn_kept(m, odd, "asks for GPUs other than one whole " GP_RES_GPU ", and slices "
                             "beside them would grow the pod");
}

/* A pod none of whose containers asks for exactly one whole GPU (two GPUs, say): a slice stands
 * for one GPU, and one process cannot use two slices as one device. */
static gp_status warn_not_one(mctx *m, const gp_container *c)
{
    return warn_kept(m, c, "asks for a number of " GP_RES_GPU " other than one, and a MIG slice "
                           "stands for exactly one");
}

/* How many slices the pod holds once rewritten: its effective nvidia.com/gpu count (every GPU
 * container asks for exactly one), by the one rule for what a pod uses (gp_usage_from_pod:
 * app containers and sidecars add up, init containers run before them). */
static int32_t slices_needed(const gp_pod *pod)
{
    gp_usage u;
    gp_err err = { { 0 } };

    if (gp_usage_from_pod(pod, &u, &err) != GP_OK || u.gpu < 1)
        return 1;
    return u.gpu;
}

/* What the webhook itself requires of the pod's node (from m->a): its class's pool when required
 * (req_pool), then the GPU model rules; *n of them. NULL on allocation failure. */
static const gp_selector_req *own_requirements(mctx *m, bool req_pool, size_t *n)
{
    const gp_pool *pool = &m->cls->pool;
    size_t np = req_pool ? pool->nlabels : 0;
    gp_selector_req *r = gp_arena_alloc(m->a, (np + m->models.nmodels + 1) * sizeof(*r));

    if (r == NULL)
        return NULL;
    put_label_reqs(r, pool->labels, np);
    if (m->models.nmodels)
        memcpy(r + np, m->models.models, m->models.nmodels * sizeof(*r));
    *n = np + m->models.nmodels;
    return r;
}

/* The MIG rewrite for a pod whose GPU containers all ask for one whole GPU, needing `need`
 * memory per GPU (hint: how warnings name it; why: what the rewrite's reason says it needs):
 * each of them gets the smallest slice a node the pod may use offers, or nothing changes and a
 * warning says why. */
static gp_status mig_rewrite_uniform(mctx *m, gp_qty need, const char *hint, const char *why)
{
    const gp_pool *pool = &m->cls->pool;
    /* The webhook's own required pool narrows where the pod may land (it is not added to a pod
     * bound by spec.nodeName, see decide_pool). */
    bool req_pool = pool->placement == GP_PLACE_REQUIRED && m->pod->node_name == NULL &&
                    !m->pool_conflict;
    gp_mig_where where = { .pod = m->pod };
    const gp_mig_profile *prof;

    where.required = own_requirements(m, req_pool, &where.nrequired);
    if (where.required == NULL)
        return GP_ENOMEM;
    where.count = slices_needed(m->pod); /* only for pods the rewrite may touch */
    prof = gp_mig_pick(m->pol, m->view, &where, need, m->a);
    if (prof != NULL)
        return rewrite_containers(m, prof, why);
    /* Say which it is: no view of what nodes offer, no node offers any slice, nothing anywhere
     * fits, or only nodes the pod cannot use offer a fit. */
    if ((m->view == NULL || !m->view->has_nodes) && !m->pol->mig_profiles_authoritative)
        return add_warning(m, "no MIG rewrite: the webhook has no synced view of the nodes, so "
                              "nothing says which MIG slices exist; keeps " GP_RES_GPU);
    if (m->view != NULL && m->view->has_nodes && m->view->nmig_profiles == 0)
        return add_warning(m, "no node offers MIG slices; keeps " GP_RES_GPU);
    if (m->view != NULL && m->view->has_nodes && gp_mig_pick(m->pol, m->view, NULL, need, m->a))
        return add_warning(m, where.count > 1
            ? gp_arena_printf(m->a, "no node this pod can use offers %d slices of a MIG profile "
                              "with %.40s; keeps " GP_RES_GPU, (int)where.count, hint)
            : gp_arena_printf(m->a, "no node this pod can use offers a MIG profile with %.40s; "
                              "keeps " GP_RES_GPU, hint));
    return add_warning(m, gp_arena_printf(m->a, "no MIG profile offers %.40s; keeps "
                                          GP_RES_GPU, hint));
}

/* The same for any pod: one whose GPU containers do not all ask for one whole GPU gets the
 * warning instead. */
static gp_status mig_rewrite(mctx *m, gp_qty need, const char *hint, const char *why)
{
    const gp_container *odd = odd_gpu_container(m->pod, m->pol);

    return odd != NULL ? warn_mixed(m, odd) : mig_rewrite_uniform(m, need, hint, why);
}

static gp_status decide_mig(mctx *m)
{
    const char *hint = gp_pod_annotation(m->pod, GP_ANN_GPU_MEMORY);
    gp_err qerr = { { 0 } };
    gp_qty need = { 0 };
    const gp_container *odd;

    if (!m->cls->mig_allowed || hint == NULL)
        return GP_OK;
    if (!any_one_gpu(m->pod)) {
        /* A pod already on slices (a reinvocation after the rewrite) asks for no whole GPU. */
        odd = not_one_gpu_container(m->pod);
        return odd != NULL ? warn_not_one(m, odd) : GP_OK;
    }
    if ((odd = odd_gpu_container(m->pod, m->pol)) != NULL)
        return warn_mixed(m, odd);
    if (gp_qty_parse_str(hint, &need, &qerr) != GP_OK || need.nano <= 0)
        return add_warning(m, gp_arena_printf(m->a, "annotation " GP_ANN_GPU_MEMORY " \"%.40s\" "
                                              "is not a positive quantity; no MIG rewrite",
                                              hint));
    return mig_rewrite_uniform(m, need, hint, hint);
}

/* --- rightsizing: the advisor's recommendations ------------------------------------------- */

/* "peak 9216 MiB, p95 12%, 168 h to 2026-12-04T18:00:00Z": the evidence known, or "". */
static const char *evidence_text(const gp_rec *r, gp_arena *a)
{
    char when[32];
    const char *s = "";

    if (isfinite(r->fb_peak_mib))
        s = gp_arena_printf(a, "peak %.0f MiB", r->fb_peak_mib);
    if (s != NULL && isfinite(r->p95))
        s = gp_arena_printf(a, "%s%sp95 %.3g%%", s, *s ? ", " : "", r->p95 * 100);
    if (s != NULL && isfinite(r->window_hours))
        s = gp_arena_printf(a, "%s%s%.0f h to %s", s, *s ? ", " : "", r->window_hours,
                            rfc3339(r->created, when, sizeof(when)));
    return s;
}

const char *gp_rec_text(const gp_rec *rec, gp_arena *a)
{
    const char *ev = evidence_text(rec, a);
    char exp[32];

    if (ev == NULL)
        return NULL;
    return gp_arena_printf(a, "%s (%s%s%s%s%sexpires %s)", rec->gpu_memory,
                           *rec->mig_profile ? "mig " : "", rec->mig_profile,
                           *rec->mig_profile ? "; " : "", ev, *ev ? ", " : "",
                           rfc3339(rec->expires, exp, sizeof(exp)));
}

static bool label_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '.' || c == '_' || c == '-';
}

static bool alnum(char c)
{
    return label_char(c) && c != '.' && c != '_' && c != '-';
}

static uint32_t fnv1a(const char *s)
{
    uint32_t h = 2166136261u;

    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

const char *gp_label_safe(const char *s, gp_arena *a)
{
    size_t n = strlen(s), start = 0, end;
    char *t = gp_arena_strdup(a, s);

    if (t == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++)
        if (!label_char(t[i]))
            t[i] = '-';
    while (start < n && !alnum(t[start]))
        start++;
    end = n;
    while (end > start && !alnum(t[end - 1]))
        end--;
    if (end == start)
        return NULL;
    if (end - start <= GP_LABEL_VALUE_MAX) {
        t[end] = '\0';
        return t + start;
    }
    end = start + GP_LABEL_VALUE_MAX - 9; /* room for "-" and 8 hex digits */
    while (end > start && !alnum(t[end - 1]))
        end--;
    return gp_arena_printf(a, "%.*s-%08x", (int)(end - start), t + start, (unsigned)fnv1a(s));
}

/* The pod's workload, by the advisor's own rule. */
static void pod_workload(const gp_pod *pod, gp_workload *w)
{
    gp_workload_in in = { .namespace = pod->namespace,
                          .pod = pod->name ? pod->name : pod->generate_name,
                          .labels = pod->labels, .nlabels = pod->nlabels,
                          .owner_kind = pod->owner_kind, .owner_name = pod->owner_name };

    gp_workload_of(&in, w);
}

static gp_status set_label(mctx *m, const char *key, const char *value)
{
    gp_change *c = add_change(m, GP_CH_SET_LABEL, GP_MK_COST_LABELS, NULL);

    if (c == NULL)
        return GP_ENOMEM;
    c->key = key;
    c->value = value;
    return GP_OK;
}

/* The pod's model: the value of the first of the policy's modelLabels it carries. */
static const char *pod_model(const mctx *m)
{
    const gp_advisor_policy *adv = &m->pol->advisor;

    for (size_t i = 0; i < adv->nmodel_labels; i++) {
        const char *v = gp_pod_label(m->pod, adv->model_labels[i]);

        if (v != NULL && *v != '\0')
            return v;
    }
    return NULL;
}

/* gpupack.io/workload and gpupack.io/model for cost attribution, each only when absent. */
static gp_status decide_cost_labels(mctx *m)
{
    size_t first = m->d->nchanges;
    const char *model, *wl = NULL, *md = NULL;
    gp_status st = GP_OK;
    gp_workload w;
    char ref[GP_WORKLOAD_KIND_MAX + GP_WORKLOAD_NAME_MAX + 2];

    if (!m->opts->cost_labels)
        return GP_OK;
    if (gp_pod_label(m->pod, GP_LABEL_WORKLOAD) == NULL) {
        pod_workload(m->pod, &w);
        gp_workload_ref(&w, ref, sizeof(ref));
        ref[strcspn(ref, "/")] = '.';
        wl = gp_label_safe(ref, m->a);
        if (wl != NULL)
            st = set_label(m, GP_LABEL_WORKLOAD, wl);
    }
    model = gp_pod_label(m->pod, GP_LABEL_MODEL) == NULL ? pod_model(m) : NULL;
    if (st == GP_OK && model != NULL && (md = gp_label_safe(model, m->a)) != NULL)
        st = set_label(m, GP_LABEL_MODEL, md);
    if (st != GP_OK || m->d->nchanges == first)
        return st;
    m->d->changes[first].reason = gp_arena_printf(m->a, "cost labels%s%s%s%s",
                                                  wl ? " workload=" : "", wl ? wl : "",
                                                  md ? " model=" : "", md ? md : "");
    return m->d->changes[first].reason ? GP_OK : GP_ENOMEM;
}

/* recommend: the annotation (once: a reinvocation finds it) and a warning. */
static gp_status recommend(mctx *m, const gp_rec *rec, const char *ref, const char *why)
{
    const char *text;
    gp_change *c;

    if (gp_pod_annotation(m->pod, GP_ANN_RECOMMENDED) != NULL)
        return GP_OK;
    text = gp_rec_text(rec, m->a);
    c = text ? add_change(m, GP_CH_SET_ANNOTATION, GP_MK_RIGHTSIZING,
                          gp_arena_printf(m->a, "rightsizing: the advisor recommends "
                                          GP_ANN_GPU_MEMORY " %.40s for %.120s%s%.40s%s; %s",
                                          rec->gpu_memory, ref, *rec->mig_profile ? " (mig " : "",
                                          rec->mig_profile, *rec->mig_profile ? ")" : "", why))
             : NULL;
    if (c == NULL || c->reason == NULL)
        return GP_ENOMEM;
    c->key = GP_ANN_RECOMMENDED;
    c->value = text;
    m->d->rightsizing = GP_RS_RECOMMEND;
    return GP_OK;
}

static size_t count_rewrites(const mctx *m)
{
    size_t n = 0;

    for (size_t i = 0; i < m->d->nchanges; i++)
        n += m->d->changes[i].kind == GP_CH_REPLACE_RESOURCE;
    return n;
}

/* apply: the MIG rewrite with the recommendation as the need. A pod with no whole GPU to rewrite
 * (a reinvocation after the rewrite, a pod on a slice already) is left alone; one the rewrite
 * cannot serve (no view, no fit) gets the recommendation instead, with the reason as warning. */
static gp_status apply(mctx *m, const gp_rec *rec, const char *ref)
{
    char now[32];
    const char *ev = evidence_text(rec, m->a), *hint;
    size_t before = count_rewrites(m);
    gp_status st;

    if (!any_one_gpu(m->pod))
        return GP_OK;
    hint = ev ? gp_arena_printf(m->a, "%s: advisor, %s%s%s; applied %s", rec->gpu_memory, ref,
                                *ev ? ", " : "", ev, rfc3339(m->opts->now, now, sizeof(now)))
              : NULL;
    if (hint == NULL)
        return GP_ENOMEM;
    m->applying = rec;
    m->workload_ref = ref;
    m->warn_prefix = "rightsizing: ";
    st = mig_rewrite(m, rec->gpu_memory_bytes, rec->gpu_memory, hint);
    m->applying = NULL;
    m->warn_prefix = NULL;
    if (st != GP_OK)
        return st;
    if (count_rewrites(m) > before) {
        m->d->rightsizing = GP_RS_APPLY;
        return GP_OK;
    }
    return recommend(m, rec, ref, "could not apply it (see the warning)");
}

static gp_status decide_rightsizing(mctx *m)
{
    const gp_recs *recs = m->opts->recs;
    const char *off = gp_pod_label(m->pod, GP_LABEL_RIGHTSIZING), *ref;
    const gp_rec *rec;
    gp_workload w;
    char buf[GP_WORKLOAD_KIND_MAX + GP_WORKLOAD_NAME_MAX + 2];

    if (recs == NULL || m->cls->rightsizing == GP_RIGHTSIZE_OFF)
        return GP_OK;
    pod_workload(m->pod, &w);
    rec = gp_recs_find(recs, m->pod->namespace, w.kind, w.name);
    if (rec == NULL)
        return GP_OK;
    if (off != NULL && strcmp(off, "off") == 0)
        m->d->rightsizing = GP_RS_OPTED_OUT;
    else if (gp_pod_annotation(m->pod, GP_ANN_GPU_MEMORY) != NULL)
        m->d->rightsizing = GP_RS_USER_SET;
    else if (gp_rec_expired(rec, m->opts->now))
        m->d->rightsizing = GP_RS_EXPIRED;
    if (m->d->rightsizing != GP_RS_NONE) {
        /* A pod that has been through the webhook already (a reinvocation) is not counted twice. */
        if (gp_pod_annotation(m->pod, GP_ANN_MUTATED) != NULL)
            m->d->rightsizing = GP_RS_NONE;
        return GP_OK;
    }
    ref = gp_arena_strdup(m->a, gp_workload_ref(&w, buf, sizeof(buf)));
    if (ref == NULL)
        return GP_ENOMEM;
    if (m->cls->rightsizing == GP_RIGHTSIZE_APPLY && m->cls->mig_allowed)
        return apply(m, rec, ref);
    return recommend(m, rec, ref, m->cls->rightsizing == GP_RIGHTSIZE_APPLY
                     ? gp_arena_printf(m->a, "class %s does not allow MIG", m->cls->name)
                     : "set " GP_ANN_GPU_MEMORY " to use it");
}

/* Kinds whose controllers run pods to completion and carry a deadline of their own for the whole
 * run (runPolicy.activeDeadlineSeconds, RayJob's activeDeadlineSeconds). */
static const char *const own_deadline_kinds[] = {"PyTorchJob", "TFJob", "MPIJob", "XGBoostJob",
                                                 "PaddleJob", "JAXJob", "TrainJob", "RayJob"};

static bool own_deadline_kind(const char *kind)
{
    for (size_t i = 0; i < sizeof(own_deadline_kinds) / sizeof(own_deadline_kinds[0]); i++)
        if (strcmp(kind, own_deadline_kinds[i]) == 0)
            return true;
    return false;
}

/* activeDeadlineSeconds ends a pod, not its controller's work: a bare pod stays failed, and a
 * Job counts the failure against its backoffLimit; every other controller (a Kubeflow notebook's
 * StatefulSet, a ReplicaSet, an operator) would start the work again, so the cap would kill a
 * session every N hours without ever ending it. Those pods are not capped; a warning names the
 * better tool. */
static gp_status skip_runtime_cap(mctx *m)
{
    const char *owner = m->pod->owner_kind, *origin = gp_pod_origin_kind(m->pod);
    const char *kind = origin != NULL ? origin : owner;

    if (own_deadline_kind(kind))
        return add_warning(m, gp_arena_printf(m->a, "no runtime cap on a pod of a %.40s: its "
                                              "controller may start a failed pod again; set the "
                                              "%.40s's own activeDeadlineSeconds instead",
                                              kind, kind));
    return add_warning(m, gp_arena_printf(m->a, "no runtime cap: owner %.40s would recreate the "
                                          "pod at its deadline (a restart loop); scale it to zero "
                                          "when idle (the cost advisor reports idle notebooks)",
                                          owner));
}

static gp_status decide_runtime_cap(mctx *m)
{
    gp_change *c;

    if (m->cls->runtime_cap_seconds <= 0 || m->pod->has_active_deadline)
        return GP_OK;
    if (m->pod->owner_kind != NULL && strcmp(m->pod->owner_kind, "Job") != 0)
        return skip_runtime_cap(m);
    c = add_change(m, GP_CH_SET_ACTIVE_DEADLINE, GP_MK_RUNTIME_CAP,
                   gp_arena_printf(m->a, "activeDeadlineSeconds %lld (class %s runtime cap)",
                                   (long long)m->cls->runtime_cap_seconds, m->cls->name));
    if (c == NULL || c->reason == NULL)
        return GP_ENOMEM;
    c->seconds = m->cls->runtime_cap_seconds;
    return GP_OK;
}

static gp_status decide_spot(mctx *m)
{
    const gp_spot *s = &m->pol->spot;
    size_t first = m->d->nchanges;
    gp_status st;

    if (!m->cls->spot_allowed || !checkpointing(m->pod))
        return GP_OK;
    st = add_tolerations(m, s->tolerations, s->ntolerations, GP_MK_SPOT, NULL);
    for (size_t i = 0; st == GP_OK && i < s->nnode_labels && m->pod->node_name == NULL; i++) {
        gp_selector_req *r = label_reqs(m->a, &s->node_labels[i], 1);
        gp_change *c;

        if (r == NULL)
            return GP_ENOMEM;
        if (has_preferred(m->pod, r, 1))
            continue;
        c = add_change(m, GP_CH_ADD_PREFERRED, GP_MK_SPOT, NULL);
        if (c == NULL)
            return GP_ENOMEM;
        c->exprs = r;
        c->nexprs = 1;
        c->weight = s->weight;
    }
    if (st == GP_OK && m->d->nchanges > first) {
        m->d->changes[first].reason = gp_arena_printf(
            m->a, "spot tolerations and preferred spot nodes (checkpointing, class %s)",
            m->cls->name);
        if (m->d->changes[first].reason == NULL)
            return GP_ENOMEM;
    }
    return st;
}

/* The class's own tolerations (a tainted pool that belongs to the class), each when the pod does
 * not tolerate it yet. */
static gp_status decide_class_tolerations(mctx *m)
{
    const char *why;

    if (m->cls->ntolerations == 0)
        return GP_OK;
    why = gp_arena_printf(m->a, "class %s", m->cls->name);
    if (why == NULL)
        return GP_ENOMEM;
    return add_tolerations(m, m->cls->tolerations, m->cls->ntolerations, GP_MK_TOLERATION, why);
}

/* Writes gpupack.io/mutated when something changed, or when the pod has no class and the
 * annotation does not say so yet (so a reinvocation adds nothing). */
static gp_status summarise(mctx *m)
{
    const char *old = gp_pod_annotation(m->pod, GP_ANN_MUTATED);
    const char *note = m->no_class;
    const char *s = "";
    gp_change *c;

    if (note != NULL && old != NULL && strstr(old, note) != NULL)
        note = NULL;
    if (m->d->nchanges == 0 && note == NULL)
        return GP_OK;
    for (size_t i = 0; i < m->d->nchanges && s != NULL; i++)
        if (m->d->changes[i].reason != NULL)
            s = gp_arena_printf(m->a, "%s%s%s", s, *s ? "; " : "", m->d->changes[i].reason);
    if (s != NULL && note != NULL)
        s = gp_arena_printf(m->a, "%s%s%s", s, *s ? "; " : "", note);
    if (s == NULL)
        return GP_ENOMEM;
    m->d->summary = gp_utf8_repair((char *)s); /* reasons cut user text by bytes */
    c = add_change(m, GP_CH_SET_ANNOTATION, GP_MK_ANNOTATION, NULL);
    if (c == NULL)
        return GP_ENOMEM;
    c->key = GP_ANN_MUTATED;
    c->value = old && *old ? gp_utf8_repair(gp_arena_printf(m->a, "%.1000s; %s", old, s)) : s;
    return c->value ? GP_OK : GP_ENOMEM;
}

/* One ADD_REQUIRED change of the requirements exprs[0..n) that some term of the pod lacks;
 * nothing when every term that can match has them all. */
static gp_status require(mctx *m, gp_mutation_kind kind, const gp_selector_req *exprs, size_t n,
                         const char *reason)
{
    gp_change *c;

    if (n == 0 || required_satisfied(m->pod, exprs, n))
        return GP_OK;
    if (reason == NULL)
        return GP_ENOMEM;
    c = add_change(m, GP_CH_ADD_REQUIRED, kind, reason);
    if (c == NULL)
        return GP_ENOMEM;
    c->exprs = exprs;
    c->nexprs = n;
    return GP_OK;
}

/* The pod's nodeSelector names a GPU model its model rules refuse: it will stay Pending. */
static gp_status warn_selector_model(mctx *m, const gp_gpu_affinity *g)
{
    const char *want =
        gp_label_find(m->pod->node_selector, m->pod->nnode_selector, GP_LABEL_GPU_PRODUCT);
    gp_label l = { GP_LABEL_GPU_PRODUCT, (char *)want };

    for (size_t i = 0; want != NULL && i < g->nmodels; i++)
        if (!gp_node_req_matches(&g->models[i], &l, 1))
            return add_warning(m,
                               gp_arena_printf(m->a,
                                               "the pod's nodeSelector sets " GP_LABEL_GPU_PRODUCT
                                               "=%.63s, which %s does "
                                               "not allow: the pod will stay Pending",
                                               want, g->models_from));
    return GP_OK;
}

/* The extender filter's GPU model rules, stated as required node affinity so that
 * kube-scheduler (and cluster-autoscaler) enforce them without the filter call (gpuaff.h). */
static gp_status decide_gpu_affinity(mctx *m)
{
    const gp_gpu_affinity *g = &m->models;
    gp_status st = GP_OK;

    if (m->models_st == GP_EINVAL)
        return add_warning(m, gp_arena_printf(m->a, "%.120s: GPU models not stated as node "
                                              "affinity", m->models_err.msg));
    for (size_t i = 0; st == GP_OK && i < g->nwarnings; i++)
        st = add_warning(m, g->warnings[i]);
    if (st == GP_OK)
        st = warn_selector_model(m, g);
    if (st == GP_OK && g->nmodels > 0)
        st = require(m, GP_MK_GPU_MODEL, g->models, g->nmodels,
                     gp_arena_printf(m->a, "required node affinity %s (%s)", g->models_text,
                                     g->models_from));
    return st;
}

/* A class's decisions, in the order their changes are listed (and patched). */
static gp_status (*const class_steps[])(mctx *) = {
    decide_class_label, decide_priority,    decide_pool,        decide_class_tolerations,
    decide_mig,         decide_rightsizing, decide_runtime_cap, decide_spot,
};

static gp_status decide_class(mctx *m)
{
    gp_status st = GP_OK;

    for (size_t i = 0; st == GP_OK && i < sizeof(class_steps) / sizeof(class_steps[0]); i++)
        st = class_steps[i](m);
    return st;
}

/* The policy's schedulerName for a GPU pod that would otherwise go to the default scheduler. A
 * pod that names another scheduler, or is bound already (spec.nodeName), is left alone. */
static gp_status decide_scheduler(mctx *m)
{
    const char *want = m->pol->scheduler_name, *have = m->pod->scheduler_name;
    gp_change *c;

    if (want == NULL || m->pod->node_name != NULL ||
        (have != NULL && *have != '\0' && strcmp(have, GP_DEFAULT_SCHEDULER) != 0))
        return GP_OK;
    c = add_change(m, GP_CH_SET_SCHEDULER_NAME, GP_MK_SCHEDULER_NAME,
                   gp_arena_printf(m->a, "schedulerName %s (policy; was %s)", want,
                                   have && *have ? have : "unset"));
    if (c == NULL || c->reason == NULL)
        return GP_ENOMEM;
    c->value = want;
    return GP_OK;
}

static bool decide_skip(mctx *m)
{
    const char *skip = gp_pod_label(m->pod, GP_LABEL_SKIP);

    if (gp_pod_annotation(m->pod, GP_ANN_MIRROR) != NULL)
        m->d->skip_reason = "mirror pod (annotation " GP_ANN_MIRROR ")";
    else if (skip != NULL && strcmp(skip, "true") == 0)
        m->d->skip_reason = "label " GP_LABEL_SKIP "=true";
    else if (gp_policy_namespace_excluded(m->pol, m->pod->namespace))
        m->d->skip_reason = "namespace excluded by policy";
    m->d->skipped = m->d->skip_reason != NULL;
    return m->d->skipped;
}

/* A GPU pod that no rule matched and that gets no defaultClass: says why, naming the owner kind
 * seen, in a warning and (through summarise) in gpupack.io/mutated. Only under a policy that has
 * classes: one without any (tolerations or schedulerName alone) classifies nothing. */
static gp_status explain_no_class(mctx *m)
{
    const char *owner = m->pod->owner_kind, *origin = gp_pod_origin_kind(m->pod);
    const char *seen = owner == NULL ? gp_arena_strdup(m->a, "no owner")
                       : origin != NULL ? gp_arena_printf(m->a, "owner %.63s from %s", owner, origin)
                                        : gp_arena_printf(m->a, "owner %.63s", owner);

    m->no_class = seen ? gp_arena_printf(m->a, "no class: no rule matched (%s) and the policy "
                                         "has no defaultClass", seen)
                       : NULL;
    return add_warning(m, m->no_class);
}

gp_status gp_mutate(const gp_pod *pod, const gp_policy *pol, const gp_cluster *view,
                    const gp_mutate_opts *opts, gp_arena *a, gp_decision *out)
{
    static const gp_mutate_opts none = { 0 };
    mctx m = { .pod = pod, .pol = pol, .view = view, .a = a, .d = out,
               .opts = opts ? opts : &none };
    gp_status st;

    memset(out, 0, sizeof(*out));
    out->gpu = gp_pod_is_gpu(pod, pol);
    if (!out->gpu || decide_skip(&m))
        return GP_OK;
    gp_classify(pod, pol, &out->class_name, &out->class_why, a);
    if (out->class_why == NULL && out->class_name != NULL)
        return GP_ENOMEM;
    st = add_tolerations(&m, pol->tolerations, pol->ntolerations, GP_MK_TOLERATION, "GPU pod");
    if (st == GP_OK)
        st = decide_scheduler(&m);
    if (st == GP_OK)
        st = decide_cost_labels(&m);
    if (st == GP_OK && out->class_name == NULL && out->class_why != NULL)
        st = add_warning(&m, gp_arena_printf(a, "label " GP_LABEL_CLASS " \"%.40s\" names no "
                                             "class of the policy; class changes skipped",
                                             gp_pod_label(pod, GP_LABEL_CLASS)));
    if (st == GP_OK && out->class_name == NULL && out->class_why == NULL && pol->nclasses > 0)
        st = explain_no_class(&m);
    m.cls = out->class_name ? gp_policy_class(pol, out->class_name) : NULL;
    if (st == GP_OK)
        m.models_st = gp_gpu_affinity_of(pod, pol, m.cls, view, a, &m.models, &m.models_err);
    if (m.models_st != GP_OK && m.models_st != GP_EINVAL)
        st = m.models_st;
    if (st == GP_OK && m.cls != NULL)
        st = decide_class(&m);
    if (st == GP_OK)
        st = decide_gpu_affinity(&m);
    if (st == GP_OK)
        st = summarise(&m);
    return st;
}
