#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# A real kube-scheduler's throughput with and without gpupack-extender (`make bench-scheduler`;
# docs/benchmarks.md, "A real kube-scheduler").
#
# tools/kube-control-plane.sh builds kube-apiserver and kube-scheduler v1.20.2 from Debian's
# kubernetes source package (once, cached); etcd is Debian's etcd-server. tests/bench/kubesched.py
# then runs the control plane on loopback with BENCH_KS_NODES eight-GPU nodes (default 500) and
# schedules BENCH_KS_PODS one-GPU pods (default 2000), BENCH_KS_ROUNDS rounds (default 2) of
# each configuration in BENCH_KS_CONFIGS (default none,prioritize,filter,binpack).
# Appends its lines to $OUT/results.jsonl (BENCH_OUT or build/bench), named
# kube-scheduler-NODES-CONFIG; the per-run lines go to $OUT/kubesched-NODES.jsonl.
set -eu
cd "$(dirname "$0")/.."
BIN=${BIN:-bin}
BUILD=${BUILD:-build}
OUT=${BENCH_OUT:-$BUILD/bench}
case $OUT in /*) ;; *) OUT="$(pwd)/$OUT" ;; esac
NODES=${BENCH_KS_NODES:-500}
mkdir -p "$OUT"
command -v etcd >/dev/null ||
    { echo "bench_kubescheduler: no etcd (tools/deps.sh bench)" >&2; exit 1; }
K8S=$(tools/kube-control-plane.sh)
WORK="$OUT/kubesched-$NODES"
rm -rf "$WORK"
python3 tests/bench/kubesched.py --k8s "$K8S" --extender "$BIN/gpupack-extender" --workdir "$WORK" \
    --nodes "$NODES" --pods "${BENCH_KS_PODS:-2000}" --rounds "${BENCH_KS_ROUNDS:-2}" \
    --configs "${BENCH_KS_CONFIGS:-none,prioritize,filter,binpack}" > "$WORK.jsonl"
jq -c --arg n "$NODES" 'select(.summary) | {name: ("kube-scheduler-" + $n + "-" + .summary)} + .' \
    "$WORK.jsonl" >> "$OUT/results.jsonl"
TAB=$(printf '\t')
jq -r 'select(.summary) | [.summary, (.pods_per_second | map(tostring) | join(" ")),
    (.ratio_to_none // "" | tostring), (.ratio_to_binpack // "" | tostring),
    (.nodes_used | map(tostring) | join(" "))] | @tsv' "$WORK.jsonl" |
    (echo "config${TAB}pods/s${TAB}to none${TAB}to binpack${TAB}nodes used"; cat) |
    column -t -s "$TAB"
