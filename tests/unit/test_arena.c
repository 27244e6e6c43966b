/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of lib/arena.c's gp_arena_printf(): its text equals snprintf's for formats of
 * strings only (joined without vsnprintf) and for the others, in the head block and past it, and
 * it returns NULL over the arena's limit.
 *
 * Every test ends with a leak check when built with AddressSanitizer. */
#include "gptest.h"

#include "gpupack/arena.h"

#include <stdio.h>

/* Checks gp_arena_printf(fmt, ...) against snprintf with the same arguments. */
#define SAME(a, fmt, ...)                                                                         \
    do {                                                                                          \
        char want_[20000];                                                                        \
        char *got_ = gp_arena_printf(a, fmt, __VA_ARGS__);                                        \
        snprintf(want_, sizeof(want_), fmt, __VA_ARGS__);                                         \
        GP_CHECK_STR(got_, want_);                                                                \
    } while (0)

GP_TEST(strings_joined_as_snprintf_writes_them)
{
    gp_arena a;
    const char *volatile none = NULL; /* volatile: the compiler would refuse a known NULL */

    gp_arena_init(&a, 0);
    SAME(&a, "%s", "");
    SAME(&a, "%s%s", "toleration ", "nvidia.com/gpu:NoSchedule");
    SAME(&a, "class %s (%s)", "inference", "label gpupack.io/class");
    SAME(&a, "%s=%s%s%s", "k", "v", ":", "NoSchedule");
    SAME(&a, "100%% of %s", "the GPU");
    SAME(&a, "%%s is not %s%%", "a conversion");
    SAME(&a, "no conversion at all%s", "");
    GP_CHECK_STR(gp_arena_printf(&a, "%s%s", "a", none), "a(null)"); /* as glibc writes it */
    gp_arena_free(&a);
}

GP_TEST(other_conversions_and_long_texts)
{
    gp_arena a;
    char big[12000];

    memset(big, 'x', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    gp_arena_init(&a, 0);
    SAME(&a, "%s: %d slices, %.1f GiB", "mig", 7, 9.75);
    SAME(&a, "%.3s|%s", "abcdef", "g");
    SAME(&a, "[%s]", big); /* past the 8 KiB block */
    SAME(&a, "%s%s", big, big + 6000);
    SAME(&a, "[%d %s]", 1, big);
    gp_arena_free(&a);
}

GP_TEST(limit_gives_null)
{
    gp_arena a;
    char big[9000];

    memset(big, 'y', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    gp_arena_init(&a, 16384); /* one 8 KiB block, not two */
    GP_CHECK_STR(gp_arena_printf(&a, "%s", "fits"), "fits");
    GP_CHECK(gp_arena_printf(&a, "%s%s", big, big) == NULL);
    GP_CHECK(gp_arena_printf(&a, "%d%s", 1, big) == NULL);
    GP_CHECK_STR(gp_arena_printf(&a, "%s %d", "still", 1), "still 1");
    gp_arena_free(&a);
}

/* Growing keeps the old contents and zeroes only what is new; shrinking keeps the front. */
GP_TEST(grow_keeps_and_zeroes_the_rest)
{
    gp_arena a;
    unsigned char *p, *q;
    size_t bad = 0;

    gp_arena_init(&a, 0);
    p = gp_arena_alloc_raw(&a, 100);
    GP_CHECK(p != NULL);
    if (p == NULL)
        return;
    memset(p, 0xAB, 100);
    q = gp_arena_grow(&a, p, 100, 5000);
    GP_CHECK(q != NULL && q != p);
    for (size_t i = 0; q != NULL && i < 5000; i++)
        bad += q[i] != (i < 100 ? 0xAB : 0);
    GP_CHECK_INT(bad, 0);
    q = gp_arena_grow(&a, p, 100, 10);
    GP_CHECK(q != NULL && q[0] == 0xAB && q[9] == 0xAB);
    q = gp_arena_grow(&a, NULL, 0, 64);
    for (size_t i = 0; q != NULL && i < 64; i++)
        bad += q[i] != 0;
    GP_CHECK(q != NULL);
    GP_CHECK_INT(bad, 0);
    gp_arena_free(&a);
}

/* Adopted blocks stay valid and are the adopter's: what both handed out reads back, the
 * adopter keeps allocating, and one free releases it all (the sanitizers' leak check). */
GP_TEST(adopt_moves_blocks)
{
    gp_arena a, b, empty;
    char *x, *y, *big, *z;

    gp_arena_init(&a, 0);
    gp_arena_init(&b, 0);
    gp_arena_init(&empty, 0);
    x = gp_arena_strdup(&a, "from a");
    y = gp_arena_strdup(&b, "from b");
    big = gp_arena_alloc(&b, 100000);
    GP_CHECK(x != NULL && y != NULL && big != NULL);
    gp_arena_adopt(&a, &b);
    GP_CHECK(b.head == NULL && b.total == 0);
    GP_CHECK(gp_arena_owns(&a, y) && gp_arena_owns(&a, big) && gp_arena_owns(&a, x));
    GP_CHECK(!gp_arena_owns(&b, y));
    z = gp_arena_strdup(&a, "after");
    GP_CHECK(z != NULL && strcmp(x, "from a") == 0 && strcmp(y, "from b") == 0);
    gp_arena_adopt(&empty, &a); /* into an empty arena */
    GP_CHECK(a.head == NULL && gp_arena_owns(&empty, z) && gp_arena_owns(&empty, y));
    gp_arena_adopt(&empty, &b); /* an empty one adopted: nothing changes */
    GP_CHECK(strcmp(z, "after") == 0);
    gp_arena_free(&empty);
    gp_arena_free(&b);
}

GP_MAIN(GP_CASE(strings_joined_as_snprintf_writes_them), GP_CASE(other_conversions_and_long_texts),
        GP_CASE(limit_gives_null), GP_CASE(grow_keeps_and_zeroes_the_rest),
        GP_CASE(adopt_moves_blocks))
