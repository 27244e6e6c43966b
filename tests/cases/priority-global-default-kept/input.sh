# SPDX-License-Identifier: Apache-2.0
. ../lib.sh
# The cluster has a globalDefault PriorityClass: the Priority admission plugin has already set
# priorityClassName, priority and preemptionPolicy from it before the webhook runs.
template job train registry.example.com/t:1 | jq '.spec.priorityClassName = "cluster-default" | .spec.priority = 100 | .spec.preemptionPolicy = "Never"' | pod_from_template Job train ml | set_limits 0 '{"nvidia.com/gpu":"1"}' | review
