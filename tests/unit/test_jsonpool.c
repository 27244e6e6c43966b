/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of lib/jsonpool.c: cJSON allocations bound to a per-request pool, trees larger than
 * the kept chunk, frees of memory from outside the pool while it is bound, the byte limit, and
 * cJSON back on malloc once the pool ends (valgrind and the leak check see those). */
#include "gptest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "gpupack/jsonparse.h"
#include "gpupack/jsonpool.h"

/* Under AddressSanitizer the pool is never used (the sanitizer must see every allocation): then
 * each test checks that cJSON simply keeps working on malloc, and says so. */
static bool pool_or_note(void)
{
    gp_json_pool_install();
    if (gp_json_pool_active())
        return true;
    printf("  the pool is off (a sanitizer build, or GPUPACK_JSON_POOL=off): cJSON on malloc\n");
    return false;
}

/* A JSON array of n objects, each with a short string: about 3 cJSON nodes an element. */
static char *big_array(size_t n)
{
    char *s = malloc(n * 24 + 3), *p = s;

    *p++ = '[';
    for (size_t i = 0; i < n; i++)
        p += sprintf(p, "%s{\"k\":\"v%06zu\"}", i ? "," : "", i % 1000000);
    *p++ = ']';
    *p = '\0';
    return s;
}

GP_TEST(pool_serves_and_releases)
{
    gp_json_pool pool;
    cJSON *outside, *inside;
    char *text;

    bool on = pool_or_note();

    outside = cJSON_CreateString("made before the pool"); /* malloc'd */
    gp_json_pool_begin(&pool, 0);
    GP_CHECK(pool.bound == on);
    inside = cJSON_Parse("{\"a\":[1,2,3],\"b\":\"text\"}");
    GP_CHECK(inside != NULL);
    GP_CHECK(on ? pool.used > 0 && pool.used <= pool.cap : pool.used == 0);
    text = cJSON_PrintUnformatted(inside);
    GP_CHECK_STR(text, "{\"a\":[1,2,3],\"b\":\"text\"}");
    cJSON_free(text);
    cJSON_Delete(inside);
    cJSON_Delete(outside); /* not the pool's: really freed (a leak check would see it otherwise) */
    gp_json_pool_end(&pool);
    GP_CHECK(!pool.bound);
    /* After the pool: malloc again; a leak here would show under valgrind. */
    outside = cJSON_Parse("[true]");
    GP_CHECK(cJSON_IsTrue(cJSON_GetArrayItem(outside, 0)));
    cJSON_Delete(outside);
}

GP_TEST(pool_grows_past_its_chunk)
{
    gp_json_pool pool;
    char *text = big_array(20000); /* ~60,000 nodes: several chunks */
    cJSON *root;
    bool on = pool_or_note();

    gp_json_pool_begin(&pool, 0);
    root = cJSON_Parse(text);
    GP_CHECK(root != NULL);
    GP_CHECK_INT(cJSON_GetArraySize(root), 20000);
    GP_CHECK_STR(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(root, 19999), "k")
                     ->valuestring, "v019999");
    GP_CHECK(on ? pool.overflow.total > 0 : pool.overflow.total == 0);
    cJSON_Delete(root);
    gp_json_pool_end(&pool);
    GP_CHECK_INT(pool.overflow.total, 0);
    free(text);
}

GP_TEST(pool_limit_is_an_allocation_failure)
{
    gp_json_pool pool;
    char *text = big_array(20000);
    cJSON *j;
    bool on = pool_or_note();

    gp_json_pool_begin(&pool, GP_JSON_POOL_CHUNK + 64 * 1024);
    j = cJSON_Parse(text); /* with the pool: past the limit, cJSON reports failure */
    GP_CHECK(on ? j == NULL : j != NULL);
    cJSON_Delete(j);
    gp_json_pool_end(&pool);
    /* The next request starts afresh. */
    gp_json_pool_begin(&pool, GP_JSON_POOL_CHUNK + 64 * 1024);
    j = cJSON_Parse("{\"ok\":1}");
    GP_CHECK(j != NULL);
    cJSON_Delete(j);
    gp_json_pool_end(&pool);
    free(text);
}

/* gp_json_parse() takes its nodes straight from the bound pool: the same tree as cJSON's parser
 * makes there, and the pool's limit is its allocation failure too. */
GP_TEST(fast_parser_allocates_from_the_pool)
{
    gp_json_pool pool;
    char *text = big_array(20000);
    gp_json_error err = { GP_JSON_OK, 0, "" };
    cJSON *j, *want;
    bool on = pool_or_note();

    gp_json_pool_begin(&pool, 0);
    j = gp_json_parse(text, strlen(text), 64, &err);
    want = cJSON_Parse(text);
    GP_CHECK(j != NULL && want != NULL && cJSON_Compare(j, want, 1));
    if (on) /* the root first in the kept chunk, the last elements in the overflow */
        GP_CHECK(j != NULL && (unsigned char *)j == pool.base &&
                 gp_arena_owns(&pool.overflow, j->child->prev));
    else
        GP_CHECK(pool.used == 0);
    gp_json_pool_drop(&pool, j);
    gp_json_pool_drop(&pool, want);
    gp_json_pool_end(&pool);

    gp_json_pool_begin(&pool, GP_JSON_POOL_CHUNK + 64 * 1024);
    j = gp_json_parse(text, strlen(text), 64, &err);
    GP_CHECK(on ? j == NULL && err.kind == GP_JSON_NOMEM : j != NULL);
    cJSON_Delete(j);
    gp_json_pool_end(&pool);
    free(text);
}

/* gp_json_pool_drop() and gp_json_pool_drop_here(): a tree of the bound pool is left for the
 * pool's end (nothing walked); with no pool bound it is deleted (under valgrind and ASan, a leak
 * otherwise). */
GP_TEST(pool_drop_frees_only_without_a_pool)
{
    gp_json_pool pool;
    cJSON *j;
    bool on = pool_or_note();

    gp_json_pool_begin(&pool, 0);
    j = cJSON_Parse("{\"a\":[1,2,{\"b\":\"c\"}]}");
    GP_CHECK(j != NULL);
    size_t used = pool.used;
    gp_json_pool_drop(&pool, j);
    GP_CHECK(on ? pool.used == used && used > 0 : pool.used == 0);
    gp_json_pool_end(&pool);
    gp_json_pool_end(&pool);    /* idempotent */
    j = cJSON_Parse("[1,2,3]"); /* no pool bound: malloc, and drop must free it */
    GP_CHECK(j != NULL);
    gp_json_pool_drop(&pool, j);
    /* gp_json_pool_drop_here(): the same, by the calling thread's binding */
    gp_json_pool_begin(&pool, 0);
    j = cJSON_Parse("{\"x\":{\"y\":[true]}}");
    GP_CHECK(j != NULL);
    used = pool.used;
    gp_json_pool_drop_here(j);
    GP_CHECK(on ? pool.used == used && used > 0 : pool.used == 0);
    gp_json_pool_end(&pool);
    j = cJSON_Parse("[4,5]");
    GP_CHECK(j != NULL);
    gp_json_pool_drop_here(j); /* no pool bound: freed (a leak under ASan and valgrind if not) */
}

GP_TEST(pool_off_by_environment)
{
    gp_json_pool pool;
    cJSON *j;

    setenv("GPUPACK_JSON_POOL", "off", 1);
    gp_json_pool_install();
    gp_json_pool_begin(&pool, 0);
    GP_CHECK(!pool.bound);
    j = cJSON_Parse("[1]");
    GP_CHECK(j != NULL);
    GP_CHECK_INT(pool.used, 0);
    cJSON_Delete(j);
    gp_json_pool_end(&pool);
}

GP_MAIN(GP_CASE(pool_serves_and_releases), GP_CASE(pool_grows_past_its_chunk),
        GP_CASE(pool_limit_is_an_allocation_failure), GP_CASE(fast_parser_allocates_from_the_pool),
        GP_CASE(pool_drop_frees_only_without_a_pool),
        GP_CASE(pool_off_by_environment))
