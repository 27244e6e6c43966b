#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The daemons as they run in the manifests: an unprivileged uid with no capabilities at all
# (setpriv), an empty working directory, HOME and TMPDIR. They serve, hold no capability, keep
# no regular file open for writing, and leave every directory empty: nothing goes to disk.
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
if [ "$(id -u)" != 0 ]; then
    # Already unprivileged: run as we are (the capability checks still apply).
    AS=""
else
    AS="setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all --no-new-privs"
fi
BIN=$(cd "$BIN" && pwd)
D="$E2E_TMP/sec"; mkdir -p "$D/cwd" "$D/home" "$D/tmp" "$D/in"
make_certs "$D/in/certs"
cp "$ROOT/manifests/base/policy.json" "$ROOT/tests/extender/nodes.json" "$ROOT/tests/extender/pods.json" "$D/in/"
chmod -R a+rX "$D/in"; chmod 0444 "$D/in/certs/tls.key"
chmod 0777 "$D/cwd" "$D/home" "$D/tmp"; chmod a+x "$E2E_TMP" "$D"
start() { # NAME PROG ARGS...
    n=$1; p=$2; shift 2
    ( cd "$D/cwd" && HOME="$D/home" TMPDIR="$D/tmp" exec $AS "$BIN/$p" --listen 127.0.0.1:0 --drain-seconds 0 \
        --policy "$D/in/policy.json" "$@" ) > /dev/null 2> "$E2E_TMP/$n.log" &
    E2E_PIDS="$E2E_PIDS $!"
}
port_of() { serving_port "$E2E_TMP/$1.log"; }
pid_of_port() { ss -Hltnp 2>/dev/null | awk -v p=":$1" '$4 ~ p"$" {match($0, /pid=[0-9]+/); print substr($0, RSTART+4, RLENGTH-4); exit}'; }
start wh gpupack-webhook --tls-cert "$D/in/certs/tls.crt" --tls-key "$D/in/certs/tls.key" --snapshot-nodes "$D/in/nodes.json"
start ex gpupack-extender --snapshot-nodes "$D/in/nodes.json" --snapshot-pods "$D/in/pods.json"
WP=$(port_of wh); XP=$(port_of ex)
if [ -z "$WP" ] || [ -z "$XP" ]; then
    fail security.start "$(cat "$E2E_TMP/wh.log" "$E2E_TMP/ex.log" | head -c 400)"; exit 1
fi
code=$(curl -s -o "$E2E_TMP/r" -w '%{http_code}' --cacert "$D/in/certs/ca.crt" -H 'Content-Type: application/json' \
    --data-binary @"$ROOT/tests/examples/gpu-deployment-review.json" "https://localhost:$WP/mutate")
[ "$code" = 200 ] && jq -e '.response.patch' "$E2E_TMP/r" >/dev/null && pass security.unprivileged-webhook-serves || fail security.unprivileged-webhook-serves "$code"
jq -n '{Pod: {metadata: {name: "p", uid: "u"}, spec: {containers: [{name: "c", resources: {limits: {"nvidia.com/gpu": "1"}}}]}}, Nodes: null, NodeNames: ["gpu-busy"]}' > "$E2E_TMP/args"
code=$(curl -s -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' --data-binary @"$E2E_TMP/args" "http://127.0.0.1:$XP/prioritize")
[ "$code" = 200 ] && pass security.unprivileged-extender-serves || fail security.unprivileged-extender-serves "$code"
# Reload the policy and swap the certificate too: still nothing written.
cp "$D/in/policy.json" "$D/in/p.tmp" && mv "$D/in/p.tmp" "$D/in/policy.json"
sleep 1.2
for n in webhook:$WP extender:$XP; do
    name=${n%%:*}; pid=$(pid_of_port "${n#*:}")
    if [ -z "$pid" ]; then fail "security.$name-process" "no pid"; continue; fi
    caps=$(awk '/^Cap(Eff|Prm|Inh|Amb)/ {print $2}' "/proc/$pid/status" | sort -u)
    [ "$caps" = 0000000000000000 ] && pass "security.$name-no-capabilities" || fail "security.$name-no-capabilities" "$caps"
    if [ -n "$AS" ]; then
        uid=$(awk '/^Uid/ {print $2}' "/proc/$pid/status")
        [ "$uid" = 65534 ] && pass "security.$name-non-root" || fail "security.$name-non-root" "uid $uid"
    fi
    writable=""
    for fd in /proc/$pid/fd/*; do
        # 0-2 are what the caller gave (the container runtime's log pipe in a pod).
        case "${fd##*/}" in 0|1|2) continue ;; esac
        t=$(readlink "$fd"); case "$t" in /*) ;; *) continue ;; esac
        [ -f "$t" ] || continue
        fl=$(awk '/^flags/ {print $2}' "/proc/$pid/fdinfo/${fd##*/}")
        [ $(( 0$fl & 3 )) -ne 0 ] && writable="$writable $t"
    done
    [ -z "$writable" ] && pass "security.$name-no-file-open-for-writing" || fail "security.$name-no-file-open-for-writing" "$writable"
done
left=$(find "$D/cwd" "$D/home" "$D/tmp" -mindepth 1 | head -n 3)
[ -z "$left" ] && pass security.nothing-written-to-disk || fail security.nothing-written-to-disk "$left"
