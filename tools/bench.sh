#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The benchmarks (`make bench`; `tools/bench.sh --smoke` is the short run `make test` does to
# prove they still run). Everything on loopback; load from wrk and h2load (not ours).
#
#   webhook: POST /mutate of a ~2.5 KB and a ~6 KB Deployment GPU pod review over TLS keep-alive,
#            against the floor (tests/bench/floor.c: the same HTTP/TLS layer, cJSON parse, fixed
#            allow; and "floor-sized", the same floor padding its allow to the webhook's answer
#            size on the 2.5 KB review) and, when Go is here, the Go peer
#            (tools/peers/gowebhook), interleaved in the same run: saturation (wrk -t2 -c32), half
#            of the webhook's saturated rate (h2load --rps), and a new TLS handshake per request
#            (6 KB). Ratios: mutate/floor for each review, mutate/floor-sized (2.5 KB), and
#            go-peer-ratio (webhook over Go peer, 2.5 KB, the same rounds).
#            --webhook: this part alone, then the summary.
#   extender: POST /prioritize and /filter with 500 and all node names against a view of NODES
#            nodes and PODS pods, and with all NODES full Node objects (nodeCacheCapable false).
#   scheduler's cycle: kube-scheduler's calls one pod at a time (filter, prioritize, the binding on
#            the extender's watch) against a live view from a fake API (tools/bench_schedcycle.sh).
#   memory:  resident set of each daemon idle, under load, and with the large view.
#   MIG choice: gp_mutate() for a MIG pod against a node view of 2,000 MIG nodes (migpick.c).
#   advisor: `gpupack-advisor report` over 10,000 GPUs x 7 days from a fake Prometheus, and over
#            48 GPUs from a real one (tools/bench_advisor.sh).
#
# Results: build/bench/results.jsonl (one JSON object a measurement) and a table on stdout.
# Environment: BENCH_SECONDS (each run, default 10), BENCH_NODES (5000), BENCH_PODS (150000),
# BENCH_SCHED_PODS (300), BENCH_WEBHOOK_FLAGS (extra gpupack-webhook flags, e.g. "--threads 2").
set -u
cd "$(dirname "$0")/.."
ROOT=$(pwd)
BIN=${BIN:-bin}
BUILD=${BUILD:-build}
SMOKE=0
WEBHOOK_ONLY=0
for a in "$@"; do
    case $a in
        --smoke) SMOKE=1 ;;
        --webhook) WEBHOOK_ONLY=1 ;;
        *) echo "usage: tools/bench.sh [--smoke] [--webhook]" >&2; exit 2 ;;
    esac
done
if [ $SMOKE = 1 ]; then
    D=${BENCH_SECONDS:-1}; NODES=${BENCH_NODES:-200}; PODS=${BENCH_PODS:-2000}
else
    D=${BENCH_SECONDS:-10}; NODES=${BENCH_NODES:-5000}; PODS=${BENCH_PODS:-150000}
fi
OUT=${BENCH_OUT:-$BUILD/bench}
case $OUT in /*) ;; *) OUT="$ROOT/$OUT" ;; esac
mkdir -p "$OUT"
RES="$OUT/results.jsonl"
: > "$RES"
PIDS=""
cleanup() { for p in $PIDS; do kill "$p" 2>/dev/null; done; for p in $PIDS; do wait "$p" 2>/dev/null; done; }
trap cleanup EXIT INT TERM
for t in wrk h2load jq python3; do
    command -v $t >/dev/null || { echo "bench: $t is missing (tools/deps.sh test)" >&2; exit 1; }
done

rss_kb() { awk '/^VmRSS/ {print $2}' "/proc/$1/status"; }
# cpu_ticks PID: user + system CPU time of the process so far, in clock ticks.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
# with_cpu PID NAME CMD...: runs CMD (a wrk run printing one JSON line) and records it as NAME
# with cpu_us_per_req, the server's CPU microseconds per request over the run: steadier than
# req/s on a shared machine, where other work takes the cores but not this process's CPU time.
with_cpu() {
    wpid=$1 wname=$2
    shift 2
    t0=$(cpu_ticks "$wpid")
    r=$("$@")
    t1=$(cpu_ticks "$wpid")
    record "$wname" "$(echo "$r" | jq -c --argjson t "$((t1 - t0))" --argjson hz "$(getconf CLK_TCK)" \
        '. + {cpu_us_per_req: (if .requests > 0 then ($t / $hz * 1e6 / .requests * 10 | round / 10) else null end)}')"
}
record() { # NAME JSON: one result line, with the name
    echo "$2" | jq -c --arg n "$1" '{name: $n} + .' >> "$RES"
}
# start NAME CMD...: runs a server (logging warnings only, as in production at load); waits for
# its listening socket; sets PORT and PID.
start() {
    n=$1; shift
    "$@" > /dev/null 2> "$OUT/$n.log" &
    PID=$!; PIDS="$PIDS $PID"; PORT=""
    i=0
    while [ $i -lt 600 ] && [ -z "$PORT" ]; do
        PORT=$(ss -Hltnp 2>/dev/null | awk -v p="pid=$PID," '$0 ~ p {n = split($4, a, ":"); print a[n]; exit}')
        [ -n "$PORT" ] || sleep 0.1; i=$((i + 1))
    done
    [ -n "$PORT" ] || { echo "bench: $n did not start: $(tail -n 3 "$OUT/$n.log")" >&2; exit 1; }
}
wrk_post1() { # URL BODY: one connection, one thread (one request at a time)
    unset BENCH_CLOSE
    BENCH_BODY=$2 wrk -t1 -c1 -d"${D}s" --timeout 10s -s tests/bench/post.lua "$1" | tail -n 1
}
wrk_post() { # URL BODY CONNS [close]
    if [ -n "${4:-}" ]; then BENCH_CLOSE=1; export BENCH_CLOSE; else unset BENCH_CLOSE; fi
    BENCH_BODY=$2 wrk -t2 -c"$3" -d"${D}s" --timeout 10s -s tests/bench/post.lua "$1" | tail -n 1
}
# peak_rss PID SECONDS: highest VmRSS seen over the next SECONDS (sampled every 0.2 s), in kB.
peak_rss() {
    m=0; i=0
    while [ $i -lt $(($2 * 5)) ]; do r=$(rss_kb "$1"); [ "${r:-0}" -gt $m ] && m=$r; sleep 0.2; i=$((i + 1)); done
    echo $m
}

# ratio NAME A B TEXT: the req/s of the runs named A* over those named B* (same rounds), recorded
# as NAME; nothing when either is missing.
ratio() {
    r=$(jq -s --arg a "$2" --arg b "$3" '([.[] | select(.name | startswith($a)) | .rps // empty] | add) as $x
        | ([.[] | select(.name | startswith($b)) | .rps // empty] | add) as $y
        | if $x and $y then ($x / $y * 1000 | round / 1000) else empty end' "$RES")
    [ -n "$r" ] || return 0
    echo "$4: $r"
    record "$1" "{\"ratio\": $r}"
}
# summary: the table, the throughput ratios, and a failure when any request failed.
summary() {
    jq -r -s '
      def f(x): if x == null then "-" else (x | tostring) end;
      (["measurement", "req/s", "p50 us", "p99 us", "p99.9 us", "errors", "non-2xx", "other"] | @tsv),
      (.[] | [.name, f(.rps | if . then floor else null end), f(.p50_us), f(.p99_us), f(.p999_us), f(.errors), f(.non2xx),
              f(del(.name, .rps, .p50_us, .p99_us, .p999_us, .errors, .non2xx, .requests, .seconds, .max_us) | if . == {} then null else tojson end)] | @tsv)' "$RES" \
      | column -t -s "$(printf '\t')"
    ratio mutate-floor-ratio mutate-saturation floor-saturation "mutate/floor throughput, 6 KB review"
    ratio mutate-floor-ratio-2.5k mutate-2.5k-saturation floor-2.5k-saturation "mutate/floor throughput, 2.5 KB review"
    ratio mutate-floor-sized-ratio-2.5k mutate-2.5k-saturation floor-sized-2.5k-saturation \
        "mutate/floor-sized throughput, 2.5 KB review (the floor answering as many bytes)"
    ratio go-peer-ratio mutate-2.5k-saturation go-peer-2.5k-saturation "webhook/Go peer throughput, 2.5 KB review"
    bad=$(jq -s '[.[] | (.errors // 0) + (.non2xx // 0)] | add' "$RES")
    [ "$bad" = 0 ] || { echo "bench: $bad requests failed" >&2; exit 1; }
}

# ---- inputs (deterministic) -----------------------------------------------------------------------
python3 tests/bench/gen_review.py --seed 42 > "$OUT/review.json"
python3 tests/bench/gen_review.py --seed 42 --small > "$OUT/review-2.5k.json"
CL="$OUT/cluster-$NODES-$PODS"
[ -f "$CL/args-full-$NODES.json" ] || python3 tests/bench/gen_cluster.py "$CL" --seed 42 --nodes "$NODES" --pods "$PODS"
"$BIN/gpupack-certs" --service gpupack-webhook --namespace gpupack-system --out "$OUT/certs" \
    --ip 127.0.0.1 --dns localhost --force --log-level error > /dev/null

# ---- the Go peer (tools/peers/gowebhook), built when a Go toolchain is here ----------------------
# (it asks for Go 1.23; it has no dependency and builds with Debian bookworm's Go 1.19 too:
# tools/deps.sh bench installs golang-go)
GOSRC=$ROOT/tools/peers/gowebhook
GOBIN=""
if command -v go >/dev/null && [ -d "$GOSRC" ]; then
    rm -rf "$OUT/gowebhook" && cp -r "$GOSRC" "$OUT/gowebhook" && chmod -R u+w "$OUT/gowebhook"
    if (cd "$OUT/gowebhook" && GOFLAGS=-mod=mod GOPROXY=off GOCACHE="$OUT/gocache" \
            go build -o gowebhook . ) > "$OUT/go-build.log" 2>&1; then
        GOBIN="$OUT/gowebhook/gowebhook"
    else
        GOSKIP="go build failed: $(tail -n 1 "$OUT/go-build.log" | tr -d '"\\')"
    fi
else
    GOSKIP="no Go toolchain"
fi

# ---- webhook against its floor and the Go peer ---------------------------------------------------
# shellcheck disable=SC2086 # BENCH_WEBHOOK_FLAGS: extra flags, e.g. "--threads 2"
start webhook "$BIN/gpupack-webhook" --listen 127.0.0.1:0 --tls-cert "$OUT/certs/tls.crt" \
    --tls-key "$OUT/certs/tls.key" --log-level warn --drain-seconds 0 ${BENCH_WEBHOOK_FLAGS:-}
WPORT=$PORT; WPID=$PID
start floor "$BUILD/bench/floor" --listen 127.0.0.1:0 --tls-cert "$OUT/certs/tls.crt" \
    --tls-key "$OUT/certs/tls.key" --log-level warn
FPORT=$PORT; FPID=$PID
# The floor answering as many bytes as the webhook does on the 2.5 KB review (its patch,
# annotations and warnings): what the answer's size costs the server layer by itself.
ANSWER_BYTES=$(curl -sk -H 'Content-Type: application/json' --data-binary @"$OUT/review-2.5k.json" \
    "https://127.0.0.1:$WPORT/mutate" | wc -c)
start floor-sized "$BUILD/bench/floor" --listen 127.0.0.1:0 --tls-cert "$OUT/certs/tls.crt" \
    --tls-key "$OUT/certs/tls.key" --log-level warn --answer-bytes "$ANSWER_BYTES"
SPORT=$PORT; SPID=$PID
got=$(curl -sk -H 'Content-Type: application/json' --data-binary @"$OUT/review-2.5k.json" \
    "https://127.0.0.1:$SPORT/mutate" | wc -c)
[ "$got" = "$ANSWER_BYTES" ] || { echo "bench: floor-sized answers $got bytes, the webhook $ANSWER_BYTES" >&2; exit 1; }
GPORT=""
if [ -n "$GOBIN" ]; then
    start go-peer "$GOBIN" --listen 127.0.0.1:0 --tls-cert "$OUT/certs/tls.crt" --tls-key "$OUT/certs/tls.key"
    GPORT=$PORT; GOPID=$PID
fi
sleep 0.5
record webhook-rss-idle "{\"rss_kb\": $(rss_kb $WPID)}"
# Other work on the machine moves every req/s figure: the load when this part starts says how much.
record machine-load "{\"loadavg_1m\": $(cut -d' ' -f1 /proc/loadavg), \"cpus\": $(nproc)}"
port_of() { case $1 in floor) echo "$FPORT" ;; floor-sized) echo "$SPORT" ;; mutate) echo "$WPORT" ;; go-peer) echo "$GPORT" ;; esac; }
pid_of() { case $1 in floor) echo "$FPID" ;; floor-sized) echo "$SPID" ;; mutate) echo "$WPID" ;; go-peer) echo "$GOPID" ;; esac; }
# Saturation, interleaved, two rounds: the ~2.5 KB review (floor, the floor answering as many
# bytes as the webhook, webhook, Go peer), then the ~6 KB one (floor, webhook; the Go peer once,
# after them).
record webhook-answer-bytes-2.5k "{\"bytes\": $ANSWER_BYTES}"
for round in 1 2; do
    for t in floor floor-sized mutate go-peer; do
        [ $t = go-peer ] && [ -z "$GPORT" ] && continue
        with_cpu "$(pid_of $t)" "$t-2.5k-saturation-r$round" wrk_post "https://127.0.0.1:$(port_of $t)/mutate" "$OUT/review-2.5k.json" 32
    done
    for t in floor mutate; do
        if [ $t = mutate ]; then peak_rss $WPID "$D" > "$OUT/peak" & sampler=$!; fi
        with_cpu "$(pid_of $t)" "$t-saturation-r$round" wrk_post "https://127.0.0.1:$(port_of $t)/mutate" "$OUT/review.json" 32
        if [ $t = mutate ]; then wait $sampler; record webhook-rss-under-load "{\"rss_kb\": $(cat "$OUT/peak")}"; fi
    done
done
if [ -n "$GPORT" ]; then
    with_cpu "$GOPID" go-peer-saturation wrk_post "https://127.0.0.1:$GPORT/mutate" "$OUT/review.json" 32
    record go-peer-rss-under-load "{\"rss_kb\": $(rss_kb $GOPID)}"
else
    record go-peer-saturation "{\"skipped\": \"$GOSKIP\"}"
fi
# half_load SUFFIX REVIEW: half of the webhook's best saturated rate on REVIEW, 8 connections,
# floor then webhook; records floor$SUFFIX-half-load and mutate$SUFFIX-half-load.
half_load() {
    sat=$(jq -s --arg p "mutate$1-saturation" '[.[] | select(.name | startswith($p)) | .rps] | max' "$RES")
    rate=$(echo "$sat" | awk '{r = int($1 / 2 / 8); if (r < 1) r = 1; print r}')
    for t in floor mutate; do
        rm -f "$OUT/$t$1-half.log" # h2load appends to its log file
        h2load --h1 -c 8 -t 2 --rps="$rate" -D "$D" -H 'Content-Type: application/json' \
            -d "$2" --log-file "$OUT/$t$1-half.log" "https://127.0.0.1:$(port_of $t)/mutate" > "$OUT/$t$1-half.out" 2>&1
        p=$(python3 tests/bench/percentiles.py "$OUT/$t$1-half.log")
        got=$(sed -n 's/^finished in [^,]*, \([0-9.]*\) req\/s.*/\1/p' "$OUT/$t$1-half.out")
        record "$t$1-half-load" "$(echo "$p" | jq -c --argjson r "$((rate * 8))" --argjson g "${got:-0}" '. + {target_rps: $r, rps: $g}')"
    done
}
half_load -2.5k "$OUT/review-2.5k.json"
half_load "" "$OUT/review.json"
for t in floor mutate; do
    record "$t-new-handshake-each" "$(wrk_post "https://127.0.0.1:$(port_of $t)/mutate" "$OUT/review.json" 8 close)"
done
kill $WPID $SPID 2>/dev/null
[ -n "$GPORT" ] && kill "$GOPID" 2>/dev/null
[ $WEBHOOK_ONLY = 1 ] && { summary; exit $?; }

# ---- extender with the large view -------------------------------------------------------------------
start extender "$BIN/gpupack-extender" --listen 127.0.0.1:0 --snapshot-nodes "$CL/nodes.json" \
    --snapshot-pods "$CL/pods.json" --log-level warn --drain-seconds 0 --assume-seconds 0
XPORT=$PORT; XPID=$PID
sleep 0.5
record "extender-rss-view-$NODES-nodes-$PODS-pods" "{\"rss_kb\": $(rss_kb $XPID)}"
# phases VERB: mean milliseconds per call of decode / decide / encode since the last call of
# this, from the extender's own gpupack_extender_phase_duration_seconds histogram.
echo "none 0" > "$OUT/phases.prev"
phases() {
    curl -s "http://127.0.0.1:$XPORT/metrics" | awk '
        /^gpupack_extender_phase_duration_seconds_(sum|count)\{/ {
            split($1, a, "verb=\""); split(a[2], vb, "\""); split($1, c, "phase=\""); split(c[2], pb, "\"")
            print ($1 ~ /_sum/ ? "s" : "c") "_" vb[1] "_" pb[1], $2 }' > "$OUT/phases.now"
    awk -v v="$1" 'FILENAME == ARGV[1] {prev[$1] = $2; next} {now[$1] = $2}
         END {split("decode decide encode", ph, " "); printf "{"
              for (i = 1; i <= 3; i++) { k = v "_" ph[i]; c = now["c_" k] - prev["c_" k]
                  printf "%s\"%s_ms\": %.3f", (i == 1 ? "" : ", "), ph[i], (c > 0 ? (now["s_" k] - prev["s_" k]) / c * 1e3 : 0) }
              printf "}" }' "$OUT/phases.prev" "$OUT/phases.now"
    cp "$OUT/phases.now" "$OUT/phases.prev"
}
phases prioritize > /dev/null
for k in 500 "$NODES"; do
    for v in prioritize filter; do
        # kube-scheduler makes one extender call at a time (one scheduling cycle): 1 connection;
        # then 4 connections for the saturated rate.
        r=$(wrk_post1 "http://127.0.0.1:$XPORT/$v" "$CL/args-names-$k.json")
        record "extender-$v-$k-names-one-at-a-time" "$(echo "$r" | jq -c --argjson p "$(phases $v)" '. + $p')"
        record "extender-$v-$k-names" "$(wrk_post "http://127.0.0.1:$XPORT/$v" "$CL/args-names-$k.json" 4)"
        phases $v > /dev/null
    done
done
record extender-rss-under-load "{\"rss_kb\": $(rss_kb $XPID)}"
# Full Node objects: one call at a time, as kube-scheduler makes them.
n=5; [ $SMOKE = 1 ] && n=1
bytes=$(wc -c < "$CL/args-full-$NODES.json")
for v in prioritize filter; do
    : > "$OUT/full.times"
    i=0
    while [ $i -lt $n ]; do
        curl -s -o "$OUT/full.out" -w '%{time_total} %{http_code}\n' -H 'Content-Type: application/json' \
            --data-binary @"$CL/args-full-$NODES.json" "http://127.0.0.1:$XPORT/$v" >> "$OUT/full.times"
        i=$((i + 1))
    done
    t=$(awk -v b="$bytes" '{s += $1; if ($1 > m) m = $1; if ($2 != 200) bad++} END {printf "{\"calls\": %d, \"mean_s\": %.3f, \"max_s\": %.3f, \"body_bytes\": %d, \"non2xx\": %d}", NR, s / NR, m, b, bad + 0}' "$OUT/full.times")
    record "extender-$v-$NODES-full-nodes" "$(echo "$t" | jq -c --argjson p "$(phases $v)" '. + $p')"
done
record extender-rss-after-full-nodes "{\"rss_kb\": $(rss_kb $XPID)}"
kill $XPID 2>/dev/null

# ---- the scheduler's cycle, emulated: filter, prioritize, binding on the watch (bench_schedcycle.sh) --
if [ $SMOKE = 1 ]; then
    BENCH_OUT="$OUT" BIN="$BIN" BUILD="$BUILD" tools/bench_schedcycle.sh --smoke "$CL" || echo "bench: the scheduler-cycle benchmark failed" >&2
else
    BENCH_OUT="$OUT" BIN="$BIN" BUILD="$BUILD" tools/bench_schedcycle.sh "$CL" || echo "bench: the scheduler-cycle benchmark failed" >&2
fi

# ---- the extender's instructions per scheduled pod, under callgrind (tools/callgrind_extender.sh) --
# Full: 100 pods on the 500-node cluster; smoke: 3 pods on the smoke cluster. Not for a sanitizer
# build (`make asan`): valgrind cannot run a binary linked with AddressSanitizer.
cgr=""
if ldd "$BIN/gpupack-extender" 2>/dev/null | grep -q libasan; then
    record extender-callgrind-skipped '{"reason": "AddressSanitizer build: valgrind cannot run it"}'
    : > "$OUT/callgrind-extender.err"
elif [ $SMOKE = 1 ]; then
    cgr=$(BENCH_OUT="$OUT" BIN="$BIN" BUILD="$BUILD" CALLGRIND_PODS=3 tools/callgrind_extender.sh "$CL" 2> "$OUT/callgrind-extender.err")
else
    cgr=$(BENCH_OUT="$OUT" BIN="$BIN" BUILD="$BUILD" tools/callgrind_extender.sh 2> "$OUT/callgrind-extender.err")
fi
[ -n "$cgr" ] || [ ! -s "$OUT/callgrind-extender.err" ] ||
    echo "bench: callgrind_extender failed: $(tail -n 2 "$OUT/callgrind-extender.err")" >&2
echo "$cgr" | while read -r l; do
    [ -n "$l" ] && record "extender-callgrind-$(echo "$l" | jq -r .mode)" "$(echo "$l" | jq -c 'del(.mode)')"
done

# ---- the webhook's MIG choice against a large node view (tests/bench/migpick.c) -------------------
MIGN=2000; MIGD=5000
[ $SMOKE = 1 ] && { MIGN=200; MIGD=200; }
"$BUILD/bench/migpick" $MIGN $MIGD > "$OUT/migpick.jsonl" || echo "bench: migpick failed" >&2
while read -r l; do
    record "$(echo "$l" | jq -r .name)" "$(echo "$l" | jq -c 'del(.name)')"
done < "$OUT/migpick.jsonl"

# ---- the advisor: a report over a 10,000-GPU week from a fake Prometheus (tools/bench_advisor.sh) --
if [ $SMOKE = 1 ]; then
    BENCH_OUT="$OUT" BIN="$BIN" BUILD="$BUILD" tools/bench_advisor.sh --smoke || echo "bench: the advisor benchmark failed" >&2
else
    BENCH_OUT="$OUT" BIN="$BIN" BUILD="$BUILD" tools/bench_advisor.sh || echo "bench: the advisor benchmark failed" >&2
fi

# ---- summary -----------------------------------------------------------------------------------------
summary
