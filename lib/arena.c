/* SPDX-License-Identifier: Apache-2.0 */
#include "gpupack/arena.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <string.h>

#define ARENA_BLOCK 8192
#define ARENA_ALIGN 16

struct gp_arena_block {
    gp_arena_block *next;
    size_t used;
    size_t cap;
    _Alignas(ARENA_ALIGN) unsigned char data[];
};

void gp_arena_init(gp_arena *a, size_t limit)
{
    a->head = NULL;
    a->total = 0;
    a->limit = limit;
    a->block = ARENA_BLOCK;
}

void gp_arena_free(gp_arena *a)
{
    gp_arena_block *b = a->head;

    while (b != NULL) {
        gp_arena_block *next = b->next;

        free(b);
        b = next;
    }
    a->head = NULL;
    a->total = 0;
}

static gp_arena_block *arena_new_block(gp_arena *a, size_t need)
{
    size_t min = a->block ? a->block : ARENA_BLOCK; /* a zeroed arena works too */
    size_t cap = need > min ? need : min;
    gp_arena_block *b;

    if (cap > SIZE_MAX - sizeof(*b) || (a->limit && a->total + cap > a->limit))
        return NULL;
    b = malloc(sizeof(*b) + cap);
    if (b == NULL)
        return NULL;
    b->used = 0;
    b->cap = cap;
    if (need > min && a->head != NULL) { /* a block for one allocation: the head keeps filling */
        b->next = a->head->next;
        a->head->next = b;
    } else {
        b->next = a->head;
        a->head = b;
    }
    a->total += cap;
    return b;
}

void *gp_arena_alloc_raw(gp_arena *a, size_t n)
{
    gp_arena_block *b = a->head;
    size_t need;
    void *p;

    if (n > SIZE_MAX - ARENA_ALIGN)
        return NULL;
    need = (n + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
    if (need == 0)
        need = ARENA_ALIGN;
    if (b == NULL || b->cap - b->used < need) {
        b = arena_new_block(a, need);
        if (b == NULL)
            return NULL;
    }
    p = b->data + b->used;
    b->used += need;
    return p;
}

void *gp_arena_alloc(gp_arena *a, size_t n)
{
    void *p = gp_arena_alloc_raw(a, n);

    if (p != NULL)
        memset(p, 0, n);
    return p;
}

void gp_arena_adopt(gp_arena *a, gp_arena *from)
{
    gp_arena_block *tail = from->head;

    if (tail == NULL)
        return;
    while (tail->next != NULL)
        tail = tail->next;
    if (a->head == NULL) { /* from's head becomes the one that keeps filling */
        a->head = from->head;
    } else {
        tail->next = a->head->next;
        a->head->next = from->head;
    }
    a->total += from->total;
    from->head = NULL;
    from->total = 0;
}

bool gp_arena_owns(const gp_arena *a, const void *p)
{
    const unsigned char *q = p;

    for (const gp_arena_block *b = a->head; b != NULL; b = b->next)
        if (q >= b->data && q < b->data + b->cap)
            return true;
    return false;
}

void *gp_arena_grow(gp_arena *a, void *old, size_t old_n, size_t new_n)
{
    size_t kept = old != NULL ? (old_n < new_n ? old_n : new_n) : 0;
    char *p = gp_arena_alloc_raw(a, new_n);

    if (p == NULL)
        return NULL;
    if (kept > 0)
        memcpy(p, old, kept);
    memset(p + kept, 0, new_n - kept); /* only what is new is zeroed */
    return p;
}

char *gp_arena_strdup(gp_arena *a, const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = gp_arena_alloc(a, n);

    if (p != NULL)
        memcpy(p, s, n);
    return p;
}

/* True when fmt converts nothing but strings ("%s", and "%%"): the decision's texts mostly, which
 * are then joined without vsnprintf (a tenth of the instructions). */
static bool only_strings(const char *fmt)
{
    for (const char *p = strchr(fmt, '%'); p != NULL; p = strchr(p + 2, '%'))
        if (p[1] != 's' && p[1] != '%')
            return false;
    return true;
}

/* Keeps the text of n bytes just written at the head block's free space (room bytes) and
 * returns it. */
static char *head_take(gp_arena_block *b, size_t n, size_t room)
{
    char *p = (char *)b->data + b->used;
    size_t need = (n + ARENA_ALIGN) & ~(size_t)(ARENA_ALIGN - 1);

    b->used += need < room ? need : room;
    return p;
}

/* Appends src[0..len) at dst + *n while it fits in cap (keeping a byte for the NUL); *n counts
 * every byte either way. */
static void put(char *dst, size_t cap, size_t *n, const char *src, size_t len)
{
    if (*n + len < cap)
        memcpy(dst + *n, src, len);
    *n += len;
}

/* Writes fmt with its %s arguments into dst when the whole text fits in cap bytes; returns the
 * length (the text fits when it is below cap). A NULL argument is written as vsnprintf writes
 * it. */
static size_t join(char *dst, size_t cap, const char *fmt, va_list ap)
{
    size_t n = 0;

    for (const char *p = fmt;;) {
        const char *pct = strchr(p, '%'), *piece;

        put(dst, cap, &n, p, pct != NULL ? (size_t)(pct - p) : strlen(p));
        if (pct == NULL)
            break;
        piece = pct[1] == '%' ? "%" : va_arg(ap, const char *);
        piece = piece != NULL ? piece : "(null)";
        put(dst, cap, &n, piece, strlen(piece));
        p = pct + 2;
    }
    if (n < cap)
        dst[n] = '\0';
    return n;
}

/* One pass into the head block's free space when the text fits (the common case), else a second
 * one into memory of the right size. */
static char *arena_join(gp_arena *a, const char *fmt, va_list ap)
{
    gp_arena_block *b = a->head;
    size_t room = b != NULL ? b->cap - b->used : 0, n;
    char *p = b != NULL ? (char *)b->data + b->used : NULL;
    va_list again;

    va_copy(again, ap);
    n = join(p, room, fmt, again);
    va_end(again);
    if (n < room)
        return head_take(b, n, room);
    if ((p = gp_arena_alloc_raw(a, n + 1)) != NULL)
        join(p, n + 1, fmt, ap);
    return p;
}

char *gp_arena_printf(gp_arena *a, const char *fmt, ...)
{
    gp_arena_block *b = a->head;
    va_list ap;
    int n;
    char *p;

    if (only_strings(fmt)) {
        va_start(ap, fmt);
        p = arena_join(a, fmt, ap);
        va_end(ap);
        return p;
    }
    /* One pass when the text fits in the head block's free space (the common case). */
    if (b != NULL && b->cap - b->used > 1) {
        size_t room = b->cap - b->used;

        p = (char *)b->data + b->used;
        va_start(ap, fmt);
        n = vsnprintf(p, room, fmt, ap);
        va_end(ap);
        if (n < 0)
            return NULL;
        if ((size_t)n < room)
            return head_take(b, (size_t)n, room);
    }
    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return NULL;
    p = gp_arena_alloc(a, (size_t)n + 1);
    if (p == NULL)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}

void gp_heap_trim(void)
{
#ifdef __GLIBC__
    malloc_trim(0);
#endif
}
