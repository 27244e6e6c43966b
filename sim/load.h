/* SPDX-License-Identifier: Apache-2.0 */
/* gpupack-sim's inputs: a node list and a task list, from the Alibaba trace's CSV files or from
 * `kubectl get nodes -o json` / `kubectl get pods -A -o json` dumps (docs/simulation.md). The
 * format is detected from the content: JSON starts with '{' or '['. */
#ifndef GPUPACK_SIM_LOAD_H
#define GPUPACK_SIM_LOAD_H

#include <stddef.h>
#include <stdint.h>

#include "admit.h"
#include "gpupack/frag.h"
#include "gpupack/status.h"

/* Limits on untrusted input. */
#define SIM_MAX_FILE_BYTES (512u << 20)
#define SIM_MAX_NODES 200000
#define SIM_MAX_TASKS 20000000
#define SIM_NAME_LEN 64
/* The GPU model a pod of a JSON dump is kept to when it allows none of the nodes' models: no
 * node has it, so the pod is never placed ("no node has one of its GPU models"). */
#define SIM_NO_MODEL "(none of the nodes' models)"

/* A task's time when its input gives none (a CSV without the column, an empty cell, a pod still
 * running), and when it gives one that cannot be read: the paper protocol reads no times, so an
 * unreadable one is an error only for the replay (sim_jobs_from_input() names the row). */
#define SIM_TIME_NONE INT64_MIN
#define SIM_TIME_BAD (INT64_MIN + 1)

/* What the replay needs of each task beside its shape (sim/workload.h). Times are seconds: the
 * trace's own clock (creation_time, deletion_time), or Unix time for a JSON dump
 * (metadata.creationTimestamp; the end is metadata.deletionTimestamp, else for a Succeeded or
 * Failed pod its containers' latest state.terminated.finishedAt, else none). Priority and owner
 * (sim_owner, sim/job.h): a pod's spec.priority and its controller's kind; the trace's qos:
 * LS (online services) -> 1000 and a Deployment, BE (best effort) -> 0 and a Job, anything else
 * (Burstable, Guaranteed, empty) -> 0 and no owner. */
typedef struct {
    int64_t created, ended; /* or SIM_TIME_NONE / SIM_TIME_BAD */
    int32_t priority;
    uint8_t owner;          /* sim_owner */
    bool bad_priority;      /* spec.priority is not an int32: an error for the replay */
    bool json;              /* from a JSON dump: at is an item index */
    uint16_t file;          /* index in task_files */
    uint32_t at;            /* CSV: line number; JSON: index in items */
    uint8_t admit;          /* the nodes that admit it: its class in sim_input.admit */
} sim_task_info;

typedef struct {
    gp_frag_models models;
    gp_frag_node *nodes;
    char (*node_names)[SIM_NAME_LEN];
    size_t n_nodes;
    gp_frag_task *tasks; /* the tasks to place, in file order */
    size_t n_tasks;
    /* Pods of a JSON dump already bound to a node (spec.nodeName): placed before the run. */
    gp_frag_task *bound;
    size_t *bound_node;
    size_t n_bound;
    /* Nodes whose status.allocatable has nvidia.com/mig-* slices, and the GPUs those slices
     * make (compute slices / 7, rounded up, per node: the extender's count for prices). MIG
     * placement is not simulated: these GPUs are not in the nodes' ngpu. */
    size_t n_mig_nodes;
    int64_t mig_gpus;
    /* Set before loading to keep each task's name (the CSV's name column, or a pod's
     * namespace/name): task_names[i] for tasks[i], bound_names[i] for bound[i] (malloc'd). */
    bool keep_names;
    char **task_names, **bound_names;
    /* task_info[i] for tasks[i], always kept; task_files: each file sim_load_tasks() read. */
    sim_task_info *task_info;
    char **task_files;
    size_t n_task_files;
    /* Set before loading by the replay (docs/simulation.md, "The replay"): keep_finished keeps
     * Succeeded and Failed pods (finished work is what a replay replays); all_as_tasks makes pods
     * bound to a node (spec.nodeName) ordinary tasks, bound or not to a node of the list;
     * skip_daemonsets leaves out pods a DaemonSet controls (one per node, not placed by demand),
     * counted in n_daemonset. The paper protocol sets none of them. */
    bool keep_finished, all_as_tasks, skip_daemonsets;
    size_t n_daemonset;
    /* Set before loading: the policy whose classes' gpuModels restrict a pod of a JSON dump as
     * the extender's filter does (NULL: only the pod's annotation and nodeSelector). */
    const struct gp_policy *policy;
    /* Which nodes admit each task (sim/admit.h): the labels, cordons and taints of the nodes of
     * a JSON dump and the pods' nodeSelector, required node affinity and tolerations; the paper
     * protocol only (not with all_as_tasks: the replay's pools carry none of them). */
    sim_admit admit;
} sim_input;

/* Reads the node list at path into in (nodes, node_names, models). Errors name file:line (CSV)
 * or the JSON item; the caller frees with sim_input_free(). */
gp_status sim_load_nodes(const char *path, sim_input *in, gp_err *err) GP_WUR;

/* Reads the task list at path (after the nodes: JSON pods may name them), appending to what in
 * already holds (the caller checks that some task is left to place). */
gp_status sim_load_tasks(const char *path, sim_input *in, gp_err *err) GP_WUR;

/* Names task i (< n_tasks) for messages into buf: "pods.csv:44 (openb-pod-0042)" or
 * "pods.json: items[3] (ml/infer-1)"; the name in parentheses only with keep_names. */
void sim_input_where(const sim_input *in, size_t task, char *buf, size_t len);

void sim_input_free(sim_input *in);

#endif
