# SPDX-License-Identifier: Apache-2.0
.pod.metadata.labels["gpupack.io/class"] == "interactive"
and .pod.metadata.labels["hub.jupyter.org/username"] == "bob"
and .pod.spec.activeDeadlineSeconds == 43200
