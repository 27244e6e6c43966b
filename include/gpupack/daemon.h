/* Pieces both daemons' main.c share: plain-text replies, the health and metrics routes, and
 * the SIGTERM drain sequence. */
#ifndef GPUPACK_DAEMON_H
#define GPUPACK_DAEMON_H

#include <stdatomic.h>
#include <stdbool.h>

#include "gpupack/log.h"
#include "gpupack/metrics.h"
#include "gpupack/server.h"

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
