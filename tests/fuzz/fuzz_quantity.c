/* SPDX-License-Identifier: Apache-2.0 */
/* The quantity parser (Kubernetes resource.Quantity syntax). Properties: what parses formats,
 * the formatted text parses back to the same value, and formatting is stable. */
#include "fuzz_common.h"

#include "gpupack/quantity.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gp_qty q, back;
    gp_err err = { { 0 } };
    char text[128], again[128];

    if (gp_qty_parse((const char *)data, size, &q, &err) != GP_OK) {
        FUZZ_ASSERT(err.msg[0] != '\0', "a parse failure without a message");
        return 0;
    }
    if (gp_qty_format(q, text, sizeof(text)) != GP_OK)
        return 0; /* a value too large for the text form is reported, not truncated */
    FUZZ_ASSERT(gp_qty_parse_str(text, &back, &err) == GP_OK, "\"%s\" does not parse back: %s",
                text, err.msg);
    FUZZ_ASSERT(gp_qty_cmp(q, back) == 0, "\"%s\" parses to another value", text);
    FUZZ_ASSERT(gp_qty_format(back, again, sizeof(again)) == GP_OK && strcmp(text, again) == 0,
                "formatting is not stable: \"%s\" then \"%s\"", text, again);
    return 0;
}
