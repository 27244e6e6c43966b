# SPDX-License-Identifier: Apache-2.0
# The closing lines of a test run (sourced by tests/run.sh and tests/check.sh).
# summarize LOGDIR: counts the PASS and FAIL lines of LOGDIR/*.out, lists the failures, prints
# "N passed, N failed" last and returns non-zero on any failure or when nothing passed.
summarize() {
    passed=$(cat "$1"/*.out 2>/dev/null | grep -c '^PASS ')
    failed=$(cat "$1"/*.out 2>/dev/null | grep -c '^FAIL ')
    if [ "$failed" -gt 0 ]; then
        echo
        echo "failures:"
        cat "$1"/*.out | grep '^FAIL '
    fi
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
}
