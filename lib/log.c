/* SPDX-License-Identifier: Apache-2.0 */
/* Structured JSON-lines logging.
 *
 * A line is built in a fixed GP_LOG_MAX_LINE buffer on the stack, then written with one fwrite()
 * under the log's mutex, so lines from different threads never interleave. Every value is escaped
 * for JSON: quotes, backslashes and control characters (as \n, \t, ... or \u00XX), DEL as \u007f,
 * and bytes that are not valid UTF-8 are replaced by U+FFFD, so a line is always valid JSON and
 * valid UTF-8 whatever the caller passes. A field that would not fit in the line is dropped and
 * the line ends with "truncated":true. */
#include "gpupack/log.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>
#include <time.h>

#include "gpupack/strbuf.h"

/* Room kept free at the end of a line for the truncation marker and the closing "}\n". */
#define LOG_TRUNC_MARK ",\"truncated\":true"
#define LOG_RESERVE (sizeof(LOG_TRUNC_MARK) - 1 + 2)

typedef struct {
    char buf[GP_LOG_MAX_LINE];
    size_t len;
    bool truncated;
} line_buf;

/* The scratch buffer for one escaped value: each input byte can become at most 6 bytes
 * ("\u00XX", or 3 for U+FFFD), plus quotes and the "..." marker. */
typedef struct {
    char buf[GP_LOG_MAX_VALUE * 6 + 8];
    size_t len;
} value_buf;

static const char *level_name(gp_log_level level)
{
    switch (level) {
    case GP_LOG_DEBUG: return "debug";
    case GP_LOG_INFO: return "info";
    case GP_LOG_WARN: return "warn";
    case GP_LOG_ERROR: return "error";
    }
    return "unknown";
}

void gp_log_init(gp_log *log, gp_log_level level, FILE *out)
{
    log->level = level;
    log->out = out != NULL ? out : stderr;
    pthread_mutex_init(&log->mu, NULL);
}

void gp_log_destroy(gp_log *log)
{
    if (log != NULL)
        pthread_mutex_destroy(&log->mu);
}

gp_status gp_log_level_parse(const char *s, gp_log_level *out)
{
    static const struct {
        const char *name;
        gp_log_level level;
    } names[] = {
        { "debug", GP_LOG_DEBUG }, { "info", GP_LOG_INFO },   { "warn", GP_LOG_WARN },
        { "warning", GP_LOG_WARN }, { "error", GP_LOG_ERROR },
    };

    if (s == NULL)
        return GP_EINVAL;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (strcmp(s, names[i].name) == 0) {
            *out = names[i].level;
            return GP_OK;
        }
    }
    return GP_EINVAL;
}

/* Length of the valid UTF-8 sequence at s (at most n bytes), or 0 when it is invalid: overlong
 * forms, surrogates and code points above U+10FFFF are invalid (RFC 3629). */
static size_t utf8_seq_len(const unsigned char *s, size_t n)
{
    size_t need;
    unsigned cp;

    if (s[0] < 0x80)
        return 1;
    if (s[0] >= 0xC2 && s[0] <= 0xDF) {
        need = 2;
        cp = s[0] & 0x1Fu;
    } else if (s[0] >= 0xE0 && s[0] <= 0xEF) {
        need = 3;
        cp = s[0] & 0x0Fu;
    } else if (s[0] >= 0xF0 && s[0] <= 0xF4) {
        need = 4;
        cp = s[0] & 0x07u;
    } else {
        return 0;
    }
    if (need > n)
        return 0;
    for (size_t i = 1; i < need; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3Fu);
    }
    if ((need == 3 && cp < 0x800) || (need == 4 && cp < 0x10000) || cp > 0x10FFFF ||
        (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return need;
}

static void value_put(value_buf *v, const char *s, size_t n)
{
    memcpy(v->buf + v->len, s, n);
    v->len += n;
}

/* Appends one input character (already known to be valid UTF-8 of length n) escaped. */
static void value_put_char(value_buf *v, const unsigned char *s, size_t n)
{
    char tmp[8];
    const char *e = n == 1 ? gp_json_escape(s[0], tmp) : NULL;

    if (e != NULL)
        value_put(v, e, strlen(e));
    else
        value_put(v, (const char *)s, n);
}

/* Renders s as a quoted JSON string into v, cut at GP_LOG_MAX_VALUE input bytes on a character
 * boundary and then marked with "...". NULL becomes null. */
static void value_string(value_buf *v, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t n, used = 0;

    v->len = 0;
    if (s == NULL) {
        value_put(v, "null", 4);
        return;
    }
    n = strlen(s);
    value_put(v, "\"", 1);
    while (used < n) {
        size_t len = utf8_seq_len(p + used, n - used);

        if (used + (len ? len : 1) > GP_LOG_MAX_VALUE) {
            value_put(v, "...", 3);
            break;
        }
        if (len == 0) {
            value_put(v, "\xEF\xBF\xBD", 3); /* U+FFFD REPLACEMENT CHARACTER */
            used++;
            continue;
        }
        value_put_char(v, p + used, len);
        used += len;
    }
    value_put(v, "\"", 1);
}

/* Appends n bytes if they fit before the reserved tail; otherwise marks the line truncated. */
static bool line_put(line_buf *l, const char *s, size_t n)
{
    if (l->truncated || n > sizeof(l->buf) - LOG_RESERVE - l->len) {
        l->truncated = true;
        return false;
    }
    memcpy(l->buf + l->len, s, n);
    l->len += n;
    return true;
}

static void format_number(const gp_log_field *f, char *buf, size_t bufsz)
{
    if (f->kind == 'i')
        snprintf(buf, bufsz, "%lld", (long long)f->i);
    else if (isfinite(f->f))
        snprintf(buf, bufsz, "%.15g", f->f);
    else
        snprintf(buf, bufsz, "null"); /* JSON has no NaN or infinity */
}

/* Renders a field's value (not its key) into v. */
static void field_value(const gp_log_field *f, value_buf *v)
{
    char num[64];

    v->len = 0;
    switch (f->kind) {
    case 'i':
    case 'f':
        format_number(f, num, sizeof(num));
        value_put(v, num, strlen(num));
        return;
    case 'j':
        if (f->s == NULL || strlen(f->s) > GP_LOG_MAX_VALUE) {
            value_string(v, f->s == NULL ? NULL : "(raw JSON value too long)");
            return;
        }
        value_put(v, f->s, strlen(f->s));
        return;
    default:
        value_string(v, f->s);
        return;
    }
}

/* Appends ,"key":value as a unit: either all of it fits or none of it is written. */
static void line_field(line_buf *l, const char *key, const value_buf *val)
{
    value_buf k;
    size_t mark = l->len;

    value_string(&k, key);
    if (!line_put(l, ",", 1) || !line_put(l, k.buf, k.len) || !line_put(l, ":", 1) ||
        !line_put(l, val->buf, val->len))
        l->len = mark;
}

static void line_start(line_buf *l, gp_log_level level, const char *msg)
{
    char ts[48];
    struct timespec now;
    struct tm tm;
    value_buf v;
    size_t n;

    clock_gettime(CLOCK_REALTIME, &now);
    gmtime_r(&now.tv_sec, &tm);
    n = strftime(ts, sizeof(ts), "{\"ts\":\"%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(ts + n, sizeof(ts) - n, ".%03ldZ\"", now.tv_nsec / 1000000L);
    l->len = 0;
    l->truncated = false;
    line_put(l, ts, strlen(ts));
    v.len = 0;
    value_put(&v, "\"", 1);
    value_put(&v, level_name(level), strlen(level_name(level)));
    value_put(&v, "\"", 1);
    line_field(l, "level", &v);
    value_string(&v, msg);
    line_field(l, "msg", &v);
}

static void line_finish(line_buf *l)
{
    if (l->truncated) {
        memcpy(l->buf + l->len, LOG_TRUNC_MARK, sizeof(LOG_TRUNC_MARK) - 1);
        l->len += sizeof(LOG_TRUNC_MARK) - 1;
    }
    l->buf[l->len++] = '}';
    l->buf[l->len++] = '\n';
}

bool gp_log_enabled(const gp_log *log, gp_log_level level)
{
    return log != NULL && level >= log->level;
}

void gp_log_write(gp_log *log, gp_log_level level, const char *msg, const gp_log_field *fields,
                  size_t nfields)
{
    line_buf line;
    value_buf v;

    if (!gp_log_enabled(log, level))
        return;
    line_start(&line, level, msg);
    for (size_t i = 0; i < nfields; i++) {
        field_value(&fields[i], &v);
        line_field(&line, fields[i].key, &v);
    }
    line_finish(&line);
    pthread_mutex_lock(&log->mu);
    fwrite(line.buf, 1, line.len, log->out);
    fflush(log->out);
    pthread_mutex_unlock(&log->mu);
}
