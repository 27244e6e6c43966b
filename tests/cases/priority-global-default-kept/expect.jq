# SPDX-License-Identifier: Apache-2.0
# Without priority.overrideGlobalDefault (the default policy) the global default stays.
.pod.spec.priorityClassName == "cluster-default" and .pod.spec.priority == 100
and .pod.metadata.labels["gpupack.io/class"] == "training"
