# SPDX-License-Identifier: Apache-2.0
# A Kubeflow notebook (StatefulSet-owned, notebook-name label) is interactive, not inference.
# No runtime cap: the StatefulSet would recreate the pod at its deadline, every N hours; the
# warning names the better tool.
.pod.metadata.labels["gpupack.io/class"] == "interactive"
and .pod.spec.priorityClassName == "gpu-interactive"
and (.pod.spec | has("activeDeadlineSeconds") | not)
and (.response.warnings | any(test("no runtime cap: owner StatefulSet .*scale it to zero")))
