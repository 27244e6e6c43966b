/* SPDX-License-Identifier: Apache-2.0 */
/* Per-request memory for cJSON.
 *
 * A webhook review builds and drops a few thousand small cJSON nodes (the review's tree, the
 * working copy patches are built on, the answer); from glibc's malloc that was 40% of a request.
 * A pool binds the calling thread's cJSON allocations to one arena that is released at once when
 * the request ends. cJSON's allocation hooks are process-wide, so gp_json_pool_install() points
 * them (once) at functions that use the thread's bound pool when there is one and malloc
 * otherwise; a free of memory the bound pool does not own (a policy tree dropped during the
 * request, say) goes to free(). Everything cJSON allocates while a pool is bound must be dropped
 * before gp_json_pool_end(): a result that outlives the request is copied out first.
 *
 * Each thread keeps one chunk (GP_JSON_POOL_CHUNK) from request to request, freed when the thread
 * exits; a request that needs more gets further chunks, released at its end.
 *
 * With GPUPACK_JSON_POOL=off in the environment, or built with AddressSanitizer, the pool is not
 * used (cJSON allocates with malloc as before), so the sanitizers and valgrind can see every
 * cJSON allocation. */
#ifndef GPUPACK_JSONPOOL_H
#define GPUPACK_JSONPOOL_H

#include <stdbool.h>
#include <stddef.h>

#include "gpupack/arena.h"

struct cJSON;

#define GP_JSON_POOL_CHUNK (256u * 1024) /* kept per thread; overflow comes in chunks this size */
#define GP_JSON_POOL_ALIGN 16

typedef struct {
    unsigned char *base; /* the thread's kept chunk */
    size_t cap, used;
    gp_arena overflow;   /* what does not fit in it */
    bool bound;
} gp_json_pool;

/* Points cJSON's hooks at the pool-aware allocator (not when GPUPACK_JSON_POOL=off). Idempotent
 * and thread-safe; call before any thread uses cJSON concurrently with a pool (the webhook does
 * in gp_webhook_init). */
void gp_json_pool_install(void);

/* True when the hooks are installed (not under ASan, not with GPUPACK_JSON_POOL=off). */
bool gp_json_pool_active(void);

/* Binds the calling thread's cJSON allocations to p, which may grow to limit bytes (0: no limit;
 * past it cJSON sees an allocation failure). Does nothing when the hooks are not installed. */
void gp_json_pool_begin(gp_json_pool *p, size_t limit);

/* Drops a cJSON tree made entirely while p was bound (every node, name and string from cJSON's
 * allocator): nothing to walk when p is bound, since gp_json_pool_end() releases it whole;
 * cJSON_Delete() otherwise. */
void gp_json_pool_drop(const gp_json_pool *p, struct cJSON *tree);

/* gp_json_pool_drop() for code that builds and drops a tree within one call without knowing the
 * pool (the patch builder's view): nothing to walk when the calling thread has a pool bound (the
 * tree came from it), cJSON_Delete() otherwise. */
void gp_json_pool_drop_here(struct cJSON *tree);

/* The pool bound to the calling thread, or NULL (none bound, or the hooks are not installed). */
gp_json_pool *gp_json_pool_bound(void);

/* n bytes from p, a pool bound to the calling thread, as cJSON's allocator gives them while it is
 * bound (GP_JSON_POOL_ALIGN-aligned, released with the pool); NULL past the pool's limit. For a
 * parser that makes many nodes: no call through cJSON's hooks for each one. The kept chunk is
 * served inline; gp_json_pool_alloc_slow() takes what does not fit there. */
void *gp_json_pool_alloc_slow(gp_json_pool *p, size_t n);

static inline void *gp_json_pool_alloc(gp_json_pool *p, size_t n)
{
    size_t need = (n + GP_JSON_POOL_ALIGN - 1) & ~(size_t)(GP_JSON_POOL_ALIGN - 1);

    /* (for n near SIZE_MAX need wraps around: the slow path refuses it) */
    if (n < need + GP_JSON_POOL_ALIGN && p->base != NULL && p->cap - p->used >= need) {
        void *r = p->base + p->used;

        p->used += need;
        return r;
    }
    return gp_json_pool_alloc_slow(p, n);
}

/* Unbinds p and releases everything allocated from it. */
void gp_json_pool_end(gp_json_pool *p);

#endif
