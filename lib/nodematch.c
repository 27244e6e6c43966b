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
