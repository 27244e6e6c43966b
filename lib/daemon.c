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
