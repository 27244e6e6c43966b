# SPDX-License-Identifier: Apache-2.0
. ../lib.sh
template job t registry.example.com/t:1 | jq ".metadata.annotations = {\"gpupack.io/gpu-models\": \"NVIDIA-H100*, !NVIDIA-H100-NVL\"} | .spec.affinity = {\"nodeAffinity\": {\"requiredDuringSchedulingIgnoredDuringExecution\": {\"nodeSelectorTerms\": [{\"matchExpressions\": [{\"key\": \"zone\", \"operator\": \"In\", \"values\": [\"a\"]}]}, {\"matchExpressions\": [{\"key\": \"zone\", \"operator\": \"In\", \"values\": [\"b\"]}]}]}}}" | pod_from_template Job t training | set_limits 0 "{\"nvidia.com/gpu\":\"8\"}" | review
