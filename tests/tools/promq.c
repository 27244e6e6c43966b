/* SPDX-License-Identifier: Apache-2.0 */
/* promq: runs one query through lib/prom.c and prints the decoded result as JSON lines, for
 * tests/e2e/prometheus.sh. First line: {"resultType", "series", "samples", "attempts", "parts",
 * "http_status", "warnings", "infos"}; then one {"metric": {...}, "values": [[t, v], ...]} per
 * series, NaN and infinities as the strings Prometheus uses. Exit 0, 1 on a failed query (the
 * message on stderr), 2 on bad arguments.
 *
 *   promq --url URL [--token-file F] [--ca F] [--cert F --key F] [--header "N: v"]...
 *         [--connect-timeout-ms N] [--timeout-ms N] [--max-body N] [--attempts N]
 *         [--backoff-ms N] [--backoff-max-ms N] [--max-series N] [--max-samples N]
 *         [--range-points N]
 *         --query Q [--time T] | --range Q --start T --end T --step S */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpupack/prom.h"
#include "gpupack/strbuf.h"

typedef struct {
    gp_prom_config cfg;
    const char *headers[GP_PROM_MAX_HEADERS];
    const char *query, *range;
    double t, start, end, step;
} args;

static void usage(const char *msg)
{
    fprintf(stderr, "promq: %s\n", msg);
    exit(2);
}

static double num(const char *s)
{
    char *end = NULL;
    double v = strtod(s, &end);

    if (end == s || *end != '\0' || !isfinite(v) || v < 0)
        usage("want a non-negative number");
    return v;
}

static unsigned whole(const char *s)
{
    double v = num(s);

    if (v != floor(v) || v > 4e9)
        usage("want a whole number");
    return (unsigned)v;
}

static void parse(int argc, char **argv, args *a)
{
    static const struct option opts[] = {
        { "url", 1, 0, 'u' },           { "token-file", 1, 0, 'T' },    { "ca", 1, 0, 'C' },
        { "cert", 1, 0, 'c' },          { "key", 1, 0, 'k' },           { "header", 1, 0, 'H' },
        { "connect-timeout-ms", 1, 0, 1 }, { "timeout-ms", 1, 0, 2 },   { "max-body", 1, 0, 3 },
        { "attempts", 1, 0, 4 },        { "backoff-ms", 1, 0, 5 },      { "backoff-max-ms", 1, 0, 6 },
        { "max-series", 1, 0, 7 },      { "max-samples", 1, 0, 8 },     { "query", 1, 0, 'q' },
        { "range-points", 1, 0, 9 },
        { "time", 1, 0, 't' },          { "range", 1, 0, 'r' },         { "start", 1, 0, 's' },
        { "end", 1, 0, 'e' },           { "step", 1, 0, 'S' },          { 0, 0, 0, 0 }
    };
    int c;

    a->t = NAN;
    a->cfg.headers = a->headers;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'u': a->cfg.url = optarg; break;
        case 'T': a->cfg.token_file = optarg; break;
        case 'C': a->cfg.ca_file = optarg; break;
        case 'c': a->cfg.cert_file = optarg; break;
        case 'k': a->cfg.key_file = optarg; break;
        case 'H':
            if (a->cfg.nheaders == GP_PROM_MAX_HEADERS)
                usage("too many --header");
            a->headers[a->cfg.nheaders++] = optarg;
            break;
        case 1: a->cfg.connect_timeout_ms = whole(optarg); break;
        case 2: a->cfg.timeout_ms = whole(optarg); break;
        case 3: a->cfg.max_body = whole(optarg); break;
        case 4: a->cfg.max_attempts = whole(optarg); break;
        case 5: a->cfg.backoff_ms = whole(optarg); break;
        case 6: a->cfg.backoff_max_ms = whole(optarg); break;
        case 7: a->cfg.limits.max_series = whole(optarg); break;
        case 8: a->cfg.limits.max_samples = whole(optarg); break;
        case 9: a->cfg.range_points = whole(optarg); break;
        case 'q': a->query = optarg; break;
        case 't': a->t = num(optarg); break;
        case 'r': a->range = optarg; break;
        case 's': a->start = num(optarg); break;
        case 'e': a->end = num(optarg); break;
        case 'S': a->step = num(optarg); break;
        default: usage("unknown argument");
        }
    }
    if (optind != argc || (a->query == NULL) == (a->range == NULL))
        usage("want exactly one of --query and --range");
}

static void put_value(gp_strbuf *b, double v)
{
    if (isnan(v))
        gp_strbuf_puts(b, "\"NaN\"");
    else if (isinf(v))
        gp_strbuf_puts(b, v > 0 ? "\"+Inf\"" : "\"-Inf\"");
    else
        gp_strbuf_printf(b, "%.17g", v);
}

static void put_strings(gp_strbuf *b, const char *name, char **v, size_t n)
{
    gp_strbuf_printf(b, ",\"%s\":[", name);
    for (size_t i = 0; i < n; i++) {
        gp_strbuf_puts(b, i ? "," : "");
        gp_strbuf_json_string(b, v[i]);
    }
    gp_strbuf_puts(b, "]");
}

static void put_series(gp_strbuf *b, const gp_prom_series *s)
{
    gp_strbuf_puts(b, "{\"metric\":{");
    for (size_t i = 0; i < s->nlabels; i++) {
        gp_strbuf_puts(b, i ? "," : "");
        gp_strbuf_json_string(b, s->labels[i].name);
        gp_strbuf_puts(b, ":");
        gp_strbuf_json_string(b, s->labels[i].value);
    }
    gp_strbuf_puts(b, "},\"values\":[");
    for (size_t i = 0; i < s->nsamples; i++) {
        gp_strbuf_printf(b, "%s[%.3f,", i ? "," : "", s->samples[i].t);
        put_value(b, s->samples[i].v);
        gp_strbuf_puts(b, "]");
    }
    gp_strbuf_puts(b, "]}\n");
}

static int print(const gp_prom_result *r, gp_prom_stats st)
{
    gp_strbuf b;
    size_t samples = 0;
    char *text = NULL;
    size_t len;

    for (size_t i = 0; i < r->nseries; i++)
        samples += r->series[i].nsamples;
    gp_strbuf_init(&b, 0);
    gp_strbuf_printf(&b, "{\"resultType\":\"%s\",\"series\":%zu,\"samples\":%zu,\"attempts\":%u,"
                     "\"parts\":%u,\"http_status\":%ld", gp_prom_kind_str(r->kind), r->nseries,
                     samples, st.attempts, st.parts, st.http_status);
    put_strings(&b, "warnings", r->warnings, r->nwarnings);
    put_strings(&b, "infos", r->infos, r->ninfos);
    gp_strbuf_puts(&b, "}\n");
    for (size_t i = 0; i < r->nseries; i++)
        put_series(&b, &r->series[i]);
    if (gp_strbuf_take(&b, &text, &len) != GP_OK)
        return 1;
    fwrite(text, 1, len, stdout);
    free(text);
    return 0;
}

int main(int argc, char **argv)
{
    args a = { 0 };
    gp_prom *p = NULL;
    gp_prom_result *r = NULL;
    gp_err err = { "" };
    gp_status st;
    int rc;

    parse(argc, argv, &a);
    if ((st = gp_prom_new(&a.cfg, &p, &err)) != GP_OK) {
        fprintf(stderr, "promq: %s\n", err.msg);
        return 2;
    }
    st = a.query ? gp_prom_query(p, a.query, a.t, &r, &err)
                 : gp_prom_query_range(p, a.range, a.start, a.end, a.step, &r, &err);
    if (st != GP_OK) {
        fprintf(stderr, "promq: %s (after %u attempts, %.1f s)\n", err.msg,
                gp_prom_last_stats(p).attempts, gp_prom_last_stats(p).seconds);
        gp_prom_free(p);
        return 1;
    }
    rc = print(r, gp_prom_last_stats(p));
    gp_prom_result_free(r);
    gp_prom_free(p);
    return rc;
}
