# SPDX-License-Identifier: Apache-2.0
# 20Gi does not fit a 2g.20gb (19.5Gi of real framebuffer on an A100-80GB): the smallest slice
# the node offers with 20Gi is mig-3g.40gb (fewer slices than 4g.40gb).
.pod.spec.containers[0].resources.limits["nvidia.com/mig-3g.40gb"] == "1"
and .pod.spec.containers[0].resources.requests["nvidia.com/mig-3g.40gb"] == "1"
and (.pod.spec.containers[0].resources.limits | has("nvidia.com/gpu") | not)
and (.pod.spec.containers[0].resources.requests | has("nvidia.com/gpu") | not)
and .pod.spec.containers[0].resources.limits.cpu == "2"
and (.pod.metadata.annotations["gpupack.io/original-resources"] | fromjson)
    == {containers: {llm: {requests: {"nvidia.com/gpu": "1"}, limits: {"nvidia.com/gpu": "1"}}}}
and (.response.warnings | any(test("nvidia.com/mig-3g.40gb")))
