#include "gpupack/daemon.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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

void gp_block_stop_signals(void)
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
    GP_LOG(log, GP_LOG_INFO, "shutting down: draining", GP_LS("signal", sig == SIGINT ? "SIGINT" : "SIGTERM"),
           GP_LI("drain_seconds", drain_s));
    for (unsigned i = 0; i < drain_s * 10; i++)
        usleep(100000);
    gp_server_quiesce(s);
}

int gp_daemon_load_policy(const char *prog, const char *path, gp_policy_holder *h)
{
    gp_policy *p = NULL;
    char *errors = NULL;
    gp_status st = path ? gp_policy_load_file(path, &p, &errors) : gp_policy_default(&p, &errors);

    if (st != GP_OK) {
        fprintf(stderr, "%s: --policy: invalid policy:\n%s%s", prog,
                errors ? errors : gp_status_str(st),
                errors && errors[0] && errors[strlen(errors) - 1] == '\n' ? "" : "\n");
        free(errors);
        return 2;
    }
    gp_policy_holder_init(h, p);
    return 0;
}

void gp_daemon_reload_policy(const char *path, gp_policy_holder *h, gp_metrics *m, gp_log *log)
{
    gp_policy *p = NULL;
    char *errors = NULL;
    gp_status st = gp_policy_load_file(path, &p, &errors);

    if (st != GP_OK) {
        gp_metrics_add(m, "gpupack_policy_reloads_total", "Policy reloads, by result.",
                       "result=\"failure\"", 1);
        GP_LOG(log, GP_LOG_ERROR, "policy reload failed; keeping the last good policy",
               GP_LS("file", path), GP_LS("errors", errors ? errors : gp_status_str(st)));
        free(errors);
        return;
    }
    GP_LOG(log, GP_LOG_INFO, "policy reloaded", GP_LS("file", path), GP_LS("digest", p->digest));
    gp_policy_holder_set(h, p);
    gp_metrics_add(m, "gpupack_policy_reloads_total", "Policy reloads, by result.",
                   "result=\"success\"", 1);
    gp_metrics_set(m, "gpupack_policy_last_reload_timestamp_seconds",
                   "When the policy in force was loaded (Unix seconds).", "", (double)time(NULL));
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
        { "listen", GP_FLAG_STRING, &o->listen, 0, 0, "HOST:PORT", listen_help },
        { "health-listen", GP_FLAG_STRING, &o->health_listen, 0, 0, "HOST:PORT", "also serve GET /healthz, /readyz and /metrics over plain HTTP here (default: off)" },
        { "tls-cert", GP_FLAG_STRING, &o->cert, 0, 0, "FILE", "serving certificate (PEM), re-read when it changes" },
        { "tls-key", GP_FLAG_STRING, &o->key, 0, 0, "FILE", "serving private key (PEM), re-read when it changes" },
        { "client-ca", GP_FLAG_STRING, &o->client_ca, 0, 0, "FILE", "require client certificates signed by this CA (HTTPS only)" },
        { "policy", GP_FLAG_STRING, &o->policy, 0, 0, "FILE", "policy JSON (default: the embedded default), reloaded on change" },
        { "log-level", GP_FLAG_STRING, &o->log_level, 0, 0, "LEVEL", "debug, info, warn or error (default info)" },
        { "kubeconfig", GP_FLAG_STRING, &o->kubeconfig, 0, 0, "FILE", "live cluster view through this kubeconfig (default: in-cluster when KUBERNETES_SERVICE_HOST is set)" },
        { "context", GP_FLAG_STRING, &o->context, 0, 0, "NAME", "kubeconfig context (default: current-context)" },
        { "threads", GP_FLAG_UINT, &o->threads, 1, 256, "N", "HTTP worker threads (default 4)" },
        { "idle-timeout", GP_FLAG_UINT, &o->idle_timeout, 1, 3600, "SECONDS", "keep-alive idle timeout (default 120, above kube-apiserver's 90)" },
        { "request-timeout", GP_FLAG_UINT, &o->request_timeout, 1, 600, "SECONDS", request_timeout_help },
        { "max-connections", GP_FLAG_UINT, &o->max_conns, 1, 100000, "N", "open connections at most (default 1024)" },
        { "reload-interval", GP_FLAG_UINT, &o->reload_ms, 50, 600000, "MS", "poll interval for file changes (default 1000)" },
        { "drain-seconds", GP_FLAG_UINT, &o->drain_s, 0, 600, "SECONDS", "on SIGTERM: not ready, keep serving this long, then stop (default 5)" },
        { "help", GP_FLAG_BOOL, &o->help, 0, 0, NULL, "show this help" },
        { "version", GP_FLAG_BOOL, &o->version, 0, 0, NULL, "show the version" },
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

static gp_status start_one(const char *flag, const char *listen, gp_server_config *cfg,
                           gp_server **out, gp_err *err)
{
    char host[256];

    if (gp_split_hostport(listen, host, sizeof(host), &cfg->port, err) != GP_OK) {
        gp_err_prefix(err, flag);
        return GP_EINVAL;
    }
    cfg->host = host;
    return gp_server_start(cfg, out, err);
}

gp_status gp_daemon_start_server(const gp_daemon_opts *o, const char *name, size_t max_body,
                                 const gp_route *routes, size_t nroutes, gp_metrics *metrics,
                                 gp_log *log, gp_server **out, gp_server **health, gp_err *err)
{
    gp_route get[GP_DAEMON_MAX_ROUTES];
    char hname[64];
    gp_server_config cfg = { .cert_file = o->cert, .key_file = o->key,
                             .client_ca_file = o->client_ca, .max_body = max_body,
                             .threads = o->threads, .idle_timeout_s = o->idle_timeout,
                             .request_timeout_s = o->request_timeout,
                             .max_connections = o->max_conns, .cert_reload_ms = o->reload_ms,
                             .routes = routes, .nroutes = nroutes, .metrics = metrics,
                             .log = log, .name = name };
    gp_status st = start_one("--listen", o->listen, &cfg, out, err);

    *health = NULL;
    if (st != GP_OK || o->health_listen == NULL)
        return st;
    snprintf(hname, sizeof(hname), "%s-health", name);
    /* Plain HTTP, small bodies, two threads: probes and scrapes only. */
    cfg = (gp_server_config){ .max_body = 4096, .threads = 2, .idle_timeout_s = o->idle_timeout,
                              .request_timeout_s = o->request_timeout, .max_connections = 64,
                              .routes = get, .nroutes = get_routes(routes, nroutes, get),
                              .metrics = metrics, .log = log, .name = hname };
    st = start_one("--health-listen", o->health_listen, &cfg, health, err);
    if (st != GP_OK) {
        gp_server_stop(*out);
        *out = NULL;
    }
    return st;
}
