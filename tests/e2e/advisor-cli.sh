#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# gpupack-advisor's command line: --help and --version exit 0; a bad flag, value, subcommand or
# file exits 2 with a message naming the flag. No Prometheus is needed: every case fails before
# a query is sent.
. "$(dirname "$0")/lib.sh"
ADV="$VG $BIN/gpupack-advisor"
[ -x "$BIN/gpupack-advisor" ] || { fail advisor-cli.built "$BIN/gpupack-advisor is missing"; exit 0; }
OUT=$E2E_TMP/out
ERR=$E2E_TMP/err
U=http://127.0.0.1:9

# run_rc WANT NAME ARGS...: runs the advisor, PASS when it exits WANT.
run() { want=$1; name=$2; shift 2; $ADV "$@" > "$OUT" 2> "$ERR"; rc=$?
        if [ "$rc" = "$want" ]; then pass "advisor-cli.$name"; else fail "advisor-cli.$name" "exit $rc, want $want: $(head -c 300 "$ERR")"; fi; }
# err_has NAME TEXT: stderr of the last run contains TEXT.
err_has() { if grep -qF -- "$2" "$ERR"; then pass "advisor-cli.$1"; else fail "advisor-cli.$1" "stderr: $(head -c 300 "$ERR")"; fi; }

run 0 help --help
check advisor-cli.help-names-report grep -q "^usage: gpupack-advisor report \[flags\]" "$OUT"
check advisor-cli.help-lists-flags sh -c "grep -q -- '--since' '$OUT' && grep -q -- '--prometheus-header' '$OUT' && grep -q -- '--show-queries' '$OUT'"
run 0 report-help report --help
check advisor-cli.report-help-flags grep -q -- "--format" "$OUT"
run 0 version --version
check advisor-cli.version-line grep -qE '^gpupack-advisor [0-9]+\.[0-9]+' "$OUT"
run 0 report-version report --version

run 2 no-subcommand
err_has no-subcommand-says "a subcommand is required: report or serve"
run 2 unknown-subcommand optimise --prometheus "$U"
err_has unknown-subcommand-says 'unknown subcommand "optimise"; the subcommands are: report, serve'
run 2 flag-before-subcommand --prometheus "$U"
err_has flag-before-subcommand-says "give the subcommand first"

run 2 missing-prometheus report
err_has missing-prometheus-named "--prometheus: required"
run 2 unknown-flag report --prometheus "$U" --bogus
err_has unknown-flag-named "--bogus"
run 2 bad-since report --prometheus "$U" --since 3x
err_has bad-since-named '--since: want a duration'
run 2 bad-step report --prometheus "$U" --step 0s
err_has bad-step-named '--step:'
run 2 bad-until report --prometheus "$U" --until yesterday
err_has bad-until-named '--until: want RFC 3339'
run 2 bad-format report --prometheus "$U" --format pdf
err_has bad-format-named '--format'
run 2 bad-top report --prometheus "$U" --top many
err_has bad-top-named '--top'
run 2 too-many-steps report --prometheus "$U" --since 30d --step 1m
err_has too-many-steps-named '--since/--step: 43200 steps'
run 2 bad-timeout report --prometheus "$U" --prometheus-timeout soon
err_has bad-timeout-named '--prometheus-timeout'
run 2 cert-without-key report --prometheus "$U" --prometheus-cert /etc/hostname
err_has cert-without-key-named '--prometheus-cert: needs --prometheus-cert and --prometheus-key together'
run 2 bad-log-level report --prometheus "$U" --log-level loud
err_has bad-log-level-named '--log-level'
run 2 missing-policy report --prometheus "$U" --policy "$E2E_TMP/nope.json"
err_has missing-policy-named '--policy'
echo '{"mode": "sometimes"}' > "$E2E_TMP/bad-policy.json"
run 2 invalid-policy report --prometheus "$U" --policy "$E2E_TMP/bad-policy.json"
err_has invalid-policy-named '--policy'
run 2 bad-url report --prometheus "ftp://127.0.0.1/"
err_has bad-url-named '--prometheus'
run 2 bad-header report --prometheus "$U" --prometheus-header "no colon here"
err_has bad-header-named "--prometheus-header: prometheus header"
run 2 since-twice report --prometheus "$U" --since 1d --since 2d
err_has since-twice-named '--since'
run 2 missing-ca report --prometheus "$U" --prometheus-ca "$E2E_TMP/nope.pem"
err_has missing-ca-named '--prometheus-ca: No such file'
run 2 missing-token report --prometheus "$U" --prometheus-token-file "$E2E_TMP/nope.token"
err_has missing-token-named '--prometheus-token-file'
run 2 output-dir-missing report --prometheus "$U" --output "$E2E_TMP/no/such/dir/report.json"
err_has output-dir-missing-named '--output: No such file or directory'
mkdir -p "$E2E_TMP/adir"
run 2 output-is-a-directory report --prometheus "$U" --output "$E2E_TMP/adir"
err_has output-is-a-directory-named '--output: Is a directory'
run 2 recommendations-file-is-a-directory serve --prometheus "$U" --recommendations-file "$E2E_TMP/adir"
err_has recommendations-file-is-a-directory-named '--recommendations-file: Is a directory'
