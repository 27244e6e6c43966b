#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A real kube-scheduler's throughput with and without gpupack-extender
(tools/bench_kubescheduler.sh runs it; docs/benchmarks.md, "A real kube-scheduler").

Starts etcd and kube-apiserver on loopback (etcd's data on tmpfs), creates NODES eight-GPU nodes
(p4d.24xlarge, A100 40GB, tainted nvidia.com/gpu:NoSchedule, as a GPU pool's nodes are) and
gpupack-extender watching them through a kubeconfig (its live view). Then, for each round and each
configuration: PODS one-GPU pods (a Deployment's, tolerating the taint) are created while no
scheduler runs; kube-scheduler starts with that configuration and places them all; the
"Scheduled" events it records right after each binding (events.k8s.io/v1, eventTime in
microseconds) give the throughput from the first binding to the last. Every process's CPU time
(/proc) is counted from kube-scheduler's start (its start-up lists included: small against 2,000
pods) until the last binding is seen (polled every 0.5 s). The pods are then deleted (grace 0)
and the extender's view drained before the next run. Also recorded: the extender's own per-call
times (its histograms) and kube-scheduler's algorithm time a pod and the share of the nodes it
filtered that it found full.

Configurations: none (kube-scheduler's default profile alone), prioritize (the extenders entry
of manifests/scheduler/kube-scheduler-config.yaml as shipped: prioritizeVerb only, weight 5,
nodeCacheCapable, managedResources nvidia.com/gpu and every MIG profile), filter (the same plus
filterVerb) and binpack (no extender: kube-scheduler's own
NodeResourcesMostAllocated on nvidia.com/gpu instead of LeastAllocated, packing without a call).

One JSON line per run on stdout; a summary per configuration (median over the rounds) last.
"""
import argparse
import calendar
import ctypes
import json
import os
import re
import shutil
import signal
import socket
import ssl
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHIPPED = os.path.join(ROOT, "manifests", "scheduler", "kube-scheduler-config.yaml")
TOKEN = "gpupack-bench"
TICK = os.sysconf("SC_CLK_TCK")


def log(msg):
    print("kubesched: " + msg, file=sys.stderr, flush=True)


def die_with_parent():
    """In a child before exec: SIGTERM when this process dies, however it dies (the children
    run in their own sessions, out of reach of a terminal's signals)."""
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_seconds(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


class Api:
    def __init__(self, url):
        self.url = url
        self.ctx = ssl.create_default_context()
        self.ctx.check_hostname = False
        self.ctx.verify_mode = ssl.CERT_NONE

    def call(self, method, path, body=None, ok=(200, 201, 202)):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, method=method, headers={
            "Authorization": "Bearer " + TOKEN, "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, context=self.ctx, timeout=60) as r:
                return json.load(r)
        except urllib.error.HTTPError as e:
            if e.code in ok:
                return json.load(e)
            raise RuntimeError("%s %s: HTTP %d: %s" % (method, path, e.code, e.read()[:300]))

    def create_all(self, path, objs, workers=6):
        """POSTs objs from a few threads (kube-apiserver takes ~1 ms a create here)."""
        errors = []

        def work(chunk):
            try:
                for o in chunk:
                    self.call("POST", path(o), o)
            except Exception as e:  # reported below, all threads joined first
                errors.append(e)
        threads = [threading.Thread(target=work, args=(objs[i::workers],)) for i in range(workers)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if errors:
            raise errors[0]


def node(i):
    name = "gpu-%05d" % i
    alloc = {"cpu": "95", "memory": "1148Gi", "pods": "110", "ephemeral-storage": "900Gi",
             "nvidia.com/gpu": "8"}
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {
                "kubernetes.io/hostname": name, "kubernetes.io/os": "linux",
                "kubernetes.io/arch": "amd64", "node.kubernetes.io/instance-type": "p4d.24xlarge",
                "topology.kubernetes.io/zone": "us-east-1" + "abc"[i % 3],
                "nvidia.com/gpu.product": "NVIDIA-A100-SXM4-40GB", "nvidia.com/gpu.count": "8"}},
            "spec": {"providerID": "aws:///us-east-1a/i-%017x" % i,
                     "taints": [{"key": "nvidia.com/gpu", "effect": "NoSchedule"}]},
            "status": {"capacity": alloc, "allocatable": alloc,
                       "conditions": [{"type": t, "status": "True" if t == "Ready" else "False",
                                       "reason": "Kubelet" + t, "message": "kubelet reports " + t}
                                      for t in ("MemoryPressure", "DiskPressure", "PIDPressure",
                                                "Ready")],
                       "addresses": [{"type": "InternalIP",
                                      "address": "10.%d.%d.%d" % (i >> 16, i >> 8 & 255, i & 255)}],
                       "nodeInfo": {"kubeletVersion": "v1.20.2",
                                    "containerRuntimeVersion": "containerd://1.7.20"}}}


def pod(ns, i):
    res = {"cpu": "2", "memory": "8Gi", "nvidia.com/gpu": "1"}
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "llm-7d9c6b5f4-%05d" % i, "namespace": ns,
                         "labels": {"app": "llm", "pod-template-hash": "7d9c6b5f4"},
                         "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet",
                                              "name": "llm-7d9c6b5f4", "controller": True,
                                              "blockOwnerDeletion": True,
                                              "uid": "6f1c2a52-2b8e-4d7c-9a57-0d3c1e7f0a11"}]},
            "spec": {"containers": [{"name": "server",
                                     "image": "nvcr.io/nvidia/tritonserver:24.08-py3",
                                     "ports": [{"containerPort": 8000}],
                                     "resources": {"requests": res, "limits": res}}],
                     "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists",
                                      "effect": "NoSchedule"}]}}


def shipped_extenders(extender_url, with_filter=False):
    """The extenders section of the shipped scheduler configuration, its urlPrefix pointed at
    extender_url, and filterVerb added when with_filter."""
    with open(SHIPPED) as f:
        text = f.read()
    entry = text[text.index("\nextenders:\n") + 1:]
    entry, n = re.subn(r'urlPrefix: "[^"]*"', 'urlPrefix: "%s/gpupack"' % extender_url, entry)
    if n != 1:
        raise RuntimeError("%s: not one urlPrefix but %d" % (SHIPPED, n))
    if with_filter:
        entry, n = re.subn(r"\n( +)prioritizeVerb: prioritize\n",
                           r"\n\1filterVerb: filter\n\1prioritizeVerb: prioritize\n", entry)
        if n != 1:
            raise RuntimeError("%s: no prioritizeVerb line" % SHIPPED)
    return entry


def scheduler_config(path, kubeconfig, metrics, mode, extender_url=None):
    """KubeSchedulerConfiguration v1beta1 for mode: none, binpack, prioritize (the shipped
    extender entry) or filter (the same with filterVerb)."""
    lines = ["apiVersion: kubescheduler.config.k8s.io/v1beta1",
             "kind: KubeSchedulerConfiguration",
             # kube-scheduler 1.20 serves these over plain HTTP (10251 unless told otherwise)
             "healthzBindAddress: " + metrics, "metricsBindAddress: " + metrics,
             "clientConnection: {kubeconfig: %s, qps: 1000, burst: 1000}" % kubeconfig,
             "leaderElection: {leaderElect: false}"]
    if mode == "binpack":
        # packing without an extender: kube-scheduler's own MostAllocated on nvidia.com/gpu in
        # place of LeastAllocated (the sim's kube-binpack scorer)
        lines += ["profiles:",
                  "- schedulerName: default-scheduler",
                  "  plugins:",
                  "    score:",
                  "      disabled: [{name: NodeResourcesLeastAllocated}]",
                  "      enabled: [{name: NodeResourcesMostAllocated, weight: 5}]",
                  "  pluginConfig:",
                  "  - name: NodeResourcesMostAllocated",
                  "    args: {resources: [{name: nvidia.com/gpu, weight: 1}]}"]
    elif mode != "none":
        lines.append(shipped_extenders(extender_url, mode == "filter"))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def wait_until(what, pred, timeout, proc=None, logfile=None, interval=0.2):
    end = time.time() + timeout
    why = "not within %d s" % timeout
    while time.time() < end:
        if pred():
            return
        if proc is not None and proc.poll() is not None:
            why = "the process exited with code %d" % proc.returncode
            break
        time.sleep(interval)
    tail = ""
    if logfile:
        with open(logfile, errors="replace") as f:
            tail = "".join(f.readlines()[-5:])
    raise RuntimeError("%s: %s\n%s" % (what, why, tail))


def micro_time(s):
    """An events.k8s.io/v1 eventTime (RFC 3339 with microseconds, UTC) in seconds."""
    day, frac = s.rstrip("Z").split(".")
    return calendar.timegm(time.strptime(day, "%Y-%m-%dT%H:%M:%S")) + float("0." + frac)


def scheduled_metric(metrics):
    """kube-scheduler's scheduler_schedule_attempts_total{result="scheduled"}, summed."""
    try:
        text = http_get("http://%s/metrics" % metrics)
    except OSError:  # not serving yet
        return 0
    return counter_sum(text, "scheduler_schedule_attempts_total", 'result="scheduled"')


def counter_sum(text, name, *label_parts):
    """The sum of the series of counter name whose labels hold every one of label_parts."""
    n = 0.0
    for line in text.splitlines():
        if line.startswith(name + "{") and all(p in line for p in label_parts):
            n += float(line.rsplit(" ", 1)[1])
    return n


def histogram_sums(text, prefix):
    """{labels: [sum, count]} of the histograms named prefix in a Prometheus text exposition."""
    out = {}
    for line in text.splitlines():
        for part, k in (("_sum", 0), ("_count", 1)):
            head = prefix + part
            if line.startswith(head + "{"):
                labels, value = line[len(head) + 1:].rsplit("} ", 1)
            elif line.startswith(head + " "):
                labels, value = "", line[len(head) + 1:]
            else:
                continue
            out.setdefault(labels, [0.0, 0.0])[k] = float(value)
    return out


def extender_ms_per_call(before, after):
    """Mean milliseconds per call of the extender's own histograms between two scrapes: the
    whole call inside its server (by route) and its decode, decide and encode phases."""
    res = {}
    for prefix, key in (("gpupack_extender_phase_duration_seconds", "phase"),
                        ("gpupack_http_request_duration_seconds", "route")):
        b, a = histogram_sums(before, prefix), histogram_sums(after, prefix)
        for labels, (s1, n1) in a.items():
            s0, n0 = b.get(labels, [0.0, 0.0])
            if key == "route" and 'server="extender"' not in labels:
                continue  # the health server's own /metrics scrapes
            if n1 > n0:
                name = re.search(key + r'="([^"]+)"', labels).group(1)
                verb = re.search(r'(?:verb|route)="([^"]+)"', labels).group(1)
                tag = name if key == "route" else verb + "-" + name
                res[tag] = round((s1 - s0) / (n1 - n0) * 1000, 3)
    return res


def scheduler_stats(text, pods):
    """What kube-scheduler says of its own cycle: the algorithm's milliseconds a pod (filter,
    score and extenders) and the share of nodes its NodeResourcesFit filter found full (the
    plugin metrics sample 10% of cycles)."""
    algo = histogram_sums(text, "scheduler_scheduling_algorithm_duration_seconds")
    fit = {"Success": 0.0, "Unschedulable": 0.0}
    plugins = histogram_sums(text, "scheduler_plugin_execution_duration_seconds")
    for labels, (_, n) in plugins.items():
        if 'extension_point="Filter"' in labels and 'plugin="NodeResourcesFit"' in labels:
            for k in fit:
                if 'status="%s"' % k in labels:
                    fit[k] += n
    seen = fit["Success"] + fit["Unschedulable"]
    return {"algorithm_ms_per_pod": round(sum(v[0] for v in algo.values()) * 1000 / pods, 3)
            if algo else None,
            "filtered_full_share": round(fit["Unschedulable"] / seen, 3) if seen else None}


def http_get(url):
    with urllib.request.urlopen(url, timeout=10) as r:
        return r.read().decode()


def check_versions(k8s):
    """The configuration written here (KubeSchedulerConfiguration v1beta1, NodeResourcesMost-
    Allocated, --port, --insecure-port) is v1.20-v1.22's. Other versions are refused by name
    rather than started with flags they no longer take."""
    for cmd in ("kube-apiserver", "kube-scheduler"):
        out = subprocess.run([os.path.join(k8s, cmd), "--version"], capture_output=True,
                             text=True).stdout
        m = re.search(r"v1\.(\d+)\.", out)
        if not m or not 20 <= int(m.group(1)) <= 22:
            raise SystemExit("kubesched: %s says %r; this harness drives v1.20-v1.22 (the "
                             "v1beta1 scheduler configuration)" % (cmd, out.strip()))


class Bench:
    def __init__(self, a):
        check_versions(a.k8s)
        self.a = a
        self.dir = a.workdir
        self.procs = {}
        self.api = None

    def start(self, name, argv, logname=None):
        with open(os.path.join(self.dir, (logname or name) + ".log"), "w") as logf:
            p = subprocess.Popen(argv, stdout=logf, stderr=subprocess.STDOUT,
                                 start_new_session=True, preexec_fn=die_with_parent)
        self.procs[name] = p
        return p

    def stop(self, name):
        p = self.procs.pop(name, None)
        if p and p.poll() is None:
            p.send_signal(signal.SIGTERM)
            try:
                p.wait(20)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()

    @staticmethod
    def catch_signals():
        """SIGTERM and SIGHUP unwind like Ctrl-C (SIGINT), through the caller's finally and
        close(); the children also die with this process (die_with_parent)."""
        for sig in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, lambda n, _: sys.exit(128 + n))

    def close(self):
        """Stops every process and removes etcd's data, deaf to further signals meanwhile."""
        for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            signal.signal(sig, signal.SIG_IGN)
        self.stop_all()
        if getattr(self, "etcd_dir", None):
            shutil.rmtree(self.etcd_dir, ignore_errors=True)

    def stop_all(self):
        for name in list(self.procs)[::-1]:
            self.stop(name)

    def control_plane(self):
        a = self.a
        etcd_dir = tempfile.mkdtemp(prefix="gpupack-etcd-", dir=a.etcd_tmp)
        self.etcd_dir = etcd_dir
        cport, pport, aport = free_port(), free_port(), free_port()
        curl, purl = "http://127.0.0.1:%d" % cport, "http://127.0.0.1:%d" % pport
        self.start("etcd", [a.etcd, "--data-dir", etcd_dir, "--name", "bench",
                            "--listen-client-urls", curl, "--advertise-client-urls", curl,
                            "--listen-peer-urls", purl, "--initial-advertise-peer-urls", purl,
                            "--initial-cluster", "bench=" + purl])
        with open(os.path.join(self.dir, "tokens.csv"), "w") as f:
            f.write('%s,bench,bench,"system:masters"\n' % TOKEN)
        sa = os.path.join(self.dir, "sa.key")
        subprocess.run(["openssl", "genrsa", "-out", sa, "2048"], check=True,
                       stderr=subprocess.DEVNULL)
        p = self.start("kube-apiserver", [
            os.path.join(a.k8s, "kube-apiserver"), "--etcd-servers", curl,
            "--bind-address", "127.0.0.1", "--secure-port", str(aport), "--insecure-port", "0",
            "--cert-dir", os.path.join(self.dir, "apiserver-certs"),
            "--token-auth-file", os.path.join(self.dir, "tokens.csv"),
            "--authorization-mode", "RBAC",
            "--service-account-issuer", "https://kubernetes.default.svc",
            "--service-account-key-file", sa, "--service-account-signing-key-file", sa,
            "--service-cluster-ip-range", "10.0.0.0/24",
            # No controller-manager runs: nothing creates the namespaces' default ServiceAccount,
            # nor lifts the not-ready taint TaintNodesByCondition puts on every new Node.
            "--disable-admission-plugins", "ServiceAccount,TaintNodesByCondition"])
        self.api = Api("https://127.0.0.1:%d" % aport)

        def ready_text():
            try:
                req = urllib.request.Request(self.api.url + "/readyz",
                                             headers={"Authorization": "Bearer " + TOKEN})
                with urllib.request.urlopen(req, context=self.api.ctx, timeout=5) as r:
                    return r.status == 200
            except Exception:
                return False
        wait_until("kube-apiserver ready", ready_text, 120, p,
                   os.path.join(self.dir, "kube-apiserver.log"))
        self.kubeconfig = os.path.join(self.dir, "kubeconfig")
        with open(self.kubeconfig, "w") as f:
            f.write("""apiVersion: v1
kind: Config
current-context: bench
clusters:
- name: bench
  cluster: {server: "%s", insecure-skip-tls-verify: true}
contexts:
- name: bench
  context: {cluster: bench, user: bench}
users:
- name: bench
  user: {token: %s}
""" % (self.api.url, TOKEN))

    def nodes(self):
        t = time.time()
        self.api.create_all(lambda o: "/api/v1/nodes", [node(i) for i in range(self.a.nodes)])
        log("%d nodes created in %.1f s" % (self.a.nodes, time.time() - t))

    def extender(self, log_level="warn"):
        port, hport = free_port(), free_port()
        self.xurl = "http://127.0.0.1:%d" % port
        self.xhealth = "http://127.0.0.1:%d" % hport
        p = self.start("gpupack-extender", [
            self.a.extender, "--listen", "127.0.0.1:%d" % port,
            "--health-listen", "127.0.0.1:%d" % hport, "--kubeconfig", self.kubeconfig,
            "--log-level", log_level, "--drain-seconds", "0"])

        def ready():
            try:
                http_get(self.xhealth + "/readyz")
                return True
            except Exception:
                return False
        wait_until("gpupack-extender ready", ready, 120, p,
                   os.path.join(self.dir, "gpupack-extender.log"))

    def pods_in(self, ns):
        return self.api.call("GET", "/api/v1/namespaces/%s/pods" % ns)["items"]

    def cpu(self):
        return {n: cpu_seconds(p.pid) for n, p in self.procs.items() if p.poll() is None}

    def run(self, rnd, mode):
        a = self.a
        ns = "bench-%d-%s" % (rnd, mode)
        self.api.call("POST", "/api/v1/namespaces",
                      {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
        self.api.create_all(lambda o: "/api/v1/namespaces/%s/pods" % ns,
                            [pod(ns, i) for i in range(a.pods)])
        cfg = os.path.join(self.dir, "scheduler-%s.yaml" % mode)
        metrics = "127.0.0.1:%d" % free_port()
        scheduler_config(cfg, self.kubeconfig, metrics, mode, self.xurl)
        slog_name = "kube-scheduler-%d-%s" % (rnd, mode)
        slog = os.path.join(self.dir, slog_name + ".log")
        # (the extender watches bound pods only: nothing to wait for before scheduling)
        before = self.cpu()
        xbefore = http_get(self.xhealth + "/metrics")
        p = self.start("kube-scheduler", [
            os.path.join(a.k8s, "kube-scheduler"), "--config", cfg, "--port", "0",
            "--secure-port", "0", "--logtostderr"], slog_name)
        wait_until("%d pods scheduled (%s)" % (a.pods, mode),
                   lambda: scheduled_metric(metrics) >= a.pods, a.timeout, p, slog, 0.5)
        after = self.cpu()
        times = self.scheduled_times(ns, a.pods)
        smetrics = http_get("http://%s/metrics" % metrics)
        with open(os.path.join(self.dir, slog_name + ".metrics"), "w") as f:
            f.write(smetrics)
        xcall = extender_ms_per_call(xbefore, http_get(self.xhealth + "/metrics"))
        self.stop("kube-scheduler")
        t0, t1 = times[0], times[-1]
        items = self.pods_in(ns)
        nodes = {x["spec"].get("nodeName") for x in items if x["spec"].get("nodeName")}
        unbound = sum(1 for x in items if not x["spec"].get("nodeName"))
        cpu = {n: round(after[n] - before.get(n, 0), 2) for n in after}
        r = {"round": rnd, "config": mode, "nodes": a.nodes, "pods": a.pods,
             "pods_per_second": round((len(times) - 1) / (t1 - t0), 1) if t1 > t0 else None,
             "seconds": round(t1 - t0, 3), "nodes_used": len(nodes), "unbound": unbound,
             "cpu_seconds": cpu, "extender_ms_per_call": xcall,
             "scheduler": scheduler_stats(smetrics, a.pods)}
        self.clean(ns, len(items) - unbound)
        return r

    def scheduled_times(self, ns, n):
        """When each pod was bound: the eventTime (microseconds) of kube-scheduler's "Scheduled"
        event, recorded right after the binding; the events are sent asynchronously, so wait
        for all n."""
        path = "/apis/events.k8s.io/v1/namespaces/%s/events" % ns
        got = []

        def all_in():
            got[:] = [micro_time(e["eventTime"]) for e in self.api.call("GET", path)["items"]
                      if e.get("reason") == "Scheduled" and e.get("eventTime")]
            return len(got) >= n
        wait_until("%d Scheduled events in %s" % (n, ns), all_in, 60)
        return sorted(got)

    def pod_events(self, kind):
        return counter_sum(http_get(self.xhealth + "/metrics"), "gpupack_kube_events_total",
                           '"pods"', 'type="%s"' % kind)

    def clean(self, ns, bound):
        """Deletes the run's pods and waits until the extender's view has seen every bound one
        go (its watch selects bound pods only)."""
        deleted = self.pod_events("DELETED")
        self.api.call("DELETE", "/api/v1/namespaces/%s/pods" % ns,
                      {"kind": "DeleteOptions", "apiVersion": "v1", "gracePeriodSeconds": 0})
        wait_until("pods of %s deleted" % ns, lambda: not self.pods_in(ns), 120)
        wait_until("the extender's view of %s drained" % ns,
                   lambda: self.pod_events("DELETED") >= deleted + bound, 60)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--k8s", required=True, help="directory with kube-apiserver and kube-scheduler")
    ap.add_argument("--extender", required=True, help="the gpupack-extender binary")
    ap.add_argument("--etcd", default=shutil.which("etcd") or "etcd")
    ap.add_argument("--etcd-tmp", default="/dev/shm" if os.path.isdir("/dev/shm") else None)
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--nodes", type=int, default=500)
    ap.add_argument("--pods", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--configs", default="none,prioritize,filter,binpack")
    ap.add_argument("--timeout", type=int, default=600, help="seconds for one run's bindings")
    a = ap.parse_args()
    os.makedirs(a.workdir, exist_ok=True)
    b = Bench(a)
    b.catch_signals()
    runs = []
    try:
        b.control_plane()
        b.nodes()
        b.extender()
        for rnd in range(1, a.rounds + 1):
            for mode in a.configs.split(","):
                r = b.run(rnd, mode)
                runs.append(r)
                print(json.dumps(r), flush=True)
                log("round %d %-10s %7.1f pods/s on %d nodes" % (
                    rnd, mode, r["pods_per_second"] or 0, r["nodes_used"]))
    finally:
        b.close()
    base = [r["pods_per_second"] for r in runs if r["config"] == "none" and r["pods_per_second"]]
    packed = [r["pods_per_second"] for r in runs
              if r["config"] == "binpack" and r["pods_per_second"]]
    for mode in a.configs.split(","):
        mine = [r for r in runs if r["config"] == mode]
        s = {"summary": mode, "nodes": a.nodes, "pods": a.pods,
             "pods_per_second": [r["pods_per_second"] for r in mine if r["pods_per_second"]],
             "nodes_used": [r["nodes_used"] for r in mine]}
        if base and s["pods_per_second"] and mode != "none":
            s["ratio_to_none"] = round(statistics.median(s["pods_per_second"])
                                       / statistics.median(base), 3)
        # against kube-scheduler packing by itself: what the extender costs beyond packing
        if packed and s["pods_per_second"] and mode not in ("none", "binpack"):
            s["ratio_to_binpack"] = round(statistics.median(s["pods_per_second"])
                                          / statistics.median(packed), 3)
        s["algorithm_ms_per_pod"] = [r["scheduler"]["algorithm_ms_per_pod"] for r in mine]
        for proc in ("kube-scheduler", "kube-apiserver", "etcd", "gpupack-extender"):
            s["cpu_ms_per_pod_" + proc.replace("-", "_")] = round(statistics.median(
                r["cpu_seconds"].get(proc, 0) for r in mine) * 1000 / a.pods, 3)
        print(json.dumps(s), flush=True)


if __name__ == "__main__":
    main()
