/* SPDX-License-Identifier: Apache-2.0 */
/* The Prometheus registry.
 *
 * Series are found through an open-addressing hash table keyed by (name, labels) and grouped in
 * families (one per metric name) so that rendering writes # HELP and # TYPE once per name. One
 * mutex guards everything but a counter's value, which is atomic so that a counter handle
 * (gp_counter, a series that is never removed) adds without the lock. The first use of a name
 * fixes its kind and help text; a later use of the same name with another kind is dropped (and
 * counted) rather than rendered as an invalid exposition. */
#include "gpupack/metrics.h"

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpupack/strbuf.h"

#define METRICS_TABLE_SIZE (GP_METRICS_MAX_SERIES * 2) /* a power of two, at most half full */
#define METRICS_MAX_NAME 128
#define METRICS_MAX_LABELS 512
#define METRICS_MAX_HELP 512
#define METRICS_DROPPED "gpupack_metrics_dropped_series_total"

static const double bucket_bounds[] = GP_METRICS_BUCKETS;
#define NBUCKETS (sizeof(bucket_bounds) / sizeof(bucket_bounds[0]))

typedef enum { KIND_COUNTER, KIND_GAUGE, KIND_HISTOGRAM } metric_kind;

typedef struct family family;

typedef struct series {
    family *fam;
    char *labels;
    _Atomic uint64_t count;     /* counter value, or histogram observation count */
    double value;               /* gauge value, or histogram sum */
    uint64_t buckets[NBUCKETS]; /* histogram: observations per bucket, not cumulative */
    struct series *next;        /* next series of the same family, in creation order */
} series;

struct family {
    char *name;
    char *help;
    metric_kind kind;
    series *first, *last;
    family *next;
};

struct gp_metrics {
    pthread_mutex_t mu;
    series *table[METRICS_TABLE_SIZE];
    size_t nseries;
    family *families, *families_last;
    uint64_t dropped;
};

gp_metrics *gp_metrics_new(void)
{
    gp_metrics *m = calloc(1, sizeof(*m));

    if (m == NULL)
        return NULL;
    pthread_mutex_init(&m->mu, NULL);
    return m;
}

void gp_metrics_free(gp_metrics *m)
{
    family *f, *fnext;

    if (m == NULL)
        return;
    for (f = m->families; f != NULL; f = fnext) {
        series *s, *snext;

        fnext = f->next;
        for (s = f->first; s != NULL; s = snext) {
            snext = s->next;
            free(s->labels);
            free(s);
        }
        free(f->name);
        free(f->help);
        free(f);
    }
    pthread_mutex_destroy(&m->mu);
    free(m);
}

static uint64_t hash_key(const char *name, const char *labels)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */

    for (const char *p = name; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ULL;
    h = (h ^ 0xFFu) * 1099511628211ULL;
    for (const char *p = labels; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ULL;
    return h;
}

static bool name_valid(const char *name)
{
    size_t n = name != NULL ? strlen(name) : 0;

    if (n == 0 || n > METRICS_MAX_NAME || (name[0] >= '0' && name[0] <= '9'))
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = name[i];

        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == ':'))
            return false;
    }
    return true;
}

/* The slot holding (name, labels), or the empty slot where it would go. */
static series **table_slot(gp_metrics *m, const char *name, const char *labels)
{
    size_t i = (size_t)hash_key(name, labels) & (METRICS_TABLE_SIZE - 1);

    for (;;) {
        series *s = m->table[i];

        if (s == NULL || (strcmp(s->fam->name, name) == 0 && strcmp(s->labels, labels) == 0))
            return &m->table[i];
        i = (i + 1) & (METRICS_TABLE_SIZE - 1);
    }
}

static family *family_find(gp_metrics *m, const char *name)
{
    for (family *f = m->families; f != NULL; f = f->next)
        if (strcmp(f->name, name) == 0)
            return f;
    return NULL;
}

static family *family_new(gp_metrics *m, const char *name, const char *help, metric_kind kind)
{
    family *f = calloc(1, sizeof(*f));

    if (f == NULL)
        return NULL;
    f->name = strdup(name);
    f->help = strndup(help != NULL ? help : "", METRICS_MAX_HELP);
    f->kind = kind;
    if (f->name == NULL || f->help == NULL) {
        free(f->name);
        free(f->help);
        free(f);
        return NULL;
    }
    if (m->families_last != NULL)
        m->families_last->next = f;
    else
        m->families = f;
    m->families_last = f;
    return f;
}

/* Creates the series in *slot. Returns NULL (and counts a dropped series) past the limit, on a
 * kind mismatch, or when memory runs out. */
static series *series_new(gp_metrics *m, series **slot, const char *name, const char *help,
                          const char *labels, metric_kind kind)
{
    family *f = family_find(m, name);
    series *s;

    if (m->nseries >= GP_METRICS_MAX_SERIES || (f != NULL && f->kind != kind))
        goto drop;
    if (f == NULL && (f = family_new(m, name, help, kind)) == NULL)
        goto drop;
    s = calloc(1, sizeof(*s));
    if (s == NULL || (s->labels = strdup(labels)) == NULL) {
        free(s);
        goto drop;
    }
    s->fam = f;
    if (f->last != NULL)
        f->last->next = s;
    else
        f->first = s;
    f->last = s;
    *slot = s;
    m->nseries++;
    return s;
drop:
    m->dropped++;
    return NULL;
}

/* Finds or creates a series; call with m->mu held. */
static series *series_get(gp_metrics *m, const char *name, const char *help, const char *labels,
                          metric_kind kind)
{
    series **slot;

    if (labels == NULL)
        labels = "";
    if (!name_valid(name) || strlen(labels) > METRICS_MAX_LABELS) {
        m->dropped++;
        return NULL;
    }
    slot = table_slot(m, name, labels);
    if (*slot != NULL) {
        if ((*slot)->fam->kind == kind)
            return *slot;
        m->dropped++;
        return NULL;
    }
    return series_new(m, slot, name, help, labels, kind);
}

/* Applies one sample to s: a counter adds by, a gauge takes v, a histogram observes v. */
static void apply(series *s, uint64_t by, double v)
{
    size_t b = 0;

    switch (s->fam->kind) {
    case KIND_COUNTER:
        atomic_fetch_add_explicit(&s->count, by, memory_order_relaxed);
        break;
    case KIND_GAUGE:
        s->value = v;
        break;
    case KIND_HISTOGRAM:
        while (b < NBUCKETS && v > bucket_bounds[b])
            b++;
        if (b < NBUCKETS)
            s->buckets[b]++;
        atomic_fetch_add_explicit(&s->count, 1, memory_order_relaxed);
        s->value += v;
        break;
    }
}

static uint64_t count_of(const series *s)
{
    return atomic_load_explicit(&s->count, memory_order_relaxed);
}

/* One sample into the series (name, labels) of the given kind, under the registry's lock. */
static void record(gp_metrics *m, const char *name, const char *help, const char *labels,
                   metric_kind kind, uint64_t by, double v)
{
    series *s;

    if (m == NULL)
        return;
    pthread_mutex_lock(&m->mu);
    s = series_get(m, name, help, labels, kind);
    if (s != NULL)
        apply(s, by, v);
    pthread_mutex_unlock(&m->mu);
}

void gp_metrics_add(gp_metrics *m, const char *name, const char *help, const char *labels,
                    uint64_t by)
{
    record(m, name, help, labels, KIND_COUNTER, by, 0);
}

/* The series (name, labels) of the given kind, created if new, for a handle. */
static series *handle_of(gp_metrics *m, const char *name, const char *help, const char *labels,
                         metric_kind kind)
{
    series *s;

    if (m == NULL)
        return NULL;
    pthread_mutex_lock(&m->mu);
    s = series_get(m, name, help, labels, kind);
    pthread_mutex_unlock(&m->mu);
    return s;
}

gp_counter *gp_metrics_counter(gp_metrics *m, const char *name, const char *help,
                               const char *labels)
{
    return (gp_counter *)handle_of(m, name, help, labels, KIND_COUNTER);
}

void gp_counter_add(gp_counter *c, uint64_t by)
{
    if (c != NULL)
        atomic_fetch_add_explicit(&((series *)c)->count, by, memory_order_relaxed);
}

gp_histogram *gp_metrics_histogram(gp_metrics *m, const char *name, const char *help,
                                   const char *labels)
{
    return (gp_histogram *)handle_of(m, name, help, labels, KIND_HISTOGRAM);
}

void gp_histogram_observe(gp_metrics *m, gp_histogram *h, double seconds)
{
    if (m == NULL || h == NULL || isnan(seconds))
        return;
    pthread_mutex_lock(&m->mu);
    apply((series *)h, 0, seconds);
    pthread_mutex_unlock(&m->mu);
}

void gp_metrics_set(gp_metrics *m, const char *name, const char *help, const char *labels,
                    double value)
{
    record(m, name, help, labels, KIND_GAUGE, 0, value);
}

void gp_metrics_observe(gp_metrics *m, const char *name, const char *help, const char *labels,
                        double seconds)
{
    if (!isnan(seconds))
        record(m, name, help, labels, KIND_HISTOGRAM, 0, seconds);
}

/* Removes the table entry at i and shifts later entries of the same probe run back (linear
 * probing's deletion without tombstones): an entry moves when its home slot is not cyclically
 * in (i, j]. */
static void table_remove(gp_metrics *m, size_t i)
{
    const size_t mask = METRICS_TABLE_SIZE - 1;
    size_t j = i;

    m->table[i] = NULL;
    for (;;) {
        size_t k;

        j = (j + 1) & mask;
        if (m->table[j] == NULL)
            return;
        k = (size_t)hash_key(m->table[j]->fam->name, m->table[j]->labels) & mask;
        if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
            continue;
        m->table[i] = m->table[j];
        m->table[j] = NULL;
        i = j;
    }
}

/* Unlinks and frees every series of f but keep; call with m->mu held. */
static void family_prune(gp_metrics *m, family *f, const series *keep)
{
    series *s = f->first, *next;

    f->first = f->last = NULL;
    for (; s != NULL; s = next) {
        next = s->next;
        s->next = NULL;
        if (s == keep) {
            f->first = f->last = s;
            continue;
        }
        table_remove(m, (size_t)(table_slot(m, f->name, s->labels) - m->table));
        free(s->labels);
        free(s);
        m->nseries--;
    }
}

void gp_metrics_set_only(gp_metrics *m, const char *name, const char *help, const char *labels,
                         double value)
{
    series *s;

    if (m == NULL)
        return;
    pthread_mutex_lock(&m->mu);
    s = series_get(m, name, help, labels, KIND_GAUGE);
    if (s != NULL) {
        s->value = value;
        family_prune(m, s->fam, s);
    }
    pthread_mutex_unlock(&m->mu);
}

/* Formats a sample value the way Prometheus parses it (NaN, +Inf, -Inf for the specials). */
static const char *fmt_double(double v, char *buf, size_t bufsz)
{
    if (isnan(v))
        return "NaN";
    if (isinf(v))
        return v > 0 ? "+Inf" : "-Inf";
    snprintf(buf, bufsz, "%.15g", v);
    return buf;
}

/* # HELP text with backslash and newline escaped, as the text format requires. */
static void render_header(gp_strbuf *o, const family *f)
{
    static const char *const types[] = { "counter", "gauge", "histogram" };

    gp_strbuf_printf(o, "# HELP %s ", f->name);
    for (const char *p = f->help; *p; p++) {
        if (*p == '\\')
            gp_strbuf_puts(o, "\\\\");
        else if (*p == '\n')
            gp_strbuf_puts(o, "\\n");
        else
            gp_strbuf_put(o, p, 1);
    }
    gp_strbuf_printf(o, "\n# TYPE %s %s\n", f->name, types[f->kind]);
}

/* name{labels} or name when there are none. */
static void render_name(gp_strbuf *o, const char *name, const char *suffix, const char *labels)
{
    if (labels[0] != '\0')
        gp_strbuf_printf(o, "%s%s{%s} ", name, suffix, labels);
    else
        gp_strbuf_printf(o, "%s%s ", name, suffix);
}

static void render_histogram(gp_strbuf *o, const family *f, const series *s)
{
    const char *sep = s->labels[0] != '\0' ? "," : "";
    uint64_t cum = 0;
    char num[64];

    for (size_t b = 0; b < NBUCKETS; b++) {
        cum += s->buckets[b];
        gp_strbuf_printf(o, "%s_bucket{%s%sle=\"%g\"} %" PRIu64 "\n", f->name, s->labels, sep,
                   bucket_bounds[b], cum);
    }
    gp_strbuf_printf(o, "%s_bucket{%s%sle=\"+Inf\"} %" PRIu64 "\n", f->name, s->labels, sep,
                     count_of(s));
    render_name(o, f->name, "_sum", s->labels);
    gp_strbuf_printf(o, "%s\n", fmt_double(s->value, num, sizeof(num)));
    render_name(o, f->name, "_count", s->labels);
    gp_strbuf_printf(o, "%" PRIu64 "\n", count_of(s));
}

static void render_family(gp_strbuf *o, const family *f)
{
    char num[64];

    render_header(o, f);
    for (const series *s = f->first; s != NULL; s = s->next) {
        if (f->kind == KIND_HISTOGRAM) {
            render_histogram(o, f, s);
            continue;
        }
        render_name(o, f->name, "", s->labels);
        if (f->kind == KIND_COUNTER)
            gp_strbuf_printf(o, "%" PRIu64 "\n", count_of(s));
        else
            gp_strbuf_printf(o, "%s\n", fmt_double(s->value, num, sizeof(num)));
    }
}

static char *render(gp_metrics *m, bool with_dropped, size_t *len)
{
    gp_strbuf o;
    char *text;
    size_t n;

    if (m == NULL)
        return NULL;
    gp_strbuf_init(&o, 0);
    pthread_mutex_lock(&m->mu);
    for (const family *f = m->families; f != NULL; f = f->next)
        render_family(&o, f);
    if (with_dropped)
        gp_strbuf_printf(&o,
                         "# HELP " METRICS_DROPPED " Series not recorded because the registry was "
                         "full or the name was misused.\n# TYPE " METRICS_DROPPED " counter\n"
                         METRICS_DROPPED " %" PRIu64 "\n",
                         m->dropped);
    pthread_mutex_unlock(&m->mu);
    if (gp_strbuf_take(&o, &text, &n) != GP_OK)
        return NULL;
    if (len != NULL)
        *len = n;
    return text;
}

char *gp_metrics_render(gp_metrics *m, size_t *len)
{
    return render(m, true, len);
}

char *gp_metrics_render_families(gp_metrics *m, size_t *len)
{
    return render(m, false, len);
}

uint64_t gp_metrics_dropped(gp_metrics *m)
{
    uint64_t n;

    if (m == NULL)
        return 0;
    pthread_mutex_lock(&m->mu);
    n = m->dropped;
    pthread_mutex_unlock(&m->mu);
    return n;
}

void gp_metrics_count_dropped(gp_metrics *m, uint64_t n)
{
    if (m == NULL)
        return;
    pthread_mutex_lock(&m->mu);
    m->dropped += n;
    pthread_mutex_unlock(&m->mu);
}
