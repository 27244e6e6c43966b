# SPDX-License-Identifier: Apache-2.0
. ../lib.sh
template deployment d registry.example.com/d:1 | pod_from_template ReplicaSet d-1 serving | set_limits 0 "{\"nvidia.com/gpu\":\"1\"}" | review | jq ".request.subResource = \"ephemeralcontainers\""
