# SPDX-License-Identifier: Apache-2.0
# A policy-defined class chosen by a namespace glob rule placed before the defaults. The pod is
# ReplicaSet-owned: its class's runtime cap is not set (the ReplicaSet would recreate the pod at
# the deadline), and a warning says so.
.pod.metadata.labels["gpupack.io/class"] == "research"
and .pod.spec.priorityClassName == "gpu-research"
and (.pod.spec | has("activeDeadlineSeconds") | not)
and (.response.warnings | any(test("no runtime cap: owner ReplicaSet")))
