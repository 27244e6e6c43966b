/* SPDX-License-Identifier: Apache-2.0 */
#include "gpupack/json.h"

#include <stdlib.h>
#include <string.h>

#define SMALL_OBJECT 16 /* members compared pairwise; larger objects are sorted */

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static gp_status duplicate_in(const cJSON *obj, const char **dup)
{
    size_t n = 0, i = 0;
    const char **names;

    for (const cJSON *c = obj->child; c != NULL; c = c->next)
        n++;
    if (n <= SMALL_OBJECT) {
        for (const cJSON *c = obj->child; c != NULL; c = c->next)
            for (const cJSON *d = c->next; d != NULL; d = d->next)
                if (strcmp(c->string, d->string) == 0) {
                    *dup = c->string;
                    return GP_EINVAL;
                }
        return GP_OK;
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

gp_status gp_json_find_duplicate_key(const cJSON *root, const char **dup)
{
    gp_status st = GP_OK;

    *dup = NULL;
    if (root == NULL)
        return GP_OK;
    if (cJSON_IsObject(root))
        st = duplicate_in(root, dup);
    for (const cJSON *c = root->child; st == GP_OK && c != NULL; c = c->next)
        if (cJSON_IsObject(c) || cJSON_IsArray(c))
            st = gp_json_find_duplicate_key(c, dup);
    return st;
}

bool gp_json_has_nul_escape(const char *s, size_t n)
{
    /* An escape is a backslash preceded by an even number of backslashes. */
    size_t run = 0;

    for (size_t i = 0; i < n; i++) {
        if (s[i] != '\\') {
            run = 0;
            continue;
        }
        run++;
        if (run % 2 == 1 && i + 5 < n && s[i + 1] == 'u' && s[i + 2] == '0' && s[i + 3] == '0' &&
            s[i + 4] == '0' && s[i + 5] == '0')
            return true;
    }
    return false;
}

gp_status gp_json_reject_ambiguous(const char *body, size_t len, const cJSON *root, gp_err *err)
{
    const char *dup = NULL;
    gp_status st;

    if (gp_json_has_nul_escape(body, len)) {
        gp_err_set(err, "body holds \\u0000, which gpupack does not accept in any string");
        return GP_EINVAL;
    }
    st = gp_json_find_duplicate_key(root, &dup);
    if (st == GP_ENOMEM)
        gp_err_set(err, "out of memory");
    else if (st != GP_OK)
        gp_err_set(err, "duplicate key \"%.64s\" in an object", dup);
    return st;
}
