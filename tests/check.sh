#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The quick tier (`make check`): every unit test binary and the fixture cases (split into shards),
# run in parallel, each job's output kept together and printed in a fixed order. Like
# tests/run.sh, every test prints one "PASS name" or "FAIL name" line and the last line of the
# run is "N passed, N failed". The black-box tests are left to `make test`.
#   CHECK_JOBS   jobs at a time (default: twice the CPUs; the unit tests mostly wait)
set -u
cd "$(dirname "$0")/.." || exit 2
BUILD=${BUILD:-build}
BIN=${BIN:-bin}
export BUILD BIN
LIMIT=600

# One job: "unit NAME" runs $BUILD/tests/NAME, "cases K N" the K-th of N shards of the cases.
# Output goes to $LOG/JOB.out; a job that exits non-zero without printing a FAIL line gets one.
if [ "${1:-}" = --job ]; then
    LOG=$2 kind=$3
    case "$kind" in
        unit)
            name=$4
            timeout "$LIMIT" "$BUILD/tests/$name" > "$LOG/1-$name.out" 2>&1
            rc=$? out="$LOG/1-$name.out" ;;
        cases)
            k=$4 n=$5 name="cases-$4"
            # shellcheck disable=SC2046 # case folder names have no spaces
            timeout "$LIMIT" sh tests/cases/run.sh $(cd tests/cases && for d in */; do
                [ -f "$d/expect.jq" ] && echo "${d%/}"; done | awk -v k="$k" -v n="$n" 'NR % n == k') \
                > "$LOG/2-$name.out" 2>&1
            rc=$? out="$LOG/2-$name.out" ;;
        *) echo "check.sh: unknown job $kind" >&2; exit 2 ;;
    esac
    if [ $rc -ne 0 ] && ! grep -q '^FAIL ' "$out"; then
        echo "FAIL $name (exit $rc)" >> "$out"
    fi
    exit 0
fi

ncpu=$(nproc 2>/dev/null || echo 2)
P=${CHECK_JOBS:-$((ncpu * 2))}
LOG=$(mktemp -d "${TMPDIR:-/tmp}/gpupack-check.XXXXXX")
trap 'rm -rf "$LOG"' EXIT

# The longest jobs first: the case shards, then the unit tests that wait on sockets and timers.
{
    i=0
    while [ $i -lt "$ncpu" ]; do echo "cases $i $ncpu"; i=$((i + 1)); done
    for t in test_kube test_server; do [ -x "$BUILD/tests/$t" ] && echo "unit $t"; done
    for t in "$BUILD"/tests/test_*; do
        [ -x "$t" ] || continue
        case "${t##*/}" in test_kube | test_server) continue ;; esac
        echo "unit ${t##*/}"
    done
} | xargs -P "$P" -L 1 sh tests/check.sh --job "$LOG"

cat "$LOG"/*.out
. tests/summary.sh
summarize "$LOG"
