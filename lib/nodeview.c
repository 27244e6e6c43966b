/* SPDX-License-Identifier: Apache-2.0 */
/* Node views and pod usage: decoding a Node into a gp_node, a pod's effective request into a
 * gp_usage, and keeping a node's used counters as pods come and go.
 *
 * Decisions documented here (and in docs/scoring.md):
 * - Only the allocatable resources scoring needs are read (nvidia.com/gpu, nvidia.com/mig-*, cpu,
 *   memory, pods); a malformed value of one of those is GP_EINVAL naming its path, anything else
 *   in allocatable is ignored.
 * - MIG profiles: entries whose allocatable is 0 carry no capacity and are skipped; beyond
 *   GP_NODE_MAX_MIG profiles, or with a profile name longer than GP_MIG_NAME_MAX - 1, the extra
 *   profiles are ignored (the node stays usable; pods asking for them see "node has none").
 * - A pod's effective request follows kube-scheduler (component-helpers resource.PodRequests):
 *   per resource, the larger of (the sum over app containers and sidecars, i.e. init containers
 *   with restartPolicy Always) and (the largest init phase: an init container plus the sidecars
 *   declared before it). A container's value is its request, or its limit when it sets only a
 *   limit (what kube-apiserver defaults the request to). The rule holds for GPUs and MIG slices
 *   as much as for CPU and memory: a sidecar that asks for a GPU holds it for the pod's life.
 *   Pod overhead (spec.overhead) is not applied (gp_pod does not carry it; it only matters for
 *   CPU and memory, which the default scheduler checks anyway).
 * - Up to GP_USAGE_MAX_MIG distinct MIG profiles per pod (as many as a node view keeps) are
 *   counted; past that the rest is still filled in and the call says GP_ETOOBIG. */
#include "gpupack/nodeview.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpupack/policy.h"

static const cJSON *obj_item(const cJSON *obj, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

    return cJSON_IsObject(v) ? v : NULL;
}

static const char *str_item(const cJSON *obj, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int32_t clamp_i32(int64_t v)
{
    return v < 0 ? 0 : v > INT32_MAX ? INT32_MAX : (int32_t)v;
}

static int64_t clamp_nonneg(int64_t v)
{
    return v < 0 ? 0 : v;
}

/* Parses one allocatable value; milli selects milli-units, else whole units rounded up. */
static gp_status alloc_value(const cJSON *v, bool milli, int64_t *out, gp_err *err)
{
    gp_err qerr = {{0}};
    gp_qty q;

    if (!cJSON_IsString(v)) {
        gp_err_set(err, "status.allocatable.%s: must be a quantity string", v->string);
        return GP_EINVAL;
    }
    if (gp_qty_parse_str(v->valuestring, &q, &qerr) != GP_OK) {
        gp_err_set(err, "status.allocatable.%s: %s", v->string, qerr.msg);
        return GP_EINVAL;
    }
    *out = clamp_nonneg(milli ? gp_qty_ceil_milli(q) : gp_qty_ceil_units(q));
    return GP_OK;
}

static void add_mig_alloc(gp_node *n, const char *profile, int32_t count)
{
    gp_mig_count *m;

    if (count <= 0 || n->nmig >= GP_NODE_MAX_MIG || strlen(profile) >= GP_MIG_NAME_MAX ||
        gp_node_mig(n, profile) != NULL)
        return;
    m = &n->mig[n->nmig++];
    snprintf(m->profile, sizeof(m->profile), "%s", profile);
    m->alloc = count;
    m->used = 0;
}

gp_status gp_node_mig_capacity(const cJSON *entry, const char **profile, int32_t *count,
                               gp_err *err)
{
    int64_t v = 0;
    gp_status st;

    *profile = gp_mig_profile_of(entry->string);
    *count = 0;
    if (*profile == NULL)
        return GP_ENOTFOUND;
    st = alloc_value(entry, false, &v, err);
    *count = clamp_i32(v);
    return st;
}

/* One allocatable entry other than MIG: cpu, memory, pods and whole GPUs are read, the rest is
 * ignored. */
static gp_status decode_resource(const cJSON *c, gp_node *n, gp_err *err)
{
    const char *name = c->string;
    bool cpu = strcmp(name, "cpu") == 0;
    int64_t v = 0;
    gp_status st;

    if (!cpu && strcmp(name, GP_RES_GPU) != 0 && strcmp(name, "memory") != 0 &&
        strcmp(name, "pods") != 0)
        return GP_OK;
    st = alloc_value(c, cpu, &v, err);
    if (st != GP_OK)
        return st;
    if (cpu)
        n->cpu_alloc_m = v;
    else if (strcmp(name, GP_RES_GPU) == 0)
        n->gpu_alloc = clamp_i32(v);
    else if (strcmp(name, "memory") == 0)
        n->mem_alloc = v;
    else
        n->pods_alloc = clamp_i32(v);
    return GP_OK;
}

static gp_status decode_allocatable(const cJSON *alloc, gp_node *n, gp_err *err)
{
    for (const cJSON *c = alloc ? alloc->child : NULL; c != NULL; c = c->next) {
        const char *profile;
        int32_t count;
        gp_status st = gp_node_mig_capacity(c, &profile, &count, err);

        if (st == GP_ENOTFOUND)
            st = decode_resource(c, n, err);
        else if (st == GP_OK)
            add_mig_alloc(n, profile, count);
        if (st != GP_OK)
            return st;
    }
    return GP_OK;
}

static bool is_spot(const cJSON *labels, const gp_policy *pol)
{
    for (size_t i = 0; pol != NULL && i < pol->spot.nnode_labels; i++) {
        const char *v = str_item(labels, pol->spot.node_labels[i].key);

        if (v != NULL && strcmp(v, pol->spot.node_labels[i].value) == 0)
            return true;
    }
    return false;
}

/* Copies a label's value (or leaves *dst NULL when the label is absent or empty). */
static gp_status copy_label(const cJSON *labels, const char *key, char **dst)
{
    const char *v = str_item(labels, key);

    *dst = NULL;
    if (v == NULL || *v == '\0')
        return GP_OK;
    *dst = strdup(v);
    return *dst != NULL ? GP_OK : GP_ENOMEM;
}

static gp_status decode_meta(const cJSON *meta, const gp_policy *pol, gp_node *out, gp_err *err)
{
    const cJSON *labels = obj_item(meta, "labels");
    const char *name = str_item(meta, "name");
    gp_status st;

    if (name == NULL || *name == '\0') {
        gp_err_set(err, "metadata.name: a Node must have a name");
        return GP_EINVAL;
    }
    if (strlen(name) > GP_NODE_NAME_MAX) {
        gp_err_set(err, "metadata.name: longer than %d bytes", GP_NODE_NAME_MAX);
        return GP_EINVAL;
    }
    snprintf(out->name, sizeof(out->name), "%s", name);
    out->spot = is_spot(labels, pol);
    st = copy_label(labels, GP_LABEL_INSTANCE_TYPE, &out->instance_type);
    if (st == GP_OK)
        st = copy_label(labels, GP_LABEL_GPU_PRODUCT, &out->gpu_product);
    if (st == GP_ENOMEM)
        gp_err_set(err, "out of memory");
    return st;
}

gp_status gp_node_from_json(const cJSON *node, const gp_policy *pol, gp_node *out, gp_err *err)
{
    const cJSON *spec, *unsched;
    gp_status st;

    memset(out, 0, sizeof(*out));
    if (!cJSON_IsObject(node)) {
        gp_err_set(err, "node: must be a Node object");
        return GP_EINVAL;
    }
    st = decode_meta(obj_item(node, "metadata"), pol, out, err);
    if (st == GP_OK)
        st = decode_allocatable(obj_item(obj_item(node, "status"), "allocatable"), out, err);
    if (st != GP_OK) {
        gp_node_clear(out);
        return st;
    }
    spec = obj_item(node, "spec");
    unsched = cJSON_GetObjectItemCaseSensitive(spec, "unschedulable");
    out->unschedulable = cJSON_IsTrue(unsched);
    return GP_OK;
}

void gp_node_clear(gp_node *n)
{
    if (n == NULL)
        return;
    free(n->instance_type);
    free(n->gpu_product);
    n->instance_type = NULL;
    n->gpu_product = NULL;
}

/* ---------------------------------------------------------------------------------------------
 * A pod's effective request. Sums are kept as exact quantities and rounded once at the end. */

typedef struct {
    char profile[GP_USAGE_MAX_MIG][GP_MIG_NAME_MAX];
    uint8_t nmig;
    bool too_many;                       /* a MIG profile past GP_USAGE_MAX_MIG was skipped */
    __int128 app[3 + GP_USAGE_MAX_MIG];  /* gpu, cpu, memory, then each MIG profile: nano-units;
                                            app containers and sidecars */
    __int128 side[3 + GP_USAGE_MAX_MIG]; /* the sidecars declared so far */
    __int128 init[3 + GP_USAGE_MAX_MIG]; /* the largest init phase: an init container plus the
                                            sidecars declared before it */
} usage_acc;

enum { SLOT_GPU = 0, SLOT_CPU = 1, SLOT_MEM = 2, SLOT_MIG = 3 };

/* The container's value for a resource: its request, or its limit when only a limit is set. */
static const gp_resource *effective(const gp_container *c, const char *name)
{
    const gp_resource *r = gp_container_request(c, name);

    return r != NULL ? r : gp_container_limit(c, name);
}

/* The accumulator slot of a resource name, adding MIG profiles as they appear; -1 to skip it,
 * -2 for one MIG profile too many. */
static int slot_of(usage_acc *acc, const char *name)
{
    const char *profile;

    if (strcmp(name, GP_RES_GPU) == 0)
        return SLOT_GPU;
    if (strcmp(name, "cpu") == 0)
        return SLOT_CPU;
    if (strcmp(name, "memory") == 0)
        return SLOT_MEM;
    profile = gp_mig_profile_of(name);
    if (profile == NULL || strlen(profile) >= GP_MIG_NAME_MAX)
        return -1;
    for (uint8_t i = 0; i < acc->nmig; i++)
        if (strcmp(acc->profile[i], profile) == 0)
            return SLOT_MIG + i;
    if (acc->nmig >= GP_USAGE_MAX_MIG)
        return -2;
    snprintf(acc->profile[acc->nmig], GP_MIG_NAME_MAX, "%s", profile);
    return SLOT_MIG + acc->nmig++;
}

static __int128 max128(__int128 a, __int128 b)
{
    return a > b ? a : b;
}

/* Adds one named resource of container c to the accumulator, by kube-scheduler's rule
 * (component-helpers resource.PodRequests): app containers and sidecars run together and add
 * up; a regular init container runs beside the sidecars declared before it; a sidecar's own
 * start-up phase (itself plus the earlier sidecars) is also an init phase. Containers come in
 * document order, so side[] holds exactly the earlier sidecars. */
static void add_resource(usage_acc *acc, const gp_container *c, const char *name)
{
    const gp_resource *r = effective(c, name);
    __int128 v;
    int slot;

    if (r == NULL || r->qty.nano <= 0)
        return;
    slot = slot_of(acc, name);
    acc->too_many |= slot == -2;
    if (slot < 0)
        return;
    v = r->qty.nano;
    if (!c->init) {
        acc->app[slot] += v;
    } else if (c->sidecar) {
        acc->app[slot] += v;
        acc->side[slot] += v;
        acc->init[slot] = max128(acc->init[slot], acc->side[slot]);
    } else {
        acc->init[slot] = max128(acc->init[slot], v + acc->side[slot]);
    }
}

/* Every resource the container names, in requests or limits. */
static void add_container(usage_acc *acc, const gp_container *c)
{
    for (size_t i = 0; i < c->nrequests; i++)
        add_resource(acc, c, c->requests[i].name);
    for (size_t i = 0; i < c->nlimits; i++)
        if (gp_container_request(c, c->limits[i].name) == NULL)
            add_resource(acc, c, c->limits[i].name);
}

static gp_qty slot_value(const usage_acc *acc, int slot)
{
    gp_qty q;

    q.nano = max128(acc->app[slot], acc->init[slot]);
    return q;
}

gp_status gp_usage_from_pod(const gp_pod *pod, gp_usage *out, gp_err *err)
{
    usage_acc acc;

    memset(out, 0, sizeof(*out));
    memset(&acc, 0, sizeof(acc));
    for (size_t i = 0; i < pod->ncontainers; i++)
        add_container(&acc, &pod->containers[i]);
    out->gpu = clamp_i32(gp_qty_ceil_units(slot_value(&acc, SLOT_GPU)));
    out->cpu_m = gp_qty_ceil_milli(slot_value(&acc, SLOT_CPU));
    out->mem = gp_qty_ceil_units(slot_value(&acc, SLOT_MEM));
    for (uint8_t i = 0; i < acc.nmig; i++) {
        memcpy(out->mig_profile[i], acc.profile[i], GP_MIG_NAME_MAX);
        out->mig[i] = clamp_i32(gp_qty_ceil_units(slot_value(&acc, SLOT_MIG + i)));
    }
    out->nmig = acc.nmig;
    if (acc.too_many) {
        gp_err_set(err, "pod asks for more than %d distinct MIG profiles (" GP_RES_MIG_PREFIX "*)",
                   GP_USAGE_MAX_MIG);
        return GP_ETOOBIG;
    }
    return GP_OK;
}

bool gp_usage_is_gpu(const gp_usage *u)
{
    if (u->gpu > 0)
        return true;
    for (uint8_t i = 0; i < u->nmig; i++)
        if (u->mig[i] > 0)
            return true;
    return false;
}

/* ---------------------------------------------------------------------------------------------
 * Used counters. */

static int32_t add_i32(int32_t a, int64_t delta)
{
    return clamp_i32((int64_t)a + delta);
}

static int64_t add_i64(int64_t a, int64_t delta)
{
    if (delta > 0 && a > INT64_MAX - delta)
        return INT64_MAX;
    return clamp_nonneg(a + delta);
}

/* The node's entry for profile, added with alloc 0 when adding usage and room lasts. */
static gp_mig_count *mig_entry(gp_node *n, const char *profile, int sign)
{
    gp_mig_count *m = (gp_mig_count *)gp_node_mig(n, profile);

    if (m != NULL || sign < 0 || n->nmig >= GP_NODE_MAX_MIG)
        return m;
    m = &n->mig[n->nmig++];
    snprintf(m->profile, sizeof(m->profile), "%s", profile);
    m->alloc = 0;
    m->used = 0;
    return m;
}

void gp_node_apply_usage(gp_node *n, const gp_usage *u, int sign)
{
    int64_t s = sign < 0 ? -1 : 1;

    n->gpu_used = add_i32(n->gpu_used, s * u->gpu);
    n->cpu_used_m = add_i64(n->cpu_used_m, s * u->cpu_m);
    n->mem_used = add_i64(n->mem_used, s * u->mem);
    n->pods_used = add_i32(n->pods_used, s);
    if (gp_usage_is_gpu(u))
        n->gpu_pods = add_i32(n->gpu_pods, s);
    for (uint8_t i = 0; i < u->nmig; i++) {
        gp_mig_count *m = u->mig[i] > 0 ? mig_entry(n, u->mig_profile[i], sign) : NULL;

        if (m != NULL)
            m->used = add_i32(m->used, s * u->mig[i]);
    }
}

const gp_mig_count *gp_node_mig(const gp_node *n, const char *profile)
{
    for (uint8_t i = 0; i < n->nmig; i++)
        if (strcmp(n->mig[i].profile, profile) == 0)
            return &n->mig[i];
    return NULL;
}

bool gp_node_is_gpu(const gp_node *n)
{
    if (n->gpu_alloc > 0)
        return true;
    for (uint8_t i = 0; i < n->nmig; i++)
        if (n->mig[i].alloc > 0)
            return true;
    return false;
}
