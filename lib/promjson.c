/* SPDX-License-Identifier: Apache-2.0 */
/* Prometheus HTTP API bodies -> gp_prom_result (the contract is in gpupack/promjson.h).
 *
 * The body is parsed with yajl as a stream of events that fill the result directly (no tree:
 * memory is the result, 16 bytes a sample, plus yajl's small stacks). Sample values arrive as
 * strings ("0.05", "NaN", "+Inf") and timestamps as JSON numbers with a fractional part. */
#include "gpupack/promjson.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yajl/yajl_parse.h>

#include "gpupack/arena.h"
#include "gpupack/grow.h"

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
    free(r->series);
    gp_arena_free(&r->store);
    free(r);
}

/* Room for part's messages after r's n (r's array grown to n + m; false when out of memory). */
static bool msgs_room(char ***v, size_t n, size_t m)
{
    char **grown;

    if (m == 0)
        return true;
    if ((grown = realloc(*v, (n + m) * sizeof(*grown))) == NULL)
        return false;
    *v = grown;
    return true;
}

/* Moves the messages of from (m of them) not already in v (n of them) to its end. */
static void msgs_move(char **v, size_t *n, char **from, size_t m)
{
    for (size_t i = 0; i < m; i++) {
        bool seen = *n == GP_PROM_MAX_MESSAGES;

        for (size_t j = 0; j < *n && !seen; j++)
            seen = strcmp(v[j], from[i]) == 0;
        if (seen) {
            free(from[i]);
        } else {
            v[(*n)++] = from[i];
        }
        from[i] = NULL;
    }
}

static gp_status append_fail(gp_prom_result *part, gp_status st)
{
    gp_prom_result_free(part);
    return st;
}

gp_status gp_prom_result_append(gp_prom_result *r, gp_prom_result *part)
{
    gp_prom_series *series;

    if (part == NULL || !r->success || !part->success || r->kind != part->kind)
        return append_fail(part, GP_EINVAL);
    if (part->nseries > 0) {
        series = realloc(r->series, (r->nseries + part->nseries) * sizeof(*series));
        if (series == NULL)
            return append_fail(part, GP_ENOMEM);
        r->series = series;
    }
    if (!msgs_room(&r->warnings, r->nwarnings, part->nwarnings) ||
        !msgs_room(&r->infos, r->ninfos, part->ninfos))
        return append_fail(part, GP_ENOMEM);
    if (part->nseries > 0)
        memcpy(r->series + r->nseries, part->series, part->nseries * sizeof(*series));
    r->nseries += part->nseries;
    msgs_move(r->warnings, &r->nwarnings, part->warnings, part->nwarnings);
    msgs_move(r->infos, &r->ninfos, part->infos, part->ninfos);
    part->nwarnings = part->ninfos = 0;
    gp_arena_adopt(&r->store, &part->store);
    gp_prom_result_free(part);
    return GP_OK;
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

/* ---- streaming decode ------------------------------------------------------------------------
 *
 * yajl reports the body as events; a small stack of frames (the containers that mean something:
 * root, data, the series list, a series, its labels, its values, a [t, "v"] pair, warnings or
 * infos) says what each event is. Everything else (unknown members; a repeated member, of which
 * the first counts as a lookup by name found it) is skipped with a counter of open containers.
 * Series go straight into the result. A series' labels and samples grow in the decoder's scratch
 * arrays and are copied, at their size, into the result's arena when the series ends; label
 * names and values are interned there (a name or a value repeated over many series, "namespace"
 * or a node's name, is stored once). So a result is a few large blocks, not millions of small
 * allocations: at 10,000 series of 12 labels that is the difference between about 40 and about
 * 100 bytes a label.
 *
 * Members come in any order. Two orders need care:
 *   - "data" before "status": data is decoded, but its first error (a cap included) is only
 *     remembered, data dropped and the rest of it skipped; that error is the answer if status
 *     says "success", and data is dropped if status says "error" (an error body's data is never
 *     looked at);
 *   - "result" before "resultType": the result's bytes are skipped (checked as JSON only) and,
 *     once the type is known at the end of data, decoded from the same bytes by a second parser.
 * An error stops the parse at once (a cap before anything more is allocated), with the path of
 * the first thing wrong in the body's order. A document that is not an object is refused at the
 * end, so that text which is not JSON at all is reported as such. */

#define MAX_DEPTH 1000 /* open containers, as cJSON's nesting limit */
#define MAX_FRAMES 8   /* root, data, list, series, labels or values, pair */
#define STORE_BLOCK (256u * 1024u) /* the result arena's blocks: a week's 5-minute series fits */

typedef enum { F_ROOT, F_DATA, F_LIST, F_ITEM, F_LABELS, F_VALUES, F_PAIR, F_MSGS } fkind;

/* Members that mean something; a bit each in decoder.seen / item_seen. */
enum { K_NONE, K_STATUS, K_DATA, K_WARNINGS, K_INFOS, K_ERRTYPE, K_ERROR, K_TYPE, K_RESULT,
       K_METRIC, K_VALUE, K_VALUES, K_LABEL };

typedef struct {
    fkind k;
    int key;  /* K_*: the member whose value comes next (objects) */
    int msgs; /* K_WARNINGS or K_INFOS (F_MSGS) */
    size_t n; /* elements seen (arrays) */
} frame;

typedef enum { S_UNKNOWN, S_SUCCESS, S_ERROR } body_status;

typedef struct {
    gp_prom_limits lim;
    size_t samples; /* so far, over all series */
    gp_err *err;
    gp_status st; /* why the parse was stopped; GP_OK while it goes on */
    gp_prom_result *r;
    const char *body;
    yajl_handle h;
    frame stack[MAX_FRAMES];
    int sp;        /* frames in use */
    int opening;   /* the event: +1 opens a container, -1 closes one, 0 neither */
    size_t skip;   /* open containers inside a skipped value */
    size_t depth;  /* open containers in all */
    body_status status;
    unsigned seen;      /* root and data members met */
    unsigned item_seen; /* members of the current series met */
    bool root_bad;      /* the document is not an object */
    bool in_data;       /* the event is inside the value of "data" */
    gp_status dst;      /* data's first error while status was unknown */
    gp_err derr;
    bool reparse;       /* decoding a result that came before resultType */
    bool res_skipping, res_prim; /* that result: being skipped; not a container */
    size_t res_off, res_end;
    size_t scap, lcap, samp_cap, mcap[2]; /* capacities of the growing arrays */
    gp_prom_label *lab;     /* the current series' labels, until it ends (scratch) */
    gp_prom_sample *samp;   /* its samples (scratch) */
    const char **itab;      /* interned strings in r->store: open addressing, icap a power of 2 */
    size_t icap, ni;
    gp_prom_sample pair;
    const char *label_name; /* the label waiting for its value (interned) */
} decoder;

/* s (l bytes) equals lit as a C string would (a \u0000 inside ends it). */
static bool str_is(const unsigned char *s, size_t l, const char *lit)
{
    const unsigned char *nul = memchr(s, '\0', l);

    if (nul != NULL)
        l = (size_t)(nul - s);
    return l == strlen(lit) && memcmp(s, lit, l) == 0;
}

static char *dup_mem(const void *s, size_t l)
{
    char *p = malloc(l + 1);

    if (p != NULL) {
        memcpy(p, s, l);
        p[l] = '\0';
    }
    return p;
}

static uint64_t str_hash(const unsigned char *s, size_t l)
{
    uint64_t h = 1469598103934665603ull;

    for (size_t i = 0; i < l; i++)
        h = (h ^ s[i]) * 1099511628211ull;
    return h;
}

/* The slot of s (l bytes, no NUL) in the intern table: its string or the empty slot for it. */
static size_t intern_slot(const decoder *d, const unsigned char *s, size_t l)
{
    size_t i = str_hash(s, l) & (d->icap - 1);

    while (d->itab[i] != NULL &&
           (strncmp(d->itab[i], (const char *)s, l) != 0 || d->itab[i][l] != '\0'))
        i = (i + 1) & (d->icap - 1);
    return i;
}

static bool intern_grow(decoder *d)
{
    size_t cap = d->icap ? d->icap * 2 : 256;
    const char **old = d->itab, **t = calloc(cap, sizeof(*t));
    size_t oldcap = d->icap;

    if (t == NULL)
        return false;
    d->itab = t;
    d->icap = cap;
    for (size_t i = 0; i < oldcap; i++)
        if (old[i] != NULL)
            t[intern_slot(d, (const unsigned char *)old[i], strlen(old[i]))] = old[i];
    free(old);
    return true;
}

/* s (l bytes, up to a \u0000 inside, as a C string reads it) stored once in the result's arena;
 * NULL when out of memory. */
static const char *intern(decoder *d, const unsigned char *s, size_t l)
{
    const unsigned char *nul = memchr(s, '\0', l);
    size_t i;
    char *p;

    if (nul != NULL)
        l = (size_t)(nul - s);
    if ((d->ni + 1) * 2 > d->icap && !intern_grow(d))
        return NULL;
    i = intern_slot(d, s, l);
    if (d->itab[i] != NULL)
        return d->itab[i];
    if ((p = gp_arena_alloc_raw(&d->r->store, l + 1)) == NULL)
        return NULL;
    memcpy(p, s, l);
    p[l] = '\0';
    d->itab[i] = p;
    d->ni++;
    return p;
}

/* The path of the current series (pair false) or of its pair being decoded (pair true). */
static void where(const decoder *d, char *buf, size_t n, bool pair)
{
    const gp_prom_result *r = d->r;
    size_t i = r->nseries > 0 ? r->nseries - 1 : 0;

    if (r->kind == GP_PROM_SCALAR)
        snprintf(buf, n, "data.result");
    else if (r->kind == GP_PROM_SERIES)
        snprintf(buf, n, "data[%zu]", i);
    else if (!pair)
        snprintf(buf, n, "data.result[%zu]", i);
    else if (r->kind == GP_PROM_VECTOR)
        snprintf(buf, n, "data.result[%zu].value", i);
    else
        snprintf(buf, n, "data.result[%zu].values[%zu]", i, r->series[i].nsamples);
}

static void drop_data(decoder *d)
{
    gp_prom_result *r = d->r;

    free(r->series); /* (what its series had in the arena stays there until the result goes) */
    r->series = NULL;
    r->nseries = 0;
    r->kind = GP_PROM_NONE;
    d->scap = 0;
}

/* An error: the parse stops (false for the caller). One inside data while status is unknown is
 * remembered instead, data dropped and the rest of it skipped. */
static bool fail(decoder *d, gp_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static bool fail(decoder *d, gp_status st, const char *fmt, ...)
{
    va_list ap;
    char msg[GP_ERR_MAX];

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (d->in_data && d->status == S_UNKNOWN) {
        d->dst = st;
        gp_err_set(&d->derr, "%s", msg);
        drop_data(d);
        d->label_name = NULL;
        d->in_data = false;
        if (!d->reparse) { /* (a second pass stops: its bytes were skipped already) */
            d->skip += (size_t)(d->sp - 1 + d->opening); /* every open container of data */
            d->sp = 1;
        }
        return false;
    }
    d->st = st;
    gp_err_set(d->err, "%s", msg);
    return false;
}

static bool oom(decoder *d)
{
    d->st = GP_ENOMEM;
    gp_err_set(d->err, "out of memory decoding the Prometheus response");
    return false;
}

/* What yajl is told after an event: go on unless stopped (a second pass stops at data's error). */
static int go_on(const decoder *d)
{
    return d->st == GP_OK && !(d->reparse && d->dst != GP_OK);
}

static bool push(decoder *d, fkind k, int msgs)
{
    d->stack[d->sp] = (frame){ .k = k, .key = K_NONE, .msgs = msgs, .n = 0 };
    d->sp++;
    return true;
}

static bool take_samples(decoder *d, size_t n)
{
    char p[96];

    if (n > d->lim.max_samples - d->samples) {
        where(d, p, sizeof(p), false);
        return fail(d, GP_ETOOBIG, "%s: more than %zu samples in the response", p,
                    d->lim.max_samples);
    }
    d->samples += n;
    return true;
}

/* A new empty series at the end of r->series, within the series cap. */
static bool new_series(decoder *d, const char *list)
{
    gp_prom_result *r = d->r;
    gp_prom_series *s;

    if (r->nseries >= d->lim.max_series)
        return fail(d, GP_ETOOBIG, "%s: more than %zu series in the response", list,
                    d->lim.max_series);
    if ((s = gp_grow(r->series, &d->scap, r->nseries + 1, sizeof(*s))) == NULL)
        return oom(d);
    r->series = s;
    memset(&s[r->nseries], 0, sizeof(*s));
    r->nseries++;
    d->item_seen = 0;
    return true;
}

/* n elements of size sz at v copied into the result's arena (NULL for none); false when out of
 * memory. */
static bool to_store(decoder *d, void **v, size_t n, size_t sz)
{
    void *p;

    if (n == 0) {
        *v = NULL;
        return true;
    }
    if ((p = gp_arena_alloc_raw(&d->r->store, n * sz)) == NULL)
        return false;
    memcpy(p, *v, n * sz);
    *v = p;
    return true;
}

/* The current series is complete: its labels and samples move from the scratch arrays into the
 * result's arena, at their size. */
static bool series_fit(decoder *d)
{
    gp_prom_series *s = &d->r->series[d->r->nseries - 1];

    if (!to_store(d, (void **)&s->samples, s->nsamples, sizeof(*s->samples)) ||
        !to_store(d, (void **)&s->labels, s->nlabels, sizeof(*s->labels)))
        return oom(d);
    return true;
}

/* A [t, "v"] pair opens for the current series: room for its sample, counted against the cap. */
static bool open_pair(decoder *d)
{
    gp_prom_series *s = &d->r->series[d->r->nseries - 1];
    gp_prom_sample *p;

    if (!take_samples(d, 1))
        return false;
    if ((p = gp_grow(d->samp, &d->samp_cap, s->nsamples + 1, sizeof(*p))) == NULL)
        return oom(d);
    s->samples = d->samp = p;
    return push(d, F_PAIR, 0);
}

static bool bad_pair(decoder *d)
{
    char p[96];

    where(d, p, sizeof(p), true);
    return fail(d, GP_EINVAL, "%s: want [time, \"value\"]", p);
}

/* ---- a value arrives: what it means depends on the frame it is in ---------------------------- */

typedef enum { V_NULL, V_BOOL, V_NUM, V_STR, V_MAP, V_ARR } vtype;

static bool skip_value(decoder *d, vtype t)
{
    if (t == V_MAP || t == V_ARR)
        d->skip = 1;
    return true;
}

static bool status_value(decoder *d, vtype t, const unsigned char *s, size_t l)
{
    if (t != V_STR || (!str_is(s, l, "success") && !str_is(s, l, "error")))
        return fail(d, GP_EINVAL, "status: want \"success\" or \"error\"");
    d->status = str_is(s, l, "success") ? S_SUCCESS : S_ERROR;
    d->r->success = d->status == S_SUCCESS;
    if (d->status == S_SUCCESS && d->dst != GP_OK) { /* data was wrong: that is the answer */
        d->st = d->dst;
        gp_err_set(d->err, "%s", d->derr.msg);
        return false;
    }
    if (d->status == S_ERROR)
        drop_data(d);
    return true;
}

static bool root_value(decoder *d, int key, vtype t, const unsigned char *s, size_t l)
{
    gp_prom_result *r = d->r;
    char **str;

    switch (key) {
    case K_STATUS: return status_value(d, t, s, l);
    case K_DATA:
        if (d->status == S_ERROR)
            return skip_value(d, t);
        d->in_data = true;
        if (t == V_ARR) {
            r->kind = GP_PROM_SERIES;
            return push(d, F_LIST, 0);
        }
        if (t == V_MAP)
            return push(d, F_DATA, 0);
        return fail(d, GP_EINVAL, "data: want an object or an array");
    case K_WARNINGS:
    case K_INFOS:
        if (t == V_NULL)
            return true;
        if (t != V_ARR)
            return fail(d, GP_EINVAL, "%s: want an array of strings",
                        key == K_WARNINGS ? "warnings" : "infos");
        return push(d, F_MSGS, key);
    case K_ERRTYPE:
    case K_ERROR:
        if (t != V_STR)
            return skip_value(d, t);
        str = key == K_ERROR ? &r->error : &r->error_type;
        return (*str = dup_mem(s, l)) != NULL || oom(d);
    default: return skip_value(d, t);
    }
}

static bool result_value(decoder *d, vtype t)
{
    gp_prom_result *r = d->r;

    if (r->kind == GP_PROM_NONE) { /* resultType still to come: skip now, decode at the end */
        if (t != V_MAP && t != V_ARR) {
            d->res_prim = true;
            return true;
        }
        d->res_off = yajl_get_bytes_consumed(d->h) - 1;
        d->res_skipping = true;
        return skip_value(d, t);
    }
    if (r->kind == GP_PROM_SCALAR) {
        if (t != V_ARR)
            return take_samples(d, 1) && fail(d, GP_EINVAL, "data.result: want [time, \"value\"]");
        return new_series(d, "data.result") && open_pair(d);
    }
    if (t != V_ARR)
        return fail(d, GP_EINVAL, "data.result: want an array");
    return push(d, F_LIST, 0);
}

static bool data_value(decoder *d, int key, vtype t, const unsigned char *s, size_t l)
{
    gp_prom_kind k = GP_PROM_NONE;

    if (key == K_RESULT)
        return result_value(d, t);
    if (key != K_TYPE)
        return skip_value(d, t);
    for (int i = GP_PROM_VECTOR; i <= GP_PROM_SCALAR && t == V_STR; i++)
        if (str_is(s, l, gp_prom_kind_str((gp_prom_kind)i)))
            k = (gp_prom_kind)i;
    if (k == GP_PROM_NONE)
        return fail(d, GP_EINVAL, "data.resultType: want \"vector\", \"matrix\" or \"scalar\"");
    d->r->kind = k;
    return true;
}

static bool list_value(decoder *d, vtype t)
{
    gp_prom_result *r = d->r;
    bool labels = r->kind == GP_PROM_SERIES;

    if (!new_series(d, labels ? "data" : "data.result"))
        return false;
    if (t != V_MAP)
        return labels ? fail(d, GP_EINVAL, "data[%zu]: want an object of labels", r->nseries - 1)
                      : fail(d, GP_EINVAL, "data.result[%zu]: want an object with \"metric\"",
                             r->nseries - 1);
    return push(d, labels ? F_LABELS : F_ITEM, 0);
}

static bool item_value(decoder *d, int key, vtype t)
{
    size_t i = d->r->nseries - 1;

    switch (key) {
    case K_METRIC:
        if (t != V_MAP)
            return fail(d, GP_EINVAL, "data.result[%zu].metric: want an object of labels", i);
        return push(d, F_LABELS, 0);
    case K_VALUES:
        if (t != V_ARR)
            return fail(d, GP_EINVAL, "data.result[%zu].values: want an array", i);
        return push(d, F_VALUES, 0);
    case K_VALUE: return t == V_ARR ? open_pair(d) : take_samples(d, 1) && bad_pair(d);
    default: return skip_value(d, t);
    }
}

static bool label_value(decoder *d, vtype t, const unsigned char *s, size_t l)
{
    gp_prom_series *sr = &d->r->series[d->r->nseries - 1];
    gp_prom_label *lb;

    if (t != V_STR) {
        if (d->r->kind == GP_PROM_SERIES)
            return fail(d, GP_EINVAL, "data[%zu].%.64s: want a string", d->r->nseries - 1,
                        d->label_name);
        return fail(d, GP_EINVAL, "data.result[%zu].metric.%.64s: want a string",
                    d->r->nseries - 1, d->label_name);
    }
    if ((lb = gp_grow(d->lab, &d->lcap, sr->nlabels + 1, sizeof(*lb))) == NULL)
        return oom(d);
    sr->labels = d->lab = lb;
    lb += sr->nlabels;
    if ((lb->value = (char *)intern(d, s, l)) == NULL)
        return oom(d);
    lb->name = (char *)d->label_name;
    d->label_name = NULL;
    sr->nlabels++;
    return true;
}

static bool pair_value(decoder *d, frame *f, vtype t, const unsigned char *s, size_t l)
{
    char buf[64], p[96], *tok;
    bool ok;

    if (f->n >= 2 || (f->n == 0 && t != V_NUM) || (f->n == 1 && t != V_STR))
        return bad_pair(d);
    /* a NUL-terminated copy: a number or value string is short, a longer one is allocated */
    tok = l < sizeof(buf) ? memcpy(buf, s, l) : malloc(l + 1);
    if (tok == NULL)
        return oom(d);
    if (tok != buf)
        memcpy(tok, s, l);
    tok[l] = '\0';
    if (f->n++ == 0) {
        d->pair.t = strtod(tok, NULL);
        if (!(ok = isfinite(d->pair.t))) { /* 1e999: a time no caller can place in a window */
            where(d, p, sizeof(p), true);
            fail(d, GP_EINVAL, "%s: time is not a finite number", p);
        }
    } else if (!(ok = parse_value(tok, &d->pair.v))) {
        where(d, p, sizeof(p), true);
        fail(d, GP_EINVAL, "%s: value \"%.40s\" is not a number", p, tok);
    }
    if (tok != buf)
        free(tok);
    return ok;
}

static bool msg_value(decoder *d, frame *f, vtype t, const unsigned char *s, size_t l)
{
    bool w = f->msgs == K_WARNINGS;
    char ***v = w ? &d->r->warnings : &d->r->infos;
    size_t *n = w ? &d->r->nwarnings : &d->r->ninfos, *cap = &d->mcap[w ? 0 : 1];
    char **grown;

    if (t != V_STR)
        return fail(d, GP_EINVAL, "%s[%zu]: want a string", w ? "warnings" : "infos", f->n);
    f->n++;
    if (*n == GP_PROM_MAX_MESSAGES)
        return true;
    if ((grown = gp_grow(*v, cap, *n + 1, sizeof(**v))) == NULL)
        return oom(d);
    *v = grown;
    if ((grown[*n] = dup_mem(s, l)) == NULL)
        return oom(d);
    (*n)++;
    return true;
}

static void value(decoder *d, vtype t, const unsigned char *s, size_t l)
{
    frame *f;
    int key;

    d->opening = t == V_MAP || t == V_ARR;
    if (d->opening && ++d->depth > MAX_DEPTH) {
        d->st = GP_EINVAL;
        gp_err_set(d->err, "not a Prometheus API response: invalid JSON (nested deeper than %d)",
                   MAX_DEPTH);
        return;
    }
    if (d->skip > 0) {
        d->skip += (size_t)d->opening;
        return;
    }
    if (d->sp == 0) { /* the document itself */
        if (t != V_MAP) {
            d->root_bad = true;
            skip_value(d, t);
            return;
        }
        push(d, F_ROOT, 0);
        return;
    }
    f = &d->stack[d->sp - 1];
    key = f->key;
    f->key = K_NONE;
    switch (f->k) {
    case F_ROOT: root_value(d, key, t, s, l); break;
    case F_DATA: data_value(d, key, t, s, l); break;
    case F_LIST: list_value(d, t); break;
    case F_ITEM: item_value(d, key, t); break;
    case F_LABELS: label_value(d, t, s, l); break;
    case F_VALUES: (void)(t == V_ARR ? open_pair(d) : take_samples(d, 1) && bad_pair(d)); break;
    case F_PAIR: pair_value(d, f, t, s, l); break;
    case F_MSGS: msg_value(d, f, t, s, l); break;
    }
}

static int on_null(void *ctx)
{
    value(ctx, V_NULL, NULL, 0);
    return go_on(ctx);
}

static int on_bool(void *ctx, int b)
{
    (void)b;
    value(ctx, V_BOOL, NULL, 0);
    return go_on(ctx);
}

static int on_number(void *ctx, const char *s, size_t l)
{
    value(ctx, V_NUM, (const unsigned char *)s, l);
    return go_on(ctx);
}

static int on_string(void *ctx, const unsigned char *s, size_t l)
{
    value(ctx, V_STR, s, l);
    return go_on(ctx);
}

static int on_start_map(void *ctx)
{
    value(ctx, V_MAP, NULL, 0);
    return go_on(ctx);
}

static int on_start_array(void *ctx)
{
    value(ctx, V_ARR, NULL, 0);
    return go_on(ctx);
}

/* A member name: which member it is, in the frame's object. */
static int on_key(void *ctx, const unsigned char *s, size_t l)
{
    static const struct {
        fkind k;
        int key;
        const char *name;
    } names[] = {
        { F_ROOT, K_STATUS, "status" },      { F_ROOT, K_DATA, "data" },
        { F_ROOT, K_WARNINGS, "warnings" },  { F_ROOT, K_INFOS, "infos" },
        { F_ROOT, K_ERRTYPE, "errorType" },  { F_ROOT, K_ERROR, "error" },
        { F_DATA, K_TYPE, "resultType" },    { F_DATA, K_RESULT, "result" },
        { F_ITEM, K_METRIC, "metric" },      { F_ITEM, K_VALUE, "value" },
        { F_ITEM, K_VALUES, "values" },
    };
    decoder *d = ctx;
    frame *f;

    if (d->skip > 0)
        return 1;
    f = &d->stack[d->sp - 1];
    if (f->k == F_LABELS) {
        if ((d->label_name = intern(d, s, l)) == NULL) {
            oom(d);
            return 0;
        }
        f->key = K_LABEL;
        return 1;
    }
    f->key = K_NONE;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        unsigned *seen = f->k == F_ITEM ? &d->item_seen : &d->seen;

        if (names[i].k != f->k || !str_is(s, l, names[i].name) || (*seen & (1u << names[i].key)))
            continue;
        if ((names[i].key == K_VALUE && d->r->kind != GP_PROM_VECTOR) ||
            (names[i].key == K_VALUES && d->r->kind != GP_PROM_MATRIX))
            break; /* the other kind's member: not looked at */
        *seen |= 1u << names[i].key;
        f->key = names[i].key;
        break;
    }
    return 1;
}

static int on_end(void *ctx);

static const yajl_callbacks sax_callbacks = {
    .yajl_null = on_null,
    .yajl_boolean = on_bool,
    .yajl_number = on_number,
    .yajl_string = on_string,
    .yajl_start_map = on_start_map,
    .yajl_map_key = on_key,
    .yajl_end_map = on_end,
    .yajl_start_array = on_start_array,
    .yajl_end_array = on_end,
};

/* The second pass over a result that came before resultType (r->kind is known now). */
static bool decode_result_again(decoder *d)
{
    yajl_handle outer = d->h;
    size_t depth = d->depth;
    yajl_status ys;

    d->h = yajl_alloc(&sax_callbacks, NULL, d);
    if (d->h == NULL) {
        d->h = outer;
        return oom(d);
    }
    yajl_config(d->h, yajl_dont_validate_strings, 1);
    d->reparse = true;
    d->stack[d->sp - 1].key = K_RESULT;
    ys = yajl_parse(d->h, (const unsigned char *)d->body + d->res_off, d->res_end - d->res_off);
    if (ys == yajl_status_ok)
        ys = yajl_complete_parse(d->h);
    yajl_free(d->h);
    d->h = outer;
    d->reparse = false;
    d->depth = depth;
    if (d->st != GP_OK)
        return false;
    if (d->dst != GP_OK) { /* remembered: data is gone, the first pass goes on after it */
        d->sp = 1;
        d->skip = 0;
        return false;
    }
    return ys == yajl_status_ok;
}

/* data's object ends: the result type must be known and the result there. */
static bool end_data(decoder *d)
{
    gp_prom_kind k = d->r->kind;

    if (k == GP_PROM_NONE)
        return fail(d, GP_EINVAL, "data.resultType: want \"vector\", \"matrix\" or \"scalar\"");
    if (d->res_end > d->res_off)
        return decode_result_again(d);
    if (d->res_prim || !(d->seen & (1u << K_RESULT))) {
        if (k == GP_PROM_SCALAR)
            return take_samples(d, 1) && fail(d, GP_EINVAL, "data.result: want [time, \"value\"]");
        return fail(d, GP_EINVAL, "data.result: want an array");
    }
    return true;
}

static bool end_item(decoder *d)
{
    size_t i = d->r->nseries - 1;

    if (!(d->item_seen & (1u << K_METRIC)))
        return fail(d, GP_EINVAL, "data.result[%zu].metric: want an object of labels", i);
    if (d->r->kind == GP_PROM_MATRIX && !(d->item_seen & (1u << K_VALUES)))
        return fail(d, GP_EINVAL, "data.result[%zu].values: want an array", i);
    if (d->r->kind == GP_PROM_VECTOR && !(d->item_seen & (1u << K_VALUE)))
        return take_samples(d, 1) && bad_pair(d);
    return series_fit(d);
}

static bool end_pair(decoder *d, const frame *f)
{
    gp_prom_series *s = &d->r->series[d->r->nseries - 1];

    if (f->n != 2)
        return bad_pair(d);
    s->samples[s->nsamples++] = d->pair;
    return d->r->kind != GP_PROM_SCALAR || series_fit(d); /* a scalar's one pair is its series */
}

static int on_end(void *ctx)
{
    decoder *d = ctx;
    int sp = d->sp;
    frame *f;
    bool ok = true;

    d->depth--;
    d->opening = -1;
    if (d->skip > 0) {
        if (--d->skip == 0 && d->res_skipping) {
            d->res_end = yajl_get_bytes_consumed(d->h);
            d->res_skipping = false;
        }
        return 1;
    }
    f = &d->stack[sp - 1];
    switch (f->k) {
    case F_DATA: ok = end_data(d); break;
    case F_ITEM: ok = end_item(d); break;
    case F_LABELS:
        if (d->r->kind == GP_PROM_SERIES)
            ok = series_fit(d);
        break;
    case F_PAIR: ok = end_pair(d, f); break;
    default: break;
    }
    (void)ok;
    if (d->sp == sp) { /* (an error remembered has closed data already) */
        d->sp--;
        if (d->sp == 1)
            d->in_data = false;
    }
    return go_on(d);
}

/* The end of the body: what was missing, or the status that decides about data. */
static gp_status finish(decoder *d)
{
    gp_prom_result *r = d->r;

    if (d->root_bad) {
        gp_err_set(d->err, "not a Prometheus API response: want a JSON object");
        return GP_EINVAL;
    }
    if (d->status == S_UNKNOWN) {
        gp_err_set(d->err, "status: want \"success\" or \"error\"");
        return GP_EINVAL;
    }
    if (d->status == S_ERROR) {
        if (r->error == NULL && (r->error = dup_mem("(no error message)", 18)) == NULL) {
            oom(d);
            return GP_ENOMEM;
        }
        return GP_OK;
    }
    free(r->error_type);
    free(r->error);
    r->error_type = r->error = NULL;
    if (!(d->seen & (1u << K_DATA))) {
        gp_err_set(d->err, "data: want an object or an array");
        return GP_EINVAL;
    }
    return GP_OK;
}

gp_status gp_promjson_decode(const char *body, size_t len, const gp_prom_limits *lim,
                             gp_prom_result **out, gp_err *err)
{
    decoder d = { .err = err, .body = body };
    yajl_status ys;
    gp_status st;

    *out = NULL;
    d.lim.max_series = lim && lim->max_series ? lim->max_series : GP_PROM_DEFAULT_MAX_SERIES;
    d.lim.max_samples = lim && lim->max_samples ? lim->max_samples : GP_PROM_DEFAULT_MAX_SAMPLES;
    /* A NUL is not in any JSON text (it would be \u0000), and a string copied up to it would
     * read "pod\0x" as "pod": refuse the body. */
    if (memchr(body, '\0', len) != NULL) {
        gp_err_set(err, "not a Prometheus API response: a NUL byte in the body");
        return GP_EINVAL;
    }
    if (len >= 3 && memcmp(body, "\xEF\xBB\xBF", 3) == 0) { /* a UTF-8 BOM, as cJSON skipped */
        body += 3;
        len -= 3;
        d.body = body;
    }
    if ((d.r = calloc(1, sizeof(*d.r))) != NULL) {
        gp_arena_init(&d.r->store, 0);
        d.r->store.block = STORE_BLOCK;
    }
    if (d.r == NULL ||
        (d.h = yajl_alloc(&sax_callbacks, NULL, &d)) == NULL) {
        free(d.r);
        oom(&d);
        return GP_ENOMEM;
    }
    /* as strict as cJSON was: no comments, no trailing text, one value; bytes in strings as sent */
    yajl_config(d.h, yajl_dont_validate_strings, 1);
    ys = yajl_parse(d.h, (const unsigned char *)body, len);
    if (ys == yajl_status_ok)
        ys = yajl_complete_parse(d.h);
    if (d.st != GP_OK) {
        st = d.st;
    } else if (ys != yajl_status_ok) {
        gp_err_set(err, "not a Prometheus API response: invalid JSON (near byte %zu)",
                   yajl_get_bytes_consumed(d.h));
        st = GP_EINVAL;
    } else {
        st = finish(&d);
    }
    yajl_free(d.h);
    free(d.lab);
    free(d.samp);
    free(d.itab);
    if (st != GP_OK) {
        gp_prom_result_free(d.r);
        return st;
    }
    *out = d.r;
    return GP_OK;
}
