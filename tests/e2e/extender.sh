#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Black-box tests of bin/gpupack-extender: scenarios a scheduler engineer would write, run with
# `--once` over a snapshot cluster (tests/extender/{nodes,pods}.json), the captured v1.32
# kube-scheduler payloads, and the HTTP server.
#
# The snapshot cluster (p4d = 8 x A100 40GB, 96 CPU, 1152Gi):
#   gpu-busy      p4d, 6 of 8 GPUs used by running pods
#   gpu-empty     p4d, no running pods (a Succeeded and a Failed 8-GPU pod were bound there)
#   gpu-cordoned  p4d, spec.unschedulable
#   gpu-spot      p4d, karpenter.sh/capacity-type=spot, empty
#   mig-busy      A100 80GB in MIG mode: 3 x 2g.20gb (1 used) + 1 x 1g.10gb
#   mig-empty     the same, idle
#   t4-small      g4dn.xlarge, 1 x Tesla-T4, 4 CPU, 16Gi
#   cpu-1         m6i.2xlarge, no GPU
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CAP="$ROOT/tests/fixtures/kube-v1.32-captured"
SNAP="--snapshot-nodes $ROOT/tests/extender/nodes.json --snapshot-pods $ROOT/tests/extender/pods.json"
X="$BIN/gpupack-extender"

# pod NAME LIMITS-JSON [LABELS-JSON] [ANNOTATIONS-JSON] [OWNER-KIND]: a pending pod as the
# scheduler's cache holds it (no kind/apiVersion, uid, status.phase Pending).
pod() {
    jq -n --arg name "$1" --argjson lim "$2" --argjson labels "${3:-{\}}" --argjson ann "${4:-{\}}" \
        --arg owner "${5:-ReplicaSet}" '{metadata: {name: $name, namespace: "ml", uid: ("11111111-2222-4333-8444-" + ($name | explode | map(. % 10 | tostring) | join("") | .[0:12] | . + "000000000000" | .[0:12])),
          labels: $labels, annotations: $ann,
          ownerReferences: (if $owner == "" then null else [{apiVersion: "apps/v1", kind: $owner, name: "o", uid: "u", controller: true}] end)},
        spec: {containers: [{name: "main", image: "x", resources: {limits: $lim, requests: $lim}}], schedulerName: "default-scheduler"},
        status: {phase: "Pending"}}'
}
# args POD-JSON NODE...: ExtenderArgs with NodeNames (nodeCacheCapable: true).
args() { p=$1; shift; printf '%s\n' "$@" | jq -R . | jq -s --argjson pod "$p" '{Pod: $pod, Nodes: null, NodeNames: .}'; }
once() { verb=$1; shift; "$X" --once "$verb" --log-level error "$@"; }
score_of() { jq -r --arg h "$1" '.[] | select(.Host == $h) | .Score'; }

GPU1=$(pod infer '{"nvidia.com/gpu":"1","cpu":"4","memory":"32Gi"}' '{"gpupack.io/class":"inference"}')
GPU4=$(pod big '{"nvidia.com/gpu":"4","cpu":"16","memory":"128Gi"}' '{"gpupack.io/class":"training"}' '{}' Job)
GPU8=$(pod whole '{"nvidia.com/gpu":"8"}' '{"gpupack.io/class":"training"}' '{}' Job)
MIG=$(pod slice '{"nvidia.com/mig-2g.20gb":"1","cpu":"2","memory":"16Gi"}' '{"gpupack.io/class":"inference"}')
MIG3=$(pod slices '{"nvidia.com/mig-2g.20gb":"3"}' '{"gpupack.io/class":"inference"}')
SPOTOK=$(pod trainer '{"nvidia.com/gpu":"1","cpu":"4","memory":"32Gi"}' '{"gpupack.io/class":"training"}' '{"gpupack.io/checkpointing":"true"}' Job)
CPU=$(pod web '{"cpu":"1","memory":"1Gi"}')
DS=$(pod agent '{"nvidia.com/gpu":"1"}' '{}' '{}' DaemonSet)
ALL="gpu-busy gpu-empty gpu-cordoned gpu-spot mig-busy mig-empty t4-small cpu-1"

# --- prioritize: what a good score means
r=$(args "$GPU1" gpu-busy gpu-empty | once prioritize $SNAP)
[ "$(echo "$r" | score_of gpu-busy)" = 10 ] && [ "$(echo "$r" | score_of gpu-empty)" -lt 10 ] \
    && pass extender.busy-node-beats-empty || fail extender.busy-node-beats-empty "$r"
r=$(args "$MIG" mig-busy mig-empty | once prioritize $SNAP)
[ "$(echo "$r" | score_of mig-busy)" = 10 ] && [ "$(echo "$r" | score_of mig-empty)" -lt 10 ] \
    && pass extender.free-slice-beats-idle-mig-node || fail extender.free-slice-beats-idle-mig-node "$r"
r=$(args "$SPOTOK" gpu-spot gpu-empty | once prioritize $SNAP)
[ "$(echo "$r" | score_of gpu-spot)" = 10 ] && [ "$(echo "$r" | score_of gpu-empty)" -lt 10 ] \
    && pass extender.spot-wins-for-checkpointing || fail extender.spot-wins-for-checkpointing "$r"
r=$(args "$GPU1" gpu-spot gpu-empty | once prioritize $SNAP)
[ "$(echo "$r" | score_of gpu-spot)" = 0 ] && pass extender.spot-never-for-inference || fail extender.spot-never-for-inference "$r"
r=$(args "$CPU" gpu-busy cpu-1 gpu-empty | once prioritize $SNAP)
[ "$(echo "$r" | score_of cpu-1)" = 10 ] && [ "$(echo "$r" | score_of gpu-busy)" -lt 10 ] && [ "$(echo "$r" | score_of gpu-empty)" -lt 10 ] \
    && pass extender.cpu-pod-prefers-cpu-nodes || fail extender.cpu-pod-prefers-cpu-nodes "$r"
# shellcheck disable=SC2086
r=$(args "$GPU1" $ALL | once prioritize $SNAP)
echo "$r" | jq -e 'length == 8 and all(.Score >= 0 and .Score <= 10) and ([.[].Host] | sort) == ("gpu-busy gpu-empty gpu-cordoned gpu-spot mig-busy mig-empty t4-small cpu-1" | split(" ") | sort)' >/dev/null \
    && pass extender.scores-every-node || fail extender.scores-every-node "$r"
# shellcheck disable=SC2086
r2=$(args "$GPU1" $(echo $ALL | tr ' ' '\n' | sort -r) | once prioritize $SNAP)
[ "$(echo "$r" | jq -c 'sort_by(.Host)')" = "$(echo "$r2" | jq -c 'sort_by(.Host)')" ] \
    && pass extender.deterministic-any-order || fail extender.deterministic-any-order

# --- filter: what cannot take the pod, and why
# shellcheck disable=SC2086
f=$(args "$GPU1" $ALL | once filter $SNAP)
echo "$f" | jq -e '.Error == "" and .Nodes == null and (.NodeNames | sort) == ["gpu-busy","gpu-empty","t4-small"]' >/dev/null \
    && pass extender.filter-gpu-pod || fail extender.filter-gpu-pod "$f"
echo "$f" | jq -e '.FailedAndUnresolvableNodes["gpu-cordoned"] | test("cordon")' >/dev/null \
    && pass extender.filter-cordoned-unresolvable || fail extender.filter-cordoned-unresolvable "$f"
echo "$f" | jq -e '.FailedAndUnresolvableNodes["cpu-1"] | test("nvidia.com/gpu")' >/dev/null \
    && pass extender.filter-no-gpu-unresolvable || fail extender.filter-no-gpu-unresolvable "$f"
# Spot nodes (untainted, as Karpenter, EKS and GKE make them) are refused to GPU pods that may
# not use spot, naming the rule; a checkpointing pod of a class that allows spot passes.
echo "$f" | jq -e '.FailedAndUnresolvableNodes["gpu-spot"] == "spot node: class inference does not allow spot"' >/dev/null \
    && pass extender.filter-spot-refused-inference || fail extender.filter-spot-refused-inference "$f"
f=$(args "$GPU4" gpu-spot gpu-busy | once filter $SNAP)
echo "$f" | jq -e '.NodeNames == [] and .FailedAndUnresolvableNodes["gpu-spot"] == "spot node: class training needs annotation gpupack.io/checkpointing=true"' >/dev/null \
    && pass extender.filter-spot-refused-no-checkpointing || fail extender.filter-spot-refused-no-checkpointing "$f"
f=$(args "$SPOTOK" gpu-spot | once filter $SNAP)
echo "$f" | jq -e '.NodeNames == ["gpu-spot"]' >/dev/null \
    && pass extender.filter-spot-passes-checkpointing || fail extender.filter-spot-passes-checkpointing "$f"
# scoring.spotFilter "soft": such a node passes the filter and only scores 0, below the worst
# node the pod may use (1); --explain marks it.
SOFTPOL="$E2E_TMP/soft-policy.json"
jq '.scoring.spotFilter = "soft"' "$ROOT/manifests/base/policy.json" > "$SOFTPOL"
f=$(args "$GPU4" gpu-spot gpu-busy | once filter $SNAP --policy "$SOFTPOL")
echo "$f" | jq -e '.NodeNames == ["gpu-spot"]' >/dev/null \
    && pass extender.filter-spot-soft-passes || fail extender.filter-spot-soft-passes "$f"
r=$(args "$GPU1" gpu-spot gpu-empty gpu-busy | once prioritize $SNAP --policy "$SOFTPOL" --explain 2> "$E2E_TMP/soft-explain")
[ "$(echo "$r" | score_of gpu-spot)" = 0 ] && [ "$(echo "$r" | score_of gpu-empty)" = 1 ] \
    && [ "$(echo "$r" | score_of gpu-busy)" = 10 ] && grep -q '^gpu-spot .*  (spot not allowed)$' "$E2E_TMP/soft-explain" \
    && pass extender.prioritize-spot-soft-scores-0 || fail extender.prioritize-spot-soft-scores-0 "$r $(cat "$E2E_TMP/soft-explain")"
"$X" --policy "$(jq -n '{apiVersion: "gpupack.io/v1alpha1", kind: "Policy", scoring: {spotFilter: "off"}}' > "$E2E_TMP/badspot.json"; echo "$E2E_TMP/badspot.json")" \
    --once filter < /dev/null 2> "$E2E_TMP/badspot.err"; rc=$?
[ $rc = 2 ] && grep -q 'scoring.spotFilter: must be one of "hard", "soft"' "$E2E_TMP/badspot.err" \
    && pass extender.spot-filter-validated || fail extender.spot-filter-validated "rc $rc $(cat "$E2E_TMP/badspot.err")"
# A pod that tolerates node.kubernetes.io/unschedulable:NoSchedule may use a cordoned node, as
# kube-scheduler's NodeUnschedulable plugin lets it: filter passes it and prioritize ranks it.
TOLERANT=$(echo "$GPU1" | jq '.spec.tolerations = [{operator: "Exists"}]')
f=$(args "$TOLERANT" gpu-cordoned cpu-1 | once filter $SNAP)
echo "$f" | jq -e '.NodeNames == ["gpu-cordoned"] and (.FailedAndUnresolvableNodes | has("gpu-cordoned") | not)' >/dev/null \
    && pass extender.filter-cordoned-tolerated || fail extender.filter-cordoned-tolerated "$f"
r=$(args "$TOLERANT" gpu-cordoned cpu-1 | once prioritize $SNAP)
[ "$(echo "$r" | score_of gpu-cordoned)" = 10 ] && pass extender.prioritize-cordoned-tolerated \
    || fail extender.prioritize-cordoned-tolerated "$r"
f=$(args "$GPU4" gpu-busy gpu-empty | once filter $SNAP)
echo "$f" | jq -e '.NodeNames == ["gpu-empty"] and (.FailedNodes["gpu-busy"] | test("nvidia.com/gpu: 2 of 8 free"))' >/dev/null \
    && pass extender.filter-full-names-numbers || fail extender.filter-full-names-numbers "$f"
f=$(args "$MIG3" mig-busy mig-empty gpu-empty | once filter $SNAP)
echo "$f" | jq -e '.NodeNames == ["mig-empty"] and (.FailedNodes["mig-busy"] | test("nvidia.com/mig-2g.20gb: 2 of 3 free"))
        and (.FailedAndUnresolvableNodes["gpu-empty"] | test("nvidia.com/mig-2g.20gb"))' >/dev/null \
    && pass extender.filter-mig-per-profile || fail extender.filter-mig-per-profile "$f"
f=$(args "$GPU8" gpu-empty | once filter $SNAP)
echo "$f" | jq -e '.NodeNames == ["gpu-empty"]' >/dev/null \
    && pass extender.terminated-pods-count-free || fail extender.terminated-pods-count-free "$f"
# shellcheck disable=SC2086
f=$(args "$DS" $ALL | once filter $SNAP)
echo "$f" | jq -e '(.NodeNames | length) == 8' >/dev/null && pass extender.daemonset-never-filtered || fail extender.daemonset-never-filtered "$f"
# shellcheck disable=SC2086
f=$(args "$CPU" $ALL | once filter $SNAP)
echo "$f" | jq -e '(.NodeNames | length) == 8' >/dev/null && pass extender.cpu-pod-never-filtered || fail extender.cpu-pod-never-filtered "$f"
f=$(args "$GPU1" gpu-busy no-such-node | once filter $SNAP)
echo "$f" | jq -e '.NodeNames == ["gpu-busy"] and (.FailedNodes["no-such-node"] | test("unknown"))' >/dev/null \
    && pass extender.unknown-node-reported || fail extender.unknown-node-reported "$f"
TPOL="$E2E_TMP/policy.json"
jq '.classes.inference.excludeGpuModels = ["Tesla-*"]' "$ROOT/manifests/base/policy.json" > "$TPOL"
f=$(args "$GPU1" t4-small gpu-busy | once filter $SNAP --policy "$TPOL")
echo "$f" | jq -e '.NodeNames == ["gpu-busy"] and (.FailedAndUnresolvableNodes["t4-small"] | test("Tesla-T4"))' >/dev/null \
    && pass extender.class-excludes-model || fail extender.class-excludes-model "$f"
A100ONLY=$(pod picky '{"nvidia.com/gpu":"1"}' '{"gpupack.io/class":"inference"}' '{"gpupack.io/gpu-models":"NVIDIA-A100*"}')
f=$(args "$A100ONLY" t4-small gpu-busy | once filter $SNAP)
echo "$f" | jq -e '.NodeNames == ["gpu-busy"] and (.FailedAndUnresolvableNodes | has("t4-small"))' >/dev/null \
    && pass extender.annotation-selects-model || fail extender.annotation-selects-model "$f"

# --- both input forms; the captured kube-scheduler payloads
r=$(once prioritize < "$CAP/extenderargs-fullnodes-prioritize-gpu.json")
echo "$r" | jq -e 'type == "array" and length == 2 and all(has("Host") and has("Score"))' >/dev/null \
    && pass extender.captured-fullnodes-prioritize || fail extender.captured-fullnodes-prioritize "$r"
r=$(once prioritize < "$CAP/extenderargs-fullnodes-prioritize-cpu.json")
echo "$r" | jq -e 'type == "array" and length == 2' >/dev/null \
    && pass extender.captured-fullnodes-cpu || fail extender.captured-fullnodes-cpu "$r"
jq '.Nodes = {metadata: {}, items: [.Nodes.items[0]]}' "$CAP/extenderargs-fullnodes-prioritize-gpu.json" > "$E2E_TMP/one.json"
f=$(once filter < "$E2E_TMP/one.json")
echo "$f" | jq -e '.NodeNames == null and (.Nodes.items | length) == 1 and .Nodes.items[0].metadata.name != null' >/dev/null \
    && pass extender.fullnodes-filter-answers-in-kind || fail extender.fullnodes-filter-answers-in-kind "$f"
# Upstream's round-trip args carry both forms: the full Nodes are read, no view needed.
f=$(once filter < "$ROOT/tests/fixtures/extender-v1-ExtenderArgs-k8s-1.33plus.json"); rc=$?
[ $rc = 0 ] && echo "$f" | jq -e '.Error == "" and .NodeNames == null and ([.Nodes.items[].metadata.name] == ["nodename"])' >/dev/null \
    && pass extender.both-forms-full-nodes-read || fail extender.both-forms-full-nodes-read "rc $rc: $f"
f=$(once filter < "$CAP/extenderargs-nodecache-filter-gpu.json")
echo "$f" | jq -e '.Error | test("no cluster view")' >/dev/null \
    && pass extender.nodecache-without-view-errors || fail extender.nodecache-without-view-errors "$f"
jq -r '.NodeNames[]' "$CAP/extenderargs-nodecache-filter-gpu.json" > "$E2E_TMP/names"
jq --slurpfile n "$ROOT/tests/extender/nodes.json" --rawfile names "$E2E_TMP/names" -n \
   '{apiVersion: "v1", kind: "List", items: ($names | split("\n") | map(select(length > 0)) | map(. as $nm | $n[0].items[0] | .metadata.name = $nm))}' > "$E2E_TMP/capnodes.json"
echo '{"apiVersion":"v1","kind":"List","items":[]}' > "$E2E_TMP/nopods.json"
f=$(once filter --snapshot-nodes "$E2E_TMP/capnodes.json" --snapshot-pods "$E2E_TMP/nopods.json" < "$CAP/extenderargs-nodecache-filter-gpu.json")
echo "$f" | jq -e --slurpfile a "$CAP/extenderargs-nodecache-filter-gpu.json" '.Error == "" and (.NodeNames | sort) == ($a[0].NodeNames | sort)' >/dev/null \
    && pass extender.captured-nodecache-filter || fail extender.captured-nodecache-filter "$f"
r=$(once prioritize --snapshot-nodes "$E2E_TMP/capnodes.json" --snapshot-pods "$E2E_TMP/nopods.json" < "$CAP/extenderargs-nodecache-prioritize-gpu.json")
echo "$r" | jq -e --slurpfile a "$CAP/extenderargs-nodecache-prioritize-gpu.json" '([.[].Host] | sort) == ($a[0].NodeNames | sort)' >/dev/null \
    && pass extender.captured-nodecache-prioritize || fail extender.captured-nodecache-prioritize "$r"

# --- model pressure: bound pods kept to a GPU model (nodeSelector, or required affinity In, on
# nvidia.com/gpu.product) hold half the P100 GPUs; a pod free to run anywhere is steered to the
# V100 node. Neither model has a price in the policy, both nodes are idle: nothing else differs.
mnode() {
    jq -n --arg n "$1" --arg p "$2" '{apiVersion: "v1", kind: "Node", metadata: {name: $n, labels: {"nvidia.com/gpu.product": $p}},
        spec: {}, status: {allocatable: {cpu: "32", memory: "256Gi", pods: "110", "nvidia.com/gpu": "4"}}}'
}
{ mnode p100-full Tesla-P100-PCIE-16GB; mnode p100-idle Tesla-P100-PCIE-16GB; mnode v100-idle Tesla-V100-SXM2-16GB; } \
    | jq -s '{apiVersion: "v1", kind: "List", items: .}' > "$E2E_TMP/mnodes.json"
# kept HOW: 4 running 1-GPU pods on p100-full, kept to P100 by HOW (selector, affinity), or not
# (none; class: the webhook's class label, a class that names no GPU models).
kept() {
    for i in 0 1 2 3; do
        jq -n --arg i "$i" --arg how "$1" '{apiVersion: "v1", kind: "Pod",
          metadata: {name: ("kept-" + $i), namespace: "ml", uid: ("aaaaaaaa-0000-4000-8000-00000000000" + $i),
                     labels: (if $how == "class" then {"gpupack.io/class": "training"} else {} end)},
          spec: ({nodeName: "p100-full", containers: [{name: "c", image: "x",
                  resources: {limits: {"nvidia.com/gpu": "1"}, requests: {"nvidia.com/gpu": "1"}}}]}
            + (if $how == "selector" then {nodeSelector: {"nvidia.com/gpu.product": "Tesla-P100-PCIE-16GB"}}
               elif $how == "affinity" then {affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution:
                   {nodeSelectorTerms: [{matchExpressions: [{key: "nvidia.com/gpu.product", operator: "In",
                                                             values: ["Tesla-P100-PCIE-16GB", "Tesla-P40"]}]}]}}}}
               else {} end)),
          status: {phase: "Running"}}'
    done | jq -s '{apiVersion: "v1", kind: "List", items: .}'
}
ANY1=$(pod anywhere '{"nvidia.com/gpu":"1","cpu":"4","memory":"32Gi"}')
for how in selector affinity none class; do
    kept $how > "$E2E_TMP/kept.json"
    r=$(args "$ANY1" p100-idle v100-idle | once prioritize --snapshot-nodes "$E2E_TMP/mnodes.json" --snapshot-pods "$E2E_TMP/kept.json")
    p100=$(echo "$r" | score_of p100-idle); v100=$(echo "$r" | score_of v100-idle)
    if [ $how = none ] || [ $how = class ]; then ok=$([ "$p100" = 10 ] && [ "$v100" = 10 ] && echo y); else ok=$([ "$v100" = 10 ] && [ "$p100" -lt 10 ] && echo y); fi
    [ "$ok" = y ] && pass extender.model-pressure-$how || fail extender.model-pressure-$how "$r"
done

# --- hand-written snapshots (README.md invites them) often have no metadata.uid: such pods are
# keyed by namespace and name, not dropped. Two of them hold all 8 GPUs of nouid-full.
{ mnode nouid-full NVIDIA-A100-SXM4-40GB | jq '.status.allocatable["nvidia.com/gpu"] = "8"'; mnode nouid-free NVIDIA-A100-SXM4-40GB; } \
    | jq -s '{apiVersion: "v1", kind: "List", items: .}' > "$E2E_TMP/unodes.json"
for i in 1 2; do
    jq -n --arg i "$i" '{metadata: {name: ("hand-" + $i), namespace: "ml"},
        spec: {nodeName: "nouid-full", containers: [{name: "c", resources: {limits: {"nvidia.com/gpu": "4"}}}]}}'
done | jq -s '{items: .}' > "$E2E_TMP/upods.json"
f=$(args "$GPU1" nouid-full nouid-free | once filter --snapshot-nodes "$E2E_TMP/unodes.json" --snapshot-pods "$E2E_TMP/upods.json")
echo "$f" | jq -e '.NodeNames == ["nouid-free"] and (.FailedNodes["nouid-full"] | test("nvidia.com/gpu: 0 of 8 free"))' >/dev/null \
    && pass extender.snapshot-pods-without-uid-count || fail extender.snapshot-pods-without-uid-count "$f"
jq '.items[1].metadata = {namespace: "ml"}' "$E2E_TMP/upods.json" > "$E2E_TMP/upods-anon.json"
"$X" --once filter --snapshot-nodes "$E2E_TMP/unodes.json" --snapshot-pods "$E2E_TMP/upods-anon.json" < /dev/null > /dev/null 2> "$E2E_TMP/e4"; rc=$?
[ $rc = 2 ] && grep -q 'items\[1\] has neither metadata.uid nor metadata.name' "$E2E_TMP/e4" \
    && pass extender.snapshot-unkeyed-pod-refused || fail extender.snapshot-unkeyed-pod-refused "rc $rc: $(cat "$E2E_TMP/e4")"
jq '.items[1].metadata.name = "hand-1"' "$E2E_TMP/upods.json" > "$E2E_TMP/upods-dup.json"
"$X" --once filter --snapshot-nodes "$E2E_TMP/unodes.json" --snapshot-pods "$E2E_TMP/upods-dup.json" < /dev/null > /dev/null 2> "$E2E_TMP/e5"; rc=$?
[ $rc = 2 ] && grep -q 'items\[1\] (ml/hand-1)' "$E2E_TMP/e5" \
    && pass extender.snapshot-repeated-pod-refused || fail extender.snapshot-repeated-pod-refused "rc $rc: $(cat "$E2E_TMP/e5")"

# --- native sidecars (init containers with restartPolicy Always) hold their GPUs beside the app
# containers: kube-scheduler adds them up, and so must the view of bound pods and the pending pod.
snode() {
    jq -n --arg n "$1" '{apiVersion: "v1", kind: "Node", metadata: {name: $n}, spec: {},
        status: {allocatable: {cpu: "32", memory: "256Gi", pods: "110", "nvidia.com/gpu": "2"}}}'
}
{ snode sc-full; snode sc-half; } | jq -s '{apiVersion: "v1", kind: "List", items: .}' > "$E2E_TMP/snodes.json"
# with_sidecar POD-JSON GPUS: the pod with a sidecar init container asking for GPUS GPUs.
with_sidecar() {
    echo "$1" | jq --arg g "$2" '.spec.initContainers = [{name: "proxy", image: "x", restartPolicy: "Always",
        resources: {limits: {"nvidia.com/gpu": $g}, requests: {"nvidia.com/gpu": $g}}}]'
}
SIDE=$(with_sidecar "$GPU1" 1)
{ echo "$SIDE" | jq '.metadata.uid = "bbbbbbbb-0000-4000-8000-000000000001" | .spec.nodeName = "sc-full" | .status.phase = "Running"'
  echo "$GPU1" | jq '.metadata.uid = "bbbbbbbb-0000-4000-8000-000000000002" | .spec.nodeName = "sc-half" | .status.phase = "Running"'
} | jq -s '{apiVersion: "v1", kind: "List", items: .}' > "$E2E_TMP/spods.json"
SSNAP="--snapshot-nodes $E2E_TMP/snodes.json --snapshot-pods $E2E_TMP/spods.json"
f=$(args "$GPU1" sc-full sc-half | once filter $SSNAP)
echo "$f" | jq -e '.NodeNames == ["sc-half"] and (.FailedNodes["sc-full"] | test("nvidia.com/gpu: 0 of 2 free"))' >/dev/null \
    && pass extender.sidecar-gpus-of-bound-pod-count || fail extender.sidecar-gpus-of-bound-pod-count "$f"
f=$(args "$SIDE" sc-half | once filter $SSNAP)
echo "$f" | jq -e '.NodeNames == [] and (.FailedNodes["sc-half"] | test("1 of 2 free, pod needs 2"))' >/dev/null \
    && pass extender.sidecar-gpus-of-pending-pod-count || fail extender.sidecar-gpus-of-pending-pod-count "$f"

# --- more than two MIG profiles in one pod: a bound one counts every profile (it used to be
# dropped, its node looking empty); a pending one is filtered; past 8 profiles, a clear error.
jq -n '{apiVersion: "v1", kind: "List", items: [{apiVersion: "v1", kind: "Node", metadata: {name: "mig3"}, spec: {},
    status: {allocatable: {cpu: "32", memory: "256Gi", pods: "110", "nvidia.com/mig-1g.10gb": "1",
                           "nvidia.com/mig-2g.20gb": "1", "nvidia.com/mig-3g.40gb": "1"}}}]}' > "$E2E_TMP/m3nodes.json"
M3LIM='{"nvidia.com/mig-1g.10gb":"1","nvidia.com/mig-2g.20gb":"1","nvidia.com/mig-3g.40gb":"1"}'
MIG3P=$(pod three "$M3LIM" '{"gpupack.io/class":"inference"}')
echo "$MIG3P" | jq '.metadata.uid = "cccccccc-0000-4000-8000-000000000001" | .spec.nodeName = "mig3" | .status.phase = "Running"' \
    | jq -s '{apiVersion: "v1", kind: "List", items: .}' > "$E2E_TMP/m3pods.json"
M3SNAP="--snapshot-nodes $E2E_TMP/m3nodes.json --snapshot-pods $E2E_TMP/m3pods.json"
f=$(args "$(pod one1g '{"nvidia.com/mig-1g.10gb":"1"}')" mig3 | once filter $M3SNAP)
echo "$f" | jq -e '.NodeNames == [] and (.FailedNodes.mig3 | test("nvidia.com/mig-1g.10gb: 0 of 1 free"))' >/dev/null \
    && pass extender.mig-three-profiles-bound-counts || fail extender.mig-three-profiles-bound-counts "$f"
f=$(args "$MIG3P" mig3 | once filter --snapshot-nodes "$E2E_TMP/m3nodes.json" --snapshot-pods "$E2E_TMP/nopods.json")
echo "$f" | jq -e '.Error == "" and .NodeNames == ["mig3"]' >/dev/null \
    && pass extender.mig-three-profiles-pending-filtered || fail extender.mig-three-profiles-pending-filtered "$f"
MIG9=$(pod nine '{"nvidia.com/mig-1g.5gb":"1","nvidia.com/mig-1g.10gb":"1","nvidia.com/mig-2g.10gb":"1","nvidia.com/mig-2g.20gb":"1",
    "nvidia.com/mig-3g.20gb":"1","nvidia.com/mig-3g.40gb":"1","nvidia.com/mig-4g.20gb":"1","nvidia.com/mig-7g.40gb":"1","nvidia.com/mig-7g.80gb":"1"}')
f=$(args "$MIG9" mig3 | once filter $M3SNAP)
echo "$f" | jq -e '.Error | test("more than 8 distinct MIG profiles")' >/dev/null \
    && pass extender.mig-past-profile-limit-clear-error || fail extender.mig-past-profile-limit-clear-error "$f"

# --- --explain and "where would this pod go?"
args "$GPU1" gpu-busy gpu-empty | once prioritize $SNAP --explain 2> "$E2E_TMP/explain" > /dev/null
grep -q '^NODE' "$E2E_TMP/explain" && grep -q '^gpu-busy' "$E2E_TMP/explain" && grep -q 'SCORE' "$E2E_TMP/explain" \
    && pass extender.explain-table || fail extender.explain-table "$(cat "$E2E_TMP/explain")"
# With info logs on, the call's JSON log line comes before the table, never inside it; a node
# that scores 0 says why (the filter's reason).
args "$GPU1" gpu-busy cpu-1 gpu-spot | "$X" --once prioritize $SNAP --explain 2>&1 > /dev/null \
    | grep -v '"msg":"policy loaded"' > "$E2E_TMP/explain-info"
awk 'NR == 1 { ok = /^\{.*"msg":"prioritize"/ } NR == 2 { ok = ok && /^NODE / } NR > 2 && /^\{/ { ok = 0 }
     END { exit !(ok && NR == 5) }' "$E2E_TMP/explain-info" \
    && grep -q '^cpu-1 .*  (infeasible: nvidia.com/gpu: node has 0, pod needs 1)$' "$E2E_TMP/explain-info" \
    && grep -q '^gpu-spot .*  (infeasible: spot node: class inference does not allow spot)$' "$E2E_TMP/explain-info" \
    && pass extender.explain-log-apart-and-reasons || fail extender.explain-log-apart-and-reasons "$(cat "$E2E_TMP/explain-info")"
r=$(echo "$GPU1" | jq '. + {kind: "Pod", apiVersion: "v1"}' | once prioritize $SNAP)
echo "$r" | jq -e 'length == 8' >/dev/null && pass extender.bare-pod-scored-everywhere || fail extender.bare-pod-scored-everywhere "$r"
# The Pod as it sits in an ExtenderArgs (kube-scheduler sends it without apiVersion and kind).
r2=$(echo "$GPU1" | jq 'del(.kind, .apiVersion)' | once prioritize $SNAP)
[ "$r2" = "$r" ] && pass extender.bare-pod-without-kind || fail extender.bare-pod-without-kind "$r2"
r3=$(echo '{"metadata": {}, "kind": "Node", "spec": {}}' | once prioritize $SNAP 2>&1)
echo "$r3" | grep -q '"Pod"\|ExtenderArgs' && pass extender.other-kind-not-a-pod \
    || fail extender.other-kind-not-a-pod "$r3"
f=$(echo 'garbage' | once filter $SNAP)
echo "$f" | jq -e '.Error | test("not valid JSON")' >/dev/null && pass extender.garbage-in-error-field || fail extender.garbage-in-error-field "$f"

# --- start-up errors
"$X" --once sideways < /dev/null 2> "$E2E_TMP/e1"; rc=$?
[ $rc = 2 ] && grep -q -- '--once' "$E2E_TMP/e1" && pass extender.bad-verb-exit-2 || fail extender.bad-verb-exit-2 "rc $rc"
"$X" --snapshot-nodes /nonexistent --snapshot-pods /nonexistent --once filter < /dev/null 2> "$E2E_TMP/e2"; rc=$?
[ $rc = 2 ] && grep -q /nonexistent "$E2E_TMP/e2" && pass extender.missing-snapshot-exit-2 || fail extender.missing-snapshot-exit-2 "rc $rc"
"$X" --help | grep -q -- '--once' && pass extender.help || fail extender.help
"$X" --version | grep -q '^gpupack-extender ' && pass extender.version || fail extender.version

# --- the HTTP server (plain HTTP on loopback, as a scheduler sidecar would be)
# shellcheck disable=SC2086
$VG "$X" --listen 127.0.0.1:0 $SNAP --drain-seconds 0 2> "$E2E_TMP/x.log" &
XP=$!; E2E_PIDS="$E2E_PIDS $XP"
i=0; PORT=""
while [ $i -lt 100 ] && [ -z "$PORT" ]; do PORT=$(grep '"msg":"serving"' "$E2E_TMP/x.log" 2>/dev/null | jq -r .port | head -n 1); [ -n "$PORT" ] || sleep 0.1; i=$((i+1)); done
U="http://127.0.0.1:$PORT"
post() { curl -s --max-time 10 -H 'Content-Type: application/json' --data-binary @- "$U$1"; }
[ "$(curl -s "$U/readyz")" = ok ] && pass extender.http-readyz || fail extender.http-readyz
r=$(args "$GPU1" gpu-busy gpu-empty | post /prioritize)
[ "$(echo "$r" | score_of gpu-busy)" = 10 ] && pass extender.http-prioritize || fail extender.http-prioritize "$r"
f=$(args "$GPU4" gpu-busy gpu-empty | post /gpupack/filter)
echo "$f" | jq -e '.NodeNames == ["gpu-empty"]' >/dev/null && pass extender.http-prefixed-filter || fail extender.http-prefixed-filter "$f"
st=$(echo garbage | curl -s -o "$E2E_TMP/g" -w '%{http_code}' -H 'Content-Type: application/json' --data-binary @- "$U/filter")
[ "$st" = 200 ] && jq -e '.Error != ""' "$E2E_TMP/g" >/dev/null && pass extender.http-filter-error-200 || fail extender.http-filter-error-200 "$st"
[ "$(curl -s -o /dev/null -w '%{http_code}' "$U/nope")" = 404 ] && pass extender.http-404 || fail extender.http-404
curl -s "$U/metrics" > "$E2E_TMP/m"
grep -q '^gpupack_extender_calls_total{verb="prioritize",outcome="ok"} 1' "$E2E_TMP/m" \
  && grep -q '^gpupack_cache_nodes 8' "$E2E_TMP/m" && grep -q '^gpupack_extender_filter_nodes_total{result="full"} 1' "$E2E_TMP/m" \
  && grep -q '^gpupack_cache_workload_shapes 1$' "$E2E_TMP/m" \
  && grep -q '^gpupack_cache_gpu_models 3$' "$E2E_TMP/m" && grep -q '^gpupack_cache_model_constraints 0$' "$E2E_TMP/m" \
  && grep -q '^gpupack_http_request_duration_seconds_bucket{server="extender",route="/prioritize"' "$E2E_TMP/m" \
  && grep -q '^gpupack_extender_filter_reasons_total{result="full",reason="gpu"} 1' "$E2E_TMP/m" \
  && grep -q '^gpupack_extender_phase_duration_seconds_count{verb="prioritize",phase="decide"} 1$' "$E2E_TMP/m" \
  && grep -q '^gpupack_extender_phase_duration_seconds_count{verb="filter",phase="encode"} 1$' "$E2E_TMP/m" \
  && pass extender.http-metrics || fail extender.http-metrics "$(grep -v '^#' "$E2E_TMP/m" | head -c 600)"
# What Prometheus's own parser and linter say of the exposition (each family once, valid names).
promtool check metrics < "$E2E_TMP/m" > "$E2E_TMP/m.lint" 2>&1 && pass extender.metrics-promtool \
    || fail extender.metrics-promtool "$(head -c 400 "$E2E_TMP/m.lint")"
grep '"msg":"prioritize"' "$E2E_TMP/x.log" | jq -e -s 'length >= 1 and (.[0].top[0].node == "gpu-busy")' >/dev/null \
    && pass extender.logs-top-candidates || fail extender.logs-top-candidates "$(grep prioritize "$E2E_TMP/x.log" | head -c 400)"
# After prioritize, the GPU pod is assumed on gpu-busy: a 2-GPU pod no longer fits there.
GPU2=$(pod two '{"nvidia.com/gpu":"2"}' '{"gpupack.io/class":"inference"}')
f=$(args "$GPU2" gpu-busy | post /filter)
echo "$f" | jq -e '(.FailedNodes["gpu-busy"] | test("1 of 8 free"))' >/dev/null \
    && pass extender.assumed-pod-counted || fail extender.assumed-pod-counted "$f"
# The same pod sent again (its cycle failed after prioritize: Permit, PreBind, the bind call) is
# not kept off the node it was assumed on by its own assumption; another pod is.
r=$(args "$GPU8" gpu-empty gpu-spot | post /prioritize)
f=$(args "$GPU8" gpu-empty gpu-spot | post /filter)
r2=$(args "$GPU8" gpu-empty gpu-spot | post /prioritize)
OTHER8=$(pod other '{"nvidia.com/gpu":"8"}' '{"gpupack.io/class":"training"}' '{}' Job)
f2=$(args "$OTHER8" gpu-empty | post /filter)
[ "$(echo "$r" | score_of gpu-empty)" = 10 ] && [ "$r2" = "$r" ] \
    && echo "$f" | jq -e '.NodeNames == ["gpu-empty"]' >/dev/null \
    && echo "$f2" | jq -e '.FailedNodes["gpu-empty"] | test("0 of 8 free")' >/dev/null \
    && pass extender.own-assumption-not-counted \
    || fail extender.own-assumption-not-counted "$r / $f / $r2 / $f2"

# --- --health-listen: the sidecar's probes and scrapes reach a daemon whose main address is
# loopback; the health address serves only the GET routes.
HP=$(free_port)
# shellcheck disable=SC2086
$VG "$X" --listen 127.0.0.1:0 --health-listen "127.0.0.1:$HP" $SNAP --drain-seconds 0 2> "$E2E_TMP/h.log" &
HPID=$!; E2E_PIDS="$E2E_PIDS $HPID"
if wait_http "http://127.0.0.1:$HP/healthz" 10; then
    H="http://127.0.0.1:$HP"
    [ "$(curl -s "$H/readyz")" = ok ] && curl -s "$H/metrics" | grep -q '^gpupack_cache_nodes 8' \
        && pass extender.health-listen-probes || fail extender.health-listen-probes
    st=$(args "$GPU1" gpu-busy | curl -s -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' --data-binary @- "$H/prioritize")
    [ "$st" = 404 ] && pass extender.health-listen-no-scoring || fail extender.health-listen-no-scoring "status $st"
else
    fail extender.health-listen-probes "no answer on $HP: $(head -c 300 "$E2E_TMP/h.log")"
fi
kill "$HPID" 2>/dev/null; wait "$HPID" 2>/dev/null
"$X" --listen 127.0.0.1:0 --health-listen 127.0.0.1:notaport $SNAP 2> "$E2E_TMP/e3"; rc=$?
[ $rc = 2 ] && grep -q -- '--health-listen' "$E2E_TMP/e3" && pass extender.health-listen-bad-address-exit-2 \
    || fail extender.health-listen-bad-address-exit-2 "rc $rc: $(cat "$E2E_TMP/e3")"
