# SPDX-License-Identifier: Apache-2.0
. ../lib.sh
template deployment p registry.example.com/p:1 | jq ".spec.priorityClassName = \"business-critical\" | .spec.priority = 900000" | pod_from_template ReplicaSet p-1 serving | set_limits 0 "{\"nvidia.com/gpu\":\"1\"}" | review
