# SPDX-License-Identifier: Apache-2.0
# The nodes are known and none offers a MIG slice: the warning says exactly that (not that no
# profile has 5Gi), and the whole GPU stays.
.pod.spec.containers[0].resources.limits == {"nvidia.com/gpu": "1"}
and (.response.warnings | any(. == "gpupack: no node offers MIG slices; keeps nvidia.com/gpu"))
