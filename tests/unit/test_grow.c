/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests of lib/grow.c (doubling heap arrays) and lib/snapshot.c (the swapped snapshot
 * slot): room is made only when needed and by doubling, a failure leaves the array and its
 * capacity alone, and a snapshot a reader holds outlives a swap.
 *
 * Every test ends with a leak check when built with AddressSanitizer. */
#include "gptest.h"

#include <stdint.h>

#include "gpupack/grow.h"
#include "gpupack/snapshot.h"

GP_TEST(grow_doubles_from_sixteen)
{
    size_t cap = 0;
    int *v = gp_grow(NULL, &cap, 1, sizeof(int));

    GP_CHECK(v != NULL);
    GP_CHECK_INT(cap, 16);
    v[15] = 7;
    GP_CHECK(gp_grow(v, &cap, 16, sizeof(int)) == v); /* room already */
    v = gp_grow(v, &cap, 17, sizeof(int));
    GP_CHECK_INT(cap, 32);
    GP_CHECK_INT(v[15], 7);
    v = gp_grow(v, &cap, 200, sizeof(int));
    GP_CHECK_INT(cap, 256);
    free(v);
}

GP_TEST(grow_refuses_overflow_and_keeps_the_array)
{
    size_t cap = 0;
    char *v = gp_grow(NULL, &cap, 4, 1);

    GP_CHECK(v != NULL);
    GP_CHECK(gp_grow(v, &cap, SIZE_MAX / 2 + 2, 1) == NULL);
    GP_CHECK(gp_grow(v, &cap, 17, SIZE_MAX / 8) == NULL);
    GP_CHECK_INT(cap, 16);
    v[15] = 'x'; /* still ours, still 16 long */
    free(v);
}

typedef struct {
    int refs;
    int value;
} counted;

static void *counted_ref(void *p) { ((counted *)p)->refs++; return p; }
static void counted_unref(void *p) { ((counted *)p)->refs--; }

GP_TEST(snapshot_swap_keeps_the_readers_copy)
{
    counted a = { 1, 1 }, b = { 1, 2 };
    gp_snapshot s;
    counted *held;

    gp_snapshot_init(&s, &a, counted_ref, counted_unref);
    held = gp_snapshot_get(&s);
    GP_CHECK_INT(held->value, 1);
    GP_CHECK_INT(a.refs, 2);
    gp_snapshot_set(&s, &b); /* the slot's reference to a is dropped, the reader's is not */
    GP_CHECK_INT(a.refs, 1);
    GP_CHECK_INT(((counted *)gp_snapshot_get(&s))->value, 2);
    GP_CHECK_INT(b.refs, 2);
    gp_snapshot_destroy(&s);
    GP_CHECK_INT(b.refs, 1);
}

GP_TEST(snapshot_may_be_empty)
{
    counted a = { 1, 1 };
    gp_snapshot s;

    gp_snapshot_init(&s, NULL, counted_ref, counted_unref);
    GP_CHECK(gp_snapshot_get(&s) == NULL);
    gp_snapshot_set(&s, &a);
    gp_snapshot_set(&s, NULL);
    GP_CHECK_INT(a.refs, 0);
    gp_snapshot_destroy(&s);
}

GP_MAIN(GP_CASE(grow_doubles_from_sixteen), GP_CASE(grow_refuses_overflow_and_keeps_the_array),
        GP_CASE(snapshot_swap_keeps_the_readers_copy), GP_CASE(snapshot_may_be_empty))
