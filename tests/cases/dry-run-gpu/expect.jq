# SPDX-License-Identifier: Apache-2.0
# dryRun reviews are answered exactly as real ones.
.pod.metadata.labels["gpupack.io/class"] == "inference" and .pod.spec.priorityClassName == "gpu-inference"
