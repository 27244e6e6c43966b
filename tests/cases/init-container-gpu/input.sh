# SPDX-License-Identifier: Apache-2.0
. ../lib.sh
template deployment i registry.example.com/i:1 | jq ".spec.initContainers = [{\"name\": \"warmup\", \"image\": \"registry.example.com/warm:1\", \"resources\": {\"limits\": {\"nvidia.com/gpu\": \"1\"}}}] | .metadata.annotations = {\"gpupack.io/gpu-memory\": \"8Gi\"}" | pod_from_template ReplicaSet i-1 serving | review
