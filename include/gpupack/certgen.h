/* SPDX-License-Identifier: Apache-2.0 */
/* Certificate generation for a Kubernetes Service, with OpenSSL 3's EVP/X509 APIs: a CA and a
 * serving certificate signed by it, made in memory (gp_certgen_make), then written as four files
 * by a separate step (gp_certgen_write). gpupack-certs is the only program; tests call both.
 *
 * The serving certificate's SANs are NAME, NAME.NS, NAME.NS.svc, NAME.NS.svc.cluster.local,
 * every extra DNS name (stored lower-case, duplicates dropped) and every extra IP address. */
#ifndef GPUPACK_CERTGEN_H
#define GPUPACK_CERTGEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpupack/status.h"

#define GP_CERTGEN_MAX_EXTRA 64 /* extra --ip values, and separately extra --dns values */

typedef struct {
    const char *service, *ns;   /* DNS labels (gp_dns_label()); the caller checks them */
    const char *const *dns;     /* extra DNS SANs (gp_dns_host()) */
    size_t ndns;
    const char *const *ips;     /* extra IPv4/IPv6 SANs, as text */
    size_t nips;
    unsigned days, ca_days;     /* lifetimes; notBefore is an hour early for clock skew */
    bool rsa;                   /* RSA keys of rsa_bits; otherwise EC P-256 */
    unsigned rsa_bits;
} gp_certgen_spec;

/* The four files, in this order: ca.crt, ca.key, tls.crt, tls.key. */
enum { GP_CERT_CA_CRT, GP_CERT_CA_KEY, GP_CERT_TLS_CRT, GP_CERT_TLS_KEY, GP_CERT_NFILES };

typedef struct {
    char *pem[GP_CERT_NFILES]; /* malloc'd PEM text */
    size_t len[GP_CERT_NFILES];
} gp_cert_files;

/* Makes both keys, the CA (CN "gpupack-ca@NOW", pathlen 0) and the serving certificate, valid
 * from now, PEM-encoded into *out, and checks the serving pair as the daemons will. On failure
 * returns GP_EINVAL or GP_ENOMEM with OpenSSL's reason in err, and *out holds nothing. The caller
 * frees *out with gp_cert_files_free(). */
gp_status gp_certgen_make(const gp_certgen_spec *spec, int64_t now, gp_cert_files *out,
                          gp_err *err) GP_WUR;

/* Wipes the keys and frees every file's text; *f is empty afterwards (freeing twice is fine). */
void gp_cert_files_free(gp_cert_files *f);

/* True when none of the four files exists in dir; else false with err naming the first that does
 * ("use --force"). gp_certgen_write() checks again; this lets a caller refuse before making keys. */
bool gp_certgen_none_exist(const char *dir, gp_err *err);

/* Writes the four files into dir (created 0700 with its parents when missing); keys 0600,
 * certificates 0644. Without replace, fails when any of them exists (naming it, "use --force")
 * and removes the files it created when a later one fails; with replace, each file is replaced
 * atomically, so a reader sees the old file or the new one. Errors name the path. */
gp_status gp_certgen_write(const gp_cert_files *f, const char *dir, bool replace,
                           gp_err *err) GP_WUR;

#endif
