/* SPDX-License-Identifier: Apache-2.0 */
/* kube-scheduler extender wire types (see extargs.h). */
#include "gpupack/extargs.h"

#include <setjmp.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_parse.h>

#include "gpupack/admission.h"
#include "gpupack/json.h"
#include "gpupack/jsonparse.h"
#include "gpupack/k8s.h"
#include "gpupack/strbuf.h"

/* ---- decoding: yajl events into a cJSON tree, pruned under Nodes.items ----
 *
 * With nodeCacheCapable false the body carries every Node whole (~13 KB each: images,
 * conditions, managedFields). Scoring reads four fields of a node, so the tree keeps only those;
 * everything else of the body is kept whole (a bare Pod body too). The byte span of every item is
 * recorded so that a filter answer can hand the passing nodes back exactly as they came.
 * NodeNames' strings (thousands a call with nodeCacheCapable true) go straight to a list in the
 * arena; the tree keeps an empty array in their place. */

typedef enum {
    M_ALL,    /* keep everything below */
    M_ROOT,   /* the document: all but Nodes kept whole */
    M_NODES,  /* Nodes: only items */
    M_ITEMS,  /* Nodes.items: each element is a node */
    M_ITEM,   /* a node: metadata, spec, status */
    M_META,   /* metadata: name, labels */
    M_SPEC,   /* spec: unschedulable */
    M_STATUS, /* status: allocatable */
    M_NAMES,  /* NodeNames: its elements go to the name list, not into the tree */
    M_NAME,   /* one element of NodeNames */
    M_SKIP    /* a pruned value: nothing is built */
} mode;

typedef struct {
    cJSON *node;
    mode m;
} frame;

/* yajl does not check its own allocations (a failed malloc is dereferenced), so it gets an
 * allocator that keeps a list of what it holds and, when malloc fails, jumps back out of the
 * parse; everything yajl held is then freed from the list. */
typedef union yblock {
    struct {
        union yblock *prev, *next;
    } link;
    max_align_t align;
} yblock;

typedef struct {
    yajl_handle h;
    jmp_buf oom;
    yblock held;      /* the list's head */
    const char *body;
    gp_arena *a;
    cJSON *root;
    frame *stack;     /* GP_EXTARGS_MAX_DEPTH + 1 frames, not zeroed (16 KB a call) */
    int depth;        /* frames in use */
    int skip;         /* open containers inside a pruned value */
    char *key;        /* the member name waiting for its value (malloc'd) */
    mode key_mode;    /* what that value becomes */
    const char *error;
    size_t *off, *len; /* item spans, grown in the arena */
    size_t nitems, capitems;
    const char **names; /* NodeNames' strings, copied into the arena (thousands a call) */
    size_t nnames, capnames;
    size_t nelems;      /* elements of NodeNames seen, strings or not */
    size_t bad_name;    /* the first that is not a non-empty string, when bad */
    bool bad, too_many;
    size_t base;        /* where in the body the text yajl is reading now starts */
    size_t names_open;  /* where the NodeNames array's '[' is in the body (SIZE_MAX: none) */
    int names_arrays;   /* NodeNames arrays seen (more than one is a duplicate key) */
} sax;

/* What a member named k of an object in mode m becomes. */
static mode child_mode(mode m, const char *k)
{
    switch (m) {
    case M_ALL: return M_ALL;
    case M_ROOT:
        return strcmp(k, "Nodes") == 0 ? M_NODES : strcmp(k, "NodeNames") == 0 ? M_NAMES : M_ALL;
    case M_NODES: return strcmp(k, "items") == 0 ? M_ITEMS : M_SKIP;
    case M_ITEM:
        return strcmp(k, "metadata") == 0 ? M_META
               : strcmp(k, "spec") == 0   ? M_SPEC
               : strcmp(k, "status") == 0 ? M_STATUS
                                          : M_SKIP;
    case M_NAMES: return M_ALL; /* NodeNames as an object: kept whole, as any other value */
    case M_META: return strcmp(k, "name") == 0 || strcmp(k, "labels") == 0 ? M_ALL : M_SKIP;
    case M_SPEC: return strcmp(k, "unschedulable") == 0 ? M_ALL : M_SKIP;
    case M_STATUS: return strcmp(k, "allocatable") == 0 ? M_ALL : M_SKIP;
    default: return M_SKIP;
    }
}

/* The mode of the next value: a member's (after its key) or an array element's. */
static mode next_mode(const sax *x)
{
    const frame *f;

    if (x->depth == 0)
        return M_ROOT;
    f = &x->stack[x->depth - 1];
    if (cJSON_IsObject(f->node))
        return x->key_mode;
    return f->m == M_ITEMS ? M_ITEM : f->m == M_NAMES ? M_NAME : f->m == M_ALL ? M_ALL : M_SKIP;
}

static int fail(sax *x, const char *why)
{
    x->error = why;
    return 0;
}

/* Keeps a copy of the n bytes at s as the next node name (0: out of memory). */
static int keep_name(sax *x, const char *s, size_t n)
{
    char *copy;

    if (x->nnames == x->capnames) {
        size_t ncap = x->capnames ? x->capnames * 2 : 256;

        x->names = gp_arena_grow(x->a, x->names, x->capnames * sizeof(char *),
                                 ncap * sizeof(char *));
        if (x->names == NULL)
            return fail(x, "out of memory");
        x->capnames = ncap;
    }
    if ((copy = gp_arena_alloc_raw(x->a, n + 1)) == NULL)
        return fail(x, "out of memory");
    memcpy(copy, s, n);
    copy[n] = '\0';
    x->names[x->nnames++] = copy;
    return 1;
}

/* One element of NodeNames: s (n bytes) for a string, NULL for any other value. The name is
 * kept; the first element that is not a non-empty string is noted for the error. Every element
 * counts toward the limit. */
static int name_element(sax *x, const unsigned char *s, size_t n)
{
    size_t i = x->nelems++;

    if (i >= GP_EXTARGS_MAX_NODES) {
        x->too_many = true;
        return 1;
    }
    if (s == NULL || n == 0) {
        if (!x->bad)
            x->bad_name = i;
        x->bad = true;
        return 1;
    }
    return keep_name(x, (const char *)s, n);
}

/* Places a new value v (NULL: allocation failed) under the open container, or as the root. A
 * member takes the pending name (cJSON frees it with the item). */
static int attach(sax *x, cJSON *v)
{
    cJSON *parent;

    if (v == NULL)
        return fail(x, "out of memory");
    if (x->depth == 0) {
        x->root = v;
        return 1;
    }
    parent = x->stack[x->depth - 1].node;
    if (cJSON_IsObject(parent)) {
        v->string = x->key; /* what cJSON_AddItemToObject does, without copying the name */
        x->key = NULL;
    }
    if (!cJSON_AddItemToArray(parent, v)) { /* links the item; cannot fail for a valid pair */
        cJSON_Delete(v);
        return fail(x, "out of memory");
    }
    return 1;
}

/* A scalar: kept or dropped. */
static int scalar(sax *x, cJSON *(*make)(const void *), const void *arg)
{
    if (x->skip == 0 && next_mode(x) == M_NAME)
        return name_element(x, NULL, 0);
    if (x->skip > 0 || next_mode(x) == M_SKIP) {
        cJSON_free(x->key);
        x->key = NULL;
        return 1;
    }
    return attach(x, make(arg));
}

static cJSON *make_null(const void *arg) { (void)arg; return cJSON_CreateNull(); }
static cJSON *make_bool(const void *arg) { return cJSON_CreateBool(*(const int *)arg); }
static cJSON *make_number(const void *arg) { return cJSON_CreateNumber(*(const double *)arg); }

static int on_null(void *ctx) { return scalar(ctx, make_null, NULL); }
static int on_bool(void *ctx, int b) { return scalar(ctx, make_bool, &b); }

static int on_number(void *ctx, const char *s, size_t n)
{
    char tmp[64];
    double d;

    if (((sax *)ctx)->skip > 0)
        return 1;
    if (n >= sizeof(tmp)) { /* a number this long: parse a copy of the whole text */
        char *big = gp_arena_alloc(((sax *)ctx)->a, n + 1);

        if (big == NULL)
            return fail(ctx, "out of memory");
        memcpy(big, s, n);
        d = strtod(big, NULL);
    } else {
        memcpy(tmp, s, n);
        tmp[n] = '\0';
        d = strtod(tmp, NULL);
    }
    return scalar(ctx, make_number, &d);
}

static int on_string(void *ctx, const unsigned char *s, size_t n)
{
    sax *x = ctx;
    char *copy;
    cJSON *v;

    if (memchr(s, '\0', n) != NULL)
        return fail(x, "\\u0000 in a string");
    if (x->skip == 0 && next_mode(x) == M_NAME)
        return name_element(x, s, n);
    if (x->skip > 0 || next_mode(x) == M_SKIP) {
        cJSON_free(x->key);
        x->key = NULL;
        return 1;
    }
    copy = cJSON_malloc(n + 1);
    v = copy ? cJSON_CreateNull() : NULL;
    if (v == NULL) {
        cJSON_free(copy);
        return fail(x, "out of memory");
    }
    memcpy(copy, s, n);
    copy[n] = '\0';
    v->type = cJSON_String; /* as cJSON_CreateString makes it, without a second copy */
    v->valuestring = copy;
    return attach(x, v);
}

static int on_key(void *ctx, const unsigned char *s, size_t n)
{
    sax *x = ctx;

    if (memchr(s, '\0', n) != NULL)
        return fail(x, "\\u0000 in a member name");
    if (x->skip > 0)
        return 1;
    cJSON_free(x->key);
    x->key = cJSON_malloc(n + 1);
    if (x->key == NULL)
        return fail(x, "out of memory");
    memcpy(x->key, s, n);
    x->key[n] = '\0';
    x->key_mode = child_mode(x->stack[x->depth - 1].m, x->key);
    return 1;
}

/* Notes where the node that starts at the '{' just read begins in the body. */
static int span_start(sax *x)
{
    if (x->nitems == x->capitems) {
        size_t ncap = x->capitems ? x->capitems * 2 : 64;

        if (x->capitems > GP_EXTARGS_MAX_NODES)
            return fail(x, "too many nodes");
        x->off = gp_arena_grow(x->a, x->off, x->capitems * sizeof(size_t), ncap * sizeof(size_t));
        x->len = gp_arena_grow(x->a, x->len, x->capitems * sizeof(size_t), ncap * sizeof(size_t));
        if (x->off == NULL || x->len == NULL)
            return fail(x, "out of memory");
        x->capitems = ncap;
    }
    x->off[x->nitems] = x->base + yajl_get_bytes_consumed(x->h) - 1;
    return 1;
}

static int open_container(sax *x, bool object)
{
    mode m = x->skip > 0 ? M_SKIP : next_mode(x);
    cJSON *v;

    if (x->depth + x->skip >= GP_EXTARGS_MAX_DEPTH)
        return fail(x, "nested too deeply");
    if (m == M_NAME) { /* not a name: noted, and built like any value (duplicate keys in it) */
        if (!name_element(x, NULL, 0))
            return 0;
        m = M_ALL;
    }
    if (m == M_SKIP) {
        cJSON_free(x->key);
        x->key = NULL;
        x->skip++;
        return 1;
    }
    if (m == M_ITEM && object && !span_start(x))
        return 0;
    if (m == M_NAMES && !object) {
        x->names_open = x->base + yajl_get_bytes_consumed(x->h) - 1;
        x->names_arrays++;
    }
    v = object ? cJSON_CreateObject() : cJSON_CreateArray();
    if (!attach(x, v))
        return 0;
    x->stack[x->depth].node = v;
    x->stack[x->depth].m = m;
    x->depth++;
    return 1;
}

static int close_container(sax *x)
{
    if (x->skip > 0) {
        x->skip--;
        return 1;
    }
    x->depth--;
    if (x->stack[x->depth].m == M_ITEM && cJSON_IsObject(x->stack[x->depth].node)) {
        x->len[x->nitems] = x->base + yajl_get_bytes_consumed(x->h) - x->off[x->nitems];
        x->nitems++;
    }
    return 1;
}

static int on_start_map(void *ctx) { return open_container(ctx, true); }
static int on_start_array(void *ctx) { return open_container(ctx, false); }
static int on_end(void *ctx) { return close_container(ctx); }

static const yajl_callbacks sax_callbacks = {
    .yajl_null = on_null,
    .yajl_boolean = on_bool,
    .yajl_number = on_number,
    .yajl_string = on_string,
    .yajl_start_map = on_start_map,
    .yajl_map_key = on_key,
    .yajl_end_map = on_end,
    .yajl_start_array = on_start_array,
    .yajl_end_array = on_end,
};

static void held_link(sax *x, yblock *b)
{
    b->link.prev = &x->held;
    b->link.next = x->held.link.next;
    x->held.link.next->link.prev = b;
    x->held.link.next = b;
}

static void held_unlink(yblock *b)
{
    b->link.prev->link.next = b->link.next;
    b->link.next->link.prev = b->link.prev;
}

static void *y_malloc(void *ctx, size_t n)
{
    sax *x = ctx;
    yblock *b = n < SIZE_MAX - sizeof(yblock) ? malloc(sizeof(yblock) + n) : NULL;

    if (b == NULL)
        longjmp(x->oom, 1);
    held_link(x, b);
    return b + 1;
}

static void y_free(void *ctx, void *p)
{
    (void)ctx;
    if (p == NULL)
        return;
    held_unlink((yblock *)p - 1);
    free((yblock *)p - 1);
}

static void *y_realloc(void *ctx, void *p, size_t n)
{
    sax *x = ctx;
    yblock *b, *nb;

    if (p == NULL)
        return y_malloc(ctx, n);
    b = (yblock *)p - 1;
    held_unlink(b);
    nb = n < SIZE_MAX - sizeof(yblock) ? realloc(b, sizeof(yblock) + n) : NULL;
    if (nb == NULL) {
        held_link(x, b);
        longjmp(x->oom, 1);
    }
    held_link(x, nb);
    return nb + 1;
}

static void held_free_all(sax *x)
{
    while (x->held.link.next != &x->held) {
        yblock *b = x->held.link.next;

        held_unlink(b);
        free(b);
    }
}

/* Parses body into x->root (pruned), all but the bytes [cut_from, cut_to), which yajl does not
 * see (cut_from == cut_to: the whole body). GP_EINVAL with a message for text that is not JSON. */
static gp_status sax_run(sax *x, const char *body, size_t len, size_t cut_from, size_t cut_to,
                         gp_err *err)
{
    yajl_alloc_funcs funcs = { y_malloc, y_realloc, y_free, x };
    yajl_status ys;

    x->held.link.prev = x->held.link.next = &x->held;
    if (setjmp(x->oom) != 0) { /* yajl's own allocation failed */
        held_free_all(x);
        cJSON_free(x->key);
        x->key = NULL;
        cJSON_Delete(x->root);
        x->root = NULL;
        return GP_ENOMEM;
    }
    x->h = yajl_alloc(&sax_callbacks, &funcs, x);
    x->base = 0;
    ys = yajl_parse(x->h, (const unsigned char *)body, cut_from);
    if (ys == yajl_status_ok && cut_to < len) {
        x->base = cut_to;
        ys = yajl_parse(x->h, (const unsigned char *)body + cut_to, len - cut_to);
    }
    if (ys == yajl_status_ok)
        ys = yajl_complete_parse(x->h);
    cJSON_free(x->key);
    x->key = NULL;
    if (ys != yajl_status_ok) {
        size_t at = x->base + yajl_get_bytes_consumed(x->h);

        cJSON_Delete(x->root);
        x->root = NULL;
        yajl_free(x->h);
        if (x->error != NULL && strcmp(x->error, "out of memory") == 0)
            return GP_ENOMEM;
        gp_err_set(err, "body is not valid JSON (near byte %zu%s%s)", at,
                   x->error ? ": " : "", x->error ? x->error : "");
        return GP_EINVAL;
    }
    yajl_free(x->h);
    return GP_OK;
}

/* Back from p over JSON whitespace. */
static size_t back_ws(const char *b, size_t p)
{
    while (p > 0 && (b[p - 1] == ' ' || b[p - 1] == '\n' || b[p - 1] == '\r' || b[p - 1] == '\t'))
        p--;
    return p;
}

/* A body that ends the way kube-scheduler's do with nodeCacheCapable true,
 * "NodeNames":["a","b",...]}, read backwards from the end: true when every element is a
 * non-empty string without escapes or control characters, and at most GP_EXTARGS_MAX_NODES;
 * [*open, *close] are the array's brackets, *count the names and *bytes their length. Nothing
 * is kept: copy_tail_names() copies them once the rest of the body is known to agree. */
static bool tail_names(const char *b, size_t len, size_t *open, size_t *close, size_t *count,
                       size_t *bytes)
{
    size_t p = back_ws(b, len);

    *count = *bytes = 0;
    if (p == 0 || b[p - 1] != '}' || (p = back_ws(b, p - 1)) == 0 || b[p - 1] != ']')
        return false;
    *close = p - 1;
    p = back_ws(b, p - 1);
    while (p > 0 && b[p - 1] == '"') {
        size_t end = p - 1, q = end;

        while (q > 0 && b[q - 1] != '"' && b[q - 1] != '\\' && (unsigned char)b[q - 1] >= 0x20)
            q--;
        if (q == 0 || b[q - 1] != '"' || q == end || *count == GP_EXTARGS_MAX_NODES)
            return false;
        ++*count;
        *bytes += end - q;
        p = back_ws(b, q - 1);
        if (p > 0 && b[p - 1] == '[') {
            *open = p - 1;
            return true;
        }
        if (p == 0 || b[p - 1] != ',')
            return false;
        p = back_ws(b, p - 1);
    }
    return false;
}

/* The count names between the brackets at open and close (as tail_names() found them: plain
 * strings, commas and whitespace), into x->names in order, in two allocations. */
static bool copy_tail_names(sax *x, const char *b, size_t open, size_t close, size_t count,
                            size_t bytes)
{
    const char **names = gp_arena_alloc_raw(x->a, count * sizeof(char *));
    char *text = gp_arena_alloc_raw(x->a, bytes + count);
    const char *p = b + open + 1, *end = b + close;

    if (names == NULL || text == NULL)
        return false;
    for (size_t k = 0; k < count; k++) {
        const char *q = memchr(p, '"', (size_t)(end - p)), *e;
        size_t n;

        if (q == NULL || (e = memchr(q + 1, '"', (size_t)(end - q - 1))) == NULL)
            return false; /* cannot be: tail_names() found count strings here */
        n = (size_t)(e - ++q);

        memcpy(text, q, n);
        text[n] = '\0';
        names[k] = text;
        text += n + 1;
        p = e + 1;
    }
    x->names = names;
    x->nnames = x->nelems = x->capnames = count;
    return true;
}

/* Forgets a parse, to read the body again from the start. */
static void sax_reset(sax *x)
{
    cJSON_Delete(x->root);
    x->root = NULL;
    x->depth = x->skip = 0;
    x->error = NULL;
    x->nitems = x->nnames = x->nelems = 0;
    x->bad = x->too_many = false;
    x->names_open = SIZE_MAX;
    x->names_arrays = 0;
}

/* Parses body into x->root (pruned). A long NodeNames at the end (thousands of names, the bulk
 * of the body) is read by tail_names() and cut out of what yajl reads, which must then find
 * the top-level NodeNames array, once, exactly where the cut is; otherwise, and for any error,
 * the whole body is read again by yajl alone (whose messages and checks then apply). */
static gp_status sax_parse(sax *x, const char *body, size_t len, gp_err *err)
{
    size_t open = 0, close = 0, count, bytes;
    gp_err ignored = { "" };
    gp_status st;

    if (tail_names(body, len, &open, &close, &count, &bytes)) {
        st = sax_run(x, body, len, open + 1, close, &ignored);
        if (st == GP_OK && x->names_arrays == 1 && x->names_open == open) {
            if (copy_tail_names(x, body, open, close, count, bytes))
                return GP_OK;
            st = GP_ENOMEM;
        }
        sax_reset(x);
        if (st == GP_ENOMEM)
            return st;
    }
    return sax_run(x, body, len, len, len, err);
}

/* The usual body (nodeCacheCapable: a Pod, no Nodes, NodeNames last) without yajl: the names
 * read from the end (tail_names), the rest with NodeNames' brackets closed up parsed whole by
 * gp_json_parse_unambiguous (duplicates refused there). The parse must find NodeNames as the
 * document's last member and an empty array: then its '[' is the one tail_names found, and the
 * names are the array's elements. False, with nothing kept, when any of it does not hold, when
 * the rest is over GP_EXTARGS_STRICT_MAX bytes or holds full Nodes (which yajl prunes as it reads)
 * or the text a BOM or \u0000 (yajl refuses those), or when memory is short: the yajl path then
 * reads the body, with its limits and messages. */
static bool names_body_fast(sax *x, const char *body, size_t len)
{
    size_t open, close, count, bytes, head, n;
    const cJSON *last, *nodes;
    char *text;

    if ((len >= 3 && memcmp(body, "\xEF\xBB\xBF", 3) == 0) ||
        !tail_names(body, len, &open, &close, &count, &bytes))
        return false;
    head = open + 1;
    n = head + (len - close);
    if (n > GP_EXTARGS_STRICT_MAX || (text = gp_arena_alloc_raw(x->a, n)) == NULL)
        return false;
    memcpy(text, body, head);
    memcpy(text + head, body + close, len - close);
    if (gp_json_has_nul_escape(text, n))
        return false;
    x->root = gp_json_parse_unambiguous(text, n, GP_EXTARGS_MAX_DEPTH - 1, NULL);
    last = cJSON_IsObject(x->root) && x->root->child != NULL ? x->root->child->prev : NULL;
    nodes = cJSON_GetObjectItemCaseSensitive(x->root, "Nodes");
    if (last != NULL && last->string != NULL && strcmp(last->string, "NodeNames") == 0 &&
        cJSON_IsArray(last) && last->child == NULL && (nodes == NULL || cJSON_IsNull(nodes)) &&
        copy_tail_names(x, body, open, close, count, bytes))
        return true;
    cJSON_Delete(x->root);
    x->root = NULL;
    return false;
}

static gp_status alloc_lists(gp_arena *a, gp_extargs *args, size_t n, gp_err *err)
{
    if (n > GP_EXTARGS_MAX_NODES) {
        gp_err_set(err, "more than %d nodes", GP_EXTARGS_MAX_NODES);
        return GP_ETOOBIG;
    }
    args->names = gp_arena_alloc(a, (n ? n : 1) * sizeof(char *));
    args->nodes = gp_arena_alloc(a, (n ? n : 1) * sizeof(cJSON *));
    if (args->names == NULL || args->nodes == NULL)
        return GP_ENOMEM;
    return GP_OK;
}

static gp_status decode_full(const cJSON *items, const sax *x, gp_arena *a, gp_extargs *args,
                             gp_err *err)
{
    const cJSON *it;
    gp_status st = alloc_lists(a, args, (size_t)cJSON_GetArraySize(items), err);

    if (st != GP_OK)
        return st;
    args->full_nodes = true;
    args->body = x->body;
    args->node_off = x->off;
    args->node_len = x->len;
    cJSON_ArrayForEach(it, items)
    {
        const char *name = gp_object_name(it);

        if (name == NULL) {
            gp_err_set(err, "Nodes.items[%zu]: a node without metadata.name", args->n);
            return GP_EINVAL;
        }
        args->nodes[args->n] = it;
        args->names[args->n++] = name;
    }
    if (args->n != x->nitems) { /* every item is an object here: each has its span */
        gp_err_set(err, "Nodes.items: %zu nodes but %zu spans", args->n, x->nitems);
        return GP_EINVAL;
    }
    return GP_OK;
}

/* NodeNames, as the parse collected them (the tree holds an empty array in their place). */
static gp_status decode_names(const sax *x, gp_arena *a, gp_extargs *args, gp_err *err)
{
    if (x->too_many) {
        gp_err_set(err, "more than %d nodes", GP_EXTARGS_MAX_NODES);
        return GP_ETOOBIG;
    }
    if (x->bad) {
        gp_err_set(err, "NodeNames[%zu]: must be a non-empty string", x->bad_name);
        return GP_EINVAL;
    }
    args->names = x->names != NULL ? x->names : gp_arena_alloc(a, sizeof(char *));
    args->n = x->nnames;
    return args->names != NULL ? GP_OK : GP_ENOMEM;
}

/* The ExtenderArgs in root (parsed, without duplicate names): the Pod, and NodeNames or Nodes.
 * kube-scheduler sends one of the two; given both (as upstream's round-trip test writes them),
 * full Nodes win when there are any: they need no cluster view to be read. */
static gp_status decode_args(const sax *x, gp_arena *a, const cJSON *root, gp_extargs *args,
                             gp_err *err)
{
    const cJSON *nodes, *names, *items;

    args->pod = cJSON_GetObjectItemCaseSensitive(root, "Pod");
    nodes = cJSON_GetObjectItemCaseSensitive(root, "Nodes");
    names = cJSON_GetObjectItemCaseSensitive(root, "NodeNames");
    items = cJSON_GetObjectItemCaseSensitive(nodes, "items");
    if (!cJSON_IsObject(root) || !cJSON_IsObject(args->pod)) {
        gp_err_set(err, "not an ExtenderArgs: no Pod object");
        return GP_EINVAL;
    }
    if (cJSON_IsArray(names) && !(cJSON_IsArray(items) && items->child != NULL))
        return decode_names(x, a, args, err);
    if (cJSON_IsArray(items))
        return decode_full(items, x, a, args, err);
    if (cJSON_IsObject(nodes) && items == NULL)
        return decode_full(NULL, x, a, args, err);
    gp_err_set(err, "not an ExtenderArgs: neither NodeNames nor Nodes.items");
    return GP_EINVAL;
}

gp_status gp_extargs_decode(const char *body, size_t len, gp_arena *a, cJSON **root,
                            gp_extargs *args, gp_err *err)
{
    const char *dup = NULL;
    frame stack[GP_EXTARGS_MAX_DEPTH + 1]; /* each written before it is read */
    sax x = { .body = body, .a = a, .stack = stack, .names_open = SIZE_MAX };
    gp_status st;

    memset(args, 0, sizeof(*args));
    *root = NULL;
    if (!gp_utf8_valid(body, len)) {
        gp_err_set(err, "body is not valid UTF-8 text");
        return GP_EINVAL;
    }
    if (names_body_fast(&x, body, len)) {
        *root = x.root;
        args->strict_parse = true;
        return decode_args(&x, a, *root, args, err);
    }
    st = sax_parse(&x, body, len, err);
    if (st != GP_OK)
        return st;
    *root = x.root;
    st = gp_json_find_duplicate_key(*root, &dup);
    if (st != GP_OK) {
        if (st == GP_EINVAL)
            gp_err_set(err, "duplicate key \"%.64s\"", dup);
        return st;
    }
    return decode_args(&x, a, *root, args, err);
}

/* ---- encoding: written directly (a tree of thousands of nodes costs more than the decision) */

static void put_failed(gp_strbuf *b, const char *key, const gp_extargs *args,
                       const gp_filter_out *res, int verdict)
{
    bool first = true;

    gp_strbuf_put(b, ",", 1);
    gp_strbuf_json_string(b, key);
    gp_strbuf_put(b, ":{", 2);
    for (size_t i = 0; i < args->n; i++) {
        if (res[i].verdict != verdict)
            continue;
        if (!first)
            gp_strbuf_put(b, ",", 1);
        first = false;
        gp_strbuf_json_string(b, args->names[i]);
        gp_strbuf_put(b, ":", 1);
        gp_strbuf_json_string(b, res[i].reason ? res[i].reason : "");
    }
    gp_strbuf_put(b, "}", 1);
}

/* The passing nodes, in the form they were asked in: names, or the Node objects' own bytes. */
static void put_passing(gp_strbuf *b, const gp_extargs *args, const gp_filter_out *res)
{
    bool first = true;

    gp_strbuf_puts(b, args->full_nodes ? "{\"Nodes\":{\"metadata\":{},\"items\":["
                                       : "{\"NodeNames\":[");
    for (size_t i = 0; i < args->n; i++) {
        if (res[i].verdict != 0)
            continue;
        if (!first)
            gp_strbuf_put(b, ",", 1);
        first = false;
        if (args->full_nodes)
            gp_strbuf_put(b, args->body + args->node_off[i], args->node_len[i]);
        else
            gp_strbuf_json_string(b, args->names[i]);
    }
    gp_strbuf_puts(b, args->full_nodes ? "]},\"NodeNames\":null" : "],\"Nodes\":null");
}

gp_status gp_extargs_encode_filter(const gp_extargs *args, const gp_filter_out *res,
                                   const char *error, char **out, size_t *len)
{
    gp_strbuf b;

    if (error != NULL)
        return gp_extargs_encode_filter_error(error, out, len);
    gp_strbuf_init(&b, 0);
    put_passing(&b, args, res);
    put_failed(&b, "FailedNodes", args, res, 1);
    put_failed(&b, "FailedAndUnresolvableNodes", args, res, 2);
    gp_strbuf_puts(&b, ",\"Error\":\"\"}");
    return gp_strbuf_take(&b, out, len);
}

gp_status gp_extargs_encode_filter_error(const char *error, char **out, size_t *len)
{
    gp_strbuf b;

    gp_strbuf_init(&b, 0);
    gp_strbuf_puts(&b, "{\"Nodes\":null,\"NodeNames\":null,\"FailedNodes\":{},"
                       "\"FailedAndUnresolvableNodes\":{},\"Error\":");
    gp_strbuf_json_string(&b, error);
    gp_strbuf_put(&b, "}", 1);
    return gp_strbuf_take(&b, out, len);
}

/* One HostPriority, {"Host":"name","Score":n} (thousands a call): one append when the name
 * needs no escape, as node names never do. */
static void put_priority(gp_strbuf *b, bool first, const char *host, int score)
{
    static const char head[] = ",{\"Host\":\"", mid[] = "\",\"Score\":";
    size_t hl = sizeof(head) - 1 - first, n = strlen(host), ml = sizeof(mid) - 1, k;
    char num[GP_INT_TEXT_MAX], *p;

    if (!gp_json_plain(host, n)) {
        gp_strbuf_put(b, head + first, hl - 1);
        gp_strbuf_json_string(b, host);
        gp_strbuf_put(b, mid + 1, ml - 1);
        gp_strbuf_int(b, score);
        gp_strbuf_put(b, "}", 1);
        return;
    }
    k = gp_int_text(num, score);
    if ((p = gp_strbuf_extend(b, hl + n + ml + k + 1)) == NULL)
        return;
    memcpy(p, head + first, hl);
    memcpy(p += hl, host, n);
    memcpy(p += n, mid, ml);
    memcpy(p += ml, num, k);
    p[k] = '}';
}

gp_status gp_extargs_encode_priorities(const gp_extargs *args, const int *scores, char **out,
                                       size_t *len)
{
    gp_strbuf b;

    gp_strbuf_init(&b, 0);
    gp_strbuf_put(&b, "[", 1);
    for (size_t i = 0; i < args->n; i++)
        put_priority(&b, i == 0, args->names[i], scores[i]);
    gp_strbuf_put(&b, "]", 1);
    return gp_strbuf_take(&b, out, len);
}
