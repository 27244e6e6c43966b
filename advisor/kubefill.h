/* SPDX-License-Identifier: Apache-2.0 */
/* Filling in what kube-state-metrics could not say, from Kubernetes objects: the pod labels it
 * was not allowed to export, owner chains (a ReplicaSet's Deployment, a Job's CronJob) and node
 * labels (instance type, GPU product, spot). The objects come from `kubectl get ... -o json`
 * files (--snapshot-*) or from the API (--kubeconfig, in-cluster).
 *
 * Only what the data lacks is filled: a label the pod already has, an owner already known, an
 * instance type already read are kept. Objects the window never saw are ignored: the API shows
 * the cluster now, and pods that finished before it are only in Prometheus. Pure given the JSON
 * (gp_adv_fill_list); gp_adv_fill_from_api does the GETs. */
#ifndef GPUPACK_ADVISOR_KUBEFILL_H
#define GPUPACK_ADVISOR_KUBEFILL_H

#include <cjson/cJSON.h>

#include "gpupack/advise.h"
#include "gpupack/kubeconfig.h"
#include "gpupack/policy.h"
#include "gpupack/status.h"

#define GP_ADV_FILL_MAX_BYTES (256u * 1024 * 1024) /* one list, file or response */

/* What was filled, for the report's notes. */
typedef struct {
    size_t pod_labels;   /* labels added to pods */
    size_t owners;       /* owner-of-owner links added (Deployment, CronJob, ...) */
    size_t nodes;        /* nodes whose instance type, product or spot state was added */
} gp_adv_fill_stats;

/* Fills d from one List (PodList, NodeList, ReplicaSetList, JobList, or a v1 List of any of
 * those: each item's kind, else the list's kind without "List", says what it is). pol gives the
 * spot node labels. GP_EINVAL with err when list is not a list; GP_ENOMEM. */
gp_status gp_adv_fill_list(gp_adv_data *d, const gp_policy *pol, const cJSON *list,
                           gp_adv_fill_stats *st, gp_err *err) GP_WUR;

/* Reads a `kubectl get -o json` file and fills d from it. Errors name the file. */
gp_status gp_adv_fill_file(gp_adv_data *d, const gp_policy *pol, const char *path,
                           gp_adv_fill_stats *st, gp_err *err) GP_WUR;

/* Lists pods, nodes, ReplicaSets and Jobs from the API and fills d from them. A list the
 * credentials may not read (403) is skipped with a note in d; other failures are GP_EIO naming
 * the path. */
gp_status gp_adv_fill_from_api(gp_adv_data *d, const gp_policy *pol, const gp_kube_config *cfg,
                               gp_adv_fill_stats *st, gp_err *err) GP_WUR;

#endif
