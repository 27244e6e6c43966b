# SPDX-License-Identifier: Apache-2.0
# With "schedulerName" in the policy, a GPU pod bound for the default scheduler (kube-apiserver
# defaults spec.schedulerName to default-scheduler) goes to gpupack-scheduler instead.
.original.spec.schedulerName == "default-scheduler"
and .pod.spec.schedulerName == "gpupack-scheduler"
and (.pod.metadata.annotations["gpupack.io/mutated"] | test("schedulerName gpupack-scheduler \\(policy; was default-scheduler\\)"))
and (.response.warnings | any(. == "gpupack: schedulerName gpupack-scheduler (policy; was default-scheduler)"))
and .pod.spec.priorityClassName == "gpu-inference"
