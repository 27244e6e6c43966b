/* SPDX-License-Identifier: Apache-2.0 */
#include "gpupack/fileio.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpupack/strbuf.h"

gp_status gp_stream_read(FILE *f, size_t max, char **buf, size_t *len, gp_err *err)
{
    gp_strbuf b;
    char chunk[16384];
    size_t got = 0;

    gp_strbuf_init(&b, max < SIZE_MAX - 1 ? max + 2 : 0); /* one byte past max tells "too large" */
    while (!b.failed && (got = fread(chunk, 1, sizeof(chunk), f)) > 0)
        gp_strbuf_put(&b, chunk, got);
    if (ferror(f)) {
        gp_strbuf_free(&b);
        gp_err_set(err, "read failed: %s", strerror(errno));
        return GP_EIO;
    }
    if (b.failed || b.len > max) {
        bool too_big = b.len + got > max;

        gp_strbuf_free(&b);
        if (!too_big)
            return GP_ENOMEM;
        gp_err_set(err, "larger than %zu bytes", max);
        return GP_ETOOBIG;
    }
    return gp_strbuf_take(&b, buf, len);
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

gp_status gp_file_decode(const char *path, size_t max, gp_file_decoder decode, void *ctx,
                         gp_err *err)
{
    char *buf = NULL;
    size_t len = 0;
    gp_status st = gp_file_read(path, max, &buf, &len, err);

    if (st == GP_OK) {
        st = decode(ctx, buf, len, err);
        if (st != GP_OK)
            gp_err_prefix(err, path);
    }
    free(buf);
    return st;
}
