# SPDX-License-Identifier: Apache-2.0
. ../lib.sh
# A worker of a RayCluster created by hand (no RayJob): no rule of the default policy lists
# RayCluster, and the default policy has no defaultClass.
template deployment ray-worker registry.example.com/ray:2.40 | jq '.metadata.labels += {"ray.io/cluster": "dev-cluster", "ray.io/node-type": "worker"}' | pod_from_template RayCluster dev-cluster ml | set_limits 0 '{"nvidia.com/gpu":"1"}' | review
