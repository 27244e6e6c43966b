/* SPDX-License-Identifier: Apache-2.0 */
/* Bounded file reads, and a file handed to a decoder with its name on the decoder's errors: what
 * users see when a snapshot, recommendations or a cluster dump file is wrong. */
#include "gptest.h"

#include <stdbool.h>
#include <unistd.h>

#include "gpupack/fileio.h"

/* A temporary file holding content; its name in path (64 bytes). */
static bool temp_file(char *path, const char *content)
{
    int fd;
    size_t n = strlen(content);

    snprintf(path, 64, "/tmp/gp-fileio-test.XXXXXX");
    fd = mkstemp(path);
    if (fd < 0)
        return false;
    if (write(fd, content, n) != (ssize_t)n) {
        close(fd);
        return false;
    }
    close(fd);
    return true;
}

typedef struct {
    int calls;
    char seen[64];
    size_t len;
    gp_status answer;
} decoder_log;

static gp_status decode_logged(void *ctx, const char *buf, size_t len, gp_err *err)
{
    decoder_log *d = ctx;

    d->calls++;
    d->len = len;
    snprintf(d->seen, sizeof(d->seen), "%s", buf);
    if (d->answer != GP_OK)
        gp_err_set(err, "item 3 has no name");
    return d->answer;
}

GP_TEST(read_bounds_the_size)
{
    char path[64];
    char *buf = NULL;
    size_t len = 0;
    gp_err err = { { 0 } };

    GP_CHECK(temp_file(path, "0123456789"));
    GP_CHECK_INT(gp_file_read(path, 10, &buf, &len, &err), GP_OK);
    GP_CHECK_INT(len, 10);
    GP_CHECK(buf != NULL && strcmp(buf, "0123456789") == 0);
    free(buf);
    buf = NULL;
    GP_CHECK_INT(gp_file_read(path, 9, &buf, &len, &err), GP_ETOOBIG);
    GP_CHECK(buf == NULL);
    GP_CHECK(strstr(err.msg, path) == err.msg);
    GP_CHECK(strstr(err.msg, "larger than 9 bytes") != NULL);
    unlink(path);
}

GP_TEST(decode_hands_over_the_bytes)
{
    char path[64];
    decoder_log d = { .answer = GP_OK };
    gp_err err = { { 0 } };

    GP_CHECK(temp_file(path, "{\"items\":[]}"));
    GP_CHECK_INT(gp_file_decode(path, 1024, decode_logged, &d, &err), GP_OK);
    GP_CHECK_INT(d.calls, 1);
    GP_CHECK_INT(d.len, 12);
    GP_CHECK_STR(d.seen, "{\"items\":[]}");
    GP_CHECK_STR(err.msg, "");
    unlink(path);
}

GP_TEST(decode_errors_name_the_file)
{
    char path[64], want[128];
    decoder_log d = { .answer = GP_EINVAL };
    gp_err err = { { 0 } };

    GP_CHECK(temp_file(path, "{\"items\":[{}]}"));
    GP_CHECK_INT(gp_file_decode(path, 1024, decode_logged, &d, &err), GP_EINVAL);
    GP_CHECK_INT(d.calls, 1);
    snprintf(want, sizeof(want), "%s: item 3 has no name", path);
    GP_CHECK_STR(err.msg, want);
    unlink(path);
}

GP_TEST(decode_is_not_called_when_the_read_fails)
{
    char path[64], want[128];
    decoder_log d = { .answer = GP_OK };
    gp_err err = { { 0 } };

    GP_CHECK(temp_file(path, "0123456789"));
    GP_CHECK_INT(gp_file_decode(path, 4, decode_logged, &d, &err), GP_ETOOBIG);
    GP_CHECK_INT(d.calls, 0);
    snprintf(want, sizeof(want), "%s: larger than 4 bytes", path);
    GP_CHECK_STR(err.msg, want);
    unlink(path);
    GP_CHECK_INT(gp_file_decode(path, 4, decode_logged, &d, &err), GP_EIO);
    GP_CHECK_INT(d.calls, 0);
    GP_CHECK(strstr(err.msg, "cannot open: No such file or directory") != NULL);
}

GP_MAIN(GP_CASE(read_bounds_the_size), GP_CASE(decode_hands_over_the_bytes),
        GP_CASE(decode_errors_name_the_file), GP_CASE(decode_is_not_called_when_the_read_fails))
