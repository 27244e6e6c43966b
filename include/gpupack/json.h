/* SPDX-License-Identifier: Apache-2.0 */
/* Checks on parsed and raw JSON that cJSON does not make, for bodies from the network.
 *
 * cJSON keeps every member of an object, also a repeated name (lookups return the first), and
 * decodes "\u0000" into a C string that ends there. The Go decoders of kube-apiserver and
 * kube-scheduler read the same bytes differently (the last duplicate wins; the string goes on),
 * so gpupack refuses such documents rather than decide on a different reading of them. */
#ifndef GPUPACK_JSON_H
#define GPUPACK_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "gpupack/status.h"

#define GP_JSON_SMALL_OBJECT 16 /* members compared pairwise; larger objects are sorted */

/* Looks for an object that names a member twice, anywhere under root (root's depth must already
 * be bounded). Returns GP_OK when there is none; GP_EINVAL with *dup set to the repeated name
 * (owned by the tree) when there is one; GP_ENOMEM when scratch memory ran out. */
gp_status gp_json_find_duplicate_key(const cJSON *root, const char **dup) GP_WUR;

/* The same for obj alone, not what is under it (GP_OK when obj is not an object). */
gp_status gp_json_object_duplicate(const cJSON *obj, const char **dup) GP_WUR;

/* A cheap summary of a member name of n bytes (n as strlen counts them; its length and three of
 * its bytes): two names of one object almost always differ here, so comparing summaries before
 * calling strcmp finds duplicates in a small object without comparing names. */
uint32_t gp_json_name_hash(const char *s, size_t n);

/* The first member of obj named key, as cJSON_GetObjectItemCaseSensitive() returns it, or NULL
 * (also when obj is NULL or not an object). Compares a name's first byte before calling strcmp. */
const cJSON *gp_json_member(const cJSON *obj, const char *key);

/* Finds the members of obj named keys[0..n) in one pass over obj: out[i] is the first member
 * named keys[i], as cJSON_GetObjectItemCaseSensitive() would return it, or NULL (all NULL when
 * obj is NULL or not an object). Cheaper than n lookups when n is more than two or three. */
void gp_json_members(const cJSON *obj, const char *const *keys, size_t n, const cJSON **out);

/* True when the JSON text holds the escape \u0000 (in a string or a member name). */
bool gp_json_has_nul_escape(const char *s, size_t n);

/* The checks on a request body and its tree, in one walk of the tree: nesting deeper than
 * max_depth levels, a duplicate member name, then \u0000 in the text. GP_OK, or GP_EINVAL
 * (GP_ENOMEM) with a message for the client in err ("body is nested deeper than 64 levels",
 * "duplicate key \"uid\" in an object", "body holds \u0000 ..."). */
gp_status gp_json_reject_ambiguous(const char *body, size_t len, const cJSON *root, int max_depth,
                                   gp_err *err) GP_WUR;

/* Its last check alone, for a tree gp_json_parse_unambiguous() made (which refused the rest):
 * GP_EINVAL with the message above when the text holds \u0000. */
gp_status gp_json_reject_nul_escape(const char *body, size_t len, gp_err *err) GP_WUR;

#endif
