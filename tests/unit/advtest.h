/* SPDX-License-Identifier: Apache-2.0 */
/* What the advisor's query and fetch tests share: a policy holding only what the queries and
 * the assembly read (the default label lists of dcgm-exporter's series, one spot label and,
 * when with_models, one model label), without parsing a policy document. */
#ifndef ADVTEST_H
#define ADVTEST_H

#include <stdbool.h>
#include <string.h>

#include "gpupack/policy.h"

static char *advtest_ns[] = { "exported_namespace", "namespace", "pod_namespace" };
static char *advtest_pod[] = { "exported_pod", "pod", "pod_name" };
static char *advtest_ctr[] = { "exported_container", "container", "container_name" };
static char *advtest_host[] = { "Hostname", "hostname" };
static char *advtest_models[] = { "gpupack.io/model" };
static gp_label advtest_spot[] = { { "karpenter.sh/capacity-type", "spot" } };

static inline void advtest_policy(gp_policy *p, bool with_models)
{
    memset(p, 0, sizeof(*p));
    p->advisor.label_namespace = advtest_ns;
    p->advisor.nlabel_namespace = 3;
    p->advisor.label_pod = advtest_pod;
    p->advisor.nlabel_pod = 3;
    p->advisor.label_container = advtest_ctr;
    p->advisor.nlabel_container = 3;
    p->advisor.label_host = advtest_host;
    p->advisor.nlabel_host = 2;
    p->advisor.model_labels = with_models ? advtest_models : NULL;
    p->advisor.nmodel_labels = with_models ? 1 : 0;
    p->spot.node_labels = advtest_spot;
    p->spot.nnode_labels = 1;
}

#endif
