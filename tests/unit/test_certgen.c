/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of lib/certgen.c: an EC and an RSA set made in memory (the serving pair passes the
 * daemons' check and verifies against the new CA; SANs in order, lower-case, without
 * duplicates), then written to a fresh directory (modes, refusing to overwrite and naming the
 * file, replacing with replace), and gp_tls_verify_with_ca() refusing a foreign CA.
 *
 * Every test ends with a leak check when built with AddressSanitizer. */
#include "gptest.h"

#include <sys/stat.h>
#include <time.h>

#include "gpupack/certgen.h"
#include "gpupack/tlsfiles.h"

static const char *const extra_dns[] = { "Hook.Example.com", "hook.example.com" };
static const char *const extra_ips[] = { "10.0.0.1", "::1" };

static gp_certgen_spec spec(bool rsa)
{
    return (gp_certgen_spec){ .service = "gpupack-webhook", .ns = "gpupack", .dns = extra_dns,
                              .ndns = 2, .ips = extra_ips, .nips = 2, .days = 30,
                              .ca_days = 60, .rsa = rsa, .rsa_bits = 2048 };
}

static void check_set(bool rsa, const char *key_type)
{
    gp_certgen_spec s = spec(rsa);
    gp_cert_files f;
    gp_cert_info info;
    gp_err err = { "" };
    int64_t now = (int64_t)time(NULL);

    GP_CHECK_INT(gp_certgen_make(&s, now, &f, &err), GP_OK);
    GP_CHECK_INT(gp_tls_check_pair(f.pem[GP_CERT_TLS_CRT], f.len[GP_CERT_TLS_CRT],
                                   f.pem[GP_CERT_TLS_KEY], f.len[GP_CERT_TLS_KEY], now, &info,
                                   &err),
                 GP_OK);
    GP_CHECK_STR(info.sans, "DNS:gpupack-webhook, DNS:gpupack-webhook.gpupack, "
                            "DNS:gpupack-webhook.gpupack.svc, "
                            "DNS:gpupack-webhook.gpupack.svc.cluster.local, "
                            "DNS:hook.example.com, IP:10.0.0.1, IP:::1");
    GP_CHECK_STR(info.key_type, key_type);
    GP_CHECK(info.not_after - now > 29 * 86400 && info.not_after - now <= 30 * 86400);
    GP_CHECK_INT(gp_tls_verify_with_ca(f.pem[GP_CERT_TLS_CRT], f.len[GP_CERT_TLS_CRT],
                                       f.pem[GP_CERT_CA_CRT], f.len[GP_CERT_CA_CRT], now, &err),
                 GP_OK);
    gp_cert_files_free(&f);
    gp_cert_files_free(&f); /* twice is fine */
}

GP_TEST(makes_an_ec_set)
{
    check_set(false, "EC P-256");
}

GP_TEST(makes_an_rsa_set)
{
    check_set(true, "RSA 2048");
}

GP_TEST(a_foreign_ca_does_not_verify)
{
    gp_certgen_spec s = spec(false);
    gp_cert_files a, b;
    gp_err err = { "" };
    int64_t now = (int64_t)time(NULL);

    GP_CHECK_INT(gp_certgen_make(&s, now, &a, &err), GP_OK);
    GP_CHECK_INT(gp_certgen_make(&s, now, &b, &err), GP_OK);
    GP_CHECK_INT(gp_tls_verify_with_ca(a.pem[GP_CERT_TLS_CRT], a.len[GP_CERT_TLS_CRT],
                                       b.pem[GP_CERT_CA_CRT], b.len[GP_CERT_CA_CRT], now, &err),
                 GP_EINVAL);
    GP_CHECK(strstr(err.msg, "issuer") != NULL);
    gp_cert_files_free(&a);
    gp_cert_files_free(&b);
}

static unsigned mode_of(const char *dir, const char *name)
{
    char path[512];
    struct stat sb;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    return stat(path, &sb) == 0 ? (unsigned)(sb.st_mode & 0777) : 0;
}

GP_TEST(writes_refuses_and_replaces)
{
    char base[] = "/tmp/gp-certgen-XXXXXX", dir[64], cmd[128], want[128];
    gp_certgen_spec s = spec(false);
    gp_cert_files f;
    gp_err err = { "" };

    GP_CHECK(mkdtemp(base) != NULL);
    snprintf(dir, sizeof(dir), "%s/a/b", base);
    GP_CHECK_INT(gp_certgen_make(&s, (int64_t)time(NULL), &f, &err), GP_OK);
    GP_CHECK_INT(gp_certgen_write(&f, dir, false, &err), GP_OK);
    GP_CHECK_INT(mode_of(base, "a"), 0700);
    GP_CHECK_INT(mode_of(dir, "ca.crt"), 0644);
    GP_CHECK_INT(mode_of(dir, "ca.key"), 0600);
    GP_CHECK_INT(mode_of(dir, "tls.crt"), 0644);
    GP_CHECK_INT(mode_of(dir, "tls.key"), 0600);
    GP_CHECK_INT(gp_certgen_write(&f, dir, false, &err), GP_EIO);
    snprintf(want, sizeof(want), "%s/ca.crt already exists; use --force to overwrite it", dir);
    GP_CHECK_STR(err.msg, want);
    GP_CHECK_INT(gp_certgen_write(&f, dir, true, &err), GP_OK);
    gp_cert_files_free(&f);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
    GP_CHECK(system(cmd) == 0);
}

GP_MAIN(GP_CASE(makes_an_ec_set), GP_CASE(makes_an_rsa_set), GP_CASE(a_foreign_ca_does_not_verify),
        GP_CASE(writes_refuses_and_replaces))
