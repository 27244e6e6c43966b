#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A fake Prometheus for tests/e2e/advisor-faults.sh (Python 3 standard library).

    python3 tests/e2e/advfake.py --port-file F --log L --mode ok

Binds 127.0.0.1 on a free port, writes the port to F (atomically), and answers the advisor's
queries (recognised by their PromQL) with a small cluster: pod ml/a asks 1 GPU on node n1
(2 GPUs) for the whole window and barely uses it. Modes change that: nodcgm (no DCGM series),
utilonly (no DCGM_FI_PROF_GR_ENGINE_ACTIVE), noksm (no GPU requests), nan (NaN and +Inf
samples), warn (a warning on every answer), 503once (a 503 first), 429once (a 429 with
Retry-After: 1 first), 400 (bad_data), 422 (execution error), 422node (the same error for
node-empty-steps alone, a query of some 4,000 characters), slow (no answer for 30 s),
nonjson (an HTML page). Each request is logged to L as one JSON line.
"""
import argparse
import json
import os
import sys
import threading
import re
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs

A = {"exported_namespace": "ml", "exported_pod": "a", "namespace": "monitoring",
     "pod": "dcgm-exporter-x", "Hostname": "n1", "UUID": "GPU-1", "gpu": "0",
     "modelName": "NVIDIA A100-SXM4-80GB"}


PREFIXES = [("max_over_time(sum by (namespace, pod, resource)", "pod-requests"),
            ("sum_over_time((sum by (namespace, pod, resource)", "pod-gpu-steps"),
            ("count_over_time((max by (namespace, pod)", "pod-run-steps"),
            ("sum by (namespace, pod, resource)", "pod-end"),
            ("(max by (namespace, pod) (kube_pod_status_phase", "pod-start"),
            ("count_over_time((max by (node) (kube_node_info)", "node-up-steps"),
            ("count_over_time(((sum by (node)", "node-half-steps"),
            ("sum_over_time(((sum by (node)", "node-half-free"),
            ("sum_over_time((sum by (node)", "node-hourly"),
            ("(max by (node) (kube_node_info)", "node-up-end"),
            ("(sum by (node) ((sum by (namespace, pod)", "node-alloc-end"),
            ("group by (gp_namespace", "act-sliced")]


def steps_of(q):
    """The number of steps of a query's [W-1s:Rs] subquery (0 when none)."""
    m = re.search(r"\[(\d+)s:(\d+)s\]", q)
    return (int(m.group(1)) + 1) // int(m.group(2)) if m else 0


def kind_of(q):
    """The advisor query a PromQL text is (see advisor/query.c)."""
    if "unless on (node)" in q:
        return "node-empty-steps"
    for prefix, k in PREFIXES:
        if q.startswith(prefix):
            return k
    table = [("last_over_time(DCGM_FI_PROF", "dcgm-prof"), ("last_over_time(DCGM_FI_DEV", "dcgm-util"),
             ("sum_over_time(DCGM", "act-sum"), ("count_over_time(DCGM", "act-count"),
             ("quantile_over_time", "act-p95"), ("avg_over_time(DCGM", "act-hourly"),
             ("DCGM_FI_DEV_FB_USED", "fb-peak"),
             ("kube_pod_status_phase", "pod-running"), ("kube_pod_info", "pod-node"),
             ("kube_pod_owner", "pod-owner"), ("kube_replicaset_owner", "owner-owner"),
             ("kube_pod_labels", "pod-labels"),
             ("kube_node_labels", "node-labels"), ("kube_node_status_allocatable", "node-alloc"),
             ("kube_pod_container_resource_requests", "pod-requests")]
    for needle, k in table:
        if needle in q:
            return k
    return "unknown"


def instant(mode, k, t, q=""):
    dcgm = {"dcgm-prof": "1", "dcgm-util": "1", "act-sum": "40", "act-count": "2000",
            "act-p95": "0.04", "fb-peak": "2000"}
    if k in dcgm:
        if mode == "nodcgm" or (mode == "utilonly" and k == "dcgm-prof"):
            return []
        v = dcgm[k]
        if mode == "nan" and k == "act-p95":
            return [{"metric": A, "value": [t, "NaN"]},
                    {"metric": dict(A, UUID="GPU-2", exported_pod="b"), "value": [t, "+Inf"]}]
        return [{"metric": A, "value": [t, v]}]
    other = {
        "pod-node": ({"namespace": "ml", "pod": "a", "node": "n1"}, str(t)),
        "pod-owner": ({"namespace": "ml", "pod": "a", "owner_kind": "ReplicaSet",
                       "owner_name": "a-7d9"}, "1"),
        "owner-owner": ({"namespace": "ml", "replicaset": "a-7d9", "owner_kind": "Deployment",
                         "owner_name": "a"}, "1"),
        "pod-labels": ({"namespace": "ml", "pod": "a", "label_gpupack_io_class": "inference"}, "1"),
        "node-alloc": ({"node": "n1", "resource": "nvidia_com_gpu"}, "2"),
        "node-labels": ({"node": "n1", "label_nvidia_com_gpu_product": "NVIDIA-A100-SXM4-80GB"}, "1"),
    }
    pod, n1 = {"namespace": "ml", "pod": "a"}, {"node": "n1"}
    req = dict(pod, resource="nvidia_com_gpu")
    kube = {  # pod a on n1 (2 GPUs) requests 1 GPU and runs every step
        "pod-requests": (req, "1"), "pod-gpu-steps": (req, str(steps_of(q))),
        "pod-run-steps": (pod, str(steps_of(q))), "pod-end": (req, "1"), "pod-start": (pod, "1"),
        "node-up-steps": (n1, str(steps_of(q))), "node-up-end": (n1, "1"),
        "node-alloc-end": (n1, "1"),
    }
    if k in kube and not (mode == "noksm" and k.startswith("pod-")):
        return [{"metric": kube[k][0], "value": [t, kube[k][1]]}]
    if k in other:
        return [{"metric": other[k][0], "value": [t, other[k][1]]}]
    return []


def matrix(mode, k, start, end, step):
    ts = []
    t = start
    while t <= end + 1e-6 and len(ts) < 20000:
        ts.append(t)
        t += step
    metric = {
        "node-hourly": {"node": "n1"},
        "act-hourly": A,
    }.get(k)
    if metric is None or (mode == "noksm" and k.startswith("pod-")) or \
            (mode == "nodcgm" and k == "act-hourly"):
        return []
    v = "0.02" if k == "act-hourly" else "12"
    return [{"metric": metric, "values": [[x, v] for x in ts]}]


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *_):
        pass

    def answer(self, code, body, ctype="application/json", headers=()):
        out = body.encode() if isinstance(body, str) else json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(out)))
        for h, v in headers:
            self.send_header(h, v)
        self.end_headers()
        self.wfile.write(out)

    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(n).decode("utf-8", "replace")
        form = {k: v[0] for k, v in parse_qs(body).items()}
        srv = self.server
        with srv.lock:
            srv.count += 1
            count = srv.count
            with open(srv.log, "a", encoding="utf-8") as f:
                f.write(json.dumps({"t": time.time(), "path": self.path, "form": form,
                                    "headers": dict(self.headers.items())}) + "\n")
        mode = srv.mode
        if mode == "slow":
            time.sleep(30)
            return
        if mode == "nonjson":
            return self.answer(200, "<html>login</html>", "text/html")
        if mode == "400":
            return self.answer(400, {"status": "error", "errorType": "bad_data",
                                     "error": "parse error at char 7: unexpected identifier"})
        if mode == "422" or (mode == "422node" and
                             kind_of(form.get("query", "")) == "node-empty-steps"):
            return self.answer(422, {"status": "error", "errorType": "execution",
                                     "error": "query processing would load too many samples into memory in query execution"})
        if mode == "503once" and count == 1:
            return self.answer(503, {"status": "error", "errorType": "unavailable",
                                     "error": "fake 503"})
        if mode == "429once" and count == 1:
            return self.answer(429, {"status": "error", "errorType": "unavailable",
                                     "error": "fake 429"}, headers=[("Retry-After", "1")])
        k = kind_of(form.get("query", ""))
        if self.path.endswith("/query_range"):
            data = {"resultType": "matrix",
                    "result": matrix(mode, k, float(form["start"]), float(form["end"]),
                                     float(form["step"]))}
        else:
            data = {"resultType": "vector", "result": instant(mode, k, float(form["time"]),
                                                                   form.get("query", ""))}
        out = {"status": "success", "data": data}
        if mode == "warn":
            out["warnings"] = ["fake warning: partial response for " + k]
        return self.answer(200, out)

    do_GET = do_POST


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--mode", default="ok")
    a = ap.parse_args()
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    srv.mode, srv.count, srv.log, srv.lock = a.mode, 0, a.log, threading.Lock()
    tmp = a.port_file + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(str(srv.server_address[1]))
    os.replace(tmp, a.port_file)
    ppid = os.getppid()
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    while os.getppid() == ppid:  # die with the shell test
        time.sleep(0.5)
    sys.exit(0)


if __name__ == "__main__":
    main()
