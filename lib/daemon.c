/* SPDX-License-Identifier: Apache-2.0 */
#include "gpupack/daemon.h"

#include "gpupack/fileio.h"
#include "gpupack/strbuf.h"

#include <errno.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdarg.h>
#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef GP_VERSION
#define GP_VERSION "0.0.0"
#endif

void gp_reply_text(gp_http_response *resp, int status, const char *text)
{
    resp->status = status;
    resp->body = strdup(text);
    resp->body_len = resp->body ? strlen(text) : 0;
    resp->content_type = "text/plain; charset=utf-8";
}

void gp_route_healthz(void *ctx, const gp_http_request *req, gp_http_response *resp)
{
    (void)ctx;
    (void)req;
    gp_reply_text(resp, 200, "ok\n");
}

void gp_route_metrics(void *ctx, const gp_http_request *req, gp_http_response *resp)
{
    (void)req;
    resp->body = gp_metrics_render(ctx, &resp->body_len);
    resp->status = resp->body ? 200 : 500;
    resp->content_type = "text/plain; version=0.0.4; charset=utf-8";
}

void gp_daemon_block_signals(void)
{
    sigset_t set;

    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);
}

void gp_wait_for_signal_and_drain(gp_server *s, atomic_bool *draining, unsigned drain_s,
                                  gp_log *log)
{
    sigset_t set;
    int sig = 0;

    /* The signals are blocked in every thread (see the caller) and taken here synchronously,
     * so no handler and no global flag is needed. */
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigwait(&set, &sig);
    atomic_store(draining, true);
    gp_server_drain(s);
    GP_LOG(log, GP_LOG_INFO, "shutting down: draining", GP_LS("signal", sig == SIGINT ? "SIGINT" : "SIGTERM"),
           GP_LI("drain_seconds", drain_s));
    for (unsigned i = 0; i < drain_s * 10; i++)
        usleep(100000);
    gp_server_quiesce(s);
}

void gp_daemon_digest(const char *buf, size_t len, char out[GP_DAEMON_DIGEST_SIZE])
{
    static const char hex[] = "0123456789abcdef";
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;

    out[0] = '\0';
    if (EVP_Digest(buf, len, md, &n, EVP_sha256(), NULL) != 1 || n != 32)
        return;
    for (unsigned i = 0; i < n; i++) {
        out[2 * i] = hex[md[i] >> 4];
        out[2 * i + 1] = hex[md[i] & 15];
    }
    out[2 * n] = '\0';
}

/* *errors = the formatted text (malloc'd; NULL when out of memory). */
__attribute__((format(printf, 2, 3))) static void errors_printf(char **errors, const char *fmt,
                                                                ...)
{
    va_list ap;
    char *s = NULL;

    va_start(ap, fmt);
    if (vasprintf(&s, fmt, ap) < 0)
        s = NULL;
    va_end(ap);
    *errors = s;
}

/* lines with "prefix: " before each line, or NULL when out of memory. */
static char *prefix_lines(const char *lines, const char *prefix)
{
    gp_strbuf b;
    char *out;
    size_t len;

    gp_strbuf_init(&b, 0);
    for (const char *c = lines; *c != '\0';) {
        size_t n = strcspn(c, "\n");

        gp_strbuf_printf(&b, "%s: %.*s\n", prefix, (int)n, c);
        c += n + (c[n] == '\n');
    }
    return gp_strbuf_take(&b, &out, &len) == GP_OK ? out : NULL;
}

static gp_status read_policy_bytes(const char *path, char **buf, size_t *len, char **errors)
{
    gp_err e = { { 0 } };
    FILE *f = fopen(path, "rb");
    gp_status st;

    if (f == NULL) {
        errors_printf(errors, "cannot read %s: %s\n", path, strerror(errno));
        return GP_EIO;
    }
    st = gp_stream_read(f, GP_POLICY_MAX_BYTES, buf, len, &e);
    fclose(f);
    if (st != GP_OK) {
        errors_printf(errors, "cannot read %s: %s\n", path, e.msg[0] ? e.msg : gp_status_str(st));
        return st == GP_ENOMEM ? GP_ENOMEM : GP_EIO;
    }
    return GP_OK;
}

gp_status gp_daemon_policy_read(const char *path, gp_policy **out,
                                char digest[GP_DAEMON_DIGEST_SIZE], char **errors)
{
    char *buf = NULL, *lines = NULL;
    size_t len = 0;
    gp_status st;

    *out = NULL;
    *errors = NULL;
    digest[0] = '\0';
    if (path == NULL) {
        gp_daemon_digest(gp_default_policy_json, gp_default_policy_json_len, digest);
        return gp_policy_default(out, errors);
    }
    if ((st = read_policy_bytes(path, &buf, &len, errors)) != GP_OK)
        return st;
    gp_daemon_digest(buf, len, digest);
    st = gp_policy_parse(buf, len, out, &lines);
    free(buf);
    if (lines != NULL) {
        *errors = prefix_lines(lines, path);
        free(lines);
    }
    return st;
}

/* Prints errors (every line, as a reload logs them) after "PROG: FLAG: " and a headline. */
static void print_policy_errors(FILE *f, const char *prog, const char *flag, gp_status st,
                                const char *errors)
{
    bool unreadable = st == GP_EIO;
    const char *text = errors ? errors : gp_status_str(st);
    size_t n = strlen(text);

    if (unreadable)
        fprintf(f, "%s: %s: %s%s", prog, flag, text, n && text[n - 1] == '\n' ? "" : "\n");
    else
        fprintf(f, "%s: %s: invalid policy:\n%s%s", prog, flag, text,
                n && text[n - 1] == '\n' ? "" : "\n");
}

int gp_daemon_check_policy(const char *prog, const char *path, FILE *out, FILE *err)
{
    gp_policy *p = NULL;
    char *errors = NULL, digest[GP_DAEMON_DIGEST_SIZE];
    gp_status st = gp_daemon_policy_read(path, &p, digest, &errors);

    if (st != GP_OK) {
        print_policy_errors(err, prog, "--check-policy", st, errors);
        free(errors);
        return 1;
    }
    fprintf(out, "%s: valid policy, sha256 %s\n", path, digest);
    gp_policy_unref(p);
    return 0;
}

int gp_daemon_policy_flag(const char *prog, const char *path, gp_policy **out,
                          char digest[GP_DAEMON_DIGEST_SIZE])
{
    char *errors = NULL, own[GP_DAEMON_DIGEST_SIZE];
    gp_status st = gp_daemon_policy_read(path, out, digest != NULL ? digest : own, &errors);

    if (st != GP_OK) {
        print_policy_errors(stderr, prog, "--policy", st, errors);
        free(errors);
        return 2;
    }
    return 0;
}

int gp_daemon_load_policy(const char *prog, const char *path, gp_policy_holder *h,
                          char digest[GP_DAEMON_DIGEST_SIZE])
{
    gp_policy *p = NULL;
    int rc = gp_daemon_policy_flag(prog, path, &p, digest);

    if (rc == 0)
        gp_policy_holder_init(h, p);
    return rc;
}

#define M_RELOADS "gpupack_policy_reloads_total"
#define M_RELOADS_HELP "Policy reloads, by result."
#define M_LAST "gpupack_policy_last_reload_timestamp_seconds"
#define M_LAST_HELP "When the policy in force was loaded (Unix seconds)."
#define M_OK "gpupack_policy_last_reload_successful"
#define M_OK_HELP "1 when the last attempt to load the policy succeeded, 0 when it failed."
#define M_INFO "gpupack_policy_info"
#define M_INFO_HELP "The policy in force: digest is the sha256 of its file's bytes."

static void policy_in_force(gp_metrics *m, const char *digest)
{
    char labels[96];

    snprintf(labels, sizeof(labels), "digest=\"%s\"", digest);
    gp_metrics_set_only(m, M_INFO, M_INFO_HELP, labels, 1);
    gp_metrics_set(m, M_LAST, M_LAST_HELP, "", (double)time(NULL));
    gp_metrics_set(m, M_OK, M_OK_HELP, "", 1);
}

void gp_daemon_policy_started(const char *path, const char *digest, const char *version,
                              gp_metrics *m, gp_log *log)
{
    char labels[96];

    snprintf(labels, sizeof(labels), "version=\"%.64s\"", version);
    gp_metrics_set(m, "gpupack_build_info", "The running build: version.", labels, 1);
    gp_metrics_add(m, M_RELOADS, M_RELOADS_HELP, "result=\"success\"", 0);
    gp_metrics_add(m, M_RELOADS, M_RELOADS_HELP, "result=\"failure\"", 0);
    policy_in_force(m, digest);
    GP_LOG(log, GP_LOG_INFO, "policy loaded", GP_LS("file", path ? path : "(embedded default)"),
           GP_LS("digest", digest));
}

void gp_daemon_rt_start(gp_daemon_rt *rt, const char *policy_path, gp_log_level level)
{
    gp_log_init(&rt->log, level, stderr);
    rt->metrics = gp_metrics_new();
    gp_daemon_policy_started(policy_path, rt->digest, GP_VERSION, rt->metrics, &rt->log);
}

void gp_daemon_rt_free(gp_daemon_rt *rt)
{
    gp_kube_config_free(rt->kube);
    gp_policy_holder_destroy(&rt->policy);
    gp_metrics_free(rt->metrics);
    gp_log_destroy(&rt->log);
}

/* What a reload read (st, p, digest, errors) takes effect: logged, counted, swapped in. */
static void reload_result(const char *path, gp_status st, gp_policy *p, const char *digest,
                          char *errors, gp_policy_holder *h, gp_metrics *m, gp_log *log)
{
    if (st != GP_OK) {
        gp_metrics_add(m, M_RELOADS, M_RELOADS_HELP, "result=\"failure\"", 1);
        gp_metrics_set(m, M_OK, M_OK_HELP, "", 0);
        GP_LOG(log, GP_LOG_ERROR, "policy reload failed; keeping the last good policy",
               GP_LS("file", path), GP_LS("digest", digest[0] ? digest : NULL),
               GP_LS("errors", errors ? errors : gp_status_str(st)));
        free(errors);
        return;
    }
    GP_LOG(log, GP_LOG_INFO, "policy reloaded", GP_LS("file", path), GP_LS("digest", digest));
    gp_policy_holder_set(h, p);
    gp_metrics_add(m, M_RELOADS, M_RELOADS_HELP, "result=\"success\"", 1);
    policy_in_force(m, digest);
}

void gp_daemon_reload_policy(const char *path, gp_policy_holder *h, gp_metrics *m, gp_log *log)
{
    gp_policy *p = NULL;
    char *errors = NULL, digest[GP_DAEMON_DIGEST_SIZE];
    gp_status st = gp_daemon_policy_read(path, &p, digest, &errors);

    reload_result(path, st, p, digest, errors, h, m, log);
}

void gp_daemon_refresh_policy(const char *path, gp_policy_holder *h, gp_policy_seen *seen,
                              gp_metrics *m, gp_log *log)
{
    gp_policy *p = NULL;
    char *errors = NULL, digest[GP_DAEMON_DIGEST_SIZE] = "";
    gp_status st = gp_daemon_policy_read(path, &p, digest, &errors);
    bool same = st == GP_OK ? strcmp(digest, seen->in_force) == 0
                            : digest[0] != '\0' && strcmp(digest, seen->refused) == 0;

    if (same) { /* nothing new; a file back to the policy in force ends a refusal */
        if (st == GP_OK && seen->refused[0] != '\0') {
            seen->refused[0] = '\0';
            gp_metrics_set(m, M_OK, M_OK_HELP, "", 1);
        }
        gp_policy_unref(p);
        free(errors);
        return;
    }
    snprintf(st == GP_OK ? seen->in_force : seen->refused, GP_DAEMON_DIGEST_SIZE, "%s", digest);
    if (st == GP_OK)
        seen->refused[0] = '\0';
    reload_result(path, st, p, digest, errors, h, m, log);
}

gp_daemon_opts gp_daemon_opts_default(const char *listen, unsigned request_timeout)
{
    return (gp_daemon_opts){ .listen = listen, .log_level = "info", .threads = 4,
                             .idle_timeout = 120, .request_timeout = request_timeout,
                             .max_conns = 1024, .reload_ms = 1000, .drain_s = 5 };
}

size_t gp_daemon_flag_rows(gp_daemon_opts *o, const char *listen_help,
                           const char *request_timeout_help, gp_flag *f)
{
    const gp_flag t[GP_DAEMON_NFLAGS] = {
        { .name = "listen", .kind = GP_FLAG_STRING, .dest = &o->listen, .arg = "HOST:PORT", .help = listen_help },
        { .name = "health-listen", .kind = GP_FLAG_STRING, .dest = &o->health_listen, .arg = "HOST:PORT", .help = "also serve GET /healthz, /readyz and /metrics over plain HTTP here (default: off)" },
        { .name = "tls-cert", .kind = GP_FLAG_STRING, .dest = &o->cert, .arg = "FILE", .help = "serving certificate (PEM), re-read when it changes" },
        { .name = "tls-key", .kind = GP_FLAG_STRING, .dest = &o->key, .arg = "FILE", .help = "serving private key (PEM), re-read when it changes" },
        { .name = "client-ca", .kind = GP_FLAG_STRING, .dest = &o->client_ca, .arg = "FILE", .help = "require client certificates signed by this CA (HTTPS only; read once at start)" },
        { .name = "policy", .kind = GP_FLAG_STRING, .dest = &o->policy, .arg = "FILE", .help = "policy JSON (default: the embedded default), reloaded on change" },
        { .name = "check-policy", .kind = GP_FLAG_STRING, .dest = &o->check_policy, .arg = "FILE", .help = "validate FILE as --policy would, print its sha256 digest, exit 0 (valid) or 1" },
        { .name = "log-level", .kind = GP_FLAG_STRING, .dest = &o->log_level, .arg = "LEVEL", .help = "debug, info, warn or error (default info)" },
        { .name = "kubeconfig", .kind = GP_FLAG_STRING, .dest = &o->kubeconfig, .arg = "FILE", .help = "live cluster view through this kubeconfig (default: in-cluster when KUBERNETES_SERVICE_HOST is set)" },
        { .name = "context", .kind = GP_FLAG_STRING, .dest = &o->context, .arg = "NAME", .help = "kubeconfig context (default: current-context)" },
        { .name = "threads", .kind = GP_FLAG_UINT, .dest = &o->threads, .min = 1, .max = 256, .arg = "N", .help = "HTTP worker threads (default 4)" },
        { .name = "idle-timeout", .kind = GP_FLAG_UINT, .dest = &o->idle_timeout, .min = 1, .max = 3600, .arg = "SECONDS", .help = "keep-alive idle timeout (default 120, above kube-apiserver's 90)" },
        { .name = "request-timeout", .kind = GP_FLAG_UINT, .dest = &o->request_timeout, .min = 1, .max = 600, .arg = "SECONDS", .help = request_timeout_help },
        { .name = "max-connections", .kind = GP_FLAG_UINT, .dest = &o->max_conns, .min = 1, .max = 100000, .arg = "N", .help = "open connections at most (default 1024)" },
        { .name = "reload-interval", .kind = GP_FLAG_UINT, .dest = &o->reload_ms, .min = 50, .max = 600000, .arg = "MS", .help = "poll interval for file changes (default 1000)" },
        { .name = "drain-seconds", .kind = GP_FLAG_UINT, .dest = &o->drain_s, .min = 0, .max = 600, .arg = "SECONDS", .help = "on SIGTERM: not ready, keep serving this long, then stop (default 5)" },
        { .name = "help", .kind = GP_FLAG_BOOL, .dest = &o->help, .help = "show this help" },
        { .name = "version", .kind = GP_FLAG_BOOL, .dest = &o->version, .help = "show the version" },
    };

    memcpy(f, t, sizeof(t));
    return GP_DAEMON_NFLAGS;
}

/* The GET routes among routes, for the health server; at most GP_DAEMON_MAX_ROUTES. */
#define GP_DAEMON_MAX_ROUTES 16

static size_t get_routes(const gp_route *routes, size_t nroutes, gp_route *out)
{
    size_t n = 0;

    for (size_t i = 0; i < nroutes && n < GP_DAEMON_MAX_ROUTES; i++)
        if (strcmp(routes[i].method, "GET") == 0)
            out[n++] = routes[i];
    return n;
}

/* A listen flag's address, checked before any socket is opened. */
typedef struct {
    char host[256];
    int port;
} listen_addr;

static gp_status parse_listen(const char *flag, const char *value, listen_addr *a, gp_err *err)
{
    if (gp_server_parse_listen(value, a->host, sizeof(a->host), &a->port, err) == GP_OK)
        return GP_OK;
    gp_err_prefix(err, flag);
    return GP_EINVAL;
}

static gp_status start_one(const char *flag, const listen_addr *a, gp_server_config *cfg,
                           gp_server **out, gp_err *err)
{
    cfg->host = a->host;
    cfg->port = a->port;
    cfg->listen_flag = flag;
    return gp_server_start(cfg, out, err);
}

gp_status gp_daemon_start_server(const gp_daemon_opts *o, const char *name, size_t max_body,
                                 const gp_route *routes, size_t nroutes, gp_metrics *metrics,
                                 gp_log *log, gp_server **out, gp_server **health, gp_err *err)
{
    gp_route get[GP_DAEMON_MAX_ROUTES];
    listen_addr main_addr, health_addr;
    char hname[64];
    gp_server_config cfg = { .cert_file = o->cert, .key_file = o->key,
                             .client_ca_file = o->client_ca, .cert_flag = "--tls-cert",
                             .key_flag = "--tls-key", .client_ca_flag = "--client-ca",
                             .max_body = max_body,
                             .threads = o->threads, .idle_timeout_s = o->idle_timeout,
                             .request_timeout_s = o->request_timeout,
                             .max_connections = o->max_conns, .cert_reload_ms = o->reload_ms,
                             .routes = routes, .nroutes = nroutes, .metrics = metrics,
                             .log = log, .name = name };
    gp_status st;

    *out = *health = NULL;
    /* Every address is checked before the first socket is bound (the main server checks its
     * certificate files before it binds). */
    if ((st = parse_listen("--listen", o->listen, &main_addr, err)) != GP_OK ||
        (o->health_listen != NULL &&
         (st = parse_listen("--health-listen", o->health_listen, &health_addr, err)) != GP_OK))
        return st;
    gp_daemon_block_signals();
    st = start_one("--listen", &main_addr, &cfg, out, err);
    if (st != GP_OK || o->health_listen == NULL)
        return st;
    snprintf(hname, sizeof(hname), "%s-health", name);
    /* Plain HTTP, small bodies, two threads: probes and scrapes only. */
    cfg = (gp_server_config){ .max_body = 4096, .threads = 2, .idle_timeout_s = o->idle_timeout,
                              .request_timeout_s = o->request_timeout, .max_connections = 64,
                              .routes = get, .nroutes = get_routes(routes, nroutes, get),
                              .metrics = metrics, .log = log, .name = hname };
    st = start_one("--health-listen", &health_addr, &cfg, health, err);
    if (st != GP_OK) {
        gp_server_stop(*out);
        *out = NULL;
    }
    return st;
}

/* 2 after the usage error when a listen flag's address is bad, else -1. */
static int check_listen_flag(const char *prog, const char *flag, const char *value)
{
    listen_addr a;
    gp_err err = { { 0 } };

    if (value == NULL || parse_listen(flag, value, &a, &err) == GP_OK)
        return -1;
    return gp_flags_fail(stderr, prog, err.msg);
}

int gp_daemon_parse_flags(const gp_daemon_cli *cli, gp_daemon_opts *d, int argc, char **argv,
                          gp_log_level *level)
{
    gp_flag flags[GP_DAEMON_NFLAGS + GP_DAEMON_MAX_OWN_FLAGS];
    gp_err err = { { 0 } };
    size_t n = gp_daemon_flag_rows(d, cli->listen_help, cli->timeout_help, flags);

    if (cli->nown > GP_DAEMON_MAX_OWN_FLAGS)
        return gp_flags_fail(stderr, cli->prog, "internal error: too many flags");
    memcpy(flags + n, cli->own, cli->nown * sizeof(*cli->own));
    n += cli->nown;
    if (gp_flags_parse(flags, n, argc, argv, &err) != GP_OK)
        return gp_flags_fail(stderr, cli->prog, err.msg);
    if (d->help) {
        gp_flags_usage(stdout, cli->prog, cli->summary, flags, n);
        return 0;
    }
    if (d->version) {
        printf("%s %s\n", cli->prog, GP_VERSION);
        return 0;
    }
    if (d->check_policy != NULL)
        return gp_daemon_check_policy(cli->prog, d->check_policy, stdout, stderr);
    if (gp_log_level_parse(d->log_level, level) != GP_OK)
        return gp_flags_fail(stderr, cli->prog, "--log-level: expected debug, info, warn or error");
    if (check_listen_flag(cli->prog, "--listen", d->listen) == 2 ||
        check_listen_flag(cli->prog, "--health-listen", d->health_listen) == 2)
        return 2;
    return -1;
}

int gp_daemon_load_kube(const char *prog, const gp_daemon_opts *d, bool in_cluster,
                        gp_kube_config **out)
{
    gp_err err = { { 0 } };
    gp_status st;

    *out = NULL;
    if (d->kubeconfig == NULL && !in_cluster)
        return 0;
    st = gp_kube_config_resolve(d->kubeconfig, d->context, out, &err);
    if (st == GP_ENOTFOUND && d->kubeconfig == NULL) /* no cluster: not an error here */
        return 0;
    if (st != GP_OK) {
        fprintf(stderr, "%s: %s: %s\n", prog,
                d->kubeconfig ? "--kubeconfig" : "in-cluster configuration", err.msg);
        return 2;
    }
    return 0;
}

int gp_daemon_read_stdin(const char *prog, const char *flag, size_t max, char **body,
                         size_t *len)
{
    gp_err err = { { 0 } };

    if (gp_stream_read(stdin, max, body, len, &err) != GP_OK) {
        fprintf(stderr, "%s: %s: stdin: %s\n", prog, flag, err.msg);
        return 1;
    }
    return 0;
}

bool gp_daemon_ready(gp_server *s, const atomic_bool *draining, gp_http_response *resp)
{
    if (atomic_load(draining))
        gp_reply_text(resp, 503, "not ready: shutting down\n");
    else if (!gp_server_tls_ready(s))
        gp_reply_text(resp, 503, "not ready: no valid serving certificate\n");
    else
        return true;
    return false;
}
