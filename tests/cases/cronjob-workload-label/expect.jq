# SPDX-License-Identifier: Apache-2.0
# Every run's pods carry the CronJob's name, as the advisor names the workload, not the run's Job.
.pod.metadata.labels["gpupack.io/workload"] == "cronjob.nightly-eval"
and .pod.metadata.labels["gpupack.io/class"] == "training"
