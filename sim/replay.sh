#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# make sim-replay: gpupack-sim --replay at the default trace's scale (its 1,213 nodes as 15 pools,
# at most as many nodes of each shape as the trace has), a week after a day of warm-up, pods
# generated from the trace at a mean GPU load of 0.6, every scorer, seeds 42-44, in both
# scale-down modes; writes $OUT/replay.jsonl, $OUT/replay-<mode>.md, the picture
# $OUT/replay.html (seed 42, cluster-autoscaler) and the cluster-autoscaler table into
# docs/simulation.md between its markers. Variables: SIM_TRACE, BIN, OUT, SEEDS, LOAD, DOC.
set -eu
SIM_TRACE=${SIM_TRACE:-data/alibaba-gpu-v2023}
BIN=${BIN:-bin}
OUT=${OUT:-build/sim}
SEEDS=${SEEDS:-42-44}
LOAD=${LOAD:-0.6}
DOC=${DOC:-docs/simulation.md}
"$(dirname "$0")/need-trace.sh" "$SIM_TRACE" openb_node_list_gpu_node.csv openb_pod_list_default.csv
mkdir -p "$OUT"
: > "$OUT/replay.jsonl"
replay() {
    "$BIN/gpupack-sim" --replay --nodes "$SIM_TRACE/openb_node_list_gpu_node.csv" \
        --pods "$SIM_TRACE/openb_pod_list_default.csv" --load "$LOAD" --scorer all "$@"
}
for mode in cluster-autoscaler empty; do
    echo "gpupack-sim --replay: scale-down $mode, seeds $SEEDS" >&2
    start=$(date +%s)
    replay --scale-down "$mode" --seeds "$SEEDS" --label "$mode" --json-file "$OUT/replay.jsonl" \
        --format markdown > "$OUT/replay-$mode.md"
    echo "gpupack-sim --replay: $mode: $(( $(date +%s) - start )) s" >&2
done
start=$(date +%s)
replay --seed 42 --plot "$OUT/replay.html" > "$OUT/replay-seed42.txt"
echo "gpupack-sim --replay: one seed, every scorer, and the picture: $(( $(date +%s) - start )) s" >&2
# The docs' table: between the markers, the cluster-autoscaler table and the empty one.
awk -v ca="$OUT/replay-cluster-autoscaler.md" -v em="$OUT/replay-empty.md" '
    /<!-- sim-replay:begin -->/ { print; print "";
        print "Scale-down `cluster-autoscaler` (seeds '"$SEEDS"', mean ± sd):"; print "";
        while ((getline l < ca) > 0) print l; print "";
        print "Scale-down `empty`:"; print "";
        while ((getline l < em) > 0) print l; print ""; skip = 1; next }
    /<!-- sim-replay:end -->/ { skip = 0 }
    !skip { print }' "$DOC" > "$OUT/simulation.md.new"
grep -q '<!-- sim-replay:begin -->' "$DOC" && mv "$OUT/simulation.md.new" "$DOC"
cat "$OUT/replay-cluster-autoscaler.md"
echo "wrote $DOC, $OUT/replay.jsonl and $OUT/replay.html" >&2
