/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of lib/promjson.c: Prometheus HTTP API bodies (shaped as Prometheus 2.42 writes
 * them) decoded into gp_prom_result, malformed bodies refused with a named path, and the caps. */
#include "gptest.h"

#include <math.h>

#include "gpupack/promjson.h"
#include "gpupack/strbuf.h"

static gp_status dec(const char *body, const gp_prom_limits *lim, gp_prom_result **r, gp_err *err)
{
    memset(err, 0, sizeof(*err));
    return gp_promjson_decode(body, strlen(body), lim, r, err);
}

/* The body must fail with st and a message containing want. */
static void refuses(const char *body, gp_status want_st, const char *want)
{
    gp_prom_result *r = (gp_prom_result *)1;
    gp_err err;
    gp_status st = dec(body, NULL, &r, &err);

    GP_CHECK_INT(st, want_st);
    GP_CHECK(r == NULL);
    if (strstr(err.msg, want) == NULL) {
        printf("  error \"%s\", want \"%s\"\n", err.msg, want);
        gp_test_failed = 1;
    }
}

GP_TEST(vector)
{
    gp_prom_result *r;
    gp_err err;
    const char *b = "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":["
                    "{\"metric\":{\"Hostname\":\"n1\",\"gpu\":\"0\"},\"value\":[1700000000.5,\"0.05\"]},"
                    "{\"metric\":{},\"value\":[1700000000,\"3\"]}]}}";

    GP_CHECK_INT(dec(b, NULL, &r, &err), GP_OK);
    GP_CHECK(r->success);
    GP_CHECK_INT(r->kind, GP_PROM_VECTOR);
    GP_CHECK_INT(r->nseries, 2);
    GP_CHECK_INT(r->series[0].nlabels, 2);
    GP_CHECK_STR(gp_prom_label_get(&r->series[0], "Hostname"), "n1");
    GP_CHECK_STR(r->series[0].labels[1].name, "gpu");
    GP_CHECK(gp_prom_label_get(&r->series[0], "pod") == NULL);
    GP_CHECK_NEAR(r->series[0].samples[0].t, 1700000000.5, 1e-6);
    GP_CHECK_NEAR(r->series[0].samples[0].v, 0.05, 1e-12);
    GP_CHECK_INT(r->series[1].nlabels, 0);
    GP_CHECK_NEAR(r->series[1].samples[0].v, 3, 0);
    gp_prom_result_free(r);
}

GP_TEST(matrix)
{
    gp_prom_result *r;
    gp_err err;
    const char *b = "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":["
                    "{\"metric\":{\"__name__\":\"up\"},\"values\":[[1,\"1\"],[61,\"0\"],[121,\"1e-3\"]]}]}}";

    GP_CHECK_INT(dec(b, NULL, &r, &err), GP_OK);
    GP_CHECK_INT(r->kind, GP_PROM_MATRIX);
    GP_CHECK_INT(r->nseries, 1);
    GP_CHECK_INT(r->series[0].nsamples, 3);
    GP_CHECK_NEAR(r->series[0].samples[1].t, 61, 0);
    GP_CHECK_NEAR(r->series[0].samples[2].v, 0.001, 1e-15);
    GP_CHECK_STR(gp_prom_kind_str(r->kind), "matrix");
    gp_prom_result_free(r);
}

GP_TEST(scalar_and_series)
{
    gp_prom_result *r;
    gp_err err;

    GP_CHECK_INT(dec("{\"status\":\"success\",\"data\":{\"resultType\":\"scalar\",\"result\":[5,\"42\"]}}",
                     NULL, &r, &err), GP_OK);
    GP_CHECK_INT(r->kind, GP_PROM_SCALAR);
    GP_CHECK_INT(r->nseries, 1);
    GP_CHECK_NEAR(r->series[0].samples[0].v, 42, 0);
    gp_prom_result_free(r);
    GP_CHECK_INT(dec("{\"status\":\"success\",\"data\":[{\"__name__\":\"up\",\"job\":\"p\"},{}]}",
                     NULL, &r, &err), GP_OK);
    GP_CHECK_INT(r->kind, GP_PROM_SERIES);
    GP_CHECK_INT(r->nseries, 2);
    GP_CHECK_STR(gp_prom_label_get(&r->series[0], "job"), "p");
    GP_CHECK_INT(r->series[0].nsamples, 0);
    gp_prom_result_free(r);
}

GP_TEST(error_body)
{
    gp_prom_result *r;
    gp_err err;
    const char *b = "{\"status\":\"error\",\"errorType\":\"bad_data\",\"error\":\"1:5: parse error: "
                    "unexpected end of input\"}";

    GP_CHECK_INT(dec(b, NULL, &r, &err), GP_OK);
    GP_CHECK(!r->success);
    GP_CHECK_STR(r->error_type, "bad_data");
    GP_CHECK_STR(r->error, "1:5: parse error: unexpected end of input");
    GP_CHECK_INT(r->kind, GP_PROM_NONE);
    GP_CHECK_INT(r->nseries, 0);
    gp_prom_result_free(r);
    GP_CHECK_INT(dec("{\"status\":\"error\"}", NULL, &r, &err), GP_OK);
    GP_CHECK(r->error != NULL && r->error_type == NULL);
    gp_prom_result_free(r);
}

GP_TEST(warnings_and_infos)
{
    gp_prom_result *r;
    gp_err err;
    const char *b = "{\"status\":\"success\",\"warnings\":[\"w1\",\"w2\"],\"infos\":[\"i1\"],"
                    "\"data\":{\"resultType\":\"vector\",\"result\":[]}}";

    GP_CHECK_INT(dec(b, NULL, &r, &err), GP_OK);
    GP_CHECK_INT(r->nwarnings, 2);
    GP_CHECK_STR(r->warnings[1], "w2");
    GP_CHECK_INT(r->ninfos, 1);
    GP_CHECK_STR(r->infos[0], "i1");
    GP_CHECK_INT(r->nseries, 0);
    gp_prom_result_free(r);
}

GP_TEST(nan_and_inf)
{
    gp_prom_result *r;
    gp_err err;
    const char *b = "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":["
                    "{\"metric\":{},\"values\":[[1,\"NaN\"],[2,\"+Inf\"],[3,\"-Inf\"],[4,\"-0.5\"]]}]}}";

    GP_CHECK_INT(dec(b, NULL, &r, &err), GP_OK);
    GP_CHECK(isnan(r->series[0].samples[0].v));
    GP_CHECK(isinf(r->series[0].samples[1].v) && r->series[0].samples[1].v > 0);
    GP_CHECK(isinf(r->series[0].samples[2].v) && r->series[0].samples[2].v < 0);
    GP_CHECK_NEAR(r->series[0].samples[3].v, -0.5, 0);
    gp_prom_result_free(r);
}

#define V(res) "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":" res "}}"
#define M(res) "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":" res "}}"

GP_TEST(malformed)
{
    refuses("", GP_EINVAL, "invalid JSON");
    refuses("{\"status\":\"success\"} x", GP_EINVAL, "invalid JSON");
    refuses("[1]", GP_EINVAL, "want a JSON object");
    refuses("{\"status\":\"ok\"}", GP_EINVAL, "status: want");
    refuses("{\"status\":\"success\"}", GP_EINVAL, "data: want an object or an array");
    refuses("{\"status\":\"success\",\"data\":{\"resultType\":\"string\",\"result\":[1,\"a\"]}}",
            GP_EINVAL, "data.resultType");
    refuses(V("{}"), GP_EINVAL, "data.result: want an array");
    refuses(V("[1]"), GP_EINVAL, "data.result[0]: want an object");
    refuses(V("[{\"value\":[1,\"1\"]}]"), GP_EINVAL, "data.result[0].metric: want an object");
    refuses(V("[{\"metric\":{\"a\":1},\"value\":[1,\"1\"]}]"), GP_EINVAL,
            "data.result[0].metric.a: want a string");
    refuses(V("[{\"metric\":{},\"value\":[1,1]}]"), GP_EINVAL,
            "data.result[0].value: want [time, \"value\"]");
    refuses(V("[{\"metric\":{},\"value\":[1,\"x\"]}]"), GP_EINVAL,
            "data.result[0].value: value \"x\" is not a number");
    refuses(V("[{\"metric\":{},\"value\":[1,\"inf\"]}]"), GP_EINVAL, "is not a number");
    refuses(V("[{\"metric\":{},\"value\":[1,\"0x10\"]}]"), GP_EINVAL, "is not a number");
    refuses(V("[{\"metric\":{},\"value\":[1,\"1 \"]}]"), GP_EINVAL, "is not a number");
    /* cJSON reads 1e999 as +Inf: a time nothing downstream can index a window with */
    refuses(V("[{\"metric\":{},\"value\":[1e999,\"1\"]}]"), GP_EINVAL,
            "data.result[0].value: time is not a finite number");
    refuses(M("[{\"metric\":{},\"values\":[[1,\"1\"]]},{\"metric\":{},\"values\":[[1,\"1\"],"
              "[2,\"1\"],[3]]},{},{}]"),
            GP_EINVAL, "data.result[1].values[2]: want [time, \"value\"]");
    refuses(M("[{\"metric\":{},\"values\":{}}]"), GP_EINVAL, "data.result[0].values: want an array");
    refuses("{\"status\":\"success\",\"warnings\":\"w\",\"data\":[]}", GP_EINVAL,
            "warnings: want an array");
    refuses("{\"status\":\"success\",\"infos\":[1],\"data\":[]}", GP_EINVAL, "infos[0]: want a string");
    refuses("{\"status\":\"success\",\"data\":[1]}", GP_EINVAL, "data[0]: want an object of labels");
    refuses("[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
            GP_EINVAL, "invalid JSON");
}

/* A raw NUL inside a label: cJSON would keep the string up to it ("na"), so the body is refused. */
GP_TEST(nul_inside_is_refused)
{
    static const char b[] = V("[{\"metric\":{\"na\0me\":\"v\"},\"value\":[1,\"1\"]}]");
    gp_prom_result *r = (gp_prom_result *)1;
    gp_err err = { { 0 } };

    GP_CHECK_INT(gp_promjson_decode(b, sizeof(b) - 1, NULL, &r, &err), GP_EINVAL);
    GP_CHECK(r == NULL);
    GP_CHECK(strstr(err.msg, "a NUL byte") != NULL);
}

GP_TEST(caps)
{
    gp_prom_result *r;
    gp_err err;
    gp_prom_limits two_series = { .max_series = 2 }, three_samples = { .max_samples = 3 };
    const char *b = M("[{\"metric\":{},\"values\":[[1,\"1\"],[2,\"1\"]]},"
                      "{\"metric\":{},\"values\":[[1,\"1\"],[2,\"1\"]]},{\"metric\":{},\"values\":[]}]");

    GP_CHECK_INT(dec(b, &two_series, &r, &err), GP_ETOOBIG);
    GP_CHECK(r == NULL);
    GP_CHECK(strstr(err.msg, "more than 2 series") != NULL);
    GP_CHECK_INT(dec(b, &three_samples, &r, &err), GP_ETOOBIG);
    GP_CHECK(strstr(err.msg, "data.result[1]: more than 3 samples") != NULL);
    GP_CHECK_INT(dec(b, NULL, &r, &err), GP_OK);
    GP_CHECK_INT(r->nseries, 3);
    gp_prom_result_free(r);
}

/* Members in any order, as other servers (and proxies re-encoding the JSON) may send them. */
GP_TEST(key_orders)
{
    gp_prom_result *r;
    gp_err err;

    /* data before status, resultType after result, value before metric */
    GP_CHECK_INT(dec("{\"data\":{\"result\":[{\"values\":[[1,\"2\"],[3,\"4\"]],\"metric\":{\"a\":\"b\"}}],"
                     "\"resultType\":\"matrix\"},\"warnings\":[\"w\"],\"status\":\"success\"}",
                     NULL, &r, &err), GP_OK);
    GP_CHECK(r->success);
    GP_CHECK_INT(r->kind, GP_PROM_MATRIX);
    GP_CHECK_INT(r->nseries, 1);
    GP_CHECK_INT(r->series[0].nsamples, 2);
    GP_CHECK_NEAR(r->series[0].samples[1].t, 3, 0);
    GP_CHECK_NEAR(r->series[0].samples[1].v, 4, 0);
    GP_CHECK_STR(gp_prom_label_get(&r->series[0], "a"), "b");
    GP_CHECK_INT(r->nwarnings, 1);
    gp_prom_result_free(r);
    /* a vector and a scalar whose type comes last */
    GP_CHECK_INT(dec("{\"status\":\"success\",\"data\":{\"result\":[{\"metric\":{},\"value\":[5,\"6\"],"
                     "\"values\":\"ignored for a vector\"}],\"resultType\":\"vector\"}}",
                     NULL, &r, &err), GP_OK);
    GP_CHECK_INT(r->kind, GP_PROM_VECTOR);
    GP_CHECK_INT(r->nseries, 1);
    GP_CHECK_NEAR(r->series[0].samples[0].v, 6, 0);
    gp_prom_result_free(r);
    GP_CHECK_INT(dec("{\"data\":{\"result\":[7,\"8\"],\"resultType\":\"scalar\"},\"status\":\"success\"}",
                     NULL, &r, &err), GP_OK);
    GP_CHECK_INT(r->kind, GP_PROM_SCALAR);
    GP_CHECK_NEAR(r->series[0].samples[0].t, 7, 0);
    gp_prom_result_free(r);
    /* an error body whose data came first: data is not looked at, even when it is wrong */
    GP_CHECK_INT(dec("{\"data\":{\"resultType\":\"vector\",\"result\":[{\"metric\":{},\"value\":[1,1]}]},"
                     "\"error\":\"boom\",\"status\":\"error\"}", NULL, &r, &err), GP_OK);
    GP_CHECK(!r->success);
    GP_CHECK_STR(r->error, "boom");
    GP_CHECK_INT(r->kind, GP_PROM_NONE);
    GP_CHECK(r->nseries == 0 && r->series == NULL);
    gp_prom_result_free(r);
    /* the same data with status success: its error, with its path */
    refuses("{\"data\":{\"resultType\":\"vector\",\"result\":[{\"metric\":{},\"value\":[1,1]}]},"
            "\"status\":\"success\"}", GP_EINVAL, "data.result[0].value: want [time, \"value\"]");
    refuses("{\"data\":{\"result\":[{\"metric\":{},\"values\":[[1,\"1\"],[2]]}],\"resultType\":\"matrix\"},"
            "\"status\":\"success\"}", GP_EINVAL, "data.result[0].values[1]: want [time, \"value\"]");
    refuses("{\"data\":{\"result\":[]},\"status\":\"success\"}", GP_EINVAL, "data.resultType");
    /* a success body whose error members are not kept */
    GP_CHECK_INT(dec("{\"error\":\"x\",\"errorType\":\"y\",\"status\":\"success\",\"data\":[]}", NULL, &r,
                     &err), GP_OK);
    GP_CHECK(r->error == NULL && r->error_type == NULL);
    gp_prom_result_free(r);
}

/* A member sent twice: the first one counts; labels sent twice are both kept, in order. */
GP_TEST(repeated_members)
{
    gp_prom_result *r;
    gp_err err;

    GP_CHECK_INT(dec("{\"status\":\"success\",\"status\":\"error\",\"data\":{\"resultType\":\"vector\","
                     "\"resultType\":\"matrix\",\"result\":[{\"metric\":{\"a\":\"1\",\"a\":\"2\"},"
                     "\"value\":[1,\"1\"],\"value\":[2,\"x\"],\"metric\":5}],\"result\":7},\"data\":8}",
                     NULL, &r, &err), GP_OK);
    GP_CHECK(r->success);
    GP_CHECK_INT(r->kind, GP_PROM_VECTOR);
    GP_CHECK_INT(r->nseries, 1);
    GP_CHECK_INT(r->series[0].nlabels, 2);
    GP_CHECK_STR(r->series[0].labels[1].value, "2");
    GP_CHECK_NEAR(r->series[0].samples[0].t, 1, 0);
    gp_prom_result_free(r);
}

/* A cap stops the decoding where it is passed: what follows is not even read (here it is not
 * JSON, which would otherwise be the answer). */
GP_TEST(caps_stop_early)
{
    gp_prom_result *r = (gp_prom_result *)1;
    gp_err err;
    gp_prom_limits two_series = { .max_series = 2 }, three_samples = { .max_samples = 3 };

    GP_CHECK_INT(dec(M("[{\"metric\":{},\"values\":[[1,\"1\"],[2,\"1\"],[3,\"1\"],[4,\"1\"],%%%"),
                     &three_samples, &r, &err), GP_ETOOBIG);
    GP_CHECK(r == NULL);
    GP_CHECK(strstr(err.msg, "data.result[0]: more than 3 samples") != NULL);
    GP_CHECK_INT(dec(V("[{\"metric\":{},\"value\":[1,\"1\"]},{\"metric\":{},\"value\":[1,\"1\"]},{%%%"),
                     &two_series, &r, &err), GP_ETOOBIG);
    GP_CHECK(strstr(err.msg, "data.result: more than 2 series") != NULL);
    GP_CHECK_INT(dec("{\"status\":\"success\",\"data\":[{},{},{},", &two_series, &r, &err), GP_ETOOBIG);
    GP_CHECK(strstr(err.msg, "data: more than 2 series") != NULL);
    /* over the cap in an error body's data: not looked at, so no cap either */
    GP_CHECK_INT(dec("{\"data\":[{},{},{}],\"status\":\"error\"}", &two_series, &r, &err), GP_OK);
    GP_CHECK(!r->success && r->nseries == 0);
    gp_prom_result_free(r);
}

/* Nesting is bounded in skipped members too (the parser keeps no stack of its own for them). */
GP_TEST(deep_unknown_members)
{
    char body[4200];
    gp_prom_result *r;
    gp_err err;
    size_t n = 0;

    n += (size_t)snprintf(body, sizeof(body), "{\"status\":\"success\",\"data\":[],\"x\":");
    for (int i = 0; i < 900; i++)
        body[n++] = '[';
    for (int i = 0; i < 900; i++)
        body[n++] = ']';
    snprintf(body + n, sizeof(body) - n, "}");
    GP_CHECK_INT(dec(body, NULL, &r, &err), GP_OK);
    GP_CHECK_INT(r->kind, GP_PROM_SERIES);
    gp_prom_result_free(r);
    n = (size_t)snprintf(body, sizeof(body), "{\"status\":\"success\",\"data\":[],\"x\":");
    for (int i = 0; i < 1100; i++)
        body[n++] = '[';
    body[n] = '\0';
    refuses(body, GP_EINVAL, "nested deeper than 1000");
}

GP_TEST(many_warnings_are_capped)
{
    char body[4096] = "{\"status\":\"success\",\"data\":[],\"warnings\":[";
    gp_prom_result *r;
    gp_err err;

    for (int i = 0; i < 100; i++)
        snprintf(body + strlen(body), sizeof(body) - strlen(body), "%s\"w\"", i ? "," : "");
    snprintf(body + strlen(body), sizeof(body) - strlen(body), "]}");
    GP_CHECK_INT(dec(body, NULL, &r, &err), GP_OK);
    GP_CHECK_INT(r->nwarnings, GP_PROM_MAX_MESSAGES);
    gp_prom_result_free(r);
    gp_prom_result_free(NULL);
}

/* Many series, long and short, sharing some label values and not others: every label and
 * sample reads back as sent, across the decoder's storage blocks (a series of 20,000 samples is
 * larger than one), and a value cut by \u0000 reads as the C string before it. */
GP_TEST(many_series_read_back)
{
    gp_strbuf b;
    gp_prom_result *r;
    gp_err err;
    const size_t nser = 60;
    bool ok = true;

    gp_strbuf_init(&b, 0);
    gp_strbuf_puts(&b, "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[");
    for (size_t i = 0; i < nser; i++) {
        size_t n = i == 7 ? 20000 : 1 + i * 97 % 3000;

        gp_strbuf_printf(&b, "%s{\"metric\":{\"namespace\":\"ns-%zu\",\"pod\":\"pod-%zu\","
                         "\"x\":\"a\\u0000b\"},\"values\":[", i ? "," : "", i % 3, i);
        for (size_t k = 0; k < n; k++)
            gp_strbuf_printf(&b, "%s[%zu,\"%zu.5\"]", k ? "," : "", 1700000000 + k, i * 100000 + k);
        gp_strbuf_puts(&b, "]}");
    }
    gp_strbuf_puts(&b, "]}}");
    GP_CHECK(!b.failed);
    GP_CHECK_INT(gp_promjson_decode(b.p, b.len, NULL, &r, &err), GP_OK);
    GP_CHECK_INT(r->nseries, nser);
    for (size_t i = 0; i < nser && ok; i++) {
        const gp_prom_series *s = &r->series[i];
        size_t n = i == 7 ? 20000 : 1 + i * 97 % 3000;
        char want[32];

        snprintf(want, sizeof(want), "ns-%zu", i % 3);
        ok = strcmp(gp_prom_label_get(s, "namespace"), want) == 0;
        snprintf(want, sizeof(want), "pod-%zu", i);
        ok = ok && strcmp(gp_prom_label_get(s, "pod"), want) == 0 &&
             strcmp(gp_prom_label_get(s, "x"), "a") == 0 && s->nsamples == n;
        for (size_t k = 0; k < s->nsamples && ok; k++)
            ok = s->samples[k].t == 1700000000.0 + (double)k &&
                 s->samples[k].v == (double)(i * 100000 + k) + 0.5;
        if (!ok)
            printf("  series %zu does not read back as sent\n", i);
    }
    GP_CHECK(ok);
    gp_prom_result_free(r);
    gp_strbuf_free(&b);
}

/* The parts of a range joined: series in order, labels and samples intact after each part's
 * storage moved, a warning sent by both parts once, the part freed (the sanitizers' leak check),
 * and two answers of different kinds refused. */
GP_TEST(parts_appended)
{
    gp_prom_result *r, *part, *vec;
    gp_err err;
    const char *b1 = "{\"status\":\"success\",\"warnings\":[\"w1\"],\"data\":{\"resultType\":"
                     "\"matrix\",\"result\":[{\"metric\":{\"pod\":\"a\"},\"values\":[[100,\"1\"],"
                     "[160,\"2\"]]}]}}";
    const char *b2 = "{\"status\":\"success\",\"warnings\":[\"w1\",\"w2\"],\"infos\":[\"i\"],"
                     "\"data\":{\"resultType\":\"matrix\",\"result\":[{\"metric\":{\"pod\":\"a\"},"
                     "\"values\":[[220,\"3\"]]},{\"metric\":{\"pod\":\"b\"},\"values\":[[220,\"4\"]]}]}}";
    const char *b3 = "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[]}}";

    GP_CHECK_INT(dec(b1, NULL, &r, &err), GP_OK);
    GP_CHECK_INT(dec(b2, NULL, &part, &err), GP_OK);
    GP_CHECK_INT(gp_prom_result_append(r, part), GP_OK);
    GP_CHECK_INT(r->nseries, 3);
    GP_CHECK_STR(gp_prom_label_get(&r->series[0], "pod"), "a");
    GP_CHECK_STR(gp_prom_label_get(&r->series[1], "pod"), "a");
    GP_CHECK_STR(gp_prom_label_get(&r->series[2], "pod"), "b");
    GP_CHECK_INT(r->series[0].nsamples, 2);
    GP_CHECK(r->series[0].samples[1].t == 160 && r->series[0].samples[1].v == 2);
    GP_CHECK(r->series[1].nsamples == 1 && r->series[1].samples[0].t == 220 &&
             r->series[1].samples[0].v == 3);
    GP_CHECK(r->series[2].samples[0].v == 4);
    GP_CHECK(gp_arena_owns(&r->store, r->series[2].samples));
    GP_CHECK_INT(r->nwarnings, 2);
    GP_CHECK_STR(r->warnings[0], "w1");
    GP_CHECK_STR(r->warnings[1], "w2");
    GP_CHECK(r->ninfos == 1 && strcmp(r->infos[0], "i") == 0);
    GP_CHECK_INT(dec(b3, NULL, &vec, &err), GP_OK);
    GP_CHECK_INT(gp_prom_result_append(r, vec), GP_EINVAL);
    GP_CHECK_INT(r->nseries, 3);
    GP_CHECK_INT(gp_prom_result_append(r, NULL), GP_EINVAL);
    gp_prom_result_free(r);
}

GP_MAIN(GP_CASE(vector), GP_CASE(matrix), GP_CASE(scalar_and_series), GP_CASE(error_body),
        GP_CASE(warnings_and_infos), GP_CASE(nan_and_inf), GP_CASE(malformed),
        GP_CASE(nul_inside_is_refused), GP_CASE(caps), GP_CASE(many_warnings_are_capped),
        GP_CASE(key_orders), GP_CASE(repeated_members), GP_CASE(caps_stop_early),
        GP_CASE(deep_unknown_members), GP_CASE(many_series_read_back), GP_CASE(parts_appended))
