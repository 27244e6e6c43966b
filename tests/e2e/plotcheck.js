// SPDX-License-Identifier: Apache-2.0
// Inlined by tests/e2e/plotcheck.py into a copy of a gpupack-sim plot (SVG or HTML), run by
// headless Chromium at the end of the document: measures what the browser laid out (each
// panel's frame, each line's bounding box, the legend's text) and leaves it as JSON in the root
// element's data-plotcheck attribute, which --dump-dom prints. It judges nothing itself.
(function () {
    var NS = "http://www.w3.org/2000/svg";
    var out = { errors: [], svgs: 0, scripts: 0, panels: [], legend: [], viewport: [] };
    function box(b) { return [b.x, b.y, b.width, b.height]; }
    function shown(el) {
        var cs = getComputedStyle(el);
        return cs.display !== "none" && cs.visibility === "visible" && Number(cs.opacity) > 0;
    }
    function titleOf(el) {
        for (var c = el.firstElementChild; c; c = c.nextElementSibling)
            if (c.localName === "title") return c.textContent;
        return null;
    }
    function panel(p) {
        var frame = p.querySelector("rect.frame"), lines = p.querySelectorAll("polyline");
        var r = { id: p.id, frame: frame ? box(frame.getBBox()) : null, lines: [] };
        for (var i = 0; i < lines.length; i++) {
            var l = lines[i], cs = getComputedStyle(l);
            r.lines.push({ cls: l.getAttribute("class"), title: titleOf(l), bbox: box(l.getBBox()),
                           points: l.points.numberOfItems, stroke: cs.stroke, width: cs.strokeWidth,
                           shown: shown(l) });
        }
        return r;
    }
    function legendEntry(t) {
        var r = t.getBoundingClientRect(), cs = getComputedStyle(t);
        return { text: t.textContent, title: titleOf(t.parentNode),
                 rect: [r.left, r.top, r.width, r.height], fill: cs.fill, shown: shown(t) };
    }
    try {
        var svgs = document.getElementsByTagNameNS(NS, "svg");
        out.svgs = svgs.length;
        out.scripts = document.getElementsByTagName("script").length;
        out.viewport = [window.innerWidth, window.innerHeight];
        out.parsererror = document.getElementsByTagName("parsererror").length;
        if (svgs.length > 0) {
            var panels = svgs[0].querySelectorAll("g.panel");
            for (var i = 0; i < panels.length; i++) out.panels.push(panel(panels[i]));
            var names = svgs[0].querySelectorAll(".legend-name");
            for (var j = 0; j < names.length; j++) out.legend.push(legendEntry(names[j]));
        }
    } catch (e) {
        out.errors.push(String(e));
    }
    document.documentElement.setAttribute("data-plotcheck", JSON.stringify(out));
})();
