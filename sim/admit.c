/* SPDX-License-Identifier: Apache-2.0 */
/* Node admission for the simulator's JSON dumps (sim/admit.h). */
#include "admit.h"

#include <stdlib.h>
#include <string.h>

#include "gpupack/nodematch.h"
#include "gpupack/podview.h"

#define ADMIT_POD_ARENA (4u << 20)  /* one pod's decoded view, as sim/load.c allows */
#define ADMIT_MAX_META 1024         /* labels or taints of one node */

static const cJSON *field(const cJSON *o, const char *a, const char *b)
{
    o = cJSON_GetObjectItemCaseSensitive(o, a);
    return b ? cJSON_GetObjectItemCaseSensitive(o, b) : o;
}

static gp_status node_labels(sim_admit *a, sim_node_meta *m, const cJSON *labels, gp_err *err)
{
    const cJSON *l;
    size_t n = (size_t)cJSON_GetArraySize(labels);

    if (n == 0)
        return GP_OK;
    if (!cJSON_IsObject(labels) || n > ADMIT_MAX_META) {
        gp_err_set(err, "metadata.labels: want an object of at most %d strings", ADMIT_MAX_META);
        return GP_EINVAL;
    }
    if ((m->labels = gp_arena_alloc(&a->arena, n * sizeof(*m->labels))) == NULL)
        return GP_ENOMEM;
    cJSON_ArrayForEach(l, labels)
    {
        gp_label *x = &m->labels[m->nlabels];
        if (!cJSON_IsString(l))
            continue; /* not a label value: no selector can match it */
        x->key = gp_arena_strdup(&a->arena, l->string);
        x->value = gp_arena_strdup(&a->arena, l->valuestring);
        if (!x->key || !x->value)
            return GP_ENOMEM;
        m->nlabels++;
    }
    return GP_OK;
}

/* One taint as an Equal toleration of it; false when it is not one. */
static bool taint_of(sim_admit *a, const cJSON *t, gp_toleration *out)
{
    const cJSON *key = field(t, "key", NULL), *value = field(t, "value", NULL),
                *effect = field(t, "effect", NULL);

    if (!cJSON_IsString(key) || !cJSON_IsString(effect) || (value && !cJSON_IsString(value)))
        return false;
    memset(out, 0, sizeof(*out));
    out->key = gp_arena_strdup(&a->arena, key->valuestring);
    out->op = "Equal";
    out->value = gp_arena_strdup(&a->arena, value ? value->valuestring : "");
    out->effect = gp_arena_strdup(&a->arena, effect->valuestring);
    return out->key && out->value && out->effect;
}

static gp_status node_taints(sim_admit *a, sim_node_meta *m, const cJSON *spec, gp_err *err)
{
    const cJSON *taints = field(spec, "taints", NULL), *t;
    const cJSON *cordon = field(spec, "unschedulable", NULL);
    size_t n = (size_t)cJSON_GetArraySize(taints) + 1, i = 0;

    if ((taints && !cJSON_IsArray(taints)) || n > ADMIT_MAX_META) {
        gp_err_set(err, "spec.taints: want a list of at most %d taints", ADMIT_MAX_META - 1);
        return GP_EINVAL;
    }
    if ((m->taints = gp_arena_alloc(&a->arena, n * sizeof(*m->taints))) == NULL)
        return GP_ENOMEM;
    cJSON_ArrayForEach(t, taints)
    {
        gp_toleration *x = &m->taints[m->ntaints];
        if (!taint_of(a, t, x)) {
            gp_err_set(err, "spec.taints[%zu]: want key and effect strings", i);
            return GP_EINVAL;
        }
        i++;
        /* PreferNoSchedule only scores: the filter passes it. */
        if (!strcmp(x->effect, "NoSchedule") || !strcmp(x->effect, "NoExecute"))
            m->ntaints++;
    }
    if (cJSON_IsTrue(cordon))
        m->taints[m->ntaints++] = (gp_toleration){ .key = GP_TAINT_UNSCHEDULABLE, .op = "Equal",
                                                   .value = "", .effect = "NoSchedule" };
    a->tainted |= m->ntaints > 0;
    return GP_OK;
}

gp_status sim_admit_node(sim_admit *a, size_t i, const cJSON *node, gp_err *err)
{
    sim_node_meta *m;
    gp_status st;

    if (!a->arena_on) {
        gp_arena_init(&a->arena, 0); /* the nodes' labels and taints: the file's size bounds them */
        a->arena_on = true;
    }
    if (i >= a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 1024;
        while (cap <= i)
            cap *= 2;
        sim_node_meta *p = realloc(a->node, cap * sizeof(*p));
        if (p == NULL)
            return GP_ENOMEM;
        memset(p + a->cap, 0, (cap - a->cap) * sizeof(*p));
        a->node = p;
        a->cap = cap;
    }
    m = &a->node[i];
    a->n_node = i + 1 > a->n_node ? i + 1 : a->n_node;
    st = node_labels(a, m, field(node, "metadata", "labels"), err);
    if (st == GP_OK)
        st = node_taints(a, m, field(node, "spec", NULL), err);
    if (st == GP_ENOMEM)
        gp_err_set(err, "out of memory");
    return st;
}

/* The key of a pod's class: its nodeSelector, required node affinity and, when a node is
 * tainted, tolerations, as JSON ("{}" when it has none, and for a trace task). Malloc'd; NULL
 * when out of memory. */
static char *class_key(const sim_admit *a, const cJSON *pod)
{
    const cJSON *spec = field(pod, "spec", NULL);
    const cJSON *parts[3] = {
        field(spec, "nodeSelector", NULL),
        field(field(spec, "affinity", "nodeAffinity"),
              "requiredDuringSchedulingIgnoredDuringExecution", NULL),
        a->tainted ? field(spec, "tolerations", NULL) : NULL,
    };
    static const char *const names[3] = { "s", "a", "t" };
    cJSON *o;
    char *key;

    if (pod == NULL)
        return strdup("{}");
    o = cJSON_CreateObject();

    for (int i = 0; o && i < 3; i++)
        if (parts[i] && !cJSON_AddItemReferenceToObject(o, names[i], (cJSON *)parts[i])) {
            cJSON_Delete(o);
            return NULL;
        }
    key = o ? cJSON_PrintUnformatted(o) : NULL;
    cJSON_Delete(o);
    return key;
}

/* True when the pod tolerates every taint of m. */
static bool tolerates(const gp_pod *pod, const sim_node_meta *m)
{
    for (size_t k = 0; k < m->ntaints; k++)
        if (!gp_pod_tolerates(pod, &m->taints[k]))
            return false;
    return true;
}

/* Judges every node for a new class c of pods like pod (NULL: a trace task). */
static gp_status judge(sim_admit *a, int c, const cJSON *pod, size_t n_nodes, const char *names,
                       size_t name_len, gp_err *err)
{
    static const sim_node_meta none = { 0 };
    gp_arena ar;
    gp_pod view;
    uint64_t *bits;
    gp_status st = GP_OK;

    if (a->words == 0)
        a->words = (n_nodes + 63) / 64 ? (n_nodes + 63) / 64 : 1;
    bits = realloc(a->bits, (size_t)c * a->words * sizeof(*bits));
    if (bits == NULL)
        return GP_ENOMEM;
    a->bits = bits;
    bits += (size_t)(c - 1) * a->words;
    memset(bits, 0, a->words * sizeof(*bits));
    memset(&view, 0, sizeof(view));
    gp_arena_init(&ar, ADMIT_POD_ARENA);
    if (pod)
        st = gp_pod_from_json(pod, "", &ar, &view, err);
    view.node_name = NULL; /* not in the class's key: judged as a pod yet to be placed */
    for (size_t j = 0; st == GP_OK && j < n_nodes; j++) {
        const sim_node_meta *m = j < a->n_node ? &a->node[j] : &none;
        if (tolerates(&view, m) &&
            gp_pod_may_use_node(&view, NULL, 0, names + j * name_len, m->labels, m->nlabels))
            bits[j / 64] |= UINT64_C(1) << (j % 64);
    }
    gp_arena_free(&ar);
    return st;
}

gp_status sim_admit_pod(sim_admit *a, const cJSON *pod, size_t n_nodes, const char *names,
                        size_t name_len, uint8_t *cls, gp_err *err)
{
    char *key;
    gp_status st;
    int c;

    *cls = 0;
    if ((key = class_key(a, pod)) == NULL)
        return GP_ENOMEM;
    if (!a->tainted && !strcmp(key, "{}")) {
        free(key);
        return GP_OK;
    }
    for (c = 0; c < a->n && strcmp(a->key[c], key) != 0; c++)
        ;
    if (c < a->n) {
        free(key);
        *cls = (uint8_t)(c + 1);
        return GP_OK;
    }
    if (a->n == SIM_ADMIT_MAX) {
        free(key);
        gp_err_set(err, "more than %d different combinations of nodeSelector, required node "
                   "affinity and tolerations", SIM_ADMIT_MAX);
        return GP_EINVAL;
    }
    st = judge(a, a->n + 1, pod, n_nodes, names, name_len, err);
    if (st != GP_OK) {
        free(key);
        return st;
    }
    a->key[a->n++] = key;
    *cls = (uint8_t)a->n;
    return GP_OK;
}

bool sim_admit_ok(const sim_admit *a, uint8_t cls, size_t j)
{
    if (cls == 0)
        return true;
    if (cls > a->n || j >= a->words * 64)
        return false;
    return a->bits[(size_t)(cls - 1) * a->words + j / 64] >> (j % 64) & 1u;
}

void sim_admit_free(sim_admit *a)
{
    for (int c = 0; c < a->n; c++)
        free(a->key[c]);
    free(a->bits);
    free(a->node);
    if (a->arena_on)
        gp_arena_free(&a->arena);
    memset(a, 0, sizeof(*a));
}
