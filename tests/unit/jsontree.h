/* SPDX-License-Identifier: Apache-2.0 */
/* Two cJSON trees the same to the bit, for the tests and the fuzzer that hold lib/jsonparse.c to
 * cJSON's own parser: types, member names, strings, valueint, valuedouble (bitwise: -0 and inf
 * count), and each container's links (every child's prev at the one before, the first one's at
 * the last). */
#ifndef GPUPACK_TEST_JSONTREE_H
#define GPUPACK_TEST_JSONTREE_H

#include <stdbool.h>
#include <string.h>

#include <cjson/cJSON.h>

static inline bool jt_same_text(const char *a, const char *b)
{
    return (a == NULL && b == NULL) || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

static inline bool jt_links_ok(const cJSON *n)
{
    const cJSON *last = NULL;

    for (const cJSON *c = n->child; c != NULL; last = c, c = c->next)
        if (c != n->child && c->prev != last)
            return false;
    return n->child == NULL || n->child->prev == last;
}

static inline bool jt_same_tree(const cJSON *a, const cJSON *b)
{
    if (a->type != b->type || !jt_same_text(a->string, b->string) ||
        !jt_same_text(a->valuestring, b->valuestring) || a->valueint != b->valueint ||
        memcmp(&a->valuedouble, &b->valuedouble, sizeof(double)) != 0 || !jt_links_ok(a) ||
        !jt_links_ok(b))
        return false;
    for (a = a->child, b = b->child; a != NULL && b != NULL; a = a->next, b = b->next)
        if (!jt_same_tree(a, b))
            return false;
    return a == NULL && b == NULL;
}

#endif
