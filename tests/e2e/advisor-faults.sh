#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# gpupack-advisor report against a fake Prometheus (advfake.py) that fails in one way per case:
# down, 4xx with an error body, a 503 then success (retried), a 429 with Retry-After, too slow,
# not JSON, "status":"error", warnings, no DCGM series, no DCGM_FI_PROF_GR_ENGINE_ACTIVE, no
# kube-state-metrics requests, NaN and +Inf samples. Each asserts the exit status and what the
# user reads.
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
ADV="$VG $BIN/gpupack-advisor"
[ -x "$BIN/gpupack-advisor" ] || { fail advisor-faults.built "$BIN/gpupack-advisor is missing"; exit 0; }
OUT=$E2E_TMP/out
ERR=$E2E_TMP/err

# fake MODE: starts advfake.py in MODE; sets PROM and LOG.
fake() {
    LOG=$E2E_TMP/$1.log
    rm -f "$E2E_TMP/port"
    python3 "$ROOT/tests/e2e/advfake.py" --port-file "$E2E_TMP/port" --log "$LOG" --mode "$1" &
    FAKE=$!
    E2E_PIDS="$E2E_PIDS $FAKE"
    i=0; while [ $i -lt 100 ] && [ ! -s "$E2E_TMP/port" ]; do sleep 0.1; i=$((i+1)); done
    PROM="http://127.0.0.1:$(cat "$E2E_TMP/port")"
}
stop() { kill "$FAKE" 2>/dev/null; wait "$FAKE" 2>/dev/null; }
# report WANT NAME ARGS...: runs a JSON report against $PROM; PASS when it exits WANT.
report() { want=$1; name=$2; shift 2
    $ADV report --prometheus "$PROM" --format json --since 1d --step 5m "$@" > "$OUT" 2> "$ERR"; rc=$?
    if [ "$rc" = "$want" ]; then pass "advisor-faults.$name"; else fail "advisor-faults.$name" "exit $rc, want $want: $(tail -c 400 "$ERR")"; fi; }
err_has() { if grep -qF -- "$2" "$ERR"; then pass "advisor-faults.$1"; else fail "advisor-faults.$1" "stderr: $(tail -c 400 "$ERR")"; fi; }
out_jq() { if jq -e "$2" "$OUT" >/dev/null 2>&1; then pass "advisor-faults.$1"; else fail "advisor-faults.$1" "stdout: $(head -c 300 "$OUT")"; fi; }

# A healthy fake first: the report works, every query is sent, progress is shown.
fake ok
report 0 ok --show-queries
out_jq ok-json '.totals.pods == 1 and (.totals.gpu_hours > 23.9 and .totals.gpu_hours < 24.1)'
err_has ok-progress "query 26/26 node-hourly:"
err_has ok-show-queries "query 3/26 activity-sum (instant at"
check advisor-faults.ok-26-queries test "$(wc -l < "$LOG")" -eq 26
check advisor-faults.ok-hourly-range-step sh -c "grep '/query_range' '$LOG' | jq -e 'select(.form.query | startswith(\"sum_over_time((sum by (node)\")) | (.form.step | tonumber) == 3600 and ((.form.end | tonumber) % 300) == 0 and ((.form.end | tonumber) - (.form.start | tonumber)) == 23 * 3600' | grep -qx true"
report 0 ok-quiet --quiet
check advisor-faults.quiet-no-progress sh -c "! grep -q '^query ' '$ERR'"
report 0 ok-log-level-warn --log-level warn
check advisor-faults.log-level-warn-no-progress sh -c "! grep -q '^query ' '$ERR'"
report 0 ok-output --quiet --output "$E2E_TMP/report.json"
check advisor-faults.output-written jq -e '.schema' "$E2E_TMP/report.json"
check advisor-faults.output-no-temp sh -c "! ls '$E2E_TMP' | grep -q 'report.json.tmp'"
check advisor-faults.output-not-stdout test ! -s "$OUT"
$ADV report --prometheus "$PROM" --quiet --since 1d --prometheus-header "X-Scope-OrgID: team-a" > /dev/null 2>&1
check advisor-faults.tenant-header sh -c "tail -n 1 '$LOG' | jq -e '.headers[\"X-Scope-OrgID\"] == \"team-a\"'"
printf 's3cret\n' > "$E2E_TMP/token"
$ADV report --prometheus "$PROM" --quiet --since 1d --prometheus-token-file "$E2E_TMP/token" > /dev/null 2>&1
check advisor-faults.bearer-token sh -c "tail -n 1 '$LOG' | jq -e '.headers.Authorization == \"Bearer s3cret\"'"
stop

# Down: nothing listens on the port.
PROM="http://127.0.0.1:$(free_port)"
report 1 down --quiet
err_has down-names-query "gpupack-advisor: dcgm-prof-series: "
err_has down-shows-promql "; PromQL: count by ("
err_has down-says-connect "connect"

fake 400
report 1 bad-data --quiet
err_has bad-data-names-query "gpupack-advisor: dcgm-prof-series: "
err_has bad-data-prometheus-words "parse error at char 7"
stop

fake 422
report 1 status-error --quiet
err_has status-error-words "too many samples"
stop

# A refusal of a query of 4,000 characters: Prometheus's words and what to do are shown (not
# cut off by the query's text, which is shown cut), and the line stays short.
fake 422node
report 1 long-query-error --quiet
err_has long-query-names-it "gpupack-advisor: node-empty-steps: prometheus /api/v1/query: HTTP 422"
err_has long-query-prometheus-words "too many samples into memory in query execution"
err_has long-query-what-to-do "raise Prometheus's --query.max-samples"
err_has long-query-promql-cut "... (--show-queries prints it whole)"
check advisor-faults.long-query-line-short test "$(wc -c < "$ERR")" -lt 700
stop

fake 503once
report 0 retried-503 --quiet
check advisor-faults.503-retried test "$(wc -l < "$LOG")" -eq 27
stop

fake 429once
START=$(date +%s)
report 0 retry-after-429 --quiet
check advisor-faults.429-waited test $(( $(date +%s) - START )) -ge 1
stop

fake slow
START=$(date +%s)
report 1 slow-timeout --quiet --prometheus-timeout 1s
check advisor-faults.slow-bounded test $(( $(date +%s) - START )) -lt 15
err_has slow-names-query "dcgm-prof-series:"
err_has slow-says-timed-out "timed out"
stop

fake nonjson
report 1 non-json --quiet
err_has non-json-names-query "dcgm-prof-series:"
err_has non-json-says-so "not a Prometheus API response"
stop

fake warn
report 0 warnings --quiet
err_has warning-on-stderr "warning: activity-p95: Prometheus: fake warning: partial response for act-p95"
out_jq warning-in-notes '[.notes[] | select(contains("fake warning"))] | length >= 26'
stop

fake nodcgm
report 1 no-dcgm --quiet
err_has no-dcgm-names-query "gpupack-advisor: activity-count: "
err_has no-dcgm-shows-promql "; PromQL: sum by ("
err_has no-dcgm-what-to-enable "no DCGM_FI_PROF_GR_ENGINE_ACTIVE or DCGM_FI_DEV_GPU_UTIL series in the window: is dcgm-exporter scraped by this Prometheus?"
stop

fake utilonly
report 0 util-only --quiet
err_has util-only-note "DCGM_FI_PROF_GR_ENGINE_ACTIVE absent: add it to dcgm-exporter's counters"
out_jq util-only-metric '.activity_metric == "DCGM_FI_DEV_GPU_UTIL / 100"'
out_jq util-only-note-in-report '[.notes[] | select(startswith("DCGM_FI_PROF_GR_ENGINE_ACTIVE absent"))] | length == 1'
stop

fake noksm
report 1 no-ksm --quiet
err_has no-ksm-names-query "gpupack-advisor: pod-requests: "
err_has no-ksm-shows-promql "; PromQL: max_over_time(sum by (namespace, pod, resource)"
err_has no-ksm-what-to-enable "kube_pod_container_resource_requests has no GPU requests in the window: is kube-state-metrics scraped?"
stop

fake nan
report 0 nan-samples --quiet
err_has nan-noted "activity-p95: 2 NaN or infinite values left out"
out_jq nan-in-notes '[.notes[] | select(contains("NaN or infinite"))] | length == 1'
stop

# A real, empty Prometheus (Debian's package) when installed: every one of the 26 queries must
# parse and run there (the fetch sends all of them before looking at the answers), and the
# empty answers end in the DCGM message.
if command -v prometheus >/dev/null 2>&1; then
    PORT=$(free_port)
    printf 'global:\n  scrape_interval: 1m\n' > "$E2E_TMP/prometheus.yml"
    prometheus --config.file="$E2E_TMP/prometheus.yml" --storage.tsdb.path="$E2E_TMP/tsdb" \
        --web.listen-address="127.0.0.1:$PORT" > "$E2E_TMP/prometheus.log" 2>&1 &
    E2E_PIDS="$E2E_PIDS $!"
    PROM="http://127.0.0.1:$PORT"
    i=0; while [ $i -lt 300 ] && ! curl -sf -o /dev/null --max-time 1 "$PROM/-/ready"; do sleep 0.1; i=$((i+1)); done
    report 1 real-prometheus-runs-every-query
    err_has real-prometheus-26-queries "query 26/26 node-hourly: "
    err_has real-prometheus-no-dcgm "gpupack-advisor: activity-count: no DCGM_FI_PROF"
else
    pass advisor-faults.real-prometheus-skipped
fi

# The same real Prometheus holding a day of backfilled samples (promtool): pod ml/a asks 1 GPU
# on n1 and is Running the first 12 hours only; its GPU has both DCGM_FI_PROF_GR_ENGINE_ACTIVE
# and DCGM_FI_DEV_GPU_UTIL; pod ml/b (1 GPU, all day) only DCGM_FI_DEV_GPU_UTIL; one GPU
# series has no pod label; b's request is exported twice (two kube-state-metrics). 12 + 24
# GPU-hours allocated.
if command -v prometheus >/dev/null 2>&1 && command -v promtool >/dev/null 2>&1; then
    END=$(( ($(date +%s) - 7200) / 300 * 300 ))
    python3 - "$END" > "$E2E_TMP/day.om" <<'PY'
import sys
end = int(sys.argv[1])
start = end - 86400
w = sys.stdout.write
series = {}
def add(name, labels, t, v):
    series.setdefault((name, labels), []).append((t, v))
ksm = 'namespace="ml",pod="%s"'
for t in range(start + 60, end + 1, 60):
    first_half = t <= end - 43200
    add("kube_pod_container_resource_requests", ksm % "a" + ',container="main",resource="nvidia_com_gpu",unit="integer"', t, 1)
    add("kube_pod_container_resource_requests", ksm % "b" + ',container="main",resource="nvidia_com_gpu",unit="integer"', t, 1)
    add("kube_pod_container_resource_requests", ksm % "b" + ',container="main",resource="nvidia_com_gpu",unit="integer",instance="ksm-2"', t, 1)
    add("kube_pod_status_phase", ksm % "a" + ',phase="Running"', t, 1 if first_half else 0)
    add("kube_pod_status_phase", ksm % "b" + ',phase="Running"', t, 1)
    add("kube_pod_info", ksm % "a" + ',node="n1"', t, 1)
    add("kube_pod_info", ksm % "b" + ',node="n1"', t, 1)
    add("kube_node_info", 'node="n1"', t, 1)
    add("kube_node_status_allocatable", 'node="n1",resource="nvidia_com_gpu",unit="integer"', t, 4)
dcgm = 'Hostname="n1",UUID="GPU-%d",gpu="%d",modelName="NVIDIA A100-SXM4-80GB",instance="10.0.0.9:9400",job="dcgm"'
for t in range(start + 30, end + 1, 30):
    if t <= end - 43200:
        a = dcgm % (1, 1) + ',exported_namespace="ml",exported_pod="a",namespace="monitoring",pod="dcgm-x"'
        add("DCGM_FI_PROF_GR_ENGINE_ACTIVE", a, t, 0.02)
        add("DCGM_FI_DEV_GPU_UTIL", a, t, 50)
    add("DCGM_FI_DEV_GPU_UTIL", dcgm % (2, 2) + ',exported_namespace="ml",exported_pod="b"', t, 30)
    add("DCGM_FI_DEV_GPU_UTIL", dcgm % (3, 3), t, 0)
names = sorted({n for n, _ in series})
for n in names:
    w("# TYPE %s gauge\n" % n)
    for (nn, labels), pts in series.items():
        if nn == n:
            for t, v in pts:
                w("%s{%s} %s %d\n" % (n, labels, v, t))
w("# EOF\n")
PY
    mkdir -p "$E2E_TMP/tsdb2"
    if promtool tsdb create-blocks-from openmetrics "$E2E_TMP/day.om" "$E2E_TMP/tsdb2" > "$E2E_TMP/promtool.log" 2>&1; then
        pass advisor-faults.backfill
    else
        fail advisor-faults.backfill "$(tail -n 3 "$E2E_TMP/promtool.log" | tr '\n' ' ')"
    fi
    PORT=$(free_port)
    prometheus --config.file="$E2E_TMP/prometheus.yml" --storage.tsdb.path="$E2E_TMP/tsdb2" \
        --web.listen-address="127.0.0.1:$PORT" --storage.tsdb.retention.time=30d \
        > "$E2E_TMP/prometheus2.log" 2>&1 &
    E2E_PIDS="$E2E_PIDS $!"
    PROM="http://127.0.0.1:$PORT"
    i=0; while [ $i -lt 300 ] && ! curl -sf -o /dev/null --max-time 1 "$PROM/-/ready"; do sleep 0.1; i=$((i+1)); done
    $ADV report --prometheus "$PROM" --format json --since 1d --step 5m --until "$END" > "$OUT" 2> "$ERR"
    check advisor-faults.backfilled-exit-0 test $? -eq 0
    out_jq backfilled-gpu-hours '(.totals.gpu_hours - 36 | fabs) < 0.01'
    out_jq backfilled-pods '.totals.pods == 2'
    out_jq backfilled-metric '.activity_metric | startswith("DCGM_FI_PROF_GR_ENGINE_ACTIVE")'
    out_jq backfilled-util-fallback-noted '[.notes[] | select(startswith("1 GPU series have no DCGM_FI_PROF_GR_ENGINE_ACTIVE"))] | length == 1'
    out_jq backfilled-unattributed-noted '[.notes[] | select(startswith("1 DCGM GPU series have no pod label"))] | length == 1'
    # The advisor's own activity-sum and activity-count texts (--show-queries), sent by curl: the
    # GPU with both fields is read from the PROF ratio (0.02), not GPU_UTIL (50%).
    $ADV report --prometheus "$PROM" --format json --since 1d --until "$END" --show-queries --quiet > /dev/null 2> "$ERR"
    for q in activity-sum activity-count; do
        grep -A1 "^query [0-9]*/26 $q " "$ERR" | tail -n 1 | sed 's/^  //' > "$E2E_TMP/$q.promql"
        curl -s --data-urlencode "query@$E2E_TMP/$q.promql" --data-urlencode "time=$END" "$PROM/api/v1/query" > "$E2E_TMP/$q.json"
    done
    check advisor-faults.backfilled-prof-preferred sh -c "jq -n --slurpfile s '$E2E_TMP/activity-sum.json' --slurpfile c '$E2E_TMP/activity-count.json' '([\$s[0].data.result[] | select(.metric.UUID == \"GPU-1\") | .value[1] | tonumber] | add) / ([\$c[0].data.result[] | select(.metric.UUID == \"GPU-1\") | .value[1] | tonumber] | add) | (. - 0.02 | fabs) < 1e-9' | grep -qx true"
    check advisor-faults.backfilled-util-as-ratio sh -c "jq -n --slurpfile s '$E2E_TMP/activity-sum.json' --slurpfile c '$E2E_TMP/activity-count.json' '([\$s[0].data.result[] | select(.metric.UUID == \"GPU-2\") | .value[1] | tonumber] | add) / ([\$c[0].data.result[] | select(.metric.UUID == \"GPU-2\") | .value[1] | tonumber] | add) | (. - 0.3 | fabs) < 1e-9' | grep -qx true"
fi
