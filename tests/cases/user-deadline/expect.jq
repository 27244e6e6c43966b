# SPDX-License-Identifier: Apache-2.0
.pod.spec.activeDeadlineSeconds == 600
and .pod.metadata.labels["gpupack.io/class"] == "interactive"
