/* SPDX-License-Identifier: Apache-2.0 */
/* The time replay's pending queue (sim/pendq.h). */
#include "pendq.h"

#include <stdlib.h>
#include <string.h>

#include "rng.h"

#define START_CAP 256 /* subs; doubled when three quarters are used */

static uint64_t key_hash(const gp_frag_task *t, int32_t prio)
{
    uint64_t h = sim_hash64((uint64_t)t->cpu_milli ^ (uint64_t)t->mem_mib << 24);
    h = sim_hash64(h ^ (uint64_t)t->num_gpu << 48 ^ (uint64_t)t->gpu_milli << 32 ^ t->models);
    return sim_hash64(h ^ (uint64_t)(uint32_t)prio);
}

static bool same_key(const sim_pendq_sub *s, const gp_frag_task *t, int32_t prio)
{
    return s->prio == prio && gp_frag_task_same(&s->key, t);
}

bool sim_pendq_init(sim_pendq *q, const sim_job *jobs, const uint8_t *waiting)
{
    memset(q, 0, sizeof(*q));
    q->jobs = jobs;
    q->waiting = waiting;
    q->cap = START_CAP;
    q->sub = calloc(q->cap, sizeof(*q->sub));
    q->heap = malloc(q->cap * sizeof(*q->heap));
    if (!q->sub || !q->heap) {
        sim_pendq_free(q);
        return false;
    }
    return true;
}

void sim_pendq_free(sim_pendq *q)
{
    for (size_t i = 0; q->sub && i < q->cap; i++)
        free(q->sub[i].v);
    free(q->sub);
    free(q->heap);
    memset(q, 0, sizeof(*q));
}

/* The slot for (t, prio) in sub[0..cap): its own, or the empty one it would take. */
static size_t find(const sim_pendq_sub *sub, size_t cap, const gp_frag_task *t, int32_t prio)
{
    size_t i = key_hash(t, prio) & (cap - 1);

    while (sub[i].used && !same_key(&sub[i], t, prio))
        i = (i + 1) & (cap - 1);
    return i;
}

/* Doubles the table (between passes only: the heap holds slot numbers). */
static bool grow(sim_pendq *q)
{
    size_t cap = q->cap * 2;
    sim_pendq_sub *sub = calloc(cap, sizeof(*sub));
    size_t *heap = malloc(cap * sizeof(*heap));

    if (!sub || !heap) {
        free(sub);
        free(heap);
        return false;
    }
    for (size_t i = 0; i < q->cap; i++)
        if (q->sub[i].used)
            sub[find(sub, cap, &q->sub[i].key, q->sub[i].prio)] = q->sub[i];
    free(q->sub);
    free(q->heap);
    q->sub = sub;
    q->heap = heap;
    q->cap = cap;
    q->nheap = 0;
    return true;
}

/* Inserts j into s in index order (an evicted pod goes back to its place). */
static bool sub_insert(sim_pendq_sub *s, size_t j)
{
    if (s->head > 0 && s->head == s->n)
        s->head = s->cur = s->n = 0;
    if (s->n == s->cap) {
        if (s->head > s->cap / 2) { /* reuse the room before head */
            memmove(s->v, s->v + s->head, (s->n - s->head) * sizeof(*s->v));
            s->cur -= s->cur >= s->head ? s->head : s->cur;
            s->n -= s->head;
            s->head = 0;
        } else {
            size_t cap = s->cap ? 2 * s->cap : 16;
            size_t *v = realloc(s->v, cap * sizeof(*v));
            if (!v)
                return false;
            s->v = v;
            s->cap = cap;
        }
    }
    size_t lo = s->head, hi = s->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (s->v[mid] < j)
            lo = mid + 1;
        else
            hi = mid;
    }
    memmove(&s->v[lo + 1], &s->v[lo], (s->n - lo) * sizeof(*s->v));
    s->v[lo] = j;
    s->n++;
    return true;
}

bool sim_pendq_push(sim_pendq *q, size_t j)
{
    const sim_job *job = &q->jobs[j];

    if (q->nsub + 1 > q->cap * 3 / 4 && !grow(q))
        return false;
    size_t i = find(q->sub, q->cap, &job->task, job->priority);
    if (!q->sub[i].used) {
        q->sub[i].used = true;
        q->sub[i].key = job->task;
        q->sub[i].prio = job->priority;
        q->nsub++;
    }
    return sub_insert(&q->sub[i], j);
}

/* ---- A pass: a heap of subs by the job at their cursor ---- */

static bool before(const sim_pendq *q, size_t a, size_t b)
{
    const sim_pendq_sub *x = &q->sub[a], *y = &q->sub[b];

    if (x->prio != y->prio)
        return x->prio > y->prio;
    return x->v[x->cur] < y->v[y->cur];
}

static void sift_down(sim_pendq *q, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        if (l < q->nheap && before(q, q->heap[l], q->heap[m]))
            m = l;
        if (l + 1 < q->nheap && before(q, q->heap[l + 1], q->heap[m]))
            m = l + 1;
        if (m == i)
            return;
        size_t t = q->heap[i];
        q->heap[i] = q->heap[m];
        q->heap[m] = t;
        i = m;
    }
}

/* Moves s's cursor past jobs that no longer wait (removing them when the pass takes). Returns
 * false when nothing is left at or after the cursor. */
static bool settle(sim_pendq *q, sim_pendq_sub *s)
{
    while (s->cur < s->n && !q->waiting[s->v[s->cur]]) {
        if (q->take && s->cur == s->head)
            s->head++;
        s->cur++;
    }
    return s->cur < s->n;
}

void sim_pendq_begin(sim_pendq *q, bool take)
{
    q->take = take;
    q->nheap = 0;
    for (size_t i = 0; i < q->cap; i++) {
        sim_pendq_sub *s = &q->sub[i];
        if (!s->used)
            continue;
        s->cur = s->head;
        if (settle(q, s))
            q->heap[q->nheap++] = i;
    }
    for (size_t i = q->nheap / 2; i-- > 0;)
        sift_down(q, i);
}

long sim_pendq_next(sim_pendq *q)
{
    if (q->nheap == 0)
        return -1;
    const sim_pendq_sub *s = &q->sub[q->heap[0]];
    return (long)s->v[s->cur];
}

void sim_pendq_taken(sim_pendq *q)
{
    sim_pendq_sub *s = &q->sub[q->heap[0]];

    if (q->take && s->cur == s->head)
        s->head++;
    s->cur++;
    if (settle(q, s)) {
        sift_down(q, 0);
        return;
    }
    sim_pendq_drop(q);
}

void sim_pendq_drop(sim_pendq *q)
{
    q->heap[0] = q->heap[--q->nheap];
    if (q->nheap > 0)
        sift_down(q, 0);
}
