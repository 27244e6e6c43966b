#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Installs the Debian packages gpupack needs, when they are missing.
#   tools/deps.sh build   what building the binaries needs (the Dockerfile's build stage too)
#   tools/deps.sh run     what `make run` needs: the build packages, whose libraries are also all
#                         the daemons and gpupack-certs load at run time (no test tools)
#   tools/deps.sh test    that, plus what the tests need (curl, jq, kubectl, Node.js and npm,
#                         chromium and python3-pil for the advisor's HTML report, ...)
#   tools/deps.sh bench   that, plus golang-go: `make bench` builds the Go peer it compares the
#                         webhook with (tools/peers/gowebhook) when Go is present; `make test`
#                         never needs Go
#   tools/deps.sh kube    the bench set, plus etcd-server and golang-github-modern-go-reflect2-dev:
#                         `make test-kube` and `make bench-scheduler` build kube-apiserver and
#                         kube-scheduler with Go (tools/kube-control-plane.sh) and run etcd
#   tools/deps.sh --list SET   prints SET's packages, one a line, and installs nothing
# As root: apt-get installs them. Otherwise: prints the exact command and fails.
set -eu
BUILD_PKGS="build-essential pkg-config libmicrohttpd-dev libcjson-dev libcurl4-openssl-dev libssl-dev \
libgnutls28-dev libyaml-dev libyajl-dev ca-certificates"
TEST_PKGS="curl jq openssl python3 clang-14 libclang-rt-14-dev nghttp2-client iproute2 wrk bsdextrautils \
prometheus chromium python3-pil"
# Packages the test set asks for only when the command is not on PATH: "command:package".
TEST_CMDS="kubectl:kubernetes-client node:nodejs npm:npm"
BENCH_PKGS="golang-go"
KUBE_PKGS="etcd-server golang-github-modern-go-reflect2-dev"
usage() { echo "usage: tools/deps.sh [--list] build|run|test|bench|kube" >&2; exit 2; }
list=0
[ "${1:-}" = --list ] && { list=1; shift; }
set_name=${1:-test}
case "$set_name" in
    build|run) PKGS=$BUILD_PKGS; CMDS="" ;;
    test|install) PKGS="$BUILD_PKGS $TEST_PKGS"; CMDS=$TEST_CMDS ;;
    bench) PKGS="$BUILD_PKGS $TEST_PKGS $BENCH_PKGS"; CMDS=$TEST_CMDS ;;
    kube) PKGS="$BUILD_PKGS $TEST_PKGS $BENCH_PKGS $KUBE_PKGS"; CMDS=$TEST_CMDS ;;
    *) usage ;;
esac
if [ $list = 1 ]; then
    for p in $PKGS; do echo "$p"; done
    # The tests apply patches and render manifests with an independent implementation: kubectl.
    # Debian ships it as kubernetes-client; any kubectl already on PATH will do. The manifest
    # tests run on Node.js with npm packages (tests/manifests/package.json).
    for c in $CMDS; do echo "${c#*:}"; done
    exit 0
fi
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
for c in $CMDS; do
    command -v "${c%%:*}" >/dev/null 2>&1 || missing="$missing ${c#*:}"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ]; then
    echo "deps: installing:$missing" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $missing >/dev/null
    exit 0
fi
echo "deps: missing packages:$missing" >&2
echo "deps: run this, then retry:  sudo apt-get update && sudo apt-get install -y$missing" >&2
exit 1
