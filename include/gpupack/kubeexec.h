/* SPDX-License-Identifier: Apache-2.0 */
/* Kubeconfig exec credential plugins (client.authentication.k8s.io/v1 and v1beta1), the way
 * kubectl runs them: aws eks get-token, gke-gcloud-auth-plugin, kubelogin and the like.
 *
 * The plugin is run with its args and env added to ours, stdin /dev/null (the daemons have no
 * terminal, so spec.interactive is false), and KUBERNETES_EXEC_INFO set to an ExecCredential
 * whose spec carries the cluster when provideClusterInfo is true. Its stdout must be one
 * ExecCredential of the configured apiVersion whose status holds a token or a client certificate
 * and key, and optionally an expirationTimestamp. The credential is cached (shared by every copy
 * of a gp_kube_config, so both informers of a daemon run the plugin once) until shortly before it
 * expires, or until a request gets 401.
 *
 * Pure parts (parsing the ExecCredential, the expiry decision, building KUBERNETES_EXEC_INFO) are
 * separate from running the process, and tested alone. Errors name the plugin's command and what
 * went wrong: not found (with the kubeconfig's installHint), an exit status with the first line
 * of stderr, a timeout, output that is not an ExecCredential, no token. The token is never put in
 * a message. */
#ifndef GPUPACK_KUBEEXEC_H
#define GPUPACK_KUBEEXEC_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpupack/kubeconfig.h"
#include "gpupack/status.h"

#define GP_KUBE_EXEC_MAX_OUTPUT (1024u * 1024) /* the plugin's stdout */
#define GP_KUBE_EXEC_MAX_STDERR 4096           /* the part of its stderr kept for messages */
#define GP_KUBE_EXEC_REFRESH_MAX_S 60          /* refresh at most this long before expiry */

/* A credential from a plugin. Strings are malloc'd (the token and key wiped when freed). */
typedef struct {
    char *token;               /* bearer token, or NULL */
    char *cert_pem, *key_pem;  /* client certificate and key (PEM), or NULL */
    int64_t expiry_s;          /* Unix seconds; 0: no expiry given */
} gp_exec_cred;

/* Parses a plugin's stdout (len bytes, NUL-terminated): an ExecCredential whose apiVersion is api_version, with
 * status.token or both status.clientCertificateData and status.clientKeyData, and an optional
 * status.expirationTimestamp (RFC 3339). GP_EINVAL with a message otherwise; *out is then
 * empty. Pure. The caller clears *out with gp_exec_cred_clear(). */
gp_status gp_exec_cred_parse(const char *json, size_t len, const char *api_version,
                             gp_exec_cred *out, gp_err *err) GP_WUR;

/* Frees the strings (wiping the secrets) and zeroes c. */
void gp_exec_cred_clear(gp_exec_cred *c);

/* RFC 3339 ("2026-01-02T15:04:05Z", fractions and offsets allowed) to Unix seconds. Pure. */
gp_status gp_rfc3339_parse(const char *s, int64_t *out) GP_WUR;

/* Whether a credential obtained at obtained_s and expiring at expiry_s (0: never) may still be
 * used at now_s: until a tenth of its lifetime, at most GP_KUBE_EXEC_REFRESH_MAX_S, before it
 * expires. Pure. */
bool gp_exec_cred_fresh(int64_t expiry_s, int64_t obtained_s, int64_t now_s);

/* The KUBERNETES_EXEC_INFO value for x: {"apiVersion", "kind": "ExecCredential", "spec":
 * {"interactive": false, "cluster": {...}}}, the cluster (server, tls-server-name,
 * insecure-skip-tls-verify, certificate-authority-data from ca_pem) only with
 * provideClusterInfo. malloc'd; NULL when out of memory. Pure. */
char *gp_exec_info_json(const gp_kube_exec *x, const gp_kube_config *cfg, const char *ca_pem);

/* Runs the plugin once (at most x->timeout_ms, then it is killed) and parses its output. When
 * cancel (may be NULL) turns true while the plugin runs, it is killed within 100 ms and the call
 * fails with GP_EIO ("abandoned"). */
gp_status gp_exec_run(const gp_kube_exec *x, const gp_kube_config *cfg,
                      const atomic_bool *cancel, gp_exec_cred *out, gp_err *err) GP_WUR;

/* The credential cache shared by copies of one gp_kube_config; thread-safe. */
typedef struct gp_exec_cache gp_exec_cache;

gp_exec_cache *gp_exec_cache_new(void);               /* NULL when out of memory */
gp_exec_cache *gp_exec_cache_ref(gp_exec_cache *c);   /* another reference; c may be NULL */
void gp_exec_cache_unref(gp_exec_cache *c);           /* NULL is harmless */

/* Copies of the cached credential's token, certificate and key (each may be NULL), running the
 * plugin first when nothing is cached, the cached one is no longer fresh, or it was invalidated.
 * Concurrent callers wait for one run. The caller wipes and frees the strings. */
gp_status gp_exec_cache_get(gp_exec_cache *c, const gp_kube_exec *x, const gp_kube_config *cfg,
                            char **token, char **cert_pem, char **key_pem, gp_err *err) GP_WUR;

/* The process is stopping: a plugin run in progress is abandoned (killed) and every later get
 * fails at once instead of running the plugin. For gp_informer_stop(), so that a hanging plugin
 * never holds a daemon's shutdown or a --once run past its own limits. Sticky; thread-safe. */
void gp_exec_cache_cancel(gp_exec_cache *c); /* NULL is harmless */

/* Forgets the cached credential (the API answered 401), so the next get runs the plugin. */
void gp_exec_cache_invalidate(gp_exec_cache *c);

#endif
