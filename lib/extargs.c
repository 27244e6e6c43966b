/* kube-scheduler extender wire types (see extargs.h). */
#include "gpupack/extargs.h"

#include <string.h>

#include "gpupack/admission.h"
#include "gpupack/json.h"

static const char *node_name(const cJSON *node)
{
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(node, "metadata"), "name");

    return cJSON_IsString(n) && *n->valuestring ? n->valuestring : NULL;
}

static gp_status alloc_lists(gp_arena *a, gp_extargs *args, size_t n, bool full, gp_err *err)
{
    if (n > GP_EXTARGS_MAX_NODES) {
        gp_err_set(err, "more than %d nodes", GP_EXTARGS_MAX_NODES);
        return GP_ETOOBIG;
    }
    args->names = gp_arena_alloc(a, (n ? n : 1) * sizeof(char *));
    args->nodes = full ? gp_arena_alloc(a, (n ? n : 1) * sizeof(cJSON *)) : NULL;
    if (args->names == NULL || (full && args->nodes == NULL))
        return GP_ENOMEM;
    return GP_OK;
}

static gp_status decode_full(const cJSON *items, gp_arena *a, gp_extargs *args, gp_err *err)
{
    const cJSON *it;
    gp_status st = alloc_lists(a, args, (size_t)cJSON_GetArraySize(items), true, err);

    if (st != GP_OK)
        return st;
    args->full_nodes = true;
    cJSON_ArrayForEach(it, items)
    {
        const char *name = node_name(it);

        if (name == NULL) {
            gp_err_set(err, "Nodes.items[%zu]: a node without metadata.name", args->n);
            return GP_EINVAL;
        }
        args->nodes[args->n] = it;
        args->names[args->n++] = name;
    }
    return GP_OK;
}

static gp_status decode_names(const cJSON *names, gp_arena *a, gp_extargs *args, gp_err *err)
{
    const cJSON *it;
    gp_status st = alloc_lists(a, args, (size_t)cJSON_GetArraySize(names), false, err);

    if (st != GP_OK)
        return st;
    cJSON_ArrayForEach(it, names)
    {
        if (!cJSON_IsString(it) || *it->valuestring == '\0') {
            gp_err_set(err, "NodeNames[%zu]: must be a non-empty string", args->n);
            return GP_EINVAL;
        }
        args->names[args->n++] = it->valuestring;
    }
    return GP_OK;
}

gp_status gp_extargs_decode(const char *body, size_t len, gp_arena *a, cJSON **root,
                            gp_extargs *args, gp_err *err)
{
    const cJSON *nodes, *names, *items;
    const char *end = NULL;

    memset(args, 0, sizeof(*args));
    if (!gp_utf8_valid(body, len)) {
        gp_err_set(err, "body is not valid UTF-8 text");
        return GP_EINVAL;
    }
    *root = cJSON_ParseWithLengthOpts(body, len + 1, &end, 1);
    if (*root == NULL) {
        gp_err_set(err, "body is not valid JSON (near byte %zu)",
                   end && end >= body ? (size_t)(end - body) : 0);
        return GP_EINVAL;
    }
    if (gp_json_reject_ambiguous(body, len, *root, err) != GP_OK)
        return GP_EINVAL;
    args->pod = cJSON_GetObjectItemCaseSensitive(*root, "Pod");
    nodes = cJSON_GetObjectItemCaseSensitive(*root, "Nodes");
    names = cJSON_GetObjectItemCaseSensitive(*root, "NodeNames");
    items = cJSON_GetObjectItemCaseSensitive(nodes, "items");
    if (!cJSON_IsObject(*root) || !cJSON_IsObject(args->pod)) {
        gp_err_set(err, "not an ExtenderArgs: no Pod object");
        return GP_EINVAL;
    }
    if (cJSON_IsArray(names))
        return decode_names(names, a, args, err);
    if (cJSON_IsArray(items))
        return decode_full(items, a, args, err);
    if (cJSON_IsObject(nodes) && items == NULL)
        return decode_full(NULL, a, args, err);
    gp_err_set(err, "not an ExtenderArgs: neither NodeNames nor Nodes.items");
    return GP_EINVAL;
}

static bool add_failed(cJSON *root, const char *key, const gp_extargs *args,
                       const gp_filter_out *res, int verdict)
{
    cJSON *m = cJSON_AddObjectToObject(root, key);

    for (size_t i = 0; m != NULL && i < args->n; i++)
        if (res[i].verdict == verdict &&
            cJSON_AddStringToObject(m, args->names[i], res[i].reason ? res[i].reason : "") == NULL)
            return false;
    return m != NULL;
}

static bool add_passing(cJSON *root, const gp_extargs *args, const gp_filter_out *res)
{
    cJSON *list, *items;

    if (!args->full_nodes) {
        list = cJSON_AddArrayToObject(root, "NodeNames");
        for (size_t i = 0; list != NULL && i < args->n; i++) {
            cJSON *s = res[i].verdict == 0 ? cJSON_CreateString(args->names[i]) : NULL;

            if (res[i].verdict == 0 && (s == NULL || !cJSON_AddItemToArray(list, s))) {
                cJSON_Delete(s);
                return false;
            }
        }
        return list != NULL && cJSON_AddNullToObject(root, "Nodes") != NULL;
    }
    list = cJSON_AddObjectToObject(root, "Nodes");
    items = list && cJSON_AddObjectToObject(list, "metadata") ? cJSON_AddArrayToObject(list, "items")
                                                               : NULL;
    for (size_t i = 0; items != NULL && i < args->n; i++) {
        cJSON *copy = res[i].verdict == 0 ? cJSON_Duplicate(args->nodes[i], 1) : NULL;

        if (res[i].verdict == 0 && (copy == NULL || !cJSON_AddItemToArray(items, copy))) {
            cJSON_Delete(copy);
            return false;
        }
    }
    return items != NULL && cJSON_AddNullToObject(root, "NodeNames") != NULL;
}

static gp_status finish(cJSON *root, bool ok, char **out, size_t *len)
{
    *out = ok ? cJSON_PrintUnformatted(root) : NULL;
    cJSON_Delete(root);
    if (*out == NULL)
        return GP_ENOMEM;
    *len = strlen(*out);
    return GP_OK;
}

gp_status gp_extargs_encode_filter(const gp_extargs *args, const gp_filter_out *res,
                                   const char *error, char **out, size_t *len)
{
    cJSON *root;
    bool ok;

    if (error != NULL)
        return gp_extargs_encode_filter_error(error, out, len);
    root = cJSON_CreateObject();
    ok = root != NULL && add_passing(root, args, res) &&
         add_failed(root, "FailedNodes", args, res, 1) &&
         add_failed(root, "FailedAndUnresolvableNodes", args, res, 2) &&
         cJSON_AddStringToObject(root, "Error", "") != NULL;
    return finish(root, ok, out, len);
}

gp_status gp_extargs_encode_filter_error(const char *error, char **out, size_t *len)
{
    cJSON *root = cJSON_CreateObject();
    bool ok = root != NULL && cJSON_AddNullToObject(root, "Nodes") != NULL &&
              cJSON_AddNullToObject(root, "NodeNames") != NULL &&
              cJSON_AddObjectToObject(root, "FailedNodes") != NULL &&
              cJSON_AddObjectToObject(root, "FailedAndUnresolvableNodes") != NULL &&
              cJSON_AddStringToObject(root, "Error", error) != NULL;

    return finish(root, ok, out, len);
}

gp_status gp_extargs_encode_priorities(const gp_extargs *args, const int *scores, char **out,
                                       size_t *len)
{
    cJSON *root = cJSON_CreateArray();
    bool ok = root != NULL;

    for (size_t i = 0; ok && i < args->n; i++) {
        cJSON *h = cJSON_CreateObject();

        ok = h != NULL && cJSON_AddItemToArray(root, h) &&
             cJSON_AddStringToObject(h, "Host", args->names[i]) != NULL &&
             cJSON_AddNumberToObject(h, "Score", scores[i]) != NULL;
        if (h != NULL && !ok && root->child != h && h->prev == NULL)
            cJSON_Delete(h);
    }
    return finish(root, ok, out, len);
}
