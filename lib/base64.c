/* SPDX-License-Identifier: Apache-2.0 */
/* Base64 (see base64.h). Decoding skips the line breaks a kubeconfig may carry and refuses a
 * truncated last group, which OpenSSL's EVP_DecodeBlock() does not. */
#include "gpupack/base64.h"

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char b64_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* The four characters of the 24 bits in v. */
static void b64_quad(char *o, uint32_t v)
{
    o[0] = b64_alphabet[v >> 18];
    o[1] = b64_alphabet[(v >> 12) & 63];
    o[2] = b64_alphabet[(v >> 6) & 63];
    o[3] = b64_alphabet[v & 63];
}

/* The two characters of each 12-bit value, built by the compiler: encoding looks up 12 bits at a
 * time (a patch is encoded for every admitted pod). */
#define B64_CHAR(v)                                                                               \
    (char)((v) < 26 ? 'A' + (v) : (v) < 52 ? 'a' + (v) - 26 : (v) < 62 ? '0' + (v) - 52          \
           : (v) == 62 ? '+' : '/')
#define B64_P1(v) {B64_CHAR((v) >> 6), B64_CHAR((v) & 63)},
#define B64_P4(v) B64_P1(v) B64_P1((v) + 1) B64_P1((v) + 2) B64_P1((v) + 3)
#define B64_P16(v) B64_P4(v) B64_P4((v) + 4) B64_P4((v) + 8) B64_P4((v) + 12)
#define B64_P64(v) B64_P16(v) B64_P16((v) + 16) B64_P16((v) + 32) B64_P16((v) + 48)
#define B64_P256(v) B64_P64(v) B64_P64((v) + 64) B64_P64((v) + 128) B64_P64((v) + 192)
#define B64_P1024(v) B64_P256(v) B64_P256((v) + 256) B64_P256((v) + 512) B64_P256((v) + 768)
static const char b64_pairs[4096][2] = {B64_P1024(0) B64_P1024(1024) B64_P1024(2048)
                                            B64_P1024(3072)};

void gp_base64_encode_to(char *dst, const void *in, size_t n)
{
    const unsigned char *p = in;

    for (; n >= 3; n -= 3, p += 3, dst += 4) {
        uint32_t v = (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];

        memcpy(dst, b64_pairs[v >> 12], 2);
        memcpy(dst + 2, b64_pairs[v & 4095], 2);
    }
    if (n == 0)
        return;
    b64_quad(dst, (uint32_t)p[0] << 16 | (n == 2 ? (uint32_t)p[1] << 8 : 0));
    dst[3] = '=';
    if (n == 1)
        dst[2] = '=';
}

char *gp_base64_encode(const void *in, size_t n)
{
    char *out;

    if (n > (SIZE_MAX - 4) / 4 * 3 - 3)
        return NULL;
    out = malloc(GP_BASE64_LEN(n) + 1);
    if (out == NULL)
        return NULL;
    gp_base64_encode_to(out, in, n);
    out[GP_BASE64_LEN(n)] = '\0';
    return out;
}

static int b64_value(unsigned char c)
{
    const char *p = c != '\0' ? strchr(b64_alphabet, c) : NULL;

    return p != NULL ? (int)(p - b64_alphabet) : -1;
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
