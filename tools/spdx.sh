#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The licence line atop every source file of the project (LICENSE: Apache-2.0).
#   tools/spdx.sh --check   lists the tracked source files without it; exit 1 when any
#   tools/spdx.sh --add     adds it where missing: after a shebang, else as the first line
# Source files: C, shell, Python, JavaScript, Go, Lua, jq, YAML, the Makefile, the Dockerfile and
# .ci/run. Data (JSON, CSV, the trace) and prose (Markdown) carry none: the vendored data under
# data/ and tests/fixtures/ keeps its own terms (their READMEs).
set -eu
cd "$(dirname "$0")/.."
LINE="SPDX-License-Identifier: Apache-2.0"

files() {
    git ls-files -- '*.c' '*.h' '*.sh' '*.py' '*.mjs' '*.go' '*.lua' '*.jq' '*.yaml' \
        Makefile Dockerfile .ci/run
}
comment() { # FILE: the line as that language comments it
    case $1 in
        *.c|*.h) echo "/* $LINE */" ;;
        *.mjs|*.go) echo "// $LINE" ;;
        *.lua) echo "-- $LINE" ;;
        *) echo "# $LINE" ;;
    esac
}
has() { head -n 3 "$1" | grep -q "$LINE"; }

case ${1:-} in
    --check)
        missing=$(files | while read -r f; do has "$f" || echo "$f"; done)
        [ -z "$missing" ] && exit 0
        echo "no '$LINE' in the first lines of:"; echo "$missing"; exit 1 ;;
    --add)
        files | while read -r f; do
            has "$f" && continue
            c=$(comment "$f")
            if head -n 1 "$f" | grep -q '^#!'; then
                { head -n 1 "$f"; echo "$c"; tail -n +2 "$f"; } > "$f.spdx"
            else
                { echo "$c"; cat "$f"; } > "$f.spdx"
            fi
            cat "$f.spdx" > "$f" && rm -f "$f.spdx"
        done ;;
    *) echo "usage: tools/spdx.sh --check|--add" >&2; exit 2 ;;
esac
