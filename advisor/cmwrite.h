/* SPDX-License-Identifier: Apache-2.0 */
/* Writing the recommendations document into one ConfigMap key through the Kubernetes API: the
 * edge between gpupack-advisor serve and the cluster.
 *
 * GET the ConfigMap; when it does not exist (404), create it (POST); otherwise replace the one
 * key in the object as read and PUT it back whole, with the resourceVersion it was read at, so
 * an edit made in between (another replica, a person) is never overwritten: the API answers 409
 * Conflict and the write starts again from a fresh GET, up to GP_CM_TRIES times. Every other key,
 * label and annotation is kept. Nothing else is written: the RBAC needs get and update on that
 * one ConfigMap and create on ConfigMaps in its namespace. */
#ifndef GPUPACK_ADVISOR_CMWRITE_H
#define GPUPACK_ADVISOR_CMWRITE_H

#include "gpupack/kube.h"
#include "gpupack/kubeconfig.h"
#include "gpupack/status.h"

#define GP_CM_TRIES 5
#define GP_CM_MAX_BYTES (3u * 1024u * 1024u) /* a ConfigMap as read: 1 MiB of data, and more */

typedef struct {
    unsigned conflicts; /* 409 answers met (and retried) */
    bool created;       /* the ConfigMap did not exist and was created */
} gp_cm_write_stats;

/* Sets key of ConfigMap ns/name to value (created when missing). GP_EIO with err naming the
 * request and the API's answer (a 403 in the API's words names the missing permission), also
 * after GP_CM_TRIES conflicts in a row; GP_ENOMEM. */
gp_status gp_cm_write(const gp_kube_config *kube, const char *ns, const char *name,
                      const char *key, const char *value, gp_cm_write_stats *stats,
                      gp_err *err) GP_WUR;

/* The object to create (pure; malloc'd JSON text, NULL when out of memory). */
char *gp_cm_new_object(const char *ns, const char *name, const char *key, const char *value);

/* The object read (its JSON text) with key set to value, for the PUT (pure; malloc'd, NULL when
 * the text is not a ConfigMap object or out of memory). */
char *gp_cm_with_key(const char *object, size_t len, const char *key, const char *value);

#endif
