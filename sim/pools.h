/* SPDX-License-Identifier: Apache-2.0 */
/* The replay's node pools (sim/replay.h's sim_pool, docs/simulation.md): from the node list (one
 * pool per distinct node shape, as many nodes at most as the list has of it), or from a pools
 * file. Prices not given come from the policy's table, through the extender's own pricing
 * (gp_score_node_price(): instance type, else GPU product per GPU, else the default). */
#ifndef GPUPACK_SIM_POOLS_H
#define GPUPACK_SIM_POOLS_H

#include <stddef.h>

#include "gpupack/frag.h"
#include "gpupack/policy.h"
#include "gpupack/status.h"
#include "replay.h"

/* The provisioning delay when a pool does not state one: GPU nodes 4 minutes, CPU nodes 2. */
#define SIM_PROVISION_GPU_S 240
#define SIM_PROVISION_CPU_S 120

/* One pool per distinct (CPU, memory, GPUs, model) of nodes[0..n), in order of first
 * appearance, named from its model and size; min 0, max the count; prices from pol.
 * provision_s < 0: the defaults above. Returns GP_EINVAL when there are more than SIM_MAX_POOLS
 * shapes. */
gp_status sim_pools_from_nodes(const gp_frag_node *nodes, size_t n, const gp_frag_models *models,
                               const gp_policy *pol, int64_t provision_s, sim_pool *out,
                               size_t *n_out, gp_err *err) GP_WUR;

/* Parses a pools file's text (JSON, docs/simulation.md):
 *   {"pools": [{"name": "a100", "instanceType": "p4d.24xlarge", "gpus": 8,
 *               "gpuModel": "A100", "cpu": "96", "memory": "1152Gi",
 *               "onDemand": 21.9576, "spot": 8.78, "capacityType": "on-demand" | "spot",
 *               "minNodes": 0, "maxNodes": 20, "provisioningDelay": "4m"}, ...]}
 * name, cpu, memory and maxNodes are required; GPU models are interned into models; missing
 * prices come from pol. Errors name the pool (pools[i]) and the field. */
gp_status sim_pools_parse(const char *json, size_t len, gp_frag_models *models,
                          const gp_policy *pol, sim_pool *out, size_t *n_out, gp_err *err) GP_WUR;

/* The GPUs of the pools at their maximum. */
int64_t sim_pools_fleet_gpus(const sim_pool *pools, size_t n);

#endif
