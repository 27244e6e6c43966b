#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# TLS policy of both daemons, probed with openssl s_client: TLS 1.3 and 1.2 with ECDHE and AEAD
# ciphers only (ECDSA and RSA certificates); TLS 1.1, CBC, static RSA key exchange and
# SHA-1 MACs refused; with --client-ca only a client holding a certificate from that CA gets in.
. "$(dirname "$0")/lib.sh"
C="$E2E_TMP/ec"; R="$E2E_TMP/rsa"
make_certs "$C"
"$BIN/gpupack-certs" --service gpupack-webhook --namespace gpupack-system --out "$R" --ip 127.0.0.1 \
    --key-type rsa --force >/dev/null 2>&1
# start_tls NAME PROG CERTDIR EXTRA...: starts a daemon; port_of NAME prints its port.
start_tls() {
    n=$1; prog=$2; d=$3; shift 3
    "$BIN/$prog" --listen 127.0.0.1:0 --tls-cert "$d/tls.crt" --tls-key "$d/tls.key" --drain-seconds 0 \
        --snapshot-nodes "$(dirname "$0")/../extender/nodes.json" "$@" > /dev/null 2> "$E2E_TMP/$n.log" &
    E2E_PIDS="$E2E_PIDS $!"
}
port_of() { serving_port "$E2E_TMP/$1.log"; }
# hs PORT OPENSSL-ARGS...: exit 0 when the handshake completes.
hs() { p=$1; shift; echo | timeout 10 openssl s_client -connect "127.0.0.1:$p" "$@" > "$E2E_TMP/hs.out" 2>&1 &&
       grep -q '^New, TLSv1\.[23], Cipher is [A-Z]' "$E2E_TMP/hs.out"; }
start_tls wec gpupack-webhook "$C"
start_tls wrsa gpupack-webhook "$R"
start_tls xec gpupack-extender "$C" --snapshot-pods "$(dirname "$0")/../extender/pods.json"
WEC=$(port_of wec); WRSA=$(port_of wrsa); XEC=$(port_of xec)
for pair in "webhook-ecdsa $WEC ECDHE-ECDSA" "webhook-rsa $WRSA ECDHE-RSA" "extender-ecdsa $XEC ECDHE-ECDSA"; do
    set -- $pair; n=$1; p=$2; kx=$3
    hs "$p" -tls1_3 && pass "tls.$n-tls13" || fail "tls.$n-tls13"
    hs "$p" -tls1_2 -cipher "$kx-AES128-GCM-SHA256" && pass "tls.$n-tls12-ecdhe-aes-gcm" || fail "tls.$n-tls12-ecdhe-aes-gcm"
    hs "$p" -tls1_2 -cipher "$kx-CHACHA20-POLY1305" && pass "tls.$n-tls12-chacha20" || fail "tls.$n-tls12-chacha20"
    hs "$p" -tls1_2 -cipher "$kx-AES128-SHA" && fail "tls.$n-cbc-refused" || pass "tls.$n-cbc-refused"
    hs "$p" -tls1_2 -cipher "$kx-AES256-SHA384" && fail "tls.$n-cbc-sha384-refused" || pass "tls.$n-cbc-sha384-refused"
    hs "$p" -tls1_2 -cipher "AES128-GCM-SHA256" && fail "tls.$n-static-rsa-refused" || pass "tls.$n-static-rsa-refused"
    hs "$p" -tls1_1 -cipher 'DEFAULT:@SECLEVEL=0' && fail "tls.$n-tls11-refused" || pass "tls.$n-tls11-refused"
done
# Client certificates: only a client with a certificate from --client-ca gets an answer.
CL="$E2E_TMP/client"
"$BIN/gpupack-certs" --service kube-apiserver --namespace kube-system --out "$CL" --force >/dev/null 2>&1
start_tls wca gpupack-webhook "$C" --client-ca "$CL/ca.crt"
WCA=$(port_of wca)
code=$(curl -s -o /dev/null -w '%{http_code}' --cacert "$C/ca.crt" --cert "$CL/tls.crt" --key "$CL/tls.key" "https://localhost:$WCA/healthz")
[ "$code" = 200 ] && pass tls.client-ca-admits-holder || fail tls.client-ca-admits-holder "status $code"
code=$(curl -s -o /dev/null -w '%{http_code}' --cacert "$C/ca.crt" "https://localhost:$WCA/healthz")
[ "$code" = 000 ] && pass tls.client-ca-refuses-anonymous || fail tls.client-ca-refuses-anonymous "status $code"
code=$(curl -s -o /dev/null -w '%{http_code}' --cacert "$C/ca.crt" --cert "$C/tls.crt" --key "$C/tls.key" "https://localhost:$WCA/healthz")
[ "$code" = 000 ] && pass tls.client-ca-refuses-other-ca || fail tls.client-ca-refuses-other-ca "status $code"
