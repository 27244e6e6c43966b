# SPDX-License-Identifier: Apache-2.0
# "20GB" is not a Kubernetes quantity: no rewrite, and the user is told why.
.pod.spec.containers[0].resources.limits == {"nvidia.com/gpu": "1"}
and (.response.warnings | any(test("gpu-memory")))
