/* SPDX-License-Identifier: Apache-2.0 */
/* Bounded whole-file reads. */
#ifndef GPUPACK_FILEIO_H
#define GPUPACK_FILEIO_H

#include <stddef.h>
#include <stdio.h>

#include "gpupack/status.h"

/* Reads path into a malloc'd, NUL-terminated buffer (*buf, *len without the NUL). Files larger than
 * max bytes give GP_ETOOBIG. Errors name the file and the reason. The caller frees *buf. */
gp_status gp_file_read(const char *path, size_t max, char **buf, size_t *len, gp_err *err) GP_WUR;

/* Reads a whole stream (stdin) the same way. */
gp_status gp_stream_read(FILE *f, size_t max, char **buf, size_t *len, gp_err *err) GP_WUR;

/* Reads path as gp_file_read() does and hands the bytes to decode (ctx passed through); the
 * buffer is freed after. A decoding error comes back as "PATH: reason". decode's status, or the
 * read's. */
typedef gp_status (*gp_file_decoder)(void *ctx, const char *buf, size_t len, gp_err *err);
gp_status gp_file_decode(const char *path, size_t max, gp_file_decoder decode, void *ctx,
                         gp_err *err) GP_WUR;

#endif
