#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The extender's hard spot filter (scoring.spotFilter "hard", the default) refuses spot nodes only
# to pods gpupack classes. Pods it promises to leave alone never get a class label and must keep
# every spot node: a pod in an excludedNamespaces namespace, a pod labelled gpupack.io/skip=true,
# and every pod while the policy is in audit mode (docs/install.md: "pods are created exactly as
# submitted"). Refused, they would stay Pending on a Karpenter or GKE-spot GPU fleet.
. "$(dirname "$0")/lib.sh"
X="$BIN/gpupack-extender"
policy() { # MODE
    jq -n --arg mode "$1" '{apiVersion: "gpupack.io/v1alpha1", kind: "Policy", mode: $mode,
      excludedNamespaces: ["kube-system", "gpu-operator"],
      classes: {training: {spotAllowed: true}, inference: {spotAllowed: false}},
      rules: [{name: "jobs", class: "training", match: {ownerKinds: ["Job"]}},
              {name: "services", class: "inference", match: {ownerKinds: ["ReplicaSet"]}}],
      spot: {nodeLabels: [{key: "karpenter.sh/capacity-type", value: "spot"}]}}'
}
policy enforce > "$E2E_TMP/enforce.json"
policy audit > "$E2E_TMP/audit.json"
node() { # NAME CAPACITY-TYPE
    jq -n --arg n "$1" --arg ct "$2" '{apiVersion: "v1", kind: "Node", metadata: {name: $n,
      uid: ("uid-" + $n), labels: {"kubernetes.io/hostname": $n, "karpenter.sh/capacity-type": $ct,
      "node.kubernetes.io/instance-type": "g5.12xlarge"}}, spec: {},
      status: {allocatable: {cpu: "48", memory: "192Gi", pods: "110", "nvidia.com/gpu": "4"}}}'
}
{ node gpu-spot-1 spot; node gpu-spot-2 spot; } | jq -s '{apiVersion: "v1", kind: "List", items: .}' > "$E2E_TMP/nodes.json"
echo '{"apiVersion": "v1", "kind": "List", "items": []}' > "$E2E_TMP/pods.json"
args() { # NAMESPACE LABELS-JSON ANNOTATIONS-JSON OWNER-KIND
    jq -n --arg ns "$1" --argjson l "$2" --argjson a "$3" --arg k "$4" '{Pod: {apiVersion: "v1", kind: "Pod",
      metadata: {name: "w-abcde", namespace: $ns, uid: "7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
        labels: $l, annotations: $a,
        ownerReferences: [{apiVersion: (if $k == "Job" then "batch/v1" else "apps/v1" end), kind: $k,
          name: "w", uid: "u", controller: true}]},
      spec: {schedulerName: "default-scheduler", containers: [{name: "c", image: "cuda:12",
        resources: {requests: {"nvidia.com/gpu": "1"}, limits: {"nvidia.com/gpu": "1"}}}]}},
      Nodes: null, NodeNames: ["gpu-spot-1", "gpu-spot-2"]}'
}
passes() { # NAME POLICY ARGS...: both spot nodes pass the filter
    n=$1 p=$2; shift 2
    args "$@" | "$X" --log-level error --policy "$p" --once filter --snapshot-nodes "$E2E_TMP/nodes.json" \
        --snapshot-pods "$E2E_TMP/pods.json" > "$E2E_TMP/out.json" 2>&1
    jq -e '.NodeNames == ["gpu-spot-1", "gpu-spot-2"]' "$E2E_TMP/out.json" >/dev/null \
        && pass "$n" || fail "$n" "$(head -c 400 "$E2E_TMP/out.json")"
}
passes spot-optout.spot-filter-excluded-namespace "$E2E_TMP/enforce.json" gpu-operator '{}' '{}' ReplicaSet
passes spot-optout.spot-filter-skip-label "$E2E_TMP/enforce.json" ml '{"gpupack.io/skip": "true"}' '{}' ReplicaSet
# Audit mode: a checkpointing Job pod the policy would allow on spot (rule jobs -> training),
# unlabelled because audit mode sends no patch.
passes spot-optout.spot-filter-audit-mode-checkpointing-job "$E2E_TMP/audit.json" ml '{}' '{"gpupack.io/checkpointing": "true"}' Job
