#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The command line every gpupack program shares: -h and --help, --flag=value as well as
# --flag value, a usage error as one line naming the flag plus "see PROG --help" (exit 2), help
# within 100 columns, "cannot read FILE: reason" for a missing policy; then --check-policy, the
# policy digest in logs and metrics, and --once filter/prioritize failing alike on bad input.
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
T=$E2E_TMP
TRACE=$ROOT/data/alibaba-gpu-v2023
head -n 11 "$TRACE/openb_node_list_gpu_node.csv" > "$T/nodes.csv"
head -n 21 "$TRACE/openb_pod_list_default.csv" > "$T/pods.csv"
REVIEW="$ROOT/tests/examples/gpu-deployment-review.json"

# The extra flags each program needs to get as far as loading its policy.
base() {
    case $1 in
        webhook) echo "--review" ;;
        extender) echo "--once filter" ;;
        certs) echo "--check /dev/null" ;;
        sim) echo "--nodes $T/nodes.csv --pods $T/pods.csv --jobs=1" ;;
    esac
}
for p in webhook extender certs sim; do
    X="$BIN/gpupack-$p"
    for h in -h --help; do
        "$X" $h > "$T/help" 2>&1; rc=$?
        [ $rc = 0 ] && grep -q '^usage: ' "$T/help" && pass "cli.$p$h" || fail "cli.$p$h" "rc $rc"
    done
    "$X" -h | awk 'length > 100 { bad = 1; print } END { exit bad }' > "$T/long" \
        && pass "cli.$p-help-100-columns" || fail "cli.$p-help-100-columns" "$(head -n 2 "$T/long")"
    "$X" --version | grep -q "^gpupack-$p " && pass "cli.$p-version" || fail "cli.$p-version"
    # An unknown flag: exit 2, the flag named, no usage dump, the last line points to --help.
    "$X" $(base $p) --bogus-flag < /dev/null > /dev/null 2> "$T/err"; rc=$?
    [ $rc = 2 ] && grep -q -- '--bogus-flag' "$T/err" && ! grep -q '^usage:' "$T/err" \
        && [ "$(tail -n 1 "$T/err")" = "see gpupack-$p --help" ] \
        && pass "cli.$p-unknown-flag" || fail "cli.$p-unknown-flag" "rc $rc: $(cat "$T/err")"
    # A missing policy file, given as --policy=FILE.
    "$X" $(base $p) --policy=/nonexistent/policy.json < /dev/null > /dev/null 2> "$T/err"; rc=$?
    [ $rc = 2 ] && grep -q -- '--policy: cannot read /nonexistent/policy.json: No such file or directory' "$T/err" \
        && ! grep -q 'invalid policy' "$T/err" \
        && pass "cli.$p-policy-cannot-read" || fail "cli.$p-policy-cannot-read" "rc $rc: $(cat "$T/err")"
done
# A value flag without its value, both forms.
for p in webhook extender sim; do
    "$BIN/gpupack-$p" $(base $p) --policy < /dev/null > /dev/null 2> "$T/err"; rc=$?
    [ $rc = 2 ] && grep -q -- '--policy' "$T/err" && [ "$(wc -l < "$T/err")" -le 2 ] \
        && pass "cli.$p-missing-value" || fail "cli.$p-missing-value" "rc $rc: $(cat "$T/err")"
done
# --flag=value where sim used to refuse it: the same answer as --flag value.
"$BIN/gpupack-sim" --nodes="$T/nodes.csv" --pods="$T/pods.csv" --seed=7 --scorer=bestfit --json --jobs=1 > "$T/eq.json" 2>&1
"$BIN/gpupack-sim" --nodes "$T/nodes.csv" --pods "$T/pods.csv" --seed 7 --scorer bestfit --json --jobs 1 > "$T/sp.json" 2>&1
[ "$(jq -c 'del(.seconds, .us_per_node_scored)' "$T/eq.json")" = "$(jq -c 'del(.seconds, .us_per_node_scored)' "$T/sp.json")" ] \
    && jq -e '.seed == 7 and .scorer == "bestfit"' "$T/eq.json" >/dev/null \
    && pass cli.sim-equals-form || fail cli.sim-equals-form "$(head -c 300 "$T/eq.json")"

# --check-policy: 0 and the sha256 of the bytes, 1 with every error, 1 for an unreadable file.
cp "$ROOT/manifests/base/policy.json" "$T/good.json"
SUM=$(sha256sum "$T/good.json" | cut -d' ' -f1)
for p in webhook extender; do
    out=$("$BIN/gpupack-$p" --check-policy "$T/good.json" 2>&1); rc=$?
    [ $rc = 0 ] && [ "$out" = "$T/good.json: valid policy, sha256 $SUM" ] \
        && pass "cli.$p-check-policy-valid" || fail "cli.$p-check-policy-valid" "rc $rc: $out"
done
jq '.mode = "sometimes" | .bogusField = 1' "$T/good.json" > "$T/bad.json"
"$BIN/gpupack-webhook" --check-policy="$T/bad.json" > "$T/out" 2> "$T/err"; rc=$?
[ $rc = 1 ] && grep -q 'invalid policy' "$T/err" && grep -q "$T/bad.json: mode" "$T/err" \
    && grep -q "$T/bad.json: bogusField" "$T/err" && [ ! -s "$T/out" ] \
    && pass cli.check-policy-invalid-every-error || fail cli.check-policy-invalid-every-error "rc $rc: $(cat "$T/err")"
"$BIN/gpupack-webhook" --check-policy /nonexistent/p.json > /dev/null 2> "$T/err"; rc=$?
[ $rc = 1 ] && grep -q 'cannot read /nonexistent/p.json: No such file or directory' "$T/err" && ! grep -q 'invalid policy' "$T/err" \
    && pass cli.check-policy-unreadable || fail cli.check-policy-unreadable "rc $rc: $(cat "$T/err")"
"$BIN/gpupack-webhook" --check-policy > /dev/null 2>&1; rc=$?
[ $rc = 2 ] && pass cli.check-policy-usage-2 || fail cli.check-policy-usage-2 "rc $rc"
# --review answers at once: a live view could not have listed yet, so it is refused, not ignored.
"$BIN/gpupack-webhook" --review --kubeconfig "$T/none.yaml" < /dev/null > /dev/null 2> "$T/err"; rc=$?
[ $rc = 2 ] && grep -q -- '--kubeconfig: not with --review' "$T/err" \
    && pass cli.review-refuses-kubeconfig || fail cli.review-refuses-kubeconfig "rc $rc: $(cat "$T/err")"

# --once filter and --once prioritize: bad input fails both alike.
for v in filter prioritize; do
    echo 'not json' | "$BIN/gpupack-extender" --once $v --log-level error > /dev/null 2> "$T/err"; rc=$?
    [ $rc = 1 ] && grep -q "^gpupack-extender: --once $v: gpupack: bad ExtenderArgs" "$T/err" \
        && pass "cli.once-$v-bad-input-exit-1" || fail "cli.once-$v-bad-input-exit-1" "rc $rc: $(cat "$T/err")"
done

# The policy digest in the log and the metrics, both daemons, on --health-listen.
VERSION=$(cat "$ROOT/VERSION")
CERTS="$T/certs"
make_certs "$CERTS"
cp "$T/good.json" "$T/live.json"
HW=$(free_port); HX=$(free_port)
"$BIN/gpupack-webhook" --listen 127.0.0.1:0 --tls-cert "$CERTS/tls.crt" --tls-key "$CERTS/tls.key" --health-listen "127.0.0.1:$HW" \
    --policy "$T/live.json" --reload-interval 100 --drain-seconds 0 2> "$T/w.log" &
E2E_PIDS="$E2E_PIDS $!"
"$BIN/gpupack-extender" --listen 127.0.0.1:0 --health-listen "127.0.0.1:$HX" --policy "$T/live.json" --drain-seconds 0 2> "$T/x.log" &
E2E_PIDS="$E2E_PIDS $!"
WPORT=$(serving_port "$T/w.log")
wait_http "http://127.0.0.1:$HW/healthz" 10; wait_http "http://127.0.0.1:$HX/healthz" 10
for d in w x; do
    jq -s -e --arg d "$SUM" 'map(select(.msg == "policy loaded")) | length == 1 and .[0].digest == $d' "$T/$d.log" >/dev/null \
        && pass "cli.$d-logs-digest-at-start" || fail "cli.$d-logs-digest-at-start" "$(head -n 2 "$T/$d.log")"
done
for port in $HW $HX; do
    curl -s "http://127.0.0.1:$port/metrics" > "$T/m"
    grep -q "^gpupack_policy_info{digest=\"$SUM\"} 1$" "$T/m" && grep -q "^gpupack_build_info{version=\"$VERSION\"} 1$" "$T/m" \
        && grep -q '^gpupack_policy_last_reload_successful 1$' "$T/m" && grep -q '^gpupack_policy_reloads_total{result="failure"} 0$' "$T/m" \
        && grep -q '^gpupack_policy_last_reload_timestamp_seconds [1-9]' "$T/m" \
        && pass "cli.metrics-from-start-$port" || fail "cli.metrics-from-start-$port" "$(grep -v '^#' "$T/m" | grep policy)"
done
curl -s "http://127.0.0.1:$HW/metrics" > "$T/m"
grep -q '^gpupack_mutations_total{kind="spot"} 0$' "$T/m" && grep -q '^gpupack_admission_reviews_total{outcome="patched"} 0$' "$T/m" \
    && pass cli.webhook-series-at-zero || fail cli.webhook-series-at-zero "$(grep -v '^#' "$T/m" | head -n 20)"
curl -s "http://127.0.0.1:$HX/metrics" > "$T/m"
grep -q '^gpupack_extender_calls_total{verb="filter",outcome="ok"} 0$' "$T/m" \
    && grep -q '^gpupack_extender_calls_total{verb="prioritize",outcome="not-synced"} 0$' "$T/m" \
    && grep -q '^gpupack_extender_filter_nodes_total{result="unresolvable"} 0$' "$T/m" \
    && pass cli.extender-series-at-zero || fail cli.extender-series-at-zero "$(grep -v '^#' "$T/m" | grep extender | head -n 20)"
# One review: one pod per kind, however many patch operations (priority-class takes three).
curl -s --cacert "$CERTS/ca.crt" -H 'Content-Type: application/json' --data-binary "@$REVIEW" "https://localhost:$WPORT/mutate" > /dev/null
curl -s "http://127.0.0.1:$HW/metrics" > "$T/m"
grep -q '^gpupack_mutations_total{kind="priority-class"} 1$' "$T/m" && grep -q '^gpupack_mutations_total{kind="annotation"} 1$' "$T/m" \
    && pass cli.mutations-count-pods || fail cli.mutations-count-pods "$(grep '^gpupack_mutations_total' "$T/m")"
# An invalid reload: the success gauge turns 0, the info keeps the policy in force.
cp "$T/bad.json" "$T/live.json"
i=0; while [ $i -lt 50 ] && ! curl -s "http://127.0.0.1:$HW/metrics" | grep -q '^gpupack_policy_last_reload_successful 0$'; do sleep 0.1; i=$((i+1)); done
curl -s "http://127.0.0.1:$HW/metrics" > "$T/m"
grep -q '^gpupack_policy_last_reload_successful 0$' "$T/m" && grep -q "^gpupack_policy_info{digest=\"$SUM\"} 1$" "$T/m" \
    && pass cli.reload-failure-gauge || fail cli.reload-failure-gauge "$(grep policy "$T/m" | grep -v '^#')"
# A valid change: the new digest, in the log line and as the only info series.
jq '.mode = "audit"' "$T/good.json" > "$T/new.json"; cp "$T/new.json" "$T/live.json"
NEW=$(sha256sum "$T/live.json" | cut -d' ' -f1)
i=0; while [ $i -lt 50 ] && ! curl -s "http://127.0.0.1:$HW/metrics" | grep -q "$NEW"; do sleep 0.1; i=$((i+1)); done
curl -s "http://127.0.0.1:$HW/metrics" > "$T/m"
[ "$(grep -c '^gpupack_policy_info{' "$T/m")" = 1 ] && grep -q "^gpupack_policy_info{digest=\"$NEW\"} 1$" "$T/m" \
    && grep -q '^gpupack_policy_last_reload_successful 1$' "$T/m" \
    && jq -s -e --arg d "$NEW" 'map(select(.msg == "policy reloaded")) | .[-1].digest == $d' "$T/w.log" >/dev/null \
    && pass cli.reload-new-digest || fail cli.reload-new-digest "$(grep policy_info "$T/m")"
