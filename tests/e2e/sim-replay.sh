#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Black-box tests of `gpupack-sim --replay` (docs/simulation.md, "The replay"): a replay worked
# out by hand (and the same at --time-scale 10), the JSON contract, determinism, bad input (exit
# 2 naming the row), `kubectl get pods -o json` dumps made from kubectl's own templates (and
# cluster-autoscaler mode moving a Deployment's pod, not a Job's or a bare one), the
# plot in headless Chromium (tests/e2e/plotlib.sh), the markdown table, and one run on the real
# trace (data/alibaba-gpu-v2023). Inputs: tests/data/sim/replay/. Under a minute on 2 cores.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/plotlib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/tests/cases/lib.sh"
D=$ROOT/tests/data/sim/replay
THREE="--scorer gpupack --scorer kube-default --scorer bestfit"
TRACE=$ROOT/data/alibaba-gpu-v2023
SIM="$BIN/gpupack-sim"
T=$E2E_TMP
# The fields that depend on the machine's speed are left out when comparing runs.
stable() { jq -c 'del(.seconds)' "$1"; }
not() { ! "$@"; }

# ---- 1. A replay worked out by hand ----
# nodes-2gpu.csv: two V100 nodes of 2 GPUs: one pool of that shape, 0 to 2 nodes, $2.50 per
# GPU-hour (the default policy's price for a model it has no price for): $5 per node-hour.
# pods-hand.csv (arrive = creation time, duration = deletion - creation):
#   a 1 GPU at 0 for 3600 s, b 1 GPU at 0 for 1200 s, c 2 GPUs at 1005 for 1800 s,
#   d 1 GPU at 1500 for 3539 s.
# Scans every 10 s from 0, nodes ready 4 min after the scan that adds them, empty nodes removed
# by the first scan 10 min after they emptied:
#   t=0     a, b pending; the scan adds node A (both fit one node)   A ready at 240
#   t=240   a, b on A (waits 240, 240); b ends 1440, a ends 3840
#   t=1005  c fits nowhere; the scan at 1010 adds node B             B ready at 1250
#   t=1250  c on B (wait 245); ends 3050
#   t=1500  d on A, which b left at 1440 (wait 0); ends 5039
#   t=3050  B empty; removed by the scan at 3650 (3650 - 3050 = 600 s)
# With no --duration the window ends at the first scan after the last pod leaves: d at 5039,
# the scan at 5040.
# Billed: A 240..5040 = 4800 s, B 1250..3650 = 2400 s: 7200 s = 2 node-hours, $10.
# Waits 0, 240, 240, 245: p50 240, p99 (nearest rank) 245. GPU-seconds allocated: a 3600 +
# b 1200 + c 2 x 1800 + d 3539 = 11939 (3.3164 h).
hand() { $VG "$SIM" --replay --nodes "$D/nodes-2gpu.csv" --pods "$D/pods-hand.csv" \
    --scale-down empty --jobs 1 "$@"; }
hand --scorer bestfit --json > "$T/hand.jsonl" 2> "$T/hand.err"
check replay.hand-worked jq -e -s 'length == 1 and .[0].gpu_node_hours == 2 and .[0].dollars == 10
    and .[0].pending_p99_seconds == 245 and .[0].pending_p50_seconds == 240
    and .[0].pending_mean_seconds == 181.25 and .[0].gpu_hours_allocated == 3.3164
    and .[0].pods == 4 and .[0].never_placed == 0 and .[0].peak_nodes == 2
    and .[0].pools[0].nodes_added == 2 and .[0].pools[0].nodes_removed == 1' "$T/hand.jsonl"
# --time-scale 10: arrive = creation / 10 rounded down, duration = (deletion - creation) / 10
# rounded up; the delays stay the same: a at 0 for 360 s, b at 0 for 120, c at 100 for 180,
# d at 150 for 354.
#   t=0    a, b pending; A added, ready at 240
#   t=100  c pending; A will not hold it: B added, ready at 340
#   t=150  d pending; A and B being provisioned hold a, b, c; the pool is at its maximum
#   t=240  a, b on A (waits 240, 240); b ends 360, a ends 600
#   t=340  c on B (wait 240)
#   t=360  d on A (wait 210); c leaves B at 520, a leaves A at 600, d at 714
# The window ends at the scan at 720 (B, empty since 520, would go at 1120: not in it).
# Billed: A 240..720 = 480 s, B 340..720 = 380 s: 860 s = 0.2389 node-hours, $1.1944.
# Waits 210, 240, 240, 240: p99 240, mean 232.5.
hand --scorer bestfit --json --time-scale 10 > "$T/hand10.jsonl" 2> "$T/hand10.err"
check replay.hand-worked-time-scale-10 jq -e -s '
    def near($x): (. - $x) | (. < 0.0001 and . > -0.0001);
    length == 1 and (.[0].gpu_node_hours | near(860 / 3600))
    and (.[0].dollars | near(860 * 5 / 3600)) and .[0].pending_p99_seconds == 240
    and .[0].pending_mean_seconds == 232.5 and .[0].pods == 4
    and .[0].pools[0].nodes_added == 2 and .[0].pools[0].nodes_removed == 0' "$T/hand10.jsonl"

# ---- 2. The JSON contract: one line per scorer and seed, the fields as numbers ----
C="$T/contract.jsonl"
hand --seeds 1-3 --scorer kube-default --scorer gpupack --json > "$C" 2> "$T/contract.err"
# lines_are_objects FILE N: FILE has N lines, each one JSON object.
lines_are_objects() {
    [ "$(wc -l < "$1")" -eq "$2" ] || return 1
    while IFS= read -r l; do
        printf '%s' "$l" | jq -e 'type == "object"' > /dev/null || return 1
    done < "$1"
}
check replay.json-one-object-a-line lines_are_objects "$C" 6
check replay.json-one-line-per-scorer-and-seed jq -e -s '[.[] | [.scorer, .seed]] | sort ==
    [["gpupack", 1], ["gpupack", 2], ["gpupack", 3],
     ["kube-default", 1], ["kube-default", 2], ["kube-default", 3]]' "$C"
check replay.json-fields jq -e -s 'length == 6 and all(.[]; (.scorer | type) == "string"
    and (.seed | type) == "number" and (.gpu_node_hours | type) == "number"
    and (.dollars | type) == "number" and (.pending_p99_seconds | type) == "number")' "$C"

# ---- 3. Determinism: the same command gives the same numbers; another seed, another workload ----
small() { "$SIM" --replay --nodes "$D/nodes-small.csv" --pods "$D/pods-small.csv" --load 0.6 \
    --duration 1d --warmup 6h "$@"; }
TWO="--scorer gpupack --scorer kube-default --json"
small --seed 7 $TWO --jobs 1 > "$T/det1.jsonl" 2>/dev/null
small --seed 7 $TWO --jobs 2 > "$T/det2.jsonl" 2>/dev/null
small --seed 8 $TWO > "$T/det3.jsonl" 2>/dev/null
# same_runs A B: the same runs, the wall time aside. differ A B: other numbers and other pods.
same_runs() { [ -s "$1" ] && [ "$(stable "$1")" = "$(stable "$2")" ]; }
differ() {
    [ -s "$2" ] \
        && [ "$(jq -c 'del(.seconds, .seed)' "$1")" != "$(jq -c 'del(.seconds, .seed)' "$2")" ] \
        && [ "$(jq -c .pods "$1")" != "$(jq -c .pods "$2")" ]
}
check replay.same-seed-same-result same_runs "$T/det1.jsonl" "$T/det2.jsonl"
check replay.other-seed-other-workload differ "$T/det1.jsonl" "$T/det3.jsonl"

# ---- 4. Bad input: exit 2 and a message naming the row or the flag; never a crash ----
# refused NAME PATTERN ARGS...: the replay with ARGS exits 2, its stderr matches PATTERN (grep
# -E) and shows no crash.
refused() {
    n=$1; pat=$2; shift 2
    $VG "$SIM" --replay "$@" > "$T/$n.out" 2> "$T/$n.err"
    rc=$?
    if [ $rc -eq 2 ] && grep -qE -- "$pat" "$T/$n.err" \
        && ! grep -qE 'Sanitizer|Segmentation' "$T/$n.err"; then
        pass "$n"
    else
        fail "$n" "exit $rc: $(head -c 300 "$T/$n.err" | tr '\n' ' ')"
    fi
}
N2="$D/nodes-2gpu.csv"
refused replay.bad-end-before-creation 'pods-backwards\.csv:3 \(backwards\).*before' \
    --nodes "$N2" --pods "$D/pods-backwards.csv"
refused replay.bad-pod-larger-than-any-node \
    "pods-too-big\.csv:3 \(four-gpus\).*no pool's node can hold it" \
    --nodes "$N2" --pods "$D/pods-too-big.csv"
refused replay.bad-gpu-model-no-pool-has 'pods-unknown-model\.csv:3 \(wants-t4\): asks for GPU model T4, which no pool has' \
    --nodes "$N2" --pods "$D/pods-unknown-model.csv"
refused replay.bad-pools-field 'pools-bad\.json.*pools\[1\]: cpu' \
    --pools "$D/pools-bad.json" --pods "$D/pods-hand.csv"
# A misspelt pool field is refused, naming the file, the pool and the key, as an unknown policy
# field is: it must never change the dollars silently.
jq '.pools[1].onDemnad = .pools[1].onDemand | del(.pools[1].onDemand)' "$D/pools.json" \
    > "$T/pools-typo.json"
refused replay.pools-unknown-field 'pools-typo\.json: pools\[1\]\.onDemnad: unknown field' \
    --pools "$T/pools-typo.json" --pods "$D/pods-hand.csv"
jq '.pool = []' "$D/pools.json" > "$T/pools-top.json"
refused replay.pools-unknown-top-field 'pools-top\.json: pool: unknown field' \
    --pools "$T/pools-top.json" --pods "$D/pods-hand.csv"
# A row whose pod lasts 1e11 s (3,000 years) is refused, naming the row and the bound (10
# years after the first creation, after --time-scale), at once: stepping through its simulated
# time would take hours (the timeout makes a hang a failure here).
{ head -n 1 "$D/pods-hand.csv"; echo "forever,1000,1000,1,1000,,LS,Running,0,100000000000,0"; } \
    > "$T/pods-forever.csv"
timeout 20 "$SIM" --replay --nodes "$N2" --pods "$T/pods-forever.csv" --scorer bestfit --json \
    > /dev/null 2> "$T/forever.err"
rc=$?
check replay.time-beyond-bound-exit-2 sh -c "[ $rc -eq 2 ] &&
    grep -q 'pods-forever.csv:2 (forever): it ends [0-9]* days after .*at most 3650 days' '$T/forever.err'"
timeout 20 "$SIM" --replay --nodes "$N2" --pods "$T/pods-forever.csv" --scorer bestfit --json \
    --time-scale 100000 > "$T/forever.jsonl" 2>/dev/null
check replay.time-within-bound-after-scale jq -e '.pods == 1' "$T/forever.jsonl"
refused replay.bad-scale-down-mode \
    '--scale-down: must be cluster-autoscaler or empty, got "never"' \
    --nodes "$N2" --pods "$D/pods-hand.csv" --scale-down never
refused replay.bad-load-0 '--load wants a number in \(0, 2\], not "0"' \
    --nodes "$N2" --pods "$D/pods-hand.csv" --load 0
refused replay.bad-load-3 '--load wants a number in \(0, 2\], not "3"' \
    --nodes "$N2" --pods "$D/pods-hand.csv" --load 3
refused replay.bad-time-scale-below-1 '--time-scale compresses the pods. times: a number from 1 up' \
    --nodes "$N2" --pods "$D/pods-hand.csv" --time-scale 0.5
refused replay.inflate-refused '--inflate: .*not with --replay' \
    --nodes "$N2" --pods "$D/pods-hand.csv" --inflate 1.3
refused replay.missing-pods '--replay needs --pods' --nodes "$N2"

# ---- 5. A `kubectl get pods -A -o json` dump ----
# The other helper's dump: six pods, one of them a DaemonSet's.
"$SIM" --replay --pools "$D/pools.json" --pods "$ROOT/tests/data/sim/pods-replay.json" \
    --scorer bestfit --json > "$T/dump0.jsonl" 2> "$T/dump0.err"
check replay.dump-fixture jq -e -s 'length == 1 and .[0].pods == 5 and .[0].never_placed == 0' \
    "$T/dump0.jsonl"
check replay.dump-fixture-daemonset-note grep -q '1 DaemonSet pod(s) left out' "$T/dump0.err"
# One made the way the project's fixtures are (tests/cases/lib.sh): kubectl's own templates,
# defaulted as kube-apiserver does, then as listed once created: names, uids, timestamps.
# listed NAME CREATED [NODE] < pod: the pod running since CREATED (bound to NODE).
listed() {
    jq --arg n "$1" --arg c "$2" --arg node "${3:-}" '
      .metadata += {name: $n, uid: ("0b5e7c1a-" + $n), creationTimestamp: $c,
                    resourceVersion: "4242"}
      | if $node != "" then .spec.nodeName = $node else . end
      | .status = {phase: "Running", startTime: $c, qosClass: "Guaranteed",
          containerStatuses: [.spec.containers[] | {name, image, ready: true, restartCount: 0,
            started: true, state: {running: {startedAt: $c}}}]}'
}
# deleting AT < pod: the pod being deleted since AT.
deleting() {
    jq --arg d "$1" '.metadata += {deletionTimestamp: $d, deletionGracePeriodSeconds: 30}'
}
# finished AT < pod: the pod ran to completion at AT.
finished() {
    jq --arg f "$1" '.status.phase = "Succeeded" | .status.containerStatuses |= map(.ready = false
      | .started = false | .state = {terminated: {exitCode: 0, reason: "Completed",
          startedAt: .state.running.startedAt, finishedAt: $f}})'
}
# pod KIND NAME IMAGE OWNER_KIND OWNER NAMESPACE LIMITS: a defaulted pod of kubectl's KIND
# (deployment or job) template, with container 0's LIMITS.
pod() {
    template "$1" "$2" "$3" | pod_from_template "$4" "$5" "$6" | set_limits 0 "$7"
}
# podlist < pods: the `kubectl get pods -A -o json` list of the pods.
podlist() { jq -s '{apiVersion: "v1", kind: "List", metadata: {resourceVersion: ""}, items: .}'; }
IMG=registry.example
GPU1='{"cpu":"4","memory":"16Gi","nvidia.com/gpu":"1"}'
{
    pod deployment infer $IMG/infer:1.4 ReplicaSet infer-7d9f8c6b5 ml "$GPU1" \
        | listed infer-7d9f8c6b5-abcde 2026-03-02T08:00:00Z gpu-node-1
    pod deployment infer $IMG/infer:1.4 ReplicaSet infer-7d9f8c6b5 ml "$GPU1" \
        | listed infer-7d9f8c6b5-fghij 2026-03-02T08:02:00Z gpu-node-1 \
        | deleting 2026-03-02T08:30:00Z
    pod job train $IMG/train:2 Job train ml '{"cpu":"8","memory":"64Gi","nvidia.com/gpu":"2"}' \
        | listed train-xk2p9 2026-03-02T08:05:00Z gpu-node-1 | finished 2026-03-02T08:35:00Z
    pod deployment dcgm $IMG/dcgm-exporter:3 DaemonSet dcgm-exporter kube-system \
        '{"cpu":"100m","memory":"128Mi"}' \
        | listed dcgm-exporter-q8w4z 2026-03-02T07:00:00Z gpu-node-1
    pod deployment debug $IMG/toolbox:1 "" debug ml '{"cpu":"1","memory":"1Gi"}' \
        | listed debug 2026-03-02T08:10:00Z gpu-node-1 | deleting 2026-03-02T08:15:00Z
} | podlist > "$T/dump.json"
# From 08:00 (the DaemonSet pod left out): infer-a at 0 (still running: it runs as long as it
# had by the dump's latest time, 08:35, 2100 s), infer-b at 120 for 1680 s, train at 300 for
# 1800 s (2 GPUs), debug at 600 for 300 s (no GPU). One a10g-4 node, added at 0, ready at 240,
# holds them all: infer-a 240..2340, infer-b 240..1920, train 300..2100 on 2 GPUs: 7380
# GPU-seconds (2.05 h); waits 240, 120, 0, 0; the window ends at the scan at 2340 (0.5833
# node-hours).
$VG "$SIM" --replay --pools "$D/pools.json" --pods "$T/dump.json" --scorer gpupack --json \
    > "$T/dump.jsonl" 2> "$T/dump.err"
check replay.kubectl-dump-replayed jq -e -s 'length == 1 and .[0].pods == 4
    and .[0].never_placed == 0 and .[0].gpu_hours_allocated == 2.05
    and .[0].gpu_node_hours == 0.5833
    and .[0].pending_p99_seconds == 240
    and .[0].peak_nodes == 1' "$T/dump.jsonl"
check replay.kubectl-dump-daemonset-left-out \
    grep -q 'note: 1 DaemonSet pod(s) left out' "$T/dump.err"
# cluster-autoscaler mode moves a Deployment's pod off an underused node, not a Job's or a bare
# pod. All at 08:00: serve (ReplicaSet, 2 GPUs, running), batch (Job, 3 GPUs, done at 09:00),
# small (OWNER, 1 GPU, running); --duration 2h. The scan at 0 adds two a10g-4 nodes (first fit:
# serve + small, batch), ready at 240: serve on one (N1), batch on the other (N2), small where
# it fits tightest: N2. batch ends at 3840: N2 holds small alone (1 of 4 GPUs < 0.5), and N1
# (2 of 4, not below 0.5) has room for it. A ReplicaSet's small moves at the scan 10 min later,
# 4440, and N2 goes: 7200 - 240 + 4440 - 240 = 11160 s (3.1 node-hours), one eviction. A Job's
# or a bare small stays: both nodes up 240..7200, 13920 s (3.8667 node-hours), none.
# ca_dump OWNER_KIND: that workload ("" for a bare small pod).
ca_dump() {
    {
        pod deployment serve $IMG/serve:1 ReplicaSet serve-5c8d ml \
            '{"cpu":"4","memory":"16Gi","nvidia.com/gpu":"2"}' \
            | listed serve-5c8d-aaaaa 2026-03-02T08:00:00Z
        pod job batch $IMG/batch:1 Job batch ml '{"cpu":"4","memory":"16Gi","nvidia.com/gpu":"3"}' \
            | listed batch-bbbbb 2026-03-02T08:00:00Z | finished 2026-03-02T09:00:00Z
        pod deployment small $IMG/small:1 "$1" small ml \
            '{"cpu":"1","memory":"4Gi","nvidia.com/gpu":"1"}' \
            | listed small-ccccc 2026-03-02T08:00:00Z
    } | podlist
}
for k in ReplicaSet Job bare; do
    ca_dump "$([ $k = bare ] || echo $k)" > "$T/ca-$k.json"
    "$SIM" --replay --pools "$D/pools.json" --pods "$T/ca-$k.json" --scorer bestfit \
        --duration 2h --seeds 1-2 --json > "$T/ca-$k.jsonl" 2>/dev/null
done
check replay.ca-moves-deployment-pod jq -e -s 'length == 2 and all(.[]; .gpu_node_hours == 3.1
    and .evictions == 1 and .pools[0].nodes_removed == 1)' "$T/ca-ReplicaSet.jsonl"
check replay.ca-keeps-job-and-bare-pods jq -e -s 'length == 4 and all(.[];
    .gpu_node_hours == 3.8667 and .evictions == 0 and .pools[0].nodes_removed == 0)' \
    "$T/ca-Job.jsonl" "$T/ca-bare.jsonl"
# The debug pod deleted a minute before it was created: the item is named.
jq '.items[4].metadata.deletionTimestamp = "2026-03-02T08:09:00Z"' "$T/dump.json" \
    > "$T/dumpbad.json"
refused replay.bad-dump-end-before-creation 'dumpbad\.json: items\[4\] \(ml/debug\).*before' \
    --pools "$D/pools.json" --pods "$T/dumpbad.json"

# ---- 6. The plot of a small replay with --nodes, three scorers, in a real browser ----
if plot_tools replay; then
    small --seed 42 $THREE --json --plot "$T/x.html" > "$T/plot.jsonl" 2> "$T/plot.err"
    check replay.plot-json-lines-too lines_are_objects "$T/plot.jsonl" 3
    check_plot replay.plot-html "$T/x.html" 3 yes gpupack kube-default bestfit
    small --seed 42 $THREE --plot "$T/x.svg" > /dev/null 2> "$T/plotsvg.err"
    check_plot replay.plot-svg "$T/x.svg" 3 yes gpupack kube-default bestfit
fi

# ---- 7. --format markdown: a header, one row per scorer, the kube-default columns ----
small --seed 42 $THREE --format markdown > "$T/table.md" 2>/dev/null
small --seed 42 --scorer gpupack --scorer bestfit --format markdown > "$T/table2.md" 2>/dev/null
# md_table FILE SCORERS...: a header row, its |---| rule, then a row per scorer in order (the
# first cell its name) and no more; every row with as many cells as the header.
md_table() {
    f=$1; shift
    [ "$(sed -n 2p "$f")" = "$(sed -n 1p "$f" | sed 's/[^|]*|/---|/g; s/^---|/|/')" ] || return 1
    i=3
    for s in "$@"; do
        sed -n ${i}p "$f" | grep -q "^| $s | " || return 1
        i=$((i + 1))
    done
    sed -n ${i}p "$f" | grep -qv '^| ' \
        && [ "$(sed -n "1,$((i - 1))p" "$f" | awk -F'|' '{ print NF }' | sort -u | wc -l)" -eq 1 ]
}
check replay.markdown-header grep -q \
    '^| scorer | GPU node-h | \$ | .* | node-h vs kube-default | \$ vs kube-default |$' \
    "$T/table.md"
check replay.markdown-rows md_table "$T/table.md" gpupack kube-default bestfit
# The difference from kube-default is each row's $ less kube-default's (the cells are rounded),
# and +0 on kube-default's own row.
vs_kube() {
    awk -F'|' 'NR >= 3 && NR <= 5 { d[NR] = $4; v[NR] = $(NF - 1) } NR == 4 { k = $4 }
        END { ok = NR >= 5
              for (r = 3; r <= 5; r++) { split(v[r], p, " "); x = p[1] - (d[r] - k)
                                         if (x > 1 || x < -1) ok = 0 }
              if (v[4] !~ /^ *\+0 \(\+0\.0%\) *$/) ok = 0
              exit !ok }' "$1"
}
check replay.markdown-vs-kube-default vs_kube "$T/table.md"
check replay.markdown-without-kube-default md_table "$T/table2.md" gpupack bestfit
check replay.markdown-without-kube-default-no-vs-columns \
    not grep -q 'vs kube-default' "$T/table2.md"

# ---- 8. The real trace, once: 6 h after 2 h of warm-up at 0.6 of the fleet's GPUs ----
"$SIM" --replay --nodes "$TRACE/openb_node_list_gpu_node.csv" \
    --pods "$TRACE/openb_pod_list_default.csv" --load 0.6 --duration 6h --warmup 2h \
    --scorer kube-default --scorer gpupack --scorer bestfit --jobs 2 --json \
    > "$T/trace.jsonl" 2> "$T/trace.err"
NODES=$(($(wc -l < "$TRACE/openb_node_list_gpu_node.csv") - 1))
# Every run: thousands of pods, at most every node for 6 h, an allocation in (0, 1], nearly
# every pod placed.
check replay.trace-runs jq -e -s --argjson nodes "$NODES" '
    [.[].scorer] == ["kube-default", "gpupack", "bestfit"]
    and all(.[]; .pods > 10000 and .gpu_node_hours > 0 and .gpu_node_hours <= 6 * $nodes
        and .dollars > 0 and .mean_gpu_allocation > 0 and .mean_gpu_allocation <= 1
        and .never_placed < .pods / 100 and .pending_p99_seconds >= 0)' "$T/trace.jsonl"
# The point of gpupack: the same pods for fewer dollars than kube-scheduler's default scoring.
check replay.trace-gpupack-cheaper-than-kube-default jq -e -s '
    (.[] | select(.scorer == "gpupack") | .dollars)
    < (.[] | select(.scorer == "kube-default") | .dollars)' "$T/trace.jsonl"
