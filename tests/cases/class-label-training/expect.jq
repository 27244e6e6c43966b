# SPDX-License-Identifier: Apache-2.0
# The label wins over the owner kind.
.pod.spec.priorityClassName == "gpu-training"
and ([.patch[] | select(.path == "/metadata/labels/gpupack.io~1class")] | length) == 0
