#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# README.md's "Asking the extender" example, run as written: the table and the HostPriorityList
# it shows are what bin/gpupack-extender prints today (the prices and scores a reader checks).
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
# The code block that runs --once prioritize --explain: the command (from "$ jq" to the table's
# NODE header) and what it prints (from the header on).
awk '/^```/ { if (inb && hit) exit; inb = !inb; n = 0; next }
     inb { line[++n] = $0; if ($0 ~ /gpupack-extender --once prioritize --explain/) hit = 1 }
     END { for (i = 1; i <= n; i++) print line[i] }' "$ROOT/README.md" > "$E2E_TMP/block"
awk '/^NODE / { exit } /^\$ jq/ { on = 1; sub(/^\$ /, "") } on' "$E2E_TMP/block" \
    | sed "s#bin/gpupack-extender#$BIN/gpupack-extender#" > "$E2E_TMP/cmd"
sed -n '/^NODE /,$p' "$E2E_TMP/block" > "$E2E_TMP/want"
if [ ! -s "$E2E_TMP/cmd" ] || [ ! -s "$E2E_TMP/want" ]; then
    fail readme-example.found "no --explain example in README.md"
    exit 0
fi
(cd "$ROOT" && sh "$E2E_TMP/cmd") > "$E2E_TMP/out" 2> "$E2E_TMP/err"
grep -v '^\[' "$E2E_TMP/want" > "$E2E_TMP/want-table"
grep '^\[' "$E2E_TMP/want" > "$E2E_TMP/want-json"
if diff "$E2E_TMP/want-table" "$E2E_TMP/err" > "$E2E_TMP/d1"; then pass readme-example.table
else fail readme-example.table "$(cat "$E2E_TMP/d1")"; fi
if diff "$E2E_TMP/want-json" "$E2E_TMP/out" > "$E2E_TMP/d2"; then pass readme-example.host-priority-list
else fail readme-example.host-priority-list "$(cat "$E2E_TMP/d2")"; fi

# The webhook's worked example: the command from "$ bin/gpupack-webhook" to the JSON it prints,
# which is compared field by field (the README shortens the patch and the summary with "...").
awk '/^```/ { if (inb && hit) exit; inb = !inb; n = 0; next }
     inb { line[++n] = $0; if ($0 ~ /gpupack-webhook --review/) hit = 1 }
     END { for (i = 1; i <= n; i++) print line[i] }' "$ROOT/README.md" > "$E2E_TMP/wblock"
awk '/^\{/ { exit } /^\$ bin\/gpupack-webhook/ { on = 1; sub(/^\$ /, "") } on' "$E2E_TMP/wblock" \
    | sed "s#bin/gpupack-webhook#$BIN/gpupack-webhook#" > "$E2E_TMP/wcmd"
sed -n '/^{/,$p' "$E2E_TMP/wblock" > "$E2E_TMP/wwant"
if ! jq -e . "$E2E_TMP/wwant" > /dev/null 2>&1 || [ ! -s "$E2E_TMP/wcmd" ]; then
    fail readme-example.webhook-found "no --review example with its JSON in README.md"
    exit 0
fi
(cd "$ROOT" && sh "$E2E_TMP/wcmd") > "$E2E_TMP/wout" 2> "$E2E_TMP/werr"
if jq -e --slurpfile w "$E2E_TMP/wwant" '
    ($w[0]) as $w
    | .uid == $w.uid and .allowed == $w.allowed and .patchType == $w.patchType
      and .warnings == $w.warnings and .auditAnnotations.class == $w.auditAnnotations.class
      and (.patch | startswith($w.patch | rtrimstr("...")))
      and (.auditAnnotations.mutated | startswith($w.auditAnnotations.mutated | rtrimstr("...")))' \
    "$E2E_TMP/wout" > /dev/null 2>&1; then
    pass readme-example.webhook-review
else
    fail readme-example.webhook-review "$(cat "$E2E_TMP/wout" "$E2E_TMP/werr" | head -c 600)"
fi

# "Against the running server": tools/run.sh (what make run starts) with the README's
# WEBHOOK_FLAGS gives the same answer over HTTPS as --review. The flags come after the script's
# own, so a later --listen moves each daemon to a port the kernel picks, read from its log.
make_certs "$E2E_TMP/runcerts" || fail readme-example.run-certs "gpupack-certs failed"
WEBHOOK_FLAGS="--listen 127.0.0.1:0 --snapshot-nodes tests/examples/nodes.json" \
EXTENDER_FLAGS="--listen 127.0.0.1:0" \
    sh -c 'cd "$1" && exec tools/run.sh "$2" "$3"' run "$ROOT" "$BIN" "$E2E_TMP/runcerts" \
    > "$E2E_TMP/run.log" 2>&1 &
RUNPID=$!
port_in_log() { # SERVER: the port its "listening" line names
    sed -n "s/.*\"msg\":\"listening\",\"server\":\"$1\".*\"port\":\([0-9]*\).*/\1/p" \
        "$E2E_TMP/run.log" | head -n 1
}
i=0; WP=""; XP=""
while [ $i -lt 200 ] && { [ -z "$WP" ] || [ -z "$XP" ]; }; do
    WP=$(port_in_log webhook); XP=$(port_in_log extender); sleep 0.1; i=$((i + 1))
done
if [ -n "$WP" ] && [ -n "$XP" ] && wait_http "https://127.0.0.1:$WP/healthz" 20 \
    && wait_http "http://127.0.0.1:$XP/healthz" 20; then
    curl -s --max-time 10 --cacert "$E2E_TMP/runcerts/ca.crt" -H 'Content-Type: application/json' \
        --data-binary @"$ROOT/tests/examples/gpu-deployment-review.json" \
        "https://localhost:$WP/mutate" | jq -c '.response.warnings' > "$E2E_TMP/run-warnings"
    jq -c '.warnings' "$E2E_TMP/wout" > "$E2E_TMP/review-warnings"
    cmp -s "$E2E_TMP/run-warnings" "$E2E_TMP/review-warnings" \
        && grep -q 'mig-2g.20gb' "$E2E_TMP/run-warnings" && pass readme-example.run-with-flags \
        || fail readme-example.run-with-flags "$(cat "$E2E_TMP/run-warnings" "$E2E_TMP/run.log" | head -c 600)"
else
    fail readme-example.run-with-flags "daemons not up: $(head -c 600 "$E2E_TMP/run.log")"
fi
kill "$RUNPID" 2>/dev/null; wait "$RUNPID" 2>/dev/null
# Both daemons stop with the script (patterns bracketed so that pgrep does not find itself).
check readme-example.run-stops-both sh -c "! pgrep -f '[r]uncerts/tls.crt' && ! pgrep -f '[e]xtender --listen 127.0.0.1:8888 --drain-seconds 0 --listen 127.0.0.1:0'"
