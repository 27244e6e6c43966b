# SPDX-License-Identifier: Apache-2.0
# The class's and the annotation's GPU models become required node affinity, ANDed into every
# term: globs stand for the models the node view knows (the MIG product is excluded by the class).
def product_rules: [.matchExpressions[] | select(.key == "nvidia.com/gpu.product")];
.pod.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms as $t
| ($t | length) == 2
and ($t[0].matchExpressions[0] == {"key": "zone", "operator": "In", "values": ["a"]})
and ($t[1].matchExpressions[0] == {"key": "zone", "operator": "In", "values": ["b"]})
and ($t | map(product_rules) | .[0] == .[1])
and ($t[0] | product_rules) == [
    {"key": "nvidia.com/gpu.product", "operator": "In",
     "values": ["NVIDIA-A100-SXM4-80GB", "NVIDIA-H100-80GB-HBM3", "NVIDIA-H100-80GB-HBM3-MIG-1g.10gb", "NVIDIA-H100-NVL"]},
    {"key": "nvidia.com/gpu.product", "operator": "In",
     "values": ["NVIDIA-H100-80GB-HBM3", "NVIDIA-H100-80GB-HBM3-MIG-1g.10gb", "NVIDIA-H100-NVL"]},
    {"key": "nvidia.com/gpu.product", "operator": "NotIn",
     "values": ["NVIDIA-H100-80GB-HBM3-MIG-1g.10gb", "NVIDIA-H100-NVL"]}]
and (.pod.metadata.annotations["gpupack.io/mutated"] | contains("required node affinity nvidia.com/gpu.product In (NVIDIA-A100-SXM4-80GB,"))
and (.pod.metadata.annotations["gpupack.io/mutated"] | contains("(class training and annotation gpupack.io/gpu-models)"))
