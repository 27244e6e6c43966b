# SPDX-License-Identifier: Apache-2.0
.pod.spec.containers[0].resources.limits == {"nvidia.com/mig-1g.10gb": "1"}
and .pod.spec.containers[0].resources.requests == {"nvidia.com/mig-1g.10gb": "1"}
