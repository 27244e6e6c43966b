#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The prometheus-operator overlay (manifests/overlays/prometheus-operator) against real tools:
# `kubectl kustomize` renders it; `promtool check rules` accepts the PrometheusRule's groups;
# the dashboard parses and every panel has a Prometheus data source and queries; then Debian's
# prometheus, on loopback, holding two hours of a "bad" cluster and two hours of a "good" one
# (gpupack_* series as the ServiceMonitors label them, backfilled with promtool), evaluates every
# alert expression and every dashboard query through /api/v1/query: each must parse and succeed,
# every alert must fire on the bad cluster and stay silent on the good one, and every dashboard
# query must return data. The objects' schemas are checked with the base's in
# tests/manifests/check.mjs (tests/e2e/manifests.sh).
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OVERLAY="$ROOT/manifests/overlays/prometheus-operator"
HELPER="$ROOT/tests/e2e/monitoring.py"
T0=$(date +%s)

# YAML to JSON: the YAML package tests/manifests installs (make test), else python3-yaml.
to_json() {
    if [ -f "$ROOT/tests/manifests/node_modules/yaml/package.json" ]; then
        node -e '
            const Y = require(process.argv[1]); let s = "";
            process.stdin.on("data", (d) => { s += d; }).on("end", () => {
                const docs = Y.parseAllDocuments(s);
                for (const d of docs) if (d.errors.length) { console.error(d.errors[0].message); process.exit(1); }
                console.log(JSON.stringify(docs.map((d) => d.toJS()).filter((o) => o !== null)));
            });' "$ROOT/tests/manifests/node_modules/yaml"
    else
        python3 -c 'import json, sys, yaml
print(json.dumps([o for o in yaml.safe_load_all(sys.stdin) if o is not None]))'
    fi
}

if kubectl kustomize "$OVERLAY" > "$E2E_TMP/rendered.yaml" 2> "$E2E_TMP/kustomize.err"; then
    pass monitoring.render
else
    fail monitoring.render "$(head -c 300 "$E2E_TMP/kustomize.err")"; exit 0
fi
if to_json < "$E2E_TMP/rendered.yaml" > "$E2E_TMP/objects.json" 2> "$E2E_TMP/tojson.err"; then
    pass monitoring.rendered-yaml-parses
else
    fail monitoring.rendered-yaml-parses "$(head -c 300 "$E2E_TMP/tojson.err")"; exit 0
fi
python3 "$HELPER" extract "$E2E_TMP/objects.json" "$OVERLAY/dashboards/gpupack.json" \
    "$ROOT/docs/monitoring.md" "$E2E_TMP"

# Every gpupack_* series the alerts and the dashboard read is one the daemons' sources export
# (a string literal in lib/, webhook/, extender/, advisor/ or include/; histograms by their
# family name). A renamed metric fails here rather than in a silent dashboard.
missing=""
for m in $(cat "$E2E_TMP/rules.json" "$E2E_TMP/dashboard.json" | grep -oE '[A-Za-z0-9_]*gpupack_[a-z0-9_]*' | grep '^gpupack_' | sort -u); do
    fam=$(printf '%s\n' "$m" | sed 's/_\(bucket\|sum\|count\)$//')
    grep -rqF "\"$m\"" "$ROOT/lib" "$ROOT/webhook" "$ROOT/extender" "$ROOT/advisor" "$ROOT/include" 2>/dev/null ||
        grep -rqF "\"$fam\"" "$ROOT/lib" "$ROOT/webhook" "$ROOT/extender" "$ROOT/advisor" "$ROOT/include" 2>/dev/null ||
        missing="$missing $m"
done
if [ -z "$missing" ]; then pass monitoring.metric-names-exported
else fail monitoring.metric-names-exported "not in the sources:$missing"; fi

if ! command -v prometheus >/dev/null 2>&1 || ! command -v promtool >/dev/null 2>&1; then
    fail monitoring.prometheus-installed "prometheus and promtool (Debian package prometheus) are missing"
    exit 0
fi
if promtool check rules "$E2E_TMP/rules.json" > "$E2E_TMP/check-rules.out" 2>&1; then
    pass monitoring.promtool-check-rules
else
    fail monitoring.promtool-check-rules "$(tr '\n' ' ' < "$E2E_TMP/check-rules.out" | head -c 400)"
fi
# The check is real: a broken expression is refused.
sed 's/sum by (namespace) (increase(gpupack_webhook_fail_open_total/sum by (namespace) (increase(gpupack_webhook_fail_open_total[/' \
    "$E2E_TMP/rules.json" > "$E2E_TMP/broken.json"
check monitoring.promtool-refuses-a-broken-rule sh -c "! promtool check rules '$E2E_TMP/broken.json'"

# The good cluster ends an hour ago, the bad one three hours before that.
GOOD=$(( $(date +%s) / 60 * 60 - 3600 ))
BAD=$(( GOOD - 3 * 3600 ))
python3 "$HELPER" data "$BAD" "$GOOD" > "$E2E_TMP/data.om" 2> "$E2E_TMP/data.err" \
    || fail monitoring.generate "$(tail -n 3 "$E2E_TMP/data.err")"
prom_backfill_start monitoring || exit 0
python3 "$HELPER" evaluate "$PROM" "$BAD" "$GOOD" "$E2E_TMP"

# The alerts' `for:` and templates, by promtool's own rule tests on the same rules: the idle
# spend alert waits its 6 hours; at 10 days left the certificate alert fires as a warning only,
# naming the pod and the time left.
cat > "$E2E_TMP/rules-test.yaml" <<YAML
rule_files: [rules.json]
evaluation_interval: 1m
tests:
  - interval: 1m
    input_series:
      - series: 'gpupack_advisor_waste_dollars_per_hour{job="gpupack-advisor",namespace="ml",workload="deployment/ranker",finding="idle"}'
        values: '80x600'
      - series: 'gpupack_tls_certificate_expiry_timestamp_seconds{job="gpupack-webhook",namespace="gpupack-system",pod="gpupack-webhook-a"}'
        values: '864000x600'
      # An advisor started at 0 that never succeeds (namespace a), and one that succeeds at
      # 1 h and then no more (namespace b): stale after 6 h 15 m and 7 h 15 m.
      - series: 'gpupack_advisor_start_timestamp_seconds{job="gpupack-advisor",namespace="a",pod="adv-a"}'
        values: '0x600'
      - series: 'gpupack_advisor_start_timestamp_seconds{job="gpupack-advisor",namespace="b",pod="adv-b"}'
        values: '0x600'
      - series: 'gpupack_advisor_last_success_timestamp_seconds{job="gpupack-advisor",namespace="b",pod="adv-b"}'
        values: '_x59 3600x540'
    alert_rule_test:
      - eval_time: 6h10m
        alertname: GpupackAdvisorStale
        exp_alerts: []
      - eval_time: 6h20m
        alertname: GpupackAdvisorStale
        exp_alerts:
          - exp_labels: {severity: warning, namespace: a}
            exp_annotations:
              summary: gpupack-advisor has not completed an analysis for 6 hours.
              description: "The last successful analysis was 6h 20m 0s ago; the webhook's recommendations expire after --ttl (72 h) and are then ignored."
              runbook_url: https://github.com/gpupack/gpupack/blob/main/docs/monitoring.md#gpupackadvisorstale
      - eval_time: 7h20m
        alertname: GpupackAdvisorStale
        exp_alerts:
          - exp_labels: {severity: warning, namespace: a}
            exp_annotations:
              summary: gpupack-advisor has not completed an analysis for 6 hours.
              description: "The last successful analysis was 7h 20m 0s ago; the webhook's recommendations expire after --ttl (72 h) and are then ignored."
              runbook_url: https://github.com/gpupack/gpupack/blob/main/docs/monitoring.md#gpupackadvisorstale
          - exp_labels: {severity: warning, namespace: b}
            exp_annotations:
              summary: gpupack-advisor has not completed an analysis for 6 hours.
              description: "The last successful analysis was 6h 20m 0s ago; the webhook's recommendations expire after --ttl (72 h) and are then ignored."
              runbook_url: https://github.com/gpupack/gpupack/blob/main/docs/monitoring.md#gpupackadvisorstale
      - eval_time: 5h
        alertname: GpupackIdleGpuSpendHigh
        exp_alerts: []
      - eval_time: 7h
        alertname: GpupackIdleGpuSpendHigh
        exp_alerts:
          - exp_labels: {severity: warning}
            exp_annotations:
              summary: Idle GPUs cost more than \$50 an hour.
              description: "Allocated but idle GPUs cost \$80.00 an hour over the advisor's window. The dashboard's waste table and \`gpupack-advisor report\` name the workloads."
              runbook_url: https://github.com/gpupack/gpupack/blob/main/docs/monitoring.md#gpupackidlegpuspendhigh
      - eval_time: 2h
        alertname: GpupackCertificateExpiringSoon
        exp_alerts:
          - exp_labels: {severity: warning, namespace: gpupack-system, pod: gpupack-webhook-a}
            exp_annotations:
              summary: gpupack's webhook certificate expires in less than 14 days.
              description: "The serving certificate of gpupack-webhook-a expires in 9d 22h 0m 0s. After that kube-apiserver cannot call the webhook and every GPU pod is admitted unchanged."
              runbook_url: https://github.com/gpupack/gpupack/blob/main/docs/monitoring.md#gpupackcertificateexpiringsoon
YAML
if (cd "$E2E_TMP" && promtool test rules rules-test.yaml) > "$E2E_TMP/test-rules.out" 2>&1; then
    pass monitoring.promtool-test-rules
else
    fail monitoring.promtool-test-rules "$(tr '\n' ' ' < "$E2E_TMP/test-rules.out" | head -c 600)"
fi
echo "monitoring.sh: $(($(date +%s) - T0)) s"
