# SPDX-License-Identifier: Apache-2.0
. ../lib.sh
# With a memory hint too: a pod already on a slice is neither rewritten nor warned about.
template deployment m registry.example.com/m:1 | jq '.metadata.annotations = {"gpupack.io/gpu-memory": "5Gi"}' | pod_from_template ReplicaSet m-1 serving | set_limits 0 "{\"nvidia.com/mig-1g.10gb\":\"1\"}" | review
