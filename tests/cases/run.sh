#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Fixture cases: each folder holds an input (review.json, a `fixture` file naming a file in
# tests/fixtures, or input.sh printing a review), optional policy.json / nodes.json /
# priorityclasses.json, and expect.jq. The runner answers the review with the real binary
# (`gpupack-webhook --review`), applies the returned patch with an independent implementation
# (`kubectl patch --local --type=json`), runs expect.jq over
#   {response, patch, original, pod}   (pod = the original with the patch applied)
# which must print true, and then reviews the mutated pod again: the second answer must carry no
# patch (the webhook runs with reinvocationPolicy IfNeeded).
set -u
cd "$(dirname "$0")"
ROOT=$(cd ../.. && pwd)
BIN=${BIN:-bin}
case "$BIN" in /*) ;; *) BIN="$ROOT/$BIN" ;; esac
FIXTURES="$ROOT/tests/fixtures"
VG=${VG:-}
T=$(mktemp -d "${TMPDIR:-/tmp}/gpupack-cases.XXXXXX")
trap 'rm -rf "$T"' EXIT

pass() { echo "PASS cases.$1"; }
fail() { echo "FAIL cases.$1${2:+: $2}"; }

make_input() { # dir -> $T/review.json
    if [ -f "$1/input.sh" ]; then
        (cd "$1" && sh ./input.sh) > "$T/review.json"
    elif [ -f "$1/fixture" ]; then
        cp "$FIXTURES/$(cat "$1/fixture")" "$T/review.json"
    else
        cp "$1/review.json" "$T/review.json"
    fi
}

flags_for() {
    f=""
    [ -f "$1/policy.json" ] && f="$f --policy $1/policy.json"
    [ -f "$1/nodes.json" ] && f="$f --snapshot-nodes $1/nodes.json"
    [ -f "$1/priorityclasses.json" ] && f="$f --snapshot-priorityclasses $1/priorityclasses.json"
    echo "$f"
}

envelope_ok() { # review response
    jq -e --slurpfile q "$1" '.apiVersion == "admission.k8s.io/v1" and .kind == "AdmissionReview"
        and .response.uid == $q[0].request.uid and .response.allowed == true
        and ((.response.patch == null) or (.response.patchType == "JSONPatch"))' "$2" >/dev/null
}

apply_patch() { # review response -> $T/pod.json $T/patch.json
    jq '.request.object' "$1" > "$T/original.json"
    if jq -e '.response.patch' "$2" >/dev/null; then
        jq -r '.response.patch' "$2" | base64 -d > "$T/patch.json" || return 1
        kubectl patch --local -f "$T/original.json" --type=json -p "$(cat "$T/patch.json")" \
            -o json > "$T/pod.json" 2> "$T/kubectl.err" || return 1
    else
        echo null > "$T/patch.json"
        cp "$T/original.json" "$T/pod.json"
    fi
}

second_pass() { # dir flags -> ok when the mutated pod needs no further patch
    jq --slurpfile p "$T/pod.json" '.request.object = $p[0]
        | .request.uid = "9c1d2e3f-4a5b-4c6d-8e7f-0a1b2c3d4e5f"' "$T/review.json" > "$T/review2.json"
    # shellcheck disable=SC2086
    $VG "$BIN/gpupack-webhook" --review --log-level error $2 < "$T/review2.json" > "$T/resp2.json" \
        && jq -e '.response.patch == null' "$T/resp2.json" >/dev/null
}

run_case() {
    d=$1; name=$(basename "$d")
    flags=$(flags_for "$d")
    make_input "$d" || { fail "$name" "cannot build input"; return; }
    # shellcheck disable=SC2086
    if ! $VG "$BIN/gpupack-webhook" --review --log-level error $flags < "$T/review.json" \
            > "$T/resp.json" 2> "$T/stderr"; then
        fail "$name" "exit status $? ($(head -c 300 "$T/stderr"))"; return
    fi
    envelope_ok "$T/review.json" "$T/resp.json" || { fail "$name" "bad envelope: $(head -c 300 "$T/resp.json")"; return; }
    apply_patch "$T/review.json" "$T/resp.json" || { fail "$name" "kubectl could not apply the patch: $(cat "$T/kubectl.err" 2>/dev/null)"; return; }
    if jq -n -e --slurpfile r "$T/resp.json" --slurpfile p "$T/pod.json" \
        --slurpfile o "$T/original.json" --slurpfile x "$T/patch.json" \
        '{response: $r[0].response, pod: $p[0], original: $o[0], patch: $x[0]}' > "$T/in.json" \
        && jq -e -f "$d/expect.jq" "$T/in.json" > "$T/expect.out" 2>&1 \
        && [ "$(tail -n 1 "$T/expect.out")" = true ]; then
        pass "$name"
    else
        fail "$name" "expect.jq did not hold; patch: $(head -c 600 "$T/patch.json"); warnings: $(jq -c .response.warnings "$T/resp.json")"
        return
    fi
    if [ "$(cat "$T/patch.json")" != null ]; then
        if second_pass "$d" "$flags"; then pass "$name.idempotent"; else fail "$name.idempotent" "$(head -c 400 "$T/resp2.json")"; fi
    fi
}

# Arguments name the cases to run (folder names: tests/check.sh runs the cases in shards); none
# means every folder that holds an expect.jq.
named=1
[ $# -gt 0 ] || { named=0; set -- */; }
for d in "$@"; do
    d=${d%/}
    if [ ! -f "$d/expect.jq" ]; then
        [ "$named" = 0 ] || fail "$d" "no such case"
        continue
    fi
    run_case "$d"
done
