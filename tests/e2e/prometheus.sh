#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# lib/prom.c against a real Prometheus (Debian's prometheus package) holding a week of
# dcgm-exporter-like samples (and a few kube-state-metrics ones) backfilled with promtool, and against a canned endpoint
# (promfake.py) for headers, retries and Retry-After. Driven through build/tests/promq.
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PROMQ="$VG $BUILD/tests/promq"
if ! command -v prometheus >/dev/null 2>&1 || ! command -v promtool >/dev/null 2>&1; then
    fail prometheus.installed "prometheus and promtool (Debian package prometheus) are missing"
    exit 0
fi
[ -x "$BUILD/tests/promq" ] || { fail prometheus.promq-built "$BUILD/tests/promq is missing"; exit 0; }

# A week of samples every 60 s ending at END: gpu 0 cycles 0.00..0.09 (mean 0.045), gpu 1 stays
# at 0.5. 10080 samples per series.
END=$(( $(date +%s) / 60 * 60 - 3600 ))
N=10080
python3 - "$END" "$N" > "$E2E_TMP/data.om" <<'PY'
import sys
end, n = int(sys.argv[1]), int(sys.argv[2])
name = "DCGM_FI_PROF_GR_ENGINE_ACTIVE"
w = sys.stdout.write
w("# TYPE %s gauge\n" % name)
for gpu, val in (("0", lambda i: (i % 10) / 100), ("1", lambda i: 0.5)):
    labels = 'Hostname="n1",gpu="%s",UUID="GPU-%s",modelName="NVIDIA A100-SXM4-80GB",' \
             'namespace="ml",pod="ranker-%s",container="main"' % (gpu, gpu, gpu)
    for i in range(n):
        w("%s{%s} %s %d\n" % (name, labels, repr(val(i)), end - (n - 1 - i) * 60))
# kube-state-metrics, for the advisor's pod-node query: ml/db-0 ran on n1 (uid u1, days 7 to 4
# before END), then again on n2 (uid u2, the last two days); ml/old ran on n3 and has no
# kube_pod_created (an older kube-state-metrics). All three request a GPU.
ksm = 'job="kube-state-metrics"'
runs = (("db-0", "u1", "n1", 7, 4, True), ("db-0", "u2", "n2", 2, 0, True),
        ("old", "u3", "n3", 7, 0, False))
def series(fam, labels, d0, d1, value):
    t0, t1 = end - d0 * 86400 + 60, end - d1 * 86400
    w("# TYPE %s gauge\n" % fam)
    for t in range(t0, t1 + 1, 60):
        w('%s{%s,%s} %s %d\n' % (fam, labels, ksm, value(t0), t))
for fam in ("kube_pod_info", "kube_pod_created", "kube_pod_container_resource_requests"):
    for pod, uid, node, d0, d1, created in runs:
        base = 'namespace="ml",pod="%s",uid="%s"' % (pod, uid)
        if fam == "kube_pod_info":
            series(fam, base + ',node="%s"' % node, d0, d1, lambda t0: "1")
        elif fam == "kube_pod_created" and created:
            series(fam, base, d0, d1, lambda t0: str(t0))
        elif fam == "kube_pod_container_resource_requests":
            series(fam, base + ',container="main",resource="nvidia_com_gpu",unit="integer"', d0,
                   d1, lambda t0: "1")
w("# EOF\n")
PY
prom_backfill_start prometheus

# jq over promq's first line (the summary) or its series lines.
head_is() { head -n 1 "$1" | jq -e "$2" >/dev/null 2>&1; }

M=DCGM_FI_PROF_GR_ENGINE_ACTIVE
$PROMQ --url "$PROM" --query "avg_over_time($M[7d])" --time "$END" > "$E2E_TMP/avg.out" 2> "$E2E_TMP/avg.err"
check prometheus.instant-vector-two-series head_is "$E2E_TMP/avg.out" '.resultType == "vector" and .series == 2'
check prometheus.avg-over-7d-gpu0 sh -c "tail -n +2 '$E2E_TMP/avg.out' | jq -e 'select(.metric.gpu == \"0\") | (.values[0][1] - 0.045 | fabs) < 1e-9' | grep -qx true"
check prometheus.avg-over-7d-gpu1 sh -c "tail -n +2 '$E2E_TMP/avg.out' | jq -e 'select(.metric.gpu == \"1\") | .values[0][1] == 0.5' | grep -qx true"
check prometheus.labels-decoded sh -c "tail -n +2 '$E2E_TMP/avg.out' | jq -e 'select(.metric.pod == \"ranker-0\") | .metric.modelName == \"NVIDIA A100-SXM4-80GB\"' | grep -qx true"

$PROMQ --url "$PROM" --query "count_over_time($M{gpu=\"0\"}[7d])" --time "$END" > "$E2E_TMP/count.out" 2>&1
check prometheus.count-over-7d sh -c "tail -n 1 '$E2E_TMP/count.out' | jq -e '.values[0][1] == $N'"

$PROMQ --url "$PROM" --range "$M" --start $((END - 3600)) --end "$END" --step 60 > "$E2E_TMP/range.out" 2>&1
check prometheus.range-matrix-points head_is "$E2E_TMP/range.out" '.resultType == "matrix" and .series == 2 and .samples == 122'

# The same range asked in parts of at most 25 points (61 points: 25 + 25 + 11) and joined: a
# series once per part, and together the same samples as the range asked at once.
$PROMQ --url "$PROM" --range-points 25 --range "$M" --start $((END - 3600)) --end "$END" --step 60 \
    > "$E2E_TMP/parts.out" 2>&1
check prometheus.range-in-parts-counted head_is "$E2E_TMP/parts.out" \
    '.parts == 3 and .attempts == 3 and .series == 6 and .samples == 122'
joined() { tail -n +2 "$1" | jq -c -s 'group_by(.metric) | map({metric: .[0].metric, values: (map(.values) | add | sort)})'; }
J1=$(joined "$E2E_TMP/range.out"); J2=$(joined "$E2E_TMP/parts.out")
check prometheus.range-in-parts-same-samples test "$J1" != "[]" -a "$J1" = "$J2"
$PROMQ --url "$PROM" --range-points 2 --range "$M" --start $((END - 86400)) --end "$END" --step 30 \
    > /dev/null 2> "$E2E_TMP/parts.err"; rc=$?
if [ $rc -eq 1 ] && grep -q "2881 points, more than 1000 parts of 2" "$E2E_TMP/parts.err"; then pass prometheus.range-parts-bounded
else fail prometheus.range-parts-bounded "exit $rc: $(cat "$E2E_TMP/parts.err")"; fi

# The advisor's pod-node query, as it prints it, on this Prometheus: the newest incarnation's
# node has the largest value (its creation time), one without kube_pod_created is still there.
"$BIN/gpupack-advisor" report --prometheus "$PROM" --until "$END" --since 7d --show-queries \
    --quiet > /dev/null 2> "$E2E_TMP/adv.err"
grep -A1 '^query [0-9]*/[0-9]* pod-node ' "$E2E_TMP/adv.err" | tail -n 1 | sed 's/^  //' \
    > "$E2E_TMP/podnode.promql"
$PROMQ --url "$PROM" --query "$(cat "$E2E_TMP/podnode.promql")" --time "$END" \
    > "$E2E_TMP/podnode.out" 2> "$E2E_TMP/podnode.err"
check prometheus.pod-node-newest-wins sh -c "tail -n +2 '$E2E_TMP/podnode.out' | jq -s -e '
    (map(select(.metric.pod == \"db-0\")) | max_by(.values[0][1]) | .metric.node == \"n2\")
    and (map(select(.metric.pod == \"db-0\")) | length == 2)'"
check prometheus.pod-node-without-created sh -c "tail -n +2 '$E2E_TMP/podnode.out' | jq -s -e '
    map(select(.metric.pod == \"old\")) | length == 1 and .[0].metric.node == \"n3\"
    and .[0].values[0][1] == 0'"

$PROMQ --url "$PROM" --query "scalar(vector(1) / 0)" > "$E2E_TMP/inf.out" 2>&1
check prometheus.scalar-inf sh -c "tail -n 1 '$E2E_TMP/inf.out' | jq -e '.values[0][1] == \"+Inf\"'"

# A PromQL syntax error: exit 1 with Prometheus's own message.
$PROMQ --url "$PROM" --query "avg_over_time($M[7d]" > /dev/null 2> "$E2E_TMP/syntax.err"; rc=$?
if [ $rc -eq 1 ] && grep -q "HTTP 400: bad_data: .*parse error" "$E2E_TMP/syntax.err"; then pass prometheus.syntax-error
else fail prometheus.syntax-error "exit $rc: $(cat "$E2E_TMP/syntax.err")"; fi

# The size cap: a body over --max-body bytes is refused by name.
$PROMQ --url "$PROM" --max-body 2000 --range "$M" --start $((END - 3600)) --end "$END" --step 60 \
    > /dev/null 2> "$E2E_TMP/cap.err"; rc=$?
if [ $rc -eq 1 ] && grep -q "response larger than 2000 bytes" "$E2E_TMP/cap.err"; then pass prometheus.size-cap
else fail prometheus.size-cap "exit $rc: $(cat "$E2E_TMP/cap.err")"; fi
$PROMQ --url "$PROM" --max-samples 100 --range "$M" --start $((END - 3600)) --end "$END" --step 60 \
    > /dev/null 2> "$E2E_TMP/scap.err"; rc=$?
if [ $rc -eq 1 ] && grep -q "more than 100 samples" "$E2E_TMP/scap.err"; then pass prometheus.sample-cap
else fail prometheus.sample-cap "exit $rc: $(cat "$E2E_TMP/scap.err")"; fi

# An unreachable URL (a closed port): a clear message, quickly, after the configured attempts.
DEAD=$(free_port)
t1=$(date +%s)
$PROMQ --url "http://127.0.0.1:$DEAD" --attempts 2 --backoff-ms 100 --query up > /dev/null 2> "$E2E_TMP/dead.err"; rc=$?
if [ $rc -eq 1 ] && grep -q "prometheus /api/v1/query: .*onnect.*after 2 attempts" "$E2E_TMP/dead.err" \
    && [ $(( $(date +%s) - t1 )) -le 5 ]; then pass prometheus.unreachable
else fail prometheus.unreachable "exit $rc: $(cat "$E2E_TMP/dead.err")"; fi

# The canned endpoint: start_fake PLAN sets FAKE (its URL) and FLOG (its request log).
nfake=0
start_fake() {
    nfake=$((nfake + 1)); FLOG="$E2E_TMP/fake$nfake.log"; : > "$FLOG"
    python3 "$ROOT/tests/e2e/promfake.py" --port-file "$E2E_TMP/fake$nfake.port" --log "$FLOG" --plan "$1" &
    E2E_PIDS="$E2E_PIDS $!"
    i=0; while [ $i -lt 100 ] && [ ! -s "$E2E_TMP/fake$nfake.port" ]; do sleep 0.1; i=$((i+1)); done
    FAKE="http://127.0.0.1:$(cat "$E2E_TMP/fake$nfake.port")"
}

# A slow server: the total timeout ends the call, once (a slow query is not retried).
start_fake hang
t1=$(date +%s)
$PROMQ --url "$FAKE" --timeout-ms 1000 --query up > /dev/null 2> "$E2E_TMP/slow.err"; rc=$?
if [ $rc -eq 1 ] && grep -q "timed out.*after 1 attempts" "$E2E_TMP/slow.err" && [ $(( $(date +%s) - t1 )) -le 4 ]; then
    pass prometheus.total-timeout
else fail prometheus.total-timeout "exit $rc: $(cat "$E2E_TMP/slow.err")"; fi

# Headers, the bearer token (read again for every request) and a form-encoded POST.
start_fake 200
printf 'tok-one\n' > "$E2E_TMP/token"
$PROMQ --url "$FAKE/" --token-file "$E2E_TMP/token" --header "X-Scope-OrgID: t1" --header "X-Extra: a b" \
    --query 'sum by (pod) (rate(x{a="b c"}[5m]))' --time 1700000000 > "$E2E_TMP/hdr.out" 2>&1
printf 'tok-two' > "$E2E_TMP/token"
$PROMQ --url "$FAKE" --token-file "$E2E_TMP/token" --query up > /dev/null 2>&1
check prometheus.header-sent sh -c "head -n 1 '$FLOG' | jq -e '.headers[\"X-Scope-OrgID\"] == \"t1\" and .headers[\"X-Extra\"] == \"a b\"'"
check prometheus.bearer-token sh -c "head -n 1 '$FLOG' | jq -e '.headers.Authorization == \"Bearer tok-one\"'"
check prometheus.token-reread sh -c "tail -n 1 '$FLOG' | jq -e '.headers.Authorization == \"Bearer tok-two\"'"
check prometheus.post-form sh -c "head -n 1 '$FLOG' | jq -e '.method == \"POST\" and .path == \"/api/v1/query\" and (.headers[\"Content-Type\"] | startswith(\"application/x-www-form-urlencoded\"))'"
check prometheus.form-encoding sh -c "head -n 1 '$FLOG' | jq -e '.body | (startswith(\"query=sum%20by%20%28pod%29\") and endswith(\"&time=1700000000.000\"))'"

# Retries: two 503s then a 200 succeed on the third attempt; with two attempts it fails.
# Without a Retry-After header the backoff applies: 300 ms, then 600 ms.
start_fake 503,503,200
$PROMQ --url "$FAKE" --backoff-ms 300 --query up > "$E2E_TMP/retry.out" 2>&1
check prometheus.retry-5xx head_is "$E2E_TMP/retry.out" '.attempts == 3 and .series == 1 and .http_status == 200'
check prometheus.retry-backoff-without-retry-after \
    sh -c "jq -s -e '(.[1].t - .[0].t) >= 0.29 and (.[2].t - .[1].t) >= 0.59' '$FLOG'"
start_fake 503,503,200
$PROMQ --url "$FAKE" --backoff-ms 50 --attempts 2 --query up > /dev/null 2> "$E2E_TMP/retry2.err"; rc=$?
if [ $rc -eq 1 ] && grep -q "HTTP 503: unavailable: fake 503 (after 2 attempts" "$E2E_TMP/retry2.err"; then pass prometheus.retry-gives-up
else fail prometheus.retry-gives-up "exit $rc: $(cat "$E2E_TMP/retry2.err")"; fi

# 429 with Retry-After: 1 waits a second (not the 10 ms backoff); a huge Retry-After is bounded.
start_fake 429:1,200
$PROMQ --url "$FAKE" --backoff-ms 10 --query up > "$E2E_TMP/ra.out" 2>&1
check prometheus.retry-after-429 head_is "$E2E_TMP/ra.out" '.attempts == 2'
check prometheus.retry-after-honoured sh -c "jq -s -e '(.[1].t - .[0].t) >= 0.9' '$FLOG'"
start_fake 429:3600,200
t1=$(date +%s)
$PROMQ --url "$FAKE" --backoff-ms 10 --backoff-max-ms 300 --query up > "$E2E_TMP/ra2.out" 2>&1
check prometheus.retry-after-bounded sh -c "head -n 1 '$E2E_TMP/ra2.out' | jq -e '.attempts == 2' && [ \$(( \$(date +%s) - $t1 )) -le 3 ]"
# A 4xx is not retried.
start_fake 422
$PROMQ --url "$FAKE" --query up > /dev/null 2> "$E2E_TMP/422.err"; rc=$?
if [ $rc -eq 1 ] && grep -q "HTTP 422: unavailable: fake 422 (after 1 attempts" "$E2E_TMP/422.err"; then pass prometheus.4xx-not-retried
else fail prometheus.4xx-not-retried "exit $rc: $(cat "$E2E_TMP/422.err")"; fi
