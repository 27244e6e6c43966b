#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The extender's live view through API trouble (tests/e2e/fakeapi.py): failing lists, slow
# responses, dropped and reset watches, 410s, garbage and errors in the stream, a rotating token.
# After each fault, with changes made meanwhile, the live extender must converge to the truth:
# its filter and prioritize answers for a set of probe pods equal those of a fresh
# `gpupack-extender --once` over a fresh list of the fake's objects. And while the API is
# unreachable, /readyz reports staleness past --max-staleness but scoring goes on answering
# from the last view.
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
X="$BIN/gpupack-extender"
start_fakeapi t1
printf t1 > "$E2E_TMP/token"
fake_kubeconfig "$E2E_TMP/kubeconfig" "{tokenFile: \"$E2E_TMP/token\"}"
$VG "$X" --listen 127.0.0.1:0 --kubeconfig "$E2E_TMP/kubeconfig" --drain-seconds 0 --assume-seconds 0 \
    --max-staleness 3 2> "$E2E_TMP/x.log" &
E2E_PIDS="$E2E_PIDS $!"
PORT=$(serving_port "$E2E_TMP/x.log")
U="http://127.0.0.1:$PORT"
ready() { [ "$(curl -s --max-time 2 "$U/readyz")" = ok ]; }
i=0; while [ $i -lt 100 ] && ! ready; do sleep 0.1; i=$((i+1)); done
ready && pass extender-faults.ready || fail extender-faults.ready "$(tail -n 3 "$E2E_TMP/x.log")"

ctl() { curl -s --max-time 5 -H 'Content-Type: application/json' --data-binary "$2" "$API/_control/$1" >/dev/null; }
# Probe pods: one GPU, four, eight, a MIG slice, a CPU pod.
probe() { jq -n --arg n "$1" --argjson lim "$2" '{metadata: {name: $n, namespace: "ml", uid: ("probe-" + $n)},
    spec: {containers: [{name: "m", resources: {limits: $lim, requests: $lim}}]}, status: {phase: "Pending"}}'; }
NAMES=$(jq -c '[.items[].metadata.name]' "$ROOT/tests/extender/nodes.json")
for spec in 'g1 {"nvidia.com/gpu":"1"}' 'g4 {"nvidia.com/gpu":"4"}' 'g8 {"nvidia.com/gpu":"8"}' \
            'mig {"nvidia.com/mig-2g.20gb":"1"}' 'cpu {"cpu":"2"}'; do
    set -- $spec
    probe "$1" "$2" | jq -c --argjson names "$NAMES" '{Pod: ., Nodes: null, NodeNames: $names}' > "$E2E_TMP/probe-$1.json"
done
# answers FILE-PREFIX CMD...: every probe through CMD for both verbs, sorted, into one file.
live_answers() {
    for f in "$E2E_TMP"/probe-*.json; do
        for v in filter prioritize; do
            curl -s --max-time 5 -H 'Content-Type: application/json' --data-binary @"$f" "$U/$v" | jq -S -c .
        done
    done
}
fresh_answers() {
    curl -s "$API/_control/list/nodes" > "$E2E_TMP/truth-nodes.json"
    curl -s "$API/_control/list/pods" > "$E2E_TMP/truth-pods.json"
    for f in "$E2E_TMP"/probe-*.json; do
        for v in filter prioritize; do
            "$X" --once "$v" --log-level error --snapshot-nodes "$E2E_TMP/truth-nodes.json" \
                --snapshot-pods "$E2E_TMP/truth-pods.json" < "$f" | jq -S -c .
        done
    done
}
# converges NAME: the live answers equal the fresh ones within 15 s.
converges() {
    fresh_answers > "$E2E_TMP/fresh"
    i=0
    while [ $i -lt 75 ]; do
        live_answers > "$E2E_TMP/live"
        cmp -s "$E2E_TMP/live" "$E2E_TMP/fresh" && { pass "extender-faults.$1"; return 0; }
        sleep 0.2; i=$((i+1))
    done
    fail "extender-faults.$1" "$(diff "$E2E_TMP/live" "$E2E_TMP/fresh" | head -c 400)"
}
# Changes that move the answers: bind or free a whole 8-GPU node, cordon or uncordon one.
n=0
bind8() { n=$((n+1)); jq -n --arg p "load$n" --arg node "$1" '{kind: "pods", object: {metadata: {name: $p, namespace: "ml"},
    spec: {nodeName: $node, containers: [{name: "m", resources: {limits: {"nvidia.com/gpu": "8"}, requests: {"nvidia.com/gpu": "8"}}}]},
    status: {phase: "Running"}}}'; }
unbind() { jq -n --arg p "$1" '{kind: "pods", type: "DELETED", object: {metadata: {name: $p, namespace: "ml"}}}'; }
cordon() { jq -c --arg n "$1" --argjson c "$2" '.items[] | select(.metadata.name == $n) | .spec.unschedulable = $c | {kind: "nodes", type: "MODIFIED", object: .}' "$ROOT/tests/extender/nodes.json"; }

converges baseline
# Lists fail with 500 three times (the relist a 410 forces), meanwhile changes happen.
ctl fault '{"fault":"fail-lists","count":3,"status":500}'
ctl fault '{"fault":"gone-http","count":1}'
ctl fault '{"fault":"drop-watches"}'
ctl apply "$(bind8 gpu-empty)"
converges failing-lists-500
ctl fault '{"fault":"bad-json-lists","count":2}'
ctl fault '{"fault":"gone-in-stream"}'
ctl apply "$(unbind load1)"
converges bad-json-lists
ctl fault '{"fault":"slow","ms":400}'
ctl apply "$(cordon gpu-spot true)"
ctl fault '{"fault":"drop-watches","abrupt":true}'
ctl apply "$(bind8 gpu-spot)"
converges slow-api-and-reset-watch
ctl fault '{"fault":"reset"}'
ctl fault '{"fault":"compact"}'
ctl fault '{"fault":"drop-watches"}'
ctl apply "$(cordon gpu-spot false)"
converges compacted-history-relist
ctl fault '{"fault":"garbage"}'
ctl apply "$(unbind load2)"
converges garbage-in-stream
ctl fault '{"fault":"error-in-stream","code":500}'
ctl apply "$(bind8 gpu-empty)"
converges error-in-stream
# The token rotates: the API takes only the new one; the kubeconfig's tokenFile has it.
printf t2 > "$E2E_TMP/token.new" && mv "$E2E_TMP/token.new" "$E2E_TMP/token"
ctl token '{"token":"t2"}'
ctl fault '{"fault":"drop-watches"}'
ctl apply "$(unbind load3)"
converges token-rotation

# The API goes silent: readiness fails past --max-staleness (3 s), scoring keeps the last view.
live_answers > "$E2E_TMP/before"
# Requests already waiting keep waiting their 10 s after the reset: readiness may take that long.
ctl fault '{"fault":"slow","ms":10000}'
ctl fault '{"fault":"drop-watches","abrupt":true}'
i=0; while [ $i -lt 80 ] && ready; do sleep 0.1; i=$((i+1)); done
if ready; then fail extender-faults.stale-not-ready "still ready after 8 s without the API"
else pass extender-faults.stale-not-ready; fi
curl -s "$U/readyz" | grep -qi stale && pass extender-faults.stale-says-why || fail extender-faults.stale-says-why "$(curl -s "$U/readyz")"
curl -s "$U/readyz" | grep -q 'nodes at resourceVersion "[^"]\{1,\}", pods at "[^"]\{1,\}"' &&
    pass extender-faults.stale-names-resource-versions ||
    fail extender-faults.stale-names-resource-versions "$(curl -s "$U/readyz")"
live_answers > "$E2E_TMP/during"
cmp -s "$E2E_TMP/before" "$E2E_TMP/during" && pass extender-faults.stale-keeps-scoring || fail extender-faults.stale-keeps-scoring "$(diff "$E2E_TMP/before" "$E2E_TMP/during" | head -c 300)"
ctl fault '{"fault":"reset"}'
ctl fault '{"fault":"drop-watches","abrupt":true}'
ctl apply "$(cordon gpu-busy true)"
ctl apply "$(bind8 t4-small)"
# Up to 10 s for a request caught by the slow fault, then the informer's next try: full-jitter
# backoff, up to 30 s after the failures of the silence. 50 s bounds both.
i=0; while [ $i -lt 500 ] && ! ready; do sleep 0.1; i=$((i+1)); done
ready && pass extender-faults.ready-again || fail extender-faults.ready-again "$(curl -s "$U/readyz")"
converges after-silence
