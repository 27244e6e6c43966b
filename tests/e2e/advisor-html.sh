#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The advisor's HTML report in a real browser: build/tests/advdemo renders a fixed week of a
# cluster (and an empty report, and one with markup in its names); headless Chromium loads each
# page from a file, and the test checks the DOM it built (headline, top finding, five charts,
# escaped names), a screenshot that shows the charts, and that the page names no URL to fetch.
# The other formats of the same report are checked with python3's and jq's JSON parsers.
. "$(dirname "$0")/lib.sh"
DEMO="$VG $BUILD/tests/advdemo"
[ -x "$BUILD/tests/advdemo" ] || { fail advisor-html.built "$BUILD/tests/advdemo is missing"; exit 0; }
CHROME=$(command -v chromium || command -v chromium-browser || true)
# tools/deps.sh installs chromium and python3-pil for the tests: missing ones are failures.
[ -n "$CHROME" ] || { fail advisor-html.chromium "chromium is missing (tools/deps.sh test)"; exit 0; }
PY=python3
$PY -c 'import PIL' 2>/dev/null || PY=/usr/bin/python3
$PY -c 'import PIL' 2>/dev/null || { fail advisor-html.pil "python3-pil is missing (tools/deps.sh test)"; exit 0; }

# png_check FILE BARS: the screenshot is 1280x2000, not blank (many colours, enough non-white
# pixels) and shows the chart bars' solid colour (BARS=yes) or does not (BARS=no).
png_check() {
    $PY - "$1" "$2" <<'PY'
import sys
from PIL import Image
im = Image.open(sys.argv[1]).convert("RGB")
colours = im.getcolors(maxcolors=1 << 24)
counts = {c: n for n, c in colours}
nonwhite = sum(n for c, n in counts.items() if c != (255, 255, 255))
bar = counts.get((0x4c, 0x78, 0xa8), 0)
ok = im.size == (1280, 2000) and len(colours) >= 30 and nonwhite >= 0.005 * 1280 * 2000
ok = ok and ((bar > 2000) if sys.argv[2] == "yes" else (bar == 0))
print(im.size, len(colours), nonwhite, bar, file=sys.stderr)
sys.exit(0 if ok else 1)
PY
}

R="$E2E_TMP/report.html"; EMPTY="$E2E_TMP/empty.html"; HOSTILE="$E2E_TMP/hostile.html"
$DEMO html --top 8 > "$R" 2> "$E2E_TMP/demo.err"; rc1=$?
$DEMO html --empty > "$EMPTY" 2>> "$E2E_TMP/demo.err"; rc2=$?
$DEMO html --hostile > "$HOSTILE" 2>> "$E2E_TMP/demo.err"; rc3=$?
if [ $rc1 = 0 ] && [ $rc2 = 0 ] && [ $rc3 = 0 ] && [ -s "$R" ] && [ -s "$EMPTY" ]; then
    pass advisor-html.render
else
    fail advisor-html.render "advdemo exited $rc1 $rc2 $rc3: $(head -c 300 "$E2E_TMP/demo.err")"
fi
check advisor-html.self-contained no_urls "$R"
check advisor-html.empty-self-contained no_urls "$EMPTY"
check advisor-html.hostile-self-contained no_urls "$HOSTILE"

chrome_headless dom "$R" "$E2E_TMP/report.dom"
D="$E2E_TMP/report.dom"
check advisor-html.dom-loaded grep -q '</html>' "$D"
check advisor-html.dom-headline grep -q '<h1 id="headline">\$75,929.40/month recoverable</h1>' "$D"
check advisor-html.dom-top-finding sh -c "grep -A3 'id=\"finding-1\"' '$D' | grep -q 'statefulset/llm-eval'"
check advisor-html.dom-top-n sh -c "grep -q 'id=\"finding-8\"' '$D' && ! grep -q 'id=\"finding-9\"' '$D'"
check advisor-html.dom-svgs test "$(grep -o '<svg' "$D" | wc -l)" -eq 5
check advisor-html.dom-chart-titles sh -c "grep -q 'GPU cost by namespace' '$D' && grep -q 'GPU cost by model' '$D' \
    && grep -q 'Allocated GPU-hours by mean GPU activity' '$D' && grep -q 'Allocated and idle GPUs over time' '$D'"
check advisor-html.dom-axis-labels sh -c "grep -q '>GPU-hours</text>' '$D' && grep -q '>hour ending (UTC)</text>' '$D'"
check advisor-html.dom-notes grep -q 'without utilization data' "$D"

chrome_headless dom "$EMPTY" "$E2E_TMP/empty.dom"
check advisor-html.empty-dom sh -c "grep -q '\$0.00/month recoverable' '$E2E_TMP/empty.dom' \
    && grep -q 'id=\"no-findings\"' '$E2E_TMP/empty.dom' && test \$(grep -o '>no data<' '$E2E_TMP/empty.dom' | wc -l) -eq 5"

chrome_headless dom "$HOSTILE" "$E2E_TMP/hostile.dom"
H="$E2E_TMP/hostile.dom"
check advisor-html.hostile-escaped sh -c "grep -q 'statefulset/&lt;script&gt;alert' '$H' && grep -q '&lt;img src=x' '$H' \
    && ! grep -qi '<script' '$H' && ! grep -qi '<img' '$H'"
check advisor-html.dom-low-confidence sh -c "grep -A1 'id=\"finding-10\"' '$H' | grep -q 'class=\"low\">low confidence'"

chrome_headless shot "$R" "$E2E_TMP/report.png"
check advisor-html.screenshot png_check "$E2E_TMP/report.png" yes
chrome_headless shot "$EMPTY" "$E2E_TMP/empty.png"
check advisor-html.empty-screenshot png_check "$E2E_TMP/empty.png" no

# The same report as JSON (both parsers, the schema and the top finding) and as a table.
$DEMO json > "$E2E_TMP/report.json" 2>/dev/null
check advisor-html.json-python python3 -m json.tool "$E2E_TMP/report.json"
check advisor-html.json-jq sh -c "jq -e '.schema == \"gpupack.io/advisor-report/v1\" and (.findings | length) == 10
    and .findings[0].workload == \"statefulset/llm-eval\" and .findings[0].dollars == 3517.92
    and .findings[1].evidence.mean_activity == null and (.totals.utilization_histogram | length) == 10
    and (.totals.hourly.idle | length) == 168' '$E2E_TMP/report.json'"
$DEMO json --empty > "$E2E_TMP/empty.json" 2>/dev/null
check advisor-html.json-empty jq -e '.findings == [] and .totals.dollars == 0' "$E2E_TMP/empty.json"
$DEMO table > "$E2E_TMP/report.txt" 2>/dev/null
check advisor-html.table-width python3 -c '
import sys
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
sys.exit(0 if len(lines) > 20 and max(len(l) for l in lines) <= 100 else 1)' "$E2E_TMP/report.txt"
