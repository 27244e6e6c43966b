# SPDX-License-Identifier: Apache-2.0
. ../lib.sh
template deployment r registry.example.com/r:1 | jq ".metadata.annotations = {\"gpupack.io/gpu-models\": \"!Tesla-T4\"}" | pod_from_template ReplicaSet r-1 serving | set_limits 0 "{\"nvidia.com/gpu\":\"1\"}" | review
