#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# docs/install.md's smoke pod, run as the page says: gpupack-smoke.yaml as kube-apiserver hands it
# to the webhook, reviewed with a node offering the 1g.10gb profile; the warnings and the parts of
# the mutated pod the page shows must be what the webhook does (the patch applied by kubectl).
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/tests/cases/lib.sh"
DOC="$ROOT/docs/install.md"
NODE_PATH="$ROOT/tests/manifests/node_modules"
export NODE_PATH
if [ ! -d "$NODE_PATH/yaml" ]; then
    fail install-example.yaml-package "tests/manifests/node_modules is missing: run make test"
    exit 0
fi
# The page's pieces: the pod's YAML, the Warning lines, the YAML of the changed parts.
sed -n '/^# gpupack-smoke.yaml/,/^```/p' "$DOC" | sed '$d' > "$E2E_TMP/smoke.yaml"
sed -n 's/^Warning: //p' "$DOC" | grep '^gpupack: ' > "$E2E_TMP/want-warnings"
awk '/^Warning: gpupack:/ { w = 1 } w && /^```yaml$/ { on = 1; next } on && /^```$/ { exit } on' \
    "$DOC" > "$E2E_TMP/want.yaml"
y2j() { node -e 'const y = require("yaml"); const fs = require("fs");
    process.stdout.write(JSON.stringify(y.parse(fs.readFileSync(process.argv[1], "utf8"))));' "$1"; }
if ! y2j "$E2E_TMP/smoke.yaml" > "$E2E_TMP/smoke.json" || ! y2j "$E2E_TMP/want.yaml" > "$E2E_TMP/want.json"; then
    fail install-example.found "the smoke pod or its mutated parts are not YAML in docs/install.md"
    exit 0
fi
# A node offering the A100 80GB slices, among them 1g.10gb.
NODES="$ROOT/tests/examples/nodes.json"
# kube-apiserver stores quantities as strings (YAML's 1 arrives as "1").
jq '.spec.containers[].resources |= map_values(map_values(tostring))' "$E2E_TMP/smoke.json" \
    | pod_from_template "" gpupack-smoke default > "$E2E_TMP/pod.json"
review < "$E2E_TMP/pod.json" \
    | $VG "$BIN/gpupack-webhook" --review --snapshot-nodes "$NODES" --log-level error > "$E2E_TMP/resp.json"
jq -r '.response.warnings[]' "$E2E_TMP/resp.json" > "$E2E_TMP/warnings"
if diff "$E2E_TMP/want-warnings" "$E2E_TMP/warnings" > "$E2E_TMP/d"; then pass install-example.warnings
else fail install-example.warnings "$(cat "$E2E_TMP/d")"; fi
jq -r '.response.patch' "$E2E_TMP/resp.json" | base64 -d > "$E2E_TMP/patch.json"
kubectl patch --local --type=json -f "$E2E_TMP/pod.json" -p "$(cat "$E2E_TMP/patch.json")" -o json \
    > "$E2E_TMP/mutated.json" 2> "$E2E_TMP/kerr"
# Every field the page shows, but priority and preemptionPolicy (set by kube-apiserver's Priority
# plugin after the webhook, from the PriorityClass), holds in the mutated pod.
if [ -s "$E2E_TMP/mutated.json" ] && jq -e --slurpfile w "$E2E_TMP/want.json" '
    ($w[0]) as $w
    | .metadata.annotations == (.metadata.annotations + $w.metadata.annotations)
    and .metadata.labels == (.metadata.labels + $w.metadata.labels)
    and .spec.activeDeadlineSeconds == $w.spec.activeDeadlineSeconds
    and .spec.priorityClassName == $w.spec.priorityClassName
    and .spec.tolerations == $w.spec.tolerations
    and ([.spec.containers[] | {name, resources: (.resources | {limits, requests})}]
         == [$w.spec.containers[] | {name, resources}])
    and (has("priority") | not)' "$E2E_TMP/mutated.json" > /dev/null 2>&1 \
   && jq -e '.spec | has("priority") or has("preemptionPolicy") | not' "$E2E_TMP/mutated.json" > /dev/null; then
    pass install-example.mutated-pod
else
    fail install-example.mutated-pod "$(cat "$E2E_TMP/kerr"; jq -c '{a: .metadata.annotations, l: .metadata.labels, s: .spec | {activeDeadlineSeconds, priorityClassName, tolerations, c: [.containers[] | .resources]}}' "$E2E_TMP/mutated.json" 2>&1 | head -c 800)"
fi
