/* SPDX-License-Identifier: Apache-2.0 */
/* Structured logs: one JSON object per line on a stream (stderr by default).
 *
 * Every line has "ts" (RFC 3339, UTC, milliseconds), "level" and "msg", then the fields given.
 * String values (and keys) are JSON-escaped: quotes, backslashes, control characters and DEL
 * become escapes, and bytes that are not valid UTF-8 become U+FFFD, so every line is valid JSON
 * and valid UTF-8 whatever it is given. Values are cut at GP_LOG_MAX_VALUE input bytes on a
 * character boundary (marked with "..."); a whole line never exceeds GP_LOG_MAX_LINE bytes: a
 * field that would not fit is dropped, with those after it, and the line ends with
 * "truncated":true. Non-finite doubles are written as null. Each line is written with one
 * fwrite() under the log's mutex, so lines from different threads never interleave. */
#ifndef GPUPACK_LOG_H
#define GPUPACK_LOG_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "gpupack/status.h"

#define GP_LOG_MAX_VALUE 512
#define GP_LOG_MAX_LINE 4096

typedef enum { GP_LOG_DEBUG = 0, GP_LOG_INFO = 1, GP_LOG_WARN = 2, GP_LOG_ERROR = 3 } gp_log_level;

typedef struct {
    gp_log_level level; /* lines below this level are dropped */
    FILE *out;
    pthread_mutex_t mu;
} gp_log;

/* out NULL means stderr. The stream stays the caller's; gp_log_destroy() does not close it. */
void gp_log_init(gp_log *log, gp_log_level level, FILE *out);
void gp_log_destroy(gp_log *log); /* NULL is harmless */

/* Parses "debug", "info", "warn" (or "warning"), "error" (lower case). GP_EINVAL otherwise. */
gp_status gp_log_level_parse(const char *s, gp_log_level *out) GP_WUR;

/* A log line's fields. Kinds: 's' string (s), 'i' integer (i), 'f' double (f), 'j' raw JSON (s,
 * written as is: the caller guarantees it is valid JSON; one longer than GP_LOG_MAX_VALUE is
 * replaced by a note). */
typedef struct {
    const char *key;
    char kind;
    const char *s;
    int64_t i;
    double f;
} gp_log_field;

#define GP_LS(k, v) ((gp_log_field){ .key = (k), .kind = 's', .s = (v) })
#define GP_LI(k, v) ((gp_log_field){ .key = (k), .kind = 'i', .i = (int64_t)(v) })
#define GP_LF(k, v) ((gp_log_field){ .key = (k), .kind = 'f', .f = (double)(v) })
#define GP_LJ(k, v) ((gp_log_field){ .key = (k), .kind = 'j', .s = (v) })

/* Writes one line if level >= log->level. log may be NULL (nothing is written). NULL string
 * values are written as null. */
void gp_log_write(gp_log *log, gp_log_level level, const char *msg, const gp_log_field *fields,
                  size_t nfields);

/* True when a line at level would be written (callers skip building costly fields otherwise). */
bool gp_log_enabled(const gp_log *log, gp_log_level level);

#define GP_LOG(log, level, msg, ...)                                                            \
    do {                                                                                        \
        gp_log_field gp__f[] = { GP_LS("_", NULL), __VA_ARGS__ };                               \
        gp_log_write((log), (level), (msg), gp__f + 1, sizeof(gp__f) / sizeof(gp__f[0]) - 1);   \
    } while (0)

#endif
