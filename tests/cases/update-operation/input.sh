# SPDX-License-Identifier: Apache-2.0
. ../lib.sh
template deployment u registry.example.com/u:1 | pod_from_template ReplicaSet u-1 serving | set_limits 0 "{\"nvidia.com/gpu\":\"1\"}" | review UPDATE
