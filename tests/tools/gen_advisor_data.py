# SPDX-License-Identifier: Apache-2.0
"""A week of dcgm-exporter and kube-state-metrics series for a synthetic GPU cluster, as
OpenMetrics text for `promtool tsdb create-blocks-from openmetrics`, for tests/e2e/advisor.sh.

The scenario (NODES, PODS below) is plain data; tests/tools/advisor_expect.py computes the report
the advisor must print from the same data and the sample times/values this module defines
(sample_times(), activity_samples(), ...), never from the generated text.

  gen_advisor_data.py [--seed N] > data.om

Every interval is (start, end] in seconds since the epoch, aligned to hours; a series alive on
(S, E] has samples half a scrape interval off the grid (series_times()) and is present
(5-minute lookback) at the steps t with S < t <= E. The week ends at
END (2026-11-30T00:00:00Z); series start STARTS before the window (END - 7d) where the scenario
says "all week".
"""
import os
import random
import sys

# The window's end: 2026-11-30T00:00:00Z, or GP_ADV_END (unix seconds, a multiple of 300) for a
# test that needs the week to end now (gpupack-advisor serve analyses up to the present).
END = int(os.environ.get("GP_ADV_END", "1795996800"))
H = 3600
WEEK = 7 * 24 * H
D0 = END - WEEK - 2 * H   # where "all week" series start (before the window)
KSM_STEP = 60             # kube-state-metrics scrape interval
DCGM_STEP = 30            # dcgm-exporter scrape interval
SEED = 20261130

A100_80 = "NVIDIA A100-SXM4-80GB"
A100_40 = "NVIDIA A100-SXM4-40GB"
H100 = "NVIDIA H100 80GB HBM3"


def at(hours_before_end):
    return END - hours_before_end * H


# Nodes: price keys as in manifests/base/policy.json (instance type, else gpu.product per GPU).
# host: the dcgm-exporter host label name, or a list of (until, name) for a renamed label.
NODES = [
    dict(name="gpu-a1", itype="a2-ultragpu-8g", product="NVIDIA-A100-SXM4-80GB", spot=False,
         gpus=8, mig={}, host=[(at(84), "Hostname"), (END, "hostname")], ip="10.0.1.11"),
    dict(name="gpu-a2", itype="a2-ultragpu-8g", product="NVIDIA-A100-SXM4-80GB", spot=True,
         gpus=8, mig={}, host="hostname", ip="10.0.1.12"),
    dict(name="gpu-a3", itype="a2-ultragpu-8g", product="NVIDIA-A100-SXM4-80GB", spot=False,
         gpus=8, mig={}, host="Hostname", ip="10.0.1.13"),
    dict(name="gpu-mig", itype="a2-ultragpu-8g", product="NVIDIA-A100-SXM4-80GB", spot=False,
         gpus=4, mig={"1g.10gb": 7, "2g.20gb": 3, "3g.40gb": 4}, host="Hostname",
         ip="10.0.1.14"),
    dict(name="gpu-b1", itype="a2-highgpu-8g", product="NVIDIA-A100-SXM4-40GB", spot=False,
         gpus=8, mig={}, host="hostname", ip="10.0.1.15"),
    # Not in the instance-type table: priced by its GPU product.
    dict(name="gpu-h1", itype="a3-highgpu-1g", product="NVIDIA-H100-80GB-HBM3", spot=False,
         gpus=1, mig={}, host="Hostname", ip="10.0.1.16"),
    # No GPU: kube-state-metrics lists it, the advisor keeps only GPU nodes.
    dict(name="cpu-1", itype="n2-standard-8", product=None, spot=False, gpus=0, mig={},
         host=None, ip="10.0.1.20"),
]


def act(base, jitter, until=END, kind="PROF"):
    """One segment of an activity pattern: uniform in base +- jitter up to `until`."""
    return dict(base=base, jitter=jitter, until=until)


def dev(gpu, uuid, model, segs, fb_used, fb_total, profile=None, gi_id=None, metric="PROF",
        variant="std", nan_fb=False):
    return dict(gpu=gpu, uuid=uuid, model=model, segs=segs, fb_used=fb_used, fb_total=fb_total,
                profile=profile, gi_id=gi_id, metric=metric, variant=variant, nan_fb=nan_fb)


def pod(ns, name, node, start, end, requests, devs, owner=None, oo=None, labels=None,
        tail=False):
    """requests: [(container, resource, count)]; owner/oo: (kind, name); tail: the pod stays an
    hour after it ends, phase Succeeded (Running 0)."""
    return dict(ns=ns, name=name, node=node, start=start, end=end, requests=requests, devs=devs,
                owner=owner, oo=oo, labels=labels or {}, tail=tail)


def uuid(n):
    return "GPU-%08x-5c1e-4a7b-9d3f-%012x" % (0x1f2e3d00 + n, 0xa100 + n)


def _nightly(job, suffix, start, end, segs, gpu):
    return pod("research", "%s-%s" % (job, suffix), "gpu-a2", start, end,
               [("eval", "nvidia_com_gpu", 1)],
               [dev(str(gpu), uuid(40 + gpu), A100_80, segs, 30720, 81920)],
               owner=("Job", job), oo=("CronJob", "nightly-eval"),
               labels={"job-name": job}, tail=end < END)


PODS = [
    # An idle Kubeflow notebook: StatefulSet owner, label notebook-name, class interactive.
    pod("team-a", "alice-0", "gpu-a1", D0, END, [("notebook", "nvidia_com_gpu", 1)],
        [dev("0", uuid(1), A100_80, [act(0.01, 0.005)], 2100, 81920, nan_fb=True)],
        owner=("StatefulSet", "alice"), labels={"notebook-name": "alice"}),
    # Inference at ~12% on a whole A100-80GB with 9 GiB of framebuffer: a MIG 2g.20gb would do.
    pod("ml", "ranker-7d9f8b6c5-x2x9z", "gpu-a1", D0, END, [("server", "nvidia_com_gpu", 1)],
        [dev("1", uuid(2), A100_80, [act(0.12, 0.03)], 9216, 81920, nan_fb=True)],
        owner=("ReplicaSet", "ranker-7d9f8b6c5"), oo=("Deployment", "ranker"),
        labels={"pod-template-hash": "7d9f8b6c5", "app.kubernetes.io/name": "ranker"}),
    # Four GPUs (two containers of two), two of them busy: exported_* labels on this node.
    pod("serving", "llm-serve-0", "gpu-a3", D0, END,
        [("shard-0", "nvidia_com_gpu", 2), ("shard-1", "nvidia_com_gpu", 2)],
        [dev("0", uuid(10), A100_80, [act(0.7, 0.1)], 60000, 81920, variant="exported"),
         dev("1", uuid(11), A100_80, [act(0.7, 0.1)], 60000, 81920, variant="exported"),
         dev("2", uuid(12), A100_80, [act(0.01, 0.005)], 1200, 81920, variant="exported"),
         dev("3", uuid(13), A100_80, [act(0.01, 0.005)], 1200, 81920, variant="exported")],
        owner=("StatefulSet", "llm-serve"), labels={"app.kubernetes.io/name": "llm"}),
    # MIG pods: GPU_I_PROFILE / GPU_I_ID, only the PROF activity field.
    pod("ml", "embedder-5c6d7e8f9-q7w8e", "gpu-mig", D0, END,
        [("embed", "nvidia_com_mig_1g_10gb", 1)],
        [dev("0", uuid(20), A100_80, [act(0.35, 0.1)], 5000, 9728, profile="1g.10gb",
             gi_id="7")],
        owner=("ReplicaSet", "embedder-5c6d7e8f9"), oo=("Deployment", "embedder"),
        labels={"pod-template-hash": "5c6d7e8f9"}),
    pod("docs", "ocr-6b7c8d9e0-a1b2c", "gpu-mig", D0, END,
        [("ocr", "nvidia_com_mig_3g_40gb", 1)],
        [dev("1", uuid(21), A100_80, [act(0.01, 0.005)], 3000, 40192, profile="3g.40gb",
             gi_id="1")],
        owner=("ReplicaSet", "ocr-6b7c8d9e0"), oo=("Deployment", "ocr"),
        labels={"pod-template-hash": "6b7c8d9e0"}),
    # Low activity, 6 GiB, on an H100 priced by product; its class forbids MIG; only
    # DCGM_FI_DEV_GPU_UTIL (percent) for this GPU.
    pod("serving", "chat-small-84f5d6c7b-z9y8x", "gpu-h1", D0, END,
        [("chat", "nvidia_com_gpu", 1)],
        [dev("0", uuid(30), H100, [act(20, 10)], 6144, 81559, metric="UTIL")],
        owner=("ReplicaSet", "chat-small-84f5d6c7b"), oo=("Deployment", "chat-small"),
        labels={"pod-template-hash": "84f5d6c7b", "gpupack.io/class": "inference-pinned",
                "app.kubernetes.io/name": "chat-small"}),
    # A Job whose DCGM series carry no pod labels; its node is then empty for three days.
    pod("data", "etl-k4j2h", "gpu-b1", D0, at(72), [("etl", "nvidia_com_gpu", 4)],
        [dev(str(i), uuid(50 + i), A100_40, [act(0.5, 0.1)], None, None, variant="nopod")
         for i in range(4)],
        owner=("Job", "etl"), oo=("<none>", "<none>"), labels={"job-name": "etl"}, tail=False),
    # Training at ~90% on the spot node.
    pod("research", "resnet-master-0", "gpu-a2", at(60), END, [("pytorch", "nvidia_com_gpu", 2)],
        [dev("0", uuid(40), A100_80, [act(0.9, 0.05)], 70000, 81920),
         dev("1", uuid(41), A100_80, [act(0.9, 0.05)], 70000, 81920)],
        owner=("PyTorchJob", "resnet"),
        labels={"training.kubeflow.org/job-name": "resnet"}),
    # A CronJob: one run started before the window, four ~2 h runs in it, the last running 32 h
    # (busy for 22 h, then idle).
    _nightly("nightly-eval-29386500", "b7k2m", at(169), at(167), [act(0.6, 0.1)], 2),
    _nightly("nightly-eval-29387940", "c8l3n", at(144), at(142), [act(0.6, 0.1)], 2),
    _nightly("nightly-eval-29389380", "d9m4p", at(120), at(118), [act(0.6, 0.1)], 3),
    _nightly("nightly-eval-29390820", "f2n5q", at(96), at(94), [act(0.6, 0.1)], 2),
    _nightly("nightly-eval-29392260", "g3p6r", at(72), at(70), [act(0.6, 0.1)], 3),
    _nightly("nightly-eval-29393700", "h4q7s", at(32), END,
             [act(0.6, 0.1, until=at(10)), act(0.01, 0.005)], 2),
]

# The exporter's own pod labels on the node with the exported_* variant.
EXPORTER = dict(namespace="gpu-operator", pod="nvidia-dcgm-exporter-7xk2p",
                container="nvidia-dcgm-exporter")


def series_times(start, end, step):
    """Sample times of a series alive on (start, end]: half a step off the grid, so that no
    sample sits on a step time, a window edge or an hour edge. Prometheus 2.x takes range and
    lookback windows closed on the left ([t - 5m, t]), 3.x open ((t - 5m, t]); with no sample on
    an edge both see the same samples: the series is present at the steps t with
    start < t <= end."""
    return range(start + step // 2, end, step)


def pod_end(p):
    """The last sample of the pod's kube-state-metrics series (an hour later with tail)."""
    return p["end"] + H if p["tail"] else p["end"]


def _rng(seed, *key):
    return random.Random("%d:%s" % (seed, ":".join(str(k) for k in key)))


def activity_samples(p, d, seed=SEED):
    """[(t, value)] of one device's activity field (PROF ratio, or UTIL percent), with its
    values exactly as written (4 decimals; UTIL whole percent)."""
    r = _rng(seed, p["ns"], p["name"], d["uuid"], "act")
    out = []
    segs = d["segs"]
    si = 0
    for t in series_times(p["start"], p["end"], DCGM_STEP):
        while t > segs[si]["until"]:
            si += 1
        s = segs[si]
        v = s["base"] + (r.random() * 2 - 1) * s["jitter"]
        v = float(round(v)) if d["metric"] == "UTIL" else round(v, 4)
        out.append((t, max(v, 0.0)))
    return out


def fb_samples(p, d, seed=SEED):
    """[(t, used, free)]: used at its peak every 10th sample, a little under it otherwise; a
    NaN in each every 997th sample when nan_fb (dcgm-exporter does write NaN)."""
    r = _rng(seed, p["ns"], p["name"], d["uuid"], "fb")
    out = []
    for i, t in enumerate(series_times(p["start"], p["end"], DCGM_STEP)):
        used = d["fb_used"] if i % 10 == 0 else d["fb_used"] - r.randint(1, 200)
        free = d["fb_total"] - used
        if d["nan_fb"] and i % 997 == 5:
            used = float("nan")
        if d["nan_fb"] and i % 997 == 11:
            free = float("nan")
        out.append((t, used, free))
    return out


def host_label(node, t):
    h = node["host"]
    if isinstance(h, str):
        return h
    for until, name in h:
        if t <= until:
            return name
    return h[-1][1]


def node_by_name(name):
    for n in NODES:
        if n["name"] == name:
            return n
    raise KeyError(name)


def sanitize(key):
    return "".join(c if c.isalnum() or c == "_" else "_" for c in key)


# ------------------------------------------------------------------------------------------
# Writing.

def _lab(d):
    return ",".join('%s="%s"' % (k, v) for k, v in d.items())


def _num(v):
    if v != v:
        return "NaN"
    if isinstance(v, float) and v == int(v) and abs(v) < 1e15:
        return str(int(v))
    return repr(v)


class Writer:
    def __init__(self, out):
        self.out = out
        self.fam = {}   # family -> list of (labels text, [(t, v)]) in order

    def add(self, fam, labels, samples):
        self.fam.setdefault(fam, []).append((_lab(labels), samples))

    def const(self, fam, labels, start, end, value=1, step=KSM_STEP):
        self.add(fam, labels, [(t, value) for t in series_times(start, end, step)])

    def flush(self):
        w = self.out.write
        for fam in sorted(self.fam):
            w("# TYPE %s gauge\n" % fam)
            for lab, samples in self.fam[fam]:
                pre = "%s{%s} " % (fam, lab)
                w("".join("%s%s %d\n" % (pre, _num(v), t) for t, v in samples))
        w("# EOF\n")


def write_nodes(wr):
    for n in NODES:
        wr.const("kube_node_info", dict(node=n["name"], kernel_version="6.1.0-27-cloud-amd64",
                                         os_image="Ubuntu 22.04.5 LTS",
                                         container_runtime_version="containerd://1.7.22",
                                         kubelet_version="v1.31.2", internal_ip=n["ip"],
                                         provider_id="gce://proj/zone/" + n["name"]),
                 D0, END)
        labels = dict(node=n["name"])
        labels["label_node_kubernetes_io_instance_type"] = n["itype"]
        if n["product"]:
            labels["label_nvidia_com_gpu_product"] = n["product"]
        if n["spot"]:
            labels["label_karpenter_sh_capacity_type"] = "spot"
        wr.const("kube_node_labels", labels, D0, END)
        if n["gpus"] > 0:
            wr.const("kube_node_status_allocatable",
                     dict(node=n["name"], resource="nvidia_com_gpu", unit="integer"), D0, END,
                     n["gpus"])
        for prof, cnt in n["mig"].items():
            res = "nvidia_com_mig_" + prof.replace(".", "_")
            wr.const("kube_node_status_allocatable",
                     dict(node=n["name"], resource=res, unit="integer"), D0, END, cnt)
        wr.const("kube_node_status_allocatable",
                 dict(node=n["name"], resource="cpu", unit="core"), D0, END, 8)


def write_pod_ksm(wr, p, uid):
    s, e, x = p["start"], p["end"], pod_end(p)
    ns, name = p["ns"], p["name"]
    base = dict(namespace=ns, pod=name, uid=uid)
    run = [(t, 1) for t in series_times(s, e, KSM_STEP)]
    run += [(t, 0) for t in series_times(e, x, KSM_STEP)]
    wr.add("kube_pod_status_phase", dict(base, phase="Running"), run)
    if x > e:
        wr.add("kube_pod_status_phase", dict(base, phase="Succeeded"),
               [(t, 0) for t in series_times(s, e, KSM_STEP)] +
               [(t, 1) for t in series_times(e, x, KSM_STEP)])
    owner = p["owner"]
    info = dict(namespace=ns, pod=name, uid=uid, host_ip=node_by_name(p["node"])["ip"],
                pod_ip="10.8.%d.%d" % (len(name) % 200, sum(map(ord, name)) % 250),
                node=p["node"], created_by_kind=owner[0] if owner else "<none>",
                created_by_name=owner[1] if owner else "<none>", priority_class="",
                host_network="false")
    wr.const("kube_pod_info", info, s, x)
    wr.const("kube_pod_created", base, s, x, value=s)
    wr.const("kube_pod_owner", dict(base, owner_kind=owner[0] if owner else "<none>",
                                    owner_name=owner[1] if owner else "<none>",
                                    owner_is_controller="true" if owner else "<none>"), s, x)
    labs = dict(base)
    for k, v in sorted(p["labels"].items()):
        labs["label_" + sanitize(k)] = v
    wr.const("kube_pod_labels", labs, s, x)
    for container, res, cnt in p["requests"]:
        wr.const("kube_pod_container_resource_requests",
                 dict(namespace=ns, pod=name, uid=uid, container=container, node=p["node"],
                      resource=res, unit="integer"), s, x, cnt)
        wr.const("kube_pod_container_resource_requests",
                 dict(namespace=ns, pod=name, uid=uid, container=container, node=p["node"],
                      resource="cpu", unit="core"), s, x, 4)


def write_owners(wr):
    seen = set()
    for p in PODS:
        if not p["oo"] or p["owner"] is None:
            continue
        kind, oname = p["owner"]
        key = (p["ns"], kind, oname)
        if key in seen:
            continue
        seen.add(key)
        ok, on = p["oo"]
        ctl = "true" if ok != "<none>" else "false"
        if kind == "ReplicaSet":
            wr.const("kube_replicaset_owner", dict(namespace=p["ns"], replicaset=oname,
                                                   owner_kind=ok, owner_name=on,
                                                   owner_is_controller=ctl), D0, END)
        elif kind == "Job":
            wr.const("kube_job_owner", dict(namespace=p["ns"], job_name=oname, owner_kind=ok,
                                            owner_name=on, owner_is_controller=ctl),
                     max(D0, p["start"]), END)


def dcgm_labels(p, d, node, hostname):
    lab = dict(gpu=d["gpu"], UUID=d["uuid"], device="nvidia" + d["gpu"], modelName=d["model"])
    lab[hostname] = node["name"]
    if d["profile"]:
        lab["GPU_I_PROFILE"] = d["profile"]
        lab["GPU_I_ID"] = d["gi_id"]
    if d["variant"] == "std":
        lab.update(container=p["requests"][0][0], namespace=p["ns"], pod=p["name"])
    elif d["variant"] == "exported":
        lab.update(EXPORTER)
        ci = int(d["gpu"]) // 2
        lab.update(exported_container=p["requests"][ci][0], exported_namespace=p["ns"],
                   exported_pod=p["name"])
    lab.update(instance=node["ip"] + ":9400", job="dcgm-exporter")
    return lab


def write_dcgm(wr, p, d, seed):
    node = node_by_name(p["node"])
    fam = ("DCGM_FI_PROF_GR_ENGINE_ACTIVE" if d["metric"] == "PROF"
           else "DCGM_FI_DEV_GPU_UTIL")
    acts = activity_samples(p, d, seed)
    fbs = fb_samples(p, d, seed) if d["fb_used"] is not None else None
    # One series per host label name (a relabelled exporter splits the series).
    groups = {}
    for i, (t, _) in enumerate(acts):
        groups.setdefault(host_label(node, t), []).append(i)
    for hl, idx in groups.items():
        lab = dcgm_labels(p, d, node, hl)
        wr.add(fam, lab, [acts[i] for i in idx])
        if fbs:
            wr.add("DCGM_FI_DEV_FB_USED", lab, [(fbs[i][0], fbs[i][1]) for i in idx])
            wr.add("DCGM_FI_DEV_FB_FREE", lab, [(fbs[i][0], fbs[i][2]) for i in idx])


def uid_of(i):
    return "7b0c%04x-1d2e-4f30-8a41-%012x" % (i, 0xbeef00 + i)


def main(argv):
    seed = SEED
    if len(argv) == 3 and argv[1] == "--seed":
        seed = int(argv[2])
    elif len(argv) != 1:
        sys.stderr.write("usage: gen_advisor_data.py [--seed N] > data.om\n")
        return 2
    wr = Writer(sys.stdout)
    write_nodes(wr)
    write_owners(wr)
    for i, p in enumerate(PODS):
        write_pod_ksm(wr, p, uid_of(i))
        for d in p["devs"]:
            write_dcgm(wr, p, d, seed)
    wr.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
