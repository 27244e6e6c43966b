#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""kube-scheduler's call pattern against gpupack-extender, one pod at a time (standard library only).

For each of N pods, as a scheduling cycle does it with a nodeCacheCapable extender:
  1. (not timed) the pending pod is created in the fake API (ADDED, no nodeName), as kubectl or a
     controller would have created it;
  2. POST /filter with ExtenderArgs {Pod, Nodes: null, NodeNames: K names}, the Pod shaped like the
     one kube-scheduler v1.32 sent (tests/bench/extenderargs-v1.32-filter-gpu.json, captured);
  3. POST /prioritize with the names the filter passed;
With --verbs prioritize (the prioritize-only configuration) step 2 is left out and prioritize
gets K names of nodes with room for the pod's GPUs, as kube-scheduler's own filters pass them
(its NodeResourcesFit; the script tracks each node's free GPUs from --cluster-pods and its own
bindings; CPU and memory are not tracked: the bench pods are GPU-bound);
  4. the binding: the pod MODIFIED with spec.nodeName = the best-scored node, through the fake's
     control API, so it reaches the extender's watch as the real binding would; then the next pod.
Calls to the extender use one keep-alive connection (http.client), as kube-scheduler does.

Usage: schedcycle.py --extender URL --api URL --pid PID --nodes NODES.json [--pods N] [--names K]
                     [--seed S] [--prefix P] [--args FILE] [--verbs prioritize --cluster-pods PODS.json]
Prints one JSON object: {"pods", "names", "filter_p50_ms", "filter_p99_ms", "prioritize_p50_ms",
"prioritize_p99_ms", "extender_cpu_ms_per_pod", "prioritize_names_mean" (names the filter passed),
"wall_s", "bound", "nodes_used" (distinct nodes the pods were bound to), "unschedulable", "errors"}.
extender_cpu_ms_per_pod: the extender's utime+stime (/proc/PID/stat) over the cycles and until its
CPU stops moving after the last binding (the watch events decoded), divided by N. Exit 1 when a
call failed."""
import argparse
import copy
import http.client
import json
import os
import random
import sys
import time
import uuid
from urllib.parse import urlsplit

HERE = os.path.dirname(os.path.abspath(__file__))


def cpu_ticks(pid):
    with open("/proc/%d/stat" % pid) as f:
        rest = f.read().rsplit(")", 1)[1].split()
    return int(rest[11]) + int(rest[12])  # fields 14 and 15 (utime, stime), after pid and comm


def connect(url):
    u = urlsplit(url)
    return http.client.HTTPConnection(u.hostname, u.port, timeout=30)


def post(conn, path, body):
    """(status, parsed JSON or None, seconds)."""
    data = json.dumps(body, separators=(",", ":")).encode()
    t0 = time.perf_counter()
    conn.request("POST", path, body=data, headers={"Content-Type": "application/json"})
    r = conn.getresponse()
    raw = r.read()
    dt = time.perf_counter() - t0
    try:
        return r.status, json.loads(raw), dt
    except ValueError:
        return r.status, None, dt


def pct(xs, p):
    """Nearest-rank percentile of xs (seconds) in milliseconds."""
    if not xs:
        return 0.0
    s = sorted(xs)
    k = max(0, min(len(s) - 1, int(-(-p * len(s) // 100)) - 1))
    return round(s[k] * 1e3, 3)


def gpus_of(pod):
    return sum(int((c.get("resources", {}).get("requests") or {}).get("nvidia.com/gpu", "0"))
               for c in pod["spec"]["containers"])


def feasible_sample(rnd, names, free, need, k):
    """K random names of nodes with `need` GPUs free (fewer when fewer have room)."""
    fits = [n for n in names if free.get(n, 0) >= need]
    return rnd.sample(fits, min(k, len(fits)))


def pod_for(template, prefix, i):
    pod = copy.deepcopy(template)
    md = pod["metadata"]
    md["name"] = "%s-%05d" % (prefix, i)
    md["namespace"] = "bench"
    md["uid"] = str(uuid.uuid5(uuid.NAMESPACE_URL, "gpupack-bench/" + md["name"]))
    md["labels"] = {"app": "sched-bench"}
    # managedFields and the last-applied annotation stay: the scheduler sends them (~1.5 KB).
    # The bench nodes taint GPUs (nvidia.com/gpu:NoSchedule), as GPU node pools do; the pods
    # the scheduler sends to a GPU extender tolerate it.
    pod["spec"].setdefault("tolerations", []).append(
        {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"})
    return pod


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--extender", required=True)
    ap.add_argument("--api", required=True)
    ap.add_argument("--pid", type=int, required=True)
    ap.add_argument("--nodes", required=True, help="the cluster's nodes (List JSON)")
    ap.add_argument("--pods", type=int, default=300)
    ap.add_argument("--names", type=int, default=230)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--prefix", default="sched", help="pod names PREFIX-00000...; new ones for each run")
    ap.add_argument("--args", default=os.path.join(HERE, "extenderargs-v1.32-filter-gpu.json"))
    ap.add_argument("--verbs", choices=["filter,prioritize", "prioritize"], default="filter,prioritize")
    ap.add_argument("--cluster-pods", help="the pods the fake holds (List JSON): free GPUs for --verbs prioritize")
    a = ap.parse_args()
    if a.verbs == "prioritize" and not a.cluster_pods:
        ap.error("--verbs prioritize needs --cluster-pods")

    with open(a.args) as f:
        template = json.load(f)["Pod"]
    with open(a.nodes) as f:
        doc = json.load(f)
    items = doc["items"] if isinstance(doc, dict) else doc
    names = [n["metadata"]["name"] for n in items]
    free = {n["metadata"]["name"]: int(n["status"].get("allocatable", {}).get("nvidia.com/gpu", "0")) for n in items}
    del doc, items
    if a.verbs == "prioritize":
        with open(a.cluster_pods) as f:
            for p in json.load(f)["items"]:
                host = p["spec"].get("nodeName")
                if host:
                    free[host] = free.get(host, 0) - gpus_of(p)
    rnd = random.Random(a.seed)
    k = min(a.names, len(names))

    x = connect(a.extender)
    api = connect(a.api)
    ftimes, ptimes, npassed = [], [], []
    bound = unsched = errors = 0
    used_nodes = set()
    hz = os.sysconf("SC_CLK_TCK")
    cpu0 = cpu_ticks(a.pid)
    t0 = time.perf_counter()
    for i in range(a.pods):
        pod = pod_for(template, a.prefix, i)
        st, _, _ = post(api, "/_control/apply", {"kind": "pods", "type": "ADDED", "object": pod})
        if st != 200:
            errors += 1
            continue
        if a.verbs == "prioritize":
            passed = feasible_sample(rnd, names, free, gpus_of(pod), k)
        else:
            cand = rnd.sample(names, k)
            st, fr, dt = post(x, "/filter", {"Pod": pod, "Nodes": None, "NodeNames": cand})
            ftimes.append(dt)
            if st != 200 or not isinstance(fr, dict) or fr.get("Error"):
                errors += 1
                continue
            passed = fr.get("NodeNames") or []
        if not passed:
            unsched += 1
            continue
        npassed.append(len(passed))
        st, pr, dt = post(x, "/prioritize", {"Pod": pod, "Nodes": None, "NodeNames": passed})
        ptimes.append(dt)
        if st != 200 or not isinstance(pr, list):
            errors += 1
            continue
        best = max(pr, key=lambda h: h.get("Score", 0))["Host"] if pr else passed[0]
        bpod = copy.deepcopy(pod)
        bpod["spec"]["nodeName"] = best
        bpod["status"] = {"phase": "Pending", "qosClass": pod["status"].get("qosClass", "Guaranteed"),
                          "conditions": [{"type": "PodScheduled", "status": "True"}]}
        st, _, _ = post(api, "/_control/apply", {"kind": "pods", "type": "MODIFIED", "object": bpod})
        if st != 200:
            errors += 1
            continue
        bound += 1
        used_nodes.add(best)
        free[best] = free.get(best, 0) - gpus_of(pod)
    wall = time.perf_counter() - t0
    # Until the extender has decoded the last bindings: its CPU time still for 0.3 s (max 10 s).
    last, still, waited = cpu_ticks(a.pid), 0, 0.0
    while still < 3 and waited < 10:
        time.sleep(0.1)
        waited += 0.1
        now = cpu_ticks(a.pid)
        still = still + 1 if now == last else 0
        last = now
    cpu_s = (last - cpu0) / hz
    out = {"pods": a.pods, "names": k, "verbs": a.verbs,
           "filter_p50_ms": pct(ftimes, 50), "filter_p99_ms": pct(ftimes, 99),
           "prioritize_p50_ms": pct(ptimes, 50), "prioritize_p99_ms": pct(ptimes, 99),
           "extender_cpu_ms_per_pod": round(cpu_s * 1e3 / max(a.pods, 1), 3),
           "prioritize_names_mean": round(sum(npassed) / max(len(npassed), 1), 1),
           "wall_s": round(wall, 3), "bound": bound, "nodes_used": len(used_nodes), "unschedulable": unsched, "errors": errors}
    print(json.dumps(out))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
