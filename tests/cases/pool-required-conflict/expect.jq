# SPDX-License-Identifier: Apache-2.0
# The pod's own nodeSelector asks for pool=inference; the class's required pool=training would
# leave it Pending for ever. The pool is skipped and a warning says why.
(.pod.spec | has("affinity") | not)
and .pod.spec.nodeSelector == {"pool": "inference"}
and (.response.warnings | any(. == "gpupack: class training pool pool=training not required: the pod's nodeSelector sets pool=inference"))
