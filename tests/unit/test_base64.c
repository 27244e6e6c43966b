/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of lib/base64.c: the RFC 4648 vectors, every byte value through encode and decode,
 * and the decoder's strictness (bad characters, a lone last character, data after padding, the
 * size limit) and leniency (line breaks, missing padding).
 *
 * Every test ends with a leak check when built with AddressSanitizer. */
#include "gptest.h"

#include <openssl/evp.h>

#include "gpupack/base64.h"
#include "gpupack/strbuf.h"

GP_TEST(encode_vectors)
{
    static const char *const in[] = { "", "f", "fo", "foo", "foob", "fooba", "foobar" };
    static const char *const want[] = { "", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=",
                                        "Zm9vYmFy" };

    for (size_t i = 0; i < 7; i++) {
        char *out = gp_base64_encode(in[i], strlen(in[i]));

        GP_CHECK_STR(out, want[i]);
        free(out);
    }
}

GP_TEST(all_bytes_round_trip)
{
    unsigned char in[256];
    char *out, *back = NULL;
    size_t n = 0;

    for (int i = 0; i < 256; i++)
        in[i] = (unsigned char)(255 - i);
    out = gp_base64_encode(in, sizeof(in));
    GP_CHECK_INT(strlen(out), 4 * ((256 + 2) / 3));
    GP_CHECK_INT(gp_base64_decode(out, strlen(out), 256, &back, &n), GP_OK);
    GP_CHECK_INT(n, 256);
    GP_CHECK(memcmp(in, back, 256) == 0);
    free(out);
    free(back);
    out = gp_base64_encode("\xff\xfe", 2);
    GP_CHECK_STR(out, "//4=");
    free(out);
    out = gp_base64_encode("\xfb\xff", 2);
    GP_CHECK_STR(out, "+/8=");
    free(out);
}

GP_TEST(decoding)
{
    char *out = NULL;
    size_t n = 0;

    GP_CHECK_INT(gp_base64_decode("aGVs\nbG8=\n", 10, 100, &out, &n), GP_OK);
    GP_CHECK_STR(out, "hello");
    GP_CHECK_INT(n, 5);
    free(out);
    GP_CHECK_INT(gp_base64_decode("aGVsbG8", 7, 100, &out, &n), GP_OK); /* unpadded */
    GP_CHECK_STR(out, "hello");
    free(out);
    GP_CHECK_INT(gp_base64_decode("", 0, 100, &out, &n), GP_OK);
    GP_CHECK_INT(n, 0);
    free(out);
    GP_CHECK_INT(gp_base64_decode("aGV*", 4, 100, &out, &n), GP_EINVAL);
    GP_CHECK_INT(gp_base64_decode("aGVsb", 5, 100, &out, &n), GP_EINVAL); /* a lone char */
    GP_CHECK_INT(gp_base64_decode("aG=x", 4, 100, &out, &n), GP_EINVAL);
    GP_CHECK_INT(gp_base64_decode("aGVsbG8=", 8, 4, &out, &n), GP_ETOOBIG);
}

/* OpenSSL's encoder, an independent implementation, agrees on every length from 0 to 300 of
 * random bytes; encoding in place into a buffer writes the same text after what was there. */
GP_TEST(encode_agrees_with_openssl)
{
    unsigned char in[300], want[404];
    unsigned seed = 7;
    int bad = 0;

    for (size_t i = 0; i < sizeof(in); i++)
        in[i] = (unsigned char)rand_r(&seed);
    for (size_t n = 0; n <= sizeof(in); n++) {
        char *got = gp_base64_encode(in, n), *at;
        gp_strbuf b;

        EVP_EncodeBlock(want, in, (int)n);
        bad += got == NULL || strcmp(got, (const char *)want) != 0;
        gp_strbuf_init(&b, 0);
        gp_strbuf_puts(&b, "x=");
        at = gp_strbuf_extend(&b, GP_BASE64_LEN(n));
        if (at != NULL)
            gp_base64_encode_to(at, in, n);
        bad += at == NULL || b.len != 2 + strlen((const char *)want) ||
               strcmp(b.p + 2, (const char *)want) != 0 || memcmp(b.p, "x=", 2) != 0;
        gp_strbuf_free(&b);
        free(got);
    }
    GP_CHECK_INT(bad, 0);
}

/* A buffer at its limit appends nothing and hands out no room. */
GP_TEST(extend_past_limit_fails)
{
    gp_strbuf b;
    char *out = NULL;
    size_t n = 0;

    gp_strbuf_init(&b, 16);
    GP_CHECK(gp_strbuf_extend(&b, 8) != NULL);
    GP_CHECK_INT(b.len, 8);
    GP_CHECK(gp_strbuf_extend(&b, 8) == NULL); /* 16 bytes and the NUL do not fit */
    GP_CHECK_INT(b.len, 8);
    GP_CHECK_INT(gp_strbuf_take(&b, &out, &n), GP_ENOMEM);
    gp_strbuf_free(&b);
}

GP_MAIN(GP_CASE(encode_vectors), GP_CASE(encode_agrees_with_openssl),
        GP_CASE(extend_past_limit_fails), GP_CASE(all_bytes_round_trip), GP_CASE(decoding))
