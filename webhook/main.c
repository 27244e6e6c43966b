/* SPDX-License-Identifier: Apache-2.0 */
/* gpupack-webhook: flags, policy, cluster view, routes. All behaviour lives in lib/. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gpupack/admission.h"
#include "gpupack/cluster.h"
#include "gpupack/daemon.h"
#include "gpupack/fileio.h"
#include "gpupack/jsonpool.h"
#include "gpupack/kube.h"
#include "gpupack/flags.h"
#include "gpupack/log.h"
#include "gpupack/metrics.h"
#include "gpupack/policy.h"
#include "gpupack/server.h"
#include "gpupack/watchfs.h"
#include "gpupack/webhook.h"

#ifndef GP_VERSION
#define GP_VERSION "0.0.0"
#endif

typedef struct {
    gp_daemon_opts d;
    bool review;
    const char *snap_nodes, *snap_pcs;
    const char *recs; /* --recommendations FILE; NULL: rightsizing inactive */
} options;

typedef struct {
    options opt;
    gp_daemon_rt rt;
    gp_webhook hook;
    gp_watch *snap_watch;
    gp_watch *recs_watch;
    gp_cluster_live *live;
    gp_informer *nodes_inf, *pcs_inf;
} app;

static const char *summary =
    "gpupack-webhook: mutating admission webhook for GPU pods (HTTPS; POST /mutate, GET /healthz,\n"
    "/readyz, /metrics). See docs/webhook.md.";

static int parse_options(options *o, int argc, char **argv, gp_log_level *level)
{
    const gp_flag own[] = {
        { .name = "review", .kind = GP_FLAG_BOOL, .dest = &o->review, .help = "read one AdmissionReview on stdin, write the response on stdout" },
        { .name = "snapshot-nodes", .kind = GP_FLAG_STRING, .dest = &o->snap_nodes, .arg = "FILE", .help = "cluster view: `kubectl get nodes -o json` output (MIG profiles offered)" },
        { .name = "snapshot-priorityclasses", .kind = GP_FLAG_STRING, .dest = &o->snap_pcs, .arg = "FILE", .help = "cluster view: `kubectl get priorityclasses -o json` output" },
        { .name = "recommendations", .kind = GP_FLAG_STRING, .dest = &o->recs, .arg = "FILE", .help = "the advisor's recommendations.json (missing: none yet), reloaded on change" },
    };
    const gp_daemon_cli cli = { "gpupack-webhook", summary,
                                "address to serve HTTPS on (default 0.0.0.0:8443)",
                                "a request must arrive whole within this (default 10)", own,
                                sizeof(own) / sizeof(own[0]) };

    *o = (options){ .d = gp_daemon_opts_default("0.0.0.0:8443", 10) };
    return gp_daemon_parse_flags(&cli, &o->d, argc, argv, level);
}

static int usage_error(const char *msg)
{
    return gp_flags_fail(stderr, "gpupack-webhook", msg);
}

static int check_options(const options *o)
{
    if (o->d.kubeconfig != NULL && (o->snap_nodes != NULL || o->snap_pcs != NULL))
        return usage_error("--kubeconfig: not with --snapshot-* (pick one view)");
    if (o->d.context != NULL && o->d.kubeconfig == NULL)
        return usage_error("--context: only with --kubeconfig");
    if (!o->review && (o->d.cert == NULL || o->d.key == NULL))
        return usage_error("--tls-cert and --tls-key are required (the webhook serves HTTPS "
                           "only)");
    if ((o->d.client_ca || o->d.cert || o->d.key) && o->review)
        return usage_error("--review reads stdin; TLS flags do not apply");
    /* One review is answered at once, before any live list could arrive: its node view comes
     * from a snapshot only, never silently from nothing. */
    if (o->review && o->d.kubeconfig != NULL)
        return usage_error("--kubeconfig: not with --review (use --snapshot-nodes and "
                           "--snapshot-priorityclasses)");
    return 0;
}

static gp_status decode_nodes(void *c, const char *buf, size_t len, gp_err *err)
{
    return gp_cluster_set_nodes_json(c, buf, len, err);
}

static gp_status decode_priority_classes(void *c, const char *buf, size_t len, gp_err *err)
{
    return gp_cluster_set_priority_classes_json(c, buf, len, err);
}

/* Errors are "--snapshot-nodes: FILE: reason" (or --snapshot-priorityclasses). */
static gp_status read_snapshot(gp_cluster *c, const char *path, bool nodes, gp_err *err)
{
    gp_status st = gp_file_decode(path, GP_CLUSTER_MAX_BYTES,
                                  nodes ? decode_nodes : decode_priority_classes, c, err);

    if (st != GP_OK)
        gp_err_prefix(err, nodes ? "--snapshot-nodes" : "--snapshot-priorityclasses");
    return st;
}

/* Builds the cluster view from the snapshot files; NULL (and *err) on failure, NULL and no error
 * when there are none. */
static gp_cluster *load_cluster(const options *o, gp_err *err, gp_status *st)
{
    gp_cluster *c;

    *st = GP_OK;
    if (o->snap_nodes == NULL && o->snap_pcs == NULL)
        return NULL;
    c = gp_cluster_new();
    if (c == NULL) {
        *st = GP_ENOMEM;
        return NULL;
    }
    if (o->snap_nodes)
        *st = read_snapshot(c, o->snap_nodes, true, err);
    if (*st == GP_OK && o->snap_pcs)
        *st = read_snapshot(c, o->snap_pcs, false, err);
    if (*st != GP_OK) {
        gp_cluster_unref(c);
        return NULL;
    }
    return c;
}

static void on_policy_change(void *ctx)
{
    app *a = ctx;

    gp_daemon_reload_policy(a->opt.d.policy, &a->rt.policy, a->rt.metrics, &a->rt.log);
}

static void on_snapshot_change(void *ctx)
{
    app *a = ctx;
    gp_err err = { { 0 } };
    gp_status st;
    gp_cluster *c = load_cluster(&a->opt, &err, &st);

    if (st != GP_OK) {
        GP_LOG(&a->rt.log, GP_LOG_ERROR, "cluster snapshot reload failed; keeping the last view",
               GP_LS("error", err.msg));
        return;
    }
    gp_webhook_set_cluster(&a->hook, c);
    GP_LOG(&a->rt.log, GP_LOG_INFO, "cluster snapshot reloaded");
}

static void on_recs_change(void *ctx)
{
    app *a = ctx;

    gp_webhook_reload_recs(&a->hook, a->opt.recs);
}

/* The recommendations at start: a missing file is an empty table, an unreadable or invalid one
 * a configuration error (exit 2). */
static int load_recs(app *a)
{
    gp_err err = { { 0 } };
    gp_recs_shared *r = NULL;

    if (a->opt.recs == NULL)
        return 0;
    if (gp_webhook_load_recs(a->opt.recs, &r, &err) != GP_OK) {
        fprintf(stderr, "gpupack-webhook: --recommendations: %s\n", err.msg);
        return 2;
    }
    gp_webhook_set_recs(&a->hook, r);
    GP_LOG(&a->rt.log, GP_LOG_INFO, "recommendations loaded", GP_LS("file", a->opt.recs),
           GP_LI("entries", (long long)gp_recs_shared_table(r)->n));
    return 0;
}

static int run_review(app *a)
{
    char *body = NULL;
    size_t len = 0;
    gp_http_response resp = { 0 };
    int rc = gp_daemon_read_stdin("gpupack-webhook", "--review", GP_ADMISSION_MAX_BODY, &body,
                                  &len);

    if (rc != 0)
        return rc;
    gp_webhook_review(&a->hook, body, len, &resp);
    if (resp.status == 200) {
        fwrite(resp.body, 1, resp.body_len, stdout);
        fputc('\n', stdout);
    } else {
        fprintf(stderr, "gpupack-webhook: --review: %.*s\n", (int)resp.body_len,
                resp.body ? resp.body : "internal error");
        rc = 1;
    }
    free(resp.body);
    free(body);
    return rc;
}

/* What readiness says about the node view. The webhook stays ready without one (its answer
 * without MIG rewrites is safe, and a 503 would leave every pod unmutated), but says so: a live
 * view that never completes its first list (RBAC, API trouble) is visible here, in the log and
 * in gpupack_cluster_view_synced. */
static const char *view_state(app *a)
{
    if (a->rt.kube != NULL && !gp_informer_synced(a->nodes_inf))
        return "ok; node view not synced: the first list of Nodes has not completed (RBAC or API "
               "trouble?), so MIG requests keep whole GPUs\n";
    if (a->rt.kube == NULL && a->opt.snap_nodes == NULL)
        return "ok; no node view (neither the API nor --snapshot-nodes): MIG requests keep whole "
               "GPUs unless the policy sets migProfilesAuthoritative\n";
    return "ok\n";
}

static void route_readyz(void *ctx, const gp_http_request *req, gp_http_response *resp)
{
    app *a = ctx;

    (void)req;
    if (gp_daemon_ready(a->rt.server, &a->rt.draining, resp))
        gp_reply_text(resp, 200, view_state(a));
}

static void set_view_synced(app *a, bool synced)
{
    gp_metrics_set(a->rt.metrics, "gpupack_cluster_view_synced",
                   "1 when the webhook's node view has completed its first list (or comes from "
                   "a snapshot); 0 while MIG rewrites wait for it.", "part=\"nodes\"",
                   synced ? 1 : 0);
}

static void publish_view(void *ctx, gp_cluster *c)
{
    app *a = ctx;

    set_view_synced(a, c->has_nodes);
    gp_webhook_set_cluster(&a->hook, c);
    GP_LOG(&a->rt.log, GP_LOG_DEBUG, "cluster view updated",
           GP_LI("mig_profiles", c->nmig_profiles),
           GP_LI("mig_nodes", c->nnodes), GP_LI("priority_classes", c->npriority_classes),
           GP_LS("global_default_priority_class", c->global_default));
}

GP_INFORMER_HANDLERS(node_handlers, gp_cluster_live_nodes_begin, gp_cluster_live_node,
                     gp_cluster_live_nodes_end);
GP_INFORMER_HANDLERS(pc_handlers, gp_cluster_live_pcs_begin, gp_cluster_live_pc,
                     gp_cluster_live_pcs_end);

/* A live view from the API: --kubeconfig, or in-cluster when KUBERNETES_SERVICE_HOST is set and
 * no snapshot is given. Returns 0, or 2 for a bad configuration. */
static int load_kube(app *a)
{
    bool in_cluster = a->opt.snap_nodes == NULL && a->opt.snap_pcs == NULL && !a->opt.review;

    return gp_daemon_load_kube("gpupack-webhook", &a->opt.d, in_cluster, &a->rt.kube);
}

static gp_status start_informers(app *a, gp_err *err)
{
    gp_informer_spec ns = { .name = "nodes", .path = "/api/v1/nodes" };
    gp_informer_spec ps = { .name = "priorityclasses",
                            .path = "/apis/scheduling.k8s.io/v1/priorityclasses" };

    set_view_synced(a, a->rt.kube == NULL && a->opt.snap_nodes != NULL);
    if (a->rt.kube == NULL)
        return GP_OK;
    a->live = gp_cluster_live_new(publish_view, a);
    if (a->live == NULL)
        return GP_ENOMEM;
    if (gp_informer_start(a->rt.kube, &ns, &node_handlers, a->live, &a->rt.log, a->rt.metrics,
                          &a->nodes_inf, err) != GP_OK)
        return GP_EIO;
    return gp_informer_start(a->rt.kube, &ps, &pc_handlers, a->live, &a->rt.log, a->rt.metrics,
                             &a->pcs_inf, err);
}

static gp_status start_watchers(app *a, gp_err *err)
{
    const char *snaps[2];
    size_t n = 0;
    gp_status st = GP_OK;

    if (a->opt.d.policy != NULL)
        st = gp_watch_start(&a->opt.d.policy, 1, a->opt.d.reload_ms, on_policy_change, a,
                            &a->rt.policy_watch, err);
    if (a->opt.snap_nodes)
        snaps[n++] = a->opt.snap_nodes;
    if (a->opt.snap_pcs)
        snaps[n++] = a->opt.snap_pcs;
    if (st == GP_OK && n > 0)
        st = gp_watch_start(snaps, n, a->opt.d.reload_ms, on_snapshot_change, a, &a->snap_watch,
                            err);
    if (st == GP_OK && a->opt.recs != NULL)
        st = gp_watch_start(&a->opt.recs, 1, a->opt.d.reload_ms, on_recs_change, a,
                            &a->recs_watch, err);
    return st;
}

static gp_status start_server(app *a, gp_err *err)
{
    gp_route routes[4] = {
        { "/mutate", "POST", false, true, gp_webhook_route, &a->hook },
        { "/healthz", "GET", false, false, gp_route_healthz, NULL },
        { "/readyz", "GET", false, false, route_readyz, a },
        { "/metrics", "GET", false, false, gp_route_metrics, a->rt.metrics },
    };

    return gp_daemon_start_server(&a->opt.d, "webhook", GP_ADMISSION_MAX_BODY, routes, 4,
                                  a->rt.metrics, &a->rt.log, &a->rt.server, &a->rt.health, err);
}

/* Stops the servers first (in-flight requests finish), then the watches feeding them. */
static void stop_all(app *a)
{
    gp_server_stop(a->rt.server);
    gp_server_stop(a->rt.health);
    gp_informer_stop(a->nodes_inf);
    gp_informer_stop(a->pcs_inf);
    gp_watch_stop(a->rt.policy_watch);
    gp_watch_stop(a->snap_watch);
    gp_watch_stop(a->recs_watch);
}

static int serve(app *a)
{
    gp_err err = { { 0 } };

    if (start_server(a, &err) != GP_OK) {
        fprintf(stderr, "gpupack-webhook: %s\n", err.msg);
        return 2;
    }
    if (start_watchers(a, &err) != GP_OK || start_informers(a, &err) != GP_OK) {
        fprintf(stderr, "gpupack-webhook: starting watches: %s\n", err.msg);
        stop_all(a);
        return 1;
    }
    GP_LOG(&a->rt.log, GP_LOG_INFO, "serving", GP_LS("listen", a->opt.d.listen),
           GP_LI("port", gp_server_port(a->rt.server)), GP_LS("version", GP_VERSION),
           GP_LS("json_pool", gp_json_pool_active() ? "on" : "off"));
    gp_wait_for_signal_and_drain(a->rt.server, &a->rt.draining, a->opt.d.drain_s, &a->rt.log);
    stop_all(a);
    GP_LOG(&a->rt.log, GP_LOG_INFO, "stopped");
    return 0;
}

int main(int argc, char **argv)
{
    static app a;
    gp_log_level level;
    gp_err err = { { 0 } };
    gp_status st;
    gp_cluster *cluster;
    int rc = parse_options(&a.opt, argc, argv, &level);

    if (rc >= 0)
        return rc;
    rc = check_options(&a.opt);
    if (rc != 0 ||
        (rc = gp_daemon_load_policy("gpupack-webhook", a.opt.d.policy, &a.rt.policy,
                                    a.rt.digest)) != 0)
        return rc;
    if ((rc = load_kube(&a)) != 0) {
        gp_policy_holder_destroy(&a.rt.policy);
        return rc;
    }
    cluster = load_cluster(&a.opt, &err, &st);
    if (st != GP_OK) {
        fprintf(stderr, "gpupack-webhook: %s\n", err.msg);
        gp_kube_config_free(a.rt.kube);
        gp_policy_holder_destroy(&a.rt.policy);
        return 2;
    }
    gp_daemon_rt_start(&a.rt, a.opt.d.policy, level);
    gp_webhook_init(&a.hook, &a.rt.policy, cluster, a.rt.metrics, &a.rt.log);
    rc = load_recs(&a);
    if (rc == 0)
        rc = a.opt.review ? run_review(&a) : serve(&a);
    gp_webhook_destroy(&a.hook);
    gp_cluster_live_free(a.live);
    gp_daemon_rt_free(&a.rt);
    return rc;
}
