#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# make sim-extender: gpupack-extender's whole prioritize (`--scorer extender`) against the per-node
# scorers, on the default trace's whole-GPU and CPU-only tasks (Kubernetes has no fractional GPU
# request, so the extender cannot take the trace's sharing tasks), seeds 42-51, ties broken by
# the node order (the paper's protocol) and at random (what kube-scheduler does). Also: the
# extender without its fragmentation component (the policy's weights.fragmentation 0), and the
# workload mix learned from the tasks placed so far. Writes $OUT/extender.jsonl and the table
# $OUT/extender.md. Variables: SIM_TRACE, BIN, OUT, SEEDS, POLICY (default: the embedded one).
set -eu
SIM_TRACE=${SIM_TRACE:-data/alibaba-gpu-v2023}
BIN=${BIN:-bin}
OUT=${OUT:-build/sim}
SEEDS=${SEEDS:-42-51}
"$(dirname "$0")/need-trace.sh" "$SIM_TRACE" openb_node_list_gpu_node.csv openb_pod_list_default.csv
mkdir -p "$OUT"
awk -F, 'NR == 1 || $5 == 1000 || $4 == 0' "$SIM_TRACE/openb_pod_list_default.csv" > "$OUT/whole.csv"
jq '.scoring.weights.fragmentation = 0' manifests/base/policy.json > "$OUT/no-fragmentation.json"
: > "$OUT/extender.jsonl"
sim() { "$BIN/gpupack-sim" --nodes "$SIM_TRACE/openb_node_list_gpu_node.csv" --pods "$OUT/whole.csv" \
    --seeds "$SEEDS" --json ${POLICY:+--policy "$POLICY"} "$@" >> "$OUT/extender.jsonl"; }
for ties in first random; do
    echo "gpupack-sim: whole-GPU tasks, ties $ties" >&2
    sim --ties "$ties" --label "ties-$ties" --scorer extender --scorer gpupack --scorer fgd --scorer bestfit
    sim --ties "$ties" --label "ties-$ties-learned-mix" --mix learned --scorer extender --scorer gpupack --scorer fgd
    sim --ties "$ties" --label "ties-$ties-no-fragmentation" --policy "$OUT/no-fragmentation.json" --scorer extender
done
"$BIN/gpupack-sim" --summarize "$OUT/extender.jsonl" | tee "$OUT/extender.md"
