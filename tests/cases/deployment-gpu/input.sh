# SPDX-License-Identifier: Apache-2.0
. ../lib.sh
template deployment vllm vllm/vllm-openai:v0.6.3 | pod_from_template ReplicaSet vllm-6d4b9c7f8d serving | set_limits 0 "{\"nvidia.com/gpu\":\"1\",\"cpu\":\"4\",\"memory\":\"16Gi\"}" | review
