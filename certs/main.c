/* SPDX-License-Identifier: Apache-2.0 */
/* gpupack-certs: flags, then lib/certgen.c makes a CA and a serving certificate for the
 * webhook's Service, or lib/tlsfiles.c checks a certificate (`--check`).
 *
 * Exit status: 0 done (or, with --check, the certificate is usable), 1 a run-time failure (a file
 * exists, an I/O or OpenSSL error, a certificate that is not usable), 2 a bad command line, an
 * unreadable input file or an invalid --policy (checked as the daemons check it, before anything
 * is written). */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gpupack/base64.h"
#include "gpupack/certgen.h"
#include "gpupack/daemon.h"
#include "gpupack/dnsname.h"
#include "gpupack/fileio.h"
#include "gpupack/flags.h"
#include "gpupack/log.h"
#include "gpupack/status.h"
#include "gpupack/tlsfiles.h"

#ifndef GP_VERSION
#define GP_VERSION "0.0.0"
#endif

#define PROG "gpupack-certs"
#define EXIT_USAGE 2
#define DEFAULT_RSA_BITS 2048

typedef struct {
    const char *service, *ns, *out;
    unsigned days, ca_days, rsa_bits; /* rsa_bits 0: not given */
    gp_flag_choice key_type;          /* index KEY_ECDSA or KEY_RSA */
    gp_flag_list ips, dns;
    bool force, help, version;
    const char *check, *key, *ca, *policy, *log_level;
    gp_log_level level;
} opts;

/* ---- command line ------------------------------------------------------------------------ */

enum { KEY_ECDSA, KEY_RSA };
static const char *const key_types[] = { [KEY_ECDSA] = "ecdsa", [KEY_RSA] = "rsa", NULL };

static size_t flag_table(opts *o, gp_flag *f)
{
    const gp_flag t[] = {
        { .name = "service", .kind = GP_FLAG_STRING, .dest = &o->service, .arg = "NAME", .help = "the Service name (a DNS label)", .once = true },
        { .name = "namespace", .kind = GP_FLAG_STRING, .dest = &o->ns, .arg = "NS", .help = "the Service's namespace (a DNS label)", .once = true },
        { .name = "out", .kind = GP_FLAG_STRING, .dest = &o->out, .arg = "DIR", .help = "where to write the four files", .once = true },
        { .name = "days", .kind = GP_FLAG_UINT, .dest = &o->days, .min = 1, .max = 3650, .arg = "N", .help = "serving certificate lifetime, 1..3650 (default 365)" },
        { .name = "ca-days", .kind = GP_FLAG_UINT, .dest = &o->ca_days, .min = 1, .max = 36500, .arg = "N", .help = "CA lifetime, 1..36500, at least --days (default 3650)" },
        { .name = "ip", .kind = GP_FLAG_LIST, .dest = &o->ips, .min = 0, .max = GP_CERTGEN_MAX_EXTRA, .arg = "IP", .help = "an extra IPv4/IPv6 SAN (repeatable, up to 64)" },
        { .name = "dns", .kind = GP_FLAG_LIST, .dest = &o->dns, .min = 0, .max = GP_CERTGEN_MAX_EXTRA, .arg = "NAME", .help = "an extra DNS SAN (repeatable, up to 64)" },
        { .name = "key-type", .kind = GP_FLAG_CHOICE, .dest = &o->key_type, .arg = "T", .help = "ecdsa (P-256, default) or rsa" },
        { .name = "rsa-bits", .kind = GP_FLAG_UINT, .dest = &o->rsa_bits, .min = 2048, .max = 8192, .arg = "N", .help = "RSA key size, 2048..8192 (default 2048; needs --key-type rsa)" },
        { .name = "force", .kind = GP_FLAG_BOOL, .dest = &o->force, .help = "overwrite existing files (each is replaced atomically)" },
        { .name = "check", .kind = GP_FLAG_STRING, .dest = &o->check, .arg = "FILE", .help = "describe a PEM certificate; exit 0 when it is usable now", .once = true },
        { .name = "key", .kind = GP_FLAG_STRING, .dest = &o->key, .arg = "FILE", .help = "with --check: also require that this private key matches", .once = true },
        { .name = "ca", .kind = GP_FLAG_STRING, .dest = &o->ca, .arg = "FILE", .help = "with --check: also require that it verifies against this CA", .once = true },
        { .name = "log-level", .kind = GP_FLAG_STRING, .dest = &o->log_level, .arg = "LEVEL", .help = "debug, info (default), warn or error: what goes to stderr" },
        { .name = "policy", .kind = GP_FLAG_STRING, .dest = &o->policy, .arg = "FILE", .help = "a gpupack policy, validated as every gpupack program validates it (exit 2 when it is not); nothing here uses it", .once = true },
        { .name = "help", .kind = GP_FLAG_BOOL, .dest = &o->help, .help = "this text" },
        { .name = "version", .kind = GP_FLAG_BOOL, .dest = &o->version, .help = "print the version" },
    };

    memcpy(f, t, sizeof(t));
    return sizeof(t) / sizeof(t[0]);
}

static const char *summary =
    "       " PROG " --service NAME --namespace NS --out DIR [flags]\n"
    "       " PROG " --check FILE [--key FILE] [--ca FILE]\n"
    "\n"
    "Makes a CA and a serving certificate for a Kubernetes Service: writes DIR/ca.crt,\n"
    "DIR/ca.key, DIR/tls.crt, DIR/tls.key (keys 0600; DIR is created 0700) and prints the\n"
    "base64 of ca.crt on stdout, ready for a webhook's caBundle. The serving certificate's\n"
    "SANs are NAME, NAME.NS, NAME.NS.svc, NAME.NS.svc.cluster.local and every --dns/--ip.\n"
    "\n"
    "Exit status: 0 success, 1 failure (file exists, certificate not usable, ...),\n"
    "2 bad command line, unreadable file or invalid --policy.";

static void flag_error(int *nerr, const char *flag, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void flag_error(int *nerr, const char *flag, const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, PROG ": %s: ", flag);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    (*nerr)++;
}

static bool is_ip(const char *s)
{
    unsigned char buf[16];

    return inet_pton(AF_INET, s, buf) == 1 || inet_pton(AF_INET6, s, buf) == 1;
}

static void validate_names(const opts *o, int *nerr)
{
    static const char *const missing[] = { "--service", "--namespace", "--out" };
    const char *given[] = { o->service, o->ns, o->out };

    for (size_t i = 0; i < 3; i++) {
        if (given[i] == NULL)
            flag_error(nerr, missing[i], "required (or use --check FILE)");
    }
    for (size_t i = 0; i < 2; i++) {
        if (given[i] != NULL && !gp_dns_label(given[i], strlen(given[i])))
            flag_error(nerr, missing[i], "'%s' is not a DNS label (a-z, 0-9, '-', at most 63)",
                       given[i]);
    }
    for (size_t i = 0; i < o->ips.n; i++) {
        if (!is_ip(o->ips.v[i]))
            flag_error(nerr, "--ip", "'%s' is not an IPv4 or IPv6 address", o->ips.v[i]);
    }
    for (size_t i = 0; i < o->dns.n; i++) {
        if (is_ip(o->dns.v[i]))
            flag_error(nerr, "--dns", "'%s' is an IP address; use --ip", o->dns.v[i]);
        else if (!gp_dns_host(o->dns.v[i]))
            flag_error(nerr, "--dns", "'%s' is not a DNS name", o->dns.v[i]);
    }
}

static void validate_generate(const opts *o, int *nerr)
{
    validate_names(o, nerr);
    if (o->rsa_bits != 0 && o->key_type.index != KEY_RSA)
        flag_error(nerr, "--rsa-bits", "needs --key-type rsa");
    if (o->days > o->ca_days)
        flag_error(nerr, "--days", "%u is longer than --ca-days %u", o->days, o->ca_days);
    if (o->key != NULL)
        flag_error(nerr, "--key", "only with --check");
    if (o->ca != NULL)
        flag_error(nerr, "--ca", "only with --check");
}

static void validate_check(const opts *o, int *nerr)
{
    if (o->service != NULL || o->ns != NULL || o->out != NULL || o->ips.n > 0 || o->dns.n > 0 ||
        o->force)
        flag_error(nerr, "--check", "cannot be combined with the generation flags "
                                    "(--service, --namespace, --out, --ip, --dns, --force)");
}

/* Every error after parsing (each printed); the command line itself parsed. */
static int validate(opts *o)
{
    int nerr = 0;

    if (o->log_level != NULL && gp_log_level_parse(o->log_level, &o->level) != GP_OK)
        flag_error(&nerr, "--log-level", "'%s' is not one of debug, info, warn, error",
                   o->log_level);
    if (o->check != NULL)
        validate_check(o, &nerr);
    else
        validate_generate(o, &nerr);
    return nerr;
}

/* ---- messages ---------------------------------------------------------------------------- */

static void note(const opts *o, gp_log_level lvl, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void note(const opts *o, gp_log_level lvl, const char *fmt, ...)
{
    va_list ap;

    if (lvl < o->level)
        return;
    fputs(PROG ": ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

/* ---- generate mode ----------------------------------------------------------------------- */

static gp_certgen_spec spec_of(const opts *o)
{
    return (gp_certgen_spec){
        .service = o->service, .ns = o->ns, .dns = o->dns.v, .ndns = o->dns.n,
        .ips = o->ips.v, .nips = o->ips.n, .days = o->days, .ca_days = o->ca_days,
        .rsa = o->key_type.index == KEY_RSA, .rsa_bits = o->rsa_bits ? o->rsa_bits : DEFAULT_RSA_BITS,
    };
}

/* The caBundle: base64 of ca.crt's PEM, one line. */
static bool print_ca_bundle(const gp_cert_files *f)
{
    char *b64 = gp_base64_encode(f->pem[GP_CERT_CA_CRT], f->len[GP_CERT_CA_CRT]);
    bool ok = b64 != NULL && printf("%s\n", b64) > 0 && fflush(stdout) == 0;

    free(b64);
    return ok;
}

static int run_generate(const opts *o)
{
    gp_certgen_spec spec = spec_of(o);
    gp_cert_files files;
    gp_err err = { "" };
    int rc = 1;

    memset(&files, 0, sizeof(files));
    if (!o->force && !gp_certgen_none_exist(o->out, &err))
        goto fail;
    note(o, GP_LOG_DEBUG, "generating %s keys", spec.rsa ? "RSA" : "EC P-256");
    if (gp_certgen_make(&spec, (int64_t)time(NULL), &files, &err) != GP_OK ||
        gp_certgen_write(&files, o->out, o->force, &err) != GP_OK)
        goto fail;
    if (!print_ca_bundle(&files)) {
        gp_err_set(&err, "writing the CA bundle to stdout failed");
        goto fail;
    }
    note(o, GP_LOG_INFO, "wrote ca.crt, ca.key, tls.crt, tls.key in %s (%s.%s.svc, %u days)",
         o->out, o->service, o->ns, o->days);
    rc = 0;
fail:
    if (rc != 0)
        note(o, GP_LOG_ERROR, "%s", err.msg);
    gp_cert_files_free(&files);
    return rc;
}

/* ---- check mode -------------------------------------------------------------------------- */

/* Reads a file named by flag; failure is a usage error (exit 2), reported here. */
static bool read_input(const char *flag, const char *path, char **buf, size_t *len)
{
    gp_err err = { "" };
    gp_status st = gp_file_read(path, GP_TLS_MAX_PEM, buf, len, &err);

    if (st != GP_OK) {
        fprintf(stderr, PROG ": %s: %s\n", flag,
                err.msg[0] != '\0' ? err.msg : gp_status_str(st));
        return false;
    }
    return true;
}

static long days_left(int64_t not_after, int64_t now)
{
    int64_t d = not_after - now;

    return (long)(d >= 0 ? d / 86400 : -((-d + 86399) / 86400));
}

static void print_info(const gp_cert_info *info, int64_t now, bool with_key)
{
    char nb[32], na[32];

    gp_tls_format_time(info->not_before, nb, sizeof(nb));
    gp_tls_format_time(info->not_after, na, sizeof(na));
    printf("subject:    %s\n", info->subject);
    printf("issuer:     %s\n", info->issuer);
    printf("sans:       %s\n", info->nsans > 0 ? info->sans : "(none)");
    printf("not before: %s\n", nb);
    printf("not after:  %s\n", na);
    printf("days left:  %ld\n", days_left(info->not_after, now));
    printf("key type:   %s\n", info->key_type);
    if (with_key)
        printf("key:        %s\n", info->key_matches ? "matches" : "does not match");
}

static int run_check(const opts *o)
{
    char *cert = NULL, *key = NULL, *ca = NULL;
    size_t cert_len = 0, key_len = 0, ca_len = 0;
    gp_err err = { "" }, ca_err = { "" };
    gp_cert_info info;
    int64_t now = (int64_t)time(NULL);
    bool usable, verified = true;
    int rc = EXIT_USAGE;

    if (!read_input("--check", o->check, &cert, &cert_len) ||
        (o->key != NULL && !read_input("--key", o->key, &key, &key_len)) ||
        (o->ca != NULL && !read_input("--ca", o->ca, &ca, &ca_len)))
        goto done;
    usable = gp_tls_check_pair(cert, cert_len, key, key_len, now, &info, &err) == GP_OK;
    printf("file:       %s\n", o->check);
    if (info.key_type[0] != '\0') /* the certificate parsed */
        print_info(&info, now, o->key != NULL);
    if (o->ca != NULL) {
        verified = gp_tls_verify_with_ca(cert, cert_len, ca, ca_len, now, &ca_err) == GP_OK;
        printf("ca:         %s%s\n", verified ? "verified by " : "does not verify: ",
               verified ? o->ca : ca_err.msg);
    }
    printf("status:     %s%s\n", usable && verified ? "usable" : "NOT usable: ",
           usable ? (verified ? "" : "does not verify against the CA") : err.msg);
    if (!usable)
        note(o, GP_LOG_ERROR, "%s: %s", o->check, err.msg);
    if (!verified)
        note(o, GP_LOG_ERROR, "%s: does not verify against %s: %s", o->check, o->ca, ca_err.msg);
    rc = usable && verified ? 0 : 1;
done:
    free(cert);
    free(key);
    free(ca);
    return rc;
}

/* ---- main -------------------------------------------------------------------------------- */

int main(int argc, char **argv)
{
    opts o = { .days = 365, .ca_days = 3650, .key_type = { key_types, KEY_ECDSA },
               .level = GP_LOG_INFO };
    gp_flag flags[24];
    size_t n = flag_table(&o, flags);
    gp_err err = { "" };
    gp_policy *pol = NULL;

    if (gp_flags_parse(flags, n, argc, argv, &err) != GP_OK)
        return gp_flags_fail(stderr, PROG, err.msg);
    if (o.help) {
        gp_flags_usage(stdout, PROG, summary, flags, n);
        return 0;
    }
    if (o.version) {
        printf(PROG " " GP_VERSION "\n");
        return 0;
    }
    if (validate(&o) > 0) {
        fprintf(stderr, "see " PROG " --help\n");
        return EXIT_USAGE;
    }
    /* The policy as the daemons load it, before anything is written. */
    if (gp_daemon_policy_flag(PROG, o.policy, &pol, NULL) != 0)
        return EXIT_USAGE;
    gp_policy_unref(pol);
    return o.check != NULL ? run_check(&o) : run_generate(&o);
}
