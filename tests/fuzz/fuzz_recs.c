/* SPDX-License-Identifier: Apache-2.0 */
/* The recommendations document (gp_recs_decode), as the webhook reads it from its mounted
 * ConfigMap, which anyone with write access to that ConfigMap can edit. Properties:
 *   - a failure says why and leaves an empty table; a success is sorted by (namespace, kind,
 *     name) without duplicates, every entry non-empty, its gpu-memory over zero, and found by
 *     gp_recs_find() under its own key;
 *   - what it decoded is what was written: the table encoded again (gp_recs_encode) decodes to
 *     an equal table, within the bound, nothing dropped. */
#include "fuzz_common.h"

#include <math.h>

#include "gpupack/recs.h"

static bool num_eq(double a, double b)
{
    return (!isfinite(a) && !isfinite(b)) || a == b || fabs(a - b) <= 1e-9 * fabs(a);
}

static void check_table(const gp_recs *r)
{
    for (size_t i = 0; i < r->n; i++) {
        const gp_rec *x = &r->v[i];

        FUZZ_ASSERT(x->namespace[0] && x->kind[0] && x->name[0] && x->gpu_memory[0],
                    "entry %zu has an empty key or value", i);
        FUZZ_ASSERT(gp_qty_cmp(x->gpu_memory_bytes, (gp_qty){ 0 }) > 0, "entry %zu: %s <= 0", i,
                    x->gpu_memory);
        FUZZ_ASSERT(gp_recs_find(r, x->namespace, x->kind, x->name) == x,
                    "entry %zu not found under its own key", i);
    }
}

static void check_round_trip(const gp_recs *r)
{
    gp_strbuf b;
    gp_recs back;
    gp_err err = { { 0 } };
    size_t kept = 0;
    gp_status st;

    gp_strbuf_init(&b, 0);
    st = gp_recs_encode(r, GP_RECS_CONFIGMAP_MAX * 4, &b, &kept);
    FUZZ_ASSERT(st == GP_OK && kept == r->n, "encoding the table: status %d, %zu of %zu", (int)st,
                kept, r->n);
    st = gp_recs_decode(b.p, b.len, &back, &err);
    if (st == GP_ETOOBIG && b.len > GP_RECS_CONFIGMAP_MAX) { /* (written wider than it came) */
        gp_strbuf_free(&b);
        return;
    }
    FUZZ_ASSERT(st == GP_OK, "the table written back does not decode (%s): %.300s", err.msg, b.p);
    FUZZ_ASSERT(back.n == r->n, "%zu entries back, %zu written", back.n, r->n);
    for (size_t i = 0; i < r->n; i++) {
        const gp_rec *a = &r->v[i], *c = &back.v[i];

        FUZZ_ASSERT(strcmp(a->namespace, c->namespace) == 0 && strcmp(a->kind, c->kind) == 0 &&
                        strcmp(a->name, c->name) == 0 && strcmp(a->gpu_memory, c->gpu_memory) == 0 &&
                        strcmp(a->mig_profile, c->mig_profile) == 0,
                    "entry %zu differs when written back", i);
        FUZZ_ASSERT(num_eq(a->fb_peak_mib, c->fb_peak_mib) && num_eq(a->p95, c->p95) &&
                        floor(a->expires) == c->expires,
                    "entry %zu: numbers differ when written back", i);
    }
    gp_recs_free(&back);
    gp_strbuf_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *body = fuzz_body(data, size);
    gp_recs r;
    gp_err err = { { 0 } };
    gp_status st = gp_recs_decode(body, size, &r, &err);

    if (st != GP_OK) {
        FUZZ_ASSERT(r.n == 0 && r.v == NULL, "a failure (%d) with entries", (int)st);
        FUZZ_ASSERT(err.msg[0] != '\0', "a failure (%d) without a message", (int)st);
    } else {
        check_table(&r);
        check_round_trip(&r);
    }
    gp_recs_free(&r);
    free(body);
    return 0;
}
