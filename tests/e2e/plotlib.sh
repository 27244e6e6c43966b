# SPDX-License-Identifier: Apache-2.0
# The plot checker (sourced after lib.sh) of tests/e2e/sim-plot.sh and tests/e2e/sim-replay.sh: a
# gpupack-sim plot (sim/plot.c, .svg or .html) checked as a person would see it, in headless
# Chromium (tests/e2e/plotcheck.py says what each step checks). Call plot_tools first.
PLOTLIB_DIR=$(cd "$(dirname "$0")" && pwd)
WIN_W=1280; WIN_H=1400

# plot_tools PREFIX: Chromium and python3-pil, which tools/deps.sh installs for the tests; a
# missing one is a failure (PREFIX.chromium, PREFIX.pil) and the return status 1. Sets CHROME, PY.
plot_tools() {
    CHROME=$(command -v chromium || command -v chromium-browser || true)
    [ -n "$CHROME" ] || { fail "$1.chromium" "chromium is missing (tools/deps.sh test)"; return 1; }
    PY=python3
    $PY -c 'import PIL' 2>/dev/null || PY=/usr/bin/python3
    $PY -c 'import PIL' 2>/dev/null \
        || { fail "$1.pil" "python3-pil is missing (tools/deps.sh test)"; return 1; }
}

# pc COMMAND ARGS...: the checker (tests/e2e/plotcheck.py).
pc() { $PY "$PLOTLIB_DIR/plotcheck.py" "$@"; }

# judge NAME COMMAND...: PASS when the command succeeds, else FAIL with its complaint.
judge() {
    n=$1; shift
    if "$@" > "$E2E_TMP/judge.err" 2>&1; then
        pass "$n"
    else
        fail "$n" "$(tail -c 400 "$E2E_TMP/judge.err" | tr '\n' ' ')"
    fi
}

# The file without the SVG namespace name (an identifier, not a resource), for no_urls.
self_contained() {
    sed 's# xmlns="http://www.w3.org/2000/svg"##' "$1" > "$E2E_TMP/nons"
    no_urls "$E2E_TMP/nons"
}

# quiet LOG DOM: Chromium printed no console message for the page and built no parse error.
quiet() {
    ! grep -q 'CONSOLE' "$1" && [ -s "$2" ] && ! grep -q '<parsererror' "$2"
}

# check_plot NAME FILE SERIES [CURVE [NAMES...]]: every check of one plot file (.svg or .html)
# with SERIES lines per time panel; CURVE yes, no or any (default) for the curve panel; NAMES:
# the legend's names in order, in full.
check_plot() {
    cp_name=$1; cp_file=$2; cp_series=$3; cp_curve=${4:-any}
    shift 3; [ $# -gt 0 ] && shift
    [ $# -gt 0 ] && set -- --names "$@"
    cp_out="$E2E_TMP/$cp_name"
    judge "$cp_name.well-formed" pc xml "$cp_file"
    judge "$cp_name.self-contained" self_contained "$cp_file"
    chrome_headless dom "$cp_file" "$cp_out.dom" "$WIN_W,$WIN_H"
    judge "$cp_name.no-console-errors" quiet "$cp_out.dom.log" "$cp_out.dom"
    case "$cp_file" in *.svg) cp_copy="$cp_out.check.svg" ;; *) cp_copy="$cp_out.check.html" ;; esac
    pc instrument "$cp_file" "$cp_copy"
    chrome_headless dom "$cp_copy" "$cp_out.check.dom" "$WIN_W,$WIN_H"
    judge "$cp_name.lines-in-frames-legend-visible" \
        pc dom "$cp_out.check.dom" "$cp_series" --curve "$cp_curve" "$@"
    chrome_headless shot "$cp_file" "$cp_out.png" "$WIN_W,$WIN_H"
    judge "$cp_name.screenshot" pc png "$cp_out.png" "$cp_file" $WIN_W $WIN_H
}
