/* SPDX-License-Identifier: Apache-2.0 */
/* JSON text to a cJSON tree (see jsonparse.h). One recursive descent over the text; strings are
 * scanned 16 bytes at a time and copied once when they hold no escape (nearly all of a pod). */
#include "gpupack/jsonparse.h"

#include <limits.h>
#include <locale.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "gpupack/json.h"
#include "gpupack/jsonpool.h"

#define NUMBER_BUF 64   /* a number's text is copied for strtod on the stack up to this length */
#define EXACT_DIGITS 15 /* an integer of at most this many digits is exact in a double */

typedef unsigned char byte;

typedef struct {
    const byte *p, *end, *start;
    int max_depth;
    gp_json_pool *pool; /* the thread's bound pool: nodes from it without cJSON's hooks */
    bool unique;        /* refuse duplicate member names */
    gp_json_error err;
} parser;

/* The members of the object being read, for the duplicate check of a small one. */
typedef struct {
    uint32_t hash[GP_JSON_SMALL_OBJECT];
    const cJSON *member[GP_JSON_SMALL_OBJECT];
    size_t n;
} names;

static cJSON *parse_value(parser *ps, int depth);

/* Records the first failure (the innermost: callers return at once) and returns NULL. */
static void *fail(parser *ps, gp_json_fail kind, const byte *at)
{
    if (ps->err.kind == GP_JSON_OK) {
        ps->err.kind = kind;
        ps->err.offset = (size_t)(at - ps->start);
    }
    return NULL;
}

static void skip_some_space(parser *ps)
{
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\n' || *ps->p == '\r' || *ps->p == '\t'))
        ps->p++;
}

/* Compact JSON (what kube-apiserver sends) has none: one comparison; one space (after ':' and
 * ',' as Python writes JSON) two. */
static inline void skip_space(parser *ps)
{
    if (ps->p < ps->end && *ps->p <= ' ') {
        if (*ps->p == ' ' && ps->end - ps->p > 1 && ps->p[1] > ' ')
            ps->p++;
        else
            skip_some_space(ps);
    }
}

/* Memory as cJSON_malloc() gives it. */
static inline void *alloc(parser *ps, size_t n)
{
    return ps->pool != NULL ? gp_json_pool_alloc(ps->pool, n) : cJSON_malloc(n);
}

static cJSON *new_node(parser *ps, int type)
{
    cJSON *n = alloc(ps, sizeof(*n));

    if (n == NULL)
        return fail(ps, GP_JSON_NOMEM, ps->p);
    memset(n, 0, sizeof(*n));
    n->type = type;
    return n;
}

#ifdef __SSE2__
/* A bit for each of the 16 bytes in v that ends plain string content: '"', '\\', a control
 * character. */
static inline unsigned special_bytes(__m128i v)
{
    __m128i low = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1F)), v); /* v <= 0x1F */
    __m128i hit = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
                               _mm_cmpeq_epi8(v, _mm_set1_epi8('\\')));

    return (unsigned)_mm_movemask_epi8(_mm_or_si128(hit, low));
}
#endif

/* How many bytes from p on are plain string content: not '"', not '\\', not a control
 * character. */
static size_t plain_run(const byte *p, const byte *end)
{
    size_t i = 0, n = (size_t)(end - p);

#ifdef __SSE2__
    for (; n - i >= 16; i += 16) {
        unsigned mask = special_bytes(_mm_loadu_si128((const __m128i *)(const void *)(p + i)));

        if (mask != 0)
            return i + (size_t)__builtin_ctz(mask);
    }
#endif
    while (i < n && p[i] != '"' && p[i] != '\\' && p[i] >= 0x20)
        i++;
    return i;
}

/* Where the string whose content starts at s closes (its '"'), stepping over escapes; NULL when
 * it does not close or holds a raw control character. */
static const byte *string_close(parser *ps, const byte *s)
{
    for (;;) {
        s += plain_run(s, ps->end);
        if (s >= ps->end || *s < 0x20)
            return fail(ps, GP_JSON_SYNTAX, s);
        if (*s == '"')
            return s;
        if (ps->end - s < 2) /* a backslash and the byte it escapes */
            return fail(ps, GP_JSON_SYNTAX, s);
        s += 2;
    }
}

static int hex_digit(byte c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c |= 0x20;
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* The four hex digits at p (which has them before lim) as a number, or -1. */
static long hex4(const byte *p, const byte *lim)
{
    long v = 0;

    if (lim - p < 4)
        return -1;
    for (int i = 0; i < 4; i++) {
        int d = hex_digit(p[i]);

        if (d < 0)
            return -1;
        v = v << 4 | d;
    }
    return v;
}

static byte *put_utf8(byte *o, unsigned long cp)
{
    if (cp < 0x80) {
        *o++ = (byte)cp;
    } else if (cp < 0x800) {
        *o++ = (byte)(0xC0 | cp >> 6);
        *o++ = (byte)(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        *o++ = (byte)(0xE0 | cp >> 12);
        *o++ = (byte)(0x80 | (cp >> 6 & 0x3F));
        *o++ = (byte)(0x80 | (cp & 0x3F));
    } else {
        *o++ = (byte)(0xF0 | cp >> 18);
        *o++ = (byte)(0x80 | (cp >> 12 & 0x3F));
        *o++ = (byte)(0x80 | (cp >> 6 & 0x3F));
        *o++ = (byte)(0x80 | (cp & 0x3F));
    }
    return o;
}

/* \uXXXX at *pp (its backslash), a surrogate pair as one code point, as cJSON reads them. */
static bool unicode_escape(const byte **pp, const byte *lim, byte **out)
{
    const byte *p = *pp;
    long hi = hex4(p + 2, lim), lo;

    if (hi < 0 || (hi >= 0xDC00 && hi <= 0xDFFF))
        return false;
    if (hi < 0xD800 || hi > 0xDBFF) {
        *out = put_utf8(*out, (unsigned long)hi);
        *pp = p + 6;
        return true;
    }
    if (lim - (p + 6) < 6 || p[6] != '\\' || p[7] != 'u')
        return false;
    lo = hex4(p + 8, lim);
    if (lo < 0xDC00 || lo > 0xDFFF)
        return false;
    *out = put_utf8(*out, 0x10000 + ((unsigned long)(hi & 0x3FF) << 10 |
                                     (unsigned long)(lo & 0x3FF)));
    *pp = p + 12;
    return true;
}

/* The escape at *pp (a backslash before lim, with the byte it escapes) decoded into *out; false
 * when it is not one. */
static bool escape(const byte **pp, const byte *lim, byte **out)
{
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    const char *k;

    if ((*pp)[1] == 'u')
        return unicode_escape(pp, lim, out);
    k = (*pp)[1] != '\0' ? strchr(from, (*pp)[1]) : NULL;
    if (k == NULL)
        return false;
    *(*out)++ = (byte)to[k - from];
    *pp += 2;
    return true;
}

/* A string with escapes, its content from s on; *len is its strlen. */
static char *escaped_string(parser *ps, const byte *s, size_t *len)
{
    const byte *close = string_close(ps, s);
    byte *out, *o;

    if (close == NULL)
        return NULL;
    out = alloc(ps, (size_t)(close - s) + 1); /* decoding never lengthens */
    if (out == NULL)
        return fail(ps, GP_JSON_NOMEM, s);
    o = out;
    while (s < close) {
        size_t run = plain_run(s, close);

        memcpy(o, s, run);
        o += run;
        s += run;
        if (s < close && !escape(&s, close, &o)) {
            cJSON_free(out);
            return fail(ps, GP_JSON_SYNTAX, s);
        }
    }
    *o = '\0';
    *len = strlen((char *)out); /* \u0000 ends it early */
    ps->p = close + 1;
    return (char *)out;
}

#ifdef __SSE2__
/* A plain string (no escape) whose content starts at s, copied 16 bytes at a time while it is
 * scanned, straight into the bound pool's free space, which it then takes. NULL, with nothing
 * taken, when it is not plain, when fewer than 16 bytes of text follow a block, or when the pool's
 * chunk is short: the caller goes the long way. */
static char *plain_into_pool(parser *ps, const byte *s, size_t *len)
{
    gp_json_pool *pool = ps->pool;
    byte *dst = pool->base + pool->used;
    const size_t room = pool->cap - pool->used, n = (size_t)(ps->end - s);

    for (size_t i = 0; n - i >= 16 && room - i >= 16; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
        unsigned mask = special_bytes(v);
        size_t k;

        _mm_storeu_si128((__m128i *)(void *)(dst + i), v);
        if (mask == 0)
            continue;
        k = i + (size_t)__builtin_ctz(mask);
        if (s[k] != '"')
            return NULL;
        dst[k] = '\0'; /* k < i + 16 <= room; room is a multiple of the alignment */
        pool->used += (k + GP_JSON_POOL_ALIGN) & ~(size_t)(GP_JSON_POOL_ALIGN - 1);
        *len = k;
        ps->p = s + k + 1;
        return (char *)dst;
    }
    return NULL;
}
#endif

/* The string at ps->p (its opening quote), decoded into memory as cJSON_malloc() gives it; *len
 * is its strlen. */
static char *parse_string(parser *ps, size_t *len)
{
    const byte *s = ps->p + 1;
    size_t run;
    char *out;

#ifdef __SSE2__
    if (ps->pool != NULL && ps->pool->base != NULL && (out = plain_into_pool(ps, s, len)) != NULL)
        return out;
#endif
    run = plain_run(s, ps->end);
    if (s + run >= ps->end || s[run] != '"')
        return escaped_string(ps, s, len);
    out = alloc(ps, run + 1);
    if (out == NULL)
        return fail(ps, GP_JSON_NOMEM, s);
    memcpy(out, s, run);
    out[run] = '\0';
    *len = run;
    ps->p = s + run + 1;
    return out;
}

static const byte *digits(const byte *p, const byte *end)
{
    while (p < end && *p >= '0' && *p <= '9')
        p++;
    return p;
}

/* strtod() on the number's n bytes at s, with '.' as the locale writes it (as cJSON does);
 * false when memory is short. */
static bool number_text(const byte *s, size_t n, double *v)
{
    char stack[NUMBER_BUF], *buf = n < sizeof(stack) ? stack : malloc(n + 1), *dot;

    if (buf == NULL)
        return false;
    memcpy(buf, s, n);
    buf[n] = '\0';
    if ((dot = strchr(buf, '.')) != NULL)
        *dot = localeconv()->decimal_point[0];
    *v = strtod(buf, NULL);
    if (buf != stack)
        free(buf);
    return true;
}

static int saturated_int(double v)
{
    if (v >= INT_MAX)
        return INT_MAX;
    if (v <= (double)INT_MIN)
        return INT_MIN;
    return (int)v;
}

/* A number (RFC 8259's grammar); plain integers of up to 15 digits without strtod. */
static cJSON *parse_number(parser *ps)
{
    const byte *s = ps->p, *q = s + (*s == '-'), *int_end = digits(q, ps->end), *e = int_end;
    double v = 0;
    cJSON *n;

    if (int_end == q || (*q == '0' && int_end - q > 1))
        return fail(ps, GP_JSON_SYNTAX, q);
    if (e < ps->end && *e == '.' && (e = digits(e + 1, ps->end)) == int_end + 1)
        return fail(ps, GP_JSON_SYNTAX, e);
    if (e < ps->end && (*e == 'e' || *e == 'E')) {
        const byte *x = e + 1 + (e + 1 < ps->end && (e[1] == '+' || e[1] == '-'));

        if ((e = digits(x, ps->end)) == x)
            return fail(ps, GP_JSON_SYNTAX, x);
    }
    if (e == int_end && int_end - q <= EXACT_DIGITS) {
        for (const byte *d = q; d < int_end; d++)
            v = v * 10 + (*d - '0'); /* exact: below 2^53 at every step */
        v = *s == '-' ? -v : v;
    } else if (!number_text(s, (size_t)(e - s), &v)) {
        return fail(ps, GP_JSON_NOMEM, s);
    }
    if ((n = new_node(ps, cJSON_Number)) == NULL)
        return NULL;
    n->valuedouble = v;
    n->valueint = saturated_int(v);
    ps->p = e;
    return n;
}

static cJSON *parse_literal(parser *ps, const char *word, size_t len, int type)
{
    cJSON *n;

    if ((size_t)(ps->end - ps->p) < len || memcmp(ps->p, word, len) != 0)
        return fail(ps, GP_JSON_SYNTAX, ps->p);
    if ((n = new_node(ps, type)) == NULL)
        return NULL;
    n->valueint = type == cJSON_True;
    ps->p += len;
    return n;
}

/* Appends c to parent's children, *last being the last one so far (NULL: none yet). */
static void append(cJSON *parent, cJSON **last, cJSON *c)
{
    if (*last == NULL) {
        parent->child = c;
    } else {
        (*last)->next = c;
        c->prev = *last;
    }
    *last = c;
}

/* After a member or an element: true when a ',' follows (another one comes); false at the
 * closing byte (consumed, *ok true) or anything else (recorded, *ok false). */
static bool more(parser *ps, byte close, bool *ok)
{
    skip_space(ps);
    if (ps->p < ps->end && *ps->p == ',') {
        ps->p++;
        skip_space(ps);
        return true;
    }
    *ok = ps->p < ps->end && *ps->p == close;
    if (*ok)
        ps->p++;
    else
        fail(ps, GP_JSON_SYNTAX, ps->p);
    return false;
}

/* One member: "name" : value; *hash summarises the name (gp_json_name_hash). */
static cJSON *parse_member(parser *ps, int depth, uint32_t *hash)
{
    char *name;
    size_t len;
    cJSON *v;

    if (ps->p >= ps->end || *ps->p != '"')
        return fail(ps, GP_JSON_SYNTAX, ps->p);
    if ((name = parse_string(ps, &len)) == NULL)
        return NULL;
    if (ps->unique)
        *hash = gp_json_name_hash(name, len);
    skip_space(ps);
    if (ps->p >= ps->end || *ps->p != ':') {
        cJSON_free(name);
        return fail(ps, GP_JSON_SYNTAX, ps->p);
    }
    ps->p++;
    skip_space(ps);
    if ((v = parse_value(ps, depth)) == NULL) {
        cJSON_free(name);
        return NULL;
    }
    v->string = name;
    return v;
}

/* The first name obj holds twice (nm: its members' summaries, when it has few), or NULL. */
static const char *repeated_name(parser *ps, const cJSON *obj, const names *nm)
{
    const char *dup = NULL;

    if (nm->n > GP_JSON_SMALL_OBJECT) {
        if (gp_json_object_duplicate(obj, &dup) == GP_ENOMEM)
            fail(ps, GP_JSON_NOMEM, ps->p);
        return dup;
    }
    for (size_t i = 0; i < nm->n; i++)
        for (size_t j = i + 1; j < nm->n; j++)
            if (nm->hash[i] == nm->hash[j] &&
                strcmp(nm->member[i]->string, nm->member[j]->string) == 0)
                return nm->member[i]->string;
    return NULL;
}

/* Notes member (just read, with its name's summary) for the duplicate check. */
static void note_name(names *nm, const cJSON *member, uint32_t hash)
{
    if (nm->n < GP_JSON_SMALL_OBJECT) {
        nm->hash[nm->n] = hash;
        nm->member[nm->n] = member;
    }
    nm->n++;
}

/* False, with the failure recorded, when the object that started at open repeats a name. */
static bool unique_names(parser *ps, const cJSON *obj, const names *nm, const byte *open)
{
    const char *dup = repeated_name(ps, obj, nm);
    size_t n;

    if (dup == NULL)
        return ps->err.kind == GP_JSON_OK;
    fail(ps, GP_JSON_DUPLICATE, open);
    n = strlen(dup) < GP_JSON_NAME_KEPT ? strlen(dup) : GP_JSON_NAME_KEPT;
    memcpy(ps->err.name, dup, n);
    ps->err.name[n] = '\0';
    return false;
}

/* An object or an array at ps->p (its '{' or '['). */
static cJSON *parse_container(parser *ps, int depth, bool object)
{
    const byte close = object ? '}' : ']', *open = ps->p;
    cJSON *c, *last = NULL;
    bool ok = true;
    names nm;

    if (depth > ps->max_depth)
        return fail(ps, GP_JSON_DEPTH, ps->p);
    if ((c = new_node(ps, object ? cJSON_Object : cJSON_Array)) == NULL)
        return NULL;
    ps->p++;
    skip_space(ps);
    if (ps->p < ps->end && *ps->p == close) {
        ps->p++;
        return c;
    }
    nm.n = 0;
    do {
        uint32_t hash = 0;
        cJSON *item = object ? parse_member(ps, depth + 1, &hash) : parse_value(ps, depth + 1);

        if (item == NULL) {
            ok = false;
            break;
        }
        append(c, &last, item);
        if (object && ps->unique)
            note_name(&nm, item, hash);
    } while (more(ps, close, &ok));
    if (ok && object && ps->unique)
        ok = unique_names(ps, c, &nm, open);
    if (!ok) {
        cJSON_Delete(c);
        return NULL;
    }
    c->child->prev = last;
    return c;
}

static cJSON *parse_string_value(parser *ps)
{
    cJSON *n = new_node(ps, cJSON_String);
    size_t len;

    if (n != NULL && (n->valuestring = parse_string(ps, &len)) == NULL) {
        cJSON_free(n);
        return NULL;
    }
    return n;
}

static cJSON *parse_value(parser *ps, int depth)
{
    if (ps->p >= ps->end)
        return fail(ps, GP_JSON_SYNTAX, ps->p);
    switch (*ps->p) {
    case '{':
        return parse_container(ps, depth, true);
    case '[':
        return parse_container(ps, depth, false);
    case '"':
        return parse_string_value(ps);
    case 't':
        return parse_literal(ps, "true", 4, cJSON_True);
    case 'f':
        return parse_literal(ps, "false", 5, cJSON_False);
    case 'n':
        return parse_literal(ps, "null", 4, cJSON_NULL);
    default:
        if (*ps->p == '-' || (*ps->p >= '0' && *ps->p <= '9'))
            return parse_number(ps);
        return fail(ps, GP_JSON_SYNTAX, ps->p);
    }
}

static cJSON *parse(const char *text, size_t len, int max_depth, bool unique, gp_json_error *err)
{
    parser ps = { (const byte *)text, (const byte *)text + len, (const byte *)text, max_depth,
                  gp_json_pool_bound(), unique, { GP_JSON_OK, 0, "" } };
    cJSON *root;

    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
        ps.p += 3;
    skip_space(&ps);
    root = parse_value(&ps, 0);
    skip_space(&ps);
    if (root != NULL && ps.p != ps.end) {
        fail(&ps, GP_JSON_SYNTAX, ps.p);
        cJSON_Delete(root);
        root = NULL;
    }
    if (err != NULL)
        *err = ps.err;
    return root;
}

cJSON *gp_json_parse(const char *text, size_t len, int max_depth, gp_json_error *err)
{
    return parse(text, len, max_depth, false, err);
}

cJSON *gp_json_parse_unambiguous(const char *text, size_t len, int max_depth, gp_json_error *err)
{
    return parse(text, len, max_depth, true, err);
}
