#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Bad input against both running daemons (tests/e2e/badinput.py).
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
make_certs "$E2E_TMP/certs" || { fail badinput.certs; exit 1; }
timeout 300 python3 "$ROOT/tests/e2e/badinput.py" "$BIN" "$E2E_TMP/certs" "$E2E_TMP" "$ROOT"
