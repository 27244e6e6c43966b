#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# gpupack-sim's replay picture (sim/plot.c) in a real browser, checked as a person would see it.
# build/tests/test_sim_plot --write renders a realistic week of three scorers as an SVG file and
# as an HTML page (and a page with markup in its names, and twelve lines in hours); for each,
# check_plot checks that it is well-formed XML and names no URL, that headless Chromium loads it
# without a console message or a parse error, that every line lies inside its panel's frame and
# the legend's text is visible (the DOM's own measurements: tests/e2e/plotcheck.js inlined into
# a copy), and that the screenshot shows every line's colour. Broken copies (a line out of its
# frame, a line fewer, lines zero pixels wide) prove the checker fails.
# Another plot (e.g. `gpupack-sim --replay ... --plot x.html`) is one more line:
#   check_plot NAME FILE SERIES [yes|no|any (a curve panel)] [legend names...]
# (tests/e2e/plotlib.sh; tests/e2e/sim-replay.sh does so).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/plotlib.sh"
PLOT="$BUILD/tests/test_sim_plot"
[ -x "$PLOT" ] || { fail sim-plot.built "$PLOT is missing"; exit 0; }
# tools/deps.sh installs chromium and python3-pil for the tests: missing ones are failures.
plot_tools sim-plot || exit 0

S="$E2E_TMP/samples"
mkdir -p "$S"
judge sim-plot.write $VG "$PLOT" --write "$S"
# A week at 300 s steps stays small (the lines are thinned to the pixels that show them).
judge sim-plot.sizes sh -c "test \$(wc -c < '$S/sample.svg') -lt 200000 \
    && test \$(wc -c < '$S/sample.html') -lt 200000"
check_plot sim-plot.svg "$S/sample.svg" 3 yes kube-default fgd gpupack
check_plot sim-plot.html "$S/sample.html" 3 yes kube-default fgd gpupack
check_plot sim-plot.hostile "$S/hostile.html" 3 no 'a<b&"c'"'"'>' \
    '</svg><script>alert(1)</script>' gpupack
check_plot sim-plot.many "$S/many.svg" 12 no kube-default kube-mostallocated kube-binpack gpupack \
    fgd bestfit dotprod gpupacking random extender gpupack-learned fgd-learned
check sim-plot.hostile-no-markup sh -c "! grep -qi '<script' '$E2E_TMP/sim-plot.hostile.dom' \
    && grep -q '&lt;/svg&gt;&lt;script&gt;alert(1)&lt;/script&gt;' '$E2E_TMP/sim-plot.hostile.dom'"

# The checker can fail: a line moved out of its frame, a plot with one line fewer than asked
# for, lines zero pixels wide (each must fail for that reason, not for a missing file).
# rejects DUMP WHY ARGS...: the dom check of DUMP fails and says WHY.
rejects() {
    d=$1; why=$2; shift 2
    grep -q data-plotcheck "$d" || return 1
    ! pc dom "$d" "$@" 2> "$E2E_TMP/rejects.err" \
        && grep -q "$why" "$E2E_TMP/rejects.err"
}
sed '0,/points="72.0,/s//points="5.0,/' "$S/sample.svg" > "$E2E_TMP/moved.svg"
pc instrument "$E2E_TMP/moved.svg" "$E2E_TMP/moved.check.svg"
chrome_headless dom "$E2E_TMP/moved.check.svg" "$E2E_TMP/moved.dom" "$WIN_W,$WIN_H"
judge sim-plot.catches-line-outside-frame \
    rejects "$E2E_TMP/moved.dom" "outside the frame" 3 --curve yes
judge sim-plot.catches-missing-line \
    rejects "$E2E_TMP/sim-plot.svg.check.dom" "lines, want 4" 4 --curve yes
# Lines drawn zero pixels wide: the DOM check and the screenshot's colours both notice.
sed 's/stroke-width="2"/stroke-width="0"/g' "$S/sample.svg" > "$E2E_TMP/thin.svg"
pc instrument "$E2E_TMP/thin.svg" "$E2E_TMP/thin.check.svg"
chrome_headless dom "$E2E_TMP/thin.check.svg" "$E2E_TMP/thin.dom" "$WIN_W,$WIN_H"
judge sim-plot.catches-invisible-lines rejects "$E2E_TMP/thin.dom" "not shown" 3 --curve yes
chrome_headless shot "$E2E_TMP/thin.svg" "$E2E_TMP/thin.png" "$WIN_W,$WIN_H"
colourless() {
    ! pc png "$E2E_TMP/thin.png" "$E2E_TMP/thin.svg" $WIN_W $WIN_H 2> "$E2E_TMP/thin.err" \
        && grep -q ' pixels' "$E2E_TMP/thin.err"
}
judge sim-plot.catches-colourless-screenshot colourless
