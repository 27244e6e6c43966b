#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Instructions per review of POST /mutate, counted by callgrind (stable from run to run, unlike
# wall-clock figures on a shared two-core machine).
#
#   tools/callgrind_webhook.sh [--floor] [--top N] [--report]
#
# For each review (the ~2.5 KB one, gen_review.py --small, and the ~6 KB one), the server runs
# twice under `valgrind --tool=callgrind` on loopback TLS (certificates from bin/gpupack-certs, as
# tools/bench.sh does), and one client sends CALLGRIND_N1 (200) then CALLGRIND_N2 (1200) reviews
# over one keep-alive connection. Start-up, the handshake and shut-down are the same in both runs,
# so (Ir(N2) - Ir(N1)) / (N2 - N1) is what one more review costs, the TLS record layer and
# libmicrohttpd included. The split by function is the same difference, per function: inclusive
# for the webhook's phases, exclusive for the top N (default 25) functions.
# --floor: measures tests/bench/floor.c too (the same server layer, a cJSON parse, a fixed allow).
# --report: no new run; reports on the callgrind files of the last one.
#
# Ir counts instructions, not time: a `rep stosb` counts once per byte (libmicrohttpd zeroes its
# 64 KiB connection pool with one for each request, ~98k Ir that take ~1-2 us), and crypto in
# AES-NI/PCLMUL takes few instructions for many cycles. Compare runs, not figures across kinds.
#
# Output: a table on stdout; the raw callgrind files and annotations under $OUT/callgrind
# (BENCH_OUT or build/bench). Needs valgrind, python3, bin/gpupack-webhook, bin/gpupack-certs and,
# with --floor, build/bench/floor.
set -u
cd "$(dirname "$0")/.." || exit 1
ROOT=$(pwd)
BIN=${BIN:-bin}
BUILD=${BUILD:-build}
N1=${CALLGRIND_N1:-200}
N2=${CALLGRIND_N2:-1200}
TOP=25
FLOOR=0
REPORT=0
while [ $# -gt 0 ]; do
    case $1 in
        --floor) FLOOR=1 ;;
        --report) REPORT=1 ;;
        --top) shift; TOP=${1:?--top N} ;;
        *) echo "usage: tools/callgrind_webhook.sh [--floor] [--top N] [--report]" >&2; exit 2 ;;
    esac
    shift
done
OUT=${BENCH_OUT:-$BUILD/bench}
case $OUT in /*) ;; *) OUT="$ROOT/$OUT" ;; esac
CG="$OUT/callgrind"
mkdir -p "$CG"
for t in valgrind callgrind_annotate python3 ss; do
    command -v $t >/dev/null || { echo "callgrind_webhook: $t is missing" >&2; exit 1; }
done
PID=""
cleanup() { [ -n "$PID" ] && kill "$PID" 2>/dev/null; }
trap cleanup EXIT INT TERM

if [ $REPORT = 0 ]; then
    python3 tests/bench/gen_review.py --seed 42 --small > "$CG/review-2.5k.json"
    python3 tests/bench/gen_review.py --seed 42 > "$CG/review-6k.json"
    "$BIN/gpupack-certs" --service gpupack-webhook --namespace gpupack-system --out "$CG/certs" \
        --ip 127.0.0.1 --dns localhost --force --log-level error > /dev/null || exit 1
fi

# send PORT BODY N: N POSTs over one keep-alive TLS connection; fails on any answer but 200.
send() {
    python3 - "$1" "$2" "$3" "$CG/certs/ca.crt" <<'EOF'
import http.client, ssl, sys
port, body, n, ca = int(sys.argv[1]), open(sys.argv[2], "rb").read(), int(sys.argv[3]), sys.argv[4]
ctx = ssl.create_default_context(cafile=ca)
c = http.client.HTTPSConnection("127.0.0.1", port, context=ctx, timeout=120)
for _ in range(n):
    c.request("POST", "/mutate", body, {"Content-Type": "application/json"})
    r = c.getresponse()
    r.read()
    if r.status != 200:
        sys.exit("status %d" % r.status)
EOF
}

# run NAME N BODY CMD...: CMD under callgrind, N reviews, then SIGTERM; leaves $CG/NAME.out.
run() {
    name=$1 n=$2 body=$3
    shift 3
    [ $REPORT = 1 ] && { annotate "$name"; return; }
    valgrind --tool=callgrind --callgrind-out-file="$CG/$name.out" "$@" \
        > /dev/null 2> "$CG/$name.log" &
    PID=$!
    port="" i=0
    while [ $i -lt 600 ] && [ -z "$port" ]; do
        port=$(ss -Hltnp 2>/dev/null | awk -v p="pid=$PID," '$0 ~ p {n = split($4, a, ":"); print a[n]; exit}')
        [ -n "$port" ] || sleep 0.1
        i=$((i + 1))
    done
    [ -n "$port" ] || { echo "callgrind_webhook: $name did not start" >&2; exit 1; }
    send "$port" "$body" "$n" || { echo "callgrind_webhook: $name: requests failed" >&2; exit 1; }
    kill -TERM $PID
    wait $PID
    PID=""
    annotate "$name"
}
annotate() {
    [ -f "$CG/$1.out" ] || { echo "callgrind_webhook: no $CG/$1.out" >&2; exit 1; }
    callgrind_annotate --auto=no --inclusive=yes --threshold=100 "$CG/$1.out" > "$CG/$1.incl"
    callgrind_annotate --auto=no --inclusive=no --threshold=100 "$CG/$1.out" > "$CG/$1.excl"
}

# report NAME: the per-review difference between the N1 and N2 runs of NAME.
report() {
    python3 - "$CG/$1" "$N1" "$N2" "$TOP" "$1" <<'EOF'
import re, sys
base, n1, n2, top, name = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
line = re.compile(r"^\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(\S.*?)\s*$")
def table(path, inclusive):
    # "file:function'DEPTH [object]": recursion levels of one function are summed when
    # exclusive; inclusive, the outermost (largest) stands for them all.
    t = {}
    for l in open(path):
        m = line.match(l)
        if m and "PROGRAM TOTALS" not in l:
            fn = re.sub(r"\s*\[[^]]*\]$", "", m.group(2))
            if not fn.startswith("???"):
                fn = fn.split(":", 1)[1]
            else:  # a library without symbols: name the object
                obj = re.search(r"\[.*/([^/]*?)(\.so[.\d]*)?\]$", m.group(2))
                fn = "(%s)" % (obj.group(1) if obj else "?")
            fn = re.sub(r"'\d+$", "", fn)
            fn = re.sub(r"\.(part|constprop|isra|cold)\.\d+", "", fn)
            v = int(m.group(1).replace(",", ""))
            t[fn] = max(t.get(fn, 0), v) if inclusive else t.get(fn, 0) + v
    return t
def total(path):
    for l in open(path):
        if "PROGRAM TOTALS" in l:
            return int(l.split()[0].replace(",", ""))
per = lambda a, b: (b - a) / (n2 - n1)
i1, i2 = table(base + "-%d.incl" % n1, True), table(base + "-%d.incl" % n2, True)
e1, e2 = table(base + "-%d.excl" % n1, False), table(base + "-%d.excl" % n2, False)
tot = per(total(base + "-%d.incl" % n1), total(base + "-%d.incl" % n2))
print("%s: %.0f Ir per review (all threads, server layer and TLS included)" % (name, tot))
# (not the recursive functions: without cycle detection callgrind counts their inclusive cost
# once per level; gp_json_reject_ambiguous stands for the duplicate-name walk)
phases = ["on_request", "gp_webhook_review", "gp_admission_decode", "gp_utf8_valid",
          "cJSON_ParseWithLengthOpts", "gp_json_reject_ambiguous",
          "gp_json_has_nul_escape", "gp_pod_from_json", "gp_mutate", "gp_patch_build",
          "gp_admission_encode", "gp_base64_encode", "gp_log_write", "gp_metrics_add",
          "gp_arena_printf",
          "gp_metrics_observe", "on_completed", "cJSON_Delete", "gp_json_pool_end",
          "route_mutate", "gnutls_record_recv", "gnutls_record_send", "MHD_queue_response"]
print("  inclusive, per review:")
for f in phases:
    if f in i2 or f in i1:
        v = per(i1.get(f, 0), i2.get(f, 0))
        print("    %-34s %9.0f  %5.1f%%" % (f, v, 100 * v / tot))
print("  exclusive, top %d per review:" % top)
rows = sorted(((per(e1.get(f, 0), e2.get(f, 0)), f) for f in set(e1) | set(e2)), reverse=True)
for v, f in rows[:top]:
    print("    %-50s %9.0f  %5.1f%%" % (f[:50], v, 100 * v / tot))
EOF
}

WH="$BIN/gpupack-webhook --listen 127.0.0.1:0 --tls-cert $CG/certs/tls.crt --tls-key $CG/certs/tls.key --log-level warn --drain-seconds 0"
FL="$BUILD/bench/floor --listen 127.0.0.1:0 --tls-cert $CG/certs/tls.crt --tls-key $CG/certs/tls.key --log-level warn"
for size in 2.5k 6k; do
    for n in "$N1" "$N2"; do
        # shellcheck disable=SC2086
        run "webhook-$size-$n" "$n" "$CG/review-$size.json" $WH
        if [ $FLOOR = 1 ]; then
            # shellcheck disable=SC2086
            run "floor-$size-$n" "$n" "$CG/review-$size.json" $FL
        fi
    done
    report "webhook-$size"
    [ $FLOOR = 1 ] && report "floor-$size"
done
exit 0
