#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The spot rule is about GPU pods (docs/policy.md#spot: the filter refuses a spot node "to every
# other GPU pod"; docs/scoring.md#filter: CPU pods pass every node). A CPU pod must not be
# scored 0 on a spot node, least of all on a spot node without GPUs: that ranks an idle
# on-demand 8-GPU node (the very thing gpuNodePenalty keeps CPU pods off) above a spot CPU node.
. "$(dirname "$0")/lib.sh"
X="$BIN/gpupack-extender"
cat > "$E2E_TMP/policy.json" <<'JSON'
{"apiVersion": "gpupack.io/v1alpha1", "kind": "Policy",
 "spot": {"nodeLabels": [{"key": "karpenter.sh/capacity-type", "value": "spot"}]},
 "scoring": {"prices": {"instanceTypes": {"p4d.24xlarge": {"onDemand": "21.9576"},
                                          "m5.4xlarge": {"onDemand": "0.768"}}}}}
JSON
node() { # NAME INSTANCE-TYPE CAPACITY-TYPE GPUS
    jq -n --arg n "$1" --arg it "$2" --arg ct "$3" --arg g "$4" '{apiVersion: "v1", kind: "Node",
      metadata: {name: $n, uid: ("uid-" + $n), labels: {"kubernetes.io/hostname": $n,
        "node.kubernetes.io/instance-type": $it, "karpenter.sh/capacity-type": $ct}},
      spec: {}, status: {allocatable: ({cpu: "16", memory: "64Gi", pods: "110"}
        + (if $g == "0" then {} else {"nvidia.com/gpu": $g} end))}}'
}
{ node cpu-od m5.4xlarge on-demand 0; node cpu-spot m5.4xlarge spot 0
  node gpu-od p4d.24xlarge on-demand 8; } | jq -s '{apiVersion: "v1", kind: "List", items: .}' > "$E2E_TMP/nodes.json"
echo '{"apiVersion": "v1", "kind": "List", "items": []}' > "$E2E_TMP/pods.json"
# A Deployment's CPU pod as the scheduler sends it (nodeCacheCapable: node names only).
jq -n '{Pod: {apiVersion: "v1", kind: "Pod", metadata: {name: "web-7d9f-abcde", namespace: "default",
    uid: "3b7c1e2a-0d4f-4a5b-8c6d-7e8f9a0b1c2d", labels: {app: "web"},
    ownerReferences: [{apiVersion: "apps/v1", kind: "ReplicaSet", name: "web-7d9f", uid: "u", controller: true}]},
  spec: {schedulerName: "default-scheduler", containers: [{name: "web", image: "nginx:1.27",
    resources: {requests: {cpu: "1", memory: "1Gi"}}}]}},
  Nodes: null, NodeNames: ["cpu-od", "cpu-spot", "gpu-od"]}' > "$E2E_TMP/args.json"
"$X" --log-level error --policy "$E2E_TMP/policy.json" --once prioritize --snapshot-nodes "$E2E_TMP/nodes.json" \
    --snapshot-pods "$E2E_TMP/pods.json" < "$E2E_TMP/args.json" > "$E2E_TMP/out.json" 2> "$E2E_TMP/err"
s() { jq --arg h "$1" '.[] | select(.Host == $h) | .Score' "$E2E_TMP/out.json"; }
[ "$(s cpu-spot)" -ge 1 ] 2>/dev/null && pass cpu-pod-spot.cpu-pod-spot-cpu-node-not-zero \
    || fail cpu-pod-spot.cpu-pod-spot-cpu-node-not-zero "$(cat "$E2E_TMP/out.json" "$E2E_TMP/err")"
[ "$(s cpu-spot)" -gt "$(s gpu-od)" ] 2>/dev/null && pass cpu-pod-spot.cpu-pod-spot-cpu-node-above-idle-gpu-node \
    || fail cpu-pod-spot.cpu-pod-spot-cpu-node-above-idle-gpu-node "$(cat "$E2E_TMP/out.json")"
