#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The repository carries everything its tests and tools read: the copy of the Alibaba trace in
# data/alibaba-gpu-v2023/ is byte for byte the published one (SHA256SUMS, and the same sums in its
# README), and no tracked file refers to a folder beside the checkout, which a clone does not have.
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DATA="$ROOT/data/alibaba-gpu-v2023"

# Each vendored trace file against SHA256SUMS.
while read -r sum file; do
    check "vendored.sha256-$file" sh -c "cd '$DATA' && [ \"\$(sha256sum < '$file' | cut -d' ' -f1)\" = '$sum' ]"
done < "$DATA/SHA256SUMS"
check vendored.sha256-lists-both-files [ "$(wc -l < "$DATA/SHA256SUMS")" -eq 2 ]
# The README's table gives the same sums.
bad=""
while read -r sum file; do
    grep -q "^| \`$file\` |.*| \`$sum\` |$" "$DATA/README.md" || bad="$bad $file"
done < "$DATA/SHA256SUMS"
if [ -z "$bad" ]; then pass vendored.readme-lists-sha256; else fail vendored.readme-lists-sha256 "$bad"; fi

# No reference to the sibling folder the project once read its data from. The pattern is built so
# that this file does not match it.
pat='\.\.''/shared'
if git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1; then
    git -C "$ROOT" grep -n -e "$pat" > "$E2E_TMP/refs" 2>/dev/null
else
    grep -rn --exclude-dir=.git --exclude-dir=build --exclude-dir=build-asan --exclude-dir=build-fuzz \
        --exclude-dir=bin --exclude-dir=node_modules -e "$pat" "$ROOT" > "$E2E_TMP/refs" 2>/dev/null
fi
if [ -s "$E2E_TMP/refs" ]; then
    fail vendored.no-path-outside-the-repository "$(head -n 3 "$E2E_TMP/refs" | tr '\n' ' ')"
else
    pass vendored.no-path-outside-the-repository
fi
