/* SPDX-License-Identifier: Apache-2.0 */
#include "gpupack/admission.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "gpupack/base64.h"
#include "gpupack/json.h"
#include "gpupack/jsonparse.h"
#include "gpupack/strbuf.h"

static const char *text_or(const cJSON *v, const char *dflt)
{
    return cJSON_IsString(v) ? v->valuestring : dflt;
}

static const char *str_or(const cJSON *obj, const char *key, const char *dflt)
{
    return text_or(gp_json_member(obj, key), dflt);
}

static gp_status check_envelope(const cJSON *root, gp_err *err)
{
    const char *api = str_or(root, "apiVersion", NULL);
    const char *kind = str_or(root, "kind", NULL);

    if (!cJSON_IsObject(root)) {
        gp_err_set(err, "body is not a JSON object");
        return GP_EINVAL;
    }
    if (api == NULL || strcmp(api, "admission.k8s.io/v1") != 0) {
        gp_err_set(err, "apiVersion must be admission.k8s.io/v1, got %s%.64s%s", api ? "\"" : "",
                   api ? api : "none", api ? "\"" : "");
        return GP_EINVAL;
    }
    if (kind == NULL || strcmp(kind, "AdmissionReview") != 0) {
        gp_err_set(err, "kind must be AdmissionReview, got %s%.64s%s", kind ? "\"" : "",
                   kind ? kind : "none", kind ? "\"" : "");
        return GP_EINVAL;
    }
    return GP_OK;
}

/* The request's members, found in one pass over it (it holds the pod, and kube-apiserver sends
 * up to a dozen members). */
enum { RQ_UID, RQ_KIND, RQ_OBJECT, RQ_RESOURCE, RQ_SUB, RQ_OPERATION, RQ_NAMESPACE, RQ_NAME,
       RQ_DRY_RUN, RQ_COUNT };

static gp_status decode_request(const cJSON *rq, gp_admission_request *req, gp_err *err)
{
    static const char *const keys[RQ_COUNT] = {
        [RQ_UID] = "uid",         [RQ_KIND] = "kind",
        [RQ_OBJECT] = "object",   [RQ_RESOURCE] = "resource",
        [RQ_SUB] = "subResource", [RQ_OPERATION] = "operation",
        [RQ_NAMESPACE] = "namespace", [RQ_NAME] = "name",
        [RQ_DRY_RUN] = "dryRun",
    };
    const cJSON *m[RQ_COUNT];

    if (!cJSON_IsObject(rq)) {
        gp_err_set(err, "request: must be an object");
        return GP_EINVAL;
    }
    gp_json_members(rq, keys, RQ_COUNT, m);
    req->uid = text_or(m[RQ_UID], NULL);
    if (req->uid == NULL || *req->uid == '\0') {
        gp_err_set(err, "request.uid: missing");
        return GP_EINVAL;
    }
    if (strlen(req->uid) > GP_ADMISSION_MAX_UID) {
        gp_err_set(err, "request.uid: longer than %d bytes", GP_ADMISSION_MAX_UID);
        return GP_EINVAL;
    }
    req->kind_group = str_or(m[RQ_KIND], "group", "");
    req->kind_version = str_or(m[RQ_KIND], "version", "");
    req->kind = str_or(m[RQ_KIND], "kind", "");
    req->resource = str_or(m[RQ_RESOURCE], "resource", "");
    req->sub_resource = text_or(m[RQ_SUB], "");
    req->operation = text_or(m[RQ_OPERATION], "");
    req->namespace = text_or(m[RQ_NAMESPACE], "");
    req->name = text_or(m[RQ_NAME], "");
    req->dry_run = cJSON_IsTrue(m[RQ_DRY_RUN]);
    req->object = cJSON_IsObject(m[RQ_OBJECT]) ? m[RQ_OBJECT] : NULL;
    return GP_OK;
}

static gp_status parse_failure(const gp_json_error *jerr, gp_err *err)
{
    if (jerr->kind == GP_JSON_NOMEM) { /* the request's pool has a limit (webhook.h) */
        gp_err_set(err, "body is too large to decode (out of memory)");
        return GP_ENOMEM;
    }
    if (jerr->kind == GP_JSON_DEPTH)
        gp_err_set(err, "body is nested deeper than %d levels", GP_JSON_MAX_DEPTH);
    else if (jerr->kind == GP_JSON_DUPLICATE)
        gp_err_set(err, "duplicate key \"%s\" in an object", jerr->name);
    else
        gp_err_set(err, "body is not valid JSON (near byte %zu)", jerr->offset);
    return GP_EINVAL;
}

gp_status gp_admission_decode(const char *body, size_t len, cJSON **root,
                              gp_admission_request *req, gp_err *err)
{
    gp_json_error jerr;
    gp_status st;

    memset(req, 0, sizeof(*req));
    *root = NULL;
    if (!gp_utf8_valid(body, len)) {
        gp_err_set(err, "body is not valid UTF-8 text");
        return GP_EINVAL;
    }
    *root = gp_json_parse_unambiguous(body, len, GP_JSON_MAX_DEPTH, &jerr);
    if (*root == NULL)
        return parse_failure(&jerr, err);
    st = gp_json_reject_nul_escape(body, len, err);
    if (st == GP_OK)
        st = check_envelope(*root, err);
    if (st == GP_OK)
        st = decode_request(gp_json_member(*root, "request"), req, err);
    if (st != GP_OK) {
        cJSON_Delete(*root);
        *root = NULL;
    }
    return st;
}

/* True when the 8 bytes at p are all ASCII and none is NUL (the common case, taken 8 at a time). */
static bool ascii8(const unsigned char *p)
{
    const uint64_t hi = 0x8080808080808080ull, lo = 0x0101010101010101ull;
    uint64_t v;

    memcpy(&v, p, sizeof(v));
    return ((v & hi) | ((v - lo) & ~v & hi)) == 0;
}

/* How many of the n bytes at p are, from the start, ASCII and not NUL, in whole blocks (16
 * bytes with SSE2, else 8): the common case, skipped without a look at each byte. */
static size_t ascii_run(const unsigned char *p, size_t n)
{
    size_t i = 0;

#ifdef __SSE2__
    for (; n - i >= 16; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + i));

        if (_mm_movemask_epi8(_mm_or_si128(v, _mm_cmpeq_epi8(v, _mm_setzero_si128()))) != 0)
            break; /* a high bit: not ASCII, or a NUL (all ones after the compare) */
    }
#endif
    for (; n - i >= 8 && ascii8(p + i); i += 8)
        ;
    return i;
}

bool gp_utf8_valid(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s, *e = p + n;

    while (p < e) {
        unsigned c, need, min;
        unsigned long cp;

        p += ascii_run(p, (size_t)(e - p));
        if (p == e)
            break;
        c = *p;
        if (c == 0)
            return false;
        if (c < 0x80) {
            p++;
            continue;
        }
        if ((c & 0xE0) == 0xC0) {
            need = 1, min = 0x80, cp = c & 0x1F;
        } else if ((c & 0xF0) == 0xE0) {
            need = 2, min = 0x800, cp = c & 0x0F;
        } else if ((c & 0xF8) == 0xF0) {
            need = 3, min = 0x10000, cp = c & 0x07;
        } else {
            return false;
        }
        if ((size_t)(e - p) <= need)
            return false;
        for (unsigned i = 1; i <= need; i++) {
            if ((p[i] & 0xC0) != 0x80)
                return false;
            cp = (cp << 6) | (p[i] & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return false;
        p += need + 1;
    }
    return true;
}

/* "key":"value" (with a leading comma unless first), both escaped. */
static void put_member(gp_strbuf *o, bool first, const char *key, const char *value)
{
    if (key == NULL || value == NULL) {
        o->failed = true; /* as cJSON refused a NULL string */
        return;
    }
    if (!first)
        gp_strbuf_put(o, ",", 1);
    gp_strbuf_json_string(o, key);
    gp_strbuf_put(o, ":", 1);
    gp_strbuf_json_string(o, value);
}

static void put_patch(gp_strbuf *o, const char *patch, size_t len)
{
    char *b64;

    gp_strbuf_puts(o, ",\"patch\":\"");
    if (len > SIZE_MAX / 2 || (b64 = gp_strbuf_extend(o, GP_BASE64_LEN(len))) == NULL) {
        o->failed = true;
        return;
    }
    gp_base64_encode_to(b64, patch, len); /* base64 needs no escape */
    gp_strbuf_puts(o, "\",\"patchType\":\"JSONPatch\"");
}

static void put_audit(gp_strbuf *o, const gp_label *a, size_t n)
{
    if (n == 0)
        return;
    gp_strbuf_puts(o, ",\"auditAnnotations\":{");
    for (size_t i = 0; i < n; i++)
        put_member(o, i == 0, a[i].key, a[i].value);
    gp_strbuf_put(o, "}", 1);
}

static void put_warnings(gp_strbuf *o, const char *const *w, size_t n)
{
    if (n == 0)
        return;
    gp_strbuf_puts(o, ",\"warnings\":[");
    for (size_t i = 0; i < n; i++) {
        if (w[i] == NULL) {
            o->failed = true;
            return;
        }
        if (i > 0)
            gp_strbuf_put(o, ",", 1);
        gp_strbuf_json_string(o, w[i]);
    }
    gp_strbuf_put(o, "]", 1);
}

/* Written directly, in the order and form cJSON_PrintUnformatted gave the same document as a
 * tree: building the tree cost more than the rest of the answer. */
gp_status gp_admission_encode(const gp_admission_response *r, char **out, size_t *len)
{
    gp_strbuf o;

    /* No limit of its own: the parts are bounded by the uid's limit, the patch and the
     * warnings and annotations the webhook made. */
    gp_strbuf_init(&o, 0);
    gp_strbuf_puts(&o, "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\","
                       "\"response\":{");
    put_member(&o, true, "uid", r->uid);
    gp_strbuf_puts(&o, r->allowed ? ",\"allowed\":true" : ",\"allowed\":false");
    if (r->patch != NULL)
        put_patch(&o, r->patch, r->patch_len);
    put_audit(&o, r->audit, r->naudit);
    put_warnings(&o, r->warnings, r->nwarnings);
    gp_strbuf_puts(&o, "}}");
    return gp_strbuf_take(&o, out, len);
}

/* s escaped for a JSON string into buf, allocation-free; 0 when it does not fit. */
static size_t json_escape_into(const char *s, char *buf, size_t bufsz)
{
    size_t o = 0;

    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        char tmp[8];
        const char *e = gp_json_escape(*p, tmp);
        size_t n = e != NULL ? strlen(e) : 1;

        if (o + n + 1 > bufsz)
            return 0;
        memcpy(buf + o, e != NULL ? e : (const char *)p, n);
        o += n;
    }
    buf[o] = '\0';
    return o;
}

size_t gp_admission_encode_allow_static(const char *uid, const char *warning, char *buf,
                                        size_t bufsz)
{
    char euid[GP_ADMISSION_MAX_UID * 6 + 1], ewarn[512];
    int n;

    if (json_escape_into(uid, euid, sizeof(euid)) == 0 && *uid)
        return 0;
    if (json_escape_into(warning, ewarn, sizeof(ewarn)) == 0 && *warning)
        return 0;
    n = snprintf(buf, bufsz,
                 "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\","
                 "\"response\":{\"uid\":\"%s\",\"allowed\":true,\"warnings\":[\"%s\"]}}",
                 euid, ewarn);
    return n > 0 && (size_t)n < bufsz ? (size_t)n : 0;
}
