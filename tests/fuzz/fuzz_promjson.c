/* SPDX-License-Identifier: Apache-2.0 */
/* The Prometheus response decoder (gp_promjson_decode), as the advisor and lib/prom.c feed it a
 * body from the network. Properties:
 *   - a failure says why and leaves no result; a success obeys the header's shape promises
 *     (labels non-NULL, a vector one sample a series, a scalar one unlabelled sample, series no
 *     samples, an error body no data and a message, timestamps finite, at most 64 messages);
 *   - the caps hold: decoded again with small caps (derived from the input), the answer is the
 *     same result when it fits and GP_ETOOBIG when it does not;
 *   - what it decoded is what was sent: the result written back as a Prometheus body decodes to
 *     an equal result (values bit for bit, NaN as NaN), and so does it written back with every
 *     object's members in the other order (data before status, result before resultType,
 *     values before metric), which the streaming decoder handles on other paths. */
#include "fuzz_common.h"

#include <math.h>

#include <cjson/cJSON.h>

#include "gpupack/promjson.h"

static size_t total_samples(const gp_prom_result *r)
{
    size_t n = 0;

    for (size_t i = 0; i < r->nseries; i++)
        n += r->series[i].nsamples;
    return n;
}

static void check_shape(const gp_prom_result *r)
{
    FUZZ_ASSERT(r->nwarnings <= GP_PROM_MAX_MESSAGES && r->ninfos <= GP_PROM_MAX_MESSAGES,
                "%zu warnings, %zu infos", r->nwarnings, r->ninfos);
    for (size_t i = 0; i < r->nwarnings; i++)
        FUZZ_ASSERT(r->warnings[i] != NULL, "warning %zu is NULL", i);
    for (size_t i = 0; i < r->ninfos; i++)
        FUZZ_ASSERT(r->infos[i] != NULL, "info %zu is NULL", i);
    if (!r->success) {
        FUZZ_ASSERT(r->kind == GP_PROM_NONE && r->nseries == 0 && r->series == NULL,
                    "an error body with data (kind %d, %zu series)", (int)r->kind, r->nseries);
        FUZZ_ASSERT(r->error != NULL, "an error body without a message");
        return;
    }
    FUZZ_ASSERT(r->error == NULL && r->error_type == NULL, "a success with an error message");
    FUZZ_ASSERT(r->kind >= GP_PROM_VECTOR && r->kind <= GP_PROM_SERIES, "kind %d", (int)r->kind);
    FUZZ_ASSERT(gp_prom_kind_str(r->kind)[0] != '\0', "kind %d has no name", (int)r->kind);
    FUZZ_ASSERT(r->nseries == 0 || r->series != NULL, "%zu series but no array", r->nseries);
    if (r->kind == GP_PROM_SCALAR)
        FUZZ_ASSERT(r->nseries == 1 && r->series[0].nlabels == 0 && r->series[0].nsamples == 1,
                    "a scalar of %zu series", r->nseries);
    for (size_t i = 0; i < r->nseries; i++) {
        const gp_prom_series *s = &r->series[i];

        FUZZ_ASSERT(s->nlabels == 0 || s->labels != NULL, "series %zu: labels NULL", i);
        for (size_t j = 0; j < s->nlabels; j++) {
            FUZZ_ASSERT(s->labels[j].name != NULL && s->labels[j].value != NULL,
                        "series %zu label %zu: NULL", i, j);
            FUZZ_ASSERT(gp_prom_label_get(s, s->labels[j].name) != NULL,
                        "series %zu: label \"%s\" not found by name", i, s->labels[j].name);
        }
        if (r->kind == GP_PROM_VECTOR)
            FUZZ_ASSERT(s->nsamples == 1, "vector series %zu with %zu samples", i, s->nsamples);
        if (r->kind == GP_PROM_SERIES)
            FUZZ_ASSERT(s->nsamples == 0, "label set %zu with %zu samples", i, s->nsamples);
        FUZZ_ASSERT(s->nsamples == 0 || s->samples != NULL, "series %zu: samples NULL", i);
        for (size_t j = 0; j < s->nsamples; j++)
            FUZZ_ASSERT(isfinite(s->samples[j].t), "series %zu sample %zu: time %g", i, j,
                        s->samples[j].t);
    }
}

/* ---- writing a result back as Prometheus would send it ---------------------------------------- */

static cJSON *must(cJSON *j)
{
    if (j == NULL)
        abort();
    return j;
}

static cJSON *sample_json(const gp_prom_sample *s)
{
    cJSON *pair = must(cJSON_CreateArray());
    char t[64], v[64];

    if (isnan(s->v))
        snprintf(v, sizeof(v), "NaN");
    else if (isinf(s->v))
        snprintf(v, sizeof(v), "%s", s->v < 0 ? "-Inf" : "+Inf");
    else
        snprintf(v, sizeof(v), "%.17g", s->v);
    /* cJSON's own printer accepts a relative error of DBL_EPSILON: write all 17 digits */
    snprintf(t, sizeof(t), "%.17g", s->t);
    cJSON_AddItemToArray(pair, must(cJSON_CreateRaw(t)));
    cJSON_AddItemToArray(pair, must(cJSON_CreateString(v)));
    return pair;
}

static cJSON *labels_json(const gp_prom_series *s)
{
    cJSON *o = must(cJSON_CreateObject());

    for (size_t i = 0; i < s->nlabels; i++) /* duplicates kept, in order, as decoded */
        cJSON_AddItemToObject(o, s->labels[i].name, must(cJSON_CreateString(s->labels[i].value)));
    return o;
}

static cJSON *strings_json(char **v, size_t n)
{
    cJSON *a = must(cJSON_CreateArray());

    for (size_t i = 0; i < n; i++)
        cJSON_AddItemToArray(a, must(cJSON_CreateString(v[i])));
    return a;
}

/* Adds name: item to o, first (reversed) or last. */
static void add(cJSON *o, const char *name, cJSON *item, bool reversed)
{
    if (!reversed || o->child == NULL) {
        cJSON_AddItemToObject(o, name, item);
        return;
    }
    if ((item->string = cJSON_malloc(strlen(name) + 1)) == NULL)
        abort();
    memcpy(item->string, name, strlen(name) + 1);
    item->next = o->child;
    item->prev = o->child->prev;
    o->child->prev = item;
    o->child = item;
}

static cJSON *data_json(const gp_prom_result *r, bool reversed)
{
    cJSON *data, *res;

    if (r->kind == GP_PROM_SERIES) {
        data = must(cJSON_CreateArray());
        for (size_t i = 0; i < r->nseries; i++)
            cJSON_AddItemToArray(data, labels_json(&r->series[i]));
        return data;
    }
    data = must(cJSON_CreateObject());
    add(data, "resultType", must(cJSON_CreateString(gp_prom_kind_str(r->kind))), reversed);
    if (r->kind == GP_PROM_SCALAR) {
        add(data, "result", sample_json(&r->series[0].samples[0]), reversed);
        return data;
    }
    res = must(cJSON_CreateArray());
    for (size_t i = 0; i < r->nseries; i++) {
        const gp_prom_series *s = &r->series[i];
        cJSON *item = must(cJSON_CreateObject());

        cJSON_AddItemToObject(item, "metric", labels_json(s));
        if (r->kind == GP_PROM_VECTOR) {
            add(item, "value", sample_json(&s->samples[0]), reversed);
        } else {
            cJSON *vals = must(cJSON_CreateArray());

            for (size_t j = 0; j < s->nsamples; j++)
                cJSON_AddItemToArray(vals, sample_json(&s->samples[j]));
            add(item, "values", vals, reversed);
        }
        cJSON_AddItemToArray(res, item);
    }
    add(data, "result", res, reversed);
    return data;
}

static char *result_json(const gp_prom_result *r, bool reversed)
{
    cJSON *root = must(cJSON_CreateObject());
    char *text;

    cJSON_AddItemToObject(root, "status", must(cJSON_CreateString(r->success ? "success" : "error")));
    if (r->success) {
        add(root, "data", data_json(r, reversed), reversed);
    } else {
        if (r->error_type != NULL)
            add(root, "errorType", must(cJSON_CreateString(r->error_type)), reversed);
        add(root, "error", must(cJSON_CreateString(r->error)), reversed);
    }
    if (r->nwarnings > 0)
        cJSON_AddItemToObject(root, "warnings", strings_json(r->warnings, r->nwarnings));
    if (r->ninfos > 0)
        cJSON_AddItemToObject(root, "infos", strings_json(r->infos, r->ninfos));
    if ((text = cJSON_PrintUnformatted(root)) == NULL)
        abort();
    cJSON_Delete(root);
    return text;
}

/* ---- equality ----------------------------------------------------------------------------------- */

static bool str_eq(const char *a, const char *b)
{
    return (a == NULL && b == NULL) || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

static bool num_eq(double a, double b)
{
    return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof(a)) == 0;
}

static bool strings_eq(char **a, size_t na, char **b, size_t nb)
{
    if (na != nb)
        return false;
    for (size_t i = 0; i < na; i++)
        if (!str_eq(a[i], b[i]))
            return false;
    return true;
}

static bool series_eq(const gp_prom_series *a, const gp_prom_series *b)
{
    if (a->nlabels != b->nlabels || a->nsamples != b->nsamples)
        return false;
    for (size_t i = 0; i < a->nlabels; i++)
        if (!str_eq(a->labels[i].name, b->labels[i].name) ||
            !str_eq(a->labels[i].value, b->labels[i].value))
            return false;
    for (size_t i = 0; i < a->nsamples; i++)
        if (!num_eq(a->samples[i].t, b->samples[i].t) || !num_eq(a->samples[i].v, b->samples[i].v))
            return false;
    return true;
}

static bool result_eq(const gp_prom_result *a, const gp_prom_result *b)
{
    if (a->success != b->success || a->kind != b->kind || a->nseries != b->nseries ||
        !str_eq(a->error, b->error) || !str_eq(a->error_type, b->error_type) ||
        !strings_eq(a->warnings, a->nwarnings, b->warnings, b->nwarnings) ||
        !strings_eq(a->infos, a->ninfos, b->infos, b->ninfos))
        return false;
    for (size_t i = 0; i < a->nseries; i++)
        if (!series_eq(&a->series[i], &b->series[i]))
            return false;
    return true;
}

/* ---- the harness -------------------------------------------------------------------------------- */

static void check_round_trip(const gp_prom_result *r, bool reversed)
{
    char *text = result_json(r, reversed);
    gp_prom_result *back = NULL;
    gp_err err = { { 0 } };
    gp_status st = gp_promjson_decode(text, strlen(text), NULL, &back, &err);

    FUZZ_ASSERT(st == GP_OK, "the result written back does not decode (%s): %.300s", err.msg, text);
    FUZZ_ASSERT(result_eq(r, back), "the result written back decodes to another: %.300s", text);
    gp_prom_result_free(back);
    free(text);
}

/* Decoded again with caps smaller than most inputs: the same answer when the result fits, else
 * GP_ETOOBIG. def_st/def is the decode with the default caps. */
static void check_small_caps(const char *body, size_t len, gp_status def_st,
                             const gp_prom_result *def)
{
    gp_prom_limits lim = { .max_series = 1 + len % 4, .max_samples = 1 + (len / 4) % 8 };
    gp_prom_result *r = NULL;
    gp_err err = { { 0 } };
    gp_status st = gp_promjson_decode(body, len, &lim, &r, &err);

    if (st != GP_OK) {
        FUZZ_ASSERT(r == NULL && err.msg[0] != '\0', "a capped failure without a message");
        FUZZ_ASSERT(st == GP_ETOOBIG || st == def_st, "capped: status %d, default %d", (int)st,
                    (int)def_st);
    } else {
        FUZZ_ASSERT(r->nseries <= lim.max_series && total_samples(r) <= lim.max_samples,
                    "capped at %zu series / %zu samples, got %zu / %zu", lim.max_series,
                    lim.max_samples, r->nseries, total_samples(r));
        FUZZ_ASSERT(def_st == GP_OK && result_eq(r, def), "capped decode differs from default");
    }
    if (def_st == GP_OK) {
        /* (a scalar is one sample, within any cap) */
        bool fits = def->kind == GP_PROM_SCALAR ||
                    (def->nseries <= lim.max_series && total_samples(def) <= lim.max_samples);

        FUZZ_ASSERT(fits ? st == GP_OK : st == GP_ETOOBIG,
                    "%zu series / %zu samples against caps %zu / %zu: status %d", def->nseries,
                    total_samples(def), lim.max_series, lim.max_samples, (int)st);
    }
    gp_prom_result_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *body = fuzz_body(data, size);
    gp_prom_result *r = NULL;
    gp_err err = { { 0 } };
    gp_status st = gp_promjson_decode(body, size, NULL, &r, &err);

    if (st != GP_OK) {
        FUZZ_ASSERT(r == NULL, "a failure (%d) with a result", (int)st);
        FUZZ_ASSERT(err.msg[0] != '\0', "a failure (%d) without a message", (int)st);
        FUZZ_ASSERT(st == GP_EINVAL || st == GP_ETOOBIG, "status %d: %s", (int)st, err.msg);
    } else {
        FUZZ_ASSERT(r != NULL, "success without a result");
        FUZZ_ASSERT(memchr(body, '\0', size) == NULL, "a body with a NUL inside decodes");
        FUZZ_ASSERT(total_samples(r) <= GP_PROM_DEFAULT_MAX_SAMPLES &&
                        r->nseries <= GP_PROM_DEFAULT_MAX_SERIES,
                    "over the default caps");
        check_shape(r);
        check_round_trip(r, false);
        check_round_trip(r, true);
    }
    check_small_caps(body, size, st, r);
    gp_prom_result_free(r);
    free(body);
    return 0;
}
