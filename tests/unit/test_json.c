/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of lib/json.c: duplicate member names anywhere in a tree (small objects compared
 * pairwise, large ones sorted), and the \u0000 escape told apart from an escaped backslash. */
#include "gptest.h"

#include "gpupack/json.h"

static const char *dup_in(const char *text, gp_status *st)
{
    static char name[128];
    cJSON *root = cJSON_Parse(text);
    const char *dup = NULL;

    name[0] = '\0';
    *st = gp_json_find_duplicate_key(root, &dup);
    if (dup != NULL)
        snprintf(name, sizeof(name), "%s", dup);
    cJSON_Delete(root);
    return dup ? name : NULL;
}

GP_TEST(no_duplicates)
{
    gp_status st;

    GP_CHECK(dup_in("{\"a\":1,\"b\":{\"a\":2},\"c\":[{\"a\":1},{\"a\":2}]}", &st) == NULL);
    GP_CHECK_INT(st, GP_OK);
    GP_CHECK(dup_in("[1,2,[3]]", &st) == NULL);
    GP_CHECK(dup_in("{\"A\":1,\"a\":2}", &st) == NULL); /* names are case-sensitive */
    GP_CHECK_INT(gp_json_find_duplicate_key(NULL, &(const char *){ NULL }), GP_OK);
}

GP_TEST(duplicates_anywhere)
{
    gp_status st;

    GP_CHECK_STR(dup_in("{\"uid\":\"a\",\"uid\":\"b\"}", &st), "uid");
    GP_CHECK_INT(st, GP_EINVAL);
    GP_CHECK_STR(dup_in("{\"a\":{\"b\":[{\"c\":1,\"d\":2,\"c\":3}]}}", &st), "c");
    GP_CHECK_STR(dup_in("[{},{\"x\":1,\"x\":1}]", &st), "x");
}

GP_TEST(duplicates_in_large_objects)
{
    char buf[8192];
    size_t n = 0;
    gp_status st;

    n += (size_t)snprintf(buf + n, sizeof(buf) - n, "{");
    for (int i = 0; i < 200; i++)
        n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s\"k%03d\":%d", i ? "," : "", i, i);
    snprintf(buf + n, sizeof(buf) - n, "}");
    GP_CHECK(dup_in(buf, &st) == NULL);
    GP_CHECK_INT(st, GP_OK);
    snprintf(buf + n, sizeof(buf) - n, ",\"k117\":0}");
    GP_CHECK_STR(dup_in(buf, &st), "k117");
    GP_CHECK_INT(st, GP_EINVAL);
}

GP_TEST(nul_escape)
{
#define NUL(s) gp_json_has_nul_escape(s, strlen(s))
    GP_CHECK(NUL("{\"a\":\"x\\u0000y\"}"));
    GP_CHECK(NUL("{\"a\\u0000\":1}"));
    GP_CHECK(NUL("\"\\\\\\u0000\"")); /* \\ then \u0000 */
    GP_CHECK(!NUL("{\"a\":\"x\\\\u0000y\"}")); /* an escaped backslash, then text u0000 */
    GP_CHECK(NUL("{\"a\":\"\\u00001\"}")); /* \u0000 then the digit 1 */
    GP_CHECK(!NUL("{\"a\":\"\\u0001\"}"));
    GP_CHECK(!NUL("\\u000"));
    GP_CHECK(!NUL(""));
    GP_CHECK(NUL("\\\\\\\\\\u0000")); /* five backslashes: the last starts \u0000 */
    GP_CHECK(!NUL("\\\\\\\\u0000"));  /* four: two escaped backslashes, then text */
    GP_CHECK(!NUL("\\\\\\"));         /* a run up to the end */
    GP_CHECK(NUL("a\\n\\t\\\\ b\\u0000"));
#undef NUL
}

GP_TEST(reject_ambiguous_messages)
{
    static const char dup[] = "{\"kind\":\"x\",\"kind\":\"y\"}";
    static const char nul[] = "{\"kind\":\"x\\u0000\"}";
    cJSON *a = cJSON_Parse(dup), *b = cJSON_Parse(nul);
    gp_err err = { { 0 } };

    GP_CHECK_INT(gp_json_reject_ambiguous(dup, strlen(dup), a, 64, &err), GP_EINVAL);
    GP_CHECK_STR(err.msg, "duplicate key \"kind\" in an object");
    GP_CHECK_INT(gp_json_reject_ambiguous(nul, strlen(nul), b, 64, &err), GP_EINVAL);
    GP_CHECK(strstr(err.msg, "\\u0000") != NULL);
    cJSON_Delete(a);
    cJSON_Delete(b);
}

/* Nesting is checked in the same walk: exactly max_depth levels pass, one more is refused, and
 * a duplicate below the limit is still found. */
GP_TEST(reject_ambiguous_depth)
{
    char deep[256] = "";
    cJSON *root;
    gp_err err = { { 0 } };

    for (int i = 0; i < 5; i++)
        strcat(deep, "{\"a\":");
    strcat(deep, "[1]}}}}}");
    root = cJSON_Parse(deep); /* depth 0 to 5: five objects and an array */
    GP_CHECK_INT(gp_json_reject_ambiguous(deep, strlen(deep), root, 5, &err), GP_OK);
    GP_CHECK_INT(gp_json_reject_ambiguous(deep, strlen(deep), root, 4, &err), GP_EINVAL);
    GP_CHECK_STR(err.msg, "body is nested deeper than 4 levels");
    cJSON_Delete(root);
    strcpy(deep, "{\"a\":{\"b\":[{\"c\":1,\"c\":2}]}}");
    root = cJSON_Parse(deep);
    GP_CHECK_INT(gp_json_reject_ambiguous(deep, strlen(deep), root, 3, &err), GP_EINVAL);
    GP_CHECK_STR(err.msg, "duplicate key \"c\" in an object");
    GP_CHECK_INT(gp_json_reject_ambiguous(deep, strlen(deep), root, 2, &err), GP_EINVAL);
    GP_CHECK_STR(err.msg, "body is nested deeper than 2 levels");
    cJSON_Delete(root);
}

/* One pass (gp_json_members) and one lookup (gp_json_member) find what cJSON's lookup finds: the
 * first member of each name, NULL for a missing one, nothing in an array, a string or NULL;
 * names that share a first letter or a prefix, and the empty name, are told apart. */
GP_TEST(members_agree_with_lookups)
{
    static const char *const docs[] = {
        "{\"a\":1,\"ab\":2,\"abc\":3,\"b\":4,\"a\":5,\"\":6}",
        "{\"spec\":{},\"status\":null,\"s\":[1],\"metadata\":\"x\"}",
        "{}", "[{\"a\":1}]", "\"a\"", "{\"name\":1,\"namespace\":2,\"name\":3}",
        "{\"\":1,\"a\":2}", "{\"ab\":1,\"a\":2,\"b\":3}",
    };
    static const char *const keys[] = { "a",    "ab",       "abc",  "b",    "",     "spec",
                                        "s",    "metadata", "name", "namespace", "missing" };
    const size_t nk = sizeof(keys) / sizeof(keys[0]);
    const cJSON *got[sizeof(keys) / sizeof(keys[0])];
    int bad = 0;

    for (size_t d = 0; d < sizeof(docs) / sizeof(docs[0]); d++) {
        cJSON *root = cJSON_Parse(docs[d]);

        GP_CHECK(root != NULL);
        gp_json_members(root, keys, nk, got);
        for (size_t k = 0; k < nk; k++) {
            const cJSON *want =
                cJSON_IsObject(root) ? cJSON_GetObjectItemCaseSensitive(root, keys[k]) : NULL;

            if (got[k] != want && bad++ < 5)
                printf("  %s: key \"%s\" differs\n", docs[d], keys[k]);
            if (gp_json_member(root, keys[k]) != want && bad++ < 5)
                printf("  %s: one lookup of \"%s\" differs\n", docs[d], keys[k]);
        }
        cJSON_Delete(root);
    }
    gp_json_members(NULL, keys, nk, got);
    for (size_t k = 0; k < nk; k++)
        bad += got[k] != NULL || gp_json_member(NULL, keys[k]) != NULL;
    GP_CHECK_INT(bad, 0);
}

GP_MAIN(GP_CASE(members_agree_with_lookups), GP_CASE(no_duplicates), GP_CASE(duplicates_anywhere),
        GP_CASE(duplicates_in_large_objects), GP_CASE(nul_escape),
        GP_CASE(reject_ambiguous_messages), GP_CASE(reject_ambiguous_depth))
