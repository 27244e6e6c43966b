#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The extender's fragmentation component (docs/scoring.md#fragmentation): gpupack's fragmentation
# scorer (gp_frag_score, the simulator's `gpupack` scorer) on each node's whole GPUs, for the
# workload mix the extender learns from the pods it sees, or the one the policy states.
#
# The cluster: two p4d nodes (8 GPUs, 96 CPUs). On "a": two 2-GPU pods and one 1-GPU pod (3 GPUs
# free); on "b": three 2-GPU pods (2 free). Pods seen: mostly 2-GPU pods. A 1-GPU pod arrives:
# best fit alone picks "b" (1 GPU left), but that last GPU fits no 2-GPU pod; on "a" the 2 GPUs
# left still fit one. So the learned mix sends it to "a".
. "$(dirname "$0")/lib.sh"
X="$BIN/gpupack-extender"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

node() {
    jq -n --arg n "$1" '{apiVersion: "v1", kind: "Node", metadata: {name: $n, labels: {
        "node.kubernetes.io/instance-type": "p4d.24xlarge",
        "nvidia.com/gpu.product": "NVIDIA-A100-SXM4-40GB"}},
      status: {allocatable: {cpu: "96", memory: "1152Gi", pods: "110", "nvidia.com/gpu": "8"}}}'
}
# bound NAME NODE GPUS CPU: a running pod.
bound() {
    jq -n --arg n "$1" --arg node "$2" --arg g "$3" --arg c "$4" '{apiVersion: "v1", kind: "Pod",
      metadata: {name: $n, namespace: "ml", uid: ("00000000-0000-4000-8000-0000000000" + ($n | .[-2:]))},
      spec: {nodeName: $node, containers: [{name: "main", image: "x", resources: {
        requests: {"nvidia.com/gpu": $g, cpu: $c, memory: "64Gi"},
        limits: {"nvidia.com/gpu": $g}}}]},
      status: {phase: "Running"}}'
}
{ node a; node b; } | jq -s '{apiVersion: "v1", kind: "List", items: .}' > "$T/nodes.json"
{ bound p-01 a 2 8; bound p-02 a 2 8; bound p-03 a 1 4
  bound p-04 b 2 8; bound p-05 b 2 8; bound p-06 b 2 8
  jq -n '{apiVersion: "v1", kind: "Pod", metadata: {name: "web", namespace: "ml",
    uid: "00000000-0000-4000-8000-000000000099"}, spec: {nodeName: "a", containers: [{name: "w",
    image: "x", resources: {requests: {cpu: "1"}}}]}, status: {phase: "Running"}}'
} | jq -s '{apiVersion: "v1", kind: "List", items: .}' > "$T/pods.json"
SNAP="--snapshot-nodes $T/nodes.json --snapshot-pods $T/pods.json"
ARGS=$(jq -n '{Pod: {metadata: {name: "infer", namespace: "ml", uid: "11111111-2222-4333-8444-555555555555"},
  spec: {containers: [{name: "m", image: "x", resources: {limits: {"nvidia.com/gpu": "1"},
    requests: {"nvidia.com/gpu": "1", cpu: "4", memory: "32Gi"}}}]}, status: {phase: "Pending"}},
  Nodes: null, NodeNames: ["a", "b"]}')
score_of() { jq -r --arg h "$1" '.[] | select(.Host == $h) | .Score'; }
# policy FILE SCORING-JSON: the default policy with its scoring object merged with SCORING-JSON.
policy() {
    jq --argjson s "$2" '.scoring = (.scoring * $s)' "$(dirname "$0")/../../manifests/base/policy.json" > "$1"
}
prio() { echo "$ARGS" | $VG "$X" --once prioritize --log-level error $SNAP "$@"; }

r=$(prio 2>"$T/explain" --explain)
[ "$(echo "$r" | score_of a)" = 10 ] && [ "$(echo "$r" | score_of b)" -lt 10 ] \
    && pass extender-mix.learned-mix-keeps-room-for-2gpu-pods || fail extender-mix.learned-mix-keeps-room-for-2gpu-pods "$r"
# The explain table. The mix: 2-GPU pods 5/7, the 1-GPU pod 1/7, the CPU pod next to GPUs 1/7
# (a CPU-only shape counts all free GPU share as fragment). On "b" (2 free -> 1): the 2-GPU shape
# loses its place, 5/7 x 1000, and the CPU shape's share falls from 2000/7 to 1000/7: -571 milli,
# floor(-571 / 40) = -15 buckets of 0.04 GPU = -0.6, plus half a bucket x the GPUs taken after
# of at most 16, 7/16: -0.59125. On "a" (3 free -> 2): only the CPU shape's share falls, 1000/7 =
# 143: 3 buckets = 0.12, plus 0.5 x 6/16 x 0.04: 0.1275.
awk '$1 == "a" && $6 == "0.13" { a = 1 } $1 == "b" && $6 == "-0.59" { b = 1 } END { exit !(a && b) }' "$T/explain" \
    && grep -q "FRAG" "$T/explain" \
    && pass extender-mix.explain-shows-fragmentation || fail extender-mix.explain-shows-fragmentation "$(cat "$T/explain")"

# The decision log names the component for the top candidates.
echo "$ARGS" | $VG "$X" --once prioritize --log-level info $SNAP 2>"$T/log" >/dev/null
grep '"msg":"prioritize"' "$T/log" | jq -e '.top | map({(.node): .fragmentation}) | add | (.a - 0.1275 | fabs) < 1e-9 and (.b + 0.59125 | fabs) < 1e-9' >/dev/null \
    && pass extender-mix.log-shows-fragmentation || fail extender-mix.log-shows-fragmentation "$(cat "$T/log")"

policy "$T/off.json" '{"weights": {"fragmentation": 0}}'
r=$(prio --policy "$T/off.json")
[ "$(echo "$r" | score_of b)" = 10 ] && [ "$(echo "$r" | score_of a)" -lt 10 ] \
    && pass extender-mix.weight-0-is-best-fit || fail extender-mix.weight-0-is-best-fit "$r"

policy "$T/ones.json" '{"workloadMix": [{"gpus": 1, "cpu": "4", "weight": 1}]}'
r=$(prio --policy "$T/ones.json")
[ "$(echo "$r" | score_of b)" = 10 ] && [ "$(echo "$r" | score_of a)" -lt 10 ] \
    && pass extender-mix.policy-mix-of-1gpu-pods-overrides-learned || fail extender-mix.policy-mix-of-1gpu-pods-overrides-learned "$r"

policy "$T/pairs.json" '{"workloadMix": [{"gpus": 2, "cpu": "8", "weight": 3}, {"gpus": 8, "cpu": "64", "weight": 1}]}'
r=$(prio --policy "$T/pairs.json")
[ "$(echo "$r" | score_of a)" = 10 ] && [ "$(echo "$r" | score_of b)" -lt 10 ] \
    && pass extender-mix.policy-mix-of-2gpu-pods || fail extender-mix.policy-mix-of-2gpu-pods "$r"

# GPUs that a CPU shortage already strands are the ones to use. The mix: 1-GPU pods with 6 CPUs.
# With plenty of CPU everywhere nothing fragments and best fit picks "b"; with 5 CPUs left on "a"
# its 3 free GPUs fit no pod of the mix, so the 1-GPU, 4-CPU pod goes there (fragmentation
# falls by 1 GPU), and "b" keeps its 2 usable GPUs.
policy "$T/ones6.json" '{"workloadMix": [{"gpus": 1, "cpu": "6", "weight": 1}]}'
jq '(.items[] | select(.metadata.name == "p-03") | .spec.containers[0].resources.requests.cpu) = "74"' \
    "$T/pods.json" > "$T/pods-cpu.json"
r=$(prio --policy "$T/ones6.json")
r2=$(echo "$ARGS" | $VG "$X" --once prioritize --log-level error --snapshot-nodes "$T/nodes.json" \
    --snapshot-pods "$T/pods-cpu.json" --policy "$T/ones6.json")
[ "$(echo "$r" | score_of b)" = 10 ] && [ "$(echo "$r" | score_of a)" -lt 10 ] \
    && [ "$(echo "$r2" | score_of a)" = 10 ] && [ "$(echo "$r2" | score_of b)" -lt 10 ] \
    && pass extender-mix.gpus-stranded-by-cpu-used-first || fail extender-mix.gpus-stranded-by-cpu-used-first "$r / $r2"

policy "$T/bad.json" '{"workloadMix": [{"gpus": 0, "weight": 1}]}'
out=$($VG "$X" --once prioritize --policy "$T/bad.json" $SNAP </dev/null 2>&1); rc=$?
[ "$rc" = 2 ] && echo "$out" | grep -q "scoring.workloadMix\[0\].gpus" \
    && pass extender-mix.bad-mix-rejected || fail extender-mix.bad-mix-rejected "rc=$rc $out"
