#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# --request-timeout from a request's first byte: dribbled handshakes, headers and stalled bodies
# are cut, idle keep-alive connections are not (tests/e2e/deadlines.py).
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
make_certs "$E2E_TMP/certs" || { fail deadlines.certs; exit 1; }
timeout 200 python3 "$ROOT/tests/e2e/deadlines.py" "$BIN" "$E2E_TMP/certs" "$E2E_TMP" "$ROOT"
