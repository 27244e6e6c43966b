/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of advisor/kubefill.c: Kubernetes objects fill in what kube-state-metrics did not
 * export (labels outside the allowlist, the owner's owner, node instance types and spot state)
 * and never overwrite what it did. */
#include "gptest.h"

#include <stdlib.h>
#include <string.h>

#include "gpupack/advise.h"
#include "kubefill.h"

static char *sdup(const char *s)
{
    return s ? strdup(s) : NULL;
}

static void add_pod(gp_adv_data *d, const char *ns, const char *name, const char *okind,
                    const char *oname)
{
    gp_adv_pod *p = &d->pods[d->npods++];

    memset(p, 0, sizeof(*p));
    p->namespace = sdup(ns);
    p->name = sdup(name);
    p->owner_kind = sdup(okind);
    p->owner_name = sdup(oname);
}

static void make_data(gp_adv_data *d)
{
    memset(d, 0, sizeof(*d));
    d->pods = calloc(4, sizeof(*d->pods));
    add_pod(d, "ml", "ranker-7d9f-abcde", "ReplicaSet", "ranker-7d9f");
    add_pod(d, "ml", "nightly-29000000-xyz", "Job", "nightly-29000000");
    add_pod(d, "ml", "orphan", NULL, NULL);
    d->pods[0].labels = calloc(1, sizeof(gp_label));
    d->pods[0].labels[0].key = sdup("app");
    d->pods[0].labels[0].value = sdup("from-ksm");
    d->pods[0].nlabels = 1;
    d->nodes = calloc(2, sizeof(*d->nodes));
    d->nodes[0].name = sdup("gpu-1");
    d->nodes[1].name = sdup("gpu-2");
    d->nodes[1].instance_type = sdup("kept");
    d->nnodes = 2;
}

static gp_status fill(gp_adv_data *d, const gp_policy *pol, const char *json,
                      gp_adv_fill_stats *st)
{
    cJSON *root = cJSON_Parse(json);
    gp_err err = {{0}};
    gp_status rc = gp_adv_fill_list(d, pol, root, st, &err);

    cJSON_Delete(root);
    return rc;
}

GP_TEST(pods_gain_labels_and_owners_but_keep_their_own)
{
    gp_adv_data d;
    gp_adv_fill_stats st = {0};
    gp_policy *pol = NULL;

    GP_CHECK(gp_policy_default(&pol, NULL) == GP_OK);
    make_data(&d);
    GP_CHECK(fill(&d, pol,
                  "{\"kind\":\"PodList\",\"items\":["
                  "{\"metadata\":{\"namespace\":\"ml\",\"name\":\"ranker-7d9f-abcde\","
                  "\"labels\":{\"app\":\"from-api\",\"gpupack.io/model\":\"ranker\"}}},"
                  "{\"metadata\":{\"namespace\":\"ml\",\"name\":\"orphan\",\"ownerReferences\":["
                  "{\"kind\":\"Foo\",\"name\":\"f\"},"
                  "{\"kind\":\"Notebook\",\"name\":\"nb\",\"controller\":true}]}},"
                  "{\"metadata\":{\"namespace\":\"other\",\"name\":\"ranker-7d9f-abcde\","
                  "\"labels\":{\"x\":\"y\"}}}]}",
                  &st) == GP_OK);
    GP_CHECK_STR(gp_label_find(d.pods[0].labels, d.pods[0].nlabels, "app"), "from-ksm");
    GP_CHECK_STR(gp_label_find(d.pods[0].labels, d.pods[0].nlabels, "gpupack.io/model"),
                 "ranker");
    GP_CHECK(gp_label_find(d.pods[0].labels, d.pods[0].nlabels, "x") == NULL);
    GP_CHECK_STR(d.pods[2].owner_kind, "Notebook");
    GP_CHECK_STR(d.pods[2].owner_name, "nb");
    GP_CHECK_INT(st.pod_labels, 1);
    gp_adv_data_free(&d);
    gp_policy_unref(pol);
}

GP_TEST(replicasets_and_jobs_give_the_owner_of_the_owner)
{
    gp_adv_data d;
    gp_adv_fill_stats st = {0};

    make_data(&d);
    GP_CHECK(fill(&d, NULL,
                  "{\"kind\":\"List\",\"items\":["
                  "{\"kind\":\"ReplicaSet\",\"metadata\":{\"namespace\":\"ml\",\"name\":"
                  "\"ranker-7d9f\",\"ownerReferences\":[{\"kind\":\"Deployment\",\"name\":"
                  "\"ranker\",\"controller\":true}]}},"
                  "{\"kind\":\"Job\",\"metadata\":{\"namespace\":\"other\",\"name\":"
                  "\"nightly-29000000\",\"ownerReferences\":[{\"kind\":\"CronJob\",\"name\":"
                  "\"wrong-namespace\",\"controller\":true}]}}]}",
                  &st) == GP_OK);
    GP_CHECK(fill(&d, NULL,
                  "{\"kind\":\"JobList\",\"items\":[{\"metadata\":{\"namespace\":\"ml\","
                  "\"name\":\"nightly-29000000\",\"ownerReferences\":[{\"kind\":\"CronJob\","
                  "\"name\":\"nightly\",\"controller\":true}]}}]}",
                  &st) == GP_OK);
    GP_CHECK_STR(d.pods[0].owner_owner_kind, "Deployment");
    GP_CHECK_STR(d.pods[0].owner_owner_name, "ranker");
    GP_CHECK_STR(d.pods[1].owner_owner_kind, "CronJob");
    GP_CHECK_STR(d.pods[1].owner_owner_name, "nightly");
    GP_CHECK(d.pods[2].owner_owner_kind == NULL);
    GP_CHECK_INT(st.owners, 2);
    gp_adv_data_free(&d);
}

GP_TEST(nodes_gain_instance_type_product_and_spot)
{
    gp_adv_data d;
    gp_adv_fill_stats st = {0};
    gp_policy *pol = NULL;

    GP_CHECK(gp_policy_default(&pol, NULL) == GP_OK);
    make_data(&d);
    GP_CHECK(fill(&d, pol,
                  "{\"kind\":\"NodeList\",\"items\":["
                  "{\"metadata\":{\"name\":\"gpu-1\",\"labels\":{"
                  "\"node.kubernetes.io/instance-type\":\"a2-highgpu-8g\","
                  "\"nvidia.com/gpu.product\":\"NVIDIA-A100-SXM4-40GB\","
                  "\"cloud.google.com/gke-spot\":\"true\"}}},"
                  "{\"metadata\":{\"name\":\"gpu-2\",\"labels\":{"
                  "\"node.kubernetes.io/instance-type\":\"replaced?\"}}}]}",
                  &st) == GP_OK);
    GP_CHECK_STR(d.nodes[0].instance_type, "a2-highgpu-8g");
    GP_CHECK_STR(d.nodes[0].gpu_product, "NVIDIA-A100-SXM4-40GB");
    GP_CHECK(d.nodes[0].spot);
    GP_CHECK_STR(d.nodes[1].instance_type, "kept");
    GP_CHECK_INT(st.nodes, 1);
    gp_adv_data_free(&d);
    gp_policy_unref(pol);
}

GP_TEST(not_a_list_is_an_error)
{
    gp_adv_data d;
    gp_adv_fill_stats st = {0};
    gp_err err = {{0}};

    make_data(&d);
    GP_CHECK(fill(&d, NULL, "{\"kind\":\"Pod\"}", &st) == GP_EINVAL);
    GP_CHECK(gp_adv_fill_file(&d, NULL, "/nonexistent/pods.json", &st, &err) != GP_OK);
    GP_CHECK(strstr(err.msg, "/nonexistent/pods.json") != NULL);
    gp_adv_data_free(&d);
}

GP_MAIN(GP_CASE(pods_gain_labels_and_owners_but_keep_their_own),
        GP_CASE(replicasets_and_jobs_give_the_owner_of_the_owner),
        GP_CASE(nodes_gain_instance_type_product_and_spot), GP_CASE(not_a_list_is_an_error))
