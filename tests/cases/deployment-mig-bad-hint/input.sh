# SPDX-License-Identifier: Apache-2.0
. ../lib.sh
template deployment h registry.example.com/h:1 | jq ".metadata.annotations = {\"gpupack.io/gpu-memory\": \"20GB\"}" | pod_from_template ReplicaSet h-1 serving | set_limits 0 "{\"nvidia.com/gpu\":\"1\"}" | review
