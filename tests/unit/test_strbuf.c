/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of lib/strbuf.c: appends of every kind, the limit (one failure, reported once by
 * gp_strbuf_take()), clearing a failed buffer, and the JSON escaper.
 *
 * Every test ends with a leak check when built with AddressSanitizer. */
#include "gptest.h"

#include "gpupack/admission.h"
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

/* gp_copy_text() writes what snprintf("%.*s") writes, for every length against every room. */
GP_TEST(copy_text_as_snprintf)
{
    const char *src = "gpupack";

    for (size_t cap = 1; cap <= 10; cap++) {
        for (size_t n = 0; n <= strlen(src); n++) {
            char got[12], want[12];

            memset(got, 'x', sizeof(got));
            memset(want, 'x', sizeof(want));
            snprintf(want, cap, "%.*s", (int)n, src);
            GP_CHECK_INT(gp_copy_text(got, cap, src, n), strlen(want));
            GP_CHECK(memcmp(got, want, sizeof(got)) == 0);
        }
    }
}

GP_TEST(int_text_lengths)
{
    static const struct {
        int64_t v;
        const char *text;
    } cases[] = { { 0, "0" }, { 7, "7" }, { 10, "10" }, { -1, "-1" }, { -10, "-10" },
                  { INT64_MAX, "9223372036854775807" }, { INT64_MIN, "-9223372036854775808" } };
    char out[GP_INT_TEXT_MAX + 1];

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        size_t n = gp_int_text(out, cases[i].v);

        out[n < GP_INT_TEXT_MAX ? n : GP_INT_TEXT_MAX] = '\0';
        GP_CHECK_STR(out, cases[i].text);
        GP_CHECK_INT(n, strlen(cases[i].text));
    }
}

/* A string that would pass the limit is not appended in part: the buffer fails. */
GP_TEST(json_string_past_the_limit_appends_nothing)
{
    gp_strbuf b;

    gp_strbuf_init(&b, 8);
    gp_strbuf_json_string(&b, "abcd"); /* 6 bytes and the NUL */
    GP_CHECK_STR(b.p, "\"abcd\"");
    gp_strbuf_json_string(&b, "x");
    GP_CHECK(b.failed);
    GP_CHECK_INT(b.len, 6);
    gp_strbuf_free(&b);
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

/* Text is scanned 8 bytes at a time: every byte that needs an escape, at every offset of a
 * longer text, comes out as gp_json_escape says, and the rest as it is. */
GP_TEST(json_escapes_at_every_offset)
{
    static const unsigned char special[] = { '"', '\\', 0x01, '\n', 0x1F, 0x7F, 0x00,
                                             ' ', 0x80, 0xFF }; /* the last three stand as is */
    char text[56], want[512];

    for (size_t k = 0; k < sizeof(special); k++)
        for (size_t at = 0; at + 1 < sizeof(text); at++) {
            gp_strbuf b;
            char *s = NULL, tmp[8];
            size_t n = 0, w = 0;

            for (size_t i = 0; i + 1 < sizeof(text); i++)
                text[i] = (char)(i % 2 ? 0xC3 : 'a' + (int)i); /* with bytes above 0x7F */
            text[sizeof(text) - 1] = '\0';
            text[at] = (char)special[k];
            want[w++] = '"';
            for (const char *p = text; *p; p++) {
                const char *e = gp_json_escape((unsigned char)*p, tmp);

                memcpy(want + w, e ? e : p, e ? strlen(e) : 1);
                w += e ? strlen(e) : 1;
            }
            want[w++] = '"';
            want[w] = '\0';
            gp_strbuf_init(&b, 0);
            gp_strbuf_json_string(&b, text);
            GP_CHECK_INT(gp_strbuf_take(&b, &s, &n), GP_OK);
            GP_CHECK_STR(s, want);
            free(s);
        }
}

/* gp_json_plain() reads in blocks that overlap at the end: at every length up to 40 and every
 * position, one byte that needs an escape is found, and bytes that do not are passed. */
GP_TEST(json_plain_every_length_and_position)
{
    static const unsigned char bad[] = { '"', '\\', 0x00, 0x01, '\n', 0x1F, 0x7F };
    static const unsigned char good[] = { ' ', 'a', 0x80, 0xC3, 0xFF, '~', 0x20 };
    char text[48] = "";
    size_t wrong = 0;

    for (size_t n = 0; n <= 40; n++) {
        for (size_t i = 0; i < n; i++)
            text[i] = (char)good[i % sizeof(good)];
        wrong += !gp_json_plain(text, n);
        for (size_t at = 0; at < n; at++)
            for (size_t k = 0; k < sizeof(bad); k++) {
                char keep = text[at];

                text[at] = (char)bad[k];
                wrong += gp_json_plain(text, n);
                text[at] = keep;
            }
        text[n] = '"'; /* just past the end: not read */
        wrong += !gp_json_plain(text, n);
    }
    GP_CHECK_INT(wrong, 0);
}

/* A character cut anywhere by a byte-counted "%.*s" leaves nothing of it behind; whole
 * characters, U+FFFD written out among them, are kept. */
GP_TEST(utf8_repair_drops_what_a_cut_leaves)
{
    const char *text = "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xef\xbf\xbdz"; /* aé€😀<U+FFFD>z */
    size_t n = strlen(text);
    char buf[64];

    for (size_t cut = 0; cut <= n; cut++) {
        snprintf(buf, sizeof(buf), "%.*s; after", (int)cut, text);
        gp_utf8_repair(buf);
        GP_CHECK(gp_utf8_valid(buf, strlen(buf)));
        GP_CHECK(strstr(buf, "; after") != NULL);
        GP_CHECK(strncmp(buf, text, strlen(buf) - strlen("; after")) == 0);
    }
    snprintf(buf, sizeof(buf), "%s", text);
    GP_CHECK_STR(gp_utf8_repair(buf), text);
    snprintf(buf, sizeof(buf), "\xff\x80x\xc0\xafy\xed\xa0\x80");
    GP_CHECK_STR(gp_utf8_repair(buf), "xy");
    GP_CHECK(gp_utf8_repair(NULL) == NULL);
}

GP_MAIN(GP_CASE(appends_and_take), GP_CASE(copy_text_as_snprintf), GP_CASE(int_text_lengths),
        GP_CASE(json_plain_every_length_and_position),
        GP_CASE(json_string_past_the_limit_appends_nothing),
        GP_CASE(limit_fails_once_and_clear_forgets),
        GP_CASE(json_escapes), GP_CASE(json_escapes_at_every_offset),
        GP_CASE(utf8_repair_drops_what_a_cut_leaves))
