# SPDX-License-Identifier: Apache-2.0
. ../lib.sh
# A pod created bound to the H100 node (spec.nodeName): only that node's slices count.
template deployment h registry.example.com/h:1 | jq '.metadata.annotations = {"gpupack.io/gpu-memory": "5Gi"} | .spec.nodeName = "h100-1"' | pod_from_template "" h-pinned serving | set_limits 0 '{"nvidia.com/gpu":"1"}' | review
