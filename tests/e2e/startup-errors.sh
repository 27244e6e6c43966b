#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# What the contract says of a bad start (shared/CONTRACT.md): a bad flag, an unreadable file or an
# invalid policy exits 2 before any socket is opened, and stderr names the flag, the file or the
# policy field. Each case runs under strace (when present) to see that no socket was bound.
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
T=$E2E_TMP
ERR=$T/err
make_certs "$T/c"
CRT=$T/c/tls.crt
KEY=$T/c/tls.key
HAVE_STRACE=0
strace -f -qq -e trace=bind -o /dev/null true 2>/dev/null && HAVE_STRACE=1

# refused NAME WANT_RC TEXT PROG ARGS...: PROG exits WANT_RC, stderr has TEXT, and nothing was
# bound (strace; without it, no "listening" log line).
refused() {
    name=$1; want=$2; text=$3; shift 3
    if [ $HAVE_STRACE = 1 ]; then
        # LeakSanitizer cannot run under ptrace: it would exit 1 instead of the program's code
        # (`make asan`). Exit codes and binds are what this test checks, not leaks.
        ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
            timeout 20 strace -f -qq -e trace=bind -e signal=none -o "$T/trace" "$@" \
            < /dev/null > "$T/out" 2> "$ERR"; rc=$?
        binds=$(grep -c 'bind(' "$T/trace")
    else
        timeout 20 "$@" < /dev/null > "$T/out" 2> "$ERR"; rc=$?
        binds=$(grep -c '"msg":"listening"' "$ERR")
    fi
    if [ "$rc" = "$want" ] && grep -qF -- "$text" "$ERR" && [ "$binds" = 0 ]; then
        pass "startup-errors.$name"
    else
        fail "startup-errors.$name" "rc $rc (want $want), binds $binds: $(head -c 400 "$ERR")"
    fi
}

# ---- 1. every listen address is checked before the first bind ------------------------------------
W="$BIN/gpupack-webhook --tls-cert $CRT --tls-key $KEY --drain-seconds 0"
X="$BIN/gpupack-extender --drain-seconds 0"
for d in webhook extender; do
    [ $d = extender ] && P=$X || P=$W
    refused "$d-health-port-out-of-range" 2 \
        '--health-listen: expected HOST:PORT (e.g. 0.0.0.0:8443 or [::]:8443), got "127.0.0.1:99999"' \
        $P --listen 127.0.0.1:0 --health-listen 127.0.0.1:99999
    refused "$d-health-no-port" 2 '--health-listen: expected HOST:PORT' \
        $P --listen 127.0.0.1:0 --health-listen 127.0.0.1
    refused "$d-health-name" 2 '--health-listen: host "localhost" is not a numeric IPv4 or IPv6 address' \
        $P --listen 127.0.0.1:0 --health-listen localhost:28444
    refused "$d-listen-name" 2 '--listen: host "localhost" is not a numeric IPv4 or IPv6 address' \
        $P --listen localhost:28443
    refused "$d-listen-bad-ip" 2 '--listen: host "999.1.1.1" is not a numeric' $P --listen 999.1.1.1:1
    grep -q "^see gpupack-$d --help$" "$ERR" && pass "startup-errors.$d-listen-see-help" \
        || fail "startup-errors.$d-listen-see-help" "$(cat "$ERR")"
done
# A port in use is no flag error, but the message still says which flag gave the address.
BUSY=$(free_port)
python3 -c 'import socket,sys,time
s=socket.socket(); s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(1); time.sleep(30)' "$BUSY" &
BUSY_PID=$!
E2E_PIDS="$E2E_PIDS $BUSY_PID"
sleep 0.3
timeout 20 $X --listen 127.0.0.1:0 --health-listen "127.0.0.1:$BUSY" > /dev/null 2> "$ERR"; rc=$?
[ $rc = 2 ] && grep -q -- "--health-listen: cannot listen on 127.0.0.1 port $BUSY" "$ERR" \
    && pass startup-errors.health-port-in-use-named || fail startup-errors.health-port-in-use-named "rc $rc: $(cat "$ERR")"
kill $BUSY_PID 2>/dev/null
refused advisor-serve-listen-name 2 '--listen: host "localhost" is not a numeric IPv4 or IPv6 address' \
    "$BIN/gpupack-advisor" serve --prometheus http://127.0.0.1:9 --listen localhost:8090 \
    --recommendations-file "$T/recs.json"

# ---- 5. the serving pair's problems name the flag and the file ----------------------------------
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$T/other.key" \
    -out "$T/other.crt" -subj /CN=other -addext subjectAltName=IP:127.0.0.1 -days 2 2>/dev/null
for d in webhook extender; do
    P="$BIN/gpupack-$d --listen 127.0.0.1:0 --drain-seconds 0"
    refused "$d-pair-swapped" 2 "--tls-cert: $KEY: cannot parse certificate PEM: no start line" \
        $P --tls-cert "$KEY" --tls-key "$CRT"
    refused "$d-key-of-another" 2 \
        "--tls-key: $T/other.key: private key does not match the certificate in --tls-cert $CRT" \
        $P --tls-cert "$CRT" --tls-key "$T/other.key"
    refused "$d-key-missing" 2 "--tls-key: $T/none.key: cannot open: No such file or directory" \
        $P --tls-cert "$CRT" --tls-key "$T/none.key"
done

# ---- 6. a --client-ca without a certificate stops the start -------------------------------------
: > "$T/empty.pem"
printf '# README\nPut the client CA here.\n' > "$T/README"
for d in webhook extender; do
    P="$BIN/gpupack-$d --listen 127.0.0.1:0 --drain-seconds 0 --tls-cert $CRT --tls-key $KEY"
    for ca in empty.pem c/tls.key README; do
        refused "$d-client-ca-$(basename $ca)" 2 "--client-ca: $T/$ca: no PEM certificate in it" \
            $P --client-ca "$T/$ca"
    done
done

# ---- 5. a snapshot error names its own flag, not --snapshot-* ------------------------------------
echo '{' > "$T/broken.json"
NODES=$ROOT/tests/extender/nodes.json
snap() { # NAME TEXT PROG ARGS...
    name=$1; text=$2; shift 2
    timeout 20 "$@" < /dev/null > /dev/null 2> "$ERR"; rc=$?
    [ $rc = 2 ] && grep -qF -- "$text" "$ERR" && ! grep -qF -- '--snapshot-*' "$ERR" \
        && pass "startup-errors.$name" || fail "startup-errors.$name" "rc $rc: $(cat "$ERR")"
}
snap extender-snapshot-nodes "gpupack-extender: --snapshot-nodes: $T/broken.json: nodes snapshot is not valid JSON" \
    "$BIN/gpupack-extender" --once filter --snapshot-nodes "$T/broken.json" --snapshot-pods "$T/broken.json"
snap extender-snapshot-pods "gpupack-extender: --snapshot-pods: $T/broken.json: pods snapshot is not valid JSON" \
    "$BIN/gpupack-extender" --once filter --snapshot-nodes "$NODES" --snapshot-pods "$T/broken.json"
snap extender-snapshot-missing "gpupack-extender: --snapshot-pods: $T/none.json: cannot open" \
    "$BIN/gpupack-extender" --once filter --snapshot-nodes "$NODES" --snapshot-pods "$T/none.json"
snap webhook-snapshot-nodes "gpupack-webhook: --snapshot-nodes: $T/broken.json: node list is not valid JSON" \
    "$BIN/gpupack-webhook" --review --snapshot-nodes "$T/broken.json"
snap webhook-snapshot-priorityclasses "gpupack-webhook: --snapshot-priorityclasses: $T/broken.json: " \
    "$BIN/gpupack-webhook" --review --snapshot-priorityclasses "$T/broken.json"

# ---- 7. every program lists policy errors alike: 64 lines, each with the file, then the rest -----
python3 -c 'import json; print(json.dumps({"bad%d" % i: 1 for i in range(70)}))' > "$T/many.json"
"$BIN/gpupack-webhook" --review --policy "$T/many.json" < /dev/null > /dev/null 2> "$T/want"
sed -i 's/^gpupack-webhook: //' "$T/want"
[ "$(wc -l < "$T/want")" = 66 ] && tail -n 1 "$T/want" | grep -q "^$T/many.json: \.\.\. and [0-9]* more errors$" \
    && pass startup-errors.policy-errors-webhook-listing || fail startup-errors.policy-errors-webhook-listing "$(tail -n 2 "$T/want")"
policy_alike() { # NAME PROG ARGS...
    name=$1; prog=$2; shift 2
    timeout 20 "$BIN/$prog" "$@" --policy "$T/many.json" < /dev/null > /dev/null 2> "$ERR"; rc=$?
    sed "s/^$prog: //" "$ERR" > "$T/got"
    [ $rc = 2 ] && cmp -s "$T/want" "$T/got" && pass "startup-errors.policy-errors-$name" \
        || fail "startup-errors.policy-errors-$name" "rc $rc: $(diff "$T/want" "$T/got" | head -n 5)"
}
policy_alike extender gpupack-extender --once filter
policy_alike advisor-report gpupack-advisor report --prometheus http://127.0.0.1:9
policy_alike advisor-serve gpupack-advisor serve --prometheus http://127.0.0.1:9 --once \
    --recommendations-file "$T/recs.json"
policy_alike sim gpupack-sim --nodes "$NODES" --pods "$NODES"
policy_alike sim-replay gpupack-sim --replay --nodes "$NODES" --pods "$NODES"
# A policy file over GP_POLICY_MAX_BYTES (1 MiB) is refused as it is read (docs/policy.md,
# "Limits"), before anything listens.
printf '{"mode": "enforce",%1048600s}' "" > "$T/big-policy.json"
refused policy-over-1mib 2 "--policy: cannot read $T/big-policy.json: larger than 1048576 bytes" \
    $W --listen 127.0.0.1:0 --policy "$T/big-policy.json"

# ---- 2. gpupack-certs validates --policy as the daemons do, before writing anything --------------
"$BIN/gpupack-certs" --service s --namespace n --out "$T/certs-out" --policy "$T/many.json" \
    > "$T/out" 2> "$ERR"; rc=$?
sed 's/^gpupack-certs: //' "$ERR" > "$T/got"
[ $rc = 2 ] && cmp -s "$T/want" "$T/got" && [ ! -e "$T/certs-out" ] && [ ! -s "$T/out" ] \
    && pass startup-errors.certs-invalid-policy || fail startup-errors.certs-invalid-policy "rc $rc: $(head -n 3 "$ERR")"
jq '.mode = "sometimes"' "$ROOT/manifests/base/policy.json" > "$T/mode.json"
"$BIN/gpupack-certs" --check "$CRT" --policy "$T/mode.json" > "$T/out" 2> "$ERR"; rc=$?
[ $rc = 2 ] && grep -q "^gpupack-certs: --policy: invalid policy:$" "$ERR" && grep -q "^$T/mode.json: mode: " "$ERR" \
    && pass startup-errors.certs-check-invalid-policy || fail startup-errors.certs-check-invalid-policy "rc $rc: $(cat "$ERR")"
"$BIN/gpupack-certs" --service s --namespace n --out "$T/certs-ok" --policy "$ROOT/manifests/base/policy.json" \
    > /dev/null 2> "$ERR"; rc=$?
[ $rc = 0 ] && [ -s "$T/certs-ok/tls.crt" ] && pass startup-errors.certs-valid-policy \
    || fail startup-errors.certs-valid-policy "rc $rc: $(cat "$ERR")"

# ---- 3. gpupack-sim takes --log-level, in --replay mode too, and --help names --replay ----------
head -n 11 "$ROOT/data/alibaba-gpu-v2023/openb_node_list_gpu_node.csv" > "$T/nodes.csv"
head -n 21 "$ROOT/data/alibaba-gpu-v2023/openb_pod_list_default.csv" > "$T/pods.csv"
head -n 18 "$T/pods.csv" > "$T/pods17.csv" # the 18th asks more than a node of the ten holds
for mode in "" "--replay"; do
    name=sim${mode:+-replay}
    SIM="$BIN/gpupack-sim --nodes $T/nodes.csv --pods $T/pods${mode:+17}.csv --jobs 1 --scorer bestfit --json"
    $SIM $mode --log-level loud > "$T/out" 2> "$ERR"; rc=$?
    [ $rc = 2 ] && grep -q '^gpupack-sim: --log-level: expected debug, info, warn or error$' "$ERR" \
        && [ "$(tail -n 1 "$ERR")" = "see gpupack-sim --help" ] && [ ! -s "$T/out" ] \
        && pass "startup-errors.$name-bad-log-level" || fail "startup-errors.$name-bad-log-level" "rc $rc: $(cat "$ERR")"
    for lvl in debug info warn error; do
        $SIM $mode --log-level $lvl > "$T/out" 2> "$ERR"; rc=$?
        [ $rc = 0 ] && jq -e '.scorer == "bestfit"' "$T/out" > /dev/null \
            && pass "startup-errors.$name-log-level-$lvl" || fail "startup-errors.$name-log-level-$lvl" "rc $rc: $(head -c 300 "$ERR")"
    done
done
# The replay's note about GPU sharing is info: shown by default, not at warn.
$SIM --replay > /dev/null 2> "$ERR"
grep -q 'gpupack-sim: note: ' "$ERR" && pass startup-errors.sim-replay-note-at-info || fail startup-errors.sim-replay-note-at-info "$(cat "$ERR")"
$SIM --replay --log-level warn > /dev/null 2> "$ERR"
! grep -q 'gpupack-sim: note: ' "$ERR" && pass startup-errors.sim-replay-no-note-at-warn || fail startup-errors.sim-replay-no-note-at-warn "$(cat "$ERR")"
"$BIN/gpupack-sim" --help > "$T/out"
grep -q -- '--log-level' "$T/out" && grep -q '^ *gpupack-sim --replay ' "$T/out" \
    && pass startup-errors.sim-help-names-replay-and-log-level || fail startup-errors.sim-help-names-replay-and-log-level
"$BIN/gpupack-sim" --replay --help > "$T/out"
grep -q -- '--log-level' "$T/out" && pass startup-errors.sim-replay-help-log-level || fail startup-errors.sim-replay-help-log-level

# ---- 4. an unusable --prometheus URL is a bad flag (2), not a failed query (1) -------------------
for sub in report serve; do
    extra=""; [ $sub = serve ] && extra="--once --recommendations-file $T/recs.json"
    i=0
    for url in 'http://' 'http://exa mple' 'http://127.0.0.1:99999' 'http://127.0.0.1:0' 'ftp://prom'; do
        i=$((i + 1))
        timeout 20 "$BIN/gpupack-advisor" $sub --prometheus "$url" $extra > /dev/null 2> "$ERR"; rc=$?
        [ $rc = 2 ] && grep -qF -- "gpupack-advisor: --prometheus: " "$ERR" && grep -qF -- "\"$url\"" "$ERR" \
            && ! grep -q 'Could not resolve host' "$ERR" \
            && pass "startup-errors.advisor-$sub-bad-url-$i" || fail "startup-errors.advisor-$sub-bad-url-$i" "$url: rc $rc: $(cat "$ERR")"
    done
done
