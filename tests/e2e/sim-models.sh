#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# gpupack-sim reads a pod's gpupack.io/gpu-models annotation as gpupack-extender's filter does
# (comma-separated globs, '!' excludes; docs/simulation.md, "Inputs"): for each annotation, the
# nodes a pod may use in the simulator, in the paper protocol and in --replay, are the nodes
# `gpupack-extender --once filter` passes on the same node list. A few seconds.
. "$(dirname "$0")/lib.sh"
SIM="$BIN/gpupack-sim"
X="$BIN/gpupack-extender"
T=$E2E_TMP
cat > "$T/nodes.json" <<'JSON'
{"kind": "NodeList", "items": [
 {"metadata": {"name": "a100",
   "labels": {"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB"}},
  "status": {"allocatable": {"cpu": "64", "memory": "512Gi", "nvidia.com/gpu": "8",
   "pods": "110"}}},
 {"metadata": {"name": "t4", "labels": {"nvidia.com/gpu.product": "Tesla-T4"}},
  "status": {"allocatable": {"cpu": "16", "memory": "64Gi", "nvidia.com/gpu": "4",
   "pods": "110"}}}]}
JSON
echo '{"kind": "PodList", "items": []}' > "$T/none.json"
# pod ANNOTATION: a pending 1-GPU pod with that gpupack.io/gpu-models annotation.
pod() {
    jq -n --arg ann "$1" '{metadata: {name: "p", namespace: "ml",
        uid: "11111111-2222-4333-8444-555555555555", creationTimestamp: "2024-01-01T00:00:00Z",
        annotations: {"gpupack.io/gpu-models": $ann}},
      spec: {containers: [{name: "c", image: "x", resources: {
        requests: {cpu: "1", memory: "1Gi", "nvidia.com/gpu": "1"},
        limits: {"nvidia.com/gpu": "1"}}}]}, status: {phase: "Pending"}}'
}
# only NODE: the node list with that node alone.
only() { jq --arg n "$1" '.items |= map(select(.metadata.name == $n))' "$T/nodes.json"; }
# placed_alone PODS OUT: the paper protocol on each node alone; OUT lists the nodes the pod of
# PODS was placed on, sorted.
placed_alone() {
    : > "$2"
    for n in a100 t4; do
        only "$n" > "$T/one.json"
        "$SIM" --nodes "$T/one.json" --pods "$1" --inflate 0 --scorer bestfit \
            --log-level error --placements "$T/pl.jsonl" > /dev/null 2>&1
        jq -r '.node // empty' "$T/pl.jsonl" >> "$2"
    done
    sort -o "$2" "$2"
}

i=0
for ann in 'NVIDIA-A100*' 'NVIDIA-A100-SXM4-80GB,Tesla-T4' '!Tesla-T4' \
    'Tesla-T4, NVIDIA-A100-SXM4-80GB' 'Tesla-T4'; do
    i=$((i + 1))
    pod "$ann" | jq '{kind: "PodList", items: [.]}' > "$T/pods$i.json"
    # What the extender's filter passes.
    pod "$ann" | jq '{Pod: ., Nodes: null, NodeNames: ["a100", "t4"]}' |
        "$X" --once filter --log-level error --snapshot-nodes "$T/nodes.json" \
            --snapshot-pods "$T/none.json" | jq -r '.NodeNames[]' | sort > "$T/want$i"
    # The paper protocol, on each node alone: placed there exactly when the filter passes it.
    placed_alone "$T/pods$i.json" "$T/got$i"
    check "sim-models.protocol-as-filter-$i" cmp -s "$T/want$i" "$T/got$i"
    # The replay, both nodes as pools: the pool that added a node for the pod is one the
    # filter passes (the pools are named by model).
    "$SIM" --replay --nodes "$T/nodes.json" --pods "$T/pods$i.json" --scorer bestfit --json \
        --duration 1h --log-level error > "$T/r$i.jsonl" 2> "$T/r$i.err"
    used=$(jq -r '.pools[] | select(.nodes_added > 0) | .name' "$T/r$i.jsonl" |
        sed 's/^nvidia-a100.*/a100/; s/^tesla-t4.*/t4/')
    check "sim-models.replay-as-filter-$i" sh -c "[ -n '$used' ] &&
        grep -qx '$used' '$T/want$i' && jq -e '.never_placed == 0' '$T/r$i.jsonl'"
done
# The filter's own answers, so that a change there shows here too.
check sim-models.filter-answers sh -c "[ \"\$(cat '$T/want1')\" = a100 ] &&
    [ \"\$(cat '$T/want3')\" = a100 ] && [ \"\$(cat '$T/want5')\" = t4 ] &&
    [ \"\$(tr '\n' ' ' < '$T/want2')\" = 'a100 t4 ' ]"
# A list no node's model meets: never placed, in both modes (the replay refuses it: exit 2).
pod 'H100*' | jq '{kind: "PodList", items: [.]}' > "$T/h100.json"
"$SIM" --nodes "$T/nodes.json" --pods "$T/h100.json" --inflate 0 --scorer bestfit \
    --log-level error --placements "$T/pl.jsonl" > /dev/null 2>&1
check sim-models.no-model-matches jq -e -s '.[0].node == null and
    (.[0].reason | startswith("no node has one of its GPU models"))' "$T/pl.jsonl"
"$SIM" --replay --nodes "$T/nodes.json" --pods "$T/h100.json" --scorer bestfit --json \
    --duration 1h > /dev/null 2> "$T/h100.err"
rc=$?
check sim-models.replay-no-model-exit-2 sh -c "[ $rc -eq 2 ] && grep -q 'items\[0\]' '$T/h100.err'"

# Required node affinity on nvidia.com/gpu.product (as gpupack-webhook writes it) keeps a pod to
# those models as a nodeSelector does: in the protocol (each node alone) and in --replay (the
# pool that added a node).
for want in a100:NVIDIA-A100-SXM4-80GB t4:Tesla-T4; do
    node=${want%%:*}; product=${want#*:}
    pod '' | jq --arg p "$product" '.metadata.annotations = {} | .spec.affinity = {nodeAffinity:
        {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions:
        [{key: "nvidia.com/gpu.product", operator: "In", values: [$p, "H100-NOT-HERE"]}]}]}}}
        | {kind: "PodList", items: [.]}' > "$T/aff.json"
    placed_alone "$T/aff.json" "$T/aff-got"
    check "sim-models.affinity-protocol-$node" sh -c "[ \"\$(cat '$T/aff-got')\" = '$node' ]"
    "$SIM" --replay --nodes "$T/nodes.json" --pods "$T/aff.json" --scorer bestfit --json \
        --duration 1h --log-level error > "$T/aff.jsonl" 2> "$T/aff.err"
    used=$(jq -r '.pools[] | select(.nodes_added > 0) | .name' "$T/aff.jsonl" |
        sed 's/^nvidia-a100.*/a100/; s/^tesla-t4.*/t4/')
    check "sim-models.affinity-replay-$node" sh -c "[ '$used' = '$node' ] &&
        jq -e '.never_placed == 0' '$T/aff.jsonl'"
done
