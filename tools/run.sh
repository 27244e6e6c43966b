#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# `make run`: both daemons on loopback with the embedded default policy until Ctrl-C.
# The extender has no cluster view here unless KUBERNETES_SERVICE_HOST is set; it scores the full
# Node objects kube-scheduler sends (nodeCacheCapable: false) or, with --snapshot-*, files.
# WEBHOOK_FLAGS and EXTENDER_FLAGS (make variables too) are added to each daemon's command line,
# e.g. WEBHOOK_FLAGS="--snapshot-nodes tests/examples/nodes.json" for a node view.
set -u
WEBHOOK_FLAGS=${WEBHOOK_FLAGS:-}
EXTENDER_FLAGS=${EXTENDER_FLAGS:-}
BIN=$1
CERTS=$2
# shellcheck disable=SC2086 # the flags are words on purpose
"$BIN/gpupack-extender" --listen 127.0.0.1:8888 --drain-seconds 0 $EXTENDER_FLAGS &
XPID=$!
# shellcheck disable=SC2086
"$BIN/gpupack-webhook" --listen 127.0.0.1:8443 --tls-cert "$CERTS/tls.crt" --tls-key "$CERTS/tls.key" \
    --drain-seconds 0 $WEBHOOK_FLAGS &
WPID=$!
# Ctrl-C, or a TERM or INT sent to this script alone (a supervisor, a test), stops both.
trap 'kill $XPID $WPID 2>/dev/null' INT TERM
wait $WPID
kill $XPID $WPID 2>/dev/null
wait $XPID 2>/dev/null
wait $WPID
