# SPDX-License-Identifier: Apache-2.0
# A 1g.10gb has about 9.5Gi of real framebuffer on an A100-80GB: a pod that needs 10Gi gets the
# next slice, 2g.20gb, never one smaller than it asked for.
.pod.spec.containers[0].resources.limits == {"nvidia.com/mig-2g.20gb": "1"}
