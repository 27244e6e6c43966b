/* SPDX-License-Identifier: Apache-2.0 */
/* gp_json_parse() against cJSON's own parser on the same bytes. Properties: whatever
 * gp_json_parse accepts, cJSON accepts too, as the same tree (types, names, strings, numbers to
 * the bit, valueint, each container's links); a refusal says why (syntax or depth, never memory
 * here) at an offset inside the input. gp_json_parse may refuse what cJSON accepts (it is
 * stricter: leading zeros, raw control characters, "\u" without four hex digits...). And
 * gp_json_parse_unambiguous() refuses exactly the trees with a repeated member name. */
#include "fuzz_common.h"

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "gpupack/json.h"
#include "gpupack/jsonparse.h"
#include "../unit/jsontree.h"

#define MAX_DEPTH 64

/* gp_json_parse_unambiguous: the same as gp_json_parse (lax) but for objects that repeat a
 * name, which it refuses exactly when gp_json_find_duplicate_key finds one in lax's tree. */
static void check_unambiguous(const char *text, size_t size, const cJSON *lax)
{
    gp_json_error err = { GP_JSON_OK, 0, "" };
    cJSON *strict = gp_json_parse_unambiguous(text, size, MAX_DEPTH, &err);
    const char *dup = NULL;
    gp_status st = lax != NULL ? gp_json_find_duplicate_key(lax, &dup) : GP_OK;

    if (lax == NULL) /* (a repeat may be seen before the syntax error past it) */
        FUZZ_ASSERT(strict == NULL, "strict took what lax refused");
    else if (st == GP_OK)
        FUZZ_ASSERT(strict != NULL && jt_same_tree(strict, lax), "strict refused a tree lax took");
    else
        FUZZ_ASSERT(strict == NULL && err.kind == GP_JSON_DUPLICATE, "a repeated name let through");
    cJSON_Delete(strict);
}

/* cJSON counts depth its own way (and to 1000): its tree is only compared when ours exists,
 * which bounds the depth to MAX_DEPTH. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_body(data, size);
    gp_json_error err = { GP_JSON_OK, 0, "" };
    cJSON *got = gp_json_parse(text, size, MAX_DEPTH, &err), *want;

    if (got == NULL) {
        FUZZ_ASSERT(err.kind == GP_JSON_SYNTAX || err.kind == GP_JSON_DEPTH, "kind %d",
                    (int)err.kind);
        FUZZ_ASSERT(err.offset <= size, "offset %zu of %zu", err.offset, size);
    } else {
        FUZZ_ASSERT(err.kind == GP_JSON_OK, "a tree and kind %d", (int)err.kind);
        want = cJSON_ParseWithLengthOpts(text, size + 1, NULL, 1); /* as admission.c called it */
        FUZZ_ASSERT(want != NULL, "accepted what cJSON refuses");
        FUZZ_ASSERT(jt_same_tree(got, want), "a tree unlike cJSON's");
        cJSON_Delete(want);
    }
    check_unambiguous(text, size, got);
    cJSON_Delete(got);
    free(text);
    return 0;
}
