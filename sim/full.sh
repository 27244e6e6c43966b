#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# make sim-full: every trace variant of the FGD paper x every scorer x seeds 42-51, as JSON lines
# in $OUT/full.jsonl, then the table (mean ± sd of unallocated GPU % at 100% arrived) in
# $OUT/full.md and on stdout, then sim/claims.sh on it: exit status 1 when the table contradicts
# what docs/simulation.md claims. Variables: SIM_TRACE (the trace folder, default the repository's
# data/alibaba-gpu-v2023, which holds only the default trace), BIN, OUT, SEEDS, VARIANTS, SCORERS
# (default all: the ten of sim/scorers.c; e.g. "kube-default kube-mostallocated kube-binpack").
set -eu
SIM_TRACE=${SIM_TRACE:-data/alibaba-gpu-v2023}
BIN=${BIN:-bin}
OUT=${OUT:-build/sim}
SEEDS=${SEEDS:-42-51}
VARIANTS=${VARIANTS:-"default gpushare40 gpushare60 gpushare80 gpushare100 multigpu20 multigpu30
multigpu40 multigpu50 gpuspec10 gpuspec20 gpuspec25 gpuspec33 cpu050 cpu100 cpu200 cpu250"}
SCORERS=${SCORERS:-all}
scorer_flags=
for s in $SCORERS; do scorer_flags="$scorer_flags --scorer $s"; done
files="openb_node_list_gpu_node.csv"
for v in $VARIANTS; do files="$files openb_pod_list_$v.csv"; done
"$(dirname "$0")/need-trace.sh" "$SIM_TRACE" $files
mkdir -p "$OUT"
: > "$OUT/full.jsonl"
for v in $VARIANTS; do
    echo "gpupack-sim: $v" >&2
    "$BIN/gpupack-sim" --nodes "$SIM_TRACE/openb_node_list_gpu_node.csv" \
        --pods "$SIM_TRACE/openb_pod_list_$v.csv" --seeds "$SEEDS" $scorer_flags --json \
        --label "$v" >> "$OUT/full.jsonl"
done
"$BIN/gpupack-sim" --summarize "$OUT/full.jsonl" | tee "$OUT/full.md"
# What docs/simulation.md claims of this table (baselines near the paper, gpupack below FGD and
# at most 4% on the default trace): a contradiction fails make sim-full.
"$(dirname "$0")/claims.sh" "$OUT/full.md"
