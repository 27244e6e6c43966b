#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The container image's Dockerfile against the real binaries (tests/e2e/image_check.py).
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
python3 "$ROOT/tests/e2e/image_check.py" "$ROOT" "$BIN"
