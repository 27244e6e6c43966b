#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# The helper of tests/e2e/monitoring.sh: reads the rendered prometheus-operator overlay (as a JSON
# array of objects), writes the PrometheusRule's groups for promtool, checks the dashboard and the
# alerts' annotations, makes the backfill data (a "bad" and a "good" cluster at two times) and
# evaluates every expression on a real Prometheus. Prints "PASS name" / "FAIL name: why" lines.
#
#   monitoring.py extract OBJECTS.json RAW-DASHBOARD.json DOCS.md OUTDIR
#   monitoring.py data BAD_TIME GOOD_TIME > data.om
#   monitoring.py evaluate PROM_URL BAD_TIME GOOD_TIME OUTDIR
import json
import os
import re
import sys
import urllib.parse
import urllib.request

P = "monitoring."


def result(name, why=None):
    print(f"PASS {P}{name}" if why is None else f"FAIL {P}{name}: {why}")


# ---- extract ---------------------------------------------------------------------------------
def slug(heading):
    """GitHub's anchor for a Markdown heading."""
    s = heading.strip().lower()
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


# Grafana's variables, replaced the way Grafana would for a query over the last hours.
GRAFANA_VARS = [("$__rate_interval", "5m"), ("$__interval", "1m"), ("$__range", "1h"),
                ('"$namespace"', '".*"'), ("${namespace}", ".*"), ("$namespace", ".*")]


def grafana_expr(e):
    for k, v in GRAFANA_VARS:
        e = e.replace(k, v)
    return e


def extract(objs_file, raw_file, docs_file, out):
    objs = json.load(open(objs_file))
    rules = [o for o in objs if o.get("kind") == "PrometheusRule"]
    if len(rules) != 1:
        result("one-prometheusrule", f"{len(rules)} PrometheusRule objects")
        return
    result("one-prometheusrule")
    groups = rules[0]["spec"]["groups"]
    # JSON is YAML: promtool reads this file as a rules file.
    json.dump({"groups": groups}, open(os.path.join(out, "rules.json"), "w"), indent=1)

    # Alerts: labels and annotations a receiver and a runbook need.
    anchors = {slug(m.group(1)) for m in re.finditer(r"^#+ (.*)$", open(docs_file).read(), re.M)}
    alerts, bad = [], []
    want = {"GpupackWebhookFailingOpen", "GpupackCertificateExpiringSoon", "GpupackExtenderErrors",
            "GpupackExtenderViewStale", "GpupackAdvisorPrometheusUnreachable", "GpupackIdleGpuSpendHigh"}
    for g in groups:
        for r in g["rules"]:
            if "alert" not in r:
                bad.append(f"{g['name']}: a rule without alert (recording rules are not expected)")
                continue
            a = r["alert"]
            ann, lab = r.get("annotations", {}), r.get("labels", {})
            if lab.get("severity") not in ("info", "warning", "critical"):
                bad.append(f"{a}: severity {lab.get('severity')}")
            for k in ("summary", "description", "runbook_url"):
                if not ann.get(k):
                    bad.append(f"{a}: no {k}")
            url = ann.get("runbook_url", "")
            frag = url.split("#", 1)[1] if "#" in url else ""
            if not url.split("#")[0].endswith("docs/monitoring.md") or frag not in anchors:
                bad.append(f"{a}: runbook_url {url} is not a heading of docs/monitoring.md")
            if frag != a.lower():
                bad.append(f"{a}: runbook anchor {frag} is not #{a.lower()}")
            alerts.append({"alert": a, "severity": lab.get("severity"), "expr": r["expr"],
                           "annotations": ann})
    missing = want - {a["alert"] for a in alerts}
    if missing:
        bad.append(f"missing alerts {sorted(missing)}")
    result("alerts-annotated", "; ".join(bad) if bad else None)
    # docs/monitoring.md's threshold patch names the idle spend rule by its position.
    m = re.search(r"path: /spec/groups/(\d+)/rules/(\d+)/expr\n\s*value: (.*)", open(docs_file).read())
    try:
        r = groups[int(m.group(1))]["rules"][int(m.group(2))]
        why = None if r.get("alert") == "GpupackIdleGpuSpendHigh" and "finding=\"idle\"" in m.group(3) else f"names {r.get('alert')}"
    except (AttributeError, IndexError) as e:
        why = f"no such rule ({e})"
    result("docs-threshold-patch-path", why)
    json.dump(alerts, open(os.path.join(out, "alerts.json"), "w"), indent=1)

    # The dashboard: the ConfigMap for Grafana's sidecar holds the raw file, and it is a
    # dashboard whose every panel queries a Prometheus data source.
    bad = []
    cms = [o for o in objs if o.get("kind") == "ConfigMap"
           and o.get("metadata", {}).get("labels", {}).get("grafana_dashboard") == "1"]
    raw = open(raw_file).read()
    if len(cms) != 1:
        bad.append(f"{len(cms)} ConfigMaps labelled grafana_dashboard: \"1\"")
    elif list(cms[0]["data"].values()) != [raw]:
        bad.append("the ConfigMap does not hold dashboards/gpupack.json")
    result("dashboard-configmap", "; ".join(bad) if bad else None)
    try:
        d = json.loads(raw)
    except ValueError as e:
        result("dashboard-parses", str(e))
        return
    result("dashboard-parses")
    bad, exprs = [], []
    if not d.get("uid") or not d.get("title"):
        bad.append("no uid or title")
    names = {v["name"] for v in d.get("templating", {}).get("list", [])}
    if "datasource" not in names:
        bad.append("no datasource variable")
    ids = set()
    for p in d.get("panels", []):
        t = p.get("title", f"panel {p.get('id')}")
        if p.get("id") in ids:
            bad.append(f"{t}: duplicate id")
        ids.add(p.get("id"))
        ds = p.get("datasource") or {}
        if ds.get("type") != "prometheus" or not ds.get("uid"):
            bad.append(f"{t}: datasource {ds}")
        if not p.get("targets"):
            bad.append(f"{t}: no targets")
        for tg in p.get("targets", []):
            if not tg.get("expr"):
                bad.append(f"{t} {tg.get('refId')}: no expr")
                continue
            exprs.append({"panel": t, "refId": tg.get("refId"), "expr": grafana_expr(tg["expr"])})
        g = p.get("gridPos", {})
        if not all(isinstance(g.get(k), int) for k in ("x", "y", "w", "h")) or g["x"] + g["w"] > 24:
            bad.append(f"{t}: gridPos {g}")
    if len(exprs) < 20:
        bad.append(f"only {len(exprs)} queries")
    # A variable's label_values(metric, label) is evaluated as count by (label) (metric).
    for v in d.get("templating", {}).get("list", []):
        if v.get("type") != "query":
            continue
        q = v["query"]["query"] if isinstance(v.get("query"), dict) else v.get("query", "")
        m = re.fullmatch(r"label_values\((.+),\s*(\w+)\)", q.strip())
        if not m:
            bad.append(f"variable {v['name']}: not label_values(metric, label): {q}")
            continue
        exprs.append({"panel": f"variable {v['name']}", "refId": "-",
                      "expr": f"count by ({m.group(2)}) ({m.group(1)})"})
    result("dashboard-panels", "; ".join(bad) if bad else None)
    # The PromQL examples of docs/monitoring.md (fenced blocks that read kube_pod_labels).
    docs = open(docs_file).read()
    for n, (lang, block) in enumerate(re.findall(r"^```(\w*)\n(.*?)^```", docs, re.S | re.M)):
        if lang in ("", "promql") and "kube_pod_labels" in block:
            exprs.append({"panel": f"docs/monitoring.md example {n}", "refId": "-", "expr": block})
    json.dump(exprs, open(os.path.join(out, "dashboard.json"), "w"), indent=1)
    print(f"monitoring: {len(alerts)} alert rules, {len(exprs)} dashboard queries")


# ---- data ------------------------------------------------------------------------------------
STEP = 30
SPAN = 2 * 3600  # each scenario: two hours of samples, every 30 s, ending at its time


def data(bad_t, good_t):
    assert good_t - bad_t > SPAN + 600, "the good scenario starts after the bad one ends"
    """OpenMetrics for both scenarios: the bad one ends at bad_t, the good one at good_t. Series
    carry the labels the Prometheus Operator adds (job, namespace, pod, instance, service,
    endpoint, container)."""
    # name -> {label text: [(t, v)]}: a series of both scenarios is one series with a gap (the
    # bad one first: its samples are older).
    series = {}

    def add(name, labels, fn, end):
        lab = ",".join(f'{k}="{v}"' for k, v in sorted(labels.items()))
        pts = series.setdefault(name, {}).setdefault(lab, [])
        pts.extend((t, fn(i, t)) for i, t in enumerate(range(end - SPAN, end + 1, STEP)))

    def target(job, pod, port, ns="gpupack-system"):
        return {"job": job, "namespace": ns, "pod": pod, "instance": f"10.0.0.{len(job)}:{port}",
                "service": job + ("" if job == "gpupack-advisor" else "-metrics"),
                "endpoint": "metrics" if job == "gpupack-advisor" else "http-metrics"}

    def hist(name, labels, end, per_step, fast):
        """A histogram whose observations land in the bucket <= fast (per_step per sample)."""
        les = ["0.0005", "0.001", "0.005", "0.01", "0.05", "0.1", "0.5", "1.0", "5.0", "+Inf"]
        for le in les:
            hit = le == "+Inf" or float(le) >= fast
            add(name + "_bucket", {**labels, "le": le}, lambda i, t, h=hit: i * per_step if h else 0, end)
        add(name + "_count", labels, lambda i, t: i * per_step, end)
        add(name + "_sum", labels, lambda i, t: i * per_step * fast, end)

    for scen, end in (("bad", bad_t), ("good", good_t)):
        bad = scen == "bad"
        wh = {**target("gpupack-webhook", "gpupack-webhook-5d8f7-abcde", 8081), "container": "webhook"}
        ex = {**target("gpupack-extender", "gpupack-scheduler-6c9b4-fghij", 8889), "container": "extender"}
        ad = {**target("gpupack-advisor", "gpupack-advisor-7f6d5-klmno", 8090), "container": "advisor"}
        # Webhook.
        for reason in ("decode", "internal", "patch", "encode"):
            add("gpupack_webhook_fail_open_total", {**wh, "reason": reason},
                lambda i, t, r=reason: (i // 4 if bad and r == "internal" else 0), end)
        add("apiserver_admission_webhook_fail_open_count",
            {"job": "apiserver", "instance": "172.16.0.1:443", "name": "pods.gpupack.io", "type": "admit"},
            lambda i, t: i // 2 if bad else 3, end)
        add("gpupack_tls_certificate_expiry_timestamp_seconds", wh,
            lambda i, t: end + (86400 if bad else 60 * 86400), end)
        for outcome, per in (("patched", 5), ("unchanged", 20), ("not-gpu", 1), ("fail-open", 1 if bad else 0)):
            add("gpupack_admission_reviews_total", {**wh, "outcome": outcome}, lambda i, t, p=per: i * p, end)
        hist("gpupack_http_request_duration_seconds", {**wh, "server": "webhook", "route": "/mutate"}, end, 25, 0.001)
        add("gpupack_recommendations_loaded", wh, lambda i, t: 42, end)
        for res in ("ok", "error"):
            add("gpupack_recommendations_reloads_total", {**wh, "result": res},
                lambda i, t, r=res: i // 120 if r == "ok" else 0, end)
        for action in ("recommend", "apply", "expired", "opted-out", "user-set"):
            add("gpupack_rightsizing_total", {**wh, "action": action}, lambda i, t: i, end)
        # Extender: the bad one fails a third of its calls, answers some without a view, its
        # nodes informer has gone silent and its pods informer's lists keep failing.
        for verb in ("filter", "prioritize"):
            for outcome in ("ok", "internal", "bad-request", "bad-pod", "no-view", "not-synced"):
                per = {"ok": 10, "internal": 5 if bad else 0, "not-synced": 1 if bad else 0}.get(outcome, 0)
                add("gpupack_extender_calls_total", {**ex, "verb": verb, "outcome": outcome},
                    lambda i, t, p=per: i * p, end)
            hist("gpupack_extender_decision_duration_seconds", {**ex, "verb": verb}, end, 10, 0.0005)
        for inf in ("nodes", "pods"):
            silent = bad and inf == "nodes"
            # The silent informer's first watch never ended: no watch_restarts series at all.
            if not silent:
                add("gpupack_kube_watch_restarts_total", {**ex, "informer": inf}, lambda i, t: i // 10, end)
            add("gpupack_kube_lists_total", {**ex, "informer": inf},
                lambda i, t, f=(bad and inf == "pods"): 1 + (i // 4 if f else 0), end)
            add("gpupack_kube_relists_total", {**ex, "informer": inf, "reason": "error"},
                lambda i, t, f=(bad and inf == "pods"): i // 4 if f else 0, end)
            add("gpupack_kube_errors_total", {**ex, "informer": inf},
                lambda i, t, f=(bad and inf == "pods"): i // 4 if f else 0, end)
            add("gpupack_kube_events_total", {**ex, "informer": inf, "type": "MODIFIED"},
                lambda i, t, s=silent: 500 if s else 500 + i * 3, end)
        add("gpupack_cache_nodes", ex, lambda i, t: 120, end)
        add("gpupack_cache_pods", ex, lambda i, t: 3400, end)
        # kube-state-metrics with the cost labels allowlisted (docs/monitoring.md's example).
        ksm = {"job": "kube-state-metrics", "instance": "10.0.1.9:8080"}
        for ns, pod, wl, gpus in (("ml", "ranker-7d9f8-x2x9z", "deployment.ranker", 2),
                                  ("research", "alice-0", "notebook.alice", 1)):
            add("kube_pod_container_resource_requests", {**ksm, "namespace": ns, "pod": pod, "container": "main",
                "resource": "nvidia_com_gpu", "unit": "integer", "node": "gpu-1"}, lambda i, t, g=gpus: g, end)
            add("kube_pod_labels", {**ksm, "namespace": ns, "pod": pod, "label_gpupack_io_workload": wl,
                "label_gpupack_io_class": "inference"}, lambda i, t: 1, end)
        # Advisor: the bad one cannot reach Prometheus and last succeeded 8 hours ago, and idle
        # GPUs cost $80/h; the good one is current, with $10/h idle.
        add("gpupack_advisor_prometheus_up", ad, lambda i, t: 0 if bad else 1, end)
        add("gpupack_advisor_last_success_timestamp_seconds", ad,
            lambda i, t: end - 8 * 3600 if bad else t - t % 3600, end)
        costs = [("ml", "inference", "A100-80GB", 120.0), ("ml", "training", "H100-80GB", 300.0),
                 ("research", "interactive", "L4", 12.5)]
        for ns, cls, model, v in costs:
            add("gpupack_advisor_gpu_cost_dollars_per_hour", {**ad, "namespace": ns, "class": cls, "model": model},
                lambda i, t, v=v: v, end)
            add("gpupack_advisor_idle_gpus", {**ad, "namespace": ns, "class": cls},
                lambda i, t, v=v: round(v / 40), end)
        waste = [("ml", "deployment/ranker", "idle", 60.0 if bad else 6.0),
                 ("research", "notebook/alice", "idle", 20.0 if bad else 4.0),
                 ("ml", "deployment/ranker", "mig", 15.0), ("ml", "other", "gpus", 7.5)]
        for ns, wl, finding, v in waste:
            add("gpupack_advisor_waste_dollars_per_hour", {**ad, "namespace": ns, "workload": wl, "finding": finding},
                lambda i, t, v=v: v, end)
        for state, v in (("written", 37), ("dropped", 3)):
            add("gpupack_advisor_recommendations", {**ad, "state": state}, lambda i, t, v=v: v, end)
        hist("gpupack_advisor_analysis_duration_seconds", ad, end, 1, 0.5)
        for res in ("ok", "error"):
            add("gpupack_advisor_analyses_total", {**ad, "result": res},
                lambda i, t, r=res: i // 120 if (r == "error") == bad else 0, end)
            add("gpupack_advisor_configmap_writes_total", {**ad, "result": res},
                lambda i, t, r=res: i // 120 if r == "ok" and not bad else 0, end)
        add("gpupack_advisor_prometheus_errors_total", ad, lambda i, t: i // 120 if bad else 0, end)

    out = sys.stdout.write
    for name, by_labels in series.items():
        out(f"# TYPE {name} unknown\n")
        for lab, pts in by_labels.items():
            for t, v in pts:
                out(f"{name}{{{lab}}} {v} {t}\n")
    out("# EOF\n")


# ---- evaluate --------------------------------------------------------------------------------
def query(prom, expr, t):
    body = urllib.parse.urlencode({"query": expr, "time": str(t)}).encode()
    try:
        with urllib.request.urlopen(prom + "/api/v1/query", data=body, timeout=10) as r:
            return json.load(r)
    except urllib.error.HTTPError as e:
        return json.load(e)


LABEL = re.compile(r"\$labels\.(\w+)")
OPTIONAL_LABEL = re.compile(r"\bif \$labels\.(\w+)")


def evaluate(prom, bad_t, good_t, out):
    alerts = json.load(open(os.path.join(out, "alerts.json")))
    exprs = json.load(open(os.path.join(out, "dashboard.json")))
    # Both ends of each branch of an "or": which label values must show on the bad cluster.
    branches = {"GpupackWebhookFailingOpen": ("source", {"webhook", "kube-apiserver"}),
                "GpupackExtenderViewStale": ("reason", {"calls answered without a synced view",
                                                        "no watch or list for 20 minutes",
                                                        "lists keep failing"})}
    for i, a in enumerate(alerts):
        name = f"alert-{a['alert']}-{a['severity']}"
        rb, rg = query(prom, a["expr"], bad_t), query(prom, a["expr"], good_t)
        if rb.get("status") != "success" or rg.get("status") != "success":
            result(name + "-evaluates", f"{rb.get('error') or rg.get('error')}")
            continue
        result(name + "-evaluates")
        vb, vg = rb["data"]["result"], rg["data"]["result"]
        why = None
        if not vb:
            why = "empty on the bad series"
        elif vg:
            why = f"fires on the good series: {[s['metric'] for s in vg]}"
        result(name + "-fires-on-bad-only", why)
        if vb:
            # Every $labels.X an annotation uses outside an {{ if }} is in every firing series.
            text = " ".join(a["annotations"].values())
            need = set(LABEL.findall(text)) - set(OPTIONAL_LABEL.findall(text))
            miss = [f"{n} not in {s['metric']}" for s in vb for n in need if n not in s["metric"]]
            result(name + "-annotation-labels", "; ".join(miss[:3]) if miss else None)
            if a["alert"] in branches:
                lab, want = branches[a["alert"]]
                got = {s["metric"].get(lab) for s in vb}
                result(name + "-every-branch-fires",
                       None if want <= got else f"{lab} {sorted(want - got)} missing")
    bad = []
    empty = []
    for e in exprs:
        for t in (bad_t, good_t):
            r = query(prom, e["expr"], t)
            if r.get("status") != "success":
                bad.append(f"{e['panel']} {e['refId']}: {r.get('errorType')}: {r.get('error')}")
                break
            if t == good_t and not r["data"]["result"]:
                empty.append(f"{e['panel']} {e['refId']}")
    result("dashboard-queries-evaluate", "; ".join(bad[:4]) if bad else None)
    # On the good cluster every series exists: an empty answer is a wrong metric or label name.
    result("dashboard-queries-return-data", "; ".join(empty[:6]) if empty else None)
    print(f"monitoring: evaluated {len(alerts)} alert and {len(exprs)} dashboard expressions "
          "at two times")


if __name__ == "__main__":
    cmd = sys.argv[1] if len(sys.argv) > 1 else ""
    if cmd == "extract" and len(sys.argv) == 6:
        extract(*sys.argv[2:])
    elif cmd == "data" and len(sys.argv) == 4:
        data(int(sys.argv[2]), int(sys.argv[3]))
    elif cmd == "evaluate" and len(sys.argv) == 6:
        evaluate(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5])
    else:
        sys.exit(__doc__ or "usage: see the header")
