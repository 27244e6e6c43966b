/* SPDX-License-Identifier: Apache-2.0 */
/* Decoding a Prometheus HTTP API response body (/api/v1/query, /api/v1/query_range,
 * /api/v1/series; Thanos, Mimir and managed Prometheus answer in the same format) into plain C
 * structs. Pure: bytes in, structs out; lib/prom.c does the HTTP.
 *
 * A body with "status": "error" decodes successfully (GP_OK) into a result whose success is
 * false and whose error_type and error hold Prometheus's words; the caller decides what that
 * means. GP_EINVAL is for a body that is not a Prometheus answer at all, with the JSON path of the
 * first thing wrong in err ("data.result[3].values[2]: want [time, \"value\"]"). */
#ifndef GPUPACK_PROMJSON_H
#define GPUPACK_PROMJSON_H

#include <stdbool.h>
#include <stddef.h>

#include "gpupack/arena.h"
#include "gpupack/status.h"

typedef enum {
    GP_PROM_NONE = 0, /* no data (an error body) */
    GP_PROM_VECTOR,   /* instant query: one sample per series */
    GP_PROM_MATRIX,   /* range query: many samples per series */
    GP_PROM_SCALAR,   /* one series without labels and with one sample */
    GP_PROM_SERIES    /* /api/v1/series: label sets, no samples */
} gp_prom_kind;

typedef struct {
    char *name, *value; /* in the result's store: read-only, shared between series */
} gp_prom_label;

typedef struct {
    double t; /* seconds since the epoch */
    double v; /* NaN, +Inf and -Inf as Prometheus sent them */
} gp_prom_sample;

typedef struct {
    gp_prom_label *labels; /* in the body's order; __name__ included when sent */
    size_t nlabels;
    gp_prom_sample *samples;
    size_t nsamples;
} gp_prom_series;

typedef struct {
    bool success;           /* "status": "success" */
    char *error_type;       /* "bad_data", ...; NULL on success */
    char *error;            /* Prometheus's message; NULL on success */
    char **warnings, **infos;
    size_t nwarnings, ninfos;
    gp_prom_kind kind;
    gp_prom_series *series;
    size_t nseries;
    gp_arena store;         /* the series' labels, samples and strings (the decoder's) */
} gp_prom_result;

/* Caps per decoded body: a body over either is GP_ETOOBIG (0: the defaults below). */
typedef struct {
    size_t max_series;  /* series in data.result (or data for /api/v1/series) */
    size_t max_samples; /* samples over all series */
} gp_prom_limits;

#define GP_PROM_DEFAULT_MAX_SERIES 100000u
#define GP_PROM_DEFAULT_MAX_SAMPLES 5000000u
#define GP_PROM_MAX_MESSAGES 64u /* warnings and infos each; more are dropped */

/* Decodes len bytes of body, which must be followed by a NUL (body[len] == '\0', as gp_strbuf
 * text is; a NUL inside is malformed). On GP_OK *out is set and the
 * caller frees it with gp_prom_result_free(). GP_EINVAL for malformed input, GP_ETOOBIG past a
 * cap, GP_ENOMEM; *out is NULL then and err says why. lim may be NULL (the defaults). */
gp_status gp_promjson_decode(const char *body, size_t len, const gp_prom_limits *lim,
                             gp_prom_result **out, gp_err *err) GP_WUR;

/* Moves part's series to the end of r's, and its warnings and infos not already in r (up to
 * GP_PROM_MAX_MESSAGES each), then frees part, on any return: the answers of one range asked
 * in parts (gp_prom_query_range()). A series in several parts is in r once per part, each with
 * its part's samples. GP_EINVAL when the two are not successful answers of one kind, GP_ENOMEM
 * (r is then unchanged). */
gp_status gp_prom_result_append(gp_prom_result *r, gp_prom_result *part) GP_WUR;

/* Frees a result and everything in it. NULL is harmless. */
void gp_prom_result_free(gp_prom_result *r);

/* The name of a result type as Prometheus spells it ("vector", ...; "" for none). */
const char *gp_prom_kind_str(gp_prom_kind k);

/* The value of label name in s, or NULL. */
const char *gp_prom_label_get(const gp_prom_series *s, const char *name);

#endif
