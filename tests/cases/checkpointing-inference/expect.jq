# SPDX-License-Identifier: Apache-2.0
# Inference does not allow spot: nothing spot-related.
([.pod.spec.tolerations[] | select(.key == "cloud.google.com/gke-spot")] | length) == 0
and (.pod.spec | has("affinity") | not)
