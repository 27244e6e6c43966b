#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The extender against a fake API server (tests/e2e/fakeapi.py): list+watch through a
# kubeconfig, then changes, dropped watches and 410s; after each, the extender's answers must
# match the truth the fake holds.
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
X="$BIN/gpupack-extender"
start_fakeapi s3cret
fake_kubeconfig "$E2E_TMP/kubeconfig" '{token: s3cret}'
$VG "$X" --listen 127.0.0.1:0 --kubeconfig "$E2E_TMP/kubeconfig" --drain-seconds 0 --assume-seconds 0 2> "$E2E_TMP/x.log" &
E2E_PIDS="$E2E_PIDS $!"
i=0; PORT=""
while [ $i -lt 100 ] && [ -z "$PORT" ]; do PORT=$(grep '"msg":"serving"' "$E2E_TMP/x.log" 2>/dev/null | jq -r .port | head -n 1); [ -n "$PORT" ] || sleep 0.1; i=$((i+1)); done
U="http://127.0.0.1:$PORT"
i=0; while [ $i -lt 100 ] && [ "$(curl -s "$U/readyz")" != ok ]; do sleep 0.1; i=$((i+1)); done
[ "$(curl -s "$U/readyz")" = ok ] && pass extender-live.ready-after-list || fail extender-live.ready-after-list "$(tail -n 5 "$E2E_TMP/x.log")"

ctl() { curl -s --max-time 5 -H 'Content-Type: application/json' --data-binary "$2" "$API/_control/$1" >/dev/null; }
POD='{"metadata":{"name":"p","namespace":"ml","uid":"aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee"},"spec":{"containers":[{"name":"m","resources":{"limits":{"nvidia.com/gpu":"1"},"requests":{"nvidia.com/gpu":"1"}}}]},"status":{"phase":"Pending"}}'
ARGS=$(jq -n --argjson p "$POD" '{Pod: $p, Nodes: null, NodeNames: ["gpu-busy", "gpu-empty"]}')
filter() { curl -s --max-time 5 -H 'Content-Type: application/json' --data-binary "$ARGS" "$U/filter"; }
# until_filter JQ-EXPR: waits (up to 5 s) until the filter answer satisfies the expression.
until_filter() { i=0; while [ $i -lt 50 ]; do filter | jq -e "$1" >/dev/null && return 0; sleep 0.1; i=$((i+1)); done; return 1; }
bind8() { # NAME NODE PHASE
    jq -n --arg n "$1" --arg node "$2" --arg ph "$3" '{kind: "pods", object: {metadata: {name: $n, namespace: "ml", uid: ("cccccccc-0000-4000-8000-" + ($n | explode | map(. % 10 | tostring) | join("") | . + "000000000000" | .[0:12]))},
      spec: {nodeName: $node, containers: [{name: "m", resources: {limits: {"nvidia.com/gpu": "8"}, requests: {"nvidia.com/gpu": "8"}}}]}, status: {phase: $ph}}}'
}

until_filter '.NodeNames == ["gpu-busy","gpu-empty"]' && pass extender-live.initial-view || fail extender-live.initial-view "$(filter)"
ctl apply "$(bind8 filler gpu-empty Running)"
until_filter '.NodeNames == ["gpu-busy"] and (.FailedNodes["gpu-empty"] | test("0 of 8 free"))' \
    && pass extender-live.watch-add-bound-pod || fail extender-live.watch-add-bound-pod "$(filter)"
# Terminated pods count as free: the fake drops it from the field selector (DELETED for us).
ctl apply "$(bind8 filler gpu-empty Succeeded | jq '.type = "MODIFIED"')"
until_filter '.NodeNames == ["gpu-busy","gpu-empty"]' && pass extender-live.terminated-frees || fail extender-live.terminated-frees "$(filter)"
# The pod watch selects bound pods (spec.nodeName!=): a pending pod is never sent, and its
# binding arrives as one ADDED. So scheduling a pod costs the extender one watch event.
pod_events() { curl -s "$U/metrics" | awk '/^gpupack_kube_events_total\{informer="pods",type="(ADDED|MODIFIED)"\}/ {s += $2} END {print s + 0}'; }
before=$(pod_events)
ctl apply "$(bind8 pending '' Pending | jq 'del(.object.spec.nodeName)')"
ctl apply "$(bind8 pending gpu-empty Running | jq '.type = "MODIFIED"')"
until_filter '.NodeNames == ["gpu-busy"]' && sleep 0.5
got=$(pod_events)
[ "$got" = $((before + 1)) ] && pass extender-live.pending-pods-not-watched \
    || fail extender-live.pending-pods-not-watched "pod events $before -> $got (want one: the binding)"
ctl apply "$(bind8 pending gpu-empty Running | jq '.type = "DELETED"')"
until_filter '.NodeNames == ["gpu-busy","gpu-empty"]' || fail extender-live.pending-pod-deleted "$(filter)"
# A dropped watch: re-watch from the last resourceVersion, nothing lost.
ctl fault '{"fault":"drop-watches"}'
ctl apply "$(bind8 filler2 gpu-empty Running)"
until_filter '.NodeNames == ["gpu-busy"]' && pass extender-live.drop-rewatch || fail extender-live.drop-rewatch "$(filter)"
# 410 Gone in the stream after the history is forgotten: relist, and the view equals the truth.
ctl fault '{"fault":"gone-in-stream"}'
ctl apply "$(bind8 filler2 gpu-empty Running | jq '.type = "DELETED"')"
until_filter '.NodeNames == ["gpu-busy","gpu-empty"]' && pass extender-live.gone-relist || fail extender-live.gone-relist "$(filter)"
curl -s "$U/metrics" | grep -q '^gpupack_kube_relists_total{.*} [1-9]' && pass extender-live.relist-counted || fail extender-live.relist-counted
# Nodes too: a cordon arrives through the watch.
ctl apply "$(jq '.items[] | select(.metadata.name == "gpu-busy") | .spec.unschedulable = true | {kind: "nodes", type: "MODIFIED", object: .}' "$ROOT/tests/extender/nodes.json")"
until_filter '.FailedAndUnresolvableNodes["gpu-busy"] | test("cordon")' && pass extender-live.node-cordon || fail extender-live.node-cordon "$(filter)"
# The cache holds compact records, not JSON trees.
curl -s "$U/metrics" | grep -q '^gpupack_cache_pods ' && pass extender-live.cache-metrics || fail extender-live.cache-metrics

# The webhook's live view through the same fake API: the MIG profiles nodes really offer.
CERTS="$E2E_TMP/certs"
make_certs "$CERTS"
$VG "$BIN/gpupack-webhook" --listen 127.0.0.1:0 --tls-cert "$CERTS/tls.crt" --tls-key "$CERTS/tls.key" \
    --kubeconfig "$E2E_TMP/kubeconfig" --drain-seconds 0 --log-level debug 2> "$E2E_TMP/w.log" &
E2E_PIDS="$E2E_PIDS $!"
i=0; WPORT=""
while [ $i -lt 100 ] && [ -z "$WPORT" ]; do WPORT=$(grep '"msg":"serving"' "$E2E_TMP/w.log" 2>/dev/null | jq -r .port | head -n 1); [ -n "$WPORT" ] || sleep 0.1; i=$((i+1)); done
REVIEW=$(jq -c '.request.object.metadata.annotations["gpupack.io/gpu-memory"] = "30Gi"' "$ROOT/tests/examples/gpu-deployment-review.json")
mig_of() { curl -s --max-time 5 --cacert "$CERTS/ca.crt" -H 'Content-Type: application/json' --data-binary "$REVIEW" "https://localhost:$WPORT/mutate" \
    | jq -r '.response.patch // "" | @base64d | fromjson? // [] | map(select(.path | test("limits/nvidia.com~1mig-"))) | .[0].path // "none"'; }
i=0; while [ $i -lt 50 ] && ! grep -q '"msg":"cluster view updated"' "$E2E_TMP/w.log"; do sleep 0.1; i=$((i+1)); done
# The fake's nodes offer 2g.20gb and 1g.10gb only: nothing fits 30Gi (the policy's list alone would say 3g.40gb).
[ "$(mig_of)" = none ] && pass webhook-live.view-limits-profiles || fail webhook-live.view-limits-profiles "$(mig_of)"
[ "$(curl -s --max-time 5 --cacert "$CERTS/ca.crt" "https://localhost:$WPORT/readyz")" = ok ] \
    && pass webhook-live.readyz-synced || fail webhook-live.readyz-synced
curl -s --max-time 5 --cacert "$CERTS/ca.crt" "https://localhost:$WPORT/metrics" \
    | grep -q '^gpupack_cluster_view_synced{part="nodes"} 1' \
    && pass webhook-live.metric-synced || fail webhook-live.metric-synced

# A live view that never syncs (the API refuses the token, as with missing RBAC): the webhook
# stays ready, readiness says why, and MIG requests keep whole GPUs (no rewrite to slices no
# node may offer).
fake_kubeconfig "$E2E_TMP/bad.kubeconfig" '{token: wrong}'
$VG "$BIN/gpupack-webhook" --listen 127.0.0.1:0 --tls-cert "$CERTS/tls.crt" --tls-key "$CERTS/tls.key" \
    --kubeconfig "$E2E_TMP/bad.kubeconfig" --drain-seconds 0 2> "$E2E_TMP/wbad.log" &
E2E_PIDS="$E2E_PIDS $!"
i=0; BPORT=""
while [ $i -lt 100 ] && [ -z "$BPORT" ]; do BPORT=$(grep '"msg":"serving"' "$E2E_TMP/wbad.log" 2>/dev/null | jq -r .port | head -n 1); [ -n "$BPORT" ] || sleep 0.1; i=$((i+1)); done
R=$(curl -s --max-time 5 --cacert "$CERTS/ca.crt" -w ' %{http_code}' "https://localhost:$BPORT/readyz")
case $R in
    "ok; node view not synced: the first list of Nodes has not completed"*" 200") pass webhook-live.readyz-not-synced ;;
    *) fail webhook-live.readyz-not-synced "$R" ;;
esac
W=$(curl -s --max-time 5 --cacert "$CERTS/ca.crt" -H 'Content-Type: application/json' --data-binary "$(jq -c '.request.object.metadata.annotations["gpupack.io/gpu-memory"] = "5Gi"' "$ROOT/tests/examples/gpu-deployment-review.json")" "https://localhost:$BPORT/mutate")
echo "$W" | jq -e '(.response.patch // "" | @base64d | test("mig-") | not)
    and (.response.warnings | any(test("no synced view of the nodes")))' >/dev/null \
    && pass webhook-live.no-view-no-mig || fail webhook-live.no-view-no-mig "$(echo "$W" | jq -c .response.warnings)"
# The extender on a view that never syncs: not ready, filter answers 200 with Error, prioritize
# 503 (the server's state, not the scheduler's arguments).
$VG "$X" --listen 127.0.0.1:0 --kubeconfig "$E2E_TMP/bad.kubeconfig" --drain-seconds 0 2> "$E2E_TMP/xbad.log" &
E2E_PIDS="$E2E_PIDS $!"
i=0; XBPORT=""
while [ $i -lt 100 ] && [ -z "$XBPORT" ]; do XBPORT=$(grep '"msg":"serving"' "$E2E_TMP/xbad.log" 2>/dev/null | jq -r .port | head -n 1); [ -n "$XBPORT" ] || sleep 0.1; i=$((i+1)); done
XB="http://127.0.0.1:$XBPORT"
rz=$(curl -s -o /dev/null -w '%{http_code}' "$XB/readyz")
fb=$(curl -s --max-time 5 -H 'Content-Type: application/json' --data-binary "$ARGS" -w ' %{http_code}' "$XB/filter")
pb=$(curl -s --max-time 5 -H 'Content-Type: application/json' --data-binary "$ARGS" -w ' %{http_code}' "$XB/prioritize")
[ "$rz" = 503 ] && echo "$fb" | grep -q '"Error":"gpupack: cluster view not synced yet".* 200$' \
    && echo "$pb" | grep -q '^{"error":"gpupack: cluster view not synced yet"} 503$' \
    && pass extender-live.not-synced-answers || fail extender-live.not-synced-answers "readyz $rz; $fb; $pb"
ctl apply "$(jq '.items[] | select(.metadata.name == "mig-empty") | .status.allocatable["nvidia.com/mig-3g.40gb"] = "2" | {kind: "nodes", type: "MODIFIED", object: .}' "$ROOT/tests/extender/nodes.json")"
i=0; while [ $i -lt 50 ] && [ "$(mig_of)" = none ]; do sleep 0.1; i=$((i+1)); done
mig_of | grep -q 'mig-3g.40gb' && pass webhook-live.new-profile-through-watch || fail webhook-live.new-profile-through-watch "$(mig_of)"
# GPU model globs stand for the models the live view knows: a new model joining through the watch
# is in the next pod's required node affinity (stated for a prioritize-only scheduler).
MREVIEW=$(jq -c '.request.object.metadata.annotations["gpupack.io/gpu-models"] = "NVIDIA-A100*,NVIDIA-ZZ9*"' "$ROOT/tests/examples/gpu-deployment-review.json")
models_of() { curl -s --max-time 5 --cacert "$CERTS/ca.crt" -H 'Content-Type: application/json' --data-binary "$MREVIEW" "https://localhost:$WPORT/mutate" \
    | jq -c '.response.patch // "" | @base64d | fromjson? // [] | [.. | objects | select(.key? == "nvidia.com/gpu.product")] | .[0].values // []'; }
[ "$(models_of)" = '["NVIDIA-A100-SXM4-40GB","NVIDIA-A100-SXM4-80GB"]' ] \
    && pass webhook-live.gpu-models-from-view || fail webhook-live.gpu-models-from-view "$(models_of)"
ctl apply "$(jq '.items[] | select(.metadata.name == "t4-small") | .metadata.labels["nvidia.com/gpu.product"] = "NVIDIA-ZZ9-TEST" | {kind: "nodes", type: "MODIFIED", object: .}' "$ROOT/tests/extender/nodes.json")"
i=0; while [ $i -lt 50 ] && ! models_of | grep -q ZZ9; do sleep 0.1; i=$((i+1)); done
[ "$(models_of)" = '["NVIDIA-A100-SXM4-40GB","NVIDIA-A100-SXM4-80GB","NVIDIA-ZZ9-TEST"]' ] \
    && pass webhook-live.gpu-model-through-watch || fail webhook-live.gpu-model-through-watch "$(models_of)"
