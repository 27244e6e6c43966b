# SPDX-License-Identifier: Apache-2.0
. ../lib.sh
template deployment r registry.example.com/r:1 | jq ".spec.affinity = {\"nodeAffinity\": {\"requiredDuringSchedulingIgnoredDuringExecution\": {\"nodeSelectorTerms\": [{\"matchExpressions\": [{\"key\": \"zone\", \"operator\": \"In\", \"values\": [\"a\"]}]}, {\"matchFields\": [{\"key\": \"metadata.name\", \"operator\": \"In\", \"values\": [\"n1\"]}]}]}}}" | pod_from_template ReplicaSet r-1 serving | set_limits 0 "{\"nvidia.com/gpu\":\"1\"}" | review
