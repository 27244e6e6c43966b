#!/bin/sh
# The repository carries everything its tests and tools read: the copy of the Alibaba trace in
# data/alibaba-gpu-v2023/ is byte for byte the published one (SHA256SUMS, and the same sums in its
# README).
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

