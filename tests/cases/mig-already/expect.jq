# SPDX-License-Identifier: Apache-2.0
# A pod asking for a MIG slice is a GPU pod; nothing to rewrite.
.pod.spec.containers[0].resources.limits == {"nvidia.com/mig-1g.10gb": "1"}
and .pod.metadata.labels["gpupack.io/class"] == "inference"
and ([.pod.spec.tolerations[] | select(.key == "nvidia.com/gpu")] | length) == 1
and ((.response.warnings // []) | all(test("no MIG rewrite") | not))
