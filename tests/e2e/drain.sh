#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Shutdown without lost requests: Connection: close while draining, in-flight requests answered
# (tests/e2e/drain.py).
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
make_certs "$E2E_TMP/certs" || { fail drain.certs; exit 1; }
timeout 120 python3 "$ROOT/tests/e2e/drain.py" "$BIN" "$E2E_TMP/certs" "$E2E_TMP" "$ROOT"
