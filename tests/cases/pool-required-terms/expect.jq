# SPDX-License-Identifier: Apache-2.0
# Required placement is ANDed into every existing term (terms are ORed).
(.pod.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms | length) == 2
and .pod.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions
    == [{"key": "zone", "operator": "In", "values": ["a"]}, {"key": "gpupack.io/pool", "operator": "In", "values": ["inference"]}]
and .pod.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[1].matchExpressions
    == [{"key": "gpupack.io/pool", "operator": "In", "values": ["inference"]}]
and .pod.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[1].matchFields
    == .original.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[1].matchFields
