# SPDX-License-Identifier: Apache-2.0
# Preferred pool placement is appended to the user's preferences; other affinity untouched.
(.pod.spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution | length) == 2
and .pod.spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0] == .original.spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]
and .pod.spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[1]
    == {"weight": 80, "preference": {"matchExpressions": [{"key": "gpupack.io/pool", "operator": "In", "values": ["inference"]}]}}
and .pod.spec.affinity.podAntiAffinity == .original.spec.affinity.podAntiAffinity
and (.pod.spec.affinity.nodeAffinity | has("requiredDuringSchedulingIgnoredDuringExecution") | not)
