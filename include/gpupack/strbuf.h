/* SPDX-License-Identifier: Apache-2.0 */
/* The one growable, bounded byte buffer: request and response bodies, plugin output, rendered
 * metrics, error lists, and encoders that write JSON directly instead of building a cJSON tree
 * first (the extender's answers list thousands of nodes; a tree of them costs more than the
 * decision). The text is always NUL-terminated once anything was appended.
 *
 * Appending never fails loudly: the first allocation failure (or growth past the limit) marks
 * the buffer failed, later appends do nothing, and gp_strbuf_take() reports it once. */
#ifndef GPUPACK_STRBUF_H
#define GPUPACK_STRBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpupack/status.h"

typedef struct {
    char *p;
    size_t len, cap;
    size_t limit; /* 0: none */
    bool failed;
} gp_strbuf;

/* An empty buffer that refuses to grow past limit bytes (0 for no limit). */
void gp_strbuf_init(gp_strbuf *b, size_t limit);
void gp_strbuf_free(gp_strbuf *b);

/* Empties b and forgets a failure, keeping its memory for the next text. */
void gp_strbuf_clear(gp_strbuf *b);

void gp_strbuf_put(gp_strbuf *b, const char *s, size_t n);
void gp_strbuf_puts(gp_strbuf *b, const char *s);
void gp_strbuf_int(gp_strbuf *b, int64_t v);

/* v in decimal, written at out (not NUL-terminated); returns its length, at most 20. */
#define GP_INT_TEXT_MAX 24
size_t gp_int_text(char out[GP_INT_TEXT_MAX], int64_t v);

/* The first n bytes of src, or as many as fit, into dst of cap > 0 bytes, NUL-terminated (as
 * snprintf's "%.*s" would, for a fraction of its cost); returns the length written. */
size_t gp_copy_text(char *dst, size_t cap, const char *src, size_t n);

/* Appends n bytes for the caller to write, and returns where they start (the text stays
 * NUL-terminated after them); NULL, and nothing appended, when the buffer failed. */
char *gp_strbuf_extend(gp_strbuf *b, size_t n);

/* Appends printf-style output (the whole of it, or nothing and the buffer failed). */
void gp_strbuf_printf(gp_strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The one JSON string escaper: the escape for byte c (\n, \", or \u001f written
 * into tmp), or NULL when c stands as is. Quotes, backslashes, control characters and DEL are
 * escaped; every other byte is left alone (valid UTF-8 is the caller's business). */
const char *gp_json_escape(unsigned char c, char tmp[8]);

/* True when none of the n bytes at s needs an escape: s stands as is between quotes. */
bool gp_json_plain(const char *s, size_t n);

/* s as a JSON string literal, quotes included, each byte escaped by gp_json_escape(). */
void gp_strbuf_json_string(gp_strbuf *b, const char *s);

/* Hands the NUL-terminated text to the caller (free() it) with its length, and empties b.
 * GP_ENOMEM when any append failed (nothing is handed over then). */
gp_status gp_strbuf_take(gp_strbuf *b, char **out, size_t *len) GP_WUR;

/* The code point at s (n bytes left, n > 0) into *cp, and its length in bytes: 1 with
 * *cp = U+FFFD for a byte that does not start a valid, shortest UTF-8 sequence. */
size_t gp_utf8_next(const char *s, size_t n, uint32_t *cp);

/* Drops, in place, every byte of s that gp_utf8_next() reads as not starting a valid sequence:
 * what a byte-counted cut ("%.40s" of user text) leaves of a character, so that text written
 * into a patch or an answer is UTF-8 again. Writes nothing when s is UTF-8 already (a string
 * literal may be passed then). Returns s (NULL stays NULL). */
char *gp_utf8_repair(char *s);

/* Appends code point cp as UTF-8. */
void gp_strbuf_put_cp(gp_strbuf *b, uint32_t cp);

#endif
