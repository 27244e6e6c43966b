# SPDX-License-Identifier: Apache-2.0
# No profile has 100Gi: the whole GPU stays, with a warning.
.pod.spec.containers[0].resources.limits == {"nvidia.com/gpu": "1"}
and (.pod.metadata.annotations | has("gpupack.io/original-resources") | not)
and (.response.warnings | any(test("no MIG profile")))
