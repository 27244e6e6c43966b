/* SPDX-License-Identifier: Apache-2.0 */
/* The recommendations ConfigMap's writer (the contract is in cmwrite.h). */
#include "cmwrite.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

char *gp_cm_new_object(const char *ns, const char *name, const char *key, const char *value)
{
    cJSON *o = cJSON_CreateObject(), *md, *labels, *data;
    char *text = NULL;

    if (o == NULL)
        return NULL;
    md = cJSON_AddObjectToObject(o, "metadata");
    labels = md != NULL ? cJSON_AddObjectToObject(md, "labels") : NULL;
    data = cJSON_AddObjectToObject(o, "data");
    if (cJSON_AddStringToObject(o, "apiVersion", "v1") != NULL &&
        cJSON_AddStringToObject(o, "kind", "ConfigMap") != NULL && labels != NULL &&
        data != NULL && cJSON_AddStringToObject(md, "name", name) != NULL &&
        cJSON_AddStringToObject(md, "namespace", ns) != NULL &&
        cJSON_AddStringToObject(labels, "app.kubernetes.io/name", "gpupack") != NULL &&
        cJSON_AddStringToObject(labels, "app.kubernetes.io/component", "recommendations") != NULL &&
        cJSON_AddStringToObject(data, key, value) != NULL)
        text = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return text;
}

char *gp_cm_with_key(const char *object, size_t len, const char *key, const char *value)
{
    cJSON *o = cJSON_ParseWithLength(object, len), *data, *v;
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive(o, "kind");
    char *text = NULL;

    if (!cJSON_IsObject(o) || !cJSON_IsString(kind) || strcmp(kind->valuestring, "ConfigMap") != 0 ||
        !cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(o, "metadata"))) {
        cJSON_Delete(o);
        return NULL;
    }
    data = cJSON_GetObjectItemCaseSensitive(o, "data");
    if (data == NULL || cJSON_IsNull(data)) {
        cJSON_DeleteItemFromObjectCaseSensitive(o, "data");
        data = cJSON_AddObjectToObject(o, "data");
    }
    v = cJSON_CreateString(value);
    if (cJSON_IsObject(data) && v != NULL) {
        if (cJSON_GetObjectItemCaseSensitive(data, key) != NULL)
            cJSON_ReplaceItemInObjectCaseSensitive(data, key, v);
        else
            cJSON_AddItemToObject(data, key, v);
        v = NULL;
        text = cJSON_PrintUnformatted(o);
    }
    cJSON_Delete(v);
    cJSON_Delete(o);
    return text;
}

/* One request; the body of the answer freed unless wanted. */
static gp_status request(const gp_kube_config *kube, const char *method, const char *send,
                         const char *path, char **body, size_t *len, long *code, gp_err *err)
{
    char *b = NULL;
    size_t l = 0;
    gp_status st = gp_kube_request(kube, method, send, path, GP_CM_MAX_BYTES, &b, &l, code, err);

    if (body != NULL) {
        *body = b;
        *len = l;
    } else {
        free(b);
    }
    return st;
}

/* One attempt: GET, then POST or PUT. *conflict when the API answered 409. */
static gp_status attempt(const gp_kube_config *kube, const char *ns, const char *name,
                         const char *key, const char *value, bool *conflict, bool *created,
                         gp_err *err)
{
    char path[640], *cur = NULL, *send;
    size_t len = 0;
    long code = 0;
    gp_status st;

    snprintf(path, sizeof(path), "/api/v1/namespaces/%s/configmaps/%s", ns, name);
    st = request(kube, NULL, NULL, path, &cur, &len, &code, err);
    if (st != GP_OK && code != 404)
        return st;
    if (code == 404) {
        snprintf(path, sizeof(path), "/api/v1/namespaces/%s/configmaps", ns);
        send = gp_cm_new_object(ns, name, key, value);
        *created = true;
    } else {
        send = gp_cm_with_key(cur, len, key, value);
        if (send == NULL && cur != NULL) {
            free(cur);
            gp_err_set(err, "%s: the API's answer is not a ConfigMap", path);
            return GP_EIO;
        }
    }
    free(cur);
    if (send == NULL)
        return GP_ENOMEM;
    st = request(kube, code == 404 ? "POST" : "PUT", send, path, NULL, NULL, &code, err);
    free(send);
    *conflict = st != GP_OK && code == 409;
    return st;
}

gp_status gp_cm_write(const gp_kube_config *kube, const char *ns, const char *name,
                      const char *key, const char *value, gp_cm_write_stats *stats, gp_err *err)
{
    gp_cm_write_stats s = { 0, false };
    gp_status st = GP_EIO;

    for (unsigned i = 0; i < GP_CM_TRIES; i++) {
        bool conflict = false;

        s.created = false;
        st = attempt(kube, ns, name, key, value, &conflict, &s.created, err);
        if (!conflict)
            break;
        s.conflicts++;
    }
    if (s.conflicts == GP_CM_TRIES)
        gp_err_set(err, "configmap %s/%s: %u conflicting updates in a row (409); giving up "
                   "until the next run", ns, name, GP_CM_TRIES);
    if (stats != NULL)
        *stats = s;
    return st;
}
