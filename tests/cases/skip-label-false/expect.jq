# Only "true" skips.
.pod.metadata.labels["gpupack.io/class"] == "inference"
