# SPDX-License-Identifier: Apache-2.0
# Only the toleration; a warning and gpupack.io/mutated say that no rule matched, with the owner.
(.pod.metadata.labels | has("gpupack.io/class") | not)
and (.pod.spec | has("priorityClassName") | not)
and (.pod.spec.tolerations | any(.key == "nvidia.com/gpu"))
and (.response.warnings | any(. == "gpupack: no class: no rule matched (owner RayCluster) and the policy has no defaultClass"))
and (.pod.metadata.annotations["gpupack.io/mutated"] | endswith("; no class: no rule matched (owner RayCluster) and the policy has no defaultClass"))
