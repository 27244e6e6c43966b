/* SPDX-License-Identifier: Apache-2.0 */
/* gpupack-extender: flags, policy, cluster view (API, in-cluster or snapshots), routes. All
 * behaviour lives in lib/. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gpupack/cache.h"
#include "gpupack/daemon.h"
#include "gpupack/extargs.h"
#include "gpupack/extender.h"
#include "gpupack/fileio.h"
#include "gpupack/flags.h"
#include "gpupack/jsonpool.h"
#include "gpupack/kube.h"
#include "gpupack/log.h"
#include "gpupack/metrics.h"
#include "gpupack/policy.h"
#include "gpupack/server.h"
#include "gpupack/watchfs.h"

#ifndef GP_VERSION
#define GP_VERSION "0.0.0"
#endif

/* Bound pods that have not finished: the only ones the view counts. Pending pods are left out on
 * the server, so a scheduled pod costs one watch event (its binding), not two. */
#define POD_FIELD_SELECTOR "spec.nodeName!=,status.phase!=Succeeded,status.phase!=Failed"

typedef struct {
    gp_daemon_opts d;
    bool explain;
    const char *snap_nodes, *snap_pods, *once;
    unsigned assume_s, max_staleness_s, sync_timeout_s;
} options;

typedef struct {
    options opt;
    gp_daemon_rt rt;
    gp_cache *cache;
    gp_informer *nodes_inf, *pods_inf;
    gp_extender ext;
} app;

static const char *summary =
    "gpupack-extender: kube-scheduler extender that filters and scores nodes by packing and\n"
    "marginal cost (POST /filter, /prioritize, also under any prefix; GET /healthz, /readyz,\n"
    "/metrics). See docs/extender.md and docs/scoring.md.";

static int parse_options(options *o, int argc, char **argv, gp_log_level *level)
{
    const gp_flag own[] = {
        { .name = "snapshot-nodes", .kind = GP_FLAG_STRING, .dest = &o->snap_nodes, .arg = "FILE", .help = "cluster view from `kubectl get nodes -o json` output" },
        { .name = "snapshot-pods", .kind = GP_FLAG_STRING, .dest = &o->snap_pods, .arg = "FILE", .help = "cluster view from `kubectl get pods -A -o json` output" },
        { .name = "once", .kind = GP_FLAG_STRING, .dest = &o->once, .arg = "VERB", .help = "filter or prioritize: one ExtenderArgs (or a bare Pod) from stdin, the result on stdout" },
        { .name = "explain", .kind = GP_FLAG_BOOL, .dest = &o->explain, .help = "with --once: a table of each node's components on stderr" },
        { .name = "assume-seconds", .kind = GP_FLAG_UINT, .dest = &o->assume_s, .min = 0, .max = 600, .arg = "SECONDS", .help = "count a prioritized GPU pod on its best node until bound, at most this long (default 30, 0: off)" },
        { .name = "max-staleness", .kind = GP_FLAG_UINT, .dest = &o->max_staleness_s, .min = 0, .max = 86400, .arg = "SECONDS", .help = "/readyz fails when the watch has been silent longer (default 600, 0: off)" },
        { .name = "sync-timeout", .kind = GP_FLAG_UINT, .dest = &o->sync_timeout_s, .min = 1, .max = 3600, .arg = "SECONDS", .help = "with --once and --kubeconfig: wait this long for the first list (default 60)" },
    };
    const gp_daemon_cli cli = {
        "gpupack-extender", summary,
        "address to serve on (default 0.0.0.0:8888; HTTPS with --tls-cert/--tls-key)",
        "a request must arrive whole within this (default 30)", own, sizeof(own) / sizeof(own[0])
    };

    *o = (options){ .d = gp_daemon_opts_default("0.0.0.0:8888", 30), .assume_s = 30,
                    .max_staleness_s = 600, .sync_timeout_s = 60 };
    return gp_daemon_parse_flags(&cli, &o->d, argc, argv, level);
}

static int fail2(const char *msg)
{
    fprintf(stderr, "gpupack-extender: %s\n", msg);
    return 2;
}

static int usage_error(const char *msg)
{
    return gp_flags_fail(stderr, "gpupack-extender", msg);
}

static int check_options(const options *o)
{
    if (o->once && strcmp(o->once, "filter") != 0 && strcmp(o->once, "prioritize") != 0)
        return usage_error("--once: expected filter or prioritize");
    if (o->explain && !o->once)
        return usage_error("--explain: only with --once");
    if ((o->d.cert == NULL) != (o->d.key == NULL))
        return usage_error("--tls-cert and --tls-key go together");
    if (o->d.client_ca && !o->d.cert)
        return usage_error("--client-ca: needs --tls-cert and --tls-key (client certificates need TLS)");
    if ((o->snap_nodes == NULL) != (o->snap_pods == NULL))
        return usage_error("--snapshot-nodes and --snapshot-pods go together");
    if (o->snap_nodes && o->d.kubeconfig)
        return usage_error("--kubeconfig: not with --snapshot-nodes/--snapshot-pods (pick one view)");
    if (o->d.context && !o->d.kubeconfig)
        return usage_error("--context: only with --kubeconfig");
    return 0;
}

static gp_status decode_nodes(void *cache, const char *buf, size_t len, gp_err *err)
{
    return gp_cache_load_snapshot(cache, buf, len, NULL, 0, err);
}

static gp_status decode_pods(void *cache, const char *buf, size_t len, gp_err *err)
{
    return gp_cache_load_snapshot(cache, NULL, 0, buf, len, err);
}

/* One snapshot file into the cache: 0, or 2 after "PROG: FLAG: FILE: reason". */
static int load_snapshot(app *a, const char *flag, const char *path, bool nodes)
{
    gp_err err = { { 0 } };

    if (gp_file_decode(path, GP_EXTARGS_MAX_BODY * 4, nodes ? decode_nodes : decode_pods,
                       a->cache, &err) != GP_OK) {
        fprintf(stderr, "gpupack-extender: %s: %s\n", flag, err.msg);
        return 2;
    }
    return 0;
}

static int load_snapshots(app *a)
{
    int rc = load_snapshot(a, "--snapshot-nodes", a->opt.snap_nodes, true);

    return rc != 0 ? rc : load_snapshot(a, "--snapshot-pods", a->opt.snap_pods, false);
}

/* Informer callbacks: straight into the cache. */
GP_INFORMER_HANDLERS(node_handlers, gp_cache_nodes_begin, gp_cache_node_event, gp_cache_nodes_end);
GP_INFORMER_HANDLERS(pod_handlers, gp_cache_pods_begin, gp_cache_pod_event, gp_cache_pods_end);

static int start_informers(app *a)
{
    gp_informer_spec ns = { .name = "nodes", .path = "/api/v1/nodes" };
    gp_informer_spec ps = { .name = "pods", .path = "/api/v1/pods",
                            .field_selector = POD_FIELD_SELECTOR };
    gp_err err = { { 0 } };

    if (gp_informer_start(a->rt.kube, &ns, &node_handlers, a->cache, &a->rt.log, a->rt.metrics,
                          &a->nodes_inf, &err) != GP_OK ||
        gp_informer_start(a->rt.kube, &ps, &pod_handlers, a->cache, &a->rt.log, a->rt.metrics,
                          &a->pods_inf, &err) != GP_OK) {
        fprintf(stderr, "gpupack-extender: starting the watch: %s\n", err.msg);
        return 1;
    }
    return 0;
}

/* The cluster view: snapshots, a kubeconfig, in-cluster, or none (full Node objects only). */
static int setup_view(app *a)
{
    if (a->opt.snap_nodes != NULL) {
        a->cache = gp_cache_new(&a->rt.policy);
        return a->cache ? load_snapshots(a) : fail2("out of memory");
    }
    int rc = gp_daemon_load_kube("gpupack-extender", &a->opt.d, true, &a->rt.kube);

    if (rc != 0 || a->rt.kube == NULL)
        return rc;
    a->cache = gp_cache_new(&a->rt.policy);
    return a->cache ? 0 : fail2("out of memory");
}

/* True when the informer has heard from the API server within limit ms. */
static bool fresh(gp_informer *inf, int64_t limit)
{
    int64_t stale = gp_informer_staleness_ms(inf);

    return stale >= 0 && stale <= limit;
}

/* Why the view is not ready, into why[WHY_SIZE]; false when it is ready. A stale view names the
 * resourceVersion each watch last saw, where the view stopped. */
#define WHY_SIZE 256
static bool view_unready(app *a, char *why)
{
    char nodes_rv[64], pods_rv[64];

    if (a->cache == NULL)
        return false;
    if (!gp_cache_synced(a->cache)) {
        snprintf(why, WHY_SIZE, "not ready: cluster view not synced yet\n");
        return true;
    }
    if (a->rt.kube == NULL || a->opt.max_staleness_s == 0 ||
        (fresh(a->nodes_inf, (int64_t)a->opt.max_staleness_s * 1000) &&
         fresh(a->pods_inf, (int64_t)a->opt.max_staleness_s * 1000)))
        return false;
    gp_informer_resource_version(a->nodes_inf, nodes_rv, sizeof(nodes_rv));
    gp_informer_resource_version(a->pods_inf, pods_rv, sizeof(pods_rv));
    snprintf(why, WHY_SIZE,
             "not ready: cluster view is stale (no word from the API server; nodes at "
             "resourceVersion \"%s\", pods at \"%s\")\n", nodes_rv, pods_rv);
    return true;
}

static void route_readyz(void *ctx, const gp_http_request *req, gp_http_response *resp)
{
    app *a = ctx;
    char why[WHY_SIZE];

    (void)req;
    if (!gp_daemon_ready(a->rt.server, &a->rt.draining, resp))
        return;
    if (view_unready(a, why))
        gp_reply_text(resp, 503, why);
    else
        gp_reply_text(resp, 200, "ok\n");
}

static void route_metrics(void *ctx, const gp_http_request *req, gp_http_response *resp)
{
    app *a = ctx;

    if (a->cache != NULL) {
        gp_cache_stats s = gp_cache_get_stats(a->cache);

        gp_metrics_set(a->rt.metrics, "gpupack_cache_nodes", "Nodes in the cluster view.", "",
                       (double)s.nodes);
        gp_metrics_set(a->rt.metrics, "gpupack_cache_pods", "Pod records in the cluster view.", "",
                       (double)s.pods);
        gp_metrics_set(a->rt.metrics, "gpupack_cache_bound_pods",
                       "Pods using resources on a node.", "", (double)s.bound);
        gp_metrics_set(a->rt.metrics, "gpupack_cache_assumed_pods",
                       "Prioritized pods counted on their best node until bound.", "",
                       (double)s.assumed);
        gp_metrics_set(a->rt.metrics, "gpupack_cache_bytes", "Memory held by the cluster view.", "",
                       (double)s.bytes);
        gp_metrics_set(a->rt.metrics, "gpupack_cache_workload_shapes",
                       "Distinct pod shapes (GPUs, CPU) the learned workload mix counts.", "",
                       (double)s.shapes);
        gp_metrics_set(a->rt.metrics, "gpupack_cache_model_constraints",
                       "Distinct GPU model constraints of pods the model pressure counts.", "",
                       (double)s.constraints);
        gp_metrics_set(a->rt.metrics, "gpupack_cache_gpu_models",
                       "Distinct nvidia.com/gpu.product values of nodes.", "", (double)s.models);
        gp_metrics_set(a->rt.metrics, "gpupack_cache_skipped_objects",
                       "Objects the cluster view could not decode.", "", (double)s.bad);
    }
    gp_route_metrics(a->rt.metrics, req, resp);
}

static void on_policy_change(void *ctx)
{
    app *a = ctx;

    gp_daemon_reload_policy(a->opt.d.policy, &a->rt.policy, a->rt.metrics, &a->rt.log);
}

static int64_t wall_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int wait_synced(app *a)
{
    for (unsigned i = 0; a->cache != NULL && a->rt.kube != NULL && i < a->opt.sync_timeout_s * 10;
         i++) {
        if (gp_cache_synced(a->cache))
            return 0;
        usleep(100000);
    }
    if (a->cache != NULL && a->rt.kube != NULL) {
        fprintf(stderr, "gpupack-extender: --once: the cluster view did not sync within %u s\n",
                a->opt.sync_timeout_s);
        return 1;
    }
    return 0;
}

/* The error an answer carries: a filter result's "Error" (200) or a 400's "error", else NULL
 * (copied into buf). Both verbs then fail alike on bad input. */
static const char *answer_error(const gp_http_response *resp, char *buf, size_t bufsz)
{
    cJSON *root = resp->body ? cJSON_ParseWithLengthOpts(resp->body, resp->body_len + 1, NULL, 1)
                             : NULL;
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(root, resp->status == 200 ? "Error"
                                                                                 : "error");
    const char *out = NULL;

    if (cJSON_IsString(e) && e->valuestring[0] != '\0') {
        snprintf(buf, bufsz, "%s", e->valuestring);
        out = buf;
    } else if (resp->status != 200) {
        snprintf(buf, bufsz, "%.*s", (int)resp->body_len, resp->body ? resp->body : "internal error");
        out = buf;
    }
    cJSON_Delete(root);
    return out;
}

static int run_once(app *a)
{
    char *body = NULL, why[1024];
    const char *error;
    size_t len = 0;
    gp_http_response resp = { 0 };
    int rc = 0;

    if (a->rt.kube != NULL && (start_informers(a) != 0 || wait_synced(a) != 0))
        return 1;
    if (gp_daemon_read_stdin("gpupack-extender", "--once", GP_EXTARGS_MAX_BODY, &body, &len) != 0)
        return 1;
    a->ext.explain = a->opt.explain ? stderr : NULL;
    a->ext.assume_ttl_ms = 0;
    gp_extender_call(&a->ext, strcmp(a->opt.once, "filter") == 0 ? GP_VERB_FILTER
                                                                 : GP_VERB_PRIORITIZE,
                     body, len, wall_ms(), &resp);
    /* A filter result carries its error in the answer, which still goes to stdout as the
     * scheduler would get it; either verb exits 1 when the call failed. */
    if (resp.status == 200) {
        fwrite(resp.body, 1, resp.body_len, stdout);
        fputc('\n', stdout);
    }
    if ((error = answer_error(&resp, why, sizeof(why))) != NULL) {
        fprintf(stderr, "gpupack-extender: --once %s: %s\n", a->opt.once, error);
        rc = 1;
    }
    free(resp.body);
    free(body);
    return rc;
}

static gp_status start_server(app *a, gp_err *err)
{
    gp_route routes[5] = {
        { "/filter", "POST", true, true, gp_extender_route_filter, &a->ext },
        { "/prioritize", "POST", true, true, gp_extender_route_prioritize, &a->ext },
        { "/healthz", "GET", false, false, gp_route_healthz, NULL },
        { "/readyz", "GET", false, false, route_readyz, a },
        { "/metrics", "GET", false, false, route_metrics, a },
    };

    return gp_daemon_start_server(&a->opt.d, "extender", GP_EXTARGS_MAX_BODY, routes, 5,
                                  a->rt.metrics, &a->rt.log, &a->rt.server, &a->rt.health, err);
}

static int serve(app *a)
{
    gp_err err = { { 0 } };

    if (start_server(a, &err) != GP_OK) {
        fprintf(stderr, "gpupack-extender: %s\n", err.msg);
        return 2;
    }
    if (a->opt.d.policy != NULL &&
        gp_watch_start(&a->opt.d.policy, 1, a->opt.d.reload_ms, on_policy_change, a,
                       &a->rt.policy_watch, &err) != GP_OK) {
        fprintf(stderr, "gpupack-extender: watching the policy: %s\n", err.msg);
        gp_server_stop(a->rt.server);
        gp_server_stop(a->rt.health);
        return 1;
    }
    if (a->rt.kube != NULL && start_informers(a) != 0) {
        gp_watch_stop(a->rt.policy_watch);
        gp_server_stop(a->rt.server);
        gp_server_stop(a->rt.health);
        return 1;
    }
    GP_LOG(&a->rt.log, GP_LOG_INFO, "serving", GP_LS("listen", a->opt.d.listen),
           GP_LI("port", gp_server_port(a->rt.server)), GP_LS("version", GP_VERSION),
           GP_LS("view", a->rt.kube ? "api" : a->cache ? "snapshot" : "none"));
    gp_wait_for_signal_and_drain(a->rt.server, &a->rt.draining, a->opt.d.drain_s, &a->rt.log);
    gp_server_stop(a->rt.server);
    gp_server_stop(a->rt.health);
    gp_watch_stop(a->rt.policy_watch);
    GP_LOG(&a->rt.log, GP_LOG_INFO, "stopped");
    return 0;
}

int main(int argc, char **argv)
{
    static app a;
    gp_log_level level;
    int rc = parse_options(&a.opt, argc, argv, &level);

    if (rc >= 0)
        return rc;
    if ((rc = check_options(&a.opt)) != 0 ||
        (rc = gp_daemon_load_policy("gpupack-extender", a.opt.d.policy, &a.rt.policy,
                                    a.rt.digest)) != 0)
        return rc;
    gp_daemon_rt_start(&a.rt, a.opt.d.policy, level);
    gp_extender_preregister(a.rt.metrics);
    gp_json_pool_install(); /* before any thread serves: calls and watch events use pools */
    rc = setup_view(&a);
    if (rc == 0) {
        a.ext = (gp_extender){ .policy = &a.rt.policy, .cache = a.cache, .metrics = a.rt.metrics,
                               .log = &a.rt.log, .assume_ttl_ms = (int64_t)a.opt.assume_s * 1000 };
        rc = a.opt.once ? run_once(&a) : serve(&a);
    }
    gp_informer_stop(a.nodes_inf);
    gp_informer_stop(a.pods_inf);
    gp_cache_free(a.cache);
    gp_daemon_rt_free(&a.rt);
    return rc;
}
