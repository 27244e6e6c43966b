# SPDX-License-Identifier: Apache-2.0
. ../lib.sh
template deployment s registry.example.com/s:1 | jq ".metadata.annotations = {\"gpupack.io/gpu-memory\": \"5Gi\"}" | pod_from_template ReplicaSet s-1 serving | set_limits 0 "{\"nvidia.com/gpu\":\"1\"}" | review
