# SPDX-License-Identifier: Apache-2.0
. ../lib.sh
template deployment llm registry.example.com/llm:1.2 | jq ".metadata.annotations = {\"gpupack.io/gpu-memory\": \"20Gi\"}" | pod_from_template ReplicaSet llm-7c9f serving | set_limits 0 "{\"nvidia.com/gpu\":\"1\",\"cpu\":\"2\"}" | review
