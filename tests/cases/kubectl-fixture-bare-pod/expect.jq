# SPDX-License-Identifier: Apache-2.0
# A bare pod (no owner) asking for one whole GPU: interactive, with every default change.
.pod.metadata.labels["gpupack.io/class"] == "interactive"
and .pod.metadata.labels.app == "cuda-vectoradd"
and .pod.metadata.annotations["example.com/gpu-profile"] == "a100-40gb"
and ([.pod.spec.tolerations[] | select(.key == "nvidia.com/gpu" and .operator == "Exists" and .effect == "NoSchedule")] | length) == 1
and (.pod.spec.tolerations | length) == (.original.spec.tolerations | length) + 1
and .pod.spec.priorityClassName == "gpu-interactive"
and (.pod.spec | has("priority") | not) and (.pod.spec | has("preemptionPolicy") | not)
and .pod.spec.activeDeadlineSeconds == 43200
and .pod.spec.containers[0].resources == .original.spec.containers[0].resources
and (.pod.metadata.annotations["gpupack.io/mutated"] | test("class interactive"))
and (.response.warnings | length) >= 4
and (.response.warnings | all(length < 250))
and .response.auditAnnotations.class == "interactive"
