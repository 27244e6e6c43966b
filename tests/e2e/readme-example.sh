#!/bin/sh
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
