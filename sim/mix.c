/* SPDX-License-Identifier: Apache-2.0 */
/* The simulator's workload mix from a task list (mix.h). */
#include "mix.h"

#include <stdlib.h>

static int shape_cmp(const void *pa, const void *pb)
{
    return gp_frag_shape_cmp(&((const gp_frag_shape *)pa)->shape,
                             &((const gp_frag_shape *)pb)->shape);
}

/* Distinct shapes of the counted tasks, with their counts in freq, into out. Returns the number. */
static size_t count_shapes(const gp_frag_task *tasks, size_t n, const sim_mix_opts *o,
                           gp_frag_shape *out)
{
    size_t k = 0;

    for (size_t i = 0; i < n; i++) {
        if (!o->cpu_tasks && tasks[i].num_gpu == 0)
            continue;
        out[k].shape = tasks[i];
        out[k].shape.mem_mib = 0;
        out[k].freq = 1;
        if (tasks[i].gpu_milli == GP_FRAG_MILLI)
            out[k].freq += o->gpu_weight * tasks[i].num_gpu;
        k++;
    }
    if (k == 0)
        return 0;
    qsort(out, k, sizeof(*out), shape_cmp);
    size_t m = 0;
    for (size_t i = 0; i < k; i++) {
        if (m > 0 && gp_frag_shape_cmp(&out[m - 1].shape, &out[i].shape) == 0)
            out[m - 1].freq += out[i].freq;
        else
            out[m++] = out[i];
    }
    return m;
}

gp_status sim_mix_build(const gp_frag_task *tasks, size_t n, const sim_mix_opts *opts,
                        gp_frag_mix *out, gp_err *err)
{
    gp_frag_shape *sc = n ? malloc(n * sizeof(*sc)) : NULL;

    out->n = 0;
    out->shapes = NULL;
    if (n && !sc)
        return GP_ENOMEM;
    size_t m = count_shapes(tasks, n, opts, sc);
    if (m == 0) {
        free(sc);
        gp_err_set(err, "no task to learn the workload mix from");
        return GP_EINVAL;
    }
    out->n = gp_frag_mix_select(sc, m, opts->popularity_pct, m);
    out->shapes = sc; /* n entries held, the first out->n used */
    return GP_OK;
}

void sim_mix_free(gp_frag_mix *m)
{
    if (!m)
        return;
    free(m->shapes);
    m->shapes = NULL;
    m->n = 0;
}
