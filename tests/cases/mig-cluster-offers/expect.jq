# SPDX-License-Identifier: Apache-2.0
# The cluster offers only 1g.10gb, 3g.40gb and 1g.20gb (not in the policy list, parsed from its
# name): 12Gi -> 1g.20gb (one slice beats three).
.pod.spec.containers[0].resources.limits == {"nvidia.com/mig-1g.20gb": "1"}
