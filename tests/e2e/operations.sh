#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Certificate rotation and SIGTERM under load (tests/e2e/operations.py).
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
command -v h2load >/dev/null || { fail operations.h2load "h2load is not installed (tools/deps.sh test)"; exit 1; }
timeout 180 python3 "$ROOT/tests/e2e/operations.py" "$BIN" "$E2E_TMP" "$ROOT"
