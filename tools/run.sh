#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# `make run`: both daemons on loopback with the embedded default policy until Ctrl-C.
# The extender has no cluster view here unless KUBERNETES_SERVICE_HOST is set; it scores the full
# Node objects kube-scheduler sends (nodeCacheCapable: false) or, with --snapshot-*, files.
set -u
BIN=$1
CERTS=$2
"$BIN/gpupack-extender" --listen 127.0.0.1:8888 --drain-seconds 0 &
XPID=$!
trap 'kill $XPID 2>/dev/null; wait $XPID 2>/dev/null' EXIT INT TERM
"$BIN/gpupack-webhook" --listen 127.0.0.1:8443 --tls-cert "$CERTS/tls.crt" --tls-key "$CERTS/tls.key" \
    --drain-seconds 0
