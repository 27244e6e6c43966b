/* SPDX-License-Identifier: Apache-2.0 */
/* JSON text to a cJSON tree, in fewer instructions than cJSON's own parser.
 *
 * gp_json_parse() reads one JSON text (RFC 8259) of len bytes and builds the tree that
 * cJSON_ParseWithLengthOpts() builds for it: the same node types, member names and order, strings
 * with escapes decoded as cJSON decodes them (\u0000 included, which ends the C string), numbers
 * with valuedouble as strtod() reads them and valueint saturated to int as cJSON does, true with
 * valueint 1, and each container's first child's prev at its last child. Nodes and strings come
 * from cJSON_malloc() (the request's pool when one is bound, see jsonpool.h), so cJSON_Delete()
 * and gp_json_pool_drop() take the tree as they take one of cJSON's.
 *
 * It is stricter than cJSON, which also accepts text that is not JSON: it refuses leading zeros
 * ("01"), numbers without digits after '.' or 'e', "\u" without four hex digits (cJSON reads them
 * as U+0000), raw control characters in strings, whitespace other than space, tab, LF and CR, and
 * anything after the value. A UTF-8 byte order mark at the start is skipped, as cJSON skips it.
 * Strings are not checked to be UTF-8 (gp_utf8_valid() does that on the whole body).
 *
 * Containers nest at most max_depth deep: the root is at depth 0, a container inside it at 1, as
 * gp_json_reject_ambiguous() counts. The recursion is bounded by it.
 *
 * gp_json_parse_unambiguous() also refuses an object that names a member twice (cJSON keeps
 * both; Go's decoders take the last), the check gp_json_reject_ambiguous() makes after a parse,
 * made here while the names' lengths are known.
 *
 * On failure: NULL, nothing allocated left behind, and *err (when err is not NULL) says why and at
 * which byte. */
#ifndef GPUPACK_JSONPARSE_H
#define GPUPACK_JSONPARSE_H

#include <stddef.h>

#include <cjson/cJSON.h>

typedef enum {
    GP_JSON_OK = 0,
    GP_JSON_SYNTAX,    /* not JSON, at offset */
    GP_JSON_DEPTH,     /* a container deeper than max_depth starts at offset */
    GP_JSON_DUPLICATE, /* the object starting at offset names a member twice (name) */
    GP_JSON_NOMEM      /* cJSON_malloc() failed */
} gp_json_fail;

#define GP_JSON_NAME_KEPT 64 /* bytes of a duplicate name kept for the message */

typedef struct {
    gp_json_fail kind;
    size_t offset;                    /* the byte of text where it failed */
    char name[GP_JSON_NAME_KEPT + 1]; /* GP_JSON_DUPLICATE: the name (its start) */
} gp_json_error;

cJSON *gp_json_parse(const char *text, size_t len, int max_depth, gp_json_error *err);
cJSON *gp_json_parse_unambiguous(const char *text, size_t len, int max_depth, gp_json_error *err);

#endif
