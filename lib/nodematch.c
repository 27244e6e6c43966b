/* SPDX-License-Identifier: Apache-2.0 */
/* Node selection (see nodematch.h). */
#include "gpupack/nodematch.h"

#include <stdint.h>
#include <string.h>

static bool listed(char *const *values, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(values[i], s) == 0)
            return true;
    return false;
}

/* Go's strconv.ParseInt(s, 10, 64): an optional sign, then decimal digits only, in range. */
static bool parse_i64(const char *s, int64_t *out)
{
    bool neg = *s == '-';
    uint64_t v = 0, limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;

    if (*s == '-' || *s == '+')
        s++;
    if (*s == '\0')
        return false;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || v > (limit - (uint64_t)(*s - '0')) / 10)
            return false;
        v = v * 10 + (uint64_t)(*s - '0');
    }
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return true;
}

/* Gt / Lt: both sides integers, exactly one listed value. */
static bool compare_matches(const gp_selector_req *r, const char *have, bool gt)
{
    int64_t a, b;

    if (have == NULL || r->nvalues != 1 || !parse_i64(have, &a) || !parse_i64(r->values[0], &b))
        return false;
    return gt ? a > b : a < b;
}

bool gp_node_req_matches(const gp_selector_req *r, const gp_label *labels, size_t nlabels)
{
    const char *have = gp_label_find(labels, nlabels, r->key);

    if (strcmp(r->op, "In") == 0)
        return have != NULL && listed(r->values, r->nvalues, have);
    if (strcmp(r->op, "NotIn") == 0)
        return have == NULL || !listed(r->values, r->nvalues, have);
    if (strcmp(r->op, "Exists") == 0)
        return have != NULL;
    if (strcmp(r->op, "DoesNotExist") == 0)
        return have == NULL;
    if (strcmp(r->op, "Gt") == 0 || strcmp(r->op, "Lt") == 0)
        return compare_matches(r, have, r->op[0] == 'G');
    return false;
}

/* matchFields: only metadata.name, with In or NotIn. */
static bool field_matches(const gp_selector_req *r, const char *name)
{
    if (strcmp(r->key, "metadata.name") != 0)
        return false;
    if (strcmp(r->op, "In") == 0)
        return listed(r->values, r->nvalues, name);
    if (strcmp(r->op, "NotIn") == 0)
        return !listed(r->values, r->nvalues, name);
    return false;
}

static bool term_matches(const gp_node_term *t, const char *name, const gp_label *labels,
                         size_t nlabels)
{
    if (t->nexprs == 0 && t->nfields == 0)
        return false;
    for (size_t i = 0; i < t->nexprs; i++)
        if (!gp_node_req_matches(&t->exprs[i], labels, nlabels))
            return false;
    for (size_t i = 0; i < t->nfields; i++)
        if (!field_matches(&t->fields[i], name))
            return false;
    return true;
}

static bool required_matches(const gp_pod *pod, const char *name, const gp_label *labels,
                             size_t nlabels)
{
    if (pod->nrequired == 0)
        return true;
    for (size_t i = 0; i < pod->nrequired; i++)
        if (term_matches(&pod->required[i], name, labels, nlabels))
            return true;
    return false;
}

/* Every key=value of want is on the node with that value. */
static bool has_all(const gp_label *want, size_t nwant, const gp_label *labels, size_t nlabels)
{
    for (size_t i = 0; i < nwant; i++) {
        const char *have = gp_label_find(labels, nlabels, want[i].key);

        if (have == NULL || strcmp(have, want[i].value) != 0)
            return false;
    }
    return true;
}

bool gp_pod_may_use_node(const gp_pod *pod, const gp_selector_req *extra, size_t nextra,
                         const char *name, const gp_label *labels, size_t nlabels)
{
    if (name == NULL)
        name = "";
    if (pod->node_name != NULL && strcmp(pod->node_name, name) != 0)
        return false;
    for (size_t i = 0; i < nextra; i++)
        if (!gp_node_req_matches(&extra[i], labels, nlabels))
            return false;
    return has_all(pod->node_selector, pod->nnode_selector, labels, nlabels) &&
           required_matches(pod, name, labels, nlabels);
}

static bool prod_has(const gp_products *s, const char *v)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->v[i], v) == 0)
            return true;
    return false;
}

/* Adds v; false when there is no room (the caller then gives up on the restriction). */
static bool prod_add(gp_products *s, const char *v)
{
    if (prod_has(s, v))
        return true;
    if (s->n == GP_MAX_PRODUCTS)
        return false;
    s->v[s->n++] = v;
    return true;
}

/* Keeps the values of s that r lists (in) or that it does not (!in). */
static void prod_filter(gp_products *s, const gp_selector_req *r, bool in)
{
    size_t k = 0;

    for (size_t i = 0; i < s->n; i++) {
        bool listed = false;

        for (size_t j = 0; j < r->nvalues && !listed; j++)
            listed = strcmp(s->v[i], r->values[j]) == 0;
        if (listed == in)
            s->v[k++] = s->v[i];
    }
    s->n = k;
}

/* One node selector term's values (its expressions are ANDed): In intersects, NotIn removes
 * from a restricted set (from no restriction it cannot be followed: it stays any),
 * DoesNotExist allows none. False when the values do not fit. */
static bool term_products(const gp_node_term *term, gp_products *out)
{
    out->n = 0;
    out->any = true;
    for (size_t e = 0; e < term->nexprs; e++) {
        const gp_selector_req *r = &term->exprs[e];

        if (strcmp(r->key, GP_LABEL_GPU_PRODUCT) != 0)
            continue;
        if (strcmp(r->op, "In") == 0 && out->any) {
            out->any = false;
            for (size_t v = 0; v < r->nvalues; v++)
                if (!prod_add(out, r->values[v]))
                    return false;
        } else if (strcmp(r->op, "In") == 0 || (strcmp(r->op, "NotIn") == 0 && !out->any)) {
            prod_filter(out, r, strcmp(r->op, "In") == 0);
        } else if (strcmp(r->op, "DoesNotExist") == 0) {
            out->any = false;
            out->n = 0;
        }
    }
    return true;
}

bool gp_pod_gpu_products(const gp_pod *pod, gp_products *out)
{
    const char *sel = gp_label_find(pod->node_selector, pod->nnode_selector, GP_LABEL_GPU_PRODUCT);
    gp_products t;

    out->n = 0;
    out->any = pod->nrequired == 0;
    for (size_t i = 0; i < pod->nrequired && !out->any; i++) {
        if (!term_products(&pod->required[i], &t))
            return false;
        if (t.any) {
            out->any = true;
            out->n = 0;
        }
        for (size_t k = 0; k < t.n && !out->any; k++)
            if (!prod_add(out, t.v[k]))
                return false;
    }
    if (sel != NULL) {
        bool allowed = out->any || prod_has(out, sel);

        out->any = false;
        out->n = 0;
        if (allowed)
            out->v[out->n++] = sel;
    }
    return true;
}
