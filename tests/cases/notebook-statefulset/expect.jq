# A Kubeflow notebook (StatefulSet-owned, notebook-name label) is interactive, not inference.
.pod.metadata.labels["gpupack.io/class"] == "interactive"
and .pod.spec.priorityClassName == "gpu-interactive"
and .pod.spec.activeDeadlineSeconds == 43200
