/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of lib/workload.c: every attribution rule, in its order. */
#include "gptest.h"

#include "gpupack/workload.h"

/* The reference ("kind/name") gp_workload_of gives, into buf. */
static const char *ref_of(const gp_workload_in *in, char *buf, size_t n)
{
    gp_workload w;

    gp_workload_of(in, &w);
    return gp_workload_ref(&w, buf, n);
}

#define REF(in) ref_of(&(in), buf, sizeof(buf))

GP_TEST(no_owner_is_pod)
{
    char buf[320];
    gp_workload_in in = {.namespace = "ml", .pod = "debug-0"};

    GP_CHECK_STR(REF(in), "pod/debug-0");
    in.owner_kind = "";
    GP_CHECK_STR(REF(in), "pod/debug-0");
    in.owner_kind = "<none>";
    in.owner_name = "<none>";
    GP_CHECK_STR(REF(in), "pod/debug-0");
}

GP_TEST(replicaset_with_owner_owner_is_deployment)
{
    char buf[320];
    gp_workload_in in = {.namespace = "ml", .pod = "ranker-7d9f-abc", .owner_kind = "ReplicaSet",
                         .owner_name = "ranker-7d9f", .owner_owner_kind = "Deployment",
                         .owner_owner_name = "ranker"};

    GP_CHECK_STR(REF(in), "deployment/ranker");
}

GP_TEST(replicaset_by_pod_template_hash)
{
    char buf[320];
    gp_label l[] = {{"pod-template-hash", "7d9f"}};
    gp_workload_in in = {.pod = "ranker-7d9f-abc", .labels = l, .nlabels = 1,
                         .owner_kind = "ReplicaSet", .owner_name = "ranker-7d9f"};

    GP_CHECK_STR(REF(in), "deployment/ranker");
    in.owner_name = "ranker-other"; /* the hash is not its suffix: the ReplicaSet itself */
    GP_CHECK_STR(REF(in), "replicaset/ranker-other");
    in.nlabels = 0;
    in.owner_name = "ranker-7d9f";
    GP_CHECK_STR(REF(in), "replicaset/ranker-7d9f");
}

GP_TEST(job_of_cronjob)
{
    char buf[320];
    gp_workload_in in = {.pod = "nightly-28000-x", .owner_kind = "Job",
                         .owner_name = "nightly-28000", .owner_owner_kind = "CronJob",
                         .owner_owner_name = "nightly"};

    GP_CHECK_STR(REF(in), "cronjob/nightly");
    in.owner_owner_kind = NULL;
    GP_CHECK_STR(REF(in), "job/nightly-28000");
}

/* Without the Job's owner (the webhook never has it), the CronJob controller's Job name says it:
 * "<cronjob>-<minutes since the epoch>". */
GP_TEST(job_named_by_cronjob)
{
    char buf[320];
    gp_workload_in in = {.pod = "nightly-eval-29393700-h4q7s", .owner_kind = "Job",
                         .owner_name = "nightly-eval-29393700"};

    GP_CHECK_STR(REF(in), "cronjob/nightly-eval");
    in.owner_name = "a-21038400"; /* 2010-01-01T00:00Z, the first minute taken */
    GP_CHECK_STR(REF(in), "cronjob/a");
    in.owner_name = "a-21038399";
    GP_CHECK_STR(REF(in), "job/a-21038399");
    in.owner_name = "train-20261206"; /* a date, not minutes */
    GP_CHECK_STR(REF(in), "job/train-20261206");
    in.owner_name = "train-129393700"; /* nine digits */
    GP_CHECK_STR(REF(in), "job/train-129393700");
    in.owner_name = "train-2939370x";
    GP_CHECK_STR(REF(in), "job/train-2939370x");
    in.owner_name = "-29393700"; /* no CronJob name before it */
    GP_CHECK_STR(REF(in), "job/-29393700");
    in.owner_name = "29393700";
    GP_CHECK_STR(REF(in), "job/29393700");
    in.owner_kind = "StatefulSet"; /* only a Job */
    in.owner_name = "db-29393700";
    GP_CHECK_STR(REF(in), "statefulset/db-29393700");
    in.owner_kind = "Job"; /* a known owner wins */
    in.owner_owner_kind = "Workflow";
    in.owner_owner_name = "wf";
    GP_CHECK_STR(REF(in), "workflow/wf");
}

GP_TEST(other_owners_are_themselves)
{
    char buf[320];
    gp_workload_in in = {.pod = "train-master-0", .owner_kind = "PyTorchJob",
                         .owner_name = "train"};

    GP_CHECK_STR(REF(in), "pytorchjob/train");
    in.owner_kind = "StatefulSet";
    in.owner_name = "db";
    GP_CHECK_STR(REF(in), "statefulset/db");
    in.owner_kind = "DaemonSet";
    in.owner_name = "agent";
    GP_CHECK_STR(REF(in), "daemonset/agent");
}

GP_TEST(labels_come_first)
{
    char buf[320];
    gp_label isvc[] = {{"serving.kserve.io/inferenceservice", "llama"}};
    gp_label nb[] = {{"notebook-name", "alice"}};
    gp_label lws[] = {{"leaderworkerset.sigs.k8s.io/name", "vllm"}};
    gp_label js[] = {{"jobset.sigs.k8s.io/jobset-name", "pretrain"}};
    gp_workload_in in = {.pod = "p", .owner_kind = "ReplicaSet", .owner_name = "llama-pred-1",
                         .owner_owner_kind = "Deployment", .owner_owner_name = "llama-pred",
                         .labels = isvc, .nlabels = 1};

    GP_CHECK_STR(REF(in), "inferenceservice/llama");
    in.labels = nb;
    in.owner_kind = "StatefulSet";
    in.owner_owner_kind = NULL;
    GP_CHECK_STR(REF(in), "notebook/alice");
    in.labels = lws;
    GP_CHECK_STR(REF(in), "leaderworkerset/vllm");
    in.labels = js;
    in.owner_kind = "Job";
    GP_CHECK_STR(REF(in), "jobset/pretrain");
}

GP_TEST(ray_cluster_and_ray_job)
{
    char buf[320];
    gp_label rc[] = {{"ray.io/cluster", "rc-abc"},
                     {"ray.io/originated-from-crd", "RayJob"},
                     {"ray.io/originated-from-cr-name", "finetune"}};
    gp_workload_in in = {.pod = "rc-abc-head", .owner_kind = "RayCluster", .owner_name = "rc-abc",
                         .labels = rc, .nlabels = 3};

    GP_CHECK_STR(REF(in), "rayjob/finetune");
    in.nlabels = 2; /* no CR name: the cluster */
    GP_CHECK_STR(REF(in), "raycluster/rc-abc");
    in.nlabels = 1;
    GP_CHECK_STR(REF(in), "raycluster/rc-abc");
}

GP_TEST(ref_is_cut_to_the_buffer)
{
    char buf[8];
    gp_workload w = {"Deployment", "ranker"};

    GP_CHECK_STR(gp_workload_ref(&w, buf, sizeof(buf)), "deploym");
    GP_CHECK_STR(gp_workload_ref(&w, buf, 2), "d");
}

GP_MAIN(GP_CASE(no_owner_is_pod), GP_CASE(replicaset_with_owner_owner_is_deployment),
        GP_CASE(replicaset_by_pod_template_hash), GP_CASE(job_of_cronjob),
        GP_CASE(job_named_by_cronjob),
        GP_CASE(other_owners_are_themselves), GP_CASE(labels_come_first),
        GP_CASE(ray_cluster_and_ray_job), GP_CASE(ref_is_cut_to_the_buffer))
