/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of lib/strbuf.c: appends of every kind, the limit (one failure, reported once by
 * gp_strbuf_take()), clearing a failed buffer, and the JSON escaper.
 *
 * Every test ends with a leak check when built with AddressSanitizer. */
#include "gptest.h"

#include "gpupack/strbuf.h"

GP_TEST(appends_and_take)
{
    gp_strbuf b;
    char *s = NULL;
    size_t n = 0;

    gp_strbuf_init(&b, 0);
    gp_strbuf_puts(&b, "a=");
    gp_strbuf_int(&b, INT64_MIN);
    gp_strbuf_printf(&b, " %s:%03d", "x", 7);
    gp_strbuf_put(&b, "!?", 1);
    GP_CHECK_INT(gp_strbuf_take(&b, &s, &n), GP_OK);
    GP_CHECK_STR(s, "a=-9223372036854775808 x:007!");
    GP_CHECK_INT(n, strlen(s));
    free(s);
    GP_CHECK_INT(gp_strbuf_take(&b, &s, &n), GP_OK); /* empty: "" */
    GP_CHECK_STR(s, "");
    free(s);
}

GP_TEST(limit_fails_once_and_clear_forgets)
{
    gp_strbuf b;
    char *s = (char *)1;
    size_t n = 1;

    gp_strbuf_init(&b, 8); /* 7 bytes and the NUL */
    gp_strbuf_printf(&b, "%s", "1234567");
    GP_CHECK(!b.failed);
    gp_strbuf_puts(&b, "8");
    GP_CHECK(b.failed);
    gp_strbuf_clear(&b);
    GP_CHECK(!b.failed && b.len == 0);
    gp_strbuf_printf(&b, "%d", 42);
    GP_CHECK_STR(b.p, "42");
    gp_strbuf_printf(&b, "%s", "too long");
    GP_CHECK_INT(gp_strbuf_take(&b, &s, &n), GP_ENOMEM);
    GP_CHECK(s == NULL && n == 0);
}

GP_TEST(json_escapes)
{
    gp_strbuf b;
    char tmp[8], *s = NULL;
    size_t n;

    GP_CHECK(gp_json_escape('a', tmp) == NULL);
    GP_CHECK(gp_json_escape(0xC3, tmp) == NULL);
    GP_CHECK_STR(gp_json_escape('\n', tmp), "\\n");
    GP_CHECK_STR(gp_json_escape(0x01, tmp), "\\u0001");
    GP_CHECK_STR(gp_json_escape(0x7F, tmp), "\\u007f");
    gp_strbuf_init(&b, 0);
    gp_strbuf_json_string(&b, "a\"b\\c\td");
    GP_CHECK_INT(gp_strbuf_take(&b, &s, &n), GP_OK);
    GP_CHECK_STR(s, "\"a\\\"b\\\\c\\td\"");
    free(s);
}

GP_MAIN(GP_CASE(appends_and_take), GP_CASE(limit_fails_once_and_clear_forgets),
        GP_CASE(json_escapes))
