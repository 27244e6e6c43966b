# SPDX-License-Identifier: Apache-2.0
. ../lib.sh
# Bug (review): required node affinity whose second term is empty. Kubernetes' empty term matches
# no node, so the pod may land only where the first term allows. The required pool is ANDed into
# every term, and the empty term becomes "pool = inference": the pod may now land on any node of
# the pool, outside the first term (and the MIG choice, which judged the empty term as matching
# nothing, no longer describes where the pod can go).
template deployment web registry.example.com/web:1.2 | jq '.spec.affinity = {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [
    {matchExpressions: [{key: "topology.kubernetes.io/zone", operator: "In", values: ["us-east-1a"]}]}, {}]}}}' \
  | pod_from_template ReplicaSet web-7d9f8b6c5d serving | set_limits 0 '{"nvidia.com/gpu":"1"}' | review
