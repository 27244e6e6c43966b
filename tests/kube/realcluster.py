#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""gpupack against a real control plane (`make test-kube`; docs/testing.md).

etcd, kube-apiserver and kube-scheduler v1.20 (tools/kube-control-plane.sh) run on loopback.
gpupack-webhook is registered with the shipped MutatingWebhookConfiguration (its service
reference swapped for a URL and the CA bundle), and gpupack-extender with the shipped scheduler
entry (its urlPrefix swapped). Both keep their live view through a kubeconfig. Pods are created
with kubectl, as a user would, so kube-apiserver calls the webhook, applies its JSON patch,
reinvokes it and runs the Priority plugin after it. kube-scheduler then places them with the
extender. Prints one PASS or FAIL line a check.
"""
import argparse
import base64
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "bench"))
import kubesched  # noqa: E402  the control plane's processes, shared with the benchmark

FAILED = []


def check(name, ok, detail=""):
    if ok:
        print("PASS kube-real." + name, flush=True)
    else:
        FAILED.append(name)
        print("FAIL kube-real.%s%s" % (name, ": " + detail if detail else ""), flush=True)


def node(name, product, alloc_extra, zone="a"):
    alloc = {"cpu": "95", "memory": "1100Gi", "pods": "110"}
    alloc.update(alloc_extra)
    labels = {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux",
              "topology.kubernetes.io/zone": "us-east-1" + zone,
              "nvidia.com/gpu.product": product}
    if any(k.startswith("nvidia.com/mig-") for k in alloc_extra):
        labels["nvidia.com/mig.strategy"] = "mixed"
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": labels},
            "spec": {"taints": [{"key": "nvidia.com/gpu", "effect": "NoSchedule"}]},
            "status": {"capacity": alloc, "allocatable": alloc,
                       "conditions": [{"type": "Ready", "status": "True"}]}}


NODES = [node("a100-1", "NVIDIA-A100-SXM4-40GB", {"nvidia.com/gpu": "8"}),
         node("a100-2", "NVIDIA-A100-SXM4-40GB", {"nvidia.com/gpu": "8"}, "b"),
         node("h100-1", "NVIDIA-H100-80GB-HBM3", {"nvidia.com/gpu": "8"}),
         node("h100-2", "NVIDIA-H100-80GB-HBM3", {"nvidia.com/gpu": "8"}, "b"),
         node("mig-1", "NVIDIA-A100-SXM4-80GB",
              {"nvidia.com/mig-2g.20gb": "3", "nvidia.com/mig-1g.10gb": "1"})]


TEMPLATE = []


def job_pod(ns, name, annotations):
    """The pod a Job creates: kubectl's own Job template, the Job as controller."""
    job = json.loads(subprocess.run(
        ["kubectl", "create", "job", "train", "--image=nvcr.io/nvidia/pytorch:24.08-py3",
         "--dry-run=client", "-o", "json"], capture_output=True, text=True, check=True).stdout)
    spec = job["spec"]["template"]["spec"]
    spec["containers"][0]["resources"] = {"limits": {"nvidia.com/gpu": "1"}}
    uid = "0b6f7a38-5d0e-4c1b-8f0e-2c4d9e1a7b30"
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": ns, "annotations": annotations,
                         "labels": {"job-name": "train", "controller-uid": uid},
                         "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job",
                                              "name": "train", "uid": uid, "controller": True}]},
            "spec": spec}


def deployment_pod(ns, name, gpus="1", annotations=None, labels=None):
    """The pod a Deployment's ReplicaSet creates: kubectl's own Deployment template (made once),
    with the ReplicaSet as controller and the pod-template-hash label."""
    if not TEMPLATE:
        TEMPLATE.append(subprocess.run(
            ["kubectl", "create", "deployment", "llm",
             "--image=nvcr.io/nvidia/tritonserver:24.08-py3", "--dry-run=client", "-o", "json"],
            capture_output=True, text=True, check=True).stdout)
    tpl = json.loads(TEMPLATE[0])["spec"]["template"]
    md = {"name": name, "namespace": ns,
          "labels": dict(tpl["metadata"]["labels"], **{"pod-template-hash": "7d9c6b5f4"},
                         **(labels or {})),
          "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet",
                               "name": "llm-7d9c6b5f4", "controller": True,
                               "uid": "6f1c2a52-2b8e-4d7c-9a57-0d3c1e7f0a11"}]}
    if annotations:
        md["annotations"] = annotations
    spec = tpl["spec"]
    if gpus:
        spec["containers"][0]["resources"] = {"limits": {"nvidia.com/gpu": gpus}}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": md, "spec": spec}


class Cluster:
    def __init__(self, a):
        self.a = a
        # what the benchmark's control plane reads (its run settings are not used here)
        ns = argparse.Namespace(k8s=a.k8s, extender=os.path.join(a.bin, "gpupack-extender"),
                                etcd=a.etcd, etcd_tmp=a.etcd_tmp, workdir=a.workdir)
        self.b = kubesched.Bench(ns)

    def kubectl(self, *args, stdin=None):
        return subprocess.run(["kubectl", "--kubeconfig", self.b.kubeconfig] + list(args),
                              input=stdin, capture_output=True, text=True)

    def create(self, obj):
        """kubectl create -f - : the created object and what kubectl printed on stderr (the
        admission warnings)."""
        r = self.kubectl("create", "-o", "json", "-f", "-", stdin=json.dumps(obj))
        if r.returncode != 0:
            raise RuntimeError("kubectl create: " + r.stderr.strip())
        return json.loads(r.stdout), r.stderr

    def reviews(self):
        """AdmissionReviews the webhook has answered, from its metrics."""
        return kubesched.counter_sum(kubesched.http_get(self.whealth + "/metrics"),
                                     "gpupack_admission_reviews_total")

    def get_pod(self, ns, name):
        return self.b.api.call("GET", "/api/v1/namespaces/%s/pods/%s" % (ns, name))

    def start(self):
        b, a = self.b, self.a
        b.control_plane()
        b.api.create_all(lambda o: "/api/v1/nodes", NODES)
        r = self.kubectl("apply", "-f", os.path.join(ROOT, "manifests/base/priorityclasses.yaml"))
        if r.returncode != 0:
            raise RuntimeError("priority classes: " + r.stderr)
        for ns in ("team", "ml"):
            b.api.call("POST", "/api/v1/namespaces",
                       {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
        self.webhook()
        self.extender()

    def webhook(self):
        b, a = self.b, self.a
        certs = os.path.join(a.workdir, "certs")
        subprocess.run([os.path.join(a.bin, "gpupack-certs"), "--service", "gpupack-webhook",
                        "--namespace", "gpupack-system", "--out", certs, "--ip", "127.0.0.1",
                        "--dns", "localhost", "--force", "--log-level", "error"],
                       check=True, stdout=subprocess.DEVNULL)
        port, hport = kubesched.free_port(), kubesched.free_port()
        self.whealth = "http://127.0.0.1:%d" % hport
        p = b.start("gpupack-webhook", [
            os.path.join(a.bin, "gpupack-webhook"), "--listen", "127.0.0.1:%d" % port,
            "--health-listen", "127.0.0.1:%d" % hport, "--tls-cert", certs + "/tls.crt",
            "--tls-key", certs + "/tls.key", "--kubeconfig", b.kubeconfig,
            "--drain-seconds", "0"])

        def synced():
            try:
                m = kubesched.http_get(self.whealth + "/metrics")
            except OSError:
                return False
            return re.search(r'^gpupack_cluster_view_synced\{part="nodes"\} 1', m, re.M)
        kubesched.wait_until("gpupack-webhook's node view", synced, 60, p,
                             os.path.join(a.workdir, "gpupack-webhook.log"))
        # The shipped configuration, as kubectl reads it; kube-apiserver 1.20 drops what it does
        # not know (matchConditions, 1.27+), so CPU pods reach the webhook too.
        r = self.kubectl("create", "--validate=false", "--dry-run=client", "-o", "json", "-f",
                         os.path.join(ROOT, "manifests/base/mutatingwebhookconfiguration.yaml"))
        mwc = json.loads(r.stdout)
        with open(certs + "/ca.crt", "rb") as f:
            ca = base64.b64encode(f.read()).decode()
        mwc["webhooks"][0]["clientConfig"] = {"url": "https://127.0.0.1:%d/mutate" % port,
                                              "caBundle": ca}
        b.api.call("POST", "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations",
                   mwc)

        def in_force():  # kube-apiserver picks the configuration up from its informer
            r = self.kubectl("create", "--dry-run=server", "-o", "json", "-f", "-",
                             stdin=json.dumps(deployment_pod("team", "probe")))
            return r.returncode == 0 and "gpupack.io/class" in r.stdout
        kubesched.wait_until("the webhook configuration in force", in_force, 30)

    def extender(self):
        b = self.b
        b.extender("info")
        metrics = "127.0.0.1:%d" % kubesched.free_port()
        cfg = os.path.join(self.a.workdir, "scheduler.yaml")
        # the shipped extenders entry, its urlPrefix pointed at this extender
        kubesched.scheduler_config(cfg, b.kubeconfig, metrics, "prioritize", b.xurl)
        p = b.start("kube-scheduler", [os.path.join(self.a.k8s, "kube-scheduler"), "--config",
                                       cfg, "--port", "0", "--secure-port", "0",
                                       "--logtostderr"])

        def healthy():
            try:
                return kubesched.http_get("http://%s/healthz" % metrics) == "ok"
            except OSError:
                return False
        kubesched.wait_until("kube-scheduler healthy", healthy, 60, p,
                             os.path.join(self.a.workdir, "kube-scheduler.log"))

    def wait_bound(self, ns, names, timeout=60):
        end = time.time() + timeout
        while time.time() < end:
            pods = [self.get_pod(ns, n) for n in names]
            if all(p["spec"].get("nodeName") for p in pods):
                return pods
            time.sleep(0.3)
        return [self.get_pod(ns, n) for n in names]


def webhook_checks(c):
    pod, warn = c.create(deployment_pod("team", "llm-7d9c6b5f4-a1"))
    md, spec = pod["metadata"], pod["spec"]
    check("inference.class-label", md["labels"].get("gpupack.io/class") == "inference",
          str(md["labels"]))
    check("inference.workload-label", md["labels"].get("gpupack.io/workload") == "deployment.llm",
          str(md["labels"]))
    check("inference.toleration",
          {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
          in spec.get("tolerations", []), str(spec.get("tolerations")))
    check("inference.priority-class", spec.get("priorityClassName") == "gpu-inference")
    # The webhook removed /spec/priority; kube-apiserver's Priority plugin, after the webhooks,
    # set it from the class.
    check("inference.priority-recomputed",
          spec.get("priority") == 100000 and spec.get("preemptionPolicy") == "PreemptLowerPriority",
          "priority %s, preemptionPolicy %s" % (spec.get("priority"), spec.get("preemptionPolicy")))
    check("inference.mutated-annotation",
          "priorityClassName gpu-inference" in (md.get("annotations") or {}).get(
              "gpupack.io/mutated", ""))
    check("inference.kubectl-warnings", "gpupack: toleration nvidia.com/gpu:NoSchedule" in warn,
          warn.strip()[:200])

    # kubectl --dry-run=server: kube-apiserver calls the webhook (sideEffects: None) with
    # dryRun set and returns the mutated pod without storing it.
    r = c.kubectl("create", "--dry-run=server", "-o", "json", "-f", "-",
                  stdin=json.dumps(deployment_pod("team", "llm-7d9c6b5f4-dry")))
    dry = json.loads(r.stdout) if r.returncode == 0 else {}
    stored = c.kubectl("get", "pod", "-n", "team", "llm-7d9c6b5f4-dry")
    check("dry-run.mutated-not-stored",
          dry.get("spec", {}).get("priorityClassName") == "gpu-inference" and
          "NotFound" in stored.stderr, (r.stderr + stored.stderr).strip()[:200])

    bare = deployment_pod("team", "notebook-1")
    del bare["metadata"]["ownerReferences"]
    pod, _ = c.create(bare)
    spec = pod["spec"]
    check("interactive.runtime-cap", spec.get("activeDeadlineSeconds") == 43200)
    check("interactive.priority", spec.get("priority") == 10000 and
          spec.get("preemptionPolicy") == "Never",
          "priority %s, preemptionPolicy %s" % (spec.get("priority"), spec.get("preemptionPolicy")))

    pod, _ = c.create(deployment_pod("ml", "llm-7d9c6b5f4-m1",
                                     annotations={"gpupack.io/gpu-memory": "10Gi"}))
    res = pod["spec"]["containers"][0]["resources"]
    check("mig.rewritten", res.get("limits") == {"nvidia.com/mig-2g.20gb": "1"} and
          res.get("requests") == {"nvidia.com/mig-2g.20gb": "1"}, json.dumps(res))
    orig = (pod["metadata"].get("annotations") or {}).get("gpupack.io/original-resources", "")
    check("mig.original-recorded", "nvidia.com/gpu" in orig, orig)

    # A Job's pod is training: its class's priority, and no MIG rewrite despite the hint.
    pod, _ = c.create(job_pod("ml", "train-x1", {"gpupack.io/gpu-memory": "10Gi"}))
    res = pod["spec"]["containers"][0]["resources"]
    check("training.class-and-priority",
          pod["metadata"]["labels"].get("gpupack.io/class") == "training" and
          pod["spec"].get("priority") == 50000, str(pod["metadata"]["labels"]))
    check("training.no-mig-rewrite", res.get("limits") == {"nvidia.com/gpu": "1"}, json.dumps(res))

    # kube-apiserver 1.20 drops matchConditions (1.27+): CPU pods reach the webhook, which lets
    # them pass unchanged; gpupack.io/skip pods never reach it (objectSelector).
    seen = c.reviews()
    pod, _ = c.create(deployment_pod("team", "web-1", gpus=None))
    asked = c.reviews() - seen
    check("cpu-pod.untouched", asked == 1 and "gpupack.io/class" not in pod["metadata"]["labels"]
          and not any(t.get("key") == "nvidia.com/gpu" for t in pod["spec"].get("tolerations", [])),
          "%d reviews" % asked)

    seen = c.reviews()
    pod, _ = c.create(deployment_pod("team", "skipped-1", labels={"gpupack.io/skip": "true"}))
    asked = c.reviews() - seen
    check("skip-label.not-sent", asked == 0 and "gpupack.io/class" not in pod["metadata"]["labels"]
          and pod["spec"].get("priorityClassName") is None, "%d reviews" % asked)

    own = deployment_pod("team", "own-class-1")
    own["spec"]["priorityClassName"] = "gpu-training"
    pod, _ = c.create(own)
    check("user-priority-class.kept", pod["spec"].get("priorityClassName") == "gpu-training" and
          pod["spec"].get("priority") == 50000)


def scheduler_checks(c):
    names = ["llm-7d9c6b5f4-p%02d" % i for i in range(16)]
    for n in names:
        c.create(deployment_pod("team", n))
    pods = c.wait_bound("team", names)
    check("scheduler.all-bound", all(p["spec"].get("nodeName") for p in pods),
          "%d of 16 bound" % sum(1 for p in pods if p["spec"].get("nodeName")))
    # With the webhook checks' GPU pods, on four empty 8-GPU nodes: packed, the one-GPU pods
    # fill as few nodes as their count allows (kube-scheduler alone spreads them over all four).
    gpu = [p for p in c.b.api.call("GET", "/api/v1/pods")["items"]
           if p["spec"].get("nodeName") and
           any((x.get("resources", {}).get("limits") or {}).get("nvidia.com/gpu") == "1"
               for x in p["spec"]["containers"])]
    nodes = sorted({p["spec"]["nodeName"] for p in gpu})
    check("scheduler.packed", len(nodes) == (len(gpu) + 7) // 8,
          "%d one-GPU pods on %s" % (len(gpu), nodes))

    pod, _ = c.create(deployment_pod("team", "llm-7d9c6b5f4-h1",
                                     annotations={"gpupack.io/gpu-models": "NVIDIA-H100*"}))
    aff = json.dumps(pod["spec"].get("affinity", {}))
    check("gpu-models.affinity", "NVIDIA-H100-80GB-HBM3" in aff, aff[:200])
    bound = c.wait_bound("team", ["llm-7d9c6b5f4-h1"])[0]
    check("gpu-models.placed", (bound["spec"].get("nodeName") or "").startswith("h100-"),
          "on %s" % bound["spec"].get("nodeName"))

    # The model rule composed with the user's own required term: both hold, and the pod lands on
    # the one node that satisfies both (H100 in zone b).
    mine = deployment_pod("team", "llm-7d9c6b5f4-z1",
                          annotations={"gpupack.io/gpu-models": "NVIDIA-H100*"})
    mine["spec"]["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [
            {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["us-east-1b"]}]}]}}}
    pod, _ = c.create(mine)
    terms = pod["spec"]["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    keys = sorted(e["key"] for e in terms[0]["matchExpressions"]) if len(terms) == 1 else []
    check("gpu-models.composed-with-user-term",
          keys == ["nvidia.com/gpu.product", "topology.kubernetes.io/zone"], json.dumps(terms))
    bound = c.wait_bound("team", ["llm-7d9c6b5f4-z1"])[0]
    check("gpu-models.composed-placed", bound["spec"].get("nodeName") == "h100-2",
          "on %s" % bound["spec"].get("nodeName"))

    # No known model matches: the pod is told at creation and stays Pending, as the extender's
    # filter would keep it.
    pod, warn = c.create(deployment_pod("team", "llm-7d9c6b5f4-n1",
                                        annotations={"gpupack.io/gpu-models": "NVIDIA-Z9*"}))
    aff = json.dumps(pod["spec"].get("affinity", {}))
    failed = []

    def refused():  # kube-scheduler's verdict on it, as an event
        events = c.b.api.call("GET", "/apis/events.k8s.io/v1/namespaces/team/events")["items"]
        failed[:] = [e for e in events if e.get("reason") == "FailedScheduling" and
                     (e.get("regarding") or {}).get("name") == "llm-7d9c6b5f4-n1"]
        return bool(failed)
    try:
        kubesched.wait_until("a FailedScheduling event", refused, 30)
    except RuntimeError:
        pass  # reported by the check below
    pending = c.get_pod("team", "llm-7d9c6b5f4-n1")
    check("gpu-models.none-known-pending",
          "no-known-model.gpupack.io" in aff and "NVIDIA-Z9*" in warn and
          not pending["spec"].get("nodeName") and failed,
          "affinity %s, node %s, %d FailedScheduling, warnings %r" % (
              aff[:160], pending["spec"].get("nodeName"), len(failed), warn.strip()[-300:]))

    # ignorable: true. The extender down never blocks scheduling.
    c.b.stop("gpupack-extender")
    c.create(deployment_pod("team", "llm-7d9c6b5f4-x1"))
    bound = c.wait_bound("team", ["llm-7d9c6b5f4-x1"])[0]
    check("extender-down.still-scheduled", bool(bound["spec"].get("nodeName")))


def fail_open_check(c):
    # failurePolicy: Ignore. The webhook down never blocks a pod.
    c.b.stop("gpupack-webhook")
    try:
        pod, _ = c.create(deployment_pod("team", "llm-7d9c6b5f4-w1"))
        check("webhook-down.pod-admitted", "gpupack.io/class" not in pod["metadata"]["labels"])
    except RuntimeError as e:
        check("webhook-down.pod-admitted", False, str(e)[:200])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--k8s", required=True, help="directory with kube-apiserver and kube-scheduler")
    ap.add_argument("--bin", default=os.path.join(ROOT, "bin"))
    ap.add_argument("--etcd", default="etcd")
    ap.add_argument("--etcd-tmp", default="/dev/shm" if os.path.isdir("/dev/shm") else None)
    ap.add_argument("--workdir", required=True)
    a = ap.parse_args()
    os.makedirs(a.workdir, exist_ok=True)
    c = Cluster(a)
    c.b.catch_signals()
    try:
        c.start()
        webhook_checks(c)
        scheduler_checks(c)
        fail_open_check(c)
    except Exception as e:  # the setup or a step broke: one FAIL line, the reason
        check("run", False, "%s: %s" % (type(e).__name__, str(e)[:300]))
    finally:
        c.b.close()
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
