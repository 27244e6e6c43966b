/* SPDX-License-Identifier: Apache-2.0 */
/* How to reach the Kubernetes API: a kubeconfig file, or the pod's service account.
 *
 * A kubeconfig (YAML or JSON, parsed with libyaml) gives the server, how to trust it (a CA file
 * or inline CA data, insecure-skip-tls-verify, tls-server-name) and who we are (a bearer token,
 * a token file, or a client certificate and key, as files or inline data). Relative file paths
 * are relative to the kubeconfig's directory, as kubectl resolves them. An exec credential plugin
 * (users[].user.exec, as EKS, GKE and AKS kubeconfigs use) is run as kubectl runs it
 * (gpupack/kubeexec.h). Authentication that needs more than that (auth-provider,
 * username/password, impersonation) is refused with an error naming the field, never ignored:
 * silently connecting as someone else, or anonymously, would be worse than not starting.
 *
 * Every error message names the file and the field ("kubeconfig /x: context \"foo\" not found").
 * Inputs are bounded: GP_KUBECONFIG_MAX bytes of kubeconfig, GP_KUBE_MAX_PEM per certificate or
 * key, GP_KUBE_MAX_TOKEN per token. */
#ifndef GPUPACK_KUBECONFIG_H
#define GPUPACK_KUBECONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "gpupack/status.h"

#define GP_KUBECONFIG_MAX (1024u * 1024)  /* one kubeconfig file */
#define GP_KUBE_MAX_PEM (1024u * 1024)    /* one CA bundle, certificate or key (file or data) */
#define GP_KUBE_MAX_TOKEN (64u * 1024)    /* one bearer token (inline or file) */
#define GP_KUBE_MAX_URL 2048              /* the server URL */
#define GP_KUBE_SA_DIR "/var/run/secrets/kubernetes.io/serviceaccount"

#define GP_KUBE_EXEC_MAX_ARGS 64     /* exec.args entries */
#define GP_KUBE_EXEC_MAX_ENV 64      /* exec.env entries */
#define GP_KUBE_EXEC_TIMEOUT_MS 30000 /* a plugin run, after which it is killed */

/* users[].user.exec. Strings malloc'd and owned. */
typedef struct {
    char *command;     /* as written; a relative path with a '/' is made relative to the
                          kubeconfig's directory, a bare name is looked up in PATH */
    char **args;       /* nargs strings */
    size_t nargs;
    char **env;        /* nenv "NAME=value" strings, added to the daemon's environment */
    size_t nenv;
    char *api_version; /* client.authentication.k8s.io/v1 or .../v1beta1 */
    char *install_hint; /* shown when the command is not found, or NULL */
    bool provide_cluster_info;
    unsigned timeout_ms; /* GP_KUBE_EXEC_TIMEOUT_MS unless a test sets it */
} gp_kube_exec;

struct gp_exec_cache;

/* All strings are malloc'd and owned by the struct; NULL when absent. When both a file and
 * inline data are given for the same thing, the data wins (as in client-go). */
typedef struct {
    char *server;        /* "https://10.0.0.1:443" (http:// is allowed, for tests) */
    char *ca_file;       /* PEM file, or NULL */
    char *ca_pem;        /* PEM bytes (certificate-authority-data), or NULL */
    char *cert_file, *cert_pem; /* client certificate */
    char *key_file, *key_pem;
    char *token;         /* bearer token, or NULL */
    char *token_file;    /* re-read before each request when set (rotation); wins over token */
    bool insecure;       /* insecure-skip-tls-verify */
    char *tls_server_name; /* the name to verify the server's certificate against (and send as
                              SNI) instead of the URL's host */
    gp_kube_exec *exec;    /* an exec credential plugin, or NULL; its credential wins over token
                              and the client certificate */
    struct gp_exec_cache *exec_cache; /* with exec: shared by copies (gp_kube_config_copy) */
} gp_kube_config;

/* Loads a kubeconfig (YAML or JSON). context NULL: current-context. Files the kubeconfig names
 * (CA, client certificate and key, token file) must be readable now; they are read again at each
 * connection, so a rotated file is picked up. Errors name the file and the field. The caller
 * frees with gp_kube_config_free(). */
gp_status gp_kube_config_load(const char *path, const char *context, gp_kube_config **out,
                              gp_err *err) GP_WUR;

/* In-cluster configuration: https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT (an IPv6
 * host is bracketed), token_file sa_dir/token (re-read before each request, since kubelet rotates
 * it) and ca_file sa_dir/ca.crt. sa_dir NULL: GP_KUBE_SA_DIR. GP_ENOTFOUND when the variables are
 * not set (not in a cluster); GP_EIO when the token cannot be read. */
gp_status gp_kube_config_in_cluster(const char *sa_dir, gp_kube_config **out, gp_err *err) GP_WUR;

/* The daemons' rule: kubeconfig non-NULL: load it (with context, which may be NULL); otherwise
 * in-cluster when KUBERNETES_SERVICE_HOST is set; otherwise GP_ENOTFOUND ("no cluster"). */
gp_status gp_kube_config_resolve(const char *kubeconfig, const char *context,
                                 gp_kube_config **out, gp_err *err) GP_WUR;

/* A deep copy, or NULL on allocation failure. The caller frees it with gp_kube_config_free(). */
gp_kube_config *gp_kube_config_copy(const gp_kube_config *c);

/* Frees c and all its strings (the token is wiped first). NULL is harmless. */
void gp_kube_config_free(gp_kube_config *c);

/* The bearer token to send now: with exec, the plugin's (cached; the plugin runs when there is
 * none or it is about to expire; NULL when the plugin gave a client certificate instead), else
 * token_file's contents when set (trailing whitespace removed), else token, else NULL (*out NULL,
 * GP_OK). The caller wipes and frees *out. Errors name the file or the plugin. Never logs the
 * token. */
gp_status gp_kube_config_token(const gp_kube_config *c, char **out, gp_err *err) GP_WUR;

#endif
