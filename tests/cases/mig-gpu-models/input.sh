# SPDX-License-Identifier: Apache-2.0
. ../lib.sh
# A 5Gi inference pod of a class kept to H100s: the A100 node's 1g.10gb would fit but is not
# where the pod may run.
template deployment m registry.example.com/m:1 | jq '.metadata.annotations = {"gpupack.io/gpu-memory": "5Gi"}' | pod_from_template ReplicaSet m-1 serving | set_limits 0 '{"nvidia.com/gpu":"1"}' | review
