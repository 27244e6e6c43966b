/* SPDX-License-Identifier: Apache-2.0 */
/* The cluster view (see cluster.h). */
#include "gpupack/cluster.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "gpupack/dnsname.h"
#include "gpupack/grow.h"
#include "gpupack/nodeview.h"

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

static void free_labels(gp_label *l, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(l[i].key);
        free(l[i].value);
    }
    free(l);
}

static void node_clear(gp_cluster_node *n)
{
    free(n->name);
    free_labels(n->labels, n->nlabels);
    free_names(n->profiles, n->nprofiles);
    free(n->counts);
    free(n->idx);
    memset(n, 0, sizeof(*n));
}

static void free_nodes(gp_cluster_node *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        node_clear(&v[i]);
    free(v);
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
    free_nodes(c->nodes, c->nnodes);
    free_names(c->gpu_products, c->ngpu_products);
    free_names(c->priority_classes, c->npriority_classes);
    free(c->global_default);
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
    char **nv;

    for (size_t i = 0; i < s->n; i++)
        if (strcmp(s->v[i], name) == 0)
            return GP_OK;
    if (s->n == GP_CLUSTER_MAX_NAMES) {
        gp_err_set(err, "more than %d distinct names", GP_CLUSTER_MAX_NAMES);
        return GP_ETOOBIG;
    }
    nv = gp_grow(s->v, &s->cap, s->n + 1, sizeof(char *));
    if (nv == NULL)
        return GP_ENOMEM;
    s->v = nv;
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
        const char *profile;
        int32_t count;

        if (gp_node_mig_capacity(r, &profile, &count, NULL) != GP_OK || count <= 0)
            continue;
        gp_status st = nameset_add(s, profile, err);

        if (st != GP_OK)
            return st;
    }
    return GP_OK;
}

/* The allocatable instances of each of a node's profiles (sorted names), as
 * gp_node_mig_capacity() reads them (malloc'd, parallel to names; NULL when n is 0). */
static gp_status node_counts(const cJSON *node, char *const *names, size_t n, int32_t **out)
{
    const cJSON *alloc = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(node, "status"), "allocatable");
    char key[320];

    *out = n ? calloc(n, sizeof(int32_t)) : NULL;
    if (n && *out == NULL)
        return GP_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        const cJSON *r;
        const char *profile;

        snprintf(key, sizeof(key), GP_RES_MIG_PREFIX "%.280s", names[i]);
        r = cJSON_GetObjectItemCaseSensitive(alloc, key);
        if (r != NULL && gp_node_mig_capacity(r, &profile, &(*out)[i], NULL) != GP_OK)
            (*out)[i] = 0;
    }
    return GP_OK;
}

static int cmp_label(const void *a, const void *b)
{
    return strcmp(((const gp_label *)a)->key, ((const gp_label *)b)->key);
}

static const char *node_name(const cJSON *node)
{
    const char *n = gp_object_name(node);

    return n != NULL ? n : "";
}

/* Copies a node's labels with string values, sorted by key, into *out / *n (malloc'd). */
static gp_status node_labels(const cJSON *node, gp_label **out, size_t *n, gp_err *err)
{
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(node, "metadata"), "labels");
    const cJSON *l;
    size_t cnt = 0;

    *out = NULL;
    *n = 0;
    if (!cJSON_IsObject(m))
        return GP_OK;
    cJSON_ArrayForEach(l, m)
        cnt += cJSON_IsString(l) && l->string != NULL;
    if (cnt > GP_CLUSTER_MAX_NODE_LABELS) {
        gp_err_set(err, "node %.253s: more than %d labels", node_name(node),
                   GP_CLUSTER_MAX_NODE_LABELS);
        return GP_ETOOBIG;
    }
    if (cnt == 0)
        return GP_OK;
    *out = calloc(cnt, sizeof(gp_label));
    if (*out == NULL)
        return GP_ENOMEM;
    cJSON_ArrayForEach(l, m)
    {
        if (!cJSON_IsString(l) || l->string == NULL)
            continue;
        (*out)[*n].key = strdup(l->string);
        (*out)[*n].value = strdup(l->valuestring);
        if ((*out)[(*n)++].key == NULL || (*out)[*n - 1].value == NULL) {
            free_labels(*out, *n);
            *out = NULL;
            *n = 0;
            return GP_ENOMEM;
        }
    }
    qsort(*out, *n, sizeof(gp_label), cmp_label);
    return GP_OK;
}

/* Appends to a growing node array (limit GP_CLUSTER_MAX_MIG_NODES); takes over labels and
 * profiles, also on failure. */
typedef struct {
    gp_cluster_node *v;
    size_t n, cap;
} nodevec;

static gp_status nodevec_take(nodevec *nv, const char *name, gp_label *labels, size_t nlabels,
                              nameset *profiles, int32_t *counts, gp_err *err)
{
    gp_cluster_node *x;

    if (nv->n == GP_CLUSTER_MAX_MIG_NODES) {
        gp_err_set(err, "more than %d nodes offering MIG profiles", GP_CLUSTER_MAX_MIG_NODES);
        free_labels(labels, nlabels);
        free_names(profiles->v, profiles->n);
        free(counts);
        return GP_ETOOBIG;
    }
    x = gp_grow(nv->v, &nv->cap, nv->n + 1, sizeof(*x));
    if (x == NULL) {
        free_labels(labels, nlabels);
        free_names(profiles->v, profiles->n);
        free(counts);
        return GP_ENOMEM;
    }
    nv->v = x;
    x = &nv->v[nv->n++];
    x->name = strdup(name);
    x->labels = labels;
    x->nlabels = nlabels;
    x->profiles = profiles->v;
    x->counts = counts;
    x->idx = NULL; /* index_nodes() fills it once the view's union is sorted */
    x->nprofiles = profiles->n;
    return x->name != NULL ? GP_OK : GP_ENOMEM;
}

/* Each node's profiles as positions in the view's sorted union (once per view, so the MIG choice
 * compares no names per review). */
static gp_status index_nodes(gp_cluster *c)
{
    for (size_t i = 0; i < c->nnodes; i++) {
        gp_cluster_node *n = &c->nodes[i];

        free(n->idx);
        n->idx = n->nprofiles ? malloc(n->nprofiles * sizeof(uint32_t)) : NULL;
        if (n->nprofiles && n->idx == NULL)
            return GP_ENOMEM;
        for (size_t j = 0; j < n->nprofiles; j++) {
            char *const *at = bsearch(&n->profiles[j], c->mig_profiles, c->nmig_profiles,
                                      sizeof(char *), cmp_str);

            n->idx[j] = at ? (uint32_t)(at - c->mig_profiles) : UINT32_MAX;
        }
    }
    return GP_OK;
}

/* A node's nvidia.com/gpu.product label value; NULL when it has none, or one that is not a
 * label value (kube-apiserver admits none; a hand-made snapshot might), so the view's products
 * can be stated in node affinity as they are. */
static const char *node_product(const cJSON *node)
{
    const cJSON *md = cJSON_GetObjectItemCaseSensitive(node, "metadata");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(md, "labels"), GP_LABEL_GPU_PRODUCT);

    return cJSON_IsString(v) && gp_k8s_label_name(v->valuestring, strlen(v->valuestring))
               ? v->valuestring
               : NULL;
}

/* Sorts a name set and hands it to *v / *n (freeing what they held). */
static void names_set(nameset *s, char ***v, size_t *n)
{
    if (s->n > 1)
        qsort(s->v, s->n, sizeof(char *), cmp_str);
    free_names(*v, *n);
    *v = s->v;
    *n = s->n;
    memset(s, 0, sizeof(*s));
}

/* One node of a snapshot: its profiles into the union, its GPU product into products, and the
 * node into nv when it offers any profile. */
static gp_status snapshot_node(const cJSON *node, nameset *all, nameset *products, nodevec *nv,
                               gp_err *err)
{
    nameset mine = { 0 };
    gp_label *labels = NULL;
    size_t nlabels = 0;
    int32_t *counts = NULL;
    const char *product = node_product(node);
    gp_status st = product ? nameset_add(products, product, err) : GP_OK;

    if (st == GP_OK)
        st = node_profiles(node, &mine, err);

    for (size_t i = 0; st == GP_OK && i < mine.n; i++)
        st = nameset_add(all, mine.v[i], err);
    if (st == GP_OK && mine.n > 1)
        qsort(mine.v, mine.n, sizeof(char *), cmp_str);
    if (st == GP_OK && mine.n > 0)
        st = node_counts(node, mine.v, mine.n, &counts);
    if (st == GP_OK && mine.n > 0)
        st = node_labels(node, &labels, &nlabels, err);
    if (st != GP_OK || mine.n == 0) {
        free_names(mine.v, mine.n);
        free(counts);
        return st;
    }
    return nodevec_take(nv, node_name(node), labels, nlabels, &mine, counts, err);
}

gp_status gp_cluster_set_nodes_json(gp_cluster *c, const char *json, size_t len, gp_err *err)
{
    const cJSON *items, *node;
    cJSON *root;
    nameset s = { 0 }, products = { 0 };
    nodevec nv = { 0 };
    gp_status st = parse_list(json, len, &items, &root, "node", err);

    if (st != GP_OK)
        return st;
    cJSON_ArrayForEach(node, items)
    {
        st = snapshot_node(node, &s, &products, &nv, err);
        if (st != GP_OK)
            break;
    }
    cJSON_Delete(root);
    if (st != GP_OK) {
        free_names(s.v, s.n);
        free_names(products.v, products.n);
        free_nodes(nv.v, nv.n);
        return st;
    }
    names_set(&s, &c->mig_profiles, &c->nmig_profiles);
    names_set(&products, &c->gpu_products, &c->ngpu_products);
    free_nodes(c->nodes, c->nnodes);
    c->nodes = nv.v;
    c->nnodes = nv.n;
    c->has_nodes = true;
    return index_nodes(c);
}

/* A PriorityClass's globalDefault flag and value (value 0 when absent or not a number). */
static bool pc_global(const cJSON *pc, double *value)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(pc, "value");

    *value = cJSON_IsNumber(v) ? v->valuedouble : 0;
    return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(pc, "globalDefault"));
}

/* The Priority plugin's choice among several globalDefault classes (a race can create more than
 * one): the lowest value; the first seen on a tie. */
static bool global_beats(double value, bool have, double best)
{
    return !have || value < best;
}

gp_status gp_cluster_set_priority_classes_json(gp_cluster *c, const char *json, size_t len,
                                               gp_err *err)
{
    const cJSON *items, *pc;
    cJSON *root;
    nameset s = { 0 };
    const char *global = NULL;
    double best = 0;
    char *gdup = NULL;
    gp_status st = parse_list(json, len, &items, &root, "PriorityClass", err);

    if (st != GP_OK)
        return st;
    cJSON_ArrayForEach(pc, items)
    {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(pc, "metadata"), "name");
        double value;

        if (!cJSON_IsString(name))
            continue;
        if (pc_global(pc, &value) && global_beats(value, global != NULL, best)) {
            global = name->valuestring;
            best = value;
        }
        st = nameset_add(&s, name->valuestring, err);
        if (st != GP_OK)
            break;
    }
    if (st == GP_OK && global != NULL && (gdup = strdup(global)) == NULL)
        st = GP_ENOMEM;
    cJSON_Delete(root);
    if (st != GP_OK) {
        free_names(s.v, s.n);
        return st;
    }
    if (s.n > 1)
        qsort(s.v, s.n, sizeof(char *), cmp_str);
    free_names(c->priority_classes, c->npriority_classes);
    free(c->global_default);
    c->priority_classes = s.v;
    c->npriority_classes = s.n;
    c->global_default = gdup;
    c->has_priority_classes = true;
    return GP_OK;
}

bool gp_cluster_has_priority_class(const gp_cluster *c, const char *name)
{
    return c != NULL && name_in(c->priority_classes, c->npriority_classes, name);
}

const char *gp_cluster_global_default(const gp_cluster *c)
{
    return c != NULL && c->has_priority_classes ? c->global_default : NULL;
}

/* ---- the live source ---- */

typedef struct {
    char *name;
    nameset profiles; /* sorted */
    int32_t *counts;  /* allocatable instances, parallel to profiles */
    gp_label *labels; /* sorted by key; kept only while the node offers profiles */
    size_t nlabels;
    char *product; /* nvidia.com/gpu.product; NULL: none */
    unsigned gen;
} live_node;

typedef struct {
    char *name;
    unsigned gen;
    bool global;  /* globalDefault */
    double value;
} live_pc;

struct gp_cluster_live {
    pthread_mutex_t mu;
    gp_cluster_publish_fn publish;
    void *ctx;
    live_node *nodes;
    size_t nnodes, cap_nodes;
    live_pc *pcs;
    size_t npcs, cap_pcs;
    gp_relist node_list, pc_list;
};

gp_cluster_live *gp_cluster_live_new(gp_cluster_publish_fn publish, void *ctx)
{
    gp_cluster_live *l = calloc(1, sizeof(*l));

    if (l == NULL)
        return NULL;
    pthread_mutex_init(&l->mu, NULL);
    l->publish = publish;
    l->ctx = ctx;
    return l;
}

static void live_node_clear(live_node *n)
{
    free(n->name);
    free_names(n->profiles.v, n->profiles.n);
    free(n->counts);
    free_labels(n->labels, n->nlabels);
    free(n->product);
}

void gp_cluster_live_free(gp_cluster_live *l)
{
    if (l == NULL)
        return;
    for (size_t i = 0; i < l->nnodes; i++)
        live_node_clear(&l->nodes[i]);
    for (size_t i = 0; i < l->npcs; i++)
        free(l->pcs[i].name);
    free(l->nodes);
    free(l->pcs);
    pthread_mutex_destroy(&l->mu);
    free(l);
}

/* Sets c->global_default from the live PriorityClasses (called with mu held). */
static gp_status live_global_default(const gp_cluster_live *l, gp_cluster *c)
{
    const live_pc *best = NULL;

    for (size_t i = 0; i < l->npcs; i++)
        if (l->pcs[i].global && global_beats(l->pcs[i].value, best != NULL, best ? best->value : 0))
            best = &l->pcs[i];
    if (best == NULL)
        return GP_OK;
    c->global_default = strdup(best->name);
    return c->global_default ? GP_OK : GP_ENOMEM;
}

static gp_status copy_labels(const gp_label *src, size_t n, gp_label **out)
{
    *out = n ? calloc(n, sizeof(gp_label)) : NULL;
    if (n && *out == NULL)
        return GP_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        (*out)[i].key = strdup(src[i].key);
        (*out)[i].value = strdup(src[i].value);
        if ((*out)[i].key == NULL || (*out)[i].value == NULL) {
            free_labels(*out, i + 1);
            *out = NULL;
            return GP_ENOMEM;
        }
    }
    return GP_OK;
}

static gp_status copy_counts(const int32_t *src, size_t n, int32_t **out)
{
    *out = n ? malloc(n * sizeof(int32_t)) : NULL;
    if (n && *out == NULL)
        return GP_ENOMEM;
    if (n)
        memcpy(*out, src, n * sizeof(int32_t));
    return GP_OK;
}

/* Copies the live nodes that offer profiles into c->nodes (called with mu held). Past
 * GP_CLUSTER_MAX_MIG_NODES the rest are left out: their pods keep whole GPUs. */
static gp_status live_nodes_copy(const gp_cluster_live *l, gp_cluster *c)
{
    nodevec nv = { 0 };
    gp_status st = GP_OK;

    for (size_t i = 0; st == GP_OK && i < l->nnodes && nv.n < GP_CLUSTER_MAX_MIG_NODES; i++) {
        const live_node *n = &l->nodes[i];
        nameset p = { 0 };
        gp_label *labels = NULL;
        int32_t *counts = NULL;

        if (n->profiles.n == 0)
            continue;
        for (size_t j = 0; st == GP_OK && j < n->profiles.n; j++)
            st = nameset_add(&p, n->profiles.v[j], NULL);
        if (st == GP_OK)
            st = copy_counts(n->counts, n->profiles.n, &counts);
        if (st == GP_OK)
            st = copy_labels(n->labels, n->nlabels, &labels);
        if (st == GP_OK) {
            st = nodevec_take(&nv, n->name, labels, n->nlabels, &p, counts, NULL);
        } else {
            free_names(p.v, p.n);
            free(counts);
        }
    }
    c->nodes = nv.v;
    c->nnodes = nv.n;
    return st;
}

/* Builds and publishes a view from the current state (called with mu held). */
static void live_publish(gp_cluster_live *l)
{
    gp_cluster *c = gp_cluster_new();
    nameset mig = { 0 }, pcs = { 0 }, products = { 0 };
    gp_status st = c ? GP_OK : GP_ENOMEM;

    for (size_t i = 0; st == GP_OK && i < l->nnodes; i++) {
        for (size_t j = 0; st == GP_OK && j < l->nodes[i].profiles.n; j++)
            st = nameset_add(&mig, l->nodes[i].profiles.v[j], NULL);
        if (st == GP_OK && l->nodes[i].product != NULL)
            st = nameset_add(&products, l->nodes[i].product, NULL);
    }
    for (size_t i = 0; st == GP_OK && i < l->npcs; i++)
        st = nameset_add(&pcs, l->pcs[i].name, NULL);
    if (st == GP_OK)
        st = live_global_default(l, c);
    if (st == GP_OK)
        st = live_nodes_copy(l, c);
    if (st != GP_OK) {
        free_names(mig.v, mig.n);
        free_names(pcs.v, pcs.n);
        free_names(products.v, products.n);
        gp_cluster_unref(c);
        return; /* the last published view stays in force */
    }
    names_set(&mig, &c->mig_profiles, &c->nmig_profiles);
    names_set(&products, &c->gpu_products, &c->ngpu_products);
    names_set(&pcs, &c->priority_classes, &c->npriority_classes);
    c->has_nodes = l->node_list.synced;
    c->has_priority_classes = l->pc_list.synced;
    if (index_nodes(c) != GP_OK) {
        gp_cluster_unref(c);
        return; /* the last published view stays in force */
    }
    l->publish(l->ctx, c);
}

static bool same_names(const nameset *a, const nameset *b)
{
    if (a->n != b->n)
        return false;
    for (size_t i = 0; i < a->n; i++)
        if (strcmp(a->v[i], b->v[i]) != 0)
            return false;
    return true;
}

static live_node *live_find_node(gp_cluster_live *l, const char *name)
{
    for (size_t i = 0; i < l->nnodes; i++)
        if (strcmp(l->nodes[i].name, name) == 0)
            return &l->nodes[i];
    return NULL;
}

static bool same_labels(const gp_label *a, size_t na, const gp_label *b, size_t nb)
{
    if (na != nb)
        return false;
    for (size_t i = 0; i < na; i++)
        if (strcmp(a[i].key, b[i].key) != 0 || strcmp(a[i].value, b[i].value) != 0)
            return false;
    return true;
}

static live_node *live_add_node(gp_cluster_live *l, const char *name)
{
    live_node *n;

    n = gp_grow(l->nodes, &l->cap_nodes, l->nnodes + 1, sizeof(*n));
    if (n == NULL)
        return NULL;
    l->nodes = n;
    n = &l->nodes[l->nnodes];
    memset(n, 0, sizeof(*n));
    n->name = strdup(name);
    if (n->name == NULL)
        return NULL;
    l->nnodes++;
    return n;
}

static bool same_str(const char *a, const char *b)
{
    return a == NULL ? b == NULL : b != NULL && strcmp(a, b) == 0;
}

/* Records a node's GPU product; true when it changed. A copy that fails keeps the old one. */
static bool live_node_product(live_node *n, const char *product)
{
    char *p;

    if (same_str(n->product, product))
        return false;
    p = product ? strdup(product) : NULL;
    if (product != NULL && p == NULL)
        return false;
    free(n->product);
    n->product = p;
    return true;
}

/* Stores a node's profiles, their counts and labels (taking all over) and its GPU product; true
 * when what the view shows changed: the profiles or their counts, the labels of a node offering
 * any, or the product. Heartbeats change none. */
static bool live_node_put(gp_cluster_live *l, const char *name, nameset *profiles, int32_t *counts,
                          gp_label *labels, size_t nlabels, const char *product)
{
    live_node *n = live_find_node(l, name);
    bool changed;

    if (n == NULL)
        n = live_add_node(l, name);
    if (n == NULL) {
        free_names(profiles->v, profiles->n);
        free(counts);
        free_labels(labels, nlabels);
        return false;
    }
    n->gen = l->node_list.gen;
    changed = live_node_product(n, product);
    changed |= !same_names(&n->profiles, profiles) ||
               (profiles->n > 0 && (memcmp(n->counts, counts, profiles->n * sizeof(int32_t)) ||
                                    !same_labels(n->labels, n->nlabels, labels, nlabels)));
    free_names(n->profiles.v, n->profiles.n);
    free(n->counts);
    free_labels(n->labels, n->nlabels);
    n->profiles = *profiles;
    n->counts = counts;
    n->labels = labels;
    n->nlabels = nlabels;
    return changed;
}

/* Ends an event (mu held): a change is published at once unless a full list of its kind is
 * under way or none has completed yet (the list's end publishes). */
static void live_unlock(gp_cluster_live *l, bool changed, const gp_relist *r)
{
    if (changed && gp_relist_settled(r))
        live_publish(l);
    pthread_mutex_unlock(&l->mu);
}

static void live_node_drop(gp_cluster_live *l, size_t i)
{
    live_node_clear(&l->nodes[i]);
    l->nodes[i] = l->nodes[--l->nnodes];
}

/* Forgets the i-th PriorityClass (the last one takes its place). */
static void live_pc_drop(gp_cluster_live *l, size_t i)
{
    free(l->pcs[i].name);
    l->pcs[i] = l->pcs[--l->npcs];
}

void gp_cluster_live_node(gp_cluster_live *l, const char *type, const cJSON *node)
{
    const char *name = gp_object_name(node);
    nameset s = { 0 };
    bool changed = false;

    if (name == NULL)
        return;
    pthread_mutex_lock(&l->mu);
    if (type != NULL && strcmp(type, "DELETED") == 0) {
        live_node *n = live_find_node(l, name);

        if (n != NULL) {
            changed = n->profiles.n > 0 || n->product != NULL;
            live_node_drop(l, (size_t)(n - l->nodes));
        }
    } else if (node_profiles(node, &s, NULL) == GP_OK) {
        gp_label *labels = NULL;
        size_t nlabels = 0;
        int32_t *counts = NULL;

        if (s.n > 1)
            qsort(s.v, s.n, sizeof(char *), cmp_str);
        /* A node whose labels or counts cannot be kept counts as offering nothing: pods keep
         * whole GPUs rather than be sent where they might not fit. */
        if (s.n > 0 && (node_counts(node, s.v, s.n, &counts) != GP_OK ||
                        node_labels(node, &labels, &nlabels, NULL) != GP_OK)) {
            free_names(s.v, s.n);
            free(counts);
            counts = NULL;
            memset(&s, 0, sizeof(s));
        }
        changed = live_node_put(l, name, &s, counts, labels, nlabels, node_product(node));
    } else {
        free_names(s.v, s.n);
    }
    live_unlock(l, changed, &l->node_list);
}

/* A full list of one kind starts: what it does not deliver is stale at its end. */
static void live_list_begin(gp_cluster_live *l, gp_relist *r)
{
    pthread_mutex_lock(&l->mu);
    gp_relist_begin(r);
    pthread_mutex_unlock(&l->mu);
}

/* Drops what the list r, just complete, did not deliver (the last entry takes a dropped one's
 * place and is looked at next). */
static void drop_stale(gp_cluster_live *l, const gp_relist *r)
{
    for (size_t i = 0; r == &l->node_list && i < l->nnodes;)
        if (l->nodes[i].gen != r->gen)
            live_node_drop(l, i);
        else
            i++;
    for (size_t i = 0; r == &l->pc_list && i < l->npcs;)
        if (l->pcs[i].gen != r->gen)
            live_pc_drop(l, i);
        else
            i++;
}

/* A full list of one kind is complete: what it did not deliver goes, and the view is published
 * whatever changed. */
static void live_list_end(gp_cluster_live *l, gp_relist *r)
{
    pthread_mutex_lock(&l->mu);
    drop_stale(l, r);
    gp_relist_end(r);
    live_publish(l);
    pthread_mutex_unlock(&l->mu);
}

void gp_cluster_live_nodes_begin(gp_cluster_live *l)
{
    live_list_begin(l, &l->node_list);
}

void gp_cluster_live_nodes_end(gp_cluster_live *l)
{
    live_list_end(l, &l->node_list);
}

/* Records a PriorityClass's globalDefault flag and value; true when either changed. */
static bool live_pc_set(live_pc *p, bool global, double value)
{
    bool changed = p->global != global || (global && p->value != value);

    p->global = global;
    p->value = value;
    return changed;
}

void gp_cluster_live_pc(gp_cluster_live *l, const char *type, const cJSON *pc)
{
    const char *name = gp_object_name(pc);
    bool deleted = type != NULL && strcmp(type, "DELETED") == 0, changed = false;
    double value;
    bool global = pc_global(pc, &value);
    size_t i;

    if (name == NULL)
        return;
    pthread_mutex_lock(&l->mu);
    for (i = 0; i < l->npcs && strcmp(l->pcs[i].name, name) != 0; i++)
        ;
    if (deleted && i < l->npcs) {
        live_pc_drop(l, i);
        changed = true;
    } else if (!deleted && i < l->npcs) {
        l->pcs[i].gen = l->pc_list.gen;
        changed = live_pc_set(&l->pcs[i], global, value);
    } else if (!deleted && l->npcs < GP_CLUSTER_MAX_NAMES) {
        live_pc *np = gp_grow(l->pcs, &l->cap_pcs, l->npcs + 1, sizeof(*np));

        l->pcs = np ? np : l->pcs;
        if (l->npcs < l->cap_pcs && (l->pcs[l->npcs].name = strdup(name)) != NULL) {
            l->pcs[l->npcs].gen = l->pc_list.gen;
            l->pcs[l->npcs].global = global;
            l->pcs[l->npcs++].value = value;
            changed = true;
        }
    }
    live_unlock(l, changed, &l->pc_list);
}

void gp_cluster_live_pcs_begin(gp_cluster_live *l)
{
    live_list_begin(l, &l->pc_list);
}

void gp_cluster_live_pcs_end(gp_cluster_live *l)
{
    live_list_end(l, &l->pc_list);
}
