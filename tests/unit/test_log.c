/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of lib/log.c: JSON-lines output, escaping, bounds, atomic lines. */
#include "gpupack/log.h"

#include <cJSON.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>

#include "gptest.h"

/* Everything written to f so far, as a malloc'd string. */
static char *slurp(FILE *f)
{
    long n;
    char *buf;

    fflush(f);
    n = ftell(f);
    buf = calloc(1, (size_t)n + 1);
    rewind(f);
    if (fread(buf, 1, (size_t)n, f) != (size_t)n)
        buf[0] = '\0';
    return buf;
}

static bool utf8_valid(const unsigned char *s)
{
    while (*s) {
        size_t n = *s < 0x80 ? 1 : (*s & 0xE0) == 0xC0 ? 2 : (*s & 0xF0) == 0xE0 ? 3
                 : (*s & 0xF8) == 0xF0 ? 4 : 0;

        if (n == 0)
            return false;
        for (size_t i = 1; i < n; i++)
            if ((s[i] & 0xC0) != 0x80)
                return false;
        s += n;
    }
    return true;
}

/* Logs one line with a single string field "v" and returns the whole output. */
static char *log_one(const char *value)
{
    gp_log log;
    FILE *f = tmpfile();
    char *out;

    gp_log_init(&log, GP_LOG_DEBUG, f);
    GP_LOG(&log, GP_LOG_INFO, "m", GP_LS("v", value));
    out = slurp(f);
    fclose(f);
    gp_log_destroy(&log);
    return out;
}

GP_TEST(line_has_ts_level_msg_and_fields)
{
    gp_log log;
    FILE *f = tmpfile();
    char *out;
    cJSON *j;
    const char *ts;

    gp_log_init(&log, GP_LOG_INFO, f);
    GP_LOG(&log, GP_LOG_WARN, "hello", GP_LS("s", "x"), GP_LI("i", -42), GP_LF("f", 1.5),
           GP_LJ("j", "{\"a\":[1,2]}"), GP_LS("n", NULL), GP_LF("nan", NAN));
    out = slurp(f);
    GP_CHECK(strchr(out, '\n') == out + strlen(out) - 1);
    j = cJSON_Parse(out);
    GP_CHECK(j != NULL);
    ts = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "ts"));
    GP_CHECK(ts != NULL && strlen(ts) == 24 && ts[10] == 'T' && ts[19] == '.' && ts[23] == 'Z');
    GP_CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "level")), "warn");
    GP_CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "msg")), "hello");
    GP_CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "s")), "x");
    GP_CHECK_INT(cJSON_GetObjectItemCaseSensitive(j, "i")->valuedouble, -42);
    GP_CHECK(cJSON_GetObjectItemCaseSensitive(j, "f")->valuedouble == 1.5);
    GP_CHECK_INT(cJSON_GetArraySize(
                     cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "j"),
                                                      "a")),
                 2);
    GP_CHECK(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(j, "n")));
    GP_CHECK(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(j, "nan")));
    GP_CHECK(strncmp(out, "{\"ts\":", 6) == 0);
    cJSON_Delete(j);
    free(out);
    fclose(f);
    gp_log_destroy(&log);
}

GP_TEST(below_level_dropped_and_null_log)
{
    gp_log log;
    FILE *f = tmpfile();
    char *out;

    gp_log_init(&log, GP_LOG_WARN, f);
    GP_LOG(&log, GP_LOG_INFO, "quiet", GP_LI("x", 1));
    gp_log_write(&log, GP_LOG_DEBUG, "quiet", NULL, 0);
    gp_log_write(NULL, GP_LOG_ERROR, "nowhere", NULL, 0);
    out = slurp(f);
    GP_CHECK_STR(out, "");
    free(out);
    gp_log_write(&log, GP_LOG_ERROR, "loud", NULL, 0);
    out = slurp(f);
    GP_CHECK(strstr(out, "\"level\":\"error\",\"msg\":\"loud\"}\n") != NULL);
    free(out);
    fclose(f);
    gp_log_destroy(&log);
}

GP_TEST(escapes_quotes_backslashes_and_controls)
{
    const char *in = "a\"b\\c\nd\te\r\x01\x1f\x7f";
    char *out = log_one(in);
    cJSON *j = cJSON_Parse(out);

    GP_CHECK(strstr(out, "\"v\":\"a\\\"b\\\\c\\nd\\te\\r\\u0001\\u001f\\u007f\"") != NULL);
    GP_CHECK(j != NULL);
    GP_CHECK_STR(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "v")), in);
    cJSON_Delete(j);
    free(out);
}

GP_TEST(invalid_utf8_replaced)
{
    /* A stray byte, a truncated pair, an overlong '/', a surrogate, then a valid emoji and é. */
    char *out = log_one("ok\xff|\xc3(|\xc0\xaf|\xed\xa0\x80|\xf0\x9f\x98\x80|\xc3\xa9");
    cJSON *j = cJSON_Parse(out);

    GP_CHECK(j != NULL);
    GP_CHECK(utf8_valid((const unsigned char *)out));
    GP_CHECK(strstr(out, "ok\xEF\xBF\xBD|\xEF\xBF\xBD(|") != NULL);
    GP_CHECK(strstr(out, "|\xEF\xBF\xBD\xEF\xBF\xBD|\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD|") !=
             NULL);
    GP_CHECK(strstr(out, "\xf0\x9f\x98\x80|\xc3\xa9\"") != NULL);
    cJSON_Delete(j);
    free(out);
}

GP_TEST(long_value_cut_with_marker)
{
    char big[2000];
    char *out;
    cJSON *j;
    const char *v;

    memset(big, 'x', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    big[GP_LOG_MAX_VALUE - 1] = '\xc3'; /* a two-byte character straddling the cut */
    big[GP_LOG_MAX_VALUE] = '\xa9';
    out = log_one(big);
    j = cJSON_Parse(out);
    v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(j, "v"));
    GP_CHECK(v != NULL);
    if (v == NULL) { /* failed above; strlen() below would read NULL */
        cJSON_Delete(j);
        free(out);
        return;
    }
    GP_CHECK_INT(strlen(v), GP_LOG_MAX_VALUE - 1 + 3);
    GP_CHECK(v != NULL && strcmp(v + strlen(v) - 3, "...") == 0);
    GP_CHECK(utf8_valid((const unsigned char *)out));
    cJSON_Delete(j);
    free(out);
}

GP_TEST(whole_line_bounded_and_marked)
{
    gp_log log;
    FILE *f = tmpfile();
    gp_log_field fields[20];
    char quotes[GP_LOG_MAX_VALUE + 1];
    char *out;
    cJSON *j;

    memset(quotes, '"', GP_LOG_MAX_VALUE);
    quotes[GP_LOG_MAX_VALUE] = '\0';
    for (size_t i = 0; i < 20; i++)
        fields[i] = GP_LS("k", quotes);
    gp_log_init(&log, GP_LOG_DEBUG, f);
    gp_log_write(&log, GP_LOG_INFO, quotes, fields, 20);
    out = slurp(f);
    GP_CHECK(strlen(out) <= GP_LOG_MAX_LINE);
    GP_CHECK(strlen(out) > GP_LOG_MAX_LINE / 2);
    j = cJSON_Parse(out);
    GP_CHECK(j != NULL);
    GP_CHECK(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "truncated")));
    GP_CHECK(strcmp(out + strlen(out) - 19, ",\"truncated\":true}\n") == 0);
    cJSON_Delete(j);
    free(out);
    fclose(f);
    gp_log_destroy(&log);
}

GP_TEST(level_parse)
{
    gp_log_level l = GP_LOG_ERROR;

    GP_CHECK_INT(gp_log_level_parse("debug", &l), GP_OK);
    GP_CHECK_INT(l, GP_LOG_DEBUG);
    GP_CHECK_INT(gp_log_level_parse("warning", &l), GP_OK);
    GP_CHECK_INT(l, GP_LOG_WARN);
    GP_CHECK_INT(gp_log_level_parse("warn", &l), GP_OK);
    GP_CHECK_INT(gp_log_level_parse("info", &l), GP_OK);
    GP_CHECK_INT(l, GP_LOG_INFO);
    GP_CHECK_INT(gp_log_level_parse("error", &l), GP_OK);
    GP_CHECK_INT(l, GP_LOG_ERROR);
    GP_CHECK_INT(gp_log_level_parse("INFO", &l), GP_EINVAL);
    GP_CHECK_INT(gp_log_level_parse("", &l), GP_EINVAL);
    GP_CHECK_INT(gp_log_level_parse(NULL, &l), GP_EINVAL);
}

#define THREADS 8
#define LINES 300

static void *spam(void *arg)
{
    char value[1500];

    memset(value, 'a', sizeof(value) - 1);
    value[sizeof(value) - 1] = '\0';
    for (int i = 0; i < LINES; i++)
        GP_LOG((gp_log *)arg, GP_LOG_INFO, "spam", GP_LI("i", i), GP_LS("v", value),
               GP_LS("w", value), GP_LS("x", value));
    return NULL;
}

GP_TEST(lines_atomic_across_threads)
{
    gp_log log;
    FILE *f = tmpfile();
    pthread_t t[THREADS];
    char *out, *line, *save = NULL;
    int n = 0;

    gp_log_init(&log, GP_LOG_DEBUG, f);
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, spam, &log);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    out = slurp(f);
    for (line = strtok_r(out, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
        cJSON *j = cJSON_Parse(line);

        if (j == NULL)
            printf("  bad line: %.80s\n", line);
        GP_CHECK(j != NULL);
        cJSON_Delete(j);
        n++;
    }
    GP_CHECK_INT(n, THREADS * LINES);
    free(out);
    fclose(f);
    gp_log_destroy(&log);
}

GP_MAIN(GP_CASE(line_has_ts_level_msg_and_fields), GP_CASE(below_level_dropped_and_null_log),
        GP_CASE(escapes_quotes_backslashes_and_controls), GP_CASE(invalid_utf8_replaced),
        GP_CASE(long_value_cut_with_marker), GP_CASE(whole_line_bounded_and_marked),
        GP_CASE(level_parse), GP_CASE(lines_atomic_across_threads))
