# SPDX-License-Identifier: Apache-2.0
. ../lib.sh
template deployment c registry.example.com/c:1 | jq ".metadata.labels[\"gpupack.io/class\"] = \"batch-xl\"" | pod_from_template ReplicaSet c-1 serving | set_limits 0 "{\"nvidia.com/gpu\":\"1\"}" | review
