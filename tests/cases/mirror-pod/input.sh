# SPDX-License-Identifier: Apache-2.0
. ../lib.sh
# A static pod's mirror as the kubelet creates it: bound to its node, owned by the Node, with
# the kubelet's config annotations.
template deployment static-gpu registry.example.com/s:1 | jq '.metadata.annotations = {"kubernetes.io/config.mirror": "5b1f0c2d7e8a9b3c4d5e6f708192a3b4", "kubernetes.io/config.hash": "5b1f0c2d7e8a9b3c4d5e6f708192a3b4", "kubernetes.io/config.source": "file", "gpupack.io/gpu-memory": "5Gi"} | .spec.nodeName = "gpu-n1"' | pod_from_template "" static-gpu-gpu-n1 serving | jq '.metadata.ownerReferences = [{"apiVersion": "v1", "kind": "Node", "name": "gpu-n1", "uid": "7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d", "controller": true}]' | set_limits 0 '{"nvidia.com/gpu":"1"}' | review
