# SPDX-License-Identifier: Apache-2.0
# priority.overrideGlobalDefault: the global default counts as unset; the class's PriorityClass
# replaces it and the computed fields go (kube-apiserver recomputes them).
.pod.spec.priorityClassName == "gpu-training"
and (.pod.spec | has("priority") | not)
and (.pod.spec | has("preemptionPolicy") | not)
and (.response.warnings | any(test("replaces the global default cluster-default")))
