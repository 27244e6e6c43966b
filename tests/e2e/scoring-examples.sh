#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The worked examples of docs/scoring.md, run through bin/gpupack-extender --once --explain, so
# the numbers the documentation shows are the numbers the extender computes.
. "$(dirname "$0")/lib.sh"
X="$BIN/gpupack-extender"
T=$(mktemp -d)
trap "rm -rf $T" EXIT

# node NAME INSTANCE-TYPE GPUS CPUS MEMORY [spot]
node() {
    jq -n --arg n "$1" --arg it "$2" --arg g "$3" --arg c "$4" --arg m "$5" --arg spot "${6:-}" '{
      apiVersion: "v1", kind: "Node",
      metadata: {name: $n, labels: ({"node.kubernetes.io/instance-type": $it}
        + (if $spot == "spot" then {"karpenter.sh/capacity-type": "spot"} else {} end))},
      status: {allocatable: {cpu: $c, memory: $m, pods: "110", "nvidia.com/gpu": $g}}}'
}
# bound NAME NODE GPUS CPUS MEMORY: a running pod.
bound() {
    jq -n --arg n "$1" --arg node "$2" --arg g "$3" --arg c "$4" --arg m "$5" '{apiVersion: "v1",
      kind: "Pod", metadata: {name: $n, namespace: "ml", uid: ("00000000-0000-4000-8000-" + ($n | explode | map(tostring) | join("") | .[0:12]))},
      spec: {nodeName: $node, containers: [{name: "m", image: "x", resources: {
        requests: {"nvidia.com/gpu": $g, cpu: $c, memory: $m}, limits: {"nvidia.com/gpu": $g}}}]},
      status: {phase: "Running"}}'
}
list() { jq -s '{apiVersion: "v1", kind: "List", items: .}'; }
# explain VERB-ARGS-JSON NODES PODS: the --explain table, as "node raw score" lines
explain() {
    echo "$1" | $VG "$X" --once prioritize --explain --log-level error --snapshot-nodes "$2" --snapshot-pods "$3" \
        2>&1 >/dev/null | sed 's/  (infeasible: .*)$/ infeasible/; s/  (spot not allowed)$/ spot-not-allowed/' | awk 'NR > 1 { s = $1 " " $7 " " $8; if ($9 != "") s = s " " $9; print s }'
}

# Example 1: a 1-GPU inference pod.
{ node a-busy p4d.24xlarge 8 96 1152Gi; node b-empty p4d.24xlarge 8 96 1152Gi
  node c-empty a2-highgpu-1g 1 12 85Gi; node d-busy g5.12xlarge 4 48 192Gi
  node e-full p4d.24xlarge 8 96 1152Gi; } | list > "$T/n1.json"
{ bound a1 a-busy 2 8 64Gi; bound a2 a-busy 2 8 64Gi; bound a3 a-busy 2 8 64Gi
  bound d1 d-busy 1 21 32Gi; bound d2 d-busy 1 21 32Gi
  bound e1 e-full 8 32 256Gi; } | list > "$T/p1.json"
ARGS1=$(jq -n '{Pod: {metadata: {name: "infer", namespace: "ml", uid: "u-1", labels: {"gpupack.io/class": "inference"}},
  spec: {containers: [{name: "m", resources: {requests: {"nvidia.com/gpu": "1", cpu: "4", memory: "16Gi"},
    limits: {"nvidia.com/gpu": "1"}}}]}}, Nodes: null,
  NodeNames: ["a-busy", "b-empty", "c-empty", "d-busy", "e-full"]}')
explain "$ARGS1" "$T/n1.json" "$T/p1.json" > "$T/e1"
cat > "$T/want1" <<'W'
a-busy 96.487 7
b-empty 38.013 1
c-empty 47.372 4
d-busy 109.287 10
e-full 100.000 0 infeasible
W
diff "$T/want1" "$T/e1" > /dev/null && pass scoring-examples.example-1 || fail scoring-examples.example-1 "$(cat "$T/e1")"

# Example 2: four empty 8-GPU nodes, a checkpointing trainer and an inference pod, 8 GPUs each.
{ node p4d-od p4d.24xlarge 8 96 1152Gi; node p4d-spot p4d.24xlarge 8 96 1152Gi spot
  node p5-spot p5.48xlarge 8 192 2048Gi spot; node nd96-od Standard_ND96asr_v4 8 96 900Gi; } | list > "$T/n2.json"
echo '{"apiVersion": "v1", "kind": "List", "items": []}' > "$T/p2.json"
pod8() {
    jq -n --arg class "$1" --arg ck "$2" '{Pod: {metadata: {name: "p", namespace: "ml", uid: "u-2",
      labels: {"gpupack.io/class": $class}, annotations: {"gpupack.io/checkpointing": $ck}},
      spec: {containers: [{name: "m", resources: {limits: {"nvidia.com/gpu": "8"}}}]}},
      Nodes: null, NodeNames: ["p4d-od", "p4d-spot", "p5-spot", "nd96-od"]}'
}
explain "$(pod8 training true)" "$T/n2.json" "$T/p2.json" > "$T/e2"
cat > "$T/want2" <<'W'
p4d-od 20.100 7
p4d-spot 50.100 10
p5-spot 20.047 4
nd96-od 16.247 1
W
diff "$T/want2" "$T/e2" > /dev/null && pass scoring-examples.example-2-trainer || fail scoring-examples.example-2-trainer "$(cat "$T/e2")"
explain "$(pod8 inference true)" "$T/n2.json" "$T/p2.json" > "$T/e3"
cat > "$T/want3" <<'W'
p4d-od 50.100 10
p4d-spot 10.000 0 infeasible
p5-spot 10.000 0 infeasible
nd96-od 40.468 1
W
diff "$T/want3" "$T/e3" > /dev/null && pass scoring-examples.example-2-inference || fail scoring-examples.example-2-inference "$(cat "$T/e3")"
# With scoring.spotFilter "soft" the spot nodes pass the filter and score 0 all the same.
jq '.scoring.spotFilter = "soft"' "$(dirname "$0")/../../manifests/base/policy.json" > "$T/soft.json"
explain_soft() {
    echo "$1" | $VG "$X" --once prioritize --explain --log-level error --policy "$T/soft.json" \
        --snapshot-nodes "$2" --snapshot-pods "$3" 2>&1 >/dev/null \
        | sed 's/  (spot not allowed)$/ spot-not-allowed/' | awk 'NR > 1 { s = $1 " " $7 " " $8; if ($9 != "") s = s " " $9; print s }'
}
explain_soft "$(pod8 inference true)" "$T/n2.json" "$T/p2.json" > "$T/e4"
cat > "$T/want4" <<'W'
p4d-od 50.100 10
p4d-spot 0.100 0 spot-not-allowed
p5-spot 0.100 0 spot-not-allowed
nd96-od 40.468 1
W
diff "$T/want4" "$T/e4" > /dev/null && pass scoring-examples.example-2-inference-soft || fail scoring-examples.example-2-inference-soft "$(cat "$T/e4")"
# The reasons the table gives for nodes at 0.
reasons() {
    echo "$1" | $VG "$X" --once prioritize --explain --log-level error --snapshot-nodes "$2" --snapshot-pods "$3" \
        2>&1 >/dev/null | sed -n 's/^\([^ ]*\) .*  (infeasible: \(.*\))$/\1: \2/p'
}
{ reasons "$ARGS1" "$T/n1.json" "$T/p1.json"; reasons "$(pod8 inference true)" "$T/n2.json" "$T/p2.json"; } > "$T/r"
cat > "$T/wantr" <<'W'
e-full: nvidia.com/gpu: 0 of 8 free, pod needs 1
p4d-spot: spot node: class inference does not allow spot
p5-spot: spot node: class inference does not allow spot
W
diff "$T/wantr" "$T/r" > /dev/null && pass scoring-examples.reasons || fail scoring-examples.reasons "$(cat "$T/r")"
