#!/bin/sh
# Installs the Debian packages gpupack needs, when they are missing.
#   tools/deps.sh build   what building the binaries needs (the Dockerfile's build stage too)
#   tools/deps.sh test    that, plus what the tests need (curl, jq, kubectl, Node.js and npm, ...)
# As root: apt-get installs them. Otherwise: prints the exact command and fails.
set -eu
BUILD_PKGS="build-essential pkg-config libmicrohttpd-dev libcjson-dev libcurl4-openssl-dev libssl-dev \
libgnutls28-dev libyaml-dev libyajl-dev ca-certificates"
TEST_PKGS="curl jq openssl python3 clang-14 libclang-rt-14-dev nghttp2-client iproute2 wrk bsdextrautils"
case "${1:-test}" in
    build) PKGS=$BUILD_PKGS ;;
    test|install) PKGS="$BUILD_PKGS $TEST_PKGS" ;;
    *) echo "usage: tools/deps.sh build|test" >&2; exit 2 ;;
esac
missing=""
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ "${1:-test}" != build ]; then
    # The tests apply patches and render manifests with an independent implementation: kubectl.
    # Debian ships it as kubernetes-client; any kubectl already on PATH will do.
    command -v kubectl >/dev/null 2>&1 || missing="$missing kubernetes-client"
    # The manifest tests run on Node.js with npm packages (tests/manifests/package.json).
    command -v node >/dev/null 2>&1 || missing="$missing nodejs"
    command -v npm >/dev/null 2>&1 || missing="$missing npm"
fi
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
