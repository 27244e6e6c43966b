#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The documentation speaks of the product only: no sentence about how its work was organised
# ("issue 4", "the issue", "where the issue was silent", "in the issue's order"). A mention of a
# real upstream issue stays allowed when it says whose it is (a github.com/.../issues/ link, or
# the word "upstream" on the line).
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
T=$E2E_TMP
PATTERN='\bissues? #?[0-9]+|\b(the|this|that|an|our) issue\b|\bissue'"'"'s\b'
# offending FILE...: the lines of FILE that speak of an issue of the project's own.
offending() {
    grep -nHiE "$PATTERN" "$@" 2>/dev/null | grep -viE 'github\.com/[^ ]*/issues/|upstream'
}
# The checker itself: it flags these and lets the others through.
cat > "$T/bad.md" <<'MD'
The manifests arrive with issue 4.
## Choices made where the issue was silent
They count in the issue's order.
See issue #12 for details.
MD
cat > "$T/good.md" <<'MD'
cert-manager's CA Issuer issues the serving certificate.
dcgm-exporter's upstream issue #216 (https://github.com/NVIDIA/dcgm-exporter/issues/216).
## Design choices
MD
check docs-wording.checker-flags-each-bad-line test "$(offending "$T/bad.md" | wc -l)" -eq 4
check docs-wording.checker-passes-good-lines test -z "$(offending "$T/good.md")"

# README.md, docs/, manifests/ and tools/ (what a user reads), and every other Markdown file.
files=$(cd "$ROOT" && { find docs manifests tools -type f; find . -name '*.md' -type f \
    -not -path '*/node_modules/*' -not -path './.git/*' | sed 's|^\./||'; } | sort -u)
found=$(cd "$ROOT" && offending $files)
if [ -z "$found" ]; then pass docs-wording.product-only
else fail docs-wording.product-only "$(printf '%s\n' "$found" | head -n 10 | tr '\n' ' ')"; fi
exit 0
