/* SPDX-License-Identifier: Apache-2.0 */
/* The current snapshot, swapped whole (snapshot.h). */
#include "gpupack/snapshot.h"

#include <stddef.h>

void gp_snapshot_init(gp_snapshot *s, void *initial, void *(*ref)(void *), void (*unref)(void *))
{
    pthread_mutex_init(&s->mu, NULL);
    s->cur = initial;
    s->ref = ref;
    s->unref = unref;
}

void *gp_snapshot_get(gp_snapshot *s)
{
    void *p;

    pthread_mutex_lock(&s->mu);
    p = s->cur ? s->ref(s->cur) : NULL;
    pthread_mutex_unlock(&s->mu);
    return p;
}

void gp_snapshot_set(gp_snapshot *s, void *next)
{
    void *old;

    pthread_mutex_lock(&s->mu);
    old = s->cur;
    s->cur = next;
    pthread_mutex_unlock(&s->mu);
    if (old != NULL)
        s->unref(old);
}

void gp_snapshot_destroy(gp_snapshot *s)
{
    if (s->cur != NULL)
        s->unref(s->cur);
    s->cur = NULL;
    pthread_mutex_destroy(&s->mu);
}
