# SPDX-License-Identifier: Apache-2.0
. ../lib.sh
template deployment m registry.example.com/m:1 | pod_from_template ReplicaSet m-1 serving | set_limits 0 "{\"nvidia.com/mig-1g.10gb\":\"1\"}" | review
