#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Builds a real kube-apiserver and kube-scheduler (for `make bench-scheduler` and
# `make test-kube`) from the only Kubernetes control-plane sources a Debian 12 machine can reach:
# Debian's own `kubernetes` source package (v1.20.2, the tree that builds bookworm's
# kubernetes-client, with its vendor directory), fetched from deb.debian.org and checked against
# the sha256 below. etcd is Debian's etcd-server.
#
#   tools/kube-control-plane.sh [DIR]   prints DIR (default $GPUPACK_K8S_DIR, else
#                                       ~/.cache/gpupack/kubernetes-1.20.2) once DIR/kube-apiserver
#                                       and DIR/kube-scheduler are there (built when missing:
#                                       about 3 minutes on 2 cores, 1.6 GB of Go cache in DIR)
# Needs golang-go (Go 1.19 builds it, in GOPATH mode as Kubernetes 1.20's own build did, with one
# vendored module replaced: below), golang-github-modern-go-reflect2-dev, curl and etcd-server:
# tools/deps.sh kube installs them. Each stage leaves a marker when it is complete, so an
# interrupted run starts that stage again; one run at a time holds DIR/.lock.
set -eu
VERSION=1.20.2
ORIG=kubernetes_1.20.5+really$VERSION.orig.tar.gz
SHA256=b83c0780efb182d928dc63d46488a847f161f04e40a94b96bf5247dd671ecdfc
URL=${GPUPACK_DEBIAN_MIRROR:-http://deb.debian.org/debian}/pool/main/k/kubernetes/$ORIG
DIR=${1:-${GPUPACK_K8S_DIR:-${HOME:-/tmp}/.cache/gpupack/kubernetes-$VERSION}}

if [ -x "$DIR/kube-apiserver" ] && [ -x "$DIR/kube-scheduler" ]; then
    echo "$DIR"
    exit 0
fi
REFLECT2=/usr/share/gocode/src/github.com/modern-go/reflect2
command -v go >/dev/null ||
    { echo "kube-control-plane: no Go toolchain (tools/deps.sh kube)" >&2; exit 1; }
[ -f "$REFLECT2/go_above_118.go" ] ||
    { echo "kube-control-plane: no $REFLECT2 (tools/deps.sh kube)" >&2; exit 1; }
mkdir -p "$DIR"
exec 9> "$DIR/.lock"
flock 9
if [ -x "$DIR/kube-apiserver" ] && [ -x "$DIR/kube-scheduler" ]; then
    echo "$DIR" # built by the run that held the lock before this one
    exit 0
fi
if ! echo "$SHA256  $DIR/$ORIG" | sha256sum -c --status 2>/dev/null; then
    echo "kube-control-plane: fetching $URL" >&2
    curl -sSfL -o "$DIR/$ORIG.part" "$URL"
    echo "$SHA256  $DIR/$ORIG.part" | sha256sum -c --status ||
        { echo "kube-control-plane: $ORIG: sha256 mismatch" >&2; rm -f "$DIR/$ORIG.part"; exit 1; }
    mv "$DIR/$ORIG.part" "$DIR/$ORIG"
fi
SRC=$DIR/gopath/src/k8s.io/kubernetes
VERSION_VAR=k8s.io/kubernetes/vendor/k8s.io/component-base/version.gitVersion
if [ ! -f "$DIR/gopath/.prepared" ]; then
    rm -rf "$DIR/gopath"
    mkdir -p "$DIR/gopath/src/k8s.io"
    tar xzf "$DIR/$ORIG" -C "$DIR/gopath/src/k8s.io"
    mv "$DIR/gopath/src/k8s.io/kubernetes-$VERSION" "$SRC"
    # Its vendored modern-go/reflect2 v1.0.1 iterates maps through runtime internals that changed
    # in Go 1.18: kube-apiserver built with Go 1.19 dies on "unexpected fault address" in
    # mapiternext within a minute. v1.0.2 (Debian's golang-github-modern-go-reflect2-dev) is the
    # fix upstream took.
    rm -rf "$SRC/vendor/github.com/modern-go/reflect2"
    mkdir -p "$SRC/vendor/github.com/modern-go/reflect2"
    cp "$REFLECT2"/*.go "$SRC/vendor/github.com/modern-go/reflect2/"
    rm -f "$SRC/vendor/github.com/modern-go/reflect2/"*_test.go
    touch "$DIR/gopath/.prepared"
fi
export GO111MODULE=off GOPATH="$DIR/gopath" GOCACHE="$DIR/gocache" CGO_ENABLED=0
# The vendor tree's k8s.io/* links point into staging/: GOPATH mode, as hack/ built it then.
# kube-apiserver needs the OpenAPI definitions `make generated_files` wrote (not in the tarball):
# openapi-gen over every package tagged +k8s:openapi-gen, as build/root/Makefile.generated_files
# chose them (staging/ read as vendor/, code-generator and sample-apiserver left out).
OPENAPI=$SRC/pkg/generated/openapi/zz_generated.openapi.go
if [ ! -f "$DIR/gopath/.openapi" ]; then
    echo "kube-control-plane: generating $OPENAPI" >&2
    (cd "$SRC" && go build -o "$DIR/openapi-gen" ./vendor/k8s.io/kube-openapi/cmd/openapi-gen)
    dirs=$(cd "$SRC" && find -H . \( -path './_*' -o -path './.*' -o -path ./vendor \) -prune \
        -o -type f -name '*.go' -print | xargs grep -l '^// *+k8s:' |
        xargs grep -l '+k8s:openapi-gen=' | sed 's|^./staging/src|vendor|; s|^./||' |
        grep -v '^vendor/k8s.io/code-generator/\|^vendor/k8s.io/sample-apiserver/' |
        xargs -n1 dirname | LC_ALL=C sort -u | sed 's|^|k8s.io/kubernetes/|' | paste -sd,)
    (cd "$SRC" && "$DIR/openapi-gen" --logtostderr -i "$dirs" \
        -p k8s.io/kubernetes/pkg/generated/openapi -O zz_generated.openapi \
        -h vendor/k8s.io/code-generator/hack/boilerplate.go.txt \
        -r "$DIR/openapi-violations.report")
    touch "$DIR/gopath/.openapi"
fi
for cmd in kube-scheduler kube-apiserver; do
    [ -x "$DIR/$cmd" ] && continue
    echo "kube-control-plane: building $cmd v$VERSION" >&2
    (cd "$SRC" && go build -o "$DIR/$cmd.part" \
        -ldflags "-X $VERSION_VAR=v$VERSION" "./cmd/$cmd")
    mv "$DIR/$cmd.part" "$DIR/$cmd"
done
echo "$DIR"
