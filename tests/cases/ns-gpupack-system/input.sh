# SPDX-License-Identifier: Apache-2.0
. ../lib.sh
template deployment s registry.example.com/s:1 | pod_from_template ReplicaSet s-1 gpupack-system | set_limits 0 '{"nvidia.com/gpu":"1"}' | review
