#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Soak: GP_SOAK_MUTATE (default 1,000,000) POST /mutate over TLS keep-alive and
# GP_SOAK_PRIORITIZE (default 200,000) POST /prioritize, sent with h2load (nghttp2, --h1).
# After a warm-up of a tenth of the requests, resident memory must stay flat (grow by less than
# GP_SOAK_RSS_SLACK_KB, default 4096) and the daemon must hold no more file descriptors once the
# load's connections are closed than before it. Every request must succeed with a 2xx.
# Not run under valgrind (too slow to mean anything there).
. "$(dirname "$0")/lib.sh"
[ -z "$VG" ] || exit 0
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
NMUT=${GP_SOAK_MUTATE:-1000000}
NPRI=${GP_SOAK_PRIORITIZE:-200000}
SLACK=${GP_SOAK_RSS_SLACK_KB:-4096}
command -v h2load >/dev/null || { fail soak.h2load "h2load is not installed (tools/deps.sh test)"; exit 1; }

rss_kb() { awk '/^VmRSS/ {print $2}' "/proc/$1/status"; }
fds() { ls "/proc/$1/fd" | wc -l; }
# load NAME URL BODY N: h2load with 8 connections on 2 threads; fails unless all N succeed.
load() {
    h2load --h1 -n "$4" -c 8 -t 2 -H 'Content-Type: application/json' -d "$3" "$2" \
        > "$E2E_TMP/$1.h2load" 2>&1
    grep -q "requests: $4 total, $4 started, $4 done, $4 succeeded, 0 failed, 0 errored" "$E2E_TMP/$1.h2load" &&
        grep -q "status codes: $4 2xx" "$E2E_TMP/$1.h2load"
}
# soak NAME PID URL BODY N
soak() {
    name=$1; pid=$2; url=$3; body=$4; n=$5
    warm=$((n / 10))
    if ! load "$name-warm" "$url" "$body" "$warm"; then
        fail "soak.$name" "warm-up: $(grep -E 'requests:|status codes:' "$E2E_TMP/$name-warm.h2load" | tr '\n' ' ')"
        return
    fi
    sleep 0.5
    r0=$(rss_kb "$pid"); f0=$(fds "$pid")
    peak=$r0
    ( while kill -0 "$pid" 2>/dev/null; do rss_kb "$pid"; sleep 1; done ) > "$E2E_TMP/$name.rss" &
    sampler=$!
    if ! load "$name" "$url" "$body" $((n - warm)); then
        kill $sampler 2>/dev/null
        fail "soak.$name" "$(grep -E 'requests:|status codes:' "$E2E_TMP/$name.h2load" | tr '\n' ' ')"
        return
    fi
    kill $sampler 2>/dev/null; wait $sampler 2>/dev/null
    sleep 0.5
    r1=$(rss_kb "$pid"); f1=$(fds "$pid")
    peak=$(sort -n "$E2E_TMP/$name.rss" | tail -n 1)
    rate=$(sed -n 's/^finished in [^,]*, \([0-9.]*\) req\/s.*/\1/p' "$E2E_TMP/$name.h2load")
    msg="$n requests, ${rate} req/s; RSS after warm-up ${r0} kB, at the end ${r1} kB, peak ${peak:-$r1} kB; fds ${f0} -> ${f1}"
    if [ $((r1 - r0)) -lt "$SLACK" ] && [ "$f1" -le "$f0" ]; then
        pass "soak.$name ($msg)"
    else
        fail "soak.$name" "$msg"
    fi
}

make_certs "$E2E_TMP/certs" || { fail soak.certs; exit 1; }
"$BIN/gpupack-webhook" --listen 127.0.0.1:0 --tls-cert "$E2E_TMP/certs/tls.crt" \
    --tls-key "$E2E_TMP/certs/tls.key" --log-level warn --drain-seconds 0 --threads 2 2> "$E2E_TMP/w.log" &
WP=$!; E2E_PIDS="$E2E_PIDS $WP"
"$BIN/gpupack-extender" --listen 127.0.0.1:0 --snapshot-nodes "$ROOT/tests/extender/nodes.json" \
    --snapshot-pods "$ROOT/tests/extender/pods.json" --log-level warn --drain-seconds 0 --threads 2 \
    2> "$E2E_TMP/x.log" &
XP=$!; E2E_PIDS="$E2E_PIDS $XP"
# The kernel-chosen ports, from the listening sockets each process holds.
port_of() { ss -Hltnp 2>/dev/null | awk -v p="pid=$1," '$0 ~ p {n=split($4, a, ":"); print a[n]; exit}'; }
i=0; WPORT=""; XPORT=""
while [ $i -lt 100 ] && { [ -z "$WPORT" ] || [ -z "$XPORT" ]; }; do
    WPORT=$(port_of $WP); XPORT=$(port_of $XP); sleep 0.1; i=$((i + 1))
done
if [ -z "$WPORT" ] || [ -z "$XPORT" ]; then fail soak.start "no listening port"; exit 1; fi

soak webhook-mutate $WP "https://127.0.0.1:$WPORT/mutate" "$ROOT/tests/examples/gpu-deployment-review.json" "$NMUT"
jq -n '{Pod: {metadata: {name: "p", namespace: "ml", uid: "11111111-2222-4333-8444-555555555555",
          labels: {"gpupack.io/class": "inference"}},
        spec: {containers: [{name: "m", resources: {limits: {"nvidia.com/gpu": "1"}}}]}},
        Nodes: null, NodeNames: ["gpu-busy", "gpu-empty", "gpu-cordoned", "gpu-spot", "mig-busy",
          "mig-empty", "t4-small", "cpu-1"]}' > "$E2E_TMP/args.json"
soak extender-prioritize $XP "http://127.0.0.1:$XPORT/prioritize" "$E2E_TMP/args.json" "$NPRI"
kill -0 $WP && kill -0 $XP && pass soak.daemons-alive || fail soak.daemons-alive
