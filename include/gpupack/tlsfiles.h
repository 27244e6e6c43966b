/* SPDX-License-Identifier: Apache-2.0 */
/* Certificate checks with OpenSSL, used when the daemons load their serving pair and by
 * `gpupack-certs --check` (which also verifies against a CA).
 *
 * Pure: the caller passes the PEM bytes and the current time; nothing here reads a file or a
 * clock. */
#ifndef GPUPACK_TLSFILES_H
#define GPUPACK_TLSFILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpupack/status.h"

#define GP_TLS_MAX_PEM (256 * 1024) /* largest certificate or key file accepted */

/* Which file of a pair a failed check blames. */
typedef enum {
    GP_TLS_FAULT_NONE,     /* the pair is usable */
    GP_TLS_FAULT_CERT,     /* the certificate: unparsable, outside its validity, no SAN */
    GP_TLS_FAULT_KEY,      /* the private key: empty, unparsable, encrypted */
    GP_TLS_FAULT_MISMATCH, /* both parse, but the key is not the certificate's */
} gp_tls_fault;

typedef struct {
    char subject[256];  /* one-line RFC 2253 subject of the leaf */
    char issuer[256];
    char sans[1024];    /* "DNS:a, DNS:b, IP:127.0.0.1" */
    size_t nsans;
    int64_t not_before; /* Unix seconds */
    int64_t not_after;
    bool key_matches;   /* the private key belongs to the leaf certificate */
    char key_type[32];  /* "EC P-256", "RSA 2048", ... */
    gp_tls_fault fault; /* what gp_tls_check_pair() blamed */
} gp_cert_info;

/* Parses the leaf certificate (the first in cert_pem; a chain may follow) and, when key_pem is not
 * NULL, the private key. Fills *info as far as it could parse. Returns GP_OK when the pair is
 * usable at time now: key matches, now within [not_before, not_after], at least one SAN. Otherwise
 * GP_EINVAL with a message saying which check failed ("certificate expired at
 * 2026-01-01T00:00:00Z", "private key does not match certificate", "certificate has no
 * subjectAltName") and info->fault naming the file to blame; the certificate's own problems come
 * before the key's. */
gp_status gp_tls_check_pair(const char *cert_pem, size_t cert_len, const char *key_pem,
                            size_t key_len, int64_t now, gp_cert_info *info, gp_err *err) GP_WUR;

/* Verifies the leaf in cert_pem (with any intermediates after it) against the certificates in
 * ca_pem, for TLS server use, at time now. GP_EINVAL with OpenSSL's verdict ("certificate has
 * expired", "unable to get local issuer certificate") when it does not verify, or saying which
 * text holds no certificate or one that does not parse ("the CA file: certificate 2 cannot be
 * parsed: ..."). */
gp_status gp_tls_verify_with_ca(const char *cert_pem, size_t cert_len, const char *ca_pem,
                                size_t ca_len, int64_t now, gp_err *err) GP_WUR;

/* Checks a CA bundle for client certificates (--client-ca): every PEM CERTIFICATE block in pem
 * parses, and there is at least one; other PEM blocks and text around them are skipped, as TLS
 * libraries skip them. Sets *ncerts (may be NULL) to the certificates found. GP_EINVAL with "no
 * PEM certificate in it" (an empty file, a private key, a README) or "certificate N cannot be
 * parsed: reason"; GP_ETOOBIG over GP_TLS_MAX_PEM. */
gp_status gp_tls_check_ca(const char *pem, size_t len, size_t *ncerts, gp_err *err) GP_WUR;

/* Formats Unix seconds as RFC 3339 UTC into buf (at least 21 bytes). */
void gp_tls_format_time(int64_t t, char *buf, size_t bufsz);

#endif
