# SPDX-License-Identifier: Apache-2.0
# Sourced by tools/bench_schedcycle.sh and tools/callgrind_extender.sh (not run alone): the fake
# API server (tests/e2e/fakeapi.py) over a cluster from tests/bench/gen_cluster.py, with free GPUs,
# a kubeconfig for it, and gpupack-extender watching it. The caller defines fail(), PIDS and BIN
# and runs from the repository root.
#
# fake_cluster_start CLUSTER_DIR PREFIX: the generated cluster is full (every GPU taken: 5 of
# 16,831 free at 5,000 nodes), which leaves nothing to schedule, so the fake holds its pods except
# the GPU pods on even-numbered nodes (about half the GPU nodes free), written to PREFIX-pods.json.
# Starts the fake (its log PREFIX-api.log), writes PREFIX.kubeconfig (bearer token "bench"), adds
# the fake's PID to PIDS and sets API to its URL.
fake_cluster_start() {
    python3 - "$1/pods.json" "$2-pods.json" <<'PY' || fail "cannot thin the pods"
import json, sys
doc = json.load(open(sys.argv[1]))
def keep(p):
    gpu = any("nvidia.com/gpu" in (c.get("resources", {}).get("requests") or {}) for c in p["spec"]["containers"])
    return not (gpu and int(p["spec"]["nodeName"].rsplit("-", 1)[1]) % 2 == 0)
doc["items"] = [p for p in doc["items"] if keep(p)]
json.dump(doc, open(sys.argv[2], "w"), separators=(",", ":"))
print("fake cluster: %d pods" % len(doc["items"]), file=sys.stderr)
PY
    rm -f "$2-api.port"
    python3 tests/e2e/fakeapi.py --port-file "$2-api.port" --nodes "$1/nodes.json" --pods "$2-pods.json" \
        --token bench 2> "$2-api.log" &
    PIDS="$PIDS $!"
    i=0; while [ $i -lt 3000 ] && [ ! -s "$2-api.port" ]; do sleep 0.1; i=$((i + 1)); done
    [ -s "$2-api.port" ] || fail "the fake API did not start: $(tail -n 3 "$2-api.log")"
    API="http://127.0.0.1:$(cat "$2-api.port")"
    cat > "$2.kubeconfig" <<YAML
apiVersion: v1
kind: Config
current-context: fake
clusters:
- name: fake
  cluster: {server: "$API"}
contexts:
- name: fake
  context: {cluster: fake, user: bench}
users:
- name: bench
  user: {token: bench}
YAML
}

# extender_start KUBECONFIG LOG [WRAPPER...]: gpupack-extender (under WRAPPER, e.g. valgrind) on a
# free loopback port with its live view from KUBECONFIG, stderr to LOG; waits for its port and for
# its first lists of Nodes and Pods (up to 10 minutes: 150,000 pods, or under valgrind). Sets XPID
# and U (its URL) and adds XPID to PIDS.
extender_start() {
    kc=$1 log=$2
    shift 2
    "$@" "$BIN/gpupack-extender" --listen 127.0.0.1:0 --kubeconfig "$kc" --log-level warn \
        --drain-seconds 0 --assume-seconds 0 2> "$log" &
    XPID=$!; PIDS="$PIDS $XPID"
    port=""; i=0
    while [ $i -lt 1200 ] && [ -z "$port" ]; do
        port=$(ss -Hltnp 2>/dev/null | awk -v p="pid=$XPID," '$0 ~ p {n = split($4, a, ":"); print a[n]; exit}')
        [ -n "$port" ] || sleep 0.1; i=$((i + 1))
    done
    [ -n "$port" ] || fail "the extender did not start: $(tail -n 3 "$log")"
    U="http://127.0.0.1:$port"
    i=0; while [ $i -lt 6000 ] && [ "$(curl -s "$U/readyz")" != ok ]; do sleep 0.1; i=$((i + 1)); done
    [ "$(curl -s "$U/readyz")" = ok ] || fail "the extender's view never became ready: $(tail -n 3 "$log")"
}
