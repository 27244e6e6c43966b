# SPDX-License-Identifier: Apache-2.0
.pod.spec.affinity == {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchExpressions": [{"key": "gpupack.io/pool", "operator": "In", "values": ["inference"]}]}]}}}
