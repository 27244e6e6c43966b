# SPDX-License-Identifier: Apache-2.0
. ../lib.sh
# A worker of the RayCluster KubeRay created for RayJob train-1: owned by the RayCluster,
# labelled with the RayJob it came from.
template deployment train-1-worker registry.example.com/ray:2.40 | jq '.metadata.labels += {"ray.io/cluster": "train-1-raycluster-x7k2p", "ray.io/node-type": "worker", "ray.io/originated-from-crd": "RayJob", "ray.io/originated-from-cr-name": "train-1"}' | pod_from_template RayCluster train-1-raycluster-x7k2p ml | set_limits 0 '{"nvidia.com/gpu":"1"}' | review
