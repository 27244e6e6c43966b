/* SPDX-License-Identifier: Apache-2.0 */
/* The extender filter's rules that a pod's required node affinity can state instead, so that
 * kube-scheduler enforces them itself and the scheduler needs no filter call (the
 * prioritize-only configuration, docs/extender.md), and cluster-autoscaler, which never calls
 * extenders, sees them when it picks a node group: the GPU models the pod may use (its class's
 * gpuModels and excludeGpuModels and the gpupack.io/gpu-models annotation), on
 * nvidia.com/gpu.product. (The filter's other rules are kube-scheduler's own: GPU and MIG counts
 * in NodeResourcesFit, cordons in NodeUnschedulable; scoring.spotFilter "hard" relies on spot
 * nodes being tainted, as the policy's spot tolerations assume, docs/extender.md.)
 *
 * Pure: pod + policy + class + cluster view in, node selector requirements out. Node affinity has
 * no globs: an exact model name is stated as itself; a glob with '*' or '?' stands for the models
 * it matches among those known at admission (the cluster view's nodes and the policy's
 * scoring.gpuPrices), and a model that joins later is not covered (docs/webhook.md). A list
 * that no known model satisfies is stated as In a value no node carries
 * (GP_GPU_AFFINITY_NO_MODEL): the pod stays Pending, as the filter would keep it, with a
 * warning. Entries that are not valid label values match no node and are left out. */
#ifndef GPUPACK_GPUAFF_H
#define GPUPACK_GPUAFF_H

#include <stddef.h>

#include "gpupack/arena.h"
#include "gpupack/cluster.h"
#include "gpupack/podview.h"
#include "gpupack/policy.h"
#include "gpupack/status.h"

#define GP_GPU_AFFINITY_NO_MODEL "no-known-model.gpupack.io"
#define GP_GPU_AFFINITY_MAX_WARNINGS 3

typedef struct {
    /* On nvidia.com/gpu.product, in this order, each only when it restricts: In (the class's
     * gpuModels), In (the annotation's models), NotIn (the exclusions of both). */
    gp_selector_req *models;
    size_t nmodels;
    const char *models_text; /* "nvidia.com/gpu.product In (A,B)" ...; NULL when no model rule */
    const char *models_from; /* "class training", "annotation gpupack.io/gpu-models" */
    const char *warnings[GP_GPU_AFFINITY_MAX_WARNINGS];
    size_t nwarnings;
} gp_gpu_affinity;

/* What the filter would refuse this pod of class cls (NULL: none), as requirements. Nothing for
 * a DaemonSet pod or one bound already (the filter passes them everywhere). GP_EINVAL with err
 * set when the annotation is malformed (as the filter refuses it); GP_ENOMEM. Strings and
 * arrays come from a. */
gp_status gp_gpu_affinity_of(const gp_pod *pod, const gp_policy *pol, const gp_class *cls,
                             const gp_cluster *view, gp_arena *a, gp_gpu_affinity *out,
                             gp_err *err) GP_WUR;

#endif
