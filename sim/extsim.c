/* SPDX-License-Identifier: Apache-2.0 */
/* The simulator's `extender` scorer (extsim.h). */
#include "extsim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool sim_ext_init(sim_ext *e, const gp_policy *pol, const gp_frag_models *models,
                  const gp_frag_node *nodes, const char *const *names, size_t n)
{
    memset(e, 0, sizeof(*e));
    e->pol = pol;
    e->models = models;
    e->counting = true;
    for (int m = 0; m < models->n && m < GP_FRAG_MAX_MODELS; m++)
        e->model_names[m] = models->name[m];
    for (size_t i = 0; i < n; i++)
        if (nodes[i].model >= 0 && nodes[i].model < GP_FRAG_MAX_MODELS)
            e->model_gpus[nodes[i].model] += nodes[i].ngpu;
    e->n = n;
    e->views = calloc(n ? n : 1, sizeof(*e->views));
    e->cand = calloc(n ? n : 1, sizeof(*e->cand));
    e->cand_idx = calloc(n ? n : 1, sizeof(*e->cand_idx));
    e->parts = calloc(n ? n : 1, sizeof(*e->parts));
    if (!e->views || !e->cand || !e->cand_idx || !e->parts) {
        sim_ext_free(e);
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        gp_node *v = &e->views[i];

        snprintf(v->name, sizeof(v->name), "%s", names[i]);
        /* The view borrows the model's name; it is never passed to gp_node_clear(). */
        if (nodes[i].model >= 0 && nodes[i].model < models->n)
            v->gpu_product = (char *)models->name[nodes[i].model];
        gp_frag_to_view(&nodes[i], v);
        v->pods_alloc = INT32_MAX;
    }
    return true;
}

void sim_ext_free(sim_ext *e)
{
    free(e->views);
    free(e->cand);
    free(e->cand_idx);
    free(e->parts);
    memset(e, 0, sizeof(*e));
}

/* Counts the whole GPUs of task t under its models mask, as the cache counts a bound pod's: the
 * GPU tasks its learned mix counts (gp_frag_mix_counts()). */
static void keep(sim_ext *e, const gp_frag_task *t, int sign)
{
    gp_frag_bound elsewhere = { .next_to_gpus = false };
    gp_frag_task shape;
    size_t k = 0;

    if (!gp_frag_mix_counts(t, &elsewhere, &shape) || shape.num_gpu == 0)
        return;
    e->stale = true;
    while (k < e->nkept && e->kept[k].mask != t->models)
        k++;
    if (k == e->nkept && k == GP_FRAG_MAX_MODELS) { /* no room: free to run anywhere */
        e->any_gpus += sign * t->num_gpu;
        return;
    }
    if (k == e->nkept)
        e->kept[e->nkept++].mask = t->models;
    e->kept[k].gpus += sign * t->num_gpu;
}

void sim_ext_note(sim_ext *e, const gp_frag_task *t, int sign)
{
    if (t->num_gpu <= 0)
        return;
    e->sum_gpu += sign * t->num_gpu;
    e->sum_cpu_m += sign * t->cpu_milli;
    e->sum_mem_mib += sign * t->mem_mib;
    if (e->counting)
        keep(e, t, sign);
}

void sim_ext_count(sim_ext *e, const gp_frag_task *tasks, size_t n)
{
    e->counting = false;
    e->nkept = 0;
    e->any_gpus = 0;
    for (size_t i = 0; i < n; i++)
        keep(e, &tasks[i], 1);
}

/* The model pressure of the counted tasks (gp_score_model_pressure(), the daemon's), over the
 * simulated cluster's GPUs per model. */
static void pressure(sim_ext *e)
{
    int64_t total = e->any_gpus;
    gp_model_demand d[GP_FRAG_MAX_MODELS];
    const char *products[GP_FRAG_MAX_MODELS][GP_FRAG_MAX_MODELS];
    size_t n = 0;

    for (size_t k = 0; k < e->nkept; k++) {
        total += e->kept[k].gpus;
        if (e->kept[k].mask == 0)
            continue;
        /* A task's models as a pod states them: nvidia.com/gpu.product values. */
        memset(&d[n], 0, sizeof(d[n]));
        for (int m = 0; m < e->models->n && m < GP_FRAG_MAX_MODELS; m++)
            if (e->kept[k].mask >> m & 1u)
                products[n][d[n].nproducts++] = e->models->name[m];
        d[n].products = products[n];
        d[n].products_set = true;
        d[n++].gpus = e->kept[k].gpus;
    }
    e->has_pressure = gp_score_model_pressure(d, n, total, e->model_names, e->model_gpus,
                                              e->models->n, e->pol, e->pressure);
    e->stale = false;
}

long sim_ext_best(sim_ext *e, const gp_frag_node *nodes, const gp_frag_task *t,
                  const uint64_t *admit, const gp_frag_mix *mix, sim_rng *rng, gp_frag_pick *pick,
                  uint64_t *scored)
{
    const char *allow[GP_FRAG_MAX_MODELS];
    gp_demand d;
    gp_typical typ = { .cpu_m_per_gpu = e->pol->scoring.typical_cpu_milli_per_gpu,
                       .mem_per_gpu = e->pol->scoring.typical_memory_per_gpu,
                       .mix = mix };

    if (e->sum_gpu > 0) { /* gp_cache_typical(): the average over bound GPU pods */
        typ.cpu_m_per_gpu = e->sum_cpu_m / e->sum_gpu;
        /* (sum << 20) / n without the shift overflowing */
        typ.mem_per_gpu = ((e->sum_mem_mib / e->sum_gpu) << 20) +
                          ((e->sum_mem_mib % e->sum_gpu) << 20) / e->sum_gpu;
    }
    if (e->stale)
        pressure(e);
    if (e->has_pressure) { /* as gp_cache_pressure(): only when some pod is kept */
        typ.model_pressure = e->pressure;
        typ.models = e->model_names;
        typ.nmodels = e->models->n;
    }
    size_t k = 0;
    long best = -1;
    uint64_t ties = 0;

    memset(&d, 0, sizeof(d));
    gp_frag_task_to_usage(t, &d.usage);
    d.gpu = t->num_gpu > 0;
    for (int m = 0; m < e->models->n && t->models; m++)
        if (t->models & (1u << m))
            allow[d.nallow++] = e->models->name[m];
    d.allow_models = allow;
    for (size_t i = 0; i < e->n; i++) {
        if ((admit && !(admit[i / 64] >> (i % 64) & 1u)) || !gp_frag_fits(&nodes[i], t))
            continue;
        gp_frag_to_view(&nodes[i], &e->views[i]);
        e->cand[k] = &e->views[i];
        e->cand_idx[k++] = i;
    }
    *scored += k;
    gp_prioritize(&d, e->cand, k, e->pol, &typ, e->parts);
    for (size_t j = 0; j < k; j++) {
        const gp_score_parts *p = &e->parts[j];

        if (!p->feasible)
            continue;
        if (best < 0 || p->score > e->parts[best].score) {
            best = (long)j;
            ties = 1;
        } else if (p->score == e->parts[best].score && rng && sim_rng_below(rng, ++ties) == 0) {
            best = (long)j;
        }
    }
    if (best < 0)
        return -1;
    best = (long)e->cand_idx[best];
    return gp_frag_pick_bestfit(&nodes[best], t, pick) ? best : -1;
}
