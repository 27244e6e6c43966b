/* SPDX-License-Identifier: Apache-2.0 */
/* Allocation-failure injection (curl's "torture" idea): run a whole request path once to count
 * its allocations, then again once per N with the Nth allocation failing, for every N. Each run
 * must answer (the webhook fails open: allowed, and never a patch other than the one a normal run
 * makes; the extender answers its own result or an error, never a different result), and must
 * free everything it took: every block allocated during the run is freed by its end.
 *
 * The process replaces malloc, calloc, realloc and free (glibc routes strdup, cJSON and every
 * library call through them) with counting wrappers over glibc's own allocator. This test is not
 * built with sanitizers (they bring their own allocator) and is not run under valgrind (which
 * replaces the allocator too); it is its own leak checker. */
#include "gptest.h"

#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "gpupack/cache.h"
#include "gpupack/cluster.h"
#include "gpupack/extender.h"
#include "gpupack/fileio.h"
#include "gpupack/jsonparse.h"
#include "gpupack/log.h"
#include "gpupack/metrics.h"
#include "gpupack/policy.h"
#include "gpupack/webhook.h"

/* ---- the counting allocator ---------------------------------------------------------------- */

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
extern void __libc_free(void *p);

#define LIVE_SLOTS (1u << 20) /* open addressing; far more than one request allocates */
static void *live[LIVE_SLOTS];
static size_t nlive;
static bool active;    /* counting and tracking between inj_start() and inj_stop() */
static long count;     /* allocations since inj_start() */
static long fail_at;   /* the allocation that fails (1-based); 0: none */
static bool failed;    /* the injected failure happened */
static bool overflow;  /* the table filled up: the run is not checkable */
static void *const TOMBSTONE = (void *)1;

static size_t slot_of(const void *p)
{
    uintptr_t h = (uintptr_t)p;

    h ^= h >> 17;
    h *= 0x9e3779b97f4a7c15u;
    return (size_t)(h >> 12) & (LIVE_SLOTS - 1);
}

static void track_add(void *p)
{
    size_t i = slot_of(p);

    if (nlive >= LIVE_SLOTS / 2) {
        overflow = true;
        return;
    }
    while (live[i] != NULL && live[i] != TOMBSTONE)
        i = (i + 1) & (LIVE_SLOTS - 1);
    live[i] = p;
    nlive++;
}

static void track_del(void *p)
{
    size_t i = slot_of(p);

    for (size_t probes = 0; live[i] != NULL && probes < LIVE_SLOTS; probes++) {
        if (live[i] == p) {
            live[i] = TOMBSTONE;
            nlive--;
            return;
        }
        i = (i + 1) & (LIVE_SLOTS - 1);
    }
}

/* True when this allocation is the one to fail. */
static bool inject(void)
{
    if (!active)
        return false;
    count++;
    if (count == fail_at) {
        failed = true;
        return true;
    }
    return false;
}

void *malloc(size_t n)
{
    void *p;

    if (inject())
        return NULL;
    p = __libc_malloc(n);
    if (p != NULL && active)
        track_add(p);
    return p;
}

void *calloc(size_t n, size_t size)
{
    void *p;

    if (inject())
        return NULL;
    p = __libc_calloc(n, size);
    if (p != NULL && active)
        track_add(p);
    return p;
}

void *realloc(void *old, size_t n)
{
    void *p;

    if (inject())
        return NULL;
    p = __libc_realloc(old, n);
    if (p != NULL && active) {
        if (old != NULL)
            track_del(old);
        track_add(p);
    }
    return p;
}

void free(void *p)
{
    if (p != NULL && active)
        track_del(p);
    __libc_free(p);
}

static void inj_start(long n)
{
    memset(live, 0, sizeof(live));
    nlive = 0;
    count = 0;
    fail_at = n;
    failed = false;
    overflow = false;
    active = true;
}

static void inj_stop(void)
{
    active = false;
}

/* ---- helpers ---------------------------------------------------------------------------------- */

/* A copy made outside the tracker (freed with __libc_free). */
static char *untracked_dup(const char *s)
{
    size_t n = s ? strlen(s) + 1 : 0;
    char *d = n ? __libc_malloc(n) : NULL;

    if (d != NULL)
        memcpy(d, s, n);
    return d;
}

static char *slurp(const char *path, size_t *len)
{
    char *buf = NULL;
    gp_err err = { { 0 } };

    if (gp_file_read(path, 64u << 20, &buf, len, &err) != GP_OK) {
        printf("  %s: %s\n", path, err.msg);
        gp_test_failed = 1;
    }
    return buf;
}

/* The payload fixtures, relative to the repository root (where tests/run.sh runs the tests). */
#define FIX "tests/fixtures/"
#define CAP FIX "kube-v1.32-captured/"

static bool default_policy(gp_policy_holder *h)
{
    gp_policy *p = NULL;
    char *errors = NULL;
    bool ok = gp_policy_default(&p, &errors) == GP_OK;

    free(errors);
    if (ok)
        gp_policy_holder_init(h, p);
    else
        gp_test_failed = 1;
    return ok;
}

/* The "patch" of a 200 AdmissionReview answer (NULL when none); the caller frees it. */
static char *patch_of(const char *body)
{
    cJSON *o = cJSON_Parse(body);
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(o, "response"), "patch");
    char *s = cJSON_IsString(p) ? strdup(p->valuestring) : NULL;

    cJSON_Delete(o);
    return s;
}

static bool allowed(const char *body)
{
    cJSON *o = cJSON_Parse(body);
    bool ok = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(o, "response"), "allowed"));

    cJSON_Delete(o);
    return ok;
}

/* ---- the webhook --------------------------------------------------------------------------- */

typedef struct {
    long runs, fail_open, refused, identical;
} tally;

/* One review with the Nth allocation failing (0: none), with its own metrics registry made and
 * freed inside the run (the registry keeps a series per label set it has seen). Returns an
 * untracked copy of the answer's body (NULL when it had none); the server's free of the body
 * happens inside the run. */
static char *review_once(gp_webhook *w, const char *body, size_t len, long n, int *status)
{
    gp_http_response resp = { .status = 200 };
    char *copy;

    inj_start(n);
    w->metrics = gp_metrics_new();
    gp_webhook_review(w, body, len, &resp);
    copy = untracked_dup(resp.body);
    free(resp.body);
    gp_metrics_free(w->metrics);
    w->metrics = NULL;
    inj_stop();
    *status = resp.status;
    return copy;
}

static void torture_review(const char *path, bool expect_patch)
{
    gp_policy_holder h;
    gp_webhook w;
    gp_log log;
    FILE *devnull = fopen("/dev/null", "w");
    size_t len = 0;
    char *body = slurp(path, &len), *base_patch = NULL, *copy;
    int status;
    long total;
    tally t = { 0 };

    if (body == NULL || devnull == NULL || !default_policy(&h))
        return;
    /* cJSON on malloc, so that every one of its allocations can be failed here; the pool's own
     * failures are tested in test_jsonpool. */
    setenv("GPUPACK_JSON_POOL", "off", 1);
    gp_log_init(&log, GP_LOG_DEBUG, devnull);
    gp_webhook_init(&w, &h, NULL, NULL, &log);
    /* A first run outside the tracker: what it leaves behind lives as long as the process
     * (the log stream's stdio buffer, glibc's time zone data), not one request. */
    __libc_free(review_once(&w, body, len, 0, &status));
    copy = review_once(&w, body, len, 0, &status);
    total = count;
    GP_CHECK_INT(status, 200);
    GP_CHECK(nlive == 0);
    base_patch = copy ? patch_of(copy) : NULL;
    GP_CHECK(expect_patch == (base_patch != NULL));
    __libc_free(copy);
    GP_CHECK(total > 10);
    for (long n = 1; n <= total && !gp_test_failed; n++) {
        copy = review_once(&w, body, len, n, &status);
        t.runs++;
        if (!failed || overflow) {
            printf("  %s: allocation %ld of %ld did not happen or was not tracked\n", path, n,
                   total);
            gp_test_failed = 1;
        } else if (nlive != 0) {
            printf("  %s: with allocation %ld of %ld failing, %zu blocks leaked\n", path, n, total,
                   nlive);
            gp_test_failed = 1;
        } else if (status == 200 && copy != NULL) {
            char *p = patch_of(copy);

            if (!allowed(copy)) {
                printf("  %s: allocation %ld failing denied the pod: %s\n", path, n, copy);
                gp_test_failed = 1;
            } else if (p != NULL && (base_patch == NULL || strcmp(p, base_patch) != 0)) {
                printf("  %s: allocation %ld failing made another patch\n", path, n);
                gp_test_failed = 1;
            } else if (p == NULL && base_patch != NULL) {
                t.fail_open++;
            } else {
                t.identical++;
            }
            free(p);
        } else if (status == 400 || status == 500) {
            t.refused++; /* kube-apiserver's failurePolicy Ignore admits the pod unchanged */
        } else {
            printf("  %s: allocation %ld failing answered %d\n", path, n, status);
            gp_test_failed = 1;
        }
        __libc_free(copy);
    }
    printf("  %s: %ld allocations, each failed once: %ld same answer, %ld fail-open, "
           "%ld error answers, 0 leaks\n", path, total, t.identical, t.fail_open, t.refused);
    free(base_patch);
    gp_webhook_destroy(&w);
    gp_policy_holder_destroy(&h);
    gp_log_destroy(&log);
    fclose(devnull);
    free(body);
}

GP_TEST(webhook_review_deployment_mig)
{
    torture_review("tests/examples/gpu-deployment-review.json", true);
}

GP_TEST(webhook_review_captured_training)
{
    torture_review(CAP "admissionreview-pod-create-gpu-training-generatename.json", true);
}

GP_TEST(webhook_review_captured_cpu)
{
    torture_review(CAP "admissionreview-pod-create-cpu-first-call.json", false);
}

/* ---- the extender ------------------------------------------------------------------------- */

static void torture_extender(gp_verb verb, const char *path)
{
    gp_policy_holder h;
    gp_cache *c;
    gp_extender x;
    size_t nl = 0, pl = 0, len = 0;
    char *nodes = slurp("tests/extender/nodes.json", &nl);
    char *pods = slurp("tests/extender/pods.json", &pl);
    char *body = slurp(path, &len), *base = NULL;
    gp_err err = { { 0 } };
    gp_http_response resp;
    long total;
    tally t = { 0 };

    if (nodes == NULL || pods == NULL || body == NULL || !default_policy(&h))
        return;
    c = gp_cache_new(&h);
    GP_CHECK(c != NULL && gp_cache_load_snapshot(c, nodes, nl, pods, pl, &err) == GP_OK);
    x = (gp_extender){ .policy = &h, .cache = c };
    resp = (gp_http_response){ .status = 200 };
    inj_start(0);
    gp_extender_call(&x, verb, body, len, 1700000000000, &resp);
    inj_stop();
    total = count;
    GP_CHECK_INT(resp.status, 200);
    base = resp.body;
    for (long n = 1; n <= total && !gp_test_failed; n++) {
        char *copy;

        resp = (gp_http_response){ .status = 200 };
        inj_start(n);
        gp_extender_call(&x, verb, body, len, 1700000000000, &resp);
        copy = untracked_dup(resp.body);
        free(resp.body);
        inj_stop();
        t.runs++;
        if (!failed || overflow || nlive != 0) {
            printf("  %s: allocation %ld of %ld: %s\n", path, n, total,
                   !failed ? "did not happen" : overflow ? "not tracked" : "leaked");
            gp_test_failed = 1;
        } else if (resp.status == 200 && copy != NULL && strcmp(copy, base) == 0) {
            t.identical++;
        } else if (copy == NULL || resp.status != 200 || strstr(copy, "\"Error\":\"gpupack") ||
                   strstr(copy, "\"Error\":\"out of memory")) {
            t.refused++;
        } else {
            printf("  %s: allocation %ld failing gave another answer: %.300s\n", path, n, copy);
            gp_test_failed = 1;
        }
        __libc_free(copy);
    }
    printf("  %s (%s): %ld allocations, each failed once: %ld same answer, %ld error answers, "
           "0 leaks\n", path, verb == GP_VERB_FILTER ? "filter" : "prioritize", total,
           t.identical, t.refused);
    __libc_free(base);
    gp_cache_free(c);
    gp_policy_holder_destroy(&h);
    free(nodes);
    free(pods);
    free(body);
}

GP_TEST(extender_filter_nodecache)
{
    torture_extender(GP_VERB_FILTER, FIX "extender-v1-ExtenderArgs-nodecache-gpu.constructed.json");
}

GP_TEST(extender_prioritize_fullnodes)
{
    torture_extender(GP_VERB_PRIORITIZE,
                     FIX "extender-v1-ExtenderArgs-fullnodes-gpu.constructed.json");
}

/* ---- the policy loader -------------------------------------------------------------------- */

GP_TEST(policy_load_default)
{
    gp_policy *p = NULL;
    char *errors = NULL, digest[sizeof(p->digest)];
    long total, ok = 0, enomem = 0;

    inj_start(0);
    GP_CHECK_INT(gp_policy_default(&p, &errors), GP_OK);
    inj_stop();
    total = count;
    memcpy(digest, p->digest, sizeof(digest));
    gp_policy_unref(p);
    for (long n = 1; n <= total && !gp_test_failed; n++) {
        gp_status st;

        p = NULL;
        errors = NULL;
        inj_start(n);
        st = gp_policy_default(&p, &errors);
        if (st == GP_OK && strcmp(p->digest, digest) != 0)
            gp_test_failed = 1;
        st == GP_OK ? ok++ : enomem++;
        gp_policy_unref(p);
        free(errors);
        inj_stop();
        /* cJSON cannot tell an allocation failure from a syntax error: GP_EINVAL is an answer. */
        if (!failed || overflow || nlive != 0 || (st != GP_OK && st != GP_ENOMEM && st != GP_EINVAL)) {
            printf("  allocation %ld of %ld: status %d, %zu blocks leaked\n", n, total, st, nlive);
            gp_test_failed = 1;
        }
    }
    printf("  default policy: %ld allocations, each failed once: %ld loaded anyway, %ld "
           "refused, 0 leaks\n", total, ok, enomem);
}

/* ---- the strict JSON parser ---------------------------------------------------------------- */

/* gp_json_parse_unambiguous on a text that takes every allocation it makes: nodes and strings
 * (cJSON's allocator), a large object's names sorted for the duplicate check and a long number's
 * copy for strtod (malloc). Each failure is a refusal for memory, with nothing left behind. */
GP_TEST(json_parse_every_allocation)
{
    static const char text[] =
        "{\"a\":[1,2.5,\"x\\n\",\"plain\",true,null],\"big\":{\"m0\":0,\"m1\":1,\"m2\":2,"
        "\"m3\":3,\"m4\":4,\"m5\":5,\"m6\":6,\"m7\":7,\"m8\":8,\"m9\":9,\"m10\":0,\"m11\":1,"
        "\"m12\":2,\"m13\":3,\"m14\":4,\"m15\":5,\"m16\":6,\"m17\":7,\"m18\":8,\"m19\":9},"
        "\"n\":100000000000000000000000000000000000000000000000000000000000000000000.5}";
    gp_json_error err;
    cJSON *t;
    long total, refused = 0;

    inj_start(0);
    t = gp_json_parse_unambiguous(text, strlen(text), 64, &err);
    GP_CHECK(t != NULL);
    cJSON_Delete(t);
    inj_stop();
    total = count;
    GP_CHECK(nlive == 0 && total > 40);
    for (long n = 1; n <= total && !gp_test_failed; n++) {
        inj_start(n);
        t = gp_json_parse_unambiguous(text, strlen(text), 64, &err);
        refused += t == NULL;
        if (t != NULL || err.kind != GP_JSON_NOMEM || !failed) {
            printf("  allocation %ld of %ld failing: %s, kind %d\n", n, total,
                   t ? "a tree" : "NULL", (int)err.kind);
            gp_test_failed = 1;
        }
        cJSON_Delete(t);
        inj_stop();
        if (nlive != 0) {
            printf("  allocation %ld of %ld failing: %zu blocks leaked\n", n, total, nlive);
            gp_test_failed = 1;
        }
    }
    printf("  %ld allocations, each failed once: %ld refused for memory, 0 leaks\n", total,
           refused);
}

GP_MAIN(GP_CASE(webhook_review_deployment_mig), GP_CASE(webhook_review_captured_training),
        GP_CASE(webhook_review_captured_cpu), GP_CASE(extender_filter_nodecache),
        GP_CASE(extender_prioritize_fullnodes), GP_CASE(policy_load_default),
        GP_CASE(json_parse_every_allocation))
