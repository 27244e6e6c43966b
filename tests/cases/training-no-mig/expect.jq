# SPDX-License-Identifier: Apache-2.0
# Training keeps its whole GPU even with a memory hint.
.pod.metadata.labels["gpupack.io/class"] == "training"
and .pod.spec.containers[0].resources.limits == {"nvidia.com/gpu": "1"}
and .pod.spec.priorityClassName == "gpu-training"
and .pod.spec.restartPolicy == "Never"
