#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# An unknown flag is one line and "see PROG --help", exit 2, on every program (docs): gpupack-certs
# alone adds three "--service/--namespace/--out: required" lines when those are not given.
. "$(dirname "$0")/lib.sh"
for p in gpupack-webhook gpupack-extender gpupack-certs; do
    "$BIN/$p" --bogus > "$E2E_TMP/out" 2> "$E2E_TMP/err"; rc=$?
    [ $rc -eq 2 ] && [ "$(wc -l < "$E2E_TMP/err")" -eq 2 ] && grep -q -- "--bogus: unknown flag" "$E2E_TMP/err" \
        && [ "$(tail -n 1 "$E2E_TMP/err")" = "see $p --help" ] \
        && pass "certs-unknown-flag.unknown-flag-one-line.$p" || fail "certs-unknown-flag.unknown-flag-one-line.$p" "rc $rc: $(cat "$E2E_TMP/err")"
done
