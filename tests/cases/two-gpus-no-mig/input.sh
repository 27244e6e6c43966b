# SPDX-License-Identifier: Apache-2.0
. ../lib.sh
template deployment two registry.example.com/two:1 | jq ".metadata.annotations = {\"gpupack.io/gpu-memory\": \"5Gi\"}" | pod_from_template ReplicaSet two-1 serving | set_limits 0 "{\"nvidia.com/gpu\":\"2\"}" | review
