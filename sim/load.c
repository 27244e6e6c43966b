/* SPDX-License-Identifier: Apache-2.0 */
/* gpupack-sim's input loading (sim/load.h): CSV from the trace, or Kubernetes JSON dumps. */
#include "load.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "gpupack/arena.h"
#include "gpupack/fileio.h"
#include "gpupack/nodematch.h"
#include "gpupack/nodeview.h"
#include "gpupack/podview.h"
#include "gpupack/quantity.h"
#include "gpupack/score.h"
#include "job.h"
#include "workload.h"

#define MAX_COLS 32
#define SIM_MAX_POD_ARENA (4u << 20) /* one pod's decoded view, as the extender's cache allows */
#define MAX_LINE 4096

/* ---- Small helpers ---- */

/* Parses s as a decimal integer in [lo, hi] with nothing after it. */
static bool parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
    char *end = NULL;

    if (!s || !*s || !(isdigit((unsigned char)*s) || *s == '-'))
        return false;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || !end || *end || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

static bool is_json(const char *buf)
{
    while (*buf && isspace((unsigned char)*buf))
        buf++;
    return *buf == '{' || *buf == '[';
}

/* Splits line (modified in place) at commas into cols; returns the count or -1 when too many. */
static int split_csv(char *line, char **cols)
{
    int n = 0;

    for (char *p = line;;) {
        if (n == MAX_COLS)
            return -1;
        cols[n++] = p;
        char *c = strchr(p, ',');
        if (!c)
            break;
        *c = '\0';
        p = c + 1;
    }
    return n;
}

typedef struct {
    const char *path;
    char *buf, *cur;
    size_t line;
    int ncols;
    char *cols[MAX_COLS];
} csv_reader;

/* The next non-empty line, split; false at the end. Strips a trailing '\r'. */
static bool csv_next(csv_reader *r)
{
    while (r->cur && *r->cur) {
        char *line = r->cur, *nl = strchr(line, '\n');
        r->cur = nl ? nl + 1 : NULL;
        if (nl)
            *nl = '\0';
        r->line++;
        size_t len = strlen(line);
        if (len && line[len - 1] == '\r')
            line[--len] = '\0';
        if (len == 0)
            continue;
        r->ncols = len > MAX_LINE ? -1 : split_csv(line, r->cols);
        return true;
    }
    return false;
}

static int col_index(const csv_reader *r, const char *name)
{
    for (int i = 0; i < r->ncols; i++)
        if (strcmp(r->cols[i], name) == 0)
            return i;
    return -1;
}

/* Reads the header and finds the named columns (optional ones may be missing: -1). */
static gp_status csv_header(csv_reader *r, const char *const *names, int n, int required,
                            int *idx, gp_err *err)
{
    if (!csv_next(r) || r->ncols < 0) {
        gp_err_set(err, "%s: empty file or header too long", r->path);
        return GP_EINVAL;
    }
    for (int i = 0; i < n; i++) {
        idx[i] = col_index(r, names[i]);
        if (i < required && idx[i] < 0) {
            gp_err_set(err, "%s:%zu: header has no column \"%s\"", r->path, r->line, names[i]);
            return GP_EINVAL;
        }
    }
    return GP_OK;
}

static const char *csv_col(const csv_reader *r, int i)
{
    return i >= 0 && i < r->ncols ? r->cols[i] : NULL;
}

static gp_status grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return GP_OK;
    size_t c = *cap ? *cap * 2 : 1024;
    while (c < need)
        c *= 2;
    void *q = realloc(*p, c * elem);
    if (!q)
        return GP_ENOMEM;
    *p = q;
    *cap = c;
    return GP_OK;
}

/* ---- Nodes ---- */

typedef struct {
    sim_input *in;
    size_t cap, name_cap;
} node_sink;

static gp_status add_node(node_sink *s, const char *name, int64_t cpu, int64_t mem, int64_t gpus,
                          int model, gp_err *err)
{
    sim_input *in = s->in;

    if (in->n_nodes >= SIM_MAX_NODES) {
        gp_err_set(err, "more than %d nodes", SIM_MAX_NODES);
        return GP_ETOOBIG;
    }
    if (grow((void **)&in->nodes, &s->cap, in->n_nodes + 1, sizeof(*in->nodes)) ||
        grow((void **)&in->node_names, &s->name_cap, in->n_nodes + 1, sizeof(*in->node_names)))
        return GP_ENOMEM;
    gp_frag_node_init(&in->nodes[in->n_nodes], (uint32_t)in->n_nodes, cpu, mem, (int)gpus, model);
    snprintf(in->node_names[in->n_nodes], SIM_NAME_LEN, "%s", name);
    in->n_nodes++;
    return GP_OK;
}

static gp_status model_id(gp_frag_models *m, const char *name, size_t len, int *id, gp_err *err)
{
    *id = len ? gp_frag_models_id(m, name, len) : -1;
    if (len && *id < 0) {
        gp_err_set(err, "GPU model \"%.*s\": too long or more than %d models", (int)len, name,
                   GP_FRAG_MAX_MODELS);
        return GP_EINVAL;
    }
    return GP_OK;
}

static gp_status nodes_csv(csv_reader *r, node_sink *s, gp_err *err)
{
    static const char *const names[] = { "sn", "cpu_milli", "memory_mib", "gpu", "model" };
    int idx[5];
    gp_status st = csv_header(r, names, 5, 4, idx, err);

    while (st == GP_OK && csv_next(r)) {
        int64_t cpu, mem, gpu;
        const char *model = csv_col(r, idx[4]);
        int mid = -1;
        if (r->ncols < 0 || !csv_col(r, idx[0]) ||
            !parse_i64(csv_col(r, idx[1]), 0, INT64_C(1) << 40, &cpu) ||
            !parse_i64(csv_col(r, idx[2]), 0, INT64_C(1) << 40, &mem) ||
            !parse_i64(csv_col(r, idx[3]), 0, GP_FRAG_MAX_GPUS, &gpu)) {
            gp_err_set(err, "%s:%zu: bad node row (want name, cpu_milli >= 0, memory_mib >= 0, "
                       "gpu 0..%d, model)", r->path, r->line, GP_FRAG_MAX_GPUS);
            return GP_EINVAL;
        }
        st = model_id(&s->in->models, model ? model : "", model ? strlen(model) : 0, &mid, err);
        if (st == GP_OK)
            st = add_node(s, csv_col(r, idx[0]), cpu, mem, gpu, mid, err);
        if (st == GP_EINVAL)
            gp_err_prefix(err, r->path);
    }
    return st;
}

/* A quantity field as milli-units (CPU) or whole units; absent is 0. */
static bool qty_field(const cJSON *obj, const char *key, bool milli, int64_t *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    gp_qty q;

    *out = 0;
    if (!v)
        return true;
    if (cJSON_IsNumber(v)) {
        if (v->valuedouble < 0 || v->valuedouble > 1e15)
            return false;
        *out = (int64_t)(milli ? v->valuedouble * 1000 : v->valuedouble);
        return true;
    }
    if (!cJSON_IsString(v) || gp_qty_parse_str(v->valuestring, &q, NULL) != GP_OK)
        return false;
    *out = milli ? gp_qty_ceil_milli(q) : gp_qty_ceil_units(q);
    return *out >= 0;
}

static const cJSON *json_path(const cJSON *o, const char *a, const char *b)
{
    o = cJSON_GetObjectItemCaseSensitive(o, a);
    return b ? cJSON_GetObjectItemCaseSensitive(o, b) : o;
}

static const cJSON *json_items(const cJSON *root)
{
    return cJSON_IsArray(root) ? root : cJSON_GetObjectItemCaseSensitive(root, "items");
}

#define MIB (INT64_C(1) << 20)

/* Counts the GPUs a node's MIG slices make (compute slices / 7, rounded up), as the extender
 * counts them for its prices; false when a slice count is not a quantity. */
static bool mig_gpus(sim_input *in, const cJSON *alloc)
{
    const cJSON *r;
    int64_t slices = 0;

    cJSON_ArrayForEach(r, alloc)
    {
        int64_t count;

        if (r->string == NULL ||
            strncmp(r->string, GP_RES_MIG_PREFIX, strlen(GP_RES_MIG_PREFIX)) != 0)
            continue;
        if (!qty_field(alloc, r->string, false, &count) || count > 1000)
            return false;
        slices += count * gp_score_mig_slices(NULL, r->string + strlen(GP_RES_MIG_PREFIX));
    }
    if (slices > 0) {
        in->n_mig_nodes++;
        in->mig_gpus += (slices + GP_MIG_FULL_SLICES - 1) / GP_MIG_FULL_SLICES;
    }
    return true;
}

/* Prefixes err with "items[i]". */
static void gp_err_prefix_item(gp_err *err, int i)
{
    char at[32];

    snprintf(at, sizeof(at), "items[%d]", i);
    gp_err_prefix(err, at);
}

static gp_status node_json(node_sink *s, const cJSON *item, int i, gp_err *err)
{
    const cJSON *alloc = json_path(item, "status", "allocatable");
    const cJSON *name = json_path(item, "metadata", "name");
    const cJSON *labels = json_path(item, "metadata", "labels");
    const cJSON *product = cJSON_GetObjectItemCaseSensitive(labels, GP_LABEL_GPU_PRODUCT);
    int64_t cpu, mem, gpu;
    int mid = -1;

    if (!cJSON_IsString(name) || !cJSON_IsObject(alloc) || !qty_field(alloc, "cpu", true, &cpu) ||
        !qty_field(alloc, "memory", false, &mem) ||
        !qty_field(alloc, GP_RES_GPU, false, &gpu) || gpu > GP_FRAG_MAX_GPUS ||
        !mig_gpus(s->in, alloc)) {
        gp_err_set(err, "items[%d]: want metadata.name and status.allocatable cpu, memory and "
                   "nvidia.com/gpu (0..%d), nvidia.com/mig-* (0..1000)", i, GP_FRAG_MAX_GPUS);
        return GP_EINVAL;
    }
    if (cJSON_IsString(product) &&
        model_id(&s->in->models, product->valuestring, strlen(product->valuestring), &mid, err))
        return GP_EINVAL;
    gp_status st = add_node(s, name->valuestring, cpu, mem / MIB, gpu, mid, err);
    if (st == GP_OK && (st = sim_admit_node(&s->in->admit, s->in->n_nodes - 1, item, err)))
        gp_err_prefix_item(err, i);
    return st;
}

static gp_status parse_json(const char *path, const char *buf, size_t len, cJSON **root,
                            gp_err *err)
{
    /* The length includes the NUL: cJSON wants to see it when require_null_terminated. */
    *root = cJSON_ParseWithLengthOpts(buf, len + 1, NULL, 1);
    if (!*root || !cJSON_IsArray(json_items(*root))) {
        gp_err_set(err, "%s: not a JSON list (want a List with \"items\")", path);
        cJSON_Delete(*root);
        *root = NULL;
        return GP_EINVAL;
    }
    return GP_OK;
}

/* Calls fn on each element of a List's items, in order; the first error stops it, prefixed with
 * the file's name. */
typedef gp_status (*item_fn)(void *sink, const cJSON *item, int i, gp_err *err);

static gp_status each_json_item(const char *path, const char *buf, size_t len, item_fn fn,
                                void *sink, gp_err *err)
{
    cJSON *root;
    gp_status st = parse_json(path, buf, len, &root, err);
    int i = 0;
    const cJSON *item;

    if (st)
        return st;
    cJSON_ArrayForEach(item, json_items(root))
    {
        if ((st = fn(sink, item, i++, err)) != GP_OK) {
            gp_err_prefix(err, path);
            break;
        }
    }
    cJSON_Delete(root);
    return st;
}

typedef gp_status (*csv_fn)(csv_reader *r, void *sink, gp_err *err);

/* Reads path and feeds it to sink: per List item when it is JSON, else as CSV. */
static gp_status load_file(const char *path, item_fn per_item, csv_fn csv, void *sink,
                           gp_err *err)
{
    char *buf = NULL;
    size_t len = 0;
    gp_status st = gp_file_read(path, SIM_MAX_FILE_BYTES, &buf, &len, err);

    if (st)
        return st;
    if (is_json(buf)) {
        st = each_json_item(path, buf, len, per_item, sink, err);
    } else {
        csv_reader r = { .path = path, .buf = buf, .cur = buf };
        st = csv(&r, sink, err);
    }
    free(buf);
    return st;
}

static gp_status node_item(void *sink, const cJSON *item, int i, gp_err *err)
{
    return node_json(sink, item, i, err);
}

static gp_status node_rows(csv_reader *r, void *sink, gp_err *err)
{
    return nodes_csv(r, sink, err);
}

gp_status sim_load_nodes(const char *path, sim_input *in, gp_err *err)
{
    node_sink s = { .in = in, .cap = in->n_nodes, .name_cap = in->n_nodes };
    gp_status st = load_file(path, node_item, node_rows, &s, err);

    if (st == GP_OK && in->n_nodes == 0) {
        gp_err_set(err, "%s: no nodes", path);
        st = GP_EINVAL;
    }
    return st;
}

/* ---- Tasks ---- */

typedef struct {
    sim_input *in;
    size_t cap, bound_cap, names_cap, bound_names_cap, info_cap;
} task_sink;

/* Keeps the name of the task about to be added (with in->keep_names). */
static gp_status add_name(task_sink *s, const char *name, bool bound)
{
    sim_input *in = s->in;
    char ***names = bound ? &in->bound_names : &in->task_names;
    size_t n = bound ? in->n_bound : in->n_tasks;
    char *copy;

    if (!in->keep_names)
        return GP_OK;
    if (grow((void **)names, bound ? &s->bound_names_cap : &s->names_cap, n + 1, sizeof(char *)))
        return GP_ENOMEM;
    copy = strdup(name ? name : "");
    if (copy == NULL)
        return GP_ENOMEM;
    (*names)[n] = copy;
    return GP_OK;
}

/* Adds t: bound to node bound_to, or (SIZE_MAX) a task to place, with its info. */
static gp_status add_task(task_sink *s, const gp_frag_task *t, size_t bound_to, const char *name,
                          const sim_task_info *info, gp_err *err)
{
    sim_input *in = s->in;

    if (in->n_tasks + in->n_bound >= SIM_MAX_TASKS) {
        gp_err_set(err, "more than %d tasks", SIM_MAX_TASKS);
        return GP_ETOOBIG;
    }
    if (add_name(s, name, bound_to != SIZE_MAX))
        return GP_ENOMEM;
    if (bound_to == SIZE_MAX) {
        if (grow((void **)&in->tasks, &s->cap, in->n_tasks + 1, sizeof(*in->tasks)) ||
            grow((void **)&in->task_info, &s->info_cap, in->n_tasks + 1, sizeof(*in->task_info)))
            return GP_ENOMEM;
        in->task_info[in->n_tasks] = *info;
        in->task_info[in->n_tasks].file = (uint16_t)(in->n_task_files - 1);
        in->tasks[in->n_tasks++] = *t;
        return GP_OK;
    }
    size_t c = s->bound_cap;
    if (grow((void **)&in->bound, &s->bound_cap, in->n_bound + 1, sizeof(*in->bound)) ||
        grow((void **)&in->bound_node, &c, in->n_bound + 1, sizeof(*in->bound_node)))
        return GP_ENOMEM;
    in->bound[in->n_bound] = *t;
    in->bound_node[in->n_bound++] = bound_to;
    return GP_OK;
}

/* The class of the nodes that admit a pod (NULL: a trace task), into *cls (sim/admit.h); 0 for
 * the replay, whose pools carry no labels or taints. */
static gp_status admit_class(sim_input *in, const cJSON *pod, uint8_t *cls, gp_err *err)
{
    *cls = 0;
    if (in->all_as_tasks)
        return GP_OK;
    return sim_admit_pod(&in->admit, pod, in->n_nodes, (const char *)in->node_names, SIM_NAME_LEN,
                         cls, err);
}

/* The allowed-models mask of a '|'-separated list ("" is any). */
static gp_status models_mask(gp_frag_models *m, const char *spec, uint32_t *mask, gp_err *err)
{
    *mask = 0;
    while (spec && *spec) {
        const char *bar = strchr(spec, '|');
        size_t len = bar ? (size_t)(bar - spec) : strlen(spec);
        int id;
        if (len && model_id(m, spec, len, &id, err))
            return GP_EINVAL;
        if (len)
            *mask |= 1u << id;
        spec = bar ? bar + 1 : NULL;
    }
    return GP_OK;
}

/* A CSV time cell: absent or empty is none, else whole seconds >= 0. */
static int64_t csv_time(const char *cell)
{
    int64_t v;

    if (cell == NULL || *cell == '\0')
        return SIM_TIME_NONE;
    return parse_i64(cell, 0, INT64_C(1) << 40, &v) ? v : SIM_TIME_BAD;
}

/* The trace's qos as a priority and an owner (sim/load.h): LS, its online services, are movable
 * replicas that go first; BE, its best-effort batch work, are Jobs; Burstable, Guaranteed and
 * an empty cell say neither, so they get priority 0 and no owner (not moved on scale-down). */
static void csv_qos(const char *qos, sim_task_info *info)
{
    info->priority = 0;
    info->owner = SIM_OWNER_NONE;
    if (qos && strcmp(qos, "LS") == 0) {
        info->priority = 1000;
        info->owner = SIM_OWNER_DEPLOYMENT;
    } else if (qos && strcmp(qos, "BE") == 0) {
        info->owner = SIM_OWNER_JOB;
    }
}

static sim_task_info csv_info(const csv_reader *r, const int *idx)
{
    sim_task_info info = { .created = csv_time(csv_col(r, idx[6])),
                           .ended = csv_time(csv_col(r, idx[7])), .at = (uint32_t)r->line };

    csv_qos(csv_col(r, idx[8]), &info);
    return info;
}

static gp_status tasks_csv(csv_reader *r, task_sink *s, gp_err *err)
{
    static const char *const names[] = { "name", "cpu_milli", "memory_mib", "num_gpu",
                                         "gpu_milli", "gpu_spec", "creation_time",
                                         "deletion_time", "qos" };
    int idx[9];
    gp_status st = csv_header(r, names, 9, 5, idx, err);

    while (st == GP_OK && csv_next(r)) {
        gp_frag_task t = { 0 };
        int64_t ng, gm;
        gp_err why = { { 0 } };
        if (r->ncols < 0 || !csv_col(r, idx[0]) ||
            !parse_i64(csv_col(r, idx[1]), 0, INT64_C(1) << 40, &t.cpu_milli) ||
            !parse_i64(csv_col(r, idx[2]), 0, INT64_C(1) << 40, &t.mem_mib) ||
            !parse_i64(csv_col(r, idx[3]), 0, GP_FRAG_MAX_GPUS, &ng) ||
            !parse_i64(csv_col(r, idx[4]), 0, GP_FRAG_MILLI, &gm)) {
            gp_err_set(err, "%s:%zu: bad task row (want name, cpu_milli, memory_mib, num_gpu "
                       "0..%d, gpu_milli 0..1000)", r->path, r->line, GP_FRAG_MAX_GPUS);
            return GP_EINVAL;
        }
        t.num_gpu = (int)ng;
        t.gpu_milli = (int)gm;
        if (!gp_frag_task_valid(&t, &why)) {
            gp_err_set(err, "%s:%zu: %s", r->path, r->line, why.msg);
            return GP_EINVAL;
        }
        if (models_mask(&s->in->models, csv_col(r, idx[5]), &t.models, err)) {
            gp_err_prefix(err, r->path);
            return GP_EINVAL;
        }
        sim_task_info info = csv_info(r, idx);
        st = admit_class(s->in, NULL, &info.admit, err);
        if (st == GP_OK)
            st = add_task(s, &t, SIZE_MAX, csv_col(r, idx[0]), &info, err);
    }
    return st;
}

/* The pod as a task, its effective request as the extender counts it (gp_usage_from_pod():
 * requests, limits where a request is absent; app containers and sidecars add up, an init
 * container runs beside the sidecars declared before it), through the one conversion the
 * extender's fragmentation component uses (gp_frag_task_from_usage()); and the GPU products
 * its nodeSelector and required node affinity allow (gp_pod_gpu_products(); the values are the
 * pod JSON's own strings; too many: any). False with why set when the pod cannot be read or
 * asks for more than GP_FRAG_MAX_GPUS GPUs. */
static bool pod_task(const cJSON *pod, gp_frag_task *t, gp_products *products, gp_err *why)
{
    gp_arena a;
    gp_pod p;
    gp_usage u;
    gp_status st;

    products->any = true;
    products->n = 0;
    gp_arena_init(&a, SIM_MAX_POD_ARENA);
    st = gp_pod_from_json(pod, "", &a, &p, why);
    if (st == GP_OK && !gp_pod_gpu_products(&p, products))
        products->any = true;
    if (st == GP_OK)
        st = gp_usage_from_pod(&p, &u, why);
    gp_arena_free(&a);
    if (st != GP_OK && st != GP_ETOOBIG) /* too many MIG profiles: the rest counts (no MIG here) */
        return false;
    return gp_frag_task_from_usage(&u, t);
}

static size_t node_by_name(const sim_input *in, const char *name)
{
    for (size_t i = 0; i < in->n_nodes; i++)
        if (strcmp(in->node_names[i], name) == 0)
            return i;
    return SIZE_MAX;
}

#define SIM_POD_NAME_LEN 320 /* namespace (63) / name (253) */

/* "namespace/name" (or the name alone) into buf. */
static const char *pod_name(const cJSON *pod, char *buf, size_t len)
{
    const cJSON *ns = json_path(pod, "metadata", "namespace");
    const cJSON *name = json_path(pod, "metadata", "name");
    const char *n = cJSON_IsString(name) ? name->valuestring : "";

    if (cJSON_IsString(ns) && ns->valuestring[0])
        snprintf(buf, len, "%.63s/%.253s", ns->valuestring, n);
    else
        snprintf(buf, len, "%.253s", n);
    return buf;
}

/* Pods that are finished use nothing. */
static bool pod_done(const cJSON *pod)
{
    const cJSON *phase = json_path(pod, "status", "phase");
    return cJSON_IsString(phase) &&
           (!strcmp(phase->valuestring, "Succeeded") || !strcmp(phase->valuestring, "Failed"));
}

/* A JSON time: absent is none, else RFC 3339 as Unix seconds. */
static int64_t json_time(const cJSON *v)
{
    int64_t t;

    if (v == NULL || cJSON_IsNull(v))
        return SIM_TIME_NONE;
    return cJSON_IsString(v) && sim_time_parse(v->valuestring, &t) ? t : SIM_TIME_BAD;
}

/* When the pod ended: its deletionTimestamp, else when it is finished the latest finishedAt of
 * its containers, else none (still running, or no container says). */
static int64_t pod_end(const cJSON *pod)
{
    const cJSON *del = json_path(pod, "metadata", "deletionTimestamp");
    const cJSON *cs = json_path(pod, "status", "containerStatuses"), *c;
    int64_t end = SIM_TIME_NONE;

    if (del)
        return json_time(del);
    if (!pod_done(pod) || !cJSON_IsArray(cs))
        return SIM_TIME_NONE;
    cJSON_ArrayForEach(c, cs)
    {
        const cJSON *state = json_path(c, "state", "terminated");
        int64_t t = json_time(cJSON_GetObjectItemCaseSensitive(state, "finishedAt"));
        if (t == SIM_TIME_BAD)
            return t;
        if (t != SIM_TIME_NONE && (end == SIM_TIME_NONE || t > end))
            end = t;
    }
    return end;
}

#define OWNER_DAEMONSET 255

/* The kind of the pod's controller (the ownerReference with controller: true) as a sim_owner,
 * or OWNER_DAEMONSET. Other kinds (a Node for static pods, operators' own kinds) are no
 * owner the cluster-autoscaler would move. */
static uint8_t pod_owner(const cJSON *pod)
{
    static const char *const movable[] = { "ReplicaSet", "Deployment", "StatefulSet",
                                           "ReplicationController" };
    const cJSON *refs = json_path(pod, "metadata", "ownerReferences"), *ref;

    if (!cJSON_IsArray(refs))
        return SIM_OWNER_NONE;
    cJSON_ArrayForEach(ref, refs)
    {
        const cJSON *kind = cJSON_GetObjectItemCaseSensitive(ref, "kind");
        if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ref, "controller")) ||
            !cJSON_IsString(kind))
            continue;
        for (size_t k = 0; k < sizeof(movable) / sizeof(*movable); k++)
            if (strcmp(kind->valuestring, movable[k]) == 0)
                return SIM_OWNER_DEPLOYMENT;
        if (!strcmp(kind->valuestring, "Job") || !strcmp(kind->valuestring, "CronJob"))
            return SIM_OWNER_JOB;
        if (!strcmp(kind->valuestring, "DaemonSet"))
            return OWNER_DAEMONSET;
        return SIM_OWNER_NONE;
    }
    return SIM_OWNER_NONE;
}

static sim_task_info pod_info(const cJSON *pod, int i, uint8_t owner)
{
    const cJSON *prio = json_path(pod, "spec", "priority");
    sim_task_info info = { .created = json_time(json_path(pod, "metadata", "creationTimestamp")),
                           .ended = pod_end(pod), .owner = owner == OWNER_DAEMONSET ? 0 : owner,
                           .json = true, .at = (uint32_t)i };

    if (prio && (!cJSON_IsNumber(prio) || prio->valuedouble < INT32_MIN ||
                 prio->valuedouble > INT32_MAX || prio->valuedouble != (int32_t)prio->valuedouble))
        info.bad_priority = true;
    else if (prio)
        info.priority = (int32_t)prio->valuedouble;
    return info;
}

/* The models bit of every model the nodes have, the stand-in for "none" left out. */
static uint32_t known_models(const gp_frag_models *m)
{
    uint32_t every = 0;

    for (int k = 0; k < m->n && k < GP_FRAG_MAX_MODELS; k++)
        if (strcmp(m->name[k], SIM_NO_MODEL) != 0)
            every |= 1u << k;
    return every;
}

/* The GPU models a pod of a JSON dump may use, judged by the extender filter's own rule
 * (gp_score_models_mask()): its class's gpuModels (with in->policy), its gpupack.io/gpu-models
 * annotation (comma-separated globs, '!' excludes) and the nvidia.com/gpu.product values its
 * nodeSelector and required node affinity allow (pod_task()), over the models known when it
 * loads (the nodes' or the pools'). 0 when nothing restricts it; a restriction that no known
 * model meets is the model SIM_NO_MODEL, which no node has. */
static gp_status pod_models(sim_input *in, const cJSON *pod, const gp_products *products,
                            uint32_t *mask, gp_err *err)
{
    const cJSON *ann = json_path(pod, "metadata", "annotations");
    const cJSON *models = cJSON_GetObjectItemCaseSensitive(ann, GP_ANN_GPU_MODELS);
    const cJSON *label = json_path(json_path(pod, "metadata", "labels"), GP_LABEL_CLASS, NULL);
    const char *names[GP_FRAG_MAX_MODELS + 1];
    gp_model_demand d = { .class_label = cJSON_IsString(label) ? label->valuestring : NULL,
                          .annotation = cJSON_IsString(models) ? models->valuestring : NULL,
                          .products = products->v, .nproducts = products->n,
                          .products_set = !products->any };
    int n = in->models.n < GP_FRAG_MAX_MODELS ? in->models.n : GP_FRAG_MAX_MODELS;
    uint32_t every = known_models(&in->models), unlabeled;
    int id = 0;

    for (int k = 0; k < n; k++)
        names[k] = in->models.name[k];
    names[n] = NULL; /* a GPU node without the label: does the rule let it pass? */
    if (gp_score_models_mask(&d, names, n + 1, in->policy, mask, err) != GP_OK)
        return GP_EINVAL;
    unlabeled = n < GP_FRAG_MAX_MODELS ? *mask >> n & 1u : 0;
    *mask &= every;
    if (unlabeled && *mask == every)
        *mask = 0; /* anywhere */
    else if (*mask == 0 && model_id(&in->models, SIM_NO_MODEL, strlen(SIM_NO_MODEL), &id, err))
        return GP_EINVAL;
    else if (*mask == 0)
        *mask = 1u << id;
    return GP_OK;
}

static gp_status pod_json(task_sink *s, const cJSON *pod, int i, gp_err *err)
{
    const cJSON *spec = cJSON_GetObjectItemCaseSensitive(pod, "spec");
    const cJSON *ann = json_path(pod, "metadata", "annotations");
    const cJSON *milli = cJSON_GetObjectItemCaseSensitive(ann, "gpupack.io/gpu-milli");
    const cJSON *node = cJSON_GetObjectItemCaseSensitive(spec, "nodeName");
    gp_frag_task t = { 0 };
    gp_products products;
    int64_t share = 0;
    gp_err why = { { 0 } };
    char name[SIM_POD_NAME_LEN];

    uint8_t owner = pod_owner(pod);

    if (pod_done(pod) && !s->in->keep_finished)
        return GP_OK;
    if (owner == OWNER_DAEMONSET && s->in->skip_daemonsets) {
        s->in->n_daemonset++;
        return GP_OK;
    }
    if (!cJSON_IsObject(spec) || !pod_task(pod, &t, &products, &why) ||
        (milli && (!cJSON_IsString(milli) ||
                   !parse_i64(milli->valuestring, 1, GP_FRAG_MILLI, &share)))) {
        gp_err_set(err, "items[%d]: bad pod (want spec.containers[].resources with cpu, memory, "
                   "nvidia.com/gpu 0..%d as quantity strings; annotation gpupack.io/gpu-milli "
                   "1..1000)%s%s", i, GP_FRAG_MAX_GPUS, why.msg[0] ? ": " : "", why.msg);
        return GP_EINVAL;
    }
    if (share) { /* a sharing task: one GPU, this share of it */
        t.num_gpu = 1;
        t.gpu_milli = (int)share;
    }
    if (!gp_frag_task_valid(&t, &why)) {
        gp_err_set(err, "items[%d]: %s", i, why.msg);
        return GP_EINVAL;
    }
    if (pod_models(s->in, pod, &products, &t.models, err) != GP_OK) {
        gp_err_prefix_item(err, i);
        return GP_EINVAL;
    }
    size_t at = SIZE_MAX;
    if (!s->in->all_as_tasks && cJSON_IsString(node) && node->valuestring[0]) {
        at = node_by_name(s->in, node->valuestring);
        if (at == SIZE_MAX)
            return GP_OK; /* bound to a node outside the simulated cluster */
    }
    sim_task_info info = pod_info(pod, i, owner);
    /* a bound pod stays where it is: no admission class (one per DaemonSet pod's node) */
    gp_status st = at == SIZE_MAX ? admit_class(s->in, pod, &info.admit, err) : GP_OK;
    if (st != GP_OK) {
        gp_err_prefix_item(err, i);
        return st;
    }
    return add_task(s, &t, at, pod_name(pod, name, sizeof(name)), &info, err);
}

static gp_status pod_item(void *sink, const cJSON *item, int i, gp_err *err)
{
    return pod_json(sink, item, i, err);
}

static gp_status task_rows(csv_reader *r, void *sink, gp_err *err)
{
    return tasks_csv(r, sink, err);
}

/* Keeps path for sim_input_where(). */
static gp_status add_file(sim_input *in, const char *path, gp_err *err)
{
    char **files, *copy;

    if (in->n_task_files >= UINT16_MAX) {
        gp_err_set(err, "more than %d task files", UINT16_MAX);
        return GP_EINVAL;
    }
    files = realloc(in->task_files, (in->n_task_files + 1) * sizeof(*files));
    if (files == NULL)
        return GP_ENOMEM;
    in->task_files = files;
    if ((copy = strdup(path)) == NULL)
        return GP_ENOMEM;
    files[in->n_task_files++] = copy;
    return GP_OK;
}

gp_status sim_load_tasks(const char *path, sim_input *in, gp_err *err)
{
    task_sink s = { .in = in, .cap = in->n_tasks, .bound_cap = in->n_bound,
                    .names_cap = in->n_tasks, .bound_names_cap = in->n_bound,
                    .info_cap = in->n_tasks };
    gp_status st = add_file(in, path, err);

    return st ? st : load_file(path, pod_item, task_rows, &s, err);
}

void sim_input_where(const sim_input *in, size_t task, char *buf, size_t len)
{
    const sim_task_info *info = task < in->n_tasks && in->task_info ? &in->task_info[task] : NULL;
    const char *file = info && info->file < in->n_task_files ? in->task_files[info->file] : "?";
    const char *name = in->task_names && task < in->n_tasks ? in->task_names[task] : NULL;
    int n;

    if (len == 0)
        return;
    if (info == NULL)
        n = snprintf(buf, len, "task %zu", task);
    else if (info->json)
        n = snprintf(buf, len, "%s: items[%u]", file, (unsigned)info->at);
    else
        n = snprintf(buf, len, "%s:%u", file, (unsigned)info->at);
    if (name && n >= 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, " (%s)", name);
}

void sim_input_free(sim_input *in)
{
    for (size_t i = 0; in->task_names && i < in->n_tasks; i++)
        free(in->task_names[i]);
    for (size_t i = 0; in->bound_names && i < in->n_bound; i++)
        free(in->bound_names[i]);
    for (size_t i = 0; i < in->n_task_files; i++)
        free(in->task_files[i]);
    free(in->task_files);
    free(in->task_info);
    free(in->task_names);
    free(in->bound_names);
    free(in->nodes);
    free(in->node_names);
    free(in->tasks);
    free(in->bound);
    free(in->bound_node);
    sim_admit_free(&in->admit);
    memset(in, 0, sizeof(*in));
}
