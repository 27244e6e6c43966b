/* SPDX-License-Identifier: Apache-2.0 */
/* Which workload a pod belongs to (workload.h). The rules, in order:
 * 1. labels the higher-level controllers put on their pods (first present wins):
 *    serving.kserve.io/inferenceservice -> InferenceService, notebook-name -> Notebook,
 *    leaderworkerset.sigs.k8s.io/name -> LeaderWorkerSet, ray.io/cluster -> RayCluster (RayJob
 *    <ray.io/originated-from-cr-name> when ray.io/originated-from-crd is RayJob),
 *    jobset.sigs.k8s.io/jobset-name -> JobSet;
 * 2. the owner's owner when known (Deployment of a ReplicaSet, CronJob of a Job);
 * 3. a ReplicaSet named <D>-<H> whose pod has pod-template-hash H -> Deployment <D>; a Job named
 *    <C>-<M>, M eight digits of minutes since the epoch from 2010 on -> CronJob <C>;
 * 4. any other owner is itself (StatefulSet, DaemonSet, Job, PyTorchJob, ...);
 * 5. no owner: Pod <pod name>. */
#include "gpupack/workload.h"

#include <ctype.h>
#include <string.h>

#include "gpupack/strbuf.h"

typedef struct {
    const char *label;
    const char *kind;
} label_rule;

static const label_rule label_rules[] = {
    {"serving.kserve.io/inferenceservice", "InferenceService"},
    {"notebook-name", "Notebook"},
    {"leaderworkerset.sigs.k8s.io/name", "LeaderWorkerSet"},
    {"ray.io/cluster", "RayCluster"},
    {"jobset.sigs.k8s.io/jobset-name", "JobSet"},
};

static const char *label_of(const gp_workload_in *in, const char *key)
{
    for (size_t i = 0; in->labels != NULL && i < in->nlabels; i++)
        if (in->labels[i].key != NULL && strcmp(in->labels[i].key, key) == 0)
            return in->labels[i].value;
    return NULL;
}

static bool set(gp_workload *out, const char *kind, const char *name)
{
    gp_copy_text(out->kind, sizeof(out->kind), kind, strlen(kind));
    gp_copy_text(out->name, sizeof(out->name), name, strlen(name));
    return true;
}

static bool given(const char *s)
{
    return s != NULL && *s != '\0' && strcmp(s, "<none>") != 0;
}

static bool from_labels(const gp_workload_in *in, gp_workload *out)
{
    for (size_t i = 0; i < sizeof(label_rules) / sizeof(label_rules[0]); i++) {
        const char *v = label_of(in, label_rules[i].label);

        if (!given(v))
            continue;
        if (strcmp(label_rules[i].kind, "RayCluster") == 0) {
            const char *crd = label_of(in, "ray.io/originated-from-crd");
            const char *cr = label_of(in, "ray.io/originated-from-cr-name");

            if (crd != NULL && strcmp(crd, "RayJob") == 0 && given(cr))
                return set(out, "RayJob", cr);
        }
        return set(out, label_rules[i].kind, v);
    }
    return false;
}

/* A ReplicaSet "<d>-<hash>" of a pod labelled pod-template-hash=<hash>: Deployment <d>. */
static bool deployment_by_hash(const gp_workload_in *in, gp_workload *out)
{
    const char *h = label_of(in, "pod-template-hash");
    size_t n, hn;

    if (strcmp(in->owner_kind, "ReplicaSet") != 0 || !given(h))
        return false;
    n = strlen(in->owner_name);
    hn = strlen(h);
    if (n < hn + 2 || in->owner_name[n - hn - 1] != '-' ||
        strcmp(in->owner_name + n - hn, h) != 0)
        return false;
    set(out, "Deployment", "");
    gp_copy_text(out->name, sizeof(out->name), in->owner_name, n - hn - 1);
    return true;
}

/* The CronJob controller names each Job "<cronjob>-<scheduled time in minutes since the epoch>"
 * (getTimeHashInMinutes): eight digits from 2010 (21,038,400) until 2160. A date such as
 * "-20261206" is below that and stays a Job. */
#define CRONJOB_MINUTES_MIN 21038400L

static bool cronjob_by_name(const gp_workload_in *in, gp_workload *out)
{
    size_t n = strlen(in->owner_name);
    long minutes = 0;

    if (strcmp(in->owner_kind, "Job") != 0 || n < 10 || in->owner_name[n - 9] != '-')
        return false;
    for (size_t i = n - 8; i < n; i++) {
        if (!isdigit((unsigned char)in->owner_name[i]))
            return false;
        minutes = minutes * 10 + (in->owner_name[i] - '0');
    }
    if (minutes < CRONJOB_MINUTES_MIN)
        return false;
    set(out, "CronJob", "");
    gp_copy_text(out->name, sizeof(out->name), in->owner_name, n - 9);
    return true;
}

void gp_workload_of(const gp_workload_in *in, gp_workload *out)
{
    if (from_labels(in, out))
        return;
    if (given(in->owner_owner_kind) && given(in->owner_owner_name)) {
        set(out, in->owner_owner_kind, in->owner_owner_name);
        return;
    }
    if (given(in->owner_kind) && given(in->owner_name)) {
        if (!deployment_by_hash(in, out) && !cronjob_by_name(in, out))
            set(out, in->owner_kind, in->owner_name);
        return;
    }
    set(out, "Pod", in->pod != NULL ? in->pod : "");
}

char *gp_workload_ref(const gp_workload *w, char *buf, size_t n)
{
    size_t i = 0;

    if (n == 0)
        return buf;
    for (; w->kind[i] != '\0' && i + 1 < n; i++)
        buf[i] = (char)tolower((unsigned char)w->kind[i]);
    if (i + 1 < n) {
        buf[i++] = '/';
        gp_copy_text(buf + i, n - i, w->name, strlen(w->name));
    } else {
        buf[i] = '\0';
    }
    return buf;
}
