/* SPDX-License-Identifier: Apache-2.0 */
/* The advisor's recommendations: what `gpupack-advisor serve` writes into the recommendations
 * ConfigMap (key recommendations.json) and the webhook reads from its mounted copy.
 *
 * One recommendation per workload (namespace, owner kind and name as gp_workload_of() names it):
 * the gpupack.io/gpu-memory the workload needs, the MIG profile that maps to today, and the
 * evidence it rests on. They come from the report's MIG findings (gp_advise()), are encoded as
 * one JSON document that stays under a byte bound (the 1 MiB ConfigMap limit: the workloads
 * worth most dollars are kept, and the document says how many were dropped), and decoded back
 * into a sorted table that answers "the recommendation for this pod's workload" by binary
 * search. Pure: no I/O, no clock (times are passed in, seconds since the epoch).
 *
 * The document (schema "gpupack.io/recommendations/v1", every field in docs/advisor.md):
 *   {"apiVersion": "gpupack.io/recommendations/v1", "generated": "2026-12-04T18:00:00Z",
 *    "window": {"start": "...", "end": "...", "hours": 168}, "total": 12, "dropped": 0,
 *    "recommendations": [
 *      {"namespace": "ml", "kind": "Deployment", "name": "ranker", "gpuMemory": "11Gi",
 *       "migProfile": "2g.20gb", "monthlyDollars": 1310.2,
 *       "evidence": {"windowHours": 168, "fbPeakMiB": 9216, "p95Activity": 0.12,
 *                    "meanActivity": 0.08, "samples": 20160},
 *       "created": "2026-12-04T18:00:00Z", "expires": "2026-12-07T18:00:00Z"}]}
 * Times are RFC 3339 UTC. Decoding accepts members in any order, ignores unknown members (a
 * newer advisor may add some) and refuses a document whose apiVersion is not v1, or whose
 * recommendation lacks namespace, kind, name, gpuMemory (a quantity over zero) or expires. */
#ifndef GPUPACK_RECS_H
#define GPUPACK_RECS_H

#include <stdbool.h>
#include <stddef.h>

#include "gpupack/advise.h"
#include "gpupack/quantity.h"
#include "gpupack/status.h"
#include "gpupack/strbuf.h"

#define GP_RECS_API_VERSION "gpupack.io/recommendations/v1"
#define GP_RECS_CONFIGMAP_MAX (1024u * 1024u) /* what one ConfigMap holds, all keys together */
#define GP_RECS_DEFAULT_MAX_BYTES (900u * 1024u) /* the document: room for the object's own */
#define GP_RECS_MAX_ITEMS 100000u                /* decoding refuses more */

typedef struct {
    char *namespace, *kind, *name; /* "ml", "Deployment", "ranker" */
    char *gpu_memory;              /* "11Gi": what gpupack.io/gpu-memory would say */
    gp_qty gpu_memory_bytes;       /* the same, parsed */
    char *mig_profile;             /* "2g.20gb" when made; "" when none was named */
    double monthly;                /* $/month the change saves, at the rate when made */
    double window_hours, fb_peak_mib, p95, mean, samples; /* evidence; NaN when unknown */
    double created, expires;       /* seconds since the epoch */
} gp_rec;

typedef struct {
    double generated;          /* when the analysis ran */
    double start, end, hours;  /* its window */
    size_t total;              /* recommendations the analysis made */
    size_t dropped;            /* of those, left out to stay under the byte bound */
    gp_rec *v;                 /* sorted by (namespace, kind, name) after decoding; by monthly
                                * dollars, descending, after gp_recs_from_report() */
    size_t n;
} gp_recs;

/* The recommendations of a report: one per workload with a MIG finding (its namespace, workload
 * kind and name, gpu_memory, mig_profile, evidence, monthly), created at now and expiring at
 * now + ttl seconds, in the report's order (dollars, descending). Node findings and findings
 * without a gpu-memory value are not recommendations. GP_ENOMEM. The caller frees *out with
 * gp_recs_free(). */
gp_status gp_recs_from_report(const gp_adv_report *rep, double now, double ttl, gp_recs *out)
    GP_WUR;

/* The document for r into out, at most max_bytes (0: GP_RECS_DEFAULT_MAX_BYTES): when all of
 * r does not fit, the first recommendations that do (r's order: the most dollars first) and
 * "dropped" says how many more there were; *kept (may be NULL) says how many were written.
 * GP_ENOMEM; GP_ETOOBIG when not even the document without recommendations fits. */
gp_status gp_recs_encode(const gp_recs *r, size_t max_bytes, gp_strbuf *out, size_t *kept)
    GP_WUR;

/* Decodes a document (len bytes, at most GP_RECS_CONFIGMAP_MAX) into *out, sorted for
 * gp_recs_find(); a workload named twice keeps its first entry. GP_EINVAL with err naming the
 * JSON path of the first thing wrong ("recommendations[3].gpuMemory: want a quantity over
 * zero"); GP_ETOOBIG; GP_ENOMEM. On failure *out is empty. */
gp_status gp_recs_decode(const char *json, size_t len, gp_recs *out, gp_err *err) GP_WUR;

/* The recommendation for a workload, or NULL. Expired ones are returned too: the caller
 * decides with gp_rec_expired(). r must come from gp_recs_decode(). */
const gp_rec *gp_recs_find(const gp_recs *r, const char *ns, const char *kind, const char *name);

/* True when now is at or past the recommendation's expiry. */
bool gp_rec_expired(const gp_rec *rec, double now);

void gp_recs_free(gp_recs *r);

/* A decoded table shared between threads by reference count: what the webhook keeps in a
 * gp_snapshot slot (snapshot.h) with gp_recs_shared_ref / gp_recs_shared_unref, swapped whole on
 * reload while requests keep the one they took. */
typedef struct gp_recs_shared gp_recs_shared;

/* Takes over the contents of *recs (left empty); NULL when out of memory (recs then freed). */
gp_recs_shared *gp_recs_shared_new(gp_recs *recs);
void *gp_recs_shared_ref(void *shared);
void gp_recs_shared_unref(void *shared);
const gp_recs *gp_recs_shared_table(const gp_recs_shared *shared);

#endif
