# SPDX-License-Identifier: Apache-2.0
# An empty-key Exists toleration already tolerates the GPU taint: nothing added.
(.pod.spec.tolerations == .original.spec.tolerations)
and ([.patch[] | select(.path | startswith("/spec/tolerations"))] | length) == 0
