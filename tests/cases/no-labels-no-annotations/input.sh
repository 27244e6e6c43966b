# SPDX-License-Identifier: Apache-2.0
. ../lib.sh
template deployment n registry.example.com/n:1 | jq "del(.metadata.labels) | .spec.tolerations = null" | pod_from_template ReplicaSet n-1 serving | jq "del(.spec.tolerations) | del(.metadata.creationTimestamp) | del(.spec.priority) | del(.spec.preemptionPolicy)" | set_limits 0 "{\"nvidia.com/gpu\":\"1\"}" | review
