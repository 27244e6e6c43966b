# SPDX-License-Identifier: Apache-2.0
. ../lib.sh
template deployment c registry.example.com/c:1 | jq ".metadata.annotations = {\"gpupack.io/checkpointing\": \"true\"}" | pod_from_template ReplicaSet c-1 serving | set_limits 0 "{\"nvidia.com/gpu\":\"1\"}" | review
