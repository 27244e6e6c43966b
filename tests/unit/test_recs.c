/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of lib/recs.c: recommendations made from a report's MIG findings, encoded under a
 * byte bound (the workloads worth most kept, the rest counted as dropped), decoded back, looked
 * up by workload, expiry, and bad documents refused with the JSON path. */
#include "gptest.h"

#include <math.h>

#include "gpupack/recs.h"

#define NOW 1764806400.0 /* 2025-12-04T00:00:00Z */

static gp_adv_finding finding(gp_adv_kind k, const char *ns, const char *kind, const char *name,
                              const char *mem, double monthly)
{
    gp_adv_finding f;

    memset(&f, 0, sizeof(f));
    f.kind = k;
    f.namespace = (char *)ns;
    f.workload_kind = (char *)kind;
    f.workload_name = (char *)name;
    f.gpu_memory = (char *)mem;
    f.mig_profile = mem != NULL ? (char *)"2g.20gb" : NULL;
    f.monthly = monthly;
    f.fb_peak_mib = 9216;
    f.p95 = 0.12;
    f.mean = 0.08;
    f.samples = 20160;
    return f;
}

static void report_of(gp_adv_report *rep, gp_adv_finding *f, size_t n)
{
    memset(rep, 0, sizeof(*rep));
    rep->start = NOW - 7 * 86400;
    rep->end = NOW;
    rep->findings = f;
    rep->nfindings = n;
}

static gp_status dec(const char *s, gp_recs *r, gp_err *err)
{
    memset(err, 0, sizeof(*err));
    return gp_recs_decode(s, strlen(s), r, err);
}

GP_TEST(from_report_keeps_mig_findings_in_order)
{
    gp_adv_finding f[] = {
        finding(GP_ADV_IDLE, "ml", "Deployment", "idle", NULL, 900),
        finding(GP_ADV_MIG, "ml", "Deployment", "ranker", "11Gi", 500),
        finding(GP_ADV_NODE, "", "Node", "gpu-1", NULL, 400),
        finding(GP_ADV_MIG, "web", "StatefulSet", "embed", "5Gi", 300),
        finding(GP_ADV_MIG, "web", "Deployment", "zero", "0", 200),
    };
    gp_adv_report rep;
    gp_recs r;

    report_of(&rep, f, 5);
    GP_CHECK_INT(gp_recs_from_report(&rep, NOW, 72 * 3600, &r), GP_OK);
    GP_CHECK_INT(r.n, 2);
    GP_CHECK_INT(r.total, 2);
    GP_CHECK_STR(r.v[0].name, "ranker");
    GP_CHECK_STR(r.v[0].gpu_memory, "11Gi");
    GP_CHECK_STR(r.v[0].mig_profile, "2g.20gb");
    GP_CHECK_NEAR(r.v[0].expires, NOW + 72 * 3600, 0);
    GP_CHECK_NEAR(r.v[0].window_hours, 168, 1e-9);
    GP_CHECK_STR(r.v[1].kind, "StatefulSet");
    gp_recs_free(&r);
}

GP_TEST(encode_decode_round_trip)
{
    gp_adv_finding f[] = {
        finding(GP_ADV_MIG, "ml", "Deployment", "ranker", "11Gi", 500),
        finding(GP_ADV_MIG, "a\"b", "Notebook", "nb\\1", "9Gi", 100),
    };
    gp_adv_report rep;
    gp_recs r, back;
    gp_strbuf b;
    gp_err err;
    size_t kept = 99;
    const gp_rec *x;

    report_of(&rep, f, 2);
    f[1].p95 = NAN;
    GP_CHECK_INT(gp_recs_from_report(&rep, NOW, 3600, &r), GP_OK);
    gp_strbuf_init(&b, 0);
    GP_CHECK_INT(gp_recs_encode(&r, 0, &b, &kept), GP_OK);
    GP_CHECK_INT(kept, 2);
    GP_CHECK(strstr(b.p, "\"apiVersion\":\"gpupack.io/recommendations/v1\"") != NULL);
    GP_CHECK(strstr(b.p, "\"generated\":\"2025-12-04T00:00:00Z\"") != NULL);
    GP_CHECK(strstr(b.p, "\"expires\":\"2025-12-04T01:00:00Z\"") != NULL);
    GP_CHECK(strstr(b.p, "\"dropped\":0") != NULL);
    GP_CHECK_INT(gp_recs_decode(b.p, b.len, &back, &err), GP_OK);
    GP_CHECK_INT(back.n, 2);
    x = gp_recs_find(&back, "ml", "Deployment", "ranker");
    GP_CHECK(x != NULL);
    if (x != NULL) {
        GP_CHECK_STR(x->gpu_memory, "11Gi");
        GP_CHECK(gp_qty_cmp(x->gpu_memory_bytes, gp_qty_from_units(11LL << 30)) == 0);
        GP_CHECK_NEAR(x->fb_peak_mib, 9216, 0);
        GP_CHECK_NEAR(x->p95, 0.12, 1e-12);
        GP_CHECK_NEAR(x->monthly, 500, 1e-9);
        GP_CHECK_NEAR(x->created, NOW, 0);
        GP_CHECK(!gp_rec_expired(x, NOW + 3599));
        GP_CHECK(gp_rec_expired(x, NOW + 3600));
    }
    x = gp_recs_find(&back, "a\"b", "Notebook", "nb\\1");
    GP_CHECK(x != NULL && isnan(x->p95));
    GP_CHECK(gp_recs_find(&back, "ml", "StatefulSet", "ranker") == NULL);
    GP_CHECK(gp_recs_find(&back, "ml", "Deployment", "ranke") == NULL);
    GP_CHECK(gp_recs_find(&back, NULL, "Deployment", "ranker") == NULL);
    gp_recs_free(&back);
    gp_recs_free(&r);
    gp_strbuf_free(&b);
}

/* 2,000 workloads into 64 KiB: the most valuable kept, in order, the rest counted as dropped,
 * and the document within the bound. */
GP_TEST(encode_keeps_top_within_bound)
{
    enum { N = 2000 };
    gp_adv_finding *f = calloc(N, sizeof(*f));
    char (*names)[32] = calloc(N, 32);
    gp_adv_report rep;
    gp_recs r, back;
    gp_strbuf b;
    gp_err err;
    size_t kept = 0;

    for (size_t i = 0; i < N; i++) {
        snprintf(names[i], 32, "w-%04zu", i);
        f[i] = finding(GP_ADV_MIG, "ns", "Deployment", names[i], "10Gi", (double)(N - i));
    }
    report_of(&rep, f, N);
    GP_CHECK_INT(gp_recs_from_report(&rep, NOW, 3600, &r), GP_OK);
    gp_strbuf_init(&b, 0);
    GP_CHECK_INT(gp_recs_encode(&r, 65536, &b, &kept), GP_OK);
    GP_CHECK(b.len <= 65536);
    GP_CHECK(kept > 50 && kept < N);
    GP_CHECK_INT(gp_recs_decode(b.p, b.len, &back, &err), GP_OK);
    GP_CHECK_INT(back.n, kept);
    GP_CHECK_INT(back.dropped, N - kept);
    GP_CHECK_INT(back.total, N);
    GP_CHECK(gp_recs_find(&back, "ns", "Deployment", "w-0000") != NULL);
    GP_CHECK(gp_recs_find(&back, "ns", "Deployment", names[kept - 1]) != NULL);
    GP_CHECK(gp_recs_find(&back, "ns", "Deployment", names[kept]) == NULL);
    gp_recs_free(&back);
    gp_strbuf_clear(&b);
    GP_CHECK_INT(gp_recs_encode(&r, 64, &b, &kept), GP_ETOOBIG);
    gp_recs_free(&r);
    gp_strbuf_free(&b);
    free(f);
    free(names);
}

GP_TEST(decode_first_of_duplicates_and_unknown_members)
{
    const char *doc =
        "{\"future\":1,\"apiVersion\":\"gpupack.io/recommendations/v1\",\"recommendations\":["
        "{\"namespace\":\"b\",\"kind\":\"Deployment\",\"name\":\"x\",\"gpuMemory\":\"5Gi\","
        "\"expires\":\"2026-01-01T00:00:00Z\",\"later\":{}},"
        "{\"namespace\":\"a\",\"kind\":\"Deployment\",\"name\":\"x\",\"gpuMemory\":\"7Gi\","
        "\"expires\":\"2026-01-01T00:00:00+01:00\"},"
        "{\"namespace\":\"b\",\"kind\":\"Deployment\",\"name\":\"x\",\"gpuMemory\":\"9Gi\","
        "\"expires\":\"2026-01-01T00:00:00Z\"}]}";
    gp_recs r;
    gp_err err;
    const gp_rec *x;

    GP_CHECK_INT(dec(doc, &r, &err), GP_OK);
    GP_CHECK_INT(r.n, 2);
    x = gp_recs_find(&r, "b", "Deployment", "x");
    GP_CHECK(x != NULL && strcmp(x->gpu_memory, "5Gi") == 0);
    x = gp_recs_find(&r, "a", "Deployment", "x");
    GP_CHECK(x != NULL && x->expires == 1767222000.0 && isnan(x->created));
    gp_recs_free(&r);
}

static void refuses(const char *doc, gp_status want, const char *msg)
{
    gp_recs r;
    gp_err err;

    GP_CHECK_INT(dec(doc, &r, &err), want);
    GP_CHECK_INT(r.n, 0);
    if (strstr(err.msg, msg) == NULL) {
        printf("  error \"%s\", want \"%s\"\n", err.msg, msg);
        gp_test_failed = 1;
    }
}

GP_TEST(decode_refuses_bad_documents)
{
    refuses("", GP_EINVAL, "not JSON");
    refuses("[]", GP_EINVAL, "want a JSON object");
    refuses("{\"apiVersion\":\"v2\",\"recommendations\":[]}", GP_EINVAL, "apiVersion");
    refuses("{\"apiVersion\":\"gpupack.io/recommendations/v1\"}", GP_EINVAL,
            "recommendations: want an array");
    refuses("{\"apiVersion\":\"gpupack.io/recommendations/v1\",\"recommendations\":[1]}",
            GP_EINVAL, "recommendations[0]: want an object");
    refuses("{\"apiVersion\":\"gpupack.io/recommendations/v1\",\"recommendations\":[{"
            "\"namespace\":\"a\",\"kind\":\"Deployment\",\"name\":\"x\",\"gpuMemory\":\"lots\","
            "\"expires\":\"2026-01-01T00:00:00Z\"}]}",
            GP_EINVAL, "recommendations[0].gpuMemory: want a quantity over zero");
    refuses("{\"apiVersion\":\"gpupack.io/recommendations/v1\",\"recommendations\":[{"
            "\"namespace\":\"a\",\"kind\":\"Deployment\",\"name\":\"x\",\"gpuMemory\":\"1Gi\"}]}",
            GP_EINVAL, "recommendations[0].expires: want an RFC 3339 time");
    refuses("{\"apiVersion\":\"gpupack.io/recommendations/v1\",\"recommendations\":[{"
            "\"namespace\":\"\",\"kind\":\"Deployment\",\"name\":\"x\",\"gpuMemory\":\"1Gi\","
            "\"expires\":\"2026-01-01T00:00:00Z\"}]}",
            GP_EINVAL, "recommendations[0].namespace: want a non-empty string");
    refuses("{\"apiVersion\":\"gpupack.io/recommendations/v1\",\"recommendations\":[{"
            "\"namespace\":\"a\",\"kind\":\"Deployment\",\"name\":\"x\",\"gpuMemory\":\"1Gi\","
            "\"expires\":\"2026-01-01T00:00:00Z\",\"evidence\":{\"p95Activity\":\"high\"}}]}",
            GP_EINVAL, "recommendations[0].evidence.p95Activity: want a number");
}

GP_TEST(shared_table_lives_while_referenced)
{
    gp_recs r;
    gp_err err;
    gp_recs_shared *s;
    void *extra;

    GP_CHECK_INT(dec("{\"apiVersion\":\"gpupack.io/recommendations/v1\",\"recommendations\":[{"
                     "\"namespace\":\"a\",\"kind\":\"Pod\",\"name\":\"x\",\"gpuMemory\":\"1Gi\","
                     "\"expires\":\"2026-01-01T00:00:00Z\"}]}", &r, &err), GP_OK);
    s = gp_recs_shared_new(&r);
    GP_CHECK(s != NULL && r.n == 0);
    extra = gp_recs_shared_ref(s);
    gp_recs_shared_unref(s);
    GP_CHECK(gp_recs_find(gp_recs_shared_table(extra), "a", "Pod", "x") != NULL);
    gp_recs_shared_unref(extra);
    gp_recs_shared_unref(NULL);
}

GP_MAIN(GP_CASE(from_report_keeps_mig_findings_in_order), GP_CASE(encode_decode_round_trip),
        GP_CASE(encode_keeps_top_within_bound),
        GP_CASE(decode_first_of_duplicates_and_unknown_members),
        GP_CASE(decode_refuses_bad_documents), GP_CASE(shared_table_lives_while_referenced))
