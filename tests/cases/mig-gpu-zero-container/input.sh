# SPDX-License-Identifier: Apache-2.0
. ../lib.sh
# Bug (review): a second container that states nvidia.com/gpu "0" (as charts do for components
# that must not see a GPU) asks for no GPU at all, yet it blocks the MIG rewrite of the container
# that asks for one whole GPU, with a warning that slices "would grow the pod".
template deployment web registry.example.com/web:1.2 | jq '.metadata.annotations = {"gpupack.io/gpu-memory": "8Gi"}
  | .spec.containers += [{name: "metrics", image: "registry.example.com/exporter:2", resources: {limits: {"nvidia.com/gpu": "0", cpu: "100m"}}}]' \
  | pod_from_template ReplicaSet web-7d9f8b6c5d serving | set_limits 0 '{"nvidia.com/gpu":"1"}' | review
