# SPDX-License-Identifier: Apache-2.0
. ../lib.sh
template deployment t registry.example.com/t:1 | jq ".spec.tolerations = [{\"operator\": \"Exists\"}]" | pod_from_template ReplicaSet t-1 serving | set_limits 0 "{\"nvidia.com/gpu\":\"1\"}" | review
