# SPDX-License-Identifier: Apache-2.0
. ../lib.sh
template job train registry.example.com/train:1 | jq ".metadata.annotations = {\"gpupack.io/gpu-memory\": \"5Gi\"}" | pod_from_template Job train ml | set_limits 0 "{\"nvidia.com/gpu\":\"1\"}" | review
