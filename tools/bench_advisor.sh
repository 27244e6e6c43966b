#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The advisor benchmark (tools/bench.sh runs it; alone: tools/bench_advisor.sh [--smoke]).
#
# `gpupack-advisor report` over a synthetic cluster of BENCH_ADVISOR_GPUS GPUs (default 10,000:
# 1,250 nodes x 8) and BENCH_ADVISOR_SINCE (default 7d) at the default 5-minute step, against
# tests/bench/advisor_fake.py: a fake Prometheus that answers each of the advisor's queries with
# results shaped as Prometheus's for that cluster. The advisor runs once to warm the fake (which
# builds each distinct answer once and keeps it), then again under /usr/bin/time -v: wall
# seconds, user+sys CPU seconds and peak RSS of the advisor; the fake's own time answering (its
# /stats) is reported apart, as Prometheus's would be. Targets: 10 s and 200 MB.
#
# Then, when prometheus and promtool are installed, the same at BENCH_ADVISOR_REAL_GPUS (default
# 48: 6 nodes, 7.8 million raw samples, about two minutes of backfill on 2 cores) against a real
# Prometheus holding the fake's cluster as raw series (kube-state-metrics every 60 s,
# dcgm-exporter every 30 s, backfilled with promtool): the advisor's wall time, CPU and RSS, and
# Prometheus's time as the sum of the per-query seconds the advisor prints.
#
# Appends to $OUT/results.jsonl (BENCH_OUT or build/bench), prints one line per measurement.
set -u
cd "$(dirname "$0")/.." || exit 1
ROOT=$(pwd)
BIN=${BIN:-bin}
BUILD=${BUILD:-build}
SMOKE=0
[ "${1:-}" = --smoke ] && SMOKE=1
OUT=${BENCH_OUT:-$BUILD/bench}
case $OUT in /*) ;; *) OUT="$ROOT/$OUT" ;; esac
mkdir -p "$OUT"
RES="$OUT/results.jsonl"
GPUS=${BENCH_ADVISOR_GPUS:-10000}; SINCE=${BENCH_ADVISOR_SINCE:-7d}
REAL_GPUS=${BENCH_ADVISOR_REAL_GPUS:-48}; REAL_SINCE=${BENCH_ADVISOR_REAL_SINCE:-7d}
if [ $SMOKE = 1 ]; then
    GPUS=${BENCH_ADVISOR_GPUS:-160}; SINCE=${BENCH_ADVISOR_SINCE:-1d}
    REAL_GPUS=0
fi
UNTIL=1764806400 # 2025-12-04T00:00:00Z: a fixed window, so every run sees the same cluster
ADV="$BIN/gpupack-advisor"
PIDS=""
cleanup() { for p in $PIDS; do kill "$p" 2>/dev/null; done; for p in $PIDS; do wait "$p" 2>/dev/null; done; }
trap cleanup EXIT INT TERM
record() { # NAME JSON
    echo "$2" | jq -c --arg n "$1" '{name: $n} + .' >> "$RES"
}
if [ ! -x "$ADV" ]; then
    record advisor-report '{"skipped": "bin/gpupack-advisor is not built"}'
    echo "advisor: skipped, $ADV is not built"
    exit 0
fi

# timed NAME CMD...: runs CMD under /usr/bin/time -v into $OUT/NAME.{json,err,time}; sets
# WALL, CPU (user + sys) seconds, RSS_KB and RC.
timed() {
    n=$1; shift
    /usr/bin/time -v -o "$OUT/$n.time" "$@" > "$OUT/$n.json" 2> "$OUT/$n.err"
    RC=$?
    WALL=$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, a, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + a[i]; print s}' "$OUT/$n.time")
    CPU=$(awk -F': ' '/User time|System time/ {s += $2} END {printf "%.2f", s}' "$OUT/$n.time")
    RSS_KB=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$OUT/$n.time")
}
# wait_port FILE PID: the port a server wrote to FILE, waiting up to 300 s (building a large
# cluster's raw series takes a while); empty when the server died first.
wait_port() {
    i=0
    while [ $i -lt 3000 ] && [ ! -s "$1" ] && kill -0 "$2" 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
    cat "$1" 2>/dev/null
}

# ---- against the fake, at scale ---------------------------------------------------------------------
rm -f "$OUT/advisor-fake.port"
python3 tests/bench/advisor_fake.py --port-file "$OUT/advisor-fake.port" --end $UNTIL --since "$SINCE" \
    --gpus "$GPUS" --log "$OUT/advisor-fake.log" 2> "$OUT/advisor-fake.err" &
FPID=$!; PIDS="$PIDS $FPID"
FPORT=$(wait_port "$OUT/advisor-fake.port" $FPID)
[ -n "$FPORT" ] || { echo "bench: advisor_fake did not start: $(tail -n 3 "$OUT/advisor-fake.err")" >&2; exit 1; }
URL="http://127.0.0.1:$FPORT"
set -- report --prometheus "$URL" --format json --quiet --until $UNTIL --since "$SINCE"
STATUS=0
# fake_run: the warm-up and the timed run; records the measurement or why it failed.
fake_run() {
    timed advisor-warm "$ADV" "$@"
    if [ "$RC" != 0 ]; then
        msg=$(tail -n 2 "$OUT/advisor-warm.err" | tr -d '"\\' | tr '\n' ' ' | cut -c1-400)
        record "advisor-report-$GPUS-gpus-$SINCE" "$(jq -n -c --arg m "$msg" --argjson rc "$RC" --argjson w "$WALL" \
            --argjson rss "$RSS_KB" '{errors: 1, exit: $rc, message: $m, wall_s: $w, max_rss_kb: $rss}')"
        echo "advisor report, $GPUS GPUs x $SINCE against the fake: FAILED (exit $RC after $WALL s, $((RSS_KB / 1024)) MB RSS): $msg"
        STATUS=1; return
    fi
    s0=$(curl -s "$URL/stats")
    timed advisor "$ADV" "$@"
    s1=$(curl -s "$URL/stats")
    if [ "$RC" != 0 ]; then
        record "advisor-report-$GPUS-gpus-$SINCE" "{\"errors\": 1, \"exit\": $RC}"
        echo "advisor: the timed run failed (exit $RC): $(tail -n 2 "$OUT/advisor.err")" >&2
        STATUS=1; return
    fi
    findings=$(jq '.findings_total // (.findings | length)' "$OUT/advisor.json" 2>/dev/null || echo null)
    r=$(jq -n -c --argjson a "$s0" --argjson b "$s1" --argjson wall "$WALL" --argjson cpu "$CPU" \
        --argjson rss "$RSS_KB" --argjson f "${findings:-null}" '
        {wall_s: $wall, cpu_s: $cpu, max_rss_kb: $rss, findings: $f,
         fake_serve_s: (($b.serve_seconds - $a.serve_seconds) * 1000 | round / 1000),
         fake_build_s: (($b.build_seconds - $a.build_seconds) * 1000 | round / 1000),
         queries: ($b.requests - $a.requests), response_mb: (($b.bytes - $a.bytes) / 1048576 | round),
         fake_errors: ($b.errors - $a.errors), cluster: $b.cluster,
         target_wall_s: 10, target_rss_mb: 200}
        | . + {wall_minus_fake_s: ((.wall_s - .fake_serve_s) * 100 | round / 100)}')
    record "advisor-report-$GPUS-gpus-$SINCE" "$r"
    echo "$r" | jq -r '"advisor report, \(.cluster.gpus) GPUs (\(.cluster.pods) pods) x '"$SINCE"' against the fake: " +
        "\(.wall_s) s wall (target <= 10 s; fake answering \(.fake_serve_s) s of it), \(.cpu_s) s CPU, " +
        "\(.max_rss_kb / 1024 | round) MB RSS (target <= 200 MB); \(.queries) queries, \(.response_mb) MB of answers, \(.findings) findings"'
}
fake_run "$@"
kill $FPID 2>/dev/null

# ---- against a real Prometheus, smaller ---------------------------------------------------------------
[ "$REAL_GPUS" -gt 0 ] || exit $STATUS
if ! command -v prometheus >/dev/null || ! command -v promtool >/dev/null; then
    record advisor-report-real-prometheus '{"skipped": "prometheus or promtool is missing"}'
    exit $STATUS
fi
P="$OUT/advisor-prom"
rm -rf "$P" && mkdir -p "$P/tsdb"
g0=$(date +%s)
python3 tests/bench/advisor_fake.py --openmetrics "$P/om" --end $UNTIL --since "$REAL_SINCE" \
    --gpus "$REAL_GPUS" > "$P/gen.json" 2> "$P/gen.err" ||
    { echo "bench: series generation failed: $(tail -n 2 "$P/gen.err")" >&2; exit 1; }
for f in "$P"/om/block-*.om; do
    promtool tsdb create-blocks-from openmetrics -q "$f" "$P/tsdb" >> "$P/promtool.log" 2>&1 ||
        { echo "bench: promtool failed on $f: $(tail -n 2 "$P/promtool.log")" >&2; exit 1; }
    rm -f "$f"
done
backfill=$(( $(date +%s) - g0 ))
printf 'global:\n  scrape_interval: 1m\n' > "$P/prometheus.yml"
PPORT=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')
prometheus --config.file="$P/prometheus.yml" --storage.tsdb.path="$P/tsdb" \
    --web.listen-address="127.0.0.1:$PPORT" --storage.tsdb.retention.time=100y \
    --query.max-samples=200000000 > "$P/prometheus.log" 2>&1 &
PPID_=$!; PIDS="$PIDS $PPID_"
i=0; while [ $i -lt 600 ] && ! curl -sf -o /dev/null --max-time 1 "http://127.0.0.1:$PPORT/-/ready"; do sleep 0.1; i=$((i + 1)); done
# Prometheus compacts the 2-hour blocks it was given into larger ones in the background: wait until
# the number of blocks stays put for 10 s (at most 4 minutes), as a running Prometheus would be.
last=-1; same=0; i=0
while [ $i -lt 240 ] && [ $same -lt 10 ]; do
    n=$(ls -d "$P"/tsdb/01* 2>/dev/null | wc -l)
    if [ "$n" = "$last" ]; then same=$((same + 1)); else same=0; last=$n; fi
    sleep 1; i=$((i + 1))
done
set -- report --prometheus "http://127.0.0.1:$PPORT" --format json --until $UNTIL --since "$REAL_SINCE"
# Not --quiet: the progress lines carry each query's seconds. The first run reads the blocks from
# disk; the second is timed.
timed advisor-real-cold "$ADV" "$@"
cold=$(sed -n 's/^query [0-9]*\/[0-9]* [^:]*: \([0-9.]*\) s.*/\1/p' "$OUT/advisor-real-cold.err" | awk '{s += $1} END {printf "%.2f", s}')
timed advisor-real "$ADV" "$@"
[ "$RC" = 0 ] || { echo "advisor against Prometheus failed (exit $RC): $(tail -n 2 "$OUT/advisor-real.err")" >&2
                   record advisor-report-real-prometheus "{\"errors\": 1, \"exit\": $RC}"; exit 1; }
# "query 3/17 activity-p95: 0.42 s, 1520 series": Prometheus's time is the sum of those seconds
promq=$(sed -n 's/^query [0-9]*\/[0-9]* [^:]*: \([0-9.]*\) s.*/\1/p' "$OUT/advisor-real.err" | awk '{s += $1} END {printf "%.2f", s}')
nq=$(grep -c '^query [0-9]*/' "$OUT/advisor-real.err")
findings=$(jq '.findings_total // (.findings | length)' "$OUT/advisor-real.json" 2>/dev/null || echo null)
r=$(jq -n -c --argjson wall "$WALL" --argjson cpu "$CPU" --argjson rss "$RSS_KB" --argjson pq "$promq" \
    --argjson nq "$nq" --argjson f "${findings:-null}" --argjson b "$backfill" \
    '{gpus: '"$REAL_GPUS"', wall_s: $wall, cpu_s: $cpu, max_rss_kb: $rss, prometheus_query_s: $pq,
      queries: $nq, findings: $f, wall_minus_prometheus_s: (($wall - $pq) * 100 | round / 100),
      backfill_s: $b, blocks: '"$last"', prometheus_query_first_run_s: '"$cold"'}')
# The same cluster from the fake: the report must not tell them apart (the fake's activity
# statistics are not computed from raw samples, so only what kube-state-metrics decides is compared).
rm -f "$OUT/advisor-fake-small.port"
python3 tests/bench/advisor_fake.py --port-file "$OUT/advisor-fake-small.port" --end $UNTIL --since "$REAL_SINCE" \
    --gpus "$REAL_GPUS" 2> "$OUT/advisor-fake-small.err" &
F2=$!; PIDS="$PIDS $F2"
F2PORT=$(wait_port "$OUT/advisor-fake-small.port" $F2)
"$ADV" report --prometheus "http://127.0.0.1:$F2PORT" --format json --quiet --until $UNTIL --since "$REAL_SINCE" \
    > "$OUT/advisor-fake-small.json" 2>> "$OUT/advisor-fake-small.err"
kill $F2 2>/dev/null
same=$(jq -n --slurpfile a "$OUT/advisor-real.json" --slurpfile b "$OUT/advisor-fake-small.json" \
    '$a[0].totals.gpu_hours == $b[0].totals.gpu_hours and $a[0].totals.pods == $b[0].totals.pods' 2>/dev/null || echo false)
r=$(echo "$r" | jq -c --argjson g "$(cat "$P/gen.json")" --argjson s "$same" '. + {raw_samples: $g.samples, fake_same_gpu_hours_and_pods: $s}')
record "advisor-report-real-prometheus-$REAL_GPUS-gpus-$REAL_SINCE" "$r"
echo "$r" | jq -r '"advisor report, \(.gpus) GPUs x '"$REAL_SINCE"' against a real Prometheus: \(.wall_s) s wall, " +
    "of which Prometheus \(.prometheus_query_s) s over \(.queries) queries; \(.cpu_s) s CPU, \(.max_rss_kb / 1024 | round) MB RSS, \(.findings) findings; " +
    "the fake at this size gives the same GPU-hours and pods: \(.fake_same_gpu_hours_and_pods)"'
exit $STATUS
