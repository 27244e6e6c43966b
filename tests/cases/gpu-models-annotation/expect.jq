# SPDX-License-Identifier: Apache-2.0
# With the default policy and no node view, an exact exclusion is stated as it is.
.pod.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms
    == [{"matchExpressions": [{"key": "nvidia.com/gpu.product", "operator": "NotIn", "values": ["Tesla-T4"]}]}]
and ([.patch[] | select(.path | startswith("/spec/affinity"))] | length) == 1
