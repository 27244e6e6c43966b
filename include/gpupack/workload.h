/* SPDX-License-Identifier: Apache-2.0 */
/* Which workload a pod belongs to: the one rule the advisor (attributing GPU-hours) and the
 * webhook (matching a new pod to a recommendation) share.
 *
 * Input is what both can know about a pod: its namespace, name, labels, its controlling owner's
 * kind and name, and, when known, the owner of that owner (kube-state-metrics'
 * kube_replicaset_owner / kube_job_owner, or the API). Output is the object a person would edit:
 * a Deployment rather than its ReplicaSet, a CronJob rather than one of its Jobs, the Kubeflow
 * Notebook, KServe InferenceService, LeaderWorkerSet, RayCluster, JobSet or training job
 * (PyTorchJob, ...) rather than the StatefulSet, Job or Pod beneath it. Pure: no I/O. */
#ifndef GPUPACK_WORKLOAD_H
#define GPUPACK_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>

#include "gpupack/k8s.h"

#define GP_WORKLOAD_KIND_MAX 64
#define GP_WORKLOAD_NAME_MAX 253

typedef struct {
    const char *namespace;
    const char *pod;          /* the pod's name */
    const gp_label *labels;   /* the pod's labels (those known: kube-state-metrics only has the
                               * allowlisted ones) */
    size_t nlabels;
    const char *owner_kind;   /* the controlling owner; NULL or "": none */
    const char *owner_name;
    const char *owner_owner_kind; /* the owner's own controller when known, else NULL */
    const char *owner_owner_name;
} gp_workload_in;

typedef struct {
    char kind[GP_WORKLOAD_KIND_MAX];  /* "Deployment", "CronJob", "Pod" (no owner), ... */
    char name[GP_WORKLOAD_NAME_MAX + 1];
} gp_workload;

/* Resolves the workload of a pod (rules in docs/advisor.md, "Attribution"). Never fails: a pod
 * without an owner is its own workload (kind "Pod"). Strings longer than the buffers are cut. */
void gp_workload_of(const gp_workload_in *in, gp_workload *out);

/* "deployment/ranker": the kind in lower case, a slash, the name, into buf (size n); returns buf. */
char *gp_workload_ref(const gp_workload *w, char *buf, size_t n);

#endif
