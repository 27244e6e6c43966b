/* SPDX-License-Identifier: Apache-2.0 */
/* A slot holding the current reference-counted snapshot (the policy in force, the webhook's
 * cluster view), swapped whole on reload while readers keep the one they took.
 *
 * Readers call gp_snapshot_get() and drop the returned reference (ref'd with the slot's ref
 * function; NULL when the slot is empty) when done. gp_snapshot_set() takes over the caller's
 * reference to next and drops the slot's reference to the previous snapshot, outside the lock
 * (freeing may take a while; readers that still hold it keep it alive). gp_snapshot_init() takes
 * over initial's reference (may be NULL); gp_snapshot_destroy() drops the slot's reference. */
#ifndef GPUPACK_SNAPSHOT_H
#define GPUPACK_SNAPSHOT_H

#include <pthread.h>

typedef struct {
    pthread_mutex_t mu;
    void *cur;
    void *(*ref)(void *snap);  /* a new reference to snap (never NULL) */
    void (*unref)(void *snap); /* drops one; NULL is never passed */
} gp_snapshot;

void gp_snapshot_init(gp_snapshot *s, void *initial, void *(*ref)(void *), void (*unref)(void *));
void *gp_snapshot_get(gp_snapshot *s);
void gp_snapshot_set(gp_snapshot *s, void *next);
void gp_snapshot_destroy(gp_snapshot *s);

#endif
