# SPDX-License-Identifier: Apache-2.0
# 5Gi fits the A100's 1g.10gb, but the pod is bound to h100-1, which offers only 3g.40gb.
.pod.spec.containers[0].resources.limits == {"nvidia.com/mig-3g.40gb": "1"}
and .pod.spec.containers[0].resources.requests["nvidia.com/mig-3g.40gb"] == "1"
