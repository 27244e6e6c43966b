#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A synthetic cluster for the extender benchmarks, deterministic for a seed: N nodes (p4d and
p5 8-GPU machines, A100 80GB in MIG mode, g5 single-GPU nodes, CPU nodes, with the labels and
allocatable a real cluster shows), P running pods bound to them (GPU pods within each node's
GPUs, CPU pods elsewhere), and the ExtenderArgs kube-scheduler sends: node names (500 and all)
and, for nodeCacheCapable false, the full Node objects.
Usage: gen_cluster.py OUTDIR [--seed N] [--nodes N] [--pods N]"""
import argparse
import json
import os
import random

ap = argparse.ArgumentParser()
ap.add_argument("out")
ap.add_argument("--seed", type=int, default=42)
ap.add_argument("--nodes", type=int, default=5000)
ap.add_argument("--pods", type=int, default=150000)
a = ap.parse_args()
rnd = random.Random(a.seed)
os.makedirs(a.out, exist_ok=True)

KINDS = [  # instance type, product, gpus, cpu, memory Gi, mig profiles, weight
    ("p4d.24xlarge", "NVIDIA-A100-SXM4-40GB", 8, 96, 1152, None, 30),
    ("p5.48xlarge", "NVIDIA-H100-80GB-HBM3", 8, 192, 2048, None, 10),
    ("p4de.24xlarge", "NVIDIA-A100-SXM4-80GB", 0, 96, 1152, {"nvidia.com/mig-2g.20gb": 3, "nvidia.com/mig-1g.10gb": 1}, 10),
    ("g5.xlarge", "NVIDIA-A10G", 1, 4, 16, None, 20),
    ("m6i.8xlarge", None, 0, 32, 128, None, 30),
]
weights = [k[-1] for k in KINDS]
nodes = []
for i in range(a.nodes):
    it, prod, gpus, cpu, mem, mig, _ = rnd.choices(KINDS, weights)[0]
    labels = {"kubernetes.io/hostname": f"node-{i:05d}", "node.kubernetes.io/instance-type": it,
              "topology.kubernetes.io/zone": rnd.choice(["us-east-1a", "us-east-1b", "us-east-1c"]),
              "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64"}
    alloc = {"cpu": str(cpu - 1), "memory": f"{mem - 4}Gi", "pods": "110", "ephemeral-storage": "900Gi"}
    taints = []
    if prod:
        labels["nvidia.com/gpu.product"] = prod
        labels["nvidia.com/gpu.count"] = str(max(gpus, 1))
        taints.append({"key": "nvidia.com/gpu", "effect": "NoSchedule"})
    if gpus:
        alloc["nvidia.com/gpu"] = str(gpus)
    if mig:
        labels["nvidia.com/mig.strategy"] = "mixed"
        alloc.update({k: str(v) for k, v in mig.items()})
    if rnd.random() < 0.15 and prod:
        labels["karpenter.sh/capacity-type"] = "spot"
    nodes.append({"kind": "Node", "apiVersion": "v1",
                  "metadata": {"name": f"node-{i:05d}", "uid": f"n-{i}", "resourceVersion": str(1000 + i),
                               "labels": labels, "annotations": {"node.alpha.kubernetes.io/ttl": "0"}},
                  "spec": {"providerID": f"aws:///us-east-1a/i-{i:017x}", "taints": taints},
                  "status": {"capacity": alloc, "allocatable": alloc,
                             # What real Nodes carry and scoring never reads: the image list,
                             # every condition with its message, addresses (~13 KB a node).
                             "conditions": [{"type": t, "status": "False" if t != "Ready" else "True",
                                             "lastHeartbeatTime": "2026-12-01T10:00:00Z",
                                             "lastTransitionTime": "2026-11-01T10:00:00Z",
                                             "reason": f"Kubelet{t}", "message": f"kubelet reports {t} " + "x" * 60}
                                            for t in ("MemoryPressure", "DiskPressure", "PIDPressure", "Ready")],
                             "addresses": [{"type": "InternalIP", "address": f"10.{i // 65536}.{i // 256 % 256}.{i % 256}"},
                                           {"type": "Hostname", "address": f"ip-10-0-{i // 256 % 256}-{i % 256}.ec2.internal"}],
                             "images": [{"names": [f"registry.example.com/team-{k % 17}/image-{(i * 7 + k) % 500}@sha256:" + "%064x" % ((i * 131 + k) * 2654435761 % (1 << 256)),
                                                   f"registry.example.com/team-{k % 17}/image-{(i * 7 + k) % 500}:v{k}.{i % 10}"],
                                         "sizeBytes": 100000000 + k * 12345} for k in range(56)],
                             "nodeInfo": {"kubeletVersion": "v1.32.4", "containerRuntimeVersion": "containerd://1.7.20"}}})
free = {n["metadata"]["name"]: int(n["status"]["allocatable"].get("nvidia.com/gpu", "0")) for n in nodes}
names = [n["metadata"]["name"] for n in nodes]
pods = []
for j in range(a.pods):
    node = rnd.choice(names)
    want = rnd.choice([0, 0, 0, 1, 1, 2, 4])
    res = {"cpu": str(rnd.choice([1, 2, 4])), "memory": f"{rnd.choice([2, 8, 32])}Gi"}
    if want and free[node] >= want:
        free[node] -= want
        res["nvidia.com/gpu"] = str(want)
    pods.append({"metadata": {"name": f"pod-{j:06d}", "namespace": f"ns-{j % 50}", "uid": f"p-{j}",
                              "resourceVersion": str(100000 + j),
                              "labels": {"app": f"a{j % 300}"},
                              "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": f"rs-{j % 300}", "uid": f"rs-{j % 300}", "controller": True}]},
                 "spec": {"nodeName": node, "schedulerName": "default-scheduler",
                          "containers": [{"name": "main", "image": "registry.example.com/app:1",
                                          "resources": {"requests": res, "limits": res}}]},
                 "status": {"phase": "Running"}})


def dump(name, obj):
    with open(os.path.join(a.out, name), "w") as f:
        json.dump(obj, f, separators=(",", ":"))


dump("nodes.json", {"kind": "List", "apiVersion": "v1", "items": nodes})
dump("pods.json", {"kind": "List", "apiVersion": "v1", "items": pods})
pod = {"metadata": {"name": "infer", "namespace": "ml", "uid": "bench-uid", "resourceVersion": "1",
                    "labels": {"gpupack.io/class": "inference"}},
       "spec": {"containers": [{"name": "m", "resources": {"limits": {"nvidia.com/gpu": "1", "cpu": "4", "memory": "32Gi"},
                                                           "requests": {"nvidia.com/gpu": "1", "cpu": "4", "memory": "32Gi"}}}],
                "schedulerName": "default-scheduler"},
       "status": {"phase": "Pending"}}
for k in (500, a.nodes):
    dump(f"args-names-{k}.json", {"Pod": pod, "Nodes": None, "NodeNames": rnd.sample(names, min(k, len(names)))})
dump(f"args-full-{a.nodes}.json", {"Pod": pod, "Nodes": {"metadata": {}, "items": nodes}, "NodeNames": None})
