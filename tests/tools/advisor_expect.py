# SPDX-License-Identifier: Apache-2.0
"""The report gpupack-advisor must print for tests/tools/gen_advisor_data.py's cluster, computed
from the scenario (its NODES, PODS and sample functions) by the definitions of the advisor's spec
(docs/advisor.md): window and steps, presence with the 5-minute lookback, GPU-hours, prices,
findings and totals. Independent of the C code: exact fractions for hours and prices, so the
cents are right whatever the summation order.

  advisor_expect.py [--seed N] > expected.json      the expected report (JSON)
  advisor_expect.py --compare GOT.json            checks the advisor's JSON report against it,
      one "PASS advisor.<check>" / "FAIL advisor.<check>: expected E, got G" line per check
  advisor_expect.py --write-policy FILE             the policy the test runs the advisor with:
      manifests/base/policy.json plus GPU memory for the products, a class that forbids MIG
      ("inference-pinned") and an advisor section naming it a cheaper-model class.
"""
import bisect
import json
import math
import os
import sys
from fractions import Fraction as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_advisor_data as G  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
STEP = 300
SINCE = 7 * 24 * 3600
LOOKBACK = 300
MONTH = 730

IDLE_MEAN, IDLE_P95 = 0.05, 0.10
HEADROOM = F(12, 10)
MODEL_MAX_P95 = 0.5
RUNAWAY_FACTOR, RUNAWAY_MIN_RUNS, RUNAWAY_IDLE_HOURS = 3, 3, 6
IDLE_NODE_HOURS, MIN_COVERAGE = 24, 24
CHEAPER_CLASSES = ["inference", "inference-pinned"]
TRAINING_KINDS = ["Job", "PyTorchJob", "TFJob", "MPIJob", "XGBoostJob", "PaddleJob", "JAXJob",
                  "TrainJob", "RayJob"]
MEMORY = {"NVIDIA-L4": "24Gi", "NVIDIA-A10G": "24Gi", "NVIDIA-L40S": "48Gi",
          "NVIDIA-A100-SXM4-40GB": "40Gi", "NVIDIA-A100-SXM4-80GB": "80Gi",
          "NVIDIA-H100-80GB-HBM3": "80Gi", "NVIDIA-H200": "141Gi", "NVIDIA-B200": "180Gi"}


def test_policy():
    with open(os.path.join(ROOT, "manifests", "base", "policy.json")) as f:
        pol = json.load(f)
    for prod, mem in MEMORY.items():
        pol["scoring"]["prices"]["gpuProducts"][prod]["memory"] = mem
    pol["classes"]["inference-pinned"] = {"priorityClassName": "gpu-inference",
                                          "migAllowed": False, "spotAllowed": False}
    pol["advisor"] = {"cheaperModelClasses": CHEAPER_CLASSES}
    return pol


def mib(q):
    assert q.endswith("Mi") or q.endswith("Gi"), q
    return F(int(q[:-2])) * (1024 if q.endswith("Gi") else 1)


# ------------------------------------------------------------------------------------------
# Window.

END = G.END // STEP * STEP
NSTEPS = -(-SINCE // STEP)
TK = [END - (NSTEPS - 1 - k) * STEP for k in range(NSTEPS)]
NHOURS = -(-NSTEPS * STEP // 3600)
BUCKETS = [END - (NHOURS - 1 - i) * 3600 for i in range(NHOURS)]
WSTART = END - NSTEPS * STEP
DT = F(STEP, 3600)


def present(times, t):
    """Index of the sample a selector sees at t (the last in (t - 5m, t]), or None."""
    i = bisect.bisect_right(times, t) - 1
    return i if i >= 0 and times[i] > t - LOOKBACK else None


def pod_running(p):
    """Running at each t_k: the phase{Running} series' visible sample is 1."""
    times = list(G.series_times(p["start"], G.pod_end(p), G.KSM_STEP))
    out = []
    for t in TK:
        i = present(times, t)
        out.append(i is not None and times[i] <= p["end"])
    return out


# ------------------------------------------------------------------------------------------
# Prices (the extender's rules).

def price_entry(pol, table, key):
    return pol["scoring"]["prices"][table].get(key)


def entry_price(pol, e, spot):
    od = F(e["onDemand"]) if e else F(pol["scoring"]["defaultGpuHourlyPrice"])
    if not spot:
        return od
    if e and "spot" in e:
        return F(e["spot"])
    return od * (100 - pol["scoring"]["spotDiscountPercent"]) / 100


def mig_slices(prof):
    return int(prof.split("g", 1)[0])


def node_gpus(n):
    slices = sum(c * mig_slices(p) for p, c in n["mig"].items())
    return max(n["gpus"] + -(-slices // 7), 1)


def node_price(pol, n):
    e = price_entry(pol, "instanceTypes", n["itype"])
    if e:
        return entry_price(pol, e, n["spot"])
    e = price_entry(pol, "gpuProducts", n["product"])
    return entry_price(pol, e, n["spot"]) * node_gpus(n)


def gpu_price(pol, n):
    return node_price(pol, n) / node_gpus(n)


def req_weight(res):
    if res == "nvidia_com_gpu":
        return F(1)
    prof = res[len("nvidia_com_mig_"):]
    return F(mig_slices(prof), 7)


def node_capacity(n):
    return n["gpus"] + sum(F(c * mig_slices(p), 7) for p, c in n["mig"].items())


# ------------------------------------------------------------------------------------------
# Activity statistics.

def quantile(q, vals):
    """Prometheus' quantile_over_time: linear interpolation between closest ranks."""
    v = sorted(vals)
    rank = q * (len(v) - 1)
    lo = max(0, math.floor(rank))
    hi = min(len(v) - 1, lo + 1)
    w = rank - math.floor(rank)
    return v[lo] * (1 - w) + v[hi] * w


def dev_stats(p, d, seed):
    node = G.node_by_name(p["node"])
    acts = G.activity_samples(p, d, seed)
    scale = 100.0 if d["metric"] == "UTIL" else 1.0
    win = [(t, v / scale) for t, v in acts if WSTART < t <= END]
    groups = {}
    for t, v in win:
        groups.setdefault(G.host_label(node, t), []).append(v)
    tot = sum(v for _, v in win)
    fb = [u for t, u, _ in G.fb_samples(p, d, seed) if WSTART < t <= END and u == u]
    hourly = []
    times = [t for t, _ in acts]
    vals = [v / scale for _, v in acts]
    for b in BUCKETS:
        lo = bisect.bisect_right(times, b - 3600)
        hi = bisect.bisect_right(times, b)
        hourly.append(sum(vals[lo:hi]) / (hi - lo) if hi > lo else None)
    return dict(mean=tot / len(win), p95=max(quantile(0.95, g) for g in groups.values()),
                samples=len(win), fb_peak=max(fb) if fb else None, hourly=hourly,
                whole=d["profile"] is None)


def classify(p, pol):
    c = p["labels"].get("gpupack.io/class")
    if c in pol["classes"]:
        return c
    ok = p["owner"][0] if p["owner"] else None
    if "notebook-name" in p["labels"]:
        return "interactive"
    if ok in TRAINING_KINDS:
        return "training"
    if ok in ("ReplicaSet", "StatefulSet", "Deployment"):
        return "inference"
    return "interactive"


def workload(p):
    ok, on = p["owner"] if p["owner"] else (None, None)
    if "notebook-name" in p["labels"] and ok == "StatefulSet":
        return "Notebook", p["labels"]["notebook-name"]
    if ok in ("ReplicaSet", "Job") and p["oo"] and p["oo"][0] != "<none>":
        return p["oo"]
    if ok is None:
        return "Pod", p["name"]
    return ok, on


# ------------------------------------------------------------------------------------------
# The analysis.

def analyse(pol, seed):
    nodes = {n["name"]: n for n in G.NODES}
    pods = []
    for p in G.PODS:
        run = pod_running(p)
        w = sum((req_weight(r) * c for _, r, c in p["requests"]), F(0))
        n = nodes[p["node"]]
        ks = [k for k, r in enumerate(run) if r]
        devs = [dev_stats(p, d, seed) for d in p["devs"] if d["variant"] != "nopod"]
        wk, wn = workload(p)
        hourly = []
        for i in range(NHOURS):
            hv = [d["hourly"][i] for d in devs if d["hourly"][i] is not None]
            hourly.append(sum(hv) / len(hv) if hv else None)
        pods.append(dict(
            p=p, ns=p["ns"], name=p["name"], node=n, price=gpu_price(pol, n),
            gpu_hours=len(ks) * w * DT, run_hours=len(ks) * DT, running_at_end=run[-1],
            gpus_at_end=w if run[-1] else F(0), started_in_window=bool(ks) and ks[0] > 0,
            whole=sum(c for _, r, c in p["requests"] if r == "nvidia_com_gpu"),
            has_mig=any(r != "nvidia_com_gpu" for _, r, _ in p["requests"]),
            devs=devs, hourly=hourly, run=run, cls=classify(p, pol),
            wk=wk, wn=wn, workload="%s/%s" % (wk.lower(), wn)))
    findings = []
    done = set()

    def idle_dev(d):
        return d["mean"] < IDLE_MEAN and d["p95"] < IDLE_P95

    def cover(ps):
        return sum(sum(1 for h in q["hourly"] if h is not None) for q in ps)

    def group(sel):
        g = {}
        for q in pods:
            if id(q) not in done and sel(q):
                g.setdefault((q["ns"], q["workload"]), []).append(q)
        return g

    def add(kind, ps, hours, dollars, per_hour, monthly=None, **extra):
        q0 = ps[0]
        f = dict(kind=kind, namespace=q0["ns"], workload=q0["workload"], pods=len(ps),
                 hours=hours, dollars=dollars, dollars_per_hour=per_hour,
                 monthly_dollars=per_hour * MONTH if monthly is None else monthly,
                 coverage_hours=cover(ps), cls=q0["cls"])
        f.update(extra)
        findings.append(f)
        for q in ps:
            done.add(id(q))

    # 1. idle
    for (ns, wl), ps in group(lambda q: q["devs"] and all(idle_dev(d) for d in q["devs"])).items():
        add("idle", ps, sum(q["gpu_hours"] for q in ps),
            sum(q["gpu_hours"] * q["price"] for q in ps),
            sum(q["gpus_at_end"] * q["price"] for q in ps if q["running_at_end"]))

    # 2. gpus
    def kidle(q):
        wd = [d for d in q["devs"] if d["whole"]]
        return len(wd), sum(1 for d in wd if idle_dev(d))

    for (ns, wl), ps in group(lambda q: kidle(q)[0] >= 2 and 0 < kidle(q)[1] < kidle(q)[0]).items():
        fr = {id(q): F(kidle(q)[1], kidle(q)[0]) for q in ps}
        add("gpus", ps, sum(q["gpu_hours"] * fr[id(q)] for q in ps),
            sum(q["gpu_hours"] * fr[id(q)] * q["price"] for q in ps),
            sum(q["gpus_at_end"] * fr[id(q)] * q["price"] for q in ps if q["running_at_end"]),
            gpus=kidle(ps[0])[0], gpus_idle=kidle(ps[0])[1])

    # 3. mig
    offered = sorted({pr for n in G.NODES for pr, c in n["mig"].items() if c > 0})
    profs = {m["name"]: (m["computeSlices"], mib(m["memory"])) for m in pol["migProfiles"]}

    def pick(need, min_slices=0):
        ok = [(profs[n][0], profs[n][1], n) for n in offered
              if profs[n][1] >= need and profs[n][0] >= min_slices]
        return min(ok)[2] if ok else None

    def mig_ok(q):
        return (q["whole"] == 1 and len(q["devs"]) == 1 and not q["has_mig"]
                and pol["classes"].get(q["cls"], {}).get("migAllowed")
                and q["devs"][0]["fb_peak"] is not None)

    for (ns, wl), ps in group(mig_ok).items():
        need = max(F(q["devs"][0]["fb_peak"]) for q in ps) * HEADROOM
        p95 = max(q["devs"][0]["p95"] for q in ps)
        prof = pick(need)
        if prof and F(profs[prof][0], 7) < p95:
            need = profs[prof][1] + 1
            prof = pick(need)
        if not prof:
            continue
        gi = -(-need // 1024)
        mem = "%dGi" % gi if pick(F(gi * 1024)) == prof else "%dMi" % -(-need // 1)
        save = 1 - F(profs[prof][0], 7)
        add("mig", ps, sum(q["gpu_hours"] * save for q in ps),
            sum(q["gpu_hours"] * q["price"] * save for q in ps),
            sum(q["gpus_at_end"] * q["price"] * save for q in ps if q["running_at_end"]),
            mig_profile=prof, gpu_memory=mem)

    # 4. model
    def model_ok(q):
        return (q["cls"] in CHEAPER_CLASSES and q["devs"] and not q["has_mig"]
                and all(d["whole"] for d in q["devs"]) and not any(idle_dev(d) for d in q["devs"])
                and all(d["fb_peak"] is not None for d in q["devs"]))

    for (ns, wl), ps in group(model_ok).items():
        if max(d["p95"] for q in ps for d in q["devs"]) > MODEL_MAX_P95:
            continue
        need = max(F(d["fb_peak"]) for q in ps for d in q["devs"]) * HEADROOM
        cur = min(q["price"] for q in ps)
        spot = ps[0]["node"]["spot"]
        cands = sorted((entry_price(pol, e, spot), name)
                       for name, e in pol["scoring"]["prices"]["gpuProducts"].items()
                       if "memory" in e)
        cands = [(pr, nm) for pr, nm in cands if pr < cur]
        if not cands or need > mib(pol["scoring"]["prices"]["gpuProducts"][cands[0][1]]["memory"]):
            continue
        cp, cn = cands[0]
        add("model", ps, sum(q["gpu_hours"] for q in ps),
            sum(q["gpu_hours"] * (q["price"] - cp) for q in ps),
            sum(q["gpus_at_end"] * (q["price"] - cp) for q in ps if q["running_at_end"]),
            to_model=cn)

    # 5. node
    node_rows = {}
    for n in G.NODES:
        cap = node_capacity(n)
        if cap <= 0:
            continue
        up = [True] * NSTEPS  # every node's series cover the window
        alloc = [F(0)] * NSTEPS
        for q in pods:
            if q["node"] is n:
                w = sum((req_weight(r) * c for _, r, c in q["p"]["requests"]), F(0))
                for k in range(NSTEPS):
                    if q["run"][k]:
                        alloc[k] += w
        empty = sum(1 for k in range(NSTEPS) if up[k] and alloc[k] == 0) * DT
        halfk = [k for k in range(NSTEPS) if up[k] and 0 < alloc[k] < cap / 2]
        half = len(halfk) * DT
        half_free = sum((cap - alloc[k] for k in halfk), F(0)) * DT
        uph = sum(up) * DT
        gp, np_ = gpu_price(pol, n), node_price(pol, n)
        node_rows[n["name"]] = dict(empty=empty, half=half, half_free=half_free, up=uph,
                                    alloc_end=alloc[-1], cap=cap, price=gp, node_price=np_)
        if empty >= IDLE_NODE_HOURS:
            ph = np_ if up[-1] and alloc[-1] == 0 else F(0)
            findings.append(dict(kind="node", namespace="", workload="node/" + n["name"],
                                 pods=0, hours=empty, dollars=np_ * empty, dollars_per_hour=ph,
                                 monthly_dollars=ph * MONTH, reason="empty"))
        if half > uph / 2:
            ae = alloc[-1]
            ph = (cap - ae) * gp if up[-1] and 0 < ae < cap / 2 else F(0)
            findings.append(dict(kind="node", namespace="", workload="node/" + n["name"],
                                 pods=0, hours=half, dollars=half_free * gp, dollars_per_hour=ph,
                                 monthly_dollars=ph * MONTH, reason="half"))

    # 6. runaway
    for q in pods:
        if not q["running_at_end"]:
            continue
        if not (q["wk"] in ("Job", "CronJob") or q["wk"] in TRAINING_KINDS
                or q["cls"] == "training"):
            continue
        burned = []
        earlier = sorted(r["run_hours"] for r in pods
                         if r is not q and r["workload"] == q["workload"] and r["ns"] == q["ns"]
                         and not r["running_at_end"] and r["started_in_window"])
        if len(earlier) >= RUNAWAY_MIN_RUNS:
            m = len(earlier)
            med = earlier[m // 2] if m % 2 else (earlier[m // 2 - 1] + earlier[m // 2]) / 2
            if q["run_hours"] > RUNAWAY_FACTOR * med:
                burned.append(("runs", q["run_hours"] - RUNAWAY_FACTOR * med))
        cap = pol["classes"].get(q["cls"], {}).get("runtimeCapSeconds", 0)
        if cap and q["run_hours"] > F(cap, 3600):
            burned.append(("cap", q["run_hours"] - F(cap, 3600)))
        trail = 0
        for h in reversed(q["hourly"]):
            if h is None or h >= IDLE_MEAN:
                break
            trail += 1
        if trail >= RUNAWAY_IDLE_HOURS:
            burned.append(("idle", F(trail)))
        if not burned:
            continue
        why, hrs = max(burned, key=lambda b: b[1])
        f = dict(kind="runaway", namespace=q["ns"], workload=q["workload"], pods=1,
                 hours=hrs * q["gpus_at_end"], dollars=hrs * q["gpus_at_end"] * q["price"],
                 dollars_per_hour=q["gpus_at_end"] * q["price"], monthly_dollars=F(0),
                 coverage_hours=cover([q]), reason=why, run_hours=q["run_hours"],
                 trailing_idle_hours=trail)
        findings.append(f)

    order = ["idle", "mig", "gpus", "model", "node", "runaway"]  # gp_adv_kind order
    findings.sort(key=lambda f: (-f["dollars"], -f["monthly_dollars"], order.index(f["kind"]),
                                 f["namespace"], f["workload"]))

    # GPU-hours by the pod's mean activity (the mean of its GPUs'), tenths; pods with DCGM data.
    hist = [F(0)] * 10
    for q in pods:
        if q["devs"]:
            m = sum(d["mean"] for d in q["devs"]) / len(q["devs"])
            hist[min(int(m * 10), 9)] += q["gpu_hours"]
    # Allocated GPU-equivalents per hour bucket: the mean over the bucket's steps.
    per_hour = 3600 // STEP
    alloc_hourly = []
    for i in range(NHOURS):
        ks = range(NSTEPS - (NHOURS - i) * per_hour, NSTEPS - (NHOURS - i - 1) * per_hour)
        tot = sum((sum((req_weight(r) * c for _, r, c in q["p"]["requests"]), F(0))
                   for q in pods for k in ks if k >= 0 and q["run"][k]), F(0))
        alloc_hourly.append(tot / per_hour)
    gpu_hours = sum(q["gpu_hours"] for q in pods)
    nodiv = [q for q in pods if not q["devs"]]
    idle_h = sum(f["hours"] for f in findings if f["kind"] in ("idle", "gpus"))
    totals = dict(
        window_hours=NSTEPS * DT, gpu_hours=gpu_hours,
        idle_gpu_hours=idle_h, idle_pct=idle_h / gpu_hours * 100,
        dollars=sum(q["gpu_hours"] * q["price"] for q in pods),
        node_dollars=sum(r["node_price"] * r["up"] for r in node_rows.values()),
        waste_dollars=sum(f["dollars"] for f in findings if f["kind"] != "runaway"),
        recoverable_monthly_dollars=sum(f["monthly_dollars"] for f in findings
                                        if f["kind"] != "runaway"),
        pods=len(pods), pods_without_dcgm=len(nodiv),
        gpu_hours_without_dcgm=sum(q["gpu_hours"] for q in nodiv),
        utilization_histogram=hist, alloc_hourly=alloc_hourly)
    return findings, totals, node_rows, pods


def cents(x):
    """x (exact) to cents, half up; refuses values within 1e-6 of a half cent, where a double
    computed in another order could round the other way."""
    c = x * 100
    frac = c - math.floor(c)
    assert abs(frac - F(1, 2)) > F(1, 10**4), "ambiguous rounding: %s" % float(x)
    return float(math.floor(c + F(1, 2))) / 100


def to_json(findings, totals, node_rows, pods=()):
    out = dict(window=dict(start_unix=WSTART, end_unix=END, step_seconds=STEP,
                           hours=float(NSTEPS * DT)),
               totals={k: (cents(v) if isinstance(v, F) else
                           [cents(x) for x in v] if isinstance(v, list) else v)
                       for k, v in totals.items()},
               findings=[], nodes={})
    for i, f in enumerate(findings):
        g = dict(rank=i + 1)
        for k, v in f.items():
            g[k] = cents(v) if isinstance(v, F) else v
        out["findings"].append(g)
    for name, r in node_rows.items():
        out["nodes"][name] = {k: (cents(v) if isinstance(v, F) else v) for k, v in r.items()}
    out["pods"] = {"%s/%s" % (q["ns"], q["name"]): dict(
        workload=q["workload"], class_=q["cls"], gpu_hours=float(q["gpu_hours"]),
        run_hours=float(q["run_hours"]), running_at_end=q["running_at_end"],
        devs=[dict(mean=d["mean"], p95=d["p95"], samples=d["samples"], fb_peak=d["fb_peak"])
              for d in q["devs"]]) for q in pods}
    return out


def compare(exp, got):
    """PASS/FAIL lines comparing the advisor's JSON (got) with the expected report (exp)."""
    fails = 0

    def check(name, ok, e=None, g=None):
        nonlocal fails
        if ok:
            print("PASS advisor.%s" % name)
        else:
            fails += 1
            print("FAIL advisor.%s: expected %r, got %r" % (name, e, g))

    def same(name, e, g, tol=0.0):
        ok = g is not None and (abs(e - g) <= tol if isinstance(e, float) and
                                isinstance(g, (int, float)) else e == g)
        check(name, ok, e, g)

    gf = got.get("findings", [])
    key = lambda f: "%s:%s" % (f["kind"], f["workload"])  # noqa: E731
    ek = [key(f) for f in exp["findings"]]
    gk = [key(f) for f in gf]
    same("findings-total", len(ek), got.get("findings_total"))
    check("findings-set", sorted(ek) == sorted(gk), sorted(ek), sorted(gk))
    check("ranking", ek == gk, ek, gk)
    for kind in ("idle", "mig", "gpus", "model", "node", "runaway"):
        check("kind-present." + kind, any(f["kind"] == kind for f in gf))
    byk = {key(f): f for f in gf}
    for f in exp["findings"]:
        k = key(f)
        g = byk.get(k)
        n = k.replace(":", ".")
        if g is None:
            check(n + ".present", False, k, None)
            continue
        ev = g.get("evidence") or {}
        # The recommendation: its verb and the workload's kind and name (the spec spells the
        # workload both "kind/name" and "kind namespace/name").
        rec = g.get("recommendation", "")
        wkind, wname = f["workload"].split("/", 1)
        same(n + ".namespace", f["namespace"], g.get("namespace"))
        same(n + ".dollars", f["dollars"], g.get("dollars"))
        same(n + ".hours", f["hours"], g.get("hours"))
        same(n + ".dollars_per_hour", f["dollars_per_hour"], g.get("dollars_per_hour"))
        same(n + ".monthly_dollars", f["monthly_dollars"], g.get("monthly_dollars"))
        if f["kind"] != "node":
            same(n + ".pods", f["pods"], g.get("pods"))
            same(n + ".coverage_hours", float(f["coverage_hours"]), ev.get("coverage_hours"))
            same(n + ".low_confidence", f["coverage_hours"] < MIN_COVERAGE,
                 ev.get("low_confidence"))
        if f["kind"] == "mig":
            same(n + ".mig_profile", f["mig_profile"], ev.get("mig_profile"))
            same(n + ".gpu_memory", f["gpu_memory"], ev.get("gpu_memory"))
            want = ['gpupack.io/gpu-memory: "%s"' % f["gpu_memory"], wkind + " ", wname,
                    "mig-" + f["mig_profile"]]
            check(n + ".recommendation", all(w in g.get("recommendation", "") for w in want),
                  want, g.get("recommendation"))
        if f["kind"] == "idle":
            want = ["delete " + wkind] if wkind in ("notebook", "pod") else \
                ["scale " + wkind, "to zero"]
            want.append(wname)
            check(n + ".recommendation", all(w in rec for w in want), want, rec)
        if f["kind"] == "gpus":
            want = "request %d nvidia.com/gpu" % (f["gpus"] - f["gpus_idle"])
            check(n + ".recommendation", want in rec, want, rec)
        if f["kind"] == "model":
            same(n + ".to_model", f["to_model"], ev.get("to_model"))
        if f["kind"] == "gpus":
            same(n + ".gpus", f["gpus"], ev.get("gpus"))
            same(n + ".gpus_idle", f["gpus_idle"], ev.get("gpus_idle"))
    et, gt = exp["totals"], got.get("totals", {})
    for k in ("window_hours", "gpu_hours", "idle_gpu_hours", "idle_pct", "dollars",
              "node_dollars", "waste_dollars", "recoverable_monthly_dollars", "pods",
              "pods_without_dcgm", "gpu_hours_without_dcgm"):
        same("totals." + k, et[k], gt.get(k))
    same("totals.utilization_histogram", et["utilization_histogram"],
         gt.get("utilization_histogram"))
    same("totals.hourly.allocated", et["alloc_hourly"], (gt.get("hourly") or {}).get("allocated"))
    w = got.get("window", {})
    same("window.end", exp["window"]["end_unix"], w.get("end_unix"))
    same("window.start", exp["window"]["start_unix"], w.get("start_unix"))
    return fails


def main(argv):
    if len(argv) == 3 and argv[1] == "--compare":
        findings, totals, node_rows, pods = analyse(test_policy(), G.SEED)
        exp = json.loads(json.dumps(to_json(findings, totals, node_rows, pods)))
        with open(argv[2]) as f:
            try:
                got = json.load(f)
            except ValueError as e:
                print("FAIL advisor.json-valid: %s" % e)
                return 1
        print("PASS advisor.json-valid")
        return 1 if compare(exp, got) else 0
    if len(argv) == 3 and argv[1] == "--write-policy":
        with open(argv[2], "w") as f:
            json.dump(test_policy(), f, indent=1)
        return 0
    seed = G.SEED
    if len(argv) == 3 and argv[1] == "--seed":
        seed = int(argv[2])
    elif len(argv) != 1:
        sys.stderr.write(__doc__)
        return 2
    findings, totals, node_rows, pods = analyse(test_policy(), seed)
    json.dump(to_json(findings, totals, node_rows, pods), sys.stdout, indent=1)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
