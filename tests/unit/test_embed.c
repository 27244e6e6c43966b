/* SPDX-License-Identifier: Apache-2.0 */
/* The binaries embed the default policy byte for byte from the file manifests/ ships. */
#include "gptest.h"

#include "gpupack/fileio.h"
#include "gpupack/policy.h"

GP_TEST(embedded_default_is_the_manifest_file)
{
    char *buf = NULL;
    size_t len = 0;
    gp_err err = { { 0 } };

    GP_CHECK_INT(gp_file_read("manifests/base/policy.json", GP_POLICY_MAX_BYTES, &buf, &len, &err),
                 GP_OK);
    GP_CHECK_INT(len, gp_default_policy_json_len);
    GP_CHECK(buf != NULL && len == gp_default_policy_json_len &&
             memcmp(buf, gp_default_policy_json, len) == 0);
    GP_CHECK_INT(gp_default_policy_json[gp_default_policy_json_len], 0);
    free(buf);
}

GP_MAIN(GP_CASE(embedded_default_is_the_manifest_file))
