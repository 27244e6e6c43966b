/* SPDX-License-Identifier: Apache-2.0 */
/* Per-request memory for cJSON (see jsonpool.h). */
#include "gpupack/jsonpool.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#if defined(__SANITIZE_ADDRESS__)
#define POOL_ENABLED 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define POOL_ENABLED 0
#endif
#endif
#ifndef POOL_ENABLED
#define POOL_ENABLED 1
#endif

#define ALIGN GP_JSON_POOL_ALIGN

/* Each thread keeps its first chunk between requests (a 6 KB review needs about 100 KB of cJSON
 * nodes): no malloc and no fresh pages per request. It is freed when the thread exits. */
typedef struct {
    unsigned char *base;
    size_t cap;
} spare_chunk;

static _Thread_local gp_json_pool *bound_pool;
static pthread_once_t installed = PTHREAD_ONCE_INIT;
static pthread_key_t spare_key;
static bool hooks_on;

static void spare_free(void *v)
{
    spare_chunk *s = v;

    if (s != NULL)
        free(s->base);
    free(s);
}

static bool in_chunk(const unsigned char *base, size_t cap, const void *p)
{
    const unsigned char *q = p;

    return base != NULL && q >= base && q < base + cap;
}

void *gp_json_pool_alloc_slow(gp_json_pool *p, size_t n)
{
    /* gp_json_pool_alloc() found no room in the kept chunk (or none), or n wrapped around */
    if (n > SIZE_MAX - ALIGN)
        return NULL;
    return gp_arena_alloc_raw(&p->overflow, n); /* past the first chunk: rare, bounded */
}

static void *pool_malloc(size_t n)
{
    gp_json_pool *p = bound_pool;

    return p != NULL ? gp_json_pool_alloc(p, n) : malloc(n);
}

static void pool_free(void *ptr)
{
    gp_json_pool *p = bound_pool;

    if (p != NULL && (in_chunk(p->base, p->cap, ptr) || gp_arena_owns(&p->overflow, ptr)))
        return; /* released with the pool */
    free(ptr);
}

static void install_once(void)
{
    cJSON_Hooks h = { pool_malloc, pool_free };

    if (pthread_key_create(&spare_key, spare_free) != 0)
        return; /* no per-thread chunk: cJSON keeps using malloc */
    cJSON_InitHooks(&h);
    hooks_on = true;
}

void gp_json_pool_install(void)
{
    const char *env = getenv("GPUPACK_JSON_POOL");

    if (POOL_ENABLED && (env == NULL || strcmp(env, "off") != 0))
        pthread_once(&installed, install_once);
}

bool gp_json_pool_active(void)
{
    return hooks_on;
}

/* This thread's kept chunk, made on first use; NULL when memory is short. */
static spare_chunk *thread_chunk(void)
{
    spare_chunk *s = pthread_getspecific(spare_key);

    if (s != NULL)
        return s;
    s = malloc(sizeof(*s));
    if (s == NULL)
        return NULL;
    s->cap = GP_JSON_POOL_CHUNK;
    s->base = malloc(s->cap);
    if (s->base == NULL || pthread_setspecific(spare_key, s) != 0) {
        spare_free(s);
        return NULL;
    }
    return s;
}

void gp_json_pool_begin(gp_json_pool *p, size_t limit)
{
    spare_chunk *s = hooks_on ? thread_chunk() : NULL;

    p->base = s ? s->base : NULL;
    p->cap = s ? s->cap : 0;
    p->used = 0;
    /* limit 0: none; a limit below the kept chunk still allows the chunk itself */
    gp_arena_init(&p->overflow, limit == 0 ? 0 : limit > p->cap ? limit - p->cap : 1);
    p->overflow.block = GP_JSON_POOL_CHUNK;
    p->bound = hooks_on;
    if (p->bound)
        bound_pool = p;
}

gp_json_pool *gp_json_pool_bound(void)
{
    return bound_pool;
}

void gp_json_pool_drop(const gp_json_pool *p, cJSON *tree)
{
    if (!p->bound)
        cJSON_Delete(tree);
}

void gp_json_pool_drop_here(cJSON *tree)
{
    if (bound_pool == NULL)
        cJSON_Delete(tree);
}

void gp_json_pool_end(gp_json_pool *p)
{
    if (p->bound && bound_pool == p)
        bound_pool = NULL;
    p->bound = false;
    p->base = NULL;
    gp_arena_free(&p->overflow);
}
