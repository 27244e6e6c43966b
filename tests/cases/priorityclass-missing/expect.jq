# SPDX-License-Identifier: Apache-2.0
# The cluster has no gpu-inference PriorityClass: setting it would make kube-apiserver reject the
# pod, so it is left unset (with a warning) and priority stays.
(.pod.spec | has("priorityClassName") | not)
and .pod.spec.priority == 0
and (.response.warnings | any(test("PriorityClass gpu-inference does not exist")))
and .pod.metadata.labels["gpupack.io/class"] == "inference"
