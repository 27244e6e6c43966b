# SPDX-License-Identifier: Apache-2.0
# Only "true" skips.
.pod.metadata.labels["gpupack.io/class"] == "inference"
