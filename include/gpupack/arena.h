/* SPDX-License-Identifier: Apache-2.0 */
/* A per-request arena: many small allocations, one release.
 *
 * The webhook decodes a pod, decides and encodes within one request; everything it allocates on
 * the way (the pod view's arrays, the decision's strings) comes from one arena released when the
 * request completes, so no error path can leak a piece. An arena refuses to grow past its limit
 * (allocation then returns NULL, like malloc failing), which bounds a request's memory. */
#ifndef GPUPACK_ARENA_H
#define GPUPACK_ARENA_H

#include <stdbool.h>
#include <stddef.h>

typedef struct gp_arena_block gp_arena_block;

typedef struct {
    gp_arena_block *head;
    size_t total; /* bytes obtained from malloc */
    size_t limit; /* 0: no limit */
    size_t block; /* bytes a new block holds at least (gp_arena_init sets 8 KiB) */
} gp_arena;

/* An empty arena with a byte limit (0 for none). Needs no allocation. */
void gp_arena_init(gp_arena *a, size_t limit);

/* Releases every allocation. The arena can be reused afterwards. */
void gp_arena_free(gp_arena *a);

/* Moves every block of from into a: what from handed out stays valid and is released with a
 * (from is left empty; a's limit is not applied to what it takes). */
void gp_arena_adopt(gp_arena *a, gp_arena *from);

/* Zeroed memory aligned for any type, or NULL when out of memory or over the limit. */
void *gp_arena_alloc(gp_arena *a, size_t n);

/* Like gp_arena_alloc, without zeroing (for callers that write every byte). */
void *gp_arena_alloc_raw(gp_arena *a, size_t n);

/* True when p points into memory this arena handed out. */
bool gp_arena_owns(const gp_arena *a, const void *p);

/* Grows an array allocated from the arena (old contents copied, the rest zeroed, old block not
 * reclaimed). */
void *gp_arena_grow(gp_arena *a, void *old, size_t old_n, size_t new_n);

char *gp_arena_strdup(gp_arena *a, const char *s);
char *gp_arena_printf(gp_arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Hands the heap's free pages back to the system (glibc's malloc_trim; a no-op elsewhere). Called
 * after work that parsed a large document (a snapshot, a full list, a body of many megabytes):
 * glibc keeps freed memory mapped, so without it the resident set stays at the peak. */
void gp_heap_trim(void);

#endif
