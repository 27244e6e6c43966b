# SPDX-License-Identifier: Apache-2.0
# A notebook (interactive) does not get the training class's toleration: it cannot land on the
# tainted training nodes.
.pod.metadata.labels["gpupack.io/class"] == "interactive"
and ([.pod.spec.tolerations[] | select(.key == "pool")] | length) == 0
and (.pod.spec | has("affinity") | not)
