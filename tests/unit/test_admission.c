/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of lib/admission.c: every AdmissionReview decode error with its message, the
 * request fields decoded, the encoded response (apiVersion, kind, uid, allowed, the patch in
 * padded base64 that decodes back to the input, patchType only with a patch, warnings, audit
 * annotations), UTF-8 validation, and the static allow reply.
 *
 * Every test ends with a leak check when built with AddressSanitizer. */
#include "gptest.h"

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "gpupack/admission.h"


/* A malloc'd copy of text with every single quote turned into a double quote. */
static char *q(const char *text)
{
    char *s = strdup(text);

    for (char *c = s; *c; c++)
        if (*c == '\'')
            *c = '"';
    return s;
}

#define ENVELOPE "'apiVersion':'admission.k8s.io/v1','kind':'AdmissionReview'"

/* Decodes body[0..len) (body must be NUL-terminated at len) and expects GP_EINVAL with a
 * message starting with want; root must be left NULL. */
static void check_error_n(const char *body, size_t len, const char *want, int line)
{
    cJSON *root = (cJSON *)1;
    gp_admission_request req;
    gp_err err = { { 0 } };
    gp_status st = gp_admission_decode(body, len, &root, &req, &err);

    if (st != GP_EINVAL || strncmp(err.msg, want, strlen(want)) != 0 || root != NULL) {
        printf("  %s:%d: status %d root %p message \"%s\", want GP_EINVAL \"%s...\"\n", __FILE__,
               line, st, (void *)root, err.msg, want);
        gp_test_failed = 1;
    }
    if (st == GP_OK)
        cJSON_Delete(root);
}

static void check_error(const char *text, const char *want, int line)
{
    char *s = q(text);

    check_error_n(s, strlen(s), want, line);
    free(s);
}
#define CHECK_ERROR(text, want) check_error(text, want, __LINE__)

/* --- decode errors ------------------------------------------------------------------------- */

GP_TEST(decode_not_json)
{
    CHECK_ERROR("", "body is not valid JSON (near byte ");
    CHECK_ERROR("{", "body is not valid JSON (near byte ");
    CHECK_ERROR("{'apiVersion':}", "body is not valid JSON (near byte ");
    CHECK_ERROR("{} x", "body is not valid JSON (near byte ");
    CHECK_ERROR("hello", "body is not valid JSON (near byte 0)");
}

GP_TEST(decode_non_object_root)
{
    CHECK_ERROR("[]", "body is not a JSON object");
    CHECK_ERROR("[{'apiVersion':'admission.k8s.io/v1'}]", "body is not a JSON object");
    CHECK_ERROR("'admission.k8s.io/v1'", "body is not a JSON object");
    CHECK_ERROR("null", "body is not a JSON object");
    CHECK_ERROR("42", "body is not a JSON object");
}

GP_TEST(decode_wrong_api_version)
{
    CHECK_ERROR("{'apiVersion':'admission.k8s.io/v1beta1','kind':'AdmissionReview',"
                "'request':{'uid':'u'}}",
                "apiVersion must be admission.k8s.io/v1, got \"admission.k8s.io/v1beta1\"");
    CHECK_ERROR("{'kind':'AdmissionReview','request':{'uid':'u'}}",
                "apiVersion must be admission.k8s.io/v1, got none");
    CHECK_ERROR("{'apiVersion':1,'kind':'AdmissionReview','request':{'uid':'u'}}",
                "apiVersion must be admission.k8s.io/v1, got none");
}

GP_TEST(decode_wrong_kind)
{
    CHECK_ERROR("{'apiVersion':'admission.k8s.io/v1','kind':'Pod','request':{'uid':'u'}}",
                "kind must be AdmissionReview, got \"Pod\"");
    CHECK_ERROR("{'apiVersion':'admission.k8s.io/v1','request':{'uid':'u'}}",
                "kind must be AdmissionReview, got none");
}

GP_TEST(decode_missing_request)
{
    CHECK_ERROR("{" ENVELOPE "}", "request: must be an object");
    CHECK_ERROR("{" ENVELOPE ",'request':null}", "request: must be an object");
    CHECK_ERROR("{" ENVELOPE ",'request':[]}", "request: must be an object");
    CHECK_ERROR("{" ENVELOPE ",'response':{'uid':'u'}}", "request: must be an object");
}

GP_TEST(decode_missing_or_empty_uid)
{
    CHECK_ERROR("{" ENVELOPE ",'request':{}}", "request.uid: missing");
    CHECK_ERROR("{" ENVELOPE ",'request':{'uid':''}}", "request.uid: missing");
    CHECK_ERROR("{" ENVELOPE ",'request':{'uid':7}}", "request.uid: missing");
}

static char *review_with_uid_len(size_t n)
{
    size_t cap = n + 128;
    char *s = malloc(cap);
    size_t o = (size_t)snprintf(s, cap, "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":"
                                        "\"AdmissionReview\",\"request\":{\"uid\":\"");

    memset(s + o, 'u', n);
    snprintf(s + o + n, cap - o - n, "\"}}");
    return s;
}

GP_TEST(decode_uid_too_long)
{
    char *ok = review_with_uid_len(GP_ADMISSION_MAX_UID);
    char *bad = review_with_uid_len(GP_ADMISSION_MAX_UID + 1);
    cJSON *root = NULL;
    gp_admission_request req;
    gp_err err = { { 0 } };

    GP_CHECK_INT(gp_admission_decode(ok, strlen(ok), &root, &req, &err), GP_OK);
    GP_CHECK_INT(strlen(req.uid), GP_ADMISSION_MAX_UID);
    cJSON_Delete(root);
    check_error_n(bad, strlen(bad), "request.uid: longer than 256 bytes", __LINE__);
    free(ok);
    free(bad);
}

GP_TEST(decode_invalid_utf8)
{
    static const char body[] = "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":"
                               "\"AdmissionReview\",\"request\":{\"uid\":\"\xC0\xAF\"}}";
    static const char lone[] = "{\"a\":\"\xFF\"}";

    check_error_n(body, strlen(body), "body is not valid UTF-8 text", __LINE__);
    check_error_n(lone, strlen(lone), "body is not valid UTF-8 text", __LINE__);
}

GP_TEST(decode_embedded_nul)
{
    /* A NUL inside the body: cJSON would stop there and accept a truncated document. */
    static const char body[] = "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":"
                               "\"AdmissionReview\",\"request\":{\"uid\":\"u\"}}\0 trailing";

    check_error_n(body, sizeof(body) - 1, "body is not valid UTF-8 text", __LINE__);
}

/* A review whose request.object holds depth nested arrays (the root is depth 0, the request
 * object 1, the object 2). */
static char *review_nested(size_t arrays)
{
    size_t cap = 2 * arrays + 200;
    char *s = malloc(cap);
    size_t o = (size_t)snprintf(s, cap, "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":"
                                        "\"AdmissionReview\",\"request\":{\"uid\":\"u\","
                                        "\"object\":{\"x\":");

    for (size_t i = 0; i < arrays; i++)
        s[o++] = '[';
    for (size_t i = 0; i < arrays; i++)
        s[o++] = ']';
    snprintf(s + o, cap - o, "}}}");
    return s;
}

GP_TEST(decode_depth_limit)
{
    /* Containers nested GP_JSON_MAX_DEPTH deep below the root pass; one more fails. */
    char *ok = review_nested(GP_JSON_MAX_DEPTH - 2);
    char *bad = review_nested(GP_JSON_MAX_DEPTH - 1);
    char *huge = review_nested(5000); /* refused at depth 65, not read further */
    cJSON *root = NULL;
    gp_admission_request req;
    gp_err err = { { 0 } };

    GP_CHECK_INT(gp_admission_decode(ok, strlen(ok), &root, &req, &err), GP_OK);
    cJSON_Delete(root);
    check_error_n(bad, strlen(bad), "body is nested deeper than 64 levels", __LINE__);
    check_error_n(huge, strlen(huge), "body is nested deeper than 64 levels", __LINE__);
    free(ok);
    free(bad);
    free(huge);
}

/* --- decoded fields ------------------------------------------------------------------------ */

GP_TEST(decode_fields)
{
    char *s = q("{" ENVELOPE ",'request':{'uid':'705ab4f5-6393-11e8-b7cc-42010a800002',"
                "'kind':{'group':'','version':'v1','kind':'Pod'},"
                "'resource':{'group':'','version':'v1','resource':'pods'},"
                "'subResource':'status','operation':'UPDATE','namespace':'team-a','name':'p',"
                "'dryRun':true,'object':{'kind':'Pod','metadata':{'name':'p'}}}}");
    cJSON *root = NULL;
    gp_admission_request req;
    gp_err err = { { 0 } };

    GP_CHECK_INT(gp_admission_decode(s, strlen(s), &root, &req, &err), GP_OK);
    GP_CHECK(root != NULL);
    GP_CHECK_STR(req.uid, "705ab4f5-6393-11e8-b7cc-42010a800002");
    GP_CHECK_STR(req.kind_group, "");
    GP_CHECK_STR(req.kind_version, "v1");
    GP_CHECK_STR(req.kind, "Pod");
    GP_CHECK_STR(req.resource, "pods");
    GP_CHECK_STR(req.sub_resource, "status");
    GP_CHECK_STR(req.operation, "UPDATE");
    GP_CHECK_STR(req.namespace, "team-a");
    GP_CHECK_STR(req.name, "p");
    GP_CHECK(req.dry_run);
    GP_CHECK(req.object != NULL);
    if (req.object != NULL)
        GP_CHECK_STR(cJSON_GetObjectItemCaseSensitive(req.object, "kind")->valuestring, "Pod");
    cJSON_Delete(root);
    free(s);
}

GP_TEST(decode_defaults_and_null_object)
{
    static const char *const bodies[] = {
        "{" ENVELOPE ",'request':{'uid':'u','object':null}}",
        "{" ENVELOPE ",'request':{'uid':'u'}}",
        "{" ENVELOPE ",'request':{'uid':'u','object':'x','dryRun':'true'}}",
    };

    for (size_t i = 0; i < 3; i++) {
        char *s = q(bodies[i]);
        cJSON *root = NULL;
        gp_admission_request req;
        gp_err err = { { 0 } };

        GP_CHECK_INT(gp_admission_decode(s, strlen(s), &root, &req, &err), GP_OK);
        GP_CHECK_STR(req.uid, "u");
        GP_CHECK(req.object == NULL);
        GP_CHECK(!req.dry_run);
        GP_CHECK_STR(req.sub_resource, "");
        GP_CHECK_STR(req.namespace, "");
        GP_CHECK_STR(req.operation, "");
        GP_CHECK_STR(req.kind, "");
        GP_CHECK_STR(req.resource, "");
        cJSON_Delete(root);
        free(s);
    }
}

/* --- base64 -------------------------------------------------------------------------------- */

static int b64val(char c)
{
    const char *tab = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const char *p = c ? strchr(tab, c) : NULL;

    return p ? (int)(p - tab) : -1;
}

/* A test-only padded base64 decoder; returns the byte count or -1 when malformed. */
static long b64decode(const char *s, unsigned char *out, size_t cap)
{
    size_t n = strlen(s), o = 0;

    if (n % 4 != 0)
        return -1;
    for (size_t i = 0; i < n; i += 4) {
        int v[4];
        int pad = 0;

        for (int j = 0; j < 4; j++) {
            if (s[i + j] == '=' && i + 4 == n && j >= 2) {
                v[j] = 0;
                pad++;
            } else if (pad || (v[j] = b64val(s[i + j])) < 0) {
                return -1;
            }
        }
        unsigned long x = (unsigned long)v[0] << 18 | (unsigned long)v[1] << 12 |
                          (unsigned long)v[2] << 6 | (unsigned long)v[3];

        for (int j = 0; j < 3 - pad; j++) {
            if (o == cap)
                return -1;
            out[o++] = (unsigned char)(x >> (16 - 8 * j));
        }
    }
    return (long)o;
}

/* --- encode -------------------------------------------------------------------------------- */

static cJSON *encode_parsed(const gp_admission_response *r)
{
    char *out = NULL;
    size_t len = 0;
    cJSON *j;

    GP_CHECK_INT(gp_admission_encode(r, &out, &len), GP_OK);
    if (out == NULL)
        return NULL;
    GP_CHECK_INT(len, strlen(out));
    j = cJSON_Parse(out);
    GP_CHECK(j != NULL);
    free(out);
    return j;
}

static const cJSON *get(const cJSON *o, const char *k)
{
    return cJSON_GetObjectItemCaseSensitive(o, k);
}

GP_TEST(encode_allow_without_patch)
{
    gp_admission_response r = { .uid = "abc-123", .allowed = true };
    char *out = NULL;
    size_t len = 0;

    GP_CHECK_INT(gp_admission_encode(&r, &out, &len), GP_OK);
    GP_CHECK_STR(out, "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\","
                      "\"response\":{\"uid\":\"abc-123\",\"allowed\":true}}");
    GP_CHECK_INT(len, strlen(out ? out : ""));
    free(out);
}

GP_TEST(encode_patch_base64_and_type)
{
    static const char patch[] = "[{\"op\":\"add\",\"path\":\"/metadata/labels\",\"value\":"
                                "{\"gpupack.io/class\":\"inference\"}}]";
    gp_admission_response r = { .uid = "u1", .allowed = true, .patch = patch,
                                .patch_len = sizeof(patch) - 1 };
    cJSON *j = encode_parsed(&r);
    const cJSON *resp = get(j, "response");
    const cJSON *p = get(resp, "patch");
    unsigned char back[256];
    long n;

    GP_CHECK_STR(get(j, "apiVersion")->valuestring, "admission.k8s.io/v1");
    GP_CHECK_STR(get(j, "kind")->valuestring, "AdmissionReview");
    GP_CHECK_STR(get(resp, "uid")->valuestring, "u1");
    GP_CHECK(cJSON_IsTrue(get(resp, "allowed")));
    GP_CHECK(cJSON_IsString(get(resp, "patchType")) &&
             strcmp(get(resp, "patchType")->valuestring, "JSONPatch") == 0);
    GP_CHECK(cJSON_IsString(p));
    if (cJSON_IsString(p)) {
        GP_CHECK_INT(strlen(p->valuestring), 4 * ((sizeof(patch) - 1 + 2) / 3));
        n = b64decode(p->valuestring, back, sizeof(back));
        GP_CHECK_INT(n, sizeof(patch) - 1);
        GP_CHECK(n == (long)sizeof(patch) - 1 && memcmp(back, patch, (size_t)n) == 0);
    }
    GP_CHECK(get(resp, "warnings") == NULL);
    GP_CHECK(get(resp, "auditAnnotations") == NULL);
    cJSON_Delete(j);
}

GP_TEST(encode_patch_uses_patch_len)
{
    /* Only patch_len bytes are encoded; padding shows up for 1- and 2-byte remainders. */
    gp_admission_response r = { .uid = "u", .allowed = true, .patch = "[]XYZ", .patch_len = 2 };
    cJSON *j = encode_parsed(&r);

    GP_CHECK_STR(get(get(j, "response"), "patch")->valuestring, "W10=");
    cJSON_Delete(j);
}

GP_TEST(encode_no_patch_no_patch_type)
{
    gp_admission_response r = { .uid = "u", .allowed = false };
    cJSON *j = encode_parsed(&r);
    const cJSON *resp = get(j, "response");

    GP_CHECK(cJSON_IsFalse(get(resp, "allowed")));
    GP_CHECK(get(resp, "patch") == NULL);
    GP_CHECK(get(resp, "patchType") == NULL);
    cJSON_Delete(j);
}

GP_TEST(encode_warnings_and_audit)
{
    static const char *const warnings[] = { "first \"quoted\"", "second\nline" };
    static gp_label audit[] = { { (char *)"gpupack.io/class", (char *)"inference" },
                                { (char *)"gpupack.io/mutated", (char *)"a; b" } };
    gp_admission_response r = { .uid = "u\"x", .allowed = true, .warnings = warnings,
                                .nwarnings = 2, .audit = audit, .naudit = 2 };
    cJSON *j = encode_parsed(&r);
    const cJSON *resp = get(j, "response");
    const cJSON *w = get(resp, "warnings"), *a = get(resp, "auditAnnotations");

    GP_CHECK_STR(get(resp, "uid")->valuestring, "u\"x");
    GP_CHECK(cJSON_IsArray(w) && cJSON_GetArraySize(w) == 2);
    if (cJSON_GetArraySize(w) == 2) {
        GP_CHECK_STR(cJSON_GetArrayItem(w, 0)->valuestring, "first \"quoted\"");
        GP_CHECK_STR(cJSON_GetArrayItem(w, 1)->valuestring, "second\nline");
    }
    GP_CHECK(cJSON_IsObject(a) && cJSON_GetArraySize(a) == 2);
    GP_CHECK_STR(get(a, "gpupack.io/class")->valuestring, "inference");
    GP_CHECK_STR(get(a, "gpupack.io/mutated")->valuestring, "a; b");
    cJSON_Delete(j);
}

/* --- UTF-8 --------------------------------------------------------------------------------- */

#define U8(s) gp_utf8_valid(s, sizeof(s) - 1)

GP_TEST(utf8_valid_sequences)
{
    GP_CHECK(gp_utf8_valid("", 0));
    GP_CHECK(U8("plain ascii {}"));
    GP_CHECK(U8("\xC2\x80"));         /* U+0080, smallest 2-byte */
    GP_CHECK(U8("\xC3\xA9t\xC3\xA9")); /* "été" */
    GP_CHECK(U8("\xDF\xBF"));         /* U+07FF */
    GP_CHECK(U8("\xE0\xA0\x80"));     /* U+0800, smallest 3-byte */
    GP_CHECK(U8("\xE2\x82\xAC"));     /* U+20AC euro */
    GP_CHECK(U8("\xED\x9F\xBF"));     /* U+D7FF, just below the surrogates */
    GP_CHECK(U8("\xEE\x80\x80"));     /* U+E000, just above */
    GP_CHECK(U8("\xEF\xBF\xBF"));     /* U+FFFF */
    GP_CHECK(U8("\xF0\x90\x80\x80")); /* U+10000 */
    GP_CHECK(U8("\xF0\x9F\x98\x80")); /* U+1F600 */
    GP_CHECK(U8("\xF4\x8F\xBF\xBF")); /* U+10FFFF, the last code point */
}

GP_TEST(utf8_overlongs)
{
    GP_CHECK(!U8("\xC0\x80")); /* NUL in 2 bytes */
    GP_CHECK(!U8("\xC0\xAF")); /* '/' in 2 bytes */
    GP_CHECK(!U8("\xC1\xBF"));
    GP_CHECK(!U8("\xE0\x80\x80"));
    GP_CHECK(!U8("\xE0\x9F\xBF")); /* U+07FF in 3 bytes */
    GP_CHECK(!U8("\xF0\x80\x80\x80"));
    GP_CHECK(!U8("\xF0\x8F\xBF\xBF")); /* U+FFFF in 4 bytes */
}

GP_TEST(utf8_surrogates_and_range)
{
    GP_CHECK(!U8("\xED\xA0\x80")); /* U+D800 */
    GP_CHECK(!U8("\xED\xBF\xBF")); /* U+DFFF */
    GP_CHECK(!U8("\xED\xA0\xBD\xED\xB8\x80")); /* a CESU-8 surrogate pair */
    GP_CHECK(!U8("\xF4\x90\x80\x80")); /* U+110000 */
    GP_CHECK(!U8("\xF7\xBF\xBF\xBF"));
    GP_CHECK(!U8("\xF8\x88\x80\x80\x80")); /* 5-byte form */
    GP_CHECK(!U8("\xFC\x84\x80\x80\x80\x80"));
    GP_CHECK(!U8("\xFE"));
    GP_CHECK(!U8("\xFF"));
}

GP_TEST(utf8_truncated_and_stray)
{
    GP_CHECK(!U8("\xC3"));
    GP_CHECK(!U8("ab\xE2\x82"));
    GP_CHECK(!U8("\xF0\x9F\x98"));
    GP_CHECK(!U8("\x80"));           /* a lone continuation byte */
    GP_CHECK(!U8("a\xBF" "b"));
    GP_CHECK(!U8("\xC3" "a"));       /* a lead byte followed by ASCII */
    GP_CHECK(!U8("\xE2\x82" "a"));
    GP_CHECK(!gp_utf8_valid("ab\0cd", 5)); /* NUL */
    GP_CHECK(gp_utf8_valid("ab\xC3\xA9", 2)); /* only n bytes are looked at */
    GP_CHECK(!gp_utf8_valid("ab\xC3\xA9", 3));
}

/* ASCII is checked 8 bytes at a time: a NUL or a multi-byte sequence at every offset of a long
 * ASCII text, and a sequence cut by the end, are still found. */
GP_TEST(utf8_every_offset_in_ascii)
{
    char buf[72]; /* blocks of 16 (and 8) bytes at every alignment */

    for (size_t at = 0; at + 4 <= sizeof(buf); at++) {
        memset(buf, 'a', sizeof(buf));
        GP_CHECK(gp_utf8_valid(buf, sizeof(buf)));
        buf[at] = '\0';
        GP_CHECK(!gp_utf8_valid(buf, sizeof(buf)));
        memcpy(buf + at, "\xF0\x9F\x98\x80", 4);
        GP_CHECK(gp_utf8_valid(buf, sizeof(buf)));
        GP_CHECK(!gp_utf8_valid(buf, at + 3));
        buf[at + 1] = 'a'; /* a lead byte without its continuation */
        GP_CHECK(!gp_utf8_valid(buf, sizeof(buf)));
        memcpy(buf + at, "\x7F\x01zz", 4); /* DEL and a control character are ASCII */
        GP_CHECK(gp_utf8_valid(buf, sizeof(buf)));
    }
}

/* --- the static allow reply ---------------------------------------------------------------- */

GP_TEST(allow_static_escapes)
{
    char buf[1024];
    size_t n = gp_admission_encode_allow_static("a\"b\\c", "out of \"memory\"\n", buf,
                                                sizeof(buf));
    cJSON *j;

    GP_CHECK_INT(n, strlen(buf));
    GP_CHECK_STR(buf, "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\","
                      "\"response\":{\"uid\":\"a\\\"b\\\\c\",\"allowed\":true,"
                      "\"warnings\":[\"out of \\\"memory\\\"\\n\"]}}");
    j = cJSON_Parse(buf);
    GP_CHECK(j != NULL);
    if (j != NULL) {
        const cJSON *resp = get(j, "response");

        GP_CHECK_STR(get(resp, "uid")->valuestring, "a\"b\\c");
        GP_CHECK(cJSON_IsTrue(get(resp, "allowed")));
        GP_CHECK_STR(cJSON_GetArrayItem(get(resp, "warnings"), 0)->valuestring,
                     "out of \"memory\"\n");
    }
    cJSON_Delete(j);
}

GP_TEST(allow_static_small_buffer)
{
    char buf[64];
    char big[2048];

    GP_CHECK_INT(gp_admission_encode_allow_static("u", "w", buf, sizeof(buf)), 0);
    GP_CHECK_INT(gp_admission_encode_allow_static("u", "w", big, sizeof(big)), 116);
    /* exactly the length does not fit (the NUL needs a byte); one more does */
    GP_CHECK_INT(gp_admission_encode_allow_static("u", "w", big, 116), 0);
    GP_CHECK_INT(gp_admission_encode_allow_static("u", "w", big, 117), 116);
    GP_CHECK_STR(big, "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\","
                      "\"response\":{\"uid\":\"u\",\"allowed\":true,\"warnings\":[\"w\"]}}");
}

GP_TEST(allow_static_max_uid_of_quotes)
{
    char uid[GP_ADMISSION_MAX_UID + 1], buf[4096];
    size_t n;

    memset(uid, '"', GP_ADMISSION_MAX_UID);
    uid[GP_ADMISSION_MAX_UID] = '\0';
    n = gp_admission_encode_allow_static(uid, "", buf, sizeof(buf));
    GP_CHECK(n > 0);
    if (n > 0) {
        cJSON *j = cJSON_Parse(buf);

        GP_CHECK(j != NULL);
        if (j != NULL)
            GP_CHECK_STR(get(get(j, "response"), "uid")->valuestring, uid);
        cJSON_Delete(j);
    }
}

GP_MAIN(GP_CASE(decode_not_json), GP_CASE(decode_non_object_root),
        GP_CASE(decode_wrong_api_version), GP_CASE(decode_wrong_kind),
        GP_CASE(decode_missing_request), GP_CASE(decode_missing_or_empty_uid),
        GP_CASE(decode_uid_too_long), GP_CASE(decode_invalid_utf8), GP_CASE(decode_embedded_nul),
        GP_CASE(decode_depth_limit), GP_CASE(decode_fields),
        GP_CASE(decode_defaults_and_null_object), GP_CASE(encode_allow_without_patch),
        GP_CASE(encode_patch_base64_and_type), GP_CASE(encode_patch_uses_patch_len),
        GP_CASE(encode_no_patch_no_patch_type), GP_CASE(encode_warnings_and_audit),
        GP_CASE(utf8_valid_sequences), GP_CASE(utf8_overlongs), GP_CASE(utf8_surrogates_and_range),
        GP_CASE(utf8_truncated_and_stray), GP_CASE(utf8_every_offset_in_ascii),
        GP_CASE(allow_static_escapes), GP_CASE(allow_static_small_buffer),
        GP_CASE(allow_static_max_uid_of_quotes))
