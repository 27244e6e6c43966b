#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks a gpupack-sim plot (sim/plot.c: an SVG document or an HTML page with it inline) the
way a person would see it; tests/e2e/sim-plot.sh drives it. Each command exits 0 when the check
holds, 1 with the reason on stderr when it does not.

  plotcheck.py xml FILE                  well-formed XML: an <svg> root in the SVG namespace, or
                                         an <html> page holding exactly one <svg>
  plotcheck.py instrument FILE COPY      COPY = FILE with plotcheck.js inlined at its end
  plotcheck.py dom DUMP N [--curve yes|no|any] [--names NAME...]
                                         judges what plotcheck.js measured in Chromium's DOM dump
                                         of the instrumented copy: N lines in each time panel,
                                         every line inside its panel's frame, the legend visible
  plotcheck.py png PNG FILE WIDTH HEIGHT the screenshot of FILE is not blank and shows every
                                         line's colour
"""
import html
import json
import re
import sys
import xml.parsers.expat

SVG_NS = "http://www.w3.org/2000/svg"
HERE = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."
EDGE = 0.51  # a line may touch its frame: coordinates are printed to 0.1 px


def fail(msg):
    print(msg, file=sys.stderr)
    sys.exit(1)


def cmd_xml(path):
    tags = []
    p = xml.parsers.expat.ParserCreate(namespace_separator=" ")
    p.StartElementHandler = lambda name, attrs: tags.append(name)
    try:
        with open(path, "rb") as f:
            p.ParseFile(f)
    except xml.parsers.expat.ExpatError as e:
        fail(f"{path}: not well-formed: {e}")
    if path.endswith(".svg"):
        if tags[0] != SVG_NS + " svg":
            fail(f"{path}: the root is {tags[0]!r}, not svg in the SVG namespace")
    elif tags[0] != "html" or sum(t.endswith("svg") for t in tags) != 1:
        fail(f"{path}: root {tags[0]!r}, {sum(t.endswith('svg') for t in tags)} svg elements")


def cmd_instrument(src, dst):
    with open(HERE + "/plotcheck.js", encoding="utf-8") as f:
        js = f.read()
    with open(src, encoding="utf-8") as f:
        doc = f.read()
    end = "</body>" if src.endswith(".html") else "</svg>"
    at = doc.rfind(end)
    if at < 0:
        fail(f"{src}: no {end}")
    script = "<script>//<![CDATA[\n" + js + "\n//]]></script>\n"
    with open(dst, "w", encoding="utf-8") as f:
        f.write(doc[:at] + script + doc[at:])


def inside(b, frame):
    x, y, w, h = b
    fx, fy, fw, fh = frame
    return x >= fx - EDGE and y >= fy - EDGE and x + w <= fx + fw + EDGE and y + h <= fy + fh + EDGE


def check_lines(p, n, want_titles, problems):
    """Every line of panel p is shown, has points, lies in the frame and spans most of it."""
    frame = p["frame"]
    if frame is None or frame[2] < 100 or frame[3] < 100:
        problems.append(f"{p['id']}: frame {frame}")
        return
    titles = [l["title"] for l in p["lines"]]
    if p["id"] != "panel-curve" and titles != want_titles:
        problems.append(f"{p['id']}: lines {titles}, legend {want_titles}")
    for l in p["lines"]:
        where = f"{p['id']} {l['title']!r}"
        if not inside(l["bbox"], frame):
            problems.append(f"{where}: bbox {l['bbox']} outside the frame {frame}")
        if l["points"] < 2 or l["bbox"][2] < 0.5 * frame[2]:
            problems.append(f"{where}: {l['points']} points over {l['bbox'][2]:.0f} px")
        invisible = l["stroke"] in ("none", "rgb(255, 255, 255)") or l["width"] in ("0px", "")
        if not l["shown"] or invisible:
            problems.append(f"{where}: not shown (stroke {l['stroke']}, width {l['width']})")
    strokes = [(l["stroke"], l["cls"].split()[-1] if l["cls"] else "") for l in p["lines"]]
    if len({s for s, _ in strokes[:6]}) != min(len(strokes), 6):
        problems.append(f"{p['id']}: the first lines share colours: {strokes[:6]}")


def overlap(a, b):
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


def check_legend(m, n, names, problems):
    leg = m["legend"]
    vw, vh = m["viewport"]
    if len(leg) != n:
        problems.append(f"legend: {len(leg)} entries, want {n}")
    for i, e in enumerate(leg):
        x, y, w, h = e["rect"]
        if not e["shown"] or w <= 0 or h <= 0 or x < 0 or y < 0 or x + w > vw or y + h > vh:
            problems.append(f"legend {e['text']!r}: not visible at {e['rect']} in {vw}x{vh}")
        if e["fill"] in ("none", "rgb(255, 255, 255)") or not e["text"].strip():
            problems.append(f"legend {e['text']!r}: fill {e['fill']}")
        if names and (i >= len(names) or e["title"] != names[i]):
            want = names[i] if i < len(names) else None
            problems.append(f"legend {i}: {e['title']!r}, want {want!r}")
        for o in leg[:i]:
            if overlap(e["rect"], o["rect"]):
                problems.append(f"legend {e['text']!r} overlaps {o['text']!r}")


def cmd_dom(dump, n, curve, names):
    with open(dump, encoding="utf-8", errors="replace") as f:
        text = f.read()
    found = re.search(r'data-plotcheck="([^"]*)"', text)
    if not found:
        fail(f"{dump}: no data-plotcheck (the check script did not run)")
    m = json.loads(html.unescape(found.group(1)))
    problems = list(m["errors"])
    if m["parsererror"] or m["svgs"] != 1 or m["scripts"] != 1:
        problems.append(f"parse errors {m['parsererror']}, {m['svgs']} svg, {m['scripts']} scripts")
    panels = {p["id"]: p for p in m["panels"]}
    want = ["panel-nodes", "panel-gpus"] + (["panel-curve"] if curve == "yes" else [])
    if [p["id"] for p in m["panels"]][: len(want)] != want or (curve == "no" and len(panels) != 2):
        problems.append(f"panels {[p['id'] for p in m['panels']]}, want {want}")
    titles = [e["title"] for e in m["legend"]]
    for p in m["panels"]:
        count = len(p["lines"])
        if count != n and not (p["id"] == "panel-curve" and curve == "any" and 0 < count <= n):
            problems.append(f"{p['id']}: {count} lines, want {n}")
        check_lines(p, n, titles, problems)
    check_legend(m, n, names, problems)
    if problems:
        fail("; ".join(problems[:8]))


def cmd_png(png, src, width, height):
    from PIL import Image

    with open(src, encoding="utf-8") as f:
        strokes = set(re.findall(r'<polyline [^>]*stroke="(#[0-9A-Fa-f]{6})"', f.read()))
    im = Image.open(png).convert("RGB")
    counts = {c: k for k, c in im.getcolors(maxcolors=1 << 24)}
    nonwhite = sum(k for c, k in counts.items() if c != (255, 255, 255))
    problems = []
    if im.size != (width, height):
        problems.append(f"size {im.size}")
    if len(counts) < 30 or nonwhite < 0.005 * width * height:
        problems.append(f"blank: {len(counts)} colours, {nonwhite} non-white pixels")
    if not strokes:
        problems.append("no line colours in the file")
    for s in sorted(strokes):
        rgb = tuple(int(s[i : i + 2], 16) for i in (1, 3, 5))
        if counts.get(rgb, 0) < 150:
            problems.append(f"{s}: {counts.get(rgb, 0)} pixels")
    if problems:
        fail(f"{png}: " + "; ".join(problems))


def main(argv):
    if len(argv) == 3 and argv[1] == "xml":
        return cmd_xml(argv[2])
    if len(argv) == 4 and argv[1] == "instrument":
        return cmd_instrument(argv[2], argv[3])
    if len(argv) >= 4 and argv[1] == "dom":
        curve, names, rest = "any", [], argv[4:]
        while rest:
            if rest[0] == "--curve" and len(rest) > 1 and rest[1] in ("yes", "no", "any"):
                curve, rest = rest[1], rest[2:]
            elif rest[0] == "--names":
                names, rest = rest[1:], []
            else:
                fail(f"dom: unknown argument {rest[0]!r}")
        return cmd_dom(argv[2], int(argv[3]), curve, names)
    if len(argv) == 6 and argv[1] == "png":
        return cmd_png(argv[2], argv[3], int(argv[4]), int(argv[5]))
    fail(__doc__)


if __name__ == "__main__":
    main(sys.argv)
