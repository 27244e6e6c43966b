/* SPDX-License-Identifier: Apache-2.0 */
/* gpupack-sim --replay's output (sim/replayout.h). */
#include "replayout.h"

#include "stats.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void sim_replay_json(gp_strbuf *out, const sim_replay_meta *m, const sim_replay_run *r)
{
    const sim_replay_result *x = r->res;

    gp_strbuf_puts(out, "{\"scorer\":");
    gp_strbuf_json_string(out, r->scorer);
    gp_strbuf_printf(out, ",\"seed\":%llu,", (unsigned long long)r->seed);
    if (m->label) {
        gp_strbuf_puts(out, "\"label\":");
        gp_strbuf_json_string(out, m->label);
        gp_strbuf_puts(out, ",");
    }
    gp_strbuf_printf(out, "\"scale_down\":\"%s\",\"ties\":\"%s\",", m->mode, m->ties);
    gp_strbuf_printf(out,
                     "\"gpu_node_hours\":%.4f,\"node_hours\":%.4f,\"dollars\":%.4f,"
                     "\"dollars_per_gpu_hour\":%.4f,\"gpu_hours_allocated\":%.4f,"
                     "\"mean_gpu_allocation\":%.6f,",
                     x->gpu_node_hours, x->node_hours, x->dollars, x->dollars_per_gpu_hour,
                     x->gpu_hours_alloc, x->mean_gpu_alloc);
    gp_strbuf_printf(out,
                     "\"pending_p50_seconds\":%.1f,\"pending_p99_seconds\":%.1f,"
                     "\"pending_mean_seconds\":%.2f,\"pods\":%zu,\"never_placed\":%zu,"
                     "\"evictions\":%zu,\"peak_nodes\":%d,\"node_scores\":%llu,\"seconds\":%.3f,"
                     "\"pools\":[",
                     x->pending_p50_s, x->pending_p99_s, x->pending_mean_s, x->pods,
                     x->never_placed, x->evictions, x->peak_nodes,
                     (unsigned long long)x->node_scores, x->seconds);
    for (size_t p = 0; p < m->n_pools; p++) {
        const sim_pool_result *pr = &x->pools[p];
        gp_strbuf_puts(out, p ? ",{\"name\":" : "{\"name\":");
        gp_strbuf_json_string(out, m->pools[p].name);
        gp_strbuf_printf(out,
                         ",\"node_hours\":%.4f,\"dollars\":%.4f,\"mean_gpu_allocation\":%.6f,"
                         "\"peak_nodes\":%d,\"nodes_added\":%zu,\"nodes_removed\":%zu}",
                         pr->node_s / 3600, pr->dollars,
                         pr->gpu_up_s > 0 ? pr->gpu_alloc_s / pr->gpu_up_s : 0, pr->peak_nodes,
                         pr->scale_ups, pr->removals);
    }
    gp_strbuf_puts(out, "]}\n");
}

enum { F_GNH, F_USD, F_USD_GH, F_ALLOC, F_P50, F_P99, F_NEVER, F_PEAK, F_EVICT, NF };

static double field(const sim_replay_result *r, int f)
{
    switch (f) {
    case F_GNH: return r->gpu_node_hours;
    case F_USD: return r->dollars;
    case F_USD_GH: return r->dollars_per_gpu_hour;
    case F_ALLOC: return 100 * r->mean_gpu_alloc;
    case F_P50: return r->pending_p50_s;
    case F_P99: return r->pending_p99_s;
    case F_NEVER: return (double)r->never_placed;
    case F_PEAK: return r->peak_nodes;
    default: return (double)r->evictions;
    }
}

static void stats(const sim_replay_run *runs, size_t n_seeds, sim_stat out[NF])
{
    memset(out, 0, NF * sizeof(*out));
    for (size_t k = 0; k < n_seeds; k++)
        for (int f = 0; f < NF; f++)
            sim_stat_add(&out[f], field(runs[k].res, f));
}

static const char *const heads[NF] = {
    "GPU node-h",   "$",          "$/GPU-h", "GPU alloc %", "pending p50 s", "pending p99 s",
    "never placed", "peak nodes", "moved"
};
static const int decimals[NF] = { 1, 0, 2, 1, 0, 0, 1, 1, 1 };

static void cell(gp_strbuf *out, const sim_stat *a, int f, bool md, size_t n_seeds)
{
    char buf[64];

    if (n_seeds > 1)
        snprintf(buf, sizeof(buf), "%.*f ± %.*f", decimals[f], sim_stat_mean(a), decimals[f],
                 sim_stat_sd(a));
    else /* one seed: counts are whole */
        snprintf(buf, sizeof(buf), "%.*f", f >= F_NEVER ? 0 : decimals[f], sim_stat_mean(a));
    gp_strbuf_printf(out, md ? " %s |" : " %16s", buf);
}

/* The baseline the differences are taken from: kube-stock (kube-scheduler unconfigured) when it
 * ran, else kube-default; -1 when neither did. */
static long baseline(const sim_replay_run *runs, size_t n_scorers, size_t n_seeds)
{
    static const char *const names[] = { "kube-stock", "kube-default" };

    for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
        for (size_t s = 0; s < n_scorers; s++)
            if (!strcmp(runs[s * n_seeds].scorer, names[k]))
                return (long)s;
    return -1;
}

static void diff_cells(gp_strbuf *out, const sim_stat *a, const sim_stat *base, int f, bool md)
{
    char buf[64];
    double d = sim_stat_mean(a) - sim_stat_mean(base),
           pct = sim_stat_mean(base) > 0 ? 100 * d / sim_stat_mean(base) : 0;

    snprintf(buf, sizeof(buf), "%+.*f (%+.1f%%)", decimals[f], d, pct);
    gp_strbuf_printf(out, md ? " %s |" : " %20s", buf);
}

/* base: the baseline's name, NULL for no difference columns. */
static void header(gp_strbuf *out, bool md, const char *base)
{
    bool with_diff = base != NULL;

    gp_strbuf_puts(out, md ? "| scorer |" : "scorer            ");
    for (int f = 0; f < NF; f++)
        gp_strbuf_printf(out, md ? " %s |" : " %16s", heads[f]);
    if (with_diff) {
        char gnh[64], usd[64];
        snprintf(gnh, sizeof(gnh), "node-h vs %s", base);
        snprintf(usd, sizeof(usd), "$ vs %s", base);
        gp_strbuf_printf(out, md ? " %s | %s |" : " %20s %20s", gnh, usd);
    }
    gp_strbuf_puts(out, "\n");
    if (!md)
        return;
    gp_strbuf_puts(out, "|---|");
    for (int f = 0; f < NF + 2 * with_diff; f++)
        gp_strbuf_puts(out, "---|");
    gp_strbuf_puts(out, "\n");
}

static void pools_table(gp_strbuf *out, const sim_replay_meta *m, const sim_replay_run *runs,
                        size_t n_scorers, size_t n_seeds, bool md)
{
    gp_strbuf_puts(
        out, md ? "\nPer pool (node-hours / $ / peak nodes, means over the seeds):\n\n| pool |"
                : "\nper pool: node-hours / $ / peak nodes (means)\npool                      ");
    for (size_t s = 0; s < n_scorers; s++)
        gp_strbuf_printf(out, md ? " %s |" : " %24s", runs[s * n_seeds].scorer);
    gp_strbuf_puts(out, "\n");
    if (md) {
        gp_strbuf_puts(out, "|---|");
        for (size_t s = 0; s < n_scorers; s++)
            gp_strbuf_puts(out, "---|");
        gp_strbuf_puts(out, "\n");
    }
    for (size_t p = 0; p < m->n_pools; p++) {
        gp_strbuf_printf(out, md ? "| %s |" : "%-26s", m->pools[p].name);
        for (size_t s = 0; s < n_scorers; s++) {
            sim_stat h = { 0 }, d = { 0 }, pk = { 0 };
            char buf[80];
            for (size_t k = 0; k < n_seeds; k++) {
                const sim_pool_result *pr = &runs[s * n_seeds + k].res->pools[p];
                sim_stat_add(&h, pr->node_s / 3600);
                sim_stat_add(&d, pr->dollars);
                sim_stat_add(&pk, pr->peak_nodes);
            }
            snprintf(buf, sizeof(buf), "%.1f / %.0f / %.0f", sim_stat_mean(&h), sim_stat_mean(&d),
                     sim_stat_mean(&pk));
            gp_strbuf_printf(out, md ? " %s |" : " %24s", buf);
        }
        gp_strbuf_puts(out, "\n");
    }
}

void sim_replay_table(gp_strbuf *out, const sim_replay_meta *m, const sim_replay_run *runs,
                      size_t n_scorers, size_t n_seeds, bool markdown)
{
    long base = baseline(runs, n_scorers, n_seeds);
    sim_stat b[NF];

    if (!markdown)
        gp_strbuf_printf(out, "%zu pools, %s, %zu pods, scale-down %s, ties %s, %zu seed(s)%s%s\n",
                         m->n_pools, m->workload, m->jobs, m->mode, m->ties, n_seeds,
                         m->label ? ", " : "", m->label ? m->label : "");
    header(out, markdown, base >= 0 ? runs[(size_t)base * n_seeds].scorer : NULL);
    if (base >= 0)
        stats(&runs[(size_t)base * n_seeds], n_seeds, b);
    for (size_t s = 0; s < n_scorers; s++) {
        sim_stat a[NF];
        stats(&runs[s * n_seeds], n_seeds, a);
        gp_strbuf_printf(out, markdown ? "| %s |" : "%-18s", runs[s * n_seeds].scorer);
        for (int f = 0; f < NF; f++)
            cell(out, &a[f], f, markdown, n_seeds);
        if (base >= 0) {
            diff_cells(out, &a[F_GNH], &b[F_GNH], F_GNH, markdown);
            diff_cells(out, &a[F_USD], &b[F_USD], F_USD, markdown);
        }
        gp_strbuf_puts(out, "\n");
    }
    pools_table(out, m, runs, n_scorers, n_seeds, markdown);
}
