/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for lib/quantity.c: exact values of every suffix and exponent, rounding, range limits,
 * every rejected form with its status and message, comparisons, the unit helpers and formatting. */
#include "gpupack/quantity.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gptest.h"

#define NANO ((__int128)1000000000)
#define UNITS(n) ((__int128)(n) * NANO)

/* Prints an __int128 in decimal (the harness only prints long long). */
static const char *show(__int128 v, char *buf, size_t bufsz)
{
    gp_qty q = { v };

    if (gp_qty_format(q, buf, bufsz) != GP_OK)
        snprintf(buf, bufsz, "(unformattable)");
    return buf;
}

/* Parses s (all of its bytes) and checks that it gives want nano-units. */
static void check_nano(const char *s, __int128 want, int line)
{
    gp_err err = { { 0 } };
    gp_qty q = { -12345 };
    gp_status st = gp_qty_parse_str(s, &q, &err);
    char got_s[48], want_s[48];

    if (st != GP_OK) {
        printf("  %s:%d: parse(\"%s\") failed: %d %s\n", __FILE__, line, s, st, err.msg);
        gp_test_failed = 1;
    } else if (q.nano != want) {
        printf("  %s:%d: parse(\"%s\") == %s units, want %s\n", __FILE__, line, s,
               show(q.nano, got_s, sizeof(got_s)), show(want, want_s, sizeof(want_s)));
        gp_test_failed = 1;
    }
}
#define CHECK_NANO(s, want) check_nano((s), (want), __LINE__)

/* Parses s[0..len) and checks for status want; *out must stay unchanged on failure. */
static void check_status(const char *s, size_t len, gp_status want, int line)
{
    gp_err err = { { 0 } };
    gp_qty q = { -12345 };
    gp_status st = gp_qty_parse(s, len, &q, &err);

    if (st != want) {
        printf("  %s:%d: parse(\"%.*s\", %zu) == %d (%s), want %d\n", __FILE__, line, (int)len, s,
               len, st, err.msg, want);
        gp_test_failed = 1;
    } else if (want != GP_OK && (q.nano != -12345 || err.msg[0] == '\0')) {
        printf("  %s:%d: parse(\"%.*s\") changed *out or left no message\n", __FILE__, line,
               (int)len, s);
        gp_test_failed = 1;
    }
}
#define CHECK_STATUS(s, want) check_status((s), strlen(s), (want), __LINE__)
#define CHECK_STATUS_LEN(s, len, want) check_status((s), (len), (want), __LINE__)

/* Parses s and checks that the error message is exactly want. */
static void check_msg(const char *s, size_t len, const char *want, int line)
{
    gp_err err = { { 0 } };
    gp_qty q;

    if (gp_qty_parse(s, len, &q, &err) == GP_OK || strcmp(err.msg, want) != 0) {
        printf("  %s:%d: message for \"%.*s\" is '%s', want '%s'\n", __FILE__, line, (int)len, s,
               err.msg, want);
        gp_test_failed = 1;
    }
}
#define CHECK_MSG(s, want) check_msg((s), strlen(s), (want), __LINE__)

/* Parses s, which must be valid; a failure is reported and gives an impossible sentinel. */
static gp_qty qty(const char *s)
{
    gp_err err = { { 0 } };
    gp_qty q = { 0 };

    if (gp_qty_parse_str(s, &q, &err) != GP_OK) {
        printf("  parse(\"%s\") failed: %s\n", s, err.msg);
        gp_test_failed = 1;
        q.nano = -((__int128)1 << 120);
    }
    return q;
}

static void check_format(gp_qty q, const char *want, int line)
{
    char buf[48];

    if (gp_qty_format(q, buf, sizeof(buf)) != GP_OK || strcmp(buf, want) != 0) {
        printf("  %s:%d: format == \"%s\", want \"%s\"\n", __FILE__, line, buf, want);
        gp_test_failed = 1;
    }
}
#define CHECK_FORMAT(q, want) check_format((q), (want), __LINE__)

GP_TEST(decimal_suffixes_have_exact_values)
{
    CHECK_NANO("1n", 1);
    CHECK_NANO("1u", 1000);
    CHECK_NANO("1m", 1000000);
    CHECK_NANO("500m", NANO / 2);
    CHECK_NANO("1", NANO);
    CHECK_NANO("1k", UNITS(1000));
    CHECK_NANO("1M", UNITS(1000000));
    CHECK_NANO("1G", UNITS(1000000000));
    CHECK_NANO("1T", UNITS(1000000000000));
    CHECK_NANO("1P", UNITS(1000000000000000));
    CHECK_NANO("1E", UNITS(1000000000000000000));
    CHECK_NANO("9E", UNITS(9000000000000000000ULL));
    CHECK_NANO("250n", 250);
    CHECK_NANO("3u", 3000);
}

GP_TEST(binary_suffixes_have_exact_values)
{
    CHECK_NANO("1Ki", UNITS(1024));
    CHECK_NANO("1Mi", UNITS(1048576));
    CHECK_NANO("1Gi", UNITS(1073741824));
    CHECK_NANO("1Ti", UNITS(1099511627776));
    CHECK_NANO("1Pi", UNITS(1125899906842624));
    CHECK_NANO("1Ei", UNITS(1152921504606846976));
    CHECK_NANO("3Ki", UNITS(3072));
    CHECK_NANO("128Mi", UNITS(134217728));
}

GP_TEST(binary_suffixes_with_fractions)
{
    CHECK_NANO("1.5Gi", UNITS(1610612736));
    CHECK_NANO("0.5Ki", UNITS(512));
    CHECK_NANO(".5Ei", UNITS(576460752303423488));
    CHECK_NANO("1.1Ki", 1126400000000);  /* 1126.4 */
    CHECK_NANO("0.1Ki", 102400000000);   /* 102.4 */
    CHECK_NANO("0.000000000001Ki", 2);   /* 1.024n rounds up to 2n */
    CHECK_NANO("-0.000000000001Ki", -1); /* -1.024n rounds up to -1n */
}

GP_TEST(number_forms)
{
    CHECK_NANO("1.", NANO);
    CHECK_NANO("1.5", NANO * 3 / 2);
    CHECK_NANO(".5", NANO / 2);
    CHECK_NANO("007", UNITS(7));
    CHECK_NANO("0", 0);
    CHECK_NANO("0.0", 0);
    CHECK_NANO("000.000", 0);
    CHECK_NANO("+1", NANO);
    CHECK_NANO("-1", -NANO);
    CHECK_NANO("+.5", NANO / 2);
    CHECK_NANO("-.5", -NANO / 2);
    CHECK_NANO("-0", 0);
    CHECK_NANO("1.m", 1000000);
    CHECK_NANO("0.250", NANO / 4);
    CHECK_NANO("-1.5Gi", -UNITS(1610612736));
}

GP_TEST(sixty_four_byte_input_is_accepted)
{
    /* 63 zeros then "1": exactly GP_QTY_MAX_LEN bytes. */
    char s[GP_QTY_MAX_LEN + 1];

    memset(s, '0', GP_QTY_MAX_LEN - 1);
    s[GP_QTY_MAX_LEN - 1] = '1';
    s[GP_QTY_MAX_LEN] = '\0';
    CHECK_NANO(s, NANO);
    /* "0." and 61 zeros then "1n": far below 1n, rounds up. */
    memset(s, '0', GP_QTY_MAX_LEN);
    s[1] = '.';
    s[GP_QTY_MAX_LEN - 2] = '1';
    s[GP_QTY_MAX_LEN - 1] = 'n';
    CHECK_NANO(s, 1);
}

GP_TEST(exponents)
{
    CHECK_NANO("1e3", UNITS(1000));
    CHECK_NANO("1E3", UNITS(1000));
    CHECK_NANO("1e+3", UNITS(1000));
    CHECK_NANO("1E+3", UNITS(1000));
    CHECK_NANO("5e-3", 5000000);
    CHECK_NANO("1E-3", 1000000);
    CHECK_NANO("1e0", NANO);
    CHECK_NANO("1e-0", NANO);
    CHECK_NANO("1e003", UNITS(1000));
    CHECK_NANO("1.5e3", UNITS(1500));
    CHECK_NANO("1.e3", UNITS(1000));
    CHECK_NANO(".5e1", UNITS(5));
    CHECK_NANO("12e-1", NANO * 6 / 5);
    CHECK_NANO("2e-9", 2);
    CHECK_NANO("1e18", UNITS(1000000000000000000));
    CHECK_NANO("-2e2", -UNITS(200));
    CHECK_NANO("0e999999999", 0);
    CHECK_NANO("123456789e-18", 1); /* 0.123456789n */
    CHECK_NANO("1000000000000000000000000000000e-30", NANO);
}

GP_TEST(huge_exponents_are_fast_and_exact)
{
    clock_t start = clock();

    CHECK_STATUS("1e999999999", GP_ERANGE);
    CHECK_STATUS("-1e999999999", GP_ERANGE);
    CHECK_STATUS("1e2147483647", GP_ERANGE);
    CHECK_NANO("1e-999999", 1);
    CHECK_NANO("1e-999999999", 1);
    CHECK_NANO("1e-2147483648", 1);
    CHECK_NANO("-1e-999999", 0);
    CHECK_NANO("0.00001e-999999999", 1);
    GP_CHECK(clock() - start < CLOCKS_PER_SEC / 2);
}

GP_TEST(exponent_outside_int32_is_erange)
{
    CHECK_STATUS("1e2147483648", GP_ERANGE);
    CHECK_STATUS("1e-2147483649", GP_ERANGE);
    CHECK_STATUS("0e99999999999999999999999999999999999999999999999999", GP_ERANGE);
}

GP_TEST(sub_nano_precision_rounds_towards_positive_infinity)
{
    CHECK_NANO("0.1n", 1);
    CHECK_NANO("0.5n", 1);
    CHECK_NANO("0.9n", 1);
    CHECK_NANO("1.1n", 2);
    CHECK_NANO("1.0000000001", NANO + 1);
    CHECK_NANO("1.0000000000000000000000000000001", NANO + 1);
    CHECK_NANO("1.5u", 1500);
    CHECK_NANO("1.0001u", 1001); /* 1000.1n */
    CHECK_NANO("1e-10", 1);
    CHECK_NANO("-0.1n", 0);
    CHECK_NANO("-0.9n", 0);
    CHECK_NANO("-1.5n", -1);
    CHECK_NANO("-1.0000000001", -NANO);
}

GP_TEST(range_limits)
{
    CHECK_NANO("7Ei", UNITS(8070450532247928832));
    CHECK_NANO("9223372036854775807", UNITS(INT64_MAX));
    CHECK_NANO("-9223372036854775807", -UNITS(INT64_MAX));
    CHECK_NANO("9223372036854775807.999999999", UNITS(INT64_MAX) + NANO - 1);
    CHECK_NANO("9.223372036854775807E", UNITS(INT64_MAX));
    CHECK_NANO("8191Pi", UNITS(9222246136947933184));
    CHECK_STATUS("8Ei", GP_ERANGE);
    CHECK_STATUS("-8Ei", GP_ERANGE);
    CHECK_STATUS("9223372036854775808", GP_ERANGE);
    CHECK_STATUS("-9223372036854775808", GP_ERANGE);
    CHECK_STATUS("9223372036854775807.9999999991", GP_ERANGE); /* rounds up to 2^63 */
    CHECK_STATUS("8192Pi", GP_ERANGE);
    CHECK_STATUS("10E", GP_ERANGE);
    CHECK_STATUS("1e19", GP_ERANGE);
    CHECK_STATUS("9999999999999999999Ei", GP_ERANGE);
    CHECK_STATUS("99999999999999999999999999999999999999999999999999999999999999Ei", GP_ERANGE);
    CHECK_STATUS("9223372036854775808000000000n", GP_ERANGE);
    CHECK_NANO("9223372036854775807999999999n", UNITS(INT64_MAX) + NANO - 1);
}

GP_TEST(malformed_numbers_are_einval)
{
    static const char *const bad[] = {
        "+", "-", ".", "+.", "-.", "1.2.3", "1..", "..5", "--1", "+-1", "1-", "1+", "1/2",
        "1,5", "Mi", "Ki", "m", "e3", "E", "k", ".e3", "-Gi",
    };

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        CHECK_STATUS(bad[i], GP_EINVAL);
}

GP_TEST(bad_suffixes_are_einval)
{
    static const char *const bad[] = {
        "12K", "1K", "1KiB", "1kB", "1Mib", "0x10", "1ki", "1mi", "1Kii", "1i", "1MiB",
        "1Mi5", "1Eix", "1EE", "1b", "1g", "1N", "1U", "1kk", "1mm", "1Gi2", "1e3k",
    };

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        CHECK_STATUS(bad[i], GP_EINVAL);
}

GP_TEST(bad_exponents_are_einval)
{
    static const char *const bad[] = {
        "1e", "1e+", "1e-", "1E+", "1E-", "1e3.5", "1e3e3", "1e--3", "1e+-3", "1e3x", "1e 3",
    };

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        CHECK_STATUS(bad[i], GP_EINVAL);
}

GP_TEST(spaces_and_control_bytes_are_einval)
{
    static const char *const bad[] = {
        "1 Gi", " 1", "1 ", "1Gi ", " 1Gi", "1\t", "\t1", "1\n", "1\r", "- 1", "\xd9\xa1",
        "1\x7f", "1\xff",
    };

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        CHECK_STATUS(bad[i], GP_EINVAL);
}

GP_TEST(empty_is_einval)
{
    CHECK_STATUS("", GP_EINVAL);
    CHECK_STATUS_LEN(NULL, 0, GP_EINVAL);
}

GP_TEST(embedded_nul_is_einval)
{
    CHECK_STATUS_LEN("1\0Gi", 4, GP_EINVAL);
    CHECK_STATUS_LEN("1\0", 2, GP_EINVAL);
    CHECK_STATUS_LEN("\0", 1, GP_EINVAL);
    CHECK_STATUS_LEN("\0" "1", 2, GP_EINVAL);
    check_msg("1\0Gi", 4, "\"1\\x00Gi\": contains a NUL byte at offset 1", __LINE__);
}

GP_TEST(length_is_respected_and_no_nul_is_needed)
{
    /* An exactly sized heap buffer: ASan reports any read past its end. */
    char *buf = malloc(4);
    gp_err err = { { 0 } };
    gp_qty q = { 0 };

    GP_CHECK(buf != NULL);
    if (buf == NULL)
        return;
    memcpy(buf, "500m", 4);
    GP_CHECK(gp_qty_parse(buf, 4, &q, &err) == GP_OK);
    GP_CHECK(q.nano == NANO / 2);
    GP_CHECK(gp_qty_parse(buf, 3, &q, &err) == GP_OK);
    GP_CHECK(q.nano == UNITS(500));
    GP_CHECK(gp_qty_parse("1Gi", 1, &q, &err) == GP_OK);
    GP_CHECK(q.nano == NANO);
    memcpy(buf, "1e3x", 4);
    GP_CHECK(gp_qty_parse(buf, 3, &q, &err) == GP_OK);
    GP_CHECK(q.nano == UNITS(1000));
    GP_CHECK(gp_qty_parse(buf, 4, &q, &err) == GP_EINVAL);
    free(buf);
}

GP_TEST(too_long_is_etoobig)
{
    char s[1001];
    char *heap = malloc(GP_QTY_MAX_LEN + 1);
    gp_err err = { { 0 } };
    gp_qty q = { 0 };

    memset(s, '1', sizeof(s) - 1);
    s[sizeof(s) - 1] = '\0';
    CHECK_STATUS_LEN(s, GP_QTY_MAX_LEN + 1, GP_ETOOBIG);
    CHECK_STATUS_LEN(s, sizeof(s) - 1, GP_ETOOBIG);
    GP_CHECK(gp_qty_parse_str(s, &q, &err) == GP_ETOOBIG);
    GP_CHECK(strstr(err.msg, "longer than 64 bytes") != NULL);
    GP_CHECK(strstr(err.msg, "\"1111111111111111...\"") != NULL);
    /* A too-long string is detected even when it is invalid in other ways. */
    s[3] = ' ';
    CHECK_STATUS_LEN(s, GP_QTY_MAX_LEN + 1, GP_ETOOBIG);
    /* parse_str reads at most GP_QTY_MAX_LEN + 1 bytes: an unterminated buffer of that size. */
    GP_CHECK(heap != NULL);
    if (heap == NULL)
        return;
    memset(heap, '2', GP_QTY_MAX_LEN + 1);
    GP_CHECK(gp_qty_parse_str(heap, &q, &err) == GP_ETOOBIG);
    free(heap);
}

GP_TEST(null_arguments_are_einval)
{
    gp_err err = { { 0 } };
    gp_qty q = { 0 };

    GP_CHECK(gp_qty_parse_str(NULL, &q, &err) == GP_EINVAL);
    GP_CHECK(gp_qty_parse(NULL, 3, &q, &err) == GP_EINVAL);
    GP_CHECK(gp_qty_parse("1", 1, NULL, &err) == GP_EINVAL);
    GP_CHECK(gp_qty_parse_str("1", NULL, NULL) == GP_EINVAL);
    /* err may be NULL on success and on failure. */
    GP_CHECK(gp_qty_parse_str("1k", &q, NULL) == GP_OK);
    GP_CHECK(gp_qty_parse_str("1K", &q, NULL) == GP_EINVAL);
}

GP_TEST(error_messages_name_the_problem)
{
    CHECK_MSG("12K", "\"12K\": unknown suffix \"K\" (use \"k\" or \"Ki\")");
    CHECK_MSG("1.2.3", "\"1.2.3\": not a number");
    CHECK_MSG("+", "\"+\": not a number");
    CHECK_MSG("Mi", "\"Mi\": not a number (no digits before the suffix \"Mi\")");
    CHECK_MSG("1KiB", "\"1KiB\": unknown suffix \"KiB\" (quantities have no byte unit: drop the "
                      "\"B\")");
    CHECK_MSG("0x10", "\"0x10\": unknown suffix \"x10\" (want n, u, m, k, M, G, T, P, E, Ki, Mi, "
                      "Gi, Ti, Pi, Ei or an exponent such as e3)");
    CHECK_MSG("1e", "\"1e\": exponent \"e\" has no digits");
    CHECK_MSG("1e+", "\"1e+\": exponent \"e+\" has no digits");
    CHECK_MSG("1e3x", "\"1e3x\": exponent \"e3x\" is not an integer");
    CHECK_MSG("1e9999999999", "\"1e9999999999\": exponent \"e9999999999\" is out of range (it "
                              "must fit in 32 bits)");
    CHECK_MSG("8Ei", "\"8Ei\": out of range (the magnitude must be below 2^63 units)");
    CHECK_MSG("1 Gi", "\"1 Gi\": contains a space at offset 1 (spaces are not allowed)");
    CHECK_MSG("1\t", "\"1\\x09\": contains byte 0x09 at offset 1 (only printable ASCII is "
                     "allowed)");
    CHECK_MSG("", "empty quantity (want a number such as \"1\", \"500m\" or \"2Gi\")");
    CHECK_MSG("1\"", "\"1\\\"\": not a number");
}

GP_TEST(compare_across_forms)
{
    GP_CHECK(gp_qty_cmp(qty("1Gi"), qty("1G")) > 0);
    GP_CHECK(gp_qty_cmp(qty("1G"), qty("1Gi")) < 0);
    GP_CHECK(gp_qty_cmp(qty("1000m"), qty("1")) == 0);
    GP_CHECK(gp_qty_cmp(qty("1e3"), qty("1k")) == 0);
    GP_CHECK(gp_qty_cmp(qty("1E3"), qty("1k")) == 0);
    GP_CHECK(gp_qty_cmp(qty("1Ki"), qty("1024")) == 0);
    GP_CHECK(gp_qty_cmp(qty("0.5"), qty("500m")) == 0);
    GP_CHECK(gp_qty_cmp(qty("1u"), qty("1000n")) == 0);
    GP_CHECK(gp_qty_cmp(qty("1E"), qty("1e18")) == 0);
    GP_CHECK(gp_qty_cmp(qty("1Mi"), qty("1M")) > 0);
    GP_CHECK(gp_qty_cmp(qty("-1"), qty("0")) < 0);
    GP_CHECK(gp_qty_cmp(qty("-1Gi"), qty("-1G")) < 0);
    GP_CHECK(gp_qty_cmp(qty("1n"), qty("0")) > 0);
    GP_CHECK(gp_qty_cmp(qty("7Ei"), qty("-7Ei")) > 0);
    GP_CHECK(gp_qty_cmp(qty("1.000000001"), qty("1")) > 0);
}

GP_TEST(from_units_and_equals_units)
{
    GP_CHECK(gp_qty_cmp(gp_qty_from_units(3), qty("3")) == 0);
    GP_CHECK(gp_qty_cmp(gp_qty_from_units(0), qty("0")) == 0);
    GP_CHECK(gp_qty_cmp(gp_qty_from_units(-5), qty("-5")) == 0);
    GP_CHECK(gp_qty_from_units(INT64_MAX).nano == UNITS(INT64_MAX));
    GP_CHECK(gp_qty_from_units(INT64_MIN).nano == UNITS(INT64_MIN));
    GP_CHECK(gp_qty_equals_units(qty("2000m"), 2));
    GP_CHECK(gp_qty_equals_units(qty("1Ki"), 1024));
    GP_CHECK(gp_qty_equals_units(qty("0"), 0));
    GP_CHECK(gp_qty_equals_units(qty("-3"), -3));
    GP_CHECK(!gp_qty_equals_units(qty("1500m"), 1));
    GP_CHECK(!gp_qty_equals_units(qty("1500m"), 2));
    GP_CHECK(!gp_qty_equals_units(qty("1n"), 0));
    GP_CHECK(gp_qty_equals_units(gp_qty_from_units(INT64_MIN), INT64_MIN));
}

GP_TEST(ceil_units_rounds_up)
{
    GP_CHECK_INT(gp_qty_ceil_units(qty("1500m")), 2);
    GP_CHECK_INT(gp_qty_ceil_units(qty("1")), 1);
    GP_CHECK_INT(gp_qty_ceil_units(qty("1n")), 1);
    GP_CHECK_INT(gp_qty_ceil_units(qty("0")), 0);
    GP_CHECK_INT(gp_qty_ceil_units(qty("2.000000001")), 3);
    GP_CHECK_INT(gp_qty_ceil_units(qty("-1500m")), -1);
    GP_CHECK_INT(gp_qty_ceil_units(qty("-1n")), 0);
    GP_CHECK_INT(gp_qty_ceil_units(qty("-2")), -2);
    GP_CHECK_INT(gp_qty_ceil_units(qty("1Gi")), 1073741824);
    GP_CHECK_INT(gp_qty_ceil_units(qty("7Ei")), 8070450532247928832);
}

GP_TEST(ceil_milli_rounds_up)
{
    GP_CHECK_INT(gp_qty_ceil_milli(qty("1.0001m")), 2);
    GP_CHECK_INT(gp_qty_ceil_milli(qty("1m")), 1);
    GP_CHECK_INT(gp_qty_ceil_milli(qty("1n")), 1);
    GP_CHECK_INT(gp_qty_ceil_milli(qty("1.5")), 1500);
    GP_CHECK_INT(gp_qty_ceil_milli(qty("250m")), 250);
    GP_CHECK_INT(gp_qty_ceil_milli(qty("-1.5m")), -1);
    GP_CHECK_INT(gp_qty_ceil_milli(qty("-0.5m")), 0);
    GP_CHECK_INT(gp_qty_ceil_milli(qty("0")), 0);
}

GP_TEST(ceil_saturates)
{
    gp_qty big = { ((__int128)1 << 126) };
    gp_qty small = { -((__int128)1 << 126) };
    gp_qty edge = { UNITS(INT64_MAX) + 1 }; /* just above INT64_MAX units */

    GP_CHECK_INT(gp_qty_ceil_units(big), INT64_MAX);
    GP_CHECK_INT(gp_qty_ceil_units(small), INT64_MIN);
    GP_CHECK_INT(gp_qty_ceil_units(edge), INT64_MAX);
    GP_CHECK_INT(gp_qty_ceil_units(qty("9223372036854775807")), INT64_MAX);
    GP_CHECK_INT(gp_qty_ceil_milli(big), INT64_MAX);
    GP_CHECK_INT(gp_qty_ceil_milli(small), INT64_MIN);
    GP_CHECK_INT(gp_qty_ceil_milli(qty("9223372036854775807")), INT64_MAX);
    GP_CHECK_INT(gp_qty_ceil_milli(qty("-9223372036854775807")), INT64_MIN);
    GP_CHECK_INT(gp_qty_ceil_milli(qty("9223372036854775.807")), INT64_MAX);
    GP_CHECK_INT(gp_qty_ceil_milli(qty("9223372036854775.806")), INT64_MAX - 1);
}

GP_TEST(format_is_canonical)
{
    CHECK_FORMAT(qty("1.5"), "1.5");
    CHECK_FORMAT(qty("20"), "20");
    CHECK_FORMAT(qty("-0.25"), "-0.25");
    CHECK_FORMAT(qty("1n"), "0.000000001");
    CHECK_FORMAT(qty("-1n"), "-0.000000001");
    CHECK_FORMAT(qty("0"), "0");
    CHECK_FORMAT(qty("-0"), "0");
    CHECK_FORMAT(qty("1500m"), "1.5");
    CHECK_FORMAT(qty("1.500"), "1.5");
    CHECK_FORMAT(qty("007"), "7");
    CHECK_FORMAT(qty("1Ki"), "1024");
    CHECK_FORMAT(qty("1.5Gi"), "1610612736");
    CHECK_FORMAT(qty("2k"), "2000");
    CHECK_FORMAT(qty("1e-9"), "0.000000001");
    CHECK_FORMAT(qty("123.456789012"), "123.456789012");
    CHECK_FORMAT(qty("7Ei"), "8070450532247928832");
    CHECK_FORMAT(qty("9223372036854775807.999999999"), "9223372036854775807.999999999");
    CHECK_FORMAT(qty("-9223372036854775807"), "-9223372036854775807");
}

GP_TEST(format_extremes_fit_in_48_bytes)
{
    gp_qty max = { (__int128)(((unsigned __int128)1 << 127) - 1) };
    gp_qty min = { -max.nano - 1 };

    CHECK_FORMAT(max, "170141183460469231731687303715.884105727");
    CHECK_FORMAT(min, "-170141183460469231731687303715.884105728");
}

GP_TEST(format_checks_buffer_size)
{
    char buf[8];

    memset(buf, 'x', sizeof(buf));
    GP_CHECK(gp_qty_format(qty("1.5"), buf, 3) == GP_ETOOBIG);
    GP_CHECK_STR(buf, "");
    GP_CHECK(gp_qty_format(qty("1.5"), buf, 4) == GP_OK);
    GP_CHECK_STR(buf, "1.5");
    GP_CHECK(gp_qty_format(qty("1.5"), buf, 0) == GP_ETOOBIG);
    GP_CHECK(gp_qty_format(qty("1.5"), NULL, 0) == GP_ETOOBIG);
    GP_CHECK(gp_qty_format(qty("-1234567"), buf, sizeof(buf)) == GP_ETOOBIG);
    GP_CHECK(gp_qty_format(qty("-123456"), buf, sizeof(buf)) == GP_OK);
    GP_CHECK_STR(buf, "-123456");
}

GP_TEST(format_round_trips)
{
    static const char *const inputs[] = {
        "0",    "1n",  "-1n",       "500m",  "1.5Gi", "7Ei",   "-7Ei", "0.1n",  "1e-3",
        "12e7", "3Pi", "123.456u", "-0.25", ".5",    "1.1Ki", "9E",   "42",    "-1e-20",
        "9223372036854775807.999999999",
    };

    for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++) {
        gp_qty a = qty(inputs[i]), b = { 0 };
        char buf[48];

        GP_CHECK(gp_qty_format(a, buf, sizeof(buf)) == GP_OK);
        GP_CHECK(gp_qty_parse_str(buf, &b, NULL) == GP_OK);
        if (gp_qty_cmp(a, b) != 0) {
            printf("  round trip of \"%s\" via \"%s\" changed the value\n", inputs[i], buf);
            gp_test_failed = 1;
        }
    }
}

/* Integers with a suffix take a short path; the same numbers written with a fraction (".0") take
 * the general one. Both must agree on the value and the status, across the 15-digit edge of the
 * short path, every suffix, leading zeros, and the range limit. */
GP_TEST(plain_integers_agree_with_the_general_path)
{
    static const char *const suffixes[] = { "", "n", "u", "m", "k", "M", "G", "T", "P", "E",
                                            "Ki", "Mi", "Gi", "Ti", "Pi", "Ei" };
    unsigned seed = 12345;
    int mismatches = 0, cases = 0;

    for (int i = 0; i < 4000; i++) {
        char digits[32], a[48], b[48];
        size_t nd = 1 + (size_t)(rand_r(&seed) % 20);
        const char *suf = suffixes[rand_r(&seed) % 16];
        gp_err ea = { { 0 } }, eb = { { 0 } };
        gp_qty qa = { -1 }, qb = { -2 };
        gp_status sa, sb;

        for (size_t k = 0; k < nd; k++)
            digits[k] = (char)('0' + (k == 0 && i % 3 == 0 ? 0 : rand_r(&seed) % 10));
        digits[nd] = '\0';
        if (i % 7 == 0)
            digits[0] = '9'; /* near the range limit */
        snprintf(a, sizeof(a), "%s%s", digits, suf);
        snprintf(b, sizeof(b), "%s.0%s", digits, suf);
        sa = gp_qty_parse_str(a, &qa, &ea);
        sb = gp_qty_parse_str(b, &qb, &eb);
        cases++;
        if (sa != sb || (sa == GP_OK && qa.nano != qb.nano)) {
            if (mismatches++ < 5)
                printf("  %s: status %d, %s: status %d\n", a, sa, b, sb);
        }
    }
    printf("  %d pairs compared\n", cases);
    GP_CHECK_INT(mismatches, 0);
    check_nano("999999999999999Ki", UNITS(999999999999999LL) * 1024, __LINE__);
    check_nano("9E", UNITS(9000000000000000000LL), __LINE__);
    check_status("10E", 3, GP_ERANGE, __LINE__);
    check_status("9Ei", 3, GP_ERANGE, __LINE__);
    check_status("8191Pi", 6, GP_OK, __LINE__);
    check_status("8192Pi", 6, GP_ERANGE, __LINE__);
    check_nano("000000000000001m", NANO / 1000, __LINE__);
    check_nano("7n", 7, __LINE__);
}

GP_MAIN(GP_CASE(plain_integers_agree_with_the_general_path),
        GP_CASE(decimal_suffixes_have_exact_values), GP_CASE(binary_suffixes_have_exact_values),
        GP_CASE(binary_suffixes_with_fractions), GP_CASE(number_forms),
        GP_CASE(sixty_four_byte_input_is_accepted), GP_CASE(exponents),
        GP_CASE(huge_exponents_are_fast_and_exact), GP_CASE(exponent_outside_int32_is_erange),
        GP_CASE(sub_nano_precision_rounds_towards_positive_infinity), GP_CASE(range_limits),
        GP_CASE(malformed_numbers_are_einval), GP_CASE(bad_suffixes_are_einval),
        GP_CASE(bad_exponents_are_einval), GP_CASE(spaces_and_control_bytes_are_einval),
        GP_CASE(empty_is_einval), GP_CASE(embedded_nul_is_einval),
        GP_CASE(length_is_respected_and_no_nul_is_needed), GP_CASE(too_long_is_etoobig),
        GP_CASE(null_arguments_are_einval), GP_CASE(error_messages_name_the_problem),
        GP_CASE(compare_across_forms), GP_CASE(from_units_and_equals_units),
        GP_CASE(ceil_units_rounds_up), GP_CASE(ceil_milli_rounds_up), GP_CASE(ceil_saturates),
        GP_CASE(format_is_canonical), GP_CASE(format_extremes_fit_in_48_bytes),
        GP_CASE(format_checks_buffer_size), GP_CASE(format_round_trips))
