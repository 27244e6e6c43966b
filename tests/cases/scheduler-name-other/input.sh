# SPDX-License-Identifier: Apache-2.0
. ../lib.sh
template deployment llm registry.example.com/llm:1 | jq '.spec.schedulerName = "volcano"' | pod_from_template ReplicaSet llm-1 serving | set_limits 0 "{\"nvidia.com/gpu\":\"1\"}" | review
