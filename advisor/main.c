/* SPDX-License-Identifier: Apache-2.0 */
/* gpupack-advisor: flags and wiring. `report` reads what GPUs did from Prometheus
 * (dcgm-exporter and kube-state-metrics series) and prints the findings ranked by dollars;
 * advisor/report.c runs it. `serve` runs the same analysis on a schedule and writes the
 * recommendations for the webhook; advisor/serve.c runs it.
 *
 * Exit status: 0 a report, 1 Prometheus could not answer (the message names the query), 2 a bad
 * command line or file (the message names the flag). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpupack/daemon.h"
#include "gpupack/fileio.h"
#include "gpupack/kubeconfig.h"
#include "gpupack/flags.h"
#include "gpupack/log.h"
#include "gpupack/policy.h"
#include "gpupack/prom.h"
#include "gpupack/server.h"
#include "fetch.h"
#include "render.h"
#include "report.h"
#include "serve.h"

#ifndef GP_VERSION
#define GP_VERSION "0.0.0"
#endif

#define PROG "gpupack-advisor"
#define EXIT_USAGE 2

typedef struct {
    const char *prometheus, *since, *until, *step, *output, *policy, *log_level;
    const char *token_file, *ca, *cert, *key, *timeout;
    const char *kubeconfig, *context, *snap_pods, *snap_nodes, *snap_rs, *snap_jobs;
    const char *snaps[4]; /* the snapshot files given, for gp_adv_report_opts */
    gp_flag_choice format;
    gp_flag_list headers;
    unsigned top, query_steps;
    bool show_queries, quiet, help, version;
    /* serve */
    const char *interval, *listen, *configmap, *recs_file, *ttl;
    unsigned top_workloads, max_bytes;
    bool once;
} opts;

static const char *const formats[] = { "table", "json", "markdown", "html", NULL };

static size_t flag_table(opts *o, gp_flag *f)
{
    const gp_flag t[] = {
        { .name = "prometheus", .kind = GP_FLAG_STRING, .dest = &o->prometheus, .arg = "URL", .help = "the Prometheus (or Thanos, Mimir, managed Prometheus) base URL; required", .once = true },
        { .name = "since", .kind = GP_FLAG_STRING, .dest = &o->since, .arg = "D", .help = "the window's length: 30s, 5m, 2h, 7d, 1w (default 7d)", .once = true },
        { .name = "until", .kind = GP_FLAG_STRING, .dest = &o->until, .arg = "TIME", .help = "the window's end: RFC 3339 or unix seconds (default now)", .once = true },
        { .name = "step", .kind = GP_FLAG_STRING, .dest = &o->step, .arg = "D", .help = "evaluation step (default 5m); at most 11000 steps in the window", .once = true },
        { .name = "query-steps", .kind = GP_FLAG_UINT, .dest = &o->query_steps, .min = 0, .max = GP_ADV_MAX_STEPS, .arg = "N", .help = "steps a per-step query asks Prometheus for at once; longer windows go in parts (default 576; 0: all at once). Lower it when Prometheus refuses a query for too many samples", .once = true },
        { .name = "format", .kind = GP_FLAG_CHOICE, .dest = &o->format, .arg = "F", .help = "table (default), json, markdown or html", .once = true },
        { .name = "output", .kind = GP_FLAG_STRING, .dest = &o->output, .arg = "FILE", .help = "write the report to FILE (atomically) instead of stdout", .once = true },
        { .name = "top", .kind = GP_FLAG_UINT, .dest = &o->top, .min = 0, .max = 1000000, .arg = "N", .help = "findings to show (default 20; 0 = all)", .once = true },
        { .name = "show-queries", .kind = GP_FLAG_BOOL, .dest = &o->show_queries, .help = "print each query (name, PromQL, time or range) on stderr before it runs" },
        { .name = "quiet", .kind = GP_FLAG_BOOL, .dest = &o->quiet, .help = "no progress lines on stderr" },
        { .name = "prometheus-token-file", .kind = GP_FLAG_STRING, .dest = &o->token_file, .arg = "FILE", .help = "bearer token file, read again for every request", .once = true },
        { .name = "prometheus-ca", .kind = GP_FLAG_STRING, .dest = &o->ca, .arg = "FILE", .help = "CA bundle for an https URL (default: the system's)", .once = true },
        { .name = "prometheus-cert", .kind = GP_FLAG_STRING, .dest = &o->cert, .arg = "FILE", .help = "client certificate (with --prometheus-key)", .once = true },
        { .name = "prometheus-key", .kind = GP_FLAG_STRING, .dest = &o->key, .arg = "FILE", .help = "client key (with --prometheus-cert)", .once = true },
        { .name = "prometheus-header", .kind = GP_FLAG_LIST, .dest = &o->headers, .max = GP_PROM_MAX_HEADERS, .arg = "'N: V'", .help = "an extra request header, e.g. 'X-Scope-OrgID: team-a' (repeatable)" },
        { .name = "prometheus-timeout", .kind = GP_FLAG_STRING, .dest = &o->timeout, .arg = "D", .help = "per-request timeout (default 2m)", .once = true },
        { .name = "kubeconfig", .kind = GP_FLAG_STRING, .dest = &o->kubeconfig, .arg = "FILE", .help = "read pods, nodes, ReplicaSets and Jobs from this cluster to fill in labels, owners and instance types kube-state-metrics does not export (in a pod: the in-cluster API)", .once = true },
        { .name = "context", .kind = GP_FLAG_STRING, .dest = &o->context, .arg = "NAME", .help = "the kubeconfig context (default: its current-context)", .once = true },
        { .name = "snapshot-pods", .kind = GP_FLAG_STRING, .dest = &o->snap_pods, .arg = "FILE", .help = "the same from `kubectl get pods -A -o json` output", .once = true },
        { .name = "snapshot-nodes", .kind = GP_FLAG_STRING, .dest = &o->snap_nodes, .arg = "FILE", .help = "... from `kubectl get nodes -o json`", .once = true },
        { .name = "snapshot-replicasets", .kind = GP_FLAG_STRING, .dest = &o->snap_rs, .arg = "FILE", .help = "... from `kubectl get replicasets -A -o json`", .once = true },
        { .name = "snapshot-jobs", .kind = GP_FLAG_STRING, .dest = &o->snap_jobs, .arg = "FILE", .help = "... from `kubectl get jobs -A -o json`", .once = true },
        { .name = "policy", .kind = GP_FLAG_STRING, .dest = &o->policy, .arg = "FILE", .help = "the policy (prices, thresholds, label names); default: the embedded one", .once = true },
        { .name = "log-level", .kind = GP_FLAG_STRING, .dest = &o->log_level, .arg = "LEVEL", .help = "debug, info (default), warn or error; warn and error imply --quiet" },
        { .name = "help", .kind = GP_FLAG_BOOL, .dest = &o->help, .help = "this text" },
        { .name = "version", .kind = GP_FLAG_BOOL, .dest = &o->version, .help = "print the version" },
    };

    memcpy(f, t, sizeof(t));
    return sizeof(t) / sizeof(t[0]);
}

/* The report flags serve does not take. */
static bool report_only(const char *name)
{
    static const char *const names[] = { "until", "format", "output", "top", "show-queries",
                                         "quiet", NULL };

    for (size_t i = 0; names[i] != NULL; i++)
        if (strcmp(names[i], name) == 0)
            return true;
    return false;
}

static size_t serve_flag_table(opts *o, gp_flag *f)
{
    const gp_flag t[] = {
        { .name = "interval", .kind = GP_FLAG_STRING, .dest = &o->interval, .arg = "D", .help = "time between analyses (default 1h)", .once = true },
        { .name = "listen", .kind = GP_FLAG_STRING, .dest = &o->listen, .arg = "HOST:PORT", .help = "serve /healthz, /readyz and /metrics here over plain HTTP (default 0.0.0.0:8090)", .once = true },
        { .name = "configmap", .kind = GP_FLAG_STRING, .dest = &o->configmap, .arg = "NS/NAME", .help = "the ConfigMap the recommendations go to, key recommendations.json (default gpupack-system/gpupack-recommendations); needs --kubeconfig or in-cluster", .once = true },
        { .name = "recommendations-file", .kind = GP_FLAG_STRING, .dest = &o->recs_file, .arg = "FILE", .help = "write the recommendations to FILE (atomically) instead of the ConfigMap", .once = true },
        { .name = "ttl", .kind = GP_FLAG_STRING, .dest = &o->ttl, .arg = "D", .help = "how long a recommendation stays valid after it is made (default 72h)", .once = true },
        { .name = "top-workloads", .kind = GP_FLAG_UINT, .dest = &o->top_workloads, .min = 1, .max = 500, .arg = "N", .help = "workloads with their own waste series in /metrics; the rest are \"other\" (default 50)", .once = true },
        { .name = "max-bytes", .kind = GP_FLAG_UINT, .dest = &o->max_bytes, .min = 256, .max = 1000000, .arg = "N", .help = "the recommendations document's bound; the workloads worth most are kept (default 921600)", .once = true },
        { .name = "once", .kind = GP_FLAG_BOOL, .dest = &o->once, .help = "one analysis and write, then exit (0 done, 1 failed)" },
    };
    gp_flag all[GP_FLAGS_MAX];
    size_t n = flag_table(o, all), k = 0;

    for (size_t i = 0; i < n; i++)
        if (!report_only(all[i].name))
            f[k++] = all[i];
    memcpy(f + k, t, sizeof(t));
    return k + sizeof(t) / sizeof(t[0]);
}

static const char *summary =
    "\n"
    "Reads dcgm-exporter and kube-state-metrics series through the Prometheus HTTP API at\n"
    "--prometheus URL and prints what GPUs did over the window and the findings (idle, mig,\n"
    "gpus, model, node, runaway) ranked by dollars. Subcommands: report, serve.\n"
    "\n"
    "Exit status: 0 a report, 1 Prometheus could not answer (the message names the query),\n"
    "2 bad command line or file.";

static int usage_error(const char *flag, const char *msg, const char *value)
{
    fprintf(stderr, PROG ": %s: %s%s%s%s\n", flag, msg, value ? " \"" : "", value ? value : "",
            value ? "\"" : "");
    fprintf(stderr, "see " PROG " --help\n");
    return EXIT_USAGE;
}

/* Whether the directory --output's file goes in is writable and the path itself is not a
 * directory (checked before minutes of queries, not after). */
static bool output_dir_writable(const char *path)
{
    const char *slash = strrchr(path, '/');
    char dir[4096];
    struct stat st;

    if (path[0] == '\0' || (slash != NULL && slash[1] == '\0') ||
        (stat(path, &st) == 0 && S_ISDIR(st.st_mode))) {
        errno = EISDIR;
        return false;
    }
    if (slash == NULL)
        snprintf(dir, sizeof(dir), ".");
    else
        snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path), path);
    return access(dir, W_OK | X_OK) == 0;
}

/* Every value check after parsing; on failure the message is printed and 2 returned. */
static int check_values(const opts *o, gp_adv_report_opts *r)
{
    const struct { const char *flag, *path; } files[] = {
        { "--prometheus-token-file", o->token_file }, { "--prometheus-ca", o->ca },
        { "--prometheus-cert", o->cert }, { "--prometheus-key", o->key },
    };
    const struct { const char *flag, *path; } snaps[] = {
        { "--snapshot-pods", o->snap_pods }, { "--snapshot-nodes", o->snap_nodes },
        { "--snapshot-replicasets", o->snap_rs }, { "--snapshot-jobs", o->snap_jobs },
    };
    double timeout = 120;
    gp_log_level lvl;

    gp_err err = { "" };

    if (o->prometheus == NULL)
        return usage_error("--prometheus", "required", NULL);
    if (gp_prom_url_check(o->prometheus, &err) != GP_OK) {
        char msg[GP_ERR_MAX + 8], url[1024];

        snprintf(msg, sizeof(msg), "%s; got", err.msg);
        return usage_error("--prometheus", msg,
                           gp_prom_url_redact(o->prometheus, url, sizeof(url)));
    }
    if (o->since != NULL && gp_duration_parse(o->since, &r->since) != GP_OK)
        return usage_error("--since", "want a duration like 30s, 5m, 2h, 7d, 1w, got", o->since);
    if (o->step != NULL && gp_duration_parse(o->step, &r->step) != GP_OK)
        return usage_error("--step", "want a duration like 30s, 5m, 2h, got", o->step);
    r->query_steps = o->query_steps;
    if (o->until != NULL && gp_adv_parse_time(o->until, &r->until) != GP_OK)
        return usage_error("--until", "want RFC 3339 (2026-12-04T16:00:00Z) or unix seconds, got",
                           o->until);
    if (o->timeout != NULL && (gp_duration_parse(o->timeout, &timeout) != GP_OK ||
                               timeout > 86400))
        return usage_error("--prometheus-timeout", "want a duration like 30s or 2m, got",
                           o->timeout);
    if ((o->cert == NULL) != (o->key == NULL))
        return usage_error(o->cert ? "--prometheus-cert" : "--prometheus-key",
                           "needs --prometheus-cert and --prometheus-key together", NULL);
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        if (files[i].path != NULL && access(files[i].path, R_OK) != 0)
            return usage_error(files[i].flag, strerror(errno), NULL);
    }
    for (size_t i = 0; i < sizeof(snaps) / sizeof(snaps[0]); i++) {
        if (snaps[i].path != NULL && access(snaps[i].path, R_OK) != 0)
            return usage_error(snaps[i].flag, strerror(errno), snaps[i].path);
    }
    if (o->output != NULL && !output_dir_writable(o->output))
        return usage_error("--output", strerror(errno), o->output);
    if (o->log_level != NULL && gp_log_level_parse(o->log_level, &lvl) != GP_OK)
        return usage_error("--log-level", "want debug, info, warn or error, got", o->log_level);
    return (int)(timeout * 1000 + 0.5); /* > 2: the timeout in ms */
}

/* The snapshot files, and the API: --kubeconfig, else in-cluster when running in a pod. */
static int load_kube(opts *o, gp_adv_report_opts *r, gp_kube_config **kube)
{
    const char **snaps = o->snaps;
    gp_err err = { "" };
    gp_status st;

    r->nsnapshots = 0;
    if (o->snap_pods != NULL)
        snaps[r->nsnapshots++] = o->snap_pods;
    if (o->snap_nodes != NULL)
        snaps[r->nsnapshots++] = o->snap_nodes;
    if (o->snap_rs != NULL)
        snaps[r->nsnapshots++] = o->snap_rs;
    if (o->snap_jobs != NULL)
        snaps[r->nsnapshots++] = o->snap_jobs;
    r->snapshots = snaps;
    st = gp_kube_config_resolve(o->kubeconfig, o->context, kube, &err);
    if (st == GP_ENOTFOUND && o->kubeconfig == NULL)
        return 0;
    if (st != GP_OK) {
        usage_error(o->kubeconfig ? "--kubeconfig" : "in-cluster configuration", err.msg, NULL);
        return 1;
    }
    r->kube = *kube;
    return 0;
}

/* The Prometheus access flags as a client configuration. */
static void prom_config(const opts *o, const gp_adv_report_opts *r, unsigned timeout_ms,
                        gp_prom_config *pc)
{
    memset(pc, 0, sizeof(*pc));
    pc->url = o->prometheus;
    pc->token_file = o->token_file;
    pc->ca_file = o->ca;
    pc->cert_file = o->cert;
    pc->key_file = o->key;
    pc->headers = o->headers.v;
    pc->nheaders = o->headers.n;
    pc->timeout_ms = timeout_ms;
    pc->range_points = gp_adv_range_points(r->query_steps, r->step);
}

static int report(int argc, char **argv)
{
    opts o = { .format = { formats, GP_ADV_FMT_TABLE }, .top = 20,
               .query_steps = GP_ADV_PART_STEPS };
    gp_flag flags[GP_FLAGS_MAX];
    size_t n = flag_table(&o, flags);
    gp_adv_report_opts r = { .until = (double)time(NULL), .since = 7 * 86400.0, .step = 300,
                             .log = stderr };
    gp_prom_config pc;
    gp_policy *pol = NULL;
    gp_kube_config *kube = NULL;
    gp_err err = { "" };
    int ms, rc;

    if (gp_flags_parse(flags, n, argc, argv, &err) != GP_OK)
        return gp_flags_fail(stderr, PROG, err.msg);
    if (o.help) {
        gp_flags_usage(stdout, PROG " report", summary, flags, n);
        return 0;
    }
    if (o.version) {
        printf(PROG " " GP_VERSION "\n");
        return 0;
    }
    if ((ms = check_values(&o, &r)) == EXIT_USAGE)
        return EXIT_USAGE;
    if (gp_daemon_policy_flag(PROG, o.policy, &pol, NULL) != 0)
        return EXIT_USAGE;
    prom_config(&o, &r, (unsigned)ms, &pc);
    r.prom = &pc;
    r.pol = pol;
    r.format = (gp_adv_format)o.format.index;
    r.top = o.top;
    r.output = o.output;
    r.show_queries = o.show_queries;
    /* warn and error drop the progress lines; errors, warnings and notes always show. */
    r.quiet = o.quiet || (o.log_level != NULL && strcmp(o.log_level, "debug") != 0 &&
                          strcmp(o.log_level, "info") != 0);
    if (load_kube(&o, &r, &kube) != 0) {
        gp_policy_unref(pol);
        return EXIT_USAGE;
    }
    rc = gp_adv_report_run(&r);
    gp_kube_config_free(kube);
    gp_policy_unref(pol);
    return rc;
}

static const char *serve_summary =
    "\n"
    "Runs the report's analysis every --interval over --since, writes the recommendations\n"
    "(gpupack.io/gpu-memory per workload, from the MIG findings) to --configmap or\n"
    "--recommendations-file for the webhook, and serves /healthz, /readyz and /metrics (the\n"
    "cost metrics) on --listen. When Prometheus fails it keeps the last good result: /readyz\n"
    "says stale and gpupack_advisor_prometheus_up is 0.\n"
    "\n"
    "Exit status: 0 stopped by SIGTERM (or --once done), 1 --once failed, 2 bad command line.";

/* The ConfigMap's "NS/NAME" into its parts; false when it is not that shape. */
static bool split_configmap(const char *s, char *ns, size_t nsz, char *name, size_t namesz)
{
    const char *slash = strchr(s, '/');

    if (slash == NULL || slash == s || slash[1] == '\0' || strchr(slash + 1, '/') != NULL ||
        (size_t)(slash - s) >= nsz || strlen(slash + 1) >= namesz)
        return false;
    snprintf(ns, nsz, "%.*s", (int)(slash - s), s);
    snprintf(name, namesz, "%s", slash + 1);
    return true;
}

/* serve's own values into v; 2 after the message when one is bad. */
static int serve_values(const opts *o, gp_adv_serve_opts *v, char *ns, char *name)
{
    if (o->interval != NULL && (gp_duration_parse(o->interval, &v->interval) != GP_OK ||
                                v->interval < 1))
        return usage_error("--interval", "want a duration like 10m or 1h, got", o->interval);
    if (o->ttl != NULL && (gp_duration_parse(o->ttl, &v->ttl) != GP_OK || v->ttl < 60))
        return usage_error("--ttl", "want a duration of a minute or more like 72h, got", o->ttl);
    if (!split_configmap(o->configmap ? o->configmap : "gpupack-system/gpupack-recommendations",
                         ns, 64, name, 254))
        return usage_error("--configmap", "want NAMESPACE/NAME, got", o->configmap);
    if (o->recs_file != NULL && !output_dir_writable(o->recs_file))
        return usage_error("--recommendations-file", strerror(errno), o->recs_file);
    if (o->listen != NULL) {
        char host[256];
        int port;
        gp_err err = { "" };

        if (gp_server_parse_listen(o->listen, host, sizeof(host), &port, &err) != GP_OK)
            return usage_error("--listen", err.msg, NULL);
    }
    return 0;
}

static int serve(int argc, char **argv)
{
    opts o = { .format = { formats, GP_ADV_FMT_JSON }, .top = 0, .query_steps = GP_ADV_PART_STEPS,
               .top_workloads = 50,
               .max_bytes = 921600 };
    gp_flag flags[GP_FLAGS_MAX];
    size_t n = serve_flag_table(&o, flags);
    gp_adv_serve_opts v = { .interval = 3600, .ttl = 72 * 3600.0, .listen = "0.0.0.0:8090" };
    gp_adv_report_opts *r = &v.report;
    gp_prom_config pc;
    gp_policy *pol = NULL;
    gp_kube_config *kube = NULL;
    gp_err err = { "" };
    char ns[64], name[254], digest[GP_DAEMON_DIGEST_SIZE];
    int ms, rc;

    if (gp_flags_parse(flags, n, argc, argv, &err) != GP_OK)
        return gp_flags_fail(stderr, PROG, err.msg);
    if (o.help) {
        gp_flags_usage(stdout, PROG " serve", serve_summary, flags, n);
        return 0;
    }
    if (o.version) {
        printf(PROG " " GP_VERSION "\n");
        return 0;
    }
    *r = (gp_adv_report_opts){ .since = 7 * 86400.0, .step = 300, .log = stderr };
    if ((ms = check_values(&o, r)) == EXIT_USAGE || serve_values(&o, &v, ns, name) != 0)
        return EXIT_USAGE;
    if (gp_daemon_policy_flag(PROG, o.policy, &pol, digest) != 0)
        return EXIT_USAGE;
    prom_config(&o, r, (unsigned)ms, &pc);
    r->prom = &pc;
    r->pol = pol;
    v.policy_path = o.policy;
    v.policy_digest = digest;
    if (load_kube(&o, r, &kube) != 0) {
        gp_policy_unref(pol);
        return EXIT_USAGE;
    }
    if (o.recs_file == NULL && kube == NULL) {
        gp_policy_unref(pol);
        return usage_error("--configmap", "writing the ConfigMap needs --kubeconfig or the "
                           "in-cluster configuration; or give --recommendations-file", NULL);
    }
    v.cm_namespace = ns;
    v.cm_name = name;
    v.file = o.recs_file;
    v.kube = kube;
    v.top_workloads = o.top_workloads;
    v.max_bytes = o.max_bytes;
    v.once = o.once;
    v.log_level = o.log_level;
    if (o.listen != NULL)
        v.listen = o.listen;
    rc = gp_adv_serve_run(&v);
    gp_kube_config_free(kube);
    gp_policy_unref(pol);
    return rc;
}

int main(int argc, char **argv)
{
    opts o = { .format = { formats, 0 } };
    gp_flag flags[GP_FLAGS_MAX];
    size_t n = flag_table(&o, flags);

    if (argc >= 2 && strcmp(argv[1], "report") == 0)
        return report(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "serve") == 0)
        return serve(argc - 1, argv + 1);
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        gp_flags_usage(stdout, PROG " report", summary, flags, n);
        return 0;
    }
    if (argc >= 2 && strcmp(argv[1], "--version") == 0) {
        printf(PROG " " GP_VERSION "\n");
        return 0;
    }
    if (argc < 2) {
        fprintf(stderr, PROG ": a subcommand is required: report or serve\n");
    } else if (argv[1][0] == '-') {
        fprintf(stderr, PROG ": %s: give the subcommand first: " PROG " report %s ...\n", argv[1],
                argv[1]);
    } else {
        fprintf(stderr, PROG ": unknown subcommand \"%s\"; the subcommands are: report, serve\n",
                argv[1]);
    }
    fprintf(stderr, "see " PROG " --help\n");
    return EXIT_USAGE;
}
