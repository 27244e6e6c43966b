# SPDX-License-Identifier: Apache-2.0
. ../lib.sh
template deployment e registry.example.com/e:1 | pod_from_template ReplicaSet e-1 research-team-a | set_limits 0 "{\"nvidia.com/gpu\":\"1\"}" | review
