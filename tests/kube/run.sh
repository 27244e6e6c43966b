#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# `make test-kube`: gpupack against a real control plane (tests/kube/realcluster.py): etcd,
# kube-apiserver and kube-scheduler v1.20 built once by tools/kube-control-plane.sh (about
# 3 minutes the first time; needs tools/deps.sh kube). Last line: "N passed, N failed". On a
# failure the processes' logs stay in the directory named last.
set -u
cd "$(dirname "$0")/../.."
BIN=${BIN:-bin}
LOG=$(mktemp -d "${TMPDIR:-/tmp}/gpupack-kube.XXXXXX")
. tests/summary.sh
if ! K8S=$(tools/kube-control-plane.sh); then
    echo "FAIL kube-real.control-plane (tools/kube-control-plane.sh)" | tee "$LOG/kube.out"
else
    # --foreground: Ctrl-C reaches the driver, which stops the control plane it started
    timeout --foreground 600 python3 tests/kube/realcluster.py --k8s "$K8S" --bin "$BIN" \
        --workdir "$LOG/work" > "$LOG/kube.out" 2>&1
    rc=$?
    cat "$LOG/kube.out"
    if [ $rc -ne 0 ] && ! grep -q '^FAIL ' "$LOG/kube.out"; then
        echo "FAIL kube-real (exit $rc)" | tee -a "$LOG/kube.out"
    fi
fi
if summarize "$LOG"; then
    rm -rf "$LOG"
else
    echo "logs: $LOG/work" >&2
    exit 1
fi
