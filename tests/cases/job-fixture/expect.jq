# SPDX-License-Identifier: Apache-2.0
# A Job's pod (generateName, no name): training, no runtime cap, no MIG.
.pod.metadata.labels["gpupack.io/class"] == "training"
and .pod.spec.priorityClassName == "gpu-training"
and (.pod.spec | has("activeDeadlineSeconds") | not)
and (.pod.spec | has("priority") | not)
and .pod.metadata.generateName == .original.metadata.generateName
and (.pod.metadata | has("name") | not)
and .pod.metadata.finalizers == .original.metadata.finalizers
and .pod.metadata.ownerReferences == .original.metadata.ownerReferences
and ([.pod.spec.tolerations[] | select(.key == "nvidia.com/gpu")] | length) == 1
