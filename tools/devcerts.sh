#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Development certificates for `make run`: usage tools/devcerts.sh BIN/gpupack-certs OUTDIR
#
# Makes a CA and a serving certificate for gpupack-webhook.gpupack-system (plus localhost,
# 127.0.0.1 and ::1) in OUTDIR, unless OUTDIR already holds a pair that `gpupack-certs --check`
# finds usable (key matches, verifies against OUTDIR/ca.crt) for at least another full day.
set -eu
if [ $# -ne 2 ]; then
    echo "usage: tools/devcerts.sh BIN/gpupack-certs OUTDIR" >&2
    exit 2
fi
certs=$1
out=$2
if [ ! -x "$certs" ]; then
    echo "devcerts: $certs is not an executable (run make first)" >&2
    exit 2
fi

# still_good: exit 0 when the existing pair is usable and has at least a day left.
still_good() {
    [ -f "$out/tls.crt" ] && [ -f "$out/tls.key" ] && [ -f "$out/ca.crt" ] || return 1
    report=$("$certs" --check "$out/tls.crt" --key "$out/tls.key" --ca "$out/ca.crt" \
        --log-level error) || return 1
    days=$(printf '%s\n' "$report" | sed -n 's/^days left: *\(-\{0,1\}[0-9][0-9]*\)$/\1/p')
    [ -n "$days" ] && [ "$days" -ge 1 ]
}

if still_good; then
    echo "devcerts: $out/tls.crt is valid for $days more days; keeping it"
else
    # --force: whatever is there is missing, expired, mismatched or about to expire.
    "$certs" --service gpupack-webhook --namespace gpupack-system --out "$out" \
        --ip 127.0.0.1 --ip ::1 --dns localhost --force --log-level warn > /dev/null
    echo "devcerts: made development certificates in $out"
fi
echo "devcerts: CA $out/ca.crt, serving pair $out/tls.crt + $out/tls.key"
