# SPDX-License-Identifier: Apache-2.0
. ../lib.sh
template deployment big registry.example.com/big:1 | jq ".metadata.annotations = {\"gpupack.io/gpu-memory\": \"100Gi\"}" | pod_from_template ReplicaSet big-1 serving | set_limits 0 "{\"nvidia.com/gpu\":\"1\"}" | review
