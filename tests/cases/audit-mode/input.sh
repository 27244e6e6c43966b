# SPDX-License-Identifier: Apache-2.0
. ../lib.sh
template deployment a registry.example.com/a:1 | jq ".metadata.annotations = {\"gpupack.io/gpu-memory\": \"20Gi\"}" | pod_from_template ReplicaSet a-1 serving | set_limits 0 "{\"nvidia.com/gpu\":\"1\"}" | review
