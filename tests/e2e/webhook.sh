#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Black-box tests of bin/gpupack-webhook over real TLS on loopback, with curl as the client.
. "$(dirname "$0")/lib.sh"
FIX="$(cd "$(dirname "$0")/../.." && pwd)/tests/fixtures"
GPU_REVIEW="$FIX/admissionreview-v1-pod-create-gpu-kubectl.constructed.json"
CERTS="$E2E_TMP/certs"
make_certs "$CERTS" || { fail webhook.certs "gpupack-certs failed"; exit 1; }

# start NAME ARGS...: starts the webhook on a kernel-chosen port; sets PORT, PID, LOGF.
start() {
    name=$1; shift
    LOGF="$E2E_TMP/$name.log"
    $VG "$BIN/gpupack-webhook" --listen 127.0.0.1:0 --tls-cert "$CERTS/tls.crt" \
        --tls-key "$CERTS/tls.key" --drain-seconds 0 "$@" 2> "$LOGF" &
    PID=$!
    E2E_PIDS="$E2E_PIDS $PID"
    i=0; PORT=""
    while [ $i -lt 100 ] && [ -z "$PORT" ]; do
        PORT=$(grep '"msg":"serving"' "$LOGF" 2>/dev/null | jq -r '.port' 2>/dev/null | head -n 1)
        [ -n "$PORT" ] || sleep 0.1
        i=$((i + 1))
    done
    URL="https://localhost:$PORT"
    [ -n "$PORT" ]
}
c() { curl -s --max-time 10 --cacert "$CERTS/ca.crt" "$@"; }
code() { c -o /dev/null -w '%{http_code}' "$@"; }

start main || { fail webhook.start "$(cat "$LOGF")"; exit 0; }
pass webhook.start

# Before any review, /metrics already has the series dashboards read (docs/webhook.md#metrics).
c "$URL/metrics" > "$E2E_TMP/metrics0.txt"
grep -q '^gpupack_http_requests_total{server="webhook",route="/mutate",code="200"} 0$' "$E2E_TMP/metrics0.txt" \
    && grep -q '^gpupack_http_request_duration_seconds_count{server="webhook",route="/mutate"} 0$' "$E2E_TMP/metrics0.txt" \
    && grep -q '^gpupack_http_connections_refused_total{server="webhook"} 0$' "$E2E_TMP/metrics0.txt" \
    && pass webhook.metrics-before-first-review \
    || fail webhook.metrics-before-first-review "$(grep '^gpupack_http' "$E2E_TMP/metrics0.txt" | head -c 600)"

# Routes and status codes.
[ "$(c "$URL/healthz")" = "ok" ] && pass webhook.healthz || fail webhook.healthz
[ "$(code "$URL/readyz")" = 200 ] && pass webhook.readyz || fail webhook.readyz
[ "$(code "$URL/nope")" = 404 ] && pass webhook.404 || fail webhook.404
c -D "$E2E_TMP/h405" -o /dev/null "$URL/mutate"
grep -q '^HTTP/[0-9.]* 405' "$E2E_TMP/h405" && grep -qi '^allow: *POST' "$E2E_TMP/h405" \
    && pass webhook.405-allow || fail webhook.405-allow "$(head -c 300 "$E2E_TMP/h405")"
[ "$(code -X DELETE "$URL/healthz")" = 405 ] && pass webhook.405-delete || fail webhook.405-delete

# POST /mutate with a real review: uid echoed, padded base64 patch that kubectl applies.
c -H 'Content-Type: application/json' --data-binary @"$GPU_REVIEW" "$URL/mutate" > "$E2E_TMP/r.json"
if jq -e '.apiVersion == "admission.k8s.io/v1" and .kind == "AdmissionReview"
          and .response.uid == "3f8c2d6e-9b1a-4c57-8e0f-5a2b7c9d1e43" and .response.allowed
          and .response.patchType == "JSONPatch" and (.response.patch | length % 4 == 0)' \
        "$E2E_TMP/r.json" >/dev/null; then pass webhook.mutate; else fail webhook.mutate "$(head -c 300 "$E2E_TMP/r.json")"; fi
jq '.request.object' "$GPU_REVIEW" > "$E2E_TMP/pod.json"
if kubectl patch --local -f "$E2E_TMP/pod.json" --type=json \
        -p "$(jq -r .response.patch "$E2E_TMP/r.json" | base64 -d)" -o json > "$E2E_TMP/m.json" 2>/dev/null \
   && jq -e '.spec.priorityClassName == "gpu-interactive"' "$E2E_TMP/m.json" >/dev/null; then
    pass webhook.mutate-patch-applies; else fail webhook.mutate-patch-applies; fi
[ "$(code -H 'Content-Type: application/json; charset=utf-8' --data-binary @"$GPU_REVIEW" "$URL/mutate")" = 200 ] \
    && pass webhook.content-type-params || fail webhook.content-type-params
[ "$(code -H 'Content-Type: text/plain' --data-binary @"$GPU_REVIEW" "$URL/mutate")" = 415 ] \
    && pass webhook.415 || fail webhook.415
[ "$(code -H 'Content-Type: application/json' --data-binary 'not json' "$URL/mutate")" = 400 ] \
    && pass webhook.400-garbage || fail webhook.400-garbage
[ "$(code -H 'Content-Type: application/json' --data-binary '{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1beta1","request":{"uid":"x"}}' "$URL/mutate")" = 400 ] \
    && pass webhook.400-v1beta1 || fail webhook.400-v1beta1
[ "$(code -H 'Content-Type: application/json' --data-binary '{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","request":{}}' "$URL/mutate")" = 400 ] \
    && pass webhook.400-no-uid || fail webhook.400-no-uid
c -H 'Content-Type: application/json' --data-binary '[1,2' "$URL/mutate" | jq -e '.error | test("JSON")' >/dev/null \
    && pass webhook.400-message || fail webhook.400-message

# Fail open: a well-formed review whose pod cannot be read is allowed unchanged, with a warning.
jq '.request.object.spec.containers = "oops"' "$GPU_REVIEW" > "$E2E_TMP/bad-pod.json"
c -H 'Content-Type: application/json' --data-binary @"$E2E_TMP/bad-pod.json" "$URL/mutate" > "$E2E_TMP/fo.json"
jq -e '.response.allowed and .response.patch == null and (.response.warnings[0] | test("admitted unchanged"))' "$E2E_TMP/fo.json" >/dev/null \
    && pass webhook.fail-open || fail webhook.fail-open "$(head -c 300 "$E2E_TMP/fo.json")"

# Body cap: Content-Length past the cap is refused before the body is read; so is a chunked body.
t0=$(date +%s)
st=$(printf 'x' | c -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' \
      -H 'Content-Length: 104857600' -H 'Expect:' --data-binary @- "$URL/mutate")
[ "$st" = 413 ] && [ $(( $(date +%s) - t0 )) -lt 5 ] && pass webhook.413-content-length || fail webhook.413-content-length "got $st"
head -c 4194304 /dev/zero | tr '\0' ' ' > "$E2E_TMP/big"
[ "$(code -H 'Content-Type: application/json' -H 'Transfer-Encoding: chunked' --data-binary @"$E2E_TMP/big" "$URL/mutate")" = 413 ] \
    && pass webhook.413-chunked || fail webhook.413-chunked
# A 3 MiB review (the API server's own limit) is still accepted.
head -c 3000000 /dev/zero | tr '\0' a > "$E2E_TMP/pad"
jq -c --rawfile pad "$E2E_TMP/pad" '.request.object.metadata.annotations.pad = $pad' "$GPU_REVIEW" > "$E2E_TMP/3m.json"
[ "$(code -H 'Content-Type: application/json' --data-binary @"$E2E_TMP/3m.json" "$URL/mutate")" = 200 ] \
    && pass webhook.3mib-accepted || fail webhook.3mib-accepted

# TLS versions: 1.2 and 1.3 only.
[ "$(code --tlsv1.2 --tls-max 1.2 "$URL/healthz")" = 200 ] && pass webhook.tls12 || fail webhook.tls12
[ "$(code --tlsv1.3 "$URL/healthz")" = 200 ] && pass webhook.tls13 || fail webhook.tls13
if c --tlsv1 --tls-max 1.1 -o /dev/null "$URL/healthz" 2>/dev/null; then fail webhook.tls11-refused; else pass webhook.tls11-refused; fi
if curl -s --max-time 5 -o /dev/null "$URL/healthz" 2>/dev/null; then fail webhook.untrusted-refused; else pass webhook.untrusted-refused; fi
if curl -s --max-time 5 -o /dev/null "http://127.0.0.1:$PORT/healthz" 2>/dev/null && \
   [ "$(curl -s --max-time 5 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/healthz")" = 200 ]; then
    fail webhook.plain-http-refused; else pass webhook.plain-http-refused; fi

# Keep-alive: two requests on one connection.
c -v "$URL/healthz" "$URL/healthz" -o /dev/null -o /dev/null 2> "$E2E_TMP/ka.txt"
grep -qi 're-using existing connection\|reusing existing connection' "$E2E_TMP/ka.txt" && pass webhook.keep-alive || fail webhook.keep-alive

# Metrics.
c "$URL/metrics" > "$E2E_TMP/metrics.txt"
grep -q '^gpupack_http_requests_total{.*route="/mutate".*code="200".*} [1-9]' "$E2E_TMP/metrics.txt" \
    && grep -q '^gpupack_http_request_duration_seconds_bucket{.*le="0.0005"' "$E2E_TMP/metrics.txt" \
    && grep -q '^gpupack_mutations_total{kind="toleration"} [1-9]' "$E2E_TMP/metrics.txt" \
    && grep -q '^gpupack_webhook_fail_open_total{reason="decode"} 1' "$E2E_TMP/metrics.txt" \
    && grep -q '^gpupack_tls_certificate_expiry_timestamp_seconds [0-9]' "$E2E_TMP/metrics.txt" \
    && pass webhook.metrics || fail webhook.metrics "$(grep -v '^#' "$E2E_TMP/metrics.txt" | head -c 800)"
exp=$(grep '^gpupack_tls_certificate_expiry_timestamp_seconds' "$E2E_TMP/metrics.txt" | awk '{printf "%d", $2}')
want=$(date -d "$(openssl x509 -in "$CERTS/tls.crt" -noout -enddate | cut -d= -f2)" +%s)
[ "$exp" = "$want" ] && pass webhook.metrics-cert-expiry || fail webhook.metrics-cert-expiry "$exp != $want"
# What Prometheus's own parser and linter say of the exposition (each family once, valid names).
promtool check metrics < "$E2E_TMP/metrics.txt" > "$E2E_TMP/metrics.lint" 2>&1 \
    && pass webhook.metrics-promtool || fail webhook.metrics-promtool "$(head -c 400 "$E2E_TMP/metrics.lint")"

# Logs: one JSON object per line with the request uid and the decision.
if grep '"msg":"admission"' "$LOGF" | jq -e -s 'map(select(.uid == "3f8c2d6e-9b1a-4c57-8e0f-5a2b7c9d1e43" and .decision == "patched" and (.duration_ms | type) == "number")) | length > 0' >/dev/null \
   && jq -e -s 'length > 0' "$LOGF" >/dev/null; then pass webhook.logs-json; else fail webhook.logs-json "$(tail -n 3 "$LOGF")"; fi

# Slow clients: a body that does not arrive within --request-timeout, and an idle connection
# past --idle-timeout, are closed by the server (never a hang).
start slow --request-timeout 2 --idle-timeout 3 || fail webhook.start-slow
cat > "$E2E_TMP/slow.py" <<'PY'
import socket, ssl, sys, time
port, ca, mode = int(sys.argv[1]), sys.argv[2], sys.argv[3]
ctx = ssl.create_default_context(cafile=ca)
s = ctx.wrap_socket(socket.create_connection(("127.0.0.1", port), timeout=15), server_hostname="localhost")
if mode == "body":
    s.sendall(b"POST /mutate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{")
    for _ in range(8):
        time.sleep(0.5)
        try:
            s.sendall(b" ")
        except OSError:
            break
elif mode == "headers":
    s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
t0 = time.time()
try:
    data = s.recv(4096)
    while data:
        data = s.recv(4096)
except (OSError, ssl.SSLError):
    pass
print("closed after %.1f s" % (time.time() - t0))
sys.exit(0 if time.time() - t0 < 12 else 1)
PY
python3 "$E2E_TMP/slow.py" "$PORT" "$CERTS/ca.crt" body > "$E2E_TMP/slow1" 2>&1 && pass webhook.slow-body-closed || fail webhook.slow-body-closed "$(cat "$E2E_TMP/slow1")"
python3 "$E2E_TMP/slow.py" "$PORT" "$CERTS/ca.crt" headers > "$E2E_TMP/slow2" 2>&1 && pass webhook.slow-headers-closed || fail webhook.slow-headers-closed "$(cat "$E2E_TMP/slow2")"
python3 "$E2E_TMP/slow.py" "$PORT" "$CERTS/ca.crt" idle > "$E2E_TMP/slow3" 2>&1 && pass webhook.idle-closed || fail webhook.idle-closed "$(cat "$E2E_TMP/slow3")"
[ "$(code "$URL/healthz")" = 200 ] && pass webhook.serves-after-slow-clients || fail webhook.serves-after-slow-clients

# Certificate swap while requests flow: no request fails, new handshakes get the new certificate.
start swap --reload-interval 200 || fail webhook.start-swap
serial() { echo | openssl s_client -connect "127.0.0.1:$PORT" -servername localhost 2>/dev/null | openssl x509 -noout -serial; }
old=$(serial)
( n=0; f=0; end=$(( $(date +%s) + 4 ))
  while [ "$(date +%s)" -lt "$end" ]; do
      if [ "$(code -H 'Content-Type: application/json' --data-binary @"$GPU_REVIEW" "$URL/mutate")" = 200 ]; then n=$((n+1)); else f=$((f+1)); fi
  done; echo "$n $f" > "$E2E_TMP/flow" ) &
flow=$!
sleep 1
"$BIN/gpupack-certs" --service gpupack-webhook --namespace gpupack-system --out "$E2E_TMP/new" \
    --ip 127.0.0.1 --dns localhost >/dev/null 2>&1
# Same CA so the client keeps trusting it: sign the new serving pair with the old CA is not what
# gpupack-certs does, so trust both CAs for the rest of the run.
cat "$CERTS/ca.crt" "$E2E_TMP/new/ca.crt" > "$E2E_TMP/both.crt"
cp "$E2E_TMP/both.crt" "$CERTS/ca.crt.tmp" && mv "$CERTS/ca.crt.tmp" "$CERTS/ca.crt"
cp "$E2E_TMP/new/tls.key" "$CERTS/tls.key.tmp" && cp "$E2E_TMP/new/tls.crt" "$CERTS/tls.crt.tmp"
mv "$CERTS/tls.key.tmp" "$CERTS/tls.key" && mv "$CERTS/tls.crt.tmp" "$CERTS/tls.crt"
wait $flow
read -r ok bad < "$E2E_TMP/flow"
[ "$bad" = 0 ] && [ "$ok" -gt 5 ] && pass webhook.cert-swap-no-failures || fail webhook.cert-swap-no-failures "$ok ok, $bad failed"
sleep 1
new=$(serial)
want=$(openssl x509 -in "$E2E_TMP/new/tls.crt" -noout -serial)
[ "$new" = "$want" ] && [ "$new" != "$old" ] && pass webhook.cert-swap-new-handshakes || fail webhook.cert-swap-new-handshakes "$old -> $new, want $want"
# A bad pair (key of another certificate) is refused; the good one stays in force.
cp "$CERTS/tls.key" "$E2E_TMP/good.key"
openssl ecparam -name prime256v1 -genkey -noout -out "$E2E_TMP/other.key" 2>/dev/null
cp "$E2E_TMP/other.key" "$CERTS/tls.key"
sleep 1.5
[ "$(serial)" = "$want" ] && [ "$(code "$URL/healthz")" = 200 ] && pass webhook.cert-bad-pair-kept-old || fail webhook.cert-bad-pair-kept-old
c "$URL/metrics" | grep -q '^gpupack_tls_reloads_total{result="failure"} [1-9]' && pass webhook.cert-reload-failure-counted || fail webhook.cert-reload-failure-counted
cp "$E2E_TMP/good.key" "$CERTS/tls.key"

# Policy reload: a valid change takes effect; an invalid one keeps the last good policy.
cp "$(dirname "$0")/../../manifests/base/policy.json" "$E2E_TMP/policy.json"
start reload --policy "$E2E_TMP/policy.json" --reload-interval 200 || fail webhook.start-reload
has_patch() { c -H 'Content-Type: application/json' --data-binary @"$GPU_REVIEW" "$URL/mutate" | jq -e '.response.patch != null' >/dev/null; }
has_patch && pass webhook.reload-before || fail webhook.reload-before
jq '.mode = "audit"' "$E2E_TMP/policy.json" > "$E2E_TMP/p2" && mv "$E2E_TMP/p2" "$E2E_TMP/policy.json"
i=0; while [ $i -lt 30 ] && has_patch; do sleep 0.1; i=$((i+1)); done
has_patch && fail webhook.reload-valid "still enforcing after 3 s" || pass webhook.reload-valid
echo '{"apiVersion":"gpupack.io/v1alpha1","kind":"Policy","mode":"enforce","classes":{"x":{"runtimeCapSeconds":0}}}' > "$E2E_TMP/policy.json"
sleep 1.5
has_patch && fail webhook.reload-invalid-kept "invalid policy took effect" || pass webhook.reload-invalid-kept
[ "$(code "$URL/readyz")" = 200 ] && pass webhook.reload-invalid-still-ready || fail webhook.reload-invalid-still-ready
c "$URL/metrics" | grep -q '^gpupack_policy_reloads_total{result="failure"} [1-9]' && pass webhook.reload-failure-counted || fail webhook.reload-failure-counted
grep -q 'classes.x.runtimeCapSeconds' "$LOGF" && pass webhook.reload-failure-logged || fail webhook.reload-failure-logged

# SIGTERM: not ready at once, still serving during the drain delay, then a clean exit.
$VG "$BIN/gpupack-webhook" --listen 127.0.0.1:0 --tls-cert "$CERTS/tls.crt" --tls-key "$CERTS/tls.key" \
    --drain-seconds 2 2> "$E2E_TMP/term.log" &
TP=$!
i=0; while [ $i -lt 50 ] && ! grep -q '"msg":"serving"' "$E2E_TMP/term.log"; do sleep 0.1; i=$((i+1)); done
TPORT=$(grep '"msg":"serving"' "$E2E_TMP/term.log" | jq -r .port)
kill -TERM $TP; sleep 0.3
[ "$(code "https://localhost:$TPORT/readyz")" = 503 ] && pass webhook.sigterm-not-ready || fail webhook.sigterm-not-ready
[ "$(code -H 'Content-Type: application/json' --data-binary @"$GPU_REVIEW" "https://localhost:$TPORT/mutate")" = 200 ] \
    && pass webhook.sigterm-serves-during-drain || fail webhook.sigterm-serves-during-drain
wait $TP; rc=$?
[ $rc = 0 ] && pass webhook.sigterm-exit-0 || fail webhook.sigterm-exit-0 "exit $rc"

# Start-up errors: exit 2, before any socket, naming what is wrong.
P=$(free_port)
"$BIN/gpupack-webhook" --listne 1 2> "$E2E_TMP/e1"; rc=$?
[ $rc = 2 ] && grep -q -- '--listne' "$E2E_TMP/e1" && pass webhook.bad-flag-exit-2 || fail webhook.bad-flag-exit-2 "rc $rc"
"$BIN/gpupack-webhook" --listen "127.0.0.1:$P" --tls-cert /nonexistent --tls-key "$CERTS/tls.key" 2> "$E2E_TMP/e2"; rc=$?
[ $rc = 2 ] && grep -q /nonexistent "$E2E_TMP/e2" && pass webhook.missing-cert-exit-2 || fail webhook.missing-cert-exit-2 "rc $rc: $(cat "$E2E_TMP/e2")"
echo '{"apiVersion":"gpupack.io/v1alpha1","kind":"Policy","classes":{"inference":{"runtimeCapSeconds":0}}}' > "$E2E_TMP/badpol.json"
"$BIN/gpupack-webhook" --review --policy "$E2E_TMP/badpol.json" < "$GPU_REVIEW" > /dev/null 2> "$E2E_TMP/e3"; rc=$?
[ $rc = 2 ] && grep -q 'classes.inference.runtimeCapSeconds: must be 1..2147483647' "$E2E_TMP/e3" \
    && pass webhook.invalid-policy-exit-2 || fail webhook.invalid-policy-exit-2 "rc $rc: $(cat "$E2E_TMP/e3")"
"$BIN/gpupack-webhook" --listen "127.0.0.1:$P" --tls-cert "$CERTS/tls.crt" --tls-key "$E2E_TMP/other.key" 2> "$E2E_TMP/e4"; rc=$?
[ $rc = 2 ] && grep -qi 'does not match' "$E2E_TMP/e4" && pass webhook.mismatched-key-exit-2 || fail webhook.mismatched-key-exit-2 "rc $rc: $(cat "$E2E_TMP/e4")"
"$BIN/gpupack-webhook" --listen "nohost" --tls-cert "$CERTS/tls.crt" --tls-key "$CERTS/tls.key" 2> "$E2E_TMP/e5"; rc=$?
[ $rc = 2 ] && grep -q -- '--listen' "$E2E_TMP/e5" && pass webhook.bad-listen-exit-2 || fail webhook.bad-listen-exit-2 "rc $rc"
"$BIN/gpupack-webhook" --help | grep -q -- '--review' && pass webhook.help || fail webhook.help
"$BIN/gpupack-webhook" --version | grep -q "gpupack-webhook $(cat "$(dirname "$0")/../../VERSION")" && pass webhook.version || fail webhook.version
echo 'garbage' | "$BIN/gpupack-webhook" --review > /dev/null 2> "$E2E_TMP/e6"; rc=$?
[ $rc = 1 ] && grep -q 'not valid JSON' "$E2E_TMP/e6" && pass webhook.review-garbage || fail webhook.review-garbage "rc $rc"
