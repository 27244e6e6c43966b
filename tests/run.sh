#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The test runner: unit tests, fixture cases, black-box tests. Every test prints one
# "PASS name" or "FAIL name" line; the last line of the run is "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
BIN=${BIN:-bin}
export BUILD BIN
LOG=$(mktemp -d "${TMPDIR:-/tmp}/gpupack-test.XXXXXX")
trap 'rm -rf "$LOG"' EXIT
VG=""
if [ "${GP_VALGRIND:-0}" = 1 ]; then
    VG="valgrind -q --leak-check=full --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect --error-exitcode=99 --trace-children=no"
fi
export VG
LIMIT=600
[ -n "$VG" ] && LIMIT=3000 # everything runs ~20x slower under valgrind
[ -n "$VG" ] && export GP_TEST_TIMEOUT=300

run_part() { # name command...
    name=$1; shift
    timeout "$LIMIT" "$@" > "$LOG/$name.out" 2>&1
    rc=$?
    cat "$LOG/$name.out"
    if [ $rc -ne 0 ] && ! grep -q '^FAIL ' "$LOG/$name.out"; then
        echo "FAIL $name (exit $rc)" | tee -a "$LOG/$name.out"
    fi
}

for t in "$BUILD"/tests/test_*; do
    [ -x "$t" ] || continue
    case "$t" in
        # It replaces the allocator and checks its own leaks; valgrind would replace it again.
        */test_allocfail) run_part "$(basename "$t")" "$t" ;;
        *) run_part "$(basename "$t")" $VG "$t" ;;
    esac
done
for t in tests/cases/run.sh tests/e2e/*.sh; do
    [ -f "$t" ] || continue
    case "$t" in tests/e2e/lib.sh|tests/e2e/plotlib.sh) continue ;; esac
    run_part "$(basename "$(dirname "$t")")-$(basename "$t" .sh)" sh "$t"
done

. tests/summary.sh
summarize "$LOG"
