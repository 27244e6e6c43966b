# SPDX-License-Identifier: Apache-2.0
# No node offers two mig-3g.40gb: the pod must not be moved to a slice it needs two of (it keeps
# its whole GPUs, or gets a profile some usable node offers at least two of; here none fits 30Gi).
([.pod.spec.containers[].resources.limits | to_entries[] | select(.key | startswith("nvidia.com/mig-"))] | length) == 0
and ([.pod.spec.containers[].resources.limits["nvidia.com/gpu"]] == ["1", "1"])
