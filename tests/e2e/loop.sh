#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The whole loop, as a cluster runs it: a real Prometheus with a week of dcgm-exporter and
# kube-state-metrics series that ends now -> gpupack-advisor serve -> the recommendations
# ConfigMap on the fake API server -> the ConfigMap's volume as kubelet lays it out (a ..data
# symlink swapped atomically) -> gpupack-webhook reloads it -> a new pod of the Deployment the
# advisor measured gets the MIG rewrite (class applying) or only the recommendation (class
# recommending); the patched pod, applied with kubectl, reviewed again gets no patch.
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/tests/cases/lib.sh"
[ -x "$BIN/gpupack-advisor" ] || { fail loop.built "$BIN/gpupack-advisor is missing"; exit 0; }
. "$(dirname "$0")/advprom.sh"
NOW=$(date +%s)
GP_ADV_END=$((NOW - NOW % 300)); export GP_ADV_END
adv_prom_start loop || exit 0
CERTS="$E2E_TMP/certs"
make_certs "$CERTS" || { fail loop.certs "gpupack-certs failed"; exit 0; }
CM=gpupack-system/gpupack-recommendations

# One policy for both: the scenario's, inference applying, its MIG list taken as offered.
jq '.classes.inference.rightsizing = "apply" | .migProfilesAuthoritative = true' \
    "$E2E_TMP/policy.json" > "$E2E_TMP/apply.json"
jq '.classes.inference.rightsizing = "recommend"' "$E2E_TMP/apply.json" > "$E2E_TMP/recommend.json"

# The advisor writes the ConfigMap.
start_fakeapi s3cret
fake_kubeconfig "$E2E_TMP/kubeconfig" '{token: s3cret}'
$VG "$BIN/gpupack-advisor" serve --once --prometheus "$PROM" --policy "$E2E_TMP/apply.json" \
    --kubeconfig "$E2E_TMP/kubeconfig" > /dev/null 2> "$E2E_TMP/serve.err"; rc=$?
check loop.advisor-once-exit-0 [ $rc -eq 0 ]
curl -sf --max-time 2 "$API/_control/configmap/$CM" > "$E2E_TMP/cm.json"
check loop.configmap-has-ranker jq -e '.data["recommendations.json"] | fromjson
    | .recommendations | any(.namespace == "ml" and .kind == "Deployment" and .name == "ranker")' \
    "$E2E_TMP/cm.json"

# kubelet: the ConfigMap volume, ..data swapped to a new timestamped directory.
VOL="$E2E_TMP/vol"
mkdir -p "$VOL"
project() {
    d="..$(date +%s%N)"
    mkdir "$VOL/$d"
    jq -r '.data["recommendations.json"]' "$1" > "$VOL/$d/recommendations.json"
    ln -sfn "$d" "$VOL/..data_tmp" && mv -T "$VOL/..data_tmp" "$VOL/..data"
    [ -L "$VOL/recommendations.json" ] || ln -s ..data/recommendations.json "$VOL/recommendations.json"
}
# Before the advisor ran: an empty volume directory (the ConfigMap is optional).
LOGF="$E2E_TMP/webhook.log"
$VG "$BIN/gpupack-webhook" --listen 127.0.0.1:0 --tls-cert "$CERTS/tls.crt" --tls-key "$CERTS/tls.key" \
    --drain-seconds 0 --reload-interval 100 --policy "$E2E_TMP/apply.json" \
    --recommendations "$VOL/recommendations.json" 2> "$LOGF" &
E2E_PIDS="$E2E_PIDS $!"
PORT=$(serving_port "$LOGF")
[ -n "$PORT" ] && [ "$PORT" != null ] || { fail loop.webhook-start "$(tail -n 5 "$LOGF")"; exit 0; }
URL="https://localhost:$PORT"
c() { curl -s --max-time 10 --cacert "$CERTS/ca.crt" "$@"; }
loaded() { c "$URL/metrics" | awk '$1 == "gpupack_recommendations_loaded" {print $2}'; }
check loop.webhook-starts-empty [ "$(loaded)" = 0 ]
project "$E2E_TMP/cm.json"
i=0; while [ $i -lt 50 ] && [ "$(loaded)" = 0 ]; do sleep 0.1; i=$((i + 1)); done
check loop.webhook-reloads-configmap [ "$(loaded)" -ge 1 ]

# post NAME < pod: reviews it (lib.sh webhook_post).
post() { webhook_post "$URL" "$CERTS/ca.crt" "$1"; }
ranker_pod() {
    template deployment ranker registry.example/ranker:1.4 | pod_from_template ReplicaSet ranker-5b8c7d6f9 ml \
        | jq '.metadata.labels["pod-template-hash"] = "5b8c7d6f9"' | set_limits 0 '{"nvidia.com/gpu":"1"}'
}
ranker_pod | post apply
MEM=$(jq -r '.data["recommendations.json"] | fromjson | .recommendations[]
    | select(.name == "ranker") | .gpuMemory' "$E2E_TMP/cm.json")
if jq -e --arg mem "$MEM" '.spec.containers[0].resources.limits["nvidia.com/mig-2g.20gb"] == "1"
        and (.spec.containers[0].resources.limits | has("nvidia.com/gpu") | not)
        and (.metadata.annotations["gpupack.io/original-resources"] | fromjson
             | .rightsizing.gpuMemory == $mem)
        and .metadata.labels["gpupack.io/workload"] == "deployment.ranker"' "$E2E_TMP/apply.pod" >/dev/null
then pass loop.apply-mig-rewrite
else fail loop.apply-mig-rewrite "$(jq -c '[.metadata, .spec.containers[0].resources]' "$E2E_TMP/apply.pod" | head -c 600)"; fi
post again < "$E2E_TMP/apply.pod"
check loop.apply-second-pass-no-patch jq -e '.response.allowed and .response.patch == null' "$E2E_TMP/again.resp"

# The class only recommending (the policy reloaded live): the annotation and a warning.
cp "$E2E_TMP/recommend.json" "$E2E_TMP/apply.json.new" && mv "$E2E_TMP/apply.json.new" "$E2E_TMP/apply.json"
i=0; while [ $i -lt 50 ] && ! grep -q '"msg":"policy reloaded"' "$LOGF"; do sleep 0.1; i=$((i + 1)); done
ranker_pod | post recommend
check loop.recommend-annotation jq -e --arg mem "$MEM" '(.metadata.annotations["gpupack.io/recommended-gpu-memory"]
    | startswith($mem + " (mig 2g.20gb"))
    and .spec.containers[0].resources.limits["nvidia.com/gpu"] == "1"' "$E2E_TMP/recommend.pod"
check loop.recommend-warning jq -e '.response.warnings | any(test("rightsizing: the advisor recommends"))' \
    "$E2E_TMP/recommend.resp"
# Opted out: nothing from the advisor.
ranker_pod | jq '.metadata.labels["gpupack.io/rightsizing"] = "off"' | post optout
check loop.opt-out-left-alone jq -e '(.metadata.annotations // {} | has("gpupack.io/recommended-gpu-memory") | not)
    and .spec.containers[0].resources.limits["nvidia.com/gpu"] == "1"' "$E2E_TMP/optout.pod"
