# SPDX-License-Identifier: Apache-2.0
# The tainted training pool belongs to the training class: a Job's pod gets the class's
# toleration for pool=training:NoSchedule together with the required pool label.
([.pod.spec.tolerations[] | select(.key == "pool" and .operator == "Equal" and .value == "training"
   and .effect == "NoSchedule")] | length) == 1
and .pod.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms
    == [{matchExpressions: [{key: "pool", operator: "In", values: ["training"]}]}]
and (.pod.metadata.annotations["gpupack.io/mutated"] | test("toleration pool=training:NoSchedule \\(class training\\)"))
