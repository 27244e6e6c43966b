/* SPDX-License-Identifier: Apache-2.0 */
/* A tiny, strict RFC 6902 applier for the unit tests: "add", "remove" and "replace" only (the
 * operations gpupack emits), RFC 6901 pointers with "~1" and "~0" unescaped, "-" to append to an
 * array. It is stricter than kube-apiserver's: an "add" whose parent is missing, a "replace" or
 * "remove" of a missing member, or any other operation fails, so a patch that only works by
 * accident fails the test that applies it. Values go through cJSON, so numbers beyond 2^53 are
 * not kept exactly: compare such numbers on the patch text instead.
 *
 *   cJSON *doc = cJSON_Parse(pod);
 *   if (jp_apply(doc, patch_text, msg, sizeof(msg)) != 0) ... msg says why ...
 */
#ifndef JSONPATCH_APPLY_H
#define JSONPATCH_APPLY_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#define JP_MAX_TOKENS 32
#define JP_MAX_TOKEN_LEN 512

typedef struct {
    char tok[JP_MAX_TOKENS][JP_MAX_TOKEN_LEN];
    size_t n;
} jp_pointer;

/* Splits an RFC 6901 pointer into unescaped tokens. Returns 0, or -1 when malformed. */
static int jp_parse_pointer(const char *path, jp_pointer *p)
{
    p->n = 0;
    if (*path == '\0')
        return 0; /* the whole document */
    if (*path != '/')
        return -1;
    while (*path == '/') {
        size_t len = 0;
        char *t;

        if (p->n == JP_MAX_TOKENS)
            return -1;
        t = p->tok[p->n++];
        path++;
        while (*path != '\0' && *path != '/') {
            char c = *path++;

            if (c == '~') {
                if (*path == '0')
                    c = '~';
                else if (*path == '1')
                    c = '/';
                else
                    return -1;
                path++;
            }
            if (len + 1 >= JP_MAX_TOKEN_LEN)
                return -1;
            t[len++] = c;
        }
        t[len] = '\0';
    }
    return 0;
}

/* An array index token: decimal digits without a leading zero (RFC 6901). -1 when not one. */
static int jp_index(const char *tok)
{
    long v = 0;

    if (*tok == '\0' || (tok[0] == '0' && tok[1] != '\0'))
        return -1;
    for (const char *c = tok; *c; c++) {
        if (*c < '0' || *c > '9' || v > 100000)
            return -1;
        v = v * 10 + (*c - '0');
    }
    return (int)v;
}

static cJSON *jp_child(cJSON *node, const char *tok)
{
    if (cJSON_IsObject(node))
        return cJSON_GetObjectItemCaseSensitive(node, tok);
    if (cJSON_IsArray(node)) {
        int i = jp_index(tok);

        return i < 0 ? NULL : cJSON_GetArrayItem(node, i);
    }
    return NULL;
}

/* The parent of the pointer's last token, or NULL when it does not exist. */
static cJSON *jp_parent(cJSON *doc, const jp_pointer *p)
{
    cJSON *node = doc;

    for (size_t i = 0; i + 1 < p->n && node != NULL; i++)
        node = jp_child(node, p->tok[i]);
    return node;
}

#define JP_FAIL(...)                                                                            \
    do {                                                                                        \
        snprintf(msg, msgsz, __VA_ARGS__);                                                      \
        return -1;                                                                              \
    } while (0)

/* Applies one operation object. value is taken (deleted on failure). */
static int jp_apply_op(cJSON *doc, const char *op, const char *path, cJSON *value, char *msg,
                       size_t msgsz)
{
    jp_pointer *p = malloc(sizeof(*p));
    cJSON *parent;
    const char *last;
    int rc = -1;

    if (p == NULL || jp_parse_pointer(path, p) != 0 || p->n == 0) {
        snprintf(msg, msgsz, "%s %s: bad or empty pointer", op, path);
        goto out;
    }
    parent = jp_parent(doc, p);
    last = p->tok[p->n - 1];
    if (parent == NULL || (!cJSON_IsObject(parent) && !cJSON_IsArray(parent))) {
        snprintf(msg, msgsz, "%s %s: parent does not exist", op, path);
        goto out;
    }
    if (strcmp(op, "add") == 0) {
        if (cJSON_IsObject(parent)) {
            if (cJSON_GetObjectItemCaseSensitive(parent, last) != NULL)
                cJSON_ReplaceItemInObjectCaseSensitive(parent, last, value);
            else
                cJSON_AddItemToObject(parent, last, value);
        } else if (strcmp(last, "-") == 0) {
            cJSON_AddItemToArray(parent, value);
        } else {
            int i = jp_index(last);

            if (i < 0 || i > cJSON_GetArraySize(parent)) {
                snprintf(msg, msgsz, "add %s: index out of range", path);
                goto out;
            }
            if (i == cJSON_GetArraySize(parent))
                cJSON_AddItemToArray(parent, value);
            else
                cJSON_InsertItemInArray(parent, i, value);
        }
        value = NULL;
        rc = 0;
    } else if (strcmp(op, "remove") == 0 || strcmp(op, "replace") == 0) {
        cJSON *target = jp_child(parent, last);

        if (target == NULL) {
            snprintf(msg, msgsz, "%s %s: target does not exist", op, path);
            goto out;
        }
        if (strcmp(op, "remove") == 0) {
            cJSON_Delete(cJSON_DetachItemViaPointer(parent, target));
        } else if (cJSON_IsObject(parent)) {
            cJSON_ReplaceItemInObjectCaseSensitive(parent, last, value); /* names the item */
            value = NULL;
        } else {
            cJSON_ReplaceItemViaPointer(parent, target, value);
            value = NULL;
        }
        rc = 0;
    } else {
        snprintf(msg, msgsz, "%s %s: unsupported operation", op, path);
    }
out:
    cJSON_Delete(value);
    free(p);
    return rc;
}

/* A copy of an operation's value without its member name ("value"): the name an item gets is
 * the one it is stored under. */
static cJSON *jp_copy(const cJSON *value)
{
    cJSON *v = value ? cJSON_Duplicate(value, 1) : NULL;

    if (v != NULL && v->string != NULL) {
        if (!(v->type & cJSON_StringIsConst))
            cJSON_free(v->string);
        v->string = NULL;
    }
    return v;
}

/* Applies the patch text to doc in place. Returns 0, or -1 with a message in msg. */
static int jp_apply(cJSON *doc, const char *patch, char *msg, size_t msgsz)
{
    cJSON *ops = cJSON_Parse(patch);
    const cJSON *o;
    int rc = 0;

    if (!cJSON_IsArray(ops)) {
        cJSON_Delete(ops);
        JP_FAIL("patch is not a JSON array: %.80s", patch);
    }
    cJSON_ArrayForEach(o, ops)
    {
        const cJSON *op = cJSON_GetObjectItemCaseSensitive(o, "op");
        const cJSON *path = cJSON_GetObjectItemCaseSensitive(o, "path");
        const cJSON *value = cJSON_GetObjectItemCaseSensitive(o, "value");
        bool needs_value;

        if (!cJSON_IsString(op) || !cJSON_IsString(path)) {
            snprintf(msg, msgsz, "operation without op or path");
            rc = -1;
            break;
        }
        needs_value = strcmp(op->valuestring, "remove") != 0;
        if (needs_value != (value != NULL)) {
            snprintf(msg, msgsz, "%s %s: value %s", op->valuestring, path->valuestring,
                     needs_value ? "missing" : "not allowed");
            rc = -1;
            break;
        }
        rc = jp_apply_op(doc, op->valuestring, path->valuestring, jp_copy(value), msg, msgsz);
        if (rc != 0)
            break;
    }
    cJSON_Delete(ops);
    return rc;
}

#undef JP_FAIL

#endif
