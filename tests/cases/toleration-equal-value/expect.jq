# SPDX-License-Identifier: Apache-2.0
# An Equal toleration for one value does not cover the policy's Exists: the Exists one is added.
([.pod.spec.tolerations[] | select(.key == "nvidia.com/gpu")] | length) == 2
and ([.pod.spec.tolerations[] | select(.key == "nvidia.com/gpu" and .operator == "Exists")] | length) == 1
