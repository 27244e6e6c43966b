#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# gpupack-advisor end to end against a real Prometheus (Debian's prometheus package): a week of
# dcgm-exporter and kube-state-metrics series for a synthetic cluster (tests/tools/
# gen_advisor_data.py, fixed seed) is backfilled with promtool, the advisor reports on it, and
# the JSON report must match, to the cent, what tests/tools/advisor_expect.py computes from the
# same scenario by the spec's definitions (findings, ranking, MIG profile, cheaper model,
# totals). Then the table, Markdown and HTML formats of the same report, and the error for a
# window without data. The whole script must take under a minute.
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
T0=$(date +%s)
ADV="$VG $BIN/gpupack-advisor"
TOOLS="$ROOT/tests/tools"
UNTIL=2026-11-30T00:00:00Z
[ -x "$BIN/gpupack-advisor" ] || { fail advisor.built "$BIN/gpupack-advisor is missing"; exit 0; }
. "$(dirname "$0")/advprom.sh"
python3 "$TOOLS/advisor_expect.py" > "$E2E_TMP/expected.json" 2> "$E2E_TMP/expect.err" \
    || fail advisor.expect "$(tail -n 3 "$E2E_TMP/expect.err")"
adv_prom_start advisor || exit 0
T1=$(date +%s)

# report FORMAT [more flags]: the advisor on the week, stdout in $E2E_TMP/report.FORMAT.
report() {
    fmt=$1; shift
    $ADV report --prometheus "$PROM" --until "$UNTIL" --since 7d --step 5m \
        --policy "$E2E_TMP/policy.json" --top 50 --format "$fmt" "$@" \
        > "$E2E_TMP/report.$fmt" 2> "$E2E_TMP/report.$fmt.err"
}

report json; rc=$?
if [ $rc -eq 0 ]; then pass advisor.json-exit-0
else fail advisor.json-exit-0 "exit $rc: $(head -c 600 "$E2E_TMP/report.json.err")"; fi
# One line per check: each finding's numbers, the ranking, the MIG choice, the totals.
python3 "$TOOLS/advisor_expect.py" --compare "$E2E_TMP/report.json"

# The per-step queries are asked in parts of --query-steps steps (576 by default: 4 parts for the
# week): all at once, in 21 parts, and by default, the same report.
check advisor.per-step-in-parts grep -q '^query 9/26 pod-requests: .* in 4 parts$' "$E2E_TMP/report.json.err"
for qsteps in 0 100; do
    report json --query-steps $qsteps > /dev/null 2>&1
    mv "$E2E_TMP/report.json" "$E2E_TMP/report-$qsteps.json"
    mv "$E2E_TMP/report.json.err" "$E2E_TMP/report-$qsteps.err"
done
report json
# same_report A B: the two JSON reports are the same but for when they were made.
same_report() { [ "$(jq -S 'del(.generated_at)' "$1")" = "$(jq -S 'del(.generated_at)' "$2")" ]; }
check advisor.per-step-all-at-once sh -c "! grep -q 'pod-requests: .* parts' '$E2E_TMP/report-0.err'"
check advisor.per-step-one-query-same-report same_report "$E2E_TMP/report-0.json" "$E2E_TMP/report.json"
check advisor.per-step-21-parts-same-report same_report "$E2E_TMP/report-100.json" "$E2E_TMP/report.json"
check advisor.per-step-21-parts grep -q '^query 9/26 pod-requests: .* in 21 parts$' "$E2E_TMP/report-100.err"

# The hourly range queries are asked 48 hours at a time (--query-steps 576 of 5 minutes): over
# the same week of data and three empty days before it, the last 168 hours are the week's own.
$ADV report --prometheus "$PROM" --until "$UNTIL" --since 10d --step 5m --policy "$E2E_TMP/policy.json" \
    --format json > "$E2E_TMP/report10.json" 2> "$E2E_TMP/report10.err"; rc=$?
check advisor.long-window-exit-0 [ $rc -eq 0 ]
check advisor.long-window-in-parts grep -q '^query 6/26 activity-hourly: .* in 5 parts$' "$E2E_TMP/report10.err"
check advisor.long-window-same-hours jq -e --slurpfile w "$E2E_TMP/report.json" '
    .totals.hourly as $a | $w[0].totals.hourly as $b
    | ($a.allocated | length) == 240 and ($b.allocated | length) == 168
    and ([$b.allocated[], $b.idle[]] | map(select(. != null and . > 0)) | length) > 100
    and ([range(168)] | all(. as $i | (($a.allocated[$i + 72] // 0) - ($b.allocated[$i] // 0) | fabs) < 1e-9
                              and (($a.idle[$i + 72] // 0) - ($b.idle[$i] // 0) | fabs) < 1e-9))' \
    "$E2E_TMP/report10.json"

# The same report in the other formats.
TOP=$(jq -r '.findings[0].workload' "$E2E_TMP/expected.json")
report table; rc=$?
check advisor.table-exit-0 [ $rc -eq 0 ]
check advisor.table-fits-100-columns sh -c "[ -s '$E2E_TMP/report.table' ] && ! LC_ALL=C.UTF-8 \
    awk 'length(\$0) > 100 { bad = 1 } END { exit !bad }' '$E2E_TMP/report.table'"
check advisor.table-top-finding grep -qF "$TOP" "$E2E_TMP/report.table"
report markdown; rc=$?
check advisor.markdown-exit-0 [ $rc -eq 0 ]
# docs/advisor.md's worked example is this report, byte for byte.
awk '/^````markdown$/ { on = 1; next } /^````$/ { on = 0 } on' "$ROOT/docs/advisor.md" \
    > "$E2E_TMP/doc-report.markdown"
cmp -s "$E2E_TMP/doc-report.markdown" "$E2E_TMP/report.markdown" && pass advisor.markdown-is-the-docs-example \
    || fail advisor.markdown-is-the-docs-example "$(diff "$E2E_TMP/doc-report.markdown" "$E2E_TMP/report.markdown" | head -c 600)"
# The findings table: its first row names the top finding and its dollars (Markdown
# punctuation comes backslash-escaped).
TOPD=$(jq -r '.findings[0].dollars' "$E2E_TMP/expected.json" \
    | python3 -c 'import sys; print("${:,.2f}".format(float(sys.stdin.read())))')
check advisor.markdown-top-finding sh -c "grep -E '^\| *1 *\|' '$E2E_TMP/report.markdown' \
    | sed 's/\\\\//g' | grep -F '$TOP' | grep -qF '$TOPD'"
report html --output "$E2E_TMP/report.html"; rc=$?
check advisor.html-exit-0 [ $rc -eq 0 ]
# The headline: the recoverable $/month the JSON report states, grouped ($89,319.89).
HEAD=$(jq -r '.totals.recoverable_monthly_dollars' "$E2E_TMP/report.json" 2>/dev/null \
    | python3 -c 'import sys; print("${:,.2f}/month recoverable".format(float(sys.stdin.read())))' \
    2>/dev/null)
check advisor.html-headline grep -qF "$HEAD" "$E2E_TMP/report.html"
check advisor.html-top-finding grep -qF "$TOP" "$E2E_TMP/report.html"
CHROME=$(command -v chromium || command -v chromium-browser || true)
if [ -n "$CHROME" ] && [ -s "$E2E_TMP/report.html" ]; then
    timeout 60 "$CHROME" --headless=new --no-sandbox --disable-gpu --no-first-run \
        --user-data-dir="$E2E_TMP/profile" --host-resolver-rules="MAP * ~NOTFOUND" \
        --dump-dom "file://$E2E_TMP/report.html" > "$E2E_TMP/dom.html" 2> "$E2E_TMP/chrome.log"
    check advisor.html-dom-headline \
        sh -c "grep -o '<h1 id=\"headline\">[^<]*' '$E2E_TMP/dom.html' | grep -qF '$HEAD'"
fi

# A window with no data at all: exit 1, the message says what to scrape.
$ADV report --prometheus "$PROM" --until 2026-10-01T00:00:00Z --since 1d \
    --policy "$E2E_TMP/policy.json" --format json > /dev/null 2> "$E2E_TMP/empty.err"; rc=$?
if [ $rc -eq 1 ] && grep -q "is dcgm-exporter scraped by this Prometheus" "$E2E_TMP/empty.err"; then
    pass advisor.no-data-exit-1
else fail advisor.no-data-exit-1 "exit $rc: $(head -c 400 "$E2E_TMP/empty.err")"; fi

# Kubernetes objects fill in what kube-state-metrics did not export: a pod label outside its
# allowlist (the policy's first model label) becomes the finding's model.
cat > "$E2E_TMP/pods.json" <<'JSON'
{"apiVersion": "v1", "kind": "List", "items": [
 {"apiVersion": "v1", "kind": "Pod", "metadata": {"namespace": "ml",
  "name": "ranker-7d9f8b6c5-x2x9z", "labels": {"gpupack.io/model": "ranker-v2"}}}]}
JSON
report json --snapshot-pods "$E2E_TMP/pods.json"; rc=$?
check advisor.snapshot-exit-0 [ $rc -eq 0 ]
check advisor.snapshot-fills-model sh -c "jq -e '[.findings[] | select(.workload_name == \"ranker\")
    | .model] | length > 0 and all(. == \"ranker-v2\")' '$E2E_TMP/report.json' > /dev/null"
check advisor.snapshot-says-so grep -q "1 pod labels" "$E2E_TMP/report.json.err"
$ADV report --prometheus "$PROM" --until "$UNTIL" --since 7d --policy "$E2E_TMP/policy.json" \
    --snapshot-nodes "$E2E_TMP/report.json.err" > /dev/null 2> "$E2E_TMP/badsnap.err"; rc=$?
check advisor.snapshot-bad-file-exit-2 sh -c "[ $rc -eq 2 ] && grep -q 'report.json.err' '$E2E_TMP/badsnap.err'"

# How long it took, for the log (speed targets live in make bench).
echo "advisor.sh: generate + backfill + start $((T1 - T0)) s, in all $(($(date +%s) - T0)) s"
