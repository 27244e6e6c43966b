/* SPDX-License-Identifier: Apache-2.0 */
#include "gpupack/json.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SMALL_OBJECT GP_JSON_SMALL_OBJECT

uint32_t gp_json_name_hash(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;

    if (n == 0)
        return 0;
    return ((uint32_t)n * 2654435761u) ^ u[0] ^ ((uint32_t)u[n / 2] << 8) ^
           ((uint32_t)u[n - 1] << 16);
}

static const char *duplicate_in_small(const cJSON *obj)
{
    uint32_t h[SMALL_OBJECT];
    const cJSON *m[SMALL_OBJECT];
    size_t n = 0;

    for (const cJSON *c = obj->child; c != NULL; c = c->next, n++) {
        m[n] = c;
        h[n] = gp_json_name_hash(c->string, strlen(c->string));
    }
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            if (h[i] == h[j] && strcmp(m[i]->string, m[j]->string) == 0)
                return m[i]->string;
    return NULL;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

gp_status gp_json_object_duplicate(const cJSON *obj, const char **dup)
{
    size_t n = 0, i = 0;
    const char **names;

    *dup = NULL;
    if (obj == NULL || (obj->type & 0xFF) != cJSON_Object)
        return GP_OK;
    for (const cJSON *c = obj->child; c != NULL; c = c->next)
        n++;
    if (n <= SMALL_OBJECT) {
        *dup = duplicate_in_small(obj);
        return *dup != NULL ? GP_EINVAL : GP_OK;
    }
    names = malloc(n * sizeof(*names));
    if (names == NULL)
        return GP_ENOMEM;
    for (const cJSON *c = obj->child; c != NULL; c = c->next)
        names[i++] = c->string;
    qsort(names, n, sizeof(*names), cmp_names);
    for (i = 1; i < n && strcmp(names[i - 1], names[i]) != 0; i++)
        ;
    if (i < n)
        *dup = names[i];
    free(names);
    return i < n ? GP_EINVAL : GP_OK;
}

/* Duplicates in node and under it, and nesting past max_depth (GP_ETOOBIG), in one walk that
 * goes no deeper than max_depth + 1. */
static gp_status check_tree(const cJSON *node, int depth, int max_depth, const char **dup)
{
    gp_status st = GP_OK;

    if (depth > max_depth)
        return GP_ETOOBIG;
    if ((node->type & 0xFF) == cJSON_Object)
        st = gp_json_object_duplicate(node, dup);
    for (const cJSON *c = node->child; st == GP_OK && c != NULL; c = c->next)
        if ((c->type & 0xFF) == cJSON_Object || (c->type & 0xFF) == cJSON_Array)
            st = check_tree(c, depth + 1, max_depth, dup); /* (cJSON_IsObject is a call) */
    return st;
}

gp_status gp_json_find_duplicate_key(const cJSON *root, const char **dup)
{
    *dup = NULL;
    return root != NULL ? check_tree(root, 0, INT_MAX, dup) : GP_OK;
}

const cJSON *gp_json_member(const cJSON *obj, const char *key)
{
    if (obj == NULL || (obj->type & 0xFF) != cJSON_Object)
        return NULL;
    for (const cJSON *c = obj->child; c != NULL; c = c->next)
        if (c->string != NULL && c->string[0] == key[0] && strcmp(c->string, key) == 0)
            return c;
    return NULL;
}

void gp_json_members(const cJSON *obj, const char *const *keys, size_t n, const cJSON **out)
{
    size_t left = n;

    for (size_t i = 0; i < n; i++)
        out[i] = NULL;
    if (obj == NULL || (obj->type & 0xFF) != cJSON_Object)
        return;
    for (const cJSON *c = obj->child; c != NULL && left > 0; c = c->next) {
        for (size_t i = 0; i < n; i++) {
            if (out[i] == NULL && c->string != NULL && c->string[0] == keys[i][0] &&
                strcmp(c->string, keys[i]) == 0) {
                out[i] = c;
                left--;
                break;
            }
        }
    }
}

bool gp_json_has_nul_escape(const char *s, size_t n)
{
    /* An escape is a backslash preceded by an even number of backslashes: in a run of them, only
     * the last can start \u, and only when the run is odd. Bodies hold few backslashes, so memchr
     * finds each run. */
    const char *p = s, *end = s + n;

    while ((p = memchr(p, '\\', (size_t)(end - p))) != NULL) {
        const char *run = p;

        while (p < end && *p == '\\')
            p++;
        if ((p - run) % 2 == 1 && end - p >= 5 && memcmp(p, "u0000", 5) == 0)
            return true;
    }
    return false;
}

gp_status gp_json_reject_ambiguous(const char *body, size_t len, const cJSON *root, int max_depth,
                                   gp_err *err)
{
    const char *dup = NULL;
    gp_status st = root != NULL ? check_tree(root, 0, max_depth, &dup) : GP_OK;

    if (st == GP_ETOOBIG) {
        gp_err_set(err, "body is nested deeper than %d levels", max_depth);
        return GP_EINVAL;
    }
    if (st == GP_ENOMEM)
        gp_err_set(err, "out of memory");
    else if (st != GP_OK)
        gp_err_set(err, "duplicate key \"%.64s\" in an object", dup);
    return st == GP_OK ? gp_json_reject_nul_escape(body, len, err) : st;
}

gp_status gp_json_reject_nul_escape(const char *body, size_t len, gp_err *err)
{
    if (!gp_json_has_nul_escape(body, len))
        return GP_OK;
    gp_err_set(err, "body holds \\u0000, which gpupack does not accept in any string");
    return GP_EINVAL;
}
