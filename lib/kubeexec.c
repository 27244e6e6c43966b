/* SPDX-License-Identifier: Apache-2.0 */
/* Exec credential plugins: parsing and deciding (pure), running the process (the edge), and the
 * shared cache. The process is started with posix_spawnp (glibc reports a failed exec, such as a
 * command not found, as its return value), with a clean signal mask and default dispositions,
 * since the daemons block SIGTERM and ignore SIGPIPE. Its stdout and stderr are read with poll()
 * against one deadline; past it the plugin is killed. */
#include "gpupack/kubeexec.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gpupack/base64.h"
#include "gpupack/fileio.h"
#include "gpupack/strbuf.h"

extern char **environ;

static void wipe_free(char *s)
{
    if (s != NULL) {
        explicit_bzero(s, strlen(s));
        free(s);
    }
}

void gp_exec_cred_clear(gp_exec_cred *c)
{
    wipe_free(c->token);
    free(c->cert_pem);
    wipe_free(c->key_pem);
    *c = (gp_exec_cred){ 0 };
}

/* ---- pure: time ------------------------------------------------------------------------------ */

static bool digits(const char *s, int n, int *out)
{
    int v = 0;

    for (int i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return false;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return true;
}

/* The offset part: "Z", "+hh:mm" or "-hh:mm", in seconds east of UTC. */
static bool zone(const char *s, long *off)
{
    int h, m;

    if ((s[0] == 'Z' || s[0] == 'z') && s[1] == '\0')
        return (*off = 0), true;
    if ((s[0] != '+' && s[0] != '-') || !digits(s + 1, 2, &h) || s[3] != ':' ||
        !digits(s + 4, 2, &m) || s[6] != '\0' || h > 23 || m > 59)
        return false;
    *off = (s[0] == '-' ? -1 : 1) * (long)(h * 3600 + m * 60);
    return true;
}

gp_status gp_rfc3339_parse(const char *s, int64_t *out)
{
    struct tm tm = { 0 };
    int y, mo, d, h, mi, se;
    long off;
    const char *p = s + 19;

    if (strlen(s) < 20 || !digits(s, 4, &y) || s[4] != '-' || !digits(s + 5, 2, &mo) ||
        s[7] != '-' || !digits(s + 8, 2, &d) || (s[10] != 'T' && s[10] != 't') ||
        !digits(s + 11, 2, &h) || s[13] != ':' || !digits(s + 14, 2, &mi) || s[16] != ':' ||
        !digits(s + 17, 2, &se))
        return GP_EINVAL;
    if (*p == '.') {
        const char *q = ++p;

        while (*p >= '0' && *p <= '9')
            p++;
        if (p == q)
            return GP_EINVAL;
    }
    if (!zone(p, &off) || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60)
        return GP_EINVAL;
    tm.tm_year = y - 1900;
    tm.tm_mon = mo - 1;
    tm.tm_mday = d;
    tm.tm_hour = h;
    tm.tm_min = mi;
    tm.tm_sec = se;
    *out = (int64_t)timegm(&tm) - off;
    return GP_OK;
}

bool gp_exec_cred_fresh(int64_t expiry_s, int64_t obtained_s, int64_t now_s)
{
    int64_t margin;

    if (expiry_s == 0)
        return true;
    margin = (expiry_s - obtained_s) / 10;
    if (margin > GP_KUBE_EXEC_REFRESH_MAX_S)
        margin = GP_KUBE_EXEC_REFRESH_MAX_S;
    if (margin < 0)
        margin = 0;
    return now_s < expiry_s - margin;
}

/* ---- pure: the ExecCredential ---------------------------------------------------------------- */

/* A token goes into an HTTP header: printable ASCII without spaces. */
static bool token_ok(const char *s)
{
    for (const char *p = s; *p; p++)
        if ((unsigned char)*p < 0x21 || (unsigned char)*p > 0x7e)
            return false;
    return *s != '\0' && strlen(s) <= GP_KUBE_MAX_TOKEN;
}

/* An optional string member: NULL when absent or null; GP_EINVAL when another type or empty. */
static gp_status opt_string(const cJSON *o, const char *key, const char **out, gp_err *err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

    *out = NULL;
    if (v == NULL || cJSON_IsNull(v))
        return GP_OK;
    if (!cJSON_IsString(v) || v->valuestring[0] == '\0') {
        gp_err_set(err, "status.%s: expected a non-empty string", key);
        return GP_EINVAL;
    }
    *out = v->valuestring;
    return GP_OK;
}

static gp_status check_envelope(const cJSON *root, const char *api_version, gp_err *err)
{
    const cJSON *av = cJSON_GetObjectItemCaseSensitive(root, "apiVersion");
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive(root, "kind");

    if (!cJSON_IsObject(root)) {
        gp_err_set(err, "output is not a JSON ExecCredential");
        return GP_EINVAL;
    }
    if (!cJSON_IsString(kind) || strcmp(kind->valuestring, "ExecCredential") != 0) {
        gp_err_set(err, "output's kind is not ExecCredential");
        return GP_EINVAL;
    }
    if (!cJSON_IsString(av) || strcmp(av->valuestring, api_version) != 0) {
        gp_err_set(err, "output's apiVersion is \"%.64s\", the kubeconfig asks for \"%s\"",
                   cJSON_IsString(av) ? av->valuestring : "", api_version);
        return GP_EINVAL;
    }
    return GP_OK;
}

static gp_status take_status(const cJSON *status, gp_exec_cred *out, gp_err *err)
{
    const char *tok, *cert, *key, *exp;

    if (opt_string(status, "token", &tok, err) != GP_OK ||
        opt_string(status, "clientCertificateData", &cert, err) != GP_OK ||
        opt_string(status, "clientKeyData", &key, err) != GP_OK ||
        opt_string(status, "expirationTimestamp", &exp, err) != GP_OK)
        return GP_EINVAL;
    if ((cert == NULL) != (key == NULL)) {
        gp_err_set(err, "status.%s without status.%s", cert ? "clientCertificateData" : "clientKeyData",
                   cert ? "clientKeyData" : "clientCertificateData");
        return GP_EINVAL;
    }
    if (tok == NULL && cert == NULL) {
        gp_err_set(err, "status has no token (and no clientCertificateData/clientKeyData)");
        return GP_EINVAL;
    }
    if (tok != NULL && !token_ok(tok)) {
        gp_err_set(err, "status.token has spaces or control characters, or is too long");
        return GP_EINVAL;
    }
    if (exp != NULL && gp_rfc3339_parse(exp, &out->expiry_s) != GP_OK) {
        gp_err_set(err, "status.expirationTimestamp \"%.40s\" is not an RFC 3339 time", exp);
        return GP_EINVAL;
    }
    out->token = tok ? strdup(tok) : NULL;
    out->cert_pem = cert ? strdup(cert) : NULL;
    out->key_pem = key ? strdup(key) : NULL;
    if ((tok && !out->token) || (cert && !out->cert_pem) || (key && !out->key_pem))
        return GP_ENOMEM;
    return GP_OK;
}

gp_status gp_exec_cred_parse(const char *json, size_t len, const char *api_version,
                             gp_exec_cred *out, gp_err *err)
{
    cJSON *root = cJSON_ParseWithLengthOpts(json, len + 1, NULL, 1); /* json[len] is NUL */
    const cJSON *status = cJSON_GetObjectItemCaseSensitive(root, "status");
    gp_status st;

    *out = (gp_exec_cred){ 0 };
    if (root == NULL) {
        gp_err_set(err, "output is not JSON (%zu bytes)", len);
        return GP_EINVAL;
    }
    st = check_envelope(root, api_version, err);
    if (st == GP_OK && !cJSON_IsObject(status)) {
        gp_err_set(err, "output has no status");
        st = GP_EINVAL;
    }
    if (st == GP_OK)
        st = take_status(status, out, err);
    cJSON_Delete(root);
    if (st != GP_OK)
        gp_exec_cred_clear(out);
    return st;
}

/* ---- pure: KUBERNETES_EXEC_INFO -------------------------------------------------------------- */

static bool add_cluster(cJSON *spec, const gp_kube_config *cfg, const char *ca_pem)
{
    cJSON *cl = cJSON_AddObjectToObject(spec, "cluster");
    char *ca = ca_pem ? gp_base64_encode(ca_pem, strlen(ca_pem)) : NULL;
    bool ok = cl != NULL && cJSON_AddStringToObject(cl, "server", cfg->server) != NULL &&
              (cfg->tls_server_name == NULL ||
               cJSON_AddStringToObject(cl, "tls-server-name", cfg->tls_server_name) != NULL) &&
              (!cfg->insecure || cJSON_AddTrueToObject(cl, "insecure-skip-tls-verify") != NULL) &&
              (ca_pem == NULL ||
               (ca != NULL && cJSON_AddStringToObject(cl, "certificate-authority-data", ca)));

    free(ca);
    return ok;
}

char *gp_exec_info_json(const gp_kube_exec *x, const gp_kube_config *cfg, const char *ca_pem)
{
    cJSON *root = cJSON_CreateObject(), *spec;
    char *s = NULL;

    if (root != NULL && cJSON_AddStringToObject(root, "apiVersion", x->api_version) &&
        cJSON_AddStringToObject(root, "kind", "ExecCredential") &&
        (spec = cJSON_AddObjectToObject(root, "spec")) != NULL &&
        cJSON_AddFalseToObject(spec, "interactive") &&
        (!x->provide_cluster_info || add_cluster(spec, cfg, ca_pem)))
        s = cJSON_PrintUnformatted(root);
    cJSON_Delete(root);
    return s;
}

/* ---- the edge: running the plugin ------------------------------------------------------------ */

/* Our environment, minus the names x->env sets and KUBERNETES_EXEC_INFO, plus those. */
static char **build_env(const gp_kube_exec *x, const char *info)
{
    size_t n = 0, k = 0;
    char **env;

    while (environ[n] != NULL)
        n++;
    if ((env = calloc(n + x->nenv + 2, sizeof(*env))) == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        bool replaced = strncmp(environ[i], "KUBERNETES_EXEC_INFO=", 21) == 0;

        for (size_t j = 0; j < x->nenv && !replaced; j++) {
            size_t len = (size_t)(strchr(x->env[j], '=') - x->env[j]);

            replaced = strncmp(environ[i], x->env[j], len + 1) == 0;
        }
        if (!replaced)
            env[k++] = environ[i];
    }
    for (size_t j = 0; j < x->nenv; j++)
        env[k++] = x->env[j];
    if (asprintf(&env[k], "KUBERNETES_EXEC_INFO=%s", info) < 0) {
        free(env);
        return NULL;
    }
    return env;
}

static void free_env(char **env, const gp_kube_exec *x)
{
    size_t n = 0;

    if (env == NULL)
        return;
    while (env[n] != NULL)
        n++;
    (void)x;
    free(env[n - 1]); /* the KUBERNETES_EXEC_INFO entry, the only one allocated here */
    free(env);
}

typedef struct {
    pid_t pid;
    int out, err; /* read ends; -1 once closed */
    gp_strbuf obuf; /* stdout; failed once past GP_KUBE_EXEC_MAX_OUTPUT (or out of memory) */
    char ebuf[GP_KUBE_EXEC_MAX_STDERR + 1];
    size_t elen;
} plugin_proc;

/* Whether posix_spawnp() will find cmd: a path must be executable, a bare name must be
 * executable in a directory of PATH (/bin:/usr/bin without one). Looked up before spawning, so
 * a missing command is named as such whatever the spawn implementation reports (under valgrind
 * a failed exec comes back as exit status 127). */
static bool findable(const char *cmd)
{
    const char *path = getenv("PATH"), *dir;
    char full[4096];

    if (strchr(cmd, '/') != NULL)
        return access(cmd, X_OK) == 0;
    for (dir = path && *path ? path : "/bin:/usr/bin"; *dir != '\0';) {
        size_t n = strcspn(dir, ":");

        if (snprintf(full, sizeof(full), "%.*s/%s", (int)(n ? n : 1), n ? dir : ".", cmd) <
                (int)sizeof(full) &&
            access(full, X_OK) == 0)
            return true;
        dir += n + (dir[n] == ':');
    }
    return false;
}

static gp_status spawn(const gp_kube_exec *x, char **env, plugin_proc *p, gp_err *err)
{
    int op[2] = { -1, -1 }, ep[2] = { -1, -1 }, rc;
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    sigset_t none, deflt;
    char **argv;

    if (!findable(x->command)) {
        gp_err_set(err, "exec plugin %s: command not found%s%s", x->command,
                   x->install_hint ? ": " : "", x->install_hint ? x->install_hint : "");
        return GP_EIO;
    }
    argv = calloc(x->nargs + 2, sizeof(*argv));
    if (argv == NULL || pipe2(op, O_CLOEXEC) != 0 || pipe2(ep, O_CLOEXEC) != 0) {
        gp_err_set(err, "exec plugin %s: cannot make pipes: %s", x->command, strerror(errno));
        free(argv);
        for (int i = 0; i < 2; i++) {
            if (op[i] >= 0)
                close(op[i]);
            if (ep[i] >= 0)
                close(ep[i]);
        }
        return GP_EIO;
    }
    argv[0] = x->command;
    for (size_t i = 0; i < x->nargs; i++)
        argv[i + 1] = x->args[i];
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, op[1], 1);
    posix_spawn_file_actions_adddup2(&fa, ep[1], 2);
    posix_spawnattr_init(&at);
    sigemptyset(&none);
    sigemptyset(&deflt);
    sigaddset(&deflt, SIGPIPE);
    sigaddset(&deflt, SIGTERM);
    sigaddset(&deflt, SIGINT);
    posix_spawnattr_setsigmask(&at, &none);
    posix_spawnattr_setsigdefault(&at, &deflt);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    rc = posix_spawnp(&p->pid, x->command, &fa, &at, argv, env);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    free(argv);
    close(op[1]);
    close(ep[1]);
    p->out = op[0];
    p->err = ep[0];
    if (rc == 0)
        return GP_OK;
    close(op[0]);
    close(ep[0]);
    p->out = p->err = -1;
    if (rc == ENOENT)
        gp_err_set(err, "exec plugin %s: command not found%s%s", x->command,
                   x->install_hint ? ": " : "", x->install_hint ? x->install_hint : "");
    else
        gp_err_set(err, "exec plugin %s: cannot run it: %s", x->command, strerror(rc));
    return GP_EIO;
}

static int64_t mono_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Reads what is ready on fd into the stdout buffer (is_out) or the kept part of stderr. */
static void drain(plugin_proc *p, bool is_out)
{
    char buf[8192];
    ssize_t n = read(is_out ? p->out : p->err, buf, sizeof(buf));

    if (n <= 0) {
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            return;
        close(is_out ? p->out : p->err);
        *(is_out ? &p->out : &p->err) = -1;
        return;
    }
    if (!is_out) {
        size_t room = GP_KUBE_EXEC_MAX_STDERR - p->elen, k = (size_t)n < room ? (size_t)n : room;

        memcpy(p->ebuf + p->elen, buf, k);
        p->elen += k;
        return;
    }
    gp_strbuf_put(&p->obuf, buf, (size_t)n);
}

#define CANCEL_POLL_MS 100 /* how often a run looks at its cancel flag */

static bool cancelled(const atomic_bool *cancel)
{
    return cancel != NULL && atomic_load(cancel);
}

/* Collects the output until both pipes close, the deadline passes, stdout is too large or the
 * run is cancelled. */
static bool collect(plugin_proc *p, int64_t deadline, const atomic_bool *cancel)
{
    while ((p->out >= 0 || p->err >= 0) && !p->obuf.failed) {
        struct pollfd fds[2] = { { p->out, POLLIN, 0 }, { p->err, POLLIN, 0 } };
        int64_t left = deadline - mono_ms();

        if (left <= 0 || cancelled(cancel))
            return false;
        if (left > CANCEL_POLL_MS)
            left = CANCEL_POLL_MS;
        if (poll(fds, 2, (int)left) < 0 && errno != EINTR)
            return false;
        if (p->out >= 0 && (fds[0].revents & (POLLIN | POLLHUP | POLLERR)))
            drain(p, true);
        if (p->err >= 0 && (fds[1].revents & (POLLIN | POLLHUP | POLLERR)))
            drain(p, false);
    }
    return !p->obuf.failed;
}

/* Waits for the process until the deadline; kills it past that. Returns its wait status, or -1
 * when it had to be killed. */
static int reap(pid_t pid, int64_t deadline)
{
    int status = 0;

    while (waitpid(pid, &status, WNOHANG) == 0) {
        if (mono_ms() >= deadline) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            return -1;
        }
        usleep(5000);
    }
    return status;
}

static void first_line(const char *s, size_t n, char *out, size_t outsz)
{
    size_t i = 0;

    while (i < n && (s[i] == '\n' || s[i] == '\r' || s[i] == ' '))
        s++, n--;
    while (i < n && s[i] != '\n' && s[i] != '\r')
        i++;
    snprintf(out, outsz, "%.*s", (int)(i > 300 ? 300 : i), s);
}

static gp_status judge(const gp_kube_exec *x, plugin_proc *p, bool collected, int status,
                       gp_exec_cred *out, gp_err *err)
{
    char line[320];
    gp_err why = { { 0 } };

    first_line(p->ebuf, p->elen, line, sizeof(line));
    if (status == -1 && !p->obuf.failed) {
        gp_err_set(err, "exec plugin %s: timed out after %u ms (killed)", x->command,
                   x->timeout_ms);
        return GP_EIO;
    }
    if (p->obuf.failed) {
        gp_err_set(err, "exec plugin %s: output larger than %u bytes", x->command,
                   GP_KUBE_EXEC_MAX_OUTPUT);
        return GP_ETOOBIG;
    }
    if (WIFSIGNALED(status)) {
        gp_err_set(err, "exec plugin %s: killed by signal %d%s%s", x->command, WTERMSIG(status),
                   line[0] ? ": " : "", line);
        return GP_EIO;
    }
    if (!collected || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        gp_err_set(err, "exec plugin %s: exited with status %d%s%s", x->command,
                   WIFEXITED(status) ? WEXITSTATUS(status) : -1, line[0] ? ": " : "", line);
        return GP_EIO;
    }
    if (gp_exec_cred_parse(p->obuf.p ? p->obuf.p : "", p->obuf.len, x->api_version, out, &why) != GP_OK) {
        gp_err_set(err, "exec plugin %s: %s", x->command, why.msg);
        return GP_EINVAL;
    }
    return GP_OK;
}

/* The CA to describe in KUBERNETES_EXEC_INFO: inline data, or the file's contents. */
static char *cluster_ca(const gp_kube_exec *x, const gp_kube_config *cfg)
{
    char *buf = NULL;
    size_t len = 0;
    gp_err e = { { 0 } };

    if (!x->provide_cluster_info)
        return NULL;
    if (cfg->ca_pem != NULL)
        return strdup(cfg->ca_pem);
    if (cfg->ca_file != NULL && gp_file_read(cfg->ca_file, GP_KUBE_MAX_PEM, &buf, &len, &e) == GP_OK)
        return buf;
    return NULL;
}

gp_status gp_exec_run(const gp_kube_exec *x, const gp_kube_config *cfg,
                      const atomic_bool *cancel, gp_exec_cred *out, gp_err *err)
{
    plugin_proc p = { .pid = -1, .out = -1, .err = -1 };
    int64_t deadline = mono_ms() + (x->timeout_ms ? x->timeout_ms : GP_KUBE_EXEC_TIMEOUT_MS);
    char *ca = cluster_ca(x, cfg), *info = gp_exec_info_json(x, cfg, ca);
    char **env = info ? build_env(x, info) : NULL;
    gp_status st;
    bool collected;
    int status;

    *out = (gp_exec_cred){ 0 };
    gp_strbuf_init(&p.obuf, GP_KUBE_EXEC_MAX_OUTPUT + 1);
    free(ca);
    free(info);
    if (env == NULL)
        return GP_ENOMEM;
    st = spawn(x, env, &p, err);
    free_env(env, x);
    if (st != GP_OK)
        return st;
    collected = collect(&p, deadline, cancel);
    if (p.out >= 0)
        close(p.out);
    if (p.err >= 0)
        close(p.err);
    status = reap(p.pid, collected ? deadline : 0);
    if (!collected && !p.obuf.failed)
        status = -1;
    if (!collected && cancelled(cancel)) {
        gp_err_set(err, "exec plugin %s: abandoned (stopping)", x->command);
        st = GP_EIO;
    } else {
        st = judge(x, &p, collected, status, out, err);
    }
    if (p.obuf.p != NULL)
        explicit_bzero(p.obuf.p, p.obuf.len);
    gp_strbuf_free(&p.obuf);
    return st;
}

/* ---- the cache ------------------------------------------------------------------------------- */

struct gp_exec_cache {
    atomic_int refs;
    pthread_mutex_t mu; /* held across a plugin run, so concurrent callers wait for one */
    gp_exec_cred cred;
    bool have;
    int64_t obtained_s;
    atomic_bool cancel; /* gp_exec_cache_cancel(): the process is stopping */
};

gp_exec_cache *gp_exec_cache_new(void)
{
    gp_exec_cache *c = calloc(1, sizeof(*c));

    if (c == NULL)
        return NULL;
    atomic_init(&c->refs, 1);
    atomic_init(&c->cancel, false);
    pthread_mutex_init(&c->mu, NULL);
    return c;
}

gp_exec_cache *gp_exec_cache_ref(gp_exec_cache *c)
{
    if (c != NULL)
        atomic_fetch_add(&c->refs, 1);
    return c;
}

static void exec_cache_free(gp_exec_cache *c)
{
    gp_exec_cred_clear(&c->cred);
    pthread_mutex_destroy(&c->mu);
    free(c);
}

void gp_exec_cache_unref(gp_exec_cache *c)
{
    if (c != NULL && atomic_fetch_sub(&c->refs, 1) == 1) /* the last reference */
        exec_cache_free(c);
}

static char *dup_or_null(const char *s, bool *oom)
{
    char *d = s ? strdup(s) : NULL;

    if (s != NULL && d == NULL)
        *oom = true;
    return d;
}

gp_status gp_exec_cache_get(gp_exec_cache *c, const gp_kube_exec *x, const gp_kube_config *cfg,
                            char **token, char **cert_pem, char **key_pem, gp_err *err)
{
    gp_status st = GP_OK;
    bool oom = false;
    int64_t now = (int64_t)time(NULL);

    *token = *cert_pem = *key_pem = NULL;
    pthread_mutex_lock(&c->mu);
    if (atomic_load(&c->cancel)) {
        gp_err_set(err, "exec plugin %s: not run (stopping)", x->command);
        st = GP_EIO;
    } else if (!c->have || !gp_exec_cred_fresh(c->cred.expiry_s, c->obtained_s, now)) {
        gp_exec_cred fresh;

        st = gp_exec_run(x, cfg, &c->cancel, &fresh, err);
        if (st == GP_OK) {
            gp_exec_cred_clear(&c->cred);
            c->cred = fresh;
            c->have = true;
            c->obtained_s = (int64_t)time(NULL);
        }
    }
    if (st == GP_OK) {
        *token = dup_or_null(c->cred.token, &oom);
        *cert_pem = dup_or_null(c->cred.cert_pem, &oom);
        *key_pem = dup_or_null(c->cred.key_pem, &oom);
    }
    pthread_mutex_unlock(&c->mu);
    if (oom) {
        wipe_free(*token);
        free(*cert_pem);
        wipe_free(*key_pem);
        *token = *cert_pem = *key_pem = NULL;
        return GP_ENOMEM;
    }
    return st;
}

void gp_exec_cache_cancel(gp_exec_cache *c)
{
    if (c != NULL)
        atomic_store(&c->cancel, true);
}

void gp_exec_cache_invalidate(gp_exec_cache *c)
{
    if (c == NULL)
        return;
    pthread_mutex_lock(&c->mu);
    c->have = false;
    pthread_mutex_unlock(&c->mu);
}
