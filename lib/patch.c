/* SPDX-License-Identifier: Apache-2.0 */
/* RFC 6902 patch building over a copy-on-write view of the pod (see patch.h).
 *
 * The view starts as a shallow copy of the pod's top object whose members are references: nodes
 * that stand for the pod's own (same type, key, value, and for objects and arrays the same member
 * list) without owning them (cJSON_IsReference, cJSON_StringIsConst: cJSON_Delete frees the node
 * alone). Reading goes through references as through the pod. Before a change writes into an
 * object or array, writable() replaces each reference on the path from the top with an owned
 * shallow copy of its own, so a change costs the members of the objects on its path, not the pod.
 * A node taken from the view must not be kept across a write: writable() may replace it. */
#include "gpupack/patch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpupack/json.h"
#include "gpupack/jsonpool.h"
#include "gpupack/strbuf.h"

#define PATH_MAX_TOKENS 12
#define PATH_MAX_LEN 1024
#define VALUE_PRINT_BUF 1024 /* a value printed in place; larger ones are printed by cJSON */

typedef struct {
    cJSON *doc;    /* the view */
    gp_strbuf ops; /* the patch text, "[" and the operations so far */
    size_t nops;
} builder;

/* Writes key escaped per RFC 6901 at buf + *n, NUL-terminated, advancing *n: the runs between
 * '~' and '/' are copied whole. */
static gp_status escape_at(const char *key, char *buf, size_t bufsz, size_t *n)
{
    size_t o = *n;

    for (;;) {
        size_t k = strcspn(key, "~/");

        if (o + k + 1 > bufsz)
            return GP_ETOOBIG;
        memcpy(buf + o, key, k);
        o += k;
        key += k;
        if (*key == '\0')
            break;
        if (o + 3 > bufsz)
            return GP_ETOOBIG;
        buf[o++] = '~';
        buf[o++] = *key++ == '~' ? '0' : '1';
    }
    buf[o] = '\0';
    *n = o;
    return GP_OK;
}

gp_status gp_json_pointer_escape(const char *key, char *buf, size_t bufsz)
{
    size_t n = strlen(buf);

    return escape_at(key, buf, bufsz, &n);
}

static gp_status path_string(const char *const *tok, size_t n, bool append, char *buf,
                             size_t bufsz)
{
    size_t len = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        if (len + 2 > bufsz)
            return GP_ETOOBIG;
        buf[len++] = '/';
        buf[len] = '\0';
        if (escape_at(tok[i], buf, bufsz, &len) != GP_OK)
            return GP_ETOOBIG;
    }
    if (append) {
        if (len + 3 > bufsz)
            return GP_ETOOBIG;
        memcpy(buf + len, "/-", 3);
    }
    return GP_OK;
}

/* Appends value's JSON text (as cJSON_PrintUnformatted writes it; a string through the one
 * escaper, gp_strbuf_json_string). */
static gp_status put_value(gp_strbuf *o, const cJSON *value)
{
    char buf[VALUE_PRINT_BUF];
    char *big;

    if (cJSON_IsString(value)) { /* most values: a label's, an annotation's */
        gp_strbuf_json_string(o, value->valuestring);
        return GP_OK;
    }
    if (cJSON_PrintPreallocated((cJSON *)value, buf, (int)sizeof(buf), false)) {
        gp_strbuf_puts(o, buf);
        return GP_OK;
    }
    big = cJSON_PrintUnformatted(value);
    if (big == NULL)
        return GP_ENOMEM;
    gp_strbuf_puts(o, big);
    cJSON_free(big);
    return GP_OK;
}

typedef enum { OP_ADD, OP_REPLACE, OP_REMOVE } op_kind;

/* Writes one operation into the patch; value (may be NULL) is printed as it is now. */
static gp_status emit(builder *b, op_kind op, const char *const *tok, size_t n, bool append,
                      const cJSON *value)
{
    static const struct {
        const char *text;
        size_t len;
    } heads[] = {
#define HEAD(name) {",{\"op\":\"" name "\",\"path\":", sizeof(",{\"op\":\"" name "\",\"path\":") - 1}
        [OP_ADD] = HEAD("add"),
        [OP_REPLACE] = HEAD("replace"),
        [OP_REMOVE] = HEAD("remove"),
#undef HEAD
    };
    size_t first = b->nops++ == 0; /* the first operation has no comma */
    char path[PATH_MAX_LEN];

    if (path_string(tok, n, append, path, sizeof(path)) != GP_OK)
        return GP_EINTERNAL;
    gp_strbuf_put(&b->ops, heads[op].text + first, heads[op].len - first);
    gp_strbuf_json_string(&b->ops, path);
    if (value != NULL) {
        gp_strbuf_put(&b->ops, ",\"value\":", 9);
        if (put_value(&b->ops, value) != GP_OK)
            return GP_ENOMEM;
    }
    gp_strbuf_put(&b->ops, "}", 1);
    return b->ops.failed ? GP_ENOMEM : GP_OK;
}

static bool parse_index(const char *tok, int *idx)
{
    long v = 0;

    if (*tok == '\0')
        return false;
    for (const char *p = tok; *p; p++) {
        if (*p < '0' || *p > '9' || v > 1000000)
            return false;
        v = v * 10 + (*p - '0');
    }
    *idx = (int)v;
    return true;
}

static cJSON *child(cJSON *node, const char *tok)
{
    int idx;

    if (cJSON_IsObject(node))
        return (cJSON *)gp_json_member(node, tok);
    if (cJSON_IsArray(node) && parse_index(tok, &idx))
        return cJSON_GetArrayItem(node, idx);
    return NULL;
}

static cJSON *get(cJSON *doc, const char *const *tok, size_t n)
{
    cJSON *node = doc;

    for (size_t i = 0; i < n && node != NULL; i++)
        node = child(node, tok[i]);
    return node;
}

/* A node of the view that stands for the pod's node orig without owning anything of it. */
static cJSON *ref_of(const cJSON *orig)
{
    cJSON *r = cJSON_CreateNull();

    if (r == NULL)
        return NULL;
    *r = *orig;
    r->next = NULL;
    r->prev = NULL;
    r->type = orig->type | cJSON_IsReference | cJSON_StringIsConst;
    return r;
}

/* An owned object or array (as orig is) whose members are references to orig's; its key is
 * orig's, not owned. */
static cJSON *shallow_copy(const cJSON *orig)
{
    cJSON *o = cJSON_IsArray(orig) ? cJSON_CreateArray() : cJSON_CreateObject();

    if (o == NULL)
        return NULL;
    for (const cJSON *m = orig->child; m != NULL; m = m->next) {
        cJSON *r = ref_of(m);

        if (r == NULL || !cJSON_AddItemToArray(o, r)) {
            cJSON_Delete(r);
            cJSON_Delete(o);
            return NULL;
        }
    }
    o->string = orig->string;
    o->type |= cJSON_StringIsConst;
    return o;
}

/* The node at tok[0..n) (NULL when absent), with every object and array from the top down to it
 * owned by the view, so that it can be written. *st is GP_ENOMEM when a copy failed. */
static cJSON *writable(builder *b, const char *const *tok, size_t n, gp_status *st)
{
    cJSON *node = b->doc;

    *st = GP_OK;
    for (size_t i = 0; i < n && node != NULL; i++) {
        cJSON *next = child(node, tok[i]), *own;

        if (next != NULL && (next->type & cJSON_IsReference) &&
            (cJSON_IsObject(next) || cJSON_IsArray(next))) {
            own = shallow_copy(next);
            if (own == NULL) {
                *st = GP_ENOMEM;
                return NULL;
            }
            cJSON_ReplaceItemViaPointer(node, next, own); /* frees the reference node alone */
            next = own;
        }
        node = next;
    }
    return node;
}

/* Wraps value in objects for tok[from..n): {"tok[from]": {... {"tok[n-1]": value}}}. Takes
 * value. */
static cJSON *nest(const char *const *tok, size_t from, size_t n, cJSON *value)
{
    for (size_t i = n; i-- > from + 1;) {
        cJSON *o = cJSON_CreateObject();

        if (o == NULL || !cJSON_AddItemToObject(o, tok[i], value)) {
            cJSON_Delete(o);
            cJSON_Delete(value);
            return NULL;
        }
        value = o;
    }
    return value;
}

/* Stores value (taken) under key in the object parent of the working copy. */
static gp_status store(cJSON *parent, const char *key, cJSON *value)
{
    if (gp_json_member(parent, key) != NULL) {
        if (!cJSON_ReplaceItemInObjectCaseSensitive(parent, key, value)) {
            cJSON_Delete(value);
            return GP_ENOMEM;
        }
        return GP_OK;
    }
    if (!cJSON_AddItemToObject(parent, key, value)) {
        cJSON_Delete(value);
        return GP_ENOMEM;
    }
    return GP_OK;
}

/* Sets tok[0..n) to value (taken), creating the first missing (or null) ancestor with the value
 * nested inside it. Ancestors that exist with another type mean the pod is not what the change
 * expects: GP_EINTERNAL. */
static gp_status set(builder *b, const char *const *tok, size_t n, cJSON *value)
{
    cJSON *node = b->doc, *wrapped;
    size_t k = 0;
    bool existed;
    gp_status st;

    while (k + 1 < n) {
        cJSON *next = child(node, tok[k]);

        if (next == NULL || cJSON_IsNull(next))
            break;
        if (!cJSON_IsObject(next) && !cJSON_IsArray(next)) {
            cJSON_Delete(value);
            return GP_EINTERNAL;
        }
        node = next;
        k++;
    }
    if (!cJSON_IsObject(node)) {
        cJSON_Delete(value);
        return GP_EINTERNAL;
    }
    node = writable(b, tok, k, &st);
    if (node == NULL) {
        cJSON_Delete(value);
        return st;
    }
    wrapped = nest(tok, k, n, value);
    if (wrapped == NULL)
        return GP_ENOMEM;
    existed = k + 1 == n && gp_json_member(node, tok[k]) != NULL;
    st = emit(b, existed ? OP_REPLACE : OP_ADD, tok, k + 1, false, wrapped);
    if (st != GP_OK) {
        cJSON_Delete(wrapped);
        return st;
    }
    return store(node, tok[k], wrapped);
}

/* Appends value (taken) to the array at tok, creating the array when absent. */
static gp_status append(builder *b, const char *const *tok, size_t n, cJSON *value)
{
    cJSON *arr = get(b->doc, tok, n);
    cJSON *wrap;
    gp_status st;

    if (cJSON_IsArray(arr)) {
        st = emit(b, OP_ADD, tok, n, true, value);
        if (st == GP_OK)
            arr = writable(b, tok, n, &st);
        if (st != GP_OK) {
            cJSON_Delete(value);
            return st;
        }
        if (!cJSON_AddItemToArray(arr, value)) {
            cJSON_Delete(value);
            return GP_ENOMEM;
        }
        return GP_OK;
    }
    wrap = cJSON_CreateArray();
    if (wrap == NULL || !cJSON_AddItemToArray(wrap, value)) {
        cJSON_Delete(wrap);
        cJSON_Delete(value);
        return GP_ENOMEM;
    }
    return set(b, tok, n, wrap);
}

static gp_status remove_at(builder *b, const char *const *tok, size_t n)
{
    cJSON *parent = get(b->doc, tok, n - 1);
    gp_status st;

    if (gp_json_member(parent, tok[n - 1]) == NULL) /* (NULL too when parent is no object) */
        return GP_OK;
    st = emit(b, OP_REMOVE, tok, n, false, NULL);
    if (st == GP_OK)
        parent = writable(b, tok, n - 1, &st);
    if (st == GP_OK) /* (writable() made parent the view's own: look again) */
        cJSON_Delete(cJSON_DetachItemViaPointer(parent, (cJSON *)gp_json_member(parent, tok[n - 1])));
    return st;
}

static gp_status set_string(builder *b, const char *const *tok, size_t n, const char *s)
{
    cJSON *v = cJSON_CreateString(s);

    return v ? set(b, tok, n, v) : GP_ENOMEM;
}

/* Integers go out as raw text, never through a double (tolerationSeconds is an int64). */
static cJSON *int_json(long long v)
{
    char buf[24];

    snprintf(buf, sizeof(buf), "%lld", v);
    return cJSON_CreateRaw(buf);
}

static bool add_int(cJSON *o, const char *key, long long v)
{
    cJSON *n = int_json(v);

    if (n == NULL || !cJSON_AddItemToObject(o, key, n)) {
        cJSON_Delete(n);
        return false;
    }
    return true;
}

/* Appends ,"name":"value" (no comma before the first member); head is "\"name\":". */
static void put_member(gp_strbuf *o, const char *head, const char *value)
{
    if (o->len > 1)
        gp_strbuf_put(o, ",", 1);
    gp_strbuf_puts(o, head);
    gp_strbuf_json_string(o, value);
}

/* A toleration as a raw node of its JSON text, members in the order cJSON printed the object
 * this replaced (key, operator, value, effect, tolerationSeconds): no change reads inside a
 * toleration, so the view need not hold it as an object. */
static cJSON *toleration_json(const gp_toleration *t)
{
    gp_strbuf o;
    cJSON *raw = NULL;

    gp_strbuf_init(&o, 0);
    gp_strbuf_put(&o, "{", 1);
    if (*t->key)
        put_member(&o, "\"key\":", t->key);
    put_member(&o, "\"operator\":", t->op);
    if (*t->value)
        put_member(&o, "\"value\":", t->value);
    if (*t->effect)
        put_member(&o, "\"effect\":", t->effect);
    if (t->has_seconds) {
        static const char name[] = ",\"tolerationSeconds\":";

        gp_strbuf_put(&o, name, sizeof(name) - 1);
        gp_strbuf_int(&o, t->seconds);
    }
    gp_strbuf_put(&o, "}", 1);
    if (!o.failed)
        raw = cJSON_CreateRaw(o.p);
    gp_strbuf_free(&o);
    return raw;
}

/* One matchExpressions element: {"key": ..., "operator": ..., "values": [...]}. */
static cJSON *expr_json(const gp_selector_req *r)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *vals = cJSON_CreateStringArray((const char *const *)r->values, (int)r->nvalues);

    if (o == NULL || vals == NULL || cJSON_AddStringToObject(o, "key", r->key) == NULL ||
        cJSON_AddStringToObject(o, "operator", r->op) == NULL ||
        !cJSON_AddItemToObject(o, "values", vals)) {
        if (vals != NULL && cJSON_GetObjectItemCaseSensitive(o, "values") != vals)
            cJSON_Delete(vals);
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

static cJSON *exprs_json(const gp_selector_req *exprs, size_t n)
{
    cJSON *arr = cJSON_CreateArray();

    for (size_t i = 0; arr != NULL && i < n; i++) {
        cJSON *e = expr_json(&exprs[i]);

        if (e == NULL || !cJSON_AddItemToArray(arr, e)) {
            cJSON_Delete(e);
            cJSON_Delete(arr);
            return NULL;
        }
    }
    return arr;
}

static gp_status add_preferred(builder *b, const gp_change *c)
{
    static const char *const tok[] = { "spec", "affinity", "nodeAffinity",
                                       "preferredDuringSchedulingIgnoredDuringExecution" };
    cJSON *term = cJSON_CreateObject();
    cJSON *pref = term ? cJSON_AddObjectToObject(term, "preference") : NULL;
    cJSON *exprs = exprs_json(c->exprs, c->nexprs);

    if (pref == NULL || exprs == NULL || !cJSON_AddItemToObject(pref, "matchExpressions", exprs) ||
        !add_int(term, "weight", c->weight)) {
        if (exprs != NULL && (pref == NULL || pref->child != exprs))
            cJSON_Delete(exprs);
        cJSON_Delete(term);
        return GP_ENOMEM;
    }
    return append(b, tok, 4, term);
}

/* True when the JSON array vals holds exactly r's values (each list's values are unique). */
static bool same_values(const cJSON *vals, const gp_selector_req *r)
{
    const cJSON *v;

    if (cJSON_GetArraySize(vals) != (int)r->nvalues)
        return false;
    cJSON_ArrayForEach(v, vals)
    {
        size_t i = 0;

        while (i < r->nvalues && !(cJSON_IsString(v) && strcmp(v->valuestring, r->values[i]) == 0))
            i++;
        if (i == r->nvalues)
            return false;
    }
    return true;
}

static bool term_has_expr(const cJSON *term, const gp_selector_req *r)
{
    const cJSON *exprs = cJSON_GetObjectItemCaseSensitive(term, "matchExpressions");
    const cJSON *e;

    cJSON_ArrayForEach(e, exprs)
    {
        const cJSON *k = cJSON_GetObjectItemCaseSensitive(e, "key");
        const cJSON *op = cJSON_GetObjectItemCaseSensitive(e, "operator");

        if (cJSON_IsString(k) && strcmp(k->valuestring, r->key) == 0 && cJSON_IsString(op) &&
            strcmp(op->valuestring, r->op) == 0 &&
            same_values(cJSON_GetObjectItemCaseSensitive(e, "values"), r))
            return true;
    }
    return false;
}

/* A term with no expression and no field matches no node (the decision leaves it alone: adding
 * the pool to it would widen it). */
static bool term_is_empty(const cJSON *term)
{
    return cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(term, "matchExpressions")) == 0 &&
           cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(term, "matchFields")) == 0;
}

static gp_status add_required(builder *b, const gp_change *c)
{
    const char *tok[8] = { "spec", "affinity", "nodeAffinity",
                           "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms" };
    cJSON *terms = get(b->doc, tok, 5);
    int nterms = cJSON_IsArray(terms) ? cJSON_GetArraySize(terms) : 0;
    char idx[16];
    gp_status st = GP_OK;

    if (nterms == 0) {
        cJSON *arr = cJSON_CreateArray(), *term = cJSON_CreateObject();
        cJSON *exprs = exprs_json(c->exprs, c->nexprs);

        if (arr == NULL || term == NULL || exprs == NULL || !cJSON_AddItemToArray(arr, term) ||
            !cJSON_AddItemToObject(term, "matchExpressions", exprs)) {
            cJSON_Delete(arr);
            if (arr == NULL || arr->child != term)
                cJSON_Delete(term);
            if (term == NULL || term->child != exprs)
                cJSON_Delete(exprs);
            return GP_ENOMEM;
        }
        return set(b, tok, 5, arr);
    }
    tok[5] = idx;
    tok[6] = "matchExpressions";
    for (int i = 0; st == GP_OK && i < nterms; i++) {
        snprintf(idx, sizeof(idx), "%d", i);
        if (term_is_empty(get(b->doc, tok, 6)))
            continue;
        for (size_t j = 0; st == GP_OK && j < c->nexprs; j++) {
            cJSON *e;

            /* looked up again each time: an append replaces the view's nodes on its path */
            if (term_has_expr(get(b->doc, tok, 6), &c->exprs[j]))
                continue;
            e = expr_json(&c->exprs[j]);
            st = e ? append(b, tok, 7, e) : GP_ENOMEM;
        }
    }
    return st;
}

static gp_status replace_resource(builder *b, const gp_change *c)
{
    static const char *const subs[] = { "limits", "requests" };
    const char *tok[6];
    char idx[16];

    snprintf(idx, sizeof(idx), "%d", c->container->index);
    tok[0] = "spec";
    tok[1] = c->container->init ? "initContainers" : "containers";
    tok[2] = idx;
    tok[3] = "resources";
    if (!cJSON_IsObject(get(b->doc, tok, 3)))
        return GP_EINTERNAL; /* the decision names a container the pod does not have */
    for (size_t i = 0; i < 2; i++) {
        gp_status st;

        tok[4] = subs[i];
        tok[5] = c->key;
        if (get(b->doc, tok, 6) == NULL)
            continue;
        st = remove_at(b, tok, 6);
        tok[5] = c->value;
        if (st == GP_OK)
            st = set_string(b, tok, 6, "1");
        if (st != GP_OK)
            return st;
    }
    return GP_OK;
}

static gp_status apply_change(builder *b, const gp_change *c)
{
    const char *tok[3];
    cJSON *v;

    switch (c->kind) {
    case GP_CH_SET_LABEL:
    case GP_CH_SET_ANNOTATION:
        tok[0] = "metadata";
        tok[1] = c->kind == GP_CH_SET_LABEL ? "labels" : "annotations";
        tok[2] = c->key;
        return set_string(b, tok, 3, c->value);
    case GP_CH_ADD_TOLERATION:
        tok[0] = "spec";
        tok[1] = "tolerations";
        v = toleration_json(c->tol);
        return v ? append(b, tok, 2, v) : GP_ENOMEM;
    case GP_CH_SET_PRIORITY_CLASS:
    case GP_CH_SET_SCHEDULER_NAME:
        tok[0] = "spec";
        tok[1] = c->kind == GP_CH_SET_PRIORITY_CLASS ? "priorityClassName" : "schedulerName";
        return set_string(b, tok, 2, c->value);
    case GP_CH_REMOVE_PRIORITY:
    case GP_CH_REMOVE_PREEMPTION:
        tok[0] = "spec";
        tok[1] = c->kind == GP_CH_REMOVE_PRIORITY ? "priority" : "preemptionPolicy";
        return remove_at(b, tok, 2);
    case GP_CH_ADD_PREFERRED:
        return add_preferred(b, c);
    case GP_CH_ADD_REQUIRED:
        return add_required(b, c);
    case GP_CH_REPLACE_RESOURCE:
        return replace_resource(b, c);
    case GP_CH_SET_ACTIVE_DEADLINE:
        tok[0] = "spec";
        tok[1] = "activeDeadlineSeconds";
        v = int_json(c->seconds);
        return v ? set(b, tok, 2, v) : GP_ENOMEM;
    }
    return GP_EINTERNAL;
}

gp_status gp_patch_build(const cJSON *pod, const gp_decision *d, char **out, size_t *len)
{
    builder b = { .doc = NULL, .nops = 0 };
    gp_status st = GP_OK;

    *out = NULL;
    *len = 0;
    /* No limit of its own: the text is at most GP_MAX_CHANGES operations, each a path under
     * PATH_MAX_LEN and a value the decision made. */
    gp_strbuf_init(&b.ops, 0);
    gp_strbuf_puts(&b.ops, "[");
    if (d->nchanges > 0) {
        b.doc = pod == NULL                                 ? NULL
                : cJSON_IsObject(pod) || cJSON_IsArray(pod) ? shallow_copy(pod)
                                                            : ref_of(pod);
        if (b.doc == NULL)
            st = GP_ENOMEM;
    }
    for (size_t i = 0; st == GP_OK && i < d->nchanges; i++)
        st = apply_change(&b, &d->changes[i]);
    gp_strbuf_puts(&b.ops, "]");
    if (st == GP_OK)
        st = gp_strbuf_take(&b.ops, out, len);
    gp_strbuf_free(&b.ops);
    gp_json_pool_drop_here(b.doc); /* made in this call: with a request's pool, it goes with it */
    return st;
}
