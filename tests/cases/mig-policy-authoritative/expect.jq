# SPDX-License-Identifier: Apache-2.0
# migProfilesAuthoritative: the policy's list stands for the nodes, so without a node view the
# 5Gi pod still gets the smallest listed slice.
.pod.spec.containers[0].resources.limits == {"nvidia.com/mig-1g.10gb": "1"}
and .pod.spec.containers[0].resources.requests == {"nvidia.com/mig-1g.10gb": "1"}
