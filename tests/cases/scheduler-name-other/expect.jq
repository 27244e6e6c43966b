# SPDX-License-Identifier: Apache-2.0
# A pod that names another scheduler keeps it.
.original.spec.schedulerName == "volcano" and .pod.spec.schedulerName == "volcano"
and .pod.spec.priorityClassName == "gpu-inference"
