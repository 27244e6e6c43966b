/* SPDX-License-Identifier: Apache-2.0 */
/* gpupack-advisor: flags and wiring. `report` reads what GPUs did from Prometheus
 * (dcgm-exporter and kube-state-metrics series) and prints the findings ranked by dollars;
 * advisor/report.c runs it.
 *
 * Exit status: 0 a report, 1 Prometheus could not answer (the message names the query), 2 a bad
 * command line or file (the message names the flag). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gpupack/fileio.h"
#include "gpupack/flags.h"
#include "gpupack/log.h"
#include "gpupack/policy.h"
#include "gpupack/prom.h"
#include "render.h"
#include "report.h"

#ifndef GP_VERSION
#define GP_VERSION "0.0.0"
#endif

#define PROG "gpupack-advisor"
#define EXIT_USAGE 2

typedef struct {
    const char *prometheus, *since, *until, *step, *output, *policy, *log_level;
    const char *token_file, *ca, *cert, *key, *timeout;
    gp_flag_choice format;
    gp_flag_list headers;
    unsigned top;
    bool show_queries, quiet, help, version;
} opts;

static const char *const formats[] = { "table", "json", "markdown", "html", NULL };

static size_t flag_table(opts *o, gp_flag *f)
{
    const gp_flag t[] = {
        { .name = "prometheus", .kind = GP_FLAG_STRING, .dest = &o->prometheus, .arg = "URL", .help = "the Prometheus (or Thanos, Mimir, managed Prometheus) base URL; required", .once = true },
        { .name = "since", .kind = GP_FLAG_STRING, .dest = &o->since, .arg = "D", .help = "the window's length: 30s, 5m, 2h, 7d, 1w (default 7d)", .once = true },
        { .name = "until", .kind = GP_FLAG_STRING, .dest = &o->until, .arg = "TIME", .help = "the window's end: RFC 3339 or unix seconds (default now)", .once = true },
        { .name = "step", .kind = GP_FLAG_STRING, .dest = &o->step, .arg = "D", .help = "evaluation step (default 5m); at most 11000 steps in the window", .once = true },
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
        { .name = "policy", .kind = GP_FLAG_STRING, .dest = &o->policy, .arg = "FILE", .help = "the policy (prices, thresholds, label names); default: the embedded one", .once = true },
        { .name = "log-level", .kind = GP_FLAG_STRING, .dest = &o->log_level, .arg = "LEVEL", .help = "debug, info (default), warn or error; warn and error imply --quiet" },
        { .name = "help", .kind = GP_FLAG_BOOL, .dest = &o->help, .help = "this text" },
        { .name = "version", .kind = GP_FLAG_BOOL, .dest = &o->version, .help = "print the version" },
    };

    memcpy(f, t, sizeof(t));
    return sizeof(t) / sizeof(t[0]);
}

static const char *summary =
    "\n"
    "Reads dcgm-exporter and kube-state-metrics series through the Prometheus HTTP API at\n"
    "--prometheus URL and prints what GPUs did over the window and the findings (idle, mig,\n"
    "gpus, model, node, runaway) ranked by dollars. Subcommands: report.\n"
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

static gp_status load_policy(const char *path, gp_policy **pol, gp_err *err)
{
    char *buf = NULL, *errors = NULL;
    size_t len = 0;
    gp_status st;

    if (path == NULL)
        st = gp_policy_default(pol, &errors);
    else if ((st = gp_file_read(path, GP_POLICY_MAX_BYTES, &buf, &len, err)) == GP_OK)
        st = gp_policy_parse(buf, len, pol, &errors);
    else
        return st;
    if (st != GP_OK && errors != NULL)
        gp_err_set(err, "%s", errors);
    free(buf);
    free(errors);
    return st;
}

/* Whether the directory --output's file goes in is writable (checked before minutes of
 * queries, not after). */
static bool output_dir_writable(const char *path)
{
    const char *slash = strrchr(path, '/');
    char dir[4096];

    if (path[0] == '\0' || (slash != NULL && slash[1] == '\0')) {
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
    double timeout = 120;
    gp_log_level lvl;

    if (o->prometheus == NULL)
        return usage_error("--prometheus", "required", NULL);
    if (o->since != NULL && gp_adv_parse_duration(o->since, &r->since) != GP_OK)
        return usage_error("--since", "want a duration like 30s, 5m, 2h, 7d, 1w, got", o->since);
    if (o->step != NULL && gp_adv_parse_duration(o->step, &r->step) != GP_OK)
        return usage_error("--step", "want a duration like 30s, 5m, 2h, got", o->step);
    if (o->until != NULL && gp_adv_parse_time(o->until, &r->until) != GP_OK)
        return usage_error("--until", "want RFC 3339 (2026-12-04T16:00:00Z) or unix seconds, got",
                           o->until);
    if (o->timeout != NULL && (gp_adv_parse_duration(o->timeout, &timeout) != GP_OK ||
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
    if (o->output != NULL && !output_dir_writable(o->output))
        return usage_error("--output", strerror(errno), o->output);
    if (o->log_level != NULL && gp_log_level_parse(o->log_level, &lvl) != GP_OK)
        return usage_error("--log-level", "want debug, info, warn or error, got", o->log_level);
    return (int)(timeout * 1000 + 0.5); /* > 2: the timeout in ms */
}

static int report(int argc, char **argv)
{
    opts o = { .format = { formats, GP_ADV_FMT_TABLE }, .top = 20 };
    gp_flag flags[GP_FLAGS_MAX];
    size_t n = flag_table(&o, flags);
    gp_adv_report_opts r = { .until = (double)time(NULL), .since = 7 * 86400.0, .step = 300,
                             .log = stderr };
    gp_prom_config pc;
    gp_policy *pol = NULL;
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
    if (load_policy(o.policy, &pol, &err) != GP_OK)
        return usage_error("--policy", err.msg, NULL);
    memset(&pc, 0, sizeof(pc));
    pc.url = o.prometheus;
    pc.token_file = o.token_file;
    pc.ca_file = o.ca;
    pc.cert_file = o.cert;
    pc.key_file = o.key;
    pc.headers = o.headers.v;
    pc.nheaders = o.headers.n;
    pc.timeout_ms = (unsigned)ms;
    r.prom = &pc;
    r.pol = pol;
    r.format = (gp_adv_format)o.format.index;
    r.top = o.top;
    r.output = o.output;
    r.show_queries = o.show_queries;
    /* warn and error drop the progress lines; errors, warnings and notes always show. */
    r.quiet = o.quiet || (o.log_level != NULL && strcmp(o.log_level, "debug") != 0 &&
                          strcmp(o.log_level, "info") != 0);
    rc = gp_adv_report_run(&r);
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
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        gp_flags_usage(stdout, PROG " report", summary, flags, n);
        return 0;
    }
    if (argc >= 2 && strcmp(argv[1], "--version") == 0) {
        printf(PROG " " GP_VERSION "\n");
        return 0;
    }
    if (argc < 2) {
        fprintf(stderr, PROG ": a subcommand is required: report\n");
    } else if (argv[1][0] == '-') {
        fprintf(stderr, PROG ": %s: give the subcommand first: " PROG " report %s ...\n", argv[1],
                argv[1]);
    } else {
        fprintf(stderr, PROG ": unknown subcommand \"%s\"; the subcommands are: report\n",
                argv[1]);
    }
    fprintf(stderr, "see " PROG " --help\n");
    return EXIT_USAGE;
}
