/* SPDX-License-Identifier: Apache-2.0 */
/* Base64 (see base64.h): OpenSSL encodes; decoding is ours, because EVP_DecodeBlock() neither
 * skips the line breaks a kubeconfig may carry nor refuses a truncated last group. */
#include "gpupack/base64.h"

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

char *gp_base64_encode(const void *in, size_t n)
{
    unsigned char *out;

    if (n > INT_MAX / 4 * 3 - 3)
        return NULL;
    out = malloc(4 * ((n + 2) / 3) + 1);
    if (out != NULL)
        EVP_EncodeBlock(out, in, (int)n); /* writes the NUL too */
    return (char *)out;
}

static int b64_value(unsigned char c)
{
    static const char alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const char *p = c != '\0' ? strchr(alphabet, c) : NULL;

    return p != NULL ? (int)(p - alphabet) : -1;
}

static bool b64_skippable(unsigned char c)
{
    return c == '\r' || c == '\n' || c == ' ' || c == '\t';
}

/* Only padding and whitespace may follow the first '='. */
static bool b64_tail_ok(const char *in, size_t i, size_t len)
{
    for (; i < len; i++)
        if (in[i] != '=' && !b64_skippable((unsigned char)in[i]))
            return false;
    return true;
}

gp_status gp_base64_decode(const char *in, size_t len, size_t max, char **out, size_t *outlen)
{
    uint32_t acc = 0;
    size_t n = 0, bits = 0, i;
    char *o = malloc(len / 4 * 3 + 4);

    if (o == NULL)
        return GP_ENOMEM;
    for (i = 0; i < len; i++) {
        unsigned char c = (unsigned char)in[i];
        int v;

        if (b64_skippable(c))
            continue;
        if (c == '=')
            break;
        if ((v = b64_value(c)) < 0)
            goto bad;
        acc = (acc << 6) | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            if (n == max) {
                free(o);
                return GP_ETOOBIG;
            }
            o[n++] = (char)((acc >> bits) & 0xff);
        }
    }
    /* 6 leftover bits mean one lone character: not a valid encoding. */
    if (bits == 6 || !b64_tail_ok(in, i, len))
        goto bad;
    o[n] = '\0';
    *out = o;
    *outlen = n;
    return GP_OK;
bad:
    free(o);
    return GP_EINVAL;
}
