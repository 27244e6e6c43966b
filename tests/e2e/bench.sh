#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# A smoke of `make bench` (tools/bench.sh --smoke: 1-second runs, a 200-node cluster): proves the
# benchmarks still run and every request they send succeeds. The figures mean nothing here;
# docs/benchmarks.md has the real ones. Not under valgrind.
. "$(dirname "$0")/lib.sh"
[ -z "$VG" ] || exit 0
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
if BENCH_OUT="$E2E_TMP/bench" BIN="$BIN" BUILD="$BUILD" timeout 300 "$ROOT/tools/bench.sh" --smoke > "$E2E_TMP/bench.out" 2>&1; then
    pass bench.smoke-runs
else
    fail bench.smoke-runs "$(tail -n 5 "$E2E_TMP/bench.out")"
fi
R="$E2E_TMP/bench/results.jsonl"
for m in floor-saturation-r1 mutate-saturation-r1 mutate-half-load mutate-new-handshake-each \
         floor-2.5k-saturation-r1 mutate-2.5k-saturation-r1 mutate-2.5k-half-load mutate-floor-ratio-2.5k \
         floor-sized-2.5k-saturation-r1 mutate-floor-sized-ratio-2.5k \
         extender-prioritize-500-names extender-prioritize-200-full-nodes mutate-floor-ratio \
         mig-view-build mig-choice-any-node mig-choice-no-node-matches; do
    jq -e -s --arg m "$m" 'any(.[]; .name == $m and ((.requests // .calls // .ratio // .us_per_decision // .ms // 0) > 0))' "$R" >/dev/null 2>&1 \
        && pass "bench.measures-$m" || fail "bench.measures-$m" "missing or empty in results.jsonl"
done
# The floor-sized floor answered as many bytes as the webhook's answer to the 2.5 KB review.
jq -e -s 'any(.[]; .name == "webhook-answer-bytes-2.5k" and .bytes > 1000)' "$R" >/dev/null 2>&1 \
    && pass bench.measures-webhook-answer-bytes || fail bench.measures-webhook-answer-bytes "missing: $(grep answer-bytes "$R")"
# Where an extender call's time goes, from the daemon's own phase histogram.
for m in extender-prioritize-500-names-one-at-a-time extender-filter-200-full-nodes; do
    jq -e -s --arg m "$m" 'any(.[]; .name == $m and .decode_ms > 0 and .decide_ms > 0 and .encode_ms > 0)' "$R" >/dev/null 2>&1 \
        && pass "bench.phases-$m" || fail "bench.phases-$m" "no decode/decide/encode split in results.jsonl"
done
# The advisor's report against the fake Prometheus: every query recognised, a report with findings.
jq -e -s 'any(.[]; .name == "advisor-report-160-gpus-1d" and .wall_s > 0 and .max_rss_kb > 0 and .fake_errors == 0 and .queries > 0 and (.findings | type) == "number")' "$R" >/dev/null 2>&1 \
    && pass bench.measures-advisor-report || fail bench.measures-advisor-report "missing or failed in results.jsonl: $(grep advisor "$R" | tail -n 1)"
# Instructions per scheduled pod, both scheduler configurations, split by call and watch (a
# sanitizer build records why it skipped them: valgrind cannot run it).
if ldd "$BIN/gpupack-extender" 2>/dev/null | grep -q libasan; then
    jq -e -s 'any(.[]; .name == "extender-callgrind-skipped")' "$R" >/dev/null 2>&1 \
        && pass bench.measures-extender-callgrind || fail bench.measures-extender-callgrind "no skip recorded"
else
jq -e -s 'any(.[]; .name == "extender-callgrind-filter-prioritize" and .ir_per_pod > 0 and .filter_ir_per_pod > 0
          and .prioritize_ir_per_pod > 0 and .watch_ir_per_pod > 0)
    and any(.[]; .name == "extender-callgrind-prioritize" and .prioritize_ir_per_pod > 0 and .filter_ir_per_pod == 0)' "$R" >/dev/null 2>&1 \
    && pass bench.measures-extender-callgrind || fail bench.measures-extender-callgrind "missing in results.jsonl: $(grep callgrind "$R" | tail -n 2)"
fi
# The prioritize-only configuration: no filter call, every pod prioritized among nodes with room.
for k in 230 500; do
    jq -e -s --arg m "extender-schedcycle-prioritize-only-$k-names" 'any(.[]; .name == $m and .pods > 0 and .bound == .pods
        and .errors == 0 and .filter_p99_ms == 0 and .prioritize_p99_ms > 0 and .prioritize_names_mean > 0)' "$R" >/dev/null 2>&1 \
        && pass "bench.measures-extender-schedcycle-prioritize-only-$k-names" \
        || fail "bench.measures-extender-schedcycle-prioritize-only-$k-names" "missing or failed: $(grep prioritize-only "$R" | tail -n 1)"
done
# The scheduler's cycle against the live view: every pod filtered, prioritized and bound, CPU read.
for k in 230 5000; do
    jq -e -s --arg m "extender-schedcycle-$k-names" 'any(.[]; .name == $m and .pods > 0 and .bound == .pods and .errors == 0
        and .filter_p99_ms > 0 and .prioritize_p99_ms > 0 and .extender_cpu_ms_per_pod >= 0)' "$R" >/dev/null 2>&1 \
        && pass "bench.measures-extender-schedcycle-$k-names" || fail "bench.measures-extender-schedcycle-$k-names" "missing or failed in results.jsonl: $(grep schedcycle "$R" | tail -n 1)"
done
