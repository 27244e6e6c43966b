/* SPDX-License-Identifier: Apache-2.0 */
/* gpupack-sim's inputs: a node list and a task list, from the Alibaba trace's CSV files or from
 * `kubectl get nodes -o json` / `kubectl get pods -A -o json` dumps (docs/simulation.md). The
 * format is detected from the content: JSON starts with '{' or '['. */
#ifndef GPUPACK_SIM_LOAD_H
#define GPUPACK_SIM_LOAD_H

#include <stddef.h>

#include "gpupack/frag.h"
#include "gpupack/status.h"

/* Limits on untrusted input. */
#define SIM_MAX_FILE_BYTES (512u << 20)
#define SIM_MAX_NODES 200000
#define SIM_MAX_TASKS 20000000
#define SIM_NAME_LEN 64

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
} sim_input;

/* Reads the node list at path into in (nodes, node_names, models). Errors name file:line (CSV)
 * or the JSON item; the caller frees with sim_input_free(). */
gp_status sim_load_nodes(const char *path, sim_input *in, gp_err *err) GP_WUR;

/* Reads the task list at path (after the nodes: JSON pods may name them), appending to what in
 * already holds (the caller checks that some task is left to place). */
gp_status sim_load_tasks(const char *path, sim_input *in, gp_err *err) GP_WUR;

void sim_input_free(sim_input *in);

#endif
