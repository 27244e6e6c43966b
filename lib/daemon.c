#include "gpupack/daemon.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
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
