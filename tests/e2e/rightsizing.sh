#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Rightsizing end to end: bin/gpupack-webhook over real TLS on loopback with a recommendations
# file (the document gpupack-advisor serve writes), reviews of pods made as kube-apiserver hands
# them over (kubectl's own templates, defaulted as tests/cases/lib.sh does), every patch applied
# with kubectl and the patched pod reviewed again (no second patch); then the file rewritten
# (a new pod gets the new value) and broken (the last good table stays, the error is counted).
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/tests/cases/lib.sh"
CERTS="$E2E_TMP/certs"
make_certs "$CERTS" || { fail rightsizing.certs "gpupack-certs failed"; exit 1; }

iso() { date -u -d "@$1" +%Y-%m-%dT%H:%M:%SZ; }
NOW=$(date +%s)
CREATED=$(iso $((NOW - 3600)))
EXPIRES=$(iso $((NOW + 3 * 86400)))
EXPIRED=$(iso $((NOW - 60)))

# recs FILE RANKER_MEMORY: the document with ranker (ml/Deployment), lone (ml/Pod) and
# stale (ml/Deployment, expired).
recs() {
    jq -n --arg c "$CREATED" --arg e "$EXPIRES" --arg x "$EXPIRED" --arg mem "$2" '
      def rec($kind; $name; $mem; $exp): {namespace: "ml", kind: $kind, name: $name,
        gpuMemory: $mem, migProfile: "2g.20gb", monthlyDollars: 1310.2,
        evidence: {windowHours: 168, fbPeakMiB: 9216, p95Activity: 0.12, meanActivity: 0.08,
                   samples: 20160}, created: $c, expires: $exp};
      {apiVersion: "gpupack.io/recommendations/v1", generated: $c,
       window: {start: $c, end: $c, hours: 168}, total: 3, dropped: 0,
       recommendations: [rec("Deployment"; "ranker"; $mem; $e), rec("Pod"; "lone"; "5Gi"; $e),
                         rec("Deployment"; "stale"; "5Gi"; $x)]}' > "$1.tmp" && mv "$1.tmp" "$1"
}
RECS="$E2E_TMP/recs/recommendations.json"
mkdir -p "$E2E_TMP/recs"
recs "$RECS" 11Gi

# The default policy, inference applying (interactive still recommends), its MIG list taken as
# what the nodes offer.
jq '.classes.inference.rightsizing = "apply" | .migProfilesAuthoritative = true' \
    "$ROOT/manifests/base/policy.json" > "$E2E_TMP/policy.json"

# deployment_pod NAME [JQ]: a Deployment's pod (ReplicaSet NAME-<hash>, pod-template-hash) in
# namespace ml with one GPU; JQ edits it further.
deployment_pod() {
    template deployment "$1" vllm/vllm-openai:v0.6.3 | pod_from_template ReplicaSet "$1-6d4b9c7f8d" ml \
        | jq '.metadata.labels["pod-template-hash"] = "6d4b9c7f8d"' \
        | set_limits 0 '{"nvidia.com/gpu":"1"}' | jq "${2:-.}"
}

LOGF="$E2E_TMP/webhook.log"
$VG "$BIN/gpupack-webhook" --listen 127.0.0.1:0 --tls-cert "$CERTS/tls.crt" --tls-key "$CERTS/tls.key" \
    --drain-seconds 0 --reload-interval 100 --policy "$E2E_TMP/policy.json" \
    --recommendations "$RECS" 2> "$LOGF" &
E2E_PIDS="$E2E_PIDS $!"
PORT=$(serving_port "$LOGF")
[ -n "$PORT" ] && [ "$PORT" != null ] || { fail rightsizing.start "$(tail -n 5 "$LOGF")"; exit 0; }
URL="https://localhost:$PORT"
pass rightsizing.start
c() { curl -s --max-time 10 --cacert "$CERTS/ca.crt" "$@"; }
metric() { c "$URL/metrics" | awk -v k="$1" '$1 == k {print $2}'; }

# post NAME < pod: reviews it (lib.sh webhook_post).
post() { webhook_post "$URL" "$CERTS/ca.crt" "$1"; }

# again NAME: the patched pod reviewed again gets no patch.
again() {
    post "$1-again" < "$E2E_TMP/$1.pod"
    if jq -e '.response.allowed and .response.patch == null' "$E2E_TMP/$1-again.resp" >/dev/null; then
        pass "rightsizing.$1.second-pass-no-patch"
    else
        fail "rightsizing.$1.second-pass-no-patch" "$(jq -c '.response.patch | @base64d' "$E2E_TMP/$1-again.resp")"
    fi
}

# apply (inference): the GPU becomes a 2g.20gb slice, recorded with the evidence and the date.
deployment_pod ranker | post apply
if jq -e '.spec.containers[0].resources.limits["nvidia.com/mig-2g.20gb"] == "1"
          and (.spec.containers[0].resources.limits | has("nvidia.com/gpu") | not)
          and .metadata.labels["gpupack.io/workload"] == "deployment.ranker"
          and .metadata.labels["gpupack.io/model"] == null
          and (.metadata.annotations["gpupack.io/mutated"] | test("needs 11Gi: advisor, deployment/ranker, peak 9216 MiB, p95 12%, 168 h to .*; applied 20"))
          and (.metadata.annotations["gpupack.io/original-resources"] | fromjson
               | .rightsizing.gpuMemory == "11Gi" and .rightsizing.evidence.fbPeakMiB == 9216
               and (.rightsizing.applied | test("^20[0-9-]+T[0-9:]+Z$"))
               and .containers["vllm-openai"].limits["nvidia.com/gpu"] == "1")
          and (.metadata.annotations | has("gpupack.io/recommended-gpu-memory") | not)' \
        "$E2E_TMP/apply.pod" >/dev/null; then pass rightsizing.apply-mig-rewrite
else fail rightsizing.apply-mig-rewrite "$(jq -c .metadata "$E2E_TMP/apply.pod" | head -c 600)"; fi
jq -e '.response.warnings | any(test("^gpupack: container vllm-openai: nvidia.com/gpu 1 -> nvidia.com/mig-2g.20gb"))' \
    "$E2E_TMP/apply.resp" >/dev/null && pass rightsizing.apply-warning || fail rightsizing.apply-warning
again apply

# recommend (interactive: a bare pod): annotation and warning, resources untouched.
template deployment lone vllm/vllm-openai:v0.6.3 | pod_from_template "" lone ml \
    | set_limits 0 '{"nvidia.com/gpu":"1"}' | post recommend
if jq -e '(.metadata.annotations["gpupack.io/recommended-gpu-memory"] | test("^5Gi \\(mig 2g.20gb; peak 9216 MiB, p95 12%, 168 h to .*, expires "))
          and .spec.containers[0].resources.limits["nvidia.com/gpu"] == "1"
          and .metadata.labels["gpupack.io/workload"] == "pod.lone"' "$E2E_TMP/recommend.pod" >/dev/null \
   && jq -e '.response.warnings | any(test("^gpupack: rightsizing: the advisor recommends gpupack.io/gpu-memory 5Gi for pod/lone"))' \
        "$E2E_TMP/recommend.resp" >/dev/null; then pass rightsizing.recommend
else fail rightsizing.recommend "$(jq -c .response.warnings "$E2E_TMP/recommend.resp")"; fi
again recommend

# The user's annotation wins; the opt-out label and an expired entry leave the GPU alone.
deployment_pod ranker '.metadata.annotations = {"gpupack.io/gpu-memory": "30Gi"}' | post user
jq -e '.spec.containers[0].resources.limits["nvidia.com/mig-3g.40gb"] == "1"
       and (.metadata.annotations["gpupack.io/original-resources"] | fromjson | has("rightsizing") | not)' \
    "$E2E_TMP/user.pod" >/dev/null && pass rightsizing.user-annotation-wins || fail rightsizing.user-annotation-wins
again user
deployment_pod ranker '.metadata.labels["gpupack.io/rightsizing"] = "off"' | post optout
jq -e '.spec.containers[0].resources.limits["nvidia.com/gpu"] == "1"
       and (.metadata.annotations | has("gpupack.io/recommended-gpu-memory") | not)
       and .metadata.labels["gpupack.io/workload"] == "deployment.ranker"' "$E2E_TMP/optout.pod" >/dev/null \
    && pass rightsizing.opt-out || fail rightsizing.opt-out
deployment_pod stale | post expired
jq -e '.spec.containers[0].resources.limits["nvidia.com/gpu"] == "1"
       and (.metadata.annotations | has("gpupack.io/recommended-gpu-memory") | not)' "$E2E_TMP/expired.pod" >/dev/null \
    && pass rightsizing.expired-ignored || fail rightsizing.expired-ignored

# A model label from the policy's modelLabels.
deployment_pod ranker '.metadata.labels["app.kubernetes.io/name"] = "llama-3.1-8b"' | post model
jq -e '.metadata.labels["gpupack.io/model"] == "llama-3.1-8b"' "$E2E_TMP/model.pod" >/dev/null \
    && pass rightsizing.model-label || fail rightsizing.model-label

M="$E2E_TMP/metrics.txt"
c "$URL/metrics" > "$M"
if grep -q '^gpupack_rightsizing_total{action="apply"} [2-9]' "$M" \
   && grep -q '^gpupack_rightsizing_total{action="recommend"} 1$' "$M" \
   && grep -q '^gpupack_rightsizing_total{action="user-set"} 1$' "$M" \
   && grep -q '^gpupack_rightsizing_total{action="opted-out"} 1$' "$M" \
   && grep -q '^gpupack_rightsizing_total{action="expired"} 1$' "$M" \
   && grep -q '^gpupack_recommendations_loaded 3$' "$M" \
   && grep -q '^gpupack_mutations_total{kind="cost-labels"} [1-9]' "$M"; then pass rightsizing.metrics
else fail rightsizing.metrics "$(grep -E 'rightsizing|recommendations|cost-labels' "$M" | tr '\n' ' ')"; fi

# Live reload: a new value reaches the next pod.
recs "$RECS" 25Gi
i=0; while [ $i -lt 50 ] && ! grep -q '"msg":"recommendations reloaded"' "$LOGF"; do sleep 0.1; i=$((i + 1)); done
deployment_pod ranker | post reloaded
jq -e '.spec.containers[0].resources.limits["nvidia.com/mig-3g.40gb"] == "1"' "$E2E_TMP/reloaded.pod" >/dev/null \
    && [ "$(metric 'gpupack_recommendations_reloads_total{result="ok"}')" = 1 ] \
    && pass rightsizing.reload-new-value || fail rightsizing.reload-new-value "$(tail -n 2 "$LOGF")"
again reloaded

# A malformed file: logged and counted; the last good table stays.
printf '{"apiVersion": "gpupack.io/recommendations/v1", "recommendations": [' > "$RECS"
i=0; while [ $i -lt 50 ] && ! grep -q '"msg":"recommendations reload failed' "$LOGF"; do sleep 0.1; i=$((i + 1)); done
deployment_pod ranker | post kept
jq -e '.spec.containers[0].resources.limits["nvidia.com/mig-3g.40gb"] == "1"' "$E2E_TMP/kept.pod" >/dev/null \
    && [ "$(metric 'gpupack_recommendations_reloads_total{result="error"}')" = 1 ] \
    && [ "$(metric gpupack_recommendations_loaded)" = 3 ] \
    && grep -q '"msg":"recommendations reload failed; keeping the last good table".*recommendations.json' "$LOGF" \
    && pass rightsizing.reload-bad-keeps-last-good || fail rightsizing.reload-bad-keeps-last-good "$(tail -n 2 "$LOGF")"

# At start: a missing file is an empty table; an invalid one exits 2 naming the flag.
out=$("$BIN/gpupack-webhook" --review --recommendations "$E2E_TMP/none.json" < "$E2E_TMP/apply.review" 2>/dev/null)
echo "$out" | jq -e '.response.allowed and (.response.warnings | any(test("rightsizing")) | not)' >/dev/null \
    && pass rightsizing.missing-file-is-empty || fail rightsizing.missing-file-is-empty
"$BIN/gpupack-webhook" --review --recommendations "$RECS" < "$E2E_TMP/apply.review" > /dev/null 2> "$E2E_TMP/bad.err"
rc=$?
[ $rc -eq 2 ] && grep -q '^gpupack-webhook: --recommendations: .*recommendations.json' "$E2E_TMP/bad.err" \
    && pass rightsizing.invalid-file-exit-2 || fail rightsizing.invalid-file-exit-2 "rc $rc: $(cat "$E2E_TMP/bad.err")"
# --review uses the table as the server does.
recs "$RECS" 11Gi
"$BIN/gpupack-webhook" --review --policy "$E2E_TMP/policy.json" --recommendations "$RECS" \
    < "$E2E_TMP/apply.review" 2>/dev/null \
    | jq -e '.response.warnings | any(test("nvidia.com/mig-2g.20gb \\(needs 11Gi: advisor"))' >/dev/null \
    && pass rightsizing.review-mode || fail rightsizing.review-mode
