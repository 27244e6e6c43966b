/* SPDX-License-Identifier: Apache-2.0 */
/* The policy loader: any bytes -> a policy or a list of errors, never both, never neither.
 * Property: a document that loads loads again identically from the same bytes (same digest). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gp_policy *p = NULL, *again = NULL;
    char *errors = NULL;
    gp_status st = gp_policy_parse((const char *)data, size, &p, &errors);

    if (st == GP_OK) {
        FUZZ_ASSERT(p != NULL && errors == NULL, "GP_OK without a policy, or with errors");
        FUZZ_ASSERT(gp_policy_parse((const char *)data, size, &again, NULL) == GP_OK,
                    "a policy that loaded does not load again");
        FUZZ_ASSERT(strcmp(p->digest, again->digest) == 0, "digest differs between loads");
        gp_policy_unref(again);
    } else {
        FUZZ_ASSERT(p == NULL, "a failure returned a policy");
        FUZZ_ASSERT(st == GP_ENOMEM || st == GP_ETOOBIG || (errors != NULL && errors[0] != '\0'),
                    "GP_EINVAL without an error message");
    }
    gp_policy_unref(p);
    free(errors);
    return 0;
}
