/* Pieces both daemons' main.c share: plain-text replies, the health and metrics routes, and
 * the SIGTERM drain sequence. */
#ifndef GPUPACK_DAEMON_H
#define GPUPACK_DAEMON_H

#include <stdatomic.h>
#include <stdbool.h>

#include "gpupack/flags.h"
#include "gpupack/log.h"
#include "gpupack/policy.h"
#include "gpupack/metrics.h"
#include "gpupack/server.h"

/* The flags every daemon takes (see docs/webhook.md and docs/extender.md). */
typedef struct {
    bool help, version;
    const char *listen, *health_listen, *cert, *key, *client_ca, *policy, *log_level, *kubeconfig,
        *context;
    unsigned threads, idle_timeout, request_timeout, max_conns, reload_ms, drain_s;
} gp_daemon_opts;

#define GP_DAEMON_NFLAGS 17

/* Defaults shared by both daemons, with the listen address and request timeout each sets. */
gp_daemon_opts gp_daemon_opts_default(const char *listen, unsigned request_timeout);

/* Writes the shared flag rows into f (GP_DAEMON_NFLAGS of them) and returns how many. The help
 * texts for --listen and --request-timeout carry each daemon's defaults. */
size_t gp_daemon_flag_rows(gp_daemon_opts *o, const char *listen_help,
                           const char *request_timeout_help, gp_flag *f);

/* Starts the server from the shared flags. With --health-listen it also starts a second,
 * plain-HTTP server on that address that serves only the GET routes among routes (health,
 * readiness, metrics), so probes and scrapes can reach a daemon whose main address is loopback
 * or requires client certificates; *health is NULL without the flag. Errors name --listen,
 * --health-listen or the certificate problem; on failure both are NULL. The caller stops both
 * with gp_server_stop(). */
gp_status gp_daemon_start_server(const gp_daemon_opts *o, const char *name, size_t max_body,
                                 const gp_route *routes, size_t nroutes, gp_metrics *metrics,
                                 gp_log *log, gp_server **out, gp_server **health,
                                 gp_err *err) GP_WUR;

/* Loads the policy in force at start-up (path NULL: the embedded default) into h. On failure
 * prints every error on stderr as "PROG: --policy: invalid policy:" and returns 2 (the exit
 * status); 0 on success. */
int gp_daemon_load_policy(const char *prog, const char *path, gp_policy_holder *h);

/* A live reload of path into h: a valid policy replaces the one in force; an invalid one is
 * logged with its errors and counted, and the last good policy stays (gpupack_policy_reloads_total
 * {result}, gpupack_policy_last_reload_timestamp_seconds). */
void gp_daemon_reload_policy(const char *path, gp_policy_holder *h, gp_metrics *m, gp_log *log);

/* Sets resp to a text/plain reply (body copied). */
void gp_reply_text(gp_http_response *resp, int status, const char *text);

/* GET /healthz: 200 "ok" while the process serves (ctx unused). */
void gp_route_healthz(void *ctx, const gp_http_request *req, gp_http_response *resp);

/* GET /metrics: ctx is a gp_metrics. */
void gp_route_metrics(void *ctx, const gp_http_request *req, gp_http_response *resp);

/* Blocks SIGTERM and SIGINT (to be taken by gp_wait_for_signal_and_drain) and ignores SIGPIPE.
 * Call before starting any thread, in serving mode only. */
void gp_block_stop_signals(void);

/* Blocks until SIGTERM or SIGINT, then: sets *draining (readiness turns false), keeps serving for
 * drain_s seconds (kube-apiserver, kube-scheduler and Service endpoints need that long to stop
 * sending), then stops accepting connections; in-flight requests finish in gp_server_stop(). */
void gp_wait_for_signal_and_drain(gp_server *s, atomic_bool *draining, unsigned drain_s,
                                  gp_log *log);

#endif
