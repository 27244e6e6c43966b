/* SPDX-License-Identifier: Apache-2.0 */
/* Prometheus HTTP API bodies -> gp_prom_result (the contract is in gpupack/promjson.h).
 *
 * The body is parsed with cJSON (its own nesting limit bounds the depth), then walked once; every
 * string is copied, so the tree is freed before returning. Sample values arrive as strings
 * ("0.05", "NaN", "+Inf") and timestamps as JSON numbers with a fractional part. */
#include "gpupack/promjson.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

typedef struct {
    gp_prom_limits lim;
    size_t samples; /* so far, over all series */
    gp_err *err;
} decoder;

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = malloc(n);

    if (p != NULL)
        memcpy(p, s, n);
    return p;
}

static void series_free(gp_prom_series *s)
{
    for (size_t i = 0; i < s->nlabels; i++) {
        free(s->labels[i].name);
        free(s->labels[i].value);
    }
    free(s->labels);
    free(s->samples);
}

static void strings_free(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

void gp_prom_result_free(gp_prom_result *r)
{
    if (r == NULL)
        return;
    free(r->error_type);
    free(r->error);
    strings_free(r->warnings, r->nwarnings);
    strings_free(r->infos, r->ninfos);
    for (size_t i = 0; i < r->nseries; i++)
        series_free(&r->series[i]);
    free(r->series);
    free(r);
}

const char *gp_prom_kind_str(gp_prom_kind k)
{
    static const char *const names[] = { "", "vector", "matrix", "scalar", "series" };

    return (unsigned)k < sizeof(names) / sizeof(names[0]) ? names[k] : "";
}

const char *gp_prom_label_get(const gp_prom_series *s, const char *name)
{
    for (size_t i = 0; i < s->nlabels; i++)
        if (strcmp(s->labels[i].name, name) == 0)
            return s->labels[i].value;
    return NULL;
}

static gp_status oom(decoder *d)
{
    gp_err_set(d->err, "out of memory decoding the Prometheus response");
    return GP_ENOMEM;
}

/* A sample value as Prometheus formats it (Go's strconv.FormatFloat, 'f', -1, or NaN/+Inf/-Inf). */
static bool parse_value(const char *s, double *v)
{
    char *end = NULL;

    if (strcmp(s, "NaN") == 0) {
        *v = NAN;
        return true;
    }
    if (strcmp(s, "+Inf") == 0 || strcmp(s, "-Inf") == 0) {
        *v = s[0] == '-' ? -INFINITY : INFINITY;
        return true;
    }
    if (s[0] == '\0' || strpbrk(s, "xXnNiI") != NULL) /* no hex, no C spellings of nan/inf */
        return false;
    *v = strtod(s, &end);
    return end != NULL && *end == '\0' && isfinite(*v);
}

/* [time, "value"] at path into *out. */
static gp_status parse_sample(decoder *d, const cJSON *pair, const char *path, gp_prom_sample *out)
{
    const cJSON *t = cJSON_GetArrayItem(pair, 0), *v = cJSON_GetArrayItem(pair, 1);

    if (!cJSON_IsArray(pair) || cJSON_GetArraySize(pair) != 2 || !cJSON_IsNumber(t) ||
        !cJSON_IsString(v)) {
        gp_err_set(d->err, "%s: want [time, \"value\"]", path);
        return GP_EINVAL;
    }
    out->t = t->valuedouble;
    if (!isfinite(out->t)) { /* 1e999: a time no caller can place in a window */
        gp_err_set(d->err, "%s: time is not a finite number", path);
        return GP_EINVAL;
    }
    if (!parse_value(v->valuestring, &out->v)) {
        gp_err_set(d->err, "%s: value \"%.40s\" is not a number", path, v->valuestring);
        return GP_EINVAL;
    }
    return GP_OK;
}

static gp_status take_samples(decoder *d, size_t n, const char *path)
{
    if (n > d->lim.max_samples - d->samples) {
        gp_err_set(d->err, "%s: more than %zu samples in the response", path, d->lim.max_samples);
        return GP_ETOOBIG;
    }
    d->samples += n;
    return GP_OK;
}

/* A labels object ({"name": "value", ...}) at path into s. */
static gp_status parse_labels(decoder *d, const cJSON *obj, const char *path, gp_prom_series *s)
{
    const cJSON *l;
    size_t n = 0;

    if (!cJSON_IsObject(obj)) {
        gp_err_set(d->err, "%s: want an object of labels", path);
        return GP_EINVAL;
    }
    cJSON_ArrayForEach(l, obj) n++;
    if (n > 0 && (s->labels = calloc(n, sizeof(*s->labels))) == NULL)
        return oom(d);
    cJSON_ArrayForEach(l, obj) {
        gp_prom_label *lb = &s->labels[s->nlabels];

        if (!cJSON_IsString(l)) {
            gp_err_set(d->err, "%s.%.64s: want a string", path, l->string);
            return GP_EINVAL;
        }
        lb->name = dup_str(l->string);
        lb->value = dup_str(l->valuestring);
        s->nlabels++;
        if (lb->name == NULL || lb->value == NULL)
            return oom(d);
    }
    return GP_OK;
}

/* "values": [[t, "v"], ...] of a matrix series. */
static gp_status parse_values(decoder *d, const cJSON *vals, const char *path, gp_prom_series *s)
{
    char p[160];
    size_t n = (size_t)cJSON_GetArraySize(vals), i = 0;
    const cJSON *pair;
    gp_status st;

    if (!cJSON_IsArray(vals)) {
        gp_err_set(d->err, "%s.values: want an array", path);
        return GP_EINVAL;
    }
    if ((st = take_samples(d, n, path)) != GP_OK)
        return st;
    if (n > 0 && (s->samples = calloc(n, sizeof(*s->samples))) == NULL)
        return oom(d);
    cJSON_ArrayForEach(pair, vals) {
        snprintf(p, sizeof(p), "%s.values[%zu]", path, i);
        if ((st = parse_sample(d, pair, p, &s->samples[i])) != GP_OK)
            return st;
        s->nsamples = ++i;
    }
    return GP_OK;
}

/* "value": [t, "v"] of a vector series, or a scalar's result. */
static gp_status parse_one(decoder *d, const cJSON *pair, const char *path, gp_prom_series *s)
{
    gp_status st;

    if ((st = take_samples(d, 1, path)) != GP_OK)
        return st;
    if ((s->samples = calloc(1, sizeof(*s->samples))) == NULL)
        return oom(d);
    if ((st = parse_sample(d, pair, path, s->samples)) != GP_OK)
        return st;
    s->nsamples = 1;
    return GP_OK;
}

static gp_status parse_series(decoder *d, gp_prom_kind kind, const cJSON *item, const char *path,
                              gp_prom_series *s)
{
    char p[160];
    gp_status st;

    if (kind == GP_PROM_SERIES)
        return parse_labels(d, item, path, s);
    if (!cJSON_IsObject(item)) {
        gp_err_set(d->err, "%s: want an object with \"metric\"", path);
        return GP_EINVAL;
    }
    snprintf(p, sizeof(p), "%s.metric", path);
    if ((st = parse_labels(d, cJSON_GetObjectItemCaseSensitive(item, "metric"), p, s)) != GP_OK)
        return st;
    if (kind == GP_PROM_MATRIX)
        return parse_values(d, cJSON_GetObjectItemCaseSensitive(item, "values"), path, s);
    snprintf(p, sizeof(p), "%s.value", path);
    return parse_one(d, cJSON_GetObjectItemCaseSensitive(item, "value"), p, s);
}

/* An array of series (data.result, or data for /api/v1/series) into r. */
static gp_status parse_series_list(decoder *d, const cJSON *arr, const char *path,
                                   gp_prom_result *r)
{
    char p[96];
    size_t n = (size_t)cJSON_GetArraySize(arr);
    const cJSON *item;
    gp_status st;

    if (!cJSON_IsArray(arr)) {
        gp_err_set(d->err, "%s: want an array", path);
        return GP_EINVAL;
    }
    if (n > d->lim.max_series) {
        gp_err_set(d->err, "%s: more than %zu series in the response", path, d->lim.max_series);
        return GP_ETOOBIG;
    }
    if (n > 0 && (r->series = calloc(n, sizeof(*r->series))) == NULL)
        return oom(d);
    cJSON_ArrayForEach(item, arr) {
        snprintf(p, sizeof(p), "%s[%zu]", path, r->nseries);
        st = parse_series(d, r->kind, item, p, &r->series[r->nseries]);
        r->nseries++; /* freed with the result even when half-filled */
        if (st != GP_OK)
            return st;
    }
    return GP_OK;
}

static gp_prom_kind kind_of(const char *s)
{
    for (int k = GP_PROM_VECTOR; k <= GP_PROM_SCALAR; k++)
        if (strcmp(s, gp_prom_kind_str((gp_prom_kind)k)) == 0)
            return (gp_prom_kind)k;
    return GP_PROM_NONE;
}

/* "data" of a success: {"resultType": ..., "result": ...}, or an array of label sets. */
static gp_status parse_data(decoder *d, const cJSON *data, gp_prom_result *r)
{
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(data, "resultType");
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(data, "result");

    if (cJSON_IsArray(data)) {
        r->kind = GP_PROM_SERIES;
        return parse_series_list(d, data, "data", r);
    }
    if (!cJSON_IsObject(data)) {
        gp_err_set(d->err, "data: want an object or an array");
        return GP_EINVAL;
    }
    if (!cJSON_IsString(type) || (r->kind = kind_of(type->valuestring)) == GP_PROM_NONE) {
        gp_err_set(d->err, "data.resultType: want \"vector\", \"matrix\" or \"scalar\"");
        return GP_EINVAL;
    }
    if (r->kind != GP_PROM_SCALAR)
        return parse_series_list(d, res, "data.result", r);
    if ((r->series = calloc(1, sizeof(*r->series))) == NULL)
        return oom(d);
    r->nseries = 1;
    return parse_one(d, res, "data.result", r->series);
}

/* "warnings" or "infos": an optional array of strings, at most GP_PROM_MAX_MESSAGES kept. */
static gp_status parse_messages(decoder *d, const cJSON *root, const char *name, char ***out,
                                size_t *n)
{
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, name), *m;
    size_t want = (size_t)cJSON_GetArraySize(arr);

    if (arr == NULL || cJSON_IsNull(arr))
        return GP_OK;
    if (!cJSON_IsArray(arr)) {
        gp_err_set(d->err, "%s: want an array of strings", name);
        return GP_EINVAL;
    }
    want = want < GP_PROM_MAX_MESSAGES ? want : GP_PROM_MAX_MESSAGES;
    if (want > 0 && (*out = calloc(want, sizeof(**out))) == NULL)
        return oom(d);
    cJSON_ArrayForEach(m, arr) {
        if (!cJSON_IsString(m)) {
            gp_err_set(d->err, "%s[%zu]: want a string", name, *n);
            return GP_EINVAL;
        }
        if (*n == want)
            continue;
        if (((*out)[*n] = dup_str(m->valuestring)) == NULL)
            return oom(d);
        (*n)++;
    }
    return GP_OK;
}

static gp_status copy_opt(decoder *d, const cJSON *root, const char *name, char **out)
{
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(root, name);

    if (!cJSON_IsString(s))
        return GP_OK;
    return (*out = dup_str(s->valuestring)) != NULL ? GP_OK : oom(d);
}

static gp_status parse_root(decoder *d, const cJSON *root, gp_prom_result *r)
{
    const cJSON *status = cJSON_GetObjectItemCaseSensitive(root, "status");
    gp_status st;

    if (!cJSON_IsObject(root)) {
        gp_err_set(d->err, "not a Prometheus API response: want a JSON object");
        return GP_EINVAL;
    }
    if (!cJSON_IsString(status) || (strcmp(status->valuestring, "success") != 0 &&
                                    strcmp(status->valuestring, "error") != 0)) {
        gp_err_set(d->err, "status: want \"success\" or \"error\"");
        return GP_EINVAL;
    }
    r->success = strcmp(status->valuestring, "success") == 0;
    if ((st = parse_messages(d, root, "warnings", &r->warnings, &r->nwarnings)) != GP_OK ||
        (st = parse_messages(d, root, "infos", &r->infos, &r->ninfos)) != GP_OK)
        return st;
    if (r->success)
        return parse_data(d, cJSON_GetObjectItemCaseSensitive(root, "data"), r);
    if ((st = copy_opt(d, root, "errorType", &r->error_type)) != GP_OK ||
        (st = copy_opt(d, root, "error", &r->error)) != GP_OK)
        return st;
    if (r->error == NULL && (r->error = dup_str("(no error message)")) == NULL)
        return oom(d);
    return GP_OK;
}

gp_status gp_promjson_decode(const char *body, size_t len, const gp_prom_limits *lim,
                             gp_prom_result **out, gp_err *err)
{
    decoder d = { .err = err };
    gp_prom_result *r;
    cJSON *root;
    gp_status st;

    *out = NULL;
    d.lim.max_series = lim && lim->max_series ? lim->max_series : GP_PROM_DEFAULT_MAX_SERIES;
    d.lim.max_samples = lim && lim->max_samples ? lim->max_samples : GP_PROM_DEFAULT_MAX_SAMPLES;
    /* cJSON takes a raw NUL inside a string and the copy would stop there: "pod\0x" read as
     * "pod". A NUL is not in any JSON text (it would be \u0000), so refuse the body. */
    if (memchr(body, '\0', len) != NULL) {
        gp_err_set(err, "not a Prometheus API response: a NUL byte in the body");
        return GP_EINVAL;
    }
    root = cJSON_ParseWithLengthOpts(body, len + 1, NULL, 1);
    if (root == NULL) {
        gp_err_set(err, "not a Prometheus API response: invalid JSON");
        return GP_EINVAL;
    }
    if ((r = calloc(1, sizeof(*r))) == NULL) {
        cJSON_Delete(root);
        return oom(&d);
    }
    st = parse_root(&d, root, r);
    cJSON_Delete(root);
    if (st != GP_OK) {
        gp_prom_result_free(r);
        return st;
    }
    *out = r;
    return GP_OK;
}
