# SPDX-License-Identifier: Apache-2.0
. ../lib.sh
template deployment d registry.example.com/d:1 | jq ".spec.activeDeadlineSeconds = 600" | pod_from_template "" d lab | set_limits 0 "{\"nvidia.com/gpu\":\"1\"}" | review
