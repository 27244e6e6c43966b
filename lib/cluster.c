/* The cluster view (see cluster.h). */
#include "gpupack/cluster.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "gpupack/quantity.h"

#define MIG_PREFIX "nvidia.com/mig-"

gp_cluster *gp_cluster_new(void)
{
    gp_cluster *c = calloc(1, sizeof(*c));

    if (c != NULL)
        atomic_init(&c->refs, 1);
    return c;
}

static void free_names(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

gp_cluster *gp_cluster_ref(gp_cluster *c)
{
    if (c != NULL)
        atomic_fetch_add(&c->refs, 1);
    return c;
}

void gp_cluster_unref(gp_cluster *c)
{
    if (c == NULL || atomic_fetch_sub(&c->refs, 1) != 1)
        return;
    free_names(c->mig_profiles, c->nmig_profiles);
    free_names(c->priority_classes, c->npriority_classes);
    free(c);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool name_in(char *const *names, size_t n, const char *s)
{
    return n > 0 && bsearch(&s, names, n, sizeof(char *), cmp_str) != NULL;
}

/* A growable, later sorted and de-duplicated set of names. */
typedef struct {
    char **v;
    size_t n, cap;
} nameset;

static gp_status nameset_add(nameset *s, const char *name, gp_err *err)
{
    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->v[i], name) == 0)
            return GP_OK;
    if (s->n == GP_CLUSTER_MAX_NAMES) {
        gp_err_set(err, "more than %d distinct names", GP_CLUSTER_MAX_NAMES);
        return GP_ETOOBIG;
    }
    if (s->n == s->cap) {
        size_t ncap = s->cap ? s->cap * 2 : 16;
        char **nv = realloc(s->v, ncap * sizeof(char *));

        if (nv == NULL)
            return GP_ENOMEM;
        s->v = nv;
        s->cap = ncap;
    }
    s->v[s->n] = strdup(name);
    if (s->v[s->n] == NULL)
        return GP_ENOMEM;
    s->n++;
    return GP_OK;
}

static gp_status parse_list(const char *json, size_t len, const cJSON **items, cJSON **root,
                            const char *what, gp_err *err)
{
    const char *end = NULL;

    if (len > GP_CLUSTER_MAX_BYTES) {
        gp_err_set(err, "%s list larger than %u bytes", what, GP_CLUSTER_MAX_BYTES);
        return GP_ETOOBIG;
    }
    *root = cJSON_ParseWithLengthOpts(json, len, &end, 0);
    if (*root == NULL) {
        gp_err_set(err, "%s list is not valid JSON (near byte %zu)", what,
                   end && end >= json ? (size_t)(end - json) : 0);
        return GP_EINVAL;
    }
    *items = cJSON_GetObjectItemCaseSensitive(*root, "items");
    if (!cJSON_IsArray(*items)) {
        gp_err_set(err, "%s list has no \"items\" array (expected `kubectl get ... -o json`)",
                   what);
        cJSON_Delete(*root);
        *root = NULL;
        return GP_EINVAL;
    }
    return GP_OK;
}

/* Adds every MIG profile a node offers: allocatable nvidia.com/mig-<profile> greater than 0. */
static gp_status node_profiles(const cJSON *node, nameset *s, gp_err *err)
{
    const cJSON *alloc = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(node, "status"), "allocatable");
    const cJSON *r;

    cJSON_ArrayForEach(r, alloc)
    {
        gp_qty q;

        if (r->string == NULL || strncmp(r->string, MIG_PREFIX, strlen(MIG_PREFIX)) != 0 ||
            !cJSON_IsString(r) || gp_qty_parse_str(r->valuestring, &q, NULL) != GP_OK ||
            q.nano <= 0 || r->string[strlen(MIG_PREFIX)] == '\0')
            continue;
        gp_status st = nameset_add(s, r->string + strlen(MIG_PREFIX), err);

        if (st != GP_OK)
            return st;
    }
    return GP_OK;
}

gp_status gp_cluster_set_nodes_json(gp_cluster *c, const char *json, size_t len, gp_err *err)
{
    const cJSON *items, *node;
    cJSON *root;
    nameset s = { 0 };
    gp_status st = parse_list(json, len, &items, &root, "node", err);

    if (st != GP_OK)
        return st;
    cJSON_ArrayForEach(node, items)
    {
        st = node_profiles(node, &s, err);
        if (st != GP_OK)
            break;
    }
    cJSON_Delete(root);
    if (st != GP_OK) {
        free_names(s.v, s.n);
        return st;
    }
    if (s.n > 1)
        qsort(s.v, s.n, sizeof(char *), cmp_str);
    free_names(c->mig_profiles, c->nmig_profiles);
    c->mig_profiles = s.v;
    c->nmig_profiles = s.n;
    c->has_nodes = true;
    return GP_OK;
}

gp_status gp_cluster_set_priority_classes_json(gp_cluster *c, const char *json, size_t len,
                                               gp_err *err)
{
    const cJSON *items, *pc;
    cJSON *root;
    nameset s = { 0 };
    gp_status st = parse_list(json, len, &items, &root, "PriorityClass", err);

    if (st != GP_OK)
        return st;
    cJSON_ArrayForEach(pc, items)
    {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(pc, "metadata"), "name");

        if (!cJSON_IsString(name))
            continue;
        st = nameset_add(&s, name->valuestring, err);
        if (st != GP_OK)
            break;
    }
    cJSON_Delete(root);
    if (st != GP_OK) {
        free_names(s.v, s.n);
        return st;
    }
    if (s.n > 1)
        qsort(s.v, s.n, sizeof(char *), cmp_str);
    free_names(c->priority_classes, c->npriority_classes);
    c->priority_classes = s.v;
    c->npriority_classes = s.n;
    c->has_priority_classes = true;
    return GP_OK;
}

bool gp_cluster_offers_mig(const gp_cluster *c, const char *profile)
{
    return c != NULL && name_in(c->mig_profiles, c->nmig_profiles, profile);
}

bool gp_cluster_has_priority_class(const gp_cluster *c, const char *name)
{
    return c != NULL && name_in(c->priority_classes, c->npriority_classes, name);
}
