# 20Gi fits mig-2g.20gb (fewest slices among those with enough memory in the default list).
.pod.spec.containers[0].resources.limits["nvidia.com/mig-2g.20gb"] == "1"
and .pod.spec.containers[0].resources.requests["nvidia.com/mig-2g.20gb"] == "1"
and (.pod.spec.containers[0].resources.limits | has("nvidia.com/gpu") | not)
and (.pod.spec.containers[0].resources.requests | has("nvidia.com/gpu") | not)
and .pod.spec.containers[0].resources.limits.cpu == "2"
and (.pod.metadata.annotations["gpupack.io/original-resources"] | fromjson)
    == {containers: {llm: {requests: {"nvidia.com/gpu": "1"}, limits: {"nvidia.com/gpu": "1"}}}}
and (.response.warnings | any(test("nvidia.com/mig-2g.20gb")))
