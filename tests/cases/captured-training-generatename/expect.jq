# SPDX-License-Identifier: Apache-2.0
# Labelled training, checkpointing: spot tolerations and spot preferences; the user's GPU
# toleration is kept and not duplicated; the class label is already right; checkpointing, so
# the lower gpu-training-preemptible PriorityClass (preemption takes it before non-checkpointing
# training). Only the cost label is added (a bare pod: its workload is the pod).
([.patch[] | select(.path | startswith("/metadata/labels"))] | map(.path))
  == ["/metadata/labels/gpupack.io~1workload"]
and .pod.metadata.labels["gpupack.io/workload"] == "pod.trainer"
and ([.pod.spec.tolerations[] | select(.key == "nvidia.com/gpu")] | length) == 1
and ([.pod.spec.tolerations[] | select(.key == "cloud.google.com/gke-spot")] | length) == 1
and ([.pod.spec.tolerations[] | select(.key == "karpenter.sh/capacity-type" and .value == "spot")] | length) == 1
and ([.pod.spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[]
      | .preference.matchExpressions[0] | select(.key == "karpenter.sh/capacity-type" and .values == ["spot"])] | length) == 1
and (.pod.spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution | length) == 4
and (.pod.spec.affinity.nodeAffinity | has("requiredDuringSchedulingIgnoredDuringExecution") | not)
and .pod.spec.priorityClassName == "gpu-training-preemptible"
and (.pod.spec | has("priority") | not) and (.pod.spec | has("preemptionPolicy") | not)
and .pod.spec.containers[0].resources.limits["nvidia.com/gpu"] == "4"
