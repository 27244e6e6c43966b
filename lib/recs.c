/* SPDX-License-Identifier: Apache-2.0 */
/* The recommendations document (the contract is in gpupack/recs.h). */
#include "gpupack/recs.h"

#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "gpupack/kubeexec.h"

/* ---- building from a report --------------------------------------------------------------- */

static void rec_free(gp_rec *r)
{
    free(r->namespace);
    free(r->kind);
    free(r->name);
    free(r->gpu_memory);
    free(r->mig_profile);
}

void gp_recs_free(gp_recs *r)
{
    if (r == NULL)
        return;
    for (size_t i = 0; i < r->n; i++)
        rec_free(&r->v[i]);
    free(r->v);
    memset(r, 0, sizeof(*r));
}

static char *dup_or_empty(const char *s)
{
    return strdup(s != NULL ? s : "");
}

/* A MIG finding as a recommendation; false when out of memory or its gpu-memory does not parse. */
static bool rec_of(const gp_adv_finding *f, double window_hours, double now, double ttl, gp_rec *r)
{
    memset(r, 0, sizeof(*r));
    r->namespace = dup_or_empty(f->namespace);
    r->kind = dup_or_empty(f->workload_kind);
    r->name = dup_or_empty(f->workload_name);
    r->gpu_memory = dup_or_empty(f->gpu_memory);
    r->mig_profile = dup_or_empty(f->mig_profile);
    r->monthly = f->monthly;
    r->window_hours = window_hours;
    r->fb_peak_mib = f->fb_peak_mib;
    r->p95 = f->p95;
    r->mean = f->mean;
    r->samples = f->samples;
    r->created = now;
    r->expires = now + ttl;
    return r->namespace != NULL && r->kind != NULL && r->name != NULL && r->gpu_memory != NULL &&
           r->mig_profile != NULL;
}

/* The finding names a workload and a gpu-memory value that parses to more than zero. */
static bool recommendable(const gp_adv_finding *f, gp_qty *q)
{
    return f->kind == GP_ADV_MIG && f->gpu_memory != NULL && f->namespace != NULL &&
           f->namespace[0] != '\0' && f->workload_kind != NULL && f->workload_kind[0] != '\0' &&
           f->workload_name != NULL && f->workload_name[0] != '\0' &&
           gp_qty_parse_str(f->gpu_memory, q, NULL) == GP_OK && gp_qty_cmp(*q, (gp_qty){ 0 }) > 0;
}

gp_status gp_recs_from_report(const gp_adv_report *rep, double now, double ttl, gp_recs *out)
{
    memset(out, 0, sizeof(*out));
    out->generated = now;
    out->start = rep->start;
    out->end = rep->end;
    out->hours = (rep->end - rep->start) / 3600.0;
    if (rep->nfindings > 0 && (out->v = calloc(rep->nfindings, sizeof(*out->v))) == NULL)
        return GP_ENOMEM;
    for (size_t i = 0; i < rep->nfindings; i++) {
        const gp_adv_finding *f = &rep->findings[i];
        gp_qty q;

        if (!recommendable(f, &q))
            continue;
        if (!rec_of(f, out->hours, now, ttl, &out->v[out->n])) {
            rec_free(&out->v[out->n]);
            gp_recs_free(out);
            return GP_ENOMEM;
        }
        out->v[out->n++].gpu_memory_bytes = q;
    }
    out->total = out->n;
    return GP_OK;
}

/* ---- encoding ----------------------------------------------------------------------------- */

#define LAST_TIME 253402300799.0 /* 9999-12-31T23:59:59Z */

/* t as RFC 3339 UTC ("2026-12-04T18:00:00Z"), within 1970 and 9999 (a time outside is
 * written as the nearest end). */
static void put_time(gp_strbuf *b, double t)
{
    time_t s = (time_t)(isfinite(t) ? fmin(fmax(floor(t), 0), LAST_TIME) : 0);
    struct tm tm;

    if (gmtime_r(&s, &tm) == NULL)
        memset(&tm, 0, sizeof(tm));
    gp_strbuf_printf(b, "\"%04d-%02d-%02dT%02d:%02d:%02dZ\"", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

/* A number as JSON: null when not finite. */
static void put_num(gp_strbuf *b, double v)
{
    if (isfinite(v))
        gp_strbuf_printf(b, "%.10g", v);
    else
        gp_strbuf_puts(b, "null");
}

static void put_rec(gp_strbuf *b, const gp_rec *r)
{
    gp_strbuf_puts(b, "{\"namespace\":");
    gp_strbuf_json_string(b, r->namespace);
    gp_strbuf_puts(b, ",\"kind\":");
    gp_strbuf_json_string(b, r->kind);
    gp_strbuf_puts(b, ",\"name\":");
    gp_strbuf_json_string(b, r->name);
    gp_strbuf_puts(b, ",\"gpuMemory\":");
    gp_strbuf_json_string(b, r->gpu_memory);
    gp_strbuf_puts(b, ",\"migProfile\":");
    gp_strbuf_json_string(b, r->mig_profile != NULL ? r->mig_profile : "");
    gp_strbuf_printf(b, ",\"monthlyDollars\":%.2f", isfinite(r->monthly) ? r->monthly : 0.0);
    gp_strbuf_puts(b, ",\"evidence\":{\"windowHours\":");
    put_num(b, r->window_hours);
    gp_strbuf_puts(b, ",\"fbPeakMiB\":");
    put_num(b, r->fb_peak_mib);
    gp_strbuf_puts(b, ",\"p95Activity\":");
    put_num(b, r->p95);
    gp_strbuf_puts(b, ",\"meanActivity\":");
    put_num(b, r->mean);
    gp_strbuf_puts(b, ",\"samples\":");
    put_num(b, r->samples);
    gp_strbuf_puts(b, "},\"created\":");
    put_time(b, r->created);
    gp_strbuf_puts(b, ",\"expires\":");
    put_time(b, r->expires);
    gp_strbuf_puts(b, "}");
}

/* The document's head, up to and including "recommendations":[ */
static void put_head(gp_strbuf *b, const gp_recs *r, size_t dropped)
{
    gp_strbuf_puts(b, "{\"apiVersion\":\"" GP_RECS_API_VERSION "\",\"generated\":");
    put_time(b, r->generated);
    gp_strbuf_puts(b, ",\"window\":{\"start\":");
    put_time(b, r->start);
    gp_strbuf_puts(b, ",\"end\":");
    put_time(b, r->end);
    gp_strbuf_puts(b, ",\"hours\":");
    put_num(b, r->hours);
    gp_strbuf_printf(b, "},\"total\":%zu,\"dropped\":%zu,\"recommendations\":[", r->n, dropped);
}

/* How many of r's first recommendations fit in max bytes with the head and the tail; SIZE_MAX
 * when the document without any does not fit. *oom when the scratch buffer failed. */
static size_t fitting(const gp_recs *r, size_t max, bool *oom)
{
    gp_strbuf b;
    size_t used, k = 0;

    gp_strbuf_init(&b, 0);
    put_head(&b, r, r->n); /* the widest "dropped" the document can say */
    used = b.len + 2 + 1;   /* "]}" and a newline */
    for (; k < r->n; k++) {
        gp_strbuf_clear(&b);
        put_rec(&b, &r->v[k]);
        if (b.failed || used + b.len + (k > 0) > max)
            break;
        used += b.len + (k > 0);
    }
    *oom = b.failed;
    gp_strbuf_free(&b);
    return used > max ? SIZE_MAX : k;
}

gp_status gp_recs_encode(const gp_recs *r, size_t max_bytes, gp_strbuf *out, size_t *kept)
{
    size_t max = max_bytes ? max_bytes : GP_RECS_DEFAULT_MAX_BYTES;
    bool oom = false;
    size_t k = fitting(r, max, &oom);

    if (oom)
        return GP_ENOMEM;
    if (k == SIZE_MAX)
        return GP_ETOOBIG;
    put_head(out, r, r->n - k);
    for (size_t i = 0; i < k; i++) {
        if (i > 0)
            gp_strbuf_puts(out, ",");
        put_rec(out, &r->v[i]);
    }
    gp_strbuf_puts(out, "]}\n");
    if (out->failed)
        return GP_ENOMEM;
    if (kept != NULL)
        *kept = k;
    return GP_OK;
}

/* ---- decoding ----------------------------------------------------------------------------- */

static gp_status bad(gp_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static gp_status bad(gp_err *err, const char *fmt, ...)
{
    char msg[GP_ERR_MAX];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    gp_err_set(err, "%s", msg);
    return GP_EINVAL;
}

/* A time member: RFC 3339 text into *t; absent and optional leaves *t. */
static gp_status time_of(const cJSON *o, const char *key, bool need, double *t, const char *path,
                         gp_err *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    int64_t s;

    if (v == NULL && !need)
        return GP_OK;
    if (!cJSON_IsString(v) || gp_rfc3339_parse(v->valuestring, &s) != GP_OK || s < 0 ||
        (double)s > LAST_TIME)
        return bad(err, "%s%s: want an RFC 3339 time from 1970 to 9999", path, key);
    *t = (double)s;
    return GP_OK;
}

/* A number member (null or absent: NaN). */
static gp_status num_of(const cJSON *o, const char *key, double *v, const char *path, gp_err *err)
{
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(o, key);

    *v = NAN;
    if (n == NULL || cJSON_IsNull(n))
        return GP_OK;
    if (!cJSON_IsNumber(n))
        return bad(err, "%s%s: want a number", path, key);
    *v = n->valuedouble;
    return GP_OK;
}

/* A non-empty string member copied into *s. */
static gp_status str_of(const cJSON *o, const char *key, bool need, char **s, const char *path,
                        gp_err *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

    if (v == NULL && !need)
        return (*s = strdup("")) != NULL ? GP_OK : GP_ENOMEM;
    if (!cJSON_IsString(v) || (need && v->valuestring[0] == '\0'))
        return bad(err, "%s%s: want a non-empty string", path, key);
    return (*s = strdup(v->valuestring)) != NULL ? GP_OK : GP_ENOMEM;
}

static gp_status evidence_of(const cJSON *o, gp_rec *r, const char *path, gp_err *err)
{
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(o, "evidence");
    char p[64];
    gp_status st;

    r->window_hours = r->fb_peak_mib = r->p95 = r->mean = r->samples = NAN;
    if (e == NULL)
        return GP_OK;
    snprintf(p, sizeof(p), "%sevidence.", path);
    if (!cJSON_IsObject(e))
        return bad(err, "%sevidence: want an object", path);
    if ((st = num_of(e, "windowHours", &r->window_hours, p, err)) != GP_OK ||
        (st = num_of(e, "fbPeakMiB", &r->fb_peak_mib, p, err)) != GP_OK ||
        (st = num_of(e, "p95Activity", &r->p95, p, err)) != GP_OK ||
        (st = num_of(e, "meanActivity", &r->mean, p, err)) != GP_OK)
        return st;
    return num_of(e, "samples", &r->samples, p, err);
}

static gp_status rec_decode(const cJSON *o, size_t i, gp_rec *r, gp_err *err)
{
    char path[48];
    gp_status st;

    snprintf(path, sizeof(path), "recommendations[%zu].", i);
    memset(r, 0, sizeof(*r));
    if (!cJSON_IsObject(o))
        return bad(err, "recommendations[%zu]: want an object", i);
    if ((st = str_of(o, "namespace", true, &r->namespace, path, err)) != GP_OK ||
        (st = str_of(o, "kind", true, &r->kind, path, err)) != GP_OK ||
        (st = str_of(o, "name", true, &r->name, path, err)) != GP_OK ||
        (st = str_of(o, "gpuMemory", true, &r->gpu_memory, path, err)) != GP_OK ||
        (st = str_of(o, "migProfile", false, &r->mig_profile, path, err)) != GP_OK)
        return st;
    if (gp_qty_parse_str(r->gpu_memory, &r->gpu_memory_bytes, NULL) != GP_OK ||
        gp_qty_cmp(r->gpu_memory_bytes, (gp_qty){ 0 }) <= 0)
        return bad(err, "%sgpuMemory: want a quantity over zero, not \"%.40s\"", path,
                   r->gpu_memory);
    if ((st = num_of(o, "monthlyDollars", &r->monthly, path, err)) != GP_OK ||
        (st = evidence_of(o, r, path, err)) != GP_OK)
        return st;
    r->created = NAN;
    if ((st = time_of(o, "created", false, &r->created, path, err)) != GP_OK)
        return st;
    return time_of(o, "expires", true, &r->expires, path, err);
}

/* A count as written (a negative, fractional or absurd one: 0). */
static size_t count_of(double v)
{
    return v >= 0 && v <= 1e15 && v == floor(v) ? (size_t)v : 0;
}

static gp_status head_decode(const cJSON *doc, gp_recs *out, gp_err *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(doc, "apiVersion");
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(doc, "window");
    double total = NAN, dropped = NAN;
    gp_status st;

    if (!cJSON_IsString(v) || strcmp(v->valuestring, GP_RECS_API_VERSION) != 0)
        return bad(err, "apiVersion: want \"%s\"", GP_RECS_API_VERSION);
    out->generated = out->start = out->end = out->hours = NAN;
    if ((st = time_of(doc, "generated", false, &out->generated, "", err)) != GP_OK)
        return st;
    if (w != NULL && cJSON_IsObject(w) &&
        ((st = time_of(w, "start", false, &out->start, "window.", err)) != GP_OK ||
         (st = time_of(w, "end", false, &out->end, "window.", err)) != GP_OK ||
         (st = num_of(w, "hours", &out->hours, "window.", err)) != GP_OK))
        return st;
    if ((st = num_of(doc, "total", &total, "", err)) != GP_OK ||
        (st = num_of(doc, "dropped", &dropped, "", err)) != GP_OK)
        return st;
    out->total = count_of(total);
    out->dropped = count_of(dropped);
    return GP_OK;
}

static int rec_key_cmp(const gp_rec *a, const char *ns, const char *kind, const char *name)
{
    int c = strcmp(a->namespace, ns);

    if (c == 0)
        c = strcmp(a->kind, kind);
    return c != 0 ? c : strcmp(a->name, name);
}

/* Pointers into one array: by key, then by position (so the first of equal keys comes first). */
static int rec_ptr_cmp(const void *pa, const void *pb)
{
    const gp_rec *a = *(const gp_rec *const *)pa, *b = *(const gp_rec *const *)pb;
    int c = rec_key_cmp(a, b->namespace, b->kind, b->name);

    return c != 0 ? c : (a < b ? -1 : a > b);
}

/* Sorts by key and drops every entry after the first of its key. */
static gp_status sort_unique(gp_recs *r)
{
    gp_rec **p, *v;
    size_t j = 0;

    if (r->n < 2)
        return GP_OK;
    p = malloc(r->n * sizeof(*p));
    v = malloc(r->n * sizeof(*v));
    if (p == NULL || v == NULL) {
        free(p);
        free(v);
        return GP_ENOMEM;
    }
    for (size_t i = 0; i < r->n; i++)
        p[i] = &r->v[i];
    qsort(p, r->n, sizeof(*p), rec_ptr_cmp);
    for (size_t i = 0; i < r->n; i++) {
        if (j > 0 && rec_key_cmp(&v[j - 1], p[i]->namespace, p[i]->kind, p[i]->name) == 0)
            rec_free(p[i]);
        else
            v[j++] = *p[i];
    }
    free(p);
    free(r->v);
    r->v = v;
    r->n = j;
    return GP_OK;
}

static gp_status items_decode(const cJSON *arr, gp_recs *out, gp_err *err)
{
    size_t n = (size_t)cJSON_GetArraySize(arr), i = 0;
    const cJSON *o;
    gp_status st;

    if (n > GP_RECS_MAX_ITEMS) {
        gp_err_set(err, "recommendations: more than %u entries", GP_RECS_MAX_ITEMS);
        return GP_ETOOBIG;
    }
    if (n > 0 && (out->v = calloc(n, sizeof(*out->v))) == NULL)
        return GP_ENOMEM;
    cJSON_ArrayForEach(o, arr) {
        st = rec_decode(o, i++, &out->v[out->n], err);
        if (st != GP_OK) {
            rec_free(&out->v[out->n]);
            return st;
        }
        out->n++;
    }
    return GP_OK;
}

gp_status gp_recs_decode(const char *json, size_t len, gp_recs *out, gp_err *err)
{
    cJSON *doc;
    const cJSON *arr;
    gp_status st;

    memset(out, 0, sizeof(*out));
    if (len > GP_RECS_CONFIGMAP_MAX) {
        gp_err_set(err, "%zu bytes: more than a ConfigMap holds (%u)", len, GP_RECS_CONFIGMAP_MAX);
        return GP_ETOOBIG;
    }
    if ((doc = cJSON_ParseWithLength(json, len)) == NULL)
        return bad(err, "not JSON (near byte %zu)",
                   cJSON_GetErrorPtr() != NULL ? (size_t)(cJSON_GetErrorPtr() - json) : 0);
    if (!cJSON_IsObject(doc)) {
        cJSON_Delete(doc);
        return bad(err, "want a JSON object");
    }
    arr = cJSON_GetObjectItemCaseSensitive(doc, "recommendations");
    if ((st = head_decode(doc, out, err)) == GP_OK) {
        if (!cJSON_IsArray(arr))
            st = bad(err, "recommendations: want an array");
        else
            st = items_decode(arr, out, err);
    }
    cJSON_Delete(doc);
    if (st != GP_OK) {
        if (st == GP_ENOMEM)
            gp_err_set(err, "out of memory decoding the recommendations");
        gp_recs_free(out);
        return st;
    }
    if (sort_unique(out) != GP_OK) {
        gp_err_set(err, "out of memory decoding the recommendations");
        gp_recs_free(out);
        return GP_ENOMEM;
    }
    return GP_OK;
}

const gp_rec *gp_recs_find(const gp_recs *r, const char *ns, const char *kind, const char *name)
{
    size_t lo = 0, hi = r->n;

    if (ns == NULL || kind == NULL || name == NULL)
        return NULL;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = rec_key_cmp(&r->v[mid], ns, kind, name);

        if (c == 0)
            return &r->v[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

bool gp_rec_expired(const gp_rec *rec, double now)
{
    return !(now < rec->expires);
}

/* ---- sharing ------------------------------------------------------------------------------ */

struct gp_recs_shared {
    atomic_int refs;
    gp_recs recs;
};

gp_recs_shared *gp_recs_shared_new(gp_recs *recs)
{
    gp_recs_shared *s = calloc(1, sizeof(*s));

    if (s == NULL) {
        gp_recs_free(recs);
        return NULL;
    }
    atomic_init(&s->refs, 1);
    s->recs = *recs;
    memset(recs, 0, sizeof(*recs));
    return s;
}

void *gp_recs_shared_ref(void *shared)
{
    gp_recs_shared *s = shared;

    atomic_fetch_add(&s->refs, 1);
    return s;
}

void gp_recs_shared_unref(void *shared)
{
    gp_recs_shared *s = shared;

    if (s != NULL && atomic_fetch_sub(&s->refs, 1) == 1) {
        gp_recs_free(&s->recs);
        free(s);
    }
}

const gp_recs *gp_recs_shared_table(const gp_recs_shared *shared)
{
    return &shared->recs;
}
