#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The licence: LICENSE is the Apache License 2.0, every source file says so in an SPDX line
# (tools/spdx.sh), and the README names both the licence and the vendored data's own terms.
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
check licence.file-is-apache-2.0 grep -q "Apache License" "$ROOT/LICENSE"
check licence.file-is-version-2.0 grep -q "Version 2.0, January 2004" "$ROOT/LICENSE"
if out=$(sh "$ROOT/tools/spdx.sh" --check 2>&1); then pass licence.spdx-line-in-every-source-file
else fail licence.spdx-line-in-every-source-file "$(echo "$out" | head -n 6 | tr '\n' ' ')"; fi
check licence.readme-names-it grep -q "Apache-2.0" "$ROOT/README.md"
check licence.readme-names-the-trace-terms grep -q "data/alibaba-gpu-v2023" "$ROOT/README.md"
# The checker itself notices a file without the line.
T=$E2E_TMP/repo
git clone -q "$ROOT" "$T" 2>/dev/null && printf 'int x;\n' > "$T/lib/zz_new.c" && git -C "$T" add lib/zz_new.c
if sh "$T/tools/spdx.sh" --check > "$E2E_TMP/spdx.out" 2>&1; then
    fail licence.check-catches-a-missing-line
else
    check licence.check-catches-a-missing-line grep -q "lib/zz_new.c" "$E2E_TMP/spdx.out"
fi
