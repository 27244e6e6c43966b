# A policy-defined class chosen by a namespace glob rule placed before the defaults.
.pod.metadata.labels["gpupack.io/class"] == "research"
and .pod.spec.priorityClassName == "gpu-research"
and .pod.spec.activeDeadlineSeconds == 86400
