# SPDX-License-Identifier: Apache-2.0
# No view of the nodes (no --snapshot-nodes, no live view) and a policy whose migProfiles are not
# authoritative: nothing says any node offers a slice, so the whole GPU stays, and a warning says
# why (a cluster without MIG nodes would leave a rewritten pod Pending for ever).
.pod.spec.containers[0].resources.limits == {"nvidia.com/gpu": "1"}
and (.pod.metadata.annotations | has("gpupack.io/original-resources") | not)
and (.response.warnings | any(test("no MIG rewrite: the webhook has no synced view of the nodes")))
