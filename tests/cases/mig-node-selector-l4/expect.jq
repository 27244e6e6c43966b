# SPDX-License-Identifier: Apache-2.0
# No L4 node offers a MIG profile: the whole GPU stays, and a warning says why.
.pod.spec.containers[0].resources.limits == {"nvidia.com/gpu": "1"}
and (.pod.metadata.annotations | has("gpupack.io/original-resources") | not)
and (.response.warnings | any(. == "gpupack: no node this pod can use offers a MIG profile with 20Gi; keeps nvidia.com/gpu"))
