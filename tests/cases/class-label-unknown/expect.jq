# SPDX-License-Identifier: Apache-2.0
# A class the policy does not know: only the GPU toleration, the label is left as the user set it.
.pod.metadata.labels["gpupack.io/class"] == "batch-xl"
and (.pod.spec | has("priorityClassName") | not)
and .pod.spec.priority == 0
and ([.pod.spec.tolerations[] | select(.key == "nvidia.com/gpu")] | length) == 1
and (.response.warnings | any(test("batch-xl")))
