/* SPDX-License-Identifier: Apache-2.0 */
#include "gpupack/fileio.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

gp_status gp_stream_read(FILE *f, size_t max, char **buf, size_t *len, gp_err *err)
{
    size_t cap = 4096, n = 0;
    char *b = malloc(cap + 1);

    if (b == NULL)
        return GP_ENOMEM;
    for (;;) {
        size_t got;

        if (n == cap) {
            char *nb;

            if (cap > max) {
                free(b);
                gp_err_set(err, "larger than %zu bytes", max);
                return GP_ETOOBIG;
            }
            cap *= 2;
            nb = realloc(b, cap + 1);
            if (nb == NULL) {
                free(b);
                return GP_ENOMEM;
            }
            b = nb;
        }
        got = fread(b + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        free(b);
        gp_err_set(err, "read failed: %s", strerror(errno));
        return GP_EIO;
    }
    if (n > max) {
        free(b);
        gp_err_set(err, "larger than %zu bytes", max);
        return GP_ETOOBIG;
    }
    b[n] = '\0';
    *buf = b;
    *len = n;
    return GP_OK;
}

gp_status gp_file_read(const char *path, size_t max, char **buf, size_t *len, gp_err *err)
{
    FILE *f = fopen(path, "rb");
    gp_status st;

    if (f == NULL) {
        gp_err_set(err, "%s: cannot open: %s", path, strerror(errno));
        return GP_EIO;
    }
    st = gp_stream_read(f, max, buf, len, err);
    fclose(f);
    if (st != GP_OK && st != GP_ENOMEM)
        gp_err_prefix(err, path);
    return st;
}
