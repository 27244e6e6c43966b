# SPDX-License-Identifier: Apache-2.0
. ../lib.sh
# A pod pinned to the L4 product by nodeSelector; only A100 and H100 nodes are sliced.
template deployment l4 registry.example.com/l4:1 | jq '.metadata.annotations = {"gpupack.io/gpu-memory": "20Gi"} | .spec.nodeSelector = {"nvidia.com/gpu.product": "NVIDIA-L4"}' | pod_from_template ReplicaSet l4-1 serving | set_limits 0 '{"nvidia.com/gpu":"1"}' | review
