/* How to reach the Kubernetes API: a kubeconfig file, or the pod's service account.
 *
 * A kubeconfig (YAML or JSON, parsed with libyaml) gives the server, how to trust it (a CA file
 * or inline CA data, insecure-skip-tls-verify, tls-server-name) and who we are (a bearer token,
 * a token file, or a client certificate and key, as files or inline data). Relative file paths
 * are relative to the kubeconfig's directory, as kubectl resolves them. Authentication that needs
 * more than that (exec plugins, auth-provider, username/password, impersonation) is refused with
 * an error naming the field, never ignored: silently connecting as someone else, or anonymously,
 * would be worse than not starting.
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

/* The bearer token to send now: token_file's contents when set (trailing whitespace removed),
 * else token, else NULL (*out NULL, GP_OK). The caller wipes and frees *out. Errors name the
 * file. Never logs the token. */
gp_status gp_kube_config_token(const gp_kube_config *c, char **out, gp_err *err) GP_WUR;

/* Decodes standard base64 (padding optional; CR, LF, spaces and tabs are skipped) into a
 * malloc'd NUL-terminated buffer of at most max bytes. GP_EINVAL on a bad character,
 * GP_ETOOBIG past max. Pure. */
gp_status gp_base64_decode(const char *in, size_t len, size_t max, char **out, size_t *outlen)
    GP_WUR;

#endif
