#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""A realistic GPU pod AdmissionReview for the benchmarks, deterministic for a seed: the pod a
Deployment's ReplicaSet creates (defaulted as kube-apiserver defaults it before webhooks), an
inference server with a GPU and a memory hint, two sidecars, env, volumes, probes.
With --small: about 2.5 KB, the same pod with its GPU container alone and no memory hint (the
review tools/peers/gowebhook is compared on; it still gets gpupack's toleration, class label and
priority class).
Usage: gen_review.py [--seed N] [--size-kb K] [--small]  (prints JSON; K is approximate, default 6)"""
import argparse
import json
import random

ap = argparse.ArgumentParser()
ap.add_argument("--seed", type=int, default=42)
ap.add_argument("--size-kb", type=int, default=6)
ap.add_argument("--small", action="store_true")
a = ap.parse_args()
rnd = random.Random(a.seed)


def word(n=8):
    return "".join(rnd.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(n))


def container(name, image, gpu=False):
    c = {"name": name, "image": image, "imagePullPolicy": "IfNotPresent",
         "ports": [{"name": "http", "containerPort": 8000 + rnd.randrange(100), "protocol": "TCP"}],
         "env": [{"name": word(6).upper(), "value": word(12)} for _ in range(6)],
         "resources": {"requests": {"cpu": "4", "memory": "32Gi"}, "limits": {"cpu": "8", "memory": "32Gi"}},
         "volumeMounts": [{"name": "model", "mountPath": "/models", "readOnly": True},
                          {"name": "kube-api-access-x7k2p", "readOnly": True,
                           "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount"}],
         "readinessProbe": {"httpGet": {"path": "/health", "port": "http", "scheme": "HTTP"},
                            "periodSeconds": 10, "timeoutSeconds": 1, "successThreshold": 1,
                            "failureThreshold": 3},
         "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File"}
    if gpu:
        c["resources"]["limits"]["nvidia.com/gpu"] = "1"
        c["resources"]["requests"]["nvidia.com/gpu"] = "1"
    return c


pod = {"kind": "Pod", "apiVersion": "v1",
       "metadata": {"generateName": "llm-7c9f8d6b5-", "namespace": "serving",
                    "labels": {"app": "llm", "pod-template-hash": "7c9f8d6b5", "team": word()},
                    "annotations": {"gpupack.io/gpu-memory": "20Gi",
                                    "prometheus.io/scrape": "true"},
                    "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet",
                                         "name": "llm-7c9f8d6b5", "uid": "5f0c4a1e-0d2b-4c3e-9a8f-1b2c3d4e5f60",
                                         "controller": True, "blockOwnerDeletion": True}]},
       "spec": {"containers": [container("llm", "registry.example.com/llm:1.4.2", gpu=True),
                               container("metrics", "registry.example.com/exporter:0.9"),
                               container("proxy", "registry.example.com/envoy:1.30")],
                "volumes": [{"name": "model", "persistentVolumeClaim": {"claimName": "models"}},
                            {"name": "kube-api-access-x7k2p", "projected": {"defaultMode": 420, "sources": [
                                {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}}]}}],
                "restartPolicy": "Always", "terminationGracePeriodSeconds": 30,
                "dnsPolicy": "ClusterFirst", "serviceAccountName": "default", "serviceAccount": "default",
                "securityContext": {}, "schedulerName": "default-scheduler",
                "tolerations": [{"key": "node.kubernetes.io/not-ready", "operator": "Exists",
                                 "effect": "NoExecute", "tolerationSeconds": 300},
                                {"key": "node.kubernetes.io/unreachable", "operator": "Exists",
                                 "effect": "NoExecute", "tolerationSeconds": 300}],
                "priority": 0, "enableServiceLinks": True, "preemptionPolicy": "PreemptLowerPriority"},
       "status": {}}
if a.small:
    del pod["metadata"]["annotations"]["gpupack.io/gpu-memory"]
    pod["spec"]["containers"] = pod["spec"]["containers"][:1]
    del pod["spec"]["containers"][0]["env"][1:]
    del pod["spec"]["containers"][0]["readinessProbe"]
# Pad the environment to the requested size, the way real pods carry configuration.
target = 2500 if a.small else a.size_kb * 1024
while len(json.dumps(pod)) < target - 700:
    pod["spec"]["containers"][0]["env"].append({"name": word(8).upper(), "value": word(24)})
review = {"kind": "AdmissionReview", "apiVersion": "admission.k8s.io/v1",
          "request": {"uid": "0d7e4b8a-3c2f-4e1a-9b6d-%012d" % a.seed,
                      "kind": {"group": "", "version": "v1", "kind": "Pod"},
                      "resource": {"group": "", "version": "v1", "resource": "pods"},
                      "requestKind": {"group": "", "version": "v1", "kind": "Pod"},
                      "requestResource": {"group": "", "version": "v1", "resource": "pods"},
                      "namespace": "serving", "operation": "CREATE",
                      "userInfo": {"username": "system:serviceaccount:kube-system:replicaset-controller",
                                   "groups": ["system:serviceaccounts", "system:authenticated"]},
                      "object": pod, "oldObject": None, "dryRun": False,
                      "options": {"kind": "CreateOptions", "apiVersion": "meta.k8s.io/v1"}}}
print(json.dumps(review))
