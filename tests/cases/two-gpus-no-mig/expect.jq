# SPDX-License-Identifier: Apache-2.0
# Only a single whole GPU is rewritten.
.pod.spec.containers[0].resources.limits == {"nvidia.com/gpu": "2"}
and .pod.metadata.labels["gpupack.io/class"] == "inference"
