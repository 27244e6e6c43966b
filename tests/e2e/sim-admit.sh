#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# gpupack-sim on `kubectl get -o json` dumps honours what kube-scheduler's filters read besides
# resources (docs/simulation.md, "Inputs"): a cordoned node takes no new pod, a NoSchedule or
# NoExecute taint needs a toleration (PreferNoSchedule does not), and nodeSelector and required
# node affinity are matched against the node's labels. --placements says where each pod went.
. "$(dirname "$0")/lib.sh"
SIM="$BIN/gpupack-sim"
T=$E2E_TMP
# gpu-cordoned: cordoned, the most room; gpu-tainted: tainted nvidia.com/gpu NoSchedule;
# gpu-soft: tainted PreferNoSchedule only, and its GPUs held by a bound pod; cpu-pool: no GPU.
cat > "$T/nodes.json" <<'JSON'
{"kind": "NodeList", "items": [
 {"metadata": {"name": "gpu-cordoned", "labels": {"pool": "gpu", "zone": "a"}},
  "spec": {"unschedulable": true},
  "status": {"allocatable": {"cpu": "128", "memory": "1024Gi", "nvidia.com/gpu": "8"}}},
 {"metadata": {"name": "gpu-tainted", "labels": {"pool": "gpu", "zone": "b"}},
  "spec": {"taints": [{"key": "nvidia.com/gpu", "effect": "NoSchedule"}]},
  "status": {"allocatable": {"cpu": "32", "memory": "256Gi", "nvidia.com/gpu": "4"}}},
 {"metadata": {"name": "gpu-soft", "labels": {"pool": "gpu", "zone": "c"}},
  "spec": {"taints": [{"key": "maintenance", "value": "soon", "effect": "PreferNoSchedule"}]},
  "status": {"allocatable": {"cpu": "16", "memory": "64Gi", "nvidia.com/gpu": "1"}}},
 {"metadata": {"name": "cpu-pool", "labels": {"pool": "cpu"}},
  "status": {"allocatable": {"cpu": "8", "memory": "32Gi"}}}]}
JSON
# pod NAME GPUS SPEC-EXTRA: a pending pod asking 1 CPU, 1Gi and GPUS GPUs, spec fields merged.
pod() {
    jq -n --arg n "$1" --arg g "$2" --argjson x "$3" '{metadata: {name: $n, namespace: "ml"},
      spec: ({containers: [{name: "c", resources: {requests: ({cpu: "1", memory: "1Gi"} +
        (if $g == "0" then {} else {"nvidia.com/gpu": $g} end))}}]} + $x)}'
}
TOL='{"tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]}'
{
    pod holder 1 '{"nodeName": "gpu-soft"}'
    pod web 0 '{"nodeSelector": {"pool": "cpu"}}'
    pod train 1 "$TOL"
    pod plain 1 '{}'
    pod picky 1 '{"nodeSelector": {"zone": "a"}}'
    pod lost 0 '{"nodeSelector": {"pool": "none"}}'
    pod zoned 1 "$(jq -n --argjson t "$TOL" '$t + {affinity: {nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions:
        [{key: "zone", operator: "In", values: ["a", "b"]}]}]}}}}')"
    pod free 0 '{}'
} | jq -s '{kind: "PodList", items: .}' > "$T/pods.json"
for s in bestfit kube-default gpupack extender; do
    "$SIM" --nodes "$T/nodes.json" --pods "$T/pods.json" --inflate 0 --scorer "$s" \
        --log-level error --placements "$T/$s.jsonl" > /dev/null 2> "$T/$s.err"
    at() { jq -r --arg p "ml/$1" 'select(.pod == $p) | .node // "none"' "$T/$s.jsonl"; }
    check "sim-admit.$s.cpu-pod-by-node-selector" [ "$(at web)" = cpu-pool ]
    check "sim-admit.$s.tolerating-pod-on-tainted-node" [ "$(at train)" = gpu-tainted ]
    # plain fits only where it is admitted, gpu-soft, whose GPU the bound pod holds.
    check "sim-admit.$s.cordoned-and-tainted-refuse" [ "$(at plain)" = none ]
    # picky's zone has only the cordoned node: no node admits it, and --placements says so.
    check "sim-admit.$s.not-admitted-reason" jq -e -s 'any(.[]; .pod == "ml/picky" and
        .node == null and (.reason | startswith("no node admits it")))' "$T/$s.jsonl"
    check "sim-admit.$s.selector-matching-nothing" [ "$(at lost)" = none ]
    check "sim-admit.$s.affinity-and-toleration" [ "$(at zoned)" = gpu-tainted ]
    # A CPU-only pod with no selector: not the cordoned or tainted nodes.
    check "sim-admit.$s.plain-cpu-pod-not-cordoned-or-tainted" sh -c "case '$(at free)' in
        gpu-soft|cpu-pool) exit 0 ;; *) exit 1 ;; esac"
done
# PreferNoSchedule does not keep a pod off: alone, with gpu-soft's GPU free, plain goes there.
jq '.items |= map(select(.metadata.name == "plain"))' "$T/pods.json" > "$T/pods2.json"
"$SIM" --nodes "$T/nodes.json" --pods "$T/pods2.json" --inflate 0 --scorer bestfit \
    --log-level error --placements "$T/soft.jsonl" > /dev/null 2>&1
check sim-admit.prefer-no-schedule-admits jq -e -s \
    'any(.[]; .pod == "ml/plain" and .node == "gpu-soft")' "$T/soft.jsonl"
# A malformed taint is an input error naming the node's item (exit 2).
jq '.items[1].spec.taints = [{"effect": "NoSchedule"}]' "$T/nodes.json" > "$T/badnodes.json"
"$SIM" --nodes "$T/badnodes.json" --pods "$T/pods.json" --inflate 0 > /dev/null 2> "$T/bad.err"
rc=$?
check sim-admit.bad-taint-exit-2 sh -c "[ $rc -eq 2 ] &&
    grep -q 'badnodes.json: items\[1\]: spec.taints\[0\]' '$T/bad.err'"
# The position named is the taint's own, whatever the effects before it.
jq '.items[1].spec.taints = [{"key": "k", "effect": "PreferNoSchedule"}, {"effect": "NoSchedule"}]' \
    "$T/nodes.json" > "$T/badnodes2.json"
"$SIM" --nodes "$T/badnodes2.json" --pods "$T/pods.json" --inflate 0 > /dev/null 2> "$T/bad2.err"
rc=$?
check sim-admit.bad-taint-position sh -c "[ $rc -eq 2 ] &&
    grep -q 'badnodes2.json: items\[1\]: spec.taints\[1\]' '$T/bad2.err'"

# A bound pod keeps its node and is no admission class: pending pods with the same selector are
# judged as pods to place (not tied to the bound one's node), and one DaemonSet pod per node (each
# pinned by its own matchFields) does not use up the classes.
jq -n '{kind: "NodeList", items: [range(300) | {metadata: {name: "n\(.)", labels: {pool: "gpu"}},
    status: {allocatable: {cpu: "64", memory: "512Gi", "nvidia.com/gpu": "8"}}}]}' > "$T/many.json"
{
    pod first 8 '{"nodeName": "n0", "nodeSelector": {"pool": "gpu"}}'
    pod second 8 '{"nodeSelector": {"pool": "gpu"}}'
    for i in $(seq 0 299); do
        pod "ds-$i" 0 "{\"nodeName\": \"n$i\", \"affinity\": {\"nodeAffinity\": {
            \"requiredDuringSchedulingIgnoredDuringExecution\": {\"nodeSelectorTerms\": [{
            \"matchFields\": [{\"key\": \"metadata.name\", \"operator\": \"In\",
            \"values\": [\"n$i\"]}]}]}}}}"
    done
} | jq -s '{kind: "PodList", items: .}' > "$T/bound.json"
"$SIM" --nodes "$T/many.json" --pods "$T/bound.json" --inflate 0 --scorer bestfit \
    --log-level error --placements "$T/bound.jsonl" > /dev/null 2> "$T/bound.err"
rc=$?
check sim-admit.daemonset-pods-load sh -c "[ $rc -eq 0 ] || { cat '$T/bound.err'; exit 1; }"
check sim-admit.bound-pod-does-not-pin-its-class jq -e -s \
    'any(.[]; .pod == "ml/second" and .node != null and .node != "n0")' "$T/bound.jsonl"
