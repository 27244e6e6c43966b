# SPDX-License-Identifier: Apache-2.0
# The default policy lists RayJob in its batch-jobs rule: the RayCluster's pod is classed by the
# RayJob it originated from (training).
.pod.metadata.labels["gpupack.io/class"] == "training"
and .pod.spec.priorityClassName == "gpu-training"
and (.pod.metadata.annotations["gpupack.io/mutated"] | test("rule batch-jobs: owner RayCluster \\(from RayJob\\)"))
