# SPDX-License-Identifier: Apache-2.0
# The first term gets the pool; the empty term stays empty (ANDing into "nothing" is nothing).
.pod.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions
  == [{"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["us-east-1a"]},
      {"key": "gpupack.io/pool", "operator": "In", "values": ["inference"]}]
and .pod.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[1] == {}
