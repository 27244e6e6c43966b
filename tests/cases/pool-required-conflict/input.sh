# SPDX-License-Identifier: Apache-2.0
. ../lib.sh
template job eval registry.example.com/eval:1 | jq ".spec.nodeSelector = {\"pool\": \"inference\"}" | pod_from_template Job eval ml | set_limits 0 "{\"nvidia.com/gpu\":\"1\"}" | review
