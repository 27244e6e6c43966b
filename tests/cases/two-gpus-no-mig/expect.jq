# SPDX-License-Identifier: Apache-2.0
# Only a single whole GPU is rewritten; a warning says why this one is not.
.pod.spec.containers[0].resources.limits == {"nvidia.com/gpu": "2"}
and .pod.metadata.labels["gpupack.io/class"] == "inference"
and (.pod.metadata.annotations | has("gpupack.io/original-resources") | not)
and (.response.warnings | any(. == "gpupack: no MIG rewrite: container two asks for a number of nvidia.com/gpu other than one, and a MIG slice stands for exactly one; keeps nvidia.com/gpu"))
