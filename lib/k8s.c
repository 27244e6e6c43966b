/* SPDX-License-Identifier: Apache-2.0 */
/* Kubernetes names and small shared types (see k8s.h). */
#include "gpupack/k8s.h"

#include <string.h>

const char *gp_object_name(const cJSON *obj)
{
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(obj, "metadata"), "name");

    return cJSON_IsString(n) && *n->valuestring ? n->valuestring : NULL;
}

const char *gp_label_find(const gp_label *l, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (l[i].key[0] == key[0] && strcmp(l[i].key, key) == 0)
            return l[i].value;
    return NULL;
}

const char *gp_mig_profile_of(const char *resource)
{
    size_t n = strlen(GP_RES_MIG_PREFIX);

    if (resource == NULL || strncmp(resource, GP_RES_MIG_PREFIX, n) != 0 || resource[n] == '\0')
        return NULL;
    return resource + n;
}

void gp_relist_begin(gp_relist *r)
{
    r->gen++;
    r->listing = true;
}

void gp_relist_end(gp_relist *r)
{
    r->listing = false;
    r->synced = true;
}

bool gp_relist_settled(const gp_relist *r)
{
    return r->synced && !r->listing;
}
