/* SPDX-License-Identifier: Apache-2.0 */
/* Certificate generation (see certgen.h). */
#include "gpupack/certgen.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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

#include "gpupack/dnsname.h"
#include "gpupack/tlsfiles.h"

#define MAX_CN 64       /* ub-common-name, RFC 5280 */
#define BACKDATE_S 3600 /* notBefore is an hour early, to tolerate clock skew */

static const struct {
    const char *name;
    mode_t mode;
} file_meta[GP_CERT_NFILES] = {
    [GP_CERT_CA_CRT] = { "ca.crt", 0644 },
    [GP_CERT_CA_KEY] = { "ca.key", 0600 },
    [GP_CERT_TLS_CRT] = { "tls.crt", 0644 },
    [GP_CERT_TLS_KEY] = { "tls.key", 0600 },
};

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

/* ---- generation ----------------------------------------------------------------------------- */

static EVP_PKEY *make_key(const gp_certgen_spec *o, gp_err *err)
{
    EVP_PKEY *k = o->rsa ? EVP_RSA_gen(o->rsa_bits) : EVP_EC_gen("P-256");

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

static bool set_validity(X509 *x, time_t now, unsigned days)
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
static bool init_cert(X509 *x, EVP_PKEY *key, const char *cn, time_t now, unsigned days)
{
    return X509_set_version(x, X509_VERSION_3) == 1 && set_serial(x) &&
           set_validity(x, now, days) && set_subject_cn(x, cn) && X509_set_pubkey(x, key) == 1;
}

static X509 *make_ca(EVP_PKEY *key, time_t now, unsigned days, gp_err *err)
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
    char lower[GP_DNS_SUBDOMAIN_MAX + 1];
    ASN1_IA5STRING *s = ASN1_IA5STRING_new();
    size_t i;

    /* DNS names compare case-insensitively; storing them lower-case makes duplicates equal. */
    for (i = 0; i < GP_DNS_SUBDOMAIN_MAX && name[i] != '\0'; i++)
        lower[i] = (char)tolower((unsigned char)name[i]);
    lower[i] = '\0';
    if (s != NULL && ASN1_STRING_set(s, lower, -1) != 1) {
        ASN1_IA5STRING_free(s);
        s = NULL;
    }
    return push_san(gens, GEN_DNS, s);
}

static GENERAL_NAMES *make_sans(const gp_certgen_spec *o)
{
    GENERAL_NAMES *gens = sk_GENERAL_NAME_new_null();
    char names[4][GP_DNS_SUBDOMAIN_MAX + 1];
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

static bool add_sans(X509 *x, const gp_certgen_spec *o)
{
    GENERAL_NAMES *gens = make_sans(o);
    bool ok = gens != NULL &&
              X509_add1_ext_i2d(x, NID_subject_alt_name, gens, 0, X509V3_ADD_DEFAULT) == 1;

    GENERAL_NAMES_free(gens);
    return ok;
}

static X509 *make_leaf(const gp_certgen_spec *o, EVP_PKEY *key, X509 *ca, EVP_PKEY *ca_key, time_t now,
                       gp_err *err)
{
    X509 *x = X509_new();
    char cn[GP_DNS_SUBDOMAIN_MAX + 1];

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

/* ---- encoding --------------------------------------------------------------------------------- */

/* The text a PEM writer puts in a memory BIO, copied into f's slot i. */
static bool take_pem(BIO *b, gp_cert_files *f, int i)
{
    char *p = NULL;
    long n = b != NULL ? BIO_get_mem_data(b, &p) : -1;

    if (n > 0 && (f->pem[i] = malloc((size_t)n + 1)) != NULL) {
        memcpy(f->pem[i], p, (size_t)n);
        f->pem[i][n] = '\0';
        f->len[i] = (size_t)n;
    }
    BIO_free(b);
    return f->pem[i] != NULL;
}

static bool pem_of_cert(X509 *x, gp_cert_files *f, int i)
{
    BIO *b = BIO_new(BIO_s_mem());

    if (b != NULL && PEM_write_bio_X509(b, x) != 1) {
        BIO_free(b);
        b = NULL;
    }
    return take_pem(b, f, i);
}

static bool pem_of_key(EVP_PKEY *k, gp_cert_files *f, int i)
{
    BIO *b = BIO_new(BIO_s_mem());

    if (b != NULL && PEM_write_bio_PrivateKey(b, k, NULL, NULL, 0, NULL, NULL) != 1) {
        BIO_free(b);
        b = NULL;
    }
    return take_pem(b, f, i);
}

void gp_cert_files_free(gp_cert_files *f)
{
    for (int i = 0; i < GP_CERT_NFILES; i++) {
        if (f->pem[i] != NULL)
            explicit_bzero(f->pem[i], f->len[i]);
        free(f->pem[i]);
        f->pem[i] = NULL;
        f->len[i] = 0;
    }
}

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

static bool make_certs(const gp_certgen_spec *o, time_t now, cert_set *s, gp_err *err)
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

static bool encode_outputs(const cert_set *s, gp_cert_files *f, gp_err *err)
{
    if (pem_of_cert(s->ca, f, GP_CERT_CA_CRT) && pem_of_key(s->ca_key, f, GP_CERT_CA_KEY) &&
        pem_of_cert(s->leaf, f, GP_CERT_TLS_CRT) && pem_of_key(s->leaf_key, f, GP_CERT_TLS_KEY))
        return true;
    ossl_error(err, "PEM encoding failed");
    return false;
}

/* Re-reads what was made with the same checks the daemons apply, as a guard against a bug here. */
static bool self_check(const gp_cert_files *f, int64_t now, gp_err *err)
{
    gp_cert_info info;

    if (gp_tls_check_pair(f->pem[GP_CERT_TLS_CRT], f->len[GP_CERT_TLS_CRT],
                          f->pem[GP_CERT_TLS_KEY], f->len[GP_CERT_TLS_KEY], now, &info,
                          err) != GP_OK) {
        gp_err_prefix(err, "internal error: the new serving certificate fails its check");
        return false;
    }
    return true;
}

gp_status gp_certgen_make(const gp_certgen_spec *spec, int64_t now, gp_cert_files *out,
                          gp_err *err)
{
    cert_set s = { NULL, NULL, NULL, NULL };
    bool ok;

    memset(out, 0, sizeof(*out));
    ok = make_certs(spec, (time_t)now, &s, err) && encode_outputs(&s, out, err) &&
         self_check(out, now, err);
    cert_set_free(&s);
    if (!ok)
        gp_cert_files_free(out);
    return ok ? GP_OK : GP_EINVAL;
}

/* ---- the edge: writing the files --------------------------------------------------------------- */

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
static bool replace_file(const char *dir, const gp_cert_files *f, int i, gp_err *err)
{
    char path[PATH_MAX], tmp[PATH_MAX], tmpname[128];

    snprintf(tmpname, sizeof(tmpname), ".%s.tmp-%ld", file_meta[i].name, (long)getpid());
    if (!join_path(path, sizeof(path), dir, file_meta[i].name, err) ||
        !join_path(tmp, sizeof(tmp), dir, tmpname, err) ||
        !create_file(tmp, file_meta[i].mode, f->pem[i], f->len[i], err))
        return false;
    if (rename(tmp, path) != 0) {
        gp_err_set(err, "%s: cannot replace: %s", path, strerror(errno));
        unlink(tmp);
        return false;
    }
    return true;
}

static bool write_new_file(const char *dir, const gp_cert_files *f, int i, gp_err *err)
{
    char path[PATH_MAX];

    return join_path(path, sizeof(path), dir, file_meta[i].name, err) &&
           create_file(path, file_meta[i].mode, f->pem[i], f->len[i], err);
}

bool gp_certgen_none_exist(const char *dir, gp_err *err)
{
    char path[PATH_MAX];
    struct stat sb;

    for (int i = 0; i < GP_CERT_NFILES; i++) {
        if (!join_path(path, sizeof(path), dir, file_meta[i].name, err))
            return false;
        if (lstat(path, &sb) == 0) {
            gp_err_set(err, "%s already exists; use --force to overwrite it", path);
            return false;
        }
    }
    return true;
}

/* Writes all four files. Without replace, a failure removes the files this run created, so a
 * retry is not refused because of a partial set. */
static bool write_outputs(const gp_cert_files *f, const char *dir, bool replace, gp_err *err)
{
    char path[PATH_MAX];
    int done = 0, dfd;

    while (done < GP_CERT_NFILES && (replace ? replace_file(dir, f, done, err)
                                             : write_new_file(dir, f, done, err)))
        done++;
    for (int i = 0; !replace && done < GP_CERT_NFILES && i < done; i++) {
        if (join_path(path, sizeof(path), dir, file_meta[i].name, NULL))
            unlink(path);
    }
    dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        (void)fsync(dfd); /* best effort: makes the new names durable */
        close(dfd);
    }
    return done == GP_CERT_NFILES;
}

gp_status gp_certgen_write(const gp_cert_files *f, const char *dir, bool replace, gp_err *err)
{
    if (!make_dirs(dir, err) || (!replace && !gp_certgen_none_exist(dir, err)) ||
        !write_outputs(f, dir, replace, err))
        return GP_EIO;
    return GP_OK;
}
