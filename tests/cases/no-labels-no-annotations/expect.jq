# SPDX-License-Identifier: Apache-2.0
# Missing parents (labels, annotations, tolerations) are created whole (the cost label first,
# then the class label added into the map it made).
.pod.metadata.labels == {"gpupack.io/class": "inference", "gpupack.io/workload": "replicaset.n-1"}
and .pod.spec.tolerations == [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
and (.pod.metadata.annotations | keys) == ["gpupack.io/mutated"]
and ([.patch[] | select(.op == "remove")] | length) == 0
