/* SPDX-License-Identifier: Apache-2.0 */
/* Status codes and error messages shared by every core module.
 *
 * Functions that can fail return a gp_status (GP_OK is zero, failures are negative) and, when the
 * caller passes a gp_err, write a human-readable message into it. Messages name the input that was
 * wrong (a JSON path, a flag, a file) so they can be shown to a user as they are. */
#ifndef GPUPACK_STATUS_H
#define GPUPACK_STATUS_H

#include <stddef.h>

#define GP_WUR __attribute__((warn_unused_result))

typedef enum {
    GP_OK = 0,
    GP_EINVAL = -1,    /* the input is malformed or out of range */
    GP_ENOMEM = -2,    /* an allocation failed */
    GP_EIO = -3,       /* a file or socket operation failed */
    GP_ERANGE = -4,    /* a number does not fit */
    GP_ETOOBIG = -5,   /* an input exceeds a named limit */
    GP_ENOTFOUND = -6, /* a looked-up thing does not exist */
    GP_EINTERNAL = -7  /* a bug or an impossible state */
} gp_status;

#define GP_ERR_MAX 512

/* An error message buffer. Zero-initialise it; gp_err_set() overwrites it. */
typedef struct {
    char msg[GP_ERR_MAX];
} gp_err;

/* Formats a message into err (truncating at GP_ERR_MAX). err may be NULL. */
void gp_err_set(gp_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prefixes the existing message with "prefix: ". err may be NULL. */
void gp_err_prefix(gp_err *err, const char *prefix);

/* A short constant name for a status ("invalid input", "out of memory", ...). */
const char *gp_status_str(gp_status st);

#endif
