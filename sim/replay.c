/* SPDX-License-Identifier: Apache-2.0 */
/* The time replay with an autoscaler (sim/replay.h, docs/simulation.md). */
#include "replay.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pendq.h"
#include "placer.h"
#include "rng.h"

#define MAX_EMPTY_BULK 10 /* cluster-autoscaler's --max-empty-bulk-delete */
#define MAX_DRAIN 1       /* cluster-autoscaler's --max-drain-parallelism */

enum { SLOT_DOWN, SLOT_PROV, SLOT_UP };
enum { JOB_WAIT, JOB_PEND, JOB_RUN, JOB_DONE };
enum { EV_DEPART, EV_READY };

typedef struct {
    int64_t t;
    uint32_t kind, id;
} event;

typedef struct {
    const sim_replay_cfg *cfg;
    sim_replay_result *res;
    /* Node slots: pool p owns [off[p], off[p] + max_nodes); a slot that is not up
   * is a node no task fits (cpu_free -1), so the scorers and the extender's
   * views skip it. */
    size_t n_slots;
    size_t off[SIM_MAX_POOLS];
    gp_frag_node *nodes, *scratch;
    uint8_t *state, *dirty_mark;
    uint16_t *pool_of;
    int64_t *ready_t, *since;
    int32_t *npods;
    long *head;
    char (*names)[SIM_POOL_NAME_LEN + 16];
    const char **name_ptr;
    int up[SIM_MAX_POOLS], prov[SIM_MAX_POOLS];
    int64_t alloc_milli[SIM_MAX_POOLS];
    /* Jobs. */
    uint8_t *jstate;
    int32_t *jnode;
    long *jnext, *jprev;
    gp_frag_pick *jpick;
    int64_t *jend;
    size_t next_job;
    /* The pending queue (sim/pendq.h); waiting[j] while job j is in it; live_pend of them. */
    sim_pendq pq;
    uint8_t *waiting;
    size_t live_pend;
    bool pq_ok;
    size_t *undo_j; /* jobs moved for a while by find_unneeded() */
    /* Events. */
    event *heap;
    size_t nheap, capheap;
    size_t *dirty, ndirty;
    /* Pending time of the pods arriving in the window. */
    double *waits;
    size_t nwaits;
    int64_t t_last, last_add;
    int64_t end;   /* cfg->end_s, or when the work is over (cfg->end_s 0) */
    size_t cap_samples;
    bool changed, oom, placer_ok;
    sim_placer pl;
    sim_rng rng;
} replay;

double sim_pool_price(const sim_pool *p)
{
    return p->use_spot ? p->spot : p->on_demand;
}

void sim_replay_defaults(sim_replay_cfg *c)
{
    memset(c, 0, sizeof(*c));
    c->unneeded_s = 600;
    c->util_threshold = 0.5;
    c->scan_s = 10;
    c->delay_after_add_s = 600;
    c->max_candidates = 30;
    c->min_bill_s = 60;
}

void sim_replay_result_free(sim_replay_result *r)
{
    free(r->nodes_up);
    free(r->gpus_alloc);
    free(r->pending);
    r->nodes_up = NULL;
    r->gpus_alloc = NULL;
    r->pending = NULL;
}

static gp_frag_node empty_of(const sim_pool *p, uint32_t id)
{
    gp_frag_node n;

    gp_frag_node_init(&n, id, p->node.cpu_cap, p->node.mem_cap, p->node.ngpu, p->node.model);
    return n;
}

long sim_replay_unplaceable(const sim_pool *pools, size_t n_pools, const sim_job *jobs,
                            size_t n_jobs)
{
    for (size_t j = 0; j < n_jobs; j++) {
        bool ok = false;
        for (size_t p = 0; p < n_pools && !ok; p++) {
            gp_frag_node n = empty_of(&pools[p], 0);
            ok = gp_frag_fits(&n, &jobs[j].task);
        }
        if (!ok)
            return (long)j;
    }
    return -1;
}

/* ---- Events: a binary heap ordered by time, then departures before nodes
 * becoming ready ---- */

static bool ev_less(const event *a, const event *b)
{
    return a->t != b->t ? a->t < b->t : a->kind < b->kind;
}

static bool ev_push(replay *r, int64_t t, uint32_t kind, uint32_t id)
{
    if (r->nheap == r->capheap) {
        size_t cap = r->capheap ? r->capheap * 2 : 1024;
        event *h = realloc(r->heap, cap * sizeof(*h));
        if (!h)
            return false;
        r->heap = h;
        r->capheap = cap;
    }
    size_t i = r->nheap++;
    r->heap[i] = (event){ t, kind, id };
    while (i > 0 && ev_less(&r->heap[i], &r->heap[(i - 1) / 2])) {
        event tmp = r->heap[i];
        r->heap[i] = r->heap[(i - 1) / 2];
        r->heap[(i - 1) / 2] = tmp;
        i = (i - 1) / 2;
    }
    return true;
}

static event ev_pop(replay *r)
{
    event top = r->heap[0];
    r->heap[0] = r->heap[--r->nheap];
    for (size_t i = 0;;) {
        size_t l = 2 * i + 1, m = i;
        if (l < r->nheap && ev_less(&r->heap[l], &r->heap[m]))
            m = l;
        if (l + 1 < r->nheap && ev_less(&r->heap[l + 1], &r->heap[m]))
            m = l + 1;
        if (m == i)
            break;
        event tmp = r->heap[i];
        r->heap[i] = r->heap[m];
        r->heap[m] = tmp;
        i = m;
    }
    return top;
}

/* ---- Accounting ---- */

/* Integrates the pools' state over [t_last, t) inside the measured window. */
static void account(replay *r, int64_t t)
{
    const sim_replay_cfg *c = r->cfg;
    int64_t a = r->t_last > c->measure_from_s ? r->t_last : c->measure_from_s;
    int64_t b = t < r->end ? t : r->end;

    r->t_last = t;
    if (b <= a)
        return;
    double dt = (double)(b - a);
    int total = 0;
    for (size_t p = 0; p < c->n_pools; p++) {
        sim_pool_result *pr = &r->res->pools[p];
        const sim_pool *pool = &c->pools[p];
        pr->node_s += r->up[p] * dt;
        pr->dollars += r->up[p] * dt * sim_pool_price(pool) / 3600.0;
        pr->gpu_alloc_s += (double)r->alloc_milli[p] / GP_FRAG_MILLI * dt;
        pr->gpu_up_s += (double)r->up[p] * pool->node.ngpu * dt;
        if (r->up[p] > pr->peak_nodes)
            pr->peak_nodes = r->up[p];
        total += r->up[p];
    }
    if (total > r->res->peak_nodes)
        r->res->peak_nodes = total;
}

/* ---- Nodes ---- */

static void mark_dirty(replay *r, size_t s)
{
    if (!r->dirty_mark[s]) {
        r->dirty_mark[s] = 1;
        r->dirty[r->ndirty++] = s;
    }
}

static void slot_down(replay *r, size_t s)
{
    gp_frag_node *n = &r->nodes[s];

    n->cpu_free = -1;
    n->mem_free = -1;
    for (int i = 0; i < n->ngpu; i++)
        n->gpu_free[i] = 0;
    r->state[s] = SLOT_DOWN;
    sim_placer_touch(&r->pl, s);
}

static void node_ready(replay *r, size_t s, int64_t t)
{
    size_t p = r->pool_of[s];

    r->nodes[s] = empty_of(&r->cfg->pools[p], (uint32_t)s);
    sim_placer_touch(&r->pl, s);
    r->state[s] = SLOT_UP;
    r->ready_t[s] = t;
    r->since[s] = r->cfg->down == SIM_DOWN_EMPTY ? t : -1;
    r->prov[p]--;
    r->up[p]++;
    r->changed = true;
    mark_dirty(r, s);
}

/* A DOWN slot of pool p, or SIZE_MAX. */
static size_t free_slot(const replay *r, size_t p)
{
    for (size_t s = r->off[p]; s < r->off[p] + (size_t)r->cfg->pools[p].max_nodes; s++)
        if (r->state[s] == SLOT_DOWN)
            return s;
    return SIZE_MAX;
}

static void remove_node(replay *r, size_t s, int64_t t)
{
    const sim_replay_cfg *c = r->cfg;
    size_t p = r->pool_of[s];
    int64_t life = t - r->ready_t[s];

    if (life < c->min_bill_s && r->ready_t[s] >= c->measure_from_s && t <= r->end) {
        int64_t left = r->end - t; /* the minimum is billed inside the window too */
        double extra = (double)(c->min_bill_s - life < left ? c->min_bill_s - life : left);
        r->res->pools[p].node_s += extra;
        r->res->pools[p].dollars += extra * sim_pool_price(&c->pools[p]) / 3600.0;
    }
    slot_down(r, s);
    r->up[p]--;
    r->res->pools[p].removals++;
    r->since[s] = -1;
    r->changed = true;
}

/* ---- Pods ---- */

static void attach(replay *r, size_t j, size_t s, const gp_frag_pick *pick, int64_t t)
{
    const sim_job *job = &r->cfg->jobs[j];
    size_t p = r->pool_of[s];

    sim_placer_touch(&r->pl, s);
    r->jstate[j] = JOB_RUN;
    r->jnode[j] = (int32_t)s;
    r->jpick[j] = *pick;
    r->jprev[j] = -1;
    r->jnext[j] = r->head[s];
    if (r->head[s] >= 0)
        r->jprev[r->head[s]] = (long)j;
    r->head[s] = (long)j;
    r->npods[s]++;
    r->alloc_milli[p] += gp_frag_task_gpu_total(&job->task);
    if (r->cfg->down == SIM_DOWN_EMPTY)
        r->since[s] = -1;
    r->changed = true;
    sim_placer_placed(&r->pl, &job->task, &r->nodes[s]);
    if (r->jend[j] >= 0)
        return; /* placed again after an eviction: it keeps its end */
    r->jend[j] = job->duration > INT64_MAX - t ? INT64_MAX : t + job->duration;
    if (r->jend[j] < r->end && !ev_push(r, r->jend[j], EV_DEPART, (uint32_t)j))
        r->oom = true;
    if (job->arrive >= r->cfg->measure_from_s && job->arrive < r->end)
        r->waits[r->nwaits++] = (double)(t - job->arrive);
}

static void detach(replay *r, size_t j, int64_t t)
{
    size_t s = (size_t)r->jnode[j];
    size_t p = r->pool_of[s];
    const gp_frag_task *task = &r->cfg->jobs[j].task;

    (void)gp_frag_release(&r->nodes[s], task, &r->jpick[j]);
    sim_placer_touch(&r->pl, s);
    sim_placer_removed(&r->pl, task, &r->nodes[s]);
    if (r->jprev[j] >= 0)
        r->jnext[r->jprev[j]] = r->jnext[j];
    else
        r->head[s] = r->jnext[j];
    if (r->jnext[j] >= 0)
        r->jprev[r->jnext[j]] = r->jprev[j];
    r->npods[s]--;
    r->alloc_milli[p] -= gp_frag_task_gpu_total(task);
    r->jnode[j] = -1;
    if (r->npods[s] == 0 && r->cfg->down == SIM_DOWN_EMPTY)
        r->since[s] = t;
    r->changed = true;
    mark_dirty(r, s);
}

/* Places job j where the scorer says; false when no node can take it. */
static bool try_place(replay *r, size_t j, int64_t t)
{
    const gp_frag_task *task = &r->cfg->jobs[j].task;
    gp_frag_pick pick = { 0 };
    long s = sim_placer_best(&r->pl, r->nodes, task, &r->rng, &pick, &r->res->node_scores);

    if (s < 0 || !gp_frag_apply(&r->nodes[s], task, &pick))
        return false;
    attach(r, j, (size_t)s, &pick, t);
    return true;
}

/* ---- The pending queue ---- */

static void enqueue(replay *r, size_t j)
{
    r->jstate[j] = JOB_PEND;
    r->waiting[j] = 1;
    r->live_pend++;
    if (!sim_pendq_push(&r->pq, j))
        r->oom = true;
}

/* Job j leaves the queue (placed, or its duration ended while it waited). */
static void unqueue(replay *r, size_t j)
{
    r->waiting[j] = 0;
    r->live_pend--;
}

static bool fits_dirty(const replay *r, const gp_frag_task *t)
{
    for (size_t i = 0; i < r->ndirty; i++)
        if (r->state[r->dirty[i]] == SLOT_UP && gp_frag_fits(&r->nodes[r->dirty[i]], t))
            return true;
    return false;
}

/* Step 3: the pending pods, in order, on the nodes that gained room. When a pod of a shape fits
 * none of them, no later pod of that shape (and priority) does: the pass drops the shape. */
static void retry_pending(replay *r, int64_t t)
{
    long j;

    if (r->ndirty > 0 && r->live_pend > 0) {
        sim_pendq_begin(&r->pq, true);
        while ((j = sim_pendq_next(&r->pq)) >= 0) {
            const gp_frag_task *task = &r->cfg->jobs[j].task;
            if (fits_dirty(r, task) && try_place(r, (size_t)j, t)) {
                unqueue(r, (size_t)j);
                sim_pendq_taken(&r->pq);
            } else {
                sim_pendq_drop(&r->pq);
            }
        }
    }
    for (size_t i = 0; i < r->ndirty; i++)
        r->dirty_mark[r->dirty[i]] = 0;
    r->ndirty = 0;
}

static void arrive(replay *r, size_t j, int64_t t)
{
    if (!try_place(r, j, t))
        enqueue(r, j);
}

static void depart(replay *r, size_t j, int64_t t)
{
    if (r->jstate[j] == JOB_RUN)
        detach(r, j, t);
    else if (r->jstate[j] == JOB_PEND) /* the queue drops it when it passes it */
        unqueue(r, j);
    r->jstate[j] = JOB_DONE;
}

/* ---- Scale-up ---- */

/* First fit of task onto v[0..*nv) (opening a new one of pool p while *nv <
 * room). */
static bool fit_virtual(const sim_pool *p, gp_frag_node *v, size_t *nv, size_t room,
                        const gp_frag_task *t)
{
    gp_frag_pick pick;

    for (size_t i = 0; i < *nv; i++)
        if (gp_frag_fits(&v[i], t) && gp_frag_pick_bestfit(&v[i], t, &pick) &&
            gp_frag_apply(&v[i], t, &pick))
            return true;
    if (*nv >= room)
        return false;
    v[*nv] = empty_of(p, 0);
    if (!gp_frag_fits(&v[*nv], t) || !gp_frag_pick_bestfit(&v[*nv], t, &pick) ||
        !gp_frag_apply(&v[*nv], t, &pick))
        return false;
    (*nv)++;
    return true;
}

/* The pending pods the nodes being provisioned will not hold, into out (their
 * job indices). */
static size_t unhelped(replay *r, size_t *out)
{
    size_t nv = 0, k = 0;
    gp_frag_pick pick;

    for (size_t s = 0; s < r->n_slots; s++)
        if (r->state[s] == SLOT_PROV)
            r->scratch[nv++] = empty_of(&r->cfg->pools[r->pool_of[s]], (uint32_t)s);
    long j;

    sim_pendq_begin(&r->pq, false);
    while ((j = sim_pendq_next(&r->pq)) >= 0) {
        const gp_frag_task *t = &r->cfg->jobs[j].task;
        bool held = false;
        for (size_t v = 0; v < nv && !held; v++)
            held = gp_frag_fits(&r->scratch[v], t) &&
                   gp_frag_pick_bestfit(&r->scratch[v], t, &pick) &&
                   gp_frag_apply(&r->scratch[v], t, &pick);
        if (!held)
            out[k++] = (size_t)j;
        sim_pendq_taken(&r->pq);
    }
    return k;
}

/* Step 5, scale-up: returns true when nodes were added. */
static bool scale_up(replay *r, int64_t t)
{
    const sim_replay_cfg *c = r->cfg;
    size_t *u = (size_t *)r->dirty + r->n_slots; /* room for the pending queue, see alloc */
    bool can_grow = false;
    for (size_t p = 0; p < c->n_pools && !can_grow; p++)
        can_grow = c->pools[p].max_nodes > r->up[p] + r->prov[p];
    size_t nu = r->live_pend > 0 && can_grow ? unhelped(r, u) : 0;
    long best = -1;
    size_t best_nodes = 0, best_help = 0;
    double best_cost = 0;

    for (size_t p = 0; p < c->n_pools && nu > 0; p++) {
        int room = c->pools[p].max_nodes - r->up[p] - r->prov[p];
        size_t nv = 0, help = 0;
        for (size_t i = 0; i < nu && room > 0; i++)
            help += fit_virtual(&c->pools[p], r->scratch, &nv, (size_t)room, &c->jobs[u[i]].task);
        double cost = (double)nv * sim_pool_price(&c->pools[p]);
        if (help > best_help || (help == best_help && help > 0 && cost < best_cost)) {
            best = (long)p;
            best_help = help;
            best_nodes = nv;
            best_cost = cost;
        }
    }
    if (best < 0)
        return false;
    for (size_t i = 0; i < best_nodes; i++) {
        size_t s = free_slot(r, (size_t)best);
        if (s == SIZE_MAX)
            break;
        if (!ev_push(r, t + c->pools[best].provision_s, EV_READY, (uint32_t)s)) {
            r->oom = true;
            break;
        }
        r->state[s] = SLOT_PROV;
        r->prov[best]++;
        r->res->pools[best].scale_ups++;
    }
    return true;
}

/* ---- Scale-down ---- */

static void scale_down_empty(replay *r, int64_t t)
{
    const sim_replay_cfg *c = r->cfg;

    for (size_t s = 0; s < r->n_slots; s++) {
        size_t p = r->pool_of[s];
        if (r->state[s] == SLOT_UP && r->npods[s] == 0 && r->since[s] >= 0 &&
            t - r->since[s] >= c->unneeded_s && r->up[p] > c->pools[p].min_nodes)
            remove_node(r, s, t);
    }
}

/* GPU requests / allocatable (CPU and memory, the larger, on a node without
 * GPUs). */
static double node_util(const gp_frag_node *n)
{
    if (n->ngpu > 0)
        return 1.0 - (double)gp_frag_gpu_free_total(n) / ((double)n->ngpu * GP_FRAG_MILLI);
    double cpu = n->cpu_cap ? 1.0 - (double)n->cpu_free / (double)n->cpu_cap : 0;
    double mem = n->mem_cap ? 1.0 - (double)n->mem_free / (double)n->mem_cap : 0;
    return cpu > mem ? cpu : mem;
}

typedef struct {
    size_t slot;
    double util;
    bool unneeded; /* found unneeded by the last check: checked first, as cluster-autoscaler does */
} cand;

static int cand_cmp(const void *a, const void *b)
{
    const cand *x = a, *y = b;
    if (x->unneeded != y->unneeded)
        return x->unneeded ? -1 : 1;
    if (x->util != y->util)
        return x->util < y->util ? -1 : 1;
    return x->slot < y->slot ? -1 : x->slot > y->slot;
}

/* Moves (temporarily) every pod of slot s to other up nodes, first fit,
 * skipping the nodes in going[]; records what it applied in undo_j/undo_s.
 * Returns false (having undone its own moves) when one pod is not a
 * Deployment's or fits nowhere. Every move is undone exactly before anything is scored again,
 * so the placer is not told (sim_placer_touch()). */
static bool can_drain(replay *r, size_t s, const uint8_t *going, size_t *undo_j, size_t *undo_s,
                      gp_frag_pick *undo_p, size_t *nundo)
{
    size_t start = *nundo;

    for (long j = r->head[s]; j >= 0; j = r->jnext[j]) {
        const sim_job *job = &r->cfg->jobs[j];
        bool moved = false;
        for (size_t d = 0; job->owner == SIM_OWNER_DEPLOYMENT && d < r->n_slots && !moved; d++) {
            gp_frag_pick pick;
            if (d == s || going[d] || r->state[d] != SLOT_UP ||
                !gp_frag_fits(&r->nodes[d], &job->task) ||
                !gp_frag_pick_bestfit(&r->nodes[d], &job->task, &pick) ||
                !gp_frag_apply(&r->nodes[d], &job->task, &pick))
                continue;
            undo_j[*nundo] = (size_t)j;
            undo_s[*nundo] = d;
            undo_p[(*nundo)++] = pick;
            moved = true;
        }
        if (!moved) {
            while (*nundo > start) {
                (*nundo)--;
                (void)gp_frag_release(&r->nodes[undo_s[*nundo]], &r->cfg->jobs[undo_j[*nundo]].task,
                                      &undo_p[*nundo]);
            }
            return false;
        }
    }
    return true;
}

/* cluster-autoscaler's unneeded nodes: sets since[] for the removable ones, -1
 * for the rest. */
static void find_unneeded(replay *r, int64_t t)
{
    const sim_replay_cfg *c = r->cfg;
    cand *cs = (cand *)r->scratch; /* gp_frag_node is larger than cand: n_slots fit */
    size_t n = 0, nundo = 0;
    uint8_t *going = r->dirty_mark + r->n_slots;
    size_t *undo_j = r->undo_j, *undo_s = r->dirty + r->n_slots + c->n_jobs;
    int non_empty = 0;

    for (size_t s = 0; s < r->n_slots; s++) {
        going[s] = 0;
        if (r->state[s] == SLOT_UP && node_util(&r->nodes[s]) < c->util_threshold)
            cs[n++] = (cand){ s, node_util(&r->nodes[s]), r->since[s] >= 0 };
    }
    qsort(cs, n, sizeof(*cs), cand_cmp);
    gp_frag_pick *undo_p = r->jpick + c->n_jobs;
    for (size_t i = 0; i < n; i++) {
        size_t s = cs[i].slot;
        if (r->npods[s] > 0 && non_empty++ >= c->max_candidates)
            continue;
        going[s] = r->npods[s] == 0 || can_drain(r, s, going, undo_j, undo_s, undo_p, &nundo);
    }
    while (nundo > 0) {
        nundo--;
        (void)gp_frag_release(&r->nodes[undo_s[nundo]], &c->jobs[undo_j[nundo]].task,
                              &undo_p[nundo]);
    }
    for (size_t s = 0; s < r->n_slots; s++)
        if (!going[s])
            r->since[s] = -1;
        else if (r->since[s] < 0)
            r->since[s] = t;
}

/* Evicts the pods of slot s, removes it, and places them again. */
static void drain(replay *r, size_t s, int64_t t)
{
    size_t moved[GP_FRAG_MAX_GPUS * 64], n = 0;

    while (r->head[s] >= 0 && n < sizeof(moved) / sizeof(moved[0])) {
        size_t j = (size_t)r->head[s];
        detach(r, j, t);
        r->jstate[j] = JOB_PEND;
        moved[n++] = j;
    }
    if (r->head[s] >= 0) { /* more pods than we move at once: keep the node */
        for (size_t i = 0; i < n; i++)
            if (!try_place(r, moved[i], t))
                enqueue(r, moved[i]);
        return;
    }
    remove_node(r, s, t);
    r->dirty_mark[s] = 0; /* gone: nothing to retry on it */
    r->res->evictions += n;
    for (size_t i = 0; i < n; i++)
        if (!try_place(r, moved[i], t))
            enqueue(r, moved[i]);
}

static void scale_down_ca(replay *r, int64_t t)
{
    const sim_replay_cfg *c = r->cfg;
    int empties = 0, drains = 0;

    if (r->changed)
        find_unneeded(r, t);
    r->changed = false;
    if (r->last_add >= 0 && t - r->last_add < c->delay_after_add_s)
        return;
    for (size_t s = 0; s < r->n_slots; s++) {
        size_t p = r->pool_of[s];
        if (r->state[s] != SLOT_UP || r->since[s] < 0 || t - r->since[s] < c->unneeded_s ||
            r->up[p] <= c->pools[p].min_nodes)
            continue;
        if (r->npods[s] == 0 && empties < MAX_EMPTY_BULK) {
            empties++;
            remove_node(r, s, t);
        } else if (r->npods[s] > 0 && drains < MAX_DRAIN) {
            drains++;
            drain(r, s, t);
        }
    }
    /* The ndirty marks a drain left are of nodes that lost pods: retried at the
   * next step. */
}

/* Returns true when nodes were added. */
static bool scan(replay *r, int64_t t)
{
    if (scale_up(r, t)) {
        r->last_add = t;
        return true;
    }
    if (r->cfg->down == SIM_DOWN_EMPTY)
        scale_down_empty(r, t);
    else
        scale_down_ca(r, t);
    return false;
}

/* With no end given, the work is over at a scan that added no node when every pod has arrived,
 * none runs and no node is being provisioned (pods still pending then never find room). */
static bool over(const replay *r, bool grew)
{
    return r->cfg->end_s == 0 && !grew && r->next_job == r->cfg->n_jobs && r->nheap == 0;
}

/* ---- Samples and the result ---- */

/* Room for n samples. */
static bool grow_samples(replay *r, size_t n)
{
    sim_replay_result *res = r->res;
    int32_t *up = realloc(res->nodes_up, n * sizeof(*up));
    if (up)
        res->nodes_up = up;
    double *ga = up ? realloc(res->gpus_alloc, n * sizeof(*ga)) : NULL;
    if (ga)
        res->gpus_alloc = ga;
    int32_t *pe = ga ? realloc(res->pending, n * sizeof(*pe)) : NULL;
    if (pe)
        res->pending = pe;
    if (pe)
        r->cap_samples = n;
    return pe != NULL;
}

/* Returns false when out of memory. */
static bool sample(replay *r, size_t k)
{
    int up = 0;
    int64_t alloc = 0;
    size_t pend = 0;

    for (size_t p = 0; p < r->cfg->n_pools; p++) {
        up += r->up[p];
        alloc += r->alloc_milli[p];
    }
    pend = r->live_pend;
    if (k >= r->cap_samples && !grow_samples(r, k < 512 ? 1024 : 2 * k)) {
        r->oom = true;
        return false;
    }
    r->res->nodes_up[k] = up;
    r->res->gpus_alloc[k] = (double)alloc / GP_FRAG_MILLI;
    r->res->pending[k] = (int32_t)pend;
    return true;
}

static int dbl_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of sorted v[0..n). */
static double pct(const double *v, size_t n, double q)
{
    if (n == 0)
        return 0;
    size_t k = (size_t)(q * (double)n + 0.999999999);
    return v[k == 0 ? 0 : k - 1];
}

static void finish(replay *r)
{
    const sim_replay_cfg *c = r->cfg;
    sim_replay_result *res = r->res;
    double gpu_up = 0, sum = 0;

    for (size_t j = 0; j < c->n_jobs; j++) {
        const sim_job *job = &c->jobs[j];
        if (job->arrive < c->measure_from_s || job->arrive >= r->end)
            continue;
        res->pods++;
        if (r->jend[j] < 0) {
            res->never_placed++;
            r->waits[r->nwaits++] = (double)(r->end - job->arrive);
        }
    }
    qsort(r->waits, r->nwaits, sizeof(*r->waits), dbl_cmp);
    for (size_t i = 0; i < r->nwaits; i++)
        sum += r->waits[i];
    res->pending_p50_s = pct(r->waits, r->nwaits, 0.50);
    res->pending_p99_s = pct(r->waits, r->nwaits, 0.99);
    res->pending_mean_s = r->nwaits ? sum / (double)r->nwaits : 0;
    for (size_t p = 0; p < c->n_pools; p++) {
        const sim_pool_result *pr = &res->pools[p];
        res->node_hours += pr->node_s / 3600.0;
        if (c->pools[p].node.ngpu > 0)
            res->gpu_node_hours += pr->node_s / 3600.0;
        res->dollars += pr->dollars;
        res->gpu_hours_alloc += pr->gpu_alloc_s / 3600.0;
        gpu_up += pr->gpu_up_s;
    }
    res->mean_gpu_alloc = gpu_up > 0 ? res->gpu_hours_alloc * 3600.0 / gpu_up : 0;
    res->dollars_per_gpu_hour = res->gpu_hours_alloc > 0 ? res->dollars / res->gpu_hours_alloc : 0;
}

/* ---- Setup ---- */

static gp_status check_cfg(const sim_replay_cfg *c, gp_err *err)
{
    size_t slots = 0;

    if (c->n_pools == 0 || c->n_pools > SIM_MAX_POOLS) {
        gp_err_set(err, "the replay needs 1 to %d node pools", SIM_MAX_POOLS);
        return GP_EINVAL;
    }
    for (size_t p = 0; p < c->n_pools; p++) {
        const sim_pool *pool = &c->pools[p];
        if (pool->min_nodes < 0 || pool->max_nodes < pool->min_nodes || pool->max_nodes < 1 ||
            pool->provision_s < 0) {
            gp_err_set(err,
                       "pool %s: min %d, max %d nodes, provisioning %llds: want 0 <= "
                       "min <= max, max >= 1",
                       pool->name, pool->min_nodes, pool->max_nodes, (long long)pool->provision_s);
            return GP_EINVAL;
        }
        slots += (size_t)pool->max_nodes;
    }
    if (slots > SIM_MAX_NODES_REPLAY) {
        gp_err_set(err, "the pools' maximums add up to %zu nodes; at most %d", slots,
                   SIM_MAX_NODES_REPLAY);
        return GP_EINVAL;
    }
    if (c->end_s < 0 || c->measure_from_s < 0 || (c->end_s > 0 && c->measure_from_s >= c->end_s) ||
        c->scan_s <= 0 ||
        c->unneeded_s < 0 || c->sample_s < 0 || c->n_jobs > UINT32_MAX) {
        gp_err_set(err, "bad replay settings (window %lld-%lld s, scan %lld s)",
                   (long long)c->measure_from_s, (long long)c->end_s, (long long)c->scan_s);
        return GP_EINVAL;
    }
    long bad = sim_replay_unplaceable(c->pools, c->n_pools, c->jobs, c->n_jobs);
    if (bad >= 0) {
        gp_err_set(err, "job %ld fits no pool's node even when empty", bad);
        return GP_EINVAL;
    }
    return GP_OK;
}

static void r_free(replay *r)
{
    free(r->nodes);
    free(r->scratch);
    free(r->state);
    free(r->dirty_mark);
    free(r->pool_of);
    free(r->ready_t);
    free(r->since);
    free(r->npods);
    free(r->head);
    free(r->names);
    free(r->name_ptr);
    free(r->jstate);
    free(r->jnode);
    free(r->jnext);
    free(r->jprev);
    free(r->jpick);
    free(r->jend);
    if (r->pq_ok)
        sim_pendq_free(&r->pq);
    free(r->waiting);
    free(r->undo_j);
    free(r->heap);
    free(r->dirty);
    free(r->waits);
}

static bool r_alloc(replay *r)
{
    size_t s = r->n_slots ? r->n_slots : 1, j = r->cfg->n_jobs ? r->cfg->n_jobs : 1;
    /* Scratch room shared by the steps: scratch holds n_slots nodes (or
   * candidates); dirty holds the dirty slots, then the unhelped pods (scale-up)
   * or undo slots (scale-down); pend the queue then undo jobs; jpick one pick
   * per job then undo picks; dirty_mark then going[]. */
    r->nodes = calloc(s, sizeof(*r->nodes));
    r->scratch = calloc(s, sizeof(*r->scratch) > sizeof(cand) ? sizeof(*r->scratch) : sizeof(cand));
    r->state = calloc(s, 1);
    r->dirty_mark = calloc(2 * s, 1);
    r->pool_of = calloc(s, sizeof(*r->pool_of));
    r->ready_t = calloc(s, sizeof(*r->ready_t));
    r->since = calloc(s, sizeof(*r->since));
    r->npods = calloc(s, sizeof(*r->npods));
    r->head = calloc(s, sizeof(*r->head));
    r->names = calloc(s, sizeof(*r->names));
    r->name_ptr = calloc(s, sizeof(*r->name_ptr));
    r->jstate = calloc(j, 1);
    r->jnode = calloc(j, sizeof(*r->jnode));
    r->jnext = calloc(j, sizeof(*r->jnext));
    r->jprev = calloc(j, sizeof(*r->jprev));
    r->jpick = calloc(2 * j, sizeof(*r->jpick));
    r->jend = calloc(j, sizeof(*r->jend));
    r->undo_j = calloc(j, sizeof(*r->undo_j));
    r->waiting = calloc(j, 1);
    r->dirty = calloc(s + 2 * j, sizeof(*r->dirty));
    r->waits = calloc(j, sizeof(*r->waits));
    return r->nodes && r->scratch && r->state && r->dirty_mark && r->pool_of && r->ready_t &&
           r->since && r->npods && r->head && r->names && r->name_ptr && r->jstate && r->jnode &&
           r->jnext && r->jprev && r->jpick && r->jend && r->undo_j && r->waiting && r->dirty && r->waits &&
           (r->pq_ok = sim_pendq_init(&r->pq, r->cfg->jobs, r->waiting));
}

/* Every slot down, named pool-NNNN, then each pool's minimum up from the start.
 */
static void init_slots(replay *r)
{
    const sim_replay_cfg *c = r->cfg;
    size_t s = 0;

    for (size_t p = 0; p < c->n_pools; p++) {
        r->off[p] = s;
        for (int i = 0; i < c->pools[p].max_nodes; i++, s++) {
            r->pool_of[s] = (uint16_t)p;
            r->nodes[s] = empty_of(&c->pools[p], (uint32_t)s);
            slot_down(r, s);
            r->since[s] = -1;
            r->head[s] = -1;
            snprintf(r->names[s], sizeof(r->names[s]), "%s-%04d", c->pools[p].name, i);
            r->name_ptr[s] = r->names[s];
        }
    }
    for (size_t j = 0; j < c->n_jobs; j++) {
        r->jnode[j] = -1;
        r->jend[j] = -1;
    }
}

static void start_minimums(replay *r)
{
    for (size_t p = 0; p < r->cfg->n_pools; p++)
        for (int i = 0; i < r->cfg->pools[p].min_nodes; i++) {
            size_t s = r->off[p] + (size_t)i;
            r->state[s] = SLOT_PROV;
            r->prov[p]++;
            node_ready(r, s, 0);
        }
}

static gp_status r_init(replay *r, const sim_replay_cfg *c, sim_replay_result *res, gp_err *err)
{
    gp_status st = check_cfg(c, err);

    memset(r, 0, sizeof(*r));
    memset(res, 0, sizeof(*res));
    r->cfg = c;
    r->res = res;
    r->last_add = -1;
    if (st != GP_OK)
        return st;
    for (size_t p = 0; p < c->n_pools; p++)
        r->n_slots += (size_t)c->pools[p].max_nodes;
    if (!r_alloc(r))
        return GP_ENOMEM;
    init_slots(r);
    r->end = c->end_s > 0 ? c->end_s : INT64_MAX / 4;
    if (c->sample_s > 0 && c->end_s > 0 && !grow_samples(r, (size_t)(c->end_s / c->sample_s) + 1))
        return GP_ENOMEM;
    /* The placer reads capacity and models from every slot: the fleet at its
   * maximum. */
    for (size_t s = 0; s < r->n_slots; s++)
        r->nodes[s] = empty_of(&c->pools[r->pool_of[s]], (uint32_t)s);
    if (!sim_placer_init(&r->pl, c->place, r->nodes, r->n_slots, r->name_ptr, c->n_jobs + 1))
        return GP_ENOMEM;
    r->placer_ok = true;
    for (size_t s = 0; s < r->n_slots; s++)
        slot_down(r, s);
    sim_rng_seed(&r->rng, c->place->seed);
    start_minimums(r);
    return GP_OK;
}

/* ---- The loop ---- */

static int64_t next_time(const replay *r, int64_t next_scan, int64_t next_sample)
{
    int64_t t = next_scan;

    if (r->nheap > 0 && r->heap[0].t < t)
        t = r->heap[0].t;
    if (r->next_job < r->cfg->n_jobs && r->cfg->jobs[r->next_job].arrive < t)
        t = r->cfg->jobs[r->next_job].arrive;
    if (r->cfg->sample_s > 0 && next_sample < t)
        t = next_sample;
    return t;
}

static void step(replay *r, int64_t t)
{
    const sim_replay_cfg *c = r->cfg;

    while (r->nheap > 0 && r->heap[0].t == t) {
        event e = ev_pop(r);
        if (e.kind == EV_DEPART)
            depart(r, e.id, t);
        else
            node_ready(r, e.id, t);
    }
    retry_pending(r, t);
    while (r->next_job < c->n_jobs && c->jobs[r->next_job].arrive <= t)
        arrive(r, r->next_job++, t);
}

static double mono_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

gp_status sim_replay(const sim_replay_cfg *cfg, sim_replay_result *res, gp_err *err)
{
    double t0 = mono_s();
    replay r;
    gp_status st = r_init(&r, cfg, res, err);
    int64_t next_scan = 0, next_sample = 0;
    size_t k = 0;

    for (bool ok = st == GP_OK; ok;) {
        int64_t t = next_time(&r, next_scan, next_sample);
        bool done = false;
        if (t >= r.end)
            break;
        account(&r, t);
        step(&r, t);
        if (t == next_scan) {
            done = over(&r, scan(&r, t));
            retry_pending(&r, t);
            next_scan += cfg->scan_s;
        }
        if (cfg->sample_s > 0 && t == next_sample) {
            k += sample(&r, k);
            next_sample += cfg->sample_s;
        }
        if (r.oom) {
            st = GP_ENOMEM;
            ok = false;
        } else if (done) {
            r.end = t;
            break;
        }
    }
    if (st == GP_OK) {
        account(&r, r.end);
        res->n_samples = k;
        finish(&r);
    }
    if (r.placer_ok)
        sim_placer_free(&r.pl);
    r_free(&r);
    res->seconds = mono_s() - t0;
    return st;
}
