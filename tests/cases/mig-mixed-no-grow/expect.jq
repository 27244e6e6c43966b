# SPDX-License-Identifier: Apache-2.0
# Nothing is rewritten, and a warning says why.
.pod.spec.containers[0].resources.limits == {"nvidia.com/gpu": "2"}
and .pod.spec.initContainers[0].resources.limits == {"nvidia.com/gpu": "1"}
and (.pod.metadata.annotations | has("gpupack.io/original-resources") | not)
and (.response.warnings | any(test("no MIG rewrite: container m asks for GPUs other than one whole")))
