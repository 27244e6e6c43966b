/* SPDX-License-Identifier: Apache-2.0 */
/* Pieces both daemons' main.c share: the command line's start, the policy (its --policy
 * loading also serves the advisor, the simulator and gpupack-certs) and API view at start-up, plain-text replies, the health, readiness and metrics routes, and the SIGTERM drain
 * sequence. */
#ifndef GPUPACK_DAEMON_H
#define GPUPACK_DAEMON_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>

#include "gpupack/flags.h"
#include "gpupack/kubeconfig.h"
#include "gpupack/log.h"
#include "gpupack/policy.h"
#include "gpupack/metrics.h"
#include "gpupack/server.h"
#include "gpupack/watchfs.h"

/* The flags every daemon takes (see docs/webhook.md and docs/extender.md). */
typedef struct {
    bool help, version;
    const char *listen, *health_listen, *cert, *key, *client_ca, *policy, *log_level, *kubeconfig,
        *context, *check_policy;
    unsigned threads, idle_timeout, request_timeout, max_conns, reload_ms, drain_s;
} gp_daemon_opts;

#define GP_DAEMON_NFLAGS 18
#define GP_DAEMON_DIGEST_SIZE 65 /* a sha256 in hex, and its NUL */

/* What every daemon runs with, whatever it serves: its log, metrics and policy in force, the
 * API view (or NULL), its servers and policy watch, and the drain flag. */
typedef struct {
    gp_log log;
    gp_metrics *metrics;
    gp_policy_holder policy;
    gp_kube_config *kube;
    gp_server *server;
    gp_server *health; /* --health-listen, or NULL */
    gp_watch *policy_watch;
    atomic_bool draining;
    char digest[GP_DAEMON_DIGEST_SIZE]; /* of the policy loaded at start */
} gp_daemon_rt;

/* Defaults shared by both daemons, with the listen address and request timeout each sets. */
gp_daemon_opts gp_daemon_opts_default(const char *listen, unsigned request_timeout);

/* Writes the shared flag rows into f (GP_DAEMON_NFLAGS of them) and returns how many. The help
 * texts for --listen and --request-timeout carry each daemon's defaults. */
size_t gp_daemon_flag_rows(gp_daemon_opts *o, const char *listen_help,
                           const char *request_timeout_help, gp_flag *f);

/* What a daemon's command line adds to the shared one. */
typedef struct {
    const char *prog, *summary;            /* "gpupack-webhook", the --help text's summary */
    const char *listen_help, *timeout_help; /* --listen's and --request-timeout's help */
    const gp_flag *own;                    /* the daemon's own flags, after the shared rows */
    size_t nown;                           /* at most GP_DAEMON_MAX_OWN_FLAGS */
} gp_daemon_cli;

#define GP_DAEMON_MAX_OWN_FLAGS 16

/* The start of a daemon's main(): parses argv against the shared rows (into d) and cli's own,
 * and answers --help, --version and --check-policy. Returns the exit status when the program
 * is done (0; 2 for a bad flag, --log-level, or a --listen or --health-listen address that
 * gp_server_parse_listen() refuses, after "PROG: MSG" and "see PROG --help"; 1 for an invalid
 * policy), or -1 to go on, with *level from --log-level. */
int gp_daemon_parse_flags(const gp_daemon_cli *cli, gp_daemon_opts *d, int argc, char **argv,
                          gp_log_level *level);

/* The API view by gp_kube_config_resolve()'s rule: --kubeconfig (with --context), else the
 * in-cluster configuration when KUBERNETES_SERVICE_HOST is set (and in_cluster allows it), else
 * none (*out NULL). Returns 0, or
 * 2 (the exit status) after printing "PROG: --kubeconfig: reason" (or "PROG: in-cluster
 * configuration: reason") on stderr. */
int gp_daemon_load_kube(const char *prog, const gp_daemon_opts *d, bool in_cluster,
                        gp_kube_config **out);

/* One request on stdin for --review and --once, at most max bytes, into a malloc'd *body.
 * Returns 0, or 1 after printing "PROG: FLAG: stdin: reason". */
int gp_daemon_read_stdin(const char *prog, const char *flag, size_t max, char **body,
                         size_t *len);

/* Readiness as both daemons start it: false, with a 503 in resp, while draining or without a
 * valid serving certificate; true when the daemon's own checks decide. */
bool gp_daemon_ready(gp_server *s, const atomic_bool *draining, gp_http_response *resp);

/* Serving mode's start: checks both listen addresses (before anything is bound), blocks SIGTERM
 * and SIGINT (for gp_wait_for_signal_and_drain()) and ignores SIGPIPE, then starts the server
 * from the shared flags. With --health-listen it also starts a second, plain-HTTP server on that
 * address that serves only the GET routes among routes (health, readiness, metrics), so probes
 * and scrapes can reach a daemon whose main address is loopback or requires client
 * certificates; *health is NULL without the flag. Errors name --listen, --health-listen or the
 * certificate problem; on failure both are NULL. The caller stops both with gp_server_stop(). */
gp_status gp_daemon_start_server(const gp_daemon_opts *o, const char *name, size_t max_body,
                                 const gp_route *routes, size_t nroutes, gp_metrics *metrics,
                                 gp_log *log, gp_server **out, gp_server **health,
                                 gp_err *err) GP_WUR;


/* The policy digest both daemons log and export, and --check-policy prints: the sha256 of the
 * policy file's bytes (of the embedded default's, without --policy) in 64 lowercase hex digits,
 * so `sha256sum FILE` gives the same. Pure. */
void gp_daemon_digest(const char *buf, size_t len, char out[GP_DAEMON_DIGEST_SIZE]);

/* Reads path (NULL: the embedded default) and validates it as the daemons do, setting digest.
 * GP_EIO when the file cannot be read: *errors is "cannot read FILE: reason". Another failure:
 * *errors holds every error line, each prefixed "FILE: ". The caller frees *errors (NULL on
 * success) and unrefs *out. */
gp_status gp_daemon_policy_read(const char *path, gp_policy **out,
                                char digest[GP_DAEMON_DIGEST_SIZE], char **errors) GP_WUR;

/* --check-policy FILE: validates it as the daemons' loader does. Valid: "FILE: valid policy,
 * sha256 DIGEST" on out, returns 0. Otherwise "PROG: --check-policy: cannot read FILE: reason"
 * or "PROG: --check-policy: invalid policy:" and every error line on err, returns 1. */
int gp_daemon_check_policy(const char *prog, const char *path, FILE *out, FILE *err);

/* Any gpupack program's --policy FILE (path NULL: the embedded default), read and validated by
 * gp_daemon_policy_read(). On failure prints "PROG: --policy: cannot read FILE: reason", or
 * "PROG: --policy: invalid policy:" and every error line ("FILE: json.path: message", at most
 * GP_POLICY_MAX_ERRORS then "... and N more errors") on stderr, and returns 2 (the exit status).
 * Returns 0 with *out holding one reference (gp_policy_unref()) on success. digest may be NULL. */
int gp_daemon_policy_flag(const char *prog, const char *path, gp_policy **out,
                          char digest[GP_DAEMON_DIGEST_SIZE]);

/* Loads the policy in force at start-up (path NULL: the embedded default) into h and sets
 * digest. On failure prints "PROG: --policy: cannot read FILE: reason", or "PROG: --policy:
 * invalid policy:" and every error, on stderr and returns 2 (the exit status); 0 on success. */
int gp_daemon_load_policy(const char *prog, const char *path, gp_policy_holder *h,
                          char digest[GP_DAEMON_DIGEST_SIZE]);

/* Once the log and metrics exist: logs "policy loaded" (file, digest) and sets
 * gpupack_build_info{version} 1, gpupack_policy_info{digest} 1,
 * gpupack_policy_last_reload_timestamp_seconds (now), gpupack_policy_last_reload_successful 1
 * and gpupack_policy_reloads_total{result="success"|"failure"} at 0. */
void gp_daemon_policy_started(const char *path, const char *digest, const char *version,
                              gp_metrics *m, gp_log *log);

/* Once the policy is loaded into rt->policy (gp_daemon_load_policy): starts rt's log at level
 * on stderr and its metrics, then gp_daemon_policy_started(). */
void gp_daemon_rt_start(gp_daemon_rt *rt, const char *policy_path, gp_log_level level);

/* Frees what rt holds: the API view, the policy, the metrics and the log (servers and watches
 * are stopped by the daemon first). */
void gp_daemon_rt_free(gp_daemon_rt *rt);

/* A live reload of path into h: a valid policy replaces the one in force (logged "policy
 * reloaded" with its digest; gpupack_policy_info follows it); an invalid or unreadable one is
 * logged with its errors and counted, gpupack_policy_last_reload_successful turns 0, and the
 * last good policy stays (gpupack_policy_reloads_total{result}). */
void gp_daemon_reload_policy(const char *path, gp_policy_holder *h, gp_metrics *m, gp_log *log);

/* The digests a program re-reading its policy at its own moments has seen: the policy in force
 * and the last one refused ("" for none). */
typedef struct {
    char in_force[GP_DAEMON_DIGEST_SIZE];
    char refused[GP_DAEMON_DIGEST_SIZE];
} gp_policy_seen;

/* gp_daemon_reload_policy() for a program that re-reads path at its own moments (the advisor,
 * before each analysis) rather than on a file watch: the same content as the policy in force,
 * or as the last refused one, does nothing (logged and counted once); anything else is reloaded
 * or refused as there, and seen updated. */
void gp_daemon_refresh_policy(const char *path, gp_policy_holder *h, gp_policy_seen *seen,
                              gp_metrics *m, gp_log *log);

/* Blocks SIGTERM and SIGINT in the calling thread and the threads it starts later (for
 * gp_wait_for_signal_and_drain() or a sigtimedwait() loop) and ignores SIGPIPE. Call it before
 * any server thread starts. */
void gp_daemon_block_signals(void);

/* Sets resp to a text/plain reply (body copied). */
void gp_reply_text(gp_http_response *resp, int status, const char *text);

/* GET /healthz: 200 "ok" while the process serves (ctx unused). */
void gp_route_healthz(void *ctx, const gp_http_request *req, gp_http_response *resp);

/* GET /metrics: ctx is a gp_metrics. */
void gp_route_metrics(void *ctx, const gp_http_request *req, gp_http_response *resp);

/* Blocks until SIGTERM or SIGINT, then: sets *draining (readiness turns false), keeps serving for
 * drain_s seconds (kube-apiserver, kube-scheduler and Service endpoints need that long to stop
 * sending), then stops accepting connections; in-flight requests finish in gp_server_stop(). */
void gp_wait_for_signal_and_drain(gp_server *s, atomic_bool *draining, unsigned drain_s,
                                  gp_log *log);

#endif
