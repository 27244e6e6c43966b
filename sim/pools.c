/* SPDX-License-Identifier: Apache-2.0 */
/* The replay's node pools (sim/pools.h). */
#include "pools.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "gpupack/flags.h"
#include "gpupack/nodeview.h"
#include "gpupack/quantity.h"
#include "gpupack/score.h"

/* The policy's $/hour for a node of this shape, instance type and model (on
 * demand or spot). */
static double policy_price(const gp_frag_node *n, const char *instance_type, const char *model,
                           bool spot, const gp_policy *pol)
{
    gp_node v;

    memset(&v, 0, sizeof(v));
    gp_frag_to_view(n, &v);
    v.instance_type = instance_type && *instance_type ? (char *)instance_type : NULL;
    v.gpu_product = model && *model ? (char *)model : NULL;
    v.spot = spot;
    return gp_score_node_price(&v, pol);
}

static void fill_prices(sim_pool *p, const gp_frag_models *models, const gp_policy *pol,
                        bool have_od, bool have_spot)
{
    const char *model = p->node.model >= 0 ? models->name[p->node.model] : NULL;

    if (!have_od)
        p->on_demand = policy_price(&p->node, p->instance_type, model, false, pol);
    if (!have_spot)
        p->spot = policy_price(&p->node, p->instance_type, model, true, pol);
}

int64_t sim_pools_fleet_gpus(const sim_pool *pools, size_t n)
{
    int64_t g = 0;

    for (size_t i = 0; i < n; i++)
        g += (int64_t)pools[i].max_nodes * pools[i].node.ngpu;
    return g;
}

/* A pool name from the model and size: lower case, [a-z0-9-] only. */
static void shape_name(const gp_frag_node *n, const gp_frag_models *models, char *buf, size_t len)
{
    const char *model = n->model >= 0 ? models->name[n->model] : "cpu";
    size_t k = 0;

    for (const char *c = model; *c && k + 1 < len; c++)
        buf[k++] = isalnum((unsigned char)*c) ? (char)tolower((unsigned char)*c) : '-';
    buf[k] = '\0';
    snprintf(buf + k, len - k, "-%dgpu-%lldc-%lldg", n->ngpu, (long long)(n->cpu_cap / 1000),
             (long long)(n->mem_cap / 1024));
}

gp_status sim_pools_from_nodes(const gp_frag_node *nodes, size_t n, const gp_frag_models *models,
                               const gp_policy *pol, int64_t provision_s, sim_pool *out,
                               size_t *n_out, gp_err *err)
{
    size_t k = 0;

    for (size_t i = 0; i < n; i++) {
        const gp_frag_node *x = &nodes[i];
        size_t p = 0;
        while (p < k && !(out[p].node.cpu_cap == x->cpu_cap && out[p].node.mem_cap == x->mem_cap &&
                          out[p].node.ngpu == x->ngpu && out[p].node.model == x->model))
            p++;
        if (p == k) {
            if (k == SIM_MAX_POOLS) {
                gp_err_set(err,
                           "the node list has more than %d node shapes (pools); give "
                           "--pools FILE",
                           SIM_MAX_POOLS);
                return GP_EINVAL;
            }
            memset(&out[k], 0, sizeof(out[k]));
            gp_frag_node_init(&out[k].node, 0, x->cpu_cap, x->mem_cap, x->ngpu, x->model);
            shape_name(x, models, out[k].name, sizeof(out[k].name));
            out[k].provision_s = provision_s >= 0 ? provision_s
                                 : x->ngpu > 0    ? SIM_PROVISION_GPU_S
                                                  : SIM_PROVISION_CPU_S;
            fill_prices(&out[k], models, pol, false, false);
            k++;
        }
        out[p].max_nodes++;
    }
    *n_out = k;
    return GP_OK;
}

/* ---- The pools file ---- */

static gp_status bad(gp_err *err, size_t i, const char *what)
{
    gp_err_set(err, "pools[%zu]: %s", i, what);
    return GP_EINVAL;
}

static bool qty(const cJSON *o, const char *key, bool milli, int64_t *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    gp_qty q;
    gp_err e = { 0 };

    if (cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble < 1e12) {
        *out = (int64_t)(milli ? ceil(v->valuedouble * 1000) : ceil(v->valuedouble));
        return true;
    }
    if (!cJSON_IsString(v) || gp_qty_parse_str(v->valuestring, &q, &e) != GP_OK)
        return false;
    *out = milli ? gp_qty_ceil_milli(q) : gp_qty_ceil_units(q);
    return *out >= 0;
}

static bool int_field(const cJSON *o, const char *key, int lo, int hi, int dflt, int *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

    if (!v) {
        *out = dflt;
        return true;
    }
    if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble) || v->valuedouble < lo ||
        v->valuedouble > hi)
        return false;
    *out = (int)v->valuedouble;
    return true;
}

static bool price_field(const cJSON *o, const char *key, bool *have, double *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

    *have = v != NULL;
    if (!v)
        return true;
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0) || v->valuedouble > 1e6)
        return false;
    *out = v->valuedouble;
    return true;
}

static bool str_field(const cJSON *o, const char *key, char *buf, size_t len, bool required)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

    if (!v)
        return !required;
    if (!cJSON_IsString(v) || !*v->valuestring || strlen(v->valuestring) >= len)
        return false;
    memcpy(buf, v->valuestring, strlen(v->valuestring) + 1);
    return true;
}

static gp_status parse_sizes(const cJSON *o, size_t i, gp_frag_models *models, sim_pool *p,
                             gp_err *err)
{
    int64_t cpu, mem;
    int gpus;
    char model[GP_FRAG_MODEL_LEN] = "";

    if (!qty(o, "cpu", true, &cpu) || cpu <= 0)
        return bad(err, i, "cpu: want a quantity such as \"96\" or \"95500m\"");
    if (!qty(o, "memory", false, &mem) || (mem >> 20) <= 0)
        return bad(err, i, "memory: want a quantity such as \"1152Gi\"");
    if (!int_field(o, "gpus", 0, GP_FRAG_MAX_GPUS, 0, &gpus))
        return bad(err, i, "gpus: want a whole number 0..16");
    if (!str_field(o, "gpuModel", model, sizeof(model), false))
        return bad(err, i, "gpuModel: want a name of at most 31 characters");
    if (gpus > 0 && !*model)
        return bad(err, i, "gpuModel: required when gpus > 0");
    int m = *model ? gp_frag_models_id(models, model, strlen(model)) : -1;
    if (*model && m < 0)
        return bad(err, i, "gpuModel: too many GPU models (at most 32)");
    gp_frag_node_init(&p->node, 0, cpu, mem >> 20, gpus, m);
    return GP_OK;
}

/* The fields a pool may have: any other is an error, as an unknown policy field is, so that a
 * misspelt key (onDemnad) never silently changes the dollars. */
static const char *const pool_fields[] = { "name", "instanceType", "cpu", "memory", "gpus",
                                           "gpuModel", "maxNodes", "minNodes", "onDemand", "spot",
                                           "capacityType", "provisioningDelay" };

static gp_status unknown_fields(const cJSON *o, size_t i, gp_err *err)
{
    for (const cJSON *c = o->child; c; c = c->next) {
        size_t k = 0, n = sizeof(pool_fields) / sizeof(pool_fields[0]);
        while (k < n && strcmp(c->string, pool_fields[k]) != 0)
            k++;
        if (k == n) {
            gp_err_set(err, "pools[%zu].%.64s: unknown field (a pool has name, instanceType, "
                       "cpu, memory, gpus, gpuModel, maxNodes, minNodes, onDemand, spot, "
                       "capacityType, provisioningDelay)", i, c->string);
            return GP_EINVAL;
        }
    }
    return GP_OK;
}

static gp_status parse_pool(const cJSON *o, size_t i, gp_frag_models *models, const gp_policy *pol,
                            sim_pool *p, gp_err *err)
{
    char cap[16] = "on-demand", delay[32] = "";
    bool have_od, have_spot;
    double secs;

    memset(p, 0, sizeof(*p));
    if (!cJSON_IsObject(o))
        return bad(err, i, "want an object");
    if (unknown_fields(o, i, err) != GP_OK)
        return GP_EINVAL;
    if (!str_field(o, "name", p->name, sizeof(p->name), true))
        return bad(err, i, "name: required, at most 63 characters");
    if (!str_field(o, "instanceType", p->instance_type, sizeof(p->instance_type), false))
        return bad(err, i, "instanceType: want a string of at most 63 characters");
    gp_status st = parse_sizes(o, i, models, p, err);
    if (st != GP_OK)
        return st;
    if (!cJSON_GetObjectItemCaseSensitive(o, "maxNodes") ||
        !int_field(o, "maxNodes", 1, SIM_MAX_NODES_REPLAY, 0, &p->max_nodes) ||
        !int_field(o, "minNodes", 0, p->max_nodes, 0, &p->min_nodes))
        return bad(err, i, "want maxNodes 1..200000 and minNodes 0..maxNodes");
    if (!price_field(o, "onDemand", &have_od, &p->on_demand) ||
        !price_field(o, "spot", &have_spot, &p->spot))
        return bad(err, i, "onDemand, spot: want $/hour per node, 0..1000000");
    if (!str_field(o, "capacityType", cap, sizeof(cap), false) ||
        (strcmp(cap, "on-demand") != 0 && strcmp(cap, "spot") != 0))
        return bad(err, i, "capacityType: want \"on-demand\" or \"spot\"");
    p->use_spot = !strcmp(cap, "spot");
    p->provision_s = p->node.ngpu > 0 ? SIM_PROVISION_GPU_S : SIM_PROVISION_CPU_S;
    if (!str_field(o, "provisioningDelay", delay, sizeof(delay), false))
        return bad(err, i, "provisioningDelay: want a duration such as \"4m\"");
    if (*delay && strcmp(delay, "0s") != 0 && strcmp(delay, "0") != 0) {
        if (gp_duration_parse(delay, &secs) != GP_OK || secs > 86400)
            return bad(err, i, "provisioningDelay: want a duration such as \"4m\" (at most 1d)");
        p->provision_s = (int64_t)secs;
    } else if (*delay) {
        p->provision_s = 0;
    }
    fill_prices(p, models, pol, have_od, have_spot);
    return GP_OK;
}

gp_status sim_pools_parse(const char *json, size_t len, gp_frag_models *models,
                          const gp_policy *pol, sim_pool *out, size_t *n_out, gp_err *err)
{
    cJSON *root = cJSON_ParseWithLength(json, len);
    const cJSON *arr = root ? cJSON_GetObjectItemCaseSensitive(root, "pools") : NULL;
    gp_status st = GP_OK;
    size_t n = 0;

    if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) < 1 ||
        cJSON_GetArraySize(arr) > SIM_MAX_POOLS) {
        gp_err_set(err, "%s", root ? "want {\"pools\": [ 1 to 64 pools ]}" : "not JSON");
        cJSON_Delete(root);
        return GP_EINVAL;
    }
    for (const cJSON *o = root->child; o; o = o->next)
        if (strcmp(o->string, "pools") != 0) {
            gp_err_set(err, "%.64s: unknown field (the file has \"pools\" only)", o->string);
            cJSON_Delete(root);
            return GP_EINVAL;
        }
    for (const cJSON *o = arr->child; o && st == GP_OK; o = o->next, n++) {
        st = parse_pool(o, n, models, pol, &out[n], err);
        for (size_t k = 0; k < n && st == GP_OK; k++)
            if (!strcmp(out[k].name, out[n].name))
                st = bad(err, n, "name: the same as an earlier pool's");
    }
    cJSON_Delete(root);
    *n_out = n;
    return st;
}
