# SPDX-License-Identifier: Apache-2.0
. ../lib.sh
template deployment z registry.example.com/z:1 | pod_from_template ReplicaSet z-1 serving | set_limits 0 "{\"nvidia.com/gpu\":\"0\"}" | review
