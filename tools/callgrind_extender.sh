#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Instructions per scheduled pod in gpupack-extender, counted by callgrind (stable from run to run,
# unlike CPU time on a shared two-core machine), for kube-scheduler's cycle as
# tests/bench/schedcycle.py emulates it: filter + prioritize, and prioritize only.
#
#   tools/callgrind_extender.sh [CLUSTER_DIR]
#
# CLUSTER_DIR (default: made with tests/bench/gen_cluster.py, 500 nodes and 15,000 pods, the
# size of the real kube-scheduler measurement) is served by the fake API (tests/e2e/fakeapi.py),
# GPU pods of even-numbered nodes left out as tools/bench_schedcycle.sh does. The extender runs
# under `valgrind --tool=callgrind --instr-atstart=no`; once its view is ready instrumentation is
# switched on (callgrind_control -i on), CALLGRIND_PODS pods (default 100) are scheduled, the
# extender's CPU is let settle (the bindings' watch events decoded) and the counts are dumped.
# Reported per scheduled pod: the whole process, the filter and prioritize calls (inclusive, from
# the request handler: decode, decide, encode) and the watch stream (the events' JSON parse and
# the cache update). Each mode runs in its own extender (a fresh view).
#
# Output: one line per mode on stdout; callgrind files and annotations under $OUT/callgrind
# (BENCH_OUT or build/bench).
set -u
cd "$(dirname "$0")/.." || exit 1
ROOT=$(pwd)
BIN=${BIN:-bin}
BUILD=${BUILD:-build}
N=${CALLGRIND_PODS:-100}
OUT=${BENCH_OUT:-$BUILD/bench}
case $OUT in /*) ;; *) OUT="$ROOT/$OUT" ;; esac
CG="$OUT/callgrind"
mkdir -p "$CG"
for t in valgrind callgrind_annotate callgrind_control python3 ss jq curl; do
    command -v $t >/dev/null || { echo "callgrind_extender: $t is missing" >&2; exit 1; }
done
CL=${1:-$OUT/cluster-500-15000}
case $CL in /*) ;; *) CL="$ROOT/$CL" ;; esac
[ -f "$CL/nodes.json" ] || python3 tests/bench/gen_cluster.py "$CL" --seed 42 --nodes 500 --pods 15000 \
    || { echo "callgrind_extender: cannot make the cluster" >&2; exit 1; }
PIDS=""
cleanup() { for p in $PIDS; do kill "$p" 2>/dev/null; done; for p in $PIDS; do wait "$p" 2>/dev/null; done; }
trap cleanup EXIT INT TERM
fail() { echo "callgrind_extender: $*" >&2; exit 1; }

. tools/fakecluster.sh
fake_cluster_start "$CL" "$CG/fake"

# inclusive Ir of the functions matching REGEX in FILE (the largest: they nest).
incl() {
    callgrind_annotate --inclusive=yes --threshold=100 "$2" 2>/dev/null \
        | awk -v re="$1" '$0 ~ re {gsub(",", "", $1); if ($1 + 0 > m) m = $1 + 0} END {print m + 0}'
}

for verbs in "filter,prioritize" prioritize; do
    tag=$(echo "$verbs" | tr ',' '-')
    rm -f "$CG/extender-$tag.out"*
    extender_start "$CG/fake.kubeconfig" "$CG/extender-$tag.log" \
        valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$CG/extender-$tag.out"
    callgrind_control -i on "$XPID" > /dev/null 2>&1 || fail "callgrind_control -i on failed"
    r=$(python3 tests/bench/schedcycle.py --extender "$U" --api "$API" --pid "$XPID" --nodes "$CL/nodes.json" \
        --pods "$N" --names 230 --seed 7 --prefix "cg$tag" --verbs "$verbs" --cluster-pods "$CG/fake-pods.json") \
        || fail "schedcycle failed: $r"
    callgrind_control -d "$XPID" > /dev/null 2>&1 || fail "callgrind_control -d failed"
    kill "$XPID"; wait "$XPID" 2>/dev/null
    f="$CG/extender-$tag.out.1" # the dump (the file without a number is what came after it)
    [ -f "$f" ] || fail "no callgrind dump"
    callgrind_annotate --inclusive=yes "$f" > "$CG/extender-$tag.annotate" 2>/dev/null
    total=$(awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1; exit}' "$CG/extender-$tag.annotate")
    fil=$(incl 'gp_extender_route_filter' "$f")
    pri=$(incl 'gp_extender_route_prioritize' "$f")
    wat=$(incl 'kube.c:on_line' "$f")
    echo "$tag $N $total $fil $pri $wat $r" | awk '{n = $2; printf "{\"mode\": \"%s\", \"pods\": %d, \"ir_per_pod\": %d, \"filter_ir_per_pod\": %d, \"prioritize_ir_per_pod\": %d, \"watch_ir_per_pod\": %d}\n", $1, n, $3 / n, $4 / n, $5 / n, $6 / n}'
done
