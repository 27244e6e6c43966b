/* SPDX-License-Identifier: Apache-2.0 */
/* Kubernetes resource quantities ("500m", "1.5Gi", "2e3", "10"), parsed exactly.
 *
 * A quantity is held as an integer count of nano-units (1e-9 of the base unit) in a 128-bit
 * integer, so every value Kubernetes accepts for a pod's resources is represented without floating
 * point and compares exactly. Grammar (k8s.io/apimachinery resource.Quantity):
 *   quantity ::= sign? number suffix?
 *   number   ::= digits | digits "." digits? | "." digits
 *   suffix   ::= binarySI (Ki Mi Gi Ti Pi Ei) | decimalSI (n u m "" k M G T P E)
 *              | ("e" | "E") sign? digits
 * "K" (upper-case kilo) is invalid; "E" alone is exa, "e"/"E" followed by a sign or digits is an
 * exponent, which must fit in 32 bits (as in Kubernetes) or the input is GP_ERANGE.
 *
 * Values with finer precision than 1n are rounded up, towards +infinity: "0.1n" and "1e-999" are
 * 1n, "-0.1n" is 0 and "-1.5n" is -1n. (Kubernetes rounds the magnitude away from zero, giving -1n
 * for "-0.1n"; negative requests are rejected by validation, so only the ceiling matters here.)
 * A stored magnitude of 2^63 base units or more is GP_ERANGE ("8Ei" is, "7Ei" is not), where
 * Kubernetes clamps binary-suffixed values to 2^63-1 and keeps larger decimal ones. */
#ifndef GPUPACK_QUANTITY_H
#define GPUPACK_QUANTITY_H

#include <stddef.h>
#include <stdint.h>

#include "gpupack/status.h"

/* The longest quantity string accepted, in bytes; longer input is GP_ETOOBIG. */
#define GP_QTY_MAX_LEN 64

typedef struct {
    __int128 nano; /* value x 1e9 */
} gp_qty;

/* Parses s[0..len) (no NUL needed; spaces, NULs and other unprintable bytes are rejected).
 * Returns GP_OK and *out, or GP_EINVAL (malformed), GP_ERANGE (too large) or GP_ETOOBIG (longer
 * than GP_QTY_MAX_LEN) with a message that quotes the input and names what is wrong; *out is then
 * left unchanged. Exponents are handled in bounded time whatever their size. */
gp_status gp_qty_parse(const char *s, size_t len, gp_qty *out, gp_err *err) GP_WUR;

/* gp_qty_parse() for a NUL-terminated string (s == NULL is GP_EINVAL). It reads at most
 * GP_QTY_MAX_LEN + 1 bytes. */
gp_status gp_qty_parse_str(const char *s, gp_qty *out, gp_err *err) GP_WUR;

/* Returns <0, 0, >0 as a is less than, equal to, greater than b. */
int gp_qty_cmp(gp_qty a, gp_qty b);

/* A quantity of n whole units; every int64_t is representable. */
gp_qty gp_qty_from_units(int64_t n);

/* The value in whole units, rounded up ("1500m" is 2, "-1500m" is -1); saturates at INT64_MAX /
 * INT64_MIN. */
int64_t gp_qty_ceil_units(gp_qty q);

/* The value in milli-units, rounded up; saturates at INT64_MAX / INT64_MIN. */
int64_t gp_qty_ceil_milli(gp_qty q);

/* True when q is exactly the whole number n. */
int gp_qty_equals_units(gp_qty q, int64_t n);

/* Writes a canonical decimal form of q in units, without a suffix or trailing zeros ("1.5", "20",
 * "-0.25", "0.000000001"), NUL-terminated, into buf; parsing it gives back any parsed q.
 * Returns GP_ETOOBIG (and an empty string when bufsz > 0) when buf is too small; 48 bytes always
 * suffice. */
gp_status gp_qty_format(gp_qty q, char *buf, size_t bufsz) GP_WUR;

#endif
