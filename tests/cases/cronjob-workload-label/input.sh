# SPDX-License-Identifier: Apache-2.0
. ../lib.sh
# A CronJob's pod: its owner is the Job the CronJob controller named "<cronjob>-<minutes>".
template cronjob nightly-eval registry.example.com/eval:1 | pod_from_template Job nightly-eval-29393700 research | set_limits 0 "{\"nvidia.com/gpu\":\"1\"}" | review
