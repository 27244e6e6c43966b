# SPDX-License-Identifier: Apache-2.0
. ../lib.sh
# Bug (review): a pod of two containers, one whole GPU each, asking 30Gi per GPU. The only node
# offering a profile that large offers one mig-3g.40gb instance (a one-GPU node, all-balanced
# layout), so after the rewrite the pod needs two of a resource no node has two of: it stays
# Pending for ever, where with its two whole GPUs it fits the 8-GPU node.
template deployment web registry.example.com/web:1.2 | jq '.metadata.annotations = {"gpupack.io/gpu-memory": "30Gi"}
  | .spec.containers += [{name: "b", image: "registry.example.com/b:1", resources: {limits: {"nvidia.com/gpu": "1"}}}]' \
  | pod_from_template ReplicaSet web-7d9f8b6c5d serving | set_limits 0 '{"nvidia.com/gpu":"1"}' | review
