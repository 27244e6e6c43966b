# SPDX-License-Identifier: Apache-2.0
. ../lib.sh
# An init container with one GPU beside an app container with two: the pod needs max(1, 2) = 2
# GPUs; a slice for the init container would add a device on top of them.
template deployment mixed registry.example.com/m:1 | jq '.metadata.annotations = {"gpupack.io/gpu-memory": "5Gi"} | .spec.initContainers = [{"name": "warm", "image": "registry.example.com/warm:1", "resources": {"limits": {"nvidia.com/gpu": "1"}}}]' | pod_from_template ReplicaSet mixed-1 serving | set_limits 0 '{"nvidia.com/gpu":"2"}' | review
