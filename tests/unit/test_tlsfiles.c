/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of lib/tlsfiles.c. Every certificate is made here with OpenSSL, so the failing
 * cases (expired, not yet valid, mismatched key, no subjectAltName) are real certificates that
 * exercise the checks, not canned strings. */
#include "gptest.h"

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "gpupack/tlsfiles.h"

#define T2000 INT64_C(946684800)  /* 2000-01-01T00:00:00Z */
#define T2001 INT64_C(978307200)  /* 2001-01-01T00:00:00Z */
#define T2026 INT64_C(1767225600) /* 2026-01-01T00:00:00Z */
#define T2027 INT64_C(1798761600) /* 2027-01-01T00:00:00Z */
#define T2100 INT64_C(4102444800) /* 2100-01-01T00:00:00Z, a GeneralizedTime in X.509 */
#define MID (T2026 + 86400 * 100)
#define SANS "DNS:example.test,IP:127.0.0.1,IP:::1"

static EVP_PKEY *gen_key(bool rsa)
{
    EVP_PKEY *k = rsa ? EVP_RSA_gen(2048) : EVP_EC_gen("P-256");

    if (k == NULL) {
        printf("  key generation failed\n");
        exit(1);
    }
    return k;
}

static char *bio_take(BIO *b, size_t *len)
{
    char *data = NULL, *out;
    long n = BIO_get_mem_data(b, &data);

    out = malloc((size_t)n + 1);
    if (out == NULL)
        exit(1);
    memcpy(out, data, (size_t)n);
    out[n] = '\0';
    *len = (size_t)n;
    BIO_free(b);
    return out;
}

/* A self-signed certificate for key, valid [nb, na], with the given SANs (NULL: none). */
static X509 *make_cert(EVP_PKEY *key, int64_t nb, int64_t na, const char *sans)
{
    X509 *x = X509_new();
    X509_NAME *name = X509_get_subject_name(x);
    X509V3_CTX ctx;
    bool ok;

    ok = X509_set_version(x, X509_VERSION_3) == 1 &&
         ASN1_INTEGER_set(X509_get_serialNumber(x), 42) == 1 &&
         ASN1_TIME_set(X509_getm_notBefore(x), (time_t)nb) != NULL &&
         ASN1_TIME_set(X509_getm_notAfter(x), (time_t)na) != NULL &&
         X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC, (const unsigned char *)"gpupack",
                                    -1, -1, 0) == 1 &&
         X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *)"gp-test",
                                    -1, -1, 0) == 1 &&
         X509_set_issuer_name(x, name) == 1 && X509_set_pubkey(x, key) == 1;
    if (ok && sans != NULL) {
        X509_EXTENSION *ext;

        X509V3_set_ctx(&ctx, x, x, NULL, NULL, 0);
        ext = X509V3_EXT_conf_nid(NULL, &ctx, NID_subject_alt_name, sans);
        ok = ext != NULL && X509_add_ext(x, ext, -1) == 1;
        X509_EXTENSION_free(ext);
    }
    if (!ok || X509_sign(x, key, EVP_sha256()) <= 0) {
        printf("  making a test certificate failed\n");
        exit(1);
    }
    return x;
}

static char *cert_pem(X509 *x, size_t *len)
{
    BIO *b = BIO_new(BIO_s_mem());

    PEM_write_bio_X509(b, x);
    return bio_take(b, len);
}

static char *make_cert_pem(EVP_PKEY *key, int64_t nb, int64_t na, const char *sans, size_t *len)
{
    X509 *x = make_cert(key, nb, na, sans);
    char *pem = cert_pem(x, len);

    X509_free(x);
    return pem;
}

static char *key_pem(EVP_PKEY *key, size_t *len)
{
    BIO *b = BIO_new(BIO_s_mem());

    PEM_write_bio_PrivateKey(b, key, NULL, NULL, 0, NULL, NULL);
    return bio_take(b, len);
}

/* A pair of fresh PEM buffers: cert for cert_key, key for key_key. */
typedef struct {
    char *cert, *key;
    size_t cert_len, key_len;
} pem_pair;

static pem_pair make_pair(EVP_PKEY *cert_key, EVP_PKEY *key_key, int64_t nb, int64_t na,
                          const char *sans)
{
    pem_pair p;

    p.cert = make_cert_pem(cert_key, nb, na, sans, &p.cert_len);
    p.key = key_pem(key_key, &p.key_len);
    return p;
}

static void pair_free(pem_pair *p)
{
    free(p->cert);
    free(p->key);
}

static gp_status check(const pem_pair *p, int64_t now, gp_cert_info *info, gp_err *err)
{
    memset(err, 0, sizeof(*err));
    return gp_tls_check_pair(p->cert, p->cert_len, p->key, p->key_len, now, info, err);
}

GP_TEST(good_ec_pair_fills_everything)
{
    EVP_PKEY *k = gen_key(false);
    pem_pair p = make_pair(k, k, T2026, T2027, SANS);
    gp_cert_info info;
    gp_err err;

    GP_CHECK_INT(check(&p, MID, &info, &err), GP_OK);
    GP_CHECK_STR(err.msg, "");
    GP_CHECK_STR(info.subject, "CN=gp-test,O=gpupack");
    GP_CHECK_STR(info.issuer, "CN=gp-test,O=gpupack");
    GP_CHECK_STR(info.sans, "DNS:example.test, IP:127.0.0.1, IP:::1");
    GP_CHECK_INT(info.nsans, 3);
    GP_CHECK_INT(info.not_before, T2026);
    GP_CHECK_INT(info.not_after, T2027);
    GP_CHECK(info.key_matches);
    GP_CHECK_STR(info.key_type, "EC P-256");
    GP_CHECK_INT(info.fault, GP_TLS_FAULT_NONE);
    pair_free(&p);
    EVP_PKEY_free(k);
}

GP_TEST(good_rsa_pair)
{
    EVP_PKEY *k = gen_key(true);
    pem_pair p = make_pair(k, k, T2026, T2027, "DNS:rsa.test");
    gp_cert_info info;
    gp_err err;

    GP_CHECK_INT(check(&p, MID, &info, &err), GP_OK);
    GP_CHECK_STR(info.key_type, "RSA 2048");
    GP_CHECK_STR(info.sans, "DNS:rsa.test");
    GP_CHECK(info.key_matches);
    pair_free(&p);
    EVP_PKEY_free(k);
}

GP_TEST(no_key_checks_only_the_certificate)
{
    EVP_PKEY *k = gen_key(false);
    pem_pair p = make_pair(k, k, T2026, T2027, SANS);
    gp_cert_info info;
    gp_err err = { "" };

    GP_CHECK_INT(gp_tls_check_pair(p.cert, p.cert_len, NULL, 0, MID, &info, &err), GP_OK);
    GP_CHECK(!info.key_matches);
    GP_CHECK_STR(info.key_type, "EC P-256");
    pair_free(&p);
    EVP_PKEY_free(k);
}

GP_TEST(mismatched_key_same_type)
{
    EVP_PKEY *k1 = gen_key(false), *k2 = gen_key(false);
    pem_pair p = make_pair(k1, k2, T2026, T2027, SANS);
    gp_cert_info info;
    gp_err err;

    GP_CHECK_INT(check(&p, MID, &info, &err), GP_EINVAL);
    GP_CHECK_STR(err.msg, "private key does not match certificate");
    GP_CHECK(!info.key_matches);
    GP_CHECK_INT(info.fault, GP_TLS_FAULT_MISMATCH);
    GP_CHECK_STR(info.subject, "CN=gp-test,O=gpupack"); /* still described */
    pair_free(&p);
    EVP_PKEY_free(k1);
    EVP_PKEY_free(k2);
}

GP_TEST(mismatched_key_other_type)
{
    EVP_PKEY *ec = gen_key(false), *rsa = gen_key(true);
    pem_pair p = make_pair(ec, rsa, T2026, T2027, SANS);
    gp_cert_info info;
    gp_err err;

    GP_CHECK_INT(check(&p, MID, &info, &err), GP_EINVAL);
    GP_CHECK_STR(err.msg, "private key does not match certificate");
    GP_CHECK(!info.key_matches);
    GP_CHECK_STR(info.key_type, "EC P-256"); /* the certificate's key */
    pair_free(&p);
    EVP_PKEY_free(ec);
    EVP_PKEY_free(rsa);
}

GP_TEST(expired_against_the_real_clock)
{
    EVP_PKEY *k = gen_key(false);
    pem_pair p = make_pair(k, k, T2000, T2001, SANS);
    gp_cert_info info;
    gp_err err;

    GP_CHECK_INT(check(&p, (int64_t)time(NULL), &info, &err), GP_EINVAL);
    GP_CHECK_STR(err.msg, "certificate expired at 2001-01-01T00:00:00Z");
    GP_CHECK(info.key_matches);
    GP_CHECK_INT(info.not_after, T2001);
    pair_free(&p);
    EVP_PKEY_free(k);
}

GP_TEST(validity_window_is_inclusive)
{
    EVP_PKEY *k = gen_key(false);
    pem_pair p = make_pair(k, k, T2026, T2027, SANS);
    gp_cert_info info;
    gp_err err;

    GP_CHECK_INT(check(&p, T2026, &info, &err), GP_OK);
    GP_CHECK_INT(check(&p, T2027, &info, &err), GP_OK);
    GP_CHECK_INT(check(&p, T2027 + 1, &info, &err), GP_EINVAL);
    GP_CHECK_STR(err.msg, "certificate expired at 2027-01-01T00:00:00Z");
    GP_CHECK_INT(check(&p, T2026 - 1, &info, &err), GP_EINVAL);
    GP_CHECK_STR(err.msg, "certificate is not valid before 2026-01-01T00:00:00Z");
    pair_free(&p);
    EVP_PKEY_free(k);
}

GP_TEST(not_yet_valid)
{
    EVP_PKEY *k = gen_key(false);
    pem_pair p = make_pair(k, k, T2100 - 86400, T2100, SANS);
    gp_cert_info info;
    gp_err err;

    GP_CHECK_INT(check(&p, (int64_t)time(NULL), &info, &err), GP_EINVAL);
    GP_CHECK_STR(err.msg, "certificate is not valid before 2099-12-31T00:00:00Z");
    GP_CHECK_INT(info.not_after, T2100); /* GeneralizedTime parsed too */
    pair_free(&p);
    EVP_PKEY_free(k);
}

GP_TEST(no_subject_alt_name)
{
    EVP_PKEY *k = gen_key(false);
    pem_pair p = make_pair(k, k, T2026, T2027, NULL);
    gp_cert_info info;
    gp_err err;

    GP_CHECK_INT(check(&p, MID, &info, &err), GP_EINVAL);
    GP_CHECK_STR(err.msg, "certificate has no subjectAltName");
    GP_CHECK_INT(info.nsans, 0);
    GP_CHECK_STR(info.sans, "");
    GP_CHECK(info.key_matches);
    pair_free(&p);
    EVP_PKEY_free(k);
}

/* The certificate's own problems are blamed first, whatever key comes with it; the key is still
 * compared, for gpupack-certs --check to show. */
GP_TEST(expiry_is_reported_before_key_mismatch)
{
    EVP_PKEY *k1 = gen_key(false), *k2 = gen_key(false);
    pem_pair p = make_pair(k1, k2, T2000, T2001, NULL);
    gp_cert_info info;
    gp_err err;

    GP_CHECK_INT(check(&p, MID, &info, &err), GP_EINVAL);
    GP_CHECK_STR(err.msg, "certificate expired at 2001-01-01T00:00:00Z");
    GP_CHECK_INT(info.fault, GP_TLS_FAULT_CERT);
    GP_CHECK(!info.key_matches);
    pair_free(&p);
    EVP_PKEY_free(k1);
    EVP_PKEY_free(k2);
}

GP_TEST(expired_certificate_is_blamed_before_a_garbage_key)
{
    EVP_PKEY *k = gen_key(false);
    pem_pair p = make_pair(k, k, T2000, T2001, SANS);
    gp_cert_info info;
    gp_err err;

    free(p.key);
    p.key = strdup("not a key\n");
    p.key_len = strlen(p.key);
    GP_CHECK_INT(check(&p, MID, &info, &err), GP_EINVAL);
    GP_CHECK_STR(err.msg, "certificate expired at 2001-01-01T00:00:00Z");
    GP_CHECK_INT(info.fault, GP_TLS_FAULT_CERT);
    pair_free(&p);
    EVP_PKEY_free(k);
}

GP_TEST(other_san_kinds)
{
    EVP_PKEY *k = gen_key(false);
    pem_pair p = make_pair(k, k, T2026, T2027, "email:ops@example.test,URI:https://x.test/,"
                                               "IP:10.0.0.1,IP:2001:db8::5");
    gp_cert_info info;
    gp_err err;

    GP_CHECK_INT(check(&p, MID, &info, &err), GP_OK);
    GP_CHECK_STR(info.sans,
                 "email:ops@example.test, URI:https://x.test/, IP:10.0.0.1, IP:2001:db8::5");
    GP_CHECK_INT(info.nsans, 4);
    pair_free(&p);
    EVP_PKEY_free(k);
}

GP_TEST(first_certificate_of_a_chain_is_the_leaf)
{
    EVP_PKEY *leaf = gen_key(false), *other = gen_key(false);
    pem_pair p = make_pair(leaf, leaf, T2026, T2027, "DNS:leaf.test");
    size_t olen, len;
    char *second = make_cert_pem(other, T2000, T2001, NULL, &olen);
    char *chain = malloc(p.cert_len + olen + 1);
    gp_cert_info info;
    gp_err err = { "" };

    memcpy(chain, p.cert, p.cert_len);
    memcpy(chain + p.cert_len, second, olen + 1);
    len = p.cert_len + olen;
    GP_CHECK_INT(gp_tls_check_pair(chain, len, p.key, p.key_len, MID, &info, &err), GP_OK);
    GP_CHECK_STR(info.sans, "DNS:leaf.test");
    GP_CHECK(info.key_matches);
    free(chain);
    free(second);
    pair_free(&p);
    EVP_PKEY_free(leaf);
    EVP_PKEY_free(other);
}

GP_TEST(key_before_certificate_in_one_file)
{
    EVP_PKEY *k = gen_key(false);
    pem_pair p = make_pair(k, k, T2026, T2027, SANS);
    char *both = malloc(p.key_len + p.cert_len + 1);
    gp_cert_info info;
    gp_err err = { "" };

    memcpy(both, p.key, p.key_len);
    memcpy(both + p.key_len, p.cert, p.cert_len + 1);
    GP_CHECK_INT(gp_tls_check_pair(both, p.key_len + p.cert_len, both, p.key_len + p.cert_len,
                                   MID, &info, &err),
                 GP_OK);
    GP_CHECK(info.key_matches);
    free(both);
    pair_free(&p);
    EVP_PKEY_free(k);
}

GP_TEST(garbage_certificate)
{
    static const char junk[] = "this is not a certificate\n";
    gp_cert_info info;
    gp_err err = { "" };

    GP_CHECK_INT(gp_tls_check_pair(junk, sizeof(junk) - 1, NULL, 0, MID, &info, &err),
                 GP_EINVAL);
    GP_CHECK_STR(err.msg, "cannot parse certificate PEM: no start line");
    GP_CHECK_INT(info.fault, GP_TLS_FAULT_CERT);
    GP_CHECK_STR(info.subject, "");
    GP_CHECK_STR(info.key_type, "");
}

GP_TEST(truncated_certificate)
{
    EVP_PKEY *k = gen_key(false);
    pem_pair p = make_pair(k, k, T2026, T2027, SANS);
    gp_cert_info info;
    gp_err err;

    p.cert_len /= 2;
    GP_CHECK_INT(check(&p, MID, &info, &err), GP_EINVAL);
    GP_CHECK(strncmp(err.msg, "cannot parse certificate PEM: ", 30) == 0);
    pair_free(&p);
    EVP_PKEY_free(k);
}

GP_TEST(garbage_key)
{
    EVP_PKEY *k = gen_key(false);
    pem_pair p = make_pair(k, k, T2026, T2027, SANS);
    gp_cert_info info;
    gp_err err;

    free(p.key);
    p.key = strdup("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n");
    p.key_len = strlen(p.key);
    GP_CHECK_INT(check(&p, MID, &info, &err), GP_EINVAL);
    GP_CHECK(strncmp(err.msg, "cannot parse private key PEM (encrypted keys are not supported): ",
                     65) == 0);
    GP_CHECK_INT(info.fault, GP_TLS_FAULT_KEY);
    GP_CHECK_STR(info.subject, "CN=gp-test,O=gpupack");
    GP_CHECK(!info.key_matches);
    pair_free(&p);
    EVP_PKEY_free(k);
}

/* An encrypted key must fail, not prompt for a password (which would hang until the timeout). */
GP_TEST(encrypted_key_is_refused_without_prompting)
{
    EVP_PKEY *k = gen_key(false);
    pem_pair p = make_pair(k, k, T2026, T2027, SANS);
    BIO *b = BIO_new(BIO_s_mem());
    gp_cert_info info;
    gp_err err;

    PEM_write_bio_PKCS8PrivateKey(b, k, EVP_aes_128_cbc(), "secret", 6, NULL, NULL);
    free(p.key);
    p.key = bio_take(b, &p.key_len);
    GP_CHECK(strstr(p.key, "ENCRYPTED") != NULL);
    GP_CHECK_INT(check(&p, MID, &info, &err), GP_EINVAL);
    GP_CHECK(strncmp(err.msg, "cannot parse private key PEM (encrypted keys are not supported)",
                     63) == 0);
    pair_free(&p);
    EVP_PKEY_free(k);
}

GP_TEST(empty_inputs)
{
    EVP_PKEY *k = gen_key(false);
    pem_pair p = make_pair(k, k, T2026, T2027, SANS);
    gp_cert_info info;
    gp_err err = { "" };

    GP_CHECK_INT(gp_tls_check_pair("", 0, NULL, 0, MID, &info, &err), GP_EINVAL);
    GP_CHECK_STR(err.msg, "certificate is empty");
    GP_CHECK_INT(gp_tls_check_pair(NULL, 0, NULL, 0, MID, &info, &err), GP_EINVAL);
    GP_CHECK_STR(err.msg, "certificate is empty");
    GP_CHECK_INT(gp_tls_check_pair(p.cert, p.cert_len, "", 0, MID, &info, &err), GP_EINVAL);
    GP_CHECK_STR(err.msg, "private key is empty");
    pair_free(&p);
    EVP_PKEY_free(k);
}

GP_TEST(inputs_over_the_limit)
{
    size_t n = GP_TLS_MAX_PEM + 1;
    char *big = malloc(n);
    EVP_PKEY *k = gen_key(false);
    pem_pair p = make_pair(k, k, T2026, T2027, SANS);
    gp_cert_info info;
    gp_err err = { "" };

    memset(big, 'A', n);
    GP_CHECK_INT(gp_tls_check_pair(big, n, NULL, 0, MID, &info, &err), GP_ETOOBIG);
    GP_CHECK_STR(err.msg, "certificate is larger than 262144 bytes");
    GP_CHECK_INT(gp_tls_check_pair(p.cert, p.cert_len, big, n, MID, &info, &err), GP_ETOOBIG);
    GP_CHECK_STR(err.msg, "private key is larger than 262144 bytes");
    free(big);
    pair_free(&p);
    EVP_PKEY_free(k);
}

GP_TEST(null_err_is_allowed)
{
    EVP_PKEY *k1 = gen_key(false), *k2 = gen_key(false);
    pem_pair p = make_pair(k1, k2, T2026, T2027, SANS);
    gp_cert_info info;

    GP_CHECK_INT(gp_tls_check_pair(p.cert, p.cert_len, p.key, p.key_len, MID, &info, NULL),
                 GP_EINVAL);
    pair_free(&p);
    EVP_PKEY_free(k1);
    EVP_PKEY_free(k2);
}

/* A CA bundle for --client-ca: certificates counted, anything else around them skipped; none at
 * all, or a certificate block that does not parse, refused. */
GP_TEST(ca_bundle_needs_a_certificate)
{
    EVP_PKEY *k = gen_key(false);
    pem_pair p = make_pair(k, k, T2026, T2027, SANS);
    char both[8192], broken[8192];
    size_t n = 9;
    gp_err err = { "" };

    GP_CHECK_INT(gp_tls_check_ca(p.cert, p.cert_len, &n, &err), GP_OK);
    GP_CHECK_INT(n, 1);
    snprintf(both, sizeof(both), "a CA bundle\n%s%s%s", p.key, p.cert, p.cert);
    GP_CHECK_INT(gp_tls_check_ca(both, strlen(both), &n, &err), GP_OK);
    GP_CHECK_INT(n, 2);
    GP_CHECK_INT(gp_tls_check_ca("", 0, &n, &err), GP_EINVAL);
    GP_CHECK_STR(err.msg, "no PEM certificate in it");
    GP_CHECK_INT(n, 0);
    GP_CHECK_INT(gp_tls_check_ca(p.key, p.key_len, NULL, &err), GP_EINVAL);
    GP_CHECK_STR(err.msg, "no PEM certificate in it");
    GP_CHECK_INT(gp_tls_check_ca("# README\nput the CA here\n", 26, NULL, &err), GP_EINVAL);
    GP_CHECK_STR(err.msg, "no PEM certificate in it");
    snprintf(broken, sizeof(broken), "%s-----BEGIN CERTIFICATE-----\nAAAA\n"
             "-----END CERTIFICATE-----\n", p.cert);
    GP_CHECK_INT(gp_tls_check_ca(broken, strlen(broken), &n, &err), GP_EINVAL);
    GP_CHECK(strncmp(err.msg, "certificate 2 cannot be parsed: ", 32) == 0);
    pair_free(&p);
    EVP_PKEY_free(k);
}

GP_TEST(format_time)
{
    char buf[32];

    gp_tls_format_time(0, buf, sizeof(buf));
    GP_CHECK_STR(buf, "1970-01-01T00:00:00Z");
    gp_tls_format_time(T2026, buf, sizeof(buf));
    GP_CHECK_STR(buf, "2026-01-01T00:00:00Z");
    gp_tls_format_time(T2100 - 1, buf, sizeof(buf));
    GP_CHECK_STR(buf, "2099-12-31T23:59:59Z");
    gp_tls_format_time(-1, buf, sizeof(buf));
    GP_CHECK_STR(buf, "1969-12-31T23:59:59Z");
    gp_tls_format_time(T2026, buf, 21); /* the documented minimum */
    GP_CHECK_STR(buf, "2026-01-01T00:00:00Z");
    gp_tls_format_time(T2026, buf, 5);
    GP_CHECK_STR(buf, "2026");
    buf[0] = 'x';
    gp_tls_format_time(T2026, buf, 0);
    GP_CHECK(buf[0] == 'x');
}

GP_MAIN(GP_CASE(good_ec_pair_fills_everything), GP_CASE(ca_bundle_needs_a_certificate),
        GP_CASE(good_rsa_pair),
        GP_CASE(no_key_checks_only_the_certificate), GP_CASE(mismatched_key_same_type),
        GP_CASE(mismatched_key_other_type), GP_CASE(expired_against_the_real_clock),
        GP_CASE(validity_window_is_inclusive), GP_CASE(not_yet_valid),
        GP_CASE(no_subject_alt_name), GP_CASE(expiry_is_reported_before_key_mismatch),
        GP_CASE(expired_certificate_is_blamed_before_a_garbage_key),
        GP_CASE(other_san_kinds), GP_CASE(first_certificate_of_a_chain_is_the_leaf),
        GP_CASE(key_before_certificate_in_one_file), GP_CASE(garbage_certificate),
        GP_CASE(truncated_certificate), GP_CASE(garbage_key),
        GP_CASE(encrypted_key_is_refused_without_prompting), GP_CASE(empty_inputs),
        GP_CASE(inputs_over_the_limit), GP_CASE(null_err_is_allowed), GP_CASE(format_time))
