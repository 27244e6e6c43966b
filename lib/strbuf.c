/* SPDX-License-Identifier: Apache-2.0 */
/* A growable output string (see strbuf.h). */
#include "gpupack/strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

void gp_strbuf_init(gp_strbuf *b, size_t limit)
{
    memset(b, 0, sizeof(*b));
    b->limit = limit;
}

void gp_strbuf_free(gp_strbuf *b)
{
    free(b->p);
    gp_strbuf_init(b, b->limit);
}

void gp_strbuf_clear(gp_strbuf *b)
{
    b->len = 0;
    b->failed = false;
    if (b->p != NULL)
        b->p[0] = '\0';
}

/* Room for n more bytes and a NUL. */
static bool reserve(gp_strbuf *b, size_t n)
{
    size_t need, ncap;
    char *np;

    if (b->failed)
        return false;
    if (n > SIZE_MAX / 2 - b->len - 1) {
        b->failed = true;
        return false;
    }
    need = b->len + n + 1;
    if (need <= b->cap)
        return true;
    if (b->limit != 0 && need > b->limit) {
        b->failed = true;
        return false;
    }
    ncap = b->cap ? b->cap : 256;
    while (ncap < need)
        ncap *= 2;
    if (b->limit != 0 && ncap > b->limit)
        ncap = b->limit;
    np = realloc(b->p, ncap);
    if (np == NULL) {
        b->failed = true;
        return false;
    }
    b->p = np;
    b->cap = ncap;
    return true;
}

void gp_strbuf_put(gp_strbuf *b, const char *s, size_t n)
{
    if (!reserve(b, n))
        return;
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

size_t gp_copy_text(char *dst, size_t cap, const char *src, size_t n)
{
    n = n < cap - 1 ? n : cap - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
    return n;
}

char *gp_strbuf_extend(gp_strbuf *b, size_t n)
{
    char *at;

    if (!reserve(b, n))
        return NULL;
    at = b->p + b->len;
    b->len += n;
    b->p[b->len] = '\0';
    return at;
}

void gp_strbuf_puts(gp_strbuf *b, const char *s)
{
    gp_strbuf_put(b, s, strlen(s));
}

size_t gp_int_text(char out[GP_INT_TEXT_MAX], int64_t v)
{
    char tmp[GP_INT_TEXT_MAX];
    char *p = tmp + sizeof(tmp);
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v; /* INT64_MIN too */
    size_t n;

    if (v >= 0 && v < 10) { /* a score, a count: one digit, most often */
        out[0] = (char)('0' + v);
        return 1;
    }
    do {
        *--p = (char)('0' + u % 10);
        u /= 10;
    } while (u != 0);
    if (v < 0)
        *--p = '-';
    n = (size_t)(tmp + sizeof(tmp) - p);
    memcpy(out, p, n);
    return n;
}

void gp_strbuf_int(gp_strbuf *b, int64_t v)
{
    char tmp[GP_INT_TEXT_MAX] = "";

    gp_strbuf_put(b, tmp, gp_int_text(tmp, v));
}

void gp_strbuf_printf(gp_strbuf *b, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        b->failed = true;
    if (n < 0 || !reserve(b, (size_t)n))
        return;
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

const char *gp_json_escape(unsigned char c, char tmp[8])
{
    switch (c) {
    case '"': return "\\\"";
    case '\\': return "\\\\";
    case '\n': return "\\n";
    case '\r': return "\\r";
    case '\t': return "\\t";
    case '\b': return "\\b";
    case '\f': return "\\f";
    default: break;
    }
    if (c >= 0x20 && c != 0x7F)
        return NULL;
    snprintf(tmp, 8, "\\u%04x", c);
    return tmp;
}

/* True when none of the 8 bytes at p needs an escape (a quote, a backslash, DEL or a control
 * character), tested together: the common case, 8 bytes at a time. */
static bool plain8(const char *p)
{
    const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
    uint64_t v, q, k, d;

    memcpy(&v, p, sizeof(v));
    q = v ^ (ones * '"');
    k = v ^ (ones * '\\');
    d = v ^ (ones * 0x7F);
    /* a byte is flagged when it is zero after the xor, or below 0x20 (exact for "any") */
    return ((((q - ones) & ~q) | ((k - ones) & ~k) | ((d - ones) & ~d) | ((v - ones * 0x20) & ~v)) &
            high) == 0;
}

/* The same for the 16 bytes at p. */
static bool plain16(const char *p)
{
#ifdef __SSE2__
    const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\');
    const __m128i del = _mm_set1_epi8(0x7F), ctl = _mm_set1_epi8(0x1F);
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
    __m128i qb = _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, bslash));
    __m128i dc = _mm_or_si128(_mm_cmpeq_epi8(v, del), _mm_cmpeq_epi8(_mm_max_epu8(v, ctl), ctl));

    /* ctl: max(v, 0x1F) == 0x1F exactly when v <= 0x1F, unsigned */
    return _mm_movemask_epi8(_mm_or_si128(qb, dc)) == 0;
#else
    return plain8(p) && plain8(p + 8);
#endif
}

/* How many of the n bytes at p need no escape, from the start, in whole blocks of 16 bytes,
 * then of 8. */
static size_t plain_run(const char *p, size_t n)
{
    size_t i = 0;

    for (; n - i >= 16 && plain16(p + i); i += 16)
        ;
    for (; n - i >= 8 && plain8(p + i); i += 8)
        ;
    return i;
}

/* True when c stands as is in a JSON string. */
static bool plain_byte(unsigned char c)
{
    return c >= 0x20 && c != '"' && c != '\\' && c != 0x7F;
}

bool gp_json_plain(const char *s, size_t n)
{
    size_t i = 0;

    if (n >= 16) { /* whole blocks, then the last 16 bytes again (they overlap the blocks) */
        for (; n - i > 16; i += 16)
            if (!plain16(s + i))
                return false;
        return plain16(s + n - 16);
    }
    if (n >= 8)
        return plain8(s) && plain8(s + n - 8);
    for (; i < n; i++)
        if (!plain_byte((unsigned char)s[i]))
            return false;
    return true;
}

void gp_strbuf_json_string(gp_strbuf *b, const char *s)
{
    size_t n = strlen(s);
    const char *run = s, *end = s + n;
    char *at;

    if (gp_json_plain(s, n)) { /* the common case: nothing to escape, one append */
        if ((at = gp_strbuf_extend(b, n + 2)) != NULL) {
            at[0] = '"';
            memcpy(at + 1, s, n);
            at[n + 1] = '"';
        }
        return;
    }
    gp_strbuf_put(b, "\"", 1);
    while (s < end) {
        unsigned char c;
        char tmp[8];
        const char *e;

        s += plain_run(s, (size_t)(end - s));
        if (s == end)
            break;
        c = (unsigned char)*s++;
        if (plain_byte(c))
            continue; /* without a call */
        e = gp_json_escape(c, tmp);
        if (e == NULL)
            continue;
        gp_strbuf_put(b, run, (size_t)(s - 1 - run));
        gp_strbuf_puts(b, e);
        run = s;
    }
    gp_strbuf_put(b, run, (size_t)(end - run));
    gp_strbuf_put(b, "\"", 1);
}

gp_status gp_strbuf_take(gp_strbuf *b, char **out, size_t *len)
{
    *out = NULL;
    *len = 0;
    if (!b->failed && !reserve(b, 0)) /* an empty buffer still hands over "" */
        b->failed = true;
    if (b->failed) {
        gp_strbuf_free(b);
        return GP_ENOMEM;
    }
    b->p[b->len] = '\0';
    *out = b->p;
    *len = b->len;
    b->p = NULL;
    b->len = b->cap = 0;
    return GP_OK;
}

/* The length of the UTF-8 sequence lead byte c starts, 0 when c cannot start one. */
static size_t utf8_len(unsigned char c)
{
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf)
        return 2;
    if (c >= 0xe0 && c <= 0xef)
        return 3;
    return c >= 0xf0 && c <= 0xf4 ? 4 : 0;
}

size_t gp_utf8_next(const char *s, size_t n, uint32_t *cp)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t len = utf8_len(u[0]);
    uint32_t c = len == 1 ? u[0] : len == 2 ? u[0] & 0x1fu : len == 3 ? u[0] & 0x0fu : u[0] & 0x07u;

    if (len == 0 || len > n)
        goto bad;
    for (size_t i = 1; i < len; i++) {
        if ((u[i] & 0xc0) != 0x80)
            goto bad;
        c = c << 6 | (u[i] & 0x3fu);
    }
    if ((len == 3 && (c < 0x800 || (c >= 0xd800 && c <= 0xdfff))) ||
        (len == 4 && (c < 0x10000 || c > 0x10ffff)))
        goto bad;
    *cp = c;
    return len;
bad:
    *cp = 0xfffd;
    return 1;
}

char *gp_utf8_repair(char *s)
{
    size_t i = 0, n, out;

    if (s == NULL)
        return NULL;
    while (s[i] != '\0' && (unsigned char)s[i] < 0x80) /* ASCII: nothing to drop */
        i++;
    if (s[i] == '\0')
        return s;
    n = i + strlen(s + i);
    for (out = i; i < n;) {
        uint32_t cp;
        size_t len = gp_utf8_next(s + i, n - i, &cp);

        if (!(len == 1 && cp == 0xfffd)) {
            if (out != i)
                memmove(s + out, s + i, len);
            out += len;
        }
        i += len;
    }
    if (out < n)
        s[out] = '\0';
    return s;
}

void gp_strbuf_put_cp(gp_strbuf *b, uint32_t cp)
{
    char t[4];
    size_t n;

    if (cp < 0x80) {
        t[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        t[0] = (char)(0xc0 | cp >> 6);
        t[1] = (char)(0x80 | (cp & 0x3f));
        n = 2;
    } else if (cp < 0x10000) {
        t[0] = (char)(0xe0 | cp >> 12);
        t[1] = (char)(0x80 | (cp >> 6 & 0x3f));
        t[2] = (char)(0x80 | (cp & 0x3f));
        n = 3;
    } else {
        t[0] = (char)(0xf0 | cp >> 18);
        t[1] = (char)(0x80 | (cp >> 12 & 0x3f));
        t[2] = (char)(0x80 | (cp >> 6 & 0x3f));
        t[3] = (char)(0x80 | (cp & 0x3f));
        n = 4;
    }
    gp_strbuf_put(b, t, n);
}
