#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# A credential plugin that hangs (an SSO helper waiting on a browser, a stuck network call) must
# not hold the extender past its own limits: `--once --sync-timeout 3` reports the sync failure
# at 3 s and should exit then, and SIGTERM (with --drain-seconds 0) should stop the daemon
# promptly. Observed: the plugin's 30 s timeout runs once per informer, one after the other, so
# both take about 60 s.
. "$(dirname "$0")/lib.sh"
X="$BIN/gpupack-extender"
start_fakeapi plugin-token-1
P="$E2E_TMP/plugins"
mkdir -p "$P"
printf '#!/bin/sh\nsleep 120\n' > "$P/hangs"
chmod +x "$P/hangs"
fake_kubeconfig "$E2E_TMP/kc" "{exec: {apiVersion: client.authentication.k8s.io/v1, command: \"$P/hangs\", interactiveMode: IfAvailable}}"
elapsed() { echo $(( $(date +%s) - $1 )); }
t0=$(date +%s)
echo '{"Pod":{"metadata":{"name":"p"},"spec":{"containers":[]}},"NodeNames":["a"]}' \
    | timeout 90 "$X" --kubeconfig "$E2E_TMP/kc" --once filter --sync-timeout 3 >/dev/null 2>&1
rc=$?; s=$(elapsed "$t0")
[ $rc -ne 0 ] && [ "$s" -le 10 ] && pass kube-exec-hang.exec-hang-once-honours-sync-timeout \
    || fail kube-exec-hang.exec-hang-once-honours-sync-timeout "rc $rc after ${s}s (--sync-timeout 3)"
"$X" --listen 127.0.0.1:0 --kubeconfig "$E2E_TMP/kc" --drain-seconds 0 2> "$E2E_TMP/x.log" &
xp=$!; E2E_PIDS="$E2E_PIDS $xp"
sleep 2
t0=$(date +%s); kill -TERM "$xp"
while kill -0 "$xp" 2>/dev/null && [ "$(elapsed "$t0")" -lt 90 ]; do sleep 0.5; done
s=$(elapsed "$t0")
[ "$s" -le 10 ] && pass kube-exec-hang.exec-hang-sigterm-prompt || fail kube-exec-hang.exec-hang-sigterm-prompt "exited ${s}s after SIGTERM (--drain-seconds 0)"
