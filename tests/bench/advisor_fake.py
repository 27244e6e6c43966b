#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A fake Prometheus for the advisor benchmark (tools/bench.sh; Python 3 standard library).

    python3 tests/bench/advisor_fake.py --port-file F --end T [--since 7d] [--step 300]
        [--gpus 10000] [--seed 42] [--log L]

Answers /api/v1/query and /api/v1/query_range for a synthetic cluster, deterministic for a seed:
GPUS / 8 nodes of 8 GPUs (A100 40GB and H100 machines, A100 80GB ones in MIG mode with 3g.40gb
+ 2 x 2g.20gb per GPU, some of them spot, some up for part of the window), and about
0.9 x GPUS GPU pods over the window: inference Deployments (one GPU, some idle), MIG embedders
(some restarted during the window), StatefulSets of 4 GPUs, notebooks (mostly idle) and 8-GPU
training Jobs one after another (some with idle GPUs, some idle at the end), with
kube-state-metrics and dcgm-exporter series as Prometheus would aggregate them.

The results are shaped exactly as Prometheus writes them (vector/matrix, string values, label
sets of an aggregation's `by` labels). Each query of the advisor (advisor/query.c) is recognised
by its metric names and function shape; anything else is answered 400 bad_data naming the query,
so a mismatch is loud. A body is built once per distinct request and kept: run the advisor once
to warm the cache, then time a second run. GET /stats: requests, bytes, seconds spent answering
(serve_seconds: the fake's own time, to report apart from the advisor's) and building (build_seconds).
"""
import argparse
import json
import math
import os
import random
import re
import socket
import sys
import threading
import time
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

MIB_40G, MIB_80G = 40960, 81920
NAMESPACES = ["search", "ads", "recsys", "vision", "speech", "llm", "fraud", "maps", "ml-platform",
              "research", "nlp", "genai", "risk", "data-science", "robotics", "forecast"]
NODE_KINDS = {  # instance type -> (gpu product label, DCGM modelName, memory MiB)
    "p4d.24xlarge": ("NVIDIA-A100-SXM4-40GB", "NVIDIA A100-SXM4-40GB", MIB_40G),
    "p5.48xlarge": ("NVIDIA-H100-80GB-HBM3", "NVIDIA H100 80GB HBM3", MIB_80G),
    "p4de.24xlarge": ("NVIDIA-A100-SXM4-80GB", "NVIDIA A100-SXM4-80GB", MIB_80G),
}
MIG_SLICES = [("3g.40gb", 40192), ("2g.20gb", 19968), ("2g.20gb", 19968)]  # per MIG-mode GPU


def parse_duration(s):
    m = re.fullmatch(r"(\d+)([smhdw])", s)
    if not m:
        raise SystemExit("bad duration %r" % s)
    return int(m.group(1)) * {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}[m.group(2)]


def fmt(v):
    """A sample value as Prometheus writes it (Go's FormatFloat 'f', -1, or NaN/+Inf)."""
    if v != v:
        return "NaN"
    if v == math.inf:
        return "+Inf"
    r = repr(float(v))
    if r.endswith(".0"):
        r = r[:-2]
    return r


def tstr(t):
    return str(int(t)) if t == int(t) else repr(t)


# ---- the cluster ----------------------------------------------------------------------------------


class Node:
    __slots__ = ("name", "itype", "product", "model", "mem", "spot", "mig", "up0", "up1", "idx")


class Dev:
    """One GPU or MIG instance a pod used, with its activity over the pod's life."""
    __slots__ = ("host", "uuid", "gpu", "model", "profile", "gi", "mean", "p95", "fb_peak",
                 "fb_total", "util_only", "up0", "up1")


class Pod:
    __slots__ = ("ns", "name", "node", "owner_kind", "owner_name", "oo_kind", "oo_name", "labels",
                 "req", "s0", "s1", "devs", "cls", "idle_tail")


class Cluster:
    def __init__(self, gpus, end, window, step, seed):
        self.end, self.step = end, step
        self.steps = -(-window // step)
        self.t0 = end - (self.steps - 1) * step
        self.nhours = -(-(self.steps * step) // 3600)
        rnd = random.Random(seed)
        self.nodes, self.pods = [], []
        self.replicasets, self.jobs = {}, {}  # name -> (namespace, owner kind, owner name)
        nn = max(1, gpus // 8)
        S = self.steps
        for i in range(nn):
            n = Node()
            n.idx, n.name = i, "gpu-node-%05d" % i
            f = i / nn
            n.itype = "p4de.24xlarge" if f < 0.08 or f >= 0.80 else (
                "p4d.24xlarge" if f < 0.48 else "p5.48xlarge")
            n.product, n.model, n.mem = NODE_KINDS[n.itype]
            n.mig = f < 0.08
            n.spot = f >= 0.92
            n.up0, n.up1 = 0, S - 1
            if f >= 0.96:
                n.up0 = S // 2  # scaled up half way
            elif 0.90 <= f < 0.91:
                n.up1 = S // 3  # scaled down after two days
            self.nodes.append(n)
        self.uid = 0
        self.free = []  # GPUs no pod used in the window: dcgm-exporter series without pod labels
        for n in self.nodes:
            used = len(self.pods)
            if n.mig:
                self._mig_node(rnd, n)
            elif n.itype == "p4d.24xlarge":
                self._inference_node(rnd, n)
            elif n.itype == "p5.48xlarge":
                self._training_node(rnd, n)
            else:
                self._sts_node(rnd, n)
            if not n.mig:
                taken = {d.gpu for p in self.pods[used:] for d in p.devs}
                for g in range(8):
                    if str(g) not in taken:
                        d = self._dev(n, g)
                        d.up0, d.up1 = n.up0, n.up1
                        self.free.append(d)

    # pieces ----------------------------------------------------------------------------------------
    def _uuid(self, n, g):
        h = zlib.crc32(("%s/%d" % (n.name, g)).encode())
        return "GPU-%08x-%04x-%04x-%04x-%012x" % (h, n.idx & 0xFFFF, g, (h >> 8) & 0xFFFF, h * 7919 & 0xFFFFFFFFFFFF)

    def _suffix(self, rnd, k=5):
        return "".join(rnd.choice("bcdfghjklmnpqrstvwxz2456789") for _ in range(k))

    def _dev(self, n, g, profile=None, gi=None, fb_total=None):
        d = Dev()
        d.host, d.gpu, d.model, d.profile, d.gi = n.name, str(g), n.model, profile, gi
        d.uuid = self._uuid(n, g)
        d.fb_total = fb_total if fb_total else n.mem
        d.util_only = False
        return d

    def _act(self, d, rnd, idle, lo=0.15, hi=0.7):
        if idle:
            d.mean = rnd.uniform(0.0, 0.02)
            d.p95 = d.mean + rnd.uniform(0.0, 0.03)
        else:
            d.mean = rnd.uniform(lo, hi)
            d.p95 = min(1.0, d.mean + rnd.uniform(0.05, 0.3))
        d.fb_peak = None

    def _pod(self, ns, name, n, okind, oname, s0, s1, req, cls, labels=None):
        p = Pod()
        p.ns, p.name, p.node, p.owner_kind, p.owner_name = ns, name, n, okind, oname
        p.oo_kind = p.oo_name = None
        p.labels = dict(labels or {})
        if cls:
            p.labels["gpupack.io/class"] = cls
        p.req, p.s0, p.s1, p.devs, p.cls, p.idle_tail = req, max(s0, n.up0), min(s1, n.up1), [], cls, 0
        if p.s0 <= p.s1:
            self.pods.append(p)
            return p
        return None

    def _deployment(self, rnd, ns, app):
        rs = "%s-%s" % (app, self._suffix(rnd, 9))
        self.replicasets[rs] = (ns, "Deployment", app)
        return rs

    def _mig_node(self, rnd, n):
        S = self.steps
        for g in range(8):
            for j, (prof, mem) in enumerate(MIG_SLICES):
                ns = rnd.choice(NAMESPACES)
                app = "embedder-%s" % self._suffix(rnd, 4)
                rs = self._deployment(rnd, ns, app)
                cuts = [0, S - 1]
                if rnd.random() < 0.25:  # restarted (a rollout) once or twice
                    cuts = [0] + sorted(rnd.sample(range(S // 10, S - S // 10), rnd.choice([1, 2]))) + [S - 1]
                for a, b in zip(cuts, cuts[1:]):
                    p = self._pod(ns, "%s-%s" % (rs, self._suffix(rnd)), n, "ReplicaSet", rs, a, b,
                                  {"nvidia_com_mig_" + prof.replace(".", "_"): 1}, "inference",
                                  {"app.kubernetes.io/name": app})
                    if p is None:
                        continue
                    d = self._dev(n, g, prof, str(j + 1), mem)
                    self._act(d, rnd, rnd.random() < 0.15, 0.1, 0.6)
                    d.fb_peak = rnd.uniform(0.2, 0.9) * mem
                    p.devs.append(d)

    def _inference_node(self, rnd, n):
        S = self.steps
        for g in range(8):
            ns = rnd.choice(NAMESPACES)
            if g >= 7 and rnd.random() < 0.6:  # a notebook, mostly idle, a few a week
                a = 0
                while a < S:
                    b = min(S - 1, a + rnd.randint(S // 14, S // 2))
                    user = "u%05d" % len(self.pods)
                    p = self._pod(ns, "nb-%s-0" % user, n, "StatefulSet", "nb-" + user, a, b, {"nvidia_com_gpu": 1},
                                  "notebook", {"app.kubernetes.io/name": "jupyter"})
                    if p is not None:
                        p.oo_kind, p.oo_name = "Notebook", "nb-" + user
                        d = self._dev(n, g)
                        self._act(d, rnd, rnd.random() < 0.7)
                        d.fb_peak = rnd.uniform(0.05, 0.5) * n.mem
                        d.util_only = rnd.random() < 0.3  # an older exporter: GPU_UTIL only
                        p.devs.append(d)
                    a = b + rnd.randint(S // 28, S // 7)
                continue
            if rnd.random() < 0.04:
                continue  # an unallocated GPU
            app = "%s-%s" % (rnd.choice(["ranker", "reranker", "asr", "ocr", "tts", "detector", "chat"]),
                             self._suffix(rnd, 3))
            rs = self._deployment(rnd, ns, app)
            p = self._pod(ns, "%s-%s" % (rs, self._suffix(rnd)), n, "ReplicaSet", rs, 0, S - 1, {"nvidia_com_gpu": 1},
                          "inference" if rnd.random() < 0.8 else None,
                          {"app.kubernetes.io/name": app, "gpupack.io/model": rnd.choice(["bert-large", "llama-8b", "whisper", "yolo"])})
            if p is None:
                continue
            d = self._dev(n, g)
            self._act(d, rnd, rnd.random() < 0.2, 0.02, 0.5)
            d.fb_peak = rnd.uniform(0.1, 0.95) * n.mem
            p.devs.append(d)

    def _sts_node(self, rnd, n):
        S = self.steps
        if rnd.random() < 0.12:
            return  # an empty node all week
        for half in range(2):
            if half == 1 and rnd.random() < 0.3:
                continue  # half allocated
            ns = rnd.choice(NAMESPACES)
            sts = "%s-%s" % (rnd.choice(["vectordb", "feature-store", "sim", "serving"]), self._suffix(rnd, 3))
            p = self._pod(ns, "%s-%d" % (sts, half), n, "StatefulSet", sts, 0, S - 1, {"nvidia_com_gpu": 4},
                          "inference" if rnd.random() < 0.5 else "batch", {"app.kubernetes.io/name": sts})
            if p is None:
                continue
            nidle = rnd.choice([0, 0, 0, 1, 2, 4])
            for g in range(half * 4, half * 4 + 4):
                d = self._dev(n, g)
                self._act(d, rnd, g - half * 4 < nidle, 0.2, 0.8)
                d.fb_peak = rnd.uniform(0.3, 0.95) * n.mem
                p.devs.append(d)

    def _training_node(self, rnd, n):
        S, per_h = self.steps, 3600 // self.step
        a = rnd.randint(-S // 3, 0)
        team = rnd.choice(NAMESPACES)
        cron = "pretrain-%s" % self._suffix(rnd, 3)
        k = 0
        while a < S:
            dur = rnd.randint(12 * per_h, 48 * per_h)
            if rnd.random() < 0.05:
                dur *= 4  # a runaway: four times the usual
            b = a + dur
            job = "%s-%d" % (cron, 29000000 + k)
            self.jobs[job] = (team, "CronJob", cron)
            p = self._pod(team, "%s-%s" % (job, self._suffix(rnd)), n, "Job", job, max(a, 0), min(b, S - 1),
                          {"nvidia_com_gpu": 8}, "training", {"app.kubernetes.io/name": cron, "job-name": job})
            if p is not None:
                nidle = rnd.choice([0] * 8 + [2, 4])
                for g in range(8):
                    d = self._dev(n, g)
                    self._act(d, rnd, g < nidle, 0.6, 0.95)
                    d.fb_peak = rnd.uniform(0.5, 0.98) * n.mem
                    p.devs.append(d)
                if b >= S - 1 and rnd.random() < 0.2:
                    p.idle_tail = rnd.randint(3, 20)  # hung: idle for its last hours
            a = b + 1 + rnd.randint(0, 6 * per_h)
            k += 1

    # views the queries read --------------------------------------------------------------------------
    def step_time(self, k):
        return self.t0 + k * self.step

    def hours(self, s0, s1):
        """The hour buckets with a sample of something present from step s0 to step s1."""
        hs = self.step / 3600.0
        first = self.nhours - 1 - int((self.steps - 1 - s0) * hs)
        last = self.nhours - 1 - int((self.steps - 1 - s1) * hs)
        return range(max(0, first), last + 1)

    def hourly(self, p, d):
        """(hour index, value) for every hour bucket the pod ran in."""
        out = []
        hrs = self.hours(p.s0, p.s1)
        last = hrs[-1] if len(hrs) else 0
        phase = (zlib.crc32(d.uuid.encode()) % 24)
        for h in hrs:
            v = d.mean * (1 + 0.4 * math.sin(2 * math.pi * (h + phase) / 24))
            if p.idle_tail and h > last - p.idle_tail:
                v = 0.002
            out.append((h, min(1.0, max(0.0, v))))
        return out


# ---- queries ----------------------------------------------------------------------------------------

DCGM_POD = ("namespace", "pod", "container")


def dcgm_labels(p, d):
    lb = {"Hostname": d.host, "UUID": d.uuid, "gpu": d.gpu, "modelName": d.model,
          "namespace": p.ns, "pod": p.name, "container": "main"}
    if d.profile:
        lb["GPU_I_PROFILE"], lb["GPU_I_ID"] = d.profile, d.gi
    return lb


def by_labels(q):
    """The labels of the outermost `by (...)`, or None."""
    m = re.search(r"\bby\s*\(([^)]*)\)", q)
    if not m:
        return None
    return [x.strip() for x in m.group(1).split(",") if x.strip()]


def project(lb, by):
    if by is None:
        return lb
    return {k: lb[k] for k in by if k in lb}


def sanitize(key):
    return re.sub(r"[^a-zA-Z0-9_]", "_", key)


class Answer:
    """Builds result bodies for a cluster."""

    def __init__(self, c):
        self.c = c

    # -- helpers --
    def vector(self, t, rows):
        parts = []
        for lb, v in rows:
            parts.append('{"metric":%s,"value":[%s,"%s"]}' % (json.dumps(lb, separators=(",", ":")), tstr(t), fmt(v)))
        return '{"status":"success","data":{"resultType":"vector","result":[' + ",".join(parts) + "]}}"

    def matrix(self, rows):
        parts = []
        for lb, pts in rows:
            if not pts:
                continue
            vals = ",".join('[%s,"%s"]' % (tstr(t), fmt(v)) for t, v in pts)
            parts.append('{"metric":%s,"values":[%s]}' % (json.dumps(lb, separators=(",", ":")), vals))
        return '{"status":"success","data":{"resultType":"matrix","result":[' + ",".join(parts) + "]}}"

    def steps_matrix(self, rows, prm):
        """A range query's matrix of series each present (with a constant value) from step s0
        to step s1 of the window: rows of (labels, s0, s1, value)."""
        c = self.c
        start, end, step = prm["start"], prm["end"], prm["step"]
        stride = step / c.step
        kstart = (start - c.t0) / c.step
        if abs(stride - round(stride)) > 1e-9 or stride < 1 or abs(kstart - round(kstart)) > 1e-9:
            raise ValueError("range %g..%g step %g is not on the window's steps" % (start, end, step))
        stride, kstart = int(round(stride)), int(round(kstart))
        n = int((end - start) // step) + 1
        times = [tstr(start + j * step) for j in range(n)]
        pre, parts, seen = {}, [], set()
        for lb, s0, s1, v in rows:
            j0 = max(0, -(-(s0 - kstart) // stride))
            j1 = min(n - 1, (s1 - kstart) // stride)
            if j0 > j1:
                continue
            key = json.dumps(lb, separators=(",", ":"), sort_keys=True)
            if key in seen:
                raise ValueError("two series with labels %s" % key)
            seen.add(key)
            fv = fmt(v)
            cells = pre.get(fv)
            if cells is None:
                cells = pre[fv] = ['[%s,"%s"]' % (t, fv) for t in times]
            parts.append('{"metric":%s,"values":[%s]}' % (json.dumps(lb, separators=(",", ":")),
                                                          ",".join(cells[j0:j1 + 1])))
        return '{"status":"success","data":{"resultType":"matrix","result":[' + ",".join(parts) + "]}}"

    def per_dev(self, q, prm, value, free):
        """An instant vector with one sample per device series (value(pod, dev), None: no such
        series), the pod-less series of unallocated GPUs valued free(dev), by the query's labels."""
        by = by_labels(q)
        rows, seen = [], set()
        for p in self.c.pods:
            for d in p.devs:
                v = value(p, d)
                if v is None:
                    continue
                lb = project(dcgm_labels(p, d), by)
                key = json.dumps(lb, sort_keys=True)
                if key in seen:
                    raise ValueError("two series with labels %s" % key)
                seen.add(key)
                rows.append((lb, v))
        for d in self.c.free:
            v = free(d)
            if v is not None:
                rows.append((project({"Hostname": d.host, "UUID": d.uuid, "gpu": d.gpu, "modelName": d.model}, by), v))
        return self.vector(prm["t"], rows)


class Rule:
    def __init__(self, name, kind, pred, fn):
        self.name, self.kind, self.pred, self.fn = name, kind, pred, fn


RULES = []


def rule(name, kind, pred):
    """kind: "instant" or "range", what the advisor must send for this query."""
    def deco(fn):
        RULES.append(Rule(name, kind, pred, fn))
        return fn
    return deco


def has(*names):
    return lambda q: all(n in q for n in names)


def hasnt(*names):
    return lambda q: not any(n in q for n in names)


def both(*preds):
    return lambda q: all(p(q) for p in preds)


PROF, UTIL = "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "DCGM_FI_DEV_GPU_UTIL"
DCGM = lambda q: PROF in q or UTIL in q  # noqa: E731


def samples_of(c, p):
    """dcgm-exporter samples (every 30 s) of a device over the pod's steps in the window."""
    return (p.s1 - p.s0 + 1) * (c.step // 30)


# -- the per-pod and per-node reductions (subqueries at the window's steps) ---------------------------

MIG_WEIGHT = {"nvidia_com_gpu": 1.0, "nvidia_com_mig_3g_40gb": 3 / 7, "nvidia_com_mig_2g_20gb": 2 / 7}


def starts(prefix):
    return lambda q: q.startswith(prefix)


def node_steps(c):
    """Per node: (capacity, allocation per step), allocation from the pods Running on it."""
    out = getattr(c, "_node_steps", None)
    if out is not None:
        return out
    S = c.steps
    diff = {n.name: [0.0] * (S + 1) for n in c.nodes}
    for p in c.pods:
        w = sum(v * MIG_WEIGHT[r] for r, v in p.req.items())
        d = diff[p.node.name]
        d[p.s0] += w
        d[p.s1 + 1] -= w
    out = {}
    for n in c.nodes:
        cap = (8 * 3 + 16 * 2) / 7 if n.mig else 8.0
        acc, a, d = 0.0, [], diff[n.name]
        for k in range(S):
            acc += d[k]
            a.append(acc if acc > 1e-9 else 0.0)
        out[n.name] = (cap, a)
    c._node_steps = out
    return out


def steps_of(c, q, prm):
    """The window's steps a per-step query's subquery covers: [N s:R s] evaluated at time t (the
    advisor asks long windows in parts, each over its own steps), as (first, last)."""
    m = re.findall(r"\[(\d+)s:(\d+)s\]", q)
    if not m:
        raise ValueError("no subquery in a per-step query")
    n, r = (int(x) for x in m[-1])
    if r != c.step:
        raise ValueError("subquery step %ds, the window's is %ds" % (r, c.step))
    last = int(round((prm["t"] - c.t0) / c.step))
    return max(0, last - (n + 1) // r + 1), min(c.steps - 1, last)


def overlap(p, k0, k1):
    """Steps of pod p in k0..k1."""
    return max(0, min(p.s1, k1) - max(p.s0, k0) + 1)


def node_rows(c, value, k0=0, k1=None):
    """One row per node: value(node, capacity, allocation per step, up steps in k0..k1) or None."""
    rows = []
    k1 = c.steps - 1 if k1 is None else k1
    for n in c.nodes:
        cap, a = node_steps(c)[n.name]
        up = range(max(n.up0, k0), min(n.up1, k1) + 1)
        if len(up) == 0:
            continue
        v = value(n, cap, a, up)
        if v is not None:
            rows.append(({"node": n.name}, v))
    return rows


@rule("pod-requests", "instant", starts("max_over_time(sum by (namespace, pod, resource)"))
def q_pod_requests(a, q, prm):
    k0, k1 = steps_of(a.c, q, prm)
    return a.vector(prm["t"], [({"namespace": p.ns, "pod": p.name, "resource": r}, v)
                               for p in a.c.pods if overlap(p, k0, k1) for r, v in p.req.items()])


@rule("pod-gpu-steps", "instant", starts("sum_over_time((sum by (namespace, pod, resource)"))
def q_pod_gpu_steps(a, q, prm):
    k0, k1 = steps_of(a.c, q, prm)
    return a.vector(prm["t"], [({"namespace": p.ns, "pod": p.name, "resource": r}, v * overlap(p, k0, k1))
                               for p in a.c.pods if overlap(p, k0, k1) for r, v in p.req.items()])


@rule("pod-run-steps", "instant", starts("count_over_time((max by (namespace, pod)"))
def q_pod_run_steps(a, q, prm):
    k0, k1 = steps_of(a.c, q, prm)
    return a.vector(prm["t"], [({"namespace": p.ns, "pod": p.name}, overlap(p, k0, k1))
                               for p in a.c.pods if overlap(p, k0, k1)])


@rule("pod-end", "instant", starts("sum by (namespace, pod, resource)"))
def q_pod_end(a, q, prm):
    S = a.c.steps
    return a.vector(prm["t"], [({"namespace": p.ns, "pod": p.name, "resource": r}, v)
                               for p in a.c.pods if p.s1 == S - 1 for r, v in p.req.items()])


@rule("pod-start", "instant", starts("(max by (namespace, pod) (kube_pod_status_phase"))
def q_pod_start(a, q, prm):
    if abs(prm["t"] - a.c.t0) > 1e-6:
        raise ValueError("pod-start must be evaluated at t_0 %g, got %g" % (a.c.t0, prm["t"]))
    return a.vector(prm["t"], [({"namespace": p.ns, "pod": p.name}, 1) for p in a.c.pods if p.s0 == 0])


@rule("node-empty-steps", "instant", has("unless on (node)"))
def q_node_empty(a, q, prm):
    return a.vector(prm["t"], node_rows(a.c, lambda n, cap, al, up: sum(1 for k in up if al[k] == 0) or None,
                                        *steps_of(a.c, q, prm)))


@rule("node-up-steps", "instant", starts("count_over_time((max by (node) (kube_node_info)"))
def q_node_up_steps(a, q, prm):
    return a.vector(prm["t"], node_rows(a.c, lambda n, cap, al, up: len(up), *steps_of(a.c, q, prm)))


@rule("node-half-steps", "instant", starts("count_over_time(((sum by (node)"))
def q_node_half(a, q, prm):
    return a.vector(prm["t"], node_rows(a.c, lambda n, cap, al, up:
                                        sum(1 for k in up if 0 < al[k] < cap / 2) or None,
                                        *steps_of(a.c, q, prm)))


@rule("node-half-free", "instant", starts("sum_over_time(((sum by (node)"))
def q_node_half_free(a, q, prm):
    return a.vector(prm["t"], node_rows(a.c, lambda n, cap, al, up:
                                        sum(cap - al[k] for k in up if 0 < al[k] < cap / 2) or None,
                                        *steps_of(a.c, q, prm)))


@rule("node-hourly", "range", starts("sum_over_time((sum by (node)"))
def q_node_hourly(a, q, prm):
    c = a.c
    start, end, step = prm["start"], prm["end"], prm["step"]
    if step != 3600:
        raise ValueError("node-hourly: the fake has hourly values only (step 3600), got %g" % step)
    rows = []
    for n in c.nodes:
        _, al = node_steps(c)[n.name]
        sums = [0.0] * c.nhours
        for k, v in enumerate(al):
            sums[c.nhours - 1 - int((c.steps - 1 - k) * c.step // 3600)] += v
        pts = [(c.end - (c.nhours - 1 - h) * 3600, v) for h, v in enumerate(sums)
               if v > 0 and start <= c.end - (c.nhours - 1 - h) * 3600 <= end]
        rows.append(({"node": n.name}, pts))
    return a.matrix(rows)


@rule("node-up-end", "instant", starts("(max by (node) (kube_node_info)"))
def q_node_up_end(a, q, prm):
    return a.vector(prm["t"], node_rows(a.c, lambda n, cap, al, up: 1 if n.up1 == a.c.steps - 1 else None))


@rule("node-alloc-end", "instant", starts("(sum by (node) ((sum by (namespace, pod)"))
def q_node_alloc_end(a, q, prm):
    return a.vector(prm["t"], node_rows(a.c, lambda n, cap, al, up: al[-1] or None))


@rule("activity-sliced", "range", has("group by (gp_namespace"))
def q_sliced(a, q, prm):
    c = a.c
    hours = {}  # (host, uuid) -> hour -> set of pods
    for p in c.pods:
        for d in p.devs:
            if d.profile:
                continue
            for h, _ in c.hourly(p, d):
                hours.setdefault((d.host, d.uuid), {}).setdefault(h, set()).add((p.ns, p.name))
    rows = {}
    for (host, uuid), per in hours.items():
        for h, pods in per.items():
            if len(pods) < 2:
                continue
            for ns, pod in pods:
                rows.setdefault((ns, pod, host, uuid), []).append((c.end - (c.nhours - 1 - h) * 3600, 1))
    return a.matrix([({"gp_namespace": k[0], "gp_pod": k[1], "gp_host": k[2], "UUID": k[3]}, sorted(v))
                     for k, v in rows.items()])


@rule("activity-hourly", "range", both(DCGM, has("avg_over_time")))
def q_hourly(a, q, prm):
    c = a.c
    by = by_labels(q)  # the outer avg: the pod's labels
    start, end, step = prm["start"], prm["end"], prm["step"]
    if step != 3600:
        raise ValueError("activity-hourly: the fake has hourly values only (step 3600), got %g" % step)
    rows = []
    for p in c.pods:
        per = {}
        for d in p.devs:
            for h, v in c.hourly(p, d):
                per.setdefault(h, []).append(v)
        pts = [(c.end - (c.nhours - 1 - h) * 3600, sum(v) / len(v)) for h, v in sorted(per.items())
               if start <= c.end - (c.nhours - 1 - h) * 3600 <= end]
        rows.append((project(dcgm_labels(p, p.devs[0]) if p.devs else {"namespace": p.ns, "pod": p.name}, by), pts))
    free = sorted({h for d in c.free for h in c.hours(d.up0, d.up1)})
    rows.append(({}, [(c.end - (c.nhours - 1 - h) * 3600, 0.0) for h in free]))
    return a.matrix(rows)


# -- dcgm-exporter, per GPU (the `by` labels of the query) ----------------------------------------------

@rule("node-labels", "instant", has("kube_node_labels"))
def q_node_labels(a, q, prm):
    by = by_labels(q) or []
    rows = []
    for n in a.c.nodes:
        lb = {"node": n.name, "label_node_kubernetes_io_instance_type": n.itype,
              "label_nvidia_com_gpu_product": n.product,
              "label_karpenter_sh_capacity_type": "spot" if n.spot else "on-demand"}
        rows.append(({k: v for k, v in lb.items() if k in by}, 1))
    return a.vector(prm["t"], rows)


@rule("node-alloc", "instant", has("kube_node_status_allocatable"))
def q_node_alloc(a, q, prm):
    rows = []
    for n in a.c.nodes:
        if n.mig:
            res = {"nvidia_com_mig_3g_40gb": 8, "nvidia_com_mig_2g_20gb": 16}
        else:
            res = {"nvidia_com_gpu": 8}
        for r, v in res.items():
            rows.append((project({"node": n.name, "resource": r}, by_labels(q)), v))
    return a.vector(prm["t"], rows)


@rule("pod-labels", "instant", has("kube_pod_labels"))
def q_pod_labels(a, q, prm):
    by = by_labels(q) or []
    rows = []
    for p in a.c.pods:
        lb = {"namespace": p.ns, "pod": p.name}
        for k, v in p.labels.items():
            lb["label_" + sanitize(k)] = v
        rows.append(({k: v for k, v in lb.items() if k in by}, 1))
    return a.vector(prm["t"], rows)


@rule("owner-owner", "instant", lambda q: "kube_replicaset_owner" in q or "kube_job_owner" in q)
def q_owner_owner(a, q, prm):
    by = by_labels(q)
    rows = []
    for rs, (ns, k, n) in a.c.replicasets.items():
        rows.append((project({"namespace": ns, "replicaset": rs, "owner_kind": k, "owner_name": n}, by), 1))
    for job, (ns, k, n) in a.c.jobs.items():
        rows.append((project({"namespace": ns, "job_name": job, "owner_kind": k, "owner_name": n}, by), 1))
    return a.vector(prm["t"], rows)


@rule("pod-owner", "instant", has("kube_pod_owner"))
def q_pod_owner(a, q, prm):
    by = by_labels(q)
    return a.vector(prm["t"], [(project({"namespace": p.ns, "pod": p.name, "owner_kind": p.owner_kind,
                                         "owner_name": p.owner_name}, by), 1) for p in a.c.pods])


@rule("pod-node", "instant", has("kube_pod_info"))
def q_pod_node(a, q, prm):
    by = by_labels(q)
    c = a.c
    # each incarnation's node valued by its kube_pod_created (raw_series(): its first sample)
    return a.vector(prm["t"], [(project({"namespace": p.ns, "pod": p.name, "node": p.node.name}, by),
                                c.step_time(p.s0) - 250) for p in c.pods])


@rule("fb-peak", "instant", has("DCGM_FI_DEV_FB_USED"))
def q_fb_peak(a, q, prm):
    return a.per_dev(q, prm, lambda p, d: float(round(d.fb_peak)), free=lambda d: 0.0)


@rule("activity-p95", "instant", both(DCGM, has("quantile_over_time")))
def q_p95(a, q, prm):
    return a.per_dev(q, prm, lambda p, d: d.p95, free=lambda d: 0.0)


@rule("activity-count", "instant", both(DCGM, has("count_over_time")))
def q_count(a, q, prm):
    c = a.c
    return a.per_dev(q, prm, lambda p, d: float(samples_of(c, p)),
                     free=lambda d: float((d.up1 - d.up0 + 1) * (c.step // 30)))


@rule("activity-sum", "instant", both(DCGM, has("sum_over_time")))
def q_sum(a, q, prm):
    c = a.c
    return a.per_dev(q, prm, lambda p, d: d.mean * samples_of(c, p), free=lambda d: 0.0)


@rule("dcgm-prof-series", "instant", both(has(PROF), hasnt(UTIL), lambda q: "last_over_time" in q or "count" in q))
def q_prof_series(a, q, prm):
    return a.per_dev(q, prm, lambda p, d: None if d.util_only else 1.0, free=lambda d: 1.0)


@rule("dcgm-util-series", "instant", both(has(UTIL), hasnt(PROF), lambda q: "last_over_time" in q or "count" in q))
def q_util_series(a, q, prm):
    # MIG instances have no DCGM_FI_DEV_GPU_UTIL
    return a.per_dev(q, prm, lambda p, d: None if d.profile else 1.0, free=lambda d: 1.0)


# ---- the server ---------------------------------------------------------------------------------------


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *_):
        pass

    def setup(self):
        super().setup()
        # headers and body go in two writes: without this, Nagle's algorithm and the client's
        # delayed ACK add 40 ms to every answer
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def reply(self, code, body):
        b = body.encode() if isinstance(body, str) else body
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(b)))
        self.end_headers()
        self.wfile.write(b)
        return len(b)

    def handle_any(self):
        t0 = time.perf_counter()
        srv = self.server
        u = urlparse(self.path)
        params = {k: v[-1] for k, v in parse_qs(u.query).items()}
        if self.command == "POST":
            n = int(self.headers.get("Content-Length", "0"))
            params.update({k: v[-1] for k, v in parse_qs(self.rfile.read(n).decode()).items()})
        if u.path == "/stats":
            with srv.lock:
                self.reply(200, json.dumps(srv.stats))
            return
        if u.path not in ("/api/v1/query", "/api/v1/query_range"):
            self.reply(404, '{"status":"error","errorType":"not_found","error":"no such path"}')
            return
        key = (u.path, params.get("query", ""), params.get("time"), params.get("start"),
               params.get("end"), params.get("step"))
        with srv.lock:
            cached = srv.cache.get(key)
        built = 0.0
        if cached is None:
            b0 = time.perf_counter()
            cached = answer(srv.ans, u.path == "/api/v1/query_range", params, srv.log)
            built = time.perf_counter() - b0
            with srv.lock:
                srv.cache[key] = cached
        code, body = cached
        n = self.reply(code, body)
        with srv.lock:
            srv.stats["requests"] += 1
            srv.stats["bytes"] += n
            srv.stats["build_seconds"] += built
            srv.stats["serve_seconds"] += time.perf_counter() - t0 - built
            if code != 200:
                srv.stats["errors"] += 1

    do_GET = do_POST = handle_any


def answer(ans, is_range, params, log):
    q = params.get("query", "")
    for r in RULES:
        if not r.pred(q):
            continue
        kind = "range" if is_range else "instant"
        try:
            if kind != r.kind:
                raise ValueError("the fake expects %s as a%s query" % (r.name, "n instant" if r.kind == "instant" else " range"))
            prm = {}
            if is_range:
                prm = {k: float(params[k]) for k in ("start", "end", "step")}
            else:
                prm["t"] = float(params["time"]) if "time" in params else ans.c.end
            body = r.fn(ans, q, prm)
        except Exception as e:  # a mismatch between the fake and the advisor: loud
            if log:
                log.write("FAILED %s: %r\n" % (r.name, e))
                log.flush()
            return 400, json.dumps({"status": "error", "errorType": "bad_data",
                                    "error": "advisor_fake %s: %s; query: %s" % (r.name, e, q)}).encode()
        if log:
            log.write("%s %s %d bytes\n" % (r.name, kind, len(body)))
            log.flush()
        return 200, body.encode()
    if log:
        log.write("UNRECOGNISED %s\n" % q)
        log.flush()
    return 400, json.dumps({"status": "error", "errorType": "bad_data",
                            "error": "advisor_fake does not recognise this query: %s" % q}).encode()


# ---- raw series, for a real Prometheus (promtool tsdb create-blocks-from openmetrics) ----------------


def lbl(d):
    return ",".join('%s="%s"' % (k, v) for k, v in d.items())


def jitter(t):
    return ((int(t) // 30) * 2654435761 % 1000) / 1000.0


def raw_series(c):
    """{family: [(labels text, first time, last time, interval, value(t) -> text)]} of the cluster
    as kube-state-metrics (every 60 s) and dcgm-exporter (every 30 s) expose it."""
    fam = {k: [] for k in (
        "kube_node_info", "kube_node_labels", "kube_node_status_allocatable", "kube_pod_info",
        "kube_pod_created", "kube_pod_status_phase", "kube_pod_container_resource_requests", "kube_pod_owner",
        "kube_pod_labels", "kube_replicaset_owner", "kube_job_owner", PROF, UTIL,
        "DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_FB_FREE")}
    ksm = 'instance="10.0.0.5:8080",job="kube-state-metrics"'
    one = lambda t: "1"  # noqa: E731
    const = lambda v: (lambda t: v)  # noqa: E731
    t0 = c.t0
    for n in c.nodes:
        a, b = t0 + n.up0 * c.step - 250, t0 + n.up1 * c.step - 10
        nl = {"node": n.name}
        fam["kube_node_info"].append((lbl(dict(nl, kernel_version="6.1.0", os_image="Ubuntu 22.04")) + "," + ksm, a, b, 60, one))
        fam["kube_node_labels"].append((lbl(dict(nl, label_node_kubernetes_io_instance_type=n.itype,
                                                 label_nvidia_com_gpu_product=n.product,
                                                 label_karpenter_sh_capacity_type="spot" if n.spot else "on-demand")) + "," + ksm,
                                        a, b, 60, one))
        res = {"nvidia_com_mig_3g_40gb": "8", "nvidia_com_mig_2g_20gb": "16", "nvidia_com_gpu": "0"} if n.mig else {"nvidia_com_gpu": "8"}
        res["cpu"] = "95"
        for r, v in res.items():
            fam["kube_node_status_allocatable"].append((lbl(dict(nl, resource=r, unit="integer" if r != "cpu" else "core")) + "," + ksm,
                                                        a, b, 60, const(v)))
    for i, p in enumerate(c.pods):
        a, b = t0 + p.s0 * c.step - 250, t0 + p.s1 * c.step - 10
        pl = {"namespace": p.ns, "pod": p.name, "uid": "u-%06d" % i}
        fam["kube_pod_info"].append((lbl(dict(pl, node=p.node.name, created_by_kind=p.owner_kind, created_by_name=p.owner_name)) + "," + ksm, a, b, 60, one))
        fam["kube_pod_created"].append((lbl(pl) + "," + ksm, a, b, 60, const("%d" % a)))
        fam["kube_pod_status_phase"].append((lbl(dict(pl, phase="Running")) + "," + ksm, a, b, 60, one))
        for r, v in list(p.req.items()) + [("cpu", 4)]:
            fam["kube_pod_container_resource_requests"].append((lbl(dict(pl, container="main", node=p.node.name, resource=r,
                                                                         unit="integer" if r != "cpu" else "core")) + "," + ksm,
                                                                a, b, 60, const(str(v))))
        fam["kube_pod_owner"].append((lbl(dict(pl, owner_kind=p.owner_kind, owner_name=p.owner_name, owner_is_controller="true")) + "," + ksm,
                                      a, b, 60, one))
        fam["kube_pod_labels"].append((lbl(dict(pl, **{"label_" + sanitize(k): v for k, v in p.labels.items()})) + "," + ksm, a, b, 60, one))
        for d in p.devs:
            dl = dcgm_labels(p, d)
            dl.update(instance="10.1.%d.%d:9400" % (p.node.idx // 250, p.node.idx % 250), job="dcgm-exporter",
                      device="nvidia" + d.gpu)
            text = lbl(dl)
            da, db = t0 + p.s0 * c.step - 270, t0 + p.s1 * c.step
            hv = dict(c.hourly(p, d))
            hour_of = lambda t: c.nhours - 1 - int((c.end - t) // 3600) if t <= c.end else c.nhours - 1  # noqa: E731

            def act(t, hv=hv, hour_of=hour_of):
                return min(1.0, hv.get(hour_of(t), 0.0) * (0.7 + 0.6 * jitter(t)))
            if not d.util_only:
                fam[PROF].append((text, da, db, 30, lambda t, act=act: "%.4f" % act(t)))
            if not d.profile:
                fam[UTIL].append((text, da, db, 30, lambda t, act=act: "%d" % round(100 * act(t))))
            used = lambda t, d=d: d.fb_peak * (0.8 + 0.2 * jitter(t + 7))  # noqa: E731
            fam["DCGM_FI_DEV_FB_USED"].append((text, da, db, 30, lambda t, used=used: "%d" % used(t)))
            fam["DCGM_FI_DEV_FB_FREE"].append((text, da, db, 30, lambda t, used=used, d=d: "%d" % (d.fb_total - int(used(t)))))
    for d in c.free:
        text = lbl({"Hostname": d.host, "UUID": d.uuid, "gpu": d.gpu, "modelName": d.model, "device": "nvidia" + d.gpu,
                    "instance": "10.9.0.1:9400", "job": "dcgm-exporter"})
        da, db = t0 + d.up0 * c.step - 270, t0 + d.up1 * c.step
        fam[PROF].append((text, da, db, 30, const("0")))
        fam[UTIL].append((text, da, db, 30, const("0")))
        fam["DCGM_FI_DEV_FB_USED"].append((text, da, db, 30, const("0")))
        fam["DCGM_FI_DEV_FB_FREE"].append((text, da, db, 30, const(str(d.fb_total))))
    seen = {}
    for rs, (ns, k, n) in c.replicasets.items():
        seen[("rs", rs)] = (lbl({"namespace": ns, "replicaset": rs, "owner_kind": k, "owner_name": n, "owner_is_controller": "true"}) + "," + ksm)
    for job, (ns, k, n) in c.jobs.items():
        seen[("job", job)] = (lbl({"namespace": ns, "job_name": job, "owner_kind": k, "owner_name": n, "owner_is_controller": "true"}) + "," + ksm)
    for (kind, _), text in seen.items():
        fam["kube_replicaset_owner" if kind == "rs" else "kube_job_owner"].append((text, t0 - 250, c.end - 10, 60, one))
    return fam


def write_openmetrics(c, outdir):
    """One OpenMetrics file per 2-hour block (promtool re-reads its whole input once per block it
    makes, so one file per block keeps the backfill linear)."""
    os.makedirs(outdir, exist_ok=True)
    fam = raw_series(c)
    lo = min(a for ss in fam.values() for _, a, _, _, _ in ss)
    hi = max(b for ss in fam.values() for _, _, b, _, _ in ss)
    lines = 0
    blk = int(lo // 7200) * 7200
    while blk <= hi:
        bend = blk + 7200
        with open(os.path.join(outdir, "block-%d.om" % blk), "w", encoding="utf-8") as f:
            for name, ss in fam.items():
                f.write("# TYPE %s gauge\n" % name)
                out = []
                for text, a, b, iv, val in ss:
                    if b < blk or a >= bend:
                        continue
                    t = a if a >= blk else a + math.ceil((blk - a) / iv) * iv
                    head = "%s{%s} " % (name, text)
                    while t <= b and t < bend:
                        out.append("%s%s %s\n" % (head, val(t), tstr(t)))
                        t += iv
                f.write("".join(out))
                lines += len(out)
            f.write("# EOF\n")
        blk = bend
    return lines


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port-file")
    ap.add_argument("--end", type=float, required=True, help="the advisor's --until (unix seconds)")
    ap.add_argument("--since", default="7d")
    ap.add_argument("--step", default="5m")
    ap.add_argument("--gpus", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--log")
    ap.add_argument("--summary", action="store_true", help="print the cluster's counts and exit")
    ap.add_argument("--openmetrics", metavar="DIR",
                    help="write the cluster's raw series as OpenMetrics files (one per 2-hour block) and exit")
    a = ap.parse_args()
    step = parse_duration(a.step)
    end = math.floor(a.end / step) * step
    g0 = time.perf_counter()
    c = Cluster(a.gpus, end, parse_duration(a.since), step, a.seed)
    gen = time.perf_counter() - g0
    summary = {"nodes": len(c.nodes), "gpus": sum(8 for _ in c.nodes), "pods": len(c.pods),
               "mig_pods": sum(1 for p in c.pods if any(d.profile for d in p.devs)),
               "devices": sum(len(p.devs) for p in c.pods), "steps": c.steps, "hours": c.nhours,
               "generate_seconds": round(gen, 3)}
    if a.summary:
        print(json.dumps(summary))
        return 0
    if a.openmetrics:
        n = write_openmetrics(c, a.openmetrics)
        print(json.dumps(dict(summary, samples=n)))
        return 0
    if not a.port_file:
        ap.error("--port-file is required to serve")
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    srv.lock, srv.cache, srv.ans = threading.Lock(), {}, Answer(c)
    srv.log = open(a.log, "a", encoding="utf-8") if a.log else None
    srv.stats = {"requests": 0, "errors": 0, "bytes": 0, "serve_seconds": 0.0, "build_seconds": 0.0,
                 "cluster": summary}
    tmp = a.port_file + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(str(srv.server_address[1]))
    os.replace(tmp, a.port_file)
    srv.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
