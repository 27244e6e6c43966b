# SPDX-License-Identifier: Apache-2.0
# A Job's pod is capped: at the deadline the Job counts a failure (bounded by its backoffLimit)
# rather than starting the work again for ever.
.pod.spec.activeDeadlineSeconds == 86400
