#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Runs every libFuzzer harness in $FUZZ_BUILD (default build-fuzz) for SECONDS each, on a working
# corpus kept in $FUZZ_BUILD/corpus/NAME and seeded from tests/fixtures, the repository's other
# tests and tests/fuzz/seeds/NAME; then replays tests/fuzz/regressions/NAME/* (every crash ever
# found). Prints "PASS fuzz.NAME ..." with executions and coverage, or "FAIL fuzz.NAME: ..." with
# the saved input. Usage: tools/fuzz.sh SECONDS [NAME...]
set -u
cd "$(dirname "$0")/.."
ROOT=$(pwd)
SECONDS_EACH=${1:?usage: tools/fuzz.sh SECONDS [NAME...]}
shift
FUZZ_BUILD=${FUZZ_BUILD:-build-fuzz}
FIXTURES="$ROOT/tests/fixtures"
export GP_FUZZ_SNAPSHOT="$ROOT/tests/extender"
# Every harness in tests/fuzz unless named: a new one is never left out.
names=${*:-$(for f in tests/fuzz/fuzz_*.c; do n=${f##*/fuzz_}; printf '%s ' "${n%.c}"; done)}
rc=0

# seed NAME DIR: fills the working corpus the first time (libFuzzer keeps adding to it).
seed() {
    name=$1; dir=$2
    mkdir -p "$dir"
    case $name in
    admission)
        for f in "$FIXTURES"/admissionreview-*.json "$FIXTURES"/kube-v1.32-captured/admissionreview-*.json \
                 tests/examples/*.json; do [ -f "$f" ] && cp "$f" "$dir/"; done
        # GPU model rules: globs, exclusions, one that is not a label value.
        jq '.request.object.metadata.annotations["gpupack.io/gpu-models"] = "NVIDIA-A100*, !*-PCIe-*,H 1"' \
            tests/examples/gpu-deployment-review.json > "$dir/gpu-models-review.json"
        # Multi-byte user text where warnings and gpupack.io/mutated cut it by bytes.
        jq '.request.object.metadata.annotations["gpupack.io/gpu-memory"] = "a" + ("\u00e9" * 40)
            | .request.object.metadata.annotations["gpupack.io/mutated"] = "a" + ("\u00e9" * 600)' \
            tests/examples/gpu-deployment-review.json > "$dir/cut-text-review.json" ;;
    extargs)
        # The first byte picks the verb: '0' filter, '1' prioritize.
        for f in "$FIXTURES"/extender-v1-ExtenderArgs-*.json "$FIXTURES"/kube-v1.32-captured/extenderargs-*.json; do
            [ -f "$f" ] || continue
            b=$(basename "$f" .json)
            { printf 0; cat "$f"; } > "$dir/f-$b"; { printf 1; cat "$f"; } > "$dir/p-$b"
        done ;;
    jsonparse)
        # Every JSON the repository holds: reviews, extender calls, lists, policies.
        for f in "$FIXTURES"/*.json "$FIXTURES"/kube-v1.32-captured/*.json tests/examples/*.json \
                 tests/extender/*.json manifests/base/*.json; do
            [ -f "$f" ] && cp "$f" "$dir/$(echo "$f" | tr / _)"
        done ;;
    policy)
        cp manifests/base/policy.json "$dir/default.json"
        for f in tests/cases/*/policy.json; do cp "$f" "$dir/$(basename "$(dirname "$f")").json"; done ;;
    promjson)
        # Prometheus API bodies: vector, matrix, scalar, series, errors, warnings, NaN/Inf,
        # deep nesting, huge numbers.
        cp tests/fuzz/seeds/promjson/* "$dir/" ;;
    quantity)
        cp tests/fuzz/seeds/quantity/* "$dir/" ;;
    recs)
        # Recommendations documents as gpupack-advisor serve writes them, and edited by hand.
        cp tests/fuzz/seeds/recs/* "$dir/" ;;
    watch)
        # Watch streams as the API server sends them: one event per line, for pods ('\x02': pod
        # events, 2-byte chunks) and nodes ('\x03': node events).
        { printf '\002'; jq -c '.items[] | {type: "ADDED", object: .}' tests/extender/pods.json;
          jq -c '.items[0] | {type: "DELETED", object: .}' tests/extender/pods.json; } > "$dir/pods"
        { printf '\003'; jq -c '.items[] | {type: "ADDED", object: .}' tests/extender/nodes.json;
          jq -c '.items[0] | {type: "MODIFIED", object: (.spec.unschedulable = true)}' tests/extender/nodes.json; } > "$dir/nodes" ;;
    esac
}

for name in $names; do
    bin="$FUZZ_BUILD/fuzz_$name"
    if [ ! -x "$bin" ]; then
        echo "FAIL fuzz.$name: $bin is not built (make fuzz-build)"; rc=1; continue
    fi
    corpus="$FUZZ_BUILD/corpus/$name"
    [ -d "$corpus" ] || seed "$name" "$corpus"
    mkdir -p "$FUZZ_BUILD/artifacts"
    log="$FUZZ_BUILD/fuzz_$name.log"
    # -rss_limit_mb and -timeout turn leaks, blow-ups and hangs into failures too.
    "$bin" -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 -max_len=262144 \
        -print_final_stats=1 -artifact_prefix="$FUZZ_BUILD/artifacts/$name-" "$corpus" > "$log" 2>&1
    frc=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2)
    if [ $frc -eq 0 ]; then
        echo "PASS fuzz.$name ($SECONDS_EACH s, ${runs:-?} runs, coverage ${cov:-?}, corpus $(ls "$corpus" | wc -l))"
    else
        art=$(grep -o "Test unit written to [^ ]*" "$log" | tail -n 1 | cut -d' ' -f5)
        echo "FAIL fuzz.$name: exit $frc, input ${art:-?}; $(grep -m1 -E 'ERROR|property failed|runtime error' "$log")"
        rc=1
    fi
    regs="tests/fuzz/regressions/$name"
    if [ -d "$regs" ] && [ -n "$(ls "$regs" 2>/dev/null)" ]; then
        if "$bin" "$regs"/* > "$log.regressions" 2>&1; then
            echo "PASS fuzz.$name.regressions ($(ls "$regs" | wc -l) inputs)"
        else
            echo "FAIL fuzz.$name.regressions: $(grep -m1 -E 'ERROR|property failed|runtime error' "$log.regressions")"
            rc=1
        fi
    fi
done
exit $rc
