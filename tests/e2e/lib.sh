# SPDX-License-Identifier: Apache-2.0
# Shared helpers for the black-box tests (sourced). Each test prints "PASS name" or "FAIL name".
set -u
BIN=${BIN:-bin}
BUILD=${BUILD:-build}
VG=${VG:-}
E2E_TMP=$(mktemp -d "${TMPDIR:-/tmp}/gpupack-e2e.XXXXXX")
E2E_PIDS=""
e2e_cleanup() {
    for p in $E2E_PIDS; do kill "$p" 2>/dev/null; done
    for p in $E2E_PIDS; do wait "$p" 2>/dev/null; done
    rm -rf "$E2E_TMP"
}
trap e2e_cleanup EXIT

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1${2:+: $2}"; }
# check NAME CONDITION-COMMAND...: PASS when the command succeeds.
check() { n=$1; shift; if "$@" >/dev/null 2>&1; then pass "$n"; else fail "$n"; fi; }

# A free TCP port on loopback, chosen by the kernel.
free_port() {
    python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])' 2>/dev/null \
      || echo $(( 20000 + $$ % 20000 ))
}

# wait_http URL [seconds]: waits until the URL answers (any HTTP status).
wait_http() {
    i=0; lim=$(( ${2:-10} * 10 ))
    while [ $i -lt $lim ]; do
        curl -sk -o /dev/null --max-time 1 "$1" && return 0
        sleep 0.1; i=$((i + 1))
    done
    return 1
}

# Development certificates for 127.0.0.1/localhost in DIR (uses bin/gpupack-certs).
make_certs() {
    "$BIN/gpupack-certs" --service gpupack-webhook --namespace gpupack-system --out "$1" \
        --ip 127.0.0.1 --dns localhost --force >/dev/null 2>&1
}

# start_fakeapi TOKEN: the fake API server (tests/e2e/fakeapi.py) over the snapshot cluster in
# tests/extender/, accepting bearer TOKEN; sets API to its URL.
start_fakeapi() {
    root=$(cd "$(dirname "$0")/../.." && pwd)
    python3 "$root/tests/e2e/fakeapi.py" --port-file "$E2E_TMP/api.port" --nodes "$root/tests/extender/nodes.json" \
        --pods "$root/tests/extender/pods.json" --token "$1" --die-with-parent 2> "$E2E_TMP/api.log" &
    E2E_PIDS="$E2E_PIDS $!"
    i=0; while [ $i -lt 100 ] && [ ! -s "$E2E_TMP/api.port" ]; do sleep 0.1; i=$((i+1)); done
    API="http://127.0.0.1:$(cat "$E2E_TMP/api.port")"
}

# fake_kubeconfig FILE USER: a kubeconfig for the fake API ($API) whose user is the YAML flow
# mapping USER, e.g. '{token: s3cret}' or '{tokenFile: "/path"}'.
fake_kubeconfig() {
    cat > "$1" <<YAML
apiVersion: v1
kind: Config
current-context: fake
clusters:
- name: fake
  cluster: {server: "$API"}
contexts:
- name: fake
  context: {cluster: fake, user: tester}
users:
- name: tester
  user: $2
YAML
}

# serving_port LOG: waits (10 s at most) for a daemon's "serving" log line and prints its port.
serving_port() {
    i=0; while [ $i -lt 100 ] && ! grep -q '"msg":"serving"' "$1" 2>/dev/null; do sleep 0.1; i=$((i+1)); done
    grep '"msg":"serving"' "$1" 2>/dev/null | head -n 1 | jq -r .port
}

# webhook_post URL CACERT NAME < pod: the pod, wrapped by review (tests/cases/lib.sh), posted to
# the webhook's URL/mutate; $E2E_TMP/NAME.resp is the answer and NAME.pod the pod with its patch
# applied by kubectl's own JSON Patch (NAME.orig without one).
webhook_post() {
    review > "$E2E_TMP/$3.review"
    curl -s --max-time 10 --cacert "$2" -H 'Content-Type: application/json' \
        --data-binary @"$E2E_TMP/$3.review" "$1/mutate" > "$E2E_TMP/$3.resp"
    jq '.request.object' "$E2E_TMP/$3.review" > "$E2E_TMP/$3.orig"
    if jq -e '.response.patch' "$E2E_TMP/$3.resp" >/dev/null; then
        kubectl patch --local -f "$E2E_TMP/$3.orig" --type=json \
            -p "$(jq -r .response.patch "$E2E_TMP/$3.resp" | base64 -d)" -o json > "$E2E_TMP/$3.pod"
    else
        cp "$E2E_TMP/$3.orig" "$E2E_TMP/$3.pod"
    fi
}

# prom_backfill_start PREFIX [promtool flags]: backfills $E2E_TMP/data.om (OpenMetrics) into
# $E2E_TMP/tsdb with promtool and starts Debian's prometheus on it on a free loopback port;
# sets PROM (its URL) and PROM_PID, and checks PREFIX.backfill and PREFIX.prometheus-ready
# (false when it did not become ready).
prom_backfill_start() {
    p=$1; shift
    mkdir -p "$E2E_TMP/tsdb"
    if promtool tsdb create-blocks-from openmetrics "$@" "$E2E_TMP/data.om" "$E2E_TMP/tsdb" \
        > "$E2E_TMP/promtool.log" 2>&1; then
        pass "$p.backfill"
    else
        fail "$p.backfill" "$(tail -n 3 "$E2E_TMP/promtool.log" | tr '\n' ' ')"
    fi
    printf 'global:\n  scrape_interval: 1m\n' > "$E2E_TMP/prometheus.yml"
    PORT=$(free_port)
    prometheus --config.file="$E2E_TMP/prometheus.yml" --storage.tsdb.path="$E2E_TMP/tsdb" \
        --web.listen-address="127.0.0.1:$PORT" --storage.tsdb.retention.time=3650d \
        > "$E2E_TMP/prometheus.log" 2>&1 &
    PROM_PID=$!
    E2E_PIDS="$E2E_PIDS $PROM_PID"
    PROM="http://127.0.0.1:$PORT"
    i=0
    while [ $i -lt 300 ] && ! curl -sf -o /dev/null --max-time 1 "$PROM/-/ready"; do
        sleep 0.1; i=$((i + 1))
    done
    if curl -sf -o /dev/null --max-time 1 "$PROM/-/ready"; then
        pass "$p.prometheus-ready"
    else
        fail "$p.prometheus-ready" "$(tail -n 3 "$E2E_TMP/prometheus.log" | tr '\n' ' ')"
        return 1
    fi
}

# chrome_headless MODE FILE OUT [WIDTH,HEIGHT]: headless Chromium ($CHROME; tools/deps.sh test
# installs it) on FILE with its own profile and no name resolution (a page that tried to fetch
# anything would only fail), at most 60 s, in a window of WIDTH,HEIGHT (default 1280,2000).
# MODE dom: the DOM after loading into OUT; MODE shot: a screenshot into OUT. Chromium's log,
# console messages included ("CONSOLE"), goes to OUT.log.
chrome_headless() {
    mode=$1; file=$2; out=$3
    set -- --headless=new --no-sandbox --disable-gpu --no-first-run --hide-scrollbars \
        --user-data-dir="$E2E_TMP/profile" --host-resolver-rules="MAP * ~NOTFOUND" \
        --enable-logging=stderr --v=0 --window-size="${4:-1280,2000}"
    if [ "$mode" = dom ]; then
        timeout 60 "$CHROME" "$@" --dump-dom "file://$file" > "$out" 2> "$out.log"
    else
        timeout 60 "$CHROME" "$@" --screenshot="$out" "file://$file" > "$out.log" 2>&1
    fi
}

# no_urls FILE: nothing in the page can load a resource: no URL, no tag with a src or href
# attribute, no stylesheet link, no CSS url() or @import, no script element.
no_urls() {
    ! tr '\n' ' ' < "$1" | grep -qiE 'https?://|<[^>]*[[:space:]](src|href|xlink:href)=|<link|<script|<iframe|<object|<embed|url\(|@import'
}
