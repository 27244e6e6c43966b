/* SPDX-License-Identifier: Apache-2.0 */
/* Kubeconfig and in-cluster configuration.
 *
 * The kubeconfig is loaded with libyaml's document API (a node tree; JSON is read the same way,
 * being YAML's flow style) and only the fields a client needs are looked up, so the many fields
 * kubectl writes that do not matter here (preferences, extensions, namespace) are ignored, while
 * fields that would change who we are or where we connect and that we cannot honour
 * (auth-provider, username/password, impersonation, proxy-url) are refused. An exec plugin is
 * checked here (its command must be runnable now) and run by lib/kubeexec.c when a request
 * needs a token. Aliases are followed
 * only along the fixed paths looked up, so alias bombs cost nothing. Names and values come back
 * as pointers into the document and are copied only into the result. */
#include "gpupack/kubeconfig.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yaml.h>

#include "gpupack/base64.h"
#include "gpupack/fileio.h"
#include "gpupack/kubeexec.h"

#define KC_MAX_NAME 253   /* context, cluster and user names */
#define KC_MAX_PATH 4096  /* file paths, after resolving against the kubeconfig's directory */
#define KC_MAX_WHERE 320  /* the field path in messages */

typedef struct {
    yaml_document_t doc;
    const char *path; /* the kubeconfig, for messages */
    char *dir;        /* its directory, for relative paths */
    gp_err *err;
} kc_ctx;

/* A scalar value: pointer into the document (NUL-terminated by libyaml) and length. */
typedef struct {
    const char *s;
    size_t len;
} kc_str;

static char *dup_n(const char *s, size_t n)
{
    char *d = malloc(n + 1);

    if (d != NULL) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

static char *dup_s(const char *s)
{
    return s == NULL ? NULL : dup_n(s, strlen(s));
}

static void wipe_free(char *s)
{
    if (s != NULL) {
        explicit_bzero(s, strlen(s));
        free(s);
    }
}

/* ---- tokens -------------------------------------------------------------------------------- */

/* A token goes into an HTTP header: printable ASCII without spaces, so it cannot inject one. */
static bool token_chars_ok(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] < 0x21 || (unsigned char)s[i] > 0x7e)
            return false;
    return n > 0;
}

static gp_status token_from_file(const char *file, char **out, gp_err *err)
{
    char *buf = NULL;
    size_t len = 0;
    gp_status st = gp_file_read(file, GP_KUBE_MAX_TOKEN, &buf, &len, err);

    if (st != GP_OK)
        return st;
    while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r' || buf[len - 1] == ' ' ||
                       buf[len - 1] == '\t'))
        buf[--len] = '\0';
    if (!token_chars_ok(buf, len)) {
        gp_err_set(err, "%s: %s", file,
                   len == 0 ? "token file is empty" : "token has spaces or control characters");
        wipe_free(buf);
        return GP_EINVAL;
    }
    *out = buf;
    return GP_OK;
}

gp_status gp_kube_config_token(const gp_kube_config *c, char **out, gp_err *err)
{
    *out = NULL;
    if (c->exec != NULL && c->exec_cache != NULL) {
        char *cert = NULL, *key = NULL;
        gp_status st = gp_exec_cache_get(c->exec_cache, c->exec, c, out, &cert, &key, err);

        free(cert);
        wipe_free(key);
        return st;
    }
    if (c->token_file != NULL)
        return token_from_file(c->token_file, out, err);
    if (c->token == NULL)
        return GP_OK;
    *out = dup_s(c->token);
    return *out == NULL ? GP_ENOMEM : GP_OK;
}

/* ---- the config struct --------------------------------------------------------------------- */

static void free_strings(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

static void exec_free(gp_kube_exec *x)
{
    if (x == NULL)
        return;
    free(x->command);
    free_strings(x->args, x->nargs);
    free_strings(x->env, x->nenv);
    free(x->api_version);
    free(x->install_hint);
    free(x);
}

static char **copy_strings(char *const *v, size_t n)
{
    char **d = calloc(n + 1, sizeof(*d));

    for (size_t i = 0; d != NULL && i < n; i++) {
        if ((d[i] = dup_s(v[i])) == NULL) {
            free_strings(d, i);
            return NULL;
        }
    }
    return d;
}

static gp_kube_exec *exec_copy(const gp_kube_exec *x)
{
    gp_kube_exec *d = calloc(1, sizeof(*d));

    if (d == NULL)
        return NULL;
    *d = (gp_kube_exec){ .nargs = x->nargs, .nenv = x->nenv,
                         .provide_cluster_info = x->provide_cluster_info,
                         .timeout_ms = x->timeout_ms };
    d->command = dup_s(x->command);
    d->api_version = dup_s(x->api_version);
    d->install_hint = dup_s(x->install_hint);
    d->args = copy_strings(x->args, x->nargs);
    d->env = copy_strings(x->env, x->nenv);
    if (d->command == NULL || d->api_version == NULL || d->args == NULL || d->env == NULL ||
        (x->install_hint != NULL && d->install_hint == NULL)) {
        exec_free(d);
        return NULL;
    }
    return d;
}

/* The struct's string fields: freed (and wiped, some are secrets) and copied from this one list. */
static const size_t string_fields[] = {
    offsetof(gp_kube_config, server),    offsetof(gp_kube_config, ca_file),
    offsetof(gp_kube_config, ca_pem),    offsetof(gp_kube_config, cert_file),
    offsetof(gp_kube_config, cert_pem),  offsetof(gp_kube_config, key_file),
    offsetof(gp_kube_config, key_pem),   offsetof(gp_kube_config, token),
    offsetof(gp_kube_config, token_file), offsetof(gp_kube_config, tls_server_name),
};
#define NSTRING_FIELDS (sizeof(string_fields) / sizeof(string_fields[0]))

static char **string_field(const gp_kube_config *c, size_t i)
{
    return (char **)((uintptr_t)c + string_fields[i]);
}

void gp_kube_config_free(gp_kube_config *c)
{
    if (c == NULL)
        return;
    for (size_t i = 0; i < NSTRING_FIELDS; i++)
        wipe_free(*string_field(c, i));
    exec_free(c->exec);
    gp_exec_cache_unref(c->exec_cache);
    free(c);
}

gp_kube_config *gp_kube_config_copy(const gp_kube_config *c)
{
    gp_kube_config *d = calloc(1, sizeof(*d));

    if (d == NULL)
        return NULL;
    d->insecure = c->insecure;
    for (size_t i = 0; i < NSTRING_FIELDS; i++) {
        const char *src = *string_field(c, i);

        if (src != NULL && (*string_field(d, i) = dup_s(src)) == NULL) {
            gp_kube_config_free(d);
            return NULL;
        }
    }
    if (c->exec != NULL && (d->exec = exec_copy(c->exec)) == NULL) {
        gp_kube_config_free(d);
        return NULL;
    }
    d->exec_cache = gp_exec_cache_ref(c->exec_cache); /* one plugin run serves every copy */
    return d;
}

/* ---- YAML navigation ----------------------------------------------------------------------- */

static bool scalar_is(const yaml_node_t *n, const char *s)
{
    size_t len = strlen(s);

    return n != NULL && n->type == YAML_SCALAR_NODE && n->data.scalar.length == len &&
           memcmp(n->data.scalar.value, s, len) == 0;
}

/* A YAML null: ~, null, or nothing at all, unquoted. */
static bool node_is_null(const yaml_node_t *n)
{
    if (n == NULL)
        return true;
    if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
        return false;
    return n->data.scalar.length == 0 || scalar_is(n, "~") || scalar_is(n, "null") ||
           scalar_is(n, "Null") || scalar_is(n, "NULL");
}

static yaml_node_t *map_get(kc_ctx *c, yaml_node_t *map, const char *key)
{
    if (map == NULL || map->type != YAML_MAPPING_NODE)
        return NULL;
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        if (scalar_is(yaml_document_get_node(&c->doc, p->key), key))
            return yaml_document_get_node(&c->doc, p->value);
    }
    return NULL;
}

/* An optional string field: *out is {NULL, 0} when absent, null or empty (client-go treats an
 * empty string as unset). */
static gp_status get_str(kc_ctx *c, yaml_node_t *map, const char *where, const char *key,
                         size_t max, kc_str *out)
{
    yaml_node_t *n = map_get(c, map, key);

    *out = (kc_str){ NULL, 0 };
    if (node_is_null(n))
        return GP_OK;
    if (n->type != YAML_SCALAR_NODE) {
        gp_err_set(c->err, "kubeconfig %s: %s.%s: expected a string", c->path, where, key);
        return GP_EINVAL;
    }
    if (n->data.scalar.length > max) {
        gp_err_set(c->err, "kubeconfig %s: %s.%s: longer than %zu bytes", c->path, where, key,
                   max);
        return GP_ETOOBIG;
    }
    if (memchr(n->data.scalar.value, '\0', n->data.scalar.length) != NULL) {
        gp_err_set(c->err, "kubeconfig %s: %s.%s: contains a NUL byte", c->path, where, key);
        return GP_EINVAL;
    }
    if (n->data.scalar.length > 0)
        *out = (kc_str){ (const char *)n->data.scalar.value, n->data.scalar.length };
    return GP_OK;
}

static gp_status get_bool(kc_ctx *c, yaml_node_t *map, const char *where, const char *key,
                          bool *out)
{
    static const char *const yes[] = { "true", "True", "TRUE", "yes", "Yes", "on", "On" };
    static const char *const no[] = { "false", "False", "FALSE", "no", "No", "off", "Off" };
    yaml_node_t *n = map_get(c, map, key);

    *out = false;
    if (node_is_null(n))
        return GP_OK;
    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
        if (scalar_is(n, yes[i]))
            return (*out = true), GP_OK;
        if (scalar_is(n, no[i]))
            return GP_OK;
    }
    gp_err_set(c->err, "kubeconfig %s: %s.%s: expected true or false", c->path, where, key);
    return GP_EINVAL;
}

/* The inner mapping (kind: "context", "cluster" or "user") of the entry of list (kind + "s")
 * whose name is name: contexts: [{name: x, context: {...}}]. */
static gp_status find_named(kc_ctx *c, const char *kind, const char *name, yaml_node_t **out,
                            char *where, size_t wheresz)
{
    char list[16];
    yaml_node_t *root = yaml_document_get_root_node(&c->doc), *seq;

    snprintf(list, sizeof(list), "%ss", kind);
    snprintf(where, wheresz, "%s[\"%.*s\"].%s", list, KC_MAX_NAME, name, kind);
    seq = map_get(c, root, list);
    if (seq != NULL && !node_is_null(seq) && seq->type != YAML_SEQUENCE_NODE) {
        gp_err_set(c->err, "kubeconfig %s: %s: expected a list", c->path, list);
        return GP_EINVAL;
    }
    if (seq != NULL && seq->type == YAML_SEQUENCE_NODE) {
        for (yaml_node_item_t *it = seq->data.sequence.items.start;
             it < seq->data.sequence.items.top; it++) {
            yaml_node_t *entry = yaml_document_get_node(&c->doc, *it);

            if (!scalar_is(map_get(c, entry, "name"), name))
                continue;
            *out = map_get(c, entry, kind);
            if (*out == NULL || (*out)->type != YAML_MAPPING_NODE) {
                gp_err_set(c->err, "kubeconfig %s: %s: %s", c->path, where,
                           *out == NULL ? "missing" : "expected a mapping");
                return GP_EINVAL;
            }
            return GP_OK;
        }
    }
    gp_err_set(c->err, "kubeconfig %s: %s \"%.*s\" not found", c->path, kind, KC_MAX_NAME, name);
    return GP_ENOTFOUND;
}

/* ---- field values ------------------------------------------------------------------------ */

/* get_str() for a key that must be there: "KEY: missing" otherwise. */
static gp_status get_required_str(kc_ctx *c, yaml_node_t *map, const char *where,
                                  const char *key, size_t max, kc_str *out)
{
    gp_status st = get_str(c, map, where, key, max, out);

    if (st == GP_OK && out->s == NULL) {
        gp_err_set(c->err, "kubeconfig %s: %s.%s: missing", c->path, where, key);
        return GP_EINVAL;
    }
    return st;
}

/* A file the kubeconfig names, resolved against its directory and readable now. */
static gp_status get_file(kc_ctx *c, yaml_node_t *map, const char *where, const char *key,
                          char **out)
{
    kc_str v = { NULL, 0 };
    char buf[KC_MAX_PATH + 1];
    int n;
    gp_status st = get_str(c, map, where, key, KC_MAX_PATH, &v);

    if (st != GP_OK || v.s == NULL)
        return st;
    if (v.s[0] == '/')
        n = snprintf(buf, sizeof(buf), "%s", v.s);
    else
        n = snprintf(buf, sizeof(buf), "%s/%s", c->dir, v.s);
    if (n < 0 || (size_t)n >= sizeof(buf)) {
        gp_err_set(c->err, "kubeconfig %s: %s.%s: path too long", c->path, where, key);
        return GP_ETOOBIG;
    }
    if (access(buf, R_OK) != 0) {
        gp_err_set(c->err, "kubeconfig %s: %s.%s: %s: %s", c->path, where, key, buf,
                   strerror(errno));
        return GP_EIO;
    }
    *out = dup_s(buf);
    return *out == NULL ? GP_ENOMEM : GP_OK;
}

/* Inline base64 data that must decode to PEM (certificates and keys). */
static gp_status get_pem_data(kc_ctx *c, yaml_node_t *map, const char *where, const char *key,
                              char **out)
{
    kc_str v = { NULL, 0 };
    size_t n;
    gp_status st = get_str(c, map, where, key, GP_KUBE_MAX_PEM * 4 / 3 + 1024, &v);

    if (st != GP_OK || v.s == NULL)
        return st;
    st = gp_base64_decode(v.s, v.len, GP_KUBE_MAX_PEM, out, &n);
    if (st == GP_OK && strstr(*out, "-----BEGIN ") == NULL) {
        wipe_free(*out);
        *out = NULL;
        st = GP_EINVAL;
        gp_err_set(c->err, "kubeconfig %s: %s.%s: does not decode to PEM", c->path, where, key);
    } else if (st == GP_EINVAL) {
        gp_err_set(c->err, "kubeconfig %s: %s.%s: not valid base64", c->path, where, key);
    } else if (st == GP_ETOOBIG) {
        gp_err_set(c->err, "kubeconfig %s: %s.%s: decodes to more than %u bytes", c->path, where,
                   key, GP_KUBE_MAX_PEM);
    }
    return st;
}

/* A PEM the kubeconfig's way: a file named by key, or inline base64 under key-data. */
static gp_status get_pem(kc_ctx *c, yaml_node_t *map, const char *where, const char *key,
                         char **file, char **pem)
{
    char data_key[64];
    gp_status st = get_file(c, map, where, key, file);

    snprintf(data_key, sizeof(data_key), "%s-data", key);
    return st != GP_OK ? st : get_pem_data(c, map, where, data_key, pem);
}

static bool server_chars_ok(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] <= 0x20 || (unsigned char)s[i] >= 0x7f)
            return false;
    return true;
}

static gp_status get_server(kc_ctx *c, yaml_node_t *cl, const char *where, char **out)
{
    kc_str v = { NULL, 0 };
    gp_status st = get_required_str(c, cl, where, "server", GP_KUBE_MAX_URL, &v);

    if (st != GP_OK)
        return st;
    if ((strncmp(v.s, "https://", 8) != 0 && strncmp(v.s, "http://", 7) != 0) ||
        !server_chars_ok(v.s, v.len)) {
        gp_err_set(c->err, "kubeconfig %s: %s.server: \"%.200s\" is not an http(s):// URL",
                   c->path, where, v.s);
        return GP_EINVAL;
    }
    while (v.len > 0 && v.s[v.len - 1] == '/')
        v.len--; /* request paths start with '/' */
    *out = dup_n(v.s, v.len);
    return *out == NULL ? GP_ENOMEM : GP_OK;
}

static bool hostname_ok(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];

        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
              ch == '.' || ch == '-'))
            return false;
    }
    return n > 0 && n <= 253;
}

static gp_status load_cluster(kc_ctx *c, const char *name, gp_kube_config *k)
{
    char where[KC_MAX_WHERE];
    yaml_node_t *cl = NULL;
    kc_str v = { NULL, 0 };
    gp_status st = find_named(c, "cluster", name, &cl, where, sizeof(where));

    if (st == GP_OK)
        st = get_server(c, cl, where, &k->server);
    if (st == GP_OK)
        st = get_pem(c, cl, where, "certificate-authority", &k->ca_file, &k->ca_pem);
    if (st == GP_OK)
        st = get_bool(c, cl, where, "insecure-skip-tls-verify", &k->insecure);
    if (st == GP_OK)
        st = get_str(c, cl, where, "proxy-url", KC_MAX_PATH, &v);
    if (st == GP_OK && v.s != NULL) {
        gp_err_set(c->err, "kubeconfig %s: %s.proxy-url: not supported (use HTTPS_PROXY)",
                   c->path, where);
        return GP_EINVAL;
    }
    if (st == GP_OK)
        st = get_str(c, cl, where, "tls-server-name", 253, &v);
    if (st == GP_OK && v.s != NULL) {
        if (!hostname_ok(v.s, v.len)) {
            gp_err_set(c->err, "kubeconfig %s: %s.tls-server-name: \"%s\" is not a host name",
                       c->path, where, v.s);
            return GP_EINVAL;
        }
        if ((k->tls_server_name = dup_n(v.s, v.len)) == NULL)
            return GP_ENOMEM;
    }
    return st;
}

/* Authentication we cannot perform: refusing beats connecting as nobody. */
static gp_status refuse_unsupported(kc_ctx *c, yaml_node_t *u, const char *where)
{
    static const struct {
        const char *key, *why;
    } bad[] = {
        { "auth-provider", "auth-provider plugins are not supported" },
        { "username", "basic authentication (username/password) is not supported" },
        { "password", "basic authentication (username/password) is not supported" },
        { "as", "impersonation is not supported" },
        { "as-uid", "impersonation is not supported" },
        { "as-groups", "impersonation is not supported" },
        { "as-user-extra", "impersonation is not supported" },
    };

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        yaml_node_t *n = map_get(c, u, bad[i].key);

        if (node_is_null(n))
            continue;
        if (n->type == YAML_SCALAR_NODE && n->data.scalar.length == 0)
            continue;
        gp_err_set(c->err,
                   "kubeconfig %s: %s.%s: %s; use token, tokenFile, "
                   "client-certificate/client-key or exec",
                   c->path, where, bad[i].key, bad[i].why);
        return GP_EINVAL;
    }
    return GP_OK;
}

static gp_status get_token(kc_ctx *c, yaml_node_t *u, const char *where, char **out)
{
    kc_str v = { NULL, 0 };
    gp_status st = get_str(c, u, where, "token", GP_KUBE_MAX_TOKEN, &v);

    if (st != GP_OK || v.s == NULL)
        return st;
    if (!token_chars_ok(v.s, v.len)) {
        gp_err_set(c->err, "kubeconfig %s: %s.token: has spaces or control characters", c->path,
                   where);
        return GP_EINVAL;
    }
    *out = dup_n(v.s, v.len);
    return *out == NULL ? GP_ENOMEM : GP_OK;
}

/* tokenFile must hold a usable token now, so a typo fails at start-up rather than at the first
 * request. */
static gp_status get_token_file(kc_ctx *c, yaml_node_t *u, const char *where, char **out)
{
    char *tok = NULL;
    gp_err e = { { 0 } };
    gp_status st = get_file(c, u, where, "tokenFile", out);

    if (st != GP_OK || *out == NULL)
        return st;
    st = token_from_file(*out, &tok, &e);
    wipe_free(tok);
    if (st != GP_OK)
        gp_err_set(c->err, "kubeconfig %s: %s.tokenFile: %s", c->path, where, e.msg);
    return st;
}

static gp_status check_pair(kc_ctx *c, const gp_kube_config *k, const char *where)
{
    bool cert = k->cert_file != NULL || k->cert_pem != NULL;
    bool key = k->key_file != NULL || k->key_pem != NULL;

    if (cert == key)
        return GP_OK;
    gp_err_set(c->err, "kubeconfig %s: %s: %s without %s", c->path, where,
               cert ? "client-certificate" : "client-key",
               cert ? "client-key" : "client-certificate");
    return GP_EINVAL;
}

/* ---- exec ------------------------------------------------------------------------------------ */

#define KC_EXEC_V1 "client.authentication.k8s.io/v1"
#define KC_EXEC_V1BETA1 "client.authentication.k8s.io/v1beta1"

/* Takes item i of an exec list (args or env) into e. */
typedef gp_status (*list_item_fn)(kc_ctx *c, yaml_node_t *item, const char *where, size_t i,
                                  gp_kube_exec *e);

/* The sequence x.key of at most max items (what they are, for the error): a NULL-terminated
 * array for them in *out, each taken by fn; a null or missing key is an empty list. */
static gp_status get_list(kc_ctx *c, yaml_node_t *x, const char *where, const char *key,
                          size_t max, const char *what, char ***out, list_item_fn fn,
                          gp_kube_exec *e)
{
    yaml_node_t *seq = map_get(c, x, key);
    size_t n = 0;

    if (!node_is_null(seq) &&
        (seq->type != YAML_SEQUENCE_NODE ||
         (n = (size_t)(seq->data.sequence.items.top - seq->data.sequence.items.start)) > max)) {
        gp_err_set(c->err, "kubeconfig %s: %s.%s: expected a list of at most %zu %s", c->path,
                   where, key, max, what);
        return GP_EINVAL;
    }
    if ((*out = calloc(n + 1, sizeof(char *))) == NULL)
        return GP_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        gp_status st = fn(c, yaml_document_get_node(&c->doc, seq->data.sequence.items.start[i]),
                          where, i, e);

        if (st != GP_OK)
            return st;
    }
    return GP_OK;
}

/* exec.args[i]: a string. */
static gp_status arg_item(kc_ctx *c, yaml_node_t *a, const char *where, size_t i,
                          gp_kube_exec *e)
{
    if (a == NULL || a->type != YAML_SCALAR_NODE ||
        memchr(a->data.scalar.value, '\0', a->data.scalar.length) != NULL ||
        a->data.scalar.length > KC_MAX_PATH) {
        gp_err_set(c->err, "kubeconfig %s: %s.args[%zu]: expected a string", c->path, where, i);
        return GP_EINVAL;
    }
    if ((e->args[i] = dup_n((const char *)a->data.scalar.value, a->data.scalar.length)) == NULL)
        return GP_ENOMEM;
    e->nargs = i + 1;
    return GP_OK;
}

/* exec.env[i]: {name: N, value: V} as "N=V". */
static gp_status env_item(kc_ctx *c, yaml_node_t *item, const char *where, size_t i,
                          gp_kube_exec *e)
{
    char ew[KC_MAX_WHERE];
    kc_str name = { NULL, 0 }, value = { NULL, 0 };
    gp_status st;

    snprintf(ew, sizeof(ew), "%.290s.env[%zu]", where, i);
    if (item == NULL || item->type != YAML_MAPPING_NODE) {
        gp_err_set(c->err, "kubeconfig %s: %s: expected {name, value}", c->path, ew);
        return GP_EINVAL;
    }
    if ((st = get_str(c, item, ew, "name", KC_MAX_NAME, &name)) != GP_OK ||
        (st = get_str(c, item, ew, "value", GP_KUBE_MAX_TOKEN, &value)) != GP_OK)
        return st;
    if (name.s == NULL || memchr(name.s, '=', name.len) != NULL) {
        gp_err_set(c->err, "kubeconfig %s: %s.name: missing, or has '='", c->path, ew);
        return GP_EINVAL;
    }
    if (asprintf(&e->env[i], "%.*s=%.*s", (int)name.len, name.s, (int)value.len,
                 value.s ? value.s : "") < 0) {
        e->env[i] = NULL;
        return GP_ENOMEM;
    }
    e->nenv = i + 1;
    return GP_OK;
}

/* Whether command can be run: an executable path, or a name found in PATH. */
static bool command_found(const char *cmd)
{
    const char *path = getenv("PATH"), *p;
    char buf[KC_MAX_PATH];

    if (strchr(cmd, '/') != NULL)
        return access(cmd, X_OK) == 0;
    for (p = path ? path : "/usr/local/bin:/usr/bin:/bin"; *p;) {
        const char *end = strchr(p, ':');
        size_t n = end ? (size_t)(end - p) : strlen(p);

        snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, n ? p : ".", cmd);
        if (access(buf, X_OK) == 0)
            return true;
        p += n + (end != NULL);
    }
    return false;
}

/* exec.command: required; a relative path with a '/' is relative to the kubeconfig's directory
 * (as kubectl resolves it); it must be runnable now, so a missing tool fails at start-up. */
static gp_status get_command(kc_ctx *c, yaml_node_t *x, const char *where, gp_kube_exec *e)
{
    kc_str v = { NULL, 0 };
    gp_status st = get_required_str(c, x, where, "command", KC_MAX_PATH, &v);

    if (st != GP_OK)
        return st;
    if (memchr(v.s, '/', v.len) != NULL && v.s[0] != '/') {
        if (asprintf(&e->command, "%s/%.*s", c->dir, (int)v.len, v.s) < 0)
            e->command = NULL;
    } else {
        e->command = dup_n(v.s, v.len);
    }
    if (e->command == NULL)
        return GP_ENOMEM;
    if (!command_found(e->command)) {
        gp_err_set(c->err, "kubeconfig %s: %s.command: \"%.200s\": command not found%s%.200s",
                   c->path, where, e->command, e->install_hint ? ": " : "",
                   e->install_hint ? e->install_hint : "");
        return GP_ENOTFOUND;
    }
    return GP_OK;
}

static gp_status get_api_version(kc_ctx *c, yaml_node_t *x, const char *where, gp_kube_exec *e)
{
    kc_str v = { NULL, 0 };
    gp_status st = get_str(c, x, where, "apiVersion", 128, &v);

    if (st != GP_OK)
        return st;
    if (v.s == NULL || (strcmp(v.s, KC_EXEC_V1) != 0 && strcmp(v.s, KC_EXEC_V1BETA1) != 0)) {
        gp_err_set(c->err, "kubeconfig %s: %s.apiVersion: \"%.64s\" is not supported (%s or %s)",
                   c->path, where, v.s ? v.s : "", KC_EXEC_V1, KC_EXEC_V1BETA1);
        return GP_EINVAL;
    }
    return (e->api_version = dup_n(v.s, v.len)) ? GP_OK : GP_ENOMEM;
}

/* interactiveMode: the daemons have no terminal, so Never and IfAvailable run the plugin without
 * one (spec.interactive false) and Always cannot be honoured. */
static gp_status check_interactive(kc_ctx *c, yaml_node_t *x, const char *where)
{
    kc_str v = { NULL, 0 };
    gp_status st = get_str(c, x, where, "interactiveMode", 32, &v);

    if (st != GP_OK || v.s == NULL || strcmp(v.s, "Never") == 0 ||
        strcmp(v.s, "IfAvailable") == 0)
        return st;
    gp_err_set(c->err, "kubeconfig %s: %s.interactiveMode: %s", c->path, where,
               strcmp(v.s, "Always") == 0
                   ? "Always needs a terminal, and gpupack runs without one; use a plugin "
                     "that can run with Never or IfAvailable"
                   : "expected Never, IfAvailable or Always");
    return GP_EINVAL;
}

static gp_status load_exec(kc_ctx *c, yaml_node_t *x, const char *user_where, gp_kube_config *k)
{
    char where[KC_MAX_WHERE];
    kc_str hint = { NULL, 0 };
    gp_kube_exec *e;
    gp_status st;

    snprintf(where, sizeof(where), "%.300s.exec", user_where);
    if (x->type != YAML_MAPPING_NODE) {
        gp_err_set(c->err, "kubeconfig %s: %s: expected a mapping", c->path, where);
        return GP_EINVAL;
    }
    if ((e = k->exec = calloc(1, sizeof(*e))) == NULL ||
        (k->exec_cache = gp_exec_cache_new()) == NULL)
        return GP_ENOMEM;
    e->timeout_ms = GP_KUBE_EXEC_TIMEOUT_MS;
    if ((st = get_str(c, x, where, "installHint", 1024, &hint)) != GP_OK)
        return st;
    if (hint.s != NULL && (e->install_hint = dup_n(hint.s, hint.len)) == NULL)
        return GP_ENOMEM;
    if ((st = get_api_version(c, x, where, e)) != GP_OK ||
        (st = check_interactive(c, x, where)) != GP_OK ||
        (st = get_bool(c, x, where, "provideClusterInfo", &e->provide_cluster_info)) != GP_OK ||
        (st = get_list(c, x, where, "args", GP_KUBE_EXEC_MAX_ARGS, "strings", &e->args, arg_item,
                       e)) != GP_OK ||
        (st = get_list(c, x, where, "env", GP_KUBE_EXEC_MAX_ENV, "{name, value}", &e->env,
                       env_item, e)) != GP_OK)
        return st;
    return get_command(c, x, where, e);
}

static gp_status load_user(kc_ctx *c, const char *name, gp_kube_config *k)
{
    char where[KC_MAX_WHERE];
    yaml_node_t *u = NULL;
    gp_status st = find_named(c, "user", name, &u, where, sizeof(where));

    if (st != GP_OK || (st = refuse_unsupported(c, u, where)) != GP_OK ||
        (st = get_token(c, u, where, &k->token)) != GP_OK ||
        (st = get_token_file(c, u, where, &k->token_file)) != GP_OK ||
        (st = get_pem(c, u, where, "client-certificate", &k->cert_file, &k->cert_pem)) != GP_OK ||
        (st = get_pem(c, u, where, "client-key", &k->key_file, &k->key_pem)) != GP_OK ||
        (st = check_pair(c, k, where)) != GP_OK)
        return st;
    return node_is_null(map_get(c, u, "exec")) ? GP_OK
                                                : load_exec(c, map_get(c, u, "exec"), where, k);
}

/* ---- loading ------------------------------------------------------------------------------- */

static gp_status parse_yaml(kc_ctx *c, const char *src, size_t len)
{
    yaml_parser_t p;
    gp_status st = GP_OK;

    if (!yaml_parser_initialize(&p))
        return GP_ENOMEM;
    yaml_parser_set_input_string(&p, (const unsigned char *)src, len);
    if (!yaml_parser_load(&p, &c->doc)) {
        gp_err_set(c->err, "kubeconfig %s: line %zu column %zu: %s%s%s", c->path,
                   p.problem_mark.line + 1, p.problem_mark.column + 1,
                   p.problem ? p.problem : "malformed YAML", p.context ? " " : "",
                   p.context ? p.context : "");
        st = p.error == YAML_MEMORY_ERROR ? GP_ENOMEM : GP_EINVAL;
    }
    yaml_parser_delete(&p);
    return st;
}

static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');

    if (slash == NULL)
        return dup_s(".");
    if (slash == path)
        return dup_s("/");
    return dup_n(path, (size_t)(slash - path));
}

/* The context to use: the one asked for, else current-context. Names cluster and user. */
static gp_status pick_context(kc_ctx *c, const char *context, kc_str *cluster, kc_str *user)
{
    char where[KC_MAX_WHERE];
    yaml_node_t *root = yaml_document_get_root_node(&c->doc), *ctx = NULL;
    kc_str cur = { context, context ? strlen(context) : 0 };
    gp_status st = GP_OK;

    if (root == NULL || root->type != YAML_MAPPING_NODE) {
        gp_err_set(c->err, "kubeconfig %s: %s", c->path,
                   root == NULL ? "empty" : "not a mapping of clusters, contexts and users");
        return GP_EINVAL;
    }
    if (context == NULL)
        st = get_str(c, root, "(top level)", "current-context", KC_MAX_NAME, &cur);
    if (st == GP_OK && cur.s == NULL) {
        gp_err_set(c->err, "kubeconfig %s: current-context: not set and no context given",
                   c->path);
        return GP_EINVAL;
    }
    if (st == GP_OK)
        st = find_named(c, "context", cur.s, &ctx, where, sizeof(where));
    if (st == GP_OK)
        st = get_str(c, ctx, where, "cluster", KC_MAX_NAME, cluster);
    if (st == GP_OK && cluster->s == NULL) {
        gp_err_set(c->err, "kubeconfig %s: %s.cluster: missing", c->path, where);
        return GP_EINVAL;
    }
    if (st == GP_OK)
        st = get_str(c, ctx, where, "user", KC_MAX_NAME, user);
    return st;
}

static gp_status load_doc(kc_ctx *c, const char *context, gp_kube_config *k)
{
    kc_str cluster = { NULL, 0 }, user = { NULL, 0 };
    gp_status st = pick_context(c, context, &cluster, &user);

    if (st == GP_OK)
        st = load_cluster(c, cluster.s, k);
    if (st == GP_OK && user.s != NULL)
        st = load_user(c, user.s, k);
    return st;
}

gp_status gp_kube_config_load(const char *path, const char *context, gp_kube_config **out,
                              gp_err *err)
{
    kc_ctx c = { .path = path, .err = err };
    char *src = NULL;
    size_t len = 0;
    gp_kube_config *k = NULL;
    gp_status st;

    *out = NULL;
    st = gp_file_read(path, GP_KUBECONFIG_MAX, &src, &len, err);
    if (st != GP_OK) {
        gp_err_prefix(err, "kubeconfig");
        return st;
    }
    c.dir = dir_of(path);
    k = calloc(1, sizeof(*k));
    if (c.dir == NULL || k == NULL)
        st = GP_ENOMEM;
    else if ((st = parse_yaml(&c, src, len)) == GP_OK) {
        st = load_doc(&c, context, k);
        yaml_document_delete(&c.doc);
    }
    if (st == GP_ENOMEM)
        gp_err_set(err, "kubeconfig %s: out of memory", path);
    explicit_bzero(src, len); /* it may hold a token or a key */
    free(src);
    free(c.dir);
    if (st != GP_OK) {
        gp_kube_config_free(k);
        k = NULL;
    }
    *out = k;
    return st;
}

/* ---- in-cluster ---------------------------------------------------------------------------- */

static bool parse_port(const char *s, unsigned *out)
{
    unsigned v = 0;

    if (*s == '\0')
        return false;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return false;
        v = v * 10 + (unsigned)(*s - '0');
        if (v > 65535)
            return false;
    }
    *out = v;
    return v > 0;
}

static bool service_host_ok(const char *h)
{
    size_t n = strlen(h);

    for (size_t i = 0; i < n; i++) {
        char ch = h[i];

        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
              ch == '.' || ch == '-' || ch == ':'))
            return false;
    }
    return n > 0 && n <= 253;
}

static gp_status in_cluster_server(char **server, gp_err *err)
{
    const char *host = getenv("KUBERNETES_SERVICE_HOST");
    const char *port = getenv("KUBERNETES_SERVICE_PORT");
    char buf[GP_KUBE_MAX_URL];
    unsigned p;

    if (host == NULL || *host == '\0' || port == NULL || *port == '\0') {
        gp_err_set(err, "not in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT "
                        "must be set");
        return GP_ENOTFOUND;
    }
    if (!service_host_ok(host)) {
        gp_err_set(err, "in-cluster: KUBERNETES_SERVICE_HOST \"%.253s\" is not a host", host);
        return GP_EINVAL;
    }
    if (!parse_port(port, &p)) {
        gp_err_set(err, "in-cluster: KUBERNETES_SERVICE_PORT \"%.32s\" is not a port (1-65535)",
                   port);
        return GP_EINVAL;
    }
    snprintf(buf, sizeof(buf), strchr(host, ':') ? "https://[%s]:%u" : "https://%s:%u", host, p);
    *server = dup_s(buf);
    return *server == NULL ? GP_ENOMEM : GP_OK;
}

static char *path_join(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);

    if (p != NULL)
        snprintf(p, n, "%s/%s", dir, name);
    return p;
}

gp_status gp_kube_config_in_cluster(const char *sa_dir, gp_kube_config **out, gp_err *err)
{
    gp_kube_config *k = calloc(1, sizeof(*k));
    char *tok = NULL;
    gp_status st;

    *out = NULL;
    if (sa_dir == NULL)
        sa_dir = GP_KUBE_SA_DIR;
    if (k == NULL)
        return GP_ENOMEM;
    if ((st = in_cluster_server(&k->server, err)) != GP_OK)
        goto fail;
    k->token_file = path_join(sa_dir, "token");
    k->ca_file = path_join(sa_dir, "ca.crt");
    if (k->token_file == NULL || k->ca_file == NULL) {
        st = GP_ENOMEM;
        goto fail;
    }
    if ((st = token_from_file(k->token_file, &tok, err)) != GP_OK)
        goto fail_msg;
    wipe_free(tok);
    if (access(k->ca_file, R_OK) != 0) {
        gp_err_set(err, "%s: %s", k->ca_file, strerror(errno));
        st = GP_EIO;
        goto fail_msg;
    }
    *out = k;
    return GP_OK;
fail_msg:
    gp_err_prefix(err, "in-cluster");
fail:
    gp_kube_config_free(k);
    return st;
}

gp_status gp_kube_config_resolve(const char *kubeconfig, const char *context,
                                 gp_kube_config **out, gp_err *err)
{
    const char *host = getenv("KUBERNETES_SERVICE_HOST");

    if (kubeconfig != NULL)
        return gp_kube_config_load(kubeconfig, context, out, err);
    if (host != NULL && *host != '\0')
        return gp_kube_config_in_cluster(NULL, out, err);
    *out = NULL;
    gp_err_set(err, "no cluster: no kubeconfig given and KUBERNETES_SERVICE_HOST is not set");
    return GP_ENOTFOUND;
}
