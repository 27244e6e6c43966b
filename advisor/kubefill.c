/* SPDX-License-Identifier: Apache-2.0 */
/* Filling the advisor's data from Kubernetes objects (kubefill.h). */
#include "kubefill.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpupack/fileio.h"
#include "gpupack/grow.h"
#include "gpupack/k8s.h"
#include "gpupack/kube.h"

/* The pods of d sorted by (namespace, name), so each object finds its pod by binary search. */
typedef struct {
    gp_adv_pod **by_name;
    size_t n;
} pod_index;

typedef struct {
    gp_adv_data *d;
    const gp_policy *pol;
    pod_index idx;
    gp_adv_fill_stats *st;
} fill_ctx;

static int pod_cmp(const char *ns1, const char *n1, const char *ns2, const char *n2)
{
    int c = strcmp(ns1 ? ns1 : "", ns2 ? ns2 : "");

    return c != 0 ? c : strcmp(n1 ? n1 : "", n2 ? n2 : "");
}

static int pod_sort(const void *a, const void *b)
{
    const gp_adv_pod *x = *(gp_adv_pod *const *)a, *y = *(gp_adv_pod *const *)b;

    return pod_cmp(x->namespace, x->name, y->namespace, y->name);
}

static gp_status index_pods(gp_adv_data *d, pod_index *idx)
{
    idx->n = d->npods;
    idx->by_name = calloc(d->npods ? d->npods : 1, sizeof(*idx->by_name));
    if (idx->by_name == NULL)
        return GP_ENOMEM;
    for (size_t i = 0; i < d->npods; i++)
        idx->by_name[i] = &d->pods[i];
    qsort(idx->by_name, idx->n, sizeof(*idx->by_name), pod_sort);
    return GP_OK;
}

static gp_adv_pod *find_pod(const pod_index *idx, const char *ns, const char *name)
{
    size_t lo = 0, hi = idx->n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const gp_adv_pod *p = idx->by_name[mid];
        int c = pod_cmp(ns, name, p->namespace, p->name);

        if (c == 0)
            return idx->by_name[mid];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

/* metadata.<field> when it is a string, else NULL. */
static const char *meta_str(const cJSON *obj, const char *field)
{
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(meta, field);

    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* The controlling ownerReference (or the first one) of obj: kind and name, or false. */
static bool controller_of(const cJSON *obj, const char **kind, const char **name)
{
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    const cJSON *refs = cJSON_GetObjectItemCaseSensitive(meta, "ownerReferences");
    const cJSON *ref, *pick = NULL;

    cJSON_ArrayForEach(ref, refs) {
        const cJSON *k = cJSON_GetObjectItemCaseSensitive(ref, "kind");
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(ref, "name");

        if (!cJSON_IsString(k) || !cJSON_IsString(n))
            continue;
        if (pick == NULL || cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ref, "controller")))
            pick = ref;
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ref, "controller")))
            break;
    }
    if (pick == NULL)
        return false;
    *kind = cJSON_GetObjectItemCaseSensitive(pick, "kind")->valuestring;
    *name = cJSON_GetObjectItemCaseSensitive(pick, "name")->valuestring;
    return true;
}

static gp_status set_str(char **dst, const char *v)
{
    char *copy = strdup(v);

    if (copy == NULL)
        return GP_ENOMEM;
    free(*dst);
    *dst = copy;
    return GP_OK;
}

static gp_status add_label(gp_adv_pod *p, const char *key, const char *value)
{
    size_t cap = p->nlabels; /* the array was sized exactly: grow from there */
    gp_label *l = gp_grow(p->labels, &cap, p->nlabels + 1, sizeof(*l));
    gp_label nl = {strdup(key), strdup(value)};

    if (l != NULL)
        p->labels = l;
    if (l == NULL || nl.key == NULL || nl.value == NULL) {
        free(nl.key);
        free(nl.value);
        return GP_ENOMEM;
    }
    p->labels[p->nlabels++] = nl;
    return GP_OK;
}

static gp_status fill_pod_labels(fill_ctx *c, gp_adv_pod *p, const cJSON *obj)
{
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    const cJSON *l;

    cJSON_ArrayForEach(l, cJSON_GetObjectItemCaseSensitive(meta, "labels")) {
        if (!cJSON_IsString(l) || l->string == NULL)
            continue;
        if (gp_label_find(p->labels, p->nlabels, l->string) != NULL)
            continue;
        if (add_label(p, l->string, l->valuestring) != GP_OK)
            return GP_ENOMEM;
        c->st->pod_labels++;
    }
    return GP_OK;
}

static gp_status fill_pod(fill_ctx *c, const cJSON *obj)
{
    gp_adv_pod *p = find_pod(&c->idx, meta_str(obj, "namespace"), meta_str(obj, "name"));
    const char *kind, *name;

    if (p == NULL)
        return GP_OK;
    if (fill_pod_labels(c, p, obj) != GP_OK)
        return GP_ENOMEM;
    if (p->owner_kind != NULL || !controller_of(obj, &kind, &name))
        return GP_OK;
    if (set_str(&p->owner_kind, kind) != GP_OK || set_str(&p->owner_name, name) != GP_OK)
        return GP_ENOMEM;
    return GP_OK;
}

/* A ReplicaSet or Job (kind): every pod it owns learns the owner's own controller. */
static gp_status fill_owner(fill_ctx *c, const cJSON *obj, const char *kind)
{
    const char *ns = meta_str(obj, "namespace"), *name = meta_str(obj, "name");
    const char *okind, *oname;

    if (name == NULL || !controller_of(obj, &okind, &oname))
        return GP_OK;
    for (size_t i = 0; i < c->d->npods; i++) {
        gp_adv_pod *p = &c->d->pods[i];

        if (p->owner_owner_kind != NULL || p->owner_kind == NULL ||
            strcmp(p->owner_kind, kind) != 0 || strcmp(p->owner_name, name) != 0 ||
            pod_cmp(p->namespace, "", ns, "") != 0)
            continue;
        if (set_str(&p->owner_owner_kind, okind) != GP_OK ||
            set_str(&p->owner_owner_name, oname) != GP_OK)
            return GP_ENOMEM;
        c->st->owners++;
    }
    return GP_OK;
}

static bool node_is_spot(const gp_policy *pol, const cJSON *labels)
{
    for (size_t i = 0; pol != NULL && i < pol->spot.nnode_labels; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(labels, pol->spot.node_labels[i].key);

        if (cJSON_IsString(v) && strcmp(v->valuestring, pol->spot.node_labels[i].value) == 0)
            return true;
    }
    return false;
}

static gp_status fill_node(fill_ctx *c, const cJSON *obj)
{
    const char *name = meta_str(obj, "name");
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(obj, "metadata");
    const cJSON *labels = cJSON_GetObjectItemCaseSensitive(meta, "labels");
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(labels, GP_LABEL_INSTANCE_TYPE);
    const cJSON *gp = cJSON_GetObjectItemCaseSensitive(labels, GP_LABEL_GPU_PRODUCT);

    for (size_t i = 0; name != NULL && i < c->d->nnodes; i++) {
        gp_adv_node *n = &c->d->nodes[i];
        bool filled = false;

        if (strcmp(n->name, name) != 0)
            continue;
        if (n->instance_type == NULL && cJSON_IsString(it)) {
            if (set_str(&n->instance_type, it->valuestring) != GP_OK)
                return GP_ENOMEM;
            filled = true;
        }
        if (n->gpu_product == NULL && cJSON_IsString(gp)) {
            if (set_str(&n->gpu_product, gp->valuestring) != GP_OK)
                return GP_ENOMEM;
            filled = true;
        }
        if (!n->spot && node_is_spot(c->pol, labels))
            n->spot = filled = true;
        c->st->nodes += filled;
    }
    return GP_OK;
}

/* The kind of one item: its own "kind", else the list's kind less "List". */
static const char *item_kind(const cJSON *item, const char *list_kind, char *buf, size_t n)
{
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(item, "kind");
    size_t len;

    if (cJSON_IsString(k))
        return k->valuestring;
    if (list_kind == NULL || (len = strlen(list_kind)) < 5 || len - 4 >= n ||
        strcmp(list_kind + len - 4, "List") != 0)
        return "";
    memcpy(buf, list_kind, len - 4);
    buf[len - 4] = '\0';
    return buf;
}

static gp_status fill_item(fill_ctx *c, const cJSON *item, const char *kind)
{
    if (strcmp(kind, "Pod") == 0)
        return fill_pod(c, item);
    if (strcmp(kind, "Node") == 0)
        return fill_node(c, item);
    if (strcmp(kind, "ReplicaSet") == 0 || strcmp(kind, "Job") == 0)
        return fill_owner(c, item, kind);
    return GP_OK;
}

gp_status gp_adv_fill_list(gp_adv_data *d, const gp_policy *pol, const cJSON *list,
                           gp_adv_fill_stats *st, gp_err *err)
{
    const cJSON *items = cJSON_GetObjectItemCaseSensitive(list, "items");
    const cJSON *lk = cJSON_GetObjectItemCaseSensitive(list, "kind");
    fill_ctx c = {.d = d, .pol = pol, .st = st};
    const cJSON *item;
    gp_status rc = GP_OK;
    char buf[64];

    if (!cJSON_IsObject(list) || !cJSON_IsArray(items)) {
        gp_err_set(err, "not a Kubernetes list (no \"items\" array)");
        return GP_EINVAL;
    }
    if (index_pods(d, &c.idx) != GP_OK)
        return GP_ENOMEM;
    cJSON_ArrayForEach(item, items) {
        rc = fill_item(&c, item, item_kind(item, cJSON_IsString(lk) ? lk->valuestring : NULL,
                                           buf, sizeof(buf)));
        if (rc != GP_OK)
            break;
    }
    free(c.idx.by_name);
    if (rc == GP_ENOMEM)
        gp_err_set(err, "out of memory");
    return rc;
}

/* What fill_bytes() fills: a gp_file_decoder's context. */
typedef struct {
    gp_adv_data *d;
    const gp_policy *pol;
    gp_adv_fill_stats *st;
} fill_target;

static gp_status fill_bytes(void *ctx, const char *buf, size_t len, gp_err *err)
{
    const fill_target *f = ctx;
    cJSON *root = cJSON_ParseWithLengthOpts(buf, len, NULL, 0);
    gp_status rc;

    if (root == NULL) {
        gp_err_set(err, "not JSON");
        return GP_EINVAL;
    }
    rc = gp_adv_fill_list(f->d, f->pol, root, f->st, err);
    cJSON_Delete(root);
    return rc;
}

gp_status gp_adv_fill_file(gp_adv_data *d, const gp_policy *pol, const char *path,
                           gp_adv_fill_stats *st, gp_err *err)
{
    fill_target f = { d, pol, st };

    return gp_file_decode(path, GP_ADV_FILL_MAX_BYTES, fill_bytes, &f, err);
}

static gp_status add_note(gp_adv_data *d, const char *text)
{
    size_t cap = d->nnotes;
    char **n = gp_grow(d->notes, &cap, d->nnotes + 1, sizeof(*n));
    char *copy = strdup(text);

    if (n != NULL)
        d->notes = n;
    if (n == NULL || copy == NULL) {
        free(copy);
        return GP_ENOMEM;
    }
    d->notes[d->nnotes++] = copy;
    return GP_OK;
}

/* The lists read from the API, in the order that lets owners find their pods. */
static const char *const api_paths[] = {
    "/api/v1/pods", "/api/v1/nodes", "/apis/apps/v1/replicasets", "/apis/batch/v1/jobs",
};

gp_status gp_adv_fill_from_api(gp_adv_data *d, const gp_policy *pol, const gp_kube_config *cfg,
                               gp_adv_fill_stats *st, gp_err *err)
{
    fill_target f = { d, pol, st };

    for (size_t i = 0; i < sizeof(api_paths) / sizeof(api_paths[0]); i++) {
        char *body = NULL, note[GP_ERR_MAX + 64];
        size_t len = 0;
        long status = 0;
        gp_status rc = gp_kube_get(cfg, api_paths[i], GP_ADV_FILL_MAX_BYTES, &body, &len,
                                   &status, err);

        if (rc != GP_OK && (status == 403 || status == 404)) {
            snprintf(note, sizeof(note), "Kubernetes API: %s not readable (HTTP %ld): skipped",
                     api_paths[i], status);
            if (add_note(d, note) != GP_OK)
                return GP_ENOMEM;
            continue;
        }
        if (rc == GP_OK)
            rc = fill_bytes(&f, body, len, err);
        free(body);
        if (rc != GP_OK) {
            gp_err_prefix(err, api_paths[i]);
            return rc;
        }
    }
    return GP_OK;
}
