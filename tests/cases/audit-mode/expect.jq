# SPDX-License-Identifier: Apache-2.0
# Audit: no patch, but warnings and audit annotations say what would have changed.
.patch == null
and (.response.warnings | length) >= 4
and (.response.warnings | all(startswith("gpupack (audit mode) would set") or startswith("gpupack:")))
and (.response.warnings | any(test("mig-2g.20gb")))
and (.response.auditAnnotations["would-mutate"] | test("priorityClassName gpu-inference"))
and .response.auditAnnotations.class == "inference"
