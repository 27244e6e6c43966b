# SPDX-License-Identifier: Apache-2.0
. ../lib.sh
template deployment m registry.example.com/m:1 | jq ".metadata.annotations = {\"gpupack.io/gpu-memory\": \"12Gi\"}" | pod_from_template ReplicaSet m-1 serving | set_limits 0 "{\"nvidia.com/gpu\":\"1\"}" | review
