#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Stalled TLS handshakes cost no CPU (tests/e2e/tls-stall.py).
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
make_certs "$E2E_TMP/certs" || { fail tls-stall.certs; exit 1; }
timeout 120 python3 "$ROOT/tests/e2e/tls-stall.py" "$BIN" "$E2E_TMP/certs" "$E2E_TMP" "$ROOT"
