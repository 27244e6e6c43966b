/* SPDX-License-Identifier: Apache-2.0 */
/* Shared pieces of the libFuzzer harnesses (tests/fuzz/fuzz_*.c). Each harness drives one input
 * path of the core exactly as a daemon does, and aborts when a property the code promises does
 * not hold (libFuzzer then saves the input). Built by `make fuzz` with clang,
 * -fsanitize=fuzzer,address,undefined. */
#ifndef GPUPACK_FUZZ_COMMON_H
#define GPUPACK_FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpupack/policy.h"
#include "gpupack/server.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A NUL-terminated copy of the input, as the HTTP server hands a body to a handler. */
static inline char *fuzz_body(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);

    if (s == NULL)
        abort();
    if (size > 0)
        memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

/* The embedded default policy in a holder; aborts when it does not load. */
static inline void fuzz_default_policy(gp_policy_holder *h)
{
    gp_policy *p = NULL;
    char *errors = NULL;

    if (gp_policy_default(&p, &errors) != GP_OK) {
        fprintf(stderr, "default policy: %s\n", errors ? errors : "?");
        abort();
    }
    gp_policy_holder_init(h, p);
}

/* Aborts with a message when cond is false: a broken promise, not a crash of our own making. */
#define FUZZ_ASSERT(cond, ...)                                                                  \
    do {                                                                                        \
        if (!(cond)) {                                                                          \
            fprintf(stderr, "property failed: " __VA_ARGS__);                                   \
            fputc('\n', stderr);                                                                \
            abort();                                                                            \
        }                                                                                       \
    } while (0)

/* A response a client can act on: a status the server may send and, for 200, a body. */
static inline void fuzz_check_response(const gp_http_response *r)
{
    FUZZ_ASSERT(r->status >= 200 && r->status < 500, "status %d", r->status);
    FUZZ_ASSERT(r->body != NULL && r->body_len > 0, "empty body (status %d)", r->status);
    FUZZ_ASSERT(strlen(r->body) == r->body_len, "body length %zu vs %zu", strlen(r->body),
                r->body_len);
}

#endif
