/* SPDX-License-Identifier: Apache-2.0 */
/* The simulator's placement decision for one task (sim/placer.h). */
#include "placer.h"

#include <stdlib.h>
#include <string.h>

/* The mix learned from the tasks placed so far, as the extender learns it from its pod watch
 * (docs/scoring.md): the most common shapes covering 95%, at most LEARNED_MAX_SHAPES. */
#define LEARNED_POPULARITY 95
#define LEARNED_MAX_SHAPES 32

/* Counts (sign 1) or uncounts (-1) task t on node n (NULL: a bound pod whose node is not at
 * hand). */
static void learner_add(sim_learner *l, const gp_frag_task *t, const gp_frag_node *n, int sign)
{
    gp_frag_bound b = { .next_to_gpus = !n || n->ngpu > 0 };
    gp_frag_task d;

    if (!l->daemon_view)
        gp_frag_tally_add(&l->tally, t, sign);
    else if (gp_frag_mix_counts(t, &b, &d))
        gp_frag_tally_add(&l->tally, &d, sign);
}

static bool learner_init(sim_learner *l, const sim_cfg *cfg, size_t cap)
{
    memset(l, 0, sizeof(*l));
    cap += cfg->n_seen + 1;
    l->store = malloc(cap * sizeof(*l->store));
    l->scratch = malloc(cap * sizeof(*l->scratch));
    if (!l->store || !l->scratch) {
        free(l->store);
        free(l->scratch);
        return false;
    }
    gp_frag_tally_init(&l->tally, l->store, cap);
    l->daemon_view = cfg->scorer->score == NULL;
    for (size_t i = 0; i < cfg->n_seen; i++)
        learner_add(l, &cfg->seen[i], NULL, 1);
    l->fallback = gp_frag_default_shape(cfg->fallback_cpu);
    l->built = UINT64_MAX;
    l->pressure_built = UINT64_MAX;
    return true;
}

static void learner_free(sim_learner *l)
{
    free(l->store);
    free(l->scratch);
}

static const gp_frag_mix *learner_mix(sim_learner *l)
{
    if (l->built != l->tally.version) {
        l->mix.n = gp_frag_tally_mix(&l->tally, l->scratch, LEARNED_POPULARITY, LEARNED_MAX_SHAPES);
        l->mix.shapes = l->scratch;
        l->built = l->tally.version;
        if (l->mix.n == 0) {
            l->mix.n = 1;
            l->mix.shapes = &l->fallback;
        }
    }
    return &l->mix;
}

/* The mix as gpupack-extender sees it (the extender scorer): its whole-GPU shapes without model
 * constraints, renormalised, into buf (room for in->n); the fallback shape when none is left. */
static gp_frag_mix daemon_mix(const gp_frag_mix *in, gp_frag_shape *buf, gp_frag_shape *fallback)
{
    gp_frag_mix m = { 0, buf };
    gp_frag_bound next_to_gpus = { .next_to_gpus = true };
    double total = 0;

    for (size_t i = 0; i < in->n; i++) {
        if (!gp_frag_mix_counts(&in->shapes[i].shape, &next_to_gpus, &buf[m.n].shape))
            continue;
        buf[m.n].freq = in->shapes[i].freq;
        total += buf[m.n++].freq;
    }
    for (size_t i = 0; i < m.n; i++)
        buf[i].freq /= total;
    if (m.n == 0) {
        m.n = 1;
        m.shapes = fallback;
    }
    return m;
}

/* The extender scorer's views and mix. */
static bool ext_init(sim_placer *p, const gp_frag_node *nodes, size_t n, const char *const *names)
{
    const sim_cfg *cfg = p->cfg;

    p->ext_fallback = gp_frag_default_shape(cfg->fallback_cpu);
    p->ext_shapes = malloc((cfg->mix->n ? cfg->mix->n : 1) * sizeof(*p->ext_shapes));
    if (!p->ext_shapes || !sim_ext_init(&p->ext, cfg->policy, cfg->models, nodes, names, n)) {
        free(p->ext_shapes);
        return false;
    }
    for (size_t i = 0; i < cfg->n_seen; i++)
        sim_ext_note(&p->ext, &cfg->seen[i], 1);
    if (!p->learning) /* the trace's tasks, known in advance, as its mix is */
        sim_ext_count(&p->ext, cfg->tasks, cfg->n_tasks);
    p->ext_mix = daemon_mix(cfg->score_mix ? cfg->score_mix : cfg->mix, p->ext_shapes,
                            &p->ext_fallback);
    return true;
}

/* The cache for a scorer that may use one, sized to at most SIM_CACHE_MAX_BYTES; NULL when the
 * scorer may not, cfg->no_cache is set, or memory is short (it only saves time). */
static sim_cache *cache_new(const sim_cfg *cfg, size_t n)
{
    size_t per = (n ? n : 1) * (sizeof(uint32_t) + sizeof(double) + sizeof(gp_frag_pick));
    size_t slots = SIM_CACHE_MAX_BYTES / per;

    if (cfg->scorer->score == NULL || cfg->scorer->salted || cfg->learn_mix || cfg->no_cache ||
        slots == 0)
        return NULL;
    sim_cache *c = calloc(1, sizeof(*c));
    if (!c)
        return NULL;
    c->nslots = slots < SIM_CACHE_SHAPES ? slots : SIM_CACHE_SHAPES;
    c->ver = malloc((n ? n : 1) * sizeof(*c->ver));
    if (!c->ver) {
        free(c);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        c->ver[i] = 1;
    return c;
}

static void slot_free(sim_cache_slot *s)
{
    free(s->ver);
    free(s->score);
    free(s->pick);
    s->ver = NULL;
    s->score = NULL;
    s->pick = NULL;
}

static void cache_free(sim_cache *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->nslots; i++)
        slot_free(&c->slot[i]);
    free(c->ver);
    free(c);
}

/* The slot of task t (the least recently used one replaced), or NULL when out of memory. */
static sim_cache_slot *cache_slot(sim_cache *c, const gp_frag_task *t, size_t n)
{
    sim_cache_slot *old = &c->slot[0];

    c->clock++;
    for (size_t i = 0; i < c->nslots; i++) {
        sim_cache_slot *s = &c->slot[i];
        if (s->ver && gp_frag_task_same(&s->key, t)) {
            s->used = c->clock;
            return s;
        }
        if (!s->ver || (old->ver && s->used < old->used))
            old = s;
    }
    if (!old->ver) {
        old->ver = malloc((n ? n : 1) * sizeof(*old->ver));
        old->score = malloc((n ? n : 1) * sizeof(*old->score));
        old->pick = malloc((n ? n : 1) * sizeof(*old->pick));
        if (!old->ver || !old->score || !old->pick) {
            slot_free(old);
            return NULL;
        }
    }
    memset(old->ver, 0, (n ? n : 1) * sizeof(*old->ver));
    old->key = *t;
    old->used = c->clock;
    return old;
}

void sim_placer_touch(sim_placer *p, size_t i)
{
    if (p->cache && i < p->n_nodes && ++p->cache->ver[i] == 0)
        p->cache->ver[i] = 1;
}

bool sim_placer_init(sim_placer *p, const sim_cfg *cfg, const gp_frag_node *nodes, size_t n,
                     const char *const *names, size_t learn_cap)
{
    memset(p, 0, sizeof(*p));
    p->cfg = cfg;
    p->n_nodes = n;
    p->learning = cfg->learn_mix;
    p->extending = cfg->scorer->score == NULL;
    if (p->learning && !learner_init(&p->learn, cfg, learn_cap))
        return false;
    if (p->extending && !ext_init(p, nodes, n, names)) {
        if (p->learning)
            learner_free(&p->learn);
        return false;
    }
    for (size_t i = 0; i < n; i++)
        if (nodes[i].model >= 0 && nodes[i].model < GP_FRAG_MAX_MODELS)
            p->model_gpus[nodes[i].model] += nodes[i].ngpu;
    p->ctx.frag.mix = p->extending && !p->learning ? &p->ext_mix
                      : cfg->score_mix             ? cfg->score_mix
                                                   : cfg->mix;
    p->ctx.frag.model_pressure = p->pressure;
    p->ctx.ties_random = cfg->ties_random;
    p->ctx.frag.share_cost = sim_plan_cost;
    p->ctx.frag.share_arg = &p->plan;
    sim_plan_build(p->ctx.frag.mix, &p->plan);
    /* The model pressure counts every shape seen, not only the popular ones the scorers' mix
     * keeps: model-constrained shapes are rare one by one and add up (docs/simulation.md). */
    gp_frag_model_pressure(cfg->pressure_mix ? cfg->pressure_mix : p->ctx.frag.mix, p->model_gpus,
                           p->pressure);
    p->cache = cache_new(cfg, n);
    return true;
}

void sim_placer_free(sim_placer *p)
{
    cache_free(p->cache);
    if (p->extending) {
        sim_ext_free(&p->ext);
        free(p->ext_shapes);
    }
    if (p->learning)
        learner_free(&p->learn);
}

/* The mix, plan and pressure learned so far. */
static void relearn(sim_placer *p)
{
    sim_learner *l = &p->learn;

    p->ctx.frag.mix = learner_mix(l);
    sim_plan_build(p->ctx.frag.mix, &p->plan); /* packs again only when its sample changes */
    if (l->pressure_built != l->tally.version) {
        gp_frag_mix seen = { l->tally.n, l->tally.slot }; /* counts, not frequencies */
        gp_frag_model_pressure(&seen, p->model_gpus, p->pressure);
        l->pressure_built = l->tally.version;
    }
}

/* Node i's score for t by the scorer, GP_FRAG_INFEASIBLE when it cannot take it. */
static double fresh_score(const sim_placer *p, const gp_frag_node *n, const gp_frag_task *t,
                          gp_frag_pick *pick)
{
    double s = GP_FRAG_INFEASIBLE;

    pick->n = 0;
    if (gp_frag_fits(n, t))
        s = p->cfg->scorer->score(&p->ctx, n, t, pick);
    return s > GP_FRAG_INFEASIBLE ? s : GP_FRAG_INFEASIBLE;
}

/* Node i's score from the cache slot, scoring it again when it changed since. */
static double cached_score(const sim_placer *p, sim_cache_slot *c, const gp_frag_node *nodes,
                           size_t i, const gp_frag_task *t)
{
    uint32_t v = p->cache->ver[i];

    if (c->ver[i] != v) {
        c->score[i] = fresh_score(p, &nodes[i], t, &c->pick[i]);
        c->ver[i] = v;
    }
    return c->score[i];
}

/* The best node for t by the scorer: the highest score; ties go to the earlier node, or to a
 * uniformly random one of them when ties_random. -1 when none fits. */
static long best_node(const sim_placer *p, const gp_frag_node *nodes, const gp_frag_task *t,
                      sim_rng *rng, gp_frag_pick *pick, uint64_t *scored)
{
    double best = GP_FRAG_INFEASIBLE;
    long bi = -1;
    uint64_t ties = 0;
    sim_cache_slot *c = p->cache ? cache_slot(p->cache, t, p->n_nodes) : NULL;

    for (size_t i = 0; i < p->n_nodes; i++) {
        gp_frag_pick fresh;
        if (p->admit && !(p->admit[i / 64] >> (i % 64) & 1u))
            continue;
        double s = c ? cached_score(p, c, nodes, i, t) : fresh_score(p, &nodes[i], t, &fresh);
        if (s <= GP_FRAG_INFEASIBLE)
            continue;
        (*scored)++;
        if (bi < 0 || s > best) {
            best = s;
            bi = (long)i;
            ties = 1;
        } else if (s == best && p->cfg->ties_random && sim_rng_below(rng, ++ties) == 0) {
            bi = (long)i;
        } else {
            continue;
        }
        if (!c)
            *pick = fresh;
    }
    if (c && bi >= 0)
        *pick = c->pick[bi];
    return bi;
}

long sim_placer_best(sim_placer *p, const gp_frag_node *nodes, const gp_frag_task *t, sim_rng *rng,
                     gp_frag_pick *pick, uint64_t *scored)
{
    p->ctx.salt = sim_rng_next(rng);
    if (p->learning)
        relearn(p);
    if (p->extending)
        return sim_ext_best(&p->ext, nodes, t, p->admit, p->ctx.frag.mix,
                            p->cfg->ties_random ? rng : NULL, pick, scored);
    return best_node(p, nodes, t, rng, pick, scored);
}

void sim_placer_placed(sim_placer *p, const gp_frag_task *t, const gp_frag_node *n)
{
    if (p->learning)
        learner_add(&p->learn, t, n, 1);
    if (p->extending)
        sim_ext_note(&p->ext, t, 1);
}

void sim_placer_removed(sim_placer *p, const gp_frag_task *t, const gp_frag_node *n)
{
    if (p->learning)
        learner_add(&p->learn, t, n, -1);
    if (p->extending)
        sim_ext_note(&p->ext, t, -1);
}
