# SPDX-License-Identifier: Apache-2.0
# The container asking for "0" GPUs asks for nothing: the one-GPU container moves to a slice, the
# zero container is left as written, and no "would grow the pod" warning is given.
.pod.spec.containers[0].resources.limits == {"nvidia.com/mig-1g.10gb": "1"}
and .pod.spec.containers[0].resources.requests == {"nvidia.com/mig-1g.10gb": "1"}
and .pod.spec.containers[1].resources == .original.spec.containers[1].resources
and (.response.warnings | any(test("grow the pod")) | not)
