#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The scheduler's cycle, emulated (tools/bench.sh runs it; alone: tools/bench_schedcycle.sh
# [--smoke] CLUSTER_DIR, a directory from tests/bench/gen_cluster.py).
#
# The fake API server (tests/e2e/fakeapi.py) holds the cluster's Nodes and Pods (the GPU pods of
# every second node left out, so there are free GPUs); gpupack-extender
# lists and watches it through a kubeconfig (its live view, as in a cluster); once it is ready,
# tests/bench/schedcycle.py schedules BENCH_SCHED_PODS pods (default 300; 5 in --smoke) one at a
# time as kube-scheduler does: filter, prioritize, then the binding streamed to the extender's
# watch. Once with 230 candidate names, once with 5,000 (or all the cluster's nodes if fewer);
# then prioritize only (the shipped scheduler configuration) with 230 and 500 names of nodes with
# free GPUs. Records extender-schedcycle-{230,5000}-names and
# extender-schedcycle-prioritize-only-{230,500}-names: per-call p50/p99 of filter and prioritize
# (client side) and the extender's CPU milliseconds per scheduled pod.
#
# Appends to $OUT/results.jsonl (BENCH_OUT or build/bench).
set -u
cd "$(dirname "$0")/.." || exit 1
ROOT=$(pwd)
BIN=${BIN:-bin}
BUILD=${BUILD:-build}
SMOKE=0
[ "${1:-}" = --smoke ] && { SMOKE=1; shift; }
CL=${1:?usage: tools/bench_schedcycle.sh [--smoke] CLUSTER_DIR}
case $CL in /*) ;; *) CL="$ROOT/$CL" ;; esac
N=${BENCH_SCHED_PODS:-300}
[ $SMOKE = 1 ] && N=${BENCH_SCHED_PODS:-5}
OUT=${BENCH_OUT:-$BUILD/bench}
case $OUT in /*) ;; *) OUT="$ROOT/$OUT" ;; esac
mkdir -p "$OUT"
RES="$OUT/results.jsonl"
PIDS=""
cleanup() { for p in $PIDS; do kill "$p" 2>/dev/null; done; for p in $PIDS; do wait "$p" 2>/dev/null; done; }
trap cleanup EXIT INT TERM
fail() { echo "bench_schedcycle: $*" >&2; exit 1; }

t0=$(date +%s)
. tools/fakecluster.sh
fake_cluster_start "$CL" "$OUT/sched"
extender_start "$OUT/sched.kubeconfig" "$OUT/sched-extender.log"
echo "bench_schedcycle: fake API and extender view ready in $(( $(date +%s) - t0 )) s" >&2
rc=0
# filter + prioritize with 230 and 5,000 names sent to the filter; prioritize only with the 230 and
# 500 feasible names kube-scheduler v1.32 stops at for 500 and 5,000 nodes (numFeasibleNodesToFind).
for run in "filter 230" "filter 5000" "prioritize 230" "prioritize 500"; do
    set -- $run
    if [ "$1" = filter ]; then verbs="filter,prioritize"; name="extender-schedcycle-$2-names"
    else verbs=prioritize; name="extender-schedcycle-prioritize-only-$2-names"; fi
    r=$(python3 tests/bench/schedcycle.py --extender "$U" --api "$API" --pid "$XPID" --nodes "$CL/nodes.json" \
        --pods "$N" --names "$2" --seed "$2" --prefix "sched$1$2" --verbs "$verbs" \
        --cluster-pods "$OUT/sched-pods.json") || rc=1
    [ -n "$r" ] || { rc=1; continue; }
    echo "$r" | jq -c --arg n "$name" '{name: $n} + .' >> "$RES"
    echo "$name $r"
done
exit $rc
