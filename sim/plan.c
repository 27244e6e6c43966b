/* SPDX-License-Identifier: Apache-2.0 */
/* The simulator's plan for sharing work (plan.h). */
#include "plan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PLAN_WORDS ((GP_FRAG_MILLI + 1 + 63) / 64) /* a set of sums 0..1000 */

/* The sample: the mix's sharing sizes (in mix order, the commonest first, up to
 * SIM_PLAN_MAX_SIZES), each with round(its share of the sharing tasks x SIM_PLAN_SAMPLE)
 * copies and at least one, largest size first. Returns the number of sizes. */
static size_t plan_sample(const gp_frag_mix *mix, int32_t *size, int32_t *copies)
{
    double f[SIM_PLAN_MAX_SIZES], total = 0;
    size_t n = 0;

    for (size_t i = 0; mix && i < mix->n; i++) {
        const gp_frag_task *t = &mix->shapes[i].shape;
        size_t k = 0;

        if (!gp_frag_task_is_share(t) || t->gpu_milli <= 0 || mix->shapes[i].freq <= 0)
            continue;
        while (k < n && size[k] != t->gpu_milli)
            k++;
        if (k == n) {
            if (n == SIM_PLAN_MAX_SIZES)
                continue;
            size[n] = t->gpu_milli;
            f[n++] = 0;
        }
        f[k] += mix->shapes[i].freq;
        total += mix->shapes[i].freq;
    }
    for (size_t i = 0; i < n; i++) {
        double c = floor(f[i] / total * SIM_PLAN_SAMPLE + 0.5);
        copies[i] = c < 1 ? 1 : (int32_t)c;
    }
    for (size_t i = 1; i < n; i++) /* insertion sort, largest size first */
        for (size_t j = i; j > 0 && size[j - 1] < size[j]; j--) {
            int32_t ts = size[j], tc = copies[j];
            size[j] = size[j - 1];
            copies[j] = copies[j - 1];
            size[j - 1] = ts;
            copies[j - 1] = tc;
        }
    return n;
}

/* sums |= sums shifted up by k (sums above 1000 drop out). */
static void sums_add(uint64_t *sums, int32_t k)
{
    uint64_t out[PLAN_WORDS] = { 0 };

    for (int w = PLAN_WORDS - 1; w >= 0; w--) {
        int src = w - k / 64, bit = k % 64;
        uint64_t v = 0;

        if (src >= 0)
            v = sums[src] << bit;
        if (bit && src - 1 >= 0)
            v |= sums[src - 1] >> (64 - bit);
        out[w] = v;
    }
    for (int w = 0; w < PLAN_WORDS; w++)
        sums[w] |= out[w];
    sums[PLAN_WORDS - 1] &= (1ull << ((GP_FRAG_MILLI + 1) % 64)) - 1;
}

/* Marks in p what one packed GPU allows: each of its sizes may join every sum of the others. */
static void plan_mark(sim_plan *p, const int32_t *size, size_t n, const int32_t *count)
{
    for (size_t s = 0; s < n; s++) {
        uint64_t sums[PLAN_WORDS] = { 1 }; /* the empty sum */

        if (count[s] == 0)
            continue;
        for (size_t k = 0; k < n; k++)
            for (int32_t c = k == s ? 1 : 0; c < count[k]; c++)
                sums_add(sums, size[k]);
        for (int u = 0; u <= GP_FRAG_MILLI; u++)
            if (sums[u / 64] >> (u % 64) & 1u)
                p->good[size[s] / 10][u / 10 / 8] |= (uint8_t)(1u << (u / 10 % 8));
    }
}

bool sim_plan_build(const gp_frag_mix *mix, sim_plan *p)
{
    int32_t size[SIM_PLAN_MAX_SIZES], copies[SIM_PLAN_MAX_SIZES];
    size_t n = plan_sample(mix, size, copies), items = 0;

    if (n == p->nsizes && memcmp(size, p->size, n * sizeof(*size)) == 0 &&
        memcmp(copies, p->copies, n * sizeof(*copies)) == 0)
        return false;
    memset(p, 0, sizeof(*p));
    p->nsizes = n;
    memcpy(p->size, size, n * sizeof(*size));
    memcpy(p->copies, copies, n * sizeof(*copies));
    for (size_t i = 0; i < n; i++)
        items += (size_t)copies[i];
    /* First fit decreasing: the sizes come largest first. A GPU's content is a count per size. */
    int32_t *used = calloc(items ? items : 1, sizeof(*used));
    int32_t *count = calloc((items ? items : 1) * (n ? n : 1), sizeof(*count));
    size_t gpus = 0;
    if (!used || !count) { /* no plan (nothing is off it) until a later call packs again */
        free(used);
        free(count);
        p->nsizes = 0;
        return true;
    }
    for (size_t i = 0; i < n; i++) {
        for (int32_t c = 0; c < copies[i]; c++) {
            size_t g = 0;
            while (g < gpus && used[g] + size[i] > GP_FRAG_MILLI)
                g++;
            gpus += g == gpus;
            used[g] += size[i];
            count[g * n + i]++;
        }
        p->known[size[i] / 10 / 8] |= (uint8_t)(1u << (size[i] / 10 % 8));
    }
    for (size_t g = 0; g < gpus; g++) /* first fit fills alike GPUs one after another */
        if (g == 0 || memcmp(&count[g * n], &count[(g - 1) * n], n * sizeof(*count)) != 0)
            plan_mark(p, size, n, &count[g * n]);
    p->any = n > 0;
    free(used);
    free(count);
    return true;
}

bool sim_plan_fits(const sim_plan *p, int32_t share, int32_t taken)
{
    if (p == NULL || !p->any || taken <= 0 || share <= 0 || share >= GP_FRAG_MILLI)
        return true;
    if (taken > GP_FRAG_MILLI)
        taken = GP_FRAG_MILLI;
    int s = share / 10, u = taken / 10;
    if (!(p->known[s / 8] >> (s % 8) & 1u))
        return true;
    return p->good[s][u / 8] >> (u % 8) & 1u;
}
double sim_plan_cost(const void *arg, int32_t share, int32_t taken)
{
    return sim_plan_fits(arg, share, taken) ? 0 : SIM_PLAN_PENALTY;
}
