# SPDX-License-Identifier: Apache-2.0
# GPUs asked by an init container make a GPU pod, and its request is rewritten too.
.pod.spec.initContainers[0].resources.limits == {"nvidia.com/mig-1g.10gb": "1"}
and .pod.spec.initContainers[0].resources.requests == {"nvidia.com/mig-1g.10gb": "1"}
and (.pod.metadata.annotations["gpupack.io/original-resources"] | fromjson | .initContainers.warmup.limits) == {"nvidia.com/gpu": "1"}
and .pod.spec.containers[0].resources == .original.spec.containers[0].resources
