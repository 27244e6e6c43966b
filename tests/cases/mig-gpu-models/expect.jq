# SPDX-License-Identifier: Apache-2.0
# The MIG choice looks only at nodes of the models the class allows, and the models are stated.
.pod.spec.containers[0].resources.limits == {"nvidia.com/mig-2g.20gb": "1"}
and .pod.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms
    == [{"matchExpressions": [{"key": "nvidia.com/gpu.product", "operator": "In", "values": ["NVIDIA-H100-80GB-HBM3"]}]}]
