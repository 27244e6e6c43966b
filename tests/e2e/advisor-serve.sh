#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# gpupack-advisor serve end to end: a real Prometheus holding a week that ends now (the
# synthetic cluster of tests/tools/gen_advisor_data.py, backfilled with promtool) and the fake
# API server (tests/e2e/fakeapi.py) for the recommendations ConfigMap.
#   - --once --recommendations-file: the document names the workloads the report's MIG findings
#     name, with the same gpu-memory; a small --max-bytes keeps the most valuable and counts the
#     rest as dropped;
#   - serving: /readyz 200 after the first run, the ConfigMap created with the same document,
#     /metrics with the cost series, the waste series bounded by --top-workloads ("other");
#   - a write that meets conflicting updates is retried on the new resourceVersion and keeps
#     the other writer's key; API errors are counted and the process keeps serving;
#   - Prometheus stopped: readiness stays 200 and says stale, prometheus_up 0, errors counted,
#     the ConfigMap keeps the last good document; SIGTERM ends it with status 0;
#   - bad command lines exit 2 naming the flag.
. "$(dirname "$0")/lib.sh"
ADV="$VG $BIN/gpupack-advisor"
[ -x "$BIN/gpupack-advisor" ] || { fail advisor-serve.built "$BIN/gpupack-advisor is missing"; exit 0; }
. "$(dirname "$0")/advprom.sh"
NOW=$(date +%s)
GP_ADV_END=$((NOW - NOW % 300)); export GP_ADV_END
adv_prom_start advisor-serve || exit 0
POL="$E2E_TMP/policy.json"
CM=gpupack-system/gpupack-recommendations

# ---- once, into a file ------------------------------------------------------------------------
$ADV serve --once --prometheus "$PROM" --policy "$POL" --recommendations-file "$E2E_TMP/recs.json" \
    > "$E2E_TMP/once.out" 2> "$E2E_TMP/once.err"; rc=$?
check advisor-serve.once-exit-0 [ $rc -eq 0 ]
check advisor-serve.once-document jq -e '.apiVersion == "gpupack.io/recommendations/v1" and
    (.recommendations | length) >= 1 and .dropped == 0 and .total == (.recommendations | length)' \
    "$E2E_TMP/recs.json"
check advisor-serve.once-ranker jq -e '.recommendations[] | select(.namespace == "ml" and
    .kind == "Deployment" and .name == "ranker") | .migProfile == "2g.20gb" and
    (.evidence.fbPeakMiB | . > 9000) and (.expires > .created)' "$E2E_TMP/recs.json"
# The report over the same window: its MIG findings are the document's recommendations.
END=$(jq -r .window.end "$E2E_TMP/recs.json")
$ADV report --prometheus "$PROM" --policy "$POL" --until "$END" --since 7d --format json --top 0 \
    > "$E2E_TMP/report.json" 2> "$E2E_TMP/report.err"
jq -c '[.findings[] | select(.kind == "mig") | [.namespace, .workload_kind, .workload_name,
    .evidence.gpu_memory]] | sort' "$E2E_TMP/report.json" > "$E2E_TMP/want.txt" 2>/dev/null
jq -c '[.recommendations[] | [.namespace, .kind, .name, .gpuMemory]] | sort' \
    "$E2E_TMP/recs.json" > "$E2E_TMP/got.txt"
if [ -s "$E2E_TMP/want.txt" ] && [ "$(cat "$E2E_TMP/want.txt")" != "[]" ] &&
    cmp -s "$E2E_TMP/want.txt" "$E2E_TMP/got.txt"; then
    pass advisor-serve.once-equals-report-mig-findings
else
    fail advisor-serve.once-equals-report-mig-findings \
        "report $(head -c 300 "$E2E_TMP/want.txt"), document $(head -c 300 "$E2E_TMP/got.txt")"
fi
$ADV serve --once --prometheus "$PROM" --policy "$POL" --max-bytes 256 \
    --recommendations-file "$E2E_TMP/small.json" > /dev/null 2>&1; rc=$?
check advisor-serve.small-exit-0 [ $rc -eq 0 ]
check advisor-serve.small-within-bound [ "$(wc -c < "$E2E_TMP/small.json")" -le 256 ]
check advisor-serve.small-counts-dropped jq -e --slurpfile all "$E2E_TMP/recs.json" '
    .dropped > 0 and .dropped + (.recommendations | length) == .total and
    .total == ($all[0].recommendations | length)' "$E2E_TMP/small.json"

# ---- bad command lines ------------------------------------------------------------------------
out=$($ADV serve --prometheus "$PROM" 2>&1 < /dev/null); rc=$?
check advisor-serve.configmap-needs-api sh -c "[ $rc -eq 2 ] && echo '$out' | grep -q -- '--configmap'"
out=$($ADV serve --prometheus "$PROM" --interval soon --recommendations-file "$E2E_TMP/x" 2>&1); rc=$?
check advisor-serve.bad-interval sh -c "[ $rc -eq 2 ] && echo '$out' | grep -q -- '--interval'"
out=$($ADV serve --prometheus "$PROM" --configmap nosuch --recommendations-file "$E2E_TMP/x" 2>&1); rc=$?
check advisor-serve.bad-configmap sh -c "[ $rc -eq 2 ] && echo '$out' | grep -q -- '--configmap'"
out=$($ADV serve --prometheus "$PROM" --format json --recommendations-file "$E2E_TMP/x" 2>&1); rc=$?
check advisor-serve.report-flag-refused sh -c "[ $rc -eq 2 ] && echo '$out' | grep -q -- '--format'"

# serve_failing NAME PROM-PORT LISTEN-PORT INTERVAL: serve, in the background (pid in SPID), with
# no Prometheus at PROM-PORT (yet); returns once its first analysis has failed.
serve_failing() {
    $ADV serve --prometheus "http://127.0.0.1:$2" --policy "$POL" --listen "127.0.0.1:$3" \
        --interval "$4" --recommendations-file "$E2E_TMP/$1.json" > /dev/null 2> "$E2E_TMP/$1.log" &
    SPID=$!
    E2E_PIDS="$E2E_PIDS $SPID"
    i=0
    while [ $i -lt 100 ] && ! curl -sf --max-time 2 "http://127.0.0.1:$3/metrics" 2>/dev/null \
            | grep -q '^gpupack_advisor_analyses_total{result="error"} [1-9]'; do
        sleep 0.2; i=$((i + 1))
    done
}

# ---- never a good analysis: not ready, and why ------------------------------------------------
DEAD=$(free_port)
PORT0=$(free_port)
serve_failing never "$DEAD" "$PORT0" 1s
NPID=$SPID
code=$(curl -s -o "$E2E_TMP/never-ready.txt" -w '%{http_code}' --max-time 2 "http://127.0.0.1:$PORT0/readyz")
check advisor-serve.never-good-not-ready [ "$code" = 503 ]
check advisor-serve.never-good-says-why grep -q "not ready: .*127.0.0.1.*$DEAD" "$E2E_TMP/never-ready.txt"
check advisor-serve.never-good-healthz curl -sf --max-time 2 "http://127.0.0.1:$PORT0/healthz"
check advisor-serve.never-good-up-0 sh -c "curl -sf 'http://127.0.0.1:$PORT0/metrics' | grep -qx 'gpupack_advisor_prometheus_up 0'"
check advisor-serve.never-good-no-file [ ! -e "$E2E_TMP/never.json" ]
kill -TERM "$NPID"; wait "$NPID" 2>/dev/null; rc=$?
check advisor-serve.never-good-sigterm-exit-0 [ $rc -eq 0 ]

# ---- Prometheus not there at start, then there: ready within the retry (15 s), not --interval --
LATE=$(free_port)
PORTL=$(free_port)
serve_failing late "$LATE" "$PORTL" 1h
LPID=$SPID
# Prometheus arrives: a forwarder on the advisor's address to the real one.
python3 -c 'import socket, sys, threading
def pipe(a, b):
    try:
        while (d := a.recv(65536)): b.sendall(d)
    except OSError: pass
    for s in (a, b):
        try: s.shutdown(socket.SHUT_RDWR)
        except OSError: pass
host, port = sys.argv[2].split("//")[1].rstrip("/").split(":")
l = socket.socket(); l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
l.bind(("127.0.0.1", int(sys.argv[1]))); l.listen(16)
while True:
    c, _ = l.accept(); u = socket.create_connection((host, int(port)))
    for a, b in ((c, u), (u, c)): threading.Thread(target=pipe, args=(a, b), daemon=True).start()' "$LATE" "$PROM" &
FPID=$!
E2E_PIDS="$E2E_PIDS $FPID"
i=0
while [ $i -lt 60 ] && [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://127.0.0.1:$PORTL/readyz")" != 200 ]; do
    sleep 0.5; i=$((i + 1))
done
check advisor-serve.late-prometheus-ready-soon sh -c "curl -sf --max-time 2 'http://127.0.0.1:$PORTL/readyz' | grep -qx ok && [ -s '$E2E_TMP/late.json' ]"
kill -TERM "$LPID" "$FPID" 2>/dev/null; wait "$LPID" 2>/dev/null

# ---- SIGTERM while Prometheus never answers: the process ends within the grace (10 s) -------
HOLE=$(free_port)
python3 -c 'import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(16); time.sleep(60)' "$HOLE" &
HPID=$!
E2E_PIDS="$E2E_PIDS $HPID"
i=0
while [ $i -lt 50 ] && ! python3 -c 'import socket, sys
socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1).close()' "$HOLE" 2>/dev/null; do
    sleep 0.1; i=$((i + 1))
done
PORT2=$(free_port)
$ADV serve --prometheus "http://127.0.0.1:$HOLE" --prometheus-timeout 60s --policy "$POL" \
    --listen "127.0.0.1:$PORT2" --recommendations-file "$E2E_TMP/hole.json" > /dev/null \
    2> "$E2E_TMP/hole.log" &
GPID=$!
E2E_PIDS="$E2E_PIDS $GPID"
wait_http "http://127.0.0.1:$PORT2/healthz" 10
sleep 1
T0=$(date +%s)
kill -TERM "$GPID"
i=0; while [ $i -lt 150 ] && kill -0 "$GPID" 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
wait "$GPID" 2>/dev/null; rc=$?
T1=$(date +%s)
check advisor-serve.sigterm-mid-analysis-exit-0 [ $rc -eq 0 ]
check advisor-serve.sigterm-mid-analysis-within-grace [ $((T1 - T0)) -le 12 ]
check advisor-serve.sigterm-mid-analysis-says grep -q 'stopping during an analysis' "$E2E_TMP/hole.log"
kill "$HPID" 2>/dev/null; wait "$HPID" 2>/dev/null

# ---- the API unreachable from the start: the fill-in fails, not Prometheus; still serving ----
PORT1=$(free_port)
API="http://127.0.0.1:$DEAD" fake_kubeconfig "$E2E_TMP/deadkube" '{token: x}'
$ADV serve --prometheus "$PROM" --policy "$POL" --kubeconfig "$E2E_TMP/deadkube" \
    --listen "127.0.0.1:$PORT1" --interval 1s > /dev/null 2> "$E2E_TMP/deadapi.log" &
DPID=$!
E2E_PIDS="$E2E_PIDS $DPID"
i=0
while [ $i -lt 150 ]; do
    curl -sf --max-time 2 "http://127.0.0.1:$PORT1/metrics" 2>/dev/null \
        | grep -q '^gpupack_advisor_analyses_total{result="error"} [1-9]' && break
    sleep 0.2; i=$((i + 1))
done
curl -sf --max-time 2 "http://127.0.0.1:$PORT1/metrics" > "$E2E_TMP/deadapi-metrics.txt"
check advisor-serve.api-down-error-counted grep -qE '^gpupack_advisor_analyses_total\{result="error"\} [1-9]' "$E2E_TMP/deadapi-metrics.txt"
check advisor-serve.api-down-not-prometheus grep -qx 'gpupack_advisor_prometheus_errors_total 0' "$E2E_TMP/deadapi-metrics.txt"
check advisor-serve.api-down-prometheus-up grep -qx 'gpupack_advisor_prometheus_up 1' "$E2E_TMP/deadapi-metrics.txt"
# Never succeeded: no last-success series, and the start time GpupackAdvisorStale reads instead.
check advisor-serve.api-down-no-last-success sh -c "! grep -q '^gpupack_advisor_last_success_timestamp_seconds' '$E2E_TMP/deadapi-metrics.txt'"
check advisor-serve.start-timestamp grep -qE '^gpupack_advisor_start_timestamp_seconds [0-9.e+]+$' "$E2E_TMP/deadapi-metrics.txt"
code=$(curl -s -o "$E2E_TMP/deadapi-ready.txt" -w '%{http_code}' --max-time 2 "http://127.0.0.1:$PORT1/readyz")
check advisor-serve.api-down-not-ready-says-why sh -c "[ $code = 503 ] && grep -q 'not ready: .*/api/v1/' '$E2E_TMP/deadapi-ready.txt'"
check advisor-serve.api-down-still-serving kill -0 "$DPID"
kill -TERM "$DPID"; wait "$DPID" 2>/dev/null; rc=$?
check advisor-serve.api-down-sigterm-exit-0 [ $rc -eq 0 ]

# ---- serving, against the fake API ------------------------------------------------------------
start_fakeapi s3cret
fake_kubeconfig "$E2E_TMP/kubeconfig" '{token: s3cret}'
PORT=$(free_port)
$ADV serve --prometheus "$PROM" --policy "$POL" --kubeconfig "$E2E_TMP/kubeconfig" \
    --listen "127.0.0.1:$PORT" --interval 2s --top-workloads 2 > "$E2E_TMP/serve.out" \
    2> "$E2E_TMP/serve.log" &
SPID=$!
E2E_PIDS="$E2E_PIDS $SPID"
URL="http://127.0.0.1:$PORT"
# until_ok SECONDS CMD...: retries CMD every 0.2 s.
until_ok() {
    lim=$(( $1 * 5 )); shift; i=0
    while [ $i -lt $lim ]; do "$@" >/dev/null 2>&1 && return 0; sleep 0.2; i=$((i + 1)); done
    return 1
}
cm() { curl -sf --max-time 2 "$API/_control/configmap/$CM"; }
metric() { curl -sf --max-time 2 "$URL/metrics" | awk -v n="$1" 'index($0, n) == 1 { s += $NF } END { print s + 0 }'; }
check advisor-serve.ready until_ok 60 curl -sf --max-time 2 "$URL/readyz"
check advisor-serve.healthz curl -sf --max-time 2 "$URL/healthz"
cm > "$E2E_TMP/cm1.json"
check advisor-serve.configmap-created jq -e '.metadata.labels["app.kubernetes.io/name"] == "gpupack"
    and (.data["recommendations.json"] | fromjson | .apiVersion == "gpupack.io/recommendations/v1")' \
    "$E2E_TMP/cm1.json"
jq -c '.data["recommendations.json"] | fromjson | [.recommendations[] | [.namespace, .kind,
    .name, .gpuMemory]] | sort' "$E2E_TMP/cm1.json" > "$E2E_TMP/cm-got.txt" 2>/dev/null
check advisor-serve.configmap-same-recommendations cmp -s "$E2E_TMP/got.txt" "$E2E_TMP/cm-got.txt"
curl -sf --max-time 2 "$URL/metrics" > "$E2E_TMP/metrics.txt"
# One exposition of two registries (the process's, the last run's cost series): Prometheus's
# own parser and linter must accept it, each family once.
check advisor-serve.metrics-promtool sh -c "promtool check metrics < '$E2E_TMP/metrics.txt'"
check advisor-serve.metric-cost grep -qE '^gpupack_advisor_gpu_cost_dollars_per_hour\{namespace="ml",class="[a-z]*",model="[^"]*"\} [0-9.e+]+$' "$E2E_TMP/metrics.txt"
# (the idle notebook: one GPU all week; a little less when the run's window reaches past the data)
check advisor-serve.metric-idle awk '$1 == "gpupack_advisor_idle_gpus{namespace=\"team-a\",class=\"interactive\"}" && $2 > 0.5 && $2 <= 1.001 { ok = 1 } END { exit !ok }' "$E2E_TMP/metrics.txt"
check advisor-serve.metric-recommendations grep -qE '^gpupack_advisor_recommendations\{state="written"\} [1-9]' "$E2E_TMP/metrics.txt"
check advisor-serve.metric-prometheus-up grep -qx 'gpupack_advisor_prometheus_up 1' "$E2E_TMP/metrics.txt"
check advisor-serve.metric-duration grep -q '^gpupack_advisor_analysis_duration_seconds_count [1-9]' "$E2E_TMP/metrics.txt"
NW=$(grep '^gpupack_advisor_waste_dollars_per_hour{' "$E2E_TMP/metrics.txt" \
    | sed 's/.*workload="\([^"]*\)".*/\1/' | grep -v '^other$' | sort -u | wc -l)
check advisor-serve.waste-top-workloads-bounded [ "$NW" -ge 1 ] && [ "$NW" -le 2 ]
check advisor-serve.waste-rest-is-other grep -q 'workload="other"' "$E2E_TMP/metrics.txt"

# Another writer edits the ConfigMap between our read and our update, twice: retried, and its
# key kept.
curl -sf -X POST --max-time 2 -d '{"fault":"configmap-conflicts","count":2}' "$API/_control/fault" > /dev/null
check advisor-serve.conflict-retried until_ok 30 sh -c "[ \$(curl -sf '$URL/metrics' | awk '/^gpupack_advisor_configmap_writes_total\{result=\"conflict\"\}/ {print \$2}') -ge 2 ]"
check advisor-serve.conflict-then-written until_ok 30 sh -c "curl -sf '$API/_control/configmap/$CM' | jq -e '.data[\"edited-by\"] == \"someone-else\" and (.data[\"recommendations.json\"] | fromjson | .recommendations | length) >= 1' > /dev/null"
# The API failing: counted, still serving, still ready.
E0=$(metric 'gpupack_advisor_configmap_writes_total{result="error"}')
curl -sf -X POST --max-time 2 -d '{"fault":"configmap-fail","count":1000,"status":503}' "$API/_control/fault" > /dev/null
check advisor-serve.api-errors-counted until_ok 30 sh -c "[ \$(curl -sf '$URL/metrics' | awk '/^gpupack_advisor_configmap_writes_total\{result=\"error\"\}/ {print \$2}') -gt $E0 ]"
check advisor-serve.api-errors-still-ready sh -c "curl -sf --max-time 2 '$URL/readyz' | grep -q 'ok, stale: writing the recommendations'"
check advisor-serve.api-errors-prometheus-up sh -c "curl -sf --max-time 2 '$URL/metrics' | grep -qx 'gpupack_advisor_prometheus_up 1'"
curl -sf -X POST --max-time 2 -d '{"fault":"configmap-fail","count":0}' "$API/_control/fault" > /dev/null
check advisor-serve.api-back-not-stale until_ok 30 sh -c "curl -sf '$URL/readyz' | grep -qx ok"

# The policy is re-read before each analysis (a ConfigMap update, swapped in place): a larger
# advisor.migHeadroom grows the memory the next document recommends (the week's peak times it;
# the cost series would not do: they price the window's last step, which leaves the backfilled
# data five minutes after its end); an invalid policy is refused once and the last good stays.
LP="$E2E_TMP/live-policy.json"
cp "$POL" "$LP"
LPORT=$(free_port)
LURL="http://127.0.0.1:$LPORT"
$ADV serve --prometheus "$PROM" --policy "$LP" --listen "127.0.0.1:$LPORT" --interval 1s \
    --recommendations-file "$E2E_TMP/live-recs.json" > /dev/null 2> "$E2E_TMP/live.log" &
LPID=$!
E2E_PIDS="$E2E_PIDS $LPID"
okruns() { curl -sf --max-time 2 "$LURL/metrics" | awk '/^gpupack_advisor_analyses_total\{result="ok"\}/ { print int($2) }'; }
ranker_mem() { jq -r '.recommendations[] | select(.namespace == "ml" and .name == "ranker") | .gpuMemory' "$E2E_TMP/live-recs.json"; }
check advisor-serve.live-policy-ready until_ok 60 curl -sf --max-time 2 "$LURL/readyz"
m1=$(ranker_mem)
jq '.advisor.migHeadroom = 2' "$POL" > "$LP.new" && mv "$LP.new" "$LP"
D2=$(sha256sum "$LP" | cut -d' ' -f1)
check advisor-serve.live-policy-reloaded until_ok 30 sh -c "curl -sf '$LURL/metrics' | grep -q 'gpupack_policy_info{digest=\"$D2\"} 1'"
r0=$(okruns)
check advisor-serve.live-policy-next-run until_ok 30 sh -c "[ \$(curl -sf '$LURL/metrics' | awk '/^gpupack_advisor_analyses_total\{result=\"ok\"\}/ {print int(\$2)}') -gt $r0 ]"
m2=$(ranker_mem)
check advisor-serve.live-policy-used sh -c "[ -n '$m1' ] && [ -n '$m2' ] && [ '$m1' != '$m2' ] && [ \$(numfmt --from=iec-i '$m2') -gt \$(numfmt --from=iec-i '$m1') ]"
check advisor-serve.live-policy-logged grep -q '"msg":"policy reloaded".*"digest":"'"$D2"'"' "$E2E_TMP/live.log"
echo '{"apiVersion":"gpupack.io/v1alpha1","kind":"Policy","bogus":1}' > "$LP.new" && mv "$LP.new" "$LP"
r0=$(okruns)
check advisor-serve.live-policy-bad-runs until_ok 30 sh -c "[ \$(curl -sf '$LURL/metrics' | awk '/^gpupack_advisor_analyses_total\{result=\"ok\"\}/ {print int(\$2)}') -gt $((r0 + 1)) ]"
curl -sf --max-time 2 "$LURL/metrics" > "$E2E_TMP/live-metrics.txt"
check advisor-serve.live-policy-bad-kept sh -c "grep -q 'gpupack_policy_info{digest=\"$D2\"} 1' '$E2E_TMP/live-metrics.txt' && grep -qx 'gpupack_policy_last_reload_successful 0' '$E2E_TMP/live-metrics.txt'"
check advisor-serve.live-policy-bad-once sh -c "[ \$(grep -c 'policy reload failed' '$E2E_TMP/live.log') = 1 ] && grep -q 'bogus' '$E2E_TMP/live.log'"
kill -TERM "$LPID"; wait "$LPID" 2>/dev/null

# Prometheus goes away: the last good result stays.
RV=$(cm | jq -r .metadata.resourceVersion)
kill "$ADV_PROM_PID"; wait "$ADV_PROM_PID" 2>/dev/null
check advisor-serve.prometheus-down-up-0 until_ok 30 sh -c "curl -sf '$URL/metrics' | grep -qx 'gpupack_advisor_prometheus_up 0'"
check advisor-serve.prometheus-down-stale sh -c "curl -sf '$URL/readyz' | grep -q 'ok, stale: .*127.0.0.1'"
curl -sf --max-time 2 "$URL/metrics" > "$E2E_TMP/metrics2.txt"
check advisor-serve.prometheus-down-errors grep -qE '^gpupack_advisor_prometheus_errors_total [1-9]' "$E2E_TMP/metrics2.txt"
check advisor-serve.prometheus-down-keeps-cost grep -q '^gpupack_advisor_gpu_cost_dollars_per_hour{' "$E2E_TMP/metrics2.txt"
sleep 2.5
check advisor-serve.prometheus-down-configmap-kept [ "$(cm | jq -r .metadata.resourceVersion)" = "$RV" ]
check advisor-serve.log-says-why grep -q 'keeping the last good result' "$E2E_TMP/serve.log"

# Only the one ConfigMap, only GET/PUT on it and POST (create) on its collection; never PATCH.
curl -sf --max-time 2 "$API/_control/stats" > "$E2E_TMP/stats.json"
check advisor-serve.only-its-configmap jq -e --arg one "/api/v1/namespaces/${CM%/*}/configmaps/${CM#*/}" '
    (.configmaps | length) > 3 and (.other_writes | length) == 0 and
    all(.configmaps[]; (.path == $one and (.method == "GET" or .method == "PUT")) or
        (.path == ($one | sub("/[^/]*$"; "")) and .method == "POST")) and
    ([.configmaps[] | select(.method == "POST")] | length) == 1' "$E2E_TMP/stats.json"

kill -TERM "$SPID"
i=0; while [ $i -lt 50 ] && kill -0 "$SPID" 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
wait "$SPID" 2>/dev/null; rc=$?
check advisor-serve.sigterm-exit-0 [ $rc -eq 0 ]
