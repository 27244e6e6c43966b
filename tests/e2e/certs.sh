#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Black-box tests of bin/gpupack-certs: the files it writes are checked with the openssl CLI, a
# real TLS server (openssl s_server) serves them and curl / openssl s_client verify it.
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
C=$BIN/gpupack-certs
T=$E2E_TMP
SVC=gpupack-webhook
NS=gpupack-system

# certs ARGS...: runs the binary with a time limit (under valgrind when VG is set).
# RSA key generation under valgrind can take minutes on a busy machine (3,072-bit primes).
CT=60; [ -n "${VG:-}" ] && CT=600
certs() { timeout $CT $VG "$C" "$@"; }
# osl ARGS...: the openssl CLI with a time limit.
osl() { timeout 30 openssl "$@"; }
mode_of() { stat -c %a "$1"; }
# expect NAME WANT-RC GOT-RC [FILE PATTERN]: PASS when the status matches and, when given, the
# file (usually captured stderr) contains the fixed string PATTERN.
expect() {
    if [ "$3" -ne "$2" ]; then
        fail "$1" "exit $3, want $2"
    elif [ $# -ge 5 ] && ! grep -qF -- "$5" "$4"; then
        fail "$1" "no '$5' in: $(head -c 300 "$4")"
    else
        pass "$1"
    fi
}
# ext_has CERT EXTENSION EXTENDED-REGEX: the extension's text (joined on one line) matches.
ext_has() {
    osl x509 -in "$1" -noout -ext "$2" | tr -s '\n ' '  ' | grep -Eq -- "$3"
}
# lifetime CERT MIN-DAYS MAX-DAYS: still valid in MIN days, no longer in MAX days.
lifetime() {
    osl x509 -in "$1" -noout -checkend $(($2 * 86400)) >/dev/null &&
        ! osl x509 -in "$1" -noout -checkend $(($3 * 86400)) >/dev/null
}
verifies() { # CA CERT
    [ "$(osl verify -CAfile "$1" "$2")" = "$2: OK" ]
}
same_pubkey() { # CERT KEY
    a=$(osl x509 -in "$1" -noout -pubkey) && b=$(osl pkey -in "$2" -pubout) &&
        [ -n "$a" ] && [ "$a" = "$b" ]
}
refused() { ! "$@"; }
is_b64_of() { # B64-FILE FILE
    base64 -d < "$1" | cmp -s - "$2"
}

if [ ! -x "$C" ]; then
    fail certs.binary "$C is missing"
    exit 1
fi

# ---- generation, EC default ---------------------------------------------------------------
EC=$T/ec
certs --service $SVC --namespace $NS --out "$EC" --ip 127.0.0.1 --ip ::1 --dns localhost \
    --dns extra.example.test > "$T/ec.out" 2> "$T/ec.err"
expect certs.generate_ec 0 $?
check certs.four_files \
    test -f "$EC/ca.crt" -a -f "$EC/ca.key" -a -f "$EC/tls.crt" -a -f "$EC/tls.key"
check certs.keys_0600 test "$(mode_of "$EC/tls.key")" = 600 -a "$(mode_of "$EC/ca.key")" = 600
check certs.out_dir_created_0700 test "$(mode_of "$EC")" = 700

want_sans="DNS:$SVC, DNS:$SVC.$NS, DNS:$SVC.$NS.svc, DNS:$SVC.$NS.svc.cluster.local"
want_sans="$want_sans, DNS:localhost, DNS:extra.example.test"
want_sans="$want_sans, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1"
got_sans=$(osl x509 -in "$EC/tls.crt" -noout -ext subjectAltName | sed -n '2s/^ *//p')
if [ "$got_sans" = "$want_sans" ]; then pass certs.sans; else fail certs.sans "got '$got_sans'"; fi
check certs.subject_cn \
    test "$(osl x509 -in "$EC/tls.crt" -noout -subject)" = "subject=CN = $SVC.$NS.svc"
check certs.verify_against_ca verifies "$EC/ca.crt" "$EC/tls.crt"
check certs.tls_key_matches same_pubkey "$EC/tls.crt" "$EC/tls.key"
check certs.ca_key_matches same_pubkey "$EC/ca.crt" "$EC/ca.key"

osl x509 -in "$EC/tls.crt" -noout -text > "$T/ec.txt"
check certs.ec_p256 grep -q 'NIST CURVE: P-256' "$T/ec.txt"
check certs.sha256_signature grep -q 'Signature Algorithm: ecdsa-with-SHA256' "$T/ec.txt"
check certs.leaf_not_ca ext_has "$EC/tls.crt" basicConstraints 'critical CA:FALSE $'
check certs.leaf_server_auth \
    ext_has "$EC/tls.crt" extendedKeyUsage ': TLS Web Server Authentication $'
check certs.leaf_key_usage_ec ext_has "$EC/tls.crt" keyUsage 'critical Digital Signature $'
check certs.leaf_aki ext_has "$EC/tls.crt" authorityKeyIdentifier '([0-9A-F]{2}:){19}[0-9A-F]{2}'
check certs.ca_basic_constraints \
    ext_has "$EC/ca.crt" basicConstraints 'critical CA:TRUE, pathlen:0 $'
check certs.ca_key_usage ext_has "$EC/ca.crt" keyUsage 'critical Certificate Sign, CRL Sign $'
check certs.ca_ski ext_has "$EC/ca.crt" subjectKeyIdentifier '([0-9A-F]{2}:){19}[0-9A-F]{2}'
serial=$(osl x509 -in "$EC/tls.crt" -noout -serial | sed 's/^serial=//')
check certs.serial_128_bit test "${#serial}" -ge 26 -a "${#serial}" -le 34
# Default lifetimes: 365 days for the serving certificate, 3650 for the CA.
check certs.days_default lifetime "$EC/tls.crt" 364 366
check certs.ca_days_default lifetime "$EC/ca.crt" 3649 3651

# stdout is the caBundle: one line of base64 that decodes to ca.crt.
check certs.stdout_one_line test "$(wc -l < "$T/ec.out")" -eq 1
check certs.stdout_base64_is_ca is_b64_of "$T/ec.out" "$EC/ca.crt"

# ---- RSA ------------------------------------------------------------------------------------
RSA=$T/rsa
certs --service $SVC --namespace $NS --out "$RSA" --key-type rsa --dns localhost \
    --ip 127.0.0.1 > "$T/rsa.out" 2> "$T/rsa.err"
expect certs.generate_rsa 0 $?
osl x509 -in "$RSA/tls.crt" -noout -text > "$T/rsa.txt"
check certs.rsa_2048 grep -q 'Public-Key: (2048 bit)' "$T/rsa.txt"
check certs.rsa_sha256 grep -q 'Signature Algorithm: sha256WithRSAEncryption' "$T/rsa.txt"
check certs.rsa_key_encipherment \
    ext_has "$RSA/tls.crt" keyUsage 'critical Digital Signature, Key Encipherment $'
check certs.rsa_verify verifies "$RSA/ca.crt" "$RSA/tls.crt"
check certs.rsa_key_matches same_pubkey "$RSA/tls.crt" "$RSA/tls.key"
certs --service s --namespace n --out "$T/rsa3072" --key-type rsa --rsa-bits 3072 \
    --days 30 > /dev/null 2>&1
osl x509 -in "$T/rsa3072/tls.crt" -noout -text > "$T/rsa3072.txt" 2>&1
check certs.rsa_bits_3072 grep -q 'Public-Key: (3072 bit)' "$T/rsa3072.txt"
check certs.days_30 lifetime "$T/rsa3072/tls.crt" 29 31

# ---- overwriting ----------------------------------------------------------------------------
for f in ca.crt ca.key tls.crt tls.key; do cp "$EC/$f" "$T/saved.$f"; done
certs --service $SVC --namespace $NS --out "$EC" > "$T/ow.out" 2> "$T/ow.err"
expect certs.refuses_overwrite 1 $? "$T/ow.err" "$EC/ca.crt already exists"
unchanged() {
    for f in ca.crt ca.key tls.crt tls.key; do cmp -s "$EC/$f" "$T/saved.$f" || return 1; done
}
check certs.refused_files_unchanged unchanged
check certs.refused_prints_nothing test ! -s "$T/ow.out"

# Only one file present: it is named, and no partial set is left behind.
mkdir -p "$T/partial" && echo keep > "$T/partial/tls.key"
certs --service $SVC --namespace $NS --out "$T/partial" > /dev/null 2> "$T/partial.err"
expect certs.refuses_names_the_file 1 $? "$T/partial.err" "$T/partial/tls.key already exists"
check certs.refused_writes_nothing \
    test ! -e "$T/partial/ca.crt" -a "$(cat "$T/partial/tls.key")" = keep

certs --service $SVC --namespace $NS --out "$EC" --ip 127.0.0.1 --ip ::1 --dns localhost \
    --force > "$T/force.out" 2> "$T/force.err"
expect certs.force_overwrites 0 $?
changed() {
    for f in ca.crt ca.key tls.crt tls.key; do ! cmp -s "$EC/$f" "$T/saved.$f" || return 1; done
}
check certs.force_changed_files changed
check certs.force_keys_still_0600 \
    test "$(mode_of "$EC/tls.key")" = 600 -a "$(mode_of "$EC/ca.key")" = 600
check certs.force_verifies verifies "$EC/ca.crt" "$EC/tls.crt"
check certs.force_no_temp_files \
    test "$(ls -A "$EC" | tr '\n' ' ')" = "ca.crt ca.key tls.crt tls.key "
check certs.force_stdout_is_new_ca is_b64_of "$T/force.out" "$EC/ca.crt"

echo notadir > "$T/file"
certs --service $SVC --namespace $NS --out "$T/file" > /dev/null 2> "$T/file.err"
expect certs.out_not_a_directory 1 $? "$T/file.err" "$T/file"

# ---- --check --------------------------------------------------------------------------------
certs --check "$EC/tls.crt" --key "$EC/tls.key" --ca "$EC/ca.crt" > "$T/chk.out" 2> "$T/chk.err"
expect certs.check_good 0 $? "$T/chk.out" "status:     usable"
# shows LINE-REGEX...: every extended regex matches a whole line of the --check output.
shows() {
    for re in "$@"; do grep -Eqx -- "$re" "$T/chk.out" || return 1; done
}
RFC3339='[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z'
check certs.check_shows_fields shows \
    "subject: +CN=$SVC\\.$NS\\.svc" "issuer: +CN=gpupack-ca@[0-9]+" \
    "sans: +DNS:$SVC, .*, IP:127\\.0\\.0\\.1, IP:::1" "not before: +$RFC3339" \
    "not after: +$RFC3339" "days left: +36[45]" "key type: +EC P-256" "key: +matches" \
    "ca: +verified by .*" "status: +usable"
certs --check "$RSA/tls.crt" > "$T/chk_rsa.out" 2>&1
expect certs.check_rsa_key_type 0 $? "$T/chk_rsa.out" "RSA 2048"

certs --check "$EC/tls.crt" --key "$RSA/tls.key" > "$T/mis.out" 2> "$T/mis.err"
expect certs.check_mismatched_key 1 $? "$T/mis.err" "private key does not match certificate"
check certs.check_mismatch_shown grep -q '^key: *does not match$' "$T/mis.out"
certs --check "$EC/tls.crt" --key "$EC/tls.key" --ca "$RSA/ca.crt" > /dev/null 2> "$T/wrongca.err"
expect certs.check_wrong_ca 1 $? "$T/wrongca.err" "does not verify against"
certs --check "$EC/ca.crt" > /dev/null 2> "$T/nosan.err"
expect certs.check_no_san 1 $? "$T/nosan.err" "certificate has no subjectAltName"
certs --check "$EC/tls.key" > /dev/null 2> "$T/notcert.err"
expect certs.check_not_a_certificate 1 $? "$T/notcert.err" "cannot parse certificate PEM"
certs --check "$T/missing.crt" > /dev/null 2> "$T/missing.err"
expect certs.check_unreadable_exit_2 2 $? "$T/missing.err" "$T/missing.crt"

# Expired and not-yet-valid certificates, issued by our CA with `openssl ca` (which, unlike
# `openssl x509` in OpenSSL 3.0, takes explicit start and end dates).
OCA=$T/oca
mkdir -p "$OCA" && : > "$OCA/index.txt"
cat > "$OCA/ca.cnf" <<EOF
[ca]
default_ca = gp
[gp]
database = $OCA/index.txt
new_certs_dir = $OCA
rand_serial = yes
default_md = sha256
policy = any
copy_extensions = copy
unique_subject = no
[any]
commonName = supplied
EOF
dated_cert() { # NAME START END
    osl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$OCA/$1.key" \
        -out "$OCA/$1.csr" -subj "/CN=$1" -addext subjectAltName=DNS:localhost >/dev/null 2>&1 &&
    osl ca -batch -config "$OCA/ca.cnf" -cert "$EC/ca.crt" -keyfile "$EC/ca.key" -notext \
        -in "$OCA/$1.csr" -out "$OCA/$1.crt" -startdate "$2" -enddate "$3" >/dev/null 2>&1
}
if dated_cert old 20000101000000Z 20000102000000Z; then
    certs --check "$OCA/old.crt" --key "$OCA/old.key" > "$T/old.out" 2> "$T/old.err"
    expect certs.check_expired 1 $? "$T/old.err" "certificate expired at 2000-01-02T00:00:00Z"
    check certs.check_expired_days_negative grep -q '^days left: *-' "$T/old.out"
else
    fail certs.check_expired "openssl ca could not make the test certificate"
fi
if dated_cert future 20990101000000Z 20991231000000Z; then
    certs --check "$OCA/future.crt" --key "$OCA/future.key" > /dev/null 2> "$T/future.err"
    expect certs.check_not_yet_valid 1 $? "$T/future.err" "not valid before 2099-01-01T00:00:00Z"
else
    fail certs.check_not_yet_valid "openssl ca could not make the test certificate"
fi

# ---- command line -----------------------------------------------------------------------------
certs --help > "$T/help.out" 2>&1
expect certs.help 0 $? "$T/help.out" "usage: gpupack-certs"
certs --version > "$T/version.out" 2>&1
expect certs.version 0 $?
check certs.version_text grep -Eqx 'gpupack-certs [0-9]+\.[0-9]+\.[0-9]+.*' "$T/version.out"

# Each line: the flag the message must name, then the arguments after the base ones.
BAD=$T/bad
i=0
while read -r flag args; do
    i=$((i + 1))
    # shellcheck disable=SC2086
    certs --service s --namespace n --out "$BAD" $args > /dev/null 2> "$T/bad.err"
    rc=$?
    expect "certs.bad_flag_$i($flag)" 2 $rc "$T/bad.err" "$flag"
done <<EOF
--days --days 0
--days --days 3651
--days --days abc
--days --days 10x
--days --days 99999999999999999999999
--days --days -5
--ca-days --ca-days 0
--days --days 400 --ca-days 300
--rsa-bits --key-type rsa --rsa-bits 1024
--rsa-bits --key-type rsa --rsa-bits 9000
--rsa-bits --rsa-bits 4096
--key-type --key-type dsa
--ip --ip 300.1.1.1
--ip --ip localhost
--dns --dns bad_name
--dns --dns 10.0.0.1
--bogus --bogus
--log-level --log-level loud
--policy --policy $T/no-such-policy.json
--policy --policy $T
--key --key $EC/tls.key
--force --force=yes
stray stray
EOF
check certs.bad_flags_write_nothing test ! -e "$BAD"
certs --namespace n --out "$BAD" > /dev/null 2> "$T/bad.err"
expect certs.missing_service 2 $? "$T/bad.err" "--service"
certs --service s --namespace n --out > /dev/null 2> "$T/bad.err"
expect certs.missing_value 2 $? "$T/bad.err" "--out: needs a value"
certs --service a --service b --namespace n --out "$BAD" > /dev/null 2> "$T/bad.err"
expect certs.flag_given_twice 2 $? "$T/bad.err" "--service: given more than once"
certs --bogus --help > "$T/help.out" 2> "$T/bad.err"
expect certs.help_wins_over_a_bad_flag 0 $? "$T/help.out" "usage: gpupack-certs"
certs --check "$EC/tls.crt" --service s > /dev/null 2> "$T/bad.err"
expect certs.check_with_generation_flags 2 $? "$T/bad.err" "--check"

cp "$ROOT/manifests/base/policy.json" "$T/policy.json"
certs --service s --namespace n --out "$T/quiet" --log-level error --policy "$T/policy.json" \
    > /dev/null 2> "$T/quiet.err"
expect certs.log_level_and_policy_accepted 0 $?
check certs.log_level_error_is_quiet test ! -s "$T/quiet.err"
for lvl in debug info warn; do
    certs --check "$EC/tls.crt" --log-level $lvl > /dev/null 2>&1
    expect "certs.log_level_$lvl" 0 $?
done

# ---- a real TLS server --------------------------------------------------------------------------
# serve NAME DIR: openssl s_server with DIR's pair on a free loopback port; sets PORT.
serve() {
    PORT=$(free_port)
    timeout 60 openssl s_server -accept "127.0.0.1:$PORT" -cert "$2/tls.crt" -key "$2/tls.key" \
        -www -quiet > "$T/$1.srv.log" 2>&1 &
    E2E_PIDS="$E2E_PIDS $!"
    wait_http "https://127.0.0.1:$PORT/" 10
}
tls_get() { # CAFILE HOST [curl args]
    ca=$1 host=$2; shift 2
    curl -sS -o /dev/null --max-time 5 --cacert "$ca" --resolve "$host:$PORT:127.0.0.1" \
        "$@" "https://$host:$PORT/"
}
if serve ec "$EC"; then
    check certs.tls_curl_localhost tls_get "$EC/ca.crt" localhost
    check certs.tls_curl_service_name tls_get "$EC/ca.crt" "$SVC.$NS.svc"
    check certs.tls_curl_cluster_local tls_get "$EC/ca.crt" "$SVC.$NS.svc.cluster.local"
    check certs.tls_curl_ip \
        curl -sS -o /dev/null --max-time 5 --cacert "$EC/ca.crt" "https://127.0.0.1:$PORT/"
    # The negative controls: the same client must refuse another CA and a name not in the SANs.
    check certs.tls_wrong_ca_rejected refused tls_get "$RSA/ca.crt" localhost
    check certs.tls_wrong_name_rejected refused tls_get "$EC/ca.crt" other.example
    s_client_ok() {
        timeout 10 openssl s_client -connect "127.0.0.1:$PORT" -verify_return_error \
            -CAfile "$EC/ca.crt" -servername localhost -verify_hostname localhost \
            < /dev/null 2>&1 | grep -q 'Verify return code: 0 (ok)'
    }
    check certs.tls_s_client_verifies s_client_ok
else
    fail certs.tls_server "openssl s_server did not start: $(head -c 300 "$T/ec.srv.log")"
fi
if serve rsa "$RSA"; then
    check certs.tls_rsa_curl tls_get "$RSA/ca.crt" localhost
else
    fail certs.tls_rsa_server "openssl s_server did not start: $(head -c 300 "$T/rsa.srv.log")"
fi

# ---- tools/devcerts.sh ------------------------------------------------------------------------
DEV=$T/dev
timeout 120 sh "$ROOT/tools/devcerts.sh" "$C" "$DEV" > "$T/dev1.out" 2>&1
expect certs.devcerts_makes 0 $? "$T/dev1.out" "$DEV"
DEV_SANS='DNS:gpupack-webhook\.gpupack-system\.svc, .*, DNS:localhost, '
DEV_SANS="${DEV_SANS}IP Address:127\\.0\\.0\\.1, IP Address:0(:0){6}:1 \$"
check certs.devcerts_sans ext_has "$DEV/tls.crt" subjectAltName "$DEV_SANS"
cp "$DEV/tls.crt" "$T/dev.saved"
timeout 120 sh "$ROOT/tools/devcerts.sh" "$C" "$DEV" > "$T/dev2.out" 2>&1
expect certs.devcerts_reuses_valid 0 $?
check certs.devcerts_reuse_unchanged cmp -s "$DEV/tls.crt" "$T/dev.saved"
if [ -f "$OCA/old.crt" ]; then
    cp "$OCA/old.crt" "$DEV/tls.crt"
    timeout 120 sh "$ROOT/tools/devcerts.sh" "$C" "$DEV" > "$T/dev3.out" 2>&1
    expect certs.devcerts_replaces_expired 0 $?
    check certs.devcerts_new_is_valid \
        certs --check "$DEV/tls.crt" --key "$DEV/tls.key" --ca "$DEV/ca.crt"
fi
exit 0
