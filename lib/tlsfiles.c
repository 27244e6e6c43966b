/* SPDX-License-Identifier: Apache-2.0 */
/* Certificate and key checks with OpenSSL 3 (see include/gpupack/tlsfiles.h).
 *
 * Everything is parsed from memory BIOs; the only inputs are the PEM bytes and `now`. The OpenSSL
 * error queue is cleared before returning so a daemon thread never sees a stale error later. */
#include "gpupack/tlsfiles.h"

#include <arpa/inet.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <openssl/bio.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

/* Refuses to decrypt: an encrypted key is an error, never a prompt on the terminal. */
static int no_password(char *buf, int size, int rwflag, void *u)
{
    (void)buf;
    (void)size;
    (void)rwflag;
    (void)u;
    return -1;
}

/* The reason of the most recent OpenSSL error, as a constant string. */
static const char *ossl_reason(void)
{
    unsigned long e = ERR_peek_last_error();
    const char *r = e != 0 ? ERR_reason_error_string(e) : NULL;

    return r != NULL ? r : "unknown error";
}

/* Appends s to buf (size n) without overflowing; a full buffer keeps what fits. */
static void append(char *buf, size_t n, const char *s)
{
    size_t used = strlen(buf);

    if (used + 1 < n)
        snprintf(buf + used, n - used, "%s", s);
}

static void name_to_str(const X509_NAME *name, char *buf, size_t n)
{
    BIO *mem = BIO_new(BIO_s_mem());
    char *data = NULL;

    buf[0] = '\0';
    if (mem == NULL)
        return;
    if (X509_NAME_print_ex(mem, name, 0, XN_FLAG_RFC2253) >= 0) {
        long len = BIO_get_mem_data(mem, &data);

        if (len > 0 && data != NULL)
            snprintf(buf, n, "%.*s", (int)len, data);
    }
    BIO_free(mem);
}

/* One GENERAL_NAME as "DNS:x" or "IP:1.2.3.4"; other kinds are named by their type. */
static void general_name_str(const GENERAL_NAME *gn, char *buf, size_t n)
{
    const unsigned char *p;
    char ip[INET6_ADDRSTRLEN];
    int len;

    switch (gn->type) {
    case GEN_DNS:
    case GEN_EMAIL:
    case GEN_URI:
        p = ASN1_STRING_get0_data(gn->d.ia5);
        len = ASN1_STRING_length(gn->d.ia5);
        /* %.*s stops at an embedded NUL, which is what a reader of the output expects. */
        snprintf(buf, n, "%s:%.*s",
                 gn->type == GEN_DNS ? "DNS" : gn->type == GEN_EMAIL ? "email" : "URI", len,
                 (const char *)p);
        return;
    case GEN_IPADD:
        p = ASN1_STRING_get0_data(gn->d.ip);
        len = ASN1_STRING_length(gn->d.ip);
        if ((len == 4 && inet_ntop(AF_INET, p, ip, sizeof(ip)) != NULL) ||
            (len == 16 && inet_ntop(AF_INET6, p, ip, sizeof(ip)) != NULL))
            snprintf(buf, n, "IP:%s", ip);
        else
            snprintf(buf, n, "IP:<invalid>");
        return;
    default:
        snprintf(buf, n, "othername");
        return;
    }
}

static void sans_to_str(X509 *cert, gp_cert_info *info)
{
    GENERAL_NAMES *gens = X509_get_ext_d2i(cert, NID_subject_alt_name, NULL, NULL);
    char one[300];
    int n;

    if (gens == NULL)
        return;
    n = sk_GENERAL_NAME_num(gens);
    for (int i = 0; i < n; i++) {
        general_name_str(sk_GENERAL_NAME_value(gens, i), one, sizeof(one));
        if (i > 0)
            append(info->sans, sizeof(info->sans), ", ");
        append(info->sans, sizeof(info->sans), one);
    }
    info->nsans = n > 0 ? (size_t)n : 0;
    GENERAL_NAMES_free(gens);
}

static int asn1_time_to_unix(const ASN1_TIME *t, int64_t *out)
{
    struct tm tm;

    memset(&tm, 0, sizeof(tm));
    if (t == NULL || ASN1_TIME_to_tm(t, &tm) != 1)
        return -1;
    *out = (int64_t)timegm(&tm);
    return 0;
}

static void key_type_str(EVP_PKEY *pk, char *buf, size_t n)
{
    char group[24]; /* longer curve names are reported as plain "EC" */
    size_t glen = 0;
    int id;

    if (pk == NULL) {
        snprintf(buf, n, "unknown");
        return;
    }
    id = EVP_PKEY_get_base_id(pk);
    if (id == EVP_PKEY_RSA || id == EVP_PKEY_RSA_PSS) {
        snprintf(buf, n, "RSA %d", EVP_PKEY_get_bits(pk));
    } else if (id == EVP_PKEY_EC) {
        if (EVP_PKEY_get_utf8_string_param(pk, OSSL_PKEY_PARAM_GROUP_NAME, group, sizeof(group),
                                           &glen) == 1) {
            const char *nist = EC_curve_nid2nist(OBJ_txt2nid(group));

            snprintf(buf, n, "EC %s", nist != NULL ? nist : group);
        } else {
            snprintf(buf, n, "EC");
        }
    } else if (id == EVP_PKEY_ED25519) {
        snprintf(buf, n, "Ed25519");
    } else if (id == EVP_PKEY_ED448) {
        snprintf(buf, n, "Ed448");
    } else {
        snprintf(buf, n, "%s", id != NID_undef ? OBJ_nid2sn(id) : "unknown");
    }
}

/* Fills the parts of *info that come from the certificate alone. */
static gp_status describe_cert(X509 *cert, gp_cert_info *info, gp_err *err)
{
    name_to_str(X509_get_subject_name(cert), info->subject, sizeof(info->subject));
    name_to_str(X509_get_issuer_name(cert), info->issuer, sizeof(info->issuer));
    sans_to_str(cert, info);
    key_type_str(X509_get0_pubkey(cert), info->key_type, sizeof(info->key_type));
    if (asn1_time_to_unix(X509_get0_notBefore(cert), &info->not_before) != 0 ||
        asn1_time_to_unix(X509_get0_notAfter(cert), &info->not_after) != 0) {
        gp_err_set(err, "certificate has an unreadable validity period");
        return GP_EINVAL;
    }
    return GP_OK;
}

/* Parses a PEM certificate (key false: an X509 *) or private key (key true: an EVP_PKEY *)
 * into *out. Errors say which of the two is empty, too large or unparsable. */
static gp_status parse_pem(const char *pem, size_t len, bool key, void **out, gp_err *err)
{
    const char *what = key ? "private key" : "certificate";
    BIO *bio;

    if (pem == NULL || len == 0) {
        gp_err_set(err, "%s is empty", what);
        return GP_EINVAL;
    }
    if (len > GP_TLS_MAX_PEM) {
        gp_err_set(err, "%s is larger than %d bytes", what, GP_TLS_MAX_PEM);
        return GP_ETOOBIG;
    }
    if ((bio = BIO_new_mem_buf(pem, (int)len)) == NULL) {
        gp_err_set(err, "out of memory reading the %s", what);
        return GP_ENOMEM;
    }
    *out = key ? (void *)PEM_read_bio_PrivateKey(bio, NULL, no_password, NULL)
               : (void *)PEM_read_bio_X509(bio, NULL, no_password, NULL);
    BIO_free(bio);
    if (*out == NULL) {
        gp_err_set(err, "cannot parse %s PEM%s: %s", what,
                   key ? " (encrypted keys are not supported)" : "", ossl_reason());
        return GP_EINVAL;
    }
    return GP_OK;
}

/* The checks that need no key: validity window, then subjectAltName. */
static gp_status check_usable(const gp_cert_info *info, int64_t now, gp_err *err)
{
    char when[80]; /* room for any int year, though X.509 years stop at 9999 */

    if (now < info->not_before) {
        gp_tls_format_time(info->not_before, when, sizeof(when));
        gp_err_set(err, "certificate is not valid before %s", when);
        return GP_EINVAL;
    }
    if (now > info->not_after) {
        gp_tls_format_time(info->not_after, when, sizeof(when));
        gp_err_set(err, "certificate expired at %s", when);
        return GP_EINVAL;
    }
    if (info->nsans == 0) {
        gp_err_set(err, "certificate has no subjectAltName");
        return GP_EINVAL;
    }
    return GP_OK;
}

/* Parses key_pem into *key (freed by the caller) and records whether it belongs to cert. */
static gp_status match_key(X509 *cert, const char *key_pem, size_t key_len, void **key,
                           gp_cert_info *info, gp_err *err)
{
    gp_status st = parse_pem(key_pem, key_len, true, key, err);

    if (st == GP_OK)
        info->key_matches = X509_check_private_key(cert, *key) == 1;
    return st;
}

/* Which part is at fault, the certificate's own problems first: they are the same whatever key
 * comes with it. */
gp_status gp_tls_check_pair(const char *cert_pem, size_t cert_len, const char *key_pem,
                            size_t key_len, int64_t now, gp_cert_info *info, gp_err *err)
{
    void *cert = NULL, *key = NULL; /* X509, EVP_PKEY */
    gp_err key_err = { { 0 } };
    gp_status st, key_st = GP_OK;

    memset(info, 0, sizeof(*info));
    info->fault = GP_TLS_FAULT_CERT;
    ERR_clear_error();
    if ((st = parse_pem(cert_pem, cert_len, false, &cert, err)) != GP_OK ||
        (st = describe_cert(cert, info, err)) != GP_OK)
        goto out;
    if (key_pem != NULL)
        key_st = match_key(cert, key_pem, key_len, &key, info, &key_err);
    if ((st = check_usable(info, now, err)) != GP_OK)
        goto out;
    info->fault = GP_TLS_FAULT_NONE;
    if (key_pem == NULL)
        goto out;
    if ((st = key_st) != GP_OK) {
        info->fault = GP_TLS_FAULT_KEY;
        *err = key_err;
    } else if (!info->key_matches) {
        info->fault = GP_TLS_FAULT_MISMATCH;
        gp_err_set(err, "private key does not match certificate");
        st = GP_EINVAL;
    }
out:
    EVP_PKEY_free(key);
    X509_free(cert);
    ERR_clear_error();
    return st;
}

/* True when the last PEM read ended because no block was left ("no start line"), not on a
 * block that would not parse. */
static bool pem_ended_cleanly(void)
{
    unsigned long e = ERR_peek_last_error();

    return e == 0 || (ERR_GET_LIB(e) == ERR_LIB_PEM && ERR_GET_REASON(e) == PEM_R_NO_START_LINE);
}

/* Keeps a certificate read: the first in *first when first is not NULL, the others (all of them
 * when first is NULL) on rest, or frees it when rest is NULL. */
static bool keep_cert(X509 *x, size_t i, X509 **first, STACK_OF(X509) *rest)
{
    if (i == 0 && first != NULL) {
        *first = x;
        return true;
    }
    if (rest != NULL && sk_X509_push(rest, x) > 0)
        return true;
    X509_free(x);
    return rest == NULL;
}

/* Reads every PEM certificate in pem, skipping other blocks and text around them as TLS
 * libraries do, keeping them as keep_cert() says; *n is the number read. GP_EINVAL with
 * "certificate N cannot be parsed: reason" when a certificate block does not parse. */
static gp_status read_certs(const char *pem, size_t len, X509 **first, STACK_OF(X509) *rest,
                            size_t *n, gp_err *err)
{
    BIO *bio;
    X509 *x;
    gp_status st = GP_OK;

    *n = 0;
    if (len > GP_TLS_MAX_PEM) {
        gp_err_set(err, "larger than %d bytes", GP_TLS_MAX_PEM);
        return GP_ETOOBIG;
    }
    if ((bio = BIO_new_mem_buf(pem != NULL ? pem : "", (int)len)) == NULL) {
        gp_err_set(err, "out of memory");
        return GP_ENOMEM;
    }
    ERR_clear_error();
    while (st == GP_OK && (x = PEM_read_bio_X509(bio, NULL, no_password, NULL)) != NULL) {
        if (!keep_cert(x, (*n)++, first, rest)) {
            gp_err_set(err, "out of memory");
            st = GP_ENOMEM;
        }
    }
    if (st == GP_OK && !pem_ended_cleanly()) {
        gp_err_set(err, "certificate %zu cannot be parsed: %s", *n + 1, ossl_reason());
        st = GP_EINVAL;
    }
    BIO_free(bio);
    ERR_clear_error();
    return st;
}

/* read_certs() for text that must hold at least one certificate; errors start with what. */
static bool read_some_certs(const char *what, const char *pem, size_t len, X509 **first,
                            STACK_OF(X509) *rest, gp_err *err)
{
    size_t n = 0;
    gp_status st = read_certs(pem, len, first, rest, &n, err);

    if (st == GP_OK && n == 0)
        gp_err_set(err, "%s holds no certificate", what);
    else if (st != GP_OK)
        gp_err_prefix(err, what);
    return st == GP_OK && n > 0;
}

gp_status gp_tls_verify_with_ca(const char *cert_pem, size_t cert_len, const char *ca_pem,
                                size_t ca_len, int64_t now, gp_err *err)
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
    if (!read_some_certs("the certificate", cert_pem, cert_len, &leaf, chain, err) ||
        !read_some_certs("the CA file", ca_pem, ca_len, NULL, cas, err))
        goto fail;
    for (int i = 0; i < sk_X509_num(cas); i++) {
        if (X509_STORE_add_cert(store, sk_X509_value(cas, i)) != 1) {
            gp_err_set(err, "loading the CA failed: %s", ossl_reason());
            goto fail;
        }
    }
    if (X509_STORE_CTX_init(ctx, store, leaf, chain) != 1 ||
        X509_STORE_CTX_set_purpose(ctx, X509_PURPOSE_SSL_SERVER) != 1) {
        gp_err_set(err, "setting up verification failed: %s", ossl_reason());
        goto fail;
    }
    X509_VERIFY_PARAM_set_time(X509_STORE_CTX_get0_param(ctx), (time_t)now);
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
    return ok ? GP_OK : GP_EINVAL;
}

gp_status gp_tls_check_ca(const char *pem, size_t len, size_t *ncerts, gp_err *err)
{
    size_t n = 0;
    gp_status st = read_certs(pem, len, NULL, NULL, &n, err);

    if (st == GP_OK && n == 0) {
        gp_err_set(err, "no PEM certificate in it");
        st = GP_EINVAL;
    }
    if (ncerts != NULL)
        *ncerts = n;
    return st;
}

void gp_tls_format_time(int64_t t, char *buf, size_t bufsz)
{
    time_t tt = (time_t)t;
    struct tm tm;

    if (bufsz == 0)
        return;
    if (gmtime_r(&tt, &tm) == NULL) {
        snprintf(buf, bufsz, "invalid-time");
        return;
    }
    snprintf(buf, bufsz, "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900, tm.tm_mon + 1,
             tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
}
