# SPDX-License-Identifier: Apache-2.0
# A Deployment's pod: inference; no runtime cap; no MIG without a memory hint.
.pod.metadata.labels["gpupack.io/class"] == "inference"
and .pod.metadata.labels.app == "vllm"
and .pod.spec.priorityClassName == "gpu-inference"
and (.pod.spec | has("activeDeadlineSeconds") | not)
and .pod.spec.containers[0].resources.limits["nvidia.com/gpu"] == "1"
and ([.pod.spec.tolerations[] | select(.key == "nvidia.com/gpu")] | length) == 1
and (.pod.spec.tolerations[0:2] == .original.spec.tolerations)
