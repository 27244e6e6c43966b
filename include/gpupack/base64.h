/* SPDX-License-Identifier: Apache-2.0 */
/* Standard base64 (RFC 4648 section 4, with '=' padding), the one codec every module uses: the
 * webhook's JSONPatch, a kubeconfig's inline certificates, an exec plugin's
 * KUBERNETES_EXEC_INFO and the certificate program's caBundle. Pure. */
#ifndef GPUPACK_BASE64_H
#define GPUPACK_BASE64_H

#include <stddef.h>

#include "gpupack/status.h"

/* The length of the padded base64 of n bytes (no NUL). */
#define GP_BASE64_LEN(n) (((n) + 2) / 3 * 4)

/* The padded base64 of in[0..n) as a malloc'd NUL-terminated string (free() it), one line.
 * NULL when memory runs out or n is too large to encode. */
char *gp_base64_encode(const void *in, size_t n);

/* Writes the padded base64 of in[0..n) at dst, GP_BASE64_LEN(n) bytes and no NUL. */
void gp_base64_encode_to(char *dst, const void *in, size_t n);

/* Decodes base64 (padding optional; CR, LF, spaces and tabs are skipped; only padding and
 * whitespace may follow the first '=') into a malloc'd NUL-terminated buffer of at most max
 * bytes. GP_EINVAL on a bad character or a lone trailing character, GP_ETOOBIG past max. */
gp_status gp_base64_decode(const char *in, size_t len, size_t max, char **out, size_t *outlen)
    GP_WUR;

#endif
