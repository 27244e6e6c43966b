# SPDX-License-Identifier: Apache-2.0
# The user's priority class is kept, and so is the priority it resolved to.
.pod.spec.priorityClassName == "business-critical"
and .pod.spec.priority == 900000
and .pod.spec.preemptionPolicy == "PreemptLowerPriority"
and ([.patch[] | select(.path | startswith("/spec/priority"))] | length) == 0
