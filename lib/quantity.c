/* SPDX-License-Identifier: Apache-2.0 */
/* Kubernetes resource quantities, parsed exactly with integer arithmetic only.
 *
 * Parsing runs in phases: check the bytes, split the text into sign, digits and suffix, then
 * evaluate digits x 10^exp10 x 2^exp2 in nano-units. A 64-character mantissa (up to 10^64) times
 * 2^60 does not fit in 128 bits, so the evaluation uses a small fixed-size big integer. Cheap
 * magnitude tests on the digit count and the exponent run first, which bounds every loop (at most
 * 28 multiplications or 83 divisions by ten) whatever exponent the input carries. */
#include "gpupack/quantity.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define QTY_NANO 1000000000
/* 2^63 units in nano-units: the smallest magnitude that is out of range. */
#define QTY_LIMIT (((unsigned __int128)1 << 63) * QTY_NANO)
/* 10^19 > 2^63 > 10^18: a value with nd significant digits and exponent e is out of range when
 * nd + e > QTY_MAX_DIGITS (it is at least 10^(nd + e - 1)). */
#define QTY_MAX_DIGITS 19
/* 2^60, the largest binary multiplier, is below 10^19. */
#define QTY_BIN_DIGITS 19
#define QTY_LIMBS 10 /* 320 bits hold 10^64 x 2^60 */
#define QTY_QUOTE_MAX (GP_QTY_MAX_LEN * 4 + 3)
#define QTY_SHOW_LONG 16 /* bytes of an over-long input shown in its error message */

/* A quantity split into its parts; the digit spans point into the input. */
typedef struct {
    int negative;
    const char *int_digits;
    size_t int_len;
    const char *frac_digits;
    size_t frac_len;
    int64_t exp10; /* from a decimal suffix or an exponent */
    unsigned exp2; /* from a binary suffix: 0, 10, ..., 60 */
} qty_parts;

typedef struct {
    uint32_t w[QTY_LIMBS]; /* little-endian 32-bit limbs */
} qty_big;

static int qty_is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static int qty_is_letter(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Copies s[0..len) into dst as the inside of a C string literal, escaping quotes, backslashes
 * and unprintable bytes, and stopping (without splitting an escape) when dst is full. */
static void qty_quote(char *dst, size_t dstsz, const char *s, size_t len)
{
    size_t o = 0;

    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        char esc[8];
        size_t n = 1;

        esc[0] = (char)c;
        if (c == '"' || c == '\\') {
            esc[0] = '\\';
            esc[1] = (char)c;
            n = 2;
        } else if (c < 0x20 || c > 0x7e) {
            n = (size_t)snprintf(esc, sizeof(esc), "\\x%02x", c);
        }
        if (o + n + 1 > dstsz)
            break;
        memcpy(dst + o, esc, n);
        o += n;
    }
    dst[o] = '\0';
}

/* Prefixes the message already in err with the quoted input and returns st. */
static gp_status qty_fail(gp_err *err, const char *s, size_t len, gp_status st)
{
    char q[QTY_QUOTE_MAX];

    q[0] = '"';
    qty_quote(q + 1, sizeof(q) - 2, s, len);
    memcpy(q + strlen(q), "\"", 2);
    gp_err_prefix(err, q);
    return st;
}

static gp_status qty_too_long(const char *s, gp_err *err)
{
    char q[QTY_QUOTE_MAX];

    qty_quote(q, sizeof(q), s, QTY_SHOW_LONG);
    gp_err_set(err, "quantity \"%s...\" is longer than %d bytes", q, GP_QTY_MAX_LEN);
    return GP_ETOOBIG;
}

/* Only printable ASCII other than space can appear in a quantity; naming the offending byte
 * explains inputs such as "1 Gi" or a stray NUL better than a generic syntax error. */
static gp_status qty_check_bytes(const char *s, size_t len, gp_err *err)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];

        if (c == ' ')
            gp_err_set(err, "contains a space at offset %zu (spaces are not allowed)", i);
        else if (c == '\0')
            gp_err_set(err, "contains a NUL byte at offset %zu", i);
        else if (c < 0x21 || c > 0x7e)
            gp_err_set(err, "contains byte 0x%02x at offset %zu (only printable ASCII is allowed)",
                       c, i);
        else
            continue;
        return qty_fail(err, s, len, GP_EINVAL);
    }
    return GP_OK;
}

static size_t qty_span_digits(const char *s, size_t len, size_t pos)
{
    while (pos < len && qty_is_digit(s[pos]))
        pos++;
    return pos;
}

/* Splits sign? (digits | digits "." digits? | "." digits) off the front; *pos is where the
 * suffix begins. */
static gp_status qty_split_number(const char *s, size_t len, size_t *pos, qty_parts *p,
                                  gp_err *err)
{
    size_t i = 0, end;
    char q[QTY_QUOTE_MAX];

    if (s[0] == '+' || s[0] == '-') {
        p->negative = s[0] == '-';
        i = 1;
    }
    end = qty_span_digits(s, len, i);
    p->int_digits = s + i;
    p->int_len = end - i;
    i = end;
    if (i < len && s[i] == '.') {
        end = qty_span_digits(s, len, i + 1);
        p->frac_digits = s + i + 1;
        p->frac_len = end - (i + 1);
        i = end;
    }
    if (p->int_len + p->frac_len == 0) {
        qty_quote(q, sizeof(q), s + i, len - i);
        if (i < len && qty_is_letter(s[i]))
            gp_err_set(err, "not a number (no digits before the suffix \"%s\")", q);
        else
            gp_err_set(err, "not a number");
        return qty_fail(err, s, len, GP_EINVAL);
    }
    *pos = i;
    return GP_OK;
}

/* The decimal power of a one-letter suffix, or 0 with *ok = 0 when it is not one. */
static int qty_decimal_exp(char c, int *ok)
{
    static const char letters[] = "numkMGTPE";
    static const int exps[] = { -9, -6, -3, 3, 6, 9, 12, 15, 18 };
    const char *at = c != '\0' ? strchr(letters, c) : NULL;

    *ok = at != NULL;
    return at != NULL ? exps[at - letters] : 0;
}

/* Looks the suffix up in the table of n, u, m, k, M, G, T, P, E, Ki, Mi, Gi, Ti, Pi, Ei and "".
 * Returns 0 when it is none of them. */
static int qty_lookup_suffix(const char *suf, size_t n, qty_parts *p)
{
    static const char binary[] = "KMGTPE";
    const char *at;
    int ok = 1;

    p->exp10 = 0;
    p->exp2 = 0;
    if (n == 1)
        p->exp10 = qty_decimal_exp(suf[0], &ok);
    else if (n == 2) {
        at = suf[0] != '\0' && suf[1] == 'i' ? strchr(binary, suf[0]) : NULL;
        ok = at != NULL;
        p->exp2 = ok ? 10 * (unsigned)(at - binary + 1) : 0;
    }
    return n <= 2 && ok;
}

/* "e" or "E" followed by nothing, a sign or a digit is meant as an exponent ("E" alone, exa, has
 * already matched the suffix table). Anything else, such as "Eix", is an unknown suffix. */
static int qty_looks_like_exponent(const char *suf, size_t n)
{
    if (suf[0] != 'e' && suf[0] != 'E')
        return 0;
    return n == 1 || suf[1] == '+' || suf[1] == '-' || qty_is_digit(suf[1]);
}

/* Parses ("e" | "E") sign? digits. The exponent must fit an int32, as in Kubernetes; the value is
 * saturated while scanning so the scan stays bounded and cannot overflow. */
static gp_status qty_parse_exponent(const char *s, size_t len, size_t pos, qty_parts *p,
                                    gp_err *err)
{
    const char *e = s + pos;
    size_t n = len - pos, i = 1;
    int negative = 0;
    int64_t v = 0;
    char q[QTY_QUOTE_MAX];

    qty_quote(q, sizeof(q), e, n);
    if (i < n && (e[i] == '+' || e[i] == '-'))
        negative = e[i++] == '-';
    if (i == n) {
        gp_err_set(err, "exponent \"%s\" has no digits", q);
        return qty_fail(err, s, len, GP_EINVAL);
    }
    for (; i < n; i++) {
        if (!qty_is_digit(e[i])) {
            gp_err_set(err, "exponent \"%s\" is not an integer", q);
            return qty_fail(err, s, len, GP_EINVAL);
        }
        if (v <= INT32_MAX)
            v = v * 10 + (e[i] - '0');
    }
    if (v > (negative ? -(int64_t)INT32_MIN : (int64_t)INT32_MAX)) {
        gp_err_set(err, "exponent \"%s\" is out of range (it must fit in 32 bits)", q);
        return qty_fail(err, s, len, GP_ERANGE);
    }
    p->exp10 = negative ? -v : v;
    return GP_OK;
}

static gp_status qty_unknown_suffix(const char *s, size_t len, size_t pos, gp_err *err)
{
    const char *suf = s + pos;
    size_t n = len - pos;
    const char *hint = " (want n, u, m, k, M, G, T, P, E, Ki, Mi, Gi, Ti, Pi, Ei or an exponent "
                       "such as e3)";
    qty_parts unused = { 0 };
    char q[QTY_QUOTE_MAX];

    if (n >= 2 && (suf[n - 1] == 'B' || suf[n - 1] == 'b') &&
        qty_lookup_suffix(suf, n - 1, &unused))
        hint = " (quantities have no byte unit: drop the \"B\")";
    else if (suf[0] == 'K')
        hint = " (use \"k\" or \"Ki\")";
    qty_quote(q, sizeof(q), suf, n);
    gp_err_set(err, "unknown suffix \"%s\"%s", q, hint);
    return qty_fail(err, s, len, GP_EINVAL);
}

static gp_status qty_parse_suffix(const char *s, size_t len, size_t pos, qty_parts *p,
                                  gp_err *err)
{
    const char *suf = s + pos;
    size_t n = len - pos;

    if (qty_lookup_suffix(suf, n, p))
        return GP_OK;
    if (!qty_is_letter(suf[0])) {
        /* "1.2.3", "1..", "1-": the number itself is malformed. */
        gp_err_set(err, "not a number");
        return qty_fail(err, s, len, GP_EINVAL);
    }
    if (qty_looks_like_exponent(suf, n))
        return qty_parse_exponent(s, len, pos, p, err);
    return qty_unknown_suffix(s, len, pos, err);
}

/* b = b * mul + add; returns 0 when the result does not fit. */
static int big_mul_add(qty_big *b, uint32_t mul, uint32_t add)
{
    uint64_t carry = add;

    for (size_t i = 0; i < QTY_LIMBS; i++) {
        uint64_t t = (uint64_t)b->w[i] * mul + carry;

        b->w[i] = (uint32_t)t;
        carry = t >> 32;
    }
    return carry == 0;
}

/* b = b / 10; returns the remainder. */
static uint32_t big_div10(qty_big *b)
{
    uint64_t rem = 0;

    for (size_t i = QTY_LIMBS; i-- > 0;) {
        uint64_t cur = (rem << 32) | b->w[i];

        b->w[i] = (uint32_t)(cur / 10);
        rem = cur % 10;
    }
    return (uint32_t)rem;
}

static int big_to_u128(const qty_big *b, unsigned __int128 *out)
{
    unsigned __int128 v = 0;

    for (size_t i = 4; i < QTY_LIMBS; i++) {
        if (b->w[i] != 0)
            return 0;
    }
    for (size_t i = 4; i-- > 0;)
        v = (v << 32) | b->w[i];
    *out = v;
    return 1;
}

/* Loads the significant digits (leading zeros skipped) into b; returns how many there are. */
static size_t qty_load_digits(const qty_parts *p, qty_big *b)
{
    size_t total = p->int_len + p->frac_len, nd = 0;

    for (size_t k = 0; k < total; k++) {
        char c = k < p->int_len ? p->int_digits[k] : p->frac_digits[k - p->int_len];

        if (nd == 0 && c == '0')
            continue;
        nd++;
        (void)big_mul_add(b, 10, (uint32_t)(c - '0')); /* 64 digits fit in 320 bits */
    }
    return nd;
}

/* Multiplies b by 2^exp2 and 10^x, or divides by 10^-x; *sticky is set when a nonzero digit was
 * dropped. Returns 0 on overflow. */
static int qty_scale(qty_big *b, unsigned exp2, int64_t x, int *sticky)
{
    int ok = 1;

    for (unsigned k = 0; k < exp2; k += 10)
        ok &= big_mul_add(b, 1024, 0);
    for (; x > 0; x--)
        ok &= big_mul_add(b, 10, 0);
    for (; x < 0; x++)
        *sticky |= big_div10(b) != 0;
    return ok;
}

/* Evaluates p in nano-units, rounding towards +infinity. Returns GP_ERANGE when the rounded
 * magnitude is 2^63 units or more. */
static gp_status qty_eval(const qty_parts *p, __int128 *nano)
{
    qty_big b = { { 0 } };
    unsigned __int128 mag;
    int sticky = 0;
    size_t nd = qty_load_digits(p, &b);
    int64_t e = p->exp10 - (int64_t)p->frac_len; /* value = digits x 10^e x 2^exp2 units */
    int64_t x = e + 9;                           /* the same in nano-units */

    if (nd == 0) {
        *nano = 0;
        return GP_OK;
    }
    if ((int64_t)nd + e > QTY_MAX_DIGITS)
        return GP_ERANGE;
    if ((int64_t)nd + x + QTY_BIN_DIGITS <= 0) {
        /* Below 10^(nd + x + 19) <= 1 nano-unit: the ceiling is 1n, or 0 for a negative value. */
        *nano = p->negative ? 0 : 1;
        return GP_OK;
    }
    if (!qty_scale(&b, p->exp2, x, &sticky) || !big_to_u128(&b, &mag))
        return GP_ERANGE;
    if (!p->negative)
        mag += (unsigned)sticky; /* a negative value's ceiling is its truncation */
    if (mag >= QTY_LIMIT)
        return GP_ERANGE;
    *nano = p->negative ? -(__int128)mag : (__int128)mag;
    return GP_OK;
}

/* The common case, at most 15 digits and a suffix (or none): exact in 128 bits. Returns 0 when
 * the text is anything else or out of range, for the general path to parse or explain. */
static int qty_parse_plain(const char *s, size_t len, __int128 *nano)
{
    static const uint64_t pow10[] = { 1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL,
                                      1000000ULL, 10000000ULL, 100000000ULL, 1000000000ULL,
                                      10000000000ULL, 100000000000ULL, 1000000000000ULL,
                                      10000000000000ULL, 100000000000000ULL,
                                      1000000000000000ULL, 10000000000000000ULL,
                                      100000000000000000ULL, 1000000000000000000ULL };
    qty_parts p;
    unsigned __int128 mag = 0;
    size_t k = 0;
    int64_t x;

    for (; k < len && k < 15 && qty_is_digit(s[k]); k++)
        mag = mag * 10 + (unsigned)(s[k] - '0');
    if (k == 0 || (k < len && qty_is_digit(s[k])) || !qty_lookup_suffix(s + k, len - k, &p) ||
        (int64_t)k + p.exp10 > QTY_MAX_DIGITS)
        return 0;
    mag <<= p.exp2; /* below 10^15 x 2^60 < 2^110 */
    if (mag >> 63 != 0)
        return 0;
    x = p.exp10 + 9; /* 0 to 27; the value stays below 10^28 */
    if (x > 18) {
        mag *= pow10[18];
        x -= 18;
    }
    mag *= pow10[x];
    if (mag >= QTY_LIMIT)
        return 0;
    *nano = (__int128)mag;
    return 1;
}

gp_status gp_qty_parse(const char *s, size_t len, gp_qty *out, gp_err *err)
{
    qty_parts p = { 0 };
    size_t pos = 0;
    gp_status st;
    __int128 nano;

    if ((s == NULL && len > 0) || out == NULL) {
        gp_err_set(err, "quantity: NULL argument");
        return GP_EINVAL;
    }
    if (len == 0) {
        gp_err_set(err, "empty quantity (want a number such as \"1\", \"500m\" or \"2Gi\")");
        return GP_EINVAL;
    }
    if (len > GP_QTY_MAX_LEN)
        return qty_too_long(s, err);
    if (qty_parse_plain(s, len, &nano)) {
        out->nano = nano;
        return GP_OK;
    }
    if ((st = qty_check_bytes(s, len, err)) != GP_OK ||
        (st = qty_split_number(s, len, &pos, &p, err)) != GP_OK ||
        (st = qty_parse_suffix(s, len, pos, &p, err)) != GP_OK)
        return st;
    if (qty_eval(&p, &nano) != GP_OK) {
        gp_err_set(err, "out of range (the magnitude must be below 2^63 units)");
        return qty_fail(err, s, len, GP_ERANGE);
    }
    out->nano = nano;
    return GP_OK;
}

gp_status gp_qty_parse_str(const char *s, gp_qty *out, gp_err *err)
{
    if (s == NULL) {
        gp_err_set(err, "quantity: NULL argument");
        return GP_EINVAL;
    }
    /* Reading one byte past the limit is enough to tell that the string is too long. */
    return gp_qty_parse(s, strnlen(s, GP_QTY_MAX_LEN + 1), out, err);
}

int gp_qty_cmp(gp_qty a, gp_qty b)
{
    return (a.nano > b.nano) - (a.nano < b.nano);
}

gp_qty gp_qty_from_units(int64_t n)
{
    gp_qty q = { (__int128)n * QTY_NANO };

    return q;
}

/* ceil(n / d) for d > 0, saturated to the int64 range. */
static int64_t qty_ceil_div(__int128 n, int64_t d)
{
    __int128 q = n / d;

    if (n % d > 0)
        q++;
    if (q > INT64_MAX)
        return INT64_MAX;
    if (q < INT64_MIN)
        return INT64_MIN;
    return (int64_t)q;
}

int64_t gp_qty_ceil_units(gp_qty q)
{
    return qty_ceil_div(q.nano, QTY_NANO);
}

int64_t gp_qty_ceil_milli(gp_qty q)
{
    return qty_ceil_div(q.nano, QTY_NANO / 1000);
}

int gp_qty_equals_units(gp_qty q, int64_t n)
{
    return q.nano == (__int128)n * QTY_NANO;
}

/* Writes v in decimal at dst (no NUL); returns the number of digits (at most 39). */
static size_t qty_put_u128(char *dst, unsigned __int128 v)
{
    char rev[40];
    size_t n = 0;

    do {
        rev[n++] = (char)('0' + (int)(v % 10));
        v /= 10;
    } while (v != 0);
    for (size_t i = 0; i < n; i++)
        dst[i] = rev[n - 1 - i];
    return n;
}

/* Writes "." and the nine digits of frac (0 < frac < 1e9) without trailing zeros. */
static size_t qty_put_frac(char *dst, uint32_t frac)
{
    size_t n = 9;

    dst[0] = '.';
    for (size_t i = 9; i > 0; i--) {
        dst[i] = (char)('0' + frac % 10);
        frac /= 10;
    }
    while (dst[n] == '0')
        n--;
    return n + 1;
}

gp_status gp_qty_format(gp_qty q, char *buf, size_t bufsz)
{
    char tmp[48]; /* "-", 30 integer digits, ".", 9 fraction digits, NUL */
    unsigned __int128 mag = q.nano < 0 ? -(unsigned __int128)q.nano : (unsigned __int128)q.nano;
    uint32_t frac = (uint32_t)(mag % QTY_NANO);
    size_t n = 0;

    if (q.nano < 0)
        tmp[n++] = '-';
    n += qty_put_u128(tmp + n, mag / QTY_NANO);
    if (frac != 0)
        n += qty_put_frac(tmp + n, frac);
    tmp[n] = '\0';
    if (buf == NULL || n + 1 > bufsz) {
        if (buf != NULL && bufsz > 0)
            buf[0] = '\0';
        return GP_ETOOBIG;
    }
    memcpy(buf, tmp, n + 1);
    return GP_OK;
}
