/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of the simulator's node admission (sim/admit.c): a large cluster's labels load
 * (no fixed memory cap below the loader's 200,000 nodes); a bad taint is named by its own
 * position. */
#include "gptest.h"

#include <stdio.h>
#include <string.h>

#include "admit.h"

/* A GPU node as GPU feature discovery labels it: 52 labels of ~60 bytes each. */
static cJSON *labelled_node(int i)
{
    cJSON *n = cJSON_CreateObject(), *md = cJSON_AddObjectToObject(n, "metadata");
    cJSON *labels = cJSON_AddObjectToObject(md, "labels");
    char k[80], v[40];

    for (int j = 0; j < 52; j++) {
        snprintf(k, sizeof(k), "feature.node.kubernetes.io/pci-10de.sriov.capable-%02d", j);
        snprintf(v, sizeof(v), "value-of-node-%06d", i);
        cJSON_AddStringToObject(labels, k, v);
    }
    return n;
}

GP_TEST(twenty_thousand_labelled_nodes_load)
{
    sim_admit a = { 0 };
    gp_err err = { "" };
    cJSON *node = labelled_node(1);
    gp_status st = GP_OK;
    int i;

    for (i = 0; i < 20000 && st == GP_OK; i++)
        st = sim_admit_node(&a, (size_t)i, node, &err);
    GP_CHECK_INT(st, GP_OK);
    GP_CHECK_INT(i, 20000);
    if (st != GP_OK)
        printf("  node %d: %s\n", i - 1, err.msg);
    GP_CHECK_INT(a.n_node, 20000);
    if (a.n_node == 20000)
        GP_CHECK_INT(a.node[19999].nlabels, 52);
    sim_admit_free(&a);
    cJSON_Delete(node);
}

GP_TEST(bad_taint_named_by_its_position)
{
    sim_admit a = { 0 };
    gp_err err = { "" };
    cJSON *node = cJSON_Parse("{\"spec\":{\"taints\":[{\"key\":\"k\",\"effect\":"
                              "\"PreferNoSchedule\"},{\"effect\":\"NoSchedule\"}]}}");

    GP_CHECK_INT(sim_admit_node(&a, 0, node, &err), GP_EINVAL);
    GP_CHECK_STR(err.msg, "spec.taints[1]: want key and effect strings");
    GP_CHECK(!a.tainted);
    sim_admit_free(&a);
    cJSON_Delete(node);
}

GP_MAIN(GP_CASE(twenty_thousand_labelled_nodes_load), GP_CASE(bad_taint_named_by_its_position))
