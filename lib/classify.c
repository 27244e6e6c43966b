/* SPDX-License-Identifier: Apache-2.0 */
/* Classification: which class a pod belongs to. */
#include "gpupack/mutate.h"

#include <string.h>

static bool in_list(char *const *list, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(list[i], s) == 0)
            return true;
    return false;
}

static bool expr_matches(const gp_selector_req *r, const gp_pod *pod)
{
    const char *v = gp_pod_label(pod, r->key);

    if (strcmp(r->op, "Exists") == 0)
        return v != NULL;
    if (strcmp(r->op, "DoesNotExist") == 0)
        return v == NULL;
    if (strcmp(r->op, "In") == 0)
        return v != NULL && in_list(r->values, r->nvalues, v);
    if (strcmp(r->op, "NotIn") == 0)
        return v == NULL || !in_list(r->values, r->nvalues, v);
    return false;
}

static bool selector_matches(const gp_label_selector *s, const gp_pod *pod)
{
    for (size_t i = 0; i < s->nmatch_labels; i++) {
        const char *v = gp_pod_label(pod, s->match_labels[i].key);

        if (v == NULL || strcmp(v, s->match_labels[i].value) != 0)
            return false;
    }
    for (size_t i = 0; i < s->nexprs; i++)
        if (!expr_matches(&s->exprs[i], pod))
            return false;
    return true;
}

static bool namespace_matches(const gp_rule *r, const gp_pod *pod)
{
    return r->nnamespaces == 0 || gp_glob_any(r->namespaces, r->nnamespaces, pod->namespace);
}

const char *gp_pod_origin_kind(const gp_pod *pod)
{
    const char *origin = gp_pod_label(pod, GP_LABEL_RAY_ORIGIN);

    if (pod->owner_kind != NULL && strcmp(pod->owner_kind, "RayCluster") == 0 &&
        origin != NULL && strcmp(origin, "RayJob") == 0)
        return "RayJob";
    return NULL;
}

static bool owner_listed(const gp_rule *r, const gp_pod *pod)
{
    const char *origin = gp_pod_origin_kind(pod);

    return pod->owner_kind != NULL &&
           (in_list(r->owner_kinds, r->nowner_kinds, pod->owner_kind) ||
            (origin != NULL && in_list(r->owner_kinds, r->nowner_kinds, origin)));
}

static bool rule_matches(const gp_rule *r, const gp_pod *pod)
{
    if (!namespace_matches(r, pod))
        return false;
    if (r->nowner_kinds > 0 && !owner_listed(r, pod))
        return false;
    if (r->no_owner == 1 && pod->owner_kind != NULL)
        return false;
    if (r->no_owner == 0 && pod->owner_kind == NULL)
        return false;
    return !r->has_selector || selector_matches(&r->selector, pod);
}

static const char *rule_why(const gp_rule *r, const gp_pod *pod, gp_arena *a)
{
    if (pod->owner_kind != NULL && r->nowner_kinds > 0 &&
        !in_list(r->owner_kinds, r->nowner_kinds, pod->owner_kind))
        return gp_arena_printf(a, "rule %s: owner %s (from %s)", r->name, pod->owner_kind,
                               gp_pod_origin_kind(pod));
    if (pod->owner_kind != NULL && r->nowner_kinds > 0)
        return gp_arena_printf(a, "rule %s: owner %s", r->name, pod->owner_kind);
    if (r->no_owner == 1)
        return gp_arena_printf(a, "rule %s: no owner", r->name);
    return gp_arena_printf(a, "rule %s", r->name);
}

void gp_classify(const gp_pod *pod, const gp_policy *pol, const char **class_name,
                 const char **why, gp_arena *a)
{
    const char *label = gp_pod_label(pod, GP_LABEL_CLASS);

    *class_name = NULL;
    *why = NULL;
    if (label != NULL) {
        const gp_class *c = gp_policy_class(pol, label);

        if (c != NULL) {
            *class_name = c->name;
            *why = "label " GP_LABEL_CLASS;
        } else {
            *why = "unknown class label";
        }
        return;
    }
    for (size_t i = 0; i < pol->nrules; i++) {
        if (rule_matches(&pol->rules[i], pod)) {
            *class_name = pol->rules[i].class_name;
            *why = rule_why(&pol->rules[i], pod, a);
            return;
        }
    }
    if (pol->default_class != NULL) {
        *class_name = pol->default_class;
        *why = "defaultClass";
    }
}
