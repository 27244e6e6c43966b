/* SPDX-License-Identifier: Apache-2.0 */
/* gpupack-certs: makes a CA and a serving certificate for the webhook's Service, or checks a
 * certificate (`--check`). OpenSSL 3 EVP/X509 APIs only; nothing is shelled out.
 *
 * Exit status: 0 done (or, with --check, the certificate is usable), 1 a run-time failure (a file
 * exists, an I/O or OpenSSL error, a certificate that is not usable), 2 a bad command line or an
 * unreadable input file.
 *
 * The generation code lives here for now; it is the only user. */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "gpupack/fileio.h"
#include "gpupack/status.h"
#include "gpupack/tlsfiles.h"

#ifndef GP_VERSION
#define GP_VERSION "0.0.0"
#endif

#define PROG "gpupack-certs"
#define MAX_EXTRA 64          /* --ip values, and separately --dns values */
#define MAX_DNS_NAME 253      /* RFC 1035 */
#define MAX_LABEL 63          /* DNS label, Kubernetes Service and namespace names */
#define MAX_CN 64             /* ub-common-name, RFC 5280 */
#define BACKDATE_S 3600       /* notBefore is an hour early, to tolerate clock skew */
#define EXIT_USAGE 2

typedef enum { LVL_DEBUG = 0, LVL_INFO = 1, LVL_WARN = 2, LVL_ERROR = 3 } level;

typedef struct {
    const char *service, *ns, *out;
    long days, ca_days, rsa_bits;
    const char *ips[MAX_EXTRA];
    size_t nips;
    const char *dns[MAX_EXTRA];
    size_t ndns;
    bool rsa, rsa_bits_set, force, help, version;
    const char *check, *key, *ca, *policy;
    level log_level;
} opts;

/* ---- command line ------------------------------------------------------------------------ */

typedef enum {
    F_SERVICE, F_NAMESPACE, F_OUT, F_DAYS, F_CA_DAYS, F_IP, F_DNS, F_KEY_TYPE, F_RSA_BITS,
    F_FORCE, F_CHECK, F_KEY, F_CA, F_HELP, F_VERSION, F_LOG_LEVEL, F_POLICY
} flag_id;

typedef struct {
    const char *name;
    flag_id id;
    bool takes_value;
} flag_spec;

static const flag_spec flag_table[] = {
    { "--service", F_SERVICE, true },     { "--namespace", F_NAMESPACE, true },
    { "--out", F_OUT, true },             { "--days", F_DAYS, true },
    { "--ca-days", F_CA_DAYS, true },     { "--ip", F_IP, true },
    { "--dns", F_DNS, true },             { "--key-type", F_KEY_TYPE, true },
    { "--rsa-bits", F_RSA_BITS, true },   { "--force", F_FORCE, false },
    { "--check", F_CHECK, true },         { "--key", F_KEY, true },
    { "--ca", F_CA, true },               { "--help", F_HELP, false },
    { "--version", F_VERSION, false },    { "--log-level", F_LOG_LEVEL, true },
    { "--policy", F_POLICY, true },
};

static void usage(FILE *f)
{
    fprintf(f,
        "usage: " PROG " --service NAME --namespace NS --out DIR [options]\n"
        "       " PROG " --check FILE [--key FILE] [--ca FILE]\n"
        "\n"
        "Makes a CA and a serving certificate for a Kubernetes Service: writes DIR/ca.crt,\n"
        "DIR/ca.key, DIR/tls.crt, DIR/tls.key (keys 0600; DIR is created 0700) and prints the\n"
        "base64 of ca.crt on stdout, ready for a webhook's caBundle. The serving certificate's\n"
        "SANs are NAME, NAME.NS, NAME.NS.svc, NAME.NS.svc.cluster.local and every --dns/--ip.\n"
        "\n"
        "  --service NAME      the Service name (a DNS label)\n"
        "  --namespace NS      the Service's namespace (a DNS label)\n"
        "  --out DIR           where to write the four files\n"
        "  --days N            serving certificate lifetime, 1..3650 (default 365)\n"
        "  --ca-days N         CA lifetime, 1..36500, at least --days (default 3650)\n"
        "  --ip IP             an extra IPv4/IPv6 SAN (repeatable, up to %d)\n"
        "  --dns NAME          an extra DNS SAN (repeatable, up to %d)\n"
        "  --key-type T        ecdsa (P-256, default) or rsa\n"
        "  --rsa-bits N        RSA key size, 2048..8192 (default 2048; needs --key-type rsa)\n"
        "  --force             overwrite existing files (each is replaced atomically)\n"
        "\n"
        "  --check FILE        describe a PEM certificate; exit 0 when it is usable now\n"
        "  --key FILE          with --check: also require that this private key matches\n"
        "  --ca FILE           with --check: also require that it verifies against this CA\n"
        "\n"
        "  --log-level L       debug, info (default), warn or error: what goes to stderr\n"
        "  --policy FILE       accepted like every gpupack program (checked readable, unused)\n"
        "  --help, --version\n"
        "\n"
        "Exit status: 0 success, 1 failure (file exists, certificate not usable, ...),\n"
        "2 bad command line or unreadable file.\n",
        MAX_EXTRA, MAX_EXTRA);
}

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

/* The one number parser: decimal, the whole string, within [min, max]. */
static bool parse_long(const char *flag, const char *s, long min, long max, long *out, int *nerr)
{
    char *end = NULL;
    long v;

    if (!isdigit((unsigned char)s[0]) && !(s[0] == '-' && isdigit((unsigned char)s[1]))) {
        flag_error(nerr, flag, "'%s' is not an integer", s);
        return false;
    }
    errno = 0;
    v = strtol(s, &end, 10);
    if (end == s || *end != '\0') {
        flag_error(nerr, flag, "'%s' is not an integer", s);
        return false;
    }
    if (errno == ERANGE || v < min || v > max) {
        flag_error(nerr, flag, "%s is out of range (%ld..%ld)", s, min, max);
        return false;
    }
    *out = v;
    return true;
}

static bool parse_level(const char *s, level *out)
{
    static const struct { const char *name; level lvl; } levels[] = {
        { "debug", LVL_DEBUG }, { "info", LVL_INFO }, { "warn", LVL_WARN },
        { "warning", LVL_WARN }, { "error", LVL_ERROR },
    };

    for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++) {
        if (strcmp(s, levels[i].name) == 0) {
            *out = levels[i].lvl;
            return true;
        }
    }
    return false;
}

/* A single-valued flag given twice is an error rather than a silent override. */
static void set_once(const char **slot, const char *flag, const char *value, int *nerr)
{
    if (*slot != NULL)
        flag_error(nerr, flag, "given more than once");
    *slot = value;
}

static void add_extra(const char **list, size_t *n, const char *flag, const char *v, int *nerr)
{
    if (*n >= MAX_EXTRA) {
        flag_error(nerr, flag, "more than %d values", MAX_EXTRA);
        return;
    }
    list[(*n)++] = v;
}

static void apply_flag(opts *o, const flag_spec *f, const char *v, int *nerr)
{
    switch (f->id) {
    case F_SERVICE: set_once(&o->service, f->name, v, nerr); break;
    case F_NAMESPACE: set_once(&o->ns, f->name, v, nerr); break;
    case F_OUT: set_once(&o->out, f->name, v, nerr); break;
    case F_DAYS: (void)parse_long(f->name, v, 1, 3650, &o->days, nerr); break;
    case F_CA_DAYS: (void)parse_long(f->name, v, 1, 36500, &o->ca_days, nerr); break;
    case F_IP: add_extra(o->ips, &o->nips, f->name, v, nerr); break;
    case F_DNS: add_extra(o->dns, &o->ndns, f->name, v, nerr); break;
    case F_KEY_TYPE:
        if (strcmp(v, "ecdsa") == 0 || strcmp(v, "rsa") == 0)
            o->rsa = strcmp(v, "rsa") == 0;
        else
            flag_error(nerr, f->name, "'%s' is not one of ecdsa, rsa", v);
        break;
    case F_RSA_BITS:
        o->rsa_bits_set = parse_long(f->name, v, 2048, 8192, &o->rsa_bits, nerr);
        break;
    case F_FORCE: o->force = true; break;
    case F_CHECK: set_once(&o->check, f->name, v, nerr); break;
    case F_KEY: set_once(&o->key, f->name, v, nerr); break;
    case F_CA: set_once(&o->ca, f->name, v, nerr); break;
    case F_HELP: o->help = true; break;
    case F_VERSION: o->version = true; break;
    case F_LOG_LEVEL:
        if (!parse_level(v, &o->log_level))
            flag_error(nerr, f->name, "'%s' is not one of debug, info, warn, error", v);
        break;
    case F_POLICY: set_once(&o->policy, f->name, v, nerr); break;
    }
}

static const flag_spec *find_flag(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof(flag_table) / sizeof(flag_table[0]); i++) {
        if (strlen(flag_table[i].name) == len && strncmp(flag_table[i].name, name, len) == 0)
            return &flag_table[i];
    }
    return NULL;
}

/* Parses "--flag value" and "--flag=value". Returns the number of errors (each already printed). */
static int parse_args(int argc, char **argv, opts *o)
{
    int nerr = 0;

    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i], *eq = strchr(arg, '='), *v = NULL;
        size_t len = eq != NULL ? (size_t)(eq - arg) : strlen(arg);
        const flag_spec *f = strncmp(arg, "--", 2) == 0 ? find_flag(arg, len)
                             : strcmp(arg, "-h") == 0   ? find_flag("--help", 6)
                                                        : NULL;

        if (f == NULL) {
            flag_error(&nerr, arg, strncmp(arg, "-", 1) == 0 ? "unknown flag"
                                                              : "unexpected argument");
            continue;
        }
        if (!f->takes_value) {
            if (eq != NULL)
                flag_error(&nerr, f->name, "takes no value");
            else
                apply_flag(o, f, "", &nerr);
            continue;
        }
        if (eq != NULL)
            v = eq + 1;
        else if (i + 1 < argc && strncmp(argv[i + 1], "--", 2) != 0)
            v = argv[++i];
        if (v == NULL || v[0] == '\0') {
            flag_error(&nerr, f->name, "missing value");
            continue;
        }
        apply_flag(o, f, v, &nerr);
    }
    return nerr;
}

/* A DNS-1123 label: 1..63 of [a-z0-9-], starting and ending with a letter or digit. */
static bool is_label(const char *s, size_t len, bool allow_upper)
{
    if (len == 0 || len > MAX_LABEL || s[0] == '-' || s[len - 1] == '-')
        return false;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];

        if (!(islower(c) || isdigit(c) || c == '-' || (allow_upper && isupper(c))))
            return false;
    }
    return true;
}

/* A host name for a DNS SAN; the first label may be "*" (a wildcard). */
static bool is_dns_name(const char *s)
{
    size_t n = strlen(s);
    const char *p = strncmp(s, "*.", 2) == 0 ? s + 2 : s;

    if (n == 0 || n > MAX_DNS_NAME)
        return false;
    for (;;) {
        const char *dot = strchr(p, '.');
        size_t len = dot != NULL ? (size_t)(dot - p) : strlen(p);

        if (!is_label(p, len, true)) /* also refuses "a..b" and a trailing dot */
            return false;
        if (dot == NULL)
            return true;
        p = dot + 1;
    }
}

static bool is_ip(const char *s)
{
    unsigned char buf[16];

    return inet_pton(AF_INET, s, buf) == 1 || inet_pton(AF_INET6, s, buf) == 1;
}

static bool readable(const char *path, char *why, size_t n)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    char c;

    if (fd < 0 || read(fd, &c, 1) < 0) {
        snprintf(why, n, "%s", strerror(errno));
        if (fd >= 0)
            close(fd);
        return false;
    }
    close(fd);
    return true;
}

static void validate_generate(const opts *o, int *nerr)
{
    static const char *const missing[] = { "--service", "--namespace", "--out" };
    const char *given[] = { o->service, o->ns, o->out };

    for (size_t i = 0; i < 3; i++) {
        if (given[i] == NULL)
            flag_error(nerr, missing[i], "required (or use --check FILE)");
    }
    if (o->service != NULL && !is_label(o->service, strlen(o->service), false))
        flag_error(nerr, "--service", "'%s' is not a DNS label (a-z, 0-9, '-', at most 63)",
                   o->service);
    if (o->ns != NULL && !is_label(o->ns, strlen(o->ns), false))
        flag_error(nerr, "--namespace", "'%s' is not a DNS label (a-z, 0-9, '-', at most 63)",
                   o->ns);
    for (size_t i = 0; i < o->nips; i++) {
        if (!is_ip(o->ips[i]))
            flag_error(nerr, "--ip", "'%s' is not an IPv4 or IPv6 address", o->ips[i]);
    }
    for (size_t i = 0; i < o->ndns; i++) {
        if (is_ip(o->dns[i]))
            flag_error(nerr, "--dns", "'%s' is an IP address; use --ip", o->dns[i]);
        else if (!is_dns_name(o->dns[i]))
            flag_error(nerr, "--dns", "'%s' is not a DNS name", o->dns[i]);
    }
    if (o->rsa_bits_set && !o->rsa)
        flag_error(nerr, "--rsa-bits", "needs --key-type rsa");
    if (o->days > o->ca_days)
        flag_error(nerr, "--days", "%ld is longer than --ca-days %ld", o->days, o->ca_days);
    if (o->key != NULL)
        flag_error(nerr, "--key", "only with --check");
    if (o->ca != NULL)
        flag_error(nerr, "--ca", "only with --check");
}

static void validate_check(const opts *o, int *nerr)
{
    if (o->service != NULL || o->ns != NULL || o->out != NULL || o->nips > 0 || o->ndns > 0 ||
        o->force)
        flag_error(nerr, "--check", "cannot be combined with the generation flags "
                                    "(--service, --namespace, --out, --ip, --dns, --force)");
}

/* ---- messages ---------------------------------------------------------------------------- */

static void note(const opts *o, level lvl, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void note(const opts *o, level lvl, const char *fmt, ...)
{
    va_list ap;

    if (lvl < o->log_level)
        return;
    fputs(PROG ": ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

/* Sets err to "what: <OpenSSL's reason>" and empties the OpenSSL error queue. */
static void ossl_error(gp_err *err, const char *what)
{
    char reason[256];
    unsigned long e = ERR_peek_last_error();

    if (e != 0)
        ERR_error_string_n(e, reason, sizeof(reason));
    else
        snprintf(reason, sizeof(reason), "unknown error");
    gp_err_set(err, "%s: %s", what, reason);
    ERR_clear_error();
}

/* ---- certificate generation -------------------------------------------------------------- */

static EVP_PKEY *make_key(const opts *o, gp_err *err)
{
    EVP_PKEY *k = o->rsa ? EVP_RSA_gen((unsigned int)o->rsa_bits) : EVP_EC_gen("P-256");

    if (k == NULL)
        ossl_error(err, "key generation failed");
    return k;
}

/* A random positive 128-bit serial number (RFC 5280: at most 20 octets, unpredictable). */
static bool set_serial(X509 *x)
{
    unsigned char raw[16];
    BIGNUM *bn;
    bool ok;

    if (RAND_bytes(raw, sizeof(raw)) != 1)
        return false;
    raw[sizeof(raw) - 1] |= 1; /* never zero */
    bn = BN_bin2bn(raw, sizeof(raw), NULL);
    ok = bn != NULL && BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(x)) != NULL;
    BN_free(bn);
    return ok;
}

static bool set_validity(X509 *x, time_t now, long days)
{
    time_t t = now;

    return X509_time_adj_ex(X509_getm_notBefore(x), 0, -BACKDATE_S, &t) != NULL &&
           X509_time_adj_ex(X509_getm_notAfter(x), (int)days, 0, &t) != NULL;
}

static bool set_subject_cn(X509 *x, const char *cn)
{
    X509_NAME *name = X509_get_subject_name(x);

    return X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *)cn, -1,
                                      -1, 0) == 1;
}

/* Adds one extension written in OpenSSL's config syntax; values here are constants. */
static bool add_ext(X509 *issuer, X509 *subject, int nid, const char *value)
{
    X509V3_CTX ctx;
    X509_EXTENSION *ext;
    bool ok;

    X509V3_set_ctx(&ctx, issuer, subject, NULL, NULL, 0);
    ext = X509V3_EXT_conf_nid(NULL, &ctx, nid, value);
    if (ext == NULL)
        return false;
    ok = X509_add_ext(subject, ext, -1) == 1;
    X509_EXTENSION_free(ext);
    return ok;
}

/* The fields every certificate here shares: version 3, serial, validity, subject, key. */
static bool init_cert(X509 *x, EVP_PKEY *key, const char *cn, time_t now, long days)
{
    return X509_set_version(x, X509_VERSION_3) == 1 && set_serial(x) &&
           set_validity(x, now, days) && set_subject_cn(x, cn) && X509_set_pubkey(x, key) == 1;
}

static X509 *make_ca(EVP_PKEY *key, time_t now, long days, gp_err *err)
{
    X509 *x = X509_new();
    char cn[MAX_CN + 1];

    /* A distinct name per CA, as Kubernetes does ("name-ca@unixtime"), so two generations of
     * gpupack CAs in one trust store are never confused by name. */
    snprintf(cn, sizeof(cn), "gpupack-ca@%lld", (long long)now);
    if (x == NULL || !init_cert(x, key, cn, now, days) ||
        X509_set_issuer_name(x, X509_get_subject_name(x)) != 1 ||
        !add_ext(x, x, NID_basic_constraints, "critical,CA:TRUE,pathlen:0") ||
        !add_ext(x, x, NID_key_usage, "critical,keyCertSign,cRLSign") ||
        !add_ext(x, x, NID_subject_key_identifier, "hash") ||
        X509_sign(x, key, EVP_sha256()) <= 0) {
        ossl_error(err, "making the CA certificate failed");
        X509_free(x);
        return NULL;
    }
    return x;
}

static bool has_san(GENERAL_NAMES *gens, int type, const ASN1_STRING *value)
{
    for (int i = 0; i < sk_GENERAL_NAME_num(gens); i++) {
        const GENERAL_NAME *gn = sk_GENERAL_NAME_value(gens, i);

        if (gn->type == type && ASN1_STRING_cmp(gn->d.ia5, value) == 0)
            return true;
    }
    return false;
}

/* Takes value: on every path it is either in gens or freed. Duplicates are dropped. */
static bool push_san(GENERAL_NAMES *gens, int type, ASN1_STRING *value)
{
    GENERAL_NAME *gn;

    if (value == NULL)
        return false;
    if (has_san(gens, type, value)) {
        ASN1_STRING_free(value);
        return true;
    }
    gn = GENERAL_NAME_new();
    if (gn == NULL) {
        ASN1_STRING_free(value);
        return false;
    }
    GENERAL_NAME_set0_value(gn, type, value);
    if (sk_GENERAL_NAME_push(gens, gn) <= 0) {
        GENERAL_NAME_free(gn);
        return false;
    }
    return true;
}

static bool push_dns(GENERAL_NAMES *gens, const char *name)
{
    char lower[MAX_DNS_NAME + 1];
    ASN1_IA5STRING *s = ASN1_IA5STRING_new();
    size_t i;

    /* DNS names compare case-insensitively; storing them lower-case makes duplicates equal. */
    for (i = 0; i < MAX_DNS_NAME && name[i] != '\0'; i++)
        lower[i] = (char)tolower((unsigned char)name[i]);
    lower[i] = '\0';
    if (s != NULL && ASN1_STRING_set(s, lower, -1) != 1) {
        ASN1_IA5STRING_free(s);
        s = NULL;
    }
    return push_san(gens, GEN_DNS, s);
}

static GENERAL_NAMES *make_sans(const opts *o)
{
    GENERAL_NAMES *gens = sk_GENERAL_NAME_new_null();
    char names[4][MAX_DNS_NAME + 1];
    bool ok = gens != NULL;

    /* NAME and NS are labels of at most 63 bytes, so these always fit. */
    snprintf(names[0], sizeof(names[0]), "%s", o->service);
    snprintf(names[1], sizeof(names[1]), "%s.%s", o->service, o->ns);
    snprintf(names[2], sizeof(names[2]), "%s.%s.svc", o->service, o->ns);
    snprintf(names[3], sizeof(names[3]), "%s.%s.svc.cluster.local", o->service, o->ns);
    for (size_t i = 0; ok && i < 4; i++)
        ok = push_dns(gens, names[i]);
    for (size_t i = 0; ok && i < o->ndns; i++)
        ok = push_dns(gens, o->dns[i]);
    for (size_t i = 0; ok && i < o->nips; i++)
        ok = push_san(gens, GEN_IPADD, a2i_IPADDRESS(o->ips[i]));
    if (!ok) {
        GENERAL_NAMES_free(gens);
        return NULL;
    }
    return gens;
}

static bool add_sans(X509 *x, const opts *o)
{
    GENERAL_NAMES *gens = make_sans(o);
    bool ok = gens != NULL &&
              X509_add1_ext_i2d(x, NID_subject_alt_name, gens, 0, X509V3_ADD_DEFAULT) == 1;

    GENERAL_NAMES_free(gens);
    return ok;
}

static X509 *make_leaf(const opts *o, EVP_PKEY *key, X509 *ca, EVP_PKEY *ca_key, time_t now,
                       gp_err *err)
{
    X509 *x = X509_new();
    char cn[MAX_DNS_NAME + 1];

    snprintf(cn, sizeof(cn), "%s.%s.svc", o->service, o->ns);
    if (strlen(cn) > MAX_CN)
        snprintf(cn, sizeof(cn), "%s", o->service); /* the SANs carry the full names */
    if (x == NULL || !init_cert(x, key, cn, now, o->days) ||
        X509_set_issuer_name(x, X509_get_subject_name(ca)) != 1 ||
        !add_ext(ca, x, NID_basic_constraints, "critical,CA:FALSE") ||
        !add_ext(ca, x, NID_key_usage,
                 o->rsa ? "critical,digitalSignature,keyEncipherment"
                        : "critical,digitalSignature") ||
        !add_ext(ca, x, NID_ext_key_usage, "serverAuth") ||
        !add_ext(ca, x, NID_subject_key_identifier, "hash") ||
        !add_ext(ca, x, NID_authority_key_identifier, "keyid:always") || !add_sans(x, o) ||
        X509_sign(x, ca_key, EVP_sha256()) <= 0) {
        ossl_error(err, "making the serving certificate failed");
        X509_free(x);
        return NULL;
    }
    return x;
}

/* ---- output files ------------------------------------------------------------------------ */

typedef struct {
    const char *name;
    mode_t mode;
    BIO *pem; /* the contents, in memory */
    bool created;
} out_file;

enum { OUT_CA_CRT, OUT_CA_KEY, OUT_TLS_CRT, OUT_TLS_KEY, OUT_N };

static BIO *pem_of_cert(X509 *x)
{
    BIO *b = BIO_new(BIO_s_mem());

    if (b != NULL && PEM_write_bio_X509(b, x) != 1) {
        BIO_free(b);
        return NULL;
    }
    return b;
}

static BIO *pem_of_key(EVP_PKEY *k)
{
    BIO *b = BIO_new(BIO_s_mem());

    if (b != NULL && PEM_write_bio_PrivateKey(b, k, NULL, NULL, 0, NULL, NULL) != 1) {
        BIO_free(b);
        return NULL;
    }
    return b;
}

static size_t bio_data(BIO *b, const char **data)
{
    char *p = NULL;
    long n = BIO_get_mem_data(b, &p);

    *data = p;
    return n > 0 ? (size_t)n : 0;
}

static bool join_path(char *buf, size_t n, const char *dir, const char *name, gp_err *err)
{
    int w = snprintf(buf, n, "%s/%s", dir, name);

    if (w < 0 || (size_t)w >= n) {
        gp_err_set(err, "%s/%s: path too long", dir, name);
        return false;
    }
    return true;
}

/* mkdir -p, with 0700 for every directory it creates. */
static bool make_dirs(const char *dir, gp_err *err)
{
    char path[PATH_MAX];
    struct stat sb;
    size_t n = strlen(dir);

    if (n >= sizeof(path)) {
        gp_err_set(err, "%s: path too long", dir);
        return false;
    }
    memcpy(path, dir, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (path[i] != '/' && path[i] != '\0')
            continue;
        path[i] = '\0';
        if (mkdir(path, 0700) != 0 && errno != EEXIST) {
            gp_err_set(err, "%s: cannot create directory: %s", path, strerror(errno));
            return false;
        }
        path[i] = i < n ? '/' : '\0';
    }
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        gp_err_set(err, "%s: not a directory", dir);
        return false;
    }
    return true;
}

static bool write_all(int fd, const char *data, size_t len)
{
    while (len > 0) {
        ssize_t w = write(fd, data, len);

        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        data += w;
        len -= (size_t)w;
    }
    return fsync(fd) == 0;
}

/* Creates path (never an existing file: O_EXCL) with mode and writes data. On failure the
 * half-written file is removed. Keys are thus never readable by others, not even briefly. */
static bool create_file(const char *path, mode_t mode, const char *data, size_t len, gp_err *err)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    int saved;

    if (fd < 0) {
        if (errno == EEXIST)
            gp_err_set(err, "%s already exists; use --force to overwrite it", path);
        else
            gp_err_set(err, "%s: cannot create: %s", path, strerror(errno));
        return false;
    }
    if (!write_all(fd, data, len)) {
        saved = errno;
        close(fd);
        unlink(path);
        gp_err_set(err, "%s: write failed: %s", path, strerror(saved));
        return false;
    }
    if (close(fd) != 0) {
        saved = errno;
        unlink(path);
        gp_err_set(err, "%s: write failed: %s", path, strerror(saved));
        return false;
    }
    return true;
}

/* Writes a temporary file beside path and renames it over path, so a reader (the webhook
 * watching its certificate files) sees the old file or the new one, never half of one. */
static bool replace_file(const char *dir, const out_file *f, gp_err *err)
{
    char path[PATH_MAX], tmp[PATH_MAX], tmpname[128];
    const char *data;
    size_t len = bio_data(f->pem, &data);

    snprintf(tmpname, sizeof(tmpname), ".%s.tmp-%ld", f->name, (long)getpid());
    if (!join_path(path, sizeof(path), dir, f->name, err) ||
        !join_path(tmp, sizeof(tmp), dir, tmpname, err) ||
        !create_file(tmp, f->mode, data, len, err))
        return false;
    if (rename(tmp, path) != 0) {
        gp_err_set(err, "%s: cannot replace: %s", path, strerror(errno));
        unlink(tmp);
        return false;
    }
    return true;
}

static bool write_new_file(const char *dir, out_file *f, gp_err *err)
{
    char path[PATH_MAX];
    const char *data;
    size_t len = bio_data(f->pem, &data);

    if (!join_path(path, sizeof(path), dir, f->name, err) ||
        !create_file(path, f->mode, data, len, err))
        return false;
    f->created = true;
    return true;
}

/* Without --force: fails, naming the first output file that already exists. */
static bool none_exist(const char *dir, const out_file *files, gp_err *err)
{
    char path[PATH_MAX];
    struct stat sb;

    for (size_t i = 0; i < OUT_N; i++) {
        if (!join_path(path, sizeof(path), dir, files[i].name, err))
            return false;
        if (lstat(path, &sb) == 0) {
            gp_err_set(err, "%s already exists; use --force to overwrite it", path);
            return false;
        }
    }
    return true;
}

/* Writes all four files. Without --force, a failure removes the files this run created, so a
 * retry is not refused because of a partial set. */
static bool write_outputs(const opts *o, out_file *files, gp_err *err)
{
    char path[PATH_MAX];
    bool ok = true;
    int dfd;

    for (size_t i = 0; ok && i < OUT_N; i++)
        ok = o->force ? replace_file(o->out, &files[i], err)
                      : write_new_file(o->out, &files[i], err);
    for (size_t i = 0; !ok && i < OUT_N; i++) {
        if (files[i].created && join_path(path, sizeof(path), o->out, files[i].name, NULL))
            unlink(path);
    }
    dfd = open(o->out, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        (void)fsync(dfd); /* best effort: makes the new names durable */
        close(dfd);
    }
    return ok;
}

/* ---- generate mode ----------------------------------------------------------------------- */

typedef struct {
    EVP_PKEY *ca_key, *leaf_key;
    X509 *ca, *leaf;
} cert_set;

static void cert_set_free(cert_set *s)
{
    EVP_PKEY_free(s->ca_key);
    EVP_PKEY_free(s->leaf_key);
    X509_free(s->ca);
    X509_free(s->leaf);
}

static bool make_certs(const opts *o, time_t now, cert_set *s, gp_err *err)
{
    s->ca_key = make_key(o, err);
    if (s->ca_key == NULL)
        return false;
    s->leaf_key = make_key(o, err);
    if (s->leaf_key == NULL)
        return false;
    s->ca = make_ca(s->ca_key, now, o->ca_days, err);
    if (s->ca == NULL)
        return false;
    s->leaf = make_leaf(o, s->leaf_key, s->ca, s->ca_key, now, err);
    return s->leaf != NULL;
}

static bool encode_outputs(const cert_set *s, out_file *files, gp_err *err)
{
    files[OUT_CA_CRT].pem = pem_of_cert(s->ca);
    files[OUT_CA_KEY].pem = pem_of_key(s->ca_key);
    files[OUT_TLS_CRT].pem = pem_of_cert(s->leaf);
    files[OUT_TLS_KEY].pem = pem_of_key(s->leaf_key);
    for (size_t i = 0; i < OUT_N; i++) {
        if (files[i].pem == NULL) {
            ossl_error(err, "PEM encoding failed");
            return false;
        }
    }
    return true;
}

/* Re-reads what was made with the same checks the daemons apply, as a guard against a bug here. */
static bool self_check(const out_file *files, time_t now, gp_err *err)
{
    const char *crt, *key;
    size_t crt_len = bio_data(files[OUT_TLS_CRT].pem, &crt);
    size_t key_len = bio_data(files[OUT_TLS_KEY].pem, &key);
    gp_cert_info info;

    if (gp_tls_check_pair(crt, crt_len, key, key_len, (int64_t)now, &info, err) != GP_OK) {
        gp_err_prefix(err, "internal error: the new serving certificate fails its check");
        return false;
    }
    return true;
}

/* The caBundle: base64 of ca.crt's PEM, one line. */
static bool print_ca_bundle(const out_file *ca)
{
    const char *pem;
    size_t len = bio_data(ca->pem, &pem);
    unsigned char *b64 = malloc(4 * ((len + 2) / 3) + 1);
    bool ok;

    if (b64 == NULL || len > INT_MAX) {
        free(b64);
        return false;
    }
    EVP_EncodeBlock(b64, (const unsigned char *)pem, (int)len);
    ok = printf("%s\n", b64) > 0 && fflush(stdout) == 0;
    free(b64);
    return ok;
}

static int run_generate(const opts *o)
{
    out_file files[OUT_N] = {
        [OUT_CA_CRT] = { "ca.crt", 0644, NULL, false },
        [OUT_CA_KEY] = { "ca.key", 0600, NULL, false },
        [OUT_TLS_CRT] = { "tls.crt", 0644, NULL, false },
        [OUT_TLS_KEY] = { "tls.key", 0600, NULL, false },
    };
    cert_set s = { NULL, NULL, NULL, NULL };
    gp_err err = { "" };
    time_t now = time(NULL);
    int rc = 1;

    if (!make_dirs(o->out, &err) || (!o->force && !none_exist(o->out, files, &err)))
        goto fail;
    note(o, LVL_DEBUG, "generating %s keys", o->rsa ? "RSA" : "EC P-256");
    if (!make_certs(o, now, &s, &err) || !encode_outputs(&s, files, &err) ||
        !self_check(files, now, &err) || !write_outputs(o, files, &err))
        goto fail;
    if (!print_ca_bundle(&files[OUT_CA_CRT])) {
        gp_err_set(&err, "writing the CA bundle to stdout failed");
        goto fail;
    }
    note(o, LVL_INFO, "wrote ca.crt, ca.key, tls.crt, tls.key in %s (%s.%s.svc, %ld days)",
         o->out, o->service, o->ns, o->days);
    rc = 0;
fail:
    if (rc != 0)
        note(o, LVL_ERROR, "%s", err.msg);
    for (size_t i = 0; i < OUT_N; i++)
        BIO_free(files[i].pem);
    cert_set_free(&s);
    return rc;
}

/* ---- check mode -------------------------------------------------------------------------- */

/* Loads every certificate in pem: the first into *first (when first is not NULL), the rest, or
 * all of them when first is NULL, into *rest. Returns the number loaded, -1 on failure. */
static int load_certs(const char *pem, size_t len, X509 **first, STACK_OF(X509) *rest)
{
    BIO *bio = BIO_new_mem_buf(pem, (int)len);
    X509 *x;
    int n = 0;

    if (bio == NULL)
        return -1;
    while ((x = PEM_read_bio_X509(bio, NULL, NULL, NULL)) != NULL) {
        if (n == 0 && first != NULL) {
            *first = x;
        } else if (sk_X509_push(rest, x) <= 0) {
            X509_free(x);
            n = -1;
            break;
        }
        n++;
    }
    BIO_free(bio);
    ERR_clear_error(); /* the read that ended the loop leaves "no start line" */
    return n;
}

/* Verifies the leaf in cert_pem (with any intermediates after it) against the CA file, for TLS
 * server use, at time now. */
static bool verify_with_ca(const char *cert_pem, size_t cert_len, const char *ca_pem,
                           size_t ca_len, time_t now, gp_err *err)
{
    STACK_OF(X509) *chain = sk_X509_new_null(), *cas = sk_X509_new_null();
    X509_STORE *store = X509_STORE_new();
    X509_STORE_CTX *ctx = X509_STORE_CTX_new();
    X509 *leaf = NULL;
    bool ok = false;

    if (chain == NULL || cas == NULL || store == NULL || ctx == NULL) {
        gp_err_set(err, "out of memory");
        goto fail;
    }
    if (load_certs(cert_pem, cert_len, &leaf, chain) < 1) {
        gp_err_set(err, "no certificate to verify");
        goto fail;
    }
    if (load_certs(ca_pem, ca_len, NULL, cas) < 1) {
        gp_err_set(err, "no certificate in the CA file");
        goto fail;
    }
    for (int i = 0; i < sk_X509_num(cas); i++) {
        if (X509_STORE_add_cert(store, sk_X509_value(cas, i)) != 1) {
            ossl_error(err, "loading the CA failed");
            goto fail;
        }
    }
    if (X509_STORE_CTX_init(ctx, store, leaf, chain) != 1 ||
        X509_STORE_CTX_set_purpose(ctx, X509_PURPOSE_SSL_SERVER) != 1) {
        ossl_error(err, "setting up verification failed");
        goto fail;
    }
    X509_VERIFY_PARAM_set_time(X509_STORE_CTX_get0_param(ctx), now);
    ok = X509_verify_cert(ctx) == 1;
    if (!ok)
        gp_err_set(err, "%s",
                   X509_verify_cert_error_string(X509_STORE_CTX_get_error(ctx)));
fail:
    X509_STORE_CTX_free(ctx);
    X509_STORE_free(store);
    sk_X509_pop_free(cas, X509_free);
    sk_X509_pop_free(chain, X509_free);
    X509_free(leaf);
    ERR_clear_error();
    return ok;
}

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
        verified = verify_with_ca(cert, cert_len, ca, ca_len, (time_t)now, &ca_err);
        printf("ca:         %s%s\n", verified ? "verified by " : "does not verify: ",
               verified ? o->ca : ca_err.msg);
    }
    printf("status:     %s%s\n", usable && verified ? "usable" : "NOT usable: ",
           usable ? (verified ? "" : "does not verify against the CA") : err.msg);
    if (!usable)
        note(o, LVL_ERROR, "%s: %s", o->check, err.msg);
    if (!verified)
        note(o, LVL_ERROR, "%s: does not verify against %s: %s", o->check, o->ca, ca_err.msg);
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
    opts o = { .days = 365, .ca_days = 3650, .rsa_bits = 2048, .log_level = LVL_INFO };
    char why[256];
    int nerr = parse_args(argc, argv, &o);

    if (o.help) {
        usage(stdout);
        return 0;
    }
    if (o.version) {
        printf(PROG " " GP_VERSION "\n");
        return 0;
    }
    /* A command line that does not parse is one error: what is missing from it means nothing. */
    if (nerr == 0 && o.check != NULL)
        validate_check(&o, &nerr);
    else if (nerr == 0)
        validate_generate(&o, &nerr);
    if (o.policy != NULL && !readable(o.policy, why, sizeof(why)))
        flag_error(&nerr, "--policy", "cannot read %s: %s", o.policy, why);
    if (nerr > 0) {
        fprintf(stderr, "see " PROG " --help\n");
        return EXIT_USAGE;
    }
    return o.check != NULL ? run_check(&o) : run_generate(&o);
}
