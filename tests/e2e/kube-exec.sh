#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Kubeconfigs with exec credential plugins (as EKS, GKE and AKS write them): the extender lists
# and watches the fake API (tests/e2e/fakeapi.py), which accepts only the bearer token a fake
# plugin prints; the plugin runs once for both informers, again after the API turns to another
# token (401); a plugin that is missing, fails or prints garbage is named in the error.
. "$(dirname "$0")/lib.sh"
X="$BIN/gpupack-extender"
start_fakeapi plugin-token-1
P="$E2E_TMP/plugins"
mkdir -p "$P"
echo plugin-token-1 > "$P/token"
cat > "$P/get-token" <<'SH'
#!/bin/sh
d=$(dirname "$0")
echo "$*" >> "$d/runs"
printf '%s' "$KUBERNETES_EXEC_INFO" > "$d/info"
printf '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"%s","expirationTimestamp":"2099-01-01T00:00:00Z"}}\n' "$(cat "$d/token")"
SH
printf '#!/bin/sh\necho "error: you must be logged in to the server" >&2\nexit 4\n' > "$P/fails"
printf '#!/bin/sh\necho "<html>not a credential</html>"\n' > "$P/garbage"
chmod +x "$P/get-token" "$P/fails" "$P/garbage"
exec_user() { # COMMAND: a user entry running COMMAND with one argument, as kubectl would
    echo "{exec: {apiVersion: client.authentication.k8s.io/v1, command: \"$1\", args: [--cluster, fake], interactiveMode: IfAvailable, provideClusterInfo: true}}"
}
fake_kubeconfig "$E2E_TMP/kc" "$(exec_user "$P/get-token")"
$VG "$X" --listen 127.0.0.1:0 --kubeconfig "$E2E_TMP/kc" --drain-seconds 0 --assume-seconds 0 2> "$E2E_TMP/x.log" &
E2E_PIDS="$E2E_PIDS $!"
PORT=$(serving_port "$E2E_TMP/x.log")
U="http://127.0.0.1:$PORT"
i=0; while [ $i -lt 100 ] && [ "$(curl -s "$U/readyz")" != ok ]; do sleep 0.1; i=$((i+1)); done
[ "$(curl -s "$U/readyz")" = ok ] && pass kube-exec.lists-with-plugin-token || fail kube-exec.lists-with-plugin-token "$(tail -n 3 "$E2E_TMP/x.log")"
[ "$(wc -l < "$P/runs")" -eq 1 ] && pass kube-exec.plugin-runs-once-for-both-informers || fail kube-exec.plugin-runs-once-for-both-informers "$(wc -l < "$P/runs") runs"
[ "$(head -n 1 "$P/runs")" = "--cluster fake" ] && pass kube-exec.plugin-args || fail kube-exec.plugin-args "$(cat "$P/runs")"
jq -e --arg api "$API" '.kind == "ExecCredential" and .spec.interactive == false and .spec.cluster.server == $api' "$P/info" >/dev/null \
    && pass kube-exec.exec-info || fail kube-exec.exec-info "$(cat "$P/info")"
stats() { curl -s --max-time 5 "$API/_control/stats"; }
[ "$(stats | jq .unauthorized)" = 0 ] && pass kube-exec.no-401 || fail kube-exec.no-401 "$(stats)"
# The API turns to another token: requests get 401, the plugin runs again, the view catches up.
echo plugin-token-2 > "$P/token"
curl -s --max-time 5 -H 'Content-Type: application/json' --data-binary '{"token":"plugin-token-2"}' "$API/_control/token" >/dev/null
curl -s --max-time 5 -H 'Content-Type: application/json' --data-binary '{"fault":"drop-watches"}' "$API/_control/fault" >/dev/null
i=0; while [ $i -lt 100 ] && [ "$(wc -l < "$P/runs")" -lt 2 ]; do sleep 0.1; i=$((i+1)); done
i=0; while [ $i -lt 100 ] && [ "$(stats | jq '.open_watches.nodes // 0')" -lt 1 ]; do sleep 0.1; i=$((i+1)); done
[ "$(wc -l < "$P/runs")" -ge 2 ] && [ "$(stats | jq .unauthorized)" -ge 1 ] && [ "$(stats | jq '.open_watches.nodes // 0')" -ge 1 ] \
    && pass kube-exec.rerun-after-401 || fail kube-exec.rerun-after-401 "runs $(wc -l < "$P/runs"); $(stats | jq -c '{unauthorized, open_watches}')"
grep -q plugin-token "$E2E_TMP/x.log" && fail kube-exec.token-not-logged || pass kube-exec.token-not-logged

# Errors name the plugin and what went wrong.
fake_kubeconfig "$E2E_TMP/kc-missing" "$(exec_user no-such-credential-plugin)"
"$X" --kubeconfig "$E2E_TMP/kc-missing" --once filter < /dev/null > /dev/null 2> "$E2E_TMP/err"; rc=$?
[ $rc -eq 2 ] && grep -q 'exec.command: "no-such-credential-plugin": command not found' "$E2E_TMP/err" \
    && pass kube-exec.missing-command || fail kube-exec.missing-command "rc $rc: $(cat "$E2E_TMP/err")"
once_err() { # KUBECONFIG: the --once error of the extender with that kubeconfig
    echo '{"Pod":{"metadata":{"name":"p"},"spec":{"containers":[]}},"NodeNames":["a"]}' \
        | "$X" --kubeconfig "$1" --once filter --sync-timeout 3 2>&1 >/dev/null
}
fake_kubeconfig "$E2E_TMP/kc-fails" "$(exec_user "$P/fails")"
once_err "$E2E_TMP/kc-fails" | grep -q "exec plugin $P/fails: exited with status 4: error: you must be logged in" \
    && pass kube-exec.failing-plugin-named || fail kube-exec.failing-plugin-named "$(once_err "$E2E_TMP/kc-fails" | head -c 600)"
fake_kubeconfig "$E2E_TMP/kc-garbage" "$(exec_user "$P/garbage")"
once_err "$E2E_TMP/kc-garbage" | grep -q "exec plugin $P/garbage: output is not JSON" \
    && pass kube-exec.garbage-named || fail kube-exec.garbage-named "$(once_err "$E2E_TMP/kc-garbage" | head -c 600)"
