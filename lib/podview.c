/* SPDX-License-Identifier: Apache-2.0 */
#include "gpupack/podview.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "gpupack/json.h"
#include "gpupack/policy.h"
#include "gpupack/strbuf.h"

/* Returns the child named key when it is a string, NULL otherwise. */
static const char *json_str(const cJSON *obj, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static const cJSON *json_obj(const cJSON *obj, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

    return cJSON_IsObject(v) ? v : NULL;
}

static const cJSON *json_arr(const cJSON *obj, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

    return cJSON_IsArray(v) ? v : NULL;
}

/* The same tests on a member already found (gp_json_members). */
static const char *as_str(const cJSON *v)
{
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static const cJSON *as_obj(const cJSON *v)
{
    return cJSON_IsObject(v) ? v : NULL;
}

static const cJSON *as_arr(const cJSON *v)
{
    return cJSON_IsArray(v) ? v : NULL;
}

static size_t json_count(const cJSON *v)
{
    size_t n = 0;

    for (const cJSON *c = v ? v->child : NULL; c != NULL; c = c->next)
        n++;
    return n;
}

/* An arena array for arr's items, size bytes each, in *out (NULL when arr has none). Past max
 * items: GP_ETOOBIG, and err says "PATH: more than MAX WHAT" when path is given. */
static gp_status alloc_items(const cJSON *arr, size_t size, size_t max, gp_arena *a, void **out,
                             const char *path, const char *what, gp_err *err)
{
    size_t cnt = json_count(arr);

    *out = NULL;
    if (cnt == 0)
        return GP_OK;
    if (cnt > max) {
        if (path != NULL)
            gp_err_set(err, "%s: more than %zu %s", path, max, what);
        return GP_ETOOBIG;
    }
    *out = gp_arena_alloc(a, cnt * size);
    return *out != NULL ? GP_OK : GP_ENOMEM;
}

/* Fills one item from a member of a JSON object: GP_OK keeps it, GP_ENOTFOUND skips it, any
 * other status (err set, naming path) ends the decoding. */
typedef gp_status (*fill_fn)(const cJSON *c, void *item, const char *path, gp_err *err);

/* The members of object m, each filled into an arena array by fill (*out, *n kept items). */
static gp_status decode_members(const cJSON *m, size_t size, size_t max, gp_arena *a,
                                fill_fn fill, void **out, size_t *n, const char *path,
                                const char *what, gp_err *err)
{
    gp_status st = alloc_items(m, size, max, a, out, path, what, err);
    size_t i = 0;

    *n = 0;
    if (st != GP_OK || *out == NULL)
        return st;
    for (const cJSON *c = m->child; c != NULL; c = c->next) {
        st = fill(c, (char *)*out + i * size, path, err);
        if (st == GP_OK)
            i++;
        else if (st != GP_ENOTFOUND)
            return st;
    }
    *n = i;
    return GP_OK;
}

/* Labels and annotations: non-string values are skipped (kube-apiserver would reject such a
 * pod anyway, and they can never match a selector). */
static gp_status fill_label(const cJSON *c, void *item, const char *path, gp_err *err)
{
    gp_label *l = item;

    (void)path;
    (void)err;
    if (!cJSON_IsString(c) || c->string == NULL)
        return GP_ENOTFOUND;
    l->key = c->string;
    l->value = c->valuestring;
    return GP_OK;
}

static gp_status fill_resource(const cJSON *c, void *item, const char *path, gp_err *err)
{
    gp_resource *r = item;
    gp_err qerr = { { 0 } };

    if (!cJSON_IsString(c)) {
        gp_err_set(err, "%s.%s: must be a quantity string", path, c->string);
        return GP_EINVAL;
    }
    if (gp_qty_parse_str(c->valuestring, &r->qty, &qerr) != GP_OK) {
        gp_err_set(err, "%s.%s: %s", path, c->string, qerr.msg);
        return GP_EINVAL;
    }
    r->name = c->string;
    return GP_OK;
}

/* A map of string values (labels, annotations, nodeSelector). */
static gp_status decode_string_map(const cJSON *m, gp_arena *a, gp_label **out, size_t *n,
                                   const char *path, gp_err *err)
{
    void *mem = NULL;
    gp_status st = decode_members(m, sizeof(**out), GP_POD_MAX_MAP, a, fill_label, &mem, n, path,
                                  "entries", err);

    *out = mem;
    return st;
}

static gp_status decode_resources(const cJSON *m, gp_arena *a, gp_resource **out, size_t *n,
                                  const char *path, gp_err *err)
{
    void *mem = NULL;
    gp_status st = decode_members(m, sizeof(**out), GP_POD_MAX_ITEMS, a, fill_resource, &mem, n,
                                  path, "resources", err);

    *out = mem;
    return st;
}

#define PATH_CAP 96

/* "spec.ARR[INDEX].resources.WHICH" in path (PATH_CAP bytes; ARR and WHICH are this file's own
 * short names), written without printf: it runs twice for every container of every pod. */
static const char *resources_path(char path[PATH_CAP], const char *arr, int index,
                                  const char *which)
{
    char num[GP_INT_TEXT_MAX];
    const char *parts[] = { "spec.", arr, "[", num, "].resources.", which };
    size_t n = 0, k;

    num[gp_int_text(num, index)] = '\0';
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++, n += k) {
        k = strlen(parts[i]);
        if (n + k >= PATH_CAP)
            break;
        memcpy(path + n, parts[i], k);
    }
    path[n] = '\0';
    return path;
}

static gp_status decode_container(const cJSON *c, bool init, int index, gp_arena *a,
                                  gp_container *out, gp_err *err)
{
    static const char *const keys[] = { "name", "restartPolicy", "resources" };
    const char *arr = init ? "initContainers" : "containers";
    const cJSON *f[3], *res, *req, *lim;
    char path[PATH_CAP];
    gp_status st;

    if (!cJSON_IsObject(c)) {
        gp_err_set(err, "spec.%s[%d]: must be an object", arr, index);
        return GP_EINVAL;
    }
    gp_json_members(c, keys, 3, f);
    out->name = as_str(f[0]);
    out->init = init;
    out->sidecar = init && as_str(f[1]) != NULL && strcmp(as_str(f[1]), "Always") == 0;
    out->index = index;
    res = f[2];
    if (res == NULL || cJSON_IsNull(res))
        return GP_OK;
    if (!cJSON_IsObject(res)) {
        gp_err_set(err, "spec.%s[%d].resources: must be an object", arr, index);
        return GP_EINVAL;
    }
    req = gp_json_member(res, "requests");
    lim = gp_json_member(res, "limits");
    if ((req && !cJSON_IsObject(req) && !cJSON_IsNull(req)) ||
        (lim && !cJSON_IsObject(lim) && !cJSON_IsNull(lim))) {
        gp_err_set(err, "spec.%s[%d].resources: requests and limits must be objects", arr, index);
        return GP_EINVAL;
    }
    out->has_requests = cJSON_IsObject(req);
    out->has_limits = cJSON_IsObject(lim);
    st = decode_resources(out->has_requests ? req : NULL, a, &out->requests, &out->nrequests,
                          resources_path(path, arr, index, "requests"), err);
    if (st != GP_OK)
        return st;
    return decode_resources(out->has_limits ? lim : NULL, a, &out->limits, &out->nlimits,
                            resources_path(path, arr, index, "limits"), err);
}

/* spec.containers and spec.initContainers (either may be NULL). */
static gp_status decode_containers(const cJSON *cs, const cJSON *ics, gp_arena *a, gp_pod *p,
                                   gp_err *err)
{
    size_t total, i = 0;

    if (cs && !cJSON_IsArray(cs) && !cJSON_IsNull(cs)) {
        gp_err_set(err, "spec.containers: must be an array");
        return GP_EINVAL;
    }
    if (ics && !cJSON_IsArray(ics) && !cJSON_IsNull(ics)) {
        gp_err_set(err, "spec.initContainers: must be an array");
        return GP_EINVAL;
    }
    total = json_count(cJSON_IsArray(cs) ? cs : NULL) + json_count(cJSON_IsArray(ics) ? ics : NULL);
    if (total > GP_POD_MAX_CONTAINERS) {
        gp_err_set(err, "spec: more than %d containers", GP_POD_MAX_CONTAINERS);
        return GP_ETOOBIG;
    }
    if (total == 0)
        return GP_OK;
    p->containers = gp_arena_alloc(a, total * sizeof(*p->containers));
    if (p->containers == NULL)
        return GP_ENOMEM;
    for (int pass = 0; pass < 2; pass++) {
        const cJSON *arr = pass == 0 ? cs : ics;
        int idx = 0;

        for (const cJSON *c = cJSON_IsArray(arr) ? arr->child : NULL; c; c = c->next, idx++) {
            gp_status st = decode_container(c, pass == 1, idx, a, &p->containers[i++], err);

            if (st != GP_OK)
                return st;
        }
    }
    p->ncontainers = i;
    return GP_OK;
}

/* cJSON holds numbers as doubles: values past +-2^63 saturate instead of overflowing the
 * conversion, and integers above 2^53 arrive rounded to the nearest double. That is why
 * gp_toleration_covers() compares tolerationSeconds at double precision. */
static int64_t clamp_int64(double d)
{
    if (d != d)
        return 0;
    if (d >= 9223372036854775807.0)
        return INT64_MAX;
    if (d <= -9223372036854775808.0)
        return INT64_MIN;
    return (int64_t)d;
}

/* spec.tolerations (ts may be NULL, or not an array: no tolerations). */
static gp_status decode_tolerations(const cJSON *ts, gp_arena *a, gp_pod *p, gp_err *err)
{
    static const char *const keys[] = { "key", "operator", "value", "effect",
                                        "tolerationSeconds" };
    void *mem;
    gp_status st = alloc_items(as_arr(ts), sizeof(*p->tolerations), GP_POD_MAX_ITEMS, a, &mem,
                               "spec.tolerations", "entries", err);
    size_t i = 0;

    if (st != GP_OK || mem == NULL)
        return st;
    p->tolerations = mem;
    for (const cJSON *t = ts->child; t != NULL; t = t->next) {
        gp_toleration *o = &p->tolerations[i];
        const cJSON *f[5];
        const char *op;

        if (!cJSON_IsObject(t))
            continue;
        gp_json_members(t, keys, 5, f);
        op = as_str(f[1]);
        o->key = (char *)(as_str(f[0]) ? as_str(f[0]) : "");
        o->op = (char *)(op && *op ? op : "Equal");
        o->value = (char *)(as_str(f[2]) ? as_str(f[2]) : "");
        o->effect = (char *)(as_str(f[3]) ? as_str(f[3]) : "");
        o->has_seconds = cJSON_IsNumber(f[4]);
        o->seconds = o->has_seconds ? clamp_int64(f[4]->valuedouble) : 0;
        i++;
    }
    p->ntolerations = i;
    return GP_OK;
}

/* matchExpressions or matchFields of one term into *out / *n. */
static gp_status decode_exprs(const cJSON *arr, gp_arena *a, gp_selector_req **out, size_t *n)
{
    void *mem;
    gp_status st = alloc_items(arr, sizeof(**out), GP_POD_MAX_ITEMS, a, &mem, NULL, NULL, NULL);
    size_t i = 0;

    if (st != GP_OK || mem == NULL)
        return st;
    *out = mem;
    for (const cJSON *e = arr->child; e != NULL; e = e->next) {
        const cJSON *vals = json_arr(e, "values");
        gp_selector_req *r = &(*out)[i];
        size_t nv = json_count(vals), j = 0;

        if (!cJSON_IsObject(e) || json_str(e, "key") == NULL)
            continue;
        r->key = (char *)json_str(e, "key");
        r->op = (char *)(json_str(e, "operator") ? json_str(e, "operator") : "");
        if (nv > GP_POD_MAX_ITEMS)
            return GP_ETOOBIG;
        r->values = nv ? gp_arena_alloc(a, nv * sizeof(char *)) : NULL;
        if (nv && r->values == NULL)
            return GP_ENOMEM;
        for (const cJSON *v = vals ? vals->child : NULL; v != NULL; v = v->next)
            if (cJSON_IsString(v))
                r->values[j++] = v->valuestring;
        r->nvalues = j;
        i++;
    }
    *n = i;
    return GP_OK;
}

static gp_status decode_terms(const cJSON *arr, bool preferred, gp_arena *a, gp_node_term **out,
                              size_t *n)
{
    void *mem;
    gp_status st = alloc_items(arr, sizeof(**out), GP_POD_MAX_ITEMS, a, &mem, NULL, NULL, NULL);
    size_t i = 0;

    if (st != GP_OK || mem == NULL)
        return st;
    *out = mem;
    for (const cJSON *t = arr->child; t != NULL; t = t->next, i++) {
        const cJSON *term = preferred ? json_obj(t, "preference") : t;
        const cJSON *w = cJSON_GetObjectItemCaseSensitive(t, "weight");

        (*out)[i].weight = cJSON_IsNumber(w) ? (int)w->valuedouble : 0;
        st = decode_exprs(json_arr(term, "matchExpressions"), a, &(*out)[i].exprs,
                          &(*out)[i].nexprs);
        if (st == GP_OK)
            st = decode_exprs(json_arr(term, "matchFields"), a, &(*out)[i].fields,
                              &(*out)[i].nfields);
        if (st != GP_OK)
            return st;
    }
    *n = i;
    return GP_OK;
}

/* spec.affinity (may be NULL). */
static gp_status decode_affinity(const cJSON *affinity, gp_arena *a, gp_pod *p, gp_err *err)
{
    const cJSON *na = json_obj(as_obj(affinity), "nodeAffinity");
    const cJSON *req = json_obj(na, "requiredDuringSchedulingIgnoredDuringExecution");
    gp_status st;

    st = decode_terms(json_arr(req, "nodeSelectorTerms"), false, a, &p->required, &p->nrequired);
    if (st == GP_OK)
        st = decode_terms(json_arr(na, "preferredDuringSchedulingIgnoredDuringExecution"), true, a,
                          &p->preferred, &p->npreferred);
    if (st == GP_ETOOBIG)
        gp_err_set(err, "spec.affinity.nodeAffinity: more than %d entries", GP_POD_MAX_ITEMS);
    return st;
}

/* The controlling owner reference (the first owner when none says controller): its kind, and
 * its name into *name (NULL when it has none). owners: metadata.ownerReferences, or NULL. */
static const char *controller_kind(const cJSON *owners, const char **name)
{
    static const char *const keys[] = { "kind", "name", "controller" };
    const cJSON *f[3];
    const char *kind = NULL;

    *name = NULL;
    for (const cJSON *o = as_arr(owners) ? owners->child : NULL; o != NULL; o = o->next) {
        gp_json_members(o, keys, 3, f);
        if (as_str(f[0]) == NULL || (kind != NULL && !cJSON_IsTrue(f[2])))
            continue;
        kind = as_str(f[0]);
        *name = as_str(f[1]);
        if (cJSON_IsTrue(f[2]))
            break;
    }
    return kind;
}

enum { M_NAMESPACE, M_NAME, M_GENERATE_NAME, M_OWNERS, M_LABELS, M_ANNOTATIONS, M_COUNT };
static const char *const meta_keys[M_COUNT] = { "namespace", "name", "generateName",
                                                "ownerReferences", "labels", "annotations" };

static gp_status decode_metadata(const cJSON *meta, const char *ns_fallback, gp_arena *a,
                                 gp_pod *p, gp_err *err)
{
    const cJSON *f[M_COUNT];
    gp_status st;

    gp_json_members(meta, meta_keys, M_COUNT, f);
    p->namespace = as_str(f[M_NAMESPACE]);
    if (p->namespace == NULL || *p->namespace == '\0')
        p->namespace = ns_fallback ? ns_fallback : "";
    p->name = as_str(f[M_NAME]);
    p->generate_name = as_str(f[M_GENERATE_NAME]);
    p->owner_kind = controller_kind(f[M_OWNERS], &p->owner_name);
    st = decode_string_map(as_obj(f[M_LABELS]), a, &p->labels, &p->nlabels, "metadata.labels",
                           err);
    if (st != GP_OK)
        return st;
    return decode_string_map(as_obj(f[M_ANNOTATIONS]), a, &p->annotations, &p->nannotations,
                             "metadata.annotations", err);
}

/* The members of spec the view reads, found in one pass. */
enum {
    S_CONTAINERS, S_INIT_CONTAINERS, S_TOLERATIONS, S_AFFINITY, S_NODE_SELECTOR,
    S_PRIORITY_CLASS, S_SCHEDULER, S_PRIORITY, S_PREEMPTION, S_DEADLINE, S_NODE_NAME, S_COUNT
};
static const char *const spec_keys[S_COUNT] = {
    "containers",    "initContainers", "tolerations", "affinity",
    "nodeSelector",  "priorityClassName", "schedulerName", "priority",
    "preemptionPolicy", "activeDeadlineSeconds", "nodeName"
};

static gp_status decode_spec(const cJSON *spec, gp_arena *a, gp_pod *out, gp_err *err)
{
    const cJSON *f[S_COUNT];
    gp_status st;

    gp_json_members(spec, spec_keys, S_COUNT, f);
    st = decode_containers(f[S_CONTAINERS], f[S_INIT_CONTAINERS], a, out, err);
    if (st == GP_OK)
        st = decode_tolerations(f[S_TOLERATIONS], a, out, err);
    if (st == GP_OK)
        st = decode_affinity(f[S_AFFINITY], a, out, err);
    if (st == GP_OK)
        st = decode_string_map(as_obj(f[S_NODE_SELECTOR]), a, &out->node_selector,
                               &out->nnode_selector, "spec.nodeSelector", err);
    if (st != GP_OK)
        return st;
    out->priority_class = as_str(f[S_PRIORITY_CLASS]);
    out->scheduler_name = as_str(f[S_SCHEDULER]);
    out->has_priority = f[S_PRIORITY] != NULL;
    out->has_preemption_policy = f[S_PREEMPTION] != NULL;
    out->has_active_deadline = cJSON_IsNumber(f[S_DEADLINE]);
    out->node_name = as_str(f[S_NODE_NAME]);
    if (out->node_name != NULL && *out->node_name == '\0')
        out->node_name = NULL;
    return GP_OK;
}

gp_status gp_pod_from_json(const cJSON *pod, const char *ns_fallback, gp_arena *a, gp_pod *out,
                           gp_err *err)
{
    static const char *const keys[] = { "metadata", "spec" };
    const cJSON *f[2];
    gp_status st;

    memset(out, 0, sizeof(*out));
    if (!cJSON_IsObject(pod)) {
        gp_err_set(err, "object: must be a Pod object");
        return GP_EINVAL;
    }
    gp_json_members(pod, keys, 2, f);
    if (f[1] != NULL && !cJSON_IsObject(f[1])) {
        gp_err_set(err, "spec: must be an object");
        return GP_EINVAL;
    }
    st = decode_metadata(as_obj(f[0]), ns_fallback, a, out, err);
    return st == GP_OK ? decode_spec(f[1], a, out, err) : st;
}

const char *gp_pod_label(const gp_pod *p, const char *key)
{
    return gp_label_find(p->labels, p->nlabels, key);
}

const char *gp_pod_annotation(const gp_pod *p, const char *key)
{
    return gp_label_find(p->annotations, p->nannotations, key);
}

static const gp_resource *resource_get(const gp_resource *r, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(r[i].name, name) == 0)
            return &r[i];
    return NULL;
}

const gp_resource *gp_container_request(const gp_container *c, const char *name)
{
    return resource_get(c->requests, c->nrequests, name);
}

const gp_resource *gp_container_limit(const gp_container *c, const char *name)
{
    return resource_get(c->limits, c->nlimits, name);
}

static bool any_gpu(const gp_resource *r, size_t n, const gp_policy *pol)
{
    static const gp_qty zero = { 0 };

    for (size_t i = 0; i < n; i++)
        if (gp_qty_cmp(r[i].qty, zero) > 0 && gp_policy_is_gpu_resource(pol, r[i].name))
            return true;
    return false;
}

bool gp_pod_is_gpu(const gp_pod *p, const gp_policy *pol)
{
    for (size_t i = 0; i < p->ncontainers; i++) {
        const gp_container *c = &p->containers[i];

        if (any_gpu(c->requests, c->nrequests, pol) || any_gpu(c->limits, c->nlimits, pol))
            return true;
    }
    return false;
}

bool gp_toleration_covers(const gp_toleration *have, const gp_toleration *want)
{
    bool have_exists = strcmp(have->op, "Exists") == 0;
    bool want_exists = strcmp(want->op, "Exists") == 0;

    if (*have->key == '\0') {
        if (!have_exists)
            return false;
    } else if (strcmp(have->key, want->key) != 0) {
        return false;
    }
    if (*have->effect != '\0' && strcmp(have->effect, want->effect) != 0)
        return false;
    if (!have_exists && (want_exists || strcmp(have->value, want->value) != 0))
        return false;
    /* Compared at the precision the pod's JSON was read with (see clamp_int64), so a pod that
     * carries exactly the policy's toleration is covered even above 2^53 seconds. */
    if (have->has_seconds && (!want->has_seconds || (double)have->seconds < (double)want->seconds))
        return false;
    return true;
}

bool gp_pod_tolerates(const gp_pod *pod, const gp_toleration *taint)
{
    for (size_t i = 0; i < pod->ntolerations; i++) {
        gp_toleration t = pod->tolerations[i];

        t.has_seconds = false;
        if (gp_toleration_covers(&t, taint))
            return true;
    }
    return false;
}
